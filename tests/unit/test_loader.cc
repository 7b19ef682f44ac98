// The plugin loader against deliberately broken plugins built by this folder's CMakeLists.txt.
// Real plugins of the build tree may be found too (the folder beside libxshmem.so); nothing here
// depends on whether they exist.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <string>

#include "../catch_compat.h"
#include "config.h"
#include "loader.h"
#include "log.h"
#include "util.h"

using namespace xshmem;

namespace {

const plugins::Refused *refused_file(const plugins::Loader &l, const std::string &file) {
  for (const auto &r : l.refused())
    if (r.path == std::string(XT_PLUGIN_DIR) + "/" + file) return &r;
  return nullptr;
}

bool listed(const std::string &name) {
  for (const auto &v : config::list())
    if (v.name == name) return true;
  return false;
}

std::string owner_of(const std::string &name) {
  for (const auto &v : config::list())
    if (v.name == name) return v.owner;
  return "";
}

std::string real(const std::string &p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? buf : p;
}

// The refusal line of `file`, or "".
std::string refusal_line(const ut::LogCapture &cap, const std::string &file) {
  for (const std::string &l : cap.lines())
    if (l.find("refusing plugin " + std::string(XT_PLUGIN_DIR) + "/" + file + ":") !=
        std::string::npos)
      return l;
  return "";
}

}  // namespace

TEST_CASE("loader refuses broken plugins with reasons and loads the good ones", "[loader]") {
  const std::string dir = XT_PLUGIN_DIR, dir2 = XT_PLUGIN_DIR2;
  ut::EnvGuard env;
  // The same folder twice (once spelled differently) is scanned once.
  env.set("XSHMEM_PLUGIN_PATH", (dir + ":" + dir2 + ":" + dir + "/.").c_str());
  env.set("XSHMEM_UNITTEST_GOOD_KNOB", "12K");
  ut::LogCapture cap("debug");

  plugins::Loader loader;
  loader.scan(ut::test_services());
  INFO(cap.text());

  const auto &sp = loader.search_path();
  REQUIRE(sp.size() >= 2);
  CHECK(sp[0] == dir);
  CHECK(sp[1] == dir2);
  size_t same = 0;
  for (const std::string &p : sp) same += real(p) == real(dir) ? 1 : 0;
  CHECK(same == 1);
  // The folder beside libxshmem.so is searched next.
  Dl_info info{};
  REQUIRE(dladdr(reinterpret_cast<void *>(&config::list), &info) != 0);
  std::string lib = real(info.dli_fname);  // the loader resolves a relative name too
  REQUIRE(sp.size() >= 3);
  CHECK(sp[2] == lib.substr(0, lib.rfind('/')) + "/xshmem");

  const std::string ts = std::to_string(sizeof(xshmem_transport_v1_t));
  const std::string bs = std::to_string(sizeof(xshmem_bootstrap_v1_t));

  SECTION("wrong abi_version") {
    const plugins::Refused *r = refused_file(loader, "libxshmem_transport_unittest_badabi.so");
    REQUIRE(r != nullptr);
    CHECK(r->reason == "abi_version 7 is not the core's 1");
    std::string line = refusal_line(cap, "libxshmem_transport_unittest_badabi.so");
    CHECK(line.find("] warn: refusing plugin") != std::string::npos);
    CHECK(line.find("plugin abi_version 7 struct_size " + ts + "; core abi_version 1 struct_size " +
                    ts) != std::string::npos);
  }
  SECTION("struct_size too small") {
    const plugins::Refused *r = refused_file(loader, "libxshmem_transport_unittest_small.so");
    REQUIRE(r != nullptr);
    CHECK(r->reason == "struct_size 16 is smaller than the core's minimum " +
                           std::to_string(XSHMEM_TRANSPORT_V1_MIN_SIZE));
    std::string line = refusal_line(cap, "libxshmem_transport_unittest_small.so");
    CHECK(line.find("plugin abi_version 1 struct_size 16; core abi_version 1 struct_size " + ts) !=
          std::string::npos);
  }
  SECTION("load() fails: refused, its config entries removed") {
    const plugins::Refused *r = refused_file(loader, "libxshmem_bootstrap_unittest_loadfail.so");
    REQUIRE(r != nullptr);
    CHECK(r->reason == "load() failed with status -5 (i/o error)");
    std::string line = refusal_line(cap, "libxshmem_bootstrap_unittest_loadfail.so");
    CHECK(line.find("plugin abi_version 1 struct_size " + bs + "; core abi_version 1 struct_size " +
                    bs) != std::string::npos);
    CHECK(cap.text().find("unittest_loadfail] debug: failing load on purpose") !=
          std::string::npos);
    CHECK_FALSE(listed("XSHMEM_UNITTEST_LOADFAIL_KNOB"));
    CHECK(loader.find_bootstrap("unittest_loadfail") == nullptr);
  }
  SECTION("no entry symbol") {
    const plugins::Refused *r = refused_file(loader, "libxshmem_transport_unittest_nosym.so");
    REQUIRE(r != nullptr);
    CHECK(r->reason == "entry symbol xshmem_transport_plugin_v1 not found");
    std::string line = refusal_line(cap, "libxshmem_transport_unittest_nosym.so");
    CHECK(line.find("plugin abi_version unknown struct_size unknown; core abi_version 1") !=
          std::string::npos);
  }
  SECTION("not a shared library") {
    const plugins::Refused *r = refused_file(loader, "libxshmem_transport_unittest_garbage.so");
    REQUIRE(r != nullptr);
    CHECK(r->reason.rfind("dlopen failed: ", 0) == 0);
    CHECK(r->reason.find("libxshmem_transport_unittest_garbage.so") != std::string::npos);
    CHECK(refusal_line(cap, "libxshmem_transport_unittest_garbage.so") != "");
  }
  SECTION("good transport: loaded, entry owned by it, services round trip") {
    const plugins::Transport *t = loader.find_transport("unittest_good");
    REQUIRE(t != nullptr);
    CHECK(t->path == dir + "/libxshmem_transport_unittest_good.so");
    CHECK(t->ops->abi_version == XSHMEM_TRANSPORT_ABI_VERSION);
    CHECK(std::string(t->ops->name) == "unittest_good");
    CHECK(owner_of("XSHMEM_UNITTEST_GOOD_KNOB") == "unittest_good");
    void *ctx = nullptr;
    REQUIRE(t->ops->init(&ctx) == XSHMEM_SUCCESS);
    CHECK(reinterpret_cast<intptr_t>(ctx) == 12 * 1024);  // read by load() through svc
    CHECK(cap.text().find("unittest_good] info: knob is 12288") != std::string::npos);
    CHECK(refused_file(loader, "libxshmem_transport_unittest_good.so") == nullptr);
  }
  SECTION("a transport of minor version 1.0 loads; ops past its struct_size count as absent") {
    const plugins::Transport *t = loader.find_transport("unittest_v10");
    REQUIRE(t != nullptr);
    CHECK(t->ops->struct_size == XSHMEM_TRANSPORT_V1_MIN_SIZE);
    CHECK(t->ops->struct_size < sizeof(xshmem_transport_v1_t));
    CHECK_FALSE(XSHMEM_TRANSPORT_HAS_OP(t->ops, heap_grow));
    CHECK(XSHMEM_TRANSPORT_HAS_OP(t->ops, finalize));
    CHECK(refused_file(loader, "libxshmem_transport_unittest_v10.so") == nullptr);
  }
  SECTION("a transport of minor version 1.1 loads; data_ops and predict count as absent") {
    const plugins::Transport *t = loader.find_transport("unittest_v11");
    REQUIRE(t != nullptr);
    CHECK(t->ops->struct_size == offsetof(xshmem_transport_v1_t, data_ops));
    CHECK(XSHMEM_TRANSPORT_V1_MIN_SIZE < t->ops->struct_size);
    CHECK_FALSE(XSHMEM_TRANSPORT_HAS_OP(t->ops, data_ops));
    CHECK_FALSE(XSHMEM_TRANSPORT_HAS_OP(t->ops, predict));
    CHECK(refused_file(loader, "libxshmem_transport_unittest_v11.so") == nullptr);
  }
  SECTION("a transport of 1.2 with a data-operations table loads; its table is adopted") {
    const plugins::Transport *t = loader.find_transport("unittest_v12ops");
    REQUIRE(t != nullptr);
    CHECK(t->ops->struct_size == sizeof(xshmem_transport_v1_t));
    REQUIRE(XSHMEM_TRANSPORT_HAS_OP(t->ops, data_ops));
    CHECK(t->ops->data_ops->struct_size == sizeof(xshmem_transport_data_ops_v1_t));
    CHECK(XSHMEM_DATA_OPS_HAS_OP(t->ops->data_ops, put));
    CHECK_FALSE(XSHMEM_DATA_OPS_HAS_OP(t->ops->data_ops, get));
    CHECK(refused_file(loader, "libxshmem_transport_unittest_v12ops.so") == nullptr);
  }
  SECTION("a data-operations table smaller than put..quiet is refused at load") {
    const std::string f = "libxshmem_transport_unittest_smallops.so";
    const plugins::Refused *r = refused_file(loader, f);
    REQUIRE(r != nullptr);
    CHECK(r->reason == "data_ops struct_size " +
                           std::to_string(offsetof(xshmem_transport_data_ops_v1_t, quiet)) +
                           " is smaller than the core's minimum " +
                           std::to_string(XSHMEM_TRANSPORT_DATA_OPS_V1_MIN_SIZE) +
                           " (put through quiet; core " +
                           std::to_string(sizeof(xshmem_transport_data_ops_v1_t)) + ")");
    std::string line = refusal_line(cap, f);
    CHECK(line.find("] warn: refusing plugin") != std::string::npos);
    CHECK(line.find("plugin abi_version 1 struct_size " + ts + "; core abi_version 1 struct_size " +
                    ts) != std::string::npos);
    CHECK(loader.find_transport("unittest_smallops") == nullptr);
  }
  SECTION("good bootstrap") {
    const plugins::Bootstrap *b = loader.find_bootstrap("unittest_good");
    REQUIRE(b != nullptr);
    CHECK(b->path == dir + "/libxshmem_bootstrap_unittest_good.so");
    int rank = -1, size = -1;
    void *ctx = &rank;
    REQUIRE(b->ops->init(nullptr, &ctx, &rank, &size) == XSHMEM_SUCCESS);
    CHECK(rank == 0);
    CHECK(size == 1);
  }
  SECTION("a later plugin of the same name is skipped, not refused") {
    std::string dup = dir2 + "/libxshmem_transport_unittest_dup.so";
    for (const auto &r : loader.refused()) CHECK(r.path != dup);
    for (const auto &t : loader.transports()) CHECK(t.path != dup);
    CHECK(cap.text().find("skipping " + dup +
                          ": a transport plugin named unittest_good was "
                          "already loaded") != std::string::npos);
  }
  SECTION("scan is idempotent; unload_all removes plugins and their entries") {
    size_t refused = loader.refused().size(), transports = loader.transports().size();
    loader.scan(ut::test_services());
    CHECK(loader.refused().size() == refused);
    CHECK(loader.transports().size() == transports);
    REQUIRE(listed("XSHMEM_UNITTEST_GOOD_KNOB"));
    loader.unload_all();
    CHECK(loader.transports().empty());
    CHECK(loader.bootstraps().empty());
    CHECK(loader.refused().empty());
    CHECK_FALSE(listed("XSHMEM_UNITTEST_GOOD_KNOB"));
    CHECK(listed("XSHMEM_SYMMETRIC_SIZE"));
    // A fresh scan after unload works again.
    loader.scan(ut::test_services());
    CHECK(loader.find_transport("unittest_good") != nullptr);
    CHECK(listed("XSHMEM_UNITTEST_GOOD_KNOB"));
  }
  // Every refusal of our folder went through a warn line.
  for (const auto &r : loader.refused())
    if (r.path.rfind(dir + "/", 0) == 0)
      CHECK(refusal_line(cap, r.path.substr(dir.size() + 1)) != "");
}

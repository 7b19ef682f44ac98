// The core's side of a transport's data operations: the adopted table (stubs for what a plugin
// leaves out) and the asynchronous-error poll the host PROXY path's quiet carries.
#include <cstdio>
#include <cstring>
#include <string>

#include "../catch_compat.h"
#include "runtime_internal.h"
#include "util.h"

using namespace xshmem;

namespace {

// A fake transport: quiet counts its calls per context; error_query reports an error once the
// context's `fail_after` quiets have run.
struct FakeCtx {
  int quiets = 0;
  int fail_after = -1;
  int pe = 0;
};

xshmem_status_t fake_put(void *, int, int, uint64_t, const void *, size_t, uint32_t) {
  return XSHMEM_SUCCESS;
}
xshmem_status_t fake_quiet(void *ctx, int) {
  ++static_cast<FakeCtx *>(ctx)->quiets;
  return XSHMEM_SUCCESS;
}
xshmem_status_t fake_error_query(void *ctx, char *buf, size_t len) {
  auto *c = static_cast<FakeCtx *>(ctx);
  if (c->fail_after < 0 || c->quiets < c->fail_after) return XSHMEM_SUCCESS;
  snprintf(buf, len, "connection to pe %d lost after %d quiets", c->pe, c->quiets);
  return XSHMEM_ERR_PEER_FAILED;
}

const xshmem_transport_data_ops_v1_t kOps = {
    .struct_size = sizeof(xshmem_transport_data_ops_v1_t),
    .flags = 0,
    .put = fake_put,
    .get = nullptr,
    .amo = nullptr,
    .put_signal = nullptr,
    .fence = nullptr,
    .quiet = fake_quiet,
    .progress = nullptr,
    .mem_register = nullptr,
    .mem_deregister = nullptr,
    .error_query = fake_error_query,
};

xshmem_transport_v1_t fake_transport(const xshmem_transport_data_ops_v1_t *ops) {
  xshmem_transport_v1_t t{};
  t.abi_version = XSHMEM_TRANSPORT_ABI_VERSION;
  t.struct_size = sizeof(t);
  t.name = "fake";
  t.data_ops = ops;
  return t;
}

}  // namespace

TEST_CASE("data ops: what a plugin leaves out is a typed not-supported stub", "[transports]") {
  const xshmem_transport_v1_t t = fake_transport(&kOps);
  plugins::Transport plugin{"fake", "/nowhere", nullptr, &t};
  core::ActiveTransport at{&plugin};
  FakeCtx ctx;
  at.ctx = &ctx;
  core::adopt_data_ops(at);
  REQUIRE(at.has_data_ops);
  CHECK(at.data.put == fake_put);
  CHECK(at.data.quiet == fake_quiet);
  char buf[8];
  uint64_t v = 0;
  CHECK(at.data.get(&ctx, 0, 1, buf, 0, sizeof(buf), 0) == XSHMEM_ERR_UNSUPPORTED);
  CHECK(at.data.amo(&ctx, 0, 1, 0, XSHMEM_AMO_FETCH_ADD, XSHMEM_AMO_U64, 1, 0, &v, 0) ==
        XSHMEM_ERR_UNSUPPORTED);
  CHECK(at.data.fence(&ctx, 0) == XSHMEM_ERR_UNSUPPORTED);
  CHECK(at.data.progress(&ctx) == XSHMEM_SUCCESS);
  // A 1.0/1.1 plugin (no data_ops): every operation is a stub, error_query reports nothing.
  xshmem_transport_v1_t old = fake_transport(&kOps);
  old.struct_size = offsetof(xshmem_transport_v1_t, data_ops);
  plugins::Transport old_plugin{"old", "/nowhere", nullptr, &old};
  core::ActiveTransport oa{&old_plugin};
  core::adopt_data_ops(oa);
  CHECK_FALSE(oa.has_data_ops);
  CHECK(oa.data.put(&ctx, 0, 1, 0, buf, 1, 0) == XSHMEM_ERR_UNSUPPORTED);
  char line[16] = "x";
  CHECK(oa.data.error_query(&ctx, line, sizeof(line)) == XSHMEM_SUCCESS);
  CHECK(line[0] == '\0');
}

TEST_CASE("data ops: quiet polls error_query once and stops with the transport's line",
          "[transports]") {
  ut::LogCapture cap("warn");
  const xshmem_transport_v1_t t = fake_transport(&kOps);
  plugins::Transport plugin{"fake", "/nowhere", nullptr, &t};
  // Two transports' contexts: only the second one fails, after 3 quiets.
  FakeCtx good, bad;
  bad.fail_after = 3;
  bad.pe = 5;
  core::ActiveTransport a1{&plugin}, a2{&plugin};
  a1.ctx = &good;
  a2.ctx = &bad;
  core::adopt_data_ops(a1);
  core::adopt_data_ops(a2);
  core::watch_async_errors(a1);
  core::watch_async_errors(a2);
  CHECK(a1.data.quiet != fake_quiet);  // the wrapper
  for (int i = 0; i < 5; ++i) CHECK(a1.data.quiet(&good, 0) == XSHMEM_SUCCESS);
  CHECK(good.quiets == 5);
  CHECK(a2.data.quiet(&bad, 0) == XSHMEM_SUCCESS);
  CHECK(a2.data.quiet(&bad, 1) == XSHMEM_SUCCESS);
  CHECK(a2.data.quiet(&bad, 0) == XSHMEM_ERR_PEER_FAILED);  // the third quiet sees the error
  CHECK(bad.quiets == 3);
  const std::string log = cap.text();
  INFO(log);
  CHECK(ut::count(log, "reports an asynchronous error") == 1);
  CHECK(log.find("error: transport fake reports an asynchronous error (status -7, ") !=
        std::string::npos);
  CHECK(log.find("): connection to pe 5 lost after 3 quiets; stopping") != std::string::npos);
  core::stop_transports();                               // forgets the watched transports
  CHECK(a2.data.quiet(&bad, 0) == XSHMEM_ERR_INTERNAL);  // no longer known: never a silent pass
}

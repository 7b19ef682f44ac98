// xshmem core: the plugin loader; finds, opens and checks transport and bootstrap plugins.
#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "config.h"
#include "log.h"
#include "status.h"

namespace xshmem::plugins {
namespace {

constexpr const char *kSubsys = "plugins";
constexpr const char *kTransportPrefix = "libxshmem_transport_";
constexpr const char *kBootstrapPrefix = "libxshmem_bootstrap_";

enum class Kind { kTransport, kBootstrap };

bool ends_with(const std::string &s, const char *suffix) {
  size_t n = strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The folder of the library (or executable) this loader is linked into, + "/xshmem": the build
// tree's lib/xshmem beside build/lib/libxshmem.so, or the install's <libdir>/xshmem. Tools that
// link the core's objects themselves (xshmem-info in bin/) also look in ../lib/xshmem.
std::vector<std::string> folders_beside_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&folders_beside_library), &info) == 0 ||
      info.dli_fname == nullptr)
    return {};
  // An executable's name may be relative to the working directory (as it was started).
  char real[PATH_MAX];
  std::string file = realpath(info.dli_fname, real) ? real : info.dli_fname;
  size_t slash = file.rfind('/');
  if (slash == std::string::npos) return {};
  const std::string dir = file.substr(0, slash);
  std::vector<std::string> out{dir + "/xshmem"};
  if (!ends_with(file, ".so") && file.find(".so.") == std::string::npos && dir.size() >= 4 &&
      dir.compare(dir.size() - 4, 4, "/bin") == 0)
    out.push_back(dir.substr(0, dir.size() - 4) + "/lib/xshmem");
  return out;
}

std::vector<std::string> plugin_files(const std::string &dir) {
  std::vector<std::string> names;
  DIR *d = opendir(dir.c_str());
  if (d == nullptr) {
    XLOG_DEBUG(kSubsys, "skipping folder %s: %s", dir.c_str(), strerror(errno));
    return names;
  }
  while (dirent *ent = readdir(d)) {
    std::string n = ent->d_name;
    bool prefixed = n.rfind(kTransportPrefix, 0) == 0 || n.rfind(kBootstrapPrefix, 0) == 0;
    if (prefixed && ends_with(n, ".so")) names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());  // deterministic order within a folder
  return names;
}

// The common head of every plugin struct (DESIGN.md: {abi_version, struct_size, name, caps}).
struct Head {
  uint32_t abi_version;
  uint32_t struct_size;
  const char *name;
};

}  // namespace

void Loader::scan(const xshmem_core_services_v1_t *svc) {
  if (scanned_) return;
  if (svc == nullptr) {
    XLOG_ERROR(kSubsys,
               "plugin scan without a services table (a bug in the caller); no plugins "
               "loaded");
    return;
  }
  scanned_ = true;

  std::vector<std::string> candidates;
  std::string env = config::get_string("XSHMEM_PLUGIN_PATH");
  size_t pos = 0;
  while (pos <= env.size()) {
    size_t colon = env.find(':', pos);
    if (colon == std::string::npos) colon = env.size();
    if (colon > pos) candidates.push_back(env.substr(pos, colon - pos));
    pos = colon + 1;
  }
  for (const std::string &beside : folders_beside_library()) candidates.push_back(beside);
#ifdef XSHMEM_PLUGIN_INSTALL_DIR
  candidates.push_back(XSHMEM_PLUGIN_INSTALL_DIR);
#endif

  std::set<std::string> seen;
  for (const std::string &dir : candidates) {
    char real[PATH_MAX];
    std::string key = realpath(dir.c_str(), real) ? std::string(real) : dir;
    if (!seen.insert(key).second) continue;
    search_path_.push_back(dir);
    std::vector<std::string> files = plugin_files(dir);
    XLOG_DEBUG(kSubsys, "scanning %s: %zu candidate plugin file(s)", dir.c_str(), files.size());
    for (const std::string &f : files) {
      Kind kind = f.rfind(kTransportPrefix, 0) == 0 ? Kind::kTransport : Kind::kBootstrap;
      std::string path = dir + "/" + f;
      const char *symbol =
          kind == Kind::kTransport ? XSHMEM_TRANSPORT_SYMBOL_V1 : XSHMEM_BOOTSTRAP_SYMBOL_V1;
      uint32_t core_abi =
          kind == Kind::kTransport ? XSHMEM_TRANSPORT_ABI_VERSION : XSHMEM_BOOTSTRAP_ABI_VERSION;
      uint32_t core_size =
          kind == Kind::kTransport ? sizeof(xshmem_transport_v1_t) : sizeof(xshmem_bootstrap_v1_t);
      // Minor versions append fields: a plugin built against an older SDK of the same major
      // version is accepted down to the size of version 1.0 (ops past its struct_size are NULL).
      uint32_t min_size =
          kind == Kind::kTransport ? XSHMEM_TRANSPORT_V1_MIN_SIZE : XSHMEM_BOOTSTRAP_V1_MIN_SIZE;
      const Head *head = nullptr;
      void *handle = nullptr;
      const char *kind_name = kind == Kind::kTransport ? "transport" : "bootstrap";

      auto refuse = [&](const std::string &reason) {
        std::string versions = head ? "plugin abi_version " + std::to_string(head->abi_version) +
                                          " struct_size " + std::to_string(head->struct_size)
                                    : std::string("plugin abi_version unknown struct_size unknown");
        XLOG_WARN(kSubsys,
                  "refusing plugin %s: %s (%s; core abi_version %u struct_size %u); fix or "
                  "remove the file, or take its folder out of XSHMEM_PLUGIN_PATH",
                  path.c_str(), reason.c_str(), versions.c_str(), core_abi, core_size);
        refused_.push_back({path, reason});
        // Every major version starts with the head, so the name is readable when the struct is
        // at least that long (copied before dlclose).
        bool named = head && head->struct_size >= sizeof(Head) && head->name != nullptr;
        files_.push_back({path, kind_name, named ? head->name : "", "refused", reason,
                          head ? head->abi_version : 0, head ? head->struct_size : 0});
        if (handle != nullptr) dlclose(handle);
      };

      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        const char *err = dlerror();
        refuse(std::string("dlopen failed: ") + (err ? err : "unknown error"));
        continue;
      }
      dlerror();
      void *sym = dlsym(handle, symbol);
      if (sym == nullptr) {
        refuse(std::string("entry symbol ") + symbol + " not found");
        continue;
      }
      head = static_cast<const Head *>(sym);
      if (head->abi_version != core_abi) {
        refuse("abi_version " + std::to_string(head->abi_version) + " is not the core's " +
               std::to_string(core_abi));
        continue;
      }
      if (head->struct_size < min_size) {
        refuse("struct_size " + std::to_string(head->struct_size) +
               " is smaller than the core's minimum " + std::to_string(min_size));
        continue;
      }
      if (head->name == nullptr || head->name[0] == '\0') {
        refuse("the plugin has no name");
        continue;
      }
      std::string name = head->name;

      // Every operation but the optional ones must be there: the core calls them unchecked.
      const char *missing = nullptr;
      xshmem_status_t (*load)(const xshmem_core_services_v1_t *) = nullptr;
      if (kind == Kind::kTransport) {
        auto *t = static_cast<const xshmem_transport_v1_t *>(sym);
        load = t->load;
        if (!t->init)
          missing = "init";
        else if (!t->heap_register)
          missing = "heap_register";
        else if (!t->can_reach)
          missing = "can_reach";
        else if (!t->connect)
          missing = "connect";
        else if (!t->heap_deregister)
          missing = "heap_deregister";
        else if (!t->finalize)
          missing = "finalize";
      } else {
        auto *b = static_cast<const xshmem_bootstrap_v1_t *>(sym);
        load = b->load;
        if (!b->detect)
          missing = "detect";
        else if (!b->init)
          missing = "init";
        else if (!b->allgather)
          missing = "allgather";
        else if (!b->alltoall)
          missing = "alltoall";
        else if (!b->bcast)
          missing = "bcast";
        else if (!b->barrier)
          missing = "barrier";
        else if (!b->abort)
          missing = "abort";
        else if (!b->finalize)
          missing = "finalize";
      }
      if (missing != nullptr) {
        refuse(std::string("operation ") + missing + " is NULL");
        continue;
      }
      // The data-operations table (1.2) is sized on its own: the core calls put..quiet through
      // it unchecked (the ones left NULL become "not supported" stubs), so a shorter table is
      // refused here, with the plugin, rather than at init.
      if (kind == Kind::kTransport) {
        auto *t = static_cast<const xshmem_transport_v1_t *>(sym);
        if (XSHMEM_TRANSPORT_HAS_OP(t, data_ops) &&
            t->data_ops->struct_size < XSHMEM_TRANSPORT_DATA_OPS_V1_MIN_SIZE) {
          refuse("data_ops struct_size " + std::to_string(t->data_ops->struct_size) +
                 " is smaller than the core's minimum " +
                 std::to_string(XSHMEM_TRANSPORT_DATA_OPS_V1_MIN_SIZE) +
                 " (put through quiet; core " +
                 std::to_string(sizeof(xshmem_transport_data_ops_v1_t)) + ")");
          continue;
        }
      }

      bool duplicate = kind == Kind::kTransport ? find_transport(name) != nullptr
                                                : find_bootstrap(name) != nullptr;
      if (duplicate) {
        XLOG_DEBUG(kSubsys, "skipping %s: a %s plugin named %s was already loaded", path.c_str(),
                   kind_name, name.c_str());
        files_.push_back({path, kind_name, name, "skipped",
                          std::string("a ") + kind_name + " plugin named " + name +
                              " was loaded from an earlier file",
                          head->abi_version, head->struct_size});
        dlclose(handle);
        continue;
      }

      if (load != nullptr) {
        xshmem_status_t st;
        {
          config::OwnerScope owner(name.c_str());
          st = load(svc);
        }
        if (st != XSHMEM_SUCCESS) {
          config::unregister_owner(name.c_str());
          refuse("load() failed with status " + std::to_string(st) + " (" + Status::status_str(st) +
                 ")");
          continue;
        }
      }

      XLOG_INFO(kSubsys, "loaded %s plugin %s from %s", kind_name, name.c_str(), path.c_str());
      files_.push_back({path, kind_name, name, "loaded", "", head->abi_version, head->struct_size});
      if (kind == Kind::kTransport)
        transports_.push_back(
            {name, path, handle, static_cast<const xshmem_transport_v1_t *>(sym)});
      else
        bootstraps_.push_back(
            {name, path, handle, static_cast<const xshmem_bootstrap_v1_t *>(sym)});
    }
  }
}

const Transport *Loader::find_transport(const std::string &name) const {
  for (const Transport &t : transports_)
    if (t.name == name) return &t;
  return nullptr;
}

const Bootstrap *Loader::find_bootstrap(const std::string &name) const {
  for (const Bootstrap &b : bootstraps_)
    if (b.name == name) return &b;
  return nullptr;
}

void Loader::unload_all() {
  // Transports before the bootstraps they may rely on; a plugin's entries leave the table before
  // its code goes away.
  for (auto it = transports_.rbegin(); it != transports_.rend(); ++it) {
    config::unregister_owner(it->name.c_str());
    if (it->handle != nullptr) dlclose(it->handle);
  }
  for (auto it = bootstraps_.rbegin(); it != bootstraps_.rend(); ++it) {
    config::unregister_owner(it->name.c_str());
    if (it->handle != nullptr) dlclose(it->handle);
  }
  bootstraps_.clear();
  transports_.clear();
  refused_.clear();
  files_.clear();
  search_path_.clear();
  scanned_ = false;
}

}  // namespace xshmem::plugins

// xshmem core: the plugin loader; finds, opens and checks transport and bootstrap plugins.
//
// Scans, in order, the folders of XSHMEM_PLUGIN_PATH (colon separated), then the "xshmem" folder
// beside libxshmem.so (the build tree's lib/xshmem, or the install's <libdir>/xshmem; a tool in
// bin/ that links the core's objects also scans ../lib/xshmem), then the configured install folder,
// for libxshmem_transport_*.so and libxshmem_bootstrap_*.so. There is no list of names: whatever is
// found is tried. A plugin is refused (logged at warn level with the file, the ABI versions and the
// reason; the others go on) when dlopen fails, the entry symbol is missing, abi_version or
// struct_size do not match, or its load() fails. The first plugin of a given name wins; later ones
// of the same name are skipped with a debug line.
#ifndef XSHMEM_CORE_LOADER_H
#define XSHMEM_CORE_LOADER_H

#include <cstdint>
#include <string>
#include <vector>

#include <xshmem/plugin/bootstrap_v1.h>
#include <xshmem/plugin/transport_v1.h>

namespace xshmem::plugins {

struct Transport {
  std::string name, path;
  void *handle = nullptr;
  const xshmem_transport_v1_t *ops = nullptr;
};
struct Bootstrap {
  std::string name, path;
  void *handle = nullptr;
  const xshmem_bootstrap_v1_t *ops = nullptr;
};
struct Refused {
  std::string path, reason;
};
// What the scan made of one plugin file (xshmem-info lists them all, in scan order).
struct FileRecord {
  std::string path;
  std::string kind;     // "transport" or "bootstrap" (from the file name)
  std::string name;     // the plugin's name, when it could be read
  std::string outcome;  // "loaded", "refused" or "skipped" (a plugin of that name came first)
  std::string reason;   // why refused or skipped; empty when loaded
  // The versions the file declares; 0 when its entry symbol could not be read.
  uint32_t abi_version = 0, struct_size = 0;
};

class Loader {
 public:
  Loader() = default;
  Loader(const Loader &) = delete;
  Loader &operator=(const Loader &) = delete;
  ~Loader() { unload_all(); }

  // Scans the folders and loads every plugin found (idempotent: a second call does nothing).
  void scan(const xshmem_core_services_v1_t *svc);
  const std::vector<Transport> &transports() const { return transports_; }
  const std::vector<Bootstrap> &bootstraps() const { return bootstraps_; }
  const std::vector<Refused> &refused() const { return refused_; }
  // Every candidate file of every folder, loaded or not.
  const std::vector<FileRecord> &files() const { return files_; }
  // The folders scanned, in order (for xshmem-info and diagnostics).
  const std::vector<std::string> &search_path() const { return search_path_; }
  const Transport *find_transport(const std::string &name) const;
  const Bootstrap *find_bootstrap(const std::string &name) const;
  // dlcloses everything (also removes the plugins' config entries).
  void unload_all();

 private:
  bool scanned_ = false;
  std::vector<std::string> search_path_;
  std::vector<Transport> transports_;
  std::vector<Bootstrap> bootstraps_;
  std::vector<Refused> refused_;
  std::vector<FileRecord> files_;
};

}  // namespace xshmem::plugins

#endif  // XSHMEM_CORE_LOADER_H

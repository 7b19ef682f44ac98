// xshmem-info: pre-flight checks. Every library is reached through dlopen (or, for the CUDA
// driver, the core's loader), so the tool starts on machines without a GPU driver, rdma-core or
// libfabric, and a missing piece is a skip with its reason.
#include <dlfcn.h>
#include <glob.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "config.h"
#include "cuda/cuda_rt.h"
#include "info.h"
#include "xshmem_info_build.h"

#if XSHMEM_INFO_HAVE_CUDA
#include <cuda.h>
#endif
#if __has_include(<infiniband/mlx5dv.h>) && __has_include(<infiniband/verbs.h>)
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#define XSHMEM_INFO_HAVE_VERBS_H 1
#else
#define XSHMEM_INFO_HAVE_VERBS_H 0
#endif
#if __has_include(<rdma/fabric.h>)
#include <rdma/fabric.h>
#define XSHMEM_INFO_HAVE_FABRIC_H 1
#else
#define XSHMEM_INFO_HAVE_FABRIC_H 0
#endif

namespace xshmem::info {
namespace {

void add(std::vector<Check> &out, const char *status, std::string name, std::string detail) {
  out.push_back({status, std::move(name), std::move(detail)});
}

// dlopen of the first name that loads; `error` gets dlerror's text of the last attempt.
void *open_first(std::initializer_list<const char *> names, std::string *error) {
  for (const char *n : names) {
    if (void *h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    const char *e = dlerror();
    *error = e ? e : std::string("cannot load ") + n;
  }
  return nullptr;
}

// ---- GPUs ---------------------------------------------------------------------------------------

void gpu_checks(std::vector<Check> &out) {
#if XSHMEM_INFO_HAVE_CUDA
  std::string why;
  if (!cuda::driver_usable(&why)) {
    add(out, "skip", "gpu-driver", "no usable CUDA driver: " + why);
    add(out, "skip", "gpu-peer-access", "no usable CUDA driver");
    add(out, "skip", "gpu-vmm", "no usable CUDA driver");
    return;
  }
  auto get_count =
      reinterpret_cast<decltype(&::cuDeviceGetCount)>(cuda::driver_proc("cuDeviceGetCount"));
  auto get_dev = reinterpret_cast<decltype(&::cuDeviceGet)>(cuda::driver_proc("cuDeviceGet"));
  auto get_name =
      reinterpret_cast<decltype(&::cuDeviceGetName)>(cuda::driver_proc("cuDeviceGetName"));
  auto get_attr = reinterpret_cast<decltype(&::cuDeviceGetAttribute)>(
      cuda::driver_proc("cuDeviceGetAttribute"));
  auto can_peer = reinterpret_cast<decltype(&::cuDeviceCanAccessPeer)>(
      cuda::driver_proc("cuDeviceCanAccessPeer"));
  if (!get_count || !get_dev || !get_name || !get_attr || !can_peer) {
    add(out, "fail", "gpu-driver",
        "the CUDA driver lacks cuDeviceGetCount, cuDeviceGet, cuDeviceGetName, "
        "cuDeviceGetAttribute or cuDeviceCanAccessPeer");
    return;
  }
  int count = 0;
  if (CUresult r = get_count(&count); r != CUDA_SUCCESS) {
    add(out, "fail", "gpu-driver", "cuDeviceGetCount failed with CUresult " + std::to_string(r));
    return;
  }
  std::vector<CUdevice> devs(count);
  std::string names;
  for (int i = 0; i < count; ++i) {
    char name[256] = {0};
    get_dev(&devs[i], i);
    get_name(name, sizeof(name) - 1, devs[i]);
    names += std::string(i ? ", " : "") + std::to_string(i) + ": " + name;
  }
  if (count == 0) {
    add(out, "skip", "gpu-driver", "CUDA driver loaded, but it sees no GPU");
    add(out, "skip", "gpu-peer-access", "no GPU");
    add(out, "skip", "gpu-vmm", "no GPU");
    return;
  }
  add(out, "pass", "gpu-driver",
      "CUDA driver loaded, " + std::to_string(count) + " GPU(s) (" + names + ")");
  if (count < 2) add(out, "skip", "gpu-peer-access", "one GPU: no pair to check");
  for (int i = 0; i < count; ++i)
    for (int j = i + 1; j < count; ++j) {
      int ij = 0, ji = 0;
      can_peer(&ij, devs[i], devs[j]);
      can_peer(&ji, devs[j], devs[i]);
      std::string name = "gpu-peer-access " + std::to_string(i) + "-" + std::to_string(j);
      if (ij && ji)
        add(out, "pass", name, "each GPU can map the other's memory (nvlink transport)");
      else
        add(out, "fail", name,
            std::string("cuDeviceCanAccessPeer: ") + (ij ? "yes" : "no") + " from " +
                std::to_string(i) + ", " + (ji ? "yes" : "no") + " from " + std::to_string(j) +
                "; PEs on these GPUs cannot use the nvlink transport with each other");
    }
  for (int i = 0; i < count; ++i) {
    int vmm = 0, fd = 0;
    get_attr(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, devs[i]);
    get_attr(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, devs[i]);
    add(out, vmm ? "pass" : "fail", "gpu-vmm " + std::to_string(i),
        vmm ? "virtual memory management supported"
            : "no virtual memory management: GPU heaps cannot be built on this GPU");
    add(out, fd ? "pass" : "fail", "gpu-posix-fd " + std::to_string(i),
        fd ? "POSIX file-descriptor handles supported"
           : "no POSIX file-descriptor handles: node peers cannot map this GPU's heap");
  }
#else
  std::string why;
  cuda::driver_usable(&why);
  add(out, "skip", "gpu-driver", why);
  add(out, "skip", "gpu-peer-access", "built without CUDA");
  add(out, "skip", "gpu-vmm", "built without CUDA");
#endif
}

// ---- RDMA ---------------------------------------------------------------------------------------

void rdma_device_checks(std::vector<Check> &out) {
  glob_t g{};
  int rc = glob("/dev/infiniband/uverbs*", 0, nullptr, &g);
  if (rc != 0 || g.gl_pathc == 0) {
    add(out, "skip", "rdma-devices",
        "no /dev/infiniband/uverbs* (no RDMA NIC, or its driver is not loaded)");
    globfree(&g);
    return;
  }
  for (size_t i = 0; i < g.gl_pathc; ++i) {
    const char *path = g.gl_pathv[i];
    bool rw = access(path, R_OK | W_OK) == 0;
    add(out, rw ? "pass" : "fail", std::string("rdma-devices ") + path,
        rw ? "read/write for this user"
           : std::string("not read/write for this user (") + strerror(errno) +
                 "); ibgda and libfabric's verbs provider need it (group rdma, or a udev rule)");
  }
  globfree(&g);
}

void devx_checks(std::vector<Check> &out) {
#if XSHMEM_INFO_HAVE_VERBS_H
  std::string err;
  void *verbs = open_first({"libibverbs.so.1", "libibverbs.so"}, &err);
  if (!verbs) {
    add(out, "skip", "devx", "libibverbs not loadable: " + err);
    return;
  }
  auto get_list =
      reinterpret_cast<decltype(&::ibv_get_device_list)>(dlsym(verbs, "ibv_get_device_list"));
  auto free_list =
      reinterpret_cast<decltype(&::ibv_free_device_list)>(dlsym(verbs, "ibv_free_device_list"));
  auto dev_name =
      reinterpret_cast<decltype(&::ibv_get_device_name)>(dlsym(verbs, "ibv_get_device_name"));
  auto close_dev =
      reinterpret_cast<decltype(&::ibv_close_device)>(dlsym(verbs, "ibv_close_device"));
  if (!get_list || !free_list || !dev_name || !close_dev) {
    add(out, "skip", "devx", "libibverbs lacks ibv_get_device_list or its companions");
    dlclose(verbs);
    return;
  }
  int n = 0;
  ibv_device **list = get_list(&n);
  if (list == nullptr || n == 0) {
    add(out, "skip", "devx", "no RDMA device found by libibverbs");
    if (list) free_list(list);
    dlclose(verbs);
    return;
  }
  void *mlx5 = open_first({"libmlx5.so.1", "libmlx5.so"}, &err);
  auto is_mlx5 =
      mlx5 ? reinterpret_cast<decltype(&::mlx5dv_is_supported)>(dlsym(mlx5, "mlx5dv_is_supported"))
           : nullptr;
  auto open_dv =
      mlx5 ? reinterpret_cast<decltype(&::mlx5dv_open_device)>(dlsym(mlx5, "mlx5dv_open_device"))
           : nullptr;
  int mlx5_devices = 0;
  for (int i = 0; i < n; ++i) {
    std::string name = dev_name(list[i]) ? dev_name(list[i]) : "?";
    if (!is_mlx5 || !open_dv) break;
    if (!is_mlx5(list[i])) continue;
    ++mlx5_devices;
    mlx5dv_context_attr attr{};
    attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
    errno = 0;
    ibv_context *ctx = open_dv(list[i], &attr);
    if (ctx) {
      add(out, "pass", "devx " + name, "opens with DevX (ibgda can drive it)");
      close_dev(ctx);
    } else {
      add(out, "fail", "devx " + name,
          std::string("mlx5dv_open_device with DevX failed: ") + strerror(errno) +
              " (needs read/write on its uverbs device; firmware or kernel without DevX?)");
    }
  }
  if (!mlx5)
    add(out, "skip", "devx",
        std::to_string(n) + " RDMA device(s), but libmlx5 is not loadable: " + err);
  else if (mlx5_devices == 0)
    add(out, "skip", "devx", std::to_string(n) + " RDMA device(s), none of them mlx5");
  free_list(list);
  if (mlx5) dlclose(mlx5);
  dlclose(verbs);
#else
  add(out, "skip", "devx", "built without rdma-core headers (libibverbs-dev)");
#endif
}

// ---- libfabric ----------------------------------------------------------------------------------

void libfabric_checks(std::vector<Check> &out) {
#if XSHMEM_INFO_HAVE_FABRIC_H
  std::string err;
  void *fab = open_first({"libfabric.so.1", "libfabric.so"}, &err);
  if (!fab) {
    add(out, "skip", "libfabric", "libfabric not loadable: " + err);
    return;
  }
  auto version = reinterpret_cast<decltype(&::fi_version)>(dlsym(fab, "fi_version"));
  auto getinfo = reinterpret_cast<decltype(&::fi_getinfo)>(dlsym(fab, "fi_getinfo"));
  auto freeinfo = reinterpret_cast<decltype(&::fi_freeinfo)>(dlsym(fab, "fi_freeinfo"));
  auto strerr = reinterpret_cast<decltype(&::fi_strerror)>(dlsym(fab, "fi_strerror"));
  if (!version || !getinfo || !freeinfo) {
    add(out, "fail", "libfabric", "libfabric.so.1 lacks fi_version, fi_getinfo or fi_freeinfo");
    dlclose(fab);
    return;
  }
  uint32_t v = version();
  // Discovery only (no node, no service): nothing is sent, no address is bound.
  fi_info *info = nullptr;
  int rc = getinfo(v, nullptr, nullptr, 0, nullptr, &info);
  std::string lib_version = std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v));
  if (rc != 0 || info == nullptr) {
    add(out, "skip", "libfabric",
        "libfabric " + lib_version + " loaded, fi_getinfo found no provider (" +
            (strerr ? strerr(-rc) : std::to_string(rc)) + ")");
    dlclose(fab);
    return;
  }
  std::map<std::string, bool> providers;  // name -> reports FI_HMEM on some interface
  for (fi_info *i = info; i != nullptr; i = i->next) {
    if (!i->fabric_attr || !i->fabric_attr->prov_name) continue;
    bool &hmem = providers[i->fabric_attr->prov_name];
    hmem = hmem || (i->caps & FI_HMEM) != 0;
  }
  freeinfo(info);
  dlclose(fab);
  std::string list, hmem;
  for (auto &[name, h] : providers) {
    list += (list.empty() ? "" : ", ") + name;
    if (h) hmem += (hmem.empty() ? "" : ", ") + name;
  }
  add(out, "pass", "libfabric",
      "libfabric " + lib_version + ", providers: " + list +
          "; with FI_HMEM (GPU memory): " + (hmem.empty() ? "none" : hmem));
#else
  add(out, "skip", "libfabric", "built without libfabric headers (libfabric-dev)");
#endif
}

// ---- Shared memory and locked memory ------------------------------------------------------------

void memory_checks(std::vector<Check> &out, const CheckOptions &opts) {
  const uint64_t heap = config::get_size("XSHMEM_SYMMETRIC_SIZE");
  const uint64_t need = heap * static_cast<uint64_t>(opts.local_pes > 0 ? opts.local_pes : 1);
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) != 0) {
    add(out, "skip", "shm-space", std::string("cannot stat /dev/shm: ") + strerror(errno));
  } else {
    uint64_t avail = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    std::string detail = "/dev/shm has " + human_bytes(avail) + " free; " +
                         std::to_string(opts.local_pes) + " local PE(s) x XSHMEM_SYMMETRIC_SIZE " +
                         human_bytes(heap) + " = " + human_bytes(need) +
                         " for host heaps (--local-pes sets the count)";
    add(out, avail >= need ? "pass" : "fail", "shm-space",
        avail >= need ? detail
                      : detail +
                            "; enlarge /dev/shm (docker: --shm-size) or lower "
                            "XSHMEM_SYMMETRIC_SIZE");
  }
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
    add(out, "skip", "memlock", std::string("getrlimit failed: ") + strerror(errno));
    return;
  }
  if (rl.rlim_cur == RLIM_INFINITY) {
    add(out, "pass", "memlock", "RLIMIT_MEMLOCK unlimited");
    return;
  }
  glob_t g{};
  bool rdma = glob("/dev/infiniband/uverbs*", 0, nullptr, &g) == 0 && g.gl_pathc > 0;
  globfree(&g);
  std::string detail = "RLIMIT_MEMLOCK " + human_bytes(rl.rlim_cur);
  if (rl.rlim_cur >= heap)
    add(out, "pass", "memlock", detail + " (>= XSHMEM_SYMMETRIC_SIZE " + human_bytes(heap) + ")");
  else if (!rdma)
    add(out, "pass", "memlock",
        detail +
            " (below XSHMEM_SYMMETRIC_SIZE, but only RDMA registration needs it and there "
            "is no RDMA device)");
  else
    add(out, "fail", "memlock",
        detail + " is below XSHMEM_SYMMETRIC_SIZE " + human_bytes(heap) +
            ": RDMA registration of the heap will fail; raise it (ulimit -l unlimited, "
            "limits.conf memlock)");
}

}  // namespace

std::string human_bytes(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 5) v /= 1024.0, ++u;
  char buf[32];
  if (u == 0)
    snprintf(buf, sizeof(buf), "%" PRIu64 " B", bytes);
  else
    snprintf(buf, sizeof(buf), "%.1f %s", v, units[u]);
  return buf;
}

std::vector<Check> run_checks(const CheckOptions &opts) {
  std::vector<Check> out;
  gpu_checks(out);
  rdma_device_checks(out);
  devx_checks(out);
  libfabric_checks(out);
  memory_checks(out, opts);
  return out;
}

}  // namespace xshmem::info

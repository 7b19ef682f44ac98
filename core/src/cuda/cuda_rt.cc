// xshmem core: GPU selection, driver entry points, internal stream and device state (CUDA builds).
#include "cuda_rt.h"

#include <cuda_runtime_api.h>
#include <xshmem/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <xshmem/plugin/services_v1.h>
#include "../checks.h"
#include "../config.h"
#include "../log.h"
#include "../runtime.h"
#include "../wait_deadline.h"
#include "cuda_driver.h"
#include "device_ops.h"

namespace xshmem::cuda {
namespace {

constexpr const char *kSubsys = "cuda";

struct Gpu {
  int device = -1;
  cudaStream_t stream = nullptr;
  void *state_buf = nullptr;  // device copy of state_t followed by the peers table
  uint64_t state_version = 0;
  dev::device_error_t *mailbox = nullptr;  // pinned, mapped: device checks report here
  // The watchdog thread (see watchdog_main) and its stop signal.
  std::thread watchdog;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
};
Gpu g_gpu;

// How often the watchdog looks at the mailbox and asks CUDA whether the context has failed
// (cudaStreamQuery on the idle internal stream: a few microseconds).
constexpr auto kWatchdogPeriod = std::chrono::milliseconds(10);
constexpr int kContextCheckEvery = 1;

// Errors after which the CUDA context is unusable (a kernel faulted or trapped): the PE can no
// longer take part in the job, and its peers may be waiting on it inside kernels.
bool context_lost(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

// Stops the job when a GPU thread of this PE reported a checked-mode violation (ERR-11) or the
// context failed: peers waiting on this PE inside kernels would otherwise wait forever, and this
// PE's host thread may be blocked in a synchronize that never returns an error it checks.
void watchdog_main(int device);

// Stops and joins the watchdog (finalize, or process exit without finalize).
void stop_watchdog() {
  if (!g_gpu.watchdog.joinable() || g_gpu.watchdog.get_id() == std::this_thread::get_id()) return;
  {
    std::lock_guard<std::mutex> lock(g_gpu.mu);
    g_gpu.stop = true;
  }
  g_gpu.cv.notify_all();
  g_gpu.watchdog.join();
}

// A process that returns from main (or calls exit) without xshmem_finalize: stop the watchdog
// before static destructors and the CUDA runtime's own exit handlers run (registered after the
// runtime's, so it runs before them). A joinable std::thread would otherwise terminate the
// process, or the runtime's teardown could wait on the watchdog's CUDA call.
void stop_watchdog_at_exit() {
  stop_watchdog();
}

void watchdog_main(int device) {
  (void)cudaSetDevice(device);
  std::unique_lock<std::mutex> lock(g_gpu.mu);
  for (int tick = 1;; ++tick) {
    if (g_gpu.cv.wait_for(lock, kWatchdogPeriod, [] { return g_gpu.stop; })) return;
    const volatile dev::device_error_t *e = g_gpu.mailbox;
    if (e != nullptr && e->ready != 0 && e->code == dev::kDevGlobalExit) {
      const int status = e->pe;
      char line[200];
      snprintf(line, sizeof(line),
               "xshmem: xshmem_global_exit (device, block %u,%u,%u thread %u,%u,%u): status %d: "
               "stopping every pe of the job (pe %d)",
               e->block[0], e->block[1], e->block[2], e->thread[0], e->thread[1], e->thread[2],
               status, core::state().my_pe);
      fprintf(stderr, "%s\n", line);
      fflush(stderr);
      lock.unlock();
      core::fatal_printed(status, kSubsys, line);
    }
    if (e != nullptr && e->ready != 0 && e->code == dev::kDevWaitTimeout) {
      // A device wait past XSHMEM_WAIT_TIMEOUT (p2p.h): the same line as a host wait's, with the
      // GPU thread that waited.
      dev::wait_timeout_t w;
      w.call = e->op;
      w.pe = e->pe;
      w.addr = reinterpret_cast<const void *>(static_cast<uintptr_t>(e->addr));
      w.expected = e->size;
      w.seen = e->align;
      w.cmp = e->wait_cmp;
      w.round = e->wait_round;
      w.value_size = e->wait_value_size;
      w.value_signed = e->wait_value_signed;
      w.waited_ns = e->wait_ns;
      w.index = e->wait_index;
      w.nelems = e->wait_nelems;
      char where[96];
      snprintf(where, sizeof(where), " (device, block %u,%u,%u thread %u,%u,%u)", e->block[0],
               e->block[1], e->block[2], e->thread[0], e->thread[1], e->thread[2]);
      lock.unlock();
      core::stop_on_wait_timeout(w, where);  // does not return
    }
    if (e != nullptr && e->ready != 0) {
      const char *what = "?";
      char detail[400];
      switch (e->code) {
        case dev::kDevCheckPe:
          what = "pe";
          snprintf(detail, sizeof(detail), "%d out of range [0, %d)", e->pe, core::state().n_pes);
          break;
        case dev::kDevCheckSymmetric:
          what = "address";
          snprintf(detail, sizeof(detail),
                   "%#llx + %llu bytes is not inside the symmetric heap (target pe %d); pass "
                   "memory from xshmem_malloc",
                   static_cast<unsigned long long>(e->addr),
                   static_cast<unsigned long long>(e->size), e->pe);
          break;
        case dev::kDevCheckAlign:
          what = "address";
          snprintf(detail, sizeof(detail), "%#llx is misaligned (needs %llu-byte alignment)",
                   static_cast<unsigned long long>(e->addr),
                   static_cast<unsigned long long>(e->align));
          break;
        case dev::kDevCheckNull:
          what = "local buffer";
          snprintf(detail, sizeof(detail), "is NULL with %llu bytes to move (target pe %d)",
                   static_cast<unsigned long long>(e->size), e->pe);
          break;
        case dev::kDevGdaFailed:
          what = "GDA queue";
          {
            // gda_path.h failed(): the wait that gave up and the queue as the thread saw it.
            static const char *const kStage[] = {"?",
                                                 "a claim's wait for room",
                                                 "a publisher's wait for the claims before it",
                                                 "a wait for completion",
                                                 "a quiet",
                                                 "a host quiet's wait for GPU threads' queues"};
            const size_t stage = e->size < 6 ? static_cast<size_t>(e->size) : 0;
            const int n = snprintf(
                detail, sizeof(detail),
                e->align == 1 ? "to pe %d did not move within its deadline (is the NIC "
                                "stopped?)"
                              : "to pe %d is in error (the NIC's line above names the entry)",
                e->pe);
            if (n > 0 && static_cast<size_t>(n) < sizeof(detail))
              snprintf(detail + n, sizeof(detail) - static_cast<size_t>(n),
                       " in %s (for %llu; reserved %llu, ready %llu, published %llu, completed "
                       "%llu; doorbell record %d, CQE index %d opcode %d)",
                       kStage[stage], static_cast<unsigned long long>(e->addr),
                       static_cast<unsigned long long>(e->wait_ns),
                       static_cast<unsigned long long>(e->wait_index),
                       static_cast<unsigned long long>(e->wait_nelems),
                       static_cast<unsigned long long>(e->wait_nelems -
                                                       static_cast<uint32_t>(e->wait_round)),
                       e->wait_cmp, e->wait_value_size, e->wait_value_signed);
            break;
          }
        case dev::kDevProxyFailed:
          what = "proxy request";
          snprintf(
              detail, sizeof(detail),
              e->align == static_cast<uint64_t>(XSHMEM_ERR_TIMEOUT)
                  ? "to pe %d (%llu bytes) got no answer within XSHMEM_WAIT_TIMEOUT; is "
                    "the proxy thread stopped? (%s)"
                  : "to pe %d (%llu bytes) failed in the transport (%s)",
              e->pe, static_cast<unsigned long long>(e->size),
              Status::status_str(static_cast<xshmem_status_t>(static_cast<int64_t>(e->align))));
          break;
        default:
          snprintf(detail, sizeof(detail), "unknown violation %d", e->code);
      }
      char call[96];
      snprintf(call, sizeof(call), "device %s (block %u,%u,%u thread %u,%u,%u)",
               dev::op_name(e->op), e->block[0], e->block[1], e->block[2], e->thread[0],
               e->thread[1], e->thread[2]);
      lock.unlock();
      core::check_fail(call, "%s %s", what, detail);  // does not return
    }
    if (tick % kContextCheckEvery == 0 && g_gpu.stream != nullptr) {
      const cudaError_t q = cudaStreamQuery(g_gpu.stream);
      if (context_lost(q)) {
        char msg[320];
        snprintf(msg, sizeof(msg),
                 "xshmem: device kernel: the GPU context failed (%s: %s): a kernel faulted; "
                 "stopping the job (build kernels with -DXSHMEM_DEVICE_CHECKS=1 for a precise "
                 "diagnostic) (pe %d)",
                 cudaGetErrorName(q), cudaGetErrorString(q), core::state().my_pe);
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
        lock.unlock();
        core::fatal_printed(XSHMEM_EXIT_DEVICE_FAULT, kSubsys, msg);
      }
    }
  }
}

std::string rt_error(const char *call, cudaError_t e) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%s failed: %s (%s)", call, cudaGetErrorName(e),
           cudaGetErrorString(e));
  (void)cudaGetLastError();  // clear it, so later calls do not report it again
  return buf;
}

// cuInit through the runtime's entry point lookup, once per process. Whether it worked decides
// whether any driver entry point is handed out.
bool driver_initialized(std::string *why) {
  static std::once_flag once;
  static bool ok = false;
  static std::string reason;
  std::call_once(once, [] {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuInit", &fn, XSHMEM_CUDA_DRIVER_ABI,
                                                     cudaEnableDefault, &q);
    if (e != cudaSuccess) {
      reason = rt_error("cudaGetDriverEntryPointByVersion(cuInit)", e);
      return;
    }
    if (q != cudaDriverEntryPointSuccess || fn == nullptr) {
      reason = "the CUDA driver has no cuInit entry point";
      return;
    }
    CUresult r = reinterpret_cast<decltype(&::cuInit)>(fn)(0);
    if (r != CUDA_SUCCESS) {
      reason = "cuInit failed with CUresult " + std::to_string(static_cast<int>(r));
      return;
    }
    ok = true;
  });
  if (!ok && why) *why = reason;
  return ok;
}

}  // namespace

bool driver_usable(std::string *why) {
  return driver_initialized(why);
}

void *driver_proc(const char *symbol) {
  if (symbol == nullptr || !driver_initialized(nullptr)) return nullptr;
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e =
      cudaGetDriverEntryPointByVersion(symbol, &fn, XSHMEM_CUDA_DRIVER_ABI, cudaEnableDefault, &q);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return q == cudaDriverEntryPointSuccess ? fn : nullptr;
}

const Driver *driver(std::string *why) {
  static std::once_flag once;
  static Driver table;
  static bool ok = false;
  static std::string reason;
  std::call_once(once, [] {
    if (!driver_initialized(&reason)) return;
    const char *missing = nullptr;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(driver_proc(name));
      if (!fn && !missing) missing = name;
    };
#define XSHMEM_CU_GET(name) get(table.name, #name)
    XSHMEM_CU_GET(cuGetErrorName);
    XSHMEM_CU_GET(cuGetErrorString);
    XSHMEM_CU_GET(cuDeviceGet);
    XSHMEM_CU_GET(cuDeviceGetAttribute);
    XSHMEM_CU_GET(cuDeviceGetPCIBusId);
    XSHMEM_CU_GET(cuMemGetAllocationGranularity);
    XSHMEM_CU_GET(cuMemAddressReserve);
    XSHMEM_CU_GET(cuMemAddressFree);
    XSHMEM_CU_GET(cuMemCreate);
    XSHMEM_CU_GET(cuMemRelease);
    XSHMEM_CU_GET(cuMemMap);
    XSHMEM_CU_GET(cuMemUnmap);
    XSHMEM_CU_GET(cuMemSetAccess);
    XSHMEM_CU_GET(cuMemExportToShareableHandle);
#undef XSHMEM_CU_GET
    if (missing) {
      reason = std::string("the CUDA driver has no entry point ") + missing + " (ABI " +
               std::to_string(XSHMEM_CUDA_DRIVER_ABI) + "); update the GPU driver";
      return;
    }
    ok = true;
  });
  if (!ok && why) *why = reason;
  return ok ? &table : nullptr;
}

std::string cu_error(const char *call, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (const Driver *d = driver()) {
    d->cuGetErrorName(r, &name);
    d->cuGetErrorString(r, &text);
  }
  char buf[256];
  snprintf(buf, sizeof(buf), "%s failed: %s (%s)", call, name ? name : "CUresult",
           text ? text : std::to_string(static_cast<int>(r)).c_str());
  return buf;
}

Probe probe(int local_rank) {
  Probe p;
  int n = 0;
  if (cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess) {
    p.reason = rt_error("cudaGetDeviceCount", e);
    if (e == cudaErrorInsufficientDriver)
      p.reason += "; no NVIDIA driver is loaded, or it is older than CUDA " +
                  std::to_string(CUDART_VERSION / 1000) + "." +
                  std::to_string(CUDART_VERSION % 1000 / 10) + " needs";
    return p;
  }
  if (n <= 0) {
    p.reason = "no CUDA device is visible (check CUDA_VISIBLE_DEVICES)";
    return p;
  }
  const int64_t want = config::get_int("XSHMEM_CUDA_DEVICE");
  if (want >= n) {
    p.reason = "XSHMEM_CUDA_DEVICE=" + std::to_string(want) + " but only " + std::to_string(n) +
               " CUDA device(s) are visible";
    return p;
  }
  const int dev = want >= 0 ? static_cast<int>(want) : (local_rank < 0 ? 0 : local_rank) % n;
  // cudaSetDevice creates the primary context (CUDA 12+) and makes it current on this thread;
  // the driver calls of the heap and the plugins run in it.
  if (cudaError_t e = cudaSetDevice(dev); e != cudaSuccess) {
    p.reason = rt_error(("cudaSetDevice(" + std::to_string(dev) + ")").c_str(), e);
    return p;
  }
  std::string why;
  const Driver *d = driver(&why);
  if (!d) {
    p.reason = why;
    return p;
  }
  CUdevice cu = 0;
  if (CUresult r = d->cuDeviceGet(&cu, dev); r != CUDA_SUCCESS) {
    p.reason = cu_error("cuDeviceGet", r);
    return p;
  }
  int vmm = 0, posix = 0;
  d->cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, cu);
  d->cuDeviceGetAttribute(&posix, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                          cu);
  if (!vmm || !posix) {
    p.reason = "CUDA device " + std::to_string(dev) + " does not support " +
               (!vmm ? "virtual memory management (cuMemCreate/cuMemMap)"
                     : "POSIX file-descriptor memory handles");
    return p;
  }
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = cu;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  if (CUresult r =
          d->cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
      r != CUDA_SUCCESS || gran == 0) {
    p.reason = cu_error("cuMemGetAllocationGranularity", r);
    return p;
  }
  char bus[32] = {0};
  d->cuDeviceGetPCIBusId(bus, sizeof(bus), cu);
  cudaDeviceProp props{};
  std::string name = cudaGetDeviceProperties(&props, dev) == cudaSuccess ? props.name : "?";
  p.device = dev;
  p.granularity = gran;
  p.description = "cuda device " + std::to_string(dev) + " (" + name + ", pci " + bus + ")";
  p.pci_bus_id = bus;
  return p;
}

Status open(int device) {
  if (g_gpu.device >= 0) return XSHMEM_SUCCESS;
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "%s", rt_error("cudaSetDevice", e).c_str());
    return XSHMEM_ERR_IO;
  }
  if (cudaError_t e = cudaStreamCreateWithFlags(&g_gpu.stream, cudaStreamNonBlocking);
      e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "cannot create the internal stream: %s",
               rt_error("cudaStreamCreateWithFlags", e).c_str());
    g_gpu.stream = nullptr;
    return XSHMEM_ERR_IO;
  }
  // Before any user kernel can run: see load_kernels (lazy loading deadlocks).
  const char *kernel = "?";
  if (int e = core::gpu::load_kernels(&kernel); e != 0) {
    XLOG_ERROR(kSubsys, "cannot load the runtime's kernel %s on cuda device %d: %s", kernel, device,
               rt_error("cudaFuncGetAttributes", static_cast<cudaError_t>(e)).c_str());
    (void)cudaStreamDestroy(g_gpu.stream);
    g_gpu.stream = nullptr;
    return XSHMEM_ERR_IO;
  }
  if (Status st = core::gpu::heap_amo_open(); !st.ok()) {
    (void)cudaStreamDestroy(g_gpu.stream);
    g_gpu.stream = nullptr;
    return st;
  }
  // The device-check mailbox: host memory the GPU writes into (mapped; same address under UVA).
  void *mb = nullptr;
  if (cudaError_t e = cudaHostAlloc(&mb, sizeof(dev::device_error_t),
                                    cudaHostAllocMapped | cudaHostAllocPortable);
      e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "cannot allocate the device-check mailbox: %s",
               rt_error("cudaHostAlloc", e).c_str());
    core::gpu::heap_amo_close();
    (void)cudaStreamDestroy(g_gpu.stream);
    g_gpu.stream = nullptr;
    return XSHMEM_ERR_NOMEM;
  }
  memset(mb, 0, sizeof(dev::device_error_t));
  g_gpu.mailbox = static_cast<dev::device_error_t *>(mb);
  g_gpu.device = device;
  g_gpu.stop = false;
  g_gpu.watchdog = std::thread(watchdog_main, device);
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { atexit(stop_watchdog_at_exit); });
  return XSHMEM_SUCCESS;
}

void close() {
  if (g_gpu.device < 0) return;
  stop_watchdog();
  (void)cudaSetDevice(g_gpu.device);
  core::gpu::heap_amo_close();
  if (g_gpu.stream) {
    (void)cudaStreamSynchronize(g_gpu.stream);
    (void)cudaStreamDestroy(g_gpu.stream);
  }
  if (g_gpu.state_buf) (void)cudaFree(g_gpu.state_buf);
  if (g_gpu.mailbox) (void)cudaFreeHost(g_gpu.mailbox);
  (void)cudaGetLastError();
  g_gpu.mailbox = nullptr;
  g_gpu.stream = nullptr;
  g_gpu.state_buf = nullptr;
  g_gpu.device = -1;
  ++g_gpu.state_version;  // a later init publishes a new state
}

Status publish_state(const dev::state_t &host) {
  if (g_gpu.device < 0) return XSHMEM_SUCCESS;
  (void)cudaSetDevice(g_gpu.device);
  const size_t peers_off = (sizeof(dev::state_t) + 15) / 16 * 16;
  const size_t n = host.n_pes > 0 ? static_cast<size_t>(host.n_pes) : 0;
  const size_t teams_off = (peers_off + n * sizeof(dev::peer_t) + 15) / 16 * 16;
  const size_t nteams = host.teams != nullptr ? dev::internal_region_t::kMaxTeams : 0;
  const size_t ngda =
      host.gda_peers != nullptr && host.n_gda_peers > 0 ? static_cast<size_t>(host.n_gda_peers) : 0;
  const size_t gda_off = (teams_off + nteams * sizeof(dev::team_t) + 15) / 16 * 16;
  const size_t bytes = gda_off + ngda * sizeof(int32_t);
  void *buf = nullptr;
  if (cudaError_t e = cudaMalloc(&buf, bytes); e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "cannot allocate %zu bytes for the device state: %s", bytes,
               rt_error("cudaMalloc", e).c_str());
    return XSHMEM_ERR_NOMEM;
  }
  dev::state_t s = host;
  s.peers = reinterpret_cast<dev::peer_t *>(static_cast<char *>(buf) + peers_off);
  s.teams =
      nteams ? reinterpret_cast<dev::team_t *>(static_cast<char *>(buf) + teams_off) : nullptr;
  s.gda_peers =
      ngda ? reinterpret_cast<const int32_t *>(static_cast<char *>(buf) + gda_off) : nullptr;
  s.n_gda_peers = static_cast<int32_t>(ngda);
  s.on_bad_path = nullptr;  // host function pointers mean nothing on the GPU
  s.transport_names = nullptr;
  s.device_checks = core::checks_enabled() ? 1 : 0;
  s.device_error = g_gpu.mailbox;
  std::vector<unsigned char> image(bytes, 0);
  memcpy(image.data(), &s, sizeof(s));
  if (n) memcpy(image.data() + peers_off, host.peers, n * sizeof(dev::peer_t));
  if (nteams) memcpy(image.data() + teams_off, host.teams, nteams * sizeof(dev::team_t));
  if (ngda) memcpy(image.data() + gda_off, host.gda_peers, ngda * sizeof(int32_t));
  if (cudaError_t e = cudaMemcpy(buf, image.data(), bytes, cudaMemcpyHostToDevice);
      e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "cannot copy the device state: %s", rt_error("cudaMemcpy", e).c_str());
    (void)cudaFree(buf);
    return XSHMEM_ERR_IO;
  }
  if (g_gpu.state_buf) (void)cudaFree(g_gpu.state_buf);
  g_gpu.state_buf = buf;
  ++g_gpu.state_version;
  XLOG_DEBUG(kSubsys, "device state version %llu at %p (%zu peers)",
             static_cast<unsigned long long>(g_gpu.state_version), buf, n);
  return XSHMEM_SUCCESS;
}

Status memset_sync(void *dst, int value, size_t n) {
  if (g_gpu.device < 0) return XSHMEM_ERR_INVALID;
  (void)cudaSetDevice(g_gpu.device);
  cudaError_t e = cudaMemsetAsync(dst, value, n, g_gpu.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g_gpu.stream);
  if (e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "memset of %zu bytes at %p: %s", n, dst,
               rt_error("cudaMemsetAsync", e).c_str());
    return XSHMEM_ERR_IO;
  }
  return XSHMEM_SUCCESS;
}

Status copy_sync(void *dst, const void *src, size_t n) {
  if (g_gpu.device < 0) return XSHMEM_ERR_INVALID;
  (void)cudaSetDevice(g_gpu.device);
  cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, g_gpu.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g_gpu.stream);
  if (e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "copy of %zu bytes %p -> %p: %s", n, src, dst,
               rt_error("cudaMemcpyAsync", e).c_str());
    return XSHMEM_ERR_IO;
  }
  return XSHMEM_SUCCESS;
}

Status host_alloc_mapped(size_t n, void **host, void **device) {
  *host = nullptr;
  *device = nullptr;
  void *h = nullptr;
  if (cudaError_t e = cudaHostAlloc(&h, n, cudaHostAllocMapped | cudaHostAllocPortable);
      e != cudaSuccess) {
    XLOG_ERROR(kSubsys,
               "cannot allocate %zu bytes of mapped host memory: %s; lower the request "
               "(XSHMEM_PROXY_CHANNELS, XSHMEM_PROXY_RING_SLOTS)",
               n, rt_error("cudaHostAlloc", e).c_str());
    return XSHMEM_ERR_NOMEM;
  }
  void *d = nullptr;
  if (cudaError_t e = cudaHostGetDevicePointer(&d, h, 0); e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "mapped host memory of %zu bytes has no device address: %s", n,
               rt_error("cudaHostGetDevicePointer", e).c_str());
    (void)cudaFreeHost(h);
    return XSHMEM_ERR_IO;
  }
  memset(h, 0, n);
  *host = h;
  *device = d;
  return XSHMEM_SUCCESS;
}

void host_free(void *host) {
  if (host != nullptr) (void)cudaFreeHost(host);
}

}  // namespace xshmem::cuda

// ---- runtime.h: the GPU-heap contract
// ------------------------------------------------------------

namespace xshmem::core {

bool heap_on_device() {
  return cuda::g_gpu.device >= 0;
}
bool lazy_module_loading() {
  // Looked up apart from the driver table: optional (CUDA 11.7 and later).
  using fn_t = CUresult (*)(CUmoduleLoadingMode *);
  auto fn = reinterpret_cast<fn_t>(cuda::driver_proc("cuModuleGetLoadingMode"));
  CUmoduleLoadingMode mode;
  return fn != nullptr && fn(&mode) == CUDA_SUCCESS && mode == CU_MODULE_LAZY_LOADING;
}
int cuda_device() {
  return cuda::g_gpu.device;
}
void *internal_stream() {
  return cuda::g_gpu.stream;
}
const dev::state_t *device_state() {
  return static_cast<const dev::state_t *>(cuda::g_gpu.state_buf);
}
uint64_t device_state_version() {
  return cuda::g_gpu.state_version;
}

}  // namespace xshmem::core

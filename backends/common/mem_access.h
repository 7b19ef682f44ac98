// How a transport's own threads touch memory: the heap access of the libfabric transport (its
// progress thread and staged path) and of the ibgda transport's NIC model (requester and
// responder), written once. One interface for every copy and read-modify-write a transport does
// itself: the host implementation uses memcpy and the CPU's atomic instructions (host heaps:
// atomic with respect to hostshm's CPU atomics on the same word); the CUDA one (GPU heaps) uses
// the driver API through services->cuda_driver_proc on a non-blocking stream per user (a kernel
// that waits for the data does not hold the copy up), never linking libcuda, and the core's
// heap_apply for atomics (the GPU's own atomic instructions).
#ifndef XSHMEM_BACKENDS_COMMON_MEM_ACCESS_H
#define XSHMEM_BACKENDS_COMMON_MEM_ACCESS_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <type_traits>

#include <xshmem/plugin/services_v1.h>

namespace xshmem::backend {

// The CUDA driver call the calling thread is in (CudaAccess sets it around each call that may
// wait), or NULL: a watchdog of a transport's thread reads it through the address the thread
// gives it (the ibgda NIC model names the call its thread is stuck in).
inline thread_local std::atomic<const char *> t_driver_call{nullptr};
struct in_driver_call {
  explicit in_driver_call(const char *name) {
    t_driver_call.store(name, std::memory_order_relaxed);
  }
  ~in_driver_call() { t_driver_call.store(nullptr, std::memory_order_relaxed); }
};

template <typename T>
T apply_one(T *p, xshmem_amo_op_t op, T v, T cmp, bool *ok) {
  switch (op) {
    case XSHMEM_AMO_FETCH:
      return __atomic_load_n(p, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_SET:
      __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
      return 0;
    case XSHMEM_AMO_SWAP:
      return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_COMPARE_SWAP:
      __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      return cmp;
    case XSHMEM_AMO_ADD:
    case XSHMEM_AMO_FETCH_ADD:
      return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_AND:
    case XSHMEM_AMO_FETCH_AND:
      return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_OR:
    case XSHMEM_AMO_FETCH_OR:
      return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
    case XSHMEM_AMO_XOR:
    case XSHMEM_AMO_FETCH_XOR:
      return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
  }
  *ok = false;
  return 0;
}

// One interface for every copy and read-modify-write the transport does itself: the host
// implementation uses memcpy and the CPU's atomic instructions (host heaps: atomic with respect to
// hostshm's CPU atomics on the same word); the CUDA one (GPU heaps) uses the driver API through
// services->cuda_driver_proc on a non-blocking stream per user (a kernel that waits for the data
// does not hold the copy up), never linking libcuda. The staged protocol is the same over both.
class MemAccess {
 public:
  virtual ~MemAccess() = default;
  virtual const char *name() const = 0;
  // A copy stream for one thread at a time (a channel, the progress thread); NULL for the host.
  virtual void *lane_open() { return nullptr; }
  virtual void lane_close(void *) {}
  // Copies n bytes between any two pointers of this process (host or, CUDA, device memory).
  virtual xshmem_status_t copy(void *lane, void *dst, const void *src, size_t n) = 0;
  // The operations of ops[0, n) (services_v1.h's entries: atomics on heap words, copies into or
  // out of the heap; src_pe for diagnostics), applied in array order; each entry gets its status
  // and, an atomic, its old value. The progress thread applies what it received in one call.
  virtual void apply(void *lane, xshmem_heap_op_v1_t *ops, size_t n) = 0;
  // Page-locks a host buffer for fast device copies (bounce and landing buffers).
  virtual void pin(void *, size_t) {}
  virtual void unpin(void *) {}
};

class HostAccess final : public MemAccess {
 public:
  const char *name() const override { return "host (memcpy, CPU atomics)"; }
  xshmem_status_t copy(void *, void *dst, const void *src, size_t n) override {
    memcpy(dst, src, n);
    return XSHMEM_SUCCESS;
  }
  void apply(void *, xshmem_heap_op_v1_t *ops, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      xshmem_heap_op_v1_t &a = ops[i];
      if (a.kind == XSHMEM_HEAP_OP_COPY) {
        memcpy(a.addr, a.src, a.operand);
        a.status = XSHMEM_SUCCESS;
      } else {
        amo(a);
      }
    }
  }
  static void amo(xshmem_heap_op_v1_t &a) {
    bool ok = true;
    const auto op = static_cast<xshmem_amo_op_t>(a.op);
    if (a.width == 8)
      a.old = apply_one(static_cast<uint64_t *>(a.addr), op, a.operand, a.compare, &ok);
    else
      a.old = apply_one(static_cast<uint32_t *>(a.addr), op, static_cast<uint32_t>(a.operand),
                        static_cast<uint32_t>(a.compare), &ok);
    a.status = ok ? XSHMEM_SUCCESS : XSHMEM_ERR_INVALID;
  }
};

// The driver API subset the CUDA implementation uses, declared here (no CUDA headers in a
// CPU build); signatures as in the CUDA 12.0 driver ABI cuda_driver_proc returns.
using CUresult = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUstream = void *;
using CUdevice = int;
constexpr unsigned kCuStreamNonBlocking = 1;      // CU_STREAM_NON_BLOCKING
constexpr unsigned kCuHostRegisterPortable = 1;   // CU_MEMHOSTREGISTER_PORTABLE
constexpr int kCuPointerAttrMemoryType = 2;       // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kCuMemoryTypeDevice = 2;       // CU_MEMORYTYPE_DEVICE
constexpr unsigned kCuMemHostAllocPortable = 1;   // CU_MEMHOSTALLOC_PORTABLE
constexpr unsigned kCuMemHostAllocDeviceMap = 2;  // CU_MEMHOSTALLOC_DEVICEMAP

class CudaAccess final : public MemAccess {
 public:
  // Looks the entry points up and retains device `dev`'s primary context; NULL and a log line
  // naming the missing symbol when the driver cannot be used.
  // `subsys` names the transport in those lines.
  static std::unique_ptr<CudaAccess> open(const xshmem_core_services_v1_t *svc, const char *subsys,
                                          int dev, const char *base, size_t size) {
    std::unique_ptr<CudaAccess> a(new CudaAccess());
    a->base_ = base;
    a->size_ = size;
    if (XSHMEM_SERVICES_HAS(svc, heap_apply)) {
      a->svc_heap_apply_ = svc->heap_apply;
    } else if (XSHMEM_SERVICES_HAS(svc, heap_amo)) {
      a->svc_heap_amo_ = svc->heap_amo;
    } else {
      XSHMEM_PLOG(svc, XSHMEM_LOG_WARN, subsys,
                  "the core has no heap_amo service (older than services 1.3): peers' atomics on "
                  "the GPU heap are copied out, updated and copied back, which is not atomic "
                  "with respect to GPU atomics on the same word");
    }
    if (!XSHMEM_SERVICES_HAS(svc, cuda_driver_proc)) {
      XSHMEM_PLOG(svc, XSHMEM_LOG_ERROR, subsys,
                  "the GPU heap needs the CUDA driver, but the core has no cuda_driver_proc "
                  "service (core older than services 1.1); use XSHMEM_HEAP=host");
      return nullptr;
    }
    const char *missing = nullptr;
    auto get = [&](auto &fn, const char *sym) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(svc->cuda_driver_proc(sym));
      if (!fn && !missing) missing = sym;
    };
    get(a->DeviceGet, "cuDeviceGet");
    get(a->PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    get(a->PrimaryCtxRelease, "cuDevicePrimaryCtxRelease");
    get(a->CtxSetCurrent, "cuCtxSetCurrent");
    get(a->StreamCreate, "cuStreamCreate");
    get(a->StreamDestroy, "cuStreamDestroy");
    get(a->StreamSynchronize, "cuStreamSynchronize");
    get(a->MemcpyAsync, "cuMemcpyAsync");
    get(a->MemHostRegister, "cuMemHostRegister");
    get(a->MemHostUnregister, "cuMemHostUnregister");
    get(a->PointerGetAttribute, "cuPointerGetAttribute");
    // Allocations (host_alloc, device_alloc): optional, they fail when absent.
    const char *copy_missing = missing;
    get(a->MemHostAlloc, "cuMemHostAlloc");
    get(a->MemFreeHost, "cuMemFreeHost");
    get(a->MemHostGetDevicePointer, "cuMemHostGetDevicePointer");
    get(a->MemAlloc, "cuMemAlloc");
    get(a->MemFree, "cuMemFree");
    missing = copy_missing;
    if (missing) {
      XSHMEM_PLOG(svc, XSHMEM_LOG_ERROR, subsys,
                  "the GPU heap needs CUDA driver entry point %s, which cuda_driver_proc does not "
                  "give (no driver, or a core built without CUDA); use XSHMEM_HEAP=host",
                  missing);
      return nullptr;
    }
    CUresult r = a->DeviceGet(&a->dev_, dev < 0 ? 0 : dev);
    if (!r) r = a->PrimaryCtxRetain(&a->ctx_, a->dev_);
    if (r) {
      XSHMEM_PLOG(svc, XSHMEM_LOG_ERROR, subsys,
                  "cuDevicePrimaryCtxRetain for GPU %d failed (CUresult %d): the GPU heap cannot "
                  "be accessed by the transport's threads",
                  dev, r);
      return nullptr;
    }
    a->retained_ = true;
    return a;
  }
  ~CudaAccess() override {
    if (retained_) PrimaryCtxRelease(dev_);
  }
  const char *name() const override { return "CUDA (driver copies on a non-blocking stream)"; }
  // A copy between two addresses that are not GPU memory. They come from entries a poster wrote
  // (a GPU thread may name __shared__ or local memory, which means nothing on the host): through
  // the kernel, which fails an unmapped address with EFAULT where memcpy would crash the process.
  static xshmem_status_t host_copy(void *dst, const void *src, size_t n) {
    iovec to{dst, n}, from{const_cast<void *>(src), n};
    const ssize_t got = process_vm_readv(getpid(), &to, 1, &from, 1, 0);
    if (got == static_cast<ssize_t>(n)) return XSHMEM_SUCCESS;
    if (got < 0 && (errno == EPERM || errno == ENOSYS)) {  // forbidden (seccomp): as before
      memcpy(dst, src, n);
      return XSHMEM_SUCCESS;
    }
    return XSHMEM_ERR_IO;
  }
  void *lane_open() override {
    bind();
    CUstream s = nullptr;
    if (StreamCreate(&s, kCuStreamNonBlocking)) return nullptr;
    return s;
  }
  void lane_close(void *lane) override {
    if (!lane) return;
    bind();
    (void)StreamDestroy(static_cast<CUstream>(lane));
  }
  xshmem_status_t copy(void *lane, void *dst, const void *src, size_t n) override {
    if (n == 0) return XSHMEM_SUCCESS;
    if (!is_device(dst) && !is_device(src)) return host_copy(dst, src, n);
    bind();
    return dma(static_cast<CUstream>(lane), dst, src, n);
  }
  // With the core's heap_apply (services 1.4): everything on the core's stream in order, runs of
  // atomics as one kernel each with the GPU's own atomic instructions (atomic with respect to
  // kernels' and NVLink peers' atomics on the word), one wait. With heap_amo (1.3): a kernel per
  // atomic, a synchronous copy per copy. An older core: atomics copy the word out, modify it on
  // the CPU and copy it back, atomic only among the atomics this progress thread executes.
  void apply(void *lane, xshmem_heap_op_v1_t *ops, size_t n) override {
    if (svc_heap_apply_) {
      (void)svc_heap_apply_(ops, n);  // every entry gets its status
      return;
    }
    for (size_t i = 0; i < n; ++i) {
      xshmem_heap_op_v1_t &a = ops[i];
      if (a.kind == XSHMEM_HEAP_OP_COPY) {
        a.status = copy(lane, a.addr, a.src, a.operand);
        continue;
      }
      if (svc_heap_amo_) {
        a.status = svc_heap_amo_(a.addr, a.width, static_cast<xshmem_amo_op_t>(a.op), a.operand,
                                 a.compare, &a.old, a.src_pe);
        continue;
      }
      uint64_t word = 0;
      a.status = copy(lane, &word, a.addr, a.width);
      if (a.status) continue;
      const uint64_t before = word;
      void *const heap_word = a.addr;
      a.addr = &word;
      HostAccess::amo(a);
      a.addr = heap_word;
      if (a.status == XSHMEM_SUCCESS && word != before)
        a.status = copy(lane, a.addr, &word, a.width);
    }
  }
  // Page-locked host memory mapped for the GPU at the same address (unified addressing), zeroed;
  // NULL when it cannot be had or its GPU address differs. host_free releases it.
  void *host_alloc(size_t n) {
    if (!MemHostAlloc || !MemFreeHost || !MemHostGetDevicePointer) return nullptr;
    bind();
    void *p = nullptr;
    if (MemHostAlloc(&p, n, kCuMemHostAllocPortable | kCuMemHostAllocDeviceMap) != 0)
      return nullptr;
    CUdeviceptr d = 0;
    if (MemHostGetDevicePointer(&d, p, 0) != 0 || d != reinterpret_cast<CUdeviceptr>(p)) {
      (void)MemFreeHost(p);
      return nullptr;
    }
    memset(p, 0, n);
    return p;
  }
  void host_free(void *p) {
    if (!p) return;
    bind();
    (void)MemFreeHost(p);
  }
  // Copies n bytes on stream s and waits.
  xshmem_status_t dma(CUstream s, void *dst, const void *src, size_t n) {
    CUresult r;
    {
      in_driver_call c("cuMemcpyAsync");
      r = MemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n, s);
    }
    if (!r) {
      in_driver_call c("cuStreamSynchronize");
      r = StreamSynchronize(s);
    }
    return r ? XSHMEM_ERR_IO : XSHMEM_SUCCESS;
  }
  // GPU memory holding a copy of [src, src + n) (src NULL: zeroed); NULL when it cannot be had.
  // device_free releases it.
  void *device_alloc(size_t n, const void *src, void *lane) {
    if (!MemAlloc || !MemFree) return nullptr;
    bind();
    CUdeviceptr d = 0;
    if (MemAlloc(&d, n) != 0) return nullptr;
    void *p = reinterpret_cast<void *>(d);
    std::unique_ptr<char[]> zero;
    if (!src) {
      zero.reset(new char[n]());
      src = zero.get();
    }
    if (dma(static_cast<CUstream>(lane), p, src, n) != XSHMEM_SUCCESS) {
      (void)MemFree(d);
      return nullptr;
    }
    return p;
  }
  void device_free(void *p) {
    if (!p) return;
    bind();
    (void)MemFree(reinterpret_cast<CUdeviceptr>(p));
  }
  void pin(void *p, size_t n) override {
    bind();
    (void)MemHostRegister(p, n, kCuHostRegisterPortable);  // unpinned still works, more slowly
  }
  void unpin(void *p) override {
    bind();
    (void)MemHostUnregister(p);
  }

 private:
  CudaAccess() = default;
  void bind() {
    thread_local CUcontext bound = nullptr;
    if (bound == ctx_) return;
    in_driver_call c("cuCtxSetCurrent");
    if (CtxSetCurrent(ctx_) == 0) bound = ctx_;
  }
  bool is_device(const void *p) {
    const char *a = static_cast<const char *>(p);
    if (a >= base_ && a < base_ + size_) return true;
    unsigned type = 0;
    bind();
    in_driver_call c("cuPointerGetAttribute");
    return PointerGetAttribute(&type, kCuPointerAttrMemoryType, reinterpret_cast<CUdeviceptr>(p)) ==
               0 &&
           type == kCuMemoryTypeDevice;
  }
  const char *base_ = nullptr;
  size_t size_ = 0;
  decltype(xshmem_core_services_v1_t::heap_amo) svc_heap_amo_ = nullptr;
  decltype(xshmem_core_services_v1_t::heap_apply) svc_heap_apply_ = nullptr;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  bool retained_ = false;
  CUresult (*DeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*PrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*StreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*StreamDestroy)(CUstream) = nullptr;
  CUresult (*StreamSynchronize)(CUstream) = nullptr;
  CUresult (*MemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*MemHostRegister)(void *, size_t, unsigned) = nullptr;
  CUresult (*MemHostUnregister)(void *) = nullptr;
  CUresult (*PointerGetAttribute)(void *, int, CUdeviceptr) = nullptr;
  CUresult (*MemHostAlloc)(void **, size_t, unsigned) = nullptr;
  CUresult (*MemFreeHost)(void *) = nullptr;
  CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*MemFree)(CUdeviceptr) = nullptr;
};

}  // namespace xshmem::backend

#endif  // XSHMEM_BACKENDS_COMMON_MEM_ACCESS_H

// xshmem core: the GPU symmetric heap (CUDA builds).
//
// One virtual range is reserved for the whole heap at init; physical memory is committed from
// offset 0 upwards, one chunk at a time, as collective allocations need it. Every chunk is a
// cuMemCreate allocation that can be exported as a POSIX file descriptor (and, with
// XSHMEM_CUDA_FABRIC on a device that supports it, a fabric handle), so the nvlink transport can
// map it into node peers.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>

#include "../config.h"
#include "../heap.h"
#include "../log.h"
#include "cuda_driver.h"

namespace xshmem::core {
namespace {

constexpr const char *kSubsys = "heap";

size_t round_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

// Whether chunks also request fabric handles: unknown until the first cuMemCreate tries it (it
// fails without an IMEX channel even where the device reports support), then settled. Tried only
// when XSHMEM_CUDA_FABRIC asks for it: on a single node the failing try is a driver error that
// compute-sanitizer reports (CUDA_ERROR_NOT_PERMITTED on cuMemCreate), and nothing uses the
// fabric handle yet.
enum class Fabric { kUnknown, kYes, kNo };
Fabric g_fabric = Fabric::kNo;
bool g_rdma = false;

}  // namespace

using cuda::cu_error;

Status HeapMemory::create_device(size_t size, int device, size_t granularity, size_t chunk_size) {
  std::string why;
  const cuda::Driver *d = cuda::driver(&why);
  if (!d) {
    XLOG_ERROR(kSubsys, "no CUDA driver for the GPU heap: %s", why.c_str());
    return XSHMEM_ERR_UNSUPPORTED;
  }
  if (granularity == 0 || (granularity & (granularity - 1)) != 0) return XSHMEM_ERR_INVALID;
  CUdevice cu = 0;
  if (CUresult r = d->cuDeviceGet(&cu, device); r != CUDA_SUCCESS) {
    XLOG_ERROR(kSubsys, "%s", cu_error("cuDeviceGet", r).c_str());
    return XSHMEM_ERR_IO;
  }
  int fabric = 0, rdma = 0;
  d->cuDeviceGetAttribute(&fabric, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, cu);
  d->cuDeviceGetAttribute(&rdma, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, cu);
  const bool want_fabric = config::get_bool("XSHMEM_CUDA_FABRIC");
  if (want_fabric && !fabric) {
    XLOG_WARN(kSubsys,
              "XSHMEM_CUDA_FABRIC is set but cuda device %d does not support fabric handles; "
              "using POSIX file-descriptor handles",
              device);
  }
  g_fabric = want_fabric && fabric ? Fabric::kUnknown : Fabric::kNo;
  g_rdma = rdma != 0;

  const size_t heap = round_up(size, granularity);
  // Slack of kBaseAlign so the heap can start at a kBaseAlign boundary inside the range (the
  // same reason as for host heaps: xshmem_align offsets must be aligned addresses on every PE).
  const size_t span = heap + kBaseAlign;
  CUdeviceptr r0 = 0;
  if (CUresult r = d->cuMemAddressReserve(&r0, span, granularity, 0, 0); r != CUDA_SUCCESS) {
    XLOG_ERROR(kSubsys,
               "cannot reserve %zu bytes of GPU virtual address space: %s; lower "
               "XSHMEM_SYMMETRIC_SIZE",
               span, cu_error("cuMemAddressReserve", r).c_str());
    return XSHMEM_ERR_NOMEM;
  }
  reserve_base_ = static_cast<uintptr_t>(r0);
  reserve_size_ = span;
  base_ = reinterpret_cast<void *>((reserve_base_ + kBaseAlign - 1) & ~(uintptr_t)(kBaseAlign - 1));
  size_ = heap;
  fd_ = -1;
  device_ = device;
  granularity_ = granularity;
  chunk_size_ = round_up(std::max(chunk_size, granularity), granularity);
  committed_ = 0;
  chunks_.clear();
  XLOG_DEBUG(kSubsys,
             "gpu heap on cuda device %d: %zu bytes reserved at %p, chunks of %zu bytes "
             "(granularity %zu, fabric handles %s)",
             device, size_, base_, chunk_size_, granularity_,
             g_fabric == Fabric::kNo ? "off" : "to be tried");
  return XSHMEM_SUCCESS;
}

Status HeapMemory::commit(size_t bytes) {
  if (!on_device() || bytes <= committed_) return XSHMEM_SUCCESS;
  if (bytes > size_) return XSHMEM_ERR_NOMEM;
  const cuda::Driver *d = cuda::driver();
  if (!d) return XSHMEM_ERR_UNSUPPORTED;
  (void)cudaSetDevice(device_);  // the calling thread may not have used CUDA yet
  CUdevice cu = 0;
  if (CUresult r = d->cuDeviceGet(&cu, device_); r != CUDA_SUCCESS) {
    XLOG_ERROR(kSubsys, "%s", cu_error("cuDeviceGet", r).c_str());
    return XSHMEM_ERR_IO;
  }
  while (committed_ < bytes) {
    Chunk c;
    c.offset = committed_;
    // The first chunk (init: the internal region) holds only what is asked for, so init does not
    // pay for a whole chunk of physical memory; the others are chunk_size_. Every PE makes the
    // same calls, so every PE cuts the same chunks.
    c.size = chunks_.empty() ? std::min(chunk_size_, round_up(bytes, granularity_)) : chunk_size_;
    c.size = std::min(c.size, size_ - c.offset);
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = cu;
    prop.allocFlags.gpuDirectRDMACapable = g_rdma ? 1 : 0;
    CUmemGenericAllocationHandle h = 0;
    CUresult r = CUDA_ERROR_UNKNOWN;
    if (g_fabric != Fabric::kNo) {
      prop.requestedHandleTypes = static_cast<CUmemAllocationHandleType>(
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC);
      r = d->cuMemCreate(&h, c.size, &prop, 0);
      if (g_fabric == Fabric::kUnknown) {
        g_fabric = r == CUDA_SUCCESS ? Fabric::kYes : Fabric::kNo;
        XLOG_DEBUG(
            kSubsys, "fabric handles %s",
            r == CUDA_SUCCESS ? "work" : cu_error("cuMemCreate with fabric handle", r).c_str());
      }
    }
    if (g_fabric == Fabric::kNo) {
      prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
      r = d->cuMemCreate(&h, c.size, &prop, 0);
    }
    if (r != CUDA_SUCCESS) {
      XLOG_WARN(kSubsys, "cannot commit %zu bytes of GPU memory at heap offset %zu: %s", c.size,
                c.offset, cu_error("cuMemCreate", r).c_str());
      return r == CUDA_ERROR_OUT_OF_MEMORY ? XSHMEM_ERR_NOMEM : XSHMEM_ERR_IO;
    }
    const CUdeviceptr at = reinterpret_cast<uintptr_t>(base_) + c.offset;
    const char *step = "cuMemMap";
    r = d->cuMemMap(at, c.size, 0, h, 0);
    if (r == CUDA_SUCCESS) {
      CUmemAccessDesc access{};
      access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      access.location.id = cu;
      access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      step = "cuMemSetAccess";
      r = d->cuMemSetAccess(at, c.size, &access, 1);
      if (r == CUDA_SUCCESS) {
        step = "cuMemExportToShareableHandle";
        int fd = -1;
        r = d->cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
        c.fd = fd;
      }
      if (r != CUDA_SUCCESS) d->cuMemUnmap(at, c.size);
    }
    if (r != CUDA_SUCCESS) {
      XLOG_WARN(kSubsys, "cannot commit %zu bytes of GPU memory at heap offset %zu: %s", c.size,
                c.offset, cu_error(step, r).c_str());
      d->cuMemRelease(h);
      return XSHMEM_ERR_IO;
    }
    c.handle = static_cast<uint64_t>(h);
    chunks_.push_back(c);
    committed_ = c.offset + c.size;
    XLOG_DEBUG(kSubsys, "committed chunk %zu: offset %zu, %zu bytes (fd %d)", chunks_.size() - 1,
               c.offset, c.size, c.fd);
  }
  return XSHMEM_SUCCESS;
}

void HeapMemory::uncommit(size_t nchunks) {
  const cuda::Driver *d = cuda::driver();
  while (chunks_.size() > nchunks) {
    Chunk &c = chunks_.back();
    if (d) {
      d->cuMemUnmap(reinterpret_cast<uintptr_t>(base_) + c.offset, c.size);
      d->cuMemRelease(static_cast<CUmemGenericAllocationHandle>(c.handle));
    }
    if (c.fd >= 0) ::close(c.fd);
    chunks_.pop_back();
  }
  committed_ = chunks_.empty() ? 0 : chunks_.back().offset + chunks_.back().size;
}

void HeapMemory::close_chunk_fds() {
  for (Chunk &c : chunks_)
    if (c.fd >= 0) {
      ::close(c.fd);
      c.fd = -1;
    }
}

void HeapMemory::release_device() {
  const cuda::Driver *d = cuda::driver();
  (void)cudaSetDevice(device_);
  // Kernels or copies still running on the heap must finish before its memory goes away.
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  uncommit(0);
  if (d && reserve_base_) {
    // DEINITIALIZED: the process is exiting without xshmem_finalize and the driver has already
    // torn the context down with everything in it; nothing is left to free.
    if (CUresult r = d->cuMemAddressFree(reserve_base_, reserve_size_);
        r != CUDA_SUCCESS && r != CUDA_ERROR_DEINITIALIZED)
      XLOG_WARN(kSubsys, "%s", cu_error("cuMemAddressFree", r).c_str());
  }
  reserve_base_ = 0;
  reserve_size_ = 0;
  base_ = nullptr;
  size_ = 0;
  device_ = -1;
  granularity_ = chunk_size_ = committed_ = 0;
}

}  // namespace xshmem::core

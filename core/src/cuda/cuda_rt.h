// xshmem core: the CUDA side of the runtime (GPU selection, driver entry points, the internal
// stream, the device copy of the path state).
//
// libxshmem links the CUDA runtime statically and never libcuda: the driver is reached through
// cudaGetDriverEntryPointByVersion, so the same binary starts on machines without a GPU driver
// and reports why no GPU is usable. A build without CUDA compiles cuda_none.cc instead, whose
// functions report that no GPU is usable.
#ifndef XSHMEM_CORE_CUDA_RT_H
#define XSHMEM_CORE_CUDA_RT_H

#include <cstddef>
#include <cstdint>
#include <string>

#include <xshmem/device/state.h>
#include "../status.h"

namespace xshmem::cuda {

// The driver entry point `symbol` in the ABI of XSHMEM_CUDA_DRIVER_ABI (services table), or
// nullptr when there is no usable driver.
void *driver_proc(const char *symbol);
// Whether the CUDA driver loaded and cuInit succeeded (once per process); when not, `why` (if
// not null) says why. For xshmem-info's pre-flight checks; driver_proc returns nullptr then.
bool driver_usable(std::string *why);

// Whether a CUDA device can hold this PE's heap.
struct Probe {
  int device = -1;          // chosen ordinal, current on the calling thread; -1: none usable
  size_t granularity = 0;   // recommended VMM allocation granularity of that device
  std::string reason;       // why none is usable (device == -1)
  std::string description;  // "NVIDIA H200, pci 0000:1b:00.0" for logs
  std::string pci_bus_id;   // "0000:1b:00.0" (job info's gpu_pci)
};
// Picks the device (XSHMEM_CUDA_DEVICE, or `local_rank` modulo the visible devices), makes it
// current (its primary context) and checks that it supports what a GPU heap needs (virtual
// memory management, POSIX descriptor handles).
Probe probe(int local_rank);

// Opens the runtime's GPU resources on `device` (the internal stream); close releases them and
// the device state. Both idempotent.
Status open(int device);
void close();

// Rebuilds the device copy of `host` (see runtime.h device_state()).
Status publish_state(const dev::state_t &host);

// Synchronous memset / copy of GPU memory on the internal stream (runtime's own heap work).
Status memset_sync(void *dst, int value, size_t n);
Status copy_sync(void *dst, const void *src, size_t n);

// Pinned host memory mapped into every GPU (cudaHostAlloc, mapped and portable; the proxy
// rings): *host is its address for CPU code, *device for GPU code (the same under UVA), zeroed.
// XSHMEM_ERR_UNSUPPORTED without CUDA, XSHMEM_ERR_NOMEM when the driver refuses (logged).
Status host_alloc_mapped(size_t n, void **host, void **device);
// Frees memory of host_alloc_mapped (by its host address); nullptr is ignored.
void host_free(void *host);

}  // namespace xshmem::cuda

#endif  // XSHMEM_CORE_CUDA_RT_H

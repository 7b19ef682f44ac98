// xshmem host API: fence, quiet, barrier_all, sync_all, and the core's world_sync, running the
// path code of <xshmem/device/rma.h> and <xshmem/device/sync.h>.
#include <xshmem/device/rma.h>
#include <xshmem/device/sync.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "cuda/device_ops.h"
#include "host_path.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

// world_sync as the public call `site` (for the wait deadline's report).
void world_sync_as(const dev::wait_site &site) {
  // GPU heaps: the counters are GPU memory; a kernel runs the same dissemination, with the epoch
  // kept in the heap's internal region (shared with device-side syncs).
  if (path::team_ops_in_kernels()) return gpu::world_sync(false);
  // Every PE counts its syncs the same way (the epoch word of the world's slot in its heap), so
  // the epochs agree without communication.
  dev::sync_all(state(), site);
}

}  // namespace

void world_sync() {
  world_sync_as(dev::wait_site{dev::kWaitSyncAll});
}

}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

void xshmem_fence(void) {
  xc::check_init("xshmem_fence");
  xc::path::fence(XSHMEM_CTX_DEFAULT);
}

void xshmem_quiet(void) {
  xc::check_init("xshmem_quiet");
  xc::path::quiet(XSHMEM_CTX_DEFAULT);
}

void xshmem_barrier_all(void) {
  xc::check_init("xshmem_barrier_all");
  if (xc::path::team_ops_in_kernels()) return xc::gpu::world_sync(true);  // after the copies
  xd::quiet(xc::state());
  xc::world_sync_as(xd::wait_site{xd::kWaitBarrierAll, "xshmem_barrier_all"});
}

void xshmem_sync_all(void) {
  xc::check_init("xshmem_sync_all");
  // Completes this PE's own stores (the memory-store row of the ordering table), not remote
  // operations still in flight on other paths.
  xd::atomic::quiet();
  xc::world_sync_as(xd::wait_site{xd::kWaitSyncAll, "xshmem_sync_all"});
}

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
void xshmemi_h_fence(void) __attribute__((alias("xshmem_fence")));
void xshmemi_h_quiet(void) __attribute__((alias("xshmem_quiet")));
void xshmemi_h_barrier_all(void) __attribute__((alias("xshmem_barrier_all")));
void xshmemi_h_sync_all(void) __attribute__((alias("xshmem_sync_all")));

}  // extern "C"

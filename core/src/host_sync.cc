// xshmem host API: fence, quiet, barrier_all, sync_all, and the core's world_sync, running the
// path code of <xshmem/device/rma.h> and <xshmem/device/sync.h>.
#include <xshmem/device/rma.h>
#include <xshmem/device/sync.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "runtime.h"

namespace xshmem::core {

void world_sync() {
  dev::state_t &s = state();
  // Every PE counts its syncs the same way, so the epochs agree without communication.
  dev::sync_all(s, ++s.sync_epoch);
}

}  // namespace xshmem::core

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

extern "C" {

void xshmem_fence(void) {
  xc::check_init("xshmem_fence");
  xd::fence(xc::state());
}

void xshmem_quiet(void) {
  xc::check_init("xshmem_quiet");
  xd::quiet(xc::state());
}

void xshmem_barrier_all(void) {
  xc::check_init("xshmem_barrier_all");
  xd::quiet(xc::state());
  xc::world_sync();
}

void xshmem_sync_all(void) {
  xc::check_init("xshmem_sync_all");
  // Completes this PE's own stores (the memory-store row of the ordering table), not remote
  // operations still in flight on other paths.
  xd::atomic::quiet();
  xc::world_sync();
}

}  // extern "C"

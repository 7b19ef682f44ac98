// xshmem host API: reachability queries (ptr, addr_accessible, pe_accessible) and the
// transport serving each peer.
#include <xshmem/device/rma.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "checks.h"
#include "runtime.h"

namespace xc = xshmem::core;
namespace xd = xshmem::dev;

namespace {

bool valid_pe(const xd::state_t &s, int pe) {
  return pe >= 0 && pe < s.n_pes;
}

}  // namespace

extern "C" {

// A bad pe or an address outside the heap gives NULL (not a checked-mode stop): ptr is a query.
void *xshmem_ptr(const void *dest, int pe) {
  xc::check_init("xshmem_ptr");
  const xd::state_t &s = xc::state();
  if (!valid_pe(s, pe) || !xd::in_heap(s, dest, 1)) return nullptr;
  // This PE's own global: its own address (the heap's window holds the same pages).
  if (pe == s.my_pe && xd::in_globals(s, dest, 1)) return const_cast<void *>(dest);
  return xd::ptr(s, const_cast<void *>(dest), pe);
}

int xshmem_addr_accessible(const void *addr, int pe) {
  xc::check_init("xshmem_addr_accessible");
  const xd::state_t &s = xc::state();
  return valid_pe(s, pe) && s.peers[pe].path != XSHMEM_PATH_NONE && xd::in_heap(s, addr, 1) ? 1 : 0;
}

int xshmem_pe_accessible(int pe) {
  xc::check_init("xshmem_pe_accessible");
  const xd::state_t &s = xc::state();
  return valid_pe(s, pe) && s.peers[pe].path != XSHMEM_PATH_NONE ? 1 : 0;
}

const char *xshmemx_transport_name(int pe) {
  xc::check_init("xshmemx_transport_name");
  const xd::state_t &s = xc::state();
  if (!valid_pe(s, pe) || s.transport_names == nullptr) return nullptr;
  return s.transport_names[pe];
}

int xshmemx_heap_device(void) {
  xc::check_init("xshmemx_heap_device");
  return xc::heap_on_device() ? xc::cuda_device() : -1;
}

// Second name for the inline CUDA API's host branch (<xshmem/device/cuda_api.h>).
void *xshmemi_h_ptr(const void *dest, int pe) __attribute__((alias("xshmem_ptr")));

}  // extern "C"

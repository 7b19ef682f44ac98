// xshmem core: the two copies of the path state (dev::state_t) and how they differ.
//
// The device's copy (what cuda::publish_state uploads for kernels) holds the transports' path
// codes. The host's copy (state()) holds the same, except on a heap in GPU memory: there every
// LSA peer's code is XSHMEM_PATH_HOST_CE (the host reaches the mapping with copies and kernels,
// <xshmem/device/host_ce.h>) and state_t::host_ce holds those operations. Built by build_state.
#ifndef XSHMEM_CORE_PATH_STATE_H
#define XSHMEM_CORE_PATH_STATE_H

#include <vector>

#include <xshmem/device/state.h>

namespace xshmem::core {

// The host's peer table over `chosen` (the transports' choices, what the device's copy keeps):
// `chosen` itself, but with every LSA code HOST_CE when `heap_in_gpu`. Bases and flags are kept.
std::vector<dev::peer_t> host_peer_table(const std::vector<dev::peer_t> &chosen, bool heap_in_gpu);

// The state the device's copy is made from: `host` (the host's copy) with the peer table
// `chosen` and without the host-only HOST_CE operations.
dev::state_t device_source(const dev::state_t &host, const dev::peer_t *chosen);

// device_source of the current host state (host memory; its tables readable by the host): what
// the device's path code sees, for host code that predicts a kernel's choices.
const dev::state_t &device_view();

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_PATH_STATE_H

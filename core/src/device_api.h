// xshmem core: library support of the device API (<xshmem/device/cuda_api.h>).
//
// Every CUDA translation unit that includes <xshmem/xshmem.h> keeps its own copy of the device
// state and registers a sink (a callback in that unit) at program start. The runtime hands each
// sink the device state after it has published it.
#ifndef XSHMEM_CORE_DEVICE_API_H
#define XSHMEM_CORE_DEVICE_API_H

#include <cstddef>

#include "status.h"

namespace xshmem::core {

// Whether a CUDA translation unit compiled against device-state layout `layout` may take this
// library's device state (XSHMEM_DEVICE_STATE_LAYOUT, <xshmem/device/state.h>). When not, writes
// the one-line diagnostic naming `unit` into line[len]. The check xshmemi_register_*_sink makes.
bool device_layout_accepted(int layout, const char *unit, char *line, size_t len);

// Gives every registered sink the current device state, when there is one (GPU heap) and it is
// newer than what the sinks last got. Called by init after cuda::publish_state, and after any
// later republication; cheap when nothing changed. Failures of a sink are logged (a kernel
// module that could not take the state), not fatal. XSHMEM_ERR_ABI on a GPU heap when a unit was
// refused at registration (another device-state layout): its kernels would read no state.
Status notify_device_state_sinks();

// The diagnostic of the first unit refused at registration ("kernel module ... was compiled
// against device-state layout N ..."), or "" when none was: what a failed init names as its
// reason when notify_device_state_sinks said XSHMEM_ERR_ABI.
const char *device_layout_refusal();

// Forgets what the sinks were given (finalize), so a later init hands them the new state.
void reset_device_state_sinks();

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_DEVICE_API_H

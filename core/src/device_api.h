// xshmem core: library support of the device API (<xshmem/device/cuda_api.h>).
//
// Every CUDA translation unit that includes <xshmem/xshmem.h> keeps its own copy of the device
// state and registers a sink (a callback in that unit) at program start. The runtime hands each
// sink the device state after it has published it.
#ifndef XSHMEM_CORE_DEVICE_API_H
#define XSHMEM_CORE_DEVICE_API_H

namespace xshmem::core {

// Gives every registered sink the current device state, when there is one (GPU heap) and it is
// newer than what the sinks last got. Called by init after cuda::publish_state, and after any
// later republication; cheap when nothing changed. Failures of a sink are logged (a kernel
// module that could not take the state), not fatal.
void notify_device_state_sinks();

// Forgets what the sinks were given (finalize), so a later init hands them the new state.
void reset_device_state_sinks();

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_DEVICE_API_H

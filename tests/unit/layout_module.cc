// A stand-in for a CUDA translation unit that includes <xshmem/device/cuda_api.h>: it registers
// its device-state sink at program start exactly as cuda_api.h does (the same macro), with the
// device-state layout it was compiled against (-DXSHMEM_DEVICE_STATE_LAYOUT_OVERRIDE=N for an
// old or future one). The runtime's registration check is host code, so this runs without a GPU.
// Prints the registration's result; exits 0 when it was accepted, 3 when refused.
#include <cstdio>

#include <xshmem/device/state.h>

namespace {
int sink_calls = 0;
int sink(const void *, size_t, int) {
  ++sink_calls;
  return 0;
}
const int registered = XSHMEMI_REGISTER_DEVICE_STATE_SINK(&sink);
}  // namespace

int main() {
  std::printf("layout_module: compiled against device-state layout %d; registration returned %d\n",
              XSHMEMI_UNIT_STATE_LAYOUT, registered);
  return registered == 0 ? 0 : 3;
}

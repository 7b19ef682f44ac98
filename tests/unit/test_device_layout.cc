// The device-state layout check (core/src/device_api.cc): the host-side function that
// xshmemi_register_device_state_sink2 runs before it accepts a CUDA translation unit's sink.
#include <cstring>
#include <string>

#include <xshmem/device/state.h>

#include "../catch_compat.h"
#include "device_api.h"

namespace xc = xshmem::core;

TEST_CASE("a unit of this layout is accepted; any other is refused with one line naming it",
          "[layout]") {
  char line[512];
  std::memset(line, 0, sizeof line);
  CHECK(xc::device_layout_accepted(XSHMEM_DEVICE_STATE_LAYOUT, "ok.cu", line, sizeof line));
  CHECK(line[0] == '\0');
  for (int other : {0, XSHMEM_DEVICE_STATE_LAYOUT - 1, XSHMEM_DEVICE_STATE_LAYOUT + 1, 1000}) {
    if (other == XSHMEM_DEVICE_STATE_LAYOUT) continue;
    INFO("layout " << other);
    std::memset(line, 0, sizeof line);
    CHECK_FALSE(xc::device_layout_accepted(other, "kern.cu", line, sizeof line));
    const std::string want = "kernel module kern.cu was compiled against device-state layout " +
                             std::to_string(other) + (other == 0 ? " (unnumbered)" : "") +
                             ", this libxshmem has " + std::to_string(XSHMEM_DEVICE_STATE_LAYOUT) +
                             "; rebuild it against this xshmem";
    CHECK(std::string(line) == want);
    CHECK(std::strchr(line, '\n') == nullptr);  // one line
  }
  // A short buffer still ends in NUL.
  char tiny[8];
  CHECK_FALSE(xc::device_layout_accepted(7, "kern.cu", tiny, sizeof tiny));
  CHECK(std::strlen(tiny) == sizeof tiny - 1);
}

TEST_CASE("the state's layout field is first, so every layout finds it", "[layout]") {
  static_assert(offsetof(xshmem::dev::state_t, layout) == 0, "layout must stay first");
  xshmem::dev::state_t s;
  CHECK(s.layout == 0);  // filled by the runtime (build_state), not by the default
}

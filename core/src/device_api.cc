// xshmem core: library support of the device API: the registry of device-state sinks, the
// explicit device handle, host entry points the inline CUDA API calls under second names, and,
// in a build without CUDA, the on-stream extensions (which then stop the job with a reason).
#include "device_api.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <xshmem/device/state.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "checks.h"
#include "log.h"
#include "runtime.h"
#if defined(XSHMEM_HAVE_CUDA)
#include "cuda/device_ops.h"
#endif

namespace xshmem::core {
namespace {

constexpr const char *kSubsys = "device";

using sink_fn = int (*)(const void *state, size_t size, int device);

struct Sinks {
  std::mutex mutex;
  std::vector<sink_fn> fns;
  uint64_t version_given = 0;  // device_state_version() the sinks hold; 0: none
  dev::state_t image{};        // what they were given
  int refused = 0;             // units refused at registration (another device-state layout)
  std::string first_refusal;   // the diagnostic of the first of them
};
Sinks &sinks() {
  static Sinks *s = new Sinks;  // never destroyed: sinks may register during static init
  return *s;
}

void give(sink_fn fn, const dev::state_t &image, int device) {
  int err = fn(&image, sizeof image, device);
  if (err != 0) {
    XLOG_ERROR(kSubsys,
               "a CUDA module could not take the device state (cuda error %d): its kernels "
               "will not reach other PEs; check that it runs on gpu %d",
               err, device);
  }
}

}  // namespace

bool device_layout_accepted(int layout, const char *unit, char *line, size_t len) {
  if (layout == XSHMEM_DEVICE_STATE_LAYOUT) return true;
  snprintf(
      line, len,
      "kernel module %s was compiled against device-state layout %d%s, this libxshmem has "
      "%d; rebuild it against this xshmem",
      unit != nullptr ? unit : "(unnamed, registered by an xshmem before layouts were numbered)",
      layout, layout == 0 ? " (unnumbered)" : "", XSHMEM_DEVICE_STATE_LAYOUT);
  return false;
}

Status notify_device_state_sinks() {
#if defined(XSHMEM_HAVE_CUDA)
  Sinks &s = sinks();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (heap_on_device() && s.refused > 0) return XSHMEM_ERR_ABI;  // the units were named then
  uint64_t version = device_state_version();
  if (!heap_on_device() || version == s.version_given) return XSHMEM_SUCCESS;
  if (!gpu::state_image(&s.image)) return XSHMEM_SUCCESS;
  s.version_given = version;
  for (sink_fn fn : s.fns) give(fn, s.image, cuda_device());
  XLOG_DEBUG(kSubsys, "device state version %llu given to %zu CUDA modules",
             static_cast<unsigned long long>(version), s.fns.size());
#endif
  return XSHMEM_SUCCESS;
}

const char *device_layout_refusal() {
  Sinks &s = sinks();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.first_refusal.c_str();  // set once, before main: stays valid
}

void reset_device_state_sinks() {
  Sinks &s = sinks();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.version_given = 0;
  s.image = dev::state_t{};
}

}  // namespace xshmem::core

namespace xc = xshmem::core;

#if !defined(XSHMEM_HAVE_CUDA)
namespace {
// Without CUDA there are no GPU heaps and no streams: every on-stream call is an error.
[[noreturn]] void no_cuda(const char *call) {
  xc::check_init(call);
  xc::check_fail(call, "needs a GPU heap, and this xshmem was built without CUDA");
}
}  // namespace
#endif

// Checks the unit's layout before anything else: a refused sink is never called, so none of the
// unit's kernels reads a table of another layout (they see an empty state, and init on a GPU heap
// fails).
extern "C" int xshmemi_register_device_state_sink2(int layout, const char *unit,
                                                   int (*sink)(const void *, size_t, int)) {
  if (sink == nullptr) return 0;
  xc::Sinks &s = xc::sinks();
  std::lock_guard<std::mutex> lock(s.mutex);
  char line[512];
  if (!xc::device_layout_accepted(layout, unit, line, sizeof line)) {
    if (s.refused++ == 0) s.first_refusal = line;
    XLOG_ERROR(xc::kSubsys, "%s", line);
    return XSHMEM_ERR_ABI;
  }
  s.fns.push_back(sink);
  // A module loaded after init gets the state at once.
  if (s.version_given != 0) xc::give(sink, s.image, xc::cuda_device());
  return 0;
}

// Units built against an xshmem whose cuda_api.h predates numbered layouts register here: their
// state_t is not this library's, so they are refused (layout 0).
extern "C" int xshmemi_register_device_state_sink(int (*sink)(const void *, size_t, int)) {
  return xshmemi_register_device_state_sink2(0, nullptr, sink);
}

// The device state by value; on a host heap, the host state (what CPU code would pass).
xshmem::dev::state_t xshmemx_device_handle(void) {
  xc::check_init("xshmemx_device_handle");
#if defined(XSHMEM_HAVE_CUDA)
  if (xc::heap_on_device()) {
    xshmem::dev::state_t image;
    if (xc::gpu::state_image(&image)) return image;
  }
#endif
  return xc::state();
}

extern "C" {

// Second names of host entry points defined in files this one does not own (context.cc).
int xshmemi_h_my_pe(void) {
  return xshmem_my_pe();
}
int xshmemi_h_n_pes(void) {
  return xshmem_n_pes();
}

#if !defined(XSHMEM_HAVE_CUDA)
void xshmemx_putmem_on_stream(void *, const void *, size_t, int, struct CUstream_st *) {
  no_cuda("xshmemx_putmem_on_stream");
}
void xshmemx_getmem_on_stream(void *, const void *, size_t, int, struct CUstream_st *) {
  no_cuda("xshmemx_getmem_on_stream");
}
void xshmemx_putmem_signal_on_stream(void *, const void *, size_t, uint64_t *, uint64_t, int, int,
                                     struct CUstream_st *) {
  no_cuda("xshmemx_putmem_signal_on_stream");
}
void xshmemx_quiet_on_stream(struct CUstream_st *) {
  no_cuda("xshmemx_quiet_on_stream");
}
void xshmemx_barrier_all_on_stream(struct CUstream_st *) {
  no_cuda("xshmemx_barrier_all_on_stream");
}
void xshmemx_sync_all_on_stream(struct CUstream_st *) {
  no_cuda("xshmemx_sync_all_on_stream");
}
void xshmemx_team_sync_on_stream(xshmem_team_t, struct CUstream_st *) {
  no_cuda("xshmemx_team_sync_on_stream");
}
#endif

}  // extern "C"

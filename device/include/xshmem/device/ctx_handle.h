// xshmem device API: the encoding of a context handle (xshmem_ctx_t), see ctx.h. Apart so that
// the proxy rings (proxy_ring.h), which pick a channel by the context's entry, need no team code.
#ifndef XSHMEM_DEVICE_CTX_HANDLE_H
#define XSHMEM_DEVICE_CTX_HANDLE_H

#include <stdint.h>

#include <xshmem/device/state.h>

namespace xshmem::dev {

constexpr int kCtxTeamBits = 8;
constexpr int32_t kCtxTeamMask = (1 << kCtxTeamBits) - 1;
// Entries of the context table a handle can name (bits 8-30), XSHMEM_CTX_DEFAULT's included.
constexpr int32_t kCtxMaxEntries = int32_t{1} << (31 - kCtxTeamBits);
static_assert(internal_region_t::kMaxTeams <= (1 << kCtxTeamBits), "team handles need more bits");

// The handle of entry `entry` on team `team`.
XSHMEM_HD_INLINE int32_t ctx_handle(int32_t entry, int32_t team) {
  return (entry << kCtxTeamBits) | team;
}
XSHMEM_HD_INLINE bool ctx_is_invalid(int32_t ctx) {
  return ctx < 0;
}
// The team of a valid handle (XSHMEM_TEAM_WORLD for XSHMEM_CTX_DEFAULT).
XSHMEM_HD_INLINE int32_t ctx_team(int32_t ctx) {
  return ctx & kCtxTeamMask;
}
XSHMEM_HD_INLINE int32_t ctx_entry(int32_t ctx) {
  return ctx >> kCtxTeamBits;
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_CTX_HANDLE_H

// xshmem device API: contexts as the path code sees them.
//
// A context handle (xshmem_ctx_t, an int32_t) carries its team: bits 0-7 are the team handle,
// bits 8-30 the context's entry in the creating PE's context table (0: XSHMEM_CTX_DEFAULT, whose
// team is WORLD); a negative handle is XSHMEM_CTX_INVALID. So device code turns a context's
// team-relative PE into a world PE with the team table it already has (one team_of), and no
// context table has to be published to the GPU: creating or destroying a context, which any host
// thread may do while kernels run, never touches the device state.
//
// The context goes down to the dispatchers (rma.h, amo.h, signal.h): LSA completes an operation
// before it returns, so one fence or quiet serves every context there; a path that keeps
// operations in flight keys its queues by the context entry (PROXY: the channel, proxy.h
// channel(); GDA queues later).
#ifndef XSHMEM_DEVICE_CTX_H
#define XSHMEM_DEVICE_CTX_H

#include <stdint.h>

#include <xshmem/device/ctx_handle.h>
#include <xshmem/device/state.h>
#include <xshmem/device/team.h>

namespace xshmem::dev {

// The world PE of `pe` numbered in the team of context `ctx`, or -1 for an invalid context or a
// pe outside the team. World contexts (the default one included) map pe to itself, out-of-range
// values included: the callee's PE check reports them as the caller wrote them.
XSHMEM_HD_INLINE int ctx_world_pe(const state_t &s, int32_t ctx, int pe) {
  if (ctx_is_invalid(ctx)) return -1;
  const int32_t team = ctx_team(ctx);
  if (team == 0) return pe;
  const team_t t = team_of(s, team);
  if (!team_member(t) || pe < 0 || pe >= t.size) return -1;
  return team_world_pe(t, pe);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_CTX_H

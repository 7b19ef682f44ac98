// xshmem core: checked-mode agreement on the arguments of a team collective (ERR-06).
//
// Broadcast with different roots, a reduction with different nreduce, or buffers at different
// heap offsets would make the members of a team wait for data that never comes, or write past
// the buffers of a peer. With XSHMEM_CHECKS=1 every host collective entry point agrees on its
// arguments first: one max/min allreduce of a hash over the team (team::args_agree). When they
// differ, every member sees it (max != min everywhere), so every member goes on to find the
// first differing argument with one exact agreement per argument (the same sequence on every
// member, no hang) and stops the job naming it. With checks off nothing of this runs.
#ifndef XSHMEM_CORE_COLL_ARGS_H
#define XSHMEM_CORE_COLL_ARGS_H

#include <cinttypes>
#include <cstdint>
#include <initializer_list>

#include <xshmem/device/state.h>

#include "checks.h"
#include "runtime.h"
#include "team.h"

namespace xshmem::core::coll {

// One argument that must be identical on every member of the team.
struct Arg {
  const char *name;
  int64_t value;
};

// The heap offset of a symmetric buffer, or -1 for a buffer that is not in the heap (NULL with a
// zero length, accepted by the range checks): offsets, not addresses, are symmetric.
inline int64_t offset_of(const void *p) {
  const dev::state_t &s = state();
  if (p == nullptr || !dev::in_heap(s, p, 1)) return -1;
  return static_cast<int64_t>(dev::heap_offset(s, p));
}

// A hash of the call's name: the first argument agreed on, so PEs in different collectives on
// one team (their argument lists may differ in length) stop at the same step.
inline int64_t call_id(const char *call) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char *c = call; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  return static_cast<int64_t>(h);
}

// Checked mode only (the caller tests checks_enabled()): returns when every member of `team`
// passed the same `call` and `args`; otherwise stops the job on every member with
// "xshmem: <call>: <argument> <value> differs between PEs of team <t> ... (pe N)".
inline void check_args_agree(const char *call, xshmem_team_t team,
                             std::initializer_list<Arg> args) {
  uint64_t key = team::mix(0, call_id(call));
  for (const Arg &a : args) key = team::mix(key, a.value);
  if (team::args_agree(team, key)) return;
  if (!team::args_agree(team, team::mix(0, call_id(call))))
    check_fail(call,
               "the collective call differs between PEs of team %d (this pe called %s); every "
               "member must make the same collective call",
               static_cast<int>(team), call);
  // mix(0, v) is injective in v: these agreements are exact.
  for (const Arg &a : args)
    if (!team::args_agree(team, team::mix(0, a.value)))
      check_fail(call,
                 "%s %" PRId64
                 " differs between PEs of team %d; collective arguments must be identical on "
                 "every member",
                 a.name, a.value, static_cast<int>(team));
  check_fail(call, "the arguments differ between PEs of team %d", static_cast<int>(team));
}

}  // namespace xshmem::core::coll

#endif  // XSHMEM_CORE_COLL_ARGS_H

// xshmem core: checked-mode agreement on the arguments of a team collective (ERR-06).
//
// Broadcast with different roots, a reduction with different nreduce, or buffers at different
// heap offsets would make the members of a team wait for data that never comes, or write past
// the buffers of a peer. With XSHMEM_CHECKS=1 every host collective entry point hashes its call
// name and arguments into a key (args_key) that every member must share, and the key travels in
// the collective's own first synchronisation, so checking costs no round of its own:
// - host heaps, teams of 2 to 31 members (dev::teams_carry_keys): the keyed step of
//   <xshmem/device/coll_reduce.h> (a 16-bit digest of the key in each member's arrival flag):
//   the first chunk of a reduction, the exit barrier of a direct broadcast, fcollect or alltoall,
//   the entry sync of collect and of the tree and ring algorithms. Every checked collective of
//   such a team starts its synchronisation with that step, so members that disagree (even on
//   which collective they are in) meet in it;
// - GPU heaps (collectives in kernels) and larger teams: one OR-allreduce of a 32-bit digest
//   before the collective (team::args_agree).
// Either way every member learns the same answer. When the keys differ, every member goes on to
// find the first differing argument with one exact agreement per argument (args_differ: the same
// sequence on every member, no hang) and stops the job naming it. A difference that collides in
// the digest (1 in 65536, or 2^32) goes unnoticed, as with checks off. With checks off nothing
// of this runs.
#ifndef XSHMEM_CORE_COLL_ARGS_H
#define XSHMEM_CORE_COLL_ARGS_H

#include <cinttypes>
#include <cstdint>
#include <initializer_list>

#include <xshmem/device/coll_reduce.h>
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
  const uintptr_t off = reinterpret_cast<uintptr_t>(p) - g_check_view.heap_base;
  if (off < g_check_view.heap_size) return static_cast<int64_t>(off);  // the heap proper
  const dev::state_t &s = state();
  if (p == nullptr || !dev::in_heap(s, p, 1)) return -1;
  return static_cast<int64_t>(dev::heap_offset(s, p));
}

// A hash of the call's name: the first argument agreed on, so PEs in different collectives on
// one team (their argument lists may differ in length) stop at the same step. The names are
// string literals of the API's entry points: each thread remembers the hashes of the last few
// by address, so a collective called again does not hash its name again. The default TLS model,
// not initial-exec: libxshmem is also loaded late, by dlopen (the Python package, after torch),
// where the static TLS block has no room left ("cannot allocate memory in static TLS block").
inline int64_t call_id(const char *call) {
  struct entry {
    const char *name;
    int64_t id;
  };
  static thread_local entry cache[16] = {};
  entry &e = cache[(reinterpret_cast<uintptr_t>(call) >> 3) & 15];
  if (e.name == call) return e.id;
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char *c = call; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  e = entry{call, static_cast<int64_t>(h)};
  return e.id;
}

// Checked mode only (the caller tests checks_enabled()). check_args_agree returns when every
// member of `team` passed the same `call` and `args`; otherwise stops the job on every member with
// "xshmem: <call>: <argument> <value> differs between PEs of team <t> ... (pe N)". A collective
// that carries args_key in its own first synchronisation (team reductions) calls args_differ
// when that says the keys differ.
template <typename Args>
uint64_t args_key(const char *call, const Args &args) {
  uint64_t key = team::mix(0, call_id(call));
  for (const Arg &a : args) key = team::mix(key, a.value);
  return key;
}

// After every member of `team` learned that the keys of its arguments differ (the same answer on
// every member): finds the first argument that differs, with exact agreements in the same
// sequence on every member, and stops the job naming it.
template <typename Args>
[[noreturn]] void args_differ(const char *call, xshmem_team_t team, const Args &args) {
  if (!team::args_agree_exact(team, team::mix(0, call_id(call))))
    check_fail(call,
               "the collective call differs between PEs of team %d (this pe called %s); every "
               "member must make the same collective call",
               static_cast<int>(team), call);
  // mix(0, v) is injective in v: these agreements are exact.
  for (const Arg &a : args)
    if (!team::args_agree_exact(team, team::mix(0, a.value)))
      check_fail(call,
                 "%s %" PRId64
                 " differs between PEs of team %d; collective arguments must be identical on "
                 "every member",
                 a.name, a.value, static_cast<int>(team));
  check_fail(call, "the arguments differ between PEs of team %d", static_cast<int>(team));
}

template <typename Args>
void check_args_agree(const char *call, xshmem_team_t team, const Args &args) {
  if (!team::args_agree(team, args_key(call, args))) args_differ(call, team, args);
}
inline void check_args_agree(const char *call, xshmem_team_t team,
                             std::initializer_list<Arg> args) {
  check_args_agree<std::initializer_list<Arg>>(call, team, args);
}

// A checked collective of the host API (checks on): where the collective's own first
// synchronisation can carry the arguments' key (host heaps, dev::teams_carry_keys), sets *key
// and returns it for the collective; otherwise agrees now (check_args_agree) and returns NULL.
// The caller runs the collective with the returned key and calls args_differ when it reports
// that the keys differ.
template <typename Args>
const uint64_t *carried_key(const char *call, xshmem_team_t team, const dev::team_t &t,
                            const Args &args, bool in_kernels, uint64_t *key) {
  if (!in_kernels && dev::teams_carry_keys(t)) {
    *key = args_key(call, args);
    return key;
  }
  check_args_agree(call, team, args);
  return nullptr;
}

}  // namespace xshmem::core::coll

#endif  // XSHMEM_CORE_COLL_ARGS_H

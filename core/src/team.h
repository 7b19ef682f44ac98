// xshmem core: the team table (host side) behind xshmem_team_* (team.cc).
//
// Handles index a table of kMaxTeams dev::team_t, the same on every PE; a handle is also the
// team's slot in the internal region (its synchronisation words). Slots 0-2 are the predefined
// teams WORLD, SHARED and NODE; split teams take the lowest slot free on every member of the
// parent (agreed with a one-word OR-allreduce over the parent).
#ifndef XSHMEM_CORE_TEAM_H
#define XSHMEM_CORE_TEAM_H

#include <cstdint>
#include <vector>

#include <xshmem/device/state.h>

namespace xshmem::core::team {

// Fills the table with the predefined teams for the path state `s` (its peers decide SHARED,
// `host_id` NODE) and returns it (state_t::teams). Called at init.
dev::team_t *init_predefined(const dev::state_t &s, const std::vector<uint64_t> &host_id);
// Empties the table (finalize).
void reset();

// Whether every member of `team` (a team of this PE) passed the same `key` (checked mode:
// collective arguments that must be identical), the same answer on every member: on host heaps
// for teams of 2 to 31 members the keyed step of <xshmem/device/coll_reduce.h> (a 16-bit digest;
// keys that differ pass with probability 2^-16), else one OR-allreduce of a 32-bit digest (2^-32).
bool args_agree(int team, uint64_t key);
// The same, exact on all 64 bits: a max- and a min-allreduce (the diagnosis after a mismatch).
bool args_agree_exact(int team, uint64_t key);

// A 64-bit mix of `v` into `h` (keys for args_agree).
inline uint64_t mix(uint64_t h, int64_t v) {
  h ^= static_cast<uint64_t>(v) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

}  // namespace xshmem::core::team

#endif  // XSHMEM_CORE_TEAM_H

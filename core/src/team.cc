// xshmem core: teams (OpenSHMEM 1.5 team_* calls) on the path code of <xshmem/device/team.h>.
//
// A team is an arithmetic progression of world PEs (start, stride, size), so team numbering is
// arithmetic on the host and in kernels alike. Creation is collective over the parent: every
// parent PE computes the new team from the identical triplet, then the parent agrees on a slot
// free on all its members (an OR-allreduce of the used-slot bitmaps), members zero the slot's
// synchronisation words, and a sync of the parent makes the team usable at once.
#include "team.h"

#include <array>
#include <cstdio>
#include <string>

#include <xshmem/device/coll_reduce.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/team.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "ctx.h"
#include "cuda/cuda_rt.h"
#include "cuda/device_ops.h"
#include "host_path.h"
#include "log.h"
#include "runtime.h"

namespace xshmem::core::team {
namespace {

constexpr const char *kSubsys = "team";
constexpr int kMaxTeams = dev::internal_region_t::kMaxTeams;
constexpr int kPredefined = 3;  // WORLD, SHARED, NODE

struct Table {
  std::array<dev::team_t, kMaxTeams> t{};
  uint64_t used = 0;  // bit k: slot k holds a team of this PE
};
Table g_table;

dev::team_t progression(const std::vector<int> &pes, int me, const char *what) {
  dev::team_t t;
  const int n = static_cast<int>(pes.size());
  bool ok = n > 0;
  const int stride = n > 1 ? pes[1] - pes[0] : 1;
  for (int i = 1; ok && i < n; ++i) ok = pes[i] - pes[i - 1] == stride;
  if (!ok) {
    // Not expressible as one progression (an uneven placement of PEs on nodes): the team
    // shrinks to this PE alone, which is still a correct (if small) team of PEs sharing memory.
    XLOG_WARN(kSubsys,
              "the %s team of pe %d is not an arithmetic progression of PEs; it holds pe %d only",
              what, me, me);
    t.start = me;
    t.stride = 1;
    t.size = 1;
    t.my_index = 0;
    return t;
  }
  t.start = pes[0];
  t.stride = stride;
  t.size = n;
  t.my_index = dev::team_index_of(t, me);
  return t;
}

// The team behind `team` if this PE is a member (else nullptr).
const dev::team_t *lookup(xshmem_team_t team) {
  if (team < 0 || team >= kMaxTeams || !(g_table.used >> team & 1)) return nullptr;
  const dev::team_t &t = g_table.t[team];
  return dev::team_member(t) ? &t : nullptr;
}

// The team for a collective: stops the job in checked mode for a handle that is not a team of
// this PE; returns nullptr otherwise (checks off: the call does nothing).
const dev::team_t *require(const char *call, xshmem_team_t team) {
  const dev::team_t *t = lookup(team);
  if (t == nullptr && checks_enabled()) {
    if (team == XSHMEM_TEAM_INVALID) check_fail(call, "team is XSHMEM_TEAM_INVALID");
    check_fail(call, "team %d is not a team of this pe (destroyed, or this pe is not a member)",
               static_cast<int>(team));
  }
  return t;
}

// kind 0 sync, 1 barrier, 2 allreduce (word_op `op`), over the path code or, for GPU heaps, in a
// kernel.
uint64_t run(const dev::team_t &t, xshmem_team_t handle, int kind, uint64_t value = 0,
             int op = dev::kWordOr) {
  if (path::team_ops_in_kernels()) return gpu::team_op(handle, kind, value, op);
  const dev::state_t &s = state();
  if (kind == 0) {
    dev::team_sync(s, t);
  } else if (kind == 1) {
    dev::team_barrier(s, t);
  } else {
    return dev::team_allreduce_word(s, t, value, op);
  }
  return 0;
}

// Zeroes this PE's synchronisation words of `slot` (a slot a new team starts using).
void clear_slot(int slot) {
  dev::team_sync_t *a = &state().internal->team[slot];
  if (!path::heap_host_accessible()) {
    if (!cuda::memset_sync(a, 0, sizeof(*a)).ok())
      check_fail("xshmem_team_split", "cannot clear team slot %d on the GPU", slot);
    return;
  }
  *a = dev::team_sync_t{};
}

// Installs `t` (this PE a member) at `slot` with `config`.
void install(int slot, dev::team_t t, const xshmem_team_config_t *config, long mask) {
  t.slot = slot;
  t.num_contexts =
      (config != nullptr && (mask & XSHMEM_TEAM_NUM_CONTEXTS)) ? config->num_contexts : 0;
  g_table.t[slot] = t;
  g_table.used |= uint64_t{1} << slot;
}

// The lowest `count` slots free on every member of `parent` (OR-allreduce of the bitmaps), or
// false when there are not enough (the same answer on every member).
bool agree_slots(const dev::team_t &parent, xshmem_team_t handle, int count, int *slots) {
  const uint64_t used = run(parent, handle, 2, g_table.used, dev::kWordOr);
  int found = 0;
  for (int k = kPredefined; k < kMaxTeams && found < count; ++k)
    if (!(used >> k & 1)) slots[found++] = k;
  return found == count;
}

// Checked mode: every parent member passed the same `key` (inconsistent split arguments would
// leave members waiting on different teams).
// Whether every member passed the same `key`: on host heaps the keyed step every checked
// collective of the team starts with (dev::team_keyed_sync, coll_reduce.h), else one
// OR-allreduce of the key's digest (dev::key_word).
bool keys_agree(const dev::team_t &t, xshmem_team_t handle, uint64_t key) {
  if (!path::team_ops_in_kernels() && dev::teams_carry_keys(t))
    return dev::team_keyed_sync(state(), t, key);
  return dev::key_word_agreed(run(t, handle, 2, dev::key_word(key), dev::kWordOr));
}

void check_agreement(const char *call, const dev::team_t &parent, xshmem_team_t handle,
                     uint64_t key) {
  if (!checks_enabled()) return;
  if (!keys_agree(parent, handle, key))
    check_fail(call, "the PEs of the parent team passed different arguments (inconsistent split)");
}

void publish(const char *call) {
  if (!republish_state().ok()) check_fail(call, "cannot publish the team table to the GPU");
}

}  // namespace

dev::team_t *init_predefined(const dev::state_t &s, const std::vector<uint64_t> &host_id) {
  g_table = Table{};
  const int n = s.n_pes, me = s.my_pe;
  dev::team_t world;
  world.start = 0;
  world.stride = 1;
  world.size = n;
  world.my_index = me;
  install(0, world, nullptr, 0);
  std::vector<int> shared, node;
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me || dev::peer_mapped(s, pe)) shared.push_back(pe);
    if (pe < static_cast<int>(host_id.size()) && host_id[pe] == host_id[me]) node.push_back(pe);
  }
  install(1, progression(shared, me, "shared"), nullptr, 0);
  install(2, progression(node, me, "node"), nullptr, 0);
  return g_table.t.data();
}

void reset() {
  g_table = Table{};
  ctx::reset();  // contexts belong to teams
}

bool args_agree(int team, uint64_t key) {
  const dev::team_t *t = lookup(team);
  if (t == nullptr) return true;
  return keys_agree(*t, team, key);
}

bool args_agree_exact(int team, uint64_t key) {
  const dev::team_t *t = lookup(team);
  if (t == nullptr) return true;
  return run(*t, team, 2, key, dev::kWordMax) == run(*t, team, 2, key, dev::kWordMin);
}

}  // namespace xshmem::core::team

namespace xc = xshmem::core;
namespace xt = xshmem::core::team;
namespace xd = xshmem::dev;

extern "C" {

int xshmem_team_my_pe(xshmem_team_t team) {
  xc::check_init("xshmem_team_my_pe");
  const xd::team_t *t = xt::lookup(team);
  return t ? t->my_index : -1;
}

int xshmem_team_n_pes(xshmem_team_t team) {
  xc::check_init("xshmem_team_n_pes");
  const xd::team_t *t = xt::lookup(team);
  return t ? t->size : -1;
}

int xshmem_team_get_config(xshmem_team_t team, long config_mask, xshmem_team_config_t *config) {
  xc::check_init("xshmem_team_get_config");
  const xd::team_t *t = xt::lookup(team);
  if (t == nullptr) return -1;
  if (config != nullptr && (config_mask & XSHMEM_TEAM_NUM_CONTEXTS))
    config->num_contexts = t->num_contexts;
  return 0;
}

int xshmem_team_translate_pe(xshmem_team_t src_team, int src_pe, xshmem_team_t dest_team) {
  xc::check_init("xshmem_team_translate_pe");
  const xd::team_t *a = xt::lookup(src_team), *b = xt::lookup(dest_team);
  if (a == nullptr || b == nullptr || src_pe < 0 || src_pe >= a->size) return -1;
  return xd::team_index_of(*b, xd::team_world_pe(*a, src_pe));
}

void *xshmem_team_ptr(xshmem_team_t team, const void *dest, int pe) {
  xc::check_init("xshmem_team_ptr");
  const xd::team_t *t = xt::lookup(team);
  if (t == nullptr || pe < 0 || pe >= t->size) return nullptr;
  return xshmem_ptr(dest, xd::team_world_pe(*t, pe));
}

int xshmem_team_sync(xshmem_team_t team) {
  xc::check_init("xshmem_team_sync");
  const xd::team_t *t = xt::require("xshmem_team_sync", team);
  if (t == nullptr) return -1;
  xt::run(*t, team, 0);
  return 0;
}

int xshmem_team_split_strided(xshmem_team_t parent, int start, int stride, int size,
                              const xshmem_team_config_t *config, long config_mask,
                              xshmem_team_t *new_team) {
  const char *call = "xshmem_team_split_strided";
  xc::check_init(call);
  xc::check_buffer(call, "new_team", new_team, 1);
  if (new_team) *new_team = XSHMEM_TEAM_INVALID;
  const xd::team_t *pp = xt::lookup(parent);
  if (pp == nullptr) return -1;  // an invalid parent: nonzero, no communication (1.5 errata)
  const xd::team_t p = *pp;
  // The triplet, checked alike on every parent PE (identical arguments): size >= 1; stride 0
  // only for size 1; every member inside the parent.
  const int64_t last = int64_t{start} + int64_t{stride} * (size - 1);
  const bool valid = size >= 1 && (stride != 0 || size == 1) && start >= 0 && start < p.size &&
                     last >= 0 && last < p.size;
  xt::check_agreement(call, p, parent, xt::mix(xt::mix(xt::mix(0, start), stride), size));
  if (!valid) return -1;
  int slot = -1;
  if (!xt::agree_slots(p, parent, 1, &slot)) {
    XLOG_INFO(xt::kSubsys, "%s: no team slot free on every member of team %d (%d at most)", call,
              static_cast<int>(parent), XSHMEM_MAX_TEAMS);
    return -1;
  }
  xd::team_t t;
  t.start = xd::team_world_pe(p, start);
  t.stride = stride * p.stride;
  t.size = size;
  t.my_index = xd::team_index_of(t, xc::state().my_pe);
  if (t.my_index >= 0) {
    xt::clear_slot(slot);
    xt::install(slot, t, config, config_mask);
  }
  xt::publish(call);
  xt::run(p, parent, 0);  // no member writes the new slot before every member cleared it
  if (t.my_index >= 0 && new_team) *new_team = slot;
  return 0;
}

int xshmem_team_split_2d(xshmem_team_t parent, int xrange, const xshmem_team_config_t *xaxis_config,
                         long xaxis_mask, xshmem_team_t *xaxis_team,
                         const xshmem_team_config_t *yaxis_config, long yaxis_mask,
                         xshmem_team_t *yaxis_team) {
  const char *call = "xshmem_team_split_2d";
  xc::check_init(call);
  if (xaxis_team) *xaxis_team = XSHMEM_TEAM_INVALID;
  if (yaxis_team) *yaxis_team = XSHMEM_TEAM_INVALID;
  const xd::team_t *pp = xt::lookup(parent);
  if (pp == nullptr || xrange <= 0) return -1;
  const xd::team_t p = *pp;
  xt::check_agreement(call, p, parent, xt::mix(0, xrange));
  const int n = p.size, x = xrange > n ? n : xrange;
  int slots[2];
  if (!xt::agree_slots(p, parent, 2, slots)) return -1;
  const int me = p.my_index, row = me / x, col = me % x;
  xd::team_t xt_team;  // my row: parent indices row * x .. row * x + len - 1
  xt_team.start = xd::team_world_pe(p, row * x);
  xt_team.stride = p.stride;
  xt_team.size = (n - row * x) < x ? n - row * x : x;
  xt_team.my_index = col;
  xd::team_t yt_team;  // my column: parent indices col, col + x, ...
  yt_team.start = xd::team_world_pe(p, col);
  yt_team.stride = p.stride * x;
  yt_team.size = (n - col + x - 1) / x;
  yt_team.my_index = row;
  xt::clear_slot(slots[0]);
  xt::clear_slot(slots[1]);
  xt::install(slots[0], xt_team, xaxis_config, xaxis_mask);
  xt::install(slots[1], yt_team, yaxis_config, yaxis_mask);
  xt::publish(call);
  xt::run(p, parent, 0);
  if (xaxis_team) *xaxis_team = slots[0];
  if (yaxis_team) *yaxis_team = slots[1];
  return 0;
}

void xshmem_team_destroy(xshmem_team_t team) {
  const char *call = "xshmem_team_destroy";
  xc::check_init(call);
  if (team == XSHMEM_TEAM_INVALID) return;
  if (team >= 0 && team < xt::kPredefined) {
    if (xc::checks_enabled())
      xc::check_fail(call,
                     "team %d is a predefined team (WORLD, SHARED, NODE): it cannot be "
                     "destroyed",
                     static_cast<int>(team));
    return;
  }
  const xd::team_t *t = xt::require(call, team);
  if (t == nullptr) return;
  xshmem::core::ctx::on_team_destroy(call, team);  // the team's contexts go with it
  // Every member is done with the team (and its slot) before any releases it.
  xt::run(*t, team, 1);
  xt::g_table.t[team] = xd::team_t{};
  xt::g_table.used &= ~(uint64_t{1} << team);
  xt::publish(call);
}

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
int xshmemi_h_team_my_pe(xshmem_team_t) __attribute__((alias("xshmem_team_my_pe")));
int xshmemi_h_team_n_pes(xshmem_team_t) __attribute__((alias("xshmem_team_n_pes")));
int xshmemi_h_team_translate_pe(xshmem_team_t, int, xshmem_team_t)
    __attribute__((alias("xshmem_team_translate_pe")));
void *xshmemi_h_team_ptr(xshmem_team_t, const void *, int)
    __attribute__((alias("xshmem_team_ptr")));
int xshmemi_h_team_sync(xshmem_team_t) __attribute__((alias("xshmem_team_sync")));

}  // extern "C"

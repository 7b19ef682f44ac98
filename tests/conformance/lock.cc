// LOCK-01 of CONFORMANCE.md §4.11 (host API): distributed locks (xshmem_set_lock, test_lock,
// clear_lock).
//
// - counter_under_lock: every PE increments a non-atomic counter on another PE (get, add, put)
//   K times under one lock, with PE- and round-dependent increments, and appends its (PE, round)
//   to a history there; an atomic holder word catches two holders at once. The counter, the
//   history (each acquisition exactly once, each PE's in its program order) and the guards come
//   out exact. Half the rounds put with put_nbi and no quiet of their own: only clear_lock's
//   quiet makes them visible to the next holder.
// - test_lock_observable: one PE at a time holds the lock (by set_lock, or by test_lock, which
//   must return 0 on a free lock) while every other PE calls test_lock, which must return 1
//   without queueing; the holder releases only once they all reported (flags with deadlines).
// - several_locks: three locks side by side in one symmetric array guard three counters on
//   different PEs; PEs take one lock or two nested (in ascending order), schedules derived from
//   (PE, round); every counter exact.
// After each case the lock is free (test_lock 0 on every PE in turn), PE 0's copy holds the rule
// of docs/semantics.md "Locks" (next ticket == ticket served == acquisitions so far) and the
// other PEs' copies are untouched (0).
// Hidden death cases ([.death], run by death_check.sh): a lock that is not symmetric, a misaligned
// lock, and a set_lock that passes XSHMEM_WAIT_TIMEOUT.
#include <sched.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "harness.h"

namespace {

static_assert(XSHMEM_HAVE_LOCKS == 1, "xshmem.h announces the locks");

constexpr uint32_t kTidCounter = 0x10C1;
constexpr uint32_t kTidSeveral = 0x10C3;

using xt::detail::show;

// Rounds per PE: fewer where PEs oversubscribe CI's 2 cores (every hand-over may wait for a
// time slice), the same contention.
int rounds_per_pe() {
  return xt::npes() <= 4 ? 20 : 10;
}

// The lock words of PE 0's copy (docs/semantics.md "Locks": a ticket lock in the two 32-bit
// halves, [0] next ticket, [1] ticket served), read there atomically with the 32-bit atomics the
// runtime uses.
void check_lock_state(xt::SymBuf<long> &lock, size_t idx, uint32_t acquisitions, const char *what) {
  const int me = xt::me();
  auto *words = reinterpret_cast<uint32_t *>(lock.data() + idx);
  const uint32_t next = xshmem_uint32_atomic_fetch(words, 0);
  const uint32_t served = xshmem_uint32_atomic_fetch(words + 1, 0);
  if (next != acquisitions || served != acquisitions)
    FAIL_CHECK("pe " << me << ": " << what << ": lock " << idx << " at pe 0 holds next ticket "
                     << next << ", serving " << served << "; expected both " << acquisitions
                     << " (free, after that many acquisitions)");
  if (me != 0 && lock[idx] != 0)
    FAIL_CHECK("pe " << me << ": " << what << ": this pe's copy of lock " << idx << " is "
                     << lock[idx] << "; only pe 0's copy is used, the others stay 0");
  if (!lock.guards_ok()) FAIL_CHECK("pe " << me << ": " << what << ": guards around the locks");
}

// Every PE in turn takes the free lock with test_lock (0) and releases it; returns the number of
// acquisitions made (npes).
uint32_t each_takes_free_lock(long *lock, const char *what) {
  const int me = xt::me(), n = xt::npes();
  for (int p = 0; p < n; ++p) {
    xshmem_barrier_all();
    if (p != me) continue;
    xt::note("%s: pe %d test_lock on the free lock", what, me);
    const int rc = xshmem_test_lock(lock);
    if (rc != 0)
      FAIL_CHECK("pe " << me << ": " << what << ": test_lock on a free lock returned " << rc);
    else
      xshmem_clear_lock(lock);
  }
  xshmem_barrier_all();
  return static_cast<uint32_t>(n);
}

// Inside a critical section, between reading and writing back: gives the other PEs (CI runs up
// to 8 on 2 cores) the time to run, so a lock that let two holders in would show it.
void hold_a_while() {
  for (int i = 0; i < 2; ++i) sched_yield();
}

// The increment PE p adds in round k (PE- and round-dependent, 1..1000).
long increment(int p, int k, int target, uint32_t tid) {
  return 1 +
         static_cast<long>(xt::value<uint32_t>(p, target, static_cast<size_t>(k), 0, tid) % 1000u);
}

}  // namespace

TEST_CASE("LOCK-01 counter_under_lock", "[LOCK-01]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  xt::test_budget(100);
  const int me = xt::me(), n = xt::npes(), K = rounds_per_pe();
  const int target = n - 1;  // the counter's PE (the lock's is 0)
  const size_t total = static_cast<size_t>(n) * static_cast<size_t>(K);
  xt::SymBuf<long> lock(1);
  xt::SymBuf<long> words(3);  // [0] counter, [1] acquisitions so far, [2] holder (atomic)
  xt::SymBuf<int> history(total);
  lock[0] = 0;
  const long base = xt::value<long>(target, target, 0, 1, kTidCounter) % 1000000;
  words[0] = base;
  words[1] = 0;
  words[2] = 0;
  std::memset(history.data(), 0xFF, history.bytes());  // -1: no acquisition recorded
  xshmem_barrier_all();

  size_t bad_holder = 0;
  for (int k = 0; k < K; ++k) {
    xt::note("LOCK-01 counter: pe %d set_lock, round %d of %d (lock at pe 0)", me, k, K);
    xshmem_set_lock(lock.data());
    const long was = xshmem_long_atomic_swap(&words[2], static_cast<long>(me + 1), target);
    if (was != 0 && ++bad_holder <= 3)
      FAIL_CHECK("pe " << me << ": round " << k << ": acquired the lock while pe " << was - 1
                       << " holds it (holder word " << was << ")");
    long c = 0, count = 0;
    xshmem_long_get(&c, &words[0], 1, target);
    xshmem_long_get(&count, &words[1], 1, target);
    hold_a_while();
    const long next = c + increment(me, k, target, kTidCounter);
    const int slot = me * 65536 + k;
    if (count >= 0 && static_cast<size_t>(count) < total)
      xshmem_int_put(&history[static_cast<size_t>(count)], &slot, 1, target);
    const long count1 = count + 1;
    if (k % 2 == 0) {
      xshmem_long_put(&words[0], &next, 1, target);
      xshmem_long_put(&words[1], &count1, 1, target);
      xshmem_quiet();
    } else {
      // No quiet here: clear_lock's must complete these before the next holder reads.
      xshmem_long_put_nbi(&words[0], &next, 1, target);
      xshmem_long_put_nbi(&words[1], &count1, 1, target);
    }
    const long mine = xshmem_long_atomic_swap(&words[2], 0L, target);
    if (mine != me + 1 && ++bad_holder <= 3)
      FAIL_CHECK("pe " << me << ": round " << k << ": holder word is " << mine
                       << " when releasing; expected " << me + 1);
    xshmem_clear_lock(lock.data());
  }
  CHECK(bad_holder == 0);
  xshmem_barrier_all();

  if (me == target) {
    long want = base;
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < K; ++k) want += increment(p, k, target, kTidCounter);
    if (words[0] != want)
      FAIL_CHECK("counter on pe " << target << " is " << words[0] << " after " << total
                                  << " increments under the lock; expected " << want);
    CHECK(words[1] == static_cast<long>(total));
    CHECK(words[2] == 0);
    // Every (pe, round) exactly once; each PE's rounds in its program order.
    std::vector<int> last(static_cast<size_t>(n), -1);
    size_t bad = 0;
    for (size_t i = 0; i < total; ++i) {
      const int h = history[i], p = h >> 16, k = h & 0xFFFF;
      if (h < 0 || p >= n || k >= K || k != last[static_cast<size_t>(p)] + 1) {
        if (++bad <= 4)
          FAIL_CHECK("history slot " << i << " holds " << h << " (pe " << (h >> 16) << ", round "
                                     << (h & 0xFFFF) << "); expected the next round of some pe");
        continue;
      }
      last[static_cast<size_t>(p)] = k;
    }
    for (int p = 0; p < n; ++p) {
      INFO("acquisitions recorded for pe " << p);
      CHECK(last[static_cast<size_t>(p)] == K - 1);
    }
    CHECK(bad == 0);
    CHECK(words.guards_ok());
    CHECK(history.guards_ok());
  }
  const uint32_t acquired =
      static_cast<uint32_t>(total) + each_takes_free_lock(lock.data(), "counter");
  check_lock_state(lock, 0, acquired, "counter_under_lock");
  xshmem_barrier_all();
}

TEST_CASE("LOCK-01 test_lock_observable", "[LOCK-01]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  xt::test_budget(100);
  const int me = xt::me(), n = xt::npes();
  xt::SymBuf<long> lock(1);
  xt::SymBuf<long> flags(2);  // [0] round announced by the holder, [1] reports to the holder
  lock[0] = 0;
  flags[0] = -1;
  flags[1] = 0;
  xshmem_barrier_all();
  const int rounds = 2 * n;
  long held = 0;  // rounds this PE held the lock
  for (int r = 0; r < rounds; ++r) {
    const int holder = r % n;
    if (me == holder) {
      xt::note("LOCK-01 test_lock: pe %d takes the lock, round %d", me, r);
      if (r / n == 0) {
        xshmem_set_lock(lock.data());
      } else {
        const int rc = xshmem_test_lock(lock.data());
        if (rc != 0) {
          FAIL_CHECK("pe " << me << ": round " << r << ": test_lock on the free lock returned "
                           << rc << ", expected 0 (acquired)");
          xshmem_set_lock(lock.data());  // hold it anyway, so the others' checks stay meaningful
        }
      }
      ++held;
      for (int p = 0; p < n; ++p)
        if (p != me) xshmem_long_atomic_set(&flags[0], static_cast<long>(r), p);
      char what[160];
      std::snprintf(what, sizeof what,
                    "the other %d pe(s) to report test_lock while pe %d holds the lock (round %d)",
                    n - 1, me, r);
      xt::wait_for(what, [&] {
        return xshmem_long_atomic_fetch(&flags[1], me) == held * static_cast<long>(n - 1);
      });
      xshmem_clear_lock(lock.data());
    } else {
      char what[160];
      std::snprintf(what, sizeof what, "pe %d to announce that it holds the lock (round %d)",
                    holder, r);
      xt::note("LOCK-01 test_lock: pe %d waits for %s", me, what);
      xt::wait_for(what, [&] { return xshmem_long_atomic_fetch(&flags[0], me) == r; });
      for (int t = 0; t < 2; ++t) {
        const int rc = xshmem_test_lock(lock.data());
        if (rc != 1) {
          FAIL_CHECK("pe " << me << ": round " << r << ": test_lock returned " << rc << " while pe "
                           << holder << " holds the lock; expected 1");
          if (rc == 0) xshmem_clear_lock(lock.data());
        }
      }
      xshmem_long_atomic_add(&flags[1], 1L, holder);
    }
    xshmem_barrier_all();
  }
  CHECK(flags.guards_ok());
  const uint32_t acquired =
      static_cast<uint32_t>(rounds) + each_takes_free_lock(lock.data(), "test_lock");
  check_lock_state(lock, 0, acquired, "test_lock_observable");
  xshmem_barrier_all();
}

TEST_CASE("LOCK-01 several_locks", "[LOCK-01]") {
  if (!xt::require_npes_in({2, 3, 4, 8}, "PS")) return;
  xt::test_budget(100);
  constexpr int L = 3;
  const int me = xt::me(), n = xt::npes(), K = rounds_per_pe();
  xt::SymBuf<long> locks(L);     // side by side: adjacent words of one array
  xt::SymBuf<long> counters(L);  // counter j lives on pe j % n
  auto owner = [n](int j) { return j % n; };
  auto base = [](int j) { return xt::value<long>(j, j, 0, 1, kTidSeveral) % 1000000; };
  for (int j = 0; j < L; ++j) {
    locks[j] = 0;
    counters[j] = base(j);
  }
  xshmem_barrier_all();
  // Round k of PE p: lock a = (p + k) % L, and for k % 3 == 2 also b = (a + 1) % L (taken in
  // ascending order, released in reverse); each lock's counter gets increment(p, k, j).
  auto plan = [](int p, int k, int *first, int *second) {
    const int a = (p + k) % L;
    if (k % 3 != 2) {
      *first = a, *second = -1;
      return;
    }
    const int b = (a + 1) % L;
    *first = a < b ? a : b, *second = a < b ? b : a;
  };
  for (int k = 0; k < K; ++k) {
    int first, second;
    plan(me, k, &first, &second);
    xt::note("LOCK-01 several: pe %d round %d takes lock %d%s", me, k, first,
             second >= 0 ? " then another" : "");
    xshmem_set_lock(&locks[first]);
    if (second >= 0) xshmem_set_lock(&locks[second]);
    for (int j : {first, second}) {
      if (j < 0) continue;
      const long c = xshmem_long_g(&counters[j], owner(j));
      hold_a_while();
      xshmem_long_p(&counters[j], c + increment(me, k, j, kTidSeveral), owner(j));
    }
    if (second >= 0) xshmem_clear_lock(&locks[second]);
    xshmem_clear_lock(&locks[first]);
  }
  xshmem_barrier_all();
  // Acquisitions per lock, over every PE (each PE replays the others' plans).
  std::vector<uint32_t> per_lock(L, 0);
  for (int p = 0; p < n; ++p)
    for (int k = 0; k < K; ++k) {
      int first, second;
      plan(p, k, &first, &second);
      ++per_lock[static_cast<size_t>(first)];
      if (second >= 0) ++per_lock[static_cast<size_t>(second)];
    }
  for (int j = 0; j < L; ++j) {
    if (owner(j) != me) continue;
    long want = base(j);
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < K; ++k) {
        int first, second;
        plan(p, k, &first, &second);
        if (first == j || second == j) want += increment(p, k, j, kTidSeveral);
      }
    if (counters[j] != want)
      FAIL_CHECK("pe " << me << ": counter " << j << " is " << counters[j] << ", expected " << want
                       << " (" << per_lock[static_cast<size_t>(j)] << " increments under lock " << j
                       << ")");
  }
  CHECK(counters.guards_ok());
  for (int j = 0; j < L; ++j) {
    const uint32_t acquired =
        per_lock[static_cast<size_t>(j)] + each_takes_free_lock(&locks[j], "several");
    check_lock_state(locks, static_cast<size_t>(j), acquired, "several_locks");
  }
  xshmem_barrier_all();
}

// ---- Checked mode and the wait deadline (death_check.sh) ----------------------------------------

TEST_CASE("LOCK-01 death:lock_not_symmetric", "[LOCK-01][.death]") {
  long private_lock = 0;
  xt::pe0_does("xshmem_set_lock on a stack variable", [&] { xshmem_set_lock(&private_lock); });
}

TEST_CASE("LOCK-01 death:lock_misaligned", "[LOCK-01][.death]") {
  xt::SymBuf<long> words(2);
  words[0] = words[1] = 0;
  auto *at = reinterpret_cast<long *>(reinterpret_cast<char *>(words.data()) + 4);
  xt::pe0_does("xshmem_test_lock at 4 mod 8", [&] { (void)xshmem_test_lock(at); });
}

// PE 1 holds the lock and waits in a barrier; PE 0's set_lock passes XSHMEM_WAIT_TIMEOUT (set
// by the CTest entry) and stops the job, naming the lock, its ticket and the ticket served.
TEST_CASE("LOCK-01 death:set_lock_deadline", "[LOCK-01][.death]") {
  if (!xt::require_npes_in({2}, "P2")) return;
  xt::test_budget(30);
  xt::SymBuf<long> lock(1);
  lock[0] = 0;
  xshmem_barrier_all();
  if (xt::me() == 1) {
    xshmem_set_lock(lock.data());
    xshmem_barrier_all();  // lets pe 0 ask for the lock
    xt::note("holding the lock in barrier_all while pe 0 waits for it");
    xshmem_barrier_all();
    FAIL("barrier_all returned although pe 0 never entered it");
  } else {
    xshmem_barrier_all();
    xt::note("set_lock on a lock pe 1 never releases");
    xshmem_set_lock(lock.data());
    FAIL("set_lock returned although pe 1 holds the lock");
  }
}

// INIT rows of CONFORMANCE.md §4.2 that need control of init itself (so no Catch2 harness, whose
// main owns init and finalize): one scenario per run, chosen by argv[1].
//   refcount_reinit (INIT-02): init twice, finalize once -> still usable and the finalize acted as
//     barrier_all; second finalize -> query_initialized() == 0; re-init after the last finalize,
//     three times, with the same PE numbers and a working data path. Exits 0 when every check held.
//   thread_levels (INIT-03): init_thread at every level (one full init/finalize cycle each):
//     provided >= requested (xshmem always provides MULTIPLE), query_thread == provided, nested
//     init_thread keeps the level, invalid levels are refused without initialising; at MULTIPLE,
//     threads issue puts and atomics at once and the results are exact.
//   global_exit_{barrier,wait,thread,zero} (INIT-05): one PE calls xshmem_global_exit(status)
//     while every other PE is blocked in barrier_all or in a wait that nothing satisfies; the job
//     must end with that status within seconds (death_check.sh / expect_run.sh time it). A blocked
//     PE that returns exits 3.
// Every wait here has a deadline (XT_WAIT_TIMEOUT seconds, default 30) that prints what it waited
// for and stops the job with status 4.
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

namespace {

int g_fails = 0;
int g_me = -1;
const char *g_case = "?";

#define EXPECT(cond, ...)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      ++g_fails;                                                           \
      std::fprintf(stderr, "pe %d: %s: FAILED %s: ", g_me, g_case, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                   \
      std::fprintf(stderr, "\n");                                          \
    }                                                                      \
  } while (0)

// The value a transfer from `src` to `dst`, element `idx`, iteration `iter` carries (splitmix64).
int64_t value(int src, int dst, uint64_t idx, uint64_t iter) {
  uint64_t h = 0x1002;
  for (uint64_t x : {static_cast<uint64_t>(src), static_cast<uint64_t>(dst), idx, iter}) {
    h += x + 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
  }
  return static_cast<int64_t>(h);
}

double wait_timeout_s() {
  const char *v = std::getenv("XT_WAIT_TIMEOUT");
  double s = v && *v ? std::atof(v) : 30.0;
  return s > 0 ? s : 30.0;
}

// Polls cond() until true; past the deadline, names the wait and stops the job (status 4).
template <typename F>
void wait_for(const char *what, F &&cond) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(wait_timeout_s()));
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "pe %d: %s: timed out after %.0f s waiting for %s\n", g_me, g_case,
                   wait_timeout_s(), what);
      std::fflush(stderr);
      xshmem_global_exit(4);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for every process of the host
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A put around the ring (to the right neighbour) of `len` values of iteration `iter`, into a
// fresh symmetric block, checked on arrival; `what` names the step in failures.
void ring_check(const char *what, uint64_t iter, size_t len = 64) {
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto *buf = static_cast<int64_t *>(xshmem_malloc(len * sizeof(int64_t)));
  EXPECT(buf != nullptr, "%s: xshmem_malloc(%zu) returned NULL", what, len * sizeof(int64_t));
  if (!buf) return;
  for (size_t i = 0; i < len; ++i) buf[i] = -1;
  std::vector<int64_t> src(len);
  for (size_t i = 0; i < len; ++i) src[i] = value(me, right, i, iter);
  xshmem_barrier_all();  // every PE's buf is poisoned before anyone writes
  xshmem_int64_put(buf, src.data(), len, right);
  xshmem_barrier_all();
  size_t bad = 0;
  for (size_t i = 0; i < len; ++i)
    if (buf[i] != value(left, me, i, iter) && ++bad == 1)
      EXPECT(false, "%s: element %zu from pe %d is %lld, expected %lld", what, i, left,
             static_cast<long long>(buf[i]), static_cast<long long>(value(left, me, i, iter)));
  xshmem_free(buf);
}

// ---- INIT-02 ------------------------------------------------------------------------------------

int refcount_reinit() {
  g_case = "INIT-02 refcount_reinit";
  EXPECT(xshmem_query_initialized() == 0, "query_initialized() before init");
  xshmem_init();
  g_me = xshmem_my_pe();
  const int me = g_me, n = xshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  xshmem_init();  // nested: counted only
  EXPECT(xshmem_query_initialized() == 1, "after two inits");
  EXPECT(xshmem_my_pe() == me && xshmem_n_pes() == n, "pe %d of %d after the nested init",
         xshmem_my_pe(), xshmem_n_pes());
  ring_check("ring after two inits", 1);

  // A block allocated at depth 2 outlives the non-last finalize. The finalize acts as barrier_all:
  // the put before it is visible after it, and no PE leaves it before every PE has entered it
  // (pe 0 enters 300 ms late; CLOCK_MONOTONIC is one clock for the whole host).
  auto *keep = static_cast<int64_t *>(xshmem_malloc(2 * sizeof(int64_t)));
  keep[0] = keep[1] = -1;
  xshmem_barrier_all();
  int64_t v = value(me, right, 0, 2);
  xshmem_int64_put(&keep[0], &v, 1, right);
  if (me == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int64_t enter = now_ns();
  xshmem_finalize();
  int64_t leave = now_ns();
  EXPECT(xshmem_query_initialized() == 1, "after the first of two finalizes");
  EXPECT(keep[0] == value(left, me, 0, 2),
         "the put issued before the non-last finalize is not visible after it (%lld)",
         static_cast<long long>(keep[0]));
  std::vector<int64_t> enters(n);
  EXPECT(xshmemx_oob_allgather(&enter, enters.data(), sizeof(enter)) == 0, "oob allgather");
  for (int pe = 0; pe < n; ++pe)
    EXPECT(leave >= enters[pe],
           "the non-last finalize returned %.1f ms before pe %d entered its finalize (not a "
           "barrier)",
           (enters[pe] - leave) / 1e6, pe);
  // Still usable at depth 1: the old block, a new allocation, the data path.
  v = value(me, right, 1, 3);
  xshmem_int64_put(&keep[1], &v, 1, right);
  xshmem_barrier_all();
  EXPECT(keep[1] == value(left, me, 1, 3), "put into a block allocated before the finalize (%lld)",
         static_cast<long long>(keep[1]));
  ring_check("ring after the first of two finalizes", 3);
  xshmem_free(keep);
  xshmem_finalize();
  EXPECT(xshmem_query_initialized() == 0, "after the last finalize");

  // Re-init after the last finalize: same PE numbers, a working data path, counting from zero.
  for (uint64_t cycle = 1; cycle <= 3; ++cycle) {
    if (cycle == 2) {
      int provided = -1;
      EXPECT(xshmem_init_thread(XSHMEM_THREAD_SINGLE, &provided) == 0,
             "re-init %llu by init_thread", static_cast<unsigned long long>(cycle));
    } else {
      xshmem_init();
    }
    EXPECT(xshmem_query_initialized() == 1, "after re-init %llu",
           static_cast<unsigned long long>(cycle));
    EXPECT(xshmem_my_pe() == me && xshmem_n_pes() == n, "re-init %llu: pe %d of %d, was %d of %d",
           static_cast<unsigned long long>(cycle), xshmem_my_pe(), xshmem_n_pes(), me, n);
    ring_check("ring after re-init", 10 + cycle);
    if (cycle == 3) {  // nesting works in a re-initialised runtime too
      xshmem_init();
      xshmem_finalize();
      EXPECT(xshmem_query_initialized() == 1, "re-init %llu: after a nested init/finalize pair",
             static_cast<unsigned long long>(cycle));
      ring_check("ring after a nested pair in a re-init", 20 + cycle);
    }
    xshmem_finalize();
    EXPECT(xshmem_query_initialized() == 0, "after the finalize of re-init %llu",
           static_cast<unsigned long long>(cycle));
  }
  std::printf("pe %d: %s: %s\n", me, g_case, g_fails ? "FAILED" : "passed");
  return g_fails ? 1 : 0;
}

// ---- INIT-03 ------------------------------------------------------------------------------------

// Under MULTIPLE: kThreads threads per PE at once put to distinct slots of the right neighbour and
// add to counters spread over every PE; every slot and every counter is exact afterwards.
void threads_at_once() {
  constexpr int kThreads = 4, kOps = 64;
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  auto *slots = static_cast<int64_t *>(xshmem_malloc(kThreads * kOps * sizeof(int64_t)));
  auto *counter = static_cast<int64_t *>(xshmem_malloc(sizeof(int64_t)));
  for (int i = 0; i < kThreads * kOps; ++i) slots[i] = -1;
  *counter = 0;
  xshmem_barrier_all();
  std::atomic<int> level_mismatch{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      int q = -1;
      xshmem_query_thread(&q);
      if (q != XSHMEM_THREAD_MULTIPLE) ++level_mismatch;
      for (int k = 0; k < kOps; ++k) {
        const int slot = t * kOps + k;
        int64_t v = value(me, right, slot, 4);
        xshmem_int64_put(&slots[slot], &v, 1, right);
        xshmem_int64_atomic_add(counter, 1 + t, k % n);
      }
      xshmem_quiet();
    });
  for (auto &th : threads) th.join();
  xshmem_barrier_all();
  EXPECT(level_mismatch == 0, "query_thread() != MULTIPLE in %d threads", level_mismatch.load());
  int bad = 0;
  for (int s = 0; s < kThreads * kOps; ++s)
    if (slots[s] != value(left, me, s, 4) && ++bad == 1)
      EXPECT(false, "threaded put: slot %d from pe %d is %lld", s, left,
             static_cast<long long>(slots[s]));
  // Every PE's thread t adds 1+t once per k with k % n == me.
  int64_t ks = 0;
  for (int k = 0; k < kOps; ++k) ks += k % n == me;
  const int64_t want = n * ks * (kThreads * (kThreads + 1) / 2);
  EXPECT(*counter == want, "threaded atomic adds: counter %lld, expected %lld",
         static_cast<long long>(*counter), static_cast<long long>(want));
  xshmem_free(counter);
  xshmem_free(slots);
}

int thread_levels() {
  g_case = "INIT-03 thread_levels";
  int q = -1;
  xshmem_query_thread(&q);
  EXPECT(q == XSHMEM_THREAD_MULTIPLE, "query_thread() before init is %d", q);
  // Levels that are not one of the four are refused, and nothing is initialised.
  for (int bad : {XSHMEM_THREAD_SINGLE - 1, XSHMEM_THREAD_MULTIPLE + 1}) {
    int provided = -7;
    EXPECT(xshmem_init_thread(bad, &provided) != 0, "init_thread(%d) accepted", bad);
    EXPECT(provided == -7, "init_thread(%d) wrote provided = %d", bad, provided);
    EXPECT(xshmem_query_initialized() == 0, "init_thread(%d) initialised", bad);
  }
  const int levels[] = {XSHMEM_THREAD_SINGLE, XSHMEM_THREAD_FUNNELED, XSHMEM_THREAD_SERIALIZED,
                        XSHMEM_THREAD_MULTIPLE};
  static_assert(XSHMEM_THREAD_SINGLE < XSHMEM_THREAD_FUNNELED &&
                XSHMEM_THREAD_FUNNELED < XSHMEM_THREAD_SERIALIZED &&
                XSHMEM_THREAD_SERIALIZED < XSHMEM_THREAD_MULTIPLE);
  for (int level : levels) {
    int provided = -1;
    EXPECT(xshmem_init_thread(level, &provided) == 0, "init_thread(%d) failed", level);
    g_me = xshmem_my_pe();
    EXPECT(provided >= level, "init_thread(%d) provided %d", level, provided);
    EXPECT(provided == XSHMEM_THREAD_MULTIPLE, "init_thread(%d) provided %d, documented MULTIPLE",
           level, provided);
    q = -1;
    xshmem_query_thread(&q);
    EXPECT(q == provided, "after init_thread(%d): query_thread() %d != provided %d", level, q,
           provided);
    // A nested init_thread asking for less keeps the level in effect.
    int nested = -1;
    EXPECT(xshmem_init_thread(XSHMEM_THREAD_SINGLE, &nested) == 0, "nested init_thread failed");
    EXPECT(nested == provided, "nested init_thread(SINGLE) provided %d, in effect %d", nested,
           provided);
    xshmem_query_thread(&q);
    EXPECT(q == provided, "after a nested init_thread: query_thread() %d", q);
    xshmem_finalize();
    if (level == XSHMEM_THREAD_MULTIPLE) threads_at_once();
    ring_check("ring at this level", 30 + static_cast<uint64_t>(level));
    xshmem_finalize();
    EXPECT(xshmem_query_initialized() == 0, "after the finalize at level %d", level);
  }
  std::printf("pe %d: %s: %s\n", g_me, g_case, g_fails ? "FAILED" : "passed");
  return g_fails ? 1 : 0;
}

// ---- INIT-05 ------------------------------------------------------------------------------------

enum class Block { kBarrier, kWait };

// PE `caller` waits until every other PE has announced that it is about to block (an atomic
// increment of the caller's counter), gives them 100 ms to be inside the blocking call, then
// calls xshmem_global_exit(status), from a second thread when `from_thread` (its main thread
// then blocks in a wait that nothing satisfies).
int global_exit(int caller_sel, Block how, int status, bool from_thread) {
  g_case = "INIT-05 global_exit";
  xshmem_init();
  g_me = xshmem_my_pe();
  const int me = g_me, n = xshmem_n_pes();
  const int caller = caller_sel < 0 ? n - 1 : caller_sel;
  auto *arrived = static_cast<int64_t *>(xshmem_calloc(1, sizeof(int64_t)));
  auto *never = static_cast<int64_t *>(xshmem_calloc(1, sizeof(int64_t)));
  xshmem_barrier_all();
  if (me == caller) {
    auto stop = [&] {
      wait_for("every other pe to announce it blocks",
               [&] { return xshmem_int64_atomic_fetch(arrived, me) == n - 1; });
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::fflush(stdout);
      xshmem_global_exit(status);
    };
    if (!from_thread) stop();
    std::thread t(stop);
    t.detach();
    xshmem_int64_wait_until(never, XSHMEM_CMP_EQ, 1);  // nothing ever sets it
    std::fprintf(stderr, "pe %d: wait_until returned although nothing set the flag\n", me);
    return 3;
  }
  xshmem_int64_atomic_inc(arrived, caller);
  xshmem_quiet();
  if (how == Block::kBarrier) {
    xshmem_barrier_all();  // the caller never arrives
    std::fprintf(stderr, "pe %d: barrier_all returned although pe %d never entered it\n", me,
                 caller);
  } else {
    xshmem_int64_wait_until(never, XSHMEM_CMP_EQ, 1);  // nothing ever sets it
    std::fprintf(stderr, "pe %d: wait_until returned although nothing set the flag\n", me);
  }
  return 3;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string s = argc > 1 ? argv[1] : "";
  if (s == "refcount_reinit") return refcount_reinit();
  if (s == "thread_levels") return thread_levels();
  // global_exit_*: caller, blocking call of the others, status, from a second thread.
  if (s == "global_exit_barrier") return global_exit(-1, Block::kBarrier, 42, false);
  if (s == "global_exit_wait") return global_exit(0, Block::kWait, 43, false);
  if (s == "global_exit_thread") return global_exit(-1, Block::kWait, 44, true);
  if (s == "global_exit_zero") return global_exit(-1, Block::kWait, 0, false);
  std::fprintf(stderr,
               "usage: conf_init_life refcount_reinit|thread_levels|global_exit_barrier|"
               "global_exit_wait|global_exit_thread|global_exit_zero\n");
  return 2;
}

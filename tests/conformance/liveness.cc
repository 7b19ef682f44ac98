// LIV-03 (wait_deadline) of CONFORMANCE.md: the optional wait deadline, XSHMEM_WAIT_TIMEOUT.
// One scenario per run, chosen by argv[1]; 2 PEs. No Catch2 harness: the death scenarios end
// inside a wait, and the harness's main owns init and finalize.
//   wait_until_never: pe 0 sets pe 1's ivar to 3, then sleeps; pe 1 waits in
//     xshmem_int_wait_until for ivar == 5. With the deadline set the job must stop with
//     "xshmem: xshmem_int_wait_until: pe 1 waited ... for *ivar (0x...) == 5 (last seen 3)".
//   signal_never: the same through xshmem_signal_wait_until (sig >= 7, last seen 2).
//   wait_all_never: xshmem_long_wait_until_all over 4 words, element 2 never reaches 9.
//   barrier_sleeper: pe 1 sleeps while pe 0 is in xshmem_barrier_all; the report names round 0
//     and pe 1, the PE waited for.
//   slow_update: pe 0 sets the ivar after 1.5 s (and a signal after 0.2 s more); pe 1's waits
//     must return (exit 0): without XSHMEM_WAIT_TIMEOUT a wait longer than 1 s is never stopped,
//     and with a deadline above the wait neither.
// A PE that returns from a wait the scenario never satisfies exits 3.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <xshmem/xshmem.h>

namespace {

// Long enough that only the deadline (or the job's stop) ends it.
constexpr unsigned kSleepS = 30;

int run(const std::string &scenario) {
  xshmem_init();
  const int me = xshmem_my_pe();
  if (xshmem_n_pes() != 2) {
    if (me == 0) fprintf(stderr, "liveness: needs 2 pes, got %d\n", xshmem_n_pes());
    xshmem_finalize();
    return 2;
  }
  int *ivar = static_cast<int *>(xshmem_calloc(1, sizeof(int)));
  long *ivars = static_cast<long *>(xshmem_calloc(4, sizeof(long)));
  uint64_t *sig = static_cast<uint64_t *>(xshmem_calloc(1, sizeof(uint64_t)));
  if (scenario == "wait_until_never") {
    if (me == 0) {
      xshmem_int_p(ivar, 3, 1);
      xshmem_quiet();
    }
    xshmem_barrier_all();
    if (me == 0) {
      sleep(kSleepS);
    } else {
      xshmem_int_wait_until(ivar, XSHMEM_CMP_EQ, 5);
      fprintf(stderr, "liveness: pe 1 returned from a wait nobody satisfies\n");
      return 3;
    }
  } else if (scenario == "signal_never") {
    if (me == 0) xshmem_signal_set(sig, 2, 1);
    xshmem_barrier_all();
    if (me == 0) {
      sleep(kSleepS);
    } else {
      xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, 7);
      fprintf(stderr, "liveness: pe 1 returned from a signal wait nobody satisfies\n");
      return 3;
    }
  } else if (scenario == "wait_all_never") {
    if (me == 0) {
      const long v[4] = {9, 9, 4, 9};
      xshmem_long_put(ivars, v, 4, 1);
      xshmem_quiet();
    }
    xshmem_barrier_all();
    if (me == 0) {
      sleep(kSleepS);
    } else {
      xshmem_long_wait_until_all(ivars, 4, nullptr, XSHMEM_CMP_EQ, 9);
      fprintf(stderr, "liveness: pe 1 returned from a wait_until_all nobody satisfies\n");
      return 3;
    }
  } else if (scenario == "barrier_sleeper") {
    if (me == 1) {
      sleep(kSleepS);
    } else {
      xshmem_barrier_all();
      fprintf(stderr, "liveness: pe 0 left a barrier pe 1 never entered\n");
      return 3;
    }
  } else if (scenario == "slow_update") {
    if (me == 0) {
      usleep(1500 * 1000);
      xshmem_int_p(ivar, 5, 1);
      xshmem_quiet();
      usleep(200 * 1000);
      xshmem_signal_set(sig, 7, 1);
    } else {
      xshmem_int_wait_until(ivar, XSHMEM_CMP_EQ, 5);
      xshmem_signal_wait_until(sig, XSHMEM_CMP_GE, 7);
      printf("liveness: pe 1 waited past 1 s and was not stopped\n");
    }
    xshmem_barrier_all();
  } else {
    fprintf(stderr, "liveness: unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  xshmem_free(sig);
  xshmem_free(ivars);
  xshmem_free(ivar);
  xshmem_finalize();
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr,
            "usage: liveness <wait_until_never|signal_never|wait_all_never|barrier_sleeper|"
            "slow_update>\n");
    return 2;
  }
  return run(argv[1]);
}

// The wait deadline (XSHMEM_WAIT_TIMEOUT, LIV-03): the one-line report of a wait that passed it.
// The waits themselves are the path code's (<xshmem/device/p2p.h>); host waits call
// on_wait_timeout through state_t, the GPU watchdog (cuda/cuda_rt.cc) reports device waits.
#ifndef XSHMEM_CORE_WAIT_DEADLINE_H
#define XSHMEM_CORE_WAIT_DEADLINE_H

#include <string>

#include <xshmem/device/state.h>

namespace xshmem::core {

// "<call>: pe P waited S s for ... (last seen V)", naming the public call, the waiting PE, the
// PE waited for (syncs) and the value expected. `where`: appended to the call (e.g. the device
// thread), or empty.
std::string describe_wait_timeout(const dev::wait_timeout_t &w, int my_pe,
                                  const std::string &where);

// Prints "xshmem: " + the description and stops every PE of the job (exit status 1).
[[noreturn]] void stop_on_wait_timeout(const dev::wait_timeout_t &w, const std::string &where);

// state_t::on_wait_timeout of host waits.
void on_wait_timeout(const dev::wait_timeout_t *w);

// A wait of the deprecated active-set collectives (compat/active_set.cc) on pSync[index], a long
// of this PE's heap, until `*word cmp value`; returns the value that satisfied it. Under the wait
// deadline, reported as the public call `call` (e.g. "shmem_barrier") waiting in `round` (-1:
// not a sync round) for `pe`, the member whose update it needs: "shmem_barrier: pe 0 waited 1.0 s
// in round 0 for pe 1 (pSync[0] at 0x... >= 1, last seen 0)". Host and GPU heaps.
long wait_psync(const char *call, const long *word, int cmp, long value, int pe, int round,
                int index);

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_WAIT_DEADLINE_H

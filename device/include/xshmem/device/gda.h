// The GDA path's posting protocol: how threads (GPU threads, or CPU PEs' host threads) that share
// one send queue put entries into it and tell the NIC, written once for host and device. The
// entries themselves are the builders of gda_wqe.h.
//
// One send queue of `nbb` WQEBBs (a power of two) is shared by every thread that posts on it:
//   1. reserve: a thread claims n consecutive positions with one atomic add on `reserved`. On the
//      device a warp claims for all its posting lanes at once (one atomic per warp, the lanes
//      then take consecutive positions in lane order). A claim waits while it would overwrite an
//      entry the NIC has not consumed yet (flow control from the completion queue, 3);
//   2. publish: the thread writes its entries, then waits until every earlier position is
//      published (`ready` equals its first position), so the entries become visible to the NIC
//      in position order whatever order the threads write in. It then moves `published` past its
//      claim, writes the doorbell record (the producer count), rings the doorbell (a UAR store;
//      none for the software NIC model, which polls the record), and only then moves `ready`
//      past its claim, handing the queue to the next claim's thread. The record's writes are
//      thus ordered by the hand-off: the NIC never sees the producer count go back (with
//      `ready` moved first, a publisher's late record write could land after its successor's
//      and take the count back, and the NIC would read entries not yet written: seen on an H100
//      with 32768 posting threads). A claim of several entries costs one doorbell (batched
//      doorbells);
//   3. completions are selective: an entry asks for a CQE when it is the last of its claim and
//      its claim crosses a multiple of nbb / 4 (so the NIC reports progress at least four times
//      per pass of the queue), and `quiet` posts one signaled NOP. The CQ is collapsed: one entry
//      the NIC overwrites (its owner bit flips each time), so "every entry up to index X has
//      completed" is one read of its wqe_counter; an error CQE there is the queue's error.
//
// Counters are 64-bit and never wrap; the NIC sees positions modulo 2^16 (the WQE index, the
// producer count of the doorbell record, the CQE's wqe_counter), which is unambiguous because no
// more than nbb <= 2^15 entries are ever outstanding.
#ifndef XSHMEM_DEVICE_GDA_H
#define XSHMEM_DEVICE_GDA_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/gda_wqe.h>
#include <xshmem/device/p2p.h>  // wait_clock
#include <xshmem/device/state.h>

namespace xshmem::dev::gda {

// One send queue and its collapsed CQ, as every poster sees them (the struct lives where every
// poster can read it; the counters in memory they can all update atomically).
struct sq_t {
  void *wqes;            // nbb WQEBBs
  uint32_t nbb;          // power of two, at most 2^15
  uint32_t qpn;          // the QP number every entry carries
  uint64_t *reserved;    // next position to claim
  uint64_t *ready;       // positions below it are published
  uint32_t *dbr;         // the doorbell record (send counter word)
  uint64_t *doorbell;    // the UAR doorbell register, or NULL (the NIC model polls dbr)
  const cqe_t *cq;       // the collapsed CQ: one entry
  uint64_t deadline_ns;  // 0: waits have no deadline; else a wait longer fails
  uint64_t *results;     // [nbb] words the NIC writes, where position p's fetched value lands
                         // (p % nbb; GPU threads' queues), or NULL: posters give their own
  uint64_t *published;   // positions below it may be in the doorbell record: never below a
                         // producer count the NIC has seen (ready <= published)
  // GPU threads' queues whose CQ is in host memory (the NIC model writes it there): three words
  // of GPU memory through which one waiting thread at a time reads the CQ for all (poll_cq).
  // NULL: every waiter reads the CQ itself (host threads; a NIC's CQ in GPU memory).
  uint64_t *mirror;
};
// The words of sq_t::mirror.
enum mirror_word : int {
  kMirrorDone = 0,    // positions known completed (only grows)
  kMirrorClaim = 1,   // kClaimFree, kClaimTaken (a thread is reading the CQ), kClaimError
  kMirrorFailed = 2,  // (kClaimError) the failed position
  kMirrorWords = 3,
};
enum mirror_claim : uint64_t { kClaimFree = 0, kClaimTaken = 1, kClaimError = 2 };

// What a post reports.
enum post_status_t : int {
  kPostOk = 0,
  kPostTimeout = 1,  // a wait passed sq_t::deadline_ns (the NIC does not consume)
  kPostError = 2,    // the collapsed CQE is an error CQE: the queue is in error
};

// How many positions have completed (every entry below *done), from the collapsed CQE. The CQE
// is read before `published` (positions the NIC completed are below any later count of
// published ones: the NIC completes only what a doorbell record showed it, and `published` is
// written before the record), which gives the 16-bit wqe_counter its full position. false when
// the CQE is an error CQE: *done is then the failed entry's position.
XSHMEM_HD_INLINE bool completed_at(const cqe_t *cq, const uint64_t *published_at, uint32_t nbb,
                                   uint64_t *done) {
  const volatile cqe_t *e = cq;
  const uint8_t own = e->op_own;
  atomic::fence();
  const uint16_t idx = be16(e->wqe_counter);
  const uint64_t published = atomic::load(published_at, atomic::acquire);
  const uint8_t op = static_cast<uint8_t>(own >> 4);
  if (op == kCqeInvalid || published == 0) {  // nothing completed yet
    *done = 0;
    return true;
  }
  // The full position of entry idx: the one below `published` with these low 16 bits. It lies at
  // most nbb below `published` when the two reads agree (no claim gets further than nbb past what
  // a CQE showed). A larger distance means they do not: a `published` read older than the CQE
  // (idx at or past it: the distance wraps to nearly 2^16, and below position 2^16 the position
  // itself wraps to nearly 2^64, which as a count of completed entries would let every claim
  // overwrite entries the NIC has not read), or other posters moving on between the reads. Then
  // nothing is known to have completed: *done is 0 and the caller reads again.
  const uint16_t behind = static_cast<uint16_t>(static_cast<uint16_t>(published - 1) - idx);
  if (behind > nbb || behind >= published) {
    *done = 0;
    return true;
  }
  const uint64_t pos = published - 1 - behind;
  if (op == kCqeReqErr || op == kCqeRespErr) {
    *done = pos;
    return false;
  }
  *done = pos + 1;
  return true;
}
XSHMEM_HD_INLINE bool completed(const sq_t &q, uint64_t *done) {
  return completed_at(q.cq, q.published, q.nbb, done);
}

// completed(), for a waiter among many. With a mirror (GPU threads over a CQ in host memory) one
// thread at a time reads the CQ and publishes what it saw in GPU memory, where the others read
// it: thousands of GPU threads polling host memory take the PCIe link from the NIC's own traffic
// (session 21 on an H100: 8192 threads polling a host word made a 32-byte copy engine read of GPU
// memory take 1 ms instead of 10 us, 1024 threads made it 135 us, threads polling GPU memory
// changed nothing; the NIC model's reads of a put's source then stalled STR-04's flood).
#if defined(__CUDACC__)
// poll_cq's mirror path, out of line: inlined into a posting loop it makes CUDA 13.0's ptxas
// (sm_90, -O2) fail with "(C7600) Register allocation failed with register count of '7'".
__device__ __noinline__ inline bool poll_mirror(uint64_t *m, const cqe_t *cq,
                                                const uint64_t *published, uint32_t nbb,
                                                uint64_t *done) {
  const uint64_t c = atomic::load(m + kMirrorClaim, atomic::acquire);
  if (c == kClaimFree && atomicCAS(reinterpret_cast<unsigned long long *>(m + kMirrorClaim),
                                   kClaimFree, kClaimTaken) == kClaimFree) {
    uint64_t d = 0;
    if (!completed_at(cq, published, nbb, &d)) {
      atomic::store(m + kMirrorFailed, d, atomic::relaxed);
      atomic::store(m + kMirrorClaim, uint64_t{kClaimError}, atomic::release);
      *done = d;
      return false;
    }
    atomic::fence();  // what the CQE completes (landed data) before the count that says so
    atomicMax(reinterpret_cast<unsigned long long *>(m + kMirrorDone), d);
    atomic::store(m + kMirrorClaim, uint64_t{kClaimFree}, atomic::release);
  } else if (c == kClaimError) {
    *done = atomic::load(m + kMirrorFailed, atomic::relaxed);
    return false;
  }
  *done = atomic::load(m + kMirrorDone, atomic::acquire);
  return true;
}
#endif
XSHMEM_HD_INLINE bool poll_cq(const sq_t &q, uint64_t *done) {
#if defined(__CUDA_ARCH__)
  if (q.mirror != nullptr) return poll_mirror(q.mirror, q.cq, q.published, q.nbb, done);
#endif
  return completed(q, done);
}

namespace detail {
// Waits until at least `target` positions have completed. The deadline is for a queue that stops:
// it starts anew whenever the completed count moves. *failed_pos (when given) gets the failed
// position on kPostError.
XSHMEM_HD_INLINE int wait_completed(const sq_t &q, uint64_t target, uint64_t *failed_pos) {
  wait_clock clock = wait_clock::with_timeout(q.deadline_ns);
  atomic::backoff relax;
  uint64_t seen = 0;
  for (;;) {
    uint64_t done = 0;
    if (!poll_cq(q, &done)) {
      if (failed_pos != nullptr) *failed_pos = done;
      return kPostError;
    }
    if (done >= target) return kPostOk;
    if (done > seen) {
      seen = done;
      clock.restart();
    }
    if (clock.passed()) return kPostTimeout;
    relax();
  }
}
// Waits until the claim [first, first + n) has room: every entry it would overwrite consumed.
XSHMEM_HD_INLINE int wait_room(const sq_t &q, uint64_t first, uint32_t n) {
  return wait_completed(q, first + n > q.nbb ? first + n - q.nbb : 0, nullptr);
}
}  // namespace detail

// Claims n consecutive positions (n >= 1, at most nbb) for the calling thread; *first gets the
// first. Waits while the claim would overwrite an entry not yet consumed.
XSHMEM_HD_INLINE int reserve(const sq_t &q, uint32_t n, uint64_t *first) {
  *first = atomic::fetch_add(q.reserved, static_cast<uint64_t>(n));
  return detail::wait_room(q, *first, n);
}

#if defined(__CUDACC__)
// The warp form of reserve: every lane in `mask` (the lanes that post, all calling together)
// claims `n` positions; the lowest lane makes one atomic add for the warp. Lanes take
// consecutive runs in lane order. *run_first and *run_n (when given) get the warp's whole claim,
// which one lane may publish for all (one doorbell) once every lane has written its entries.
__device__ __forceinline__ int reserve_warp(const sq_t &q, unsigned mask, uint32_t n,
                                            uint64_t *first, uint64_t *run_first = nullptr,
                                            uint32_t *run_n = nullptr) {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned below = mask & ((1u << lane) - 1u);
  // Each lane's offset: the sum of n over the lanes below it (n may differ per lane).
  uint32_t offset = 0, total = 0;
  for (unsigned m = mask; m != 0; m &= m - 1) {
    const int l = __ffs(m) - 1;
    const uint32_t nl = __shfl_sync(mask, n, l);
    if ((1u << l) & below) offset += nl;
    total += nl;
  }
  const int leader = __ffs(mask) - 1;
  uint64_t base = 0;
  if (static_cast<int>(lane) == leader) base = atomic::fetch_add(q.reserved, uint64_t{total});
  base = __shfl_sync(mask, base, leader);
  *first = base + offset;
  if (run_first != nullptr) *run_first = base;
  if (run_n != nullptr) *run_n = total;
  // The warp's claim has room once its last lane's has: the leader waits for all, and the lanes
  // take its answer (one poller per warp instead of one per lane).
  int st = kPostOk;
  if (static_cast<int>(lane) == leader) st = detail::wait_room(q, base, total);
  return __shfl_sync(mask, st, leader);
}
#endif

// The WQEBB of position pos.
XSHMEM_HD_INLINE void *slot(const sq_t &q, uint64_t pos) {
  return static_cast<unsigned char *>(q.wqes) + (pos & (q.nbb - 1)) * kWqeBB;
}

// Whether the entry at `pos`, the last of a claim [first, pos], asks for a CQE: when the claim
// crosses a multiple of nbb / 4 (flow control needs the NIC to report progress).
XSHMEM_HD_INLINE bool wants_cqe(const sq_t &q, uint64_t first, uint64_t pos) {
  const uint64_t quarter = q.nbb / 4 ? q.nbb / 4 : 1;
  return first / quarter != (pos + 1) / quarter || (pos + 1) % quarter == 0;
}

// The post_t of the entry at `pos` (its index, the QP, the completion flag and a fence mode).
XSHMEM_HD_INLINE post_t post_of(const sq_t &q, uint64_t pos, bool signaled, uint8_t fence = 0) {
  return post_t{static_cast<uint16_t>(pos), q.qpn,
                static_cast<uint8_t>((signaled ? kCeCqUpdate : 0) | fence)};
}

// Publishes the claim [first, first + n) once every earlier claim is published, then tells the
// NIC: the doorbell record, then (on a NIC) the doorbell with the first 8 bytes of the last
// entry, as mlx5 takes it.
XSHMEM_HD_INLINE int publish(const sq_t &q, uint64_t first, uint32_t n) {
  wait_clock clock = wait_clock::with_timeout(q.deadline_ns);
  atomic::backoff relax;
  // Every earlier claim publishes first. With many posters that is a long wait on a queue that
  // moves (the claims ahead publish one after the other): the deadline is for `ready` standing
  // still, a poster that stopped between its claim and its publish.
  for (uint64_t seen = atomic::load(q.ready, atomic::acquire), now; seen != first; seen = now) {
    if ((now = atomic::load(q.ready, atomic::acquire)) != seen) {
      clock.restart();
      continue;
    }
    if (clock.passed()) return kPostTimeout;
    relax();
  }
  const uint64_t end = first + n;
  atomic::fence();  // the entries before the counts that publish them
  atomic::store(q.published, end, atomic::relaxed);
  // The record (release: after the entries and `published`), the doorbell, then the hand-off:
  // the next publisher's record write follows this one's.
  atomic::store(q.dbr, send_dbr_value(static_cast<uint32_t>(end)), atomic::release);
  if (q.doorbell != nullptr) {
    atomic::fence();
    atomic::store(q.doorbell, *static_cast<const uint64_t *>(slot(q, end - 1)), atomic::relaxed);
  }
  atomic::store(q.ready, end, atomic::release);
  return kPostOk;
}

// Waits until the entry at `pos` has completed, and with it every earlier one (pos must ask for
// a CQE, or a later entry must). *failed_pos gets the failed position on kPostError.
XSHMEM_HD_INLINE int wait_done(const sq_t &q, uint64_t pos, uint64_t *failed_pos = nullptr) {
  return detail::wait_completed(q, pos + 1, failed_pos);
}

// Whether every published entry has completed (nothing for quiet to wait for). false also when
// the queue is in error.
XSHMEM_HD_INLINE bool drained(const sq_t &q) {
  uint64_t done = 0;
  return completed(q, &done) && done >= atomic::load(q.published, atomic::acquire);
}

// What a failed post reports about its queue (gda_path.h failed): which wait gave up, what it
// waited for, and the counters and the NIC's side as the poster saw them last.
enum stage_t : int {
  kStageRoom = 1,       // a claim waited for room (completed >= target)
  kStagePublish = 2,    // a publisher waited for the earlier claims (ready == target)
  kStageDone = 3,       // a wait for completion (completed >= target)
  kStageQuiet = 4,      // a quiet (its NOP's claim, publish or completion)
  kStageGpuQueues = 5,  // a host quiet waited for what GPU threads published (target: their
                        // producer count; the counters are the host queue's)
};
struct snapshot_t {
  uint64_t reserved, ready, published, done;
  uint16_t producer;   // the doorbell record's producer count
  uint16_t cqe_index;  // the collapsed CQE's wqe_counter
  uint8_t cqe_op;      // and its opcode (kCqeInvalid: never written)
};
XSHMEM_HD_INLINE snapshot_t snapshot(const sq_t &q) {
  snapshot_t t{};
  const volatile cqe_t *e = q.cq;
  t.cqe_op = static_cast<uint8_t>(e->op_own >> 4);
  t.cqe_index = be16(e->wqe_counter);
  t.producer = static_cast<uint16_t>(be32(atomic::load(q.dbr, atomic::acquire)) & 0xFFFF);
  t.reserved = atomic::load(q.reserved, atomic::acquire);
  t.ready = atomic::load(q.ready, atomic::acquire);
  t.published = atomic::load(q.published, atomic::acquire);
  (void)completed(q, &t.done);
  return t;
}

// Quiet of the queue: posts a signaled NOP and waits until it has completed (every earlier entry
// then has). *failed_pos gets the failed position on kPostError.
XSHMEM_HD_INLINE int quiet(const sq_t &q, uint64_t *failed_pos = nullptr) {
  uint64_t pos = 0;
  int st = reserve(q, 1, &pos);
  if (st != kPostOk) return st;
  build_nop(slot(q, pos), post_of(q, pos, true));
  if ((st = publish(q, pos, 1)) != kPostOk) return st;
  return wait_done(q, pos, failed_pos);
}

}  // namespace xshmem::dev::gda

#endif  // XSHMEM_DEVICE_GDA_H

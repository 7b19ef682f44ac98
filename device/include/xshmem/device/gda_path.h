// xshmem path code: the GDA path (the ibgda transport's peers), as the dispatchers (rma.h, amo.h,
// signal.h) call it.
//
// The caller builds mlx5 work-queue entries itself (gda_wqe.h) and posts them into a send queue
// to the peer with the posting protocol of gda.h; the NIC (an mlx5 NIC, or the software NIC
// model, backends/ibgda) executes them against the peer's registered heap and reports
// completions in the queue's collapsed CQ. peer_t::base of a GDA peer points to the peer's
// handle (peer_handle_t, format XSHMEM_GDA_FORMAT_MLX5, revision XSHMEM_GDA_MLX5_VERSION, filled by
// the transport at connect; the core refuses another format or revision): the peer heap's
// address and keys, the local key, and one queue per context (a context uses queue
// ctx_entry(ctx) % nqueues, so threads of different contexts post into different queues).
//
// What each operation posts (one queue executes its entries in order, an RC queue pair's rule):
//   put        inline writes up to kMaxInline bytes (the data travel in the entry: done on
//              return); larger ones are RDMA writes from the source, one per heap key region and
//              1 GiB, the last asking for a completion that a blocking put waits for;
//   get        RDMA reads into the destination (blocking: waits for the last);
//   p / g      an inline write / an 8-byte read into a local word;
//   atomics    the NIC has 8-byte fetch-add and compare-swap: fetch is a fetch-add of 0, fetch_add
//              and add a fetch-add (add's old value lands in the handle's discard word), set an
//              inline write (an aligned store of the word), compare_swap a compare-swap; swap and
//              the bitwise ones a compare-swap loop; 4-byte atomics work on their aligned 8-byte
//              word with compare-swap loops that change only their half (a 4-byte add to the
//              high half is a fetch-add of value << 32: its carry leaves the word);
//   put_signal the data as for put, then the signal: ADD a fetch-add, SET an inline write;
//   fence      nothing: a context's operations to one peer share that peer's queue, in order;
//   quiet      a signaled NOP into each queue of the context that holds unfinished entries, and
//              a wait for it (state_t::gda_peers lists the PEs to visit).
// A queue in error or a wait past the queue's deadline stops the job through
// state_t::on_remote_error, naming the operation and the peer (the NIC model has stopped it
// first with its own line naming the entry).
//
// The same code runs in host threads (CPU PEs, and the host API of any PE) and in GPU threads.
// They read different handles (the transport gives GPU threads their own, in GPU memory, with
// queues of their own: xshmem_peer_info_v1_t::gda_device_handle) and differ in two places:
//   - a fetched value (an atomic's old value, g's element) lands in the queue's result word of
//     the entry's position (sq_t::results) for a GPU thread, whose own variables no NIC can
//     write; a host thread gives its own variable;
//   - the lanes of a warp that post on one queue at once claim their positions with one atomic
//     (gda::reserve_warp) and one of them publishes the warp's run with one doorbell.
// A failed post or wait stops the job: a host thread through state_t::on_remote_error, a GPU
// thread through the device error mailbox (kDevGdaFailed) and a trap.
#ifndef XSHMEM_DEVICE_GDA_PATH_H
#define XSHMEM_DEVICE_GDA_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <xshmem/device/ctx_handle.h>
#include <xshmem/device/gda.h>
#include <xshmem/device/gda_wqe.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/state.h>

// The revision of the per-peer handle of format XSHMEM_GDA_FORMAT_MLX5 this path code reads.
#define XSHMEM_GDA_MLX5_VERSION 4

namespace xshmem::dev::gdapath {

// A GPU threads' queue as a host thread watches it: the doorbell record the posters write (the
// producer count) and the count of entries the NIC has completed, signaled or not (the software
// NIC model keeps it; a host quiet waits until it reaches the producer).
struct dq_watch_t {
  const uint32_t *dbr;
  const uint32_t *retired;
};

// One GDA peer, as its transport describes it (peer_t::base points to it).
struct peer_handle_t {
  uint32_t format;       // XSHMEM_GDA_FORMAT_MLX5
  uint32_t version;      // XSHMEM_GDA_MLX5_VERSION
  uint32_t nqueues;      // queues to the peer (at least 1)
  uint32_t key_shift;    // rkeys[i] covers bytes [i << key_shift, (i + 1) << key_shift) of its heap
  uint64_t remote_base;  // the peer's heap in the peer's address space (raddr = base + offset)
  uint64_t heap_size;    // bytes
  const uint32_t *rkeys;  // [nrkeys]
  uint32_t nrkeys;
  uint32_t lkey;      // this PE's local buffers
  uint64_t *discard;  // a local word (under lkey) for the old values nobody reads
  gda::sq_t *queues;  // [nqueues]
  // Host handle of a PE whose GPU threads post too: their queues to this peer as the host sees
  // them (ndq entries), so that a host quiet also covers what kernels posted (see quiet).
  uint32_t ndq;
  const dq_watch_t *dq;
};

// The largest message of one entry (an mlx5 entry's byte count reaches 2 GiB).
constexpr uint64_t kMaxMessage = 1ull << 30;

// The entry points, out of line: the dispatchers' switch then holds a call for the GDA case and
// their LSA cases compile as tight as without it (as proxy.h's ring requests).
#if defined(__CUDACC__)
#define XSHMEM_GDA_COLD __host__ __device__ __noinline__ inline
#else
#define XSHMEM_GDA_COLD __attribute__((noinline)) inline
#endif

XSHMEM_HD_INLINE const peer_handle_t &handle(const state_t &s, int pe) {
  return *reinterpret_cast<const peer_handle_t *>(peer_of(s, pe).base);
}
XSHMEM_HD_INLINE const gda::sq_t &queue(const peer_handle_t &h, int32_t ctx) {
  return h.queues[ctx < 0 ? 0 : static_cast<uint32_t>(ctx_entry(ctx)) % h.nqueues];
}

// Stops the job: a post or a wait of `op` (device_check_op) to pe failed (gda.h status st) in
// `stage` (gda::stage_t) of queue q, waiting for `target`. The report carries the queue's
// counters as this thread saw them (gda::snapshot): which of the poster, the publisher ahead or
// the NIC stood still.
XSHMEM_HD_INLINE void failed(const state_t &s, int pe, int32_t op, int st, const gda::sq_t &q,
                             int stage, uint64_t target) {
  const gda::snapshot_t t = gda::snapshot(q);
#if defined(__CUDA_ARCH__)
  device_error_t *e = s.device_error;
  if (mailbox_claim(e, kDevGdaFailed, op, pe)) {
    // kDevGdaFailed's fields (cuda_rt.cc prints them).
    e->align = static_cast<uint64_t>(st);
    e->addr = target;
    e->size = static_cast<uint64_t>(stage);
    e->wait_ns = t.reserved;
    e->wait_index = t.ready;
    e->wait_nelems = t.published;
    e->wait_round = static_cast<int32_t>(t.published - t.done);
    e->wait_cmp = t.producer;
    e->wait_value_size = t.cqe_index;
    e->wait_value_signed = t.cqe_op;
    mailbox_publish(e);
  }
  __trap();
#else
  const char *name = op_name(op);
  const int status = st == gda::kPostTimeout ? XSHMEM_ERR_TIMEOUT : XSHMEM_ERR_PEER_FAILED;
  if (s.on_remote_error != nullptr) s.on_remote_error(pe, name, status);
  fprintf(stderr,
          "xshmem: pe %d: %s to pe %d: the GDA queue %s (stage %d, waiting for %llu; reserved "
          "%llu, ready %llu, published %llu, completed %llu; doorbell record %u, CQE index %u "
          "opcode %u); aborting\n",
          s.my_pe, name, pe,
          st == gda::kPostTimeout ? "did not move within its deadline" : "is in error", stage,
          static_cast<unsigned long long>(target), static_cast<unsigned long long>(t.reserved),
          static_cast<unsigned long long>(t.ready), static_cast<unsigned long long>(t.published),
          static_cast<unsigned long long>(t.done), t.producer, t.cqe_index, t.cqe_op);
  abort();
#endif
}

// The remote key for heap offset `off` at the peer, and the bytes from off to the end of its
// region (a message never crosses two).
XSHMEM_HD_INLINE uint32_t rkey(const peer_handle_t &h, uint64_t off, uint64_t *room) {
  const uint64_t k = off >> h.key_shift;
  const uint64_t end = (k + 1) << h.key_shift;
  *room = (end > h.heap_size ? h.heap_size : end) - off;
  return h.rkeys[k < h.nrkeys ? k : h.nrkeys - 1];
}

// Where the fetched value of the entry of index `index` (its position's low 16 bits: nbb <= 2^15)
// lands: the queue's result word of the position (GPU threads; sq_t::results), else the caller's
// own variable `mine`. The word is rewritten only by the entry nbb positions later, whose claim
// waits for this one's completion: the poster reads it right after its wait.
XSHMEM_HD_INLINE uint64_t *landing(const gda::sq_t &q, uint16_t index, uint64_t *mine) {
#if defined(__CUDA_ARCH__)
  (void)mine;
  return q.results + (index & (q.nbb - 1));
#else
  return q.results != nullptr ? q.results + (index & (q.nbb - 1)) : mine;
#endif
}
// Reads what landed there once the entry has completed.
XSHMEM_HD_INLINE uint64_t landed(const uint64_t *at) {
  atomic::fence();
  return *static_cast<const volatile uint64_t *>(at);
}

// Posts one entry that `build(wqe, post)` writes; it asks for a completion when `signaled` (or
// when the protocol wants one). Returns its position; a failure stops the job. On the GPU the
// lanes of a warp posting on q at this moment claim together and one of them publishes the run.
template <typename B>
XSHMEM_HD_INLINE uint64_t post(const state_t &s, int pe, int32_t op, const gda::sq_t &q,
                               bool signaled, B build) {
  uint64_t pos = 0;
#if defined(__CUDA_ARCH__)
  const unsigned mask = __match_any_sync(
      __activemask(), static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&q)));
  uint64_t run_first = 0;
  uint32_t run_n = 0;
  if (const int st = gda::reserve_warp(q, mask, 1, &pos, &run_first, &run_n))
    failed(s, pe, op, st, q, gda::kStageRoom, pos + 1 > q.nbb ? pos + 1 - q.nbb : 0);
  build(gda::slot(q, pos), gda::post_of(q, pos, signaled || gda::wants_cqe(q, pos, pos)));
  atomic::fence();  // the entry before the run's publisher tells the NIC
  __syncwarp(mask);
  if (pos == run_first) {
    if (const int st = gda::publish(q, run_first, run_n))
      failed(s, pe, op, st, q, gda::kStagePublish, run_first);
  }
  __syncwarp(mask);
#else
  if (const int st = gda::reserve(q, 1, &pos))
    failed(s, pe, op, st, q, gda::kStageRoom, pos + 1 > q.nbb ? pos + 1 - q.nbb : 0);
  build(gda::slot(q, pos), gda::post_of(q, pos, signaled || gda::wants_cqe(q, pos, pos)));
  if (const int st = gda::publish(q, pos, 1)) failed(s, pe, op, st, q, gda::kStagePublish, pos);
#endif
  return pos;
}
XSHMEM_HD_INLINE void wait(const state_t &s, int pe, int32_t op, const gda::sq_t &q, uint64_t pos) {
  if (const int st = gda::wait_done(q, pos)) failed(s, pe, op, st, q, gda::kStageDone, pos + 1);
}

// An inline write of n <= kMaxInline bytes (done on return: the data travel in the entry).
XSHMEM_HD_INLINE uint64_t write_inline(const state_t &s, int pe, int32_t op, const peer_handle_t &h,
                                       const gda::sq_t &q, uint64_t off, const void *src, size_t n,
                                       bool signaled = false) {
  uint64_t room = 0;
  const uint32_t key = rkey(h, off, &room);
  return post(s, pe, op, q, signaled, [&](void *wqe, const gda::post_t &p) {
    gda::build_write_inline(wqe, p, h.remote_base + off, key, src, static_cast<uint32_t>(n));
  });
}

// Reads n <= 8 bytes at heap offset off of pe into the queue's result word (GPU threads) or a
// variable of this call (host), waits for them and returns the word.
XSHMEM_HD_INLINE uint64_t read_small(const state_t &s, int pe, int32_t op, const peer_handle_t &h,
                                     const gda::sq_t &q, uint64_t off, size_t n) {
  uint64_t room = 0, mine = 0;
  const uint32_t key = rkey(h, off, &room);
  uint64_t *at = nullptr;
  const uint64_t pos = post(s, pe, op, q, true, [&](void *wqe, const gda::post_t &p) {
    at = landing(q, p.index, &mine);
    gda::build_read(wqe, p, h.remote_base + off, key, reinterpret_cast<uintptr_t>(at), h.lkey,
                    static_cast<uint32_t>(n));
  });
  wait(s, pe, op, q, pos);
  return landed(at);
}

#if defined(__CUDA_ARCH__)
// A GPU thread's __shared__ or thread-local buffer is no address the NIC can use (it reaches
// global memory only; the model's copies alike), so transfer sends its data in the entries: inline
// writes of at most kMaxInline bytes, or reads of at most 8 bytes into the queue's result word,
// each waited for and copied out. Slow (a completion per 8 bytes read), but correct where the data
// cannot be in registered memory; global buffers take the RDMA path.
template <bool kPut>
__device__ inline void bounce(const state_t &s, int pe, int32_t op, const peer_handle_t &h,
                              const gda::sq_t &q, uint64_t off, char *local, size_t n) {
  constexpr size_t kChunk = kPut ? gda::kMaxInline : 8;
  for (size_t done = 0; done < n;) {
    uint64_t room = 0;
    rkey(h, off + done, &room);
    size_t len = n - done < kChunk ? n - done : kChunk;
    if (len > room) len = static_cast<size_t>(room);  // one key region per entry
    if constexpr (kPut) {
      write_inline(s, pe, op, h, q, off + done, local + done, len);
    } else {
      const uint64_t bits = read_small(s, pe, op, h, q, off + done, len);
      memcpy(local + done, &bits, len);
    }
    done += len;
  }
}
#endif

// RDMA writes (kPut) or reads of n > kMaxInline bytes between local `local` and heap offset off
// at pe: one entry per key region and kMaxMessage. The last asks for a completion when `wait`,
// and then the call waits for it.
template <bool kPut>
XSHMEM_HD_INLINE void transfer(const state_t &s, int pe, int32_t op, const peer_handle_t &h,
                               const gda::sq_t &q, uint64_t off, char *local, size_t n,
                               bool wait_last) {
#if defined(__CUDA_ARCH__)
  if (n != 0 && !__isGlobal(local)) {
    bounce<kPut>(s, pe, op, h, q, off, local, n);
    return;
  }
#endif
  while (n > 0) {
    uint64_t room = 0;
    const uint32_t key = rkey(h, off, &room);
    uint64_t len = n < room ? n : room;
    if (len > kMaxMessage) len = kMaxMessage;
    const bool last = len == n;
    const uint64_t pos =
        post(s, pe, op, q, last && wait_last, [&](void *wqe, const gda::post_t &p) {
          if constexpr (kPut)
            gda::build_write(wqe, p, h.remote_base + off, key, reinterpret_cast<uintptr_t>(local),
                             h.lkey, static_cast<uint32_t>(len));
          else
            gda::build_read(wqe, p, h.remote_base + off, key, reinterpret_cast<uintptr_t>(local),
                            h.lkey, static_cast<uint32_t>(len));
        });
    if (last && wait_last) {
      wait(s, pe, op, q, pos);
      atomic::fence();  // a read's data landed before the completion
    }
    off += len;
    local += len;
    n -= static_cast<size_t>(len);
  }
}

// An inline write of a caller's buffer (n <= kMaxInline). A host thread over a GPU heap
// (state_t::host_ce set) may name GPU memory, which it cannot load: the bytes come through the
// runtime's copy first. Elsewhere the builder reads the buffer in place. (Larger writes need
// nothing: the NIC reads their source through its local memory access.)
XSHMEM_HD_INLINE uint64_t write_inline_from(const state_t &s, int pe, int32_t op,
                                            const peer_handle_t &h, const gda::sq_t &q,
                                            uint64_t off, const void *src, size_t n) {
#if !defined(__CUDA_ARCH__)
  unsigned char staged[gda::kMaxInline];
  if (s.host_ce != nullptr && n != 0) {
    s.host_ce->copy(staged, src, n, true);
    src = staged;
  }
#endif
  return write_inline(s, pe, op, h, q, off, src, n);
}

XSHMEM_GDA_COLD void put(const state_t &s, int32_t ctx, void *dest, const void *source,
                         size_t nbytes, int pe, bool nbi) {
  const peer_handle_t &h = handle(s, pe);
  const gda::sq_t &q = queue(h, ctx);
  const uint64_t off = heap_offset(s, dest);
  if (nbytes <= gda::kMaxInline) {
    write_inline_from(s, pe, kDevOpPut, h, q, off, source, nbytes);
    return;
  }
  transfer<true>(s, pe, kDevOpPut, h, q, off, static_cast<char *>(const_cast<void *>(source)),
                 nbytes, !nbi);
}
XSHMEM_GDA_COLD void get(const state_t &s, int32_t ctx, void *dest, const void *source,
                         size_t nbytes, int pe, bool nbi) {
  const peer_handle_t &h = handle(s, pe);
  transfer<false>(s, pe, kDevOpGet, h, queue(h, ctx), heap_offset(s, source),
                  static_cast<char *>(dest), nbytes, !nbi);
}

// One element of at most 8 bytes read into the queue's result word (GPU threads) or a variable
// of the caller (host), waited for.
template <typename T>
XSHMEM_GDA_COLD T g(const state_t &s, int32_t ctx, const T *source, int pe) {
  static_assert(sizeof(T) <= 8, "g reads one element of at most 8 bytes");
  const peer_handle_t &h = handle(s, pe);
  const gda::sq_t &q = queue(h, ctx);
  const uint64_t bits = read_small(s, pe, kDevOpG, h, q, heap_offset(s, source), sizeof(T));
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}

// Strided forms: one entry per element (inline writes; reads into the elements), then, unless
// nbi, completed (the last read waited for; inline writes need nothing).
template <bool kPut, typename T>
XSHMEM_GDA_COLD void strided(const state_t &s, int32_t ctx, T *dest, const T *source, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, int pe, bool nbi) {
  const peer_handle_t &h = handle(s, pe);
  const gda::sq_t &q = queue(h, ctx);
  for (size_t i = 0; i < nelems; ++i) {
    T *d = dest + static_cast<ptrdiff_t>(i) * dst;
    const T *src = source + static_cast<ptrdiff_t>(i) * sst;
    if constexpr (kPut) {
      if constexpr (sizeof(T) <= gda::kMaxInline)
        write_inline_from(s, pe, kDevOpIput, h, q, heap_offset(s, d), src, sizeof(T));
      else
        transfer<true>(s, pe, kDevOpIput, h, q, heap_offset(s, d),
                       reinterpret_cast<char *>(const_cast<T *>(src)), sizeof(T), !nbi);
    } else {
      transfer<false>(s, pe, kDevOpIget, h, q, heap_offset(s, src), reinterpret_cast<char *>(d),
                      sizeof(T), !nbi && i + 1 == nelems);
    }
  }
}

// The 8-byte atomics of the NIC on the aligned word at heap offset off8: a fetch-add of `add`
// (the old value returned when `fetch`; else it lands in the discard word and the call returns
// at once), and a compare-swap (always waited for).
XSHMEM_HD_INLINE uint64_t fetch_add8(const state_t &s, int pe, const peer_handle_t &h,
                                     const gda::sq_t &q, uint64_t off8, uint64_t add, bool fetch) {
  uint64_t room = 0, mine = 0;
  const uint32_t key = rkey(h, off8, &room);
  uint64_t *at = nullptr;
  const uint64_t pos = post(s, pe, kDevOpAtomic, q, fetch, [&](void *wqe, const gda::post_t &p) {
    at = fetch ? landing(q, p.index, &mine) : h.discard;
    gda::build_fetch_add(wqe, p, h.remote_base + off8, key, reinterpret_cast<uintptr_t>(at), h.lkey,
                         add);
  });
  if (!fetch) return 0;
  wait(s, pe, kDevOpAtomic, q, pos);
  return landed(at);
}
XSHMEM_HD_INLINE uint64_t compare_swap8(const state_t &s, int pe, const peer_handle_t &h,
                                        const gda::sq_t &q, uint64_t off8, uint64_t compare,
                                        uint64_t swap) {
  uint64_t room = 0, mine = 0;
  const uint32_t key = rkey(h, off8, &room);
  uint64_t *at = nullptr;
  const uint64_t pos = post(s, pe, kDevOpAtomic, q, true, [&](void *wqe, const gda::post_t &p) {
    at = landing(q, p.index, &mine);
    gda::build_compare_swap(wqe, p, h.remote_base + off8, key, reinterpret_cast<uintptr_t>(at),
                            h.lkey, compare, swap);
  });
  wait(s, pe, kDevOpAtomic, q, pos);
  return landed(at);
}

// A read-modify-write of T at heap offset off through compare-swap on its aligned 8-byte word:
// `next(old)` gives the new value of T; only T's bytes of the word change. Returns T's old value.
template <typename T, typename F>
XSHMEM_HD_INLINE T rmw(const state_t &s, int pe, const peer_handle_t &h, const gda::sq_t &q,
                       uint64_t off, F next) {
  const uint64_t off8 = off & ~uint64_t{7};
  const unsigned shift = static_cast<unsigned>(off & 7) * 8;
  const uint64_t mask =
      sizeof(T) == 8 ? ~uint64_t{0} : ((uint64_t{1} << (8 * sizeof(T))) - 1) << shift;
  uint64_t word = fetch_add8(s, pe, h, q, off8, 0, true);
  for (;;) {
    T cur;
    const uint64_t bits = (word & mask) >> shift;
    memcpy(&cur, &bits, sizeof(T));
    const T nv = next(cur);
    uint64_t nbits = 0;
    memcpy(&nbits, &nv, sizeof(T));
    const uint64_t want = (word & ~mask) | ((nbits << shift) & mask);
    if (want == word) return cur;  // nothing to change (a failed compare_swap, an and with ~0)
    const uint64_t seen = compare_swap8(s, pe, h, q, off8, word, want);
    if (seen == word) return cur;
    word = seen;
  }
}

template <typename T>
XSHMEM_HD_INLINE uint64_t bits_of(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
XSHMEM_HD_INLINE T of_bits(uint64_t b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}

// Atomic `op` (the ABI's code) on T at symmetric `dest` of pe; the old value (set: value).
// Floating-point T takes fetch, set and swap only (the OpenSHMEM types of those).
template <typename T>
XSHMEM_GDA_COLD T amo(const state_t &s, int32_t ctx, xshmem_amo_op_t op, T *dest, T value, T cond,
                      int pe) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the NIC's atomics are 4 or 8 bytes wide");
  constexpr bool kInt = static_cast<T>(0.5) == static_cast<T>(0);
  const peer_handle_t &h = handle(s, pe);
  const gda::sq_t &q = queue(h, ctx);
  const uint64_t off = heap_offset(s, dest);
  const uint64_t off8 = off & ~uint64_t{7};
  const unsigned shift = static_cast<unsigned>(off & 7) * 8;
  auto half = [&](uint64_t word) { return of_bits<T>(sizeof(T) == 8 ? word : word >> shift); };
  switch (op) {
    case XSHMEM_AMO_FETCH:
      return half(fetch_add8(s, pe, h, q, off8, 0, true));
    case XSHMEM_AMO_SET:
      write_inline(s, pe, kDevOpAtomic, h, q, off, &value, sizeof(T));
      return value;
    case XSHMEM_AMO_SWAP:
      return rmw<T>(s, pe, h, q, off, [&](T) { return value; });
    default:
      break;
  }
  if constexpr (kInt) {
    switch (op) {
      case XSHMEM_AMO_COMPARE_SWAP:
        if constexpr (sizeof(T) == 8)
          return of_bits<T>(compare_swap8(s, pe, h, q, off8, bits_of(cond), bits_of(value)));
        else
          return rmw<T>(s, pe, h, q, off, [&](T c) { return c == cond ? value : c; });
      case XSHMEM_AMO_ADD:
      case XSHMEM_AMO_FETCH_ADD:
        // The word's own fetch-add when T fills it, or T is its high half (the carry leaves it).
        if (sizeof(T) == 8 || shift == 32)
          return half(fetch_add8(s, pe, h, q, off8, bits_of(value) << (sizeof(T) == 8 ? 0 : 32),
                                 op == XSHMEM_AMO_FETCH_ADD));
        return rmw<T>(s, pe, h, q, off, [&](T c) { return static_cast<T>(c + value); });
      case XSHMEM_AMO_AND:
      case XSHMEM_AMO_FETCH_AND:
        return rmw<T>(s, pe, h, q, off, [&](T c) { return static_cast<T>(c & value); });
      case XSHMEM_AMO_OR:
      case XSHMEM_AMO_FETCH_OR:
        return rmw<T>(s, pe, h, q, off, [&](T c) { return static_cast<T>(c | value); });
      case XSHMEM_AMO_XOR:
      case XSHMEM_AMO_FETCH_XOR:
        return rmw<T>(s, pe, h, q, off, [&](T c) { return static_cast<T>(c ^ value); });
      default:
        break;
    }
  }
  unreachable_path(s, pe);
  return T{};
}

// The signal update at sig_addr of pe on ctx's queue, after the queue's earlier entries: ADD a
// fetch-add (its old value discarded), SET an inline write. Returns its position.
XSHMEM_GDA_COLD uint64_t signal(const state_t &s, int32_t ctx, uint64_t *sig_addr, uint64_t signal,
                                int sig_op, int pe, bool signaled) {
  const peer_handle_t &h = handle(s, pe);
  const gda::sq_t &q = queue(h, ctx);
  const uint64_t off = heap_offset(s, sig_addr);
  if (sig_op == kSignalAdd) {
    uint64_t room = 0;
    const uint32_t key = rkey(h, off, &room);
    return post(s, pe, kDevOpSignal, q, signaled, [&](void *wqe, const gda::post_t &p) {
      gda::build_fetch_add(wqe, p, h.remote_base + off, key, reinterpret_cast<uintptr_t>(h.discard),
                           h.lkey, signal);
    });
  }
  return write_inline(s, pe, kDevOpSignal, h, q, off, &signal, sizeof signal, signaled);
}

// The data, then the signal on the same queue (in order at the target). Blocking: the source may
// be reused on return (a non-inline put's entries are complete once the signal's is).
XSHMEM_GDA_COLD void put_signal(const state_t &s, int32_t ctx, void *dest, const void *source,
                                size_t nbytes, uint64_t *sig_addr, uint64_t sig, int sig_op, int pe,
                                bool nbi) {
  const peer_handle_t &h = handle(s, pe);
  const gda::sq_t &q = queue(h, ctx);
  const uint64_t off = heap_offset(s, dest);
  const bool wait_signal = !nbi && nbytes > gda::kMaxInline;
  if (nbytes != 0 && nbytes <= gda::kMaxInline)
    write_inline_from(s, pe, kDevOpPutSignal, h, q, off, source, nbytes);
  else if (nbytes != 0)
    transfer<true>(s, pe, kDevOpPutSignal, h, q, off,
                   static_cast<char *>(const_cast<void *>(source)), nbytes, false);
  const uint64_t pos = signal(s, ctx, sig_addr, sig, sig_op, pe, wait_signal);
  if (wait_signal) wait(s, pe, kDevOpPutSignal, q, pos);
}

// Quiet of ctx: every GDA peer's queue of ctx that holds unfinished entries gets a signaled NOP,
// waited for. A host thread also waits until the NIC has completed what GPU threads published
// into their own queues to those peers (dq_watch_t): a host quiet or barrier after a kernel
// covers the kernel's non-blocking operations, as on the PROXY path.
XSHMEM_GDA_COLD void quiet(const state_t &s, int32_t ctx) {
  for (int32_t i = 0; i < s.n_gda_peers; ++i) {
    const int pe = s.gda_peers[i];
    const peer_handle_t &h = handle(s, pe);
    const gda::sq_t &q = queue(h, ctx);
    if (!gda::drained(q)) {
      if (const int st = gda::quiet(q)) failed(s, pe, kDevOpQuiet, st, q, gda::kStageQuiet, 0);
    }
#if !defined(__CUDA_ARCH__)
    for (uint32_t k = 0; k < h.ndq; ++k) {
      const uint16_t producer =
          static_cast<uint16_t>(gda::be32(atomic::load(h.dq[k].dbr, atomic::acquire)) & 0xFFFF);
      wait_clock clock = wait_clock::with_timeout(q.deadline_ns);
      atomic::backoff relax;
      while (static_cast<int16_t>(
                 static_cast<uint16_t>(atomic::load(h.dq[k].retired, atomic::acquire)) - producer) <
             0) {
        if (clock.passed())
          failed(s, pe, kDevOpQuiet, gda::kPostTimeout, q, gda::kStageGpuQueues, producer);
        relax();
      }
    }
#endif
  }
}

}  // namespace xshmem::dev::gdapath

#endif  // XSHMEM_DEVICE_GDA_PATH_H

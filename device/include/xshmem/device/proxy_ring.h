// xshmem device API: the PROXY path's channel rings, producer side (DESIGN.md "Proxy").
//
// A thread (GPU or CPU) that reaches a PROXY peer writes a fixed-size request into a channel
// ring; a proxy thread of the same process (core/src/proxy/) drains the ring in order and calls
// the data operations of the transport serving the request's target PE.
//
// Layout. The channel set is one block of memory that both sides address by offsets only (no
// pointers inside it), so the same bytes work through the host and the device address of
// pinned, mapped host memory: a channels_t header, then `num` channel_t, then each channel's
// `slots` request slots. A slot is 64 bytes, one cache line: a producer's writes of one request
// and the proxy's reads of it touch one line (one PCIe read for the proxy when a GPU wrote it,
// no false sharing between neighbouring requests), and 64 bytes hold every request kind: header,
// remote offset, size and four argument words (a put of up to 32 bytes rides inline).
//
// Protocol (a bounded multi-producer queue with a sequence number per slot, so the proxy needs no
// separate producer index). Slot i of a channel starts with seq = i. A producer takes ticket t
// with one fetch-add on the channel's `issued`, waits until slot t % N has seq == t (free for
// this lap: back-pressure on a full ring), writes the request and publishes it with a release
// store seq = t + 1. The proxy reads slot h % N when its seq == h + 1 (acquire), executes it,
// bumps `completed` (release) and frees the slot with seq = h + N. A request that returns
// something to its producer (kReqAck: a blocking get or put, a fetching atomic) is not freed by
// the proxy: it writes the status and result into the slot and stores seq = h + 2; the producer
// reads them and frees the slot itself (seq = t + N). So a fetched value never lives in the
// producer's memory (a GPU thread's stack is not visible to the proxy), and a slot is reused
// only after its producer has read its answer. N is a power of two, at least 4.
//
// Quiet on a channel = a quiet request (the proxy calls the transport's quiet) + a wait until
// `completed` passes the quiet's ticket: every request issued before it on the channel has then
// completed at its target (OpenSHMEM quiet). Fence = a fence request (the transport's fence
// orders the channel's earlier puts, atomics and signals before its later ones).
//
// Producers here are single threads; warp- and block-wide calls are the dispatcher's job (one
// thread of the group enqueues). Every wait has the deadline state_t::wait_timeout_ns when it is
// set; passing it returns XSHMEM_ERR_TIMEOUT and the caller reports it.
#ifndef XSHMEM_DEVICE_PROXY_RING_H
#define XSHMEM_DEVICE_PROXY_RING_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/atomic.h>
#include <xshmem/device/ctx_handle.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/p2p.h>
#include <xshmem/device/state.h>

#if !defined(__CUDA_ARCH__)
#include <string.h>
#endif

namespace xshmem::dev::proxy::ring {

// Request kinds (request_t::op).
enum req_op : uint8_t {
  kReqNone = 0,
  kReqPut = 1,        // size bytes from arg[0] (a local address), or inline (kReqInline)
  kReqGet = 2,        // size bytes into arg[0], or into arg[] itself (kReqInline, acked)
  kReqAmo = 3,        // sub = xshmem_amo_op_t, type = xshmem_amo_type_t, arg[0] operand,
                      // arg[1] compare; a fetching op returns the old value (kReqAck)
  kReqPutSignal = 4,  // put of size bytes from arg[0], then the signal at arg[1] (offset) with
                      // value arg[2] and sub = sig_op, ordered after the data at the target
  kReqFence = 5,
  kReqQuiet = 6,
};

// Request flags (request_t::flags).
constexpr uint8_t kReqAck = 1u << 0;     // the producer waits for the answer (status, result)
constexpr uint8_t kReqNbi = 1u << 1;     // the transport may complete it by the channel's quiet
constexpr uint8_t kReqInline = 1u << 2;  // put, get: the bytes are arg[] itself

constexpr size_t kSlotBytes = 64;
constexpr size_t kInlineBytes = 32;  // arg[0..3]

struct alignas(kSlotBytes) request_t {
  uint64_t seq;     // the protocol word (see above)
  uint8_t op;       // req_op
  uint8_t flags;    // kReq*
  uint8_t sub;      // amo: xshmem_amo_op_t; put_signal: sig_op
  uint8_t type;     // amo: xshmem_amo_type_t
  int32_t pe;       // target (world PE)
  uint64_t remote;  // offset of the target location in the target's heap; acked: the status
  uint64_t size;    // bytes (put, get, put_signal)
  uint64_t arg[4];  // per op (req_op); acked: arg[3] holds the result
};
static_assert(sizeof(request_t) == kSlotBytes, "a request is one cache line");

// How requests pick their channel (XSHMEM_PROXY_CHANNEL_MAP).
enum channel_map : uint32_t {
  kMapCtx = 0,   // ctx_entry(ctx) % num: the operations of one context share a channel
  kMapWarp = 1,  // device: global warp id % num; host threads: as kMapCtx
};

// One channel: the producers' ticket and the proxy's completion count on separate cache lines
// (every producer hits the first, the proxy writes the second).
struct alignas(64) channel_t {
  uint64_t issued;  // tickets handed out (producers, fetch-add)
  uint64_t reserved0[7];
  uint64_t completed;  // requests executed (proxy, release store)
  uint64_t reserved1[7];
};
static_assert(sizeof(channel_t) == 128, "channel counters sit on two cache lines");

// The channel set's header, at the start of the block.
struct alignas(64) channels_t {
  uint32_t magic;      // kMagic once initialised
  uint32_t num;        // channels
  uint32_t slots;      // slots per channel (power of two, >= 4)
  uint32_t map;        // channel_map
  uint64_t chan_off;   // from the block's start: channel_t[num]
  uint64_t slots_off;  // from the block's start: request_t[num * slots], channel by channel
  uint64_t bytes;      // size of the block
  uint64_t reserved[4];
};
constexpr uint32_t kMagic = 0x78707278u;  // "xprx"

// Bytes of a channel set of `num` channels of `slots` slots.
XSHMEM_HD_INLINE size_t block_bytes(uint32_t num, uint32_t slots) {
  return sizeof(channels_t) + size_t{num} * sizeof(channel_t) +
         size_t{num} * size_t{slots} * sizeof(request_t);
}

// Lays out a channel set in `mem` (block_bytes(num, slots) bytes, 64-byte aligned, no other user
// yet); host code, before any producer or proxy thread sees it.
inline channels_t *init_block(void *mem, uint32_t num, uint32_t slots, uint32_t map) {
  channels_t *cs = static_cast<channels_t *>(mem);
  const size_t bytes = block_bytes(num, slots);
  memset(mem, 0, bytes);
  cs->num = num;
  cs->slots = slots;
  cs->map = map;
  cs->chan_off = sizeof(channels_t);
  cs->slots_off = sizeof(channels_t) + size_t{num} * sizeof(channel_t);
  cs->bytes = bytes;
  request_t *r = reinterpret_cast<request_t *>(static_cast<char *>(mem) + cs->slots_off);
  for (uint32_t c = 0; c < num; ++c)
    for (uint32_t i = 0; i < slots; ++i) r[size_t{c} * slots + i].seq = i;
  cs->magic = kMagic;
  return cs;
}

XSHMEM_HD_INLINE channel_t *channel(channels_t *cs, uint32_t c) {
  return reinterpret_cast<channel_t *>(reinterpret_cast<char *>(cs) + cs->chan_off) + c;
}
XSHMEM_HD_INLINE request_t *slot(channels_t *cs, uint32_t c, uint64_t ticket) {
  return reinterpret_cast<request_t *>(reinterpret_cast<char *>(cs) + cs->slots_off) +
         size_t{c} * cs->slots + (ticket & (cs->slots - 1));
}

// The channel that context `ctx` uses from the calling thread.
XSHMEM_HD_INLINE uint32_t pick_channel(const channels_t *cs, int32_t ctx) {
#if defined(__CUDA_ARCH__)
  if (cs->map == kMapWarp) {
    // The hardware warp: the block's linear index times its warps, plus the warp of the thread's
    // linear index in the block (warps never span blocks, so every lane of a warp gets the same
    // channel whatever the block shape), modulo num. Reduced step by step in 32 bits (num <= 64):
    // a 64-bit division is a call on the device, and a call on the PROXY branch costs the LSA
    // branch next to it.
    const uint32_t m = cs->num;
    const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const uint32_t warps = (blockDim.x * blockDim.y * blockDim.z + 31) / 32;
    const uint32_t yz = (blockIdx.y % m + (gridDim.y % m) * (blockIdx.z % m)) % m;
    const uint32_t block = (blockIdx.x % m + (gridDim.x % m) * yz) % m;
    return (block * (warps % m) + tid / 32) % m;
  }
#endif
  const int32_t e = ctx < 0 ? 0 : ctx_entry(ctx);
  return static_cast<uint32_t>(e) % cs->num;
}

namespace detail {

// Waits until *word == want; false when the state's deadline passed first.
XSHMEM_HD_INLINE bool wait_eq(const state_t &s, uint64_t *word, uint64_t want) {
  if (atomic::load_acquire(word) == want) return true;
  wait_clock clock(&s);
  atomic::backoff bo;
  while (atomic::load_acquire(word) != want) {
    if (clock.passed()) return false;
    bo();
  }
  return true;
}

// Waits until *word >= want (a counter); false when the deadline passed first.
XSHMEM_HD_INLINE bool wait_ge(const state_t &s, uint64_t *word, uint64_t want) {
  if (atomic::load_acquire(word) >= want) return true;
  wait_clock clock(&s);
  atomic::backoff bo;
  while (atomic::load_acquire(word) < want) {
    if (clock.passed()) return false;
    bo();
  }
  return true;
}

// A reserved slot: the channel, the ticket and the slot, whose body the caller fills.
struct reservation {
  uint32_t chan;
  uint64_t ticket;
  request_t *r;
};

// Takes a ticket on channel `c` and waits for its slot to be free (false: deadline).
XSHMEM_HD_INLINE bool reserve(const state_t &s, channels_t *cs, uint32_t c, reservation *out) {
  channel_t *ch = channel(cs, c);
  out->chan = c;
  out->ticket = atomic::fetch_add(&ch->issued, uint64_t{1}, atomic::relaxed);
  out->r = slot(cs, c, out->ticket);
  return wait_eq(s, &out->r->seq, out->ticket);
}

// Publishes a filled slot (the body's stores happen before the proxy's reads).
XSHMEM_HD_INLINE void publish(const reservation &v) {
  atomic::store_release(&v.r->seq, v.ticket + 1);
}

// For kReqAck requests: waits for the proxy's answer, reads it and frees the slot.
XSHMEM_HD_INLINE int await_ack(const state_t &s, channels_t *cs, const reservation &v,
                               uint64_t *result) {
  if (!wait_eq(s, &v.r->seq, v.ticket + 2)) return XSHMEM_ERR_TIMEOUT;
  const int st = static_cast<int>(static_cast<int64_t>(v.r->remote));
  if (result != nullptr) *result = v.r->arg[3];
  atomic::store_release(&v.r->seq, v.ticket + cs->slots);
  return st;
}

XSHMEM_HD_INLINE void header(request_t *r, uint8_t op, uint8_t flags, int pe) {
  r->op = op;
  r->flags = flags;
  r->sub = 0;
  r->type = 0;
  r->pe = pe;
}

XSHMEM_HD_INLINE bool amo_fetches(int op) {
  return op == XSHMEM_AMO_FETCH || op == XSHMEM_AMO_SWAP || op == XSHMEM_AMO_COMPARE_SWAP ||
         op == XSHMEM_AMO_FETCH_ADD || op == XSHMEM_AMO_FETCH_AND || op == XSHMEM_AMO_FETCH_OR ||
         op == XSHMEM_AMO_FETCH_XOR;
}

}  // namespace detail

// ---- the producer API ----
// Each call enqueues on the channel of (ctx, calling thread) and returns XSHMEM_SUCCESS, or
// XSHMEM_ERR_TIMEOUT when a wait passed the state's deadline, or the transport's status for the
// calls that wait for an answer. `remote` is the target location's heap offset (heap_offset of
// the symmetric address); `pe` a world PE. Local buffers are addresses the serving transport can
// read and write (inside the heap, or registered).

namespace detail {
// Whether a GPU thread's buffer is one the proxy thread cannot reach: the thread's __shared__ or
// local memory (a stack array). Its data then rides inside the requests, kInlineBytes at a time.
XSHMEM_HD_INLINE bool unreachable_buffer(const void *p) {
#if defined(__CUDA_ARCH__)
  return !__isGlobal(p);
#else
  (void)p;
  return false;
#endif
}
// One put of up to kInlineBytes, its data inside the request.
XSHMEM_HD_INLINE int put_in_slot(const state_t &s, channels_t *cs, int32_t ctx, int pe,
                                 uint64_t remote, const void *src, size_t nbytes) {
  reservation v;
  if (!reserve(s, cs, pick_channel(cs, ctx), &v)) return XSHMEM_ERR_TIMEOUT;
  v.r->remote = remote;
  v.r->size = nbytes;
  header(v.r, kReqPut, kReqInline, pe);
  memcpy(v.r->arg, src, nbytes);
  publish(v);
  return XSHMEM_SUCCESS;
}
// A put from a buffer of any size as in-slot pieces (unreachable_buffer sources).
XSHMEM_HD_INLINE int put_in_slots(const state_t &s, channels_t *cs, int32_t ctx, int pe,
                                  uint64_t remote, const void *src, size_t nbytes) {
  const unsigned char *p = static_cast<const unsigned char *>(src);
  for (size_t done = 0; done < nbytes; done += kInlineBytes) {
    const size_t n = nbytes - done < kInlineBytes ? nbytes - done : kInlineBytes;
    if (const int st = put_in_slot(s, cs, ctx, pe, remote + done, p + done, n)) return st;
  }
  return XSHMEM_SUCCESS;
}
// One blocking get of up to kInlineBytes that lands in the request; the producer copies it out.
XSHMEM_HD_INLINE int get_in_slot(const state_t &s, channels_t *cs, int32_t ctx, int pe, void *dst,
                                 uint64_t remote, size_t nbytes) {
  reservation v;
  if (!reserve(s, cs, pick_channel(cs, ctx), &v)) return XSHMEM_ERR_TIMEOUT;
  header(v.r, kReqGet, kReqAck | kReqInline, pe);
  v.r->remote = remote;
  v.r->size = nbytes;
  v.r->arg[0] = reinterpret_cast<uintptr_t>(dst);
  publish(v);
  if (!wait_eq(s, &v.r->seq, v.ticket + 2)) return XSHMEM_ERR_TIMEOUT;
  const int st = static_cast<int>(static_cast<int64_t>(v.r->remote));
  const volatile unsigned char *from = reinterpret_cast<const volatile unsigned char *>(v.r->arg);
  unsigned char *to = static_cast<unsigned char *>(dst);
  for (size_t i = 0; i < nbytes; ++i) to[i] = from[i];
  atomic::store_release(&v.r->seq, v.ticket + cs->slots);
  return st;
}
}  // namespace detail

// Put. nbi == false: on return the source may be reused (up to kInlineBytes travel inside the
// request; a larger put waits until the transport has taken the data). nbi == true: the source
// must stay unchanged until the next quiet of the channel. Large puts are one request, except
// from a GPU thread's __shared__ or local memory, which the proxy cannot read: that data travels
// in the requests, kInlineBytes each (nbi or not, the source may be reused on return).
XSHMEM_HD_INLINE int put(const state_t &s, channels_t *cs, int32_t ctx, int pe, uint64_t remote,
                         const void *src, size_t nbytes, bool nbi = false) {
  if (nbytes <= kInlineBytes) return detail::put_in_slot(s, cs, ctx, pe, remote, src, nbytes);
  if (detail::unreachable_buffer(src))
    return detail::put_in_slots(s, cs, ctx, pe, remote, src, nbytes);
  detail::reservation v;
  if (!detail::reserve(s, cs, pick_channel(cs, ctx), &v)) return XSHMEM_ERR_TIMEOUT;
  request_t *r = v.r;
  r->remote = remote;
  r->size = nbytes;
  detail::header(r, kReqPut, nbi ? kReqNbi : kReqAck, pe);
  r->arg[0] = reinterpret_cast<uintptr_t>(src);
  detail::publish(v);
  return nbi ? XSHMEM_SUCCESS : detail::await_ack(s, cs, v, nullptr);
}

// Get. nbi == false: on return dst holds the data. nbi == true: it does by the next quiet.
// A blocking get of up to kInlineBytes lands in the request itself (kReqInline) and the producer
// copies it to dst, so dst may be memory the proxy cannot write (a GPU thread's local variable);
// a get of any size into a GPU thread's __shared__ or local memory is made of such pieces (and
// is complete on return, nbi or not).
XSHMEM_HD_INLINE int get(const state_t &s, channels_t *cs, int32_t ctx, int pe, void *dst,
                         uint64_t remote, size_t nbytes, bool nbi = false) {
  if ((!nbi && nbytes <= kInlineBytes) || detail::unreachable_buffer(dst)) {
    unsigned char *to = static_cast<unsigned char *>(dst);
    size_t done = 0;
    do {
      const size_t n = nbytes - done < kInlineBytes ? nbytes - done : kInlineBytes;
      if (const int st = detail::get_in_slot(s, cs, ctx, pe, to + done, remote + done, n))
        return st;
      done += n;
    } while (done < nbytes);
    return XSHMEM_SUCCESS;
  }
  detail::reservation v;
  if (!detail::reserve(s, cs, pick_channel(cs, ctx), &v)) return XSHMEM_ERR_TIMEOUT;
  detail::header(v.r, kReqGet, nbi ? kReqNbi : kReqAck, pe);
  v.r->remote = remote;
  v.r->size = nbytes;
  v.r->arg[0] = reinterpret_cast<uintptr_t>(dst);
  detail::publish(v);
  if (nbi) return XSHMEM_SUCCESS;
  return detail::await_ack(s, cs, v, nullptr);
}

// Atomic `op` (xshmem_amo_op_t) of type `type` (xshmem_amo_type_t: 4- and 8-byte integers,
// float and double for fetch/set/swap) on the word at `remote`. Operands are bit patterns,
// zero-extended to 64 bits. A fetching op waits and writes the old value to *fetched (may be
// NULL); the others return once enqueued and complete by the channel's quiet.
XSHMEM_HD_INLINE int amo(const state_t &s, channels_t *cs, int32_t ctx, int pe, uint64_t remote,
                         int op, int type, uint64_t operand, uint64_t compare, uint64_t *fetched) {
  detail::reservation v;
  if (!detail::reserve(s, cs, pick_channel(cs, ctx), &v)) return XSHMEM_ERR_TIMEOUT;
  const bool fetch = detail::amo_fetches(op);
  detail::header(v.r, kReqAmo, fetch ? kReqAck : kReqNbi, pe);
  v.r->sub = static_cast<uint8_t>(op);
  v.r->type = static_cast<uint8_t>(type);
  v.r->remote = remote;
  v.r->size = (type == XSHMEM_AMO_U64 || type == XSHMEM_AMO_I64 || type == XSHMEM_AMO_F64) ? 8 : 4;
  v.r->arg[0] = operand;
  v.r->arg[1] = compare;
  detail::publish(v);
  if (!fetch) return XSHMEM_SUCCESS;
  uint64_t old = 0;
  const int st = detail::await_ack(s, cs, v, &old);
  if (fetched != nullptr) *fetched = old;
  return st;
}

// Fence on the channel of (ctx, calling thread): its earlier puts, atomics and signals to each
// target are delivered before its later ones.
XSHMEM_HD_INLINE int fence_channel(const state_t &s, channels_t *cs, uint32_t c) {
  detail::reservation v;
  if (!detail::reserve(s, cs, c, &v)) return XSHMEM_ERR_TIMEOUT;
  detail::header(v.r, kReqFence, 0, -1);
  detail::publish(v);
  return XSHMEM_SUCCESS;
}
XSHMEM_HD_INLINE int fence(const state_t &s, channels_t *cs, int32_t ctx) {
  return fence_channel(s, cs, pick_channel(cs, ctx));
}

namespace detail {
// Whether put_signal's data rides in the requests: from a GPU thread, a source the proxy cannot
// read (unreachable_buffer) or one of at most kInlineBytes, which the thread copies into the slot
// for less than the proxy's device-to-host copy of it would cost (a copy and a wait per
// put_signal; where processes share a GPU, a time slice each). Host sources never: the proxy
// reads them in place.
XSHMEM_HD_INLINE bool signal_data_in_slots(const void *src, size_t nbytes) {
#if defined(__CUDA_ARCH__)
  return nbytes != 0 && (nbytes <= kInlineBytes || unreachable_buffer(src));
#else
  (void)src;
  (void)nbytes;
  return false;
#endif
}
}  // namespace detail

// Put, then the 64-bit signal at `signal_remote` updated with sig_op (XSHMEM_SIGNAL_SET / _ADD):
// a PE that sees the signal sees the data. nbi as for put (from a GPU thread, the data rides in
// the requests when detail::signal_data_in_slots says so: the source may be reused on return).
XSHMEM_HD_INLINE int put_signal(const state_t &s, channels_t *cs, int32_t ctx, int pe,
                                uint64_t remote, const void *src, size_t nbytes,
                                uint64_t signal_remote, uint64_t signal, int sig_op,
                                bool nbi = false) {
  if (detail::signal_data_in_slots(src, nbytes)) {
    // The data in the requests, a fence, the signal.
    if (const int st = detail::put_in_slots(s, cs, ctx, pe, remote, src, nbytes)) return st;
    if (const int st = fence(s, cs, ctx)) return st;
    return amo(s, cs, ctx, pe, signal_remote,
               sig_op == kSignalAdd ? XSHMEM_AMO_ADD : XSHMEM_AMO_SET, XSHMEM_AMO_U64, signal, 0,
               nullptr);
  }
  detail::reservation v;
  if (!detail::reserve(s, cs, pick_channel(cs, ctx), &v)) return XSHMEM_ERR_TIMEOUT;
  detail::header(v.r, kReqPutSignal, nbi ? kReqNbi : kReqAck, pe);
  v.r->sub = static_cast<uint8_t>(sig_op);
  v.r->remote = remote;
  v.r->size = nbytes;
  v.r->arg[0] = reinterpret_cast<uintptr_t>(src);
  v.r->arg[1] = signal_remote;
  v.r->arg[2] = signal;
  detail::publish(v);
  return nbi ? XSHMEM_SUCCESS : detail::await_ack(s, cs, v, nullptr);
}

// Quiet of channel `c`: returns once every request issued on it before this call has completed
// at its target.
XSHMEM_HD_INLINE int quiet_channel(const state_t &s, channels_t *cs, uint32_t c) {
  detail::reservation v;
  if (!detail::reserve(s, cs, c, &v)) return XSHMEM_ERR_TIMEOUT;
  detail::header(v.r, kReqQuiet, 0, -1);
  detail::publish(v);
  // The quiet request itself is ticket v.ticket: completed > ticket covers it and, since the
  // proxy executes a channel in order, everything before it.
  return detail::wait_ge(s, &channel(cs, c)->completed, v.ticket + 1) ? XSHMEM_SUCCESS
                                                                      : XSHMEM_ERR_TIMEOUT;
}

// Quiet of the channel of (ctx, calling thread).
XSHMEM_HD_INLINE int quiet(const state_t &s, channels_t *cs, int32_t ctx) {
  return quiet_channel(s, cs, pick_channel(cs, ctx));
}

// Quiet of every channel (host xshmem_quiet, barriers: everything this PE issued).
XSHMEM_HD_INLINE int quiet_all(const state_t &s, channels_t *cs) {
  for (uint32_t c = 0; c < cs->num; ++c) {
    const int st = quiet_channel(s, cs, c);
    if (st != XSHMEM_SUCCESS) return st;
  }
  return XSHMEM_SUCCESS;
}

}  // namespace xshmem::dev::proxy::ring

#endif  // XSHMEM_DEVICE_PROXY_RING_H

// xshmem device API: team reductions ({and,or,xor,max,min,sum,prod}_reduce; sum and prod of the
// complex types too) and scans (sum_inscan, sum_exscan), written once for host and device.
//
// Compiled for the host they are the host API on host heaps (hostshm); compiled by nvcc they are
// the device API, for one thread (reduce_thread_group), a warp or a block (group.h): every
// thread of the group calls with identical arguments, one group per member at a time.
//
// Every element is combined in team order, member 0 first, on every algorithm: all members get
// bit-identical results (floating point included), and so do the algorithms among themselves.
// Integer sums and products wrap around (computed on the unsigned type of the same size).
//
// Two algorithms (XSHMEM_COLL_REDUCE_ALGO, state_t::coll_reduce_algo):
// - direct: each member pushes its source, chunk by chunk, into the team scratch of every other
//   member and signals it; each member combines what arrived in team order. One signal per peer
//   and chunk, no barrier: the chunks alternate between two halves of the scratch by step parity,
//   and a member that receives a peer's step s knows the peer has finished reading step s - 1
//   (it pushes step s only then), so the half of step s + 1 is free. Latency-bound sizes.
// - rsag: reduce-scatter + allgather over load/store access: after a team sync every member pulls
//   its 1/n of the elements from every member's source (16-byte loads, several in flight per
//   thread), combines them into its own dest, syncs, then pulls the other members' finished
//   slices from their dest; a last sync keeps every dest and source in use until all are done.
//   Each member moves 2 (n-1)/n of the data whatever n is; needs LSA peers. Large sizes.
// auto: direct up to kAutoDirectChunks chunks (and teams of at most kDirectMaxMembers), rsag above.
// Scans under rsag pull every lower member's source; in place, a member must not overwrite its
// source while higher members read it, so the results go through the local scratch a chunk at a
// time, with a team sync before each chunk is copied out.
//
// Resources of a team slot used here (none outside the collective): coll_signal[32..63] (63 is
// this member's step counter, written only locally; 32 + k is the arrival flag of member k) and
// the upper half of coll_scratch (two parity halves of kHalfBytes). The rest of the slot is left
// to the other collectives, so a fast member that starts another kind of collective never writes
// into what a slow member is still reading.
#ifndef XSHMEM_DEVICE_COLL_REDUCE_H
#define XSHMEM_DEVICE_COLL_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include <xshmem/device/atomic.h>
#include <xshmem/device/group.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/p2p.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>
#include <xshmem/device/team.h>
#include <xshmem/types.h>

namespace xshmem::dev {

// Operations (also the op code of the host API's kernel on GPU heaps).
enum reduce_op : int {
  kRedAnd = 0,
  kRedOr,
  kRedXor,
  kRedMax,
  kRedMin,
  kRedSum,
  kRedProd,
  kScanIn,  // sum_inscan: member i gets the sum over members 0..i
  kScanEx,  // sum_exscan: over members 0..i-1 (0 on member 0)
};

// Values of state_t::coll_reduce_algo (XSHMEM_COLL_REDUCE_ALGO).
enum reduce_algo : int { kReduceAuto = 0, kReduceDirect = 1, kReduceRsag = 2 };

// The group of one thread (group.h): the plain (thread-scope) form, and every host call.
using reduce_thread_group = thread_group;

// The element of the complex reductions (complexd, complexf): C's layout of double _Complex and
// float _Complex (real part, then imaginary part), so the public arrays are folded in place.
// Sums add the parts; products are the textbook (ac - bd, ad + bc), each product rounded on its
// own, never fused into a multiply-add (the GPU's __fmul_rn; on the host a volatile, since
// gnu++ builds contract a * b - c * d wherever the CPU has FMA), so members computing on the host
// and on the GPU agree bit for bit.
template <typename F>
struct complex_t {
  F re, im;
};

namespace red {
XSHMEM_HD_INLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  volatile float p = a * b;
  return p;
#endif
}
XSHMEM_HD_INLINE double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  volatile double p = a * b;
  return p;
#endif
}
}  // namespace red

template <typename F>
XSHMEM_HD_INLINE complex_t<F> operator+(complex_t<F> a, complex_t<F> b) {
  return complex_t<F>{a.re + b.re, a.im + b.im};
}
template <typename F>
XSHMEM_HD_INLINE complex_t<F> operator*(complex_t<F> a, complex_t<F> b) {
  return complex_t<F>{red::mul_rn(a.re, b.re) - red::mul_rn(a.im, b.im),
                      red::mul_rn(a.re, b.im) + red::mul_rn(a.im, b.re)};
}

// The public complex types (<xshmem/types.h>: C's _Complex) as complex_t, for the entry points.
template <typename C>
struct complex_of;
template <>
struct complex_of<xshmem_complexd_t> {
  using type = complex_t<double>;
};
template <>
struct complex_of<xshmem_complexf_t> {
  using type = complex_t<float>;
};
template <typename C>
XSHMEM_HD_INLINE typename complex_of<C>::type *as_complex(C *p) {
  using E = typename complex_of<C>::type;
  static_assert(sizeof(C) == sizeof(E) && alignof(C) == alignof(E),
                "the public complex type and complex_t differ in layout");
  return reinterpret_cast<E *>(p);
}
template <typename C>
XSHMEM_HD_INLINE const typename complex_of<C>::type *as_complex(const C *p) {
  return as_complex(const_cast<C *>(p));
}

// Full unrolling of the fixed-count loops below. GCC spells the pragma differently, and nvcc's
// host pass rejects both spellings (the host pass of nvcc gets none).
#if defined(__CUDA_ARCH__)
#define XSHMEM_RED_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define XSHMEM_RED_UNROLL
#else
#define XSHMEM_RED_UNROLL _Pragma("GCC unroll 8")
#endif

// fold and the algorithms are out of line on the GPU: inlined into a kernel that uses several
// reductions they would make one huge function, and ptxas time grows much faster than linearly
// with function size (the first version, every op and type inlined into the runtime's kernel,
// took 20 minutes to compile).
#if defined(__CUDACC__)
#define XSHMEM_RED_OUTLINE __host__ __device__ __noinline__
#else
#define XSHMEM_RED_OUTLINE inline
#endif

namespace red {

inline constexpr int kSignalBase = 32;                             // coll_signal[32 + member]
inline constexpr int kStepWord = 63;                               // coll_signal[63]
inline constexpr int kDirectMaxMembers = kStepWord - kSignalBase;  // 31 flags
inline constexpr size_t kScratchOffset = internal_region_t::kCollScratchBytes / 2;
inline constexpr size_t kHalfBytes = internal_region_t::kCollScratchBytes / 4;
inline constexpr size_t kAutoDirectChunks = 4;
// A member's arrival flag holds (step << kDigestBits) | digest: the digest of the argument key
// on the first step of a checked call (team_reduce_checked, team_keyed_sync), else 0. Steps count
// to 2^48 per team slot (years of back-to-back steps at 0.1 us each). The digest rides in the
// flag so that agreeing costs no cache line besides the ones the step moves anyway; 16 bits
// catch a difference in all but 1 of 65536 cases (coll_args.h then finds which argument).
inline constexpr int kDigestBits = 16;
XSHMEM_HD_INLINE uint64_t key_digest(uint64_t key) {
  key ^= key >> 32;
  key ^= key >> 16;
  return key & ((uint64_t{1} << kDigestBits) - 1);
}
// Units (16-byte vectors on the GPU, elements on the host) each thread has in flight per source.
inline constexpr int kUnroll = 8;

// The unsigned type integer sums and products wrap around in (at least unsigned int, so that
// nothing is promoted to a signed int first).
template <typename T>
using wrap_t =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <int Op, typename T>
XSHMEM_HD_INLINE T apply(T a, T b) {
  if constexpr (Op == kRedAnd) {
    return static_cast<T>(a & b);
  } else if constexpr (Op == kRedOr) {
    return static_cast<T>(a | b);
  } else if constexpr (Op == kRedXor) {
    return static_cast<T>(a ^ b);
  } else if constexpr (Op == kRedMax) {
    return a < b ? b : a;
  } else if constexpr (Op == kRedMin) {
    return b < a ? b : a;
  } else if constexpr (Op == kRedProd) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
    } else {
      return a * b;
    }
  } else {  // sum and the scans
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<wrap_t<T>>(a) + static_cast<wrap_t<T>>(b));
    } else {
      return a + b;
    }
  }
}

// E: T itself, or (GPU) a 16-byte vector of T.
template <typename T, int V>
struct alignas(16) vec_t {
  T e[V];
};
template <int Op, typename T>
XSHMEM_HD_INLINE T apply_unit(T a, T b) {
  return apply<Op>(a, b);
}
template <int Op, typename T, int V>
XSHMEM_HD_INLINE vec_t<T, V> apply_unit(vec_t<T, V> a, vec_t<T, V> b) {
  XSHMEM_RED_UNROLL
  for (int i = 0; i < V; ++i) a.e[i] = apply<Op>(a.e[i], b.e[i]);
  return a;
}

template <typename E>
XSHMEM_HD_INLINE E load_unit(const E *p) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(E) == 16 && alignof(E) == 16) {
    return __builtin_bit_cast(E, *reinterpret_cast<const uint4 *>(p));
  }
#endif
  return *p;
}

// Where a fold reads member k's elements: this member's own buffer, or (slices) member k's slice
// of the local team scratch, or (remote) member k's copy of a symmetric buffer through its
// load/store mapping (ptr: only rsag reads remotely, and only when every member is LSA,
// use_direct); `off` bytes further in every case.
struct sources {
  const state_t *s;
  const team_t *t;
  const unsigned char *own;
  const unsigned char *base;  // slices: the scratch half; remote: the symmetric address
  size_t slice;               // slices: bytes per member; 0: remote
  size_t off;
  XSHMEM_HD_INLINE const void *at(int k) const {
    if (k == t->my_index) return own + off;
    if (slice != 0) return base + static_cast<size_t>(k) * slice + off;
    return ptr(*s, base, team_world_pe(*t, k)) + off;
  }
  XSHMEM_HD_INLINE sources advanced(size_t bytes) const {
    sources r = *this;
    r.off += bytes;
    return r;
  }
};

// dst[u] = src(k0)[u] op src(k0 + 1)[u] op ... op src(k1 - 1)[u] for units u in [0, n), in that
// order; zero when k0 == k1. Thread `rank` of `size` takes units rank, rank + size, ...; each
// thread loads a unit from every source before storing it, so dst may be one of the sources.
template <int Op, typename E>
XSHMEM_HD_INLINE void fold_units(E *dst, const sources &src, int k0, int k1, size_t n,
                                 unsigned rank, unsigned size) {
  size_t u = rank;
  const size_t stride = size;
  if (k0 == k1) {
    for (; u < n; u += stride) dst[u] = E{};
    return;
  }
  for (; u + (kUnroll - 1) * stride < n; u += kUnroll * stride) {
    E acc[kUnroll];
    const E *p = static_cast<const E *>(src.at(k0));
    XSHMEM_RED_UNROLL
    for (int j = 0; j < kUnroll; ++j) acc[j] = load_unit(p + u + j * stride);
    for (int k = k0 + 1; k < k1; ++k) {
      const E *q = static_cast<const E *>(src.at(k));
      E w[kUnroll];
      XSHMEM_RED_UNROLL
      for (int j = 0; j < kUnroll; ++j) w[j] = load_unit(q + u + j * stride);
      XSHMEM_RED_UNROLL
      for (int j = 0; j < kUnroll; ++j) acc[j] = apply_unit<Op>(acc[j], w[j]);
    }
    XSHMEM_RED_UNROLL
    for (int j = 0; j < kUnroll; ++j) dst[u + j * stride] = acc[j];
  }
  for (; u < n; u += stride) {
    E acc = load_unit(static_cast<const E *>(src.at(k0)) + u);
    for (int k = k0 + 1; k < k1; ++k)
      acc = apply_unit<Op>(acc, load_unit(static_cast<const E *>(src.at(k)) + u));
    dst[u] = acc;
  }
}

// Elements [0, count) of dst (a T array) from the sources k in [k0, k1). On the GPU, 16-byte
// vectors when dst and every source are 16-byte aligned; element by element for a misaligned
// head or tail. The one function instantiated per operation and type: the algorithms below are
// written once, in bytes, and reach it through a pointer (fold_fn), so a kernel that uses many
// reductions, or the runtime's kernel that serves all of them, compiles each algorithm once.
template <int Op, typename T>
XSHMEM_RED_OUTLINE void fold(void *dst_v, const sources &src, int k0, int k1, size_t count,
                             unsigned rank, unsigned size) {
  T *dst = static_cast<T *>(dst_v);
#if defined(__CUDA_ARCH__)
  if constexpr (16 % sizeof(T) == 0 && sizeof(T) <= 8) {
    constexpr int V = static_cast<int>(16 / sizeof(T));
    uintptr_t mis = reinterpret_cast<uintptr_t>(dst) & 15;
    for (int k = k0; k < k1; ++k) mis |= reinterpret_cast<uintptr_t>(src.at(k)) & 15;
    if (mis == 0 && count >= static_cast<size_t>(V)) {
      const size_t units = count / V;
      fold_units<Op>(reinterpret_cast<vec_t<T, V> *>(dst), src, k0, k1, units, rank, size);
      const size_t done = units * V;
      fold_units<Op>(dst + done, src.advanced(done * sizeof(T)), k0, k1, count - done, rank, size);
      return;
    }
  }
#endif
  fold_units<Op>(dst, src, k0, k1, count, rank, size);
}

using fold_fn = void (*)(void *dst, const sources &src, int k0, int k1, size_t count, unsigned rank,
                         unsigned size);

// What the algorithms need to know of the element type and the operation.
struct kind {
  int op;          // reduce_op
  size_t esize;    // bytes per element
  fold_fn fold;    // folds elements of esize / scale bytes
  unsigned scale;  // fold elements per element: esize for bitwise ops (they fold bytes), else 1
};

// Copies bytes to symmetric `dest` at `pe` with the group (no group barrier at the end), through
// the RMA dispatcher: blocking, since the direct algorithm's signal that follows skips its own
// fence (the members fenced).
template <typename G>
XSHMEM_HD_INLINE void group_put(const state_t &s, void *dest, const void *source, size_t bytes,
                                int pe) {
  putmem_path<G>(s, kCtxDefault, dest, source, bytes, pe, /*nbi=*/false);
}

// Local copy by the group (dest != source; both on this PE).
template <typename G>
XSHMEM_HD_INLINE void group_copy(void *dest, const void *source, size_t bytes) {
  lsa::group_copy<G>(dest, source, bytes);
}

template <typename G>
XSHMEM_HD_INLINE void group_team_sync(const state_t &s, const team_t &t) {
  G::sync();
  if (G::rank() == 0) team_sync(s, t, wait_site{kWaitCollective});
  G::sync();
}

// Bytes of each member's slice of a scratch half under direct (a multiple of 16).
XSHMEM_HD_INLINE size_t direct_slice(const team_t &t) {
  return (kHalfBytes / static_cast<size_t>(t.size)) & ~size_t{15};
}

// Whether op/algo/size pick the direct algorithm (the same answer on every member: it depends
// only on arguments every member passes alike, and on the configuration).
XSHMEM_HD_INLINE bool use_direct(const state_t &s, const team_t &t, size_t nreduce, size_t esize) {
  if (t.size > kDirectMaxMembers) return false;
  const size_t slice = direct_slice(t);
  if (slice < esize || slice < 64) return false;
  if (s.coll_reduce_algo == kReduceDirect) return true;
  if (s.coll_reduce_algo == kReduceAuto && nreduce * esize <= kAutoDirectChunks * slice)
    return true;
  // rsag needs every member load/store reachable; direct serves any path.
  for (int i = 0; i < t.size; ++i)
    if (i != t.my_index && !lsa_reachable(s, team_world_pe(t, i))) return true;
  return false;
}

// The members whose sources member `me` combines: [k0, k1).
XSHMEM_HD_INLINE void member_range(int op, int me, int n, int *k0, int *k1) {
  *k0 = 0;
  *k1 = op == kScanIn ? me + 1 : (op == kScanEx ? me : n);
}

// `key` (checked host calls, else nullptr): the first step also carries this member's argument
// key to every other member, and runs even when nreduce is 0 (then with no data). Returns false,
// on every member alike, when the keys of the members differ: each member holds every key after
// the step, so each sees a key unlike its own. Nothing is folded then, and no further step runs.
template <typename G>
XSHMEM_RED_OUTLINE bool direct(const state_t &s, const team_t &t, const kind &kd, void *dest_v,
                               const void *source_v, size_t nreduce,
                               const uint64_t *key = nullptr) {
  unsigned char *dest = static_cast<unsigned char *>(dest_v);
  const unsigned char *source = static_cast<const unsigned char *>(source_v);
  team_sync_t &area = team_area(s, t);
  uint64_t *flags = &area.coll_signal[kSignalBase];
  uint64_t *step_word = &area.coll_signal[kStepWord];
  unsigned char *scratch = s.internal->coll_scratch[t.slot] + kScratchOffset;
  const int n = t.size, me = t.my_index;
  const bool scan = kd.op == kScanIn || kd.op == kScanEx;
  const size_t slice = direct_slice(t);
  const size_t chunk = slice / kd.esize;
  int k0, k1;
  member_range(kd.op, me, n, &k0, &k1);
  uint64_t step = atomic::load(step_word);
  G::sync();  // every thread has read the step before the first thread advances it
  bool agreed = true;
  for (size_t off = 0, first = 1; off < nreduce || (key != nullptr && first); off += chunk) {
    ++step;
    const size_t cnt = nreduce - off < chunk ? nreduce - off : chunk;
    const size_t boff = off * kd.esize;
    unsigned char *half = scratch + (step & 1) * kHalfBytes;
    const bool keyed = key != nullptr && first;
    first = 0;
    // My chunk into my slice of every other member's half. A scan's lower members only need the
    // signal (they do not combine my data), which still tells them I am done with step - 1.
    for (int d = 1; d < n; ++d) {
      const int j = (me + d) % n;
      if (cnt != 0 && (!scan || j > me))
        group_put<G>(s, half + static_cast<size_t>(me) * slice, source + boff, cnt * kd.esize,
                     team_world_pe(t, j));
    }
    atomic::fence();
    G::sync();
    if (G::rank() == 0) {
      for (int d = 1; d < n; ++d) {
        const int j = (me + d) % n;
        signal_op(s, &flags[me], step << kDigestBits | (keyed ? key_digest(*key) : 0), kSignalSet,
                  team_world_pe(t, j), /*fenced=*/true);
      }
      for (int d = 1; d < n; ++d) {
        const int j = (me + d) % n;
        wait_until(s, wait_site{kWaitCollective}, &flags[j], kCmpGe, step << kDigestBits,
                   team_world_pe(t, j));
      }
    }
    G::sync();
    if (keyed) {
      // A flag already past this step means its member went on, so it found every digest equal
      // to its own (mine included); a member that found a difference stops at this step.
      for (int j = 0; j < n; ++j) {
        const uint64_t v = j == me ? 0 : atomic::load(&flags[j]);
        if (j != me && v >> kDigestBits == step &&
            (v & ((uint64_t{1} << kDigestBits) - 1)) != key_digest(*key))
          agreed = false;
      }
      if (!agreed) break;
    }
    const sources src{&s, &t, source + boff, half, slice, 0};
    if (cnt != 0) kd.fold(dest + boff, src, k0, k1, cnt * kd.scale, G::rank(), G::size());
    // Every thread is done with this half before the next step's signal lets a peer refill it.
    G::sync();
  }
  if (G::rank() == 0) atomic::store(step_word, step);
  G::sync();
  return agreed;
}

// The slice [lo, hi) of nreduce elements that member k reduces under rsag: whole 16-byte units,
// so that each stays as aligned as the buffers.
XSHMEM_HD_INLINE void rsag_slice(int k, int n, size_t nreduce, size_t esize, size_t *lo,
                                 size_t *hi) {
  const size_t align = esize < 16 ? 16 / esize : 1;
  size_t per = (nreduce + static_cast<size_t>(n) - 1) / static_cast<size_t>(n);
  per = (per + align - 1) / align * align;
  const size_t a = per * static_cast<size_t>(k), b = a + per;
  *lo = a < nreduce ? a : nreduce;
  *hi = b < nreduce ? b : nreduce;
}

// Phase 1 of rsag for a reduction (not a scan), by the threads of G: dest's slice of this member,
// from every member's source. Every member's source must be ready (a team sync before); the
// callers sync the team after.
template <typename G>
XSHMEM_HD_INLINE void rsag_reduce_phase(const state_t &s, const team_t &t, const kind &kd,
                                        void *dest, const void *source, size_t nreduce) {
  size_t lo, hi;
  rsag_slice(t.my_index, t.size, nreduce, kd.esize, &lo, &hi);
  if (hi <= lo) return;
  const unsigned char *c = static_cast<const unsigned char *>(source);
  const sources src{&s, &t, c, c, 0, lo * kd.esize};
  kd.fold(static_cast<unsigned char *>(dest) + lo * kd.esize, src, 0, t.size, (hi - lo) * kd.scale,
          G::rank(), G::size());
}

// Phase 2: the other members' finished slices into dest (gets through the RMA dispatcher), by
// the threads of G.
template <typename G>
XSHMEM_HD_INLINE void rsag_gather_phase(const state_t &s, const team_t &t, const kind &kd,
                                        void *dest, size_t nreduce) {
  unsigned char *d = static_cast<unsigned char *>(dest);
  for (int dd = 1; dd < t.size; ++dd) {
    const int k = (t.my_index + dd) % t.size;
    size_t lo, hi;
    rsag_slice(k, t.size, nreduce, kd.esize, &lo, &hi);
    if (hi <= lo) continue;
    getmem_path<G>(s, kCtxDefault, d + lo * kd.esize, d + lo * kd.esize, (hi - lo) * kd.esize,
                   team_world_pe(t, k), /*nbi=*/false);
  }
}

template <typename G>
XSHMEM_RED_OUTLINE void rsag(const state_t &s, const team_t &t, const kind &kd, void *dest,
                             const void *source, size_t nreduce) {
  group_team_sync<G>(s, t);  // every member's source is ready
  if (kd.op == kScanIn || kd.op == kScanEx) {
    int k0, k1;
    member_range(kd.op, t.my_index, t.size, &k0, &k1);
    const unsigned char *c = static_cast<const unsigned char *>(source);
    unsigned char *d = static_cast<unsigned char *>(dest);
    if (dest != source) {
      const sources src{&s, &t, c, c, 0, 0};
      kd.fold(dest, src, k0, k1, nreduce * kd.scale, G::rank(), G::size());
    } else {
      // In place: higher members still read my source, so the results go through the scratch.
      unsigned char *tmp = s.internal->coll_scratch[t.slot] + kScratchOffset;
      const size_t chunk = 2 * kHalfBytes / kd.esize;
      for (size_t off = 0; off < nreduce; off += chunk) {
        const size_t cnt = nreduce - off < chunk ? nreduce - off : chunk;
        const sources src{&s, &t, c, c, 0, off * kd.esize};
        kd.fold(tmp, src, k0, k1, cnt * kd.scale, G::rank(), G::size());
        group_team_sync<G>(s, t);  // every member has read this chunk of every source
        group_copy<G>(d + off * kd.esize, tmp, cnt * kd.esize);
        G::sync();
      }
    }
  } else {
    rsag_reduce_phase<G>(s, t, kd, dest, source, nreduce);
    group_team_sync<G>(s, t);  // every slice is final
    rsag_gather_phase<G>(s, t, kd, dest, nreduce);
  }
  group_team_sync<G>(s, t);  // nobody reads my source or dest any more
}

// Size-1 teams: a copy (or zeros for an exclusive scan).
template <typename G>
XSHMEM_HD_INLINE void alone(const kind &kd, void *dest, const void *source, size_t nreduce) {
  if (kd.op == kScanEx) {
    unsigned char *d = static_cast<unsigned char *>(dest);
    const size_t bytes = nreduce * kd.esize;
    for (size_t i = G::rank(); i < bytes; i += G::size()) d[i] = 0;
  } else if (dest != source) {
    group_copy<G>(dest, source, nreduce * kd.esize);
  }
  G::sync();
}

}  // namespace red

// The reduction (or scan) kd.op over team t of nreduce elements: dest[i] = op over members of
// source[i]. Called by every thread of group G on every member, identical arguments; dest and
// source are the same address on every member, either equal (in place) or disjoint. Returns 0,
// or -1 when this PE is not a member of t.
template <typename G>
XSHMEM_HD_INLINE int team_reduce_kind(const state_t &s, const team_t &t, const red::kind &kd,
                                      void *dest, const void *source, size_t nreduce) {
  if (!team_member(t)) return -1;
  if (nreduce == 0) return 0;
  if (t.size == 1) {
    red::alone<G>(kd, dest, source, nreduce);
  } else if (red::use_direct(s, t, nreduce, kd.esize)) {
    red::direct<G>(s, t, kd, dest, source, nreduce);
  } else {
    red::rsag<G>(s, t, kd, dest, source, nreduce);
  }
  return 0;
}

namespace red {
// The fold serving Op on T. Scans combine like sums (what differs is which members, decided by
// the algorithms). Bitwise operations do not care where the element boundaries are, so every
// bitwise type folds as bytes: one fold per operation instead of one per type.
template <int Op, typename T>
XSHMEM_HD_INLINE kind make_kind() {
  if constexpr (Op == kRedAnd || Op == kRedOr || Op == kRedXor) {
    return kind{Op, sizeof(T), &fold<Op, uint8_t>, sizeof(T)};
  } else if constexpr (Op == kScanIn || Op == kScanEx) {
    return kind{Op, sizeof(T), &fold<kRedSum, T>, 1};
  } else {
    return kind{Op, sizeof(T), &fold<Op, T>, 1};
  }
}
}  // namespace red

template <typename G, int Op, typename T>
XSHMEM_HD_INLINE int team_reduce(const state_t &s, const team_t &t, T *dest, const T *source,
                                 size_t nreduce) {
  return team_reduce_kind<G>(s, t, red::make_kind<Op, T>(), dest, source, nreduce);
}

// Checked host calls (checks.h) agree on their arguments through a keyed step of the direct
// algorithm: each member stores the key of its arguments into every other member's key word and
// signals it, then compares the keys it received with its own; every member holds every key
// after the step, so all of them see a difference or none does. It is also a team sync (every
// member signals every other). Every checked collective of a team whose size allows it
// (teams_carry_keys) makes this step its first synchronisation, whatever the family and the
// algorithm: the reductions' first chunk, the exit barrier (or the entry sync) of the data
// movement, and the agreement rounds of the host (team::args_agree). So members that disagree,
// even on which collective they are in, meet in the same step. Larger teams (and GPU heaps, whose
// collectives run in kernels) agree with a separate one-word allreduce (team::args_agree).
XSHMEM_HD_INLINE bool teams_carry_keys(const team_t &t) {
  return t.size > 1 && t.size <= red::kDirectMaxMembers;
}

// The keyed step alone (no data), by one thread: true when every member of t passed `key`.
// `fenced`: the caller fenced (or quieted) right before, so the step's own fence is skipped.
// It is red::direct's keyed first step with no data (the same flags, step word and digest, so a
// member here and a member in a checked reduction meet in it), written out without the data
// path's slices and divisions: the checked exit barrier of a small broadcast or alltoall costs
// what the unchecked one does.
XSHMEM_HD_INLINE bool team_keyed_sync(const state_t &s, const team_t &t, uint64_t key,
                                      bool fenced = false) {
  const int n = t.size, me = t.my_index;
  if (n <= 1) return true;
  team_sync_t &area = team_area(s, t);
  uint64_t *flags = &area.coll_signal[red::kSignalBase];
  uint64_t *step_word = &area.coll_signal[red::kStepWord];
  const uint64_t step = atomic::load(step_word) + 1;
  const uint64_t digest = red::key_digest(key);
  if (!fenced) atomic::fence();
  for (int d = 1, j = me + 1; d < n; ++d, ++j) {
    if (j == n) j = 0;
    signal_op(s, &flags[me], step << red::kDigestBits | digest, kSignalSet, team_world_pe(t, j),
              /*fenced=*/true);
  }
  // A flag already past this step means its member went on, so it found every digest equal to
  // its own (mine included); a member that found a difference stops at this step.
  bool agreed = true;
  for (int d = 1, j = me + 1; d < n; ++d, ++j) {
    if (j == n) j = 0;
    const uint64_t v = wait_until(s, wait_site{kWaitCollective}, &flags[j], kCmpGe,
                                  step << red::kDigestBits, team_world_pe(t, j));
    if (v >> red::kDigestBits == step && (v & ((uint64_t{1} << red::kDigestBits) - 1)) != digest)
      agreed = false;
  }
  atomic::store(step_word, step);
  return agreed;
}

// team_reduce with checked arguments, for teams where teams_carry_keys: every member passes the
// key of its arguments (identical arguments, identical keys), and the reduction's first step
// carries it: the direct algorithm's first chunk, or a step of its own before rsag and when
// nreduce is 0. Any member's arguments may differ (nreduce included, so members may pick
// different algorithms): the keyed step comes first on each. Returns 0, -1 when this PE is not a
// member of t, 1 on every member when the keys differ (nothing reduced).
template <typename G, int Op, typename T>
XSHMEM_HD_INLINE int team_reduce_checked(const state_t &s, const team_t &t, T *dest,
                                         const T *source, size_t nreduce, uint64_t key) {
  if (!team_member(t)) return -1;
  const red::kind kd = red::make_kind<Op, T>();
  const bool by_direct = nreduce != 0 && red::use_direct(s, t, nreduce, kd.esize);
  if (!red::direct<G>(s, t, kd, dest, source, by_direct ? nreduce : 0, &key)) return 1;
  if (nreduce != 0 && !by_direct) red::rsag<G>(s, t, kd, dest, source, nreduce);
  return 0;
}

// Type codes of the host API's kernel on GPU heaps. Bitwise operations, sums, products and scans
// do not depend on signedness (two's complement), so they run on the unsigned type.
enum reduce_dtype : int {
  kDtU8 = 0,
  kDtU16,
  kDtU32,
  kDtU64,
  kDtI8,
  kDtI16,
  kDtI32,
  kDtI64,
  kDtF32,
  kDtF64,
  kDtC32,   // complexf (sum and prod only)
  kDtC64,   // complexd (sum and prod only)
  kDtNone,  // no GPU form (long double)
};

template <typename T>
constexpr int reduce_dtype_of() {
  if constexpr (std::is_same_v<T, float>) return kDtF32;
  if constexpr (std::is_same_v<T, double>) return kDtF64;
  if constexpr (std::is_same_v<T, complex_t<float>>) return kDtC32;
  if constexpr (std::is_same_v<T, complex_t<double>>) return kDtC64;
  if constexpr (std::is_integral_v<T>) {
    constexpr int base = std::is_signed_v<T> ? kDtI8 : kDtU8;
    return base + (sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3);
  }
  return kDtNone;
}

namespace red {
// Signed integers come here for max and min only (reduce_kind_of maps the rest to unsigned).
template <typename T>
XSHMEM_HD_INLINE bool kind_by_op(int op, kind *kd) {
  switch (op) {
    case kRedMax:
      *kd = make_kind<kRedMax, T>();
      return true;
    case kRedMin:
      *kd = make_kind<kRedMin, T>();
      return true;
    default:
      break;
  }
  if constexpr (!(std::is_integral_v<T> && std::is_signed_v<T>)) {
    switch (op) {
      case kRedSum:
        *kd = make_kind<kRedSum, T>();
        return true;
      case kRedProd:
        *kd = make_kind<kRedProd, T>();
        return true;
      case kScanIn:
        *kd = make_kind<kScanIn, T>();
        return true;
      case kScanEx:
        *kd = make_kind<kScanEx, T>();
        return true;
      default:
        break;
    }
  }
  if constexpr (std::is_integral_v<T> && !std::is_signed_v<T>) {
    switch (op) {
      case kRedAnd:
        *kd = make_kind<kRedAnd, T>();
        return true;
      case kRedOr:
        *kd = make_kind<kRedOr, T>();
        return true;
      case kRedXor:
        *kd = make_kind<kRedXor, T>();
        return true;
      default:
        break;
    }
  }
  return false;
}

// The complex types: sum and prod.
template <typename C>
XSHMEM_HD_INLINE bool complex_kind_by_op(int op, kind *kd) {
  switch (op) {
    case kRedSum:
      *kd = make_kind<kRedSum, C>();
      return true;
    case kRedProd:
      *kd = make_kind<kRedProd, C>();
      return true;
    default:
      return false;
  }
}
}  // namespace red

// The operation and element type of a type code (the GPU-heap kernels of the host API): signed
// types only for max and min, the rest on the unsigned type of the same size. False for a pair
// that does not exist.
XSHMEM_HD_INLINE bool reduce_kind_of(int op, int dtype, red::kind *kd) {
  const bool ordered = op == kRedMax || op == kRedMin;
  if (!ordered && dtype >= kDtI8 && dtype <= kDtI64) dtype -= kDtI8 - kDtU8;
  switch (dtype) {
    case kDtU8:
      return red::kind_by_op<uint8_t>(op, kd);
    case kDtU16:
      return red::kind_by_op<uint16_t>(op, kd);
    case kDtU32:
      return red::kind_by_op<uint32_t>(op, kd);
    case kDtU64:
      return red::kind_by_op<uint64_t>(op, kd);
    case kDtI8:
      return red::kind_by_op<int8_t>(op, kd);
    case kDtI16:
      return red::kind_by_op<int16_t>(op, kd);
    case kDtI32:
      return red::kind_by_op<int32_t>(op, kd);
    case kDtI64:
      return red::kind_by_op<int64_t>(op, kd);
    case kDtF32:
      return red::kind_by_op<float>(op, kd);
    case kDtF64:
      return red::kind_by_op<double>(op, kd);
    case kDtC32:
      return red::complex_kind_by_op<complex_t<float>>(op, kd);
    case kDtC64:
      return red::complex_kind_by_op<complex_t<double>>(op, kd);
    default:
      return false;
  }
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_COLL_REDUCE_H

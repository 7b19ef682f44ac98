// The deprecated active-set collectives of OpenSHMEM (shmem_barrier, shmem_sync with a pSync,
// shmem_broadcast32/64, collect, fcollect, alltoall, alltoalls, shmem_<type>_<op>_to_all).
//
// Only the PEs of the active set call, so nothing here may involve the rest of the world: an
// xshmem team cannot be made (a split is collective over its parent). The routines are written on
// the public RMA, atomic and wait calls instead, with the caller's pSync as the synchronisation
// words, as the specification intends; they work on every path and heap kind those calls serve.
//
// Synchronisation (sync below): a dissemination over the set, ceil(log2 size) rounds; in round
// k a member adds 1 to pSync[k] of the member 2^k after it, waits for its own pSync[k] to be at
// least 1 (the add of the member 2^k before it), then takes that 1 back with a fetching atomic
// (done when it returns). The words count arrivals rather than hold an epoch, and nothing ever
// resets them: in each sync every member adds one token to one word of each round and takes one
// from its own, so a word is back at SHMEM_SYNC_VALUE (0) once the sync is over on both of its
// members, and no late add can land on a word after a reset. A member cannot leave a sync that
// another member has not entered, so the member that adds to a word is at most one sync ahead of
// the one that takes from it: a member that runs ahead into the next call on the same pSync and
// set adds to a word its partner has not yet taken from (the word holds 2 for a while), and the
// partner takes one unit per sync.
//
// That gives the reuse rules of the specification: consecutive calls on one active set may share a
// pSync with no other synchronisation; a member returns with no token of the calls it finished
// left in its own pSync (only, at most, the token of a call a peer has already started); once
// every member has returned, the pSync is all SHMEM_SYNC_VALUE on every member, so after a
// barrier-like synchronisation it may serve another active set. PEs outside the set never touch
// it. Sets that overlap at the same time need their own pSync arrays, as the specification
// requires. A program must not read or rewrite a pSync while a member may already be in a
// collective that uses it: once a barrier releases the PEs, the first one out may start the next
// collective on that pSync and add its token to a member that is still looking at the words
// (every implementation signals through the peers' pSync); such a check needs a second barrier
// before the next use (tests/compat/compat_depr.c). Checked mode verifies on entry that this PE's
// words hold what the protocol allows (check_words), which catches most pSync arrays that were
// not initialised or that another active set uses at the same time.
//
// Every wait (a round's token, collect's offset) runs under XSHMEM_WAIT_TIMEOUT and is reported as
// the call waiting for a named member: "xshmem: shmem_barrier: pe 0 waited 1.0 s in round 0 for
// pe 1 (pSync[0] at 0x... >= 1, last seen 0); past XSHMEM_WAIT_TIMEOUT ...".
//
// Data moves are pushes into the peers' dest (the specification has dest ready on every member
// when the call starts), completed by quiet before the sync; reductions fetch every member's
// source after a first sync and reduce in member order, so every member gets bit-identical
// results (floating point), and write dest only after a second sync (source and dest may be the
// same array).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <pshmem.h>
#include <shmem.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "wait_deadline.h"

// Definitions of deprecated declarations: not uses.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace xc = xshmem::core;

namespace {

// pSync words: [0, kRounds) the sync rounds, kChain collect's running offset.
constexpr int kRounds = 32;
constexpr int kChain = 64;
static_assert(kChain < SHMEM_SYNC_SIZE && kRounds <= kChain);

struct ActiveSet {
  int start = 0, stride = 1, size = 0;
  int me = -1;  // this PE's index in the set
  int pe(int i) const { return start + i * stride; }
};

// The number of dissemination rounds of a set of `size` members: ceil(log2 size).
int rounds(int size) {
  int k = 0;
  while (k < kRounds && (int64_t{1} << k) < size) ++k;
  return k;
}

// Checked mode, on entry: this PE's pSync words that the call uses hold what the protocol allows.
// A round's word holds the tokens this PE has not taken yet, and its sender is at most one sync
// ahead (it cannot leave a sync this PE has not entered): 0 or 1. Collect's word is 0, except on
// entry to a collect where the previous member may have passed its offset already (positive).
// Anything else is a pSync that was not SHMEM_SYNC_VALUE on every member before its first call,
// that the program wrote while in use, or that another active set uses at the same time: the sync
// would return early, so stop here. (A stray 1 cannot be told from a token.)
void check_words(const char *call, const ActiveSet &s, const long *pSync, bool collect) {
  const int my = s.pe(s.me);
  const char *why =
      "pSync was not SHMEM_SYNC_VALUE on every member before the first call, or was written, or "
      "is used by another active set's collective at the same time";
  for (int k = 0; k < rounds(s.size); ++k) {
    const long v = xshmem_long_atomic_fetch(&pSync[k], my);
    if (v != 0 && v != 1)
      xc::check_fail(call, "pSync[%d] is %ld on entry, where 0 or 1 is possible: %s", k, v, why);
  }
  const bool offset_due = collect && s.me > 0;
  const long c = xshmem_long_atomic_fetch(&pSync[kChain], my);
  if (c < 0 || (c != 0 && !offset_due))
    xc::check_fail(call, "pSync[%d] is %ld on entry, where %s is possible: %s", kChain, c,
                   offset_due ? "0 or more" : "0", why);
}

// The active set of a call, checked: a set inside the world that holds this PE, a symmetric pSync
// in a state check_words allows. size 0 when the arguments are wrong and checks are off (the call
// then does nothing, and touches no pSync). `collect`: the call is a collect (pSync[kChain]).
ActiveSet active_set(const char *call, int PE_start, int logPE_stride, int PE_size,
                     const long *pSync, bool collect = false) {
  xc::check_init(call);
  const int n = xshmem_n_pes(), my = xshmem_my_pe();
  ActiveSet s;
  const char *bad = nullptr;
  if (PE_size < 1)
    bad = "PE_size is less than 1";
  else if (logPE_stride < 0 || logPE_stride > 30)
    bad = "logPE_stride is outside 0..30";
  else if (PE_start < 0 || PE_start >= n)
    bad = "PE_start is not a pe of the job";
  if (bad == nullptr) {
    s.start = PE_start;
    s.stride = 1 << logPE_stride;
    s.size = PE_size;
    const int64_t last = int64_t{PE_start} + int64_t{s.stride} * (PE_size - 1);
    const int d = my - PE_start;
    if (last >= n)
      bad = "the active set's last pe is not a pe of the job";
    else if (d < 0 || d % s.stride != 0 || d / s.stride >= PE_size)
      bad = "this pe is not in the active set (only its members may call)";
    else
      s.me = d / s.stride;
  }
  if (bad != nullptr) {
    if (xc::checks_enabled())
      xc::check_fail(call, "%s (PE_start %d, logPE_stride %d, PE_size %d)", bad, PE_start,
                     logPE_stride, PE_size);
    return ActiveSet{};
  }
  xc::check_symmetric(call, "pSync", pSync, sizeof(long) * SHMEM_SYNC_SIZE);
  if (xc::checks_enabled()) check_words(call, s, pSync, collect);
  return s;
}

// Every member arrives before any leaves; what this PE issued before (RMA, AMOs) is complete.
void sync(const char *call, const ActiveSet &s, long *pSync) {
  xshmem_quiet();
  const int my = s.pe(s.me);
  for (int k = 0; k < rounds(s.size); ++k) {
    const int64_t step = int64_t{1} << k;  // less than size
    const int to = static_cast<int>((s.me + step) % s.size);
    const int from = static_cast<int>((s.me + s.size - step) % s.size);
    xshmem_long_atomic_add(&pSync[k], 1, s.pe(to));
    // The token of `from` (if it is a sync ahead already, one of its two), taken back at once.
    xc::wait_psync(call, &pSync[k], XSHMEM_CMP_GE, 1, s.pe(from), k, k);
    xshmem_long_atomic_fetch_add(&pSync[k], -1, my);
  }
}

// Puts `bytes` at dest + dest_off of every other member (src local), then syncs.
void push_all(const char *call, const ActiveSet &s, void *dest, size_t dest_off, const void *src,
              size_t bytes, long *pSync) {
  if (bytes > 0) {
    // Start with the next member so members do not all write to member 0 first.
    for (int j = 1; j < s.size; ++j)
      xshmem_putmem(static_cast<char *>(dest) + dest_off, src, bytes, s.pe((s.me + j) % s.size));
  }
  sync(call, s, pSync);
}

void broadcast(const char *call, size_t width, void *dest, const void *source, size_t nelems,
               int PE_root, int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const ActiveSet s = active_set(call, PE_start, logPE_stride, PE_size, pSync);
  if (s.size == 0) return;
  if (PE_root < 0 || PE_root >= s.size) {
    if (xc::checks_enabled())
      xc::check_fail(call, "PE_root %d is not an index of the active set (size %d)", PE_root,
                     s.size);
    return;
  }
  const size_t bytes = nelems * width;
  xc::check_symmetric(call, "dest", dest, bytes);
  // The root's dest is not written (the specification of the active-set form).
  if (s.me == PE_root && bytes > 0) {
    for (int j = 1; j < s.size; ++j) xshmem_putmem(dest, source, bytes, s.pe((s.me + j) % s.size));
  }
  sync(call, s, pSync);
}

void fcollect(const char *call, size_t width, void *dest, const void *source, size_t nelems,
              int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const ActiveSet s = active_set(call, PE_start, logPE_stride, PE_size, pSync);
  if (s.size == 0) return;
  const size_t bytes = nelems * width;
  xc::check_symmetric(call, "dest", dest, bytes * s.size);
  if (bytes > 0) std::memmove(static_cast<char *>(dest) + bytes * s.me, source, bytes);
  push_all(call, s, dest, bytes * s.me, source, bytes, pSync);
}

// Variable sizes: this member's offset is the sum of the sizes before it, passed along the set
// (member i waits for i - 1's running sum in pSync[kChain], stored plus one so 0 is "not yet").
void collect(const char *call, size_t width, void *dest, const void *source, size_t nelems,
             int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const ActiveSet s = active_set(call, PE_start, logPE_stride, PE_size, pSync, true);
  if (s.size == 0) return;
  long offset = 0;
  if (s.me > 0) {
    xc::wait_psync(call, &pSync[kChain], XSHMEM_CMP_NE, 0, s.pe(s.me - 1), -1, kChain);
    offset = xshmem_long_atomic_swap(&pSync[kChain], 0, s.pe(s.me)) - 1;
  }
  if (s.me + 1 < s.size)
    xshmem_long_atomic_set(&pSync[kChain], offset + static_cast<long>(nelems) + 1, s.pe(s.me + 1));
  const size_t off = static_cast<size_t>(offset) * width, bytes = nelems * width;
  xc::check_symmetric(call, "dest", static_cast<char *>(dest) + off, bytes);
  if (bytes > 0) std::memmove(static_cast<char *>(dest) + off, source, bytes);
  push_all(call, s, dest, off, source, bytes, pSync);
}

void alltoall(const char *call, size_t width, void *dest, const void *source, size_t nelems,
              int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const ActiveSet s = active_set(call, PE_start, logPE_stride, PE_size, pSync);
  if (s.size == 0) return;
  const size_t bytes = nelems * width;
  xc::check_symmetric(call, "dest", dest, bytes * s.size);
  char *d = static_cast<char *>(dest);
  const char *src = static_cast<const char *>(source);
  if (bytes > 0) {
    std::memmove(d + bytes * s.me, src + bytes * s.me, bytes);
    for (int j = 1; j < s.size; ++j) {
      const int i = (s.me + j) % s.size;
      xshmem_putmem(d + bytes * s.me, src + bytes * i, bytes, s.pe(i));
    }
  }
  sync(call, s, pSync);
}

// Strided: element k of the block for member i is source[(i * nelems + k) * sst] here and lands at
// dest[(me * nelems + k) * dst] there (strides in elements).
void alltoalls(const char *call, size_t width, void *dest, const void *source, ptrdiff_t dst,
               ptrdiff_t sst, size_t nelems, int PE_start, int logPE_stride, int PE_size,
               long *pSync) {
  const ActiveSet s = active_set(call, PE_start, logPE_stride, PE_size, pSync);
  if (s.size == 0) return;
  char *d = static_cast<char *>(dest);
  const char *src = static_cast<const char *>(source);
  if (nelems > 0) {
    for (int j = 0; j < s.size; ++j) {
      const int i = (s.me + j) % s.size;
      char *to = d + static_cast<ptrdiff_t>(s.me * nelems) * dst * static_cast<ptrdiff_t>(width);
      const char *from =
          src + static_cast<ptrdiff_t>(i * nelems) * sst * static_cast<ptrdiff_t>(width);
      if (width == 4)
        xshmem_iput32(to, from, dst, sst, nelems, s.pe(i));
      else
        xshmem_iput64(to, from, dst, sst, nelems, s.pe(i));
    }
  }
  sync(call, s, pSync);
}

// The reductions' operators.
struct OpAnd {
  template <class T>
  T operator()(T a, T b) const {
    return a & b;
  }
};
struct OpOr {
  template <class T>
  T operator()(T a, T b) const {
    return a | b;
  }
};
struct OpXor {
  template <class T>
  T operator()(T a, T b) const {
    return a ^ b;
  }
};
struct OpMax {
  template <class T>
  T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};
struct OpMin {
  template <class T>
  T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct OpSum {
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};
struct OpProd {
  template <class T>
  T operator()(T a, T b) const {
    return a * b;
  }
};

// dest[k] = op over members (in member order) of source[k]. pWrk is not needed: the members'
// sources are fetched into private memory.
template <class T, class Op>
void to_all(const char *call, T *dest, const T *source, int nreduce, int PE_start, int logPE_stride,
            int PE_size, long *pSync) {
  const ActiveSet s = active_set(call, PE_start, logPE_stride, PE_size, pSync);
  if (s.size == 0) return;
  if (nreduce < 0) {
    if (xc::checks_enabled()) xc::check_fail(call, "nreduce %d is negative", nreduce);
    return;
  }
  const size_t n = static_cast<size_t>(nreduce), bytes = n * sizeof(T);
  xc::check_symmetric(call, "source", source, bytes);
  xc::check_symmetric(call, "dest", dest, bytes);
  sync(call, s, pSync);  // every member's source is ready
  std::vector<T> acc(n), part(n);
  for (int i = 0; i < s.size && n > 0; ++i) {
    T *into = i == 0 ? acc.data() : part.data();
    if (i == s.me)
      std::memcpy(into, source, bytes);
    else
      xshmem_getmem(into, source, bytes, s.pe(i));
    if (i > 0)
      for (size_t k = 0; k < n; ++k) acc[k] = Op()(acc[k], part[k]);
  }
  sync(call, s, pSync);  // every member has read every source: dest (perhaps source) may change
  if (n > 0) std::memcpy(dest, acc.data(), bytes);
}

}  // namespace

extern "C" {

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const ActiveSet s = active_set("shmem_barrier", PE_start, logPE_stride, PE_size, pSync);
  if (s.size > 0) sync("shmem_barrier", s, pSync);
}

// The same as shmem_barrier here: sync's quiet is more than shmem_sync needs, never less.
void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  const ActiveSet s = active_set("shmem_sync", PE_start, logPE_stride, PE_size, pSync);
  if (s.size > 0) sync("shmem_sync", s, pSync);
}

#define XSHMEMI_AS_MOVE(BITS)                                                                \
  void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,    \
                              int PE_start, int logPE_stride, int PE_size, long *pSync) {    \
    broadcast("shmem_broadcast" #BITS, BITS / 8, dest, source, nelems, PE_root, PE_start,    \
              logPE_stride, PE_size, pSync);                                                 \
  }                                                                                          \
  void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                            int logPE_stride, int PE_size, long *pSync) {                    \
    collect("shmem_collect" #BITS, BITS / 8, dest, source, nelems, PE_start, logPE_stride,   \
            PE_size, pSync);                                                                 \
  }                                                                                          \
  void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                             int logPE_stride, int PE_size, long *pSync) {                   \
    fcollect("shmem_fcollect" #BITS, BITS / 8, dest, source, nelems, PE_start, logPE_stride, \
             PE_size, pSync);                                                                \
  }                                                                                          \
  void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                             int logPE_stride, int PE_size, long *pSync) {                   \
    alltoall("shmem_alltoall" #BITS, BITS / 8, dest, source, nelems, PE_start, logPE_stride, \
             PE_size, pSync);                                                                \
  }                                                                                          \
  void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                              size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                              long *pSync) {                                                 \
    alltoalls("shmem_alltoalls" #BITS, BITS / 8, dest, source, dst, sst, nelems, PE_start,   \
              logPE_stride, PE_size, pSync);                                                 \
  }
XSHMEMI_AS_MOVE(32)
XSHMEMI_AS_MOVE(64)
#undef XSHMEMI_AS_MOVE

#define XSHMEMI_AS_TO_ALL(T, N, OP, F)                                                          \
  void pshmem_##N##_##OP(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                         int PE_size, T *pWrk, long *pSync) {                                   \
    static_cast<void>(pWrk);                                                                    \
    to_all<T, F>("shmem_" #N "_" #OP, dest, source, nreduce, PE_start, logPE_stride, PE_size,   \
                 pSync);                                                                        \
  }
#define XSHMEMI_AS_INT(X, OP, F) \
  X(short, short, OP, F) X(int, int, OP, F) X(long, long, OP, F) X(long long, longlong, OP, F)
#define XSHMEMI_AS_REAL(X, OP, F) \
  XSHMEMI_AS_INT(X, OP, F)        \
  X(float, float, OP, F) X(double, double, OP, F) X(long double, longdouble, OP, F)
#ifdef XSHMEM_HAVE_COMPLEX_REDUCE
#define XSHMEMI_AS_SUMPROD(X, OP, F) \
  XSHMEMI_AS_REAL(X, OP, F)          \
  X(double _Complex, complexd, OP, F) X(float _Complex, complexf, OP, F)
#else
#define XSHMEMI_AS_SUMPROD(X, OP, F) XSHMEMI_AS_REAL(X, OP, F)
#endif
XSHMEMI_AS_INT(XSHMEMI_AS_TO_ALL, and_to_all, OpAnd)
XSHMEMI_AS_INT(XSHMEMI_AS_TO_ALL, or_to_all, OpOr)
XSHMEMI_AS_INT(XSHMEMI_AS_TO_ALL, xor_to_all, OpXor)
XSHMEMI_AS_REAL(XSHMEMI_AS_TO_ALL, max_to_all, OpMax)
XSHMEMI_AS_REAL(XSHMEMI_AS_TO_ALL, min_to_all, OpMin)
XSHMEMI_AS_SUMPROD(XSHMEMI_AS_TO_ALL, sum_to_all, OpSum)
XSHMEMI_AS_SUMPROD(XSHMEMI_AS_TO_ALL, prod_to_all, OpProd)

}  // extern "C"

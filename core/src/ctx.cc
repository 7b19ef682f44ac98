// xshmem core: contexts (OpenSHMEM 1.5 ctx_* calls and the ctx forms of RMA, atomics,
// put-with-signal, fence, quiet; pe_quiet of 1.6).
//
// A ctx call resolves its context and team-relative PE to a world PE, validates its arguments
// once, under its own name, and runs the operation's one path function with its context
// (host_path.h; the plain calls are the same functions with XSHMEM_CTX_DEFAULT). The context
// reaches the path code: on PROXY peers it selects the transport channel (proxy.h
// channel(): the entry modulo the job's channels), and fence and quiet of a context order and
// complete that channel's operations. LSA and the internal stream of GPU heaps complete or order
// all of a PE's operations at once, so there every context's fence and quiet are the PE's.
#include "ctx.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include <xshmem/device/ctx.h>
#include <xshmem/device/team.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "config.h"
#include "host_path.h"
#include "log.h"
#include "runtime.h"

namespace xshmem::core::ctx {
namespace {

constexpr const char *kSubsys = "ctx";
constexpr long kAllOptions = XSHMEM_CTX_SERIALIZED | XSHMEM_CTX_PRIVATE | XSHMEM_CTX_NOSTORE;

struct Entry {
  std::atomic<bool> used{false};
  int32_t team = 0;
  long options = 0;
  std::thread::id owner;  // the creating thread (checked for XSHMEM_CTX_PRIVATE)
};

struct Table {
  std::mutex mu;                 // creation, destruction, sizing
  std::unique_ptr<Entry[]> e;    // [cap + 1]; entry 0 stands for XSHMEM_CTX_DEFAULT
  std::atomic<int32_t> cap{-1};  // -1: not sized yet (sized by the first creation)
};
Table g;

// Sizes the table from XSHMEM_MAX_CONTEXTS (under g.mu).
void size_table() {
  if (g.cap.load(std::memory_order_relaxed) >= 0) return;
  int64_t want = config::get_int("XSHMEM_MAX_CONTEXTS");
  const int64_t most = dev::kCtxMaxEntries - 1;
  if (want < 0 || want > most) {
    XLOG_WARN(kSubsys, "XSHMEM_MAX_CONTEXTS=%lld is outside [0, %lld]; using %lld",
              static_cast<long long>(want), static_cast<long long>(most),
              static_cast<long long>(want < 0 ? 0 : most));
    want = want < 0 ? 0 : most;
  }
  g.e = std::make_unique<Entry[]>(static_cast<size_t>(want) + 1);
  g.cap.store(static_cast<int32_t>(want), std::memory_order_release);
}

// The live entry behind `ctx` (a created context, not DEFAULT or INVALID), or nullptr.
Entry *find(xshmem_ctx_t ctx) {
  if (dev::ctx_is_invalid(ctx)) return nullptr;
  const int32_t k = dev::ctx_entry(ctx);
  if (k < 1 || k > g.cap.load(std::memory_order_acquire)) return nullptr;
  Entry &e = g.e[k];
  if (!e.used.load(std::memory_order_acquire) || e.team != dev::ctx_team(ctx)) return nullptr;
  return &e;
}

// Checked mode: `ctx` is DEFAULT or a live context this thread may use; stops the job otherwise.
void validate(const char *call, xshmem_ctx_t ctx) {
  if (ctx == XSHMEM_CTX_DEFAULT) return;
  if (ctx == XSHMEM_CTX_INVALID)
    check_fail(call, "ctx is XSHMEM_CTX_INVALID (a failed creation); pass a created context");
  const Entry *e = find(ctx);
  if (e == nullptr)
    check_fail(call, "ctx %d is not a context of this pe (destroyed, or never created)",
               static_cast<int>(ctx));
  if ((e->options & XSHMEM_CTX_PRIVATE) && e->owner != std::this_thread::get_id())
    check_fail(call, "ctx %d is XSHMEM_CTX_PRIVATE to the thread that created it",
               static_cast<int>(ctx));
}

// The world PE for an operation on `ctx` to team-relative `pe`, in *world. Checked mode stops
// the job for a bad context or PE; unchecked, false means "skip the operation" (an INVALID
// context, or a PE outside the team).
bool resolve(const char *call, xshmem_ctx_t ctx, int pe, int *world) {
  check_init(call);
  if (ctx == XSHMEM_CTX_DEFAULT) {
    check_pe(call, pe);
    *world = pe;
    return true;
  }
  if (!checks_enabled()) {
    *world = dev::ctx_world_pe(state(), ctx, pe);
    return *world >= 0;
  }
  validate(call, ctx);
  const int32_t team = dev::ctx_team(ctx);
  const dev::team_t t = dev::team_of(state(), team);
  if (pe < 0 || pe >= t.size)
    check_fail(call, "pe %d out of range [0, %d) of team %d (the team of ctx %d)", pe, t.size,
               static_cast<int>(team), static_cast<int>(ctx));
  *world = dev::team_world_pe(t, pe);
  return true;
}

// fence/quiet/pe_quiet: false for INVALID (a no-op); checked mode stops the job for a handle
// that is not a live context.
bool usable(const char *call, xshmem_ctx_t ctx) {
  check_init(call);
  if (ctx == XSHMEM_CTX_INVALID) return false;
  if (checks_enabled()) validate(call, ctx);
  return true;
}

// ---- Argument checks under the ctx call's name (the only ones the call runs)
// ---------------------

template <typename T>
void check_contig(const char *call, const char *sym_arg, const void *sym, const char *local_arg,
                  const void *local, size_t nelems) {
  if (!checks_enabled()) return;
  if (nelems > SIZE_MAX / sizeof(T))
    check_fail(call, "nelems %zu is too large for %zu-byte elements", nelems, sizeof(T));
  const size_t bytes = nelems * sizeof(T);
  check_symmetric(call, sym_arg, sym, bytes);
  if (bytes != 0) check_aligned(call, sym_arg, sym, alignof(T));
  if (local_arg != nullptr) check_buffer(call, local_arg, local, bytes);
}

template <typename T>
size_t strided_extent(const char *call, const char *stride_arg, ptrdiff_t stride, size_t nelems) {
  if (nelems == 0) return 0;
  if (stride < 1) check_fail(call, "%s %td must be >= 1", stride_arg, stride);
  const size_t span = static_cast<size_t>(stride);
  if (nelems - 1 > (SIZE_MAX / sizeof(T) - 1) / span)
    check_fail(call, "nelems %zu with %s %td is too large", nelems, stride_arg, stride);
  return ((nelems - 1) * span + 1) * sizeof(T);
}

template <typename T>
void check_strided(const char *call, const char *sym_arg, const void *sym, ptrdiff_t sym_stride,
                   const char *sym_stride_arg, const char *local_arg, const void *local,
                   ptrdiff_t local_stride, const char *local_stride_arg, size_t nelems) {
  if (!checks_enabled()) return;
  const size_t sym_bytes = strided_extent<T>(call, sym_stride_arg, sym_stride, nelems);
  const size_t local_bytes = strided_extent<T>(call, local_stride_arg, local_stride, nelems);
  check_symmetric(call, sym_arg, sym, sym_bytes);
  if (sym_bytes != 0) check_aligned(call, sym_arg, sym, alignof(T));
  check_buffer(call, local_arg, local, local_bytes);
}

template <typename T>
void check_amo(const char *call, const T *dest, const T *fetch, bool has_fetch) {
  if (!checks_enabled()) return;
  check_symmetric(call, "dest", dest, sizeof(T));
  check_aligned(call, "dest", dest, sizeof(T));
  if (has_fetch) check_buffer(call, "fetch", fetch, sizeof(T));
}

template <typename T>
void check_put_signal(const char *call, const T *dest, const T *source, size_t nelems,
                      const uint64_t *sig_addr, int sig_op) {
  if (!checks_enabled()) return;
  check_contig<T>(call, "dest", dest, "source", source, nelems);
  check_symmetric(call, "sig_addr", sig_addr, sizeof(uint64_t));
  check_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
  check_sig_op(call, sig_op);
  const size_t bytes = nelems * sizeof(T);
  const auto d = reinterpret_cast<uintptr_t>(dest);
  const auto sg = reinterpret_cast<uintptr_t>(sig_addr);
  if (bytes != 0 && sg + sizeof(uint64_t) > d && sg < d + bytes)
    check_fail(call, "sig_addr %p overlaps dest %p + %zu bytes",
               static_cast<const void *>(sig_addr), static_cast<const void *>(dest), bytes);
}

// ---- Lifecycle ----------------------------------------------------------------------------------

int create(const char *call, xshmem_team_t team, long options, xshmem_ctx_t *ctx) {
  check_init(call);
  check_buffer(call, "ctx", ctx, 1);
  if (checks_enabled() && (options & ~kAllOptions) != 0)
    check_fail(call,
               "options 0x%lx has bits other than XSHMEM_CTX_SERIALIZED, XSHMEM_CTX_PRIVATE and "
               "XSHMEM_CTX_NOSTORE",
               options);
  if (ctx == nullptr) return -1;
  *ctx = XSHMEM_CTX_INVALID;
  if (!dev::team_member(dev::team_of(state(), team))) return -1;
  std::lock_guard lock(g.mu);
  size_table();
  const int32_t cap = g.cap.load(std::memory_order_relaxed);
  for (int32_t k = 1; k <= cap; ++k) {
    Entry &e = g.e[k];
    if (e.used.load(std::memory_order_relaxed)) continue;
    e.team = team;
    e.options = options & kAllOptions;
    e.owner = std::this_thread::get_id();
    e.used.store(true, std::memory_order_release);
    *ctx = dev::ctx_handle(k, team);
    return 0;
  }
  XLOG_INFO(kSubsys,
            "%s: all %d contexts of pe %d are in use (XSHMEM_MAX_CONTEXTS); destroy one or raise "
            "the limit",
            call, static_cast<int>(cap), state().my_pe);
  return -1;
}

}  // namespace

void on_team_destroy(const char *call, xshmem_team_t team) {
  int32_t private_left = -1;
  bool any = false;
  {
    std::lock_guard lock(g.mu);
    const int32_t cap = g.cap.load(std::memory_order_relaxed);
    for (int32_t k = 1; k <= cap; ++k) {
      Entry &e = g.e[k];
      if (!e.used.load(std::memory_order_relaxed) || e.team != team) continue;
      if ((e.options & XSHMEM_CTX_PRIVATE) && private_left < 0)
        private_left = dev::ctx_handle(k, team);
      any = true;
    }
  }
  if (private_left >= 0 && checks_enabled())
    check_fail(call,
               "team %d still has XSHMEM_CTX_PRIVATE context %d: destroy private contexts before "
               "their team",
               static_cast<int>(team), static_cast<int>(private_left));
  if (!any) return;
  std::lock_guard lock(g.mu);
  const int32_t cap = g.cap.load(std::memory_order_relaxed);
  for (int32_t k = 1; k <= cap; ++k) {
    if (!g.e[k].used.load(std::memory_order_relaxed) || g.e[k].team != team) continue;
    path::quiet(dev::ctx_handle(k, team));  // the context's operations complete before it goes
    g.e[k].used.store(false, std::memory_order_release);
  }
}

void reset() {
  std::lock_guard lock(g.mu);
  g.e.reset();
  g.cap.store(-1, std::memory_order_release);  // the next job reads XSHMEM_MAX_CONTEXTS again
}

}  // namespace xshmem::core::ctx

namespace xc = xshmem::core;
namespace xx = xshmem::core::ctx;
namespace xd = xshmem::dev;

namespace {
// The element of the 128-bit sized interfaces.
struct alignas(16) bits128_t {
  unsigned char b[16];
};
}  // namespace

extern "C" {

int xshmem_ctx_create(long options, xshmem_ctx_t *ctx) {
  return xx::create("xshmem_ctx_create", XSHMEM_TEAM_WORLD, options, ctx);
}

int xshmem_team_create_ctx(xshmem_team_t team, long options, xshmem_ctx_t *ctx) {
  return xx::create("xshmem_team_create_ctx", team, options, ctx);
}

void xshmem_ctx_destroy(xshmem_ctx_t ctx) {
  const char *call = "xshmem_ctx_destroy";
  xc::check_init(call);
  if (ctx == XSHMEM_CTX_INVALID) return;
  if (ctx == XSHMEM_CTX_DEFAULT) {
    if (xc::checks_enabled())
      xc::check_fail(call, "ctx is XSHMEM_CTX_DEFAULT: it cannot be destroyed");
    return;
  }
  if (xc::checks_enabled()) xx::validate(call, ctx);
  xx::Entry *e = xx::find(ctx);
  if (e == nullptr) return;
  xc::path::quiet(ctx);  // its operations complete before it goes
  std::lock_guard lock(xx::g.mu);
  e->used.store(false, std::memory_order_release);
}

int xshmem_ctx_get_team(xshmem_ctx_t ctx, xshmem_team_t *team) {
  const char *call = "xshmem_ctx_get_team";
  xc::check_init(call);
  xc::check_buffer(call, "team", team, 1);
  const bool ok = ctx == XSHMEM_CTX_DEFAULT || xx::find(ctx) != nullptr;
  if (team != nullptr) *team = ok ? xd::ctx_team(ctx) : XSHMEM_TEAM_INVALID;
  return ok ? 0 : -1;
}

void xshmem_ctx_fence(xshmem_ctx_t ctx) {
  if (xx::usable("xshmem_ctx_fence", ctx)) xc::path::fence(ctx);
}

void xshmem_ctx_quiet(xshmem_ctx_t ctx) {
  if (xx::usable("xshmem_ctx_quiet", ctx)) xc::path::quiet(ctx);
}

}  // extern "C"

namespace {
// pe_quiet: the listed PEs (in the context's team) are valid; the operations to them complete.
// Every path completes all targets at once, so it is a quiet (skipped when npes is 0).
void pe_quiet(const char *call, xshmem_ctx_t ctx, const int *target_pes, int npes) {
  if (!xx::usable(call, ctx)) return;
  if (xc::checks_enabled()) {
    if (npes < 0) xc::check_fail(call, "npes %d is negative", npes);
    xc::check_buffer(call, "target_pes", target_pes, static_cast<size_t>(npes));
    int world = -1;
    for (int i = 0; i < npes; ++i) (void)xx::resolve(call, ctx, target_pes[i], &world);
  }
  if (npes <= 0) return;
  xc::path::quiet(ctx);
}
}  // namespace

extern "C" {

void xshmem_ctx_pe_quiet(xshmem_ctx_t ctx, const int *target_pes, int npes) {
  pe_quiet("xshmem_ctx_pe_quiet", ctx, target_pes, npes);
}
void xshmem_pe_quiet(const int *target_pes, int npes) {
  pe_quiet("xshmem_pe_quiet", XSHMEM_CTX_DEFAULT, target_pes, npes);
}

// Each ctx data-path call: resolve the PE (skip when unchecked resolution fails), check the
// arguments under the ctx call's name, run the path function with the context on the world PE.
#define XSHMEMI_CTX_BEGIN_OR(NAME, SKIP) \
  const char *call = "xshmem_ctx_" NAME; \
  int w = -1;                            \
  if (!xx::resolve(call, ctx, pe, &w)) { \
    return SKIP;                         \
  }
#define XSHMEMI_CTX_BEGIN(NAME) XSHMEMI_CTX_BEGIN_OR(NAME, )

#define XSHMEM_DEF_CTX_RMA(T, N)                                                                  \
  void xshmem_ctx_##N##_put(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {  \
    XSHMEMI_CTX_BEGIN(#N "_put")                                                                  \
    xx::check_contig<T>(call, "dest", dest, "source", source, nelems);                            \
    xc::path::put(ctx, dest, source, nelems, w, false);                                           \
  }                                                                                               \
  void xshmem_ctx_##N##_get(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {  \
    XSHMEMI_CTX_BEGIN(#N "_get")                                                                  \
    xx::check_contig<T>(call, "source", source, "dest", dest, nelems);                            \
    xc::path::get(ctx, dest, source, nelems, w, false);                                           \
  }                                                                                               \
  void xshmem_ctx_##N##_put_nbi(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,        \
                                int pe) {                                                         \
    XSHMEMI_CTX_BEGIN(#N "_put_nbi")                                                              \
    xx::check_contig<T>(call, "dest", dest, "source", source, nelems);                            \
    xc::path::put(ctx, dest, source, nelems, w, true);                                            \
  }                                                                                               \
  void xshmem_ctx_##N##_get_nbi(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,        \
                                int pe) {                                                         \
    XSHMEMI_CTX_BEGIN(#N "_get_nbi")                                                              \
    xx::check_contig<T>(call, "source", source, "dest", dest, nelems);                            \
    xc::path::get(ctx, dest, source, nelems, w, true);                                            \
  }                                                                                               \
  void xshmem_ctx_##N##_p(xshmem_ctx_t ctx, T *dest, T value, int pe) {                           \
    XSHMEMI_CTX_BEGIN(#N "_p")                                                                    \
    xx::check_contig<T>(call, "dest", dest, nullptr, nullptr, 1);                                 \
    xc::path::p(ctx, dest, value, w);                                                             \
  }                                                                                               \
  T xshmem_ctx_##N##_g(xshmem_ctx_t ctx, const T *source, int pe) {                               \
    XSHMEMI_CTX_BEGIN_OR(#N "_g", static_cast<T>(0))                                              \
    xx::check_contig<T>(call, "source", source, nullptr, nullptr, 1);                             \
    return xc::path::g(ctx, source, w);                                                           \
  }                                                                                               \
  void xshmem_ctx_##N##_iput(xshmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,           \
                             ptrdiff_t sst, size_t nelems, int pe) {                              \
    XSHMEMI_CTX_BEGIN(#N "_iput")                                                                 \
    xx::check_strided<T>(call, "dest", dest, dst, "dst", "source", source, sst, "sst", nelems);   \
    xc::path::iput(ctx, dest, source, dst, sst, nelems, w);                                       \
  }                                                                                               \
  void xshmem_ctx_##N##_iget(xshmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,           \
                             ptrdiff_t sst, size_t nelems, int pe) {                              \
    XSHMEMI_CTX_BEGIN(#N "_iget")                                                                 \
    xx::check_strided<T>(call, "source", source, sst, "sst", "dest", dest, dst, "dst", nelems);   \
    xc::path::iget(ctx, dest, source, dst, sst, nelems, w);                                       \
  }                                                                                               \
  void xshmem_ctx_##N##_put_signal(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {     \
    XSHMEMI_CTX_BEGIN(#N "_put_signal")                                                           \
    xx::check_put_signal<T>(call, dest, source, nelems, sig_addr, sig_op);                        \
    xc::path::put_signal(ctx, false, dest, source, nelems, sig_addr, signal, sig_op, w);          \
  }                                                                                               \
  void xshmem_ctx_##N##_put_signal_nbi(xshmem_ctx_t ctx, T *dest, const T *source, size_t nelems, \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    XSHMEMI_CTX_BEGIN(#N "_put_signal_nbi")                                                       \
    xx::check_put_signal<T>(call, dest, source, nelems, sig_addr, sig_op);                        \
    xc::path::put_signal(ctx, true, dest, source, nelems, sig_addr, signal, sig_op, w);           \
  }
XSHMEM_RMA_TYPES(XSHMEM_DEF_CTX_RMA)
#undef XSHMEM_DEF_CTX_RMA

#define XSHMEM_DEF_CTX_SIZED(BITS, T)                                                              \
  void xshmem_ctx_put##BITS(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                            int pe) {                                                              \
    XSHMEMI_CTX_BEGIN("put" #BITS)                                                                 \
    xx::check_contig<T>(call, "dest", dest, "source", source, nelems);                             \
    xc::path::put(ctx, static_cast<T *>(dest), static_cast<const T *>(source), nelems, w, false);  \
  }                                                                                                \
  void xshmem_ctx_get##BITS(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                            int pe) {                                                              \
    XSHMEMI_CTX_BEGIN("get" #BITS)                                                                 \
    xx::check_contig<T>(call, "source", source, "dest", dest, nelems);                             \
    xc::path::get(ctx, static_cast<T *>(dest), static_cast<const T *>(source), nelems, w, false);  \
  }                                                                                                \
  void xshmem_ctx_put##BITS##_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                  int pe) {                                                        \
    XSHMEMI_CTX_BEGIN("put" #BITS "_nbi")                                                          \
    xx::check_contig<T>(call, "dest", dest, "source", source, nelems);                             \
    xc::path::put(ctx, static_cast<T *>(dest), static_cast<const T *>(source), nelems, w, true);   \
  }                                                                                                \
  void xshmem_ctx_get##BITS##_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                  int pe) {                                                        \
    XSHMEMI_CTX_BEGIN("get" #BITS "_nbi")                                                          \
    xx::check_contig<T>(call, "source", source, "dest", dest, nelems);                             \
    xc::path::get(ctx, static_cast<T *>(dest), static_cast<const T *>(source), nelems, w, true);   \
  }                                                                                                \
  void xshmem_ctx_iput##BITS(xshmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe) {                               \
    XSHMEMI_CTX_BEGIN("iput" #BITS)                                                                \
    xx::check_strided<T>(call, "dest", dest, dst, "dst", "source", source, sst, "sst", nelems);    \
    xc::path::iput(ctx, static_cast<T *>(dest), static_cast<const T *>(source), dst, sst, nelems,  \
                   w);                                                                             \
  }                                                                                                \
  void xshmem_ctx_iget##BITS(xshmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,      \
                             ptrdiff_t sst, size_t nelems, int pe) {                               \
    XSHMEMI_CTX_BEGIN("iget" #BITS)                                                                \
    xx::check_strided<T>(call, "source", source, sst, "sst", "dest", dest, dst, "dst", nelems);    \
    xc::path::iget(ctx, static_cast<T *>(dest), static_cast<const T *>(source), dst, sst, nelems,  \
                   w);                                                                             \
  }                                                                                                \
  void xshmem_ctx_put##BITS##_signal(xshmem_ctx_t ctx, void *dest, const void *source,             \
                                     size_t nelems, uint64_t *sig_addr, uint64_t signal,           \
                                     int sig_op, int pe) {                                         \
    XSHMEMI_CTX_BEGIN("put" #BITS "_signal")                                                       \
    xx::check_put_signal<T>(call, static_cast<const T *>(dest), static_cast<const T *>(source),    \
                            nelems, sig_addr, sig_op);                                             \
    xc::path::put_signal(ctx, false, static_cast<T *>(dest), static_cast<const T *>(source),       \
                         nelems, sig_addr, signal, sig_op, w);                                     \
  }                                                                                                \
  void xshmem_ctx_put##BITS##_signal_nbi(xshmem_ctx_t ctx, void *dest, const void *source,         \
                                         size_t nelems, uint64_t *sig_addr, uint64_t signal,       \
                                         int sig_op, int pe) {                                     \
    XSHMEMI_CTX_BEGIN("put" #BITS "_signal_nbi")                                                   \
    xx::check_put_signal<T>(call, static_cast<const T *>(dest), static_cast<const T *>(source),    \
                            nelems, sig_addr, sig_op);                                             \
    xc::path::put_signal(ctx, true, static_cast<T *>(dest), static_cast<const T *>(source),        \
                         nelems, sig_addr, signal, sig_op, w);                                     \
  }
XSHMEM_SIZED_TYPES(XSHMEM_DEF_CTX_SIZED)
XSHMEM_DEF_CTX_SIZED(128, bits128_t)
#undef XSHMEM_DEF_CTX_SIZED

void xshmem_ctx_putmem(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes, int pe) {
  XSHMEMI_CTX_BEGIN("putmem")
  xx::check_contig<unsigned char>(call, "dest", dest, "source", source, nbytes);
  xc::path::put(ctx, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source),
                nbytes, w, false);
}
void xshmem_ctx_getmem(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes, int pe) {
  XSHMEMI_CTX_BEGIN("getmem")
  xx::check_contig<unsigned char>(call, "source", source, "dest", dest, nbytes);
  xc::path::get(ctx, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source),
                nbytes, w, false);
}
void xshmem_ctx_putmem_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                           int pe) {
  XSHMEMI_CTX_BEGIN("putmem_nbi")
  xx::check_contig<unsigned char>(call, "dest", dest, "source", source, nbytes);
  xc::path::put(ctx, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source),
                nbytes, w, true);
}
void xshmem_ctx_getmem_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                           int pe) {
  XSHMEMI_CTX_BEGIN("getmem_nbi")
  xx::check_contig<unsigned char>(call, "source", source, "dest", dest, nbytes);
  xc::path::get(ctx, static_cast<unsigned char *>(dest), static_cast<const unsigned char *>(source),
                nbytes, w, true);
}
void xshmem_ctx_putmem_signal(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  XSHMEMI_CTX_BEGIN("putmem_signal")
  xx::check_put_signal<unsigned char>(call, static_cast<const unsigned char *>(dest),
                                      static_cast<const unsigned char *>(source), nbytes, sig_addr,
                                      sig_op);
  xc::path::put_signal(ctx, false, static_cast<unsigned char *>(dest),
                       static_cast<const unsigned char *>(source), nbytes, sig_addr, signal, sig_op,
                       w);
}
void xshmem_ctx_putmem_signal_nbi(xshmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  XSHMEMI_CTX_BEGIN("putmem_signal_nbi")
  xx::check_put_signal<unsigned char>(call, static_cast<const unsigned char *>(dest),
                                      static_cast<const unsigned char *>(source), nbytes, sig_addr,
                                      sig_op);
  xc::path::put_signal(ctx, true, static_cast<unsigned char *>(dest),
                       static_cast<const unsigned char *>(source), nbytes, sig_addr, signal, sig_op,
                       w);
}

#define XSHMEM_DEF_CTX_AMO_EXT(T, N)                                                            \
  T xshmem_ctx_##N##_atomic_fetch(xshmem_ctx_t ctx, const T *source, int pe) {                  \
    XSHMEMI_CTX_BEGIN_OR(#N "_atomic_fetch", static_cast<T>(0))                                 \
    xx::check_amo<T>(call, source, nullptr, false);                                             \
    return xc::path::amo<xd::amo_op::fetch>(ctx, const_cast<T *>(source), static_cast<T>(0),    \
                                            static_cast<T>(0), w);                              \
  }                                                                                             \
  void xshmem_ctx_##N##_atomic_set(xshmem_ctx_t ctx, T *dest, T value, int pe) {                \
    XSHMEMI_CTX_BEGIN(#N "_atomic_set")                                                         \
    xx::check_amo<T>(call, dest, nullptr, false);                                               \
    xc::path::amo<xd::amo_op::set>(ctx, dest, value, static_cast<T>(0), w);                     \
  }                                                                                             \
  T xshmem_ctx_##N##_atomic_swap(xshmem_ctx_t ctx, T *dest, T value, int pe) {                  \
    XSHMEMI_CTX_BEGIN_OR(#N "_atomic_swap", static_cast<T>(0))                                  \
    xx::check_amo<T>(call, dest, nullptr, false);                                               \
    return xc::path::amo<xd::amo_op::swap>(ctx, dest, value, static_cast<T>(0), w);             \
  }                                                                                             \
  void xshmem_ctx_##N##_atomic_fetch_nbi(xshmem_ctx_t ctx, T *fetch, const T *source, int pe) { \
    XSHMEMI_CTX_BEGIN(#N "_atomic_fetch_nbi")                                                   \
    xx::check_amo<T>(call, source, fetch, true);                                                \
    *fetch = xc::path::amo<xd::amo_op::fetch>(ctx, const_cast<T *>(source), static_cast<T>(0),  \
                                              static_cast<T>(0), w);                            \
  }                                                                                             \
  void xshmem_ctx_##N##_atomic_swap_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) { \
    XSHMEMI_CTX_BEGIN(#N "_atomic_swap_nbi")                                                    \
    xx::check_amo<T>(call, dest, fetch, true);                                                  \
    *fetch = xc::path::amo<xd::amo_op::swap>(ctx, dest, value, static_cast<T>(0), w);           \
  }
XSHMEM_AMO_EXTENDED_TYPES(XSHMEM_DEF_CTX_AMO_EXT)
#undef XSHMEM_DEF_CTX_AMO_EXT

#define XSHMEM_DEF_CTX_AMO_STD(T, N)                                                              \
  T xshmem_ctx_##N##_atomic_compare_swap(xshmem_ctx_t ctx, T *dest, T cond, T value, int pe) {    \
    XSHMEMI_CTX_BEGIN_OR(#N "_atomic_compare_swap", static_cast<T>(0))                            \
    xx::check_amo<T>(call, dest, nullptr, false);                                                 \
    return xc::path::amo<xd::amo_op::compare_swap>(ctx, dest, value, cond, w);                    \
  }                                                                                               \
  T xshmem_ctx_##N##_atomic_fetch_inc(xshmem_ctx_t ctx, T *dest, int pe) {                        \
    XSHMEMI_CTX_BEGIN_OR(#N "_atomic_fetch_inc", static_cast<T>(0))                               \
    xx::check_amo<T>(call, dest, nullptr, false);                                                 \
    return xc::path::amo<xd::amo_op::fetch_add>(ctx, dest, static_cast<T>(1), static_cast<T>(0),  \
                                                w);                                               \
  }                                                                                               \
  void xshmem_ctx_##N##_atomic_inc(xshmem_ctx_t ctx, T *dest, int pe) {                           \
    XSHMEMI_CTX_BEGIN(#N "_atomic_inc")                                                           \
    xx::check_amo<T>(call, dest, nullptr, false);                                                 \
    xc::path::amo<xd::amo_op::fetch_add>(ctx, dest, static_cast<T>(1), static_cast<T>(0), w);     \
  }                                                                                               \
  T xshmem_ctx_##N##_atomic_fetch_add(xshmem_ctx_t ctx, T *dest, T value, int pe) {               \
    XSHMEMI_CTX_BEGIN_OR(#N "_atomic_fetch_add", static_cast<T>(0))                               \
    xx::check_amo<T>(call, dest, nullptr, false);                                                 \
    return xc::path::amo<xd::amo_op::fetch_add>(ctx, dest, value, static_cast<T>(0), w);          \
  }                                                                                               \
  void xshmem_ctx_##N##_atomic_add(xshmem_ctx_t ctx, T *dest, T value, int pe) {                  \
    XSHMEMI_CTX_BEGIN(#N "_atomic_add")                                                           \
    xx::check_amo<T>(call, dest, nullptr, false);                                                 \
    xc::path::amo<xd::amo_op::fetch_add>(ctx, dest, value, static_cast<T>(0), w);                 \
  }                                                                                               \
  void xshmem_ctx_##N##_atomic_compare_swap_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T cond,      \
                                                T value, int pe) {                                \
    XSHMEMI_CTX_BEGIN(#N "_atomic_compare_swap_nbi")                                              \
    xx::check_amo<T>(call, dest, fetch, true);                                                    \
    *fetch = xc::path::amo<xd::amo_op::compare_swap>(ctx, dest, value, cond, w);                  \
  }                                                                                               \
  void xshmem_ctx_##N##_atomic_fetch_inc_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, int pe) {       \
    XSHMEMI_CTX_BEGIN(#N "_atomic_fetch_inc_nbi")                                                 \
    xx::check_amo<T>(call, dest, fetch, true);                                                    \
    *fetch =                                                                                      \
        xc::path::amo<xd::amo_op::fetch_add>(ctx, dest, static_cast<T>(1), static_cast<T>(0), w); \
  }                                                                                               \
  void xshmem_ctx_##N##_atomic_fetch_add_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value,        \
                                             int pe) {                                            \
    XSHMEMI_CTX_BEGIN(#N "_atomic_fetch_add_nbi")                                                 \
    xx::check_amo<T>(call, dest, fetch, true);                                                    \
    *fetch = xc::path::amo<xd::amo_op::fetch_add>(ctx, dest, value, static_cast<T>(0), w);        \
  }
XSHMEM_AMO_STANDARD_TYPES(XSHMEM_DEF_CTX_AMO_STD)
#undef XSHMEM_DEF_CTX_AMO_STD

#define XSHMEM_DEF_CTX_AMO_BIT_OP(T, N, OP)                                                   \
  T xshmem_ctx_##N##_atomic_fetch_##OP(xshmem_ctx_t ctx, T *dest, T value, int pe) {          \
    XSHMEMI_CTX_BEGIN_OR(#N "_atomic_fetch_" #OP, static_cast<T>(0))                          \
    xx::check_amo<T>(call, dest, nullptr, false);                                             \
    return xc::path::amo<xd::amo_op::fetch_##OP>(ctx, dest, value, static_cast<T>(0), w);     \
  }                                                                                           \
  void xshmem_ctx_##N##_atomic_##OP(xshmem_ctx_t ctx, T *dest, T value, int pe) {             \
    XSHMEMI_CTX_BEGIN(#N "_atomic_" #OP)                                                      \
    xx::check_amo<T>(call, dest, nullptr, false);                                             \
    xc::path::amo<xd::amo_op::fetch_##OP>(ctx, dest, value, static_cast<T>(0), w);            \
  }                                                                                           \
  void xshmem_ctx_##N##_atomic_fetch_##OP##_nbi(xshmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                                int pe) {                                     \
    XSHMEMI_CTX_BEGIN(#N "_atomic_fetch_" #OP "_nbi")                                         \
    xx::check_amo<T>(call, dest, fetch, true);                                                \
    *fetch = xc::path::amo<xd::amo_op::fetch_##OP>(ctx, dest, value, static_cast<T>(0), w);   \
  }
#define XSHMEM_DEF_CTX_AMO_BIT(T, N)   \
  XSHMEM_DEF_CTX_AMO_BIT_OP(T, N, and) \
  XSHMEM_DEF_CTX_AMO_BIT_OP(T, N, or)  \
  XSHMEM_DEF_CTX_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEM_DEF_CTX_AMO_BIT)
#undef XSHMEM_DEF_CTX_AMO_BIT
#undef XSHMEM_DEF_CTX_AMO_BIT_OP
#undef XSHMEMI_CTX_BEGIN
#undef XSHMEMI_CTX_BEGIN_OR

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(RET, NAME, PARAMS) \
  RET xshmemi_h_ctx_##NAME PARAMS __attribute__((alias("xshmem_ctx_" #NAME)));
#define XSHMEMI_ALIAS_RMA(T, N)                                                                    \
  XSHMEMI_ALIAS(void, N##_put, (xshmem_ctx_t, T *, const T *, size_t, int))                        \
  XSHMEMI_ALIAS(void, N##_get, (xshmem_ctx_t, T *, const T *, size_t, int))                        \
  XSHMEMI_ALIAS(void, N##_put_nbi, (xshmem_ctx_t, T *, const T *, size_t, int))                    \
  XSHMEMI_ALIAS(void, N##_get_nbi, (xshmem_ctx_t, T *, const T *, size_t, int))                    \
  XSHMEMI_ALIAS(void, N##_p, (xshmem_ctx_t, T *, T, int))                                          \
  XSHMEMI_ALIAS(T, N##_g, (xshmem_ctx_t, const T *, int))                                          \
  XSHMEMI_ALIAS(void, N##_iput, (xshmem_ctx_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int)) \
  XSHMEMI_ALIAS(void, N##_iget, (xshmem_ctx_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int)) \
  XSHMEMI_ALIAS(void, N##_put_signal,                                                              \
                (xshmem_ctx_t, T *, const T *, size_t, uint64_t *, uint64_t, int, int))            \
  XSHMEMI_ALIAS(void, N##_put_signal_nbi,                                                          \
                (xshmem_ctx_t, T *, const T *, size_t, uint64_t *, uint64_t, int, int))
XSHMEM_RMA_TYPES_NO_LD(XSHMEMI_ALIAS_RMA)
#undef XSHMEMI_ALIAS_RMA
#define XSHMEMI_ALIAS_SIZED(BITS, T)                                                          \
  XSHMEMI_ALIAS(void, put##BITS, (xshmem_ctx_t, void *, const void *, size_t, int))           \
  XSHMEMI_ALIAS(void, get##BITS, (xshmem_ctx_t, void *, const void *, size_t, int))           \
  XSHMEMI_ALIAS(void, put##BITS##_nbi, (xshmem_ctx_t, void *, const void *, size_t, int))     \
  XSHMEMI_ALIAS(void, get##BITS##_nbi, (xshmem_ctx_t, void *, const void *, size_t, int))     \
  XSHMEMI_ALIAS(void, iput##BITS,                                                             \
                (xshmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int))      \
  XSHMEMI_ALIAS(void, iget##BITS,                                                             \
                (xshmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int))      \
  XSHMEMI_ALIAS(void, put##BITS##_signal,                                                     \
                (xshmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int)) \
  XSHMEMI_ALIAS(void, put##BITS##_signal_nbi,                                                 \
                (xshmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))
XSHMEM_SIZED_TYPES(XSHMEMI_ALIAS_SIZED)
XSHMEMI_ALIAS_SIZED(128, void)
#undef XSHMEMI_ALIAS_SIZED
XSHMEMI_ALIAS(void, putmem, (xshmem_ctx_t, void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, getmem, (xshmem_ctx_t, void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, putmem_nbi, (xshmem_ctx_t, void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, getmem_nbi, (xshmem_ctx_t, void *, const void *, size_t, int))
XSHMEMI_ALIAS(void, putmem_signal,
              (xshmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))
XSHMEMI_ALIAS(void, putmem_signal_nbi,
              (xshmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))
#define XSHMEMI_ALIAS_AMO_EXT(T, N)                                              \
  XSHMEMI_ALIAS(T, N##_atomic_fetch, (xshmem_ctx_t, const T *, int))             \
  XSHMEMI_ALIAS(void, N##_atomic_set, (xshmem_ctx_t, T *, T, int))               \
  XSHMEMI_ALIAS(T, N##_atomic_swap, (xshmem_ctx_t, T *, T, int))                 \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_nbi, (xshmem_ctx_t, T *, const T *, int)) \
  XSHMEMI_ALIAS(void, N##_atomic_swap_nbi, (xshmem_ctx_t, T *, T *, T, int))
XSHMEM_AMO_EXTENDED_TYPES(XSHMEMI_ALIAS_AMO_EXT)
#undef XSHMEMI_ALIAS_AMO_EXT
#define XSHMEMI_ALIAS_AMO_STD(T, N)                                                     \
  XSHMEMI_ALIAS(T, N##_atomic_compare_swap, (xshmem_ctx_t, T *, T, T, int))             \
  XSHMEMI_ALIAS(T, N##_atomic_fetch_inc, (xshmem_ctx_t, T *, int))                      \
  XSHMEMI_ALIAS(void, N##_atomic_inc, (xshmem_ctx_t, T *, int))                         \
  XSHMEMI_ALIAS(T, N##_atomic_fetch_add, (xshmem_ctx_t, T *, T, int))                   \
  XSHMEMI_ALIAS(void, N##_atomic_add, (xshmem_ctx_t, T *, T, int))                      \
  XSHMEMI_ALIAS(void, N##_atomic_compare_swap_nbi, (xshmem_ctx_t, T *, T *, T, T, int)) \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_inc_nbi, (xshmem_ctx_t, T *, T *, int))          \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_add_nbi, (xshmem_ctx_t, T *, T *, T, int))
XSHMEM_AMO_STANDARD_TYPES(XSHMEMI_ALIAS_AMO_STD)
#undef XSHMEMI_ALIAS_AMO_STD
#define XSHMEMI_ALIAS_AMO_BIT_OP(T, N, OP)                             \
  XSHMEMI_ALIAS(T, N##_atomic_fetch_##OP, (xshmem_ctx_t, T *, T, int)) \
  XSHMEMI_ALIAS(void, N##_atomic_##OP, (xshmem_ctx_t, T *, T, int))    \
  XSHMEMI_ALIAS(void, N##_atomic_fetch_##OP##_nbi, (xshmem_ctx_t, T *, T *, T, int))
#define XSHMEMI_ALIAS_AMO_BIT(T, N)   \
  XSHMEMI_ALIAS_AMO_BIT_OP(T, N, and) \
  XSHMEMI_ALIAS_AMO_BIT_OP(T, N, or)  \
  XSHMEMI_ALIAS_AMO_BIT_OP(T, N, xor)
XSHMEM_AMO_BITWISE_TYPES(XSHMEMI_ALIAS_AMO_BIT)
#undef XSHMEMI_ALIAS_AMO_BIT
#undef XSHMEMI_ALIAS_AMO_BIT_OP
XSHMEMI_ALIAS(void, fence, (xshmem_ctx_t))
XSHMEMI_ALIAS(void, quiet, (xshmem_ctx_t))
XSHMEMI_ALIAS(void, pe_quiet, (xshmem_ctx_t, const int *, int))
XSHMEMI_ALIAS(int, get_team, (xshmem_ctx_t, xshmem_team_t *))
#undef XSHMEMI_ALIAS
void xshmemi_h_pe_quiet(const int *, int) __attribute__((alias("xshmem_pe_quiet")));

}  // extern "C"

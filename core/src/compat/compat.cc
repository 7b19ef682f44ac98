// The OpenSHMEM names of the API (<shmem.h>, <pshmem.h>; the list is <xshmem/compat_api.h>).
//
// Most shmem_X and pshmem_X are linker aliases of xshmem_X (aliases.lds.in, generated from the
// list): this file checks at compile time that each alias's OpenSHMEM prototype is xshmem_X's,
// and defines the few routines whose OpenSHMEM signature differs (the list's R entries) as
// pshmem_X; shmem_X is an alias of that. Nothing else of the compat layer runs code.
#include <climits>
#include <cstddef>
#include <tuple>
#include <type_traits>

#include <pshmem.h>
#include <shmem.h>
#include <xshmem/xshmem.h>

namespace {

// A parameter or return type as the ABI sees it: const on what a pointer points to is dropped.
template <class T>
using abi_t =
    std::conditional_t<std::is_pointer_v<T>, std::remove_cv_t<std::remove_pointer_t<T>> *, T>;
template <class F>
struct abi_sig;
template <class R, class... A>
struct abi_sig<R (*)(A...)> {
  using type = std::tuple<abi_t<R>, abi_t<A>...>;
};

// A entries: the prototypes are identical. AC entries: identical but for the const-ness of a
// pointee (one ABI).
#define XSHMEMI_API_NORETURN
#define XSHMEMI_API_A(ret, name, params)                                           \
  static_assert(std::is_same_v<decltype(&shmem_##name), decltype(&xshmem_##name)>, \
                "shmem_" #name " is an alias of xshmem_" #name                     \
                " but its prototype differs: "                                     \
                "make it an R entry of xshmem/compat_api.h");
#define XSHMEMI_API_AC(ret, name, params)                                             \
  static_assert(!std::is_same_v<decltype(&shmem_##name), decltype(&xshmem_##name)> && \
                    std::is_same_v<abi_sig<decltype(&shmem_##name)>::type,            \
                                   abi_sig<decltype(&xshmem_##name)>::type>,          \
                "shmem_" #name ": an AC entry differs from xshmem_" #name             \
                " in more than the "                                                  \
                "const-ness of a pointee (or not at all: make it an A entry)");
#define XSHMEMI_API_R(ret, name, params)
#include <xshmem/compat_api.h>
#undef XSHMEMI_API_R
#undef XSHMEMI_API_AC
#undef XSHMEMI_API_A
#undef XSHMEMI_API_NORETURN

// Deprecated aliases (<xshmem/compat_deprecated.h>): the old name's prototype is its target's.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define XSHMEMI_DEP_A(ret, sym, params, target)                             \
  static_assert(std::is_same_v<decltype(&sym), decltype(&xshmem_##target)>, \
                #sym " is an alias of xshmem_" #target                      \
                     " but its prototype differs: "                         \
                     "make it an XSHMEMI_DEP_R entry of xshmem/compat_deprecated.h");
#define XSHMEMI_DEP_R(ret, sym, params)
#include <xshmem/compat_deprecated.h>
#undef XSHMEMI_DEP_R
#undef XSHMEMI_DEP_A
#pragma GCC diagnostic pop

static_assert(SHMEM_MALLOC_ATOMICS_REMOTE == XSHMEM_MALLOC_ATOMICS_REMOTE);
static_assert(SHMEM_MALLOC_SIGNAL_REMOTE == XSHMEM_MALLOC_SIGNAL_REMOTE);

}  // namespace

// ---- The R entries ------------------------------------------------------------------------------

// OpenSHMEM 1.6 stores the state; xshmem_query_initialized returns it.
extern "C" void pshmem_query_initialized(int *initialized) {
  if (initialized != nullptr) *initialized = xshmem_query_initialized();
}

// The profiling control: libxshmem does no profiling of its own, so every level is accepted and
// ignored (OpenSHMEM: "libraries make no use of this routine and simply return").
extern "C" void pshmem_pcontrol(const int level, ...) {
  static_cast<void>(level);
}

// OpenSHMEM 1.6 counts the PEs in a size_t, xshmem in an int: more than INT_MAX of them (a list
// with repeats) are completed in parts.
extern "C" void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes) {
  for (; npes > INT_MAX; npes -= INT_MAX, target_pes += INT_MAX)
    xshmem_ctx_pe_quiet(ctx, target_pes, INT_MAX);
  xshmem_ctx_pe_quiet(ctx, target_pes, static_cast<int>(npes));
}

extern "C" void pshmem_pe_quiet(const int *target_pes, size_t npes) {
  for (; npes > INT_MAX; npes -= INT_MAX, target_pes += INT_MAX)
    xshmem_pe_quiet(target_pes, INT_MAX);
  xshmem_pe_quiet(target_pes, static_cast<int>(npes));
}

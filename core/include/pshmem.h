/*
 * pshmem.h: the OpenSHMEM profiling interface. Every routine of <shmem.h> also exists as
 * pshmem_<name>, the same routine under a name that a profiling tool does not redefine: a tool
 * defines shmem_long_put (say), does its accounting and calls pshmem_long_put. In libxshmem both
 * names are linker aliases of xshmem_<name> (or, for the routines whose OpenSHMEM signature
 * differs from xshmem's, shmem_<name> is an alias of the real function pshmem_<name>); a tool's
 * own definition in the executable or in a library linked before libxshmem takes precedence.
 * Calls that libxshmem makes internally go to xshmem_ routines and are not seen by a tool. The
 * C11 type-generic interfaces are macros over the typed routines and have no pshmem_ form (the
 * typed routine they select is what a tool intercepts). shmem_pcontrol accepts and ignores every
 * level: a tool that wants the levels defines its own shmem_pcontrol.
 */
#ifndef XSHMEM_COMPAT_PSHMEM_H
#define XSHMEM_COMPAT_PSHMEM_H

/* The types and constants (shmem_ctx_t, SHMEM_CMP_EQ, ...). */
#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XSHMEMI_API_NORETURN __attribute__((noreturn))
#define XSHMEMI_API_A(ret, name, params) ret pshmem_##name params;
#define XSHMEMI_API_AC(ret, name, params) ret pshmem_##name params;
#define XSHMEMI_API_R(ret, name, params) ret pshmem_##name params;
#include <xshmem/compat_api.h>
#undef XSHMEMI_API_R
#undef XSHMEMI_API_AC
#undef XSHMEMI_API_A
#undef XSHMEMI_API_NORETURN

/* The deprecated routines: p<name> (pshmem_int_fadd, p_my_pe, pshmalloc, pstart_pes). */
#define XSHMEMI_DEP_A(ret, sym, params, target) ret p##sym params XSHMEMI_DEPRECATED;
#define XSHMEMI_DEP_R(ret, sym, params) ret p##sym params XSHMEMI_DEPRECATED;
#include <xshmem/compat_deprecated.h>
#undef XSHMEMI_DEP_R
#undef XSHMEMI_DEP_A

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_COMPAT_PSHMEM_H */

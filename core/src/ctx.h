// xshmem core: the context table (host side) behind xshmem_ctx_* (ctx.cc).
//
// A handle is <entry, team> (device/include/xshmem/device/ctx.h); entry 0 is XSHMEM_CTX_DEFAULT.
// Entries 1..XSHMEM_MAX_CONTEXTS hold this PE's created contexts: their team, options and, for
// XSHMEM_CTX_PRIVATE ones, the creating thread. Creation and destruction take a lock; operations
// read an entry without one (a context is not destroyed while its own operations run).
#ifndef XSHMEM_CORE_CTX_H
#define XSHMEM_CORE_CTX_H

#include <xshmem/types.h>

namespace xshmem::core::ctx {

// xshmem_team_destroy's hook, called on every member before the team's slot is released: in
// checked mode a XSHMEM_CTX_PRIVATE context of `team` still alive stops the job (OpenSHMEM: UB);
// then every context of `team` is completed and destroyed.
void on_team_destroy(const char *call, xshmem_team_t team);
// Forgets every context (the last finalize; called with the team table's reset).
void reset();

}  // namespace xshmem::core::ctx

#endif  // XSHMEM_CORE_CTX_H

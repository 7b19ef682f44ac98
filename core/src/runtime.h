// xshmem core: the runtime context (one per process) as the rest of the core sees it.
//
// init builds, in order: logger and config -> plugin loader -> bootstrap -> job info (host ids,
// local ranks) -> symmetric heap memory -> transports (heap_register, can_reach, selection,
// connect) -> path state. finalize undoes it in reverse order.
#ifndef XSHMEM_CORE_RUNTIME_H
#define XSHMEM_CORE_RUNTIME_H

#include <cstddef>
#include <cstdint>

#include <xshmem/device/state.h>
#include <xshmem/plugin/services_v1.h>
#include "status.h"

namespace xshmem::plugins {
class Loader;
}

namespace xshmem::core {

// Whether xshmem_init has completed and finalize has not.
bool initialized();
// The path state the host API runs on (valid while initialized()).
dev::state_t &state();
class Allocator;
// The symmetric heap's allocator (offsets from state().heap_base).
Allocator &heap_allocator();
// The process's plugin loader; with scan, scans the plugin folders first (idempotent).
const plugins::Loader &plugin_loader(bool scan);
// The services table given to plugins.
const xshmem_core_services_v1_t *services();

// Stops the whole job: logs `msg` at error level, asks the bootstrap to make every PE exit with
// `exit_code`, and exits. Safe before the bootstrap is up (then exits this process only).
[[noreturn]] void fatal(int exit_code, const char *subsys, const char *msg);

// Out-of-band collectives over the bootstrap (slow; init, heap management, tests' agreement).
Status oob_allgather(const void *in, void *out, size_t len_per_pe);
Status oob_barrier();

// World synchronisation on the data path (dissemination over the path code): every PE arrives
// before any leaves. quiet first for barrier semantics.
void world_sync();

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_RUNTIME_H

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
// As fatal, for a `msg` the caller has printed on stderr already (checked-mode and device
// diagnostics): the log repeats it only where it does not go to stderr, and the bootstrap's
// abort reason points at the line instead of copying it, so the job prints it once.
[[noreturn]] void fatal_printed(int exit_code, const char *subsys, const char *msg);

// Out-of-band collectives over the bootstrap (slow; init, heap management, tests' agreement).
Status oob_allgather(const void *in, void *out, size_t len_per_pe);
Status oob_barrier();

// Publishes state() again to GPU kernels after a change of its tables (teams): a new device
// copy, and every kernel module's copy of the state refreshed.
Status republish_state();

// World synchronisation on the data path (dissemination over the path code): every PE arrives
// before any leaves. quiet first for barrier semantics.
void world_sync();

// Collective, with the same `bytes` on every PE: makes physical memory back the heap's
// [0, bytes) on every PE and tells every transport (heap_grow). A no-op for host heaps and for
// bytes already backed. Fails on every PE alike (XSHMEM_ERR_NOMEM when a GPU is out of memory).
Status heap_grow(size_t bytes);

// ---- GPU heaps (XSHMEM_HEAP=device, or auto with a usable GPU). Implemented in cuda/; in a
// build without CUDA they report no GPU heap (false, -1, nullptr, 0).

// Whether this PE's symmetric heap is GPU memory. Then the host cannot load or store it: the
// host API copies through internal_stream() instead of running the LSA path code.
bool heap_on_device();
// Whether CUDA loads modules lazily in this process (CUDA_MODULE_LOADING, LAZY by default since
// CUDA 12.2); false without a driver.
bool lazy_module_loading();
// The CUDA device ordinal (runtime numbering) holding the heap, or -1.
int cuda_device();
// A cudaStream_t (non-blocking) created at init for host-initiated copies to and from GPU heaps,
// or nullptr. The runtime's own copies (calloc, realloc) also run on it.
void *internal_stream();
// A device-memory copy of state() for kernels: the same state_t with `peers` pointing at a
// device-memory copy of the peers table (LSA bases are the nvlink mappings, valid in this
// process's GPU address space), `internal` at the heap base, and the host-only fields
// (on_bad_path, transport_names) NULL. nullptr unless heap_on_device(). Rebuilt (at a new
// address) whenever the path state changes; device_state_version() then increases.
const dev::state_t *device_state();
uint64_t device_state_version();

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_RUNTIME_H

// xshmem core: the executable's global and static variables as symmetric memory (CPU PEs).
//
// OpenSHMEM makes the program's writable data (.data, .bss) symmetric: a put may target a global
// array by its address, as if it came from the symmetric heap. xshmem does it on host heaps by
// backing those pages with the heap's own memfd:
//
//   heap memfd:     [ heap (XSHMEM_SYMMETRIC_SIZE + internal) | globals window (segment bytes) ]
//   heap mapping:   heap_base ........................ heap_base + window_offset ... (one map)
//   executable:                                         segment.base  (the same window pages)
//
// At init the executable's writable segment (its RELRO part excluded) is copied into the window
// and the copy is moved over the segment (mremap, so the addresses never go unmapped); the heap
// mapping covers the window too. Every transport then sees one region, heap plus window, and
// serves both with no change: hostshm maps it whole, libfabric and the ibgda model register it
// whole. The path code translates a global's address into the window (state_t::globals_*,
// heap_offset and in_heap in <xshmem/device/state.h>); every PE runs the same executable, so a
// global is at the same window offset everywhere. At the last finalize the segment goes back to
// private anonymous memory with its contents (the program keeps using its globals).
//
// Not symmetric: shared libraries' globals (only the executable's segment moves), thread-locals
// (each thread's own block), and everything on GPU PEs (the heap is GPU memory; NVSHMEM has no
// symmetric globals either). A fork()ed child shares the globals' pages with its parent until it
// execs (the mapping is shared).
#ifndef XSHMEM_CORE_GLOBALS_H
#define XSHMEM_CORE_GLOBALS_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "status.h"

namespace xshmem::core::globals {

// The executable's writable segment, page aligned: [base, base + size).
struct Segment {
  uintptr_t base = 0;
  size_t size = 0;
  // The segment's link-time address (p_vaddr of its PT_LOAD, RELRO part excluded): the same on
  // every PE that runs the same executable, whatever the load address.
  uint64_t link_addr = 0;
  explicit operator bool() const { return size != 0; }
  bool contains(const void *p) const { return reinterpret_cast<uintptr_t>(p) - base < size; }
};

// Finds the main executable's writable segment. An empty segment, with `why` saying why, when
// there is none or it is not entirely mapped read-write.
Segment find_executable(std::string *why);

// Moves `seg` onto `fd` at `fd_offset` (fd_offset + seg.size within the file): the contents are
// copied, then the file's pages replace the segment's at the same addresses.
Status attach(const Segment &seg, int fd, size_t fd_offset);

// Undoes attach: the segment is private anonymous memory again, with the same contents.
Status detach(const Segment &seg);

}  // namespace xshmem::core::globals

#endif  // XSHMEM_CORE_GLOBALS_H

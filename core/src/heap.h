// xshmem core: the symmetric heap.
//
// Two halves: HeapMemory owns the bytes (host heaps: a memfd mapped MAP_SHARED, so node peers can
// map the same pages; GPU heaps: a CUDA virtual range committed in chunks on demand, see
// cuda/cuda_heap.cc), and Allocator hands out offsets. Allocation is
// collective with identical arguments on every PE, and the allocator is deterministic, so every PE
// computes the same offset without communicating -- and fails on every PE alike.
#ifndef XSHMEM_CORE_HEAP_H
#define XSHMEM_CORE_HEAP_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <xshmem/plugin/transport_v1.h>
#include "globals.h"
#include "status.h"

namespace xshmem::core {

// Offsets in [0, capacity). Blocks are multiples of kGranule and aligned to at least kGranule.
class Allocator {
 public:
  static constexpr size_t kGranule = 64;

  void reset(size_t capacity);
  // First fit at the lowest offset that satisfies `align` (power of two).
  std::optional<size_t> alloc(size_t size, size_t align);
  enum class FreeResult { kOk, kDoubleFree, kInterior, kNotAllocated };
  FreeResult release(size_t offset);
  // Tries to resize the block at `offset` in place (shrink, or grow into the free block after it).
  bool resize_in_place(size_t offset, size_t new_size);
  // Size of the live block starting at `offset`, or 0.
  size_t block_size(size_t offset) const;
  size_t bytes_in_use() const { return in_use_; }
  size_t capacity() const { return capacity_; }
  size_t largest_free() const;

 private:
  static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
  void insert_free(size_t off, size_t size);  // merges with neighbours
  size_t capacity_ = 0, in_use_ = 0;
  std::map<size_t, size_t> free_;  // offset -> size
  std::map<size_t, size_t> used_;  // offset -> size
  std::set<size_t> freed_;         // starts of blocks freed since last reuse (double-free check)
};

// Memory for a symmetric heap. Host heaps: a memfd of `size` bytes mapped shared, whole from the
// start. Device heaps (CUDA builds): one reserved virtual range on a GPU, physical memory
// committed from offset 0 upwards in chunks (commit), each exported as a POSIX descriptor that
// transports pass to node peers (heap_grow) before close_chunk_fds.
class HeapMemory {
 public:
  // Every heap starts at a multiple of this, so offsets aligned to any alignment up to it are
  // aligned addresses on every PE (xshmem_align).
  static constexpr size_t kBaseAlign = size_t(1) << 30;
  // One committed piece of a device heap.
  struct Chunk {
    size_t offset = 0, size = 0;
    int fd = -1;          // exported POSIX descriptor until close_chunk_fds, then -1
    uint64_t handle = 0;  // CUmemGenericAllocationHandle
  };
  HeapMemory() = default;
  HeapMemory(const HeapMemory &) = delete;
  HeapMemory &operator=(const HeapMemory &) = delete;
  ~HeapMemory() { release(); }
  Status create_host(size_t size);
  // Reserves a device heap of at least `size` bytes on CUDA device `device` (the current device
  // of the calling thread); commits nothing. Chunks are `chunk_size` bytes (the first only as
  // large as the first commit needs), multiples of `granularity`. Defined in cuda/ (fails with
  // XSHMEM_ERR_UNSUPPORTED without CUDA).
  Status create_device(size_t size, int device, size_t granularity, size_t chunk_size);
  // Device heaps: commits chunks until [0, bytes) is backed (no-op for host heaps, or when it
  // already is). The new chunks keep their descriptors open until close_chunk_fds.
  Status commit(size_t bytes);
  // Device heaps: releases the chunks after the first `nchunks` (undoes a commit).
  void uncommit(size_t nchunks);
  void close_chunk_fds();
  void release();
  void *base() const { return base_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }
  bool on_device() const { return device_ >= 0; }
  int device() const { return device_; }
  // Bytes from offset 0 that physical memory backs (size() for host heaps).
  size_t committed() const { return on_device() ? committed_ : size_; }
  const std::vector<Chunk> &chunks() const { return chunks_; }
  xshmem_mem_region_v1_t region() const;
  // Host heaps created with room for it: backs the executable's data with the heap's pages from
  // `offset` on (the globals window, globals.h); release() gives the data back to private
  // memory first.
  Status attach_globals(const globals::Segment &seg, size_t offset);
  const globals::Segment &globals() const { return globals_; }
  size_t globals_offset() const { return globals_offset_; }

 private:
  void release_device();  // cuda/
  void *base_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
  globals::Segment globals_;  // attached, or empty
  size_t globals_offset_ = 0;
  // Device heaps.
  int device_ = -1;
  size_t granularity_ = 0, chunk_size_ = 0, committed_ = 0;
  uintptr_t reserve_base_ = 0;  // the whole reservation (base_ is aligned inside it)
  size_t reserve_size_ = 0;
  std::vector<Chunk> chunks_;
};

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_HEAP_H

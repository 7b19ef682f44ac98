// xshmem core: the symmetric heap.
//
// Two halves: HeapMemory owns the bytes (host heaps: a memfd mapped MAP_SHARED, so node peers can
// map the same pages; GPU heaps come later), and Allocator hands out offsets. Allocation is
// collective with identical arguments on every PE, and the allocator is deterministic, so every PE
// computes the same offset without communicating -- and fails on every PE alike.
#ifndef XSHMEM_CORE_HEAP_H
#define XSHMEM_CORE_HEAP_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include <xshmem/plugin/transport_v1.h>
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

// Host memory for a symmetric heap: a memfd of `size` bytes mapped shared.
class HeapMemory {
 public:
  // Every heap starts at a multiple of this, so offsets aligned to any alignment up to it are
  // aligned addresses on every PE (xshmem_align).
  static constexpr size_t kBaseAlign = size_t(1) << 30;
  HeapMemory() = default;
  HeapMemory(const HeapMemory &) = delete;
  HeapMemory &operator=(const HeapMemory &) = delete;
  ~HeapMemory() { release(); }
  Status create_host(size_t size);
  void release();
  void *base() const { return base_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }
  xshmem_mem_region_v1_t region() const;

 private:
  void *base_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
};

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_HEAP_H

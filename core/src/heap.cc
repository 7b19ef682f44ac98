// xshmem core: symmetric heap memory, allocator, and the collective allocation API.
#include "heap.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <xshmem/xshmem.h>
#include "checks.h"
#include "cuda/cuda_rt.h"
#include "log.h"
#include "team.h"
#include "runtime.h"

namespace xshmem::core {

// ---- Allocator ----------------------------------------------------------------------------------

void Allocator::reset(size_t capacity) {
  capacity_ = capacity / kGranule * kGranule;
  in_use_ = 0;
  free_.clear();
  used_.clear();
  freed_.clear();
  if (capacity_ > 0) free_[0] = capacity_;
}

void Allocator::insert_free(size_t off, size_t size) {
  auto next = free_.lower_bound(off);
  if (next != free_.end() && off + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += size;
      return;
    }
  }
  free_[off] = size;
}

std::optional<size_t> Allocator::alloc(size_t size, size_t align) {
  if (size == 0 || size > capacity_) return std::nullopt;
  if (align < kGranule) align = kGranule;
  size = round_up(size, kGranule);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    size_t start = round_up(it->first, align);
    size_t end = it->first + it->second;
    if (start > end || end - start < size) continue;
    size_t fstart = it->first, fsize = it->second;
    free_.erase(it);
    if (start > fstart) free_[fstart] = start - fstart;
    if (start + size < fstart + fsize) free_[start + size] = fstart + fsize - (start + size);
    used_[start] = size;
    in_use_ += size;
    // Any freed block start inside the new block is live memory again.
    freed_.erase(freed_.lower_bound(start), freed_.lower_bound(start + size));
    return start;
  }
  return std::nullopt;
}

Allocator::FreeResult Allocator::release(size_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) {
    if (freed_.count(offset)) return FreeResult::kDoubleFree;
    auto after = used_.upper_bound(offset);
    if (after != used_.begin()) {
      auto blk = std::prev(after);
      if (offset < blk->first + blk->second) return FreeResult::kInterior;
    }
    return FreeResult::kNotAllocated;
  }
  size_t size = it->second;
  used_.erase(it);
  in_use_ -= size;
  insert_free(offset, size);
  freed_.insert(offset);
  return FreeResult::kOk;
}

bool Allocator::resize_in_place(size_t offset, size_t new_size) {
  auto it = used_.find(offset);
  if (it == used_.end() || new_size == 0) return false;
  new_size = round_up(new_size, kGranule);
  size_t old = it->second;
  if (new_size <= old) {
    if (new_size < old) {
      it->second = new_size;
      in_use_ -= old - new_size;
      insert_free(offset + new_size, old - new_size);
    }
    return true;
  }
  auto nf = free_.find(offset + old);
  if (nf == free_.end() || old + nf->second < new_size) return false;
  size_t extra = new_size - old, fsize = nf->second;
  free_.erase(nf);
  if (fsize > extra) free_[offset + new_size] = fsize - extra;
  it->second = new_size;
  in_use_ += extra;
  return true;
}

size_t Allocator::block_size(size_t offset) const {
  auto it = used_.find(offset);
  return it == used_.end() ? 0 : it->second;
}

size_t Allocator::largest_free() const {
  size_t best = 0;
  for (auto &[off, size] : free_) best = size > best ? size : best;
  return best;
}

// ---- HeapMemory ---------------------------------------------------------------------------------

Status HeapMemory::create_host(size_t size) {
  // A memfd rather than a named segment: nothing to unlink if a PE dies, no /dev/shm size cap,
  // and peers get the pages by descriptor passing (node_fd_exchange).
  fd_ = memfd_create("xshmem-heap", MFD_CLOEXEC);
  if (fd_ < 0) {
    XLOG_ERROR("heap", "memfd_create failed: %s", strerror(errno));
    return XSHMEM_ERR_IO;
  }
  if (ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    XLOG_ERROR("heap", "cannot size the heap to %zu bytes: %s; lower XSHMEM_SYMMETRIC_SIZE", size,
               strerror(errno));
    release();
    return XSHMEM_ERR_NOMEM;
  }
  // The allocator aligns offsets; for xshmem_align to return aligned *addresses* that are the
  // same offset on every PE, every PE's base must be aligned at least as much. Reserve address
  // space with slack, then map the heap at a kBaseAlign boundary inside it.
  const size_t span = size + kBaseAlign;
  void *r = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) {
    XLOG_ERROR("heap", "cannot reserve %zu bytes of address space: %s; lower XSHMEM_SYMMETRIC_SIZE",
               span, strerror(errno));
    release();
    return XSHMEM_ERR_NOMEM;
  }
  const uintptr_t lo = reinterpret_cast<uintptr_t>(r);
  const uintptr_t aligned = (lo + kBaseAlign - 1) & ~(uintptr_t)(kBaseAlign - 1);
  void *p = mmap(reinterpret_cast<void *>(aligned), size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | MAP_FIXED, fd_, 0);
  if (p == MAP_FAILED) {
    XLOG_ERROR("heap", "cannot map %zu bytes of heap: %s; lower XSHMEM_SYMMETRIC_SIZE", size,
               strerror(errno));
    munmap(r, span);
    release();
    return XSHMEM_ERR_NOMEM;
  }
  if (aligned > lo) munmap(r, aligned - lo);
  if (lo + span > aligned + size)
    munmap(reinterpret_cast<void *>(aligned + size), lo + span - (aligned + size));
  base_ = p;
  size_ = size;
  return XSHMEM_SUCCESS;
}

Status HeapMemory::attach_globals(const globals::Segment &seg, size_t offset) {
  if (on_device() || fd_ < 0 || offset + seg.size > size_) return XSHMEM_ERR_INTERNAL;
  XSHMEM_CHECK(globals::attach(seg, fd_, offset));
  globals_ = seg;
  globals_offset_ = offset;
  return XSHMEM_SUCCESS;
}

void HeapMemory::release() {
  if (globals_) {
    // The program keeps its globals after finalize: back to private memory, contents kept. A
    // failure leaves them on the heap's pages (the memfd lives on in that mapping): still
    // correct for this process.
    (void)globals::detach(globals_);
    globals_ = {};
    globals_offset_ = 0;
  }
  if (on_device()) {
    release_device();
    return;
  }
  if (base_) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
  base_ = nullptr;
  size_ = 0;
  fd_ = -1;
}

xshmem_mem_region_v1_t HeapMemory::region() const {
  xshmem_mem_region_v1_t r{};
  r.struct_size = sizeof(r);
  r.kind = on_device() ? XSHMEM_MEM_DEVICE : XSHMEM_MEM_HOST;
  r.base = base_;
  r.size = size_;
  r.fd = fd_;
  r.device = device_;
  r.granularity = on_device() ? granularity_ : 0;
  return r;
}

}  // namespace xshmem::core

// ---- Public API ---------------------------------------------------------------------------------

using namespace xshmem::core;
using xshmem::Status;

namespace {

void *heap_addr(size_t off) {
  return reinterpret_cast<char *>(state().heap_base) + off;
}

void *alloc_collective(const char *call, size_t size, size_t align, bool zero) {
  check_init(call);
  if (size == 0) return nullptr;  // no action, no barrier (OpenSHMEM)
  // ERR-06: arguments that differ between PEs would give blocks at different offsets.
  if (checks_enabled() &&
      !team::args_agree(XSHMEM_TEAM_WORLD, team::mix(team::mix(size, align), zero ? 1 : 0)))
    check_fail(call,
               "size %zu (alignment %zu) differs between PEs; collective allocations need "
               "identical arguments on every PE",
               size, align);
  Allocator &a = heap_allocator();
  auto off = a.alloc(size, align);
  if (!off) {
    XLOG_WARN("heap",
              "%s: %zu bytes do not fit in the symmetric heap (%zu of %zu in use, largest free "
              "block %zu); raise XSHMEM_SYMMETRIC_SIZE",
              call, size, a.bytes_in_use(), a.capacity(), a.largest_free());
    // Every PE fails alike (deterministic allocator, identical arguments): still synchronise so
    // the call has the same barrier semantics whatever its outcome.
    xshmem_barrier_all();
    return nullptr;
  }
  // Device heaps commit physical memory on demand; every PE computes the same block, so every
  // PE grows alike (heap_grow agrees on failure, so the call fails everywhere or nowhere).
  if (Status st = heap_grow(*off + a.block_size(*off)); !st.ok()) {
    (void)a.release(*off);
    XLOG_WARN("heap",
              "%s: cannot commit GPU memory for %zu bytes at heap offset %zu (%s); free memory "
              "on the GPU or lower the application's use",
              call, size, *off, st.str());
    xshmem_barrier_all();
    return nullptr;
  }
  void *p = heap_addr(*off);
  if (zero) {
    if (heap_on_device()) {
      if (Status st = xshmem::cuda::memset_sync(p, 0, size); !st.ok()) {
        char msg[160];
        snprintf(msg, sizeof(msg), "%s: zeroing %zu bytes of GPU heap failed (%s)", call, size,
                 st.str());
        fatal(1, "heap", msg);
      }
    } else {
      memset(p, 0, size);
    }
  }
  xshmem_barrier_all();  // barrier on exit: peers may access the block right away
  return p;
}

// Validates `ptr` for free/realloc and returns its offset.
size_t checked_offset(const char *call, void *ptr) {
  const auto &s = state();
  if (xshmem::dev::in_globals(s, ptr, 0))
    check_fail(call, "ptr %p is a global variable, not a symmetric allocation", ptr);
  if (!xshmem::dev::in_heap(s, ptr, 0) ||
      ptr == reinterpret_cast<void *>(s.heap_base + s.heap_size))
    check_fail(call, "ptr %p is not a symmetric allocation (not in the symmetric heap)", ptr);
  return xshmem::dev::heap_offset(s, ptr);
}

void release_checked(const char *call, void *ptr, size_t off) {
  switch (heap_allocator().release(off)) {
    case Allocator::FreeResult::kOk:
      return;
    case Allocator::FreeResult::kDoubleFree:
      check_fail(call, "ptr %p: double free (the block was already freed)", ptr);
    case Allocator::FreeResult::kInterior:
      check_fail(call, "ptr %p is not a symmetric allocation (it points inside a block)", ptr);
    case Allocator::FreeResult::kNotAllocated:
      check_fail(call, "ptr %p is not a symmetric allocation (no block starts there)", ptr);
  }
}

}  // namespace

extern "C" {

void *xshmem_malloc(size_t size) {
  return alloc_collective("xshmem_malloc", size, 0, false);
}

void *xshmem_malloc_with_hints(size_t size, long hints) {
  (void)hints;  // hints are advisory; every hint (known or not) gets ordinary heap memory
  return alloc_collective("xshmem_malloc_with_hints", size, 0, false);
}

void *xshmem_calloc(size_t count, size_t size) {
  if (count != 0 && size > SIZE_MAX / count) {
    check_init("xshmem_calloc");
    check_fail("xshmem_calloc", "count %zu * size %zu overflows", count, size);
  }
  return alloc_collective("xshmem_calloc", count * size, 0, true);
}

void *xshmem_align(size_t alignment, size_t size) {
  check_init("xshmem_align");
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    check_fail("xshmem_align", "alignment %zu is not a power of two", alignment);
  if (alignment > HeapMemory::kBaseAlign)
    check_fail("xshmem_align", "alignment %zu exceeds the largest supported (%zu)", alignment,
               HeapMemory::kBaseAlign);
  return alloc_collective("xshmem_align", size, alignment, false);
}

void xshmem_free(void *ptr) {
  if (ptr == nullptr) return;  // no-op, no barrier
  check_init("xshmem_free");
  size_t off = checked_offset("xshmem_free", ptr);
  if (heap_allocator().block_size(off) == 0) release_checked("xshmem_free", ptr, off);
  xshmem_barrier_all();  // barrier on entry: peers' accesses to the block are complete
  release_checked("xshmem_free", ptr, off);
}

void *xshmem_realloc(void *ptr, size_t size) {
  if (ptr == nullptr) return alloc_collective("xshmem_realloc", size, 0, false);
  if (size == 0) {
    xshmem_free(ptr);
    return nullptr;
  }
  check_init("xshmem_realloc");
  size_t off = checked_offset("xshmem_realloc", ptr);
  Allocator &a = heap_allocator();
  size_t old = a.block_size(off);
  if (old == 0) release_checked("xshmem_realloc", ptr, off);  // diagnoses and stops
  xshmem_barrier_all();  // entry: peers are done with the old contents
  void *result = ptr;
  if (!a.resize_in_place(off, size)) {
    auto noff = a.alloc(size, 0);
    if (noff && !heap_grow(*noff + a.block_size(*noff)).ok()) {
      (void)a.release(*noff);
      noff.reset();
    }
    if (!noff) {
      XLOG_WARN("heap", "xshmem_realloc: %zu bytes do not fit; the block is left as it was", size);
      result = nullptr;
    } else {
      result = heap_addr(*noff);
      size_t n = old < size ? old : size;
      if (heap_on_device()) {
        if (Status st = xshmem::cuda::copy_sync(result, ptr, n); !st.ok()) {
          char msg[160];
          snprintf(msg, sizeof(msg), "xshmem_realloc: copying %zu bytes of GPU heap failed (%s)", n,
                   st.str());
          fatal(1, "heap", msg);
        }
      } else {
        memmove(result, ptr, n);
      }
      (void)a.release(off);
    }
  } else if (!heap_grow(off + a.block_size(off)).ok()) {
    // Grown in place past the committed memory and the commit failed: shrink back.
    (void)a.resize_in_place(off, old);
    XLOG_WARN("heap",
              "xshmem_realloc: cannot commit GPU memory for %zu bytes; the block is left "
              "as it was",
              size);
    result = nullptr;
  }
  xshmem_barrier_all();  // exit: the new block is ready everywhere
  return result;
}

}  // extern "C"

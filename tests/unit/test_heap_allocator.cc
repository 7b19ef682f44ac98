// Unit tests of the symmetric heap's offset allocator (core/src/heap.h).
#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "../catch_compat.h"
#include "heap.h"

using xshmem::core::Allocator;

TEST_CASE("allocator: first fit, granule rounding, alignment", "[heap]") {
  Allocator a;
  a.reset(1 << 20);
  auto p = a.alloc(1, 0);
  REQUIRE(p);
  CHECK(*p == 0);
  CHECK(a.block_size(*p) == Allocator::kGranule);
  auto q = a.alloc(100, 0);
  REQUIRE(q);
  CHECK(*q == Allocator::kGranule);
  CHECK(a.block_size(*q) == 128);
  for (size_t align : {size_t(128), size_t(4096), size_t(65536)}) {
    auto r = a.alloc(7, align);
    REQUIRE(r);
    CHECK(*r % align == 0);
  }
  CHECK_FALSE(a.alloc(0, 0));
  CHECK_FALSE(a.alloc((1 << 20) + 1, 0));
}

TEST_CASE("allocator: free coalesces and usage returns to baseline", "[heap]") {
  Allocator a;
  a.reset(1 << 16);
  std::vector<size_t> offs;
  for (int i = 0; i < 16; ++i) offs.push_back(*a.alloc(64 * (i % 3 + 1), 0));
  // Free even then odd indices: neighbours must merge back into one block.
  for (size_t i = 0; i < offs.size(); i += 2)
    CHECK(a.release(offs[i]) == Allocator::FreeResult::kOk);
  for (size_t i = 1; i < offs.size(); i += 2)
    CHECK(a.release(offs[i]) == Allocator::FreeResult::kOk);
  CHECK(a.bytes_in_use() == 0);
  CHECK(a.largest_free() == a.capacity());
}

TEST_CASE("allocator: misuse is classified", "[heap]") {
  Allocator a;
  a.reset(1 << 16);
  size_t p = *a.alloc(256, 0);
  CHECK(a.release(p + 64) == Allocator::FreeResult::kInterior);
  CHECK(a.release(p) == Allocator::FreeResult::kOk);
  CHECK(a.release(p) == Allocator::FreeResult::kDoubleFree);
  CHECK(a.release(p + 4096) == Allocator::FreeResult::kNotAllocated);
  // Reusing the space makes the old start live again: no stale double-free verdict.
  size_t r = *a.alloc(64, 0);
  CHECK(r == p);
  CHECK(a.release(r) == Allocator::FreeResult::kOk);
}

TEST_CASE("allocator: exhaustion and maximum fit", "[heap]") {
  Allocator a;
  a.reset(1 << 20);
  CHECK_FALSE(a.alloc((1 << 20) + 64, 0));
  auto all = a.alloc(1 << 20, 0);
  REQUIRE(all);
  CHECK_FALSE(a.alloc(64, 0));
  CHECK(a.release(*all) == Allocator::FreeResult::kOk);
}

TEST_CASE("allocator: resize in place", "[heap]") {
  Allocator a;
  a.reset(1 << 16);
  size_t p = *a.alloc(128, 0);
  size_t q = *a.alloc(128, 0);
  CHECK_FALSE(a.resize_in_place(p, 512));  // q is in the way
  CHECK(a.resize_in_place(q, 1024));       // free space after q
  CHECK(a.block_size(q) == 1024);
  CHECK(a.resize_in_place(q, 64));  // shrink
  CHECK(a.block_size(q) == 64);
  CHECK(a.bytes_in_use() == 128 + 64);
}

TEST_CASE("allocator: deterministic across instances (symmetry)", "[heap]") {
  // Every PE runs its own allocator on the same call sequence and must get the same offsets.
  Allocator a, b;
  a.reset(64 << 20);
  b.reset(64 << 20);
  std::mt19937_64 rng(1234);
  std::vector<size_t> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      size_t k = rng() % live.size();
      CHECK(a.release(live[k]) == b.release(live[k]));
      live.erase(live.begin() + static_cast<long>(k));
      continue;
    }
    size_t size = 1 + rng() % 70000, align = size_t(1) << (rng() % 14);
    auto x = a.alloc(size, align), y = b.alloc(size, align);
    REQUIRE(x.has_value() == y.has_value());
    if (x) {
      CHECK(*x == *y);
      CHECK(*x % std::max(align, Allocator::kGranule) == 0);
      live.push_back(*x);
    }
  }
}

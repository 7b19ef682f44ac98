// Helpers shared by the unit tests of the path code: PE-dependent test data and poison checks.
#ifndef XSHMEM_TESTS_UNIT_TEST_PATTERN_H
#define XSHMEM_TESTS_UNIT_TEST_PATTERN_H

#include <cstddef>
#include <cstdint>

namespace xt {

// A 64-bit value mixed from up to four integers (splitmix64's finalizer): fresh data per PE,
// offset and iteration.
inline uint64_t mix(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) ^ (c << 17) ^ (d << 41);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// How many of the n bytes at p no longer hold `poison`.
inline size_t unpoisoned(const unsigned char *p, size_t n, unsigned char poison) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += p[i] != poison;
  return bad;
}

}  // namespace xt

#endif  // XSHMEM_TESTS_UNIT_TEST_PATTERN_H

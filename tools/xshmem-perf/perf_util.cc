// xshmem-perf: the metric context, statistics and data patterns.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include <xshmem/xshmemx.h>

#include "perf.h"

namespace xshmem::perf {

std::vector<size_t> Context::sizes() const {
  std::vector<size_t> out;
  const size_t step = std::max(2u, opt.size_step);
  for (size_t s = std::max<size_t>(opt.min_size, 1); s <= opt.max_size; s *= step) {
    out.push_back(s);
    if (s > opt.max_size / step) break;
  }
  if (out.empty() || out.back() != opt.max_size) out.push_back(opt.max_size);
  return out;
}

void Context::record(const std::string &metric, size_t size, std::vector<double> per_rep,
                     const std::string &unit, uint64_t iters, bool verified, std::string note) {
  if (!verified) ++failures_;
  if (me != 0 || per_rep.empty()) return;
  Sample s;
  s.metric = metric;
  s.size = size;
  s.min = *std::min_element(per_rep.begin(), per_rep.end());
  s.max = *std::max_element(per_rep.begin(), per_rep.end());
  s.reps = static_cast<unsigned>(per_rep.size());
  s.values = per_rep;
  s.median = median(std::move(per_rep));
  s.unit = unit;
  s.iters = iters;
  s.verified = verified;
  s.note = std::move(note);
  s.transport = transport;
  if (opt.progress)
    std::fprintf(stderr,
                 "xshmem-perf: %s size %zu: median %.4g %s (min %.4g, max %.4g, %u reps)%s%s%s\n",
                 s.metric.c_str(), s.size, s.median, s.unit.c_str(), s.min, s.max, s.reps,
                 s.verified ? "" : " FAILED", s.note.empty() ? "" : "; ", s.note.c_str());
  samples_.push_back(std::move(s));
}

void Context::record_value(const std::string &metric, size_t size, double value,
                           const std::string &unit, bool verified, std::string note) {
  record(metric, size, {value}, unit, 1, verified, std::move(note));
}

bool Context::all_ok(bool local_ok) {
  int mine = local_ok ? 1 : 0;
  std::vector<int> all(static_cast<size_t>(npes));
  if (xshmemx_oob_allgather(&mine, all.data(), sizeof(int)) != 0) {
    std::fprintf(stderr, "xshmem-perf: pe %d: out-of-band allgather of check results failed\n", me);
    return false;
  }
  return std::all_of(all.begin(), all.end(), [](int v) { return v == 1; });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {
uint64_t mix(uint64_t seed) {
  return seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
}
uint8_t tail_byte(uint64_t seed, size_t i) {
  return static_cast<uint8_t>((mix(seed) >> 56) + i);
}
}  // namespace

void fill_pattern(void *buf, size_t n, uint64_t seed) {
  const uint64_t base = mix(seed);
  const size_t words = n / 8;
  auto *b = static_cast<uint8_t *>(buf);
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = base + i;
    std::memcpy(b + 8 * i, &w, 8);  // buffers need not be 8-byte aligned
  }
  for (size_t i = words * 8; i < n; ++i) b[i] = tail_byte(seed, i);
}

size_t verify_pattern(const void *buf, size_t n, uint64_t seed) {
  const uint64_t base = mix(seed);
  const size_t words = n / 8;
  const auto *b = static_cast<const uint8_t *>(buf);
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, b + 8 * i, 8);
    if (w != base + i) {
      uint64_t e = base + i;
      const auto *eb = reinterpret_cast<const uint8_t *>(&e);
      for (size_t k = 0; k < 8; ++k)
        if (b[8 * i + k] != eb[k]) return 8 * i + k;
    }
  }
  for (size_t i = words * 8; i < n; ++i)
    if (b[i] != tail_byte(seed, i)) return i;
  return SIZE_MAX;
}

std::string format_size(size_t bytes) {
  static const char *const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  size_t v = bytes;
  while (u + 1 < std::size(kUnits) && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + " " + kUnits[u];
}

}  // namespace xshmem::perf

// Transport selection (docs/semantics.md "Selection"): with the overrides of the CTest entry in
// the environment (XSHMEM_PAIR_TRANSPORTS, XSHMEM_REMOTE_TRANSPORT, XSHMEM_TRANSPORTS), init
// succeeds, every peer is served by XT_EXPECT_TRANSPORT (default hostshm), and the data path to
// every peer works: each PE puts values derived from (source, target, index) into every PE's
// slot, between guard words, then checks its slots and guards. No Catch2 harness: init itself is
// under test. The error paths (init fails, naming the pair and the transport) are CTest entries
// that run this program and check its output (expect_run.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

namespace {

int g_fails = 0;

#define EXPECT(cond, ...)                                                \
  do {                                                                   \
    if (!(cond)) {                                                       \
      ++g_fails;                                                         \
      std::fprintf(stderr, "pe %d: FAILED %s: ", xshmem_my_pe(), #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                 \
      std::fprintf(stderr, "\n");                                        \
    }                                                                    \
  } while (0)

int64_t value(int src, int dst, uint64_t idx) {
  uint64_t h = 0x5e1ec7;
  for (uint64_t x : {static_cast<uint64_t>(src), static_cast<uint64_t>(dst), idx}) {
    h += x + 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
  }
  return static_cast<int64_t>(h);
}

constexpr int64_t kGuard = 0x6a7a7a7a7a7a7a6a;
constexpr size_t kLen = 32;  // values per (source, target) slot

}  // namespace

int main() {
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const char *want_env = std::getenv("XT_EXPECT_TRANSPORT");
  const std::string want = want_env && *want_env ? want_env : "hostshm";
  for (int pe = 0; pe < n; ++pe) {
    const char *t = xshmemx_transport_name(pe);
    EXPECT(t != nullptr && want == t, "transport to pe %d is %s, expected %s", pe, t ? t : "(none)",
           want.c_str());
  }
  // Layout: guard, then per source PE a slot of kLen values followed by a guard.
  const size_t words = 1 + size_t(n) * (kLen + 1);
  auto *buf = static_cast<int64_t *>(xshmem_malloc(words * sizeof(int64_t)));
  EXPECT(buf != nullptr, "xshmem_malloc(%zu) returned NULL", words * sizeof(int64_t));
  if (buf == nullptr) return 1;
  for (size_t i = 0; i < words; ++i) buf[i] = kGuard;
  for (int src = 0; src < n; ++src)
    for (size_t i = 0; i < kLen; ++i) buf[1 + size_t(src) * (kLen + 1) + i] = -1;
  xshmem_barrier_all();
  std::vector<int64_t> out(kLen);
  for (int pe = 0; pe < n; ++pe) {
    for (size_t i = 0; i < kLen; ++i) out[i] = value(me, pe, i);
    xshmem_int64_put(buf + 1 + size_t(me) * (kLen + 1), out.data(), kLen, pe);
  }
  xshmem_barrier_all();
  for (int src = 0; src < n; ++src) {
    size_t bad = 0;
    for (size_t i = 0; i < kLen; ++i) {
      int64_t got = buf[1 + size_t(src) * (kLen + 1) + i];
      if (got != value(src, me, i) && ++bad == 1)
        EXPECT(false, "element %zu from pe %d is %lld, expected %lld", i, src,
               static_cast<long long>(got), static_cast<long long>(value(src, me, i)));
    }
    EXPECT(buf[(size_t(src) + 1) * (kLen + 1)] == kGuard, "guard after pe %d's slot overwritten",
           src);
  }
  EXPECT(buf[0] == kGuard, "leading guard overwritten");
  xshmem_free(buf);
  xshmem_finalize();
  if (g_fails == 0) std::printf("pe %d: selection ok (%d pes, all %s)\n", me, n, want.c_str());
  return g_fails == 0 ? 0 : 1;
}

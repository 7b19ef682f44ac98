// The core's heap_apply service (services 1.4) on a GPU heap, as a transport's progress thread
// calls it for its peers' atomics and staged puts (links the core's objects: the services table
// a plugin gets; tests/gpu/CMakeLists.txt):
//
//   order    1501 operations in one call on three 8-byte slots (two 8-byte words, and two 4-byte
//            words sharing the third): atomics of every op and width, copies of host bytes into a
//            slot (pinned and pageable sources), copies of all three slots out to host snapshots,
//            and refused entries (width 2, op 99, a misaligned word, a word outside the heap, a
//            copy with neither side in the heap). More than one wait's worth of atomics (1024)
//            and more than one kernel's (256). Every old value and snapshot is what applying the
//            accepted entries in array order gives; each refused entry has XSHMEM_ERR_INVALID,
//            its old value untouched, and a log line; the guard words around the slots hold.
//   atomic   while a kernel of 64 x 256 threads adds 1 to a counter 16 times each with the GPU's
//            system-scope atomics, the host adds 1 through heap_apply 2000 times in batches of
//            50: the counter ends exact, and the values the host fetched rise strictly.
//
// Any number of PEs (each works on its own heap). Exits 77 (skip) where no GPU is usable or the
// heap is not GPU memory.
#define XSHMEM_NO_DEVICE_API 1  // host API only; the kernel below uses plain CUDA atomics
#include <cuda_runtime.h>
#include <xshmem/xshmem.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "runtime.h"

namespace {

int g_failed = 0;
int g_me = 0;

void failure(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void failure(int line, const char *fmt, ...) {
  if (g_failed++ >= 10) return;
  fprintf(stderr, "heap_apply (pe %d): FAIL line %d: ", g_me, line);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
}
#define HA_CHECK(cond, ...)                      \
  do {                                           \
    if (!(cond)) failure(__LINE__, __VA_ARGS__); \
  } while (0)

void cuda_ok(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "heap_apply (pe %d): %s failed: %s\n", g_me, what, cudaGetErrorString(e));
    exit(1);
  }
}

// The host model of one atomic on a word of `width` bytes (values zero-extended); returns the
// old value (SET: 0) and updates *w.
uint64_t model_amo(uint64_t *w, uint32_t width, int op, uint64_t v, uint64_t cmp) {
  const uint64_t mask = width == 8 ? ~0ull : 0xFFFFFFFFull;
  const uint64_t old = *w & mask;
  v &= mask;
  cmp &= mask;
  uint64_t now = old;
  switch (op) {
    case XSHMEM_AMO_FETCH:
      break;
    case XSHMEM_AMO_SET:
    case XSHMEM_AMO_SWAP:
      now = v;
      break;
    case XSHMEM_AMO_COMPARE_SWAP:
      now = old == cmp ? v : old;
      break;
    case XSHMEM_AMO_ADD:
    case XSHMEM_AMO_FETCH_ADD:
      now = (old + v) & mask;
      break;
    case XSHMEM_AMO_AND:
    case XSHMEM_AMO_FETCH_AND:
      now = old & v;
      break;
    case XSHMEM_AMO_OR:
    case XSHMEM_AMO_FETCH_OR:
      now = old | v;
      break;
    default:
      now = old ^ v;
      break;
  }
  *w = now;
  return op == XSHMEM_AMO_SET ? 0 : old;
}

constexpr int kGuard = 8;  // guard words (8 bytes) on each side of the three slots
constexpr uint64_t kGuardWord = 0x6A09E667F3BCC908ull;
constexpr int kN = 1501;

xshmem_heap_op_v1_t amo_op(void *addr, uint32_t width, int op, uint64_t v, uint64_t cmp) {
  xshmem_heap_op_v1_t a{};
  a.kind = XSHMEM_HEAP_OP_AMO;
  a.width = width;
  a.op = op;
  a.src_pe = g_me;
  a.addr = addr;
  a.operand = v;
  a.compare = cmp;
  a.old = 0xDEADull;
  a.status = -99;
  return a;
}
xshmem_heap_op_v1_t copy_op(void *dst, const void *src, size_t n) {
  xshmem_heap_op_v1_t a{};
  a.kind = XSHMEM_HEAP_OP_COPY;
  a.src_pe = g_me;
  a.addr = dst;
  a.src = src;
  a.operand = n;
  a.old = 0xDEADull;
  a.status = -99;
  return a;
}

void order_case(const xshmem_core_services_v1_t *svc, uint64_t *region) {
  const int before = g_failed;
  std::vector<uint64_t> host(2 * kGuard + 3, kGuardWord);
  std::mt19937_64 rng(0xA5A5F00Dull + 7919u * g_me);
  // The model: slot 0 and 1 are 8-byte words; slot 2 holds 4-byte words 2 (low) and 3 (high).
  uint64_t slot[3] = {rng(), rng(), rng()};
  for (int i = 0; i < 3; ++i) host[kGuard + i] = slot[i];
  cuda_ok(cudaMemcpy(region, host.data(), host.size() * 8, cudaMemcpyHostToDevice), "copy in");
  char *base = reinterpret_cast<char *>(region + kGuard);
  void *word[4] = {base, base + 8, base + 16, base + 20};
  const uint32_t width[4] = {8, 8, 4, 4};
  auto model_word = [&](int k) -> uint64_t {
    return k < 2 ? slot[k] : k == 2 ? slot[2] & 0xFFFFFFFFull : slot[2] >> 32;
  };
  auto set_word = [&](int k, uint64_t v) {
    if (k < 2)
      slot[k] = v;
    else if (k == 2)
      slot[2] = (slot[2] & ~0xFFFFFFFFull) | (v & 0xFFFFFFFFull);
    else
      slot[2] = (slot[2] & 0xFFFFFFFFull) | (v << 32);
  };

  // Copy sources (8 bytes each, pinned for odd entries, pageable for even) and snapshots (24).
  uint8_t *pinned_src = nullptr, *pinned_snap = nullptr;
  cuda_ok(cudaMallocHost(&pinned_src, kN * 8), "pinned sources");
  cuda_ok(cudaMallocHost(&pinned_snap, kN * 24), "pinned snapshots");
  std::vector<uint8_t> pageable_src(kN * 8), pageable_snap(kN * 24, 0xEE);
  memset(pinned_snap, 0xEE, kN * 24);
  std::vector<uint8_t> want_snap(kN * 24);
  std::vector<xshmem_heap_op_v1_t> ops(kN);
  std::vector<uint64_t> want_old(kN, 0);
  std::vector<char> refused(kN, 0), is_snap(kN, 0);
  int n_amo = 0, n_in = 0, n_out = 0, n_ref = 0;
  for (int i = 0; i < kN; ++i) {
    const unsigned pick = static_cast<unsigned>(rng() % 16);
    uint8_t *src = (i % 2 ? pinned_src : pageable_src.data()) + size_t(i) * 8;
    uint8_t *snap = (i % 2 ? pinned_snap : pageable_snap.data()) + size_t(i) * 24;
    if (i % 97 == 50) {  // refused: each kind in turn
      switch ((i / 97) % 5) {
        case 0:
          ops[i] = amo_op(word[0], 2, XSHMEM_AMO_FETCH_ADD, 1, 0);
          break;
        case 1:
          ops[i] = amo_op(word[1], 8, 99, 1, 0);
          break;
        case 2:
          ops[i] = amo_op(base + 2, 4, XSHMEM_AMO_ADD, 1, 0);  // not aligned
          break;
        case 3:
          ops[i] = amo_op(&want_old[0], 8, XSHMEM_AMO_ADD, 1, 0);  // host memory
          break;
        default:
          ops[i] = copy_op(snap, src, 8);  // neither side in the heap
          break;
      }
      refused[i] = 1;
      ++n_ref;
      continue;
    }
    if (pick == 0) {  // copy 8 host bytes into a slot
      const int k = static_cast<int>(rng() % 3);
      const uint64_t v = rng();
      memcpy(src, &v, 8);
      ops[i] = copy_op(base + 8 * k, src, 8);
      slot[k] = v;
      ++n_in;
      continue;
    }
    if (pick == 1) {  // copy the three slots out
      ops[i] = copy_op(snap, base, 24);
      memcpy(want_snap.data() + size_t(i) * 24, slot, 24);
      is_snap[i] = 1;
      ++n_out;
      continue;
    }
    const int k = static_cast<int>(rng() % 4);
    const int op = static_cast<int>(rng() % 12);
    const uint64_t v = rng() % 8 == 0 ? rng() : rng() % 1000;
    const uint64_t cmp = rng() % 2 ? model_word(k) : model_word(k) + 1;
    ops[i] = amo_op(word[k], width[k], op, v, cmp);
    uint64_t w = model_word(k);
    want_old[i] = model_amo(&w, width[k], op, v, cmp);
    set_word(k, w);
    ++n_amo;
  }
  const xshmem_status_t st = svc->heap_apply(ops.data(), ops.size());
  HA_CHECK(st == XSHMEM_ERR_INVALID, "heap_apply returned %d, want %d (refused entries)", st,
           XSHMEM_ERR_INVALID);
  for (int i = 0; i < kN; ++i) {
    const xshmem_heap_op_v1_t &a = ops[i];
    if (refused[i]) {
      HA_CHECK(a.status == XSHMEM_ERR_INVALID, "entry %d (refused): status %d", i, a.status);
      HA_CHECK(a.old == 0xDEADull, "entry %d (refused): old changed to %llu", i,
               (unsigned long long)a.old);
      continue;
    }
    HA_CHECK(a.status == XSHMEM_SUCCESS, "entry %d: status %d", i, a.status);
    if (a.kind == XSHMEM_HEAP_OP_AMO)
      HA_CHECK(a.old == want_old[i], "entry %d (op %d, width %u): old %llu, want %llu", i, a.op,
               a.width, (unsigned long long)a.old, (unsigned long long)want_old[i]);
    if (is_snap[i]) {
      const uint8_t *got = (i % 2 ? pinned_snap : pageable_snap.data()) + size_t(i) * 24;
      HA_CHECK(memcmp(got, want_snap.data() + size_t(i) * 24, 24) == 0,
               "entry %d: the slots copied out differ from the model at that point", i);
    }
  }
  // Nothing was written to the refused copy's destination.
  for (int i = 0; i < kN; ++i) {
    if (!refused[i] || ops[i].kind != XSHMEM_HEAP_OP_COPY) continue;
    const uint8_t *snap = (i % 2 ? pinned_snap : pageable_snap.data()) + size_t(i) * 24;
    for (int j = 0; j < 8; ++j) HA_CHECK(snap[j] == 0xEE, "entry %d (refused copy) wrote", i);
  }
  cuda_ok(cudaMemcpy(host.data(), region, host.size() * 8, cudaMemcpyDeviceToHost), "copy out");
  for (int k = 0; k < 3; ++k)
    HA_CHECK(host[kGuard + k] == slot[k], "slot %d: %llx, want %llx", k,
             (unsigned long long)host[kGuard + k], (unsigned long long)slot[k]);
  for (int g = 0; g < kGuard; ++g) {
    HA_CHECK(host[g] == kGuardWord, "guard %d before: %llx", g, (unsigned long long)host[g]);
    HA_CHECK(host[kGuard + 3 + g] == kGuardWord, "guard %d after: %llx", g,
             (unsigned long long)host[kGuard + 3 + g]);
  }
  cuda_ok(cudaFreeHost(pinned_src), "free");
  cuda_ok(cudaFreeHost(pinned_snap), "free");
  printf(
      "%s order (pe %d): %d operations in one call: %d atomics, %d copies in, %d copies out, "
      "%d refused\n",
      g_failed != before ? "FAIL" : "PASS", g_me, kN, n_amo, n_in, n_out, n_ref);
}

constexpr int kBlocks = 64, kThreads = 256, kPerThread = 16;

__global__ void hammer(unsigned long long *counter) {
  for (int i = 0; i < kPerThread; ++i) atomicAdd_system(counter, 1ull);
}

void atomic_case(const xshmem_core_services_v1_t *svc, uint64_t *counter) {
  const int before = g_failed;
  cuda_ok(cudaMemset(counter, 0, 8), "memset");
  cudaStream_t s;
  cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  hammer<<<kBlocks, kThreads, 0, s>>>(reinterpret_cast<unsigned long long *>(counter));
  cuda_ok(cudaGetLastError(), "hammer launch");
  constexpr int kBatches = 40, kPer = 50;
  uint64_t last = 0;
  for (int b = 0; b < kBatches; ++b) {
    xshmem_heap_op_v1_t ops[kPer];
    for (auto &a : ops) a = amo_op(counter, 8, XSHMEM_AMO_FETCH_ADD, 1, 0);
    HA_CHECK(svc->heap_apply(ops, kPer) == XSHMEM_SUCCESS, "batch %d refused", b);
    for (int i = 0; i < kPer; ++i) {
      HA_CHECK((b == 0 && i == 0) || ops[i].old > last, "batch %d: fetched %llu after %llu", b,
               (unsigned long long)ops[i].old, (unsigned long long)last);
      last = ops[i].old;
    }
  }
  cuda_ok(cudaStreamSynchronize(s), "hammer");
  cuda_ok(cudaStreamDestroy(s), "stream destroy");
  uint64_t got = 0;
  cuda_ok(cudaMemcpy(&got, counter, 8, cudaMemcpyDeviceToHost), "copy out");
  const uint64_t want = uint64_t(kBlocks) * kThreads * kPerThread + uint64_t(kBatches) * kPer;
  HA_CHECK(got == want, "counter %llu, want %llu", (unsigned long long)got,
           (unsigned long long)want);
  printf("%s atomic (pe %d): %d GPU adds and %d host adds through heap_apply, total %llu\n",
         g_failed != before ? "FAIL" : "PASS", g_me, kBlocks * kThreads * kPerThread,
         kBatches * kPer, (unsigned long long)got);
}

}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("SKIP heap_apply: no usable GPU\n");
    return 77;
  }
  xshmem_init();
  g_me = xshmem_my_pe();
  uint64_t *region = static_cast<uint64_t *>(xshmem_malloc((2 * kGuard + 4) * 8));
  cudaPointerAttributes attr{};
  if (region == nullptr || cudaPointerGetAttributes(&attr, region) != cudaSuccess ||
      attr.type != cudaMemoryTypeDevice) {
    if (g_me == 0) printf("SKIP heap_apply: the symmetric heap is not GPU memory\n");
    xshmem_finalize();
    return 77;
  }
  const xshmem_core_services_v1_t *svc = xshmem::core::services();
  if (!XSHMEM_SERVICES_HAS(svc, heap_apply)) {
    fprintf(stderr, "heap_apply: FAIL: the services table has no heap_apply\n");
    return 1;
  }
  order_case(svc, region);
  atomic_case(svc, region + 2 * kGuard + 3);
  xshmem_free(region);
  xshmem_finalize();
  if (g_me == 0) printf("heap_apply: %s\n", g_failed ? "FAILED" : "all passed");
  return g_failed ? 1 : 0;
}

// GPU conformance: the data-movement collectives (COLL-03 broadcast, COLL-04 collect, COLL-05
// fcollect, COLL-06 alltoall, COLL-07 alltoalls) from kernels, thread (T), warp (W) and block (B)
// forms, plus the host API on the GPU heap (H), on WORLD and on WORLD reversed. Sizes include 0,
// odd sizes (unaligned member offsets: the byte path of the copies) and 4 MiB per member.
//
// Each case: dest poisoned (0xA5) and a barrier (dest ready on every PE), source filled with the
// PE's pattern, one collective launch, then a check kernel compares every byte of dest, plus 256
// bytes past the result, with what the collective must leave there.
#include "gpu_test.h"

namespace {

enum Coll : int { kBcast, kCollect, kFcollect, kAlltoall, kAlltoalls };
enum Scope : int { kT, kW, kB, kH };
constexpr size_t kTail = 256;
constexpr ptrdiff_t kDst = 2, kSst = 3;  // alltoalls strides (uint32 elements)

// Member p's count in collect: nb + 17 p bytes.
__host__ __device__ inline size_t collect_count(size_t nb, int p) {
  return nb + 17 * static_cast<size_t>(p);
}
__host__ __device__ inline size_t collect_off(size_t nb, int p) {
  return nb * p + 17 * static_cast<size_t>(p) * (p - 1) / 2;
}
__host__ __device__ inline uint32_t word(int from, int to, size_t i) {
  return 0x9E3779B9u * static_cast<uint32_t>(from + 1) ^ (0x85EBCA6Bu * static_cast<uint32_t>(to)) ^
         static_cast<uint32_t>(i * 2654435761u);
}

// Source of team member `me` (world PE `wme`; world PE of member j: wpe(j)).
struct Team {
  int start, stride, n, me;
  __host__ __device__ int wpe(int j) const { return start + j * stride; }
};

__global__ void fill_source(uint8_t *src, int coll, Team t, size_t nb, int root) {
  const int wme = t.wpe(t.me);
  const size_t step = size_t(gridDim.x) * blockDim.x;
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (coll == kBcast) {
    if (t.me == root)
      for (size_t i = first; i < nb; i += step) src[i] = gt::pat(wme, i, 3);
  } else if (coll == kCollect) {
    for (size_t i = first; i < collect_count(nb, t.me); i += step) src[i] = gt::pat(wme, i, 4);
  } else if (coll == kFcollect) {
    for (size_t i = first; i < nb; i += step) src[i] = gt::pat(wme, i, 5);
  } else if (coll == kAlltoall) {
    for (size_t i = first; i < nb * t.n; i += step) src[i] = gt::pat(wme, i, 6);
  } else {
    const size_t ne = nb / 4;
    auto *w = reinterpret_cast<uint32_t *>(src);
    for (size_t e = first; e < ne * t.n; e += step)
      w[e * kSst] = word(wme, t.wpe(static_cast<int>(e / ne)), e % ne);
  }
}

// What byte o of dest must hold (0xA5: untouched).
__device__ uint8_t expect(int coll, Team t, size_t nb, int root, size_t o) {
  switch (coll) {
    case kBcast:
      return o < nb ? gt::pat(t.wpe(root), o, 3) : 0xA5;
    case kCollect: {
      for (int p = 0; p < t.n; ++p) {
        const size_t off = collect_off(nb, p);
        if (o >= off && o < off + collect_count(nb, p)) return gt::pat(t.wpe(p), o - off, 4);
      }
      return 0xA5;
    }
    case kFcollect:
      return o < nb * t.n ? gt::pat(t.wpe(static_cast<int>(o / nb)), o % nb, 5) : 0xA5;
    case kAlltoall: {
      if (o >= nb * t.n) return 0xA5;
      const int j = static_cast<int>(o / nb);  // block from member j, its block for me
      return gt::pat(t.wpe(j), t.me * nb + o % nb, 6);
    }
    default: {
      const size_t ne = nb / 4, w = o / 4;
      if (ne == 0 || w % kDst != 0 || w / kDst >= ne * t.n) return 0xA5;
      const size_t e = w / kDst;
      const uint32_t v = word(t.wpe(static_cast<int>(e / ne)), t.wpe(t.me), e % ne);
      return static_cast<uint8_t>(v >> (8 * (o % 4)));
    }
  }
}

__global__ void check_dest(const uint8_t *dst, size_t n, int coll, Team t, size_t nb, int root) {
  for (size_t o = blockIdx.x * size_t(blockDim.x) + threadIdx.x; o < n;
       o += size_t(gridDim.x) * blockDim.x) {
    const uint8_t want = expect(coll, t, nb, root, o);
    GT_CHECK(dst[o] == want, o, want, dst[o]);
  }
}

// One collective from a kernel: T by thread 0, W by warp 0, B by every thread of the block.
__global__ void coll_kernel(int coll, int scope, xshmem_team_t team, uint8_t *dst,
                            const uint8_t *src, size_t nb, int root) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int mine = static_cast<int>(collect_count(nb, xshmem_team_my_pe(team)));
  auto *wd = reinterpret_cast<uint32_t *>(dst);
  auto *ws = reinterpret_cast<const uint32_t *>(src);
  const size_t ne = nb / 4;
  int rc = 0;
  if (scope == kT && tid == 0) {
    switch (coll) {
      case kBcast:
        rc = xshmem_broadcastmem(team, dst, src, nb, root);
        break;
      case kCollect:
        rc = xshmem_collectmem(team, dst, src, mine);
        break;
      case kFcollect:
        rc = xshmem_fcollectmem(team, dst, src, nb);
        break;
      case kAlltoall:
        rc = xshmem_alltoallmem(team, dst, src, nb);
        break;
      default:
        rc = xshmem_uint32_alltoalls(team, wd, ws, kDst, kSst, ne);
        break;
    }
  } else if (scope == kW && tid < 32) {
    switch (coll) {
      case kBcast:
        rc = xshmemx_broadcastmem_warp(team, dst, src, nb, root);
        break;
      case kCollect:
        rc = xshmemx_collectmem_warp(team, dst, src, mine);
        break;
      case kFcollect:
        rc = xshmemx_fcollectmem_warp(team, dst, src, nb);
        break;
      case kAlltoall:
        rc = xshmemx_alltoallmem_warp(team, dst, src, nb);
        break;
      default:
        rc = xshmemx_uint32_alltoalls_warp(team, wd, ws, kDst, kSst, ne);
        break;
    }
  } else if (scope == kB) {
    switch (coll) {
      case kBcast:
        rc = xshmemx_broadcastmem_block(team, dst, src, nb, root);
        break;
      case kCollect:
        rc = xshmemx_collectmem_block(team, dst, src, mine);
        break;
      case kFcollect:
        rc = xshmemx_fcollectmem_block(team, dst, src, nb);
        break;
      case kAlltoall:
        rc = xshmemx_alltoallmem_block(team, dst, src, nb);
        break;
      default:
        rc = xshmemx_uint32_alltoalls_block(team, wd, ws, kDst, kSst, ne);
        break;
    }
  }
  GT_CHECK(rc == 0, tid, 0, rc);
}

// Typed forms once each (their wrappers differ from the mem forms only in the byte count).
__global__ void typed_kernel(xshmem_team_t team, float *dst, const float *src, size_t n) {
  int rc = xshmemx_float_alltoall_block(team, dst, src, n);
  GT_CHECK(rc == 0, 0, 0, rc);
}

struct Bufs {
  uint8_t *src, *dst;
  size_t cap;
};

size_t dest_extent(int coll, const Team &t, size_t nb) {
  switch (coll) {
    case kBcast:
      return nb;
    case kCollect:
      return collect_off(nb, t.n);
    case kFcollect:
    case kAlltoall:
      return nb * t.n;
    default:
      return nb / 4 * t.n * kDst * 4;
  }
}

void one(const Bufs &b, int coll, int scope, xshmem_team_t team, const Team &t, size_t nb,
         int root) {
  const size_t ext = dest_extent(coll, t, nb) + kTail;
  GT_CUDA(cudaMemset(b.dst, 0xA5, ext));
  GT_CUDA(cudaMemset(b.src, 0x5A, b.cap));
  gt::barrier();  // dest ready on every PE
  fill_source<<<264, 256>>>(b.src, coll, t, nb, root);
  gt::device_sync("fill source");
  if (scope == kH) {
    int rc = 0;
    auto *wd = reinterpret_cast<uint32_t *>(b.dst);
    auto *ws = reinterpret_cast<const uint32_t *>(b.src);
    switch (coll) {
      case kBcast:
        rc = xshmem_broadcastmem(team, b.dst, b.src, nb, root);
        break;
      case kCollect:
        rc = xshmem_collectmem(team, b.dst, b.src, collect_count(nb, t.me));
        break;
      case kFcollect:
        rc = xshmem_fcollectmem(team, b.dst, b.src, nb);
        break;
      case kAlltoall:
        rc = xshmem_alltoallmem(team, b.dst, b.src, nb);
        break;
      default:
        rc = xshmem_uint32_alltoalls(team, wd, ws, kDst, kSst, nb / 4);
        break;
    }
    GT_CHECK(rc == 0, 0, 0, rc);
  } else {
    const dim3 block = scope == kB ? dim3(8, 4, 3) : dim3(64);
    coll_kernel<<<1, block>>>(coll, scope, team, b.dst, b.src, nb, root);
    gt::device_sync("collective kernel");
  }
  check_dest<<<264, 256>>>(b.dst, ext, coll, t, nb, root);
  gt::device_sync("check");
}

}  // namespace

int main() {
  gt::start("gpu_coll_move");
  const size_t big = size_t{4} << 20;
  Bufs b;
  b.cap = big * gt::npes * 3 + (size_t{64} << 10);
  b.src = static_cast<uint8_t *>(xshmem_malloc(b.cap));
  b.dst = static_cast<uint8_t *>(xshmem_malloc(b.cap));
  if (b.src == nullptr || b.dst == nullptr) return 1;
  xshmem_team_t rev = XSHMEM_TEAM_INVALID;
  if (xshmem_team_split_strided(XSHMEM_TEAM_WORLD, gt::npes - 1, -1, gt::npes, nullptr, 0, &rev) !=
      0)
    return 1;
  const char *colls[] = {"COLL-03 broadcastmem", "COLL-04 collectmem", "COLL-05 fcollectmem",
                         "COLL-06 alltoallmem", "COLL-07 uint32_alltoalls dst 2 sst 3"};
  const char *scopes[] = {"T", "W", "B", "H"};
  for (int tm = 0; tm < 2; ++tm) {
    const xshmem_team_t team = tm == 0 ? XSHMEM_TEAM_WORLD : rev;
    Team t{tm == 0 ? 0 : gt::npes - 1, tm == 0 ? 1 : -1, gt::npes, xshmem_team_my_pe(team)};
    for (int coll = kBcast; coll <= kAlltoalls; ++coll) {
      for (size_t nb : {size_t{0}, size_t{1}, size_t{4095}, size_t{65536}, big + 12}) {
        for (int scope = kT; scope <= kH; ++scope) {
          // The thread form moves megabytes with one thread: keep it to the smaller sizes.
          if (scope == kT && nb > 65536) continue;
          const int root = (coll == kBcast) ? static_cast<int>(nb % gt::npes) : 0;
          char label[160];
          snprintf(label, sizeof label, "%s %s %zu B %s", colls[coll],
                   tm == 0 ? "world" : "reversed", nb, scopes[scope]);
          // alltoalls moves one proxy request per element to a proxy peer: 16 Ki of them per
          // member at 64 KiB, which time slices make minutes where PEs share a GPU.
          if (coll == kAlltoalls && nb > 4095 && gt::proxy_shared()) {
            gt::skip(label,
                     "PEs share a GPU over a proxy transport: one request per element (runs "
                     "where PEs have GPUs of their own or over nvlink)");
            continue;
          }
          gt::run(label, [&] { one(b, coll, scope, team, t, nb, root); });
        }
      }
    }
  }
  // A typed block form: float alltoall of 1 Mi floats per member (the perf metric's shape).
  gt::run("COLL-06 float_alltoall_block 1048576 floats B", [&] {
    const size_t n = size_t{1} << 20;
    Team t{0, 1, gt::npes, gt::me};
    GT_CUDA(cudaMemset(b.dst, 0xA5, n * 4 * gt::npes + kTail));
    gt::barrier();
    fill_source<<<264, 256>>>(b.src, kAlltoall, t, n * 4, 0);
    gt::device_sync("fill");
    typed_kernel<<<1, 256>>>(XSHMEM_TEAM_WORLD, reinterpret_cast<float *>(b.dst),
                             reinterpret_cast<const float *>(b.src), n);
    gt::device_sync("typed alltoall");
    check_dest<<<264, 256>>>(b.dst, n * 4 * gt::npes + kTail, kAlltoall, t, n * 4, 0);
    gt::device_sync("check");
  });
  xshmem_team_destroy(rev);
  xshmem_free(b.dst);
  xshmem_free(b.src);
  return gt::finish();
}

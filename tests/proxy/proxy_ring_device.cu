// Compile check: the proxy ring's producer side built for the device (nothing runs it here).
#include <xshmem/device/proxy_ring.h>

namespace ring = xshmem::dev::proxy::ring;

__global__ void proxy_ring_device_check(const xshmem::dev::state_t *s, ring::channels_t *cs,
                                        uint64_t *out, const void *src, void *dst) {
  const int32_t ctx = xshmem::dev::ctx_handle(threadIdx.x % 3, 0);
  int st = ring::put(*s, cs, ctx, 1, 64, src, 8);
  st |= ring::put(*s, cs, ctx, 1, 64, src, 4096, true);
  st |= ring::get(*s, cs, ctx, 1, dst, 128, 4096);
  uint64_t old = 0;
  st |= ring::amo(*s, cs, ctx, 1, 0, XSHMEM_AMO_FETCH_ADD, XSHMEM_AMO_U64, 1, 0, &old);
  st |= ring::amo(*s, cs, ctx, 1, 8, XSHMEM_AMO_COMPARE_SWAP, XSHMEM_AMO_U32, 2, 1, &old);
  st |= ring::put_signal(*s, cs, ctx, 1, 256, src, 512, 0, 1, 1);
  st |= ring::fence(*s, cs, ctx);
  st |= ring::quiet(*s, cs, ctx);
  st |= ring::quiet_all(*s, cs);
  out[threadIdx.x] = old + static_cast<uint64_t>(st) + ring::pick_channel(cs, ctx);
}

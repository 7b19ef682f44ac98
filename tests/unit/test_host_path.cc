// Unit tests of the host's copy of the path state over a heap in GPU memory (core/src/path_state.h)
// and of the dispatchers' HOST_CE case (<xshmem/device/host_ce.h>), without a GPU: a fake state
// whose "GPU heaps" are host buffers and a fake HOST_CE operations table that records every call
// and moves the bytes with memcpy, so the tests see which path an operation took, with which
// addresses and blocking flag.
#include <xshmem/device/path.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "../catch_compat.h"
#include "test_pattern.h"
#include "path_state.h"

namespace xd = xshmem::dev;
namespace xc = xshmem::core;

namespace {

constexpr size_t kUserOffset = (sizeof(xd::internal_region_t) + 4095) / 4096 * 4096;
constexpr size_t kHeapBytes = kUserOffset + 16 * 1024;
constexpr unsigned char kPoison = 0x5A;
constexpr size_t kGuard = 32;

using xt::mix;

size_t unpoisoned(const unsigned char *p, size_t n) {
  return xt::unpoisoned(p, n, kPoison);
}

// A chosen peer table as the transports leave it for PE `me` of 5: 0..2 LSA (me among them),
// 3 PROXY, 4 NONE; every field PE-dependent.
std::vector<xd::peer_t> chosen_table(int me, const std::vector<uintptr_t> &bases) {
  std::vector<xd::peer_t> t(5);
  for (int pe = 0; pe < 5; ++pe) {
    t[pe].path = pe < 3 ? XSHMEM_PATH_LSA : (pe == 3 ? XSHMEM_PATH_PROXY : XSHMEM_PATH_NONE);
    t[pe].flags = static_cast<uint8_t>(mix(me, pe) & 0xff);
    t[pe].reserved0 = static_cast<uint16_t>(mix(pe, me) & 0xffff);
    t[pe].base = pe < 3 ? bases[pe] : 0;
  }
  return t;
}

// ---- the fake HOST_CE operations: every call recorded, bytes moved with memcpy ----
struct Recorder {
  int copies = 0, strided = 0, amos = 0, put_signals = 0, quiets = 0;
  void *last_dst = nullptr;
  const void *last_src = nullptr;
  bool last_blocking = false;
  int last_op = -1, last_pe = -1;
  size_t last_width = 0;
  // amo and put_signal translate symmetric addresses themselves (their kernels do on a GPU).
  std::vector<unsigned char *> heaps;
  unsigned char *my_heap = nullptr;
  unsigned char *at(const void *sym, int pe) const {
    return heaps[pe] + (static_cast<const unsigned char *>(sym) - my_heap);
  }
};
Recorder *g_rec = nullptr;

void fake_copy(void *dst, const void *src, size_t n, bool blocking) {
  ++g_rec->copies;
  g_rec->last_dst = dst;
  g_rec->last_src = src;
  g_rec->last_blocking = blocking;
  memcpy(dst, src, n);
}
void fake_copy_strided(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                       size_t count, bool blocking) {
  ++g_rec->strided;
  g_rec->last_dst = dst;
  g_rec->last_src = src;
  g_rec->last_blocking = blocking;
  for (size_t i = 0; i < count; ++i)
    memcpy(static_cast<unsigned char *>(dst) + i * dpitch,
           static_cast<const unsigned char *>(src) + i * spitch, elem);
}
uint64_t fake_amo(int op, size_t width, void *dest, uint64_t value, uint64_t cond, int pe) {
  ++g_rec->amos;
  g_rec->last_op = op;
  g_rec->last_pe = pe;
  g_rec->last_width = width;
  unsigned char *w = g_rec->at(dest, pe);
  uint64_t old = 0;
  memcpy(&old, w, width);
  uint64_t nv = old;
  switch (static_cast<xd::amo_op>(op)) {
    case xd::amo_op::fetch_add:
      nv = old + value;
      break;
    case xd::amo_op::compare_swap:
      nv = old == cond ? value : old;
      break;
    case xd::amo_op::set:
    case xd::amo_op::swap:
      nv = value;
      break;
    default:
      break;
  }
  memcpy(w, &nv, width);
  return old;
}
void fake_put_signal(void *dest, const void *source, size_t n, uint64_t *sig_addr, uint64_t signal,
                     int sig_op, int pe, bool blocking) {
  ++g_rec->put_signals;
  g_rec->last_pe = pe;
  g_rec->last_blocking = blocking;
  if (n != 0) memcpy(g_rec->at(dest, pe), source, n);
  uint64_t *sig = reinterpret_cast<uint64_t *>(g_rec->at(sig_addr, pe));
  *sig = sig_op == xd::kSignalAdd ? *sig + signal : signal;
}
void fake_quiet() {
  ++g_rec->quiets;
}
constexpr xd::host_ce_ops_t kFakeOps{fake_copy, fake_copy_strided, fake_amo, fake_put_signal,
                                     fake_quiet};

struct alignas(4096) Heap {
  unsigned char bytes[kHeapBytes];
};

// PE `me` of 5 with every heap in this process, its host state built as build_state does for a
// GPU heap (host_peer_table + the fake HOST_CE table).
struct GpuHeapJob {
  int me;
  std::vector<std::unique_ptr<Heap>> heaps;
  std::vector<uintptr_t> bases;
  std::vector<xd::peer_t> chosen, host;
  Recorder rec;
  xd::state_t s;
  explicit GpuHeapJob(int me_) : me(me_) {
    for (int pe = 0; pe < 5; ++pe) {
      heaps.push_back(std::make_unique<Heap>());
      memset(heaps.back()->bytes, kPoison, kHeapBytes);
      bases.push_back(reinterpret_cast<uintptr_t>(heaps.back()->bytes));
      rec.heaps.push_back(heaps.back()->bytes);
    }
    rec.my_heap = heaps[me]->bytes;
    chosen = chosen_table(me, bases);
    host = xc::host_peer_table(chosen, true);
    s.my_pe = me;
    s.n_pes = 5;
    s.heap_base = bases[me];
    s.heap_size = kHeapBytes;
    s.peers = host.data();
    s.host_ce = &kFakeOps;
    s.on_bad_path = [](int pe) {
      fprintf(stderr, "test: no path to pe %d\n", pe);
      abort();
    };
    g_rec = &rec;
  }
  ~GpuHeapJob() { g_rec = nullptr; }
  unsigned char *sym(size_t off) { return heaps[me]->bytes + kUserOffset + off; }
  unsigned char *at(int pe, size_t off) { return heaps[pe]->bytes + kUserOffset + off; }
};

}  // namespace

TEST_CASE("host copy of a GPU-heap state: LSA peers are HOST_CE, the device copy keeps LSA",
          "[host_path]") {
  for (int me = 0; me < 3; ++me) {
    const std::vector<uintptr_t> bases{0x100000u + 0x1000u * me, 0x200000u, 0x300000u};
    const std::vector<xd::peer_t> chosen = chosen_table(me, bases);
    const std::vector<xd::peer_t> before = chosen;
    const std::vector<xd::peer_t> host = xc::host_peer_table(chosen, true);
    REQUIRE(host.size() == chosen.size());
    for (int pe = 0; pe < 5; ++pe) {
      INFO("me " << me << " pe " << pe);
      // LSA (self included) becomes HOST_CE; PROXY and NONE keep their codes.
      const int want = pe < 3 ? XSHMEM_PATH_HOST_CE : chosen[pe].path;
      CHECK(static_cast<int>(host[pe].path) == want);
      CHECK(host[pe].flags == chosen[pe].flags);
      CHECK(host[pe].reserved0 == chosen[pe].reserved0);
      CHECK(host[pe].base == chosen[pe].base);
      // The chosen table (the device copy's source) is left as it was.
      CHECK(memcmp(&chosen[pe], &before[pe], sizeof(xd::peer_t)) == 0);
    }
    // A host heap: the host's table is the chosen one.
    const std::vector<xd::peer_t> cpu = xc::host_peer_table(chosen, false);
    REQUIRE(cpu.size() == chosen.size());
    CHECK(memcmp(cpu.data(), chosen.data(), cpu.size() * sizeof(xd::peer_t)) == 0);

    // The device copy's source: the host state with the chosen table and no host-only ops.
    xd::state_t hs;
    hs.my_pe = me;
    hs.n_pes = 5;
    hs.heap_base = 0x700000u + me;
    hs.peers = const_cast<xd::peer_t *>(host.data());
    hs.host_ce = &kFakeOps;
    hs.num_channels = 3 + me;
    const xd::state_t ds = xc::device_source(hs, chosen.data());
    CHECK(ds.peers == chosen.data());
    CHECK(ds.host_ce == nullptr);
    CHECK(ds.my_pe == me);
    CHECK(ds.heap_base == hs.heap_base);
    CHECK(ds.num_channels == hs.num_channels);
    for (int pe = 0; pe < 5; ++pe) {
      INFO("me " << me << " pe " << pe);
      CHECK(static_cast<int>(ds.peers[pe].path) ==
            (pe < 3 ? XSHMEM_PATH_LSA : static_cast<int>(chosen[pe].path)));
      // The mapping stays visible on both copies (xshmem_ptr, the SHARED team).
      CHECK(xd::peer_mapped(hs, pe) == (pe < 3));
      CHECK(xd::peer_mapped(ds, pe) == (pe < 3));
    }
    CHECK(hs.peers[me].path == XSHMEM_PATH_HOST_CE);  // the host state itself untouched
  }
}

TEST_CASE("dispatchers run HOST_CE peers through the host_ce operations", "[host_path]") {
  for (int me = 0; me < 3; ++me) {
    GpuHeapJob job(me);
    const xd::state_t &s = job.s;
    for (int pe = 0; pe < 3; ++pe) {
      INFO("me " << me << " pe " << pe);
      // put: one copy to the peer's mapped address, blocking unless nbi; guards untouched.
      constexpr size_t n = 200;
      std::vector<unsigned char> src(n);
      for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(mix(me, pe * 1000 + i));
      const size_t off = kGuard + 64 * pe;
      for (bool nbi : {false, true}) {
        const int copies = job.rec.copies;
        memset(job.at(pe, 0), kPoison, 1024);
        xd::putmem_path<xd::thread_group>(s, 0, job.sym(off), src.data(), n, pe, nbi);
        CHECK(job.rec.copies == copies + 1);
        CHECK(job.rec.last_dst == job.at(pe, off));
        CHECK(job.rec.last_blocking == !nbi);
        CHECK(memcmp(job.at(pe, off), src.data(), n) == 0);
        CHECK(unpoisoned(job.at(pe, off - kGuard), kGuard) == 0);
        CHECK(unpoisoned(job.at(pe, off + n), kGuard) == 0);
      }
      // get: back from the peer's mapping into a guarded local buffer.
      std::vector<unsigned char> dst(n + 2 * kGuard, kPoison);
      xd::getmem_path<xd::thread_group>(s, 0, dst.data() + kGuard, job.sym(off), n, pe, false);
      CHECK(job.rec.last_src == job.at(pe, off));
      CHECK(job.rec.last_blocking);
      CHECK(memcmp(dst.data() + kGuard, src.data(), n) == 0);
      CHECK(unpoisoned(dst.data(), kGuard) == 0);
      CHECK(unpoisoned(dst.data() + kGuard + n, kGuard) == 0);

      // p / g of one element.
      const uint32_t v = static_cast<uint32_t>(mix(me, pe));
      uint32_t *word = reinterpret_cast<uint32_t *>(job.sym(1024 + 8 * pe));
      xd::p_path(s, 0, word, v, pe);
      uint32_t at_peer = 0;
      memcpy(&at_peer, job.at(pe, 1024 + 8 * pe), sizeof at_peer);
      CHECK(at_peer == v);
      CHECK(xd::g_path(s, 0, static_cast<const uint32_t *>(word), pe) == v);

      // iput: every element at its stride, the gaps left alone.
      std::vector<uint64_t> isrc(6);
      for (size_t i = 0; i < isrc.size(); ++i) isrc[i] = mix(me * 7 + pe, i);
      uint64_t *idst = reinterpret_cast<uint64_t *>(job.sym(2048));
      memset(job.at(pe, 2048), kPoison, 6 * 3 * 8);
      const int strided = job.rec.strided;
      xd::iput_path<xd::thread_group>(s, 0, idst, isrc.data(), 3, 1, isrc.size(), pe, false);
      CHECK(job.rec.strided == strided + 1);
      for (size_t i = 0; i < isrc.size(); ++i) {
        uint64_t got = 0;
        memcpy(&got, job.at(pe, 2048 + 8 * 3 * i), 8);
        CHECK(got == isrc[i]);
        CHECK(unpoisoned(job.at(pe, 2048 + 8 * (3 * i + 1)), 16) == 0);
      }
      std::vector<uint64_t> iback(12, 0);
      xd::iget_path<xd::thread_group>(s, 0, iback.data(), static_cast<const uint64_t *>(idst), 2, 3,
                                      isrc.size(), pe, false);
      for (size_t i = 0; i < isrc.size(); ++i) {
        CHECK(iback[2 * i] == isrc[i]);
        CHECK(iback[2 * i + 1] == 0);
      }

      // fetch_add: one host_ce amo with the op code, width and pe; the old value comes back.
      uint64_t *ctr = reinterpret_cast<uint64_t *>(job.sym(4096 + 8 * pe));
      const uint64_t start = mix(pe, me) >> 8;
      memcpy(job.at(pe, 4096 + 8 * pe), &start, 8);
      const int amos = job.rec.amos;
      const uint64_t old = xd::amo_path<xd::amo_op::fetch_add, xd::thread_group>(
          s, 0, ctr, uint64_t{5 + static_cast<uint64_t>(me)}, uint64_t{0}, pe);
      CHECK(old == start);
      CHECK(job.rec.amos == amos + 1);
      CHECK(job.rec.last_op == static_cast<int>(xd::amo_op::fetch_add));
      CHECK(job.rec.last_width == 8);
      CHECK(job.rec.last_pe == pe);
      uint64_t now = 0;
      memcpy(&now, job.at(pe, 4096 + 8 * pe), 8);
      CHECK(now == start + 5 + me);
      // A 4-byte set returns its operand (as the dispatcher's other paths do).
      int32_t *iw = reinterpret_cast<int32_t *>(job.sym(4200 + 8 * pe));
      CHECK(xd::amo_path<xd::amo_op::set, xd::thread_group>(s, 0, iw, int32_t{-3 - me}, int32_t{0},
                                                            pe) == -3 - me);
      CHECK(job.rec.last_width == 4);

      // put_signal, then the signal alone.
      uint64_t *sig = reinterpret_cast<uint64_t *>(job.sym(5000 + 8 * pe));
      memset(job.at(pe, 5000 + 8 * pe), 0, 8);
      const int ps = job.rec.put_signals;
      xd::putmem_signal_path<xd::thread_group>(s, 0, job.sym(6000), src.data(), 16, sig,
                                               uint64_t{40 + static_cast<uint64_t>(pe)},
                                               xd::kSignalSet, pe, false);
      xd::signal_path<xd::thread_group>(s, 0, sig, 2, xd::kSignalAdd, pe, false);
      CHECK(job.rec.put_signals == ps + 2);
      uint64_t sv = 0;
      memcpy(&sv, job.at(pe, 5000 + 8 * pe), 8);
      CHECK(sv == 42u + pe);
      CHECK(memcmp(job.at(pe, 6000), src.data(), 16) == 0);

      // xshmem_ptr's answer: the peer's mapped address.
      CHECK(xd::ptr(s, job.sym(0), pe) == job.at(pe, 0));
    }
    // Non-LSA peers are not HOST_CE: ptr is NULL, and no copy was made for them above.
    CHECK(xd::ptr(s, job.sym(0), 3) == nullptr);
    CHECK(xd::ptr(s, job.sym(0), 4) == nullptr);
    // quiet drains the HOST_CE operations.
    const int q = job.rec.quiets;
    xd::quiet(s, 0);
    CHECK(job.rec.quiets == q + 1);
  }
}

TEST_CASE("a host heap's state keeps LSA and never calls host_ce", "[host_path]") {
  GpuHeapJob job(1);
  job.host = xc::host_peer_table(job.chosen, false);
  job.s.peers = job.host.data();
  job.s.host_ce = nullptr;  // what build_state gives a host heap
  for (int pe = 0; pe < 3; ++pe) {
    const uint64_t v = mix(pe, 99);
    xd::p_path(job.s, 0, reinterpret_cast<uint64_t *>(job.sym(8 * pe)), v, pe);
    uint64_t got = 0;
    memcpy(&got, job.at(pe, 8 * pe), 8);
    CHECK(got == v);
  }
  xd::quiet(job.s, 0);
  CHECK(job.rec.copies == 0);
  CHECK(job.rec.quiets == 0);
}

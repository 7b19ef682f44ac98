// The GDA wire format (<xshmem/device/gda_wqe.h>) against rdma-core's <infiniband/mlx5dv.h>:
// every builder's entry equals, byte for byte, the entry built from mlx5dv.h's structures and
// setters (mlx5dv_set_ctrl_seg, mlx5dv_set_data_seg, htobe of the raddr, atomic and inline
// fields), for every opcode GDA posts, over seeded random fields; the bytes past an entry's
// segments stay untouched (guard pattern); decoders read back what was built; CQE and error-CQE
// fields sit where mlx5dv.h has them.
#include <string.h>

#include <random>

#include "../catch_compat.h"
#include "test_pattern.h"

#include <xshmem/device/gda_wqe.h>

#if __has_include(<infiniband/mlx5dv.h>)
#include <endian.h>
#include <infiniband/mlx5dv.h>
#define XT_HAVE_MLX5DV 1
#endif

namespace g = xshmem::dev::gda;

namespace {

constexpr uint8_t kPoison = 0xA5;

struct Fields {
  uint16_t index;
  uint32_t qpn;  // 24 bits
  uint8_t fm_ce_se;
  uint64_t raddr, laddr, add, compare;
  uint32_t rkey, lkey, bytes;
};

Fields draw(std::mt19937_64 &rng, int round) {
  Fields f{};
  f.index = static_cast<uint16_t>(rng());
  f.qpn = static_cast<uint32_t>(rng()) & 0xFFFFFF;
  const uint8_t modes[] = {0, g::kCeCqUpdate, g::kFence, g::kCeCqUpdate | g::kFence,
                           g::kSmallFence | g::kCeCqUpdate};
  f.fm_ce_se = modes[round % 5];
  f.raddr = rng() & ~7ull;
  f.laddr = rng() & ~7ull;
  f.add = rng();
  f.compare = rng();
  f.rkey = static_cast<uint32_t>(rng());
  f.lkey = static_cast<uint32_t>(rng());
  f.bytes = static_cast<uint32_t>(rng()) >> (round % 31);
  return f;
}

struct Wqe {
  alignas(64) unsigned char b[2 * g::kWqeBB];  // the entry, then a guard block
  Wqe() { memset(b, kPoison, sizeof b); }
};

g::post_t post_of(const Fields &f) {
  return g::post_t{f.index, f.qpn, f.fm_ce_se};
}

// The bytes from `from` to the end of the buffer still hold the poison.
void require_guard(const Wqe &w, size_t from) {
  REQUIRE(xt::unpoisoned(w.b + from, sizeof w.b - from, kPoison) == 0);
}

}  // namespace

TEST_CASE("gda wqe: byte order helpers", "[gda_wqe]") {
  REQUIRE(g::be16(0x1234) == 0x3412);
  REQUIRE(g::be32(0x11223344u) == 0x44332211u);
  REQUIRE(g::be64(0x0102030405060708ull) == 0x0807060504030201ull);
  std::mt19937_64 rng(12);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = rng();
    REQUIRE(g::be64(g::be64(x)) == x);
    REQUIRE(g::be32(g::be32(static_cast<uint32_t>(x))) == static_cast<uint32_t>(x));
  }
}

TEST_CASE("gda wqe: builders decode back, ds and guards", "[gda_wqe]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const Fields f = draw(rng, round);
    const g::post_t p = post_of(f);
    for (int kind = 0; kind < 5; ++kind) {
      Wqe w;
      uint8_t ds = 0, op = 0;
      switch (kind) {
        case 0:
          ds = g::build_write(w.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.bytes);
          op = g::kOpRdmaWrite;
          break;
        case 1:
          ds = g::build_read(w.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.bytes);
          op = g::kOpRdmaRead;
          break;
        case 2:
          ds = g::build_fetch_add(w.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.add);
          op = g::kOpAtomicFa;
          break;
        case 3:
          ds = g::build_compare_swap(w.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.compare, f.add);
          op = g::kOpAtomicCs;
          break;
        default:
          ds = g::build_nop(w.b, p);
          op = g::kOpNop;
      }
      INFO("round " << round << " kind " << kind);
      const auto &c = *reinterpret_cast<const g::ctrl_seg_t *>(w.b);
      REQUIRE(g::ctrl_opcode(c) == op);
      REQUIRE(g::ctrl_opmod(c) == 0);
      REQUIRE(g::ctrl_index(c) == f.index);
      REQUIRE(g::ctrl_qpn(c) == f.qpn);
      REQUIRE(g::ctrl_ds(c) == ds);
      REQUIRE(c.fm_ce_se == f.fm_ce_se);
      REQUIRE(ds * g::kSegBytes <= g::kWqeBB);
      require_guard(w, ds * g::kSegBytes);
      if (kind != 4) {
        const auto &r = *reinterpret_cast<const g::raddr_seg_t *>(w.b + 16);
        REQUIRE(g::be64(r.raddr) == f.raddr);
        REQUIRE(g::be32(r.rkey) == f.rkey);
        const auto &d = *reinterpret_cast<const g::data_seg_t *>(w.b + (ds - 1) * 16);
        REQUIRE(g::be32(d.lkey) == f.lkey);
        REQUIRE(g::be64(d.addr) == f.laddr);
        REQUIRE(g::be32(d.byte_count) == (kind >= 2 ? 8u : f.bytes));
      }
    }
    // Inline writes of every length that fits.
    for (uint32_t n = 0; n <= g::kMaxInline; ++n) {
      unsigned char src[g::kMaxInline];
      for (uint32_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(xt::mix(round, n, i));
      Wqe w;
      const uint8_t ds = g::build_write_inline(w.b, p, f.raddr, f.rkey, src, n);
      INFO("inline " << n << " bytes");
      REQUIRE(ds == g::inline_ds(n));
      REQUIRE(ds <= g::kSegsPerBB);
      const auto &c = *reinterpret_cast<const g::ctrl_seg_t *>(w.b);
      REQUIRE(g::ctrl_opcode(c) == g::kOpRdmaWrite);
      REQUIRE(g::ctrl_ds(c) == ds);
      uint32_t hdr;
      memcpy(&hdr, w.b + 32, 4);
      REQUIRE(g::be32(hdr) == (n | g::kInlineSeg));
      REQUIRE(memcmp(w.b + 36, src, n) == 0);
      for (uint32_t i = 36 + n; i < ds * 16u; ++i) REQUIRE(w.b[i] == 0);
      require_guard(w, ds * g::kSegBytes);
    }
  }
}

TEST_CASE("gda cqe: owner parity and readiness", "[gda_wqe]") {
  const uint32_t ncqe = 64;
  for (uint32_t pi = 0; pi < 4 * ncqe; ++pi) {
    g::cqe_t e{};
    e.op_own = static_cast<uint8_t>(g::kCqeInvalid << 4 | 0);
    REQUIRE_FALSE(g::cqe_ready(e, pi, ncqe));  // never written
    e.op_own = g::cqe_op_own(g::kCqeReq, pi, ncqe);
    REQUIRE(g::cqe_ready(e, pi, ncqe));
    REQUIRE(g::cqe_opcode(e) == g::kCqeReq);
    REQUIRE_FALSE(g::cqe_ready(e, pi + ncqe, ncqe));  // last pass's entry at the same slot
  }
  REQUIRE(g::send_dbr_value(0x12345) == g::be32(0x2345));
  REQUIRE(g::cq_dbr_value(0x1234567) == g::be32(0x234567));
  REQUIRE(strcmp(g::syndrome_name(g::kSynRemoteAccess), "remote access error (key or range)") == 0);
  REQUIRE(strcmp(g::syndrome_name(0x77), "unknown syndrome") == 0);
}

#if defined(XT_HAVE_MLX5DV)

static_assert(sizeof(g::ctrl_seg_t) == sizeof(mlx5_wqe_ctrl_seg));
static_assert(offsetof(g::ctrl_seg_t, qpn_ds) == offsetof(mlx5_wqe_ctrl_seg, qpn_ds));
static_assert(offsetof(g::ctrl_seg_t, signature) == offsetof(mlx5_wqe_ctrl_seg, signature));
static_assert(offsetof(g::ctrl_seg_t, fm_ce_se) == offsetof(mlx5_wqe_ctrl_seg, fm_ce_se));
static_assert(offsetof(g::ctrl_seg_t, imm) == offsetof(mlx5_wqe_ctrl_seg, imm));
static_assert(sizeof(g::raddr_seg_t) == sizeof(mlx5_wqe_raddr_seg));
static_assert(offsetof(g::raddr_seg_t, rkey) == offsetof(mlx5_wqe_raddr_seg, rkey));
static_assert(sizeof(g::data_seg_t) == sizeof(mlx5_wqe_data_seg));
static_assert(offsetof(g::data_seg_t, lkey) == offsetof(mlx5_wqe_data_seg, lkey));
static_assert(offsetof(g::data_seg_t, addr) == offsetof(mlx5_wqe_data_seg, addr));
static_assert(sizeof(g::atomic_seg_t) == sizeof(mlx5_wqe_atomic_seg));
static_assert(offsetof(g::atomic_seg_t, compare) == offsetof(mlx5_wqe_atomic_seg, compare));
static_assert(sizeof(g::inline_seg_t) == sizeof(mlx5_wqe_inl_data_seg));
static_assert(sizeof(g::cqe_t) == sizeof(mlx5_cqe64) && sizeof(g::cqe_t) == sizeof(mlx5_err_cqe));
static_assert(offsetof(g::cqe_t, byte_cnt) == offsetof(mlx5_cqe64, byte_cnt));
static_assert(offsetof(g::cqe_t, wqe_counter) == offsetof(mlx5_cqe64, wqe_counter));
static_assert(offsetof(g::cqe_t, op_own) == offsetof(mlx5_cqe64, op_own));
static_assert(offsetof(g::cqe_t, syndrome) == offsetof(mlx5_err_cqe, syndrome));
static_assert(offsetof(g::cqe_t, vendor_err_synd) == offsetof(mlx5_err_cqe, vendor_err_synd));
static_assert(offsetof(g::cqe_t, s_wqe_opcode_qpn) == offsetof(mlx5_err_cqe, s_wqe_opcode_qpn));
static_assert(offsetof(g::cqe_t, wqe_counter) == offsetof(mlx5_err_cqe, wqe_counter));
static_assert(g::kOpNop == MLX5_OPCODE_NOP && g::kOpRdmaWrite == MLX5_OPCODE_RDMA_WRITE &&
              g::kOpRdmaWriteImm == MLX5_OPCODE_RDMA_WRITE_IMM &&
              g::kOpRdmaRead == MLX5_OPCODE_RDMA_READ && g::kOpAtomicCs == MLX5_OPCODE_ATOMIC_CS &&
              g::kOpAtomicFa == MLX5_OPCODE_ATOMIC_FA);
static_assert(g::kCeCqUpdate == MLX5_WQE_CTRL_CQ_UPDATE && g::kFence == MLX5_WQE_CTRL_FENCE &&
              g::kSolicited == MLX5_WQE_CTRL_SOLICITED &&
              g::kSmallFence == MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
static_assert(g::kWqeBB == MLX5_SEND_WQE_BB && g::kWqeShift == MLX5_SEND_WQE_SHIFT &&
              g::kInlineSeg == MLX5_INLINE_SEG);
static_assert(g::kCqeReq == MLX5_CQE_REQ && g::kCqeReqErr == MLX5_CQE_REQ_ERR &&
              g::kCqeRespErr == MLX5_CQE_RESP_ERR && g::kCqeInvalid == MLX5_CQE_INVALID &&
              g::kCqeOwnerMask == MLX5_CQE_OWNER_MASK && g::kSendDbr == MLX5_SND_DBR);
static_assert(g::kSynLocalLength == MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR &&
              g::kSynLocalQpOp == MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR &&
              g::kSynLocalProt == MLX5_CQE_SYNDROME_LOCAL_PROT_ERR &&
              g::kSynWrFlush == MLX5_CQE_SYNDROME_WR_FLUSH_ERR &&
              g::kSynMwBind == MLX5_CQE_SYNDROME_MW_BIND_ERR &&
              g::kSynBadResp == MLX5_CQE_SYNDROME_BAD_RESP_ERR &&
              g::kSynLocalAccess == MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR &&
              g::kSynRemoteInvalReq == MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR &&
              g::kSynRemoteAccess == MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR &&
              g::kSynRemoteOp == MLX5_CQE_SYNDROME_REMOTE_OP_ERR &&
              g::kSynTransportRetryExc == MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR &&
              g::kSynRnrRetryExc == MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR &&
              g::kSynRemoteAborted == MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR);

namespace {

// The reference entries, from mlx5dv.h's structures and setters only.
void ref_ctrl(unsigned char *b, const Fields &f, uint8_t opcode, uint8_t ds) {
  mlx5dv_set_ctrl_seg(reinterpret_cast<mlx5_wqe_ctrl_seg *>(b), f.index, opcode, 0, f.qpn,
                      f.fm_ce_se, ds, 0, 0);
  // mlx5dv_set_ctrl_seg leaves dci_stream_channel_id as it was; an RC entry has it zero.
  reinterpret_cast<mlx5_wqe_ctrl_seg *>(b)->dci_stream_channel_id = 0;
}
void ref_raddr(unsigned char *b, const Fields &f) {
  auto *r = reinterpret_cast<mlx5_wqe_raddr_seg *>(b);
  r->raddr = htobe64(f.raddr);
  r->rkey = htobe32(f.rkey);
  r->reserved = 0;
}

}  // namespace

TEST_CASE("gda wqe: every opcode equals mlx5dv.h's layout byte for byte", "[gda_wqe]") {
  std::mt19937_64 rng(2024);
  for (int round = 0; round < 500; ++round) {
    const Fields f = draw(rng, round);
    const g::post_t p = post_of(f);
    INFO("round " << round);
    {  // RDMA write and read: ctrl | raddr | data
      for (const uint8_t op : {g::kOpRdmaWrite, g::kOpRdmaRead}) {
        Wqe ours, ref;
        if (op == g::kOpRdmaWrite)
          g::build_write(ours.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.bytes);
        else
          g::build_read(ours.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.bytes);
        ref_ctrl(ref.b, f, op, 3);
        ref_raddr(ref.b + 16, f);
        mlx5dv_set_data_seg(reinterpret_cast<mlx5_wqe_data_seg *>(ref.b + 32), f.bytes, f.lkey,
                            static_cast<uintptr_t>(f.laddr));
        INFO("opcode " << int(op));
        REQUIRE(memcmp(ours.b, ref.b, sizeof ours.b) == 0);
      }
    }
    {  // fetch-add and compare-swap: ctrl | raddr | atomic | data
      for (const uint8_t op : {g::kOpAtomicFa, g::kOpAtomicCs}) {
        Wqe ours, ref;
        if (op == g::kOpAtomicFa)
          g::build_fetch_add(ours.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.add);
        else
          g::build_compare_swap(ours.b, p, f.raddr, f.rkey, f.laddr, f.lkey, f.compare, f.add);
        ref_ctrl(ref.b, f, op, 4);
        ref_raddr(ref.b + 16, f);
        auto *a = reinterpret_cast<mlx5_wqe_atomic_seg *>(ref.b + 32);
        a->swap_add = htobe64(f.add);
        a->compare = op == g::kOpAtomicCs ? htobe64(f.compare) : 0;
        mlx5dv_set_data_seg(reinterpret_cast<mlx5_wqe_data_seg *>(ref.b + 48), 8, f.lkey,
                            static_cast<uintptr_t>(f.laddr));
        INFO("opcode " << int(op));
        REQUIRE(memcmp(ours.b, ref.b, sizeof ours.b) == 0);
      }
    }
    {  // inline write: ctrl | raddr | mlx5_wqe_inl_data_seg + data, zero-padded to a segment
      const uint32_t n = static_cast<uint32_t>(rng() % (g::kMaxInline + 1));
      unsigned char src[g::kMaxInline];
      for (uint32_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(rng());
      Wqe ours, ref;
      const uint8_t ds = g::build_write_inline(ours.b, p, f.raddr, f.rkey, src, n);
      const uint32_t seg_bytes = (4 + n + 15) / 16 * 16;
      ref_ctrl(ref.b, f, MLX5_OPCODE_RDMA_WRITE, static_cast<uint8_t>(2 + seg_bytes / 16));
      ref_raddr(ref.b + 16, f);
      memset(ref.b + 32, 0, seg_bytes);
      reinterpret_cast<mlx5_wqe_inl_data_seg *>(ref.b + 32)->byte_count =
          htobe32(n | MLX5_INLINE_SEG);
      memcpy(ref.b + 36, src, n);
      INFO("inline " << n << " bytes, ds " << int(ds));
      REQUIRE(memcmp(ours.b, ref.b, sizeof ours.b) == 0);
    }
    {  // nop: ctrl alone
      Wqe ours, ref;
      g::build_nop(ours.b, p);
      ref_ctrl(ref.b, f, MLX5_OPCODE_NOP, 1);
      REQUIRE(memcmp(ours.b, ref.b, sizeof ours.b) == 0);
    }
  }
}

TEST_CASE("gda cqe: fields read where mlx5dv.h writes them", "[gda_wqe]") {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 200; ++i) {
    alignas(64) unsigned char buf[64];
    memset(buf, kPoison, sizeof buf);
    auto *c = reinterpret_cast<mlx5_cqe64 *>(buf);
    const uint16_t counter = static_cast<uint16_t>(rng());
    const uint32_t bytes = static_cast<uint32_t>(rng());
    const uint8_t opcode = static_cast<uint8_t>(rng() % 16), owner = rng() & 1;
    c->wqe_counter = htobe16(counter);
    c->byte_cnt = htobe32(bytes);
    c->op_own = static_cast<uint8_t>(opcode << 4 | owner);
    const auto &e = *reinterpret_cast<const g::cqe_t *>(buf);
    REQUIRE(g::be16(e.wqe_counter) == counter);
    REQUIRE(g::be32(e.byte_cnt) == bytes);
    REQUIRE(g::cqe_opcode(e) == mlx5dv_get_cqe_opcode(c));
    REQUIRE((e.op_own & g::kCqeOwnerMask) == mlx5dv_get_cqe_owner(c));
    auto *err = reinterpret_cast<mlx5_err_cqe *>(buf);
    const uint8_t syn = static_cast<uint8_t>(rng()), vsyn = static_cast<uint8_t>(rng());
    const uint32_t opqpn = static_cast<uint32_t>(rng());
    err->syndrome = syn;
    err->vendor_err_synd = vsyn;
    err->s_wqe_opcode_qpn = htobe32(opqpn);
    REQUIRE(e.syndrome == syn);
    REQUIRE(e.vendor_err_synd == vsyn);
    REQUIRE(g::be32(e.s_wqe_opcode_qpn) == opqpn);
    REQUIRE(g::be16(e.wqe_counter) == counter);  // shared by both views
  }
}

#else

TEST_CASE("gda wqe: mlx5dv.h layout agreement", "[gda_wqe]") {
  WARN(
      "SKIP: <infiniband/mlx5dv.h> not found (install libibverbs-dev): the byte-for-byte "
      "comparison with rdma-core's structures did not run");
}

#endif

// The GDA path's wire format: mlx5 send-queue work-queue entries (WQEs), completion-queue
// entries (CQEs) and doorbell records, byte for byte as an mlx5 NIC reads and writes them.
//
// Written once for host and device: GPU threads and CPU PEs post with these builders (gda.h), and
// the ibgda transport's software NIC model (backends/ibgda) decodes and validates with the same
// definitions. Every multi-byte field is big-endian, as the NIC reads it. The layouts are those
// of rdma-core's <infiniband/mlx5dv.h> (mlx5_wqe_ctrl_seg, mlx5_wqe_raddr_seg, mlx5_wqe_data_seg,
// mlx5_wqe_inl_data_seg, mlx5_wqe_atomic_seg, mlx5_cqe64, mlx5_err_cqe), which this header does not
// include (the GPU build and machines without rdma-core must compile it); tests/unit/
// test_gda_wqe.cc checks every builder against mlx5dv.h's own setters and structures.
//
// A WQE is a run of 16-byte segments (its size, `ds`, counted in them) inside 64-byte basic
// blocks (WQEBBs) of the send queue; the entries posted here fit one WQEBB each:
//   write          ctrl | raddr | data                 ds 3
//   write inline   ctrl | raddr | inline header + data  ds 3..4 (at most kMaxInline bytes)
//   read           ctrl | raddr | data                 ds 3
//   fetch-add, compare-swap (8 bytes)
//                  ctrl | raddr | atomic | data        ds 4
//   nop            ctrl                                ds 1
#ifndef XSHMEM_DEVICE_GDA_WQE_H
#define XSHMEM_DEVICE_GDA_WQE_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/device/state.h>

namespace xshmem::dev::gda {

// ---- constants (their mlx5dv.h names in the comments) ---------------------------------------

inline constexpr uint32_t kWqeBB = 64;     // MLX5_SEND_WQE_BB
inline constexpr uint32_t kWqeShift = 6;   // MLX5_SEND_WQE_SHIFT
inline constexpr uint32_t kSegBytes = 16;  // one data-size unit (ds) of a WQE
inline constexpr uint32_t kSegsPerBB = kWqeBB / kSegBytes;

inline constexpr uint8_t kOpNop = 0x00;           // MLX5_OPCODE_NOP
inline constexpr uint8_t kOpRdmaWrite = 0x08;     // MLX5_OPCODE_RDMA_WRITE
inline constexpr uint8_t kOpRdmaWriteImm = 0x09;  // MLX5_OPCODE_RDMA_WRITE_IMM
inline constexpr uint8_t kOpRdmaRead = 0x10;      // MLX5_OPCODE_RDMA_READ
inline constexpr uint8_t kOpAtomicCs = 0x11;      // MLX5_OPCODE_ATOMIC_CS
inline constexpr uint8_t kOpAtomicFa = 0x12;      // MLX5_OPCODE_ATOMIC_FA

// fm_ce_se of the control segment: fence mode (bits 7:5), completion entry (3:2), solicited (1).
inline constexpr uint8_t kCeCqUpdate = 2 << 2;       // MLX5_WQE_CTRL_CQ_UPDATE: always a CQE
inline constexpr uint8_t kSolicited = 1 << 1;        // MLX5_WQE_CTRL_SOLICITED
inline constexpr uint8_t kFence = 4 << 5;            // MLX5_WQE_CTRL_FENCE: after earlier reads
inline constexpr uint8_t kSmallFence = 1 << 5;       // MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE
inline constexpr uint32_t kInlineSeg = 0x80000000u;  // MLX5_INLINE_SEG, in byte_count

// The largest inline write that fits one WQEBB: 64 - ctrl (16) - raddr (16) - header (4).
inline constexpr uint32_t kMaxInline = kWqeBB - 2 * kSegBytes - 4;

// CQE opcodes (the high nibble of op_own) and the owner bit (its bit 0).
inline constexpr uint8_t kCqeReq = 0;       // MLX5_CQE_REQ: a send-queue entry completed
inline constexpr uint8_t kCqeReqErr = 13;   // MLX5_CQE_REQ_ERR
inline constexpr uint8_t kCqeRespErr = 14;  // MLX5_CQE_RESP_ERR
inline constexpr uint8_t kCqeInvalid =
    15;  // MLX5_CQE_INVALID: not yet written (the CQ's initial contents)
inline constexpr uint8_t kCqeOwnerMask = 1;  // MLX5_CQE_OWNER_MASK

// Completion syndromes (mlx5dv.h MLX5_CQE_SYNDROME_*), for the one-line error report.
inline constexpr uint8_t kSynLocalLength = 0x01;
inline constexpr uint8_t kSynLocalQpOp = 0x02;
inline constexpr uint8_t kSynLocalProt = 0x04;
inline constexpr uint8_t kSynWrFlush = 0x05;
inline constexpr uint8_t kSynMwBind = 0x06;
inline constexpr uint8_t kSynBadResp = 0x10;
inline constexpr uint8_t kSynLocalAccess = 0x11;
inline constexpr uint8_t kSynRemoteInvalReq = 0x12;
inline constexpr uint8_t kSynRemoteAccess = 0x13;
inline constexpr uint8_t kSynRemoteOp = 0x14;
inline constexpr uint8_t kSynTransportRetryExc = 0x15;
inline constexpr uint8_t kSynRnrRetryExc = 0x16;
inline constexpr uint8_t kSynRemoteAborted = 0x22;

// The send doorbell record's index in the QP's doorbell record pair (MLX5_SND_DBR).
inline constexpr int kSendDbr = 1;

// ---- segments ---------------------------------------------------------------------------------

struct ctrl_seg_t {           // mlx5_wqe_ctrl_seg
  uint32_t opmod_idx_opcode;  // be: opmod << 24 | wqe index << 8 | opcode
  uint32_t qpn_ds;            // be: qp number << 8 | ds
  uint8_t signature;
  uint8_t stream_id[2];  // dci_stream_channel_id (DC only; 0 for RC)
  uint8_t fm_ce_se;
  uint32_t imm;  // immediate data, as given (already in wire order)
};
struct raddr_seg_t {  // mlx5_wqe_raddr_seg
  uint64_t raddr;     // be
  uint32_t rkey;      // be
  uint32_t reserved;
};
struct data_seg_t {     // mlx5_wqe_data_seg
  uint32_t byte_count;  // be
  uint32_t lkey;        // be
  uint64_t addr;        // be
};
struct atomic_seg_t {  // mlx5_wqe_atomic_seg
  uint64_t swap_add;   // be: the addend (fetch-add) or the swap value (compare-swap)
  uint64_t compare;    // be
};
struct inline_seg_t {   // mlx5_wqe_inl_data_seg; the data follow
  uint32_t byte_count;  // be: length | kInlineSeg
};

// A 64-byte completion entry: the fields of mlx5_cqe64 and mlx5_err_cqe that GDA reads.
struct cqe_t {
  uint8_t rsvd0[44];
  uint32_t byte_cnt;          // be (success)
  uint8_t rsvd48[6];          // timestamp (success)
  uint8_t vendor_err_synd;    // error CQE
  uint8_t syndrome;           // error CQE
  uint32_t s_wqe_opcode_qpn;  // be: the failed WQE's opcode << 24 | qpn (error CQE)
  uint16_t wqe_counter;       // be: index of the completed (or failed) WQE
  uint8_t signature;
  uint8_t op_own;  // cqe opcode << 4 | ... | owner bit
};

static_assert(sizeof(ctrl_seg_t) == kSegBytes && sizeof(raddr_seg_t) == kSegBytes &&
                  sizeof(data_seg_t) == kSegBytes && sizeof(atomic_seg_t) == kSegBytes,
              "mlx5 segments are 16 bytes");
static_assert(sizeof(cqe_t) == 64, "an mlx5 CQE is 64 bytes");
static_assert(offsetof(cqe_t, byte_cnt) == 44 && offsetof(cqe_t, syndrome) == 55 &&
                  offsetof(cqe_t, wqe_counter) == 60 && offsetof(cqe_t, op_own) == 63,
              "mlx5_cqe64 / mlx5_err_cqe field offsets");

// ---- byte order --------------------------------------------------------------------------------
// Written as shifts, which both compilers turn into one byte-permute (PRMT) or bswap.

XSHMEM_HD_INLINE uint16_t be16(uint16_t x) {
  return static_cast<uint16_t>((x >> 8) | (x << 8));
}
XSHMEM_HD_INLINE uint32_t be32(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
}
XSHMEM_HD_INLINE uint64_t be64(uint64_t x) {
  return (static_cast<uint64_t>(be32(static_cast<uint32_t>(x))) << 32) |
         be32(static_cast<uint32_t>(x >> 32));
}

// ---- builders: each writes one whole WQE into `wqe` (a WQEBB of the send queue) ---------------

// What every entry needs: its index in the send queue (the producer counter, wrapping at 16
// bits), the QP number, and whether it asks for a completion entry (selective completions:
// only the entries `quiet` waits for, or the last of a batch, do).
struct post_t {
  uint16_t index;
  uint32_t qpn;
  uint8_t fm_ce_se;  // kCeCqUpdate and/or a fence mode
};

XSHMEM_HD_INLINE void set_ctrl(ctrl_seg_t *c, const post_t &p, uint8_t opcode, uint8_t opmod,
                               uint8_t ds, uint32_t imm = 0) {
  c->opmod_idx_opcode =
      be32(static_cast<uint32_t>(opmod) << 24 | static_cast<uint32_t>(p.index) << 8 | opcode);
  c->qpn_ds = be32(p.qpn << 8 | ds);
  c->signature = 0;
  c->stream_id[0] = 0;
  c->stream_id[1] = 0;
  c->fm_ce_se = p.fm_ce_se;
  c->imm = imm;
}
XSHMEM_HD_INLINE void set_raddr(raddr_seg_t *r, uint64_t raddr, uint32_t rkey) {
  r->raddr = be64(raddr);
  r->rkey = be32(rkey);
  r->reserved = 0;
}
XSHMEM_HD_INLINE void set_data(data_seg_t *d, uint32_t bytes, uint32_t lkey, uint64_t addr) {
  d->byte_count = be32(bytes);
  d->lkey = be32(lkey);
  d->addr = be64(addr);
}

template <int K>
XSHMEM_HD_INLINE void *seg(void *wqe) {
  return static_cast<unsigned char *>(wqe) + K * kSegBytes;
}

// An RDMA write or read: ctrl | raddr | data. Returns ds.
XSHMEM_HD_INLINE uint8_t build_rdma(void *wqe, const post_t &p, uint8_t opcode, uint64_t raddr,
                                    uint32_t rkey, uint64_t laddr, uint32_t lkey, uint32_t bytes) {
  set_ctrl(static_cast<ctrl_seg_t *>(wqe), p, opcode, 0, 3);
  set_raddr(static_cast<raddr_seg_t *>(seg<1>(wqe)), raddr, rkey);
  set_data(static_cast<data_seg_t *>(seg<2>(wqe)), bytes, lkey, laddr);
  return 3;
}
// RDMA write of `bytes` from local [laddr, +bytes) (registered under lkey) to the peer's
// [raddr, +bytes) (rkey).
XSHMEM_HD_INLINE uint8_t build_write(void *wqe, const post_t &p, uint64_t raddr, uint32_t rkey,
                                     uint64_t laddr, uint32_t lkey, uint32_t bytes) {
  return build_rdma(wqe, p, kOpRdmaWrite, raddr, rkey, laddr, lkey, bytes);
}
// RDMA read of `bytes` from the peer's [raddr, +bytes) into local [laddr, +bytes).
XSHMEM_HD_INLINE uint8_t build_read(void *wqe, const post_t &p, uint64_t raddr, uint32_t rkey,
                                    uint64_t laddr, uint32_t lkey, uint32_t bytes) {
  return build_rdma(wqe, p, kOpRdmaRead, raddr, rkey, laddr, lkey, bytes);
}
// The ds of an inline write of `bytes` (at most kMaxInline).
XSHMEM_HD_INLINE uint8_t inline_ds(uint32_t bytes) {
  return static_cast<uint8_t>(2 + (4 + bytes + kSegBytes - 1) / kSegBytes);
}
// RDMA write whose data travel inside the WQE (no local key, no DMA read of the source):
// bytes <= kMaxInline. The bytes after the data up to the end of the last segment are zeroed.
XSHMEM_HD_INLINE uint8_t build_write_inline(void *wqe, const post_t &p, uint64_t raddr,
                                            uint32_t rkey, const void *src, uint32_t bytes) {
  const uint8_t ds = inline_ds(bytes);
  set_ctrl(static_cast<ctrl_seg_t *>(wqe), p, kOpRdmaWrite, 0, ds);
  set_raddr(static_cast<raddr_seg_t *>(seg<1>(wqe)), raddr, rkey);
  auto *h = static_cast<inline_seg_t *>(seg<2>(wqe));
  h->byte_count = be32(bytes | kInlineSeg);
  unsigned char *d = reinterpret_cast<unsigned char *>(h + 1);
  const auto *s = static_cast<const unsigned char *>(src);
  const uint32_t room = (ds - 2) * kSegBytes - 4;
  for (uint32_t i = 0; i < room; ++i) d[i] = i < bytes ? s[i] : 0;
  return ds;
}
// 8-byte atomic at the peer's raddr (8-byte aligned), the old value landing at local laddr:
// fetch-add of `add`, or compare-swap (swap when the old value equals `compare`).
XSHMEM_HD_INLINE uint8_t build_fetch_add(void *wqe, const post_t &p, uint64_t raddr, uint32_t rkey,
                                         uint64_t laddr, uint32_t lkey, uint64_t add) {
  set_ctrl(static_cast<ctrl_seg_t *>(wqe), p, kOpAtomicFa, 0, 4);
  set_raddr(static_cast<raddr_seg_t *>(seg<1>(wqe)), raddr, rkey);
  auto *a = static_cast<atomic_seg_t *>(seg<2>(wqe));
  a->swap_add = be64(add);
  a->compare = 0;
  set_data(static_cast<data_seg_t *>(seg<3>(wqe)), 8, lkey, laddr);
  return 4;
}
XSHMEM_HD_INLINE uint8_t build_compare_swap(void *wqe, const post_t &p, uint64_t raddr,
                                            uint32_t rkey, uint64_t laddr, uint32_t lkey,
                                            uint64_t compare, uint64_t swap) {
  set_ctrl(static_cast<ctrl_seg_t *>(wqe), p, kOpAtomicCs, 0, 4);
  set_raddr(static_cast<raddr_seg_t *>(seg<1>(wqe)), raddr, rkey);
  auto *a = static_cast<atomic_seg_t *>(seg<2>(wqe));
  a->swap_add = be64(swap);
  a->compare = be64(compare);
  set_data(static_cast<data_seg_t *>(seg<3>(wqe)), 8, lkey, laddr);
  return 4;
}
// A no-op entry (a completion point with nothing to move, or a doorbell-batch filler).
XSHMEM_HD_INLINE uint8_t build_nop(void *wqe, const post_t &p) {
  set_ctrl(static_cast<ctrl_seg_t *>(wqe), p, kOpNop, 0, 1);
  return 1;
}

// ---- decoding (the NIC model, and tests) -------------------------------------------------------

XSHMEM_HD_INLINE uint8_t ctrl_opcode(const ctrl_seg_t &c) {
  return static_cast<uint8_t>(be32(c.opmod_idx_opcode) & 0xFF);
}
XSHMEM_HD_INLINE uint8_t ctrl_opmod(const ctrl_seg_t &c) {
  return static_cast<uint8_t>(be32(c.opmod_idx_opcode) >> 24);
}
XSHMEM_HD_INLINE uint16_t ctrl_index(const ctrl_seg_t &c) {
  return static_cast<uint16_t>(be32(c.opmod_idx_opcode) >> 8);
}
XSHMEM_HD_INLINE uint32_t ctrl_qpn(const ctrl_seg_t &c) {
  return be32(c.qpn_ds) >> 8;
}
XSHMEM_HD_INLINE uint8_t ctrl_ds(const ctrl_seg_t &c) {
  return static_cast<uint8_t>(be32(c.qpn_ds) & 0x3F);
}

XSHMEM_HD_INLINE uint8_t cqe_opcode(const cqe_t &e) {
  return static_cast<uint8_t>(e.op_own >> 4);
}
// Whether the CQE at consumer position `ci` of a CQ of `ncqe` entries (a power of two) has been
// written in the current pass: its owner bit equals the pass parity and it is not invalid.
XSHMEM_HD_INLINE bool cqe_ready(const cqe_t &e, uint32_t ci, uint32_t ncqe) {
  const uint8_t own = e.op_own;
  return (own >> 4) != kCqeInvalid && (own & kCqeOwnerMask) == ((ci / ncqe) & 1u);
}
// The owner byte a NIC writes for the CQE at producer position `pi`.
XSHMEM_HD_INLINE uint8_t cqe_op_own(uint8_t opcode, uint32_t pi, uint32_t ncqe) {
  return static_cast<uint8_t>(opcode << 4 | ((pi / ncqe) & 1u));
}

// The doorbell record words: the send queue's producer counter, the CQ's consumer counter.
XSHMEM_HD_INLINE uint32_t send_dbr_value(uint32_t producer) {
  return be32(producer & 0xFFFFu);
}
XSHMEM_HD_INLINE uint32_t cq_dbr_value(uint32_t consumer) {
  return be32(consumer & 0xFFFFFFu);
}

// The name of a completion syndrome, for the report that stops the job.
XSHMEM_HD_INLINE const char *syndrome_name(uint8_t s) {
  switch (s) {
    case kSynLocalLength:
      return "local length error";
    case kSynLocalQpOp:
      return "local QP operation error";
    case kSynLocalProt:
      return "local protection error";
    case kSynWrFlush:
      return "work request flushed (the queue is in error)";
    case kSynMwBind:
      return "memory window bind error";
    case kSynBadResp:
      return "bad response";
    case kSynLocalAccess:
      return "local access error";
    case kSynRemoteInvalReq:
      return "remote invalid request";
    case kSynRemoteAccess:
      return "remote access error (key or range)";
    case kSynRemoteOp:
      return "remote operation error";
    case kSynTransportRetryExc:
      return "transport retry counter exceeded";
    case kSynRnrRetryExc:
      return "RNR retry counter exceeded";
    case kSynRemoteAborted:
      return "remote aborted";
    default:
      return "unknown syndrome";
  }
}

}  // namespace xshmem::dev::gda

#endif  // XSHMEM_DEVICE_GDA_WQE_H

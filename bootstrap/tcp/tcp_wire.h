// xshmem tcp bootstrap: the wire format and its validation, as pure functions.
//
// Everything a stranger can send to rank 0's listener (a frame header, a hello) and everything a
// user can hand to init (a unique id) is checked here, from bytes, before it is trusted. These
// functions touch no socket, no global and no clock, so a fuzzer can call them directly: each
// returns an empty string to accept, or the reason (lower case, for a log line) to refuse.
#ifndef XSHMEM_BOOTSTRAP_TCP_WIRE_H
#define XSHMEM_BOOTSTRAP_TCP_WIRE_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <xshmem/plugin/bootstrap_v1.h>

namespace xshmem::bootstrap_tcp {

constexpr uint32_t kFrameMagic = 0x58534254;  // "XSBT"
constexpr uint64_t kMaxFrame = uint64_t(1) << 36;
// A hello carries the job token: hex text, at most this long.
constexpr uint64_t kMaxTokenLen = 256;
// A reject carries its reason: at most this long.
constexpr uint64_t kMaxRejectLen = 1024;
// kPing: a liveness heartbeat, sent by the control thread on an otherwise idle connection.
enum FrameType : uint16_t { kHello = 1, kWelcome, kReject, kData, kAbort, kBye, kPing };
enum Op : uint16_t { kNoOp = 0, kAllgather, kAlltoall, kBcast, kBarrier };

// Both ends run on the same host or the same architecture (little-endian x86-64/aarch64), so
// the header is sent as is.
struct Frame {
  uint32_t magic = kFrameMagic;
  uint16_t type = 0;
  uint16_t op = kNoOp;
  int32_t origin = -1;  // hello: sender's rank; abort: the rank that asked for it
  int32_t arg = 0;      // hello: job size; abort: exit code
  uint64_t seq = 0;     // data: collective number
  uint64_t len = 0;     // payload bytes that follow
};
static_assert(sizeof(Frame) == 32);

// The unique id: 128 bytes, the rest zero.
constexpr uint32_t kUidMagic = 0x58535455;  // "XSTU"
constexpr uint16_t kUidVersion = 1;
constexpr size_t kTokenBytes = 16;
struct UniqueId {
  uint32_t magic;
  uint16_t version;
  uint16_t reserved;
  uint32_t ipv4;  // network order
  uint16_t port;  // network order
  uint16_t pad;
  uint8_t token[kTokenBytes];
  uint8_t unused[XSHMEM_UNIQUEID_BYTES - 32];
};
static_assert(sizeof(UniqueId) == XSHMEM_UNIQUEID_BYTES);

// Any frame header on an established connection: the magic, a known type, a bounded length.
inline std::string parse_header(const void *bytes, size_t n, Frame *out) {
  if (n < sizeof(Frame)) return "short frame header (" + std::to_string(n) + " bytes)";
  Frame h;
  memcpy(&h, bytes, sizeof(h));
  if (h.magic != kFrameMagic) return "bad frame magic (not an xshmem bootstrap)";
  if (h.type < kHello || h.type > kPing) return "unknown frame type " + std::to_string(h.type);
  if (h.len > kMaxFrame) return "frame length " + std::to_string(h.len) + " is too large";
  *out = h;
  return "";
}

// The first frame of a connection to rank 0, before its token arrived: must be a hello whose
// token length is plausible (so that a stranger cannot make rank 0 wait for a huge payload).
inline std::string parse_hello_header(const void *bytes, size_t n, Frame *out) {
  Frame h;
  std::string why = parse_header(bytes, n, &h);
  if (!why.empty()) return why;
  if (h.type != kHello) return "first frame is of type " + std::to_string(h.type) + ", not a hello";
  if (h.len == 0 || h.len > kMaxTokenLen)
    return "hello token length " + std::to_string(h.len) + " is out of range [1, 256]";
  *out = h;
  return "";
}

// A complete hello (header already accepted by parse_hello_header, then `token_len` bytes of
// token) against the job rank 0 serves. `connected[r]` is nonzero for ranks already in.
inline std::string check_hello(const Frame &h, const void *token, size_t token_len,
                               const std::string &job_token, int job_size, const char *connected) {
  if (token_len != h.len) return "hello token is incomplete";
  if (token_len != job_token.size() || memcmp(token, job_token.data(), token_len) != 0)
    return "wrong job token";
  if (h.origin < 1 || h.origin >= job_size)
    return "rank " + std::to_string(h.origin) + " is out of range [1, " + std::to_string(job_size) +
           ")";
  if (h.arg != job_size)
    return "job size " + std::to_string(h.arg) + " differs from rank 0's " +
           std::to_string(job_size);
  if (connected && connected[h.origin])
    return "rank " + std::to_string(h.origin) + " is already connected";
  return "";
}

// A unique id handed to init. Refuses ids of another bootstrap, and ids whose address is empty:
// an all-zero body would otherwise make rank 0 listen on 0.0.0.0 (every interface) and the
// others connect to port 0.
inline std::string parse_uniqueid(const void *bytes, size_t n, UniqueId *out) {
  if (n < sizeof(UniqueId)) return "unique id of " + std::to_string(n) + " bytes, expected 128";
  UniqueId id;
  memcpy(&id, bytes, sizeof(id));
  if (id.magic != kUidMagic || id.version != kUidVersion) {
    char buf[160];
    snprintf(buf, sizeof(buf),
             "not a tcp bootstrap id (magic 0x%08x version %u, expected 0x%08x version %u)",
             id.magic, id.version, kUidMagic, kUidVersion);
    return buf;
  }
  if (id.ipv4 == 0) return "the id holds no address (0.0.0.0)";
  if (id.port == 0) return "the id holds no port (0)";
  bool token = false;
  for (uint8_t b : id.token) token = token || b != 0;
  if (!token) return "the id holds no job token (all zero)";
  *out = id;
  return "";
}

}  // namespace xshmem::bootstrap_tcp

#endif  // XSHMEM_BOOTSTRAP_TCP_WIRE_H

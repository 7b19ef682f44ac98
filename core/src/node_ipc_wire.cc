// xshmem core: wire format and checks of the node-local exchange (see node_ipc_wire.h).
#include "node_ipc_wire.h"

#include <sys/socket.h>

#include <cstring>

#include "sha256.h"

namespace xshmem::core::wire {
namespace {

constexpr char kLabelKey[] = "xshmem node ipc key v1";
constexpr char kLabelName[] = "name";
constexpr char kLabelChallenge[] = "challenge";
constexpr char kLabelHello[] = "hello";
constexpr char kLabelAck[] = "ack";

// Labels are hashed with their terminating NUL, so no label is a prefix of another's input.
void mac(const uint8_t key[kKeySize], const char *label, size_t label_size, const Bytes *fields,
         size_t n, uint8_t out[kMacSize]) {
  Bytes parts[8];
  parts[0] = {label, label_size};
  for (size_t i = 0; i < n; ++i) parts[i + 1] = fields[i];
  hmac_sha256(key, kKeySize, parts, n + 1, out);
}

void challenge_mac(const Job &job, int listener_pe, const uint8_t nonce[kNonceSize],
                   uint8_t out[kMacSize]) {
  const int32_t pe = listener_pe;
  const uint64_t round = job.round;
  const Bytes f[] = {{&pe, sizeof(pe)}, {&round, sizeof(round)}, {nonce, kNonceSize}};
  mac(job.key, kLabelChallenge, sizeof(kLabelChallenge), f, 3, out);
}

void hello_mac(const Job &job, int from_pe, int to_pe, uint32_t has_fd,
               const uint8_t nonce[kNonceSize], uint8_t out[kMacSize]) {
  const int32_t from = from_pe, to = to_pe;
  const uint64_t round = job.round;
  const Bytes f[] = {{nonce, kNonceSize},
                     {&from, sizeof(from)},
                     {&to, sizeof(to)},
                     {&round, sizeof(round)},
                     {&has_fd, sizeof(has_fd)}};
  mac(job.key, kLabelHello, sizeof(kLabelHello), f, 5, out);
}

void ack_mac(const Job &job, int from_pe, int to_pe, const uint8_t nonce[kNonceSize],
             uint8_t out[kMacSize]) {
  const int32_t from = from_pe, to = to_pe;
  const uint64_t round = job.round;
  const Bytes f[] = {
      {nonce, kNonceSize}, {&from, sizeof(from)}, {&to, sizeof(to)}, {&round, sizeof(round)}};
  mac(job.key, kLabelAck, sizeof(kLabelAck), f, 4, out);
}

// The checks every message shares: one whole message, nothing truncated.
Verdict check_frame(size_t len, size_t want, int msg_flags) {
  if (msg_flags & (MSG_CTRUNC | MSG_TRUNC)) return Verdict::kTruncated;
  if (len != want) return Verdict::kSize;
  return Verdict::kAccept;
}

}  // namespace

const char *verdict_str(Verdict v) {
  switch (v) {
    case Verdict::kAccept:
      return "accepted";
    case Verdict::kSize:
      return "wrong message size";
    case Verdict::kTruncated:
      return "truncated message or control data";
    case Verdict::kMagic:
      return "not an xshmem exchange message";
    case Verdict::kVersion:
      return "another protocol version";
    case Verdict::kRound:
      return "wrong round";
    case Verdict::kTarget:
      return "meant for another pe";
    case Verdict::kPeRange:
      return "pe out of range";
    case Verdict::kNotLocal:
      return "pe not a local peer";
    case Verdict::kMac:
      return "no proof of the job key";
    case Verdict::kFdCount:
      return "wrong number of descriptors";
    case Verdict::kFdKind:
      return "descriptor of the wrong kind";
    case Verdict::kUid:
      return "another user";
    case Verdict::kSilent:
      return "silent past the deadline";
    case Verdict::kClosed:
      return "closed without a message";
    case Verdict::kCrowded:
      return "too many pending connections";
    case Verdict::kCount_:
      break;
  }
  return "unknown";
}

void derive_key(const std::string &token, uint8_t key[kKeySize]) {
  const Bytes label{kLabelKey, sizeof(kLabelKey)};
  hmac_sha256(token.data(), token.size(), &label, 1, key);
}

std::string socket_name(const uint8_t key[kKeySize], int pe, uint64_t round) {
  const int32_t p = pe;
  const Bytes f[] = {{&p, sizeof(p)}, {&round, sizeof(round)}};
  uint8_t h[kMacSize];
  mac(key, kLabelName, sizeof(kLabelName), f, 2, h);
  static const char kHex[] = "0123456789abcdef";
  std::string name = "xshmem-";
  for (size_t i = 0; i < 20; ++i) {  // 160 bits
    name += kHex[h[i] >> 4];
    name += kHex[h[i] & 15];
  }
  return name;
}

Challenge make_challenge(const Job &job, const uint8_t nonce[kNonceSize]) {
  Challenge c{};
  c.magic = kChallengeMagic;
  c.version = kVersion;
  c.listener_pe = job.my_pe;
  c.round = job.round;
  memcpy(c.nonce, nonce, kNonceSize);
  challenge_mac(job, job.my_pe, nonce, c.mac);
  return c;
}

Hello make_hello(const Job &job, int to_pe, bool has_fd, const uint8_t nonce[kNonceSize]) {
  Hello h{};
  h.magic = kHelloMagic;
  h.version = kVersion;
  h.from_pe = job.my_pe;
  h.to_pe = to_pe;
  h.round = job.round;
  h.has_fd = has_fd ? 1 : 0;
  hello_mac(job, job.my_pe, to_pe, h.has_fd, nonce, h.mac);
  return h;
}

Ack make_ack(const Job &job, int from_pe, const uint8_t nonce[kNonceSize]) {
  Ack a{};
  a.magic = kAckMagic;
  a.version = kVersion;
  ack_mac(job, from_pe, job.my_pe, nonce, a.mac);
  return a;
}

Verdict check_hello(const void *bytes, size_t len, int n_fds, int msg_flags, const Job &job,
                    const uint8_t nonce[kNonceSize], int *from_pe, bool *has_fd) {
  if (Verdict v = check_frame(len, sizeof(Hello), msg_flags); v != Verdict::kAccept) return v;
  Hello h;
  memcpy(&h, bytes, sizeof(h));
  if (h.magic != kHelloMagic) return Verdict::kMagic;
  if (h.version != kVersion) return Verdict::kVersion;
  if (h.round != job.round) return Verdict::kRound;
  if (h.to_pe != job.my_pe) return Verdict::kTarget;
  if (h.from_pe < 0 || h.from_pe >= job.n_pes) return Verdict::kPeRange;
  if (h.from_pe == job.my_pe || job.host_id[h.from_pe] != job.host_id[job.my_pe])
    return Verdict::kNotLocal;
  if (h.has_fd > 1 || h.reserved != 0) return Verdict::kMagic;
  uint8_t want[kMacSize];
  hello_mac(job, h.from_pe, h.to_pe, h.has_fd, nonce, want);
  if (!equal_ct(want, h.mac, kMacSize)) return Verdict::kMac;
  if (n_fds != static_cast<int>(h.has_fd)) return Verdict::kFdCount;
  *from_pe = h.from_pe;
  *has_fd = h.has_fd == 1;
  return Verdict::kAccept;
}

Verdict check_challenge(const void *bytes, size_t len, int n_fds, int msg_flags, const Job &job,
                        int listener_pe, uint8_t nonce[kNonceSize]) {
  if (Verdict v = check_frame(len, sizeof(Challenge), msg_flags); v != Verdict::kAccept) return v;
  Challenge c;
  memcpy(&c, bytes, sizeof(c));
  if (c.magic != kChallengeMagic) return Verdict::kMagic;
  if (c.version != kVersion) return Verdict::kVersion;
  if (c.round != job.round) return Verdict::kRound;
  if (c.listener_pe != listener_pe || c.reserved != 0) return Verdict::kTarget;
  uint8_t want[kMacSize];
  challenge_mac(job, listener_pe, c.nonce, want);
  if (!equal_ct(want, c.mac, kMacSize)) return Verdict::kMac;
  if (n_fds != 0) return Verdict::kFdCount;
  memcpy(nonce, c.nonce, kNonceSize);
  return Verdict::kAccept;
}

Verdict check_ack(const void *bytes, size_t len, int n_fds, int msg_flags, const Job &job,
                  int listener_pe, const uint8_t nonce[kNonceSize]) {
  if (Verdict v = check_frame(len, sizeof(Ack), msg_flags); v != Verdict::kAccept) return v;
  Ack a;
  memcpy(&a, bytes, sizeof(a));
  if (a.magic != kAckMagic) return Verdict::kMagic;
  if (a.version != kVersion) return Verdict::kVersion;
  uint8_t want[kMacSize];
  ack_mac(job, job.my_pe, listener_pe, nonce, want);
  if (!equal_ct(want, a.mac, kMacSize)) return Verdict::kMac;
  if (n_fds != 0) return Verdict::kFdCount;
  return Verdict::kAccept;
}

Verdict check_fd_kind(const struct stat &mine, const struct stat &theirs) {
  if ((mine.st_mode & S_IFMT) != (theirs.st_mode & S_IFMT)) return Verdict::kFdKind;
  if (mine.st_dev != theirs.st_dev) return Verdict::kFdKind;
  if (S_ISREG(mine.st_mode) && mine.st_size != theirs.st_size) return Verdict::kFdKind;
  return Verdict::kAccept;
}

}  // namespace xshmem::core::wire

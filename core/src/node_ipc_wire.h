// xshmem core: the wire format of the node-local descriptor exchange (node_ipc.cc), and the pure
// checks of what arrives on it (no I/O, no global state: a fuzzer drives them directly).
//
// Per round, PE p listens on the abstract socket name(K, p, round), where K is a key derived from
// the job token (derive_key): the names are unpredictable without the token, so no process
// outside the job can bind (squat) a future round's names. For every local peer q, p connects
// to q's name and the two speak three messages:
//
//   listener -> connector  Challenge {listener pe, round, nonce, mac_K("challenge", ...)}
//   connector -> listener  Hello {from, to, round, has_fd, mac_K("hello", nonce, ...)}, and
//                          exactly one SCM_RIGHTS descriptor when has_fd, none otherwise
//   listener -> connector  Ack {mac_K("ack", nonce, from, to, round)}
//
// The nonce is fresh per connection, so a Hello cannot be replayed; the token never goes on the
// wire. Both sides also check SO_PEERCRED (the other process's uid must equal ours).
#ifndef XSHMEM_CORE_NODE_IPC_WIRE_H
#define XSHMEM_CORE_NODE_IPC_WIRE_H

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace xshmem::core::wire {

constexpr uint32_t kVersion = 1;
constexpr size_t kKeySize = 32;
constexpr size_t kNonceSize = 16;
constexpr size_t kMacSize = 32;
constexpr uint32_t kChallengeMagic = 0x43485358;  // "XSHC"
constexpr uint32_t kHelloMagic = 0x48485358;      // "XSHH"
constexpr uint32_t kAckMagic = 0x41485358;        // "XSHA"

struct Challenge {
  uint32_t magic;
  uint32_t version;
  int32_t listener_pe;
  uint32_t reserved;  // 0
  uint64_t round;
  uint8_t nonce[kNonceSize];
  uint8_t mac[kMacSize];
};

struct Hello {
  uint32_t magic;
  uint32_t version;
  int32_t from_pe;
  int32_t to_pe;
  uint64_t round;
  uint32_t has_fd;    // 0 or 1: whether one descriptor rides along
  uint32_t reserved;  // 0
  uint8_t mac[kMacSize];
};

struct Ack {
  uint32_t magic;
  uint32_t version;
  uint8_t mac[kMacSize];
};

// What one side knows of the job in a given round.
struct Job {
  uint8_t key[kKeySize];  // derive_key(token)
  int my_pe;
  int n_pes;
  uint64_t round;
  const uint64_t *host_id;  // [n_pes]; a peer must be on my host
};

// Why a message was refused; kAccept when it was not.
enum class Verdict {
  kAccept = 0,
  kSize,       // not exactly one message of the expected size
  kTruncated,  // MSG_CTRUNC / MSG_TRUNC: control data or payload did not fit
  kMagic,      // not a message of this protocol (or of this step)
  kVersion,    // another protocol version
  kRound,      // another round of the exchange
  kTarget,     // meant for another PE
  kPeRange,    // pe outside 0..n_pes-1
  kNotLocal,   // pe of another host, or the receiving PE itself
  kMac,        // does not prove knowledge of the job's key
  kFdCount,    // descriptors attached do not match has_fd (zero, several, or unexpected)
  kFdKind,     // the descriptor is not of the kind this PE offers
  kUid,        // SO_PEERCRED: another user
  kSilent,     // nothing (or not all) within the per-connection deadline
  kClosed,     // closed before saying anything
  kCrowded,    // dropped to make room for newer connections
  kCount_
};
const char *verdict_str(Verdict v);

// K = HMAC-SHA-256(token, "xshmem node ipc key v1").
void derive_key(const std::string &token, uint8_t key[kKeySize]);
// The abstract socket name (without the leading NUL) on which `pe` listens in `round`.
std::string socket_name(const uint8_t key[kKeySize], int pe, uint64_t round);

// Builders (the sender's side).
Challenge make_challenge(const Job &job, const uint8_t nonce[kNonceSize]);
Hello make_hello(const Job &job, int to_pe, bool has_fd, const uint8_t nonce[kNonceSize]);
Ack make_ack(const Job &job, int from_pe, const uint8_t nonce[kNonceSize]);

// Checks of received bytes. `len` is what recvmsg returned, `n_fds` the descriptors that came
// with it (SCM_RIGHTS, all messages counted), `msg_flags` recvmsg's msg_flags.
// A listener (job.my_pe) checks a Hello against the nonce it sent; on kAccept *from_pe and
// *has_fd say who sent it and whether the one descriptor is theirs.
Verdict check_hello(const void *bytes, size_t len, int n_fds, int msg_flags, const Job &job,
                    const uint8_t nonce[kNonceSize], int *from_pe, bool *has_fd);
// A connector checks the Challenge of `listener_pe`; on kAccept `nonce` receives its nonce.
Verdict check_challenge(const void *bytes, size_t len, int n_fds, int msg_flags, const Job &job,
                        int listener_pe, uint8_t nonce[kNonceSize]);
// A connector checks the Ack of `listener_pe` for the Hello it sent under `nonce`.
Verdict check_ack(const void *bytes, size_t len, int n_fds, int msg_flags, const Job &job,
                  int listener_pe, const uint8_t nonce[kNonceSize]);

// Whether a received descriptor (`theirs`, from fstat) is of the kind of the one this PE offers
// (`mine`): same file type and file system, and for regular files (memfds) the same size.
Verdict check_fd_kind(const struct stat &mine, const struct stat &theirs);

}  // namespace xshmem::core::wire

#endif  // XSHMEM_CORE_NODE_IPC_WIRE_H

// SEC-03 fuzz harness node_ipc_wire: the messages of the node-local descriptor exchange
// (core/src/node_ipc_wire.h): the Hello a listener receives with a descriptor, the Challenge and
// the Ack a connector receives, and the kind check of a received descriptor.
//
// Input: byte 0 picks the message and the descriptor count, byte 1 the recvmsg flags, byte 2 the
// sender and byte 3 a bit to flip; the rest is the message as received. Checked, on the fuzzed
// bytes: whatever is accepted is byte for byte the message the genuine peer builds (the MAC cannot
// be forged, no field is ignored). On the genuine message of the picked sender: it is accepted
// exactly when it should be (a local peer other than me, one descriptor with has_fd and none
// without, no truncation), and refused once any one bit of it is flipped.
#include <sys/socket.h>

#include <cstring>
#include <string>

#include "fuzz_check.h"
#include "node_ipc_wire.h"

namespace w = xshmem::core::wire;

namespace {

// Four PEs, 0-2 on one host, 3 on another; the receiving PE is 1, in round 7.
const uint64_t kHosts[4] = {5, 5, 5, 9};
constexpr int kMe = 1;
const uint8_t kNonce[w::kNonceSize] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

w::Job job_of(int pe) {
  w::Job j{};
  w::derive_key("fuzz-job-token", j.key);
  j.my_pe = pe;
  j.n_pes = 4;
  j.round = 7;
  j.host_id = kHosts;
  return j;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  const std::string input(reinterpret_cast<const char *>(data), size);
  const int kind = data[0] % 3;
  const int n_fds = (data[0] >> 2) % 3;
  const int flags = (data[1] & 1 ? MSG_CTRUNC : 0) | (data[1] & 2 ? MSG_TRUNC : 0);
  const int peer = data[2] % 4;
  const size_t flip = data[3];
  const uint8_t *msg = data + 4;
  const size_t len = size - 4;
  const w::Job me = job_of(kMe);

  // The genuine message of `peer` (to me, or as the listener I connected to).
  w::Hello hello = w::make_hello(job_of(peer), kMe, n_fds == 1, kNonce);
  w::Challenge challenge = w::make_challenge(job_of(peer), kNonce);
  w::Ack ack = w::make_ack(job_of(peer), kMe, kNonce);
  void *genuine = kind == 0   ? static_cast<void *>(&hello)
                  : kind == 1 ? static_cast<void *>(&challenge)
                              : static_cast<void *>(&ack);
  const size_t glen = kind == 0 ? sizeof(hello) : kind == 1 ? sizeof(challenge) : sizeof(ack);

  auto check = [&](const void *bytes, size_t n, int fds, int fl, int *from, bool *has_fd) {
    uint8_t nonce[w::kNonceSize] = {};
    w::Verdict v;
    if (kind == 0)
      v = w::check_hello(bytes, n, fds, fl, me, kNonce, from, has_fd);
    else if (kind == 1)
      v = w::check_challenge(bytes, n, fds, fl, me, peer, nonce);
    else
      v = w::check_ack(bytes, n, fds, fl, me, peer, kNonce);
    FUZZ_CHECK(static_cast<int>(v) >= 0 && v < w::Verdict::kCount_ && w::verdict_str(v), input,
               "verdict " + std::to_string(static_cast<int>(v)));
    if (kind == 1 && v == w::Verdict::kAccept)
      FUZZ_CHECK(memcmp(nonce, kNonce, sizeof(nonce)) == 0, input, "accepted challenge's nonce");
    return v;
  };

  // The fuzzed bytes.
  int from = -1;
  bool has_fd = false;
  if (check(msg, len, n_fds, flags, &from, &has_fd) == w::Verdict::kAccept) {
    FUZZ_CHECK(len == glen && memcmp(msg, genuine, glen) == 0, input,
               "accepted bytes that are not the genuine message of pe " + std::to_string(peer));
    FUZZ_CHECK(flags == 0, input, "accepted a truncated message");
    if (kind == 0)
      FUZZ_CHECK(from == peer && has_fd == (n_fds == 1), input, "accepted hello's sender");
  }

  // The genuine message: accepted exactly when it should be...
  const bool local_other = peer != kMe && kHosts[peer] == kHosts[kMe];
  // A connector only ever talks to local peers other than itself: which is its choice, not the
  // challenge's or the ack's to prove.
  if (kind != 0 && !local_other) return 0;
  const int fds = kind == 0 ? n_fds : 0;
  const bool should = local_other && flags == 0 && (kind != 0 || n_fds <= 1);
  const w::Verdict v = check(genuine, glen, fds, flags, &from, &has_fd);
  FUZZ_CHECK(
      (v == w::Verdict::kAccept) == should, input,
      std::string("genuine message of pe ") + std::to_string(peer) + ": " + w::verdict_str(v));
  // ... and refused with any one bit flipped.
  if (should) {
    uint8_t copy[sizeof(w::Challenge) > sizeof(w::Hello) ? sizeof(w::Challenge) : sizeof(w::Hello)];
    memcpy(copy, genuine, glen);
    copy[(flip / 8) % glen] ^= static_cast<uint8_t>(1u << (flip % 8));
    FUZZ_CHECK(check(copy, glen, fds, 0, &from, &has_fd) != w::Verdict::kAccept, input,
               "a genuine message with bit " + std::to_string(flip % (8 * glen)) +
                   " flipped was accepted");
  }
  return 0;
}

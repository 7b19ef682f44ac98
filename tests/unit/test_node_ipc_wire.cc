// SEC-01: the checks of the node-local exchange's messages (core/src/node_ipc_wire.h). A message
// is accepted only from a local peer that proves the job's key for this round, this target and
// this connection's nonce, with exactly the descriptors it announces; everything else is refused
// with its reason.
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <set>

#include "../catch_compat.h"
#include "node_ipc_wire.h"

namespace w = xshmem::core::wire;
using w::Verdict;

namespace {

// Four PEs: 0, 1, 2 on host 7, 3 on host 9. Job seen by `pe` in round 5.
const uint64_t kHosts[4] = {7, 7, 7, 9};

w::Job job_of(int pe, const std::string &token = "00112233445566778899aabbccddeeff",
              uint64_t round = 5) {
  w::Job j{};
  w::derive_key(token, j.key);
  j.my_pe = pe;
  j.n_pes = 4;
  j.round = round;
  j.host_id = kHosts;
  return j;
}

const uint8_t kNonce[w::kNonceSize] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

Verdict hello_verdict(const w::Hello &h, int n_fds = 1, int flags = 0, const w::Job &at = job_of(0),
                      const uint8_t *nonce = kNonce) {
  int from = -1;
  bool has_fd = false;
  return w::check_hello(&h, sizeof(h), n_fds, flags, at, nonce, &from, &has_fd);
}

}  // namespace

TEST_CASE("SEC-01 wire: a peer's hello is accepted, and says who sent it", "[node_ipc_wire]") {
  for (bool with_fd : {true, false}) {
    const w::Hello h = w::make_hello(job_of(1), 0, with_fd, kNonce);
    int from = -1;
    bool has_fd = !with_fd;
    CHECK(w::check_hello(&h, sizeof(h), with_fd ? 1 : 0, 0, job_of(0), kNonce, &from, &has_fd) ==
          Verdict::kAccept);
    CHECK(from == 1);
    CHECK(has_fd == with_fd);
  }
}

TEST_CASE("SEC-01 wire: hellos without proof, or for another job, round, pe or connection",
          "[node_ipc_wire]") {
  const w::Hello good = w::make_hello(job_of(1), 0, true, kNonce);
  // Another job's key, another round, another connection's nonce.
  CHECK(hello_verdict(w::make_hello(job_of(1, "ffeeddccbbaa99887766554433221100"), 0, true,
                                    kNonce)) == Verdict::kMac);
  CHECK(hello_verdict(w::make_hello(job_of(1, "00112233445566778899aabbccddeeff", 6), 0, true,
                                    kNonce)) == Verdict::kRound);
  uint8_t other_nonce[w::kNonceSize] = {};
  CHECK(hello_verdict(good, 1, 0, job_of(0), other_nonce) == Verdict::kMac);
  // Meant for pe 2; from pe 3 (other host); from the listener itself; out of range.
  CHECK(hello_verdict(w::make_hello(job_of(1), 2, true, kNonce)) == Verdict::kTarget);
  CHECK(hello_verdict(w::make_hello(job_of(3), 0, true, kNonce)) == Verdict::kNotLocal);
  CHECK(hello_verdict(w::make_hello(job_of(0), 0, true, kNonce)) == Verdict::kNotLocal);
  for (int pe : {-1, 4, 1 << 30}) {
    w::Hello h = good;
    h.from_pe = pe;
    CHECK(hello_verdict(h) == Verdict::kPeRange);
  }
  // A claim of another PE with a proof made for pe 1: the proof covers the sender.
  w::Hello claim = good;
  claim.from_pe = 2;
  CHECK(hello_verdict(claim) == Verdict::kMac);
  // has_fd flipped under the same proof.
  w::Hello flipped = good;
  flipped.has_fd = 0;
  CHECK(hello_verdict(flipped, 0) == Verdict::kMac);
  flipped.has_fd = 2;
  CHECK(hello_verdict(flipped, 2) == Verdict::kMagic);
}

TEST_CASE("SEC-01 wire: every changed byte of a hello is refused", "[node_ipc_wire]") {
  const w::Hello good = w::make_hello(job_of(2), 0, true, kNonce);
  for (size_t i = 0; i < sizeof(good); ++i)
    for (uint8_t bit : {uint8_t(1), uint8_t(0x80)}) {
      w::Hello h = good;
      reinterpret_cast<uint8_t *>(&h)[i] ^= bit;
      INFO("byte " << i << " bit " << int(bit));
      CHECK(hello_verdict(h) != Verdict::kAccept);
    }
}

TEST_CASE("SEC-01 wire: descriptor count, truncation and size", "[node_ipc_wire]") {
  const w::Hello with = w::make_hello(job_of(1), 0, true, kNonce);
  const w::Hello without = w::make_hello(job_of(1), 0, false, kNonce);
  CHECK(hello_verdict(with, 0) == Verdict::kFdCount);
  CHECK(hello_verdict(with, 2) == Verdict::kFdCount);
  CHECK(hello_verdict(without, 1) == Verdict::kFdCount);
  CHECK(hello_verdict(with, 1, MSG_CTRUNC) == Verdict::kTruncated);
  CHECK(hello_verdict(with, 1, MSG_TRUNC) == Verdict::kTruncated);
  uint8_t buf[sizeof(w::Hello) + 8] = {};
  memcpy(buf, &with, sizeof(with));
  int from = -1;
  bool has_fd = false;
  for (size_t len :
       {size_t(0), size_t(1), size_t(16), sizeof(w::Hello) - 1, sizeof(w::Hello) + 1, sizeof(buf)})
    CHECK(w::check_hello(buf, len, 1, 0, job_of(0), kNonce, &from, &has_fd) == Verdict::kSize);
  CHECK(from == -1);
}

TEST_CASE("SEC-01 wire: random messages are never accepted", "[node_ipc_wire]") {
  std::mt19937_64 rng(11);
  const w::Job j = job_of(0);
  uint8_t buf[sizeof(w::Hello)];
  for (int it = 0; it < 20000; ++it) {
    for (auto &b : buf) b = static_cast<uint8_t>(rng());
    w::Hello h;
    memcpy(&h, buf, sizeof(h));
    if (it & 1) {  // right framing, only the proof is guessed
      h.magic = w::kHelloMagic;
      h.version = w::kVersion;
      h.from_pe = 1;
      h.to_pe = 0;
      h.round = 5;
      h.has_fd = 1;
      h.reserved = 0;
    }
    int from = -1;
    bool has_fd = false;
    REQUIRE(w::check_hello(&h, sizeof(h), 1, 0, j, kNonce, &from, &has_fd) != Verdict::kAccept);
  }
}

TEST_CASE("SEC-01 wire: challenge and ack prove the listener", "[node_ipc_wire]") {
  const w::Challenge c = w::make_challenge(job_of(0), kNonce);
  uint8_t got[w::kNonceSize] = {};
  CHECK(w::check_challenge(&c, sizeof(c), 0, 0, job_of(1), 0, got) == Verdict::kAccept);
  CHECK(memcmp(got, kNonce, sizeof(got)) == 0);
  CHECK(w::check_challenge(&c, sizeof(c), 0, 0, job_of(1), 2, got) == Verdict::kTarget);
  CHECK(w::check_challenge(&c, sizeof(c), 1, 0, job_of(1), 0, got) == Verdict::kFdCount);
  CHECK(w::check_challenge(&c, sizeof(c), 0, 0, job_of(1, "x"), 0, got) == Verdict::kMac);
  w::Challenge bad = c;
  bad.nonce[3] ^= 1;
  CHECK(w::check_challenge(&bad, sizeof(bad), 0, 0, job_of(1), 0, got) == Verdict::kMac);

  const w::Ack a = w::make_ack(job_of(0), 1, kNonce);  // listener 0 acknowledges pe 1
  CHECK(w::check_ack(&a, sizeof(a), 0, 0, job_of(1), 0, kNonce) == Verdict::kAccept);
  CHECK(w::check_ack(&a, sizeof(a), 0, 0, job_of(2), 0, kNonce) == Verdict::kMac);
  CHECK(w::check_ack(&a, sizeof(a), 0, 0, job_of(1), 2, kNonce) == Verdict::kMac);
  CHECK(w::check_ack(&a, sizeof(a) - 1, 0, 0, job_of(1), 0, kNonce) == Verdict::kSize);
  uint8_t other[w::kNonceSize] = {9};
  CHECK(w::check_ack(&a, sizeof(a), 0, 0, job_of(1), 0, other) == Verdict::kMac);
}

TEST_CASE("SEC-01 wire: socket names depend on token, pe and round and reveal none",
          "[node_ipc_wire]") {
  const std::string token = "00112233445566778899aabbccddeeff";
  std::set<std::string> names;
  for (const std::string &t : {token, std::string("00112233445566778899aabbccddeefe")})
    for (int pe = 0; pe < 8; ++pe)
      for (uint64_t round = 1; round <= 4; ++round) {
        uint8_t key[w::kKeySize];
        w::derive_key(t, key);
        const std::string n = w::socket_name(key, pe, round);
        CHECK(n.rfind("xshmem-", 0) == 0);
        CHECK(n.size() == 7 + 40);
        CHECK(n.find(t) == std::string::npos);
        CHECK(n.find(t.substr(0, 8)) == std::string::npos);
        CHECK(w::socket_name(key, pe, round) == n);  // every PE computes the same name
        names.insert(n);
      }
  CHECK(names.size() == 2 * 8 * 4);
}

TEST_CASE("SEC-01 wire: a descriptor must be of the kind this pe offers", "[node_ipc_wire]") {
  int a = memfd_create("wire-a", MFD_CLOEXEC), b = memfd_create("wire-b", MFD_CLOEXEC),
      c = memfd_create("wire-c", MFD_CLOEXEC);
  int p[2];
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  REQUIRE(c >= 0);
  REQUIRE(pipe(p) == 0);
  REQUIRE(ftruncate(a, 1 << 20) == 0);
  REQUIRE(ftruncate(b, 1 << 20) == 0);
  REQUIRE(ftruncate(c, 1 << 16) == 0);
  struct stat sa, sb, sc, sp;
  REQUIRE(fstat(a, &sa) == 0);
  REQUIRE(fstat(b, &sb) == 0);
  REQUIRE(fstat(c, &sc) == 0);
  REQUIRE(fstat(p[0], &sp) == 0);
  CHECK(w::check_fd_kind(sa, sb) == Verdict::kAccept);
  CHECK(w::check_fd_kind(sa, sc) == Verdict::kFdKind);  // a memfd of another size
  CHECK(w::check_fd_kind(sa, sp) == Verdict::kFdKind);  // a pipe
  struct stat other_fs = sb;
  other_fs.st_dev ^= 1;
  CHECK(w::check_fd_kind(sa, other_fs) == Verdict::kFdKind);
  for (int fd : {a, b, c, p[0], p[1]}) close(fd);
}

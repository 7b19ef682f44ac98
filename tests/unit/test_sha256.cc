// Known-answer tests of SHA-256 (FIPS 180-4 examples) and HMAC-SHA-256 (RFC 4231), which key the
// node-local exchange to the job token (core/src/sha256.h).
#include <string>
#include <vector>

#include "../catch_compat.h"
#include "sha256.h"

using xshmem::core::Bytes;
using xshmem::core::hmac_sha256;
using xshmem::core::Sha256;

namespace {

std::string hex(const uint8_t *p, size_t n) {
  static const char k[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += k[p[i] >> 4];
    s += k[p[i] & 15];
  }
  return s;
}

std::string sha(const std::string &m) {
  Sha256 h;
  h.update(m.data(), m.size());
  uint8_t d[32];
  h.finish(d);
  return hex(d, 32);
}

std::string hmac(const std::vector<uint8_t> &key, const std::string &m) {
  const Bytes part{m.data(), m.size()};
  uint8_t d[32];
  hmac_sha256(key.data(), key.size(), &part, 1, d);
  return hex(d, 32);
}

}  // namespace

TEST_CASE("sha256: FIPS 180-4 examples", "[sha256]") {
  CHECK(sha("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: any split of the input gives the same digest", "[sha256]") {
  std::string m;
  for (int i = 0; i < 300; ++i) m += static_cast<char>(i * 7 + 3);
  const std::string whole = sha(m);
  for (size_t cut : {size_t(0), size_t(1), size_t(55), size_t(56), size_t(63), size_t(64),
                     size_t(65), size_t(128), size_t(299)}) {
    Sha256 h;
    h.update(m.data(), cut);
    h.update(m.data() + cut, m.size() - cut);
    uint8_t d[32];
    h.finish(d);
    CHECK(hex(d, 32) == whole);
  }
}

TEST_CASE("hmac-sha256: RFC 4231 test cases 1, 2, 4, 6, 7", "[sha256]") {
  CHECK(hmac(std::vector<uint8_t>(20, 0x0b), "Hi There") ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hmac({'J', 'e', 'f', 'e'}, "what do ya want for nothing?") ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  std::vector<uint8_t> k4;
  for (uint8_t i = 1; i <= 25; ++i) k4.push_back(i);
  CHECK(hmac(k4, std::string(50, '\xcd')) ==
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  CHECK(hmac(std::vector<uint8_t>(131, 0xaa),
             "Test Using Larger Than Block-Size Key - Hash Key First") ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  CHECK(hmac(std::vector<uint8_t>(131, 0xaa),
             "This is a test using a larger than block-size key and a larger than block-size "
             "data. The key needs to be hashed before being used by the HMAC algorithm.") ==
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST_CASE("hmac-sha256: parts are hashed as their concatenation", "[sha256]") {
  const std::string a = "what do ya ", b = "want for nothing?";
  const Bytes parts[] = {{a.data(), a.size()}, {b.data(), b.size()}};
  uint8_t d[32];
  const uint8_t key[] = {'J', 'e', 'f', 'e'};
  hmac_sha256(key, sizeof(key), parts, 2, d);
  CHECK(hex(d, 32) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

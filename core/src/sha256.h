// xshmem core: SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), libc only.
//
// Used to key the node-local exchange to the job token (node_ipc.cc): the socket names and the
// proofs of membership are HMACs, so the token itself never leaves the process.
#ifndef XSHMEM_CORE_SHA256_H
#define XSHMEM_CORE_SHA256_H

#include <cstddef>
#include <cstdint>

namespace xshmem::core {

class Sha256 {
 public:
  static constexpr size_t kDigestSize = 32;
  static constexpr size_t kBlockSize = 64;

  Sha256();
  void update(const void *data, size_t len);
  // Writes the digest; the object is then spent (construct a new one to hash again).
  void finish(uint8_t out[kDigestSize]);

 private:
  void block(const uint8_t *p);
  uint32_t h_[8];
  uint8_t buf_[kBlockSize];
  size_t fill_ = 0;
  uint64_t total_ = 0;  // bytes
};

// HMAC-SHA-256 of the concatenation of `parts` (pointer, length pairs) under `key`.
struct Bytes {
  const void *data;
  size_t len;
};
void hmac_sha256(const void *key, size_t key_len, const Bytes *parts, size_t n_parts,
                 uint8_t out[Sha256::kDigestSize]);

// Compares in time independent of where the buffers differ.
bool equal_ct(const void *a, const void *b, size_t len);

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_SHA256_H

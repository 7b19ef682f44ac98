// SEC-03 fuzz harness tcp_wire: what the tcp bootstrap reads from outside before it trusts it
// (bootstrap/tcp/tcp_wire.h): any frame header on a connection (parse_header), the first frame
// a stranger sends rank 0's listener (parse_hello_header, then check_hello with the token that
// follows), and the unique id an application hands to init (parse_uniqueid).
//
// The input is the bytes on the wire: a 32-byte header and what follows it (the hello's token),
// and, read as a unique id, its first 128 bytes. Checked: a refusal gives a one-line reason; what
// is accepted is what the protocol allows (known type, bounded length, a hello from a rank of the
// job not yet connected with the job's size and token, a unique id with an address, a port and a
// token), and it is the bytes that came in.
#include <cstring>
#include <string>

#include "fuzz_check.h"
#include "tcp_wire.h"

namespace bt = xshmem::bootstrap_tcp;

namespace {

// The job rank 0 serves in this harness: 4 ranks, ranks 2 already connected.
const std::string kJobToken = "00112233445566778899aabbccddeeff";
constexpr int kJobSize = 4;
const char kConnected[kJobSize] = {1, 0, 1, 0};

void check_reason(const std::string &why, const std::string &input, const char *what) {
  FUZZ_CHECK(why.find('\n') == std::string::npos, input, std::string(what) + ": " + why);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string input(reinterpret_cast<const char *>(data), size);

  bt::Frame h{};
  const std::string why = bt::parse_header(data, size, &h);
  check_reason(why, input, "parse_header");
  if (why.empty()) {
    FUZZ_CHECK(size >= sizeof(bt::Frame) && memcmp(&h, data, sizeof(h)) == 0, input,
               "an accepted header must be the bytes that came in");
    FUZZ_CHECK(h.magic == bt::kFrameMagic && h.type >= bt::kHello && h.type <= bt::kPing &&
                   h.len <= bt::kMaxFrame,
               input, "accepted header of type " + std::to_string(h.type));
  }

  bt::Frame hello{};
  const std::string hwhy = bt::parse_hello_header(data, size, &hello);
  check_reason(hwhy, input, "parse_hello_header");
  if (hwhy.empty()) {
    FUZZ_CHECK(why.empty(), input, "a hello header that is no header");
    FUZZ_CHECK(hello.type == bt::kHello && hello.len >= 1 && hello.len <= bt::kMaxTokenLen, input,
               "accepted hello of length " + std::to_string(hello.len));
    const uint8_t *token = data + sizeof(bt::Frame);
    const size_t have = size - sizeof(bt::Frame);
    const size_t token_len = have < hello.len ? have : hello.len;
    const std::string cwhy =
        bt::check_hello(hello, token, token_len, kJobToken, kJobSize, kConnected);
    check_reason(cwhy, input, "check_hello");
    if (cwhy.empty()) {
      FUZZ_CHECK(token_len == kJobToken.size() && memcmp(token, kJobToken.data(), token_len) == 0,
                 input, "a hello without the job token was accepted");
      FUZZ_CHECK(hello.origin >= 1 && hello.origin < kJobSize && !kConnected[hello.origin], input,
                 "hello from rank " + std::to_string(hello.origin) + " accepted");
      FUZZ_CHECK(hello.arg == kJobSize, input, "hello of another job size accepted");
    } else {
      FUZZ_CHECK(!cwhy.empty(), input, "check_hello");
    }
  }

  bt::UniqueId id{};
  const std::string uwhy = bt::parse_uniqueid(data, size, &id);
  check_reason(uwhy, input, "parse_uniqueid");
  if (uwhy.empty()) {
    FUZZ_CHECK(size >= sizeof(id) && memcmp(&id, data, sizeof(id)) == 0, input,
               "an accepted unique id must be the bytes given");
    bool token = false;
    for (uint8_t b : id.token) token = token || b != 0;
    FUZZ_CHECK(id.magic == bt::kUidMagic && id.version == bt::kUidVersion && id.ipv4 != 0 &&
                   id.port != 0 && token,
               input, "accepted a unique id without address, port or token");
  }
  return 0;
}

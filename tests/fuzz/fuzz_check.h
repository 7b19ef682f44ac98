// SEC-03 fuzz harnesses: the check every harness uses for the properties it asserts.
//
// A failed check prints what was expected and the input, then aborts: under libFuzzer that is a
// crash (the input is saved as an artifact), under the replay driver a failed CTest entry.
#ifndef XSHMEM_TESTS_FUZZ_CHECK_H
#define XSHMEM_TESTS_FUZZ_CHECK_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace xshmem::fuzz {

// The input as the environment would hold it: text up to the first NUL (an environment value
// cannot contain one).
inline std::string env_text(const uint8_t *data, size_t size) {
  std::string s(reinterpret_cast<const char *>(data), size);
  const size_t nul = s.find('\0');
  if (nul != std::string::npos) s.resize(nul);
  return s;
}

// The text with C escapes for bytes that are not printable, for messages.
inline std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char b[8];
      snprintf(b, sizeof(b), "\\x%02x", c);
      out += b;
    }
  }
  return out + "\"";
}

}  // namespace xshmem::fuzz

#define FUZZ_CHECK(cond, input, what)                                                          \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "fuzz: %s:%d: check failed: %s (%s) for input %s\n", __FILE__, __LINE__, \
              #cond, std::string(what).c_str(), xshmem::fuzz::quoted(input).c_str());          \
      abort();                                                                                 \
    }                                                                                          \
  } while (0)

#endif  // XSHMEM_TESTS_FUZZ_CHECK_H

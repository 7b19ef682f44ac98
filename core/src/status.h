// xshmem core: the internal status type.
#ifndef XSHMEM_CORE_STATUS_H
#define XSHMEM_CORE_STATUS_H

#include <xshmem/plugin/common.h>

namespace xshmem {

// A status that must be looked at. Wraps the ABI's xshmem_status_t codes.
class [[nodiscard]] Status {
 public:
  constexpr Status() = default;
  constexpr Status(xshmem_status_t code) : code_(code) {}  // NOLINT: implicit from ABI codes
  constexpr bool ok() const { return code_ == XSHMEM_SUCCESS; }
  constexpr xshmem_status_t code() const { return code_; }
  const char *str() const { return status_str(code_); }
  static const char *status_str(xshmem_status_t code);

 private:
  xshmem_status_t code_ = XSHMEM_SUCCESS;
};

}  // namespace xshmem

// Propagates a failed status after logging where it happened (file:line, the expression).
#define XSHMEM_CHECK(expr)                                                                         \
  do {                                                                                             \
    ::xshmem::Status _xs_st = (expr);                                                              \
    if (!_xs_st.ok()) {                                                                            \
      XLOG_AT(XSHMEM_LOG_DEBUG, "core", __FILE__, __LINE__, "%s failed: %s", #expr, _xs_st.str()); \
      return _xs_st;                                                                               \
    }                                                                                              \
  } while (0)

#endif  // XSHMEM_CORE_STATUS_H

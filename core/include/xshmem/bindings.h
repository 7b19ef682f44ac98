// <xshmem/bindings.h>: for language bindings (the Python package, python/), C++ only.
//
// A checked-mode failure (a bad argument: "xshmem: <call>: <what> (pe N)") prints its line and
// stops the job. A binding wants an exception in the caller's language instead: while a
// checks_throw is alive on a thread, a checked-mode failure on that thread throws check_error
// carrying the same line (logged at info level, not printed) and the job goes on. The
// argument checks run before a call does anything, so the call has no effect; a collective whose
// members disagree on its arguments finds that on every member alike, and each member throws.
// Other failures (a dead peer, a passed wait deadline) still stop the job.
#ifndef XSHMEM_BINDINGS_H
#define XSHMEM_BINDINGS_H

#include <stdexcept>
#include <string>

namespace xshmem {

class check_error : public std::runtime_error {
 public:
  explicit check_error(const std::string &line);
  ~check_error() override;
};

class checks_throw {
 public:
  checks_throw();
  ~checks_throw();
  checks_throw(const checks_throw &) = delete;
  checks_throw &operator=(const checks_throw &) = delete;

 private:
  bool prev_;
};

}  // namespace xshmem

#endif  // XSHMEM_BINDINGS_H

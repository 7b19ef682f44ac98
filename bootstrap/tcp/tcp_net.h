// xshmem tcp bootstrap: socket helpers with deadlines.
//
// Every blocking step (connect, accept, send, recv) takes an absolute deadline and reports, on
// failure, which step failed and the errno. Sockets are non-blocking and close-on-exec; waiting
// is done with poll so that a deadline is honoured even when the peer stops mid-message.
#ifndef XSHMEM_BOOTSTRAP_TCP_NET_H
#define XSHMEM_BOOTSTRAP_TCP_NET_H

#include <netinet/in.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace xshmem::bootstrap_tcp {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

// Result of an I/O step: ok, the deadline passed, the peer closed the connection (EOF), or a
// system error (err holds errno).
enum class Io { kOk, kTimeout, kClosed, kError };
struct IoResult {
  Io io = Io::kOk;
  int err = 0;
  bool ok() const { return io == Io::kOk; }
  std::string str() const;  // "timed out", "connection closed", "connection reset by peer", ...
};

// Milliseconds left until `deadline` (0 if passed), clamped for poll.
int ms_left(Deadline deadline);
// Seconds elapsed since `start`, for messages.
double seconds_since(Deadline start);

// Parses "host:port" (host resolved to IPv4 with getaddrinfo). Returns false with `err` set.
bool parse_hostport(const std::string &text, sockaddr_in *addr, std::string *err);
// "a.b.c.d:port".
std::string addr_str(const sockaddr_in &addr);

// Creates a non-blocking listener bound to `addr` (port 0 picks one); fills the bound address.
// Returns the fd or -1 with errno set.
int listen_on(sockaddr_in *addr, int backlog);
// Makes an inherited fd non-blocking and close-on-exec; checks it is a listening socket.
bool adopt_listener(int fd, sockaddr_in *bound, std::string *err);

// Connects to `addr`, retrying refused connections until `deadline` (the listener may not be up
// yet). Returns the fd or -1; *res says why.
int connect_retry(const sockaddr_in &addr, Deadline deadline, IoResult *res);
// Accepts one connection from listener `lfd` before `deadline`. Returns the fd or -1.
int accept_until(int lfd, Deadline deadline, IoResult *res, sockaddr_in *peer);

// Sends or receives exactly `len` bytes before `deadline`. recv_all reports kClosed when the
// peer closed the connection (EOF or reset); `got` tells how many bytes had arrived.
IoResult send_all(int fd, const void *buf, size_t len, Deadline deadline);
IoResult recv_all(int fd, void *buf, size_t len, Deadline deadline, size_t *got = nullptr);

// Lower-case hex encoding of bytes.
std::string to_hex(const uint8_t *p, size_t n);

}  // namespace xshmem::bootstrap_tcp

#endif  // XSHMEM_BOOTSTRAP_TCP_NET_H

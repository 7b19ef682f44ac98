// xshmem tcp bootstrap: socket helpers with deadlines (see tcp_net.h).
#include "tcp_net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <thread>

namespace xshmem::bootstrap_tcp {

std::string IoResult::str() const {
  switch (io) {
    case Io::kOk:
      return "ok";
    case Io::kTimeout:
      return "timed out";
    case Io::kClosed:
      return err ? std::string("connection lost (") + strerror(err) + ")" : "connection closed";
    case Io::kError:
      return strerror(err);
  }
  return "?";
}

int ms_left(Deadline deadline) {
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(left, INT_MAX));
}

double seconds_since(Deadline start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool parse_hostport(const std::string &text, sockaddr_in *addr, std::string *err) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    *err = "expected host:port";
    return false;
  }
  std::string host = text.substr(0, colon), port = text.substr(colon + 1);
  char *end = nullptr;
  long p = strtol(port.c_str(), &end, 10);
  if (*end != '\0' || p <= 0 || p > 65535) {
    *err = "bad port '" + port + "'";
    return false;
  }
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || res == nullptr) {
    *err = "cannot resolve host '" + host + "': " + gai_strerror(rc);
    return false;
  }
  memcpy(addr, res->ai_addr, sizeof(*addr));
  addr->sin_port = htons(static_cast<uint16_t>(p));
  freeaddrinfo(res);
  return true;
}

std::string addr_str(const sockaddr_in &addr) {
  char buf[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &addr.sin_addr, buf, sizeof(buf));
  return std::string(buf) + ":" + std::to_string(ntohs(addr.sin_port));
}

static void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int listen_on(sockaddr_in *addr, int backlog) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  socklen_t alen = sizeof(*addr);
  if (bind(fd, reinterpret_cast<sockaddr *>(addr), sizeof(*addr)) != 0 ||
      listen(fd, backlog) != 0 || getsockname(fd, reinterpret_cast<sockaddr *>(addr), &alen) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

bool adopt_listener(int fd, sockaddr_in *bound, std::string *err) {
  int accepting = 0;
  socklen_t len = sizeof(accepting);
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) != 0) {
    *err = "fd " + std::to_string(fd) + " is not a socket (" + strerror(errno) + ")";
    return false;
  }
  if (!accepting) {
    *err = "fd " + std::to_string(fd) + " is a socket that does not listen";
    return false;
  }
  int fl = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  socklen_t alen = sizeof(*bound);
  getsockname(fd, reinterpret_cast<sockaddr *>(bound), &alen);
  return true;
}

int connect_retry(const sockaddr_in &addr, Deadline deadline, IoResult *res) {
  auto backoff = std::chrono::milliseconds(5);
  for (;;) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      *res = {Io::kError, errno};
      return -1;
    }
    int rc = connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof(addr));
    int e = rc == 0 ? 0 : errno;
    if (e == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int n = poll(&p, 1, ms_left(deadline));
      if (n == 0) {
        close(fd);
        *res = {Io::kTimeout, ETIMEDOUT};
        return -1;
      }
      socklen_t len = sizeof(e);
      if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0) e = errno;
    }
    if (e == 0) {
      set_nodelay(fd);
      *res = {};
      return fd;
    }
    close(fd);
    bool retry = e == ECONNREFUSED || e == EAGAIN || e == ECONNRESET || e == EINTR;
    if (!retry || ms_left(deadline) == 0) {
      *res = {ms_left(deadline) == 0 && retry ? Io::kTimeout : Io::kError, e};
      return -1;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - Clock::now()));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
  }
}

int accept_until(int lfd, Deadline deadline, IoResult *res, sockaddr_in *peer) {
  for (;;) {
    socklen_t alen = sizeof(*peer);
    int fd = accept4(lfd, reinterpret_cast<sockaddr *>(peer), &alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      set_nodelay(fd);
      *res = {};
      return fd;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
      *res = {Io::kError, errno};
      return -1;
    }
    pollfd p{lfd, POLLIN, 0};
    int n = poll(&p, 1, ms_left(deadline));
    if (n == 0) {
      *res = {Io::kTimeout, ETIMEDOUT};
      return -1;
    }
    if (n < 0 && errno != EINTR) {
      *res = {Io::kError, errno};
      return -1;
    }
  }
}

IoResult send_all(int fd, const void *buf, size_t len, Deadline deadline) {
  auto p = static_cast<const char *>(buf);
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (errno == EPIPE || errno == ECONNRESET) return {Io::kClosed, errno};
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return {Io::kError, errno};
    pollfd pf{fd, POLLOUT, 0};
    int r = poll(&pf, 1, ms_left(deadline));
    if (r == 0) return {Io::kTimeout, ETIMEDOUT};
    if (r < 0 && errno != EINTR) return {Io::kError, errno};
  }
  return {};
}

IoResult recv_all(int fd, void *buf, size_t len, Deadline deadline, size_t *got) {
  auto p = static_cast<char *>(buf);
  size_t done = 0;
  IoResult res;
  while (done < len) {
    ssize_t n = recv(fd, p + done, len - done, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      res = {Io::kClosed, 0};
      break;
    }
    if (errno == ECONNRESET || errno == EPIPE) {
      res = {Io::kClosed, errno};
      break;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      res = {Io::kError, errno};
      break;
    }
    pollfd pf{fd, POLLIN, 0};
    int r = poll(&pf, 1, ms_left(deadline));
    if (r == 0) {
      res = {Io::kTimeout, ETIMEDOUT};
      break;
    }
    if (r < 0 && errno != EINTR) {
      res = {Io::kError, errno};
      break;
    }
  }
  if (got) *got = done;
  return res;
}

std::string to_hex(const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = digits[p[i] >> 4];
    s[2 * i + 1] = digits[p[i] & 15];
  }
  return s;
}

}  // namespace xshmem::bootstrap_tcp

// xshmem core: node-local descriptor exchange over abstract Unix-domain sockets.
#include "node_ipc.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "log.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

struct Hello {
  int32_t pe;
  int32_t has_fd;
  uint64_t round;
};

socklen_t make_addr(sockaddr_un &addr, const std::string &name) {
  memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  // Abstract namespace: sun_path[0] == '\0', the name follows, no terminator.
  size_t n = std::min(name.size(), sizeof(addr.sun_path) - 1);
  memcpy(addr.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

std::string sock_name(const xshmem_job_info_v1_t &job, int pe, uint64_t round) {
  return "xshmem-" + std::string(job.job_token) + "-" + std::to_string(pe) + "-" +
         std::to_string(round);
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status send_fd(int sock, const Hello &h, int fd) {
  iovec iov{const_cast<Hello *>(&h), sizeof(h)};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    memset(cbuf, 0, sizeof(cbuf));
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  ssize_t n;
  do n = sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof(h)) ? XSHMEM_SUCCESS : XSHMEM_ERR_IO;
}

Status recv_fd(int sock, Hello &h, int &fd, int timeout_ms) {
  pollfd p{sock, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return XSHMEM_ERR_TIMEOUT;
  iovec iov{&h, sizeof(h)};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))];
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof(cbuf);
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(h))) return XSHMEM_ERR_IO;
  fd = -1;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      memcpy(&fd, CMSG_DATA(c), sizeof(int));
  return XSHMEM_SUCCESS;
}

}  // namespace

Status node_fd_exchange(const xshmem_job_info_v1_t &job, int my_fd, int *peer_fds) {
  static uint64_t round = 0;  // calls are collective, so every PE counts alike
  ++round;
  const int me = job.my_pe, n = job.n_pes;
  for (int pe = 0; pe < n; ++pe) peer_fds[pe] = -1;
  const int64_t timeout_ms = config::get_duration_ms("XSHMEM_INIT_TIMEOUT");

  Fd lsock(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (lsock.get() < 0) return XSHMEM_ERR_IO;
  sockaddr_un addr;
  socklen_t alen = make_addr(addr, sock_name(job, me, round));
  if (bind(lsock.get(), reinterpret_cast<sockaddr *>(&addr), alen) != 0 ||
      listen(lsock.get(), job.n_local_pes + 1) != 0) {
    XLOG_ERROR("core", "node ipc: cannot listen on abstract socket %s: %s",
               sock_name(job, me, round).c_str(), strerror(errno));
    return XSHMEM_ERR_IO;
  }
  XSHMEM_CHECK(oob_barrier());  // every PE listens before anyone connects

  // Send to every local peer first (connect completes against the backlog without accept),
  // then accept from every local peer: no ordering between PEs is needed.
  std::vector<int> local;
  for (int pe = 0; pe < n; ++pe)
    if (pe != me && job.host_id[pe] == job.host_id[me]) local.push_back(pe);
  Hello hello{me, my_fd >= 0, round};
  for (int pe : local) {
    Fd s(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un paddr;
    socklen_t plen = make_addr(paddr, sock_name(job, pe, round));
    if (connect(s.get(), reinterpret_cast<sockaddr *>(&paddr), plen) != 0) {
      XLOG_ERROR("core", "node ipc: pe %d cannot connect to pe %d: %s", me, pe, strerror(errno));
      return XSHMEM_ERR_IO;
    }
    if (Status st = send_fd(s.get(), hello, my_fd); !st.ok()) {
      XLOG_ERROR("core", "node ipc: pe %d cannot send its descriptor to pe %d: %s", me, pe,
                 strerror(errno));
      return st;
    }
  }
  for (size_t i = 0; i < local.size(); ++i) {
    pollfd p{lsock.get(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout_ms)) <= 0) {
      XLOG_ERROR("core",
                 "node ipc: pe %d waited %lld ms for descriptors from %zu local peers, got %zu", me,
                 static_cast<long long>(timeout_ms), local.size(), i);
      return XSHMEM_ERR_TIMEOUT;
    }
    Fd c(accept4(lsock.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (c.get() < 0) return XSHMEM_ERR_IO;
    Hello h{};
    int fd = -1;
    XSHMEM_CHECK(recv_fd(c.get(), h, fd, static_cast<int>(timeout_ms)));
    if (h.pe < 0 || h.pe >= n || h.round != round || peer_fds[h.pe] >= 0) {
      if (fd >= 0) close(fd);
      XLOG_ERROR("core", "node ipc: unexpected hello (pe %d, round %llu)", h.pe,
                 static_cast<unsigned long long>(h.round));
      return XSHMEM_ERR_INTERNAL;
    }
    peer_fds[h.pe] = fd;
  }
  return oob_barrier();
}

}  // namespace xshmem::core

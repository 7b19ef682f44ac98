// xshmem core: node-local descriptor exchange over abstract Unix-domain sockets.
//
// Any process of the host can list abstract sockets (/proc/net/unix) and connect to them, so the
// exchange trusts nothing it receives until the sender proved it holds the job's key (see
// node_ipc_wire.h for the protocol). One poll loop serves the listener, every accepted
// connection and this PE's own connections to its peers at once: a stranger that stays silent,
// sends half a message or garbage is dropped at its own short deadline and never delays the PEs
// of the job; only waiting for those PEs is bounded by XSHMEM_INIT_TIMEOUT.
#include "node_ipc.h"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "config.h"
#include "log.h"
#include "node_ipc_wire.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

using wire::Verdict;

constexpr int64_t kHelloDeadlineMs = 1000;  // an accepted connection has this long to say Hello
constexpr size_t kMaxPending = 64;          // accepted connections not yet heard from
constexpr int64_t kRetryMs = 5;             // before reconnecting to a peer that dropped us
constexpr int kMaxFds = 8;                  // room for this many received descriptors

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

socklen_t make_addr(sockaddr_un &addr, const std::string &name) {
  memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  // Abstract namespace: sun_path[0] == '\0', the name follows, no terminator.
  size_t n = std::min(name.size(), sizeof(addr.sun_path) - 1);
  memcpy(addr.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd &&o) noexcept : fd_(o.release()) {}
  Fd &operator=(Fd &&o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.release();
    }
    return *this;
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool fill_random(uint8_t *p, size_t n) {
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

// One received message: its bytes, the descriptors that came with it (owned), recvmsg's flags.
struct Received {
  ssize_t n = -1;  // recvmsg's result; 0 = the other side closed
  int err = 0;
  int flags = 0;
  std::vector<Fd> fds;
};

template <size_t N>
Received recv_msg(int sock, uint8_t (&buf)[N]) {
  Received r;
  iovec iov{buf, N};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(kMaxFds * sizeof(int))];
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof(cbuf);
  do r.n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  while (r.n < 0 && errno == EINTR);
  if (r.n < 0) {
    r.err = errno;
    return r;
  }
  r.flags = msg.msg_flags;
  // Take every descriptor that arrived, whatever else is wrong, so that none leaks.
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      r.fds.emplace_back(fd);
    }
  }
  return r;
}

bool send_msg(int sock, const void *data, size_t len, int fd = -1) {
  iovec iov{const_cast<void *>(data), len};
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
  do n = sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(len);
}

// The other end's credentials; false when the kernel does not say.
bool peer_cred(int sock, ucred &cred) {
  socklen_t len = sizeof(cred);
  return getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof(cred);
}

// Connections refused, by reason: the first of each reason is logged with its details, the
// rest are counted and summed up in one line when the exchange ends.
class Refusals {
 public:
  explicit Refusals(int me) : me_(me) {}
  void add(Verdict v, int sock, const char *what) {
    const size_t i = static_cast<size_t>(v);
    if (count_[i]++ == 0) {
      ucred c{-1, static_cast<uid_t>(-1), static_cast<gid_t>(-1)};
      if (sock >= 0) peer_cred(sock, c);
      XLOG_WARN("core",
                "node ipc: pe %d refused a %s from pid %d uid %d: %s; it is not a pe of this job "
                "(nothing it sent was used)",
                me_, what, static_cast<int>(c.pid), static_cast<int>(c.uid), wire::verdict_str(v));
    }
    ++total_;
  }
  ~Refusals() {
    if (total_ <= 1) return;
    std::string parts;
    for (size_t i = 0; i < count_.size(); ++i) {
      if (!count_[i]) continue;
      if (!parts.empty()) parts += ", ";
      parts += std::to_string(count_[i]) + " " + wire::verdict_str(static_cast<Verdict>(i));
    }
    XLOG_WARN("core", "node ipc: pe %d refused %d connections in all (%s)", me_, total_,
              parts.c_str());
  }

 private:
  int me_;
  int total_ = 0;
  std::vector<int> count_ = std::vector<int>(static_cast<size_t>(Verdict::kCount_), 0);
};

// A connection accepted by the listener, not yet heard from.
struct Incoming {
  Fd sock;
  int64_t deadline;
  uint8_t nonce[wire::kNonceSize];
};

// This PE's connection to one local peer's listener.
struct Outgoing {
  enum State { kIdle, kWaitChallenge, kWaitAck, kDone };
  int pe;
  State state = kIdle;
  Fd sock;
  int64_t retry_at = 0;
  int attempts = 0;
  uint8_t nonce[wire::kNonceSize] = {};
};

class Exchange {
 public:
  Exchange(const xshmem_job_info_v1_t &job, uint64_t round, int my_fd, int *peer_fds)
      : job_(job), my_fd_(my_fd), peer_fds_(peer_fds), refusals_(job.my_pe) {
    wire::derive_key(job.job_token ? job.job_token : "", wj_.key);
    wj_.my_pe = job.my_pe;
    wj_.n_pes = job.n_pes;
    wj_.round = round;
    wj_.host_id = job.host_id;
    got_.assign(static_cast<size_t>(job.n_pes), false);
    received_.resize(static_cast<size_t>(job.n_pes));
    uid_ = geteuid();
  }

  Status listen_on() {
    const std::string name = wire::socket_name(wj_.key, job_.my_pe, wj_.round);
    lsock_.reset(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (lsock_.get() < 0) {
      XLOG_ERROR("core", "node ipc: pe %d cannot create a unix socket: %s", job_.my_pe,
                 strerror(errno));
      return XSHMEM_ERR_IO;
    }
    sockaddr_un addr;
    socklen_t alen = make_addr(addr, name);
    if (bind(lsock_.get(), reinterpret_cast<sockaddr *>(&addr), alen) != 0) {
      const int err = errno;
      if (err == EADDRINUSE)
        XLOG_ERROR("core",
                   "node ipc: pe %d cannot listen on abstract socket @%s (round %llu): the name is "
                   "taken by another process of this host; it is derived from the job token, so "
                   "the token has leaked or two jobs share one: start the job again",
                   job_.my_pe, name.c_str(), static_cast<unsigned long long>(wj_.round));
      else
        XLOG_ERROR("core", "node ipc: pe %d cannot bind abstract socket @%s: %s", job_.my_pe,
                   name.c_str(), strerror(err));
      return XSHMEM_ERR_IO;
    }
    if (listen(lsock_.get(), SOMAXCONN) != 0) {
      XLOG_ERROR("core", "node ipc: pe %d cannot listen on @%s: %s", job_.my_pe, name.c_str(),
                 strerror(errno));
      return XSHMEM_ERR_IO;
    }
    return XSHMEM_SUCCESS;
  }

  Status run() {
    if (my_fd_ >= 0 && fstat(my_fd_, &my_stat_) != 0) {
      XLOG_ERROR("core", "node ipc: pe %d cannot fstat its own descriptor %d: %s", job_.my_pe,
                 my_fd_, strerror(errno));
      return XSHMEM_ERR_IO;
    }
    for (int pe = 0; pe < job_.n_pes; ++pe)
      if (pe != job_.my_pe && job_.host_id[pe] == job_.host_id[job_.my_pe]) {
        out_.push_back(Outgoing{});
        out_.back().pe = pe;
        local_.push_back(pe);
      }
    const int64_t timeout_ms = config::get_duration_ms("XSHMEM_INIT_TIMEOUT");
    const int64_t end = now_ms() + timeout_ms;
    while (!finished()) {
      const int64_t now = now_ms();
      if (now >= end) return timed_out(timeout_ms);
      for (Outgoing &o : out_)
        if (o.state == Outgoing::kIdle && now >= o.retry_at) XSHMEM_CHECK(connect_to(o));
      for (auto it = in_.begin(); it != in_.end();) {
        if (now >= it->deadline) {
          refusals_.add(Verdict::kSilent, it->sock.get(), "connection");
          it = in_.erase(it);
        } else {
          ++it;
        }
      }
      // Wait for something to do: a message, a connection, a deadline, a retry.
      int64_t wake = end;
      for (const Incoming &c : in_) wake = std::min(wake, c.deadline);
      for (const Outgoing &o : out_)
        if (o.state == Outgoing::kIdle) wake = std::min(wake, o.retry_at);
      std::vector<pollfd> pfds;
      pfds.push_back({lsock_.get(), POLLIN, 0});
      for (const Outgoing &o : out_)
        if (o.sock.get() >= 0) pfds.push_back({o.sock.get(), POLLIN, 0});
      for (const Incoming &c : in_) pfds.push_back({c.sock.get(), POLLIN, 0});
      const int wait = static_cast<int>(std::clamp<int64_t>(wake - now_ms(), 0, 1000));
      int r = poll(pfds.data(), pfds.size(), wait);
      if (r < 0 && errno != EINTR) {
        XLOG_ERROR("core", "node ipc: pe %d: poll failed: %s", job_.my_pe, strerror(errno));
        return XSHMEM_ERR_IO;
      }
      if (r <= 0) continue;
      // pfds: the listener, every open outgoing socket, every incoming connection, in list
      // order. Handling one outgoing socket changes no other; incoming ones are erased below.
      size_t k = 1;
      for (Outgoing &o : out_) {
        if (o.sock.get() < 0) continue;
        const short ev = pfds[k++].revents;
        if (ev) XSHMEM_CHECK(on_outgoing(o));
      }
      std::vector<char> ready(in_.size(), 0);
      for (size_t i = 0; i < ready.size(); ++i) ready[i] = pfds[k + i].revents != 0;
      size_t j = 0;
      for (auto it = in_.begin(); it != in_.end(); ++j) {
        bool done = false;
        if (ready[j]) XSHMEM_CHECK(on_incoming(*it, done));
        if (done) {
          it = in_.erase(it);
        } else {
          ++it;
        }
      }
      if (pfds[0].revents) XSHMEM_CHECK(accept_all());
    }
    for (int pe : local_) {
      peer_fds_[pe] = received_[static_cast<size_t>(pe)].release();
    }
    return XSHMEM_SUCCESS;
  }

 private:
  bool finished() const {
    for (int pe : local_)
      if (!got_[static_cast<size_t>(pe)]) return false;
    for (const Outgoing &o : out_)
      if (o.state != Outgoing::kDone) return false;
    return true;
  }

  Status timed_out(int64_t timeout_ms) {
    std::string from, to;
    for (int pe : local_)
      if (!got_[static_cast<size_t>(pe)]) from += (from.empty() ? "" : " ") + std::to_string(pe);
    for (const Outgoing &o : out_)
      if (o.state != Outgoing::kDone) to += (to.empty() ? "" : " ") + std::to_string(o.pe);
    XLOG_ERROR("core",
               "node ipc: pe %d waited %lld ms (XSHMEM_INIT_TIMEOUT) for the descriptor exchange "
               "with its local peers: nothing yet from pe [%s], not yet delivered to pe [%s]",
               job_.my_pe, static_cast<long long>(timeout_ms), from.c_str(), to.c_str());
    return XSHMEM_ERR_TIMEOUT;
  }

  void drop(Outgoing &o) {
    o.sock.reset();
    o.state = Outgoing::kIdle;
    o.retry_at = now_ms() + kRetryMs;
  }

  Status connect_to(Outgoing &o) {
    ++o.attempts;
    o.sock.reset(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (o.sock.get() < 0) {
      XLOG_ERROR("core", "node ipc: pe %d cannot create a unix socket: %s", job_.my_pe,
                 strerror(errno));
      return XSHMEM_ERR_IO;
    }
    sockaddr_un addr;
    socklen_t alen = make_addr(addr, wire::socket_name(wj_.key, o.pe, wj_.round));
    if (connect(o.sock.get(), reinterpret_cast<sockaddr *>(&addr), alen) != 0) {
      // EAGAIN: the peer's backlog is full (strangers crowding it); the peer accepts them all
      // at once, so try again shortly. Anything else is a broken peer.
      if (errno == EAGAIN || errno == EINTR) {
        drop(o);
        return XSHMEM_SUCCESS;
      }
      XLOG_ERROR("core", "node ipc: pe %d cannot connect to pe %d: %s", job_.my_pe, o.pe,
                 strerror(errno));
      return XSHMEM_ERR_IO;
    }
    ucred c{};
    if (!peer_cred(o.sock.get(), c) || c.uid != uid_) {
      XLOG_ERROR("core",
                 "node ipc: pe %d: the socket of pe %d is held by pid %d of uid %d, not by a pe of "
                 "this job (uid %d); start the job again",
                 job_.my_pe, o.pe, static_cast<int>(c.pid), static_cast<int>(c.uid),
                 static_cast<int>(uid_));
      return XSHMEM_ERR_IO;
    }
    o.state = Outgoing::kWaitChallenge;
    return XSHMEM_SUCCESS;
  }

  Status on_outgoing(Outgoing &o) {
    uint8_t buf[sizeof(wire::Challenge) + 16];
    Received r = recv_msg(o.sock.get(), buf);
    if (r.n < 0 && (r.err == EAGAIN || r.err == EWOULDBLOCK)) return XSHMEM_SUCCESS;
    if (r.n <= 0) {  // the peer dropped us (its deadline, or crowding): connect again
      drop(o);
      return XSHMEM_SUCCESS;
    }
    const size_t len = static_cast<size_t>(r.n);
    const int nfds = static_cast<int>(r.fds.size());
    if (o.state == Outgoing::kWaitChallenge) {
      Verdict v = wire::check_challenge(buf, len, nfds, r.flags, wj_, o.pe, o.nonce);
      if (v != Verdict::kAccept) return impostor(o, v, "challenge");
      const wire::Hello h = wire::make_hello(wj_, o.pe, my_fd_ >= 0, o.nonce);
      if (!send_msg(o.sock.get(), &h, sizeof(h), my_fd_)) {
        drop(o);
        return XSHMEM_SUCCESS;
      }
      o.state = Outgoing::kWaitAck;
      return XSHMEM_SUCCESS;
    }
    Verdict v = wire::check_ack(buf, len, nfds, r.flags, wj_, o.pe, o.nonce);
    if (v != Verdict::kAccept) return impostor(o, v, "acknowledgement");
    o.sock.reset();
    o.state = Outgoing::kDone;
    return XSHMEM_SUCCESS;
  }

  // Whoever answers on a peer's name must know the key: the names are secret, so this is not a
  // stranger we can skip but a broken job.
  Status impostor(const Outgoing &o, Verdict v, const char *what) {
    ucred c{-1, static_cast<uid_t>(-1), static_cast<gid_t>(-1)};
    peer_cred(o.sock.get(), c);
    XLOG_ERROR("core",
               "node ipc: pe %d: the %s on the socket of pe %d (pid %d) is refused: %s; the "
               "process holding that socket is not a pe of this job: start the job again",
               job_.my_pe, what, o.pe, static_cast<int>(c.pid), wire::verdict_str(v));
    return XSHMEM_ERR_IO;
  }

  Status accept_all() {
    for (;;) {
      Fd c(accept4(lsock_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (c.get() < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return XSHMEM_SUCCESS;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: make room by dropping the oldest stranger-to-be.
          if (!in_.empty()) {
            refusals_.add(Verdict::kCrowded, in_.front().sock.get(), "connection");
            in_.pop_front();
            continue;
          }
          return XSHMEM_SUCCESS;
        }
        XLOG_ERROR("core", "node ipc: pe %d cannot accept a connection: %s", job_.my_pe,
                   strerror(errno));
        return XSHMEM_ERR_IO;
      }
      ucred cred{};
      if (!peer_cred(c.get(), cred) || cred.uid != uid_) {
        refusals_.add(Verdict::kUid, c.get(), "connection");
        continue;
      }
      if (in_.size() >= kMaxPending) {
        refusals_.add(Verdict::kCrowded, in_.front().sock.get(), "connection");
        in_.pop_front();
      }
      Incoming inc;
      if (!fill_random(inc.nonce, sizeof(inc.nonce))) {
        XLOG_ERROR("core", "node ipc: pe %d: getrandom failed: %s", job_.my_pe, strerror(errno));
        return XSHMEM_ERR_IO;
      }
      const wire::Challenge ch = wire::make_challenge(wj_, inc.nonce);
      if (!send_msg(c.get(), &ch, sizeof(ch))) continue;  // gone already
      inc.sock = std::move(c);
      inc.deadline = now_ms() + kHelloDeadlineMs;
      in_.push_back(std::move(inc));
    }
  }

  // The one message of an accepted connection; the connection is closed after it, whatever it
  // was. Nothing from it is used unless check_hello accepts it.
  Status on_incoming(Incoming &c, bool &done) {
    uint8_t buf[sizeof(wire::Hello) + 16];
    Received r = recv_msg(c.sock.get(), buf);
    if (r.n < 0 && (r.err == EAGAIN || r.err == EWOULDBLOCK)) return XSHMEM_SUCCESS;
    done = true;
    if (r.n <= 0) {
      refusals_.add(Verdict::kClosed, c.sock.get(), "connection");
      return XSHMEM_SUCCESS;
    }
    int from = -1;
    bool has_fd = false;
    Verdict v = wire::check_hello(buf, static_cast<size_t>(r.n), static_cast<int>(r.fds.size()),
                                  r.flags, wj_, c.nonce, &from, &has_fd);
    if (v == Verdict::kAccept && has_fd && my_fd_ >= 0) {
      struct stat st;
      if (fstat(r.fds[0].get(), &st) != 0 ||
          wire::check_fd_kind(my_stat_, st) != Verdict::kAccept) {
        // The sender knows the key: a PE of this job offering another kind of file than ours.
        XLOG_ERROR("core",
                   "node ipc: pe %d: the descriptor of pe %d is not of the kind this pe offers "
                   "(mode %o, %lld bytes; ours mode %o, %lld bytes): every pe must offer the same "
                   "kind of memory",
                   job_.my_pe, from, static_cast<unsigned>(st.st_mode & S_IFMT),
                   static_cast<long long>(st.st_size),
                   static_cast<unsigned>(my_stat_.st_mode & S_IFMT),
                   static_cast<long long>(my_stat_.st_size));
        return XSHMEM_ERR_INTERNAL;
      }
    }
    if (v != Verdict::kAccept) {
      refusals_.add(v, c.sock.get(), "hello");
      return XSHMEM_SUCCESS;  // r.fds closes what came with it
    }
    // A PE that connects again (we dropped it, or it missed our ack) sends the same file again:
    // keep the first, acknowledge both.
    if (!got_[static_cast<size_t>(from)]) {
      got_[static_cast<size_t>(from)] = true;
      if (has_fd) received_[static_cast<size_t>(from)] = std::move(r.fds[0]);
    }
    const wire::Ack ack = wire::make_ack(wj_, from, c.nonce);
    send_msg(c.sock.get(), &ack, sizeof(ack));  // a lost ack makes the peer connect again
    return XSHMEM_SUCCESS;
  }

  const xshmem_job_info_v1_t &job_;
  wire::Job wj_{};
  int my_fd_;
  struct stat my_stat_ {};
  int *peer_fds_;
  uid_t uid_;
  Fd lsock_;
  std::vector<int> local_;
  std::vector<Outgoing> out_;
  std::deque<Incoming> in_;
  std::vector<bool> got_;
  std::vector<Fd> received_;
  Refusals refusals_;
};

}  // namespace

Status node_fd_exchange(const xshmem_job_info_v1_t &job, int my_fd, int *peer_fds) {
  static uint64_t round = 0;  // calls are collective, so every PE counts alike
  ++round;
  for (int pe = 0; pe < job.n_pes; ++pe) peer_fds[pe] = -1;
  Exchange ex(job, round, my_fd, peer_fds);
  XSHMEM_CHECK(ex.listen_on());
  XSHMEM_CHECK(oob_barrier());  // every PE listens before anyone connects
  XSHMEM_CHECK(ex.run());
  return oob_barrier();
}

}  // namespace xshmem::core

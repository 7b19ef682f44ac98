// The software NIC model of one PE: its thread and the wire between requesters and responders
// (model_nic.h).
#include "model_nic.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "common/mem_access.h"

namespace xshmem::ibgda {

namespace {

namespace g = xshmem::dev::gda;

constexpr uint32_t kHelloMagic = 0x58494247;  // "XIBG"
constexpr uint32_t kVersion = 1;
constexpr size_t kTokenBytes = 128;

// The hello a connecting PE sends, and the answer.
struct hello_t {
  uint32_t magic;
  uint32_t version;
  int32_t pe;
  int32_t n_pes;
  char token[kTokenBytes];
};
struct hello_ack_t {
  uint32_t magic;
  int32_t ok;
};

// Frames after the hello. A request (requester -> responder), then `len` bytes: a write's data.
constexpr uint8_t kFrameRequest = 1;
constexpr uint8_t kFrameAnswer = 2;
struct req_hdr {
  uint32_t len;
  uint8_t kind;
  uint8_t opcode;
  uint16_t reserved0;
  uint32_t qtag;  // the requester's queue
  uint32_t rkey;
  uint32_t length;
  uint32_t reserved1;
  uint64_t raddr, swap_add, compare;
};
// An answer (responder -> requester), then `len` bytes: why_len bytes of text, then a read's data.
struct rep_hdr {
  uint32_t len;
  uint8_t kind;
  uint8_t syndrome;
  uint16_t why_len;
  uint32_t qtag;
  uint32_t reserved;
  uint64_t old;
};
static_assert(sizeof(req_hdr) == 48 && sizeof(rep_hdr) == 24, "frame headers");

// What one connection may hold unsent before the requester stops taking entries for it.
constexpr size_t kOutLimit = 16u << 20;
// A read larger than this is refused (the heap's largest message is 1 GiB, gda_path.h).
constexpr uint32_t kMaxMessage = 1u << 30;
// Queues one requester may have (the responder's flush flags are indexed by their tags).
constexpr uint32_t kMaxQueues = 1u << 16;

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string errno_str(const char *what) {
  return std::string(what) + ": " + strerror(errno);
}

bool set_nonblocking(int fd) {
  const int fl = fcntl(fd, F_GETFL, 0);
  return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

void no_delay(int fd) {
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Writes or reads exactly n bytes of a blocking socket before `deadline` (ns); false on error,
// end of stream or deadline.
bool io_all(int fd, void *buf, size_t n, bool out, uint64_t deadline) {
  char *p = static_cast<char *>(buf);
  while (n > 0) {
    const uint64_t now = now_ns();
    if (now >= deadline) return false;
    pollfd pfd{fd, static_cast<short>(out ? POLLOUT : POLLIN), 0};
    const int left_ms = static_cast<int>((deadline - now) / 1000000) + 1;
    const int pr = poll(&pfd, 1, left_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) return false;
    const ssize_t k = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

}  // namespace

struct model_nic::conn {
  int fd = -1;
  int peer = -1;           // the PE at the other end (accepted: once its hello is read)
  bool requester = false;  // this PE connected: requests out, answers in
  bool hello_done = false;
  bool dead = false;
  uint64_t accepted_ns = 0;
  std::vector<char> in, out;
  size_t in_off = 0, out_off = 0;
  std::vector<char> failed;     // responder: [qtag] a request of that queue failed: flush the rest
  uint64_t waiting = 0;         // requester: requests sent and not answered
  uint64_t last_answer_ns = 0;  // requester: when the last answer came (or waiting became 1)
};

model_nic::model_nic(options o) : o_(std::move(o)) {
  to_peer_.assign(static_cast<size_t>(std::max(o_.n_pes, 0)), nullptr);
}

model_nic::~model_nic() {
  stop();
}

bool model_nic::listen(const std::string &addr, std::string *why) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) {
    *why = "'" + addr + "' is not an IPv4 address";
    return false;
  }
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) {
    *why = errno_str("socket");
    return false;
  }
  int one = 1;
  (void)setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  socklen_t len = sizeof sa;
  if (bind(listen_fd_, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 ||
      ::listen(listen_fd_, 128) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&sa), &len) != 0 ||
      !set_nonblocking(listen_fd_)) {
    *why = errno_str(("listening on " + addr).c_str());
    close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  port_ = ntohs(sa.sin_port);
  return true;
}

void model_nic::start() {
  if (thread_.joinable()) return;
  stop_.store(false);
  thread_ = std::thread([this] {
    activity_.driver_call = &backend::t_driver_call;
    t_activity = &activity_;
    run();
    t_activity = nullptr;
  });
  if (o_.stall_warn_ms > 0 && o_.log) {
    {
      std::lock_guard<std::mutex> g(watch_mu_);
      watch_stop_ = false;
    }
    watchdog_ = std::thread([this] { watch(); });
  }
}

// Every quarter of the threshold: a call of the thread that has lasted past it is named once.
// The thread may be stuck in the driver (a copy behind GPU work that waits for this very NIC),
// where no deadline of its own fires; the poster's deadline then stops the job, and this line
// says what the NIC was doing.
void model_nic::watch() {
  const auto tick = std::chrono::milliseconds(std::max(o_.stall_warn_ms / 4, 10));
  const char *named = nullptr;
  uint64_t named_since = 0;
  std::unique_lock<std::mutex> lk(watch_mu_);
  while (!watch_cv_.wait_for(lk, tick, [this] { return watch_stop_; })) {
    const char *what = activity_.what.load(std::memory_order_acquire);
    const uint64_t since = activity_.since_ns.load(std::memory_order_relaxed);
    if (what == nullptr || (what == named && since == named_since)) continue;
    const uint64_t now = now_ns();
    if (now < since || now - since < uint64_t(o_.stall_warn_ms) * 1000000ull) continue;
    named = what;
    named_since = since;
    const int peer = activity_.peer.load(std::memory_order_relaxed);
    std::string line = "ibgda NIC model: pe " + std::to_string(o_.my_pe) +
                       "'s NIC thread has been " + what + " for " +
                       std::to_string((now - since) / 1000000) + " ms";
    const char *call = activity_.driver_call != nullptr
                           ? activity_.driver_call->load(std::memory_order_relaxed)
                           : nullptr;
    if (call != nullptr) line += std::string(", inside ") + call;
    if (peer >= 0)
      line += " (the entry at send-queue position " +
              std::to_string(activity_.pos.load(std::memory_order_relaxed)) +
              " of its queue to pe " + std::to_string(peer) + ")";
    line += "; its queues do not move meanwhile (does GPU work of this process wait for them?)";
    o_.log(true, line);
  }
}

bool model_nic::connect(int peer, const std::string &addr, uint16_t port, std::string *why) {
  const uint64_t deadline = now_ns() + static_cast<uint64_t>(o_.timeout_ms) * 1000000ull;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) {
    *why = "pe " + std::to_string(peer) + "'s address '" + addr + "' is not IPv4";
    return false;
  }
  const std::string where =
      "pe " + std::to_string(peer) + " at " + addr + ":" + std::to_string(port);
  int fd = -1;
  for (;;) {  // the peer's thread listens already (start before connect, collectively)
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      *why = errno_str("socket");
      return false;
    }
    if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0) break;
    const int err = errno;
    close(fd);
    if ((err != ECONNREFUSED && err != EINTR) || now_ns() >= deadline) {
      *why = "cannot connect to " + where + ": " + strerror(err);
      return false;
    }
    usleep(1000);
  }
  no_delay(fd);
  hello_t h{};
  h.magic = kHelloMagic;
  h.version = kVersion;
  h.pe = o_.my_pe;
  h.n_pes = o_.n_pes;
  snprintf(h.token, sizeof h.token, "%s", o_.token.c_str());
  hello_ack_t ack{};
  if (!io_all(fd, &h, sizeof h, true, deadline) || !io_all(fd, &ack, sizeof ack, false, deadline) ||
      ack.magic != kHelloMagic || ack.ok != 1) {
    *why = where + " did not accept this pe's hello within " + std::to_string(o_.timeout_ms) +
           " ms (another job's port, or the peer is not an xshmem ibgda model)";
    close(fd);
    return false;
  }
  if (!set_nonblocking(fd)) {
    *why = errno_str("fcntl");
    close(fd);
    return false;
  }
  auto c = std::make_unique<conn>();
  c->fd = fd;
  c->peer = peer;
  c->requester = true;
  c->hello_done = true;
  std::lock_guard<std::mutex> g(mu_);
  pending_conns_.push_back(std::move(c));
  return true;
}

void model_nic::add_queue(queue_t *q) {
  std::lock_guard<std::mutex> g(mu_);
  pending_queues_.push_back(q);
}

void model_nic::stop() {
  stopping_.store(true);
  if (watchdog_.joinable()) {
    {
      std::lock_guard<std::mutex> g(watch_mu_);
      watch_stop_ = true;
    }
    watch_cv_.notify_all();
    watchdog_.join();
  }
  if (thread_.joinable()) {
    stop_.store(true);
    thread_.join();
  }
  for (auto &c : conns_)
    if (c->fd >= 0) close(c->fd);
  conns_.clear();
  {
    std::lock_guard<std::mutex> g(mu_);
    for (auto &c : pending_conns_)
      if (c->fd >= 0) close(c->fd);
    pending_conns_.clear();
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
}

// The requester's wire: the request frame of q's entry onto the connection to its target.
bool model_nic::post(void *ctx, queue_t &q, const request_t &rq) {
  model_nic *m = static_cast<model_nic *>(ctx);
  conn *c = q.peer >= 0 && static_cast<size_t>(q.peer) < m->to_peer_.size()
                ? m->to_peer_[static_cast<size_t>(q.peer)]
                : nullptr;
  if (c == nullptr || c->dead) {  // no wire to the target: the entry fails at once
    reply_t r;
    r.syndrome = g::kSynTransportRetryExc;
    r.why = c == nullptr ? "no connection to this pe" : "the connection to this pe broke";
    answer(q, r);
    return true;
  }
  if (c->out.size() - c->out_off > kOutLimit) return false;
  if (c->waiting++ == 0) c->last_answer_ns = now_ns();
  const uint32_t payload = rq.opcode == g::kOpRdmaWrite ? rq.length : 0;
  req_hdr h{};
  h.len = payload;
  h.kind = kFrameRequest;
  h.opcode = rq.opcode;
  h.qtag = q.tag;
  h.rkey = rq.rkey;
  h.length = rq.length;
  h.raddr = rq.raddr;
  h.swap_add = rq.swap_add;
  h.compare = rq.compare;
  const char *hp = reinterpret_cast<const char *>(&h);
  c->out.insert(c->out.end(), hp, hp + sizeof h);
  if (payload != 0) {
    const char *d = reinterpret_cast<const char *>(rq.data);
    c->out.insert(c->out.end(), d, d + payload);
  }
  return true;
}

// The corruption hook (options::corrupt): corrupts, before issue decodes it, the published entry
// of q that is the corrupt_at-th this NIC takes (for kCorruptLength: the first RDMA write or read
// from there on), then disarms.
void model_nic::corrupt_next(queue_t &q) {
  const uint32_t producer = ibgda::producer(q);
  if (scanned_.size() <= q.tag) scanned_.resize(q.tag + 1, 0);
  uint32_t &pos = scanned_[q.tag];  // every entry is counted once
  for (; ((producer - pos) & 0xFFFF) != 0; ++pos) {
    uint8_t *bb = static_cast<uint8_t *>(q.sq) + size_t(pos & (q.nbb - 1)) * g::kWqeBB;
    g::ctrl_seg_t ctrl;
    memcpy(&ctrl, bb, sizeof ctrl);
    const uint8_t opcode = g::ctrl_opcode(ctrl);
    if (++taken_ < o_.corrupt_at) continue;
    if (o_.corrupt == kCorruptOpcode) {
      bb[3] = 0x7F;  // the opcode byte of the control segment's first word (big-endian)
    } else if (o_.corrupt == kCorruptKey) {
      if (opcode == g::kOpNop) continue;
      const uint32_t bad = g::be32(0x0BAD0BADu);
      memcpy(bb + 16 + 8, &bad, 4);  // raddr segment: raddr (8 bytes), then rkey
    } else {
      if (opcode != g::kOpRdmaWrite && opcode != g::kOpRdmaRead) continue;
      uint32_t first;
      memcpy(&first, bb + 32, 4);
      if (g::be32(first) & g::kInlineSeg) continue;
      memset(bb + 32, 0, 4);  // the data segment's byte count
    }
    o_.corrupt = kCorruptNone;
    ++pos;
    if (o_.log)
      o_.log(true, "ibgda NIC model: pe " + std::to_string(o_.my_pe) +
                       ": XSHMEM_IBGDA_TEST_CORRUPT corrupted the entry at send-queue position " +
                       std::to_string(pos - 1) + " of the queue to pe " + std::to_string(q.peer));
    return;
  }
}

// A connection ended (EOF or an error). Entries that wait on a requester connection fail: their
// queues enter error (reported by run). While the job stops it is no error.
void model_nic::broken(conn &c, const std::string &why) {
  if (c.dead) return;
  c.dead = true;
  if (c.fd >= 0) close(c.fd);
  c.fd = -1;
  if (stopping_.load()) return;
  if (!c.requester) {
    if (o_.log && c.hello_done)
      o_.log(false, "ibgda NIC model: pe " + std::to_string(c.peer) + "'s connection to pe " +
                        std::to_string(o_.my_pe) + " closed: " + why);
    return;
  }
  for (queue_t *q : queues_) {
    if (q->peer != c.peer) continue;
    reply_t r;
    r.syndrome = g::kSynTransportRetryExc;
    r.why = "the connection to pe " + std::to_string(c.peer) + " broke (" + why + "): pe " +
            std::to_string(c.peer) + " died or stopped";
    for (size_t i = 0; i < q->count; ++i) answer(*q, r);
  }
}

// Handles the complete frames in c's input; false when c is closed (a refused hello, garbage).
bool model_nic::serve_frames(conn &c) {
  auto left = [&] { return c.in.size() - c.in_off; };
  if (!c.hello_done) {
    if (left() < sizeof(hello_t)) return true;
    hello_t h;
    memcpy(&h, c.in.data() + c.in_off, sizeof h);
    c.in_off += sizeof h;
    h.token[kTokenBytes - 1] = '\0';
    const bool ok = h.magic == kHelloMagic && h.version == kVersion && h.n_pes == o_.n_pes &&
                    h.pe >= 0 && h.pe < o_.n_pes && o_.token == h.token;
    hello_ack_t ack{kHelloMagic, ok ? 1 : 0};
    (void)send(c.fd, &ack, sizeof ack, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (!ok) {
      if (o_.log)
        o_.log(true, "ibgda NIC model: pe " + std::to_string(o_.my_pe) +
                         " refused a connection that did not present this job's token (a "
                         "stranger on port " +
                         std::to_string(port_) + ")");
      c.dead = true;
      close(c.fd);
      c.fd = -1;
      return false;
    }
    c.hello_done = true;
    c.peer = h.pe;
  }
  for (;;) {
    if (c.requester) {
      if (left() < sizeof(rep_hdr)) break;
      rep_hdr h;
      memcpy(&h, c.in.data() + c.in_off, sizeof h);
      if (h.kind != kFrameAnswer || h.why_len > h.len || h.qtag >= queues_.size() ||
          queues_[h.qtag]->peer != c.peer) {
        broken(c, "a malformed answer");
        return false;
      }
      if (left() < sizeof h + h.len) break;
      const char *body = c.in.data() + c.in_off + sizeof h;
      reply_t r;
      r.syndrome = h.syndrome;
      r.old = h.old;
      r.why.assign(body, h.why_len);
      r.data.assign(body + h.why_len, body + h.len);
      answer(*queues_[h.qtag], r);
      if (c.waiting > 0) --c.waiting;
      c.last_answer_ns = now_ns();
      c.in_off += sizeof h + h.len;
      continue;
    }
    if (left() < sizeof(req_hdr)) break;
    req_hdr h;
    memcpy(&h, c.in.data() + c.in_off, sizeof h);
    const bool write = h.opcode == g::kOpRdmaWrite;
    if (h.kind != kFrameRequest || (write && h.len != h.length) || (!write && h.len != 0) ||
        h.length > kMaxMessage || h.qtag > kMaxQueues) {
      batch_.clear();  // its payloads lie in the closed connection's input
      broken(c, "a malformed request");
      return false;
    }
    if (left() < sizeof h + h.len) break;
    const uint8_t *payload = reinterpret_cast<const uint8_t *>(c.in.data() + c.in_off + sizeof h);
    if (h.qtag >= c.failed.size()) c.failed.resize(h.qtag + 1, 0);
    // Gathered, in arrival order: a request of a queue whose earlier one failed is flushed, one
    // that fails its checks fails now (and flushes the queue's later ones), the others run
    // together below (execute_batch). The payload stays in c.in until the batch has run.
    batch_.push_back(pending_t{h.qtag, {}, 0, {}});
    pending_t &p = batch_.back();
    if (c.failed[h.qtag]) {
      p.syndrome = g::kSynWrFlush;
      p.why = "flushed: an earlier request of this queue failed";
    } else {
      p.rq = request_t{h.opcode, h.raddr, h.rkey, h.length, payload, h.swap_add, h.compare};
      if ((p.syndrome = precheck(target_, p.rq, &p.why)) != 0) c.failed[h.qtag] = 1;
    }
    c.in_off += sizeof h + h.len;
  }
  if (!batch_.empty()) {
    std::vector<request_t> rqs;
    std::vector<size_t> of;
    for (size_t i = 0; i < batch_.size(); ++i) {
      if (batch_[i].syndrome != 0) continue;
      rqs.push_back(batch_[i].rq);
      of.push_back(i);
    }
    std::vector<reply_t> done(rqs.size());
    execute_batch(target_, rqs.data(), rqs.size(), done.data());
    std::vector<reply_t> replies(batch_.size());
    for (size_t k = 0; k < of.size(); ++k) replies[of[k]] = std::move(done[k]);
    for (size_t i = 0; i < batch_.size(); ++i) {
      reply_t &r = replies[i];
      if (batch_[i].syndrome != 0) {
        r.syndrome = batch_[i].syndrome;
        r.why = std::move(batch_[i].why);
      } else if (r.syndrome != 0) {
        c.failed[batch_[i].qtag] = 1;  // the access refused it (the batch's later ones ran)
      }
      rep_hdr a{};
      a.kind = kFrameAnswer;
      a.syndrome = r.syndrome;
      a.why_len = static_cast<uint16_t>(std::min<size_t>(r.why.size(), 1024));
      a.qtag = batch_[i].qtag;
      a.old = r.old;
      a.len = a.why_len + static_cast<uint32_t>(r.data.size());
      const char *ap = reinterpret_cast<const char *>(&a);
      c.out.insert(c.out.end(), ap, ap + sizeof a);
      c.out.insert(c.out.end(), r.why.data(), r.why.data() + a.why_len);
      c.out.insert(c.out.end(), r.data.begin(), r.data.end());
    }
    batch_.clear();
  }
  if (c.in_off == c.in.size()) {
    c.in.clear();
    c.in_off = 0;
  } else if (c.in_off > (1u << 20)) {
    c.in.erase(c.in.begin(), c.in.begin() + static_cast<ptrdiff_t>(c.in_off));
    c.in_off = 0;
  }
  return true;
}

void model_nic::run() {
  // Short naps when idle (the posters write memory, which no poll sees), as the proxy engine's.
  (void)prctl(PR_SET_TIMERSLACK, 1000UL);
  uint64_t last_busy = now_ns();
  unsigned idle = 0;
  std::vector<pollfd> fds;
  std::vector<char> buf(1u << 16);
  while (!stop_.load(std::memory_order_acquire)) {
    {
      std::lock_guard<std::mutex> g(mu_);
      for (auto &c : pending_conns_) {
        if (c->requester && c->peer >= 0 && static_cast<size_t>(c->peer) < to_peer_.size())
          to_peer_[static_cast<size_t>(c->peer)] = c.get();
        conns_.push_back(std::move(c));
      }
      pending_conns_.clear();
      for (queue_t *q : pending_queues_) {
        q->tag = static_cast<uint32_t>(queues_.size());  // the queue's tag on the wire
        queues_.push_back(q);
        reported_.push_back(0);
      }
      pending_queues_.clear();
    }
    uint64_t work = 0;
    // Requester: take what is posted.
    for (queue_t *q : queues_) {
      if (o_.corrupt != kCorruptNone) corrupt_next(*q);
      work += issue(*q, local_, &model_nic::post, this, 256);
    }
    // The sockets.
    fds.clear();
    if (listen_fd_ >= 0) fds.push_back(pollfd{listen_fd_, POLLIN, 0});
    for (auto &c : conns_)
      if (!c->dead)
        fds.push_back(pollfd{
            c->fd, static_cast<short>(POLLIN | (c->out.size() > c->out_off ? POLLOUT : 0)), 0});
    // Idle back-off in the poll itself (a peer's frame wakes it at once; only posts, which are
    // memory, wait for the timeout): spin, then yield while traffic is recent (2 ms), then
    // 20 us naps, 1 ms ones after 50 ms of quiet.
    timespec nap{0, 0};
    if (work == 0 && idle >= 64) {
      const uint64_t quiet_ns = now_ns() - last_busy;
      if (quiet_ns < 2000000)
        sched_yield();
      else
        nap.tv_nsec = quiet_ns < 50000000 ? 20000 : 1000000;
    }
    const int pr = ppoll(fds.data(), fds.size(), &nap, nullptr);
    if (pr > 0) {
      size_t k = 0;
      if (listen_fd_ >= 0) {
        if (fds[k].revents & POLLIN) {
          for (;;) {
            const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0) break;
            no_delay(fd);
            auto c = std::make_unique<conn>();
            c->fd = fd;
            c->accepted_ns = now_ns();
            conns_.push_back(std::move(c));
            ++work;
          }
        }
        ++k;
      }
      for (auto &cp : conns_) {
        conn &c = *cp;
        if (c.dead || k >= fds.size() || fds[k].fd != c.fd) continue;
        const short ev = fds[k++].revents;
        if (ev & (POLLIN | POLLHUP | POLLERR)) {
          for (;;) {
            const ssize_t n = recv(c.fd, buf.data(), buf.size(), 0);
            if (n > 0) {
              c.in.insert(c.in.end(), buf.data(), buf.data() + n);
              ++work;
              if (static_cast<size_t>(n) < buf.size()) break;
              continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
            broken(c, n == 0 ? "closed by the peer" : strerror(errno));
            break;
          }
          if (!c.dead) serve_frames(c);
        }
      }
    }
    // Hellos that do not come: refused after the deadline. Answers that do not come: the peer
    // is dead or frozen (its connection open, its NIC silent).
    const uint64_t now = now_ns();
    for (auto &c : conns_) {
      if (c->dead || !c->requester || c->waiting == 0 || o_.answer_timeout_ms <= 0) continue;
      if (now - c->last_answer_ns > static_cast<uint64_t>(o_.answer_timeout_ms) * 1000000ull)
        broken(*c, "no answer for " + std::to_string(o_.answer_timeout_ms) + " ms while " +
                       std::to_string(c->waiting) + " requests waited");
    }
    for (auto &c : conns_) {
      if (c->dead || c->hello_done || c->requester) continue;
      if (now - c->accepted_ns > static_cast<uint64_t>(o_.timeout_ms) * 1000000ull) {
        if (o_.log)
          o_.log(true, "ibgda NIC model: pe " + std::to_string(o_.my_pe) +
                           " dropped a connection that sent no hello within " +
                           std::to_string(o_.timeout_ms) + " ms (a stranger on port " +
                           std::to_string(port_) + ")");
        c->dead = true;
        close(c->fd);
        c->fd = -1;
      }
    }
    // Queues with published entries the thread does not take (it loops, but issue stops early):
    // named once per stall, with what holds them.
    if (o_.stall_warn_ms > 0 && o_.log && now - last_scan_ns_ > 100000000ull) {
      last_scan_ns_ = now;
      if (stuck_.size() < queues_.size()) stuck_.resize(queues_.size());
      for (size_t i = 0; i < queues_.size(); ++i) {
        queue_t &q = *queues_[i];
        stuck_t &st = stuck_[i];
        const uint32_t producer = ibgda::producer(q);
        if (((producer - q.consumer) & 0xFFFF) == 0 || q.consumer != st.consumer || q.error) {
          st = stuck_t{q.consumer, now, false};
          continue;
        }
        if (st.named || now - st.since_ns < uint64_t(o_.stall_warn_ms) * 1000000ull) continue;
        st.named = true;
        const conn *c =
            q.peer >= 0 && size_t(q.peer) < to_peer_.size() ? to_peer_[q.peer] : nullptr;
        o_.log(true,
               "ibgda NIC model: pe " + std::to_string(o_.my_pe) +
                   " has not taken the entry at send-queue position " + std::to_string(q.consumer) +
                   " of its queue to pe " + std::to_string(q.peer) + " for " +
                   std::to_string((now - st.since_ns) / 1000000) + " ms (" +
                   std::to_string((producer - q.consumer) & 0xFFFF) + " published after it; " +
                   std::to_string(q.count) + " of " + std::to_string(q.inflight.size()) +
                   " in flight; the wire to pe " + std::to_string(q.peer) + ": " +
                   (c == nullptr ? std::string("none")
                                 : std::to_string(c->out.size() - c->out_off) + " bytes unsent, " +
                                       std::to_string(c->waiting) + " requests unanswered") +
                   ")");
      }
    }
    // Completions, in order; errors, once each.
    for (size_t i = 0; i < queues_.size(); ++i) {
      work += retire(*queues_[i]);
      if (queues_[i]->error && !reported_[i]) {
        reported_[i] = 1;
        if (o_.on_error) o_.on_error(queues_[i]->error_line);
      }
    }
    // Out.
    for (auto &cp : conns_) {
      conn &c = *cp;
      while (!c.dead && c.out.size() > c.out_off) {
        const ssize_t n = send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          c.out_off += static_cast<size_t>(n);
          ++work;
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        broken(c, strerror(errno));
      }
      if (c.out_off == c.out.size()) {
        c.out.clear();
        c.out_off = 0;
      } else if (c.out_off > (1u << 20)) {
        c.out.erase(c.out.begin(), c.out.begin() + static_cast<ptrdiff_t>(c.out_off));
        c.out_off = 0;
      }
    }
    if (work != 0) {
      idle = 0;
      last_busy = now_ns();
    } else {
      ++idle;
    }
  }
}

}  // namespace xshmem::ibgda

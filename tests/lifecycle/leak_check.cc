// Checks that xshmem_finalize leaves no thread, file descriptor, shared-memory segment or heap
// mapping behind, over several init/finalize cycles with traffic in between.
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include <xshmem/xshmem.h>

namespace {

std::set<std::string> dir_entries(const char *path) {
  std::set<std::string> out;
  if (DIR *d = opendir(path)) {
    while (dirent *e = readdir(d))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) out.insert(e->d_name);
    closedir(d);
  }
  return out;
}

// Descriptors with what they point to ("3 -> socket:[123]"), minus the one opendir holds.
std::set<std::string> fds() {
  std::set<std::string> out;
  DIR *d = opendir("/proc/self/fd");
  if (!d) return out;
  int own = dirfd(d);
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] == '.' || atoi(e->d_name) == own) continue;
    char target[512] = {0};
    std::string p = std::string("/proc/self/fd/") + e->d_name;
    ssize_t n = readlink(p.c_str(), target, sizeof(target) - 1);
    out.insert(std::string(e->d_name) + " -> " + (n > 0 ? target : "?"));
  }
  closedir(d);
  return out;
}

size_t heap_mappings() {
  std::ifstream maps("/proc/self/maps");
  size_t n = 0;
  for (std::string line; std::getline(maps, line);)
    if (line.find("memfd:xshmem") != std::string::npos) ++n;
  return n;
}

int failures = 0;
// Fails for anything present after finalize that was not there before init. (Things may be
// gone: a 1-PE job closes the listening socket the launcher handed it; rank 0 of a larger job
// keeps it, open since before init, for the next init.)
template <typename S>
void expect_no_new(const char *what, int me, int cycle, const S &before, const S &after) {
  for (auto &x : after)
    if (!before.count(x)) {
      ++failures;
      fprintf(stderr, "pe %d cycle %d: %s left behind after finalize: %s\n", me, cycle, what,
              x.c_str());
    }
}

}  // namespace

int main() {
  const auto threads0 = dir_entries("/proc/self/task");
  const auto fds0 = fds();
  const auto shm0 = dir_entries("/dev/shm");
  const size_t maps0 = heap_mappings();
  int me = -1;
  // Several cycles in one process (re-init after the last finalize, INIT-02): nothing may pile up.
  for (int cycle = 0; cycle < 3; ++cycle) {
    xshmem_init();
    me = xshmem_my_pe();
    int n = xshmem_n_pes();
    long *buf = static_cast<long *>(xshmem_malloc(1024 * sizeof(long)));
    for (int i = 0; i < 1024; ++i) buf[i] = -1;
    xshmem_barrier_all();
    long src[1024];
    for (int i = 0; i < 1024; ++i) src[i] = cycle * 10000000L + me * 100000L + i;
    xshmem_long_put(buf, src, 1024, (me + 1) % n);
    xshmem_barrier_all();
    int from = (me + n - 1) % n;
    for (int i = 0; i < 1024; ++i)
      if (buf[i] != cycle * 10000000L + from * 100000L + i) {
        fprintf(stderr, "pe %d cycle %d: buf[%d] = %ld, expected %ld\n", me, cycle, i, buf[i],
                cycle * 10000000L + from * 100000L + i);
        ++failures;
        break;
      }
    xshmem_free(buf);
    xshmem_finalize();
    if (xshmem_query_initialized()) {
      fprintf(stderr, "pe %d: still initialised after finalize\n", me);
      ++failures;
    }
    expect_no_new("threads", me, cycle, threads0, dir_entries("/proc/self/task"));
    expect_no_new("file descriptors", me, cycle, fds0, fds());
    expect_no_new("/dev/shm entries", me, cycle, shm0, dir_entries("/dev/shm"));
    if (heap_mappings() != maps0) {
      fprintf(stderr, "pe %d: %zu xshmem mappings left (had %zu)\n", me, heap_mappings(), maps0);
      ++failures;
    }
  }
  printf("pe %d: leak check %s\n", me, failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

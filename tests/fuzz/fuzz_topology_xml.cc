// SEC-03 fuzz harness topology_xml: hwloc XML input to the topology loader, exactly as
// `xshmem-info --xml FILE` (and HWLOC_XMLFILE) feed it: topo::load_xml (topology/topology.cc), then
// what xshmem-info does with the machine: the matrix, the JSON model, the NIC per GPU and a plan.
//
// The input is the file's bytes, handed over as a memfd path (/proc/self/fd/N) so that the loader
// runs unchanged. hwloc itself is the distribution's library, not instrumented: the fuzzer sees
// the coverage of xshmem's walk over hwloc's objects, and a crash anywhere. Checked: a refused
// file gives a one-line error; a loaded machine is consistent (indices, matrix shapes).
//
// hwloc 2.9 (Debian 12) itself crashes on some malformed files: an object without
// complete_cpuset (fixed upstream by open-mpi/hwloc#783), a Bridge as root (#800), MemoryTiersNr
// without tiers (#816), maybe more. xshmem cannot fix those; so each input is first loaded by
// plain hwloc in a forked child, and an input that kills the child is counted and set aside
// (regressions/topology_xml/ keeps one) instead of being reported as xshmem's crash. Leaks that
// hwloc's own error paths make are suppressed for the same reason.
#include <fcntl.h>
#include <hwloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../topology/fake_model.h"
#include "fuzz_check.h"
#include "topology.h"

namespace topo = xshmem::topo;

namespace {

int g_fd = -1;
std::string g_path;
long g_hwloc_crashes = 0;

// Whether plain hwloc, set up as topo::discover sets it up, dies loading the file at g_path.
bool crashes_hwloc() {
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fuzz: fork");
    abort();
  }
  if (pid == 0) {
    // Default dispositions: the sanitizers' and libFuzzer's handlers would report the child's
    // crash as the fuzzer's own and save an artifact.
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP}) {
      struct sigaction sa = {};
      sa.sa_handler = SIG_DFL;
      sigaction(sig, &sa, nullptr);
    }
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    alarm(20);  // a hang is the parent's -timeout to report, not the child's
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) == 0) {
      hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
      if (hwloc_topology_set_xml(t, g_path.c_str()) == 0) hwloc_topology_load(t);
      hwloc_topology_destroy(t);
    }
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM;
}

}  // namespace

// hwloc 2.9 leaks on some of its XML error paths (not xshmem's to fix; see above).
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libhwloc.so\n";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setenv("XSHMEM_LOG_LEVEL", "error", 1);
  // hwloc reports XML errors on stderr unless told to be quiet.
  setenv("HWLOC_XML_VERBOSE", "0", 1);
  g_fd = memfd_create("xshmem-fuzz-topology.xml", MFD_CLOEXEC);
  if (g_fd < 0) {
    perror("fuzz: memfd_create");
    abort();
  }
  g_path = "/proc/self/fd/" + std::to_string(g_fd);
  // hwloc loads its plugins with the first topology and unloads them with the last: one kept for
  // the whole run spares every input a dlopen of them (it changes nothing else).
  static hwloc_topology_t keep = nullptr;
  if (hwloc_topology_init(&keep) != 0) {
    fprintf(stderr, "fuzz: hwloc_topology_init failed\n");
    abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (ftruncate(g_fd, 0) != 0 || pwrite(g_fd, data, size, 0) != static_cast<ssize_t>(size)) {
    perror("fuzz: writing the memfd");
    abort();
  }
  const std::string input(reinterpret_cast<const char *>(data), size > 200 ? 200 : size);
  if (crashes_hwloc()) {
    // Powers of two, so a long run does not flood the log.
    const long n = ++g_hwloc_crashes;
    if ((n & (n - 1)) == 0)
      fprintf(stderr, "fuzz: %ld inputs crash hwloc %s itself; set aside, not xshmem's\n", n,
              HWLOC_VERSION);
    return 0;
  }
  topo::Machine m;
  std::string error;
  if (!topo::load_xml(g_path, &m, &error)) {
    FUZZ_CHECK(!error.empty() && error.find('\n') == std::string::npos, input,
               "a refused file must give one line: " + error);
    return 0;
  }
  const size_t ng = m.gpus.size(), nn = m.nics.size();
  for (size_t i = 0; i < ng; ++i)
    FUZZ_CHECK(m.gpus[i].index == static_cast<int>(i), input, "gpu index");
  for (size_t i = 0; i < nn; ++i)
    FUZZ_CHECK(m.nics[i].index == static_cast<int>(i), input, "nic index");
  FUZZ_CHECK(m.gpu_gpu.size() == ng && m.gpu_nic.size() == ng && m.nic_nic.size() == nn, input,
             "matrix shapes");
  for (const auto &row : m.gpu_gpu) FUZZ_CHECK(row.size() == ng, input, "gpu_gpu row");
  for (const auto &row : m.gpu_nic) FUZZ_CHECK(row.size() == nn, input, "gpu_nic row");
  for (const auto &row : m.nic_nic) FUZZ_CHECK(row.size() == nn, input, "nic_nic row");

  // What xshmem-info --topology, --json and --plan do with it.
  FUZZ_CHECK(!topo::matrix_text(m).empty(), input, "empty matrix text");
  FUZZ_CHECK(!topo::to_json(m).empty(), input, "empty json");
  const auto choice = topo::nic_per_gpu(m, topo::parse_nic_filter(""));
  FUZZ_CHECK(choice.size() == ng, input, "one NIC choice per GPU");
  for (const auto &c : choice)
    FUZZ_CHECK(c.nic >= -1 && c.nic < static_cast<int>(nn), input, "nic choice index");
  const topo::Plan p = topo::plan({m}, 2, 2, topo::PlanOptions{}, fake::model());
  FUZZ_CHECK(p.pes.size() == 4, input, "plan of 2x2 has 4 PEs");
  FUZZ_CHECK(!topo::plan_text(p).empty() && !topo::plan_json(p).empty(), input, "plan text");
  return 0;
}

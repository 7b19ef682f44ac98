// xshmem core: the job -- starting the bootstrap plugin, learning host ids, local ranks and the
// job token.
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <xshmem/device/coll_reduce.h>  // collectives: reductions
#include <xshmem/device/coll_move.h>    // collectives: data movement
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>
#include "loader.h"
#include "checks.h"
#include "config.h"
#include "cuda/cuda_rt.h"
#include "device_api.h"
#include "heap.h"
#include "log.h"
#include "nics.h"
#include "node_ipc.h"
#include "runtime.h"
#include "selection.h"
#include "team.h"
#include "wait_deadline.h"
#include "runtime_internal.h"

namespace xshmem::core {
namespace {

constexpr const char *kSubsys = "core";

uint64_t fnv1a(const void *data, size_t n, uint64_t h = 1469598103934665603ull) {
  auto p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

uint64_t my_host_id() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  uint64_t h = fnv1a(host, strlen(host));
  // Two containers may share a host name but not a kernel boot: mix in the boot id.
  if (FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char boot[64] = {0};
    if (fgets(boot, sizeof(boot), f)) h = fnv1a(boot, strlen(boot), h);
    fclose(f);
  }
  return h;
}

}  // namespace

Status start_bootstrap(const xshmem_bootstrap_args_v1_t &args) {
  auto &l = loader();
  l.scan(&g_services);
  std::string want = config::get_string("XSHMEM_BOOTSTRAP");
  const plugins::Bootstrap *chosen = nullptr;
  if (args.mpi_comm) {
    // The application's communicator: only the mpi plugin can take it.
    if (!want.empty() && want != "mpi")
      XLOG_WARN(kSubsys,
                "XSHMEM_BOOTSTRAP=%s is ignored: xshmem_init_attr with XSHMEM_INIT_WITH_MPI_COMM "
                "asks for the mpi bootstrap",
                want.c_str());
    chosen = l.find_bootstrap("mpi");
    if (!chosen) {
      XLOG_ERROR(kSubsys,
                 "xshmem_init_attr with XSHMEM_INIT_WITH_MPI_COMM: the mpi bootstrap plugin is "
                 "not loaded (built without MPI, or not found: see xshmem-info)");
      return XSHMEM_ERR_NOT_FOUND;
    }
  } else if (!want.empty()) {
    chosen = l.find_bootstrap(want);
    if (!chosen) {
      std::string have;
      for (auto &b : l.bootstraps()) have += (have.empty() ? "" : ", ") + b.name;
      XLOG_ERROR(kSubsys,
                 "XSHMEM_BOOTSTRAP=%s: no such bootstrap plugin (loaded: %s); check "
                 "XSHMEM_PLUGIN_PATH or xshmem-info",
                 want.c_str(), have.empty() ? "none" : have.c_str());
      return XSHMEM_ERR_NOT_FOUND;
    }
  } else if (args.uniqueid) {
    for (auto &b : l.bootstraps())
      if (b.ops->caps & XSHMEM_BOOTSTRAP_CAP_UNIQUEID) {
        chosen = &b;
        break;
      }
  } else {
    int best = 0;
    for (auto &b : l.bootstraps()) {
      int score = b.ops->detect ? b.ops->detect() : 0;
      if (score > best) best = score, chosen = &b;
    }
  }
  if (!chosen) {
    XLOG_ERROR(kSubsys,
               "no bootstrap plugin can start this job (searched %zu folders); run "
               "xshmem-info to see which plugins were found or refused",
               l.search_path().size());
    return XSHMEM_ERR_NOT_FOUND;
  }
  int rank = -1, size = 0;
  xshmem_status_t st = chosen->ops->init(&args, &g_rt.boot_ctx, &rank, &size);
  if (st != XSHMEM_SUCCESS) {
    XLOG_ERROR(kSubsys, "bootstrap %s failed to start: %s", chosen->name.c_str(),
               Status::status_str(st));
    return st;
  }
  g_rt.boot = chosen;
  log::set_pe(rank);
  g_rt.job.struct_size = sizeof(g_rt.job);
  g_rt.job.my_pe = rank;
  g_rt.job.n_pes = size;
  XLOG_DEBUG(kSubsys, "bootstrap %s: pe %d of %d", chosen->name.c_str(), rank, size);
  return XSHMEM_SUCCESS;
}

// XSHMEM_HOST_WAIT_SPINS (atomic.h g_host_wait_spins): auto yields at once where this node's PEs
// outnumber the CPUs this process may run on.
static Status set_host_wait_spins(int nlocal) {
  const std::string v = config::get_string("XSHMEM_HOST_WAIT_SPINS");
  if (v.empty() || v == "auto") {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
    dev::atomic::g_host_wait_spins = cpus > 0 && nlocal > cpus ? 0 : dev::atomic::kHostWaitSpins;
    XLOG_DEBUG(kSubsys, "host waits poll %u times before yielding (%d pes here, %d cpus allowed)",
               dev::atomic::g_host_wait_spins, nlocal, cpus);
    return XSHMEM_SUCCESS;
  }
  char *end = nullptr;
  errno = 0;
  const unsigned long n = strtoul(v.c_str(), &end, 10);
  if (errno != 0 || end == v.c_str() || *end != '\0' || v[0] == '-' || n > 1000000) {
    XLOG_ERROR(kSubsys,
               "XSHMEM_HOST_WAIT_SPINS=%s is not auto or a number of polls from 0 to 1000000 "
               "(pe %d)",
               v.c_str(), g_rt.job.my_pe);
    return XSHMEM_ERR_INVALID;
  }
  dev::atomic::g_host_wait_spins = static_cast<unsigned>(n);
  return XSHMEM_SUCCESS;
}

Status learn_job() {
  const int n = g_rt.job.n_pes, me = g_rt.job.my_pe;
  struct Card {
    uint64_t host_id;
    char token[33];
  } mine{}, *all = nullptr;
  mine.host_id = my_host_id();
  std::random_device rd;
  snprintf(mine.token, sizeof(mine.token), "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  std::vector<Card> cards(n);
  all = cards.data();
  XSHMEM_CHECK(oob_allgather(&mine, all, sizeof(Card)));
  g_rt.token = all[0].token;  // rank 0's token names the job's node-local sockets
  g_rt.host_id.resize(n);
  g_rt.local_rank.resize(n);
  int nlocal = 0;
  for (int pe = 0; pe < n; ++pe) {
    g_rt.host_id[pe] = all[pe].host_id;
    int lr = 0;
    for (int q = 0; q < pe; ++q) lr += all[q].host_id == all[pe].host_id;
    g_rt.local_rank[pe] = lr;
    nlocal += all[pe].host_id == mine.host_id;
  }
  g_rt.job.my_local_pe = g_rt.local_rank[me];
  g_rt.job.n_local_pes = nlocal;
  XSHMEM_CHECK(set_host_wait_spins(nlocal));
  g_rt.job.local_rank = g_rt.local_rank.data();
  g_rt.job.host_id = g_rt.host_id.data();
  g_rt.job.job_token = g_rt.token.c_str();
  g_rt.job.num_channels = 1;
  return XSHMEM_SUCCESS;
}

bool all_ok(bool ok) {
  std::vector<uint8_t> v(g_rt.job.n_pes);
  uint8_t mine = ok;
  if (!oob_allgather(&mine, v.data(), 1).ok()) return false;
  return std::all_of(v.begin(), v.end(), [](uint8_t x) { return x != 0; });
}
}  // namespace xshmem::core

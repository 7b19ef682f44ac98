// xshmem core: the runtime context -- init, finalize, the services table, transport selection.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdarg>
#include <cstdio>
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
#include "../../plugins/src/loader.h"
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

namespace xshmem::core {
namespace {

constexpr const char *kSubsys = "core";

struct ActiveTransport {
  const plugins::Transport *plugin;
  void *ctx = nullptr;
  bool heap_registered = false;
};

// Everything init creates; destroyed in reverse order by finalize.
struct Runtime {
  // Inits not yet matched by a finalize (OpenSHMEM 1.6 counting). Written under g_init_mutex;
  // atomic because every API call's check_init reads it, from any thread (THREAD_MULTIPLE).
  std::atomic<int> init_count{0};
  // Bootstrap.
  const plugins::Bootstrap *boot = nullptr;
  void *boot_ctx = nullptr;
  // Job.
  std::vector<uint64_t> host_id;
  std::vector<int> local_rank;
  std::string token;
  xshmem_job_info_v1_t job{};
  // Heap.
  HeapMemory heap;
  Allocator alloc;
  // Transports and the path state.
  std::vector<ActiveTransport> transports;
  std::vector<dev::peer_t> peers;
  std::vector<const char *> peer_transport;
  dev::state_t state;
};

Runtime g_rt;
std::mutex g_init_mutex;

plugins::Loader &loader() {
  // Plugins stay loaded for the life of the process: re-init after finalize reuses them, and
  // config entries they registered keep pointing at live strings.
  static plugins::Loader *l = new plugins::Loader();
  return *l;
}

// ---- Services table -----------------------------------------------------------------------------

void svc_log(xshmem_log_level_t level, const char *subsys, const char *file, int line,
             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log::vwrite(level, subsys, file, line, fmt, ap);
  va_end(ap);
}
int svc_log_enabled(xshmem_log_level_t level, const char *subsys) {
  return log::enabled(level, subsys) ? 1 : 0;
}
xshmem_status_t svc_config_register(const xshmem_config_entry_v1_t *entries, size_t n) {
  // The loader's config::OwnerScope attributes the entries to the plugin being loaded.
  return config::register_entries(entries, n, nullptr).code();
}
const char *svc_config_get_string(const char *name) {
  // Returned pointers must stay valid: keep one copy per name.
  static std::mutex m;
  static std::vector<std::pair<std::string, std::unique_ptr<std::string>>> cache;
  std::lock_guard<std::mutex> lock(m);
  std::string v = config::get_string(name);
  for (auto &[k, val] : cache)
    if (k == name) {
      if (*val != v) *val = v;
      return val->c_str();
    }
  cache.emplace_back(name, std::make_unique<std::string>(v));
  return cache.back().second->c_str();
}
int64_t svc_config_get_int(const char *name) {
  for (const auto &v : config::list()) {
    if (v.name != name) continue;
    if (v.type == "size") return config::get_int(name);  // above INT64_MAX: INT64_MAX
    if (v.type == "duration") return config::get_duration_ms(name);
    if (v.type == "bool") return config::get_bool(name) ? 1 : 0;
    return config::get_int(name);
  }
  return config::get_int(name);
}
const xshmem_job_info_v1_t *svc_job_info() {
  return &g_rt.job;
}
xshmem_status_t svc_allgather(const void *in, void *out, size_t len) {
  return oob_allgather(in, out, len).code();
}
xshmem_status_t svc_barrier() {
  return oob_barrier().code();
}
xshmem_status_t svc_node_fd_exchange(int my_fd, int *peer_fds) {
  return node_fd_exchange(g_rt.job, my_fd, peer_fds).code();
}
[[noreturn]] void svc_fatal(int exit_code, const char *subsys, const char *msg) {
  fatal(exit_code, subsys, msg);
}
void *svc_cuda_driver_proc(const char *symbol) {
  return cuda::driver_proc(symbol);
}

const xshmem_core_services_v1_t g_services = {
    XSHMEM_SERVICES_ABI_VERSION,
    sizeof(xshmem_core_services_v1_t),
    svc_log,
    svc_log_enabled,
    svc_config_register,
    svc_config_get_string,
    svc_config_get_int,
    svc_job_info,
    svc_allgather,
    svc_barrier,
    svc_node_fd_exchange,
    svc_fatal,
    svc_cuda_driver_proc,
};

// ---- Init steps ---------------------------------------------------------------------------------

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

Status start_bootstrap(const xshmem_bootstrap_args_v1_t &args) {
  auto &l = loader();
  l.scan(&g_services);
  std::string want = config::get_string("XSHMEM_BOOTSTRAP");
  const plugins::Bootstrap *chosen = nullptr;
  if (!want.empty()) {
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
  g_rt.job.local_rank = g_rt.local_rank.data();
  g_rt.job.host_id = g_rt.host_id.data();
  g_rt.job.job_token = g_rt.token.c_str();
  return XSHMEM_SUCCESS;
}

// Agrees across PEs: true iff `ok` on every PE.
bool all_ok(bool ok);

// Where the heap lives, agreed by every PE: every PE's heap is of one kind, so heap growth (a
// collective of device heaps only) is called by all PEs or none.
struct HeapPlan {
  bool device = false;
  cuda::Probe gpu;
  size_t granularity = 0, chunk = 0;  // the largest over the PEs, so every PE grows alike
};

// Why the heap lives where it does, for the messages of transport selection ("host memory:
// XSHMEM_HEAP=auto and no usable GPU here: ..."). Set by plan_heap.
std::string g_heap_why;

Status plan_heap(HeapPlan &plan) {
  const std::string want = config::get_enum("XSHMEM_HEAP");
  enum : uint8_t { kHost = 0, kAutoGpu = 1, kAutoNoGpu = 2, kDevice = 3 };
  uint8_t mine = kHost;
  // auto gives GPU heaps when every PE has a usable GPU, whatever the allowed transports: a job
  // whose transports cannot serve them fails below instead of silently turning a GPU program's
  // heap into host memory (its kernels would fault). CPU programs on GPU machines say
  // XSHMEM_HEAP=host.
  bool device_transport = false;
  const config::ListSpec spec = config::get_list_spec("XSHMEM_TRANSPORTS");
  for (auto &t : loader().transports())
    if (spec.selects(t.name) && (t.ops->caps & XSHMEM_TRANSPORT_CAP_DEVICE_HEAP))
      device_transport = true;
  if (want != "host") {
    plan.gpu = cuda::probe(g_rt.job.my_local_pe);
    if (want == "device" && plan.gpu.device < 0) {
      XLOG_ERROR(kSubsys, "XSHMEM_HEAP=device but no CUDA device is usable: %s",
                 plan.gpu.reason.c_str());
      return XSHMEM_ERR_UNSUPPORTED;
    }
    mine = want == "device" ? kDevice : plan.gpu.device >= 0 ? kAutoGpu : kAutoNoGpu;
  }
  struct Card {
    uint8_t kind;
    uint64_t granularity, chunk;
  } card{mine, plan.gpu.granularity, config::get_size("XSHMEM_CUDA_HEAP_CHUNK")};
  std::vector<Card> all(g_rt.job.n_pes);
  XSHMEM_CHECK(oob_allgather(&card, all.data(), sizeof(Card)));
  int host_pe = -1;
  for (int pe = 0; pe < g_rt.job.n_pes; ++pe) {
    if (all[pe].kind == kHost || all[pe].kind == kAutoNoGpu) {
      if (host_pe < 0) host_pe = pe;
      continue;
    }
    plan.granularity = std::max<size_t>(plan.granularity, all[pe].granularity);
    plan.chunk = std::max<size_t>(plan.chunk, all[pe].chunk);
  }
  plan.device = host_pe < 0;
  if (!plan.device && mine == kDevice) {
    XLOG_ERROR(kSubsys,
               "XSHMEM_HEAP=device here, but pe %d has a host heap (XSHMEM_HEAP=%s there or no "
               "usable GPU); every PE's heap must be of one kind: set XSHMEM_HEAP alike",
               host_pe, all[host_pe].kind == kHost ? "host" : "auto");
    return XSHMEM_ERR_INVALID;
  }
  if (plan.device && !device_transport) {
    std::string loaded;
    for (auto &t : loader().transports()) loaded += (loaded.empty() ? "" : ", ") + t.name;
    XLOG_ERROR(kSubsys,
               "no transport reaches the peers' GPU heaps: every PE has a GPU, so the heap is in "
               "GPU memory (XSHMEM_HEAP=%s), and no allowed transport serves GPU heaps "
               "(XSHMEM_TRANSPORTS=\"%s\", loaded: %s); allow one (nvlink), or set "
               "XSHMEM_HEAP=host for CPU PEs",
               want.c_str(), config::get_string("XSHMEM_TRANSPORTS").c_str(), loaded.c_str());
    return XSHMEM_ERR_UNREACHABLE;
  }
  if (!plan.device && mine == kAutoNoGpu)
    XLOG_INFO(kSubsys, "no GPU: using host heap (%s)", plan.gpu.reason.c_str());
  else if (!plan.device && mine == kAutoGpu)
    XLOG_INFO(kSubsys, "pe %d has no usable GPU: every PE uses a host heap", host_pe);
  if (plan.device)
    g_heap_why = "GPU memory (XSHMEM_HEAP=" + want + ")";
  else if (mine == kHost)
    g_heap_why = "host memory (XSHMEM_HEAP=host)";
  else if (mine == kAutoNoGpu)
    g_heap_why =
        "host memory (XSHMEM_HEAP=auto, and no GPU is usable here: " + plan.gpu.reason + ")";
  else
    g_heap_why =
        "host memory (XSHMEM_HEAP=auto, and pe " + std::to_string(host_pe) + " has no usable GPU)";
  return XSHMEM_SUCCESS;
}

Status create_heap() {
  HeapPlan plan;
  XSHMEM_CHECK(plan_heap(plan));
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t internal = (sizeof(dev::internal_region_t) + page - 1) / page * page;
  // A size that does not parse, rounds to 0, or would wrap when rounded up is an error: the
  // default (or a heap of a few pages) is not what the user asked for.
  std::string text;
  if (std::string why = config::env_problem("XSHMEM_SYMMETRIC_SIZE", &text); !why.empty()) {
    XLOG_ERROR(kSubsys, "XSHMEM_SYMMETRIC_SIZE=%s: %s; set the bytes of symmetric heap per PE",
               text.c_str(), why.c_str());
    return XSHMEM_ERR_INVALID;
  }
  const uint64_t user = config::get_size("XSHMEM_SYMMETRIC_SIZE");
  constexpr uint64_t kMaxHeap = uint64_t{1} << 60;  // 1E: no address space holds more
  if (user == 0 || user > kMaxHeap) {
    XLOG_ERROR(kSubsys,
               "XSHMEM_SYMMETRIC_SIZE=%s asks for %llu bytes per PE, %s; set a size from 1 to 1E "
               "that this machine can reserve",
               config::get_string("XSHMEM_SYMMETRIC_SIZE").c_str(),
               static_cast<unsigned long long>(user),
               user == 0 ? "so no allocation could succeed" : "more than a heap can reserve");
    return XSHMEM_ERR_INVALID;
  }
  size_t size = (user + page - 1) / page * page + internal;
  // Every PE must have the same heap size, or offsets would not be symmetric.
  std::vector<uint64_t> sizes(g_rt.job.n_pes);
  uint64_t my = size;
  XSHMEM_CHECK(oob_allgather(&my, sizes.data(), sizeof(my)));
  for (int pe = 0; pe < g_rt.job.n_pes; ++pe)
    if (sizes[pe] != my) {
      XLOG_ERROR(kSubsys,
                 "symmetric heap sizes differ: pe %d has %llu bytes, pe %d has %llu; set "
                 "XSHMEM_SYMMETRIC_SIZE alike on every PE",
                 g_rt.job.my_pe, static_cast<unsigned long long>(my), pe,
                 static_cast<unsigned long long>(sizes[pe]));
      return XSHMEM_ERR_INVALID;
    }
  if (!plan.device) {
    XSHMEM_CHECK(g_rt.heap.create_host(size));
    g_rt.alloc.reset(size);
    auto off = g_rt.alloc.alloc(internal, page);  // offset 0: the runtime's internal region
    if (!off || *off != 0) return XSHMEM_ERR_INTERNAL;
    memset(g_rt.heap.base(), 0, internal);
    return XSHMEM_SUCCESS;
  }
  // GPU heap: reserve it all, commit only what the internal region needs (the rest comes with
  // allocations: committing gigabytes at init would cost seconds).
  XSHMEM_CHECK(cuda::open(plan.gpu.device));
  Status st = g_rt.heap.create_device(size, plan.gpu.device, plan.granularity, plan.chunk);
  if (st.ok()) st = g_rt.heap.commit(internal);
  if (!all_ok(st.ok())) return st.ok() ? XSHMEM_ERR_NOMEM : st;
  g_rt.alloc.reset(size);
  auto off = g_rt.alloc.alloc(internal, page);
  if (!off || *off != 0) return XSHMEM_ERR_INTERNAL;
  XSHMEM_CHECK(cuda::memset_sync(g_rt.heap.base(), 0, internal));
  XLOG_INFO(kSubsys, "gpu heap on %s: %zu bytes reserved at %p, %zu committed, chunks of %zu",
            plan.gpu.description.c_str(), g_rt.heap.size(), g_rt.heap.base(), g_rt.heap.committed(),
            std::max(plan.chunk, plan.granularity));
  return XSHMEM_SUCCESS;
}

bool all_ok(bool ok) {
  std::vector<uint8_t> v(g_rt.job.n_pes);
  uint8_t mine = ok;
  if (!oob_allgather(&mine, v.data(), 1).ok()) return false;
  return std::all_of(v.begin(), v.end(), [](uint8_t x) { return x != 0; });
}

// Tells transport `at` about the heap's chunks from index `first` on (collective).
xshmem_status_t grow_transport(const ActiveTransport &at, size_t first) {
  if (!XSHMEM_TRANSPORT_HAS_OP(at.plugin->ops, heap_grow)) return XSHMEM_SUCCESS;
  const auto &chunks = g_rt.heap.chunks();
  for (size_t i = first; i < chunks.size(); ++i) {
    xshmem_mem_chunk_v1_t c{};
    c.struct_size = sizeof(c);
    c.offset = chunks[i].offset;
    c.size = chunks[i].size;
    c.fd = chunks[i].fd;
    xshmem_status_t st = at.plugin->ops->heap_grow(at.ctx, &c);
    if (st != XSHMEM_SUCCESS) {
      XLOG_ERROR(kSubsys, "transport %s: heap_grow of %zu bytes at offset %zu failed: %s",
                 at.plugin->name.c_str(), c.size, c.offset, Status::status_str(st));
      return st;
    }
  }
  return XSHMEM_SUCCESS;
}

// The transports the user named in XSHMEM_REMOTE_TRANSPORT and XSHMEM_PAIR_TRANSPORTS must be
// loaded and allowed; the text must parse. Checked before any transport starts; logs the problem.
bool check_overrides(const config::ListSpec &allowed, const std::string &allowed_text,
                     std::vector<select::PairRule> *rules, std::string *remote) {
  *remote = config::get_string("XSHMEM_REMOTE_TRANSPORT");
  for (char &c : *remote) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string pair_text = config::get_string("XSHMEM_PAIR_TRANSPORTS");
  std::string error;
  if (!select::parse_pair_rules(pair_text, g_rt.job.n_pes, rules, &error)) {
    XLOG_ERROR(kSubsys, "XSHMEM_PAIR_TRANSPORTS=\"%s\": %s", pair_text.c_str(), error.c_str());
    return false;
  }
  auto usable = [&](const std::string &name, const std::string &who) {
    if (!loader().find_transport(name)) {
      std::string have;
      for (auto &t : loader().transports()) have += (have.empty() ? "" : ", ") + t.name;
      XLOG_ERROR(kSubsys,
                 "%s names transport %s, but no such transport plugin is loaded (loaded: %s); "
                 "check the name, XSHMEM_PLUGIN_PATH, or run xshmem-info",
                 who.c_str(), name.c_str(), have.empty() ? "none" : have.c_str());
      return false;
    }
    if (!allowed.selects(name)) {
      XLOG_ERROR(kSubsys,
                 "%s names transport %s, which XSHMEM_TRANSPORTS=\"%s\" does not allow; allow "
                 "it or name another",
                 who.c_str(), name.c_str(), allowed_text.c_str());
      return false;
    }
    return true;
  };
  if (!remote->empty() && !usable(*remote, "XSHMEM_REMOTE_TRANSPORT=" + *remote)) return false;
  for (const select::PairRule &r : *rules)
    if (!usable(r.transport, "XSHMEM_PAIR_TRANSPORTS entry '" + r.text + "'")) return false;
  return true;
}

Status start_transports() {
  const config::ListSpec spec = config::get_list_spec("XSHMEM_TRANSPORTS");
  const std::string allowed_text = config::get_string("XSHMEM_TRANSPORTS");
  auto wanted = [&](const std::string &name) { return spec.selects(name); };
  if (!spec.exclude)
    for (auto &w : spec.words)
      if (!loader().find_transport(w)) {
        XLOG_ERROR(kSubsys, "XSHMEM_TRANSPORTS names %s, but no such transport plugin is loaded",
                   w.c_str());
        return XSHMEM_ERR_NOT_FOUND;
      }
  std::vector<select::PairRule> rules;
  std::string remote;
  const bool overrides_ok = check_overrides(spec, allowed_text, &rules, &remote);
  if (!all_ok(overrides_ok)) {
    if (overrides_ok)
      XLOG_ERROR(kSubsys, "another PE found an error in the transport overrides; stopping");
    return XSHMEM_ERR_INVALID;
  }
  // The topology is discovered only when something uses it: a NIC transport, or PE 0's info log.
  bool need_nic = false;
  for (auto &t : loader().transports())
    need_nic = need_nic || (wanted(t.name) && (t.ops->caps & XSHMEM_TRANSPORT_CAP_NIC));
  XSHMEM_CHECK(nics::choose_at_init(need_nic, g_rt.job.my_pe, g_rt.job.n_pes, g_rt.host_id,
                                    g_rt.local_rank, !heap_on_device()));
  // Plugins are tried in name order so every PE makes the same collective calls.
  std::vector<const plugins::Transport *> cands;
  for (auto &t : loader().transports())
    if (wanted(t.name)) cands.push_back(&t);
  std::sort(cands.begin(), cands.end(), [](auto *a, auto *b) { return a->name < b->name; });
  xshmem_mem_region_v1_t region = g_rt.heap.region();
  for (auto *t : cands) {
    ActiveTransport at{t};
    xshmem_status_t st;
    {
      config::OwnerScope owner(t->name.c_str());
      st = t->ops->init(&at.ctx);
    }
    if (st != XSHMEM_SUCCESS)
      XLOG_WARN(kSubsys, "transport %s: init failed (%s); not used", t->name.c_str(),
                Status::status_str(st));
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      if (st == XSHMEM_SUCCESS) t->ops->finalize(at.ctx);
      continue;
    }
    st = t->ops->heap_register(at.ctx, &region);
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      XLOG_WARN(kSubsys, "transport %s: heap registration failed on some PE; not used",
                t->name.c_str());
      if (st == XSHMEM_SUCCESS) t->ops->heap_deregister(at.ctx);
      t->ops->finalize(at.ctx);
      continue;
    }
    // The chunks committed so far (device heaps), as if the heap had grown right now.
    st = grow_transport(at, 0);
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      XLOG_WARN(kSubsys, "transport %s: mapping the heap's chunks failed on some PE; not used",
                t->name.c_str());
      t->ops->heap_deregister(at.ctx);
      t->ops->finalize(at.ctx);
      continue;
    }
    at.heap_registered = true;
    g_rt.transports.push_back(at);
  }
  g_rt.heap.close_chunk_fds();  // every transport has imported (or dup'ed) what it needs

  // Selection, per peer: a pair override, else XSHMEM_REMOTE_TRANSPORT for a peer on another
  // host, else the cheapest transport that reaches it. A named transport that cannot serve the
  // pair is an error, never a fallback to another one.
  const int n = g_rt.job.n_pes, me = g_rt.job.my_pe;
  const size_t nt = g_rt.transports.size();
  if (nt > 127) {
    XLOG_ERROR(kSubsys, "%zu transports started; at most 127 are supported", nt);
    return XSHMEM_ERR_INTERNAL;
  }
  std::vector<int> choice(n, -1);
  std::vector<xshmem_peer_info_v1_t> best(n);
  // can_reach's answer per (peer, transport), kept to settle the two ends of a pair below.
  std::vector<uint8_t> reach(size_t(n) * nt, 0);
  std::vector<xshmem_peer_info_v1_t> reach_info(size_t(n) * nt);
  bool forced_ok = true;
  for (int pe = 0; pe < n; ++pe) {
    for (size_t ti = 0; ti < nt; ++ti) {
      auto &at = g_rt.transports[ti];
      xshmem_peer_info_v1_t info{};
      info.struct_size = sizeof(info);
      if (at.plugin->ops->can_reach(at.ctx, pe, &info) != XSHMEM_SUCCESS) continue;
      reach[size_t(pe) * nt + ti] = 1;
      reach_info[size_t(pe) * nt + ti] = info;
    }
    std::string want, why;
    if (const select::PairRule *rule = select::find_pair_rule(rules, me, pe)) {
      want = rule->transport;
      why = "XSHMEM_PAIR_TRANSPORTS entry '" + rule->text + "'";
    } else if (!remote.empty() && g_rt.host_id[pe] != g_rt.host_id[me]) {
      want = remote;
      why = "XSHMEM_REMOTE_TRANSPORT=" + remote;
    }
    if (!want.empty()) {
      int ti = -1;
      for (size_t k = 0; k < nt; ++k)
        if (g_rt.transports[k].plugin->name == want) ti = static_cast<int>(k);
      if (ti < 0) {
        XLOG_ERROR(kSubsys,
                   "%s asks for transport %s between pe %d and pe %d, but %s did not start "
                   "(see the warning above); fix it or change the override",
                   why.c_str(), want.c_str(), me, pe, want.c_str());
        forced_ok = false;
      } else if (!reach[size_t(pe) * nt + ti]) {
        XLOG_ERROR(kSubsys,
                   "%s asks for transport %s between pe %d and pe %d, but %s cannot reach pe %d "
                   "from pe %d; change the override",
                   why.c_str(), want.c_str(), me, pe, want.c_str(), pe, me);
        forced_ok = false;
      } else {
        choice[pe] = ti;
        best[pe] = reach_info[size_t(pe) * nt + ti];
      }
      continue;
    }
    for (size_t ti = 0; ti < nt; ++ti) {
      if (!reach[size_t(pe) * nt + ti]) continue;
      const xshmem_peer_info_v1_t &info = reach_info[size_t(pe) * nt + ti];
      if (choice[pe] < 0 || info.latency_ns < best[pe].latency_ns ||
          (info.latency_ns == best[pe].latency_ns &&
           info.bandwidth_mbps > best[pe].bandwidth_mbps)) {
        choice[pe] = static_cast<int>(ti);
        best[pe] = info;
      }
    }
  }
  int unreachable = -1;
  for (int pe = 0; pe < n && unreachable < 0 && forced_ok; ++pe)
    if (choice[pe] < 0) unreachable = pe;
  if (unreachable >= 0) {
    // Say why each started transport does not reach the peer where the core knows it: the
    // heap's kind (nvlink with a host heap), another host, the PE itself.
    const uint64_t heap_cap =
        heap_on_device() ? XSHMEM_TRANSPORT_CAP_DEVICE_HEAP : XSHMEM_TRANSPORT_CAP_HOST_HEAP;
    std::string tried;
    for (auto &at : g_rt.transports) {
      tried += (tried.empty() ? "" : "; ") + at.plugin->name;
      if (!(at.plugin->ops->caps & heap_cap))
        tried += std::string(" serves ") + (heap_on_device() ? "host" : "GPU") +
                 " heaps only, and the heap is in " + g_heap_why;
      else if (g_rt.host_id[unreachable] != g_rt.host_id[me] &&
               !(at.plugin->ops->caps & XSHMEM_TRANSPORT_CAP_NIC))
        tried += " reaches no other host";
      else
        tried += " cannot reach it (its log lines say why)";
    }
    std::string others;
    for (auto &t : loader().transports())
      if (!wanted(t.name)) others += (others.empty() ? "" : ", ") + t.name;
    XLOG_ERROR(kSubsys,
               "no transport reaches pe %d from pe %d (XSHMEM_TRANSPORTS=\"%s\"; started: %s%s%s); "
               "allow a transport that reaches it",
               unreachable, me, allowed_text.c_str(),
               tried.empty() ? "none (see the warnings above)" : tried.c_str(),
               others.empty() ? "" : "; not allowed: ", others.c_str());
  }
  const bool chose = forced_ok && unreachable < 0;
  if (!all_ok(chose)) {
    if (chose)
      XLOG_ERROR(kSubsys, "another PE could not select a transport for one of its peers; stopping");
    return XSHMEM_ERR_UNREACHABLE;
  }

  // Both ends of a pair use one transport (their connect calls pair up). Overrides are the same
  // from both ends; where the cost-based choices differ, the lower PE's choice wins if this end
  // reaches the peer with it too. The gathered matrix is also what PE 0 logs.
  std::vector<int8_t> row(n), matrix(size_t(n) * n);
  for (int pe = 0; pe < n; ++pe) row[pe] = static_cast<int8_t>(choice[pe]);
  XSHMEM_CHECK(oob_allgather(row.data(), matrix.data(), n));
  bool agreed = true;
  for (int pe = 0; pe < n; ++pe) {
    const int lo = std::min(me, pe), hi = std::max(me, pe);
    const int8_t c = matrix[size_t(lo) * n + hi];
    if (c == choice[pe]) continue;
    if (c >= 0 && reach[size_t(pe) * nt + c]) {
      XLOG_DEBUG(kSubsys, "pair (pe %d, pe %d): taking pe %d's choice %s over %s", me, pe, lo,
                 g_rt.transports[c].plugin->name.c_str(),
                 g_rt.transports[choice[pe]].plugin->name.c_str());
      choice[pe] = c;
      best[pe] = reach_info[size_t(pe) * nt + c];
    } else {
      XLOG_ERROR(kSubsys,
                 "pe %d chose transport %s for the pair (pe %d, pe %d), but %s cannot reach pe %d "
                 "from pe %d; name one transport for the pair in XSHMEM_PAIR_TRANSPORTS",
                 lo, c >= 0 ? g_rt.transports[c].plugin->name.c_str() : "none", lo, hi,
                 c >= 0 ? g_rt.transports[c].plugin->name.c_str() : "none", pe, me);
      agreed = false;
    }
  }
  if (!all_ok(agreed)) {
    if (agreed)
      XLOG_ERROR(kSubsys, "another PE could not agree on a transport with a peer; stopping");
    return XSHMEM_ERR_UNREACHABLE;
  }
  if (me == 0 && log::enabled(XSHMEM_LOG_INFO, kSubsys)) {
    std::vector<int8_t> agreed_matrix(size_t(n) * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        agreed_matrix[size_t(i) * n + j] = matrix[size_t(std::min(i, j)) * n + std::max(i, j)];
    std::vector<std::string> names;
    for (auto &at : g_rt.transports) names.push_back(at.plugin->name);
    XLOG_INFO(kSubsys, "transport per pe pair (row: from pe, column: to pe), %d pes:", n);
    for (const std::string &line : select::format_matrix(agreed_matrix, n, names))
      XLOG_INFO(kSubsys, "  %s", line.c_str());
  }

  // Connect: every transport, collectively, learns which peers chose it.
  g_rt.peers.assign(n, dev::peer_t{});
  g_rt.peer_transport.assign(n, nullptr);
  for (size_t ti = 0; ti < g_rt.transports.size(); ++ti) {
    auto &at = g_rt.transports[ti];
    std::vector<uint8_t> selected(n);
    std::vector<xshmem_peer_info_v1_t> infos(n);
    for (int pe = 0; pe < n; ++pe) {
      selected[pe] = choice[pe] == static_cast<int>(ti);
      infos[pe] = best[pe];
    }
    xshmem_status_t st = at.plugin->ops->connect(at.ctx, selected.data(), infos.data());
    if (!all_ok(st == XSHMEM_SUCCESS)) {
      XLOG_ERROR(kSubsys, "transport %s: connect failed (%s here)", at.plugin->name.c_str(),
                 Status::status_str(st));
      return XSHMEM_ERR_UNREACHABLE;
    }
    for (int pe = 0; pe < n; ++pe) {
      if (!selected[pe]) continue;
      dev::peer_t &p = g_rt.peers[pe];
      p.path = static_cast<uint8_t>(infos[pe].path);
      p.flags = static_cast<uint8_t>(infos[pe].flags);
      p.base = reinterpret_cast<uintptr_t>(infos[pe].lsa_base);
      g_rt.peer_transport[pe] = at.plugin->name.c_str();
      if (p.path == XSHMEM_PATH_LSA && p.base == 0) {
        XLOG_ERROR(kSubsys, "transport %s chose the LSA path to pe %d but gave no mapping",
                   at.plugin->name.c_str(), pe);
        return XSHMEM_ERR_INTERNAL;
      }
    }
  }
  if (log::enabled(XSHMEM_LOG_DEBUG, kSubsys)) {
    std::string plan;
    for (int pe = 0; pe < n; ++pe)
      plan += (pe ? " " : "") + std::to_string(pe) + ":" + g_rt.peer_transport[pe];
    XLOG_DEBUG(kSubsys, "paths from pe %d: %s", g_rt.job.my_pe, plan.c_str());
  }
  return XSHMEM_SUCCESS;
}

void stop_transports() {
  nics::reset();
  for (auto it = g_rt.transports.rbegin(); it != g_rt.transports.rend(); ++it) {
    if (it->heap_registered) (void)it->plugin->ops->heap_deregister(it->ctx);
    (void)it->plugin->ops->finalize(it->ctx);
  }
  g_rt.transports.clear();
}

void on_bad_path(int pe) {
  char msg[160];
  snprintf(msg, sizeof(msg), "no data path to pe %d is implemented (path %d)", pe,
           pe >= 0 && pe < static_cast<int>(g_rt.peers.size()) ? g_rt.peers[pe].path : -1);
  fatal(1, kSubsys, msg);
}

Status build_state() {
  dev::state_t &s = g_rt.state;
  s = dev::state_t{};
  s.my_pe = g_rt.job.my_pe;
  s.n_pes = g_rt.job.n_pes;
  s.heap_base = reinterpret_cast<uintptr_t>(g_rt.heap.base());
  s.heap_size = g_rt.heap.size();
  s.peers = g_rt.peers.data();
  s.internal = static_cast<dev::internal_region_t *>(g_rt.heap.base());
  s.on_bad_path = on_bad_path;
  s.transport_names = g_rt.peer_transport.data();
  s.teams = team::init_predefined(s, g_rt.host_id);
  // The wait deadline (XSHMEM_WAIT_TIMEOUT): 0 leaves waits without one.
  s.wait_timeout_ns =
      static_cast<uint64_t>(config::get_duration_ms("XSHMEM_WAIT_TIMEOUT")) * 1000000u;
  s.on_wait_timeout = on_wait_timeout;
  // ---- collectives: reductions ----
  {
    const std::string algo = config::get_enum("XSHMEM_COLL_REDUCE_ALGO");
    s.coll_reduce_algo = algo == "direct" ? dev::kReduceDirect
                         : algo == "rsag" ? dev::kReduceRsag
                                          : dev::kReduceAuto;
  }
  // ---- collectives: data movement ----
  {
    const std::string bcast = config::get_enum("XSHMEM_COLL_BCAST_ALGO");
    s.coll_bcast_algo = bcast == "direct" ? dev::kMoveDirect
                        : bcast == "tree" ? dev::kMoveTree
                                          : dev::kMoveAuto;
    const std::string fcollect = config::get_enum("XSHMEM_COLL_FCOLLECT_ALGO");
    s.coll_fcollect_algo = fcollect == "direct" ? dev::kMoveDirect
                           : fcollect == "ring" ? dev::kMoveRing
                                                : dev::kMoveAuto;
  }
  // ---- end collectives: data movement ----
  // GPU heaps: the copy kernels use, handed to every CUDA module of the program.
  XSHMEM_CHECK(cuda::publish_state(s));
  notify_device_state_sinks();
  return XSHMEM_SUCCESS;
}

}  // namespace

Status republish_state() {
  XSHMEM_CHECK(cuda::publish_state(g_rt.state));
  notify_device_state_sinks();
  return XSHMEM_SUCCESS;
}

namespace {

// Undoes whatever init step had completed (also used on a failed init). Returns the bootstrap's
// finalize status: a failed one means the job did not end together.
[[nodiscard]] Status teardown() {
  stop_transports();
  reset_device_state_sinks();
  cuda::close();  // internal stream, device state
  g_rt.state = dev::state_t{};
  team::reset();
  g_rt.peers.clear();
  g_rt.peer_transport.clear();
  g_rt.heap.release();
  g_rt.alloc.reset(0);
  Status boot_st = XSHMEM_SUCCESS;
  if (g_rt.boot) {
    boot_st = g_rt.boot->ops->finalize(g_rt.boot_ctx);
    g_rt.boot = nullptr;
    g_rt.boot_ctx = nullptr;
  }
  g_rt.job = xshmem_job_info_v1_t{};
  g_rt.job.my_pe = -1;
  g_rt.host_id.clear();
  g_rt.local_rank.clear();
  log::set_pe(-1);
  return boot_st;
}

int init_impl(const xshmem_bootstrap_args_v1_t &args) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_rt.init_count > 0) {  // OpenSHMEM 1.6: nested init, matched by finalize; no communication
    ++g_rt.init_count;
    return 0;
  }
  auto t0 = std::chrono::steady_clock::now();
  log::configure();
  g_rt.job.my_pe = -1;
  Status st = start_bootstrap(args);
  if (st.ok()) {
    config::warn_unknown();  // after every plugin registered its variables
    st = learn_job();
  }
  if (st.ok()) st = create_heap();
  if (st.ok()) st = start_transports();
  if (st.ok()) st = build_state();
  if (!st.ok()) {
    // A PE that failed after the bootstrap came up takes the job down, so no peer waits for it.
    if (g_rt.boot) {
      char msg[128];
      snprintf(msg, sizeof(msg), "xshmem_init failed on pe %d: %s", g_rt.job.my_pe, st.str());
      fatal(1, kSubsys, msg);
    }
    (void)teardown();
    return st.code();
  }
  g_rt.init_count = 1;
  st = oob_barrier();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  XLOG_DEBUG(kSubsys, "init done in %.1f ms", ms);
  return st.code();
}

}  // namespace

// ---- runtime.h ----------------------------------------------------------------------------------

bool initialized() {
  return g_rt.init_count > 0;
}
dev::state_t &state() {
  return g_rt.state;
}
Allocator &heap_allocator() {
  return g_rt.alloc;
}
const xshmem_core_services_v1_t *services() {
  return &g_services;
}

namespace {
// fatal and xshmem_global_exit: logs `msg` once at `level`, then has the bootstrap stop every PE.
// `printed`: the caller printed `msg` on stderr as the job's one diagnostic line; then the log
// repeats it only where it does not go to stderr, and the bootstrap (which logs its abort reason
// on this PE and the others) gets a pointer to that line instead of a second copy of it.
[[noreturn]] void stop_job(int exit_code, xshmem_log_level_t level, const char *subsys,
                           const char *msg, bool printed = false) {
  static std::atomic<bool> once{false};
  if (!once.exchange(true) && (!printed || !log::writes_to_stderr())) {
    log::write(level, subsys, __FILE__, __LINE__, "%s", msg);
  }
  fflush(stdout);  // the bootstrap's abort ends the process with _exit: keep what was printed
  fflush(stderr);
  char reason[96];
  if (printed)
    snprintf(reason, sizeof(reason), "see the 'xshmem:' line of pe %d above",
             g_rt.boot_ctx ? g_rt.job.my_pe : -1);
  if (g_rt.boot && g_rt.boot_ctx)
    g_rt.boot->ops->abort(g_rt.boot_ctx, exit_code, printed ? reason : msg);
  _exit(exit_code);
}
}  // namespace

void fatal(int exit_code, const char *subsys, const char *msg) {
  stop_job(exit_code, XSHMEM_LOG_ERROR, subsys, msg);
}

void fatal_printed(int exit_code, const char *subsys, const char *msg) {
  stop_job(exit_code, XSHMEM_LOG_ERROR, subsys, msg, true);
}

Status oob_allgather(const void *in, void *out, size_t len_per_pe) {
  if (!g_rt.boot) return XSHMEM_ERR_INVALID;
  return g_rt.boot->ops->allgather(g_rt.boot_ctx, in, out, len_per_pe);
}

Status oob_barrier() {
  if (!g_rt.boot) return XSHMEM_ERR_INVALID;
  return g_rt.boot->ops->barrier(g_rt.boot_ctx);
}

Status heap_grow(size_t bytes) {
  HeapMemory &h = g_rt.heap;
  // The same decision on every PE: heaps are of one kind and allocators agree.
  if (!h.on_device() || bytes <= h.committed()) return XSHMEM_SUCCESS;
  const size_t before = h.chunks().size();
  Status st = h.commit(bytes);
  if (!all_ok(st.ok())) {
    h.uncommit(before);
    return st.ok() ? XSHMEM_ERR_NOMEM : st;  // another PE's GPU is out of memory
  }
  for (auto &at : g_rt.transports) {
    xshmem_status_t tst = grow_transport(at, before);
    if (!all_ok(tst == XSHMEM_SUCCESS)) {
      // Some peers may have mapped the new chunks already: there is no consistent way back.
      char msg[192];
      snprintf(msg, sizeof(msg),
               "transport %s could not map the symmetric heap grown to %zu bytes on some PE (%s "
               "here); stopping the job",
               at.plugin->name.c_str(), h.committed(), Status::status_str(tst));
      fatal(1, kSubsys, msg);
    }
  }
  h.close_chunk_fds();
  XLOG_DEBUG(kSubsys, "gpu heap grew to %zu committed bytes (%zu chunks)", h.committed(),
             h.chunks().size());
  return XSHMEM_SUCCESS;
}

const plugins::Loader &plugin_loader(bool scan) {
  if (scan) loader().scan(&g_services);
  return loader();
}

}  // namespace xshmem::core

// ---- Public API ---------------------------------------------------------------------------------

using namespace xshmem::core;
namespace config = xshmem::config;
namespace xlog = xshmem::log;
using xshmem::Status;

extern "C" {

void xshmem_init(void) {
  xshmem_bootstrap_args_v1_t args{sizeof(args), nullptr, -1, -1};
  int st = init_impl(args);
  if (st != 0) {
    fprintf(stderr, "xshmem: xshmem_init failed (%s); set XSHMEM_LOG_LEVEL=info for details\n",
            Status::status_str(st));
    fflush(stderr);
    _exit(1);
  }
}

int xshmem_init_attr(unsigned int flags, xshmem_init_attr_t *attr) {
  xshmem_bootstrap_args_v1_t args{sizeof(args), nullptr, -1, -1};
  if (flags & XSHMEM_INIT_WITH_UNIQUEID) {
    if (!attr) {
      fprintf(stderr, "xshmem: xshmem_init_attr: attr is NULL with XSHMEM_INIT_WITH_UNIQUEID\n");
      return XSHMEM_ERR_INVALID;
    }
    if (attr->nranks <= 0 || attr->rank < 0 || attr->rank >= attr->nranks) {
      fprintf(stderr, "xshmem: xshmem_init_attr: rank %d / nranks %d out of range\n", attr->rank,
              attr->nranks);
      return XSHMEM_ERR_INVALID;
    }
    args.uniqueid = attr->uid.internal;
    args.rank = attr->rank;
    args.nranks = attr->nranks;
  }
  return init_impl(args);
}

int xshmem_get_uniqueid(xshmem_uniqueid_t *id) {
  if (!id) return XSHMEM_ERR_INVALID;
  xlog::configure();
  auto &l = plugin_loader(true);
  std::string want = config::get_string("XSHMEM_BOOTSTRAP");
  for (auto &b : l.bootstraps()) {
    if (!(b.ops->caps & XSHMEM_BOOTSTRAP_CAP_UNIQUEID) || !b.ops->get_uniqueid) continue;
    if (!want.empty() && b.name != want) continue;
    return b.ops->get_uniqueid(id->internal, sizeof(id->internal));
  }
  XLOG_ERROR("core", "xshmem_get_uniqueid: no loaded bootstrap plugin supports unique ids");
  return XSHMEM_ERR_NOT_FOUND;
}

int xshmem_set_attr_uniqueid_args(int rank, int nranks, const xshmem_uniqueid_t *id,
                                  xshmem_init_attr_t *attr) {
  if (!id || !attr) return XSHMEM_ERR_INVALID;
  attr->rank = rank;
  attr->nranks = nranks;
  attr->uid = *id;
  return 0;
}

int xshmem_init_thread(int requested, int *provided) {
  if (requested < XSHMEM_THREAD_SINGLE || requested > XSHMEM_THREAD_MULTIPLE) {
    char pe[16] = "-";
    if (initialized()) snprintf(pe, sizeof(pe), "%d", g_rt.job.my_pe);
    fprintf(stderr,
            "xshmem: xshmem_init_thread: requested %d is not an XSHMEM_THREAD_* level (%d..%d); "
            "not initialised (pe %s)\n",
            requested, XSHMEM_THREAD_SINGLE, XSHMEM_THREAD_MULTIPLE, pe);
    return XSHMEM_ERR_INVALID;
  }
  xshmem_bootstrap_args_v1_t args{sizeof(args), nullptr, -1, -1};
  int st = init_impl(args);
  // Every level is provided as MULTIPLE: the host API keeps no unsynchronised shared state
  // (docs/semantics.md, Lifecycle), so there is no cheaper mode to select.
  if (st == 0 && provided) *provided = XSHMEM_THREAD_MULTIPLE;
  return st;
}

void xshmem_query_thread(int *provided) {
  if (provided) *provided = XSHMEM_THREAD_MULTIPLE;
}

void xshmem_finalize(void) {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  check_init("xshmem_finalize");  // under the lock: a finalize racing on another thread counts
  xshmem_barrier_all();  // a non-last finalize acts as a barrier (1.6); the last one starts so
  if (--g_rt.init_count > 0) return;
  const int pe = g_rt.job.my_pe;
  if (Status st = teardown(); !st.ok()) {
    // The job did not end together (a peer never finalized, or is gone): a failure, not exit 0.
    fprintf(stderr,
            "xshmem: xshmem_finalize: the bootstrap's finalize failed on pe %d (%s); the job did "
            "not end cleanly, exiting with status 1\n",
            pe, st.str());
    fflush(stdout);
    fflush(stderr);
    _exit(1);
  }
  xlog::shutdown();
}

int xshmem_my_pe(void) {
  check_init("xshmem_my_pe");
  return g_rt.state.my_pe;
}

int xshmem_n_pes(void) {
  check_init("xshmem_n_pes");
  return g_rt.state.n_pes;
}

int xshmem_query_initialized(void) {
  return initialized() ? 1 : 0;
}

void xshmem_global_exit(int status) {
  // One line on stderr says why the job ended; the bootstrap carries it to the other PEs, which
  // exit with `status` too (the process status keeps its low 8 bits).
  char pe[16] = "-";
  if (initialized()) snprintf(pe, sizeof(pe), "%d", g_rt.job.my_pe);
  char line[160];
  snprintf(line, sizeof(line),
           "xshmem: xshmem_global_exit: status %d: stopping every pe of the job (pe %s)", status,
           pe);
  fprintf(stderr, "%s\n", line);
  stop_job(status, XSHMEM_LOG_INFO, "core", line, true);
}

void xshmemi_h_global_exit(int status) __attribute__((noreturn, alias("xshmem_global_exit")));

void xshmem_info_get_version(int *major, int *minor) {
  if (major) *major = XSHMEM_MAJOR_VERSION;
  if (minor) *minor = XSHMEM_MINOR_VERSION;
}

void xshmem_info_get_name(char *name) {
  if (name) snprintf(name, XSHMEM_MAX_NAME_LEN, "%s", XSHMEM_VENDOR_STRING);
}

int xshmemx_oob_allgather(const void *in, void *out, size_t len_per_pe) {
  check_init("xshmemx_oob_allgather");
  return oob_allgather(in, out, len_per_pe).code();
}

int xshmemx_oob_barrier(void) {
  check_init("xshmemx_oob_barrier");
  return oob_barrier().code();
}

}  // extern "C"

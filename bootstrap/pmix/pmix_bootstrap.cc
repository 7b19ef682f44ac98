// xshmem pmix bootstrap: the job was started by a PMIx launcher (Open MPI's mpirun, prterun,
// Slurm's srun --mpi=pmix) that runs a PMIx server for its processes.
//
// Rank and size come from the server (PMIx_Get of PMIX_RANK and PMIX_JOB_SIZE). Collectives are
// PMIx key-value exchanges: every rank puts its block under a key unique to the collective
// (xshmem.<op>.<seq>[.<dst>]), commits, joins a fence that collects the data, and gets the
// blocks it needs. barrier is a fence without data. Keys are never reused because PMIx clients
// cache what they fetched; the server keeps every block until the job ends, which is fine for
// the few, small collectives of init and control traffic this ABI carries.
//
// Every fence is non-blocking with a deadline on our side (XSHMEM_BOOTSTRAP_PMIX_TIMEOUT), and
// the same deadline goes to the server as PMIX_TIMEOUT: whether a launcher honours that key is
// up to it, ours holds regardless. abort is PMIx_Abort on the whole namespace: the launcher
// kills every process of the job.
#include <pmix.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <xshmem/plugin/bootstrap_v1.h>

namespace xshmem::bootstrap_pmix {
namespace {

constexpr const char *kSubsys = "bootstrap_pmix";
constexpr const char *kEnvTimeout = "XSHMEM_BOOTSTRAP_PMIX_TIMEOUT";

const xshmem_config_entry_v1_t kConfig[] = {
    {kEnvTimeout, XSHMEM_CONFIG_DURATION, "30s", nullptr,
     "deadline of every PMIx fence and get (every collective); raise it for slow starts"},
};

const xshmem_core_services_v1_t *g_svc = nullptr;

#define PLOG(lvl, ...)                                             \
  do {                                                             \
    if (g_svc && g_svc->log_enabled((lvl), kSubsys))               \
      g_svc->log((lvl), kSubsys, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)
#define PLOG_ERROR(...) PLOG(XSHMEM_LOG_ERROR, __VA_ARGS__)
#define PLOG_DEBUG(...) PLOG(XSHMEM_LOG_DEBUG, __VA_ARGS__)

using Clock = std::chrono::steady_clock;

struct Ctx {
  pmix_proc_t me{};        // namespace and rank
  pmix_proc_t wildcard{};  // the whole namespace (fence participants, job-level keys)
  int rank = 0, size = 1;
  int64_t timeout_ms = 30000;
  std::mutex coll_mu;  // collectives run one at a time, so every rank numbers them alike
  uint64_t seq = 0;
};

xshmem_status_t pmix_status(pmix_status_t rc) {
  switch (rc) {
    case PMIX_SUCCESS:
      return XSHMEM_SUCCESS;
    case PMIX_ERR_TIMEOUT:
      return XSHMEM_ERR_TIMEOUT;
    case PMIX_ERR_UNREACH:
    case PMIX_ERR_LOST_CONNECTION:
    case PMIX_ERR_PROC_ABORTED:
    case PMIX_ERR_PROC_TERM_WO_SYNC:
      return XSHMEM_ERR_PEER_FAILED;
    case PMIX_ERR_NOMEM:
      return XSHMEM_ERR_NOMEM;
    case PMIX_ERR_NOT_FOUND:
      return XSHMEM_ERR_NOT_FOUND;
    default:
      return XSHMEM_ERR_IO;
  }
}

std::string key_for(const char *op, uint64_t seq, int dst = -1) {
  std::string k = std::string("xshmem.") + op + "." + std::to_string(seq);
  if (dst >= 0) k += "." + std::to_string(dst);
  return k;
}

// ---- Fence with a deadline ----------------------------------------------------------------------

// Lives until both the waiter and PMIx's callback are done with it: after our deadline passes the
// fence is still pending in PMIx, and its callback may still come.
struct FenceWait {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  pmix_status_t rc = PMIX_SUCCESS;
  pmix_info_t info[2];  // PMIx reads the info of a non-blocking call until the callback
};

void fence_done(pmix_status_t rc, void *cbdata) {
  auto *holder = static_cast<std::shared_ptr<FenceWait> *>(cbdata);
  {
    std::lock_guard lock((*holder)->mu);
    (*holder)->done = true;
    (*holder)->rc = rc;
  }
  (*holder)->cv.notify_all();
  delete holder;
}

// A fence over the whole namespace; `collect` gathers the committed data of every rank. `what`
// names the collective in errors.
xshmem_status_t fence(Ctx &ctx, bool collect, const std::string &what) {
  auto w = std::make_shared<FenceWait>();
  memset(w->info, 0, sizeof(w->info));
  int tmo_s = static_cast<int>((ctx.timeout_ms + 999) / 1000);
  PMIx_Info_load(&w->info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  PMIx_Info_load(&w->info[1], PMIX_TIMEOUT, &tmo_s, PMIX_INT);
  auto start = Clock::now();
  auto *holder = new std::shared_ptr<FenceWait>(w);
  pmix_status_t rc = PMIx_Fence_nb(&ctx.wildcard, 1, w->info, 2, fence_done, holder);
  if (rc == PMIX_OPERATION_SUCCEEDED) {  // completed at once; no callback comes
    delete holder;
    return XSHMEM_SUCCESS;
  }
  if (rc != PMIX_SUCCESS) {
    delete holder;
    PLOG_ERROR("pe %d: PMIx_Fence_nb for %s failed to start: %s", ctx.rank, what.c_str(),
               PMIx_Error_string(rc));
    return pmix_status(rc);
  }
  std::unique_lock lock(w->mu);
  // The server may time the fence out first (PMIX_TIMEOUT, whole seconds): the same error.
  if (!w->cv.wait_until(lock, start + std::chrono::milliseconds(ctx.timeout_ms),
                        [&] { return w->done; }) ||
      w->rc == PMIX_ERR_TIMEOUT) {
    PLOG_ERROR(
        "pe %d: PMIx_Fence for %s timed out after %.1f s; a pe is stuck, slow or never called "
        "it (raise %s if it is only slow)",
        ctx.rank, what.c_str(), std::chrono::duration<double>(Clock::now() - start).count(),
        kEnvTimeout);
    return XSHMEM_ERR_TIMEOUT;
  }
  if (w->rc != PMIX_SUCCESS) {
    // A participant that aborted or died makes the server end the fence with a partial result.
    bool lost = w->rc == PMIX_ERR_PARTIAL_SUCCESS || pmix_status(w->rc) == XSHMEM_ERR_PEER_FAILED;
    PLOG_ERROR("pe %d: PMIx_Fence for %s failed after %.1f s: %s%s", ctx.rank, what.c_str(),
               std::chrono::duration<double>(Clock::now() - start).count(),
               PMIx_Error_string(w->rc), lost ? " (a pe aborted or died; the job is ending)" : "");
    return lost ? XSHMEM_ERR_PEER_FAILED : pmix_status(w->rc);
  }
  return XSHMEM_SUCCESS;
}

// ---- Key-value steps ----------------------------------------------------------------------------

xshmem_status_t put(Ctx &ctx, const std::string &key, const void *data, size_t len) {
  pmix_value_t v;
  memset(&v, 0, sizeof(v));
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = static_cast<char *>(const_cast<void *>(data));  // PMIx_Put copies it
  v.data.bo.size = len;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
  if (rc != PMIX_SUCCESS) {
    PLOG_ERROR("pe %d: PMIx_Put of key %s (%zu bytes) failed: %s", ctx.rank, key.c_str(), len,
               PMIx_Error_string(rc));
    return pmix_status(rc);
  }
  return XSHMEM_SUCCESS;
}

xshmem_status_t commit(Ctx &ctx, const std::string &what) {
  pmix_status_t rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) {
    PLOG_ERROR("pe %d: PMIx_Commit for %s failed: %s", ctx.rank, what.c_str(),
               PMIx_Error_string(rc));
    return pmix_status(rc);
  }
  return XSHMEM_SUCCESS;
}

// Fetches the `len` bytes that rank `src` put under `key` (after the fence that collected them).
xshmem_status_t get(Ctx &ctx, int src, const std::string &key, void *out, size_t len) {
  pmix_proc_t p = ctx.me;
  p.rank = static_cast<pmix_rank_t>(src);
  pmix_info_t info;
  memset(&info, 0, sizeof(info));
  int tmo_s = static_cast<int>((ctx.timeout_ms + 999) / 1000);
  PMIx_Info_load(&info, PMIX_TIMEOUT, &tmo_s, PMIX_INT);
  pmix_value_t *v = nullptr;
  pmix_status_t rc = PMIx_Get(&p, key.c_str(), &info, 1, &v);
  if (rc != PMIX_SUCCESS || !v) {
    PLOG_ERROR("pe %d: PMIx_Get of key %s from pe %d failed: %s", ctx.rank, key.c_str(), src,
               PMIx_Error_string(rc));
    return rc != PMIX_SUCCESS ? pmix_status(rc) : XSHMEM_ERR_INTERNAL;
  }
  xshmem_status_t st = XSHMEM_SUCCESS;
  if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len) {
    PLOG_ERROR(
        "pe %d: PMIx_Get of key %s from pe %d returned type %u with %zu bytes, expected %zu "
        "bytes: the pes disagree on the collective's size",
        ctx.rank, key.c_str(), src, static_cast<unsigned>(v->type),
        v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : size_t(0), len);
    st = XSHMEM_ERR_INVALID;
  } else if (len > 0) {
    memcpy(out, v->data.bo.bytes, len);
  }
  PMIX_VALUE_RELEASE(v);
  return st;
}

// A job-level value (rank, size, local rank and size) of type T.
template <typename T>
bool get_job_value(const pmix_proc_t &who, const char *key, pmix_data_type_t type, T *out,
                   std::string *err) {
  pmix_value_t *v = nullptr;
  pmix_status_t rc = PMIx_Get(&who, key, nullptr, 0, &v);
  if (rc != PMIX_SUCCESS || !v) {
    *err = std::string("PMIx_Get of ") + key + " failed: " + PMIx_Error_string(rc);
    return false;
  }
  bool ok = v->type == type;
  if (ok) memcpy(out, &v->data, sizeof(T));
  if (!ok) *err = std::string("PMIx_Get of ") + key + " returned an unexpected type";
  PMIX_VALUE_RELEASE(v);
  return ok;
}

// ---- Collectives --------------------------------------------------------------------------------

xshmem_status_t allgather(Ctx &ctx, const void *in, void *out, size_t len) {
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  std::string key = key_for("allgather", seq);
  std::string what =
      "allgather #" + std::to_string(seq) + " (" + std::to_string(len) + " bytes per pe)";
  auto *o = static_cast<char *>(out);
  xshmem_status_t st = XSHMEM_SUCCESS;
  if (len > 0) st = put(ctx, key, in, len);
  if (st == XSHMEM_SUCCESS && len > 0) st = commit(ctx, what);
  if (st == XSHMEM_SUCCESS) st = fence(ctx, len > 0, what);
  if (st != XSHMEM_SUCCESS || len == 0) return st;
  // `in` may be this rank's block of `out` (in place): copy it first, then fetch the others.
  if (in != o + len * ctx.rank) memmove(o + len * ctx.rank, in, len);
  for (int r = 0; r < ctx.size && st == XSHMEM_SUCCESS; ++r)
    if (r != ctx.rank) st = get(ctx, r, key, o + len * r, len);
  return st;
}

xshmem_status_t alltoall(Ctx &ctx, const void *in, void *out, size_t len) {
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  std::string what =
      "alltoall #" + std::to_string(seq) + " (" + std::to_string(len) + " bytes per pe pair)";
  const auto *i = static_cast<const char *>(in);
  auto *o = static_cast<char *>(out);
  xshmem_status_t st = XSHMEM_SUCCESS;
  // One key per destination, so that each rank fetches only its own blocks.
  for (int d = 0; d < ctx.size && len > 0 && st == XSHMEM_SUCCESS; ++d)
    if (d != ctx.rank) st = put(ctx, key_for("alltoall", seq, d), i + len * d, len);
  if (st == XSHMEM_SUCCESS && len > 0) st = commit(ctx, what);
  if (st == XSHMEM_SUCCESS) st = fence(ctx, len > 0, what);
  if (st != XSHMEM_SUCCESS || len == 0) return st;
  if (in != out) memmove(o + len * ctx.rank, i + len * ctx.rank, len);
  std::string key = key_for("alltoall", seq, ctx.rank);
  for (int r = 0; r < ctx.size && st == XSHMEM_SUCCESS; ++r)
    if (r != ctx.rank) st = get(ctx, r, key, o + len * r, len);
  return st;
}

xshmem_status_t bcast(Ctx &ctx, void *buf, size_t len, int root) {
  if (root < 0 || root >= ctx.size) {
    PLOG_ERROR("pe %d: bcast root %d is out of range [0, %d)", ctx.rank, root, ctx.size);
    return XSHMEM_ERR_INVALID;
  }
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  std::string key = key_for("bcast", seq);
  std::string what = "bcast #" + std::to_string(seq) + " (" + std::to_string(len) +
                     " bytes from pe " + std::to_string(root) + ")";
  xshmem_status_t st = XSHMEM_SUCCESS;
  if (ctx.rank == root && len > 0) st = put(ctx, key, buf, len);
  if (st == XSHMEM_SUCCESS && ctx.rank == root && len > 0) st = commit(ctx, what);
  if (st == XSHMEM_SUCCESS) st = fence(ctx, len > 0, what);
  if (st == XSHMEM_SUCCESS && ctx.rank != root && len > 0) st = get(ctx, root, key, buf, len);
  return st;
}

xshmem_status_t barrier(Ctx &ctx) {
  std::lock_guard lock(ctx.coll_mu);
  uint64_t seq = ++ctx.seq;
  return fence(ctx, false, "barrier #" + std::to_string(seq));
}

// ---- Plugin entry points ------------------------------------------------------------------------

xshmem_status_t pmix_load(const xshmem_core_services_v1_t *svc) {
  if (!svc || svc->abi_version != XSHMEM_SERVICES_ABI_VERSION ||
      svc->struct_size < offsetof(xshmem_core_services_v1_t, fatal) + sizeof(svc->fatal))
    return XSHMEM_ERR_ABI;
  g_svc = svc;
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

// Launcher variables, not xshmem configuration: a PMIx server started this process. 25 beats the
// mpi plugin's 20 (it would initialise MPI just to bootstrap) but not its 30 (the application has
// initialised MPI already); see docs/semantics.md, "Bootstrap".
int pmix_detect(void) {
  if (getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK")) return 25;
  return 0;
}

xshmem_status_t pmix_init(const xshmem_bootstrap_args_v1_t *args, void **ctx_out, int *rank,
                          int *size) {
  if (!g_svc) return XSHMEM_ERR_INTERNAL;
  if (args && XSHMEM_BOOTSTRAP_ARGS_COVER(args, nranks) && args->uniqueid) {
    PLOG_ERROR(
        "the pmix bootstrap does not take a unique id; use XSHMEM_BOOTSTRAP=tcp for unique-id "
        "jobs");
    return XSHMEM_ERR_UNSUPPORTED;
  }
  auto ctx = std::make_unique<Ctx>();
  ctx->timeout_ms = g_svc->config_get_int(kEnvTimeout);
  if (ctx->timeout_ms <= 0) ctx->timeout_ms = 30000;
  // PMIx_Init is reference counted: an application (or its MPI) may have called it, or call it
  // later; each PMIx_Finalize undoes one PMIx_Init.
  pmix_status_t rc = PMIx_Init(&ctx->me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    PLOG_ERROR(
        "PMIx_Init failed: %s; was the job started by a PMIx launcher (mpirun, prterun, srun "
        "--mpi=pmix)?",
        PMIx_Error_string(rc));
    return pmix_status(rc);
  }
  ctx->wildcard = ctx->me;
  ctx->wildcard.rank = PMIX_RANK_WILDCARD;
  ctx->rank = static_cast<int>(ctx->me.rank);
  uint32_t job_size = 0;
  uint16_t local_rank = 0;
  uint32_t local_size = 0;
  std::string err;
  bool ok = get_job_value(ctx->wildcard, PMIX_JOB_SIZE, PMIX_UINT32, &job_size, &err);
  if (ok && (job_size < 1 || job_size > 0x7fffffffu || ctx->me.rank >= job_size)) {
    err = "rank " + std::to_string(ctx->me.rank) + " is out of range for job size " +
          std::to_string(job_size);
    ok = false;
  }
  // Local rank and size are informational: the core derives them from host identities.
  if (ok && get_job_value(ctx->me, PMIX_LOCAL_RANK, PMIX_UINT16, &local_rank, &err) &&
      get_job_value(ctx->wildcard, PMIX_LOCAL_SIZE, PMIX_UINT32, &local_size, &err))
    err.clear();
  if (!ok) {
    PLOG_ERROR("pe %d: %s (namespace %s)", ctx->rank, err.c_str(), ctx->me.nspace);
    PMIx_Finalize(nullptr, 0);
    return XSHMEM_ERR_IO;
  }
  ctx->size = static_cast<int>(job_size);
  PLOG_DEBUG("pe %d of %d joined PMIx namespace %s (local rank %u of %u%s)", ctx->rank, ctx->size,
             ctx->me.nspace, local_rank, local_size, err.empty() ? "" : ", not published");
  *rank = ctx->rank;
  *size = ctx->size;
  *ctx_out = ctx.release();
  return XSHMEM_SUCCESS;
}

xshmem_status_t pmix_allgather(void *ctx, const void *in, void *out, size_t len) {
  if (!ctx || (len > 0 && (!in || !out))) return XSHMEM_ERR_INVALID;
  return allgather(*static_cast<Ctx *>(ctx), in, out, len);
}

xshmem_status_t pmix_alltoall(void *ctx, const void *in, void *out, size_t len) {
  if (!ctx || (len > 0 && (!in || !out))) return XSHMEM_ERR_INVALID;
  return alltoall(*static_cast<Ctx *>(ctx), in, out, len);
}

xshmem_status_t pmix_bcast(void *ctx, void *buf, size_t len, int root) {
  if (!ctx || (len > 0 && !buf)) return XSHMEM_ERR_INVALID;
  return bcast(*static_cast<Ctx *>(ctx), buf, len, root);
}

xshmem_status_t pmix_barrier(void *ctx) {
  if (!ctx) return XSHMEM_ERR_INVALID;
  return barrier(*static_cast<Ctx *>(ctx));
}

void pmix_abort(void *vctx, int exit_code, const char *reason) {
  auto *ctx = static_cast<Ctx *>(vctx);
  int rank = ctx ? ctx->rank : -1;
  const char *why = reason && *reason ? reason : "(no reason given)";
  PLOG_ERROR("pe %d: aborting the job with exit code %d: %s", rank, exit_code, why);
  if (ctx && PMIx_Initialized()) {
    char msg[1100];
    snprintf(msg, sizeof(msg), "xshmem pe %d: %s", rank, why);
    // NULL procs: every process of our namespace. The launcher kills them (us too, unless we
    // exit first); it returns once the server has taken the request.
    pmix_status_t rc = PMIx_Abort(exit_code, msg, nullptr, 0);
    if (rc != PMIX_SUCCESS)
      PLOG_ERROR("pe %d: PMIx_Abort failed: %s; exiting this pe only", rank, PMIx_Error_string(rc));
  }
  _Exit(exit_code);
}

xshmem_status_t pmix_finalize(void *vctx) {
  std::unique_ptr<Ctx> ctx(static_cast<Ctx *>(vctx));
  if (!ctx) return XSHMEM_ERR_INVALID;
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    PLOG_ERROR("pe %d: PMIx_Finalize failed: %s", ctx->rank, PMIx_Error_string(rc));
    return pmix_status(rc);
  }
  return XSHMEM_SUCCESS;
}

}  // namespace
}  // namespace xshmem::bootstrap_pmix

// The one exported symbol (declared extern so that the const object has external linkage).
extern "C" {
__attribute__((
    visibility("default"))) extern const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1;
const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1 = {
    XSHMEM_BOOTSTRAP_ABI_VERSION,
    sizeof(xshmem_bootstrap_v1_t),
    "pmix",
    0,
    xshmem::bootstrap_pmix::pmix_load,
    xshmem::bootstrap_pmix::pmix_detect,
    nullptr,
    xshmem::bootstrap_pmix::pmix_init,
    xshmem::bootstrap_pmix::pmix_allgather,
    xshmem::bootstrap_pmix::pmix_alltoall,
    xshmem::bootstrap_pmix::pmix_bcast,
    xshmem::bootstrap_pmix::pmix_barrier,
    xshmem::bootstrap_pmix::pmix_abort,
    xshmem::bootstrap_pmix::pmix_finalize,
};
}

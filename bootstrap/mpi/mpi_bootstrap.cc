// xshmem mpi bootstrap: the job is an MPI job (mpirun -np N prog).
//
// Collectives run on a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN, so a failure comes back
// as a status instead of MPI's default abort. MPI is initialised here only if the application has
// not done it, and finalised only then.
#include <dlfcn.h>

// The C API only (Open MPI's mpi.h pulls in the C++ bindings otherwise).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cctype>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <xshmem/plugin/bootstrap_v1.h>

namespace xshmem::bootstrap_mpi {
namespace {

constexpr const char *kSubsys = "bootstrap_mpi";
constexpr const char *kEnvThreadLevel = "XSHMEM_BOOTSTRAP_MPI_THREAD_LEVEL";

const xshmem_config_entry_v1_t kConfig[] = {
    {kEnvThreadLevel, XSHMEM_CONFIG_ENUM, "serialized", "single,funneled,serialized,multiple",
     "thread level asked of MPI_Init_thread when xshmem initialises MPI itself"},
};

const xshmem_core_services_v1_t *g_svc = nullptr;

#define MLOG(lvl, ...)                                             \
  do {                                                             \
    if (g_svc && g_svc->log_enabled((lvl), kSubsys))               \
      g_svc->log((lvl), kSubsys, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

struct Ctx {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  bool we_initialized = false;
  std::mutex mu;  // the plugin asks for less than MPI_THREAD_MULTIPLE by default
};

// Logs a failed MPI call with MPI's own error text.
xshmem_status_t check(int rc, const char *call, const Ctx *ctx) {
  if (rc == MPI_SUCCESS) return XSHMEM_SUCCESS;
  char msg[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  MLOG(XSHMEM_LOG_ERROR, "pe %d: %s failed: %s", ctx ? ctx->rank : -1, call, msg);
  return XSHMEM_ERR_IO;
}

bool fits_int(size_t n, const char *what, const Ctx *ctx) {
  if (n <= static_cast<size_t>(INT_MAX)) return true;
  MLOG(XSHMEM_LOG_ERROR, "pe %d: %s of %zu bytes exceeds MPI's int count; split the call",
       ctx->rank, what, n);
  return false;
}

// Open MPI opens its components with dlopen and expects libmpi's symbols to be global. Loaded as
// a dependency of this plugin (dlopen'ed RTLD_LOCAL), they are not, and MPI_Init fails to load
// its components. Re-opening the already loaded libmpi with RTLD_GLOBAL promotes it.
void promote_libmpi() {
  Dl_info info{};
  const char *name = "libmpi.so.40";
  if (dladdr(reinterpret_cast<void *>(&MPI_Init), &info) && info.dli_fname) name = info.dli_fname;
  void *h = dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  if (!h) {
    MLOG(XSHMEM_LOG_WARN,
         "re-opening %s with RTLD_GLOBAL failed (%s); MPI_Init may fail to "
         "load its components",
         name, dlerror());
    return;
  }
  MLOG(XSHMEM_LOG_DEBUG, "made %s global for Open MPI's components", name);
  // Keep the reference: the library must stay global while MPI runs.
}

int thread_level() {
  const char *v = g_svc->config_get_string(kEnvThreadLevel);
  std::string s = v ? v : "";
  for (auto &ch : s) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  if (s == "single") return MPI_THREAD_SINGLE;
  if (s == "funneled") return MPI_THREAD_FUNNELED;
  if (s == "multiple") return MPI_THREAD_MULTIPLE;
  return MPI_THREAD_SERIALIZED;
}

xshmem_status_t mpi_load(const xshmem_core_services_v1_t *svc) {
  if (!svc || svc->abi_version != XSHMEM_SERVICES_ABI_VERSION ||
      svc->struct_size < offsetof(xshmem_core_services_v1_t, fatal) + sizeof(svc->fatal))
    return XSHMEM_ERR_ABI;
  g_svc = svc;
  return svc->config_register(kConfig, sizeof(kConfig) / sizeof(kConfig[0]));
}

// Launcher variables, not xshmem configuration: they say an MPI launcher started us. If the
// application has initialised MPI already, MPI is the natural bootstrap (30, above pmix's 25);
// otherwise pmix wins where a PMIx server runs, since this plugin would initialise MPI itself and
// the application could then no longer call MPI_Init (docs/semantics.md, "Bootstrap").
int mpi_detect(void) {
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_SIZE")) return 0;
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  return inited && !finalized ? 30 : 20;
}

xshmem_status_t mpi_init(const xshmem_bootstrap_args_v1_t *args, void **ctx_out, int *rank,
                         int *size) {
  if (!g_svc) return XSHMEM_ERR_INTERNAL;
  // The application's communicator (xshmem_init_attr with XSHMEM_INIT_WITH_MPI_COMM; args 1.1).
  const MPI_Comm *app = args && XSHMEM_BOOTSTRAP_ARGS_COVER(args, mpi_comm)
                            ? static_cast<const MPI_Comm *>(args->mpi_comm)
                            : nullptr;
  if (args && XSHMEM_BOOTSTRAP_ARGS_COVER(args, uniqueid) && args->uniqueid) {
    MLOG(XSHMEM_LOG_ERROR,
         "the mpi bootstrap does not take a unique id; use XSHMEM_BOOTSTRAP=tcp "
         "for unique-id jobs");
    return XSHMEM_ERR_UNSUPPORTED;
  }
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (app != nullptr && (!inited || finalized)) {
    MLOG(XSHMEM_LOG_ERROR,
         "xshmem_init_attr with XSHMEM_INIT_WITH_MPI_COMM: MPI is %s; the communicator is the "
         "application's, so MPI_Init comes first",
         finalized ? "finalised already" : "not initialised");
    return XSHMEM_ERR_INVALID;
  }
  if (app != nullptr && *app == MPI_COMM_NULL) {
    MLOG(XSHMEM_LOG_ERROR,
         "xshmem_init_attr with XSHMEM_INIT_WITH_MPI_COMM: the communicator is MPI_COMM_NULL "
         "(this process is not in it)");
    return XSHMEM_ERR_INVALID;
  }
  auto *ctx = new Ctx;
  if (!inited) {
    promote_libmpi();
    int provided = 0, want = thread_level();
    int rc = MPI_Init_thread(nullptr, nullptr, want, &provided);
    if (rc != MPI_SUCCESS) {
      MLOG(XSHMEM_LOG_ERROR, "MPI_Init_thread failed (code %d); was the job started by mpirun?",
           rc);
      delete ctx;
      return XSHMEM_ERR_IO;
    }
    ctx->we_initialized = true;
    if (provided < want)
      MLOG(XSHMEM_LOG_WARN,
           "MPI_Init_thread gave thread level %d, asked %d; bootstrap calls "
           "are serialised by the plugin",
           provided, want);
  }
  xshmem_status_t st =
      check(MPI_Comm_dup(app != nullptr ? *app : MPI_COMM_WORLD, &ctx->comm), "MPI_Comm_dup", ctx);
  if (st == XSHMEM_SUCCESS)
    st = check(MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler",
               ctx);
  if (st == XSHMEM_SUCCESS) MPI_Comm_rank(ctx->comm, &ctx->rank);
  if (st == XSHMEM_SUCCESS) MPI_Comm_size(ctx->comm, &ctx->size);
  if (st != XSHMEM_SUCCESS) {
    if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
    if (ctx->we_initialized) MPI_Finalize();
    delete ctx;
    return st;
  }
  MLOG(XSHMEM_LOG_DEBUG, "pe %d of %d joined the MPI job%s", ctx->rank, ctx->size,
       app != nullptr        ? " (the application's communicator)"
       : ctx->we_initialized ? " (MPI initialised by xshmem)"
                             : "");
  *rank = ctx->rank;
  *size = ctx->size;
  *ctx_out = ctx;
  return XSHMEM_SUCCESS;
}

xshmem_status_t mpi_allgather(void *vctx, const void *in, void *out, size_t len) {
  auto *ctx = static_cast<Ctx *>(vctx);
  if (!ctx || !fits_int(len, "allgather", ctx)) return XSHMEM_ERR_INVALID;
  std::lock_guard lock(ctx->mu);
  // In place when the caller passes its own block of `out` as `in`.
  const void *src = in == static_cast<char *>(out) + len * ctx->rank ? MPI_IN_PLACE : in;
  return check(MPI_Allgather(src, static_cast<int>(len), MPI_BYTE, out, static_cast<int>(len),
                             MPI_BYTE, ctx->comm),
               "MPI_Allgather", ctx);
}

xshmem_status_t mpi_alltoall(void *vctx, const void *in, void *out, size_t len) {
  auto *ctx = static_cast<Ctx *>(vctx);
  if (!ctx || !fits_int(len, "alltoall", ctx)) return XSHMEM_ERR_INVALID;
  std::lock_guard lock(ctx->mu);
  const void *src = in == out ? MPI_IN_PLACE : in;
  return check(MPI_Alltoall(src, static_cast<int>(len), MPI_BYTE, out, static_cast<int>(len),
                            MPI_BYTE, ctx->comm),
               "MPI_Alltoall", ctx);
}

xshmem_status_t mpi_bcast(void *vctx, void *buf, size_t len, int root) {
  auto *ctx = static_cast<Ctx *>(vctx);
  if (!ctx || !fits_int(len, "bcast", ctx)) return XSHMEM_ERR_INVALID;
  if (root < 0 || root >= ctx->size) {
    MLOG(XSHMEM_LOG_ERROR, "pe %d: bcast root %d is out of range [0, %d)", ctx->rank, root,
         ctx->size);
    return XSHMEM_ERR_INVALID;
  }
  std::lock_guard lock(ctx->mu);
  return check(MPI_Bcast(buf, static_cast<int>(len), MPI_BYTE, root, ctx->comm), "MPI_Bcast", ctx);
}

xshmem_status_t mpi_barrier(void *vctx) {
  auto *ctx = static_cast<Ctx *>(vctx);
  if (!ctx) return XSHMEM_ERR_INVALID;
  std::lock_guard lock(ctx->mu);
  return check(MPI_Barrier(ctx->comm), "MPI_Barrier", ctx);
}

void mpi_abort(void *vctx, int exit_code, const char *reason) {
  auto *ctx = static_cast<Ctx *>(vctx);
  MLOG(XSHMEM_LOG_ERROR, "pe %d: aborting the job with exit code %d: %s", ctx ? ctx->rank : -1,
       exit_code, reason && *reason ? reason : "(no reason given)");
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Abort(ctx ? ctx->comm : MPI_COMM_WORLD, exit_code);
  _Exit(exit_code);
}

void finalize_mpi_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

xshmem_status_t mpi_finalize(void *vctx) {
  auto *ctx = static_cast<Ctx *>(vctx);
  if (!ctx) return XSHMEM_ERR_INVALID;
  xshmem_status_t st = check(MPI_Comm_free(&ctx->comm), "MPI_Comm_free", ctx);
  if (ctx->we_initialized) {
    // MPI cannot be initialised twice in a process: leave it up for a later xshmem_init
    // (OpenSHMEM 1.6 re-init, which then finds it initialised) and finalize it at exit. The
    // plugin stays loaded for the life of the process, so the handler stays valid.
    static std::once_flag once;
    std::call_once(once, [] { atexit(finalize_mpi_at_exit); });
  }
  delete ctx;
  return st;
}

}  // namespace
}  // namespace xshmem::bootstrap_mpi

// The one exported symbol (declared extern so that the const object has external linkage).
extern "C" {
__attribute__((
    visibility("default"))) extern const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1;
const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1 = {
    XSHMEM_BOOTSTRAP_ABI_VERSION,
    sizeof(xshmem_bootstrap_v1_t),
    "mpi",
    0,
    xshmem::bootstrap_mpi::mpi_load,
    xshmem::bootstrap_mpi::mpi_detect,
    nullptr,
    xshmem::bootstrap_mpi::mpi_init,
    xshmem::bootstrap_mpi::mpi_allgather,
    xshmem::bootstrap_mpi::mpi_alltoall,
    xshmem::bootstrap_mpi::mpi_bcast,
    xshmem::bootstrap_mpi::mpi_barrier,
    xshmem::bootstrap_mpi::mpi_abort,
    xshmem::bootstrap_mpi::mpi_finalize,
};
}

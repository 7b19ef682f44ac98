// xshmem-perf: the ibgda transport's GPU posting rate (dev.gda_post.*, CUDA builds with the NIC
// model library).
//
// GPU threads post 8-byte inline RDMA writes into one send queue with the posting protocol of
// device/include/xshmem/device/gda.h (claim, write the entry, publish in position order, doorbell
// record), at three scopes:
//   thread  every thread claims one entry at a time (reserve(q, 1)), writes it and publishes it;
//   warp    the 32 lanes of a warp claim together (one reserve_warp, one atomic), each lane
//           writes one entry, and lane 0 publishes the warp's run of 32 (one doorbell record
//           write for 32 entries: a batched doorbell);
//   block   thread 0 claims blockDim entries (one reserve), every thread writes one, and
//           thread 0 publishes the run.
// Two metrics, on PE 0 alone (the other PEs only take part in the barriers and the check):
//   dev.gda_post.undrained  the queue (ring, doorbell record, collapsed CQE, counters) in GPU
//                           memory, as a DevX queue would be, and nobody consumes it: one launch
//                           posts exactly one pass of the ring (kNbb entries; flow control would
//                           block beyond it), and the queue is reset between launches. The
//                           figure is the posting cost alone: claims, entry writes, the in-order
//                           publish hand-off and the doorbell record writes.
//   dev.gda_post.drained    ring, doorbell record and CQE in mapped pinned host memory, drained
//                           by the software NIC model (backends/ibgda/nic_model.h) on a host
//                           thread that executes every write into a pinned host buffer: one
//                           launch posts kDrainedEntries (8 passes of the ring) under flow
//                           control from the collapsed CQ and ends when the last entry has
//                           completed. The figure is bounded by the slower of the GPU's posting
//                           into host memory over PCIe and the model's one host thread.
// Standalone: neither uses the ibgda transport (nor the symmetric heap). Rates are work requests
// per second, in millions (MWR/s), from cudaEvents around each launch (launch overhead included),
// median of opt.reps launches after one warm-up. Every launch is checked: the counters, and for
// undrained every entry of the ring decoded by the model's decoder; for drained every target word
// and the model's count of consumed entries.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <xshmem/device/gda.h>
#include <xshmem/xshmem.h>

#include "nic_model.h"
#include "perf.h"

namespace xshmem::perf {
namespace {

namespace g = xshmem::dev::gda;
namespace m = xshmem::ibgda;

constexpr uint32_t kNbb = 32768;  // WQEBBs of the send queue (gda.h allows at most 2^15)
constexpr uint32_t kQpn = 0x00A11C;
constexpr uint32_t kRKey = 0x5151, kLKey = 0x1111;
constexpr uint64_t kDrainedEntries = uint64_t{1} << 18;  // per launch of dev.gda_post.drained
// undrained entries write to this address (never executed; only decoded)
constexpr uint64_t kFakeBase = 0x7E0000000000ull;
// Every wait of a poster gives up after this long (a bug fails the launch instead of hanging it).
constexpr uint64_t kDeadlineNs = 10ull * 1000 * 1000 * 1000;
// The host gives a launch this long, the model this long after it to report everything consumed.
constexpr double kLaunchDeadlineS = 120;
constexpr double kDrainDeadlineS = 20;
constexpr uint8_t kPoison = 0xA7;
constexpr size_t kGuardWords = 8;
constexpr unsigned kFullMask = 0xFFFFFFFFu;
// What the samples ran on (their transport column): no transport, gda.h alone.
constexpr const char *kTransport = "gda.h standalone";

enum Scope : int { kThread = 0, kWarp = 1, kBlock = 2 };
const char *scope_name(Scope s) {
  return s == kThread ? "thread" : s == kWarp ? "warp" : "block";
}

// Where a post failed: the high bits of the failure word (the low bits are the post_status_t).
enum : unsigned long long { kAtReserve = 1 << 4, kAtPublish = 2 << 4, kAtWaitDone = 3 << 4 };

// The grids every scope runs with: each divides kNbb and kDrainedEntries, and every block is a
// whole number of warps.
struct Grid {
  int blocks, threads;
};
constexpr Grid kGrids[] = {{1, 32}, {8, 128}, {32, 256}, {128, 256}};

// The 8 bytes the entry at `pos` writes (a bijection of pos for a given seed).
__host__ __device__ __forceinline__ uint64_t entry_value(uint64_t pos, uint64_t seed) {
  return ((pos + seed) * 0x9E3779B97F4A7C15ull) ^ 0x5EEDull;
}

// ---- Kernels ------------------------------------------------------------------------------------

// fail[0]: 0, or the first failure (kAt* | post_status_t); fail[1]: its position.
__device__ void report(unsigned long long *fail, unsigned long long what, uint64_t pos) {
  if (atomicCAS(&fail[0], 0ull, what) == 0ull) {
    fail[1] = pos;
    __threadfence();
  }
}
__device__ __forceinline__ bool aborted(const unsigned long long *fail) {
  return *static_cast<const volatile unsigned long long *>(fail) != 0;
}

// The inline write of the entry at `pos` (8 bytes to word pos of the target).
__device__ __forceinline__ void write_entry(const g::sq_t &q, uint64_t pos, bool signaled,
                                            uint64_t base, uint64_t seed) {
  const uint64_t v = entry_value(pos, seed);
  g::build_write_inline(g::slot(q, pos), g::post_of(q, pos, signaled), base + pos * 8, kRKey, &v,
                        8);
}

// After a block's posts: with `blocks_done`, the last block to finish waits until the entry at
// `last` has completed (every entry then has): the drained launch ends when the NIC model has
// executed everything.
__device__ void finish(const g::sq_t &q, unsigned long long *fail, unsigned *blocks_done,
                       uint64_t last) {
  __syncthreads();
  if (threadIdx.x != 0 || blocks_done == nullptr) return;
  __threadfence();
  if (atomicAdd(blocks_done, 1u) != gridDim.x - 1) return;
  if (aborted(fail)) return;
  uint64_t failed = last;
  const int st = g::wait_done(q, last, &failed);
  if (st != g::kPostOk) report(fail, kAtWaitDone | static_cast<unsigned>(st), failed);
}

// A claim of n entries (reserve), out of line: inlined into a posting loop with the CQ mirror's
// wait it makes CUDA 13.0's ptxas (sm_90, -O3) fail with "(C7600) Register allocation failed with
// register count of '7'".
__device__ __noinline__ int claim(const g::sq_t &q, uint32_t n, uint64_t *pos) {
  return g::reserve(q, n, pos);
}

// Thread scope: `iters` times, claim one entry, write it, publish it.
__global__ void post_thread_kernel(g::sq_t q, uint32_t iters, uint64_t base, uint64_t seed,
                                   unsigned long long *fail, unsigned *blocks_done, uint64_t last) {
  for (uint32_t i = 0; i < iters; ++i) {
    if (aborted(fail)) break;
    uint64_t pos = 0;
    int st = claim(q, 1, &pos);
    if (st != g::kPostOk) {
      report(fail, kAtReserve | static_cast<unsigned>(st), pos);
      break;
    }
    write_entry(q, pos, g::wants_cqe(q, pos, pos), base, seed);
    st = g::publish(q, pos, 1);
    if (st != g::kPostOk) {
      report(fail, kAtPublish | static_cast<unsigned>(st), pos);
      break;
    }
  }
  finish(q, fail, blocks_done, last);
}

// Warp scope: `iters` times, the warp claims 32 entries with one reserve_warp, every lane writes
// one, and lane 0 publishes the run (one doorbell record write). blockDim.x is a multiple of 32.
__global__ void post_warp_kernel(g::sq_t q, uint32_t iters, uint64_t base, uint64_t seed,
                                 unsigned long long *fail, unsigned *blocks_done, uint64_t last) {
  const unsigned lane = threadIdx.x & 31u;
  for (uint32_t i = 0; i < iters; ++i) {
    if (__any_sync(kFullMask, aborted(fail))) break;
    // The warp's claim as reserve_warp makes it for a full warp: one atomic by lane 0, which
    // waits for room for all, and consecutive positions in lane order. (reserve_warp itself, in
    // or out of line here, makes CUDA 13.0's ptxas fail with C7600 since its wait reads the CQ
    // through the mirror.)
    uint64_t first_pos = 0;
    int st0 = g::kPostOk;
    if (lane == 0) st0 = claim(q, 32, &first_pos);
    const int st = __shfl_sync(kFullMask, st0, 0);
    const uint64_t pos = __shfl_sync(kFullMask, first_pos, 0) + lane;
    if (__any_sync(kFullMask, st != g::kPostOk)) {
      if (st != g::kPostOk) report(fail, kAtReserve | static_cast<unsigned>(st), pos);
      break;
    }
    const uint64_t first = __shfl_sync(kFullMask, pos, 0);
    write_entry(q, pos, lane == 31 && g::wants_cqe(q, first, pos), base, seed);
    __syncwarp();  // every lane's entry written before lane 0 publishes the run
    int pst = g::kPostOk;
    if (lane == 0) pst = g::publish(q, first, 32);
    if (__shfl_sync(kFullMask, pst, 0) != g::kPostOk) {
      if (lane == 0) report(fail, kAtPublish | static_cast<unsigned>(pst), first);
      break;
    }
  }
  finish(q, fail, blocks_done, last);
}

// Block scope: `iters` times, thread 0 claims blockDim.x entries, every thread writes one, and
// thread 0 publishes the run.
__global__ void post_block_kernel(g::sq_t q, uint32_t iters, uint64_t base, uint64_t seed,
                                  unsigned long long *fail, unsigned *blocks_done, uint64_t last) {
  __shared__ uint64_t s_first;
  __shared__ int s_stop;
  bool failed = false;  // thread 0's
  for (uint32_t i = 0;; ++i) {
    if (threadIdx.x == 0) {
      bool stop = failed || i >= iters || aborted(fail);
      uint64_t first = 0;
      if (!stop) {
        const int st = claim(q, blockDim.x, &first);
        if (st != g::kPostOk) {
          report(fail, kAtReserve | static_cast<unsigned>(st), first);
          stop = true;
        }
      }
      s_first = first;
      s_stop = stop ? 1 : 0;
    }
    __syncthreads();
    if (s_stop != 0) break;
    const uint64_t first = s_first, pos = first + threadIdx.x;
    write_entry(q, pos, threadIdx.x == blockDim.x - 1 && g::wants_cqe(q, first, pos), base, seed);
    __syncthreads();  // every entry of the run written before thread 0 publishes it
    if (threadIdx.x == 0) {
      const int st = g::publish(q, first, blockDim.x);
      if (st != g::kPostOk) {
        report(fail, kAtPublish | static_cast<unsigned>(st), first);
        failed = true;
      }
    }
  }
  finish(q, fail, blocks_done, last);
}

// ---- Host side ----------------------------------------------------------------------------------

std::string grid_note(Scope s, const Grid &gr) {
  return std::string(scope_name(s)) + ", " + std::to_string(gr.blocks) + " block" +
         (gr.blocks > 1 ? "s" : "") + " x " + std::to_string(gr.threads) + " threads";
}

std::string failure_text(unsigned long long what, unsigned long long pos) {
  const int st = static_cast<int>(what & 0xF);
  const char *where = (what & ~0xFull) == kAtReserve   ? "reserve"
                      : (what & ~0xFull) == kAtPublish ? "publish"
                                                       : "wait_done";
  const char *why = st == g::kPostTimeout ? "a wait passed its deadline (kPostTimeout)"
                    : st == g::kPostError ? "the collapsed CQE is an error CQE (kPostError)"
                                          : "unknown status";
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s at position %llu: %s", where, pos, why);
  return buf;
}

// The device buffers every launch shares: the failure word pair and the block counter.
struct Run {
  cudaStream_t st{};
  cudaEvent_t e0{}, e1{};
  unsigned long long *fail = nullptr;  // [0] what, [1] position; [2] (as unsigned) blocks done
  Run() {
    PERF_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    PERF_CUDA(cudaEventCreate(&e0));
    PERF_CUDA(cudaEventCreate(&e1));
    PERF_CUDA(cudaMalloc(&fail, 3 * sizeof(unsigned long long)));
  }
  ~Run() {
    cudaFree(fail);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(st);
  }
  Run(const Run &) = delete;
  Run &operator=(const Run &) = delete;
  unsigned *blocks_done() { return reinterpret_cast<unsigned *>(fail + 2); }
  // On the launches' stream (a non-blocking one: the legacy stream's cudaMemset would not be
  // ordered before the launch).
  void reset() { PERF_CUDA(cudaMemsetAsync(fail, 0, 3 * sizeof(unsigned long long), st)); }

  // Launches the kernel of `scope`, timed by the events.
  void launch(Scope scope, const Grid &gr, const g::sq_t &q, uint32_t iters, uint64_t base,
              uint64_t seed, bool wait_last, uint64_t last) {
    unsigned *done = wait_last ? blocks_done() : nullptr;
    PERF_CUDA(cudaEventRecord(e0, st));
    if (scope == kThread)
      post_thread_kernel<<<gr.blocks, gr.threads, 0, st>>>(q, iters, base, seed, fail, done, last);
    else if (scope == kWarp)
      post_warp_kernel<<<gr.blocks, gr.threads, 0, st>>>(q, iters, base, seed, fail, done, last);
    else
      post_block_kernel<<<gr.blocks, gr.threads, 0, st>>>(q, iters, base, seed, fail, done, last);
    PERF_CUDA(cudaGetLastError());
    PERF_CUDA(cudaEventRecord(e1, st));
  }
  // Waits for the launch with a deadline; false (after a line) when it did not end in time (the
  // caller then stops the job: the kernel may still write into the queue).
  bool wait(const char *metric, const std::string &note) {
    const auto t0 = Clock::now();
    for (;;) {
      const cudaError_t e = cudaEventQuery(e1);
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady) PERF_CUDA(e);
      if (seconds_since(t0) > kLaunchDeadlineS) {
        std::fprintf(stderr,
                     "xshmem-perf: %s (%s): the launch did not end within %.0f s although every "
                     "wait in it has a %.0f s deadline\n",
                     metric, note.c_str(), kLaunchDeadlineS, kDeadlineNs / 1e9);
        return false;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    (void)cudaGetLastError();  // a cudaErrorNotReady of the polls, if one was recorded
    return true;
  }
  double elapsed_s() {
    float ms = 0;
    PERF_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    return static_cast<double>(ms) * 1e-3;
  }
  // The failure the kernel reported; false (after a line) if there was one.
  bool check_failure(const char *metric, const std::string &note, unsigned rep) {
    unsigned long long f[2] = {0, 0};
    PERF_CUDA(cudaMemcpy(f, fail, sizeof f, cudaMemcpyDeviceToHost));
    if (f[0] == 0) return true;
    std::fprintf(stderr, "xshmem-perf: %s (%s), launch %u: %s\n", metric, note.c_str(), rep,
                 failure_text(f[0], f[1]).c_str());
    return false;
  }
};

g::sq_t make_sq(void *wqes, uint64_t *counters, uint32_t *dbr, const g::cqe_t *cq) {
  g::sq_t q{};
  q.wqes = wqes;
  q.nbb = kNbb;
  q.qpn = kQpn;
  q.reserved = counters;
  q.ready = counters + 1;
  q.published = counters + 2;
  q.dbr = dbr + g::kSendDbr;
  q.doorbell = nullptr;  // the NIC model polls the doorbell record; no UAR here
  q.cq = cq;
  q.deadline_ns = kDeadlineNs;
  return q;
}

g::cqe_t invalid_cqe() {
  g::cqe_t c;
  std::memset(&c, 0, sizeof c);
  c.op_own = static_cast<uint8_t>(g::kCqeInvalid << 4 | 1);  // as ibgda.cc's make_peer
  return c;
}

// Reads the claim and publish counters and the doorbell record word; false (after a line) unless
// reserved == ready == published == posted and the record holds the producer count of `posted`.
bool check_counters(const char *metric, const std::string &note, unsigned rep,
                    const uint64_t *counters, uint32_t dbr_word, uint64_t posted) {
  uint64_t c[3] = {0, 0, 0};
  PERF_CUDA(cudaMemcpy(c, counters, sizeof c, cudaMemcpyDeviceToHost));
  const uint32_t want_dbr = g::send_dbr_value(static_cast<uint32_t>(posted));
  if (c[0] == posted && c[1] == posted && c[2] == posted && dbr_word == want_dbr) return true;
  std::fprintf(stderr,
               "xshmem-perf: %s (%s), launch %u: reserved %" PRIu64 ", ready %" PRIu64
               ", published %" PRIu64 ", doorbell record 0x%08x; expected %" PRIu64
               " for each, 0x%08x\n",
               metric, note.c_str(), rep, c[0], c[1], c[2], dbr_word, posted, want_dbr);
  return false;
}

// Decodes every entry of the ring (a host copy) with the NIC model's decoder and compares it with
// what its poster wrote; false (after at most 3 lines and a count) when one differs.
bool check_ring(const char *metric, const std::string &note, unsigned rep,
                const std::vector<uint8_t> &ring, uint64_t posted, uint64_t seed) {
  const uint64_t quarter = kNbb / 4;
  uint64_t wrong = 0;
  for (uint64_t pos = 0; pos < posted; ++pos) {
    m::op_t op;
    m::fault_t f;
    std::string why;
    if (!m::decode(ring.data(), kNbb, static_cast<uint32_t>(pos), kQpn, &op, &f)) {
      why = std::string(f.field) + ": " + f.detail;
    } else {
      const uint64_t v = entry_value(pos, seed);
      // Every claim of a launch has the same size and the runs start at 0, so a claim's last
      // entry crosses a quarter of the ring exactly when it ends one.
      const bool signaled = (pos + 1) % quarter == 0;
      if (op.opcode != g::kOpRdmaWrite || !op.is_inline || op.length != 8)
        why = "not an 8-byte inline rdma write";
      else if (std::memcmp(op.inline_data, &v, 8) != 0)
        why = "inline data differ from the value its poster wrote";
      else if (op.raddr != kFakeBase + pos * 8 || op.rkey != kRKey)
        why = "remote address or key differ";
      else if (op.signaled() != signaled)
        why = signaled ? "asks for no CQE, the end of a quarter of the ring should"
                       : "asks for a CQE where no claim ends a quarter of the ring";
    }
    if (!why.empty() && wrong++ < 3)
      std::fprintf(stderr, "xshmem-perf: %s (%s), launch %u: entry at position %" PRIu64 ": %s\n",
                   metric, note.c_str(), rep, pos, why.c_str());
  }
  if (wrong != 0)
    std::fprintf(stderr,
                 "xshmem-perf: %s (%s), launch %u: %" PRIu64 " of %" PRIu64 " entries wrong\n",
                 metric, note.c_str(), rep, wrong, posted);
  return wrong == 0;
}

// One configuration of dev.gda_post.undrained (PE 0): one warm-up launch, then opt.reps timed
// ones, each posting one pass of the ring into a freshly reset queue. Fills `rates` (MWR/s).
bool undrained_case(Context &ctx, Run &run, Scope scope, const Grid &gr, void *ring,
                    uint64_t *counters, uint32_t *dbr, g::cqe_t *cq, std::vector<double> &rates) {
  const char *metric = "dev.gda_post.undrained";
  const std::string note = grid_note(scope, gr);
  const uint64_t posted = kNbb;
  const uint32_t iters = static_cast<uint32_t>(posted / (uint64_t(gr.blocks) * gr.threads));
  const g::sq_t q = make_sq(ring, counters, dbr, cq);
  const g::cqe_t init = invalid_cqe();
  std::vector<uint8_t> host(size_t{kNbb} * g::kWqeBB);
  for (unsigned rep = 0; rep <= ctx.opt.reps; ++rep) {  // rep 0: warm-up
    const uint64_t seed = (uint64_t{rep} << 40) ^ (uint64_t(scope) << 32) ^ uint64_t(gr.threads);
    PERF_CUDA(cudaMemsetAsync(ring, 0, host.size(), run.st));
    PERF_CUDA(cudaMemsetAsync(counters, 0, 3 * sizeof(uint64_t), run.st));
    PERF_CUDA(cudaMemsetAsync(dbr, 0, 2 * sizeof(uint32_t), run.st));
    PERF_CUDA(cudaMemcpyAsync(cq, &init, sizeof init, cudaMemcpyHostToDevice, run.st));
    run.reset();
    run.launch(scope, gr, q, iters, kFakeBase, seed, false, 0);
    if (!run.wait(metric, note)) xshmem_global_exit(1);  // a kernel still runs: stop the job
    if (!run.check_failure(metric, note, rep)) return false;
    const double s = run.elapsed_s();
    uint32_t dbr_word = 0;
    PERF_CUDA(cudaMemcpy(&dbr_word, dbr + g::kSendDbr, sizeof dbr_word, cudaMemcpyDeviceToHost));
    if (!check_counters(metric, note, rep, counters, dbr_word, posted)) return false;
    PERF_CUDA(cudaMemcpy(host.data(), ring, host.size(), cudaMemcpyDeviceToHost));
    if (!check_ring(metric, note, rep, host, posted, seed)) return false;
    if (rep > 0) rates.push_back(static_cast<double>(posted) / s / 1e6);
  }
  return true;
}

void gda_post_undrained(Context &ctx) {
  void *ring = nullptr;
  uint64_t *counters = nullptr;
  uint32_t *dbr = nullptr;
  g::cqe_t *cq = nullptr;
  Run *run = nullptr;
  if (ctx.me == 0) {
    PERF_CUDA(cudaMalloc(&ring, size_t{kNbb} * g::kWqeBB));
    PERF_CUDA(cudaMalloc(&counters, 3 * sizeof(uint64_t)));
    PERF_CUDA(cudaMalloc(&dbr, 2 * sizeof(uint32_t)));
    PERF_CUDA(cudaMalloc(&cq, sizeof(g::cqe_t)));
    run = new Run;
  }
  const std::string transport = ctx.transport;
  ctx.transport = kTransport;
  for (Scope scope : {kThread, kWarp, kBlock}) {
    for (const Grid &gr : kGrids) {
      std::vector<double> rates;
      bool ok = true;
      if (ctx.me == 0) ok = undrained_case(ctx, *run, scope, gr, ring, counters, dbr, cq, rates);
      ok = ctx.all_ok(ok);
      if (!ok && ctx.me == 0 && rates.empty()) rates.push_back(0);  // a FAILED row in the table
      ctx.record("dev.gda_post.undrained", 0, rates, "MWR/s", kNbb, ok,
                 grid_note(scope, gr) + ", " + std::to_string(kNbb) +
                     " entries/launch, queue in GPU memory, not consumed");
    }
  }
  ctx.transport = transport;
  if (ctx.me == 0) {
    delete run;
    cudaFree(cq);
    cudaFree(dbr);
    cudaFree(counters);
    cudaFree(ring);
  }
}

// ---- dev.gda_post.drained -----------------------------------------------------------------------

// Mapped pinned host memory: the host pointer and the device's.
template <typename T>
struct Mapped {
  T *h = nullptr, *d = nullptr;
  size_t bytes = 0;
  explicit Mapped(size_t count) : bytes(count * sizeof(T)) {
    void *p = nullptr;
    PERF_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
    h = static_cast<T *>(p);
    void *dp = nullptr;
    PERF_CUDA(cudaHostGetDevicePointer(&dp, p, 0));
    d = static_cast<T *>(dp);
  }
  ~Mapped() { cudaFreeHost(h); }
  Mapped(const Mapped &) = delete;
  Mapped &operator=(const Mapped &) = delete;
};

// The NIC model on a host thread: progress() with a synchronous wire whose far end executes each
// request against `rkeys` (one region: the target buffer), as tests/unit/test_gda_post.cc.
struct ModelNic {
  m::key_table lkeys, rkeys;
  m::queue_t q;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> consumed{0};
  std::atomic<bool> failed{false};  // q.error, as other threads may read it while this one runs
  std::thread th;

  static m::reply_t send(void *ctx, int, const m::request_t &rq) {
    return m::execute(static_cast<ModelNic *>(ctx)->rkeys, rq);
  }
  // A fresh queue over the ring, record and CQE, and the thread that drains it.
  void start(void *ring, const uint32_t *dbr, g::cqe_t *cq) {
    // The in-flight ring (kNbb entries) is kept from the last launch: issue() would allocate it
    // while the launch is timed.
    std::vector<m::inflight_t> inflight = std::move(q.inflight);
    q = m::queue_t{};
    q.inflight = std::move(inflight);
    q.sq = ring;
    q.nbb = kNbb;
    q.dbr = dbr + g::kSendDbr;
    q.cq = cq;
    q.ncqe = 1;  // collapsed
    q.qpn = kQpn;
    q.pe = 0;
    q.peer = 0;
    stop.store(false);
    consumed.store(0);
    failed.store(false);
    th = std::thread([this] {
      for (;;) {
        const uint32_t n = m::progress(q, lkeys, &ModelNic::send, this, 1u << 20);
        consumed.fetch_add(n, std::memory_order_release);
        if (q.error) {  // the CQE says so; the posters' waits fail
          failed.store(true, std::memory_order_release);
          break;
        }
        if (n == 0) {
          if (stop.load(std::memory_order_acquire)) break;
          std::this_thread::yield();
        }
      }
    });
  }
  void halt() {
    stop.store(true, std::memory_order_release);
    if (th.joinable()) th.join();
  }
  ~ModelNic() { halt(); }
};

// Waits until the model has consumed `n` entries (or stopped in error); false after
// kDrainDeadlineS.
bool wait_consumed(ModelNic &nic, uint64_t n) {
  const auto t0 = Clock::now();
  while (nic.consumed.load(std::memory_order_acquire) < n && seconds_since(t0) < kDrainDeadlineS) {
    if (nic.failed.load(std::memory_order_acquire)) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return nic.consumed.load(std::memory_order_acquire) >= n;
}

struct DrainedRig {
  Mapped<uint8_t> ring{size_t{kNbb} * g::kWqeBB};
  Mapped<uint32_t> dbr{2};
  Mapped<g::cqe_t> cq{1};
  uint64_t *counters = nullptr;  // GPU memory: reserved, ready, published, the CQ's mirror
  uint64_t *target = nullptr;    // pinned host: kDrainedEntries words, then kGuardWords of poison
  ModelNic nic;
  DrainedRig() {
    PERF_CUDA(cudaMalloc(&counters, (3 + g::kMirrorWords) * sizeof(uint64_t)));
    void *p = nullptr;
    PERF_CUDA(cudaMallocHost(&p, (kDrainedEntries + kGuardWords) * 8));
    target = static_cast<uint64_t *>(p);
    // Local buffers: every address, as ibgda.cc registers them (inline writes read none).
    nic.lkeys.add({kLKey, 0, UINT64_MAX, m::kAccessLocalWrite});
    nic.rkeys.add(
        {kRKey, reinterpret_cast<uint64_t>(target), kDrainedEntries * 8, m::kAccessRemoteWrite});
  }
  ~DrainedRig() {
    nic.halt();
    cudaFreeHost(target);
    cudaFree(counters);
  }
  DrainedRig(const DrainedRig &) = delete;
  DrainedRig &operator=(const DrainedRig &) = delete;
};

// Checks every target word and the guard after them; false (after at most 3 lines and a count).
bool check_target(const char *metric, const std::string &note, unsigned rep, const uint64_t *target,
                  uint64_t seed) {
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < kDrainedEntries; ++i) {
    const uint64_t want = entry_value(i, seed);
    if (target[i] != want && wrong++ < 3)
      std::fprintf(stderr,
                   "xshmem-perf: %s (%s), launch %u: target word %" PRIu64 " is 0x%016" PRIx64
                   ", expected 0x%016" PRIx64 "\n",
                   metric, note.c_str(), rep, i, target[i], want);
  }
  const uint8_t *guard = reinterpret_cast<const uint8_t *>(target + kDrainedEntries);
  for (size_t i = 0; i < kGuardWords * 8; ++i)
    if (guard[i] != kPoison) {
      std::fprintf(stderr, "xshmem-perf: %s (%s), launch %u: the guard after the target changed\n",
                   metric, note.c_str(), rep);
      ++wrong;
      break;
    }
  if (wrong != 0)
    std::fprintf(stderr, "xshmem-perf: %s (%s), launch %u: %" PRIu64 " wrong target words\n",
                 metric, note.c_str(), rep, wrong);
  return wrong == 0;
}

// One configuration of dev.gda_post.drained (PE 0): one warm-up launch, then opt.reps timed ones,
// each posting kDrainedEntries into a freshly reset queue that the model drains.
bool drained_case(Context &ctx, Run &run, DrainedRig &rig, Scope scope, const Grid &gr,
                  std::vector<double> &rates) {
  const char *metric = "dev.gda_post.drained";
  const std::string note = grid_note(scope, gr);
  const uint64_t posted = kDrainedEntries;
  const uint32_t iters = static_cast<uint32_t>(posted / (uint64_t(gr.blocks) * gr.threads));
  g::sq_t q = make_sq(rig.ring.d, rig.counters, rig.dbr.d, rig.cq.d);
  q.mirror = rig.counters + 3;  // the CQ is in host memory: one poller at a time, as ibgda.cc
  const uint64_t base = reinterpret_cast<uint64_t>(rig.target);
  for (unsigned rep = 0; rep <= ctx.opt.reps; ++rep) {  // rep 0: warm-up
    const uint64_t seed =
        (uint64_t{rep} << 40) ^ (uint64_t(scope) << 32) ^ uint64_t(gr.threads) ^ 0xD2A1ull;
    std::memset(rig.ring.h, 0, rig.ring.bytes);
    std::memset(rig.dbr.h, 0, rig.dbr.bytes);
    *rig.cq.h = invalid_cqe();
    std::memset(rig.target, kPoison, (kDrainedEntries + kGuardWords) * 8);
    PERF_CUDA(cudaMemsetAsync(rig.counters, 0, (3 + g::kMirrorWords) * sizeof(uint64_t), run.st));
    run.reset();
    rig.nic.start(rig.ring.h, rig.dbr.h, rig.cq.h);
    run.launch(scope, gr, q, iters, base, seed, true, posted - 1);
    if (!run.wait(metric, note)) {
      rig.nic.halt();
      xshmem_global_exit(1);  // a kernel still runs: stop the job
    }
    const double s = run.elapsed_s();
    const bool drained = wait_consumed(rig.nic, posted);
    rig.nic.halt();
    if (rig.nic.q.error) {
      std::fprintf(stderr, "xshmem-perf: %s (%s), launch %u: %s\n", metric, note.c_str(), rep,
                   rig.nic.q.error_line.c_str());
      run.check_failure(metric, note, rep);
      return false;
    }
    if (!run.check_failure(metric, note, rep)) return false;
    const uint64_t consumed = rig.nic.consumed.load();
    if (!drained || consumed != posted || rig.nic.q.consumer != static_cast<uint32_t>(posted)) {
      std::fprintf(stderr,
                   "xshmem-perf: %s (%s), launch %u: the model consumed %" PRIu64
                   " entries (consumer %u), %" PRIu64 " were posted\n",
                   metric, note.c_str(), rep, consumed, rig.nic.q.consumer, posted);
      return false;
    }
    const uint32_t dbr_word = __atomic_load_n(&rig.dbr.h[g::kSendDbr], __ATOMIC_ACQUIRE);
    if (!check_counters(metric, note, rep, rig.counters, dbr_word, posted)) return false;
    if (!check_target(metric, note, rep, rig.target, seed)) return false;
    if (rep > 0) rates.push_back(static_cast<double>(posted) / s / 1e6);
  }
  return true;
}

void gda_post_drained(Context &ctx) {
  DrainedRig *rig = nullptr;
  Run *run = nullptr;
  if (ctx.me == 0) {
    rig = new DrainedRig;
    run = new Run;
  }
  const std::string transport = ctx.transport;
  ctx.transport = kTransport;
  // The thread scope's largest grid last: 32768 threads each publishing its own entry in
  // position order is by far the slowest row (minutes on an H100), and a run cut short for time
  // should still have measured the others.
  std::vector<std::pair<Scope, Grid>> rows;
  for (Scope scope : {kThread, kWarp, kBlock})
    for (const Grid &gr : kGrids)
      if (scope != kThread || &gr != &kGrids[std::size(kGrids) - 1]) rows.push_back({scope, gr});
  rows.push_back({kThread, kGrids[std::size(kGrids) - 1]});
  for (const auto &[scope, gr] : rows) {
    {
      std::vector<double> rates;
      bool ok = true;
      if (ctx.me == 0) ok = drained_case(ctx, *run, *rig, scope, gr, rates);
      ok = ctx.all_ok(ok);
      if (!ok && ctx.me == 0 && rates.empty()) rates.push_back(0);  // a FAILED row in the table
      ctx.record("dev.gda_post.drained", 0, rates, "MWR/s", kDrainedEntries, ok,
                 grid_note(scope, gr) + ", " + std::to_string(kDrainedEntries) +
                     " entries/launch into " + std::to_string(kNbb) +
                     " WQEBBs in pinned host memory, NIC model on one host thread");
    }
  }
  ctx.transport = transport;
  delete run;
  delete rig;
}

const MetricDef kGdaMetrics[] = {
    {"dev.gda_post.undrained", "MWR/s", Where::kDevice, 1,
     "GPU posting rate of gda.h (8-byte inline writes; thread, warp, block scope) into a queue "
     "in GPU memory that nobody consumes: one pass of a 32768-WQEBB ring per launch (PE 0)",
     gda_post_undrained},
    {"dev.gda_post.drained", "MWR/s", Where::kDevice, 1,
     "the same into a queue in pinned host memory that the ibgda NIC model drains on a host "
     "thread: 2^18 entries per launch under flow control, until the last completes (PE 0)",
     gda_post_drained},
};

}  // namespace

std::vector<MetricDef> gda_metrics() {
  return {std::begin(kGdaMetrics), std::end(kGdaMetrics)};
}

}  // namespace xshmem::perf

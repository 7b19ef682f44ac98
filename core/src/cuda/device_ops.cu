// xshmem core: host API operations on GPU heaps, and the on-stream extensions (xshmemx.h).
//
// Copies go on the internal stream (or the caller's stream), in issue order, so fence needs
// nothing more and quiet is a stream synchronisation. Atomics, signals and world syncs are
// one-thread kernels that run the same path code GPU threads run, on device_state().
#define XSHMEM_NO_DEVICE_API 1  // this file is libxshmem: the C declarations, not the inline API
#include "device_ops.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include <xshmem/device/coll_reduce.h>  // collectives: reductions
#include <xshmem/device/coll_move.h>
#include <xshmem/device/coop.h>
#include <xshmem/device/path.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

#include "../checks.h"
#include "../log.h"
#include "../path_state.h"
#include "../runtime.h"

namespace xshmem::core::gpu {
namespace {

constexpr const char *kSubsys = "gpu";

// One host-initiated kernel with a result at a time (the result word is shared).
std::mutex g_result_mutex;

cudaStream_t internal() {
  return static_cast<cudaStream_t>(internal_stream());
}

[[noreturn]] void fail(const char *what, cudaError_t e) {
  // A kernel that trapped after a report in the device mailbox (a device check, a wait past
  // XSHMEM_WAIT_TIMEOUT) fails this call too: give the watchdog (10 ms period) the time to stop
  // the job with its precise line first.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  char msg[256];
  snprintf(msg, sizeof msg, "%s failed on pe %d (gpu %d): %s (%s); check the GPU and its driver",
           what, state().my_pe, cuda_device(), cudaGetErrorString(e), cudaGetErrorName(e));
  fatal(1, kSubsys, msg);
}

void check(const char *what, cudaError_t e) {
  if (e != cudaSuccess) fail(what, e);
}

const dev::state_t *dstate(const char *call) {
  const dev::state_t *ds = device_state();
  if (ds == nullptr) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: the GPU heap has no device state yet (pe %d)", call,
             state().my_pe);
    fatal(1, kSubsys, msg);
  }
  return ds;
}

template <typename U>
__device__ uint64_t run_amo(const dev::state_t &s, dev::amo_op op, U *dest, U value, U cond,
                            int pe) {
  switch (op) {
    case dev::amo_op::fetch:
      return dev::amo<dev::amo_op::fetch>(s, dest, value, cond, pe);
    case dev::amo_op::set:
      return dev::amo<dev::amo_op::set>(s, dest, value, cond, pe);
    case dev::amo_op::swap:
      return dev::amo<dev::amo_op::swap>(s, dest, value, cond, pe);
    case dev::amo_op::compare_swap:
      return dev::amo<dev::amo_op::compare_swap>(s, dest, value, cond, pe);
    case dev::amo_op::fetch_add:
      return dev::amo<dev::amo_op::fetch_add>(s, dest, value, cond, pe);
    case dev::amo_op::fetch_and:
      return dev::amo<dev::amo_op::fetch_and>(s, dest, value, cond, pe);
    case dev::amo_op::fetch_or:
      return dev::amo<dev::amo_op::fetch_or>(s, dest, value, cond, pe);
    case dev::amo_op::fetch_xor:
      return dev::amo<dev::amo_op::fetch_xor>(s, dest, value, cond, pe);
    case dev::amo_op::add:
      return dev::amo<dev::amo_op::add>(s, dest, value, cond, pe);
    case dev::amo_op::bit_and:
      return dev::amo<dev::amo_op::bit_and>(s, dest, value, cond, pe);
    case dev::amo_op::bit_or:
      return dev::amo<dev::amo_op::bit_or>(s, dest, value, cond, pe);
    case dev::amo_op::bit_xor:
      return dev::amo<dev::amo_op::bit_xor>(s, dest, value, cond, pe);
  }
  return 0;
}

// Every atomic type is 4 or 8 bytes: signed, unsigned and floating point share the bits (float
// atomics are fetch/set/swap/compare_swap, which the path code does on the bits anyway).
__global__ void amo_kernel(const dev::state_t *ds, dev::amo_op op, unsigned width, void *dest,
                           uint64_t value, uint64_t cond, int pe) {
  const dev::state_t &s = *ds;
  uint64_t old;
  if (width == 4) {
    old = run_amo<uint32_t>(s, op, static_cast<uint32_t *>(dest), static_cast<uint32_t>(value),
                            static_cast<uint32_t>(cond), pe);
  } else {
    old = run_amo<uint64_t>(s, op, static_cast<uint64_t *>(dest), value, cond, pe);
  }
  s.internal->host_result = old;
}

// The services table's heap_amo and heap_apply (services_v1.h): atomics on words of this PE's
// GPU heap, with the GPU's atomic instructions, for a transport's progress thread that executes
// peers' atomics. Old values go back into the entries (pinned host memory, mapped).
template <typename T>
__device__ uint64_t heap_amo_word(int op, T *p, T v, T cmp) {
  switch (op) {
    case XSHMEM_AMO_FETCH:
      return dev::lsa::fetch(p);
    case XSHMEM_AMO_SET:
      dev::lsa::set(p, v);
      return 0;
    case XSHMEM_AMO_SWAP:
      return dev::lsa::swap(p, v);
    case XSHMEM_AMO_COMPARE_SWAP:
      return dev::lsa::compare_swap(p, cmp, v);
    case XSHMEM_AMO_ADD:
    case XSHMEM_AMO_FETCH_ADD:
      return dev::lsa::fetch_add(p, v);
    case XSHMEM_AMO_AND:
    case XSHMEM_AMO_FETCH_AND:
      return dev::lsa::fetch_and(p, v);
    case XSHMEM_AMO_OR:
    case XSHMEM_AMO_FETCH_OR:
      return dev::lsa::fetch_or(p, v);
    default:
      return dev::lsa::fetch_xor(p, v);
  }
}

// Atomics per heap_amo kernel: one block, a thread per entry to move it.
constexpr unsigned kHeapAmoBatch = 256;

// The entries are read (and their old values written back) by a thread each, in parallel over
// the bus; one thread applies them in array order, so two on one word take effect in that order.
__global__ void heap_amo_kernel(xshmem_heap_op_v1_t *ops, unsigned n) {
  __shared__ xshmem_heap_op_v1_t e[kHeapAmoBatch];
  const unsigned t = threadIdx.x;
  if (t < n) e[t] = ops[t];
  __syncthreads();
  if (t == 0) {
    for (unsigned i = 0; i < n; ++i) {
      xshmem_heap_op_v1_t &a = e[i];
      a.old = a.width == 8 ? heap_amo_word<uint64_t>(a.op, static_cast<uint64_t *>(a.addr),
                                                     a.operand, a.compare)
                           : heap_amo_word<uint32_t>(a.op, static_cast<uint32_t *>(a.addr),
                                                     static_cast<uint32_t>(a.operand),
                                                     static_cast<uint32_t>(a.compare));
    }
  }
  __syncthreads();
  if (t < n) ops[t].old = e[t].old;
}

__global__ void signal_kernel(const dev::state_t *ds, uint64_t *sig_addr, uint64_t signal,
                              int sig_op, int pe) {
  dev::signal_op(*ds, sig_addr, signal, sig_op, pe);
}

// The on-stream transfers to a peer this process has no mapping of (PROXY): one GPU thread runs
// the dispatcher's blocking form, so the path code (the proxy engine's rings) moves the data and
// the stream goes on once the source may be reused (put) or the data is there (get).
__global__ void rma_kernel(const dev::state_t *ds, bool put, void *dest, const void *source,
                           size_t n, int pe) {
  if (put) {
    dev::putmem_path<dev::thread_group>(*ds, dev::kCtxDefault, dest, source, n, pe, false);
  } else {
    dev::getmem_path<dev::thread_group>(*ds, dev::kCtxDefault, dest, source, n, pe, false);
  }
}
__global__ void put_signal_kernel(const dev::state_t *ds, void *dest, const void *source, size_t n,
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  dev::putmem_signal_path<dev::thread_group>(*ds, dev::kCtxDefault, dest, source, n, sig_addr,
                                             signal, sig_op, pe, false);
}
// quiet_on_stream: completes the operations of the stream's earlier kernels on every path (the
// memory fence for LSA, the rings' completion counters for PROXY).
__global__ void quiet_kernel(const dev::state_t *ds) {
  dev::quiet(*ds);
}

__global__ void sync_kernel(const dev::state_t *ds, bool barrier) {
  if (barrier) {
    dev::barrier_all(*ds);
  } else {
    dev::sync_all(*ds);
  }
}

__global__ void team_kernel(const dev::state_t *ds, int team, int kind, uint64_t value, int op) {
  const dev::team_t t = dev::team_of(*ds, team);
  if (kind == 0) {
    dev::team_sync(*ds, t);
  } else if (kind == 1) {
    dev::team_barrier(*ds, t);
  } else {
    ds->internal->host_result = dev::team_allreduce_word(*ds, t, value, op);
  }
}

// The element of 16-byte alltoalls (long double on the host side).
struct alignas(16) coll_bits128_t {
  unsigned char b[16];
};

// One block runs a data-movement collective for the host API (kCollMoveThreads threads).
__global__ void coll_move_kernel(const dev::state_t *ds, int op, int team, void *dest,
                                 const void *source, size_t nbytes, unsigned elem, ptrdiff_t dst,
                                 ptrdiff_t sst, int root, int *result) {
  const dev::state_t &s = *ds;
  const dev::team_t t = dev::team_of(s, team);
  using G = dev::block_group;
  int rc = -1;
  switch (op) {
    case dev::kCollBroadcast:
      rc = dev::broadcastmem<G>(s, t, dest, source, nbytes, root);
      break;
    case dev::kCollCollect:
      rc = dev::collectmem<G>(s, t, dest, source, nbytes);
      break;
    case dev::kCollFcollect:
      rc = dev::fcollectmem<G>(s, t, dest, source, nbytes);
      break;
    case dev::kCollAlltoall:
      rc = dev::alltoallmem<G>(s, t, dest, source, nbytes);
      break;
    case dev::kCollAlltoalls: {
      const size_t n = elem != 0 ? nbytes / elem : 0;
      switch (elem) {
        case 1:
          rc = dev::alltoalls<G>(s, t, static_cast<uint8_t *>(dest),
                                 static_cast<const uint8_t *>(source), dst, sst, n);
          break;
        case 2:
          rc = dev::alltoalls<G>(s, t, static_cast<uint16_t *>(dest),
                                 static_cast<const uint16_t *>(source), dst, sst, n);
          break;
        case 4:
          rc = dev::alltoalls<G>(s, t, static_cast<uint32_t *>(dest),
                                 static_cast<const uint32_t *>(source), dst, sst, n);
          break;
        case 8:
          rc = dev::alltoalls<G>(s, t, static_cast<uint64_t *>(dest),
                                 static_cast<const uint64_t *>(source), dst, sst, n);
          break;
        default:
          rc = dev::alltoalls<G>(s, t, static_cast<coll_bits128_t *>(dest),
                                 static_cast<const coll_bits128_t *>(source), dst, sst, n);
          break;
      }
      break;
    }
    default:
      break;
  }
  if (threadIdx.x == 0) *result = rc;
}
constexpr unsigned kCollMoveThreads = 256;

constexpr unsigned kReduceThreads = 256;
// Reductions of at least this many bytes that take rsag run on a grid of up to this many blocks.
constexpr size_t kReduceGridMinBytes = size_t{1} << 20;
constexpr size_t kReduceGridBlocks = 132;
// One block runs a reduction for the host API (sizes the direct algorithm takes, and scans).
__global__ void reduce_kernel(const dev::state_t *ds, int team, int op, int dtype, void *dest,
                              const void *source, size_t n) {
  dev::red::kind kd{};
  int rc = -1;
  if (dev::reduce_kind_of(op, dtype, &kd))
    rc = dev::team_reduce_kind<dev::block_group>(*ds, dev::team_of(*ds, team), kd, dest, source, n);
  if (threadIdx.x == 0) ds->internal->host_result = static_cast<uint64_t>(static_cast<int64_t>(rc));
}
// Large reductions on GPU heaps: rsag's two phases, each by a whole grid, with the team syncs
// between them as one-thread kernels on the same stream (stream order is the grid-wide barrier).
__global__ void reduce_phase_kernel(const dev::state_t *ds, int team, int op, int dtype, void *dest,
                                    const void *source, size_t n, int phase) {
  dev::red::kind kd{};
  if (!dev::reduce_kind_of(op, dtype, &kd)) return;
  const dev::team_t t = dev::team_of(*ds, team);
  if (phase == 0) {
    dev::red::rsag_reduce_phase<dev::grid_group>(*ds, t, kd, dest, source, n);
  } else {
    dev::red::rsag_gather_phase<dev::grid_group>(*ds, t, kd, dest, n);
  }
}

void launched(const char *what) {
  check(what, cudaGetLastError());
}

void sync(cudaStream_t stream, const char *what) {
  check(what, cudaStreamSynchronize(stream));
}

void enqueue_put_signal(cudaStream_t stream, void *dest, const void *source, size_t n,
                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  if (!dev::peer_mapped(state(), pe)) {  // PROXY: the path code, from a GPU thread
    put_signal_kernel<<<1, 1, 0, stream>>>(dstate("put_signal"), dest, source, n, sig_addr, signal,
                                           sig_op, pe);
    launched("put_signal kernel launch");
    return;
  }
  if (n != 0) {
    check("cudaMemcpyAsync (put_signal data)",
          cudaMemcpyAsync(peer_addr(dest, pe), source, n, cudaMemcpyDefault, stream));
  }
  // The kernel starts after the copy has completed (stream order); it fences, then signals.
  signal_kernel<<<1, 1, 0, stream>>>(dstate("put_signal"), sig_addr, signal, sig_op, pe);
  launched("signal kernel launch");
}

}  // namespace

void *peer_addr(const void *sym, int pe) {
  const dev::state_t &s = state();
  if (!dev::peer_mapped(s, pe)) dev::unreachable_path(s, pe);
  return dev::lsa_addr(s, const_cast<void *>(sym), pe);
}

void copy(void *dst, const void *src, size_t n, bool blocking) {
  if (n == 0) return;
  check("cudaMemcpyAsync", cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, internal()));
  if (blocking) sync(internal(), "cudaStreamSynchronize after a copy");
}

void copy_strided(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                  size_t count, bool blocking) {
  if (count == 0) return;
  check("cudaMemcpy2DAsync",
        cudaMemcpy2DAsync(dst, dpitch, src, spitch, elem, count, cudaMemcpyDefault, internal()));
  if (blocking) sync(internal(), "cudaStreamSynchronize after a strided copy");
}

uint64_t amo(dev::amo_op op, size_t width, void *dest, uint64_t value, uint64_t cond, int pe) {
  std::lock_guard<std::mutex> lock(g_result_mutex);
  const dev::state_t *ds = dstate("atomic");
  amo_kernel<<<1, 1, 0, internal()>>>(ds, op, static_cast<unsigned>(width), dest, value, cond, pe);
  launched("atomic kernel launch");
  uint64_t old = 0;
  check("cudaMemcpyAsync (atomic result)",
        cudaMemcpyAsync(&old, &state().internal->host_result, sizeof old, cudaMemcpyDeviceToHost,
                        internal()));
  sync(internal(), "atomic kernel");
  return width == 4 ? static_cast<uint32_t>(old) : old;
}

void put_signal(void *dest, const void *source, size_t n, uint64_t *sig_addr, uint64_t signal,
                int sig_op, int pe, bool blocking) {
  enqueue_put_signal(internal(), dest, source, n, sig_addr, signal, sig_op, pe);
  if (blocking) sync(internal(), "put_signal");
}

namespace {
uint64_t amo_by_code(int op, size_t width, void *dest, uint64_t value, uint64_t cond, int pe) {
  return amo(static_cast<dev::amo_op>(op), width, dest, value, cond, pe);
}
constexpr dev::host_ce_ops_t kHostCeOps{copy, copy_strided, amo_by_code, put_signal, quiet};
}  // namespace

const dev::host_ce_ops_t *host_ce_ops() {
  return &kHostCeOps;
}

void read_local(void *host_dst, const void *sym, size_t n) {
  check("cudaMemcpyAsync (read)",
        cudaMemcpyAsync(host_dst, sym, n, cudaMemcpyDeviceToHost, internal()));
  sync(internal(), "read of the GPU heap");
}

void quiet() {
  sync(internal(), "quiet (internal stream)");
}

void world_sync(bool barrier) {
  sync_kernel<<<1, 1, 0, internal()>>>(dstate("world sync"), barrier);
  launched("sync kernel launch");
  sync(internal(), "world sync kernel");
}

uint64_t team_op(int team, int kind, uint64_t value, int op) {
  team_kernel<<<1, 1, 0, internal()>>>(dstate("team operation"), team, kind, value, op);
  launched("team kernel launch");
  sync(internal(), "team kernel");
  uint64_t result = 0;
  if (kind == 2) read_local(&result, &state().internal->host_result, sizeof result);
  return result;
}

int coll_move(int op, int team, void *dest, const void *source, size_t nbytes, size_t elem,
              ptrdiff_t dst, ptrdiff_t sst, int root) {
  // The result goes through the heap's host_result word (one host kernel with a result at a
  // time).
  std::lock_guard<std::mutex> lock(g_result_mutex);
  int *result = reinterpret_cast<int *>(&state().internal->host_result);
  coll_move_kernel<<<1, kCollMoveThreads, 0, internal()>>>(
      dstate("collective"), op, team, dest, source, nbytes, static_cast<unsigned>(elem), dst, sst,
      root, result);
  launched("collective kernel launch");
  int rc = -1;
  check("cudaMemcpyAsync (collective result)",
        cudaMemcpyAsync(&rc, result, sizeof rc, cudaMemcpyDeviceToHost, internal()));
  sync(internal(), "collective kernel");
  return rc;
}

int reduce(int team, int op, int dtype, void *dest, const void *source, size_t n,
           void *user_stream) {
  cudaStream_t st = user_stream ? static_cast<cudaStream_t>(user_stream) : internal();
  // The kernels' view (LSA codes, not the host's HOST_CE): the choice below predicts theirs.
  const dev::state_t &hs = device_view();
  const dev::team_t t = dev::team_of(hs, team);
  dev::red::kind kd{};
  if (!dev::reduce_kind_of(op, dtype, &kd)) return -1;
  const size_t bytes = n * kd.esize;
  const bool scan = op == dev::kScanIn || op == dev::kScanEx;
  if (t.size > 1 && !scan && bytes >= kReduceGridMinBytes &&
      !dev::red::use_direct(hs, t, n, kd.esize)) {
    const dev::state_t *ds = dstate("reduction");
    // Units of 16 bytes, kUnroll per thread per pass, spread over at most kReduceGridBlocks.
    const size_t per_block = size_t{kReduceThreads} * dev::red::kUnroll * 16;
    const size_t want = (bytes / static_cast<size_t>(t.size) + per_block - 1) / per_block;
    const unsigned blocks =
        static_cast<unsigned>(want < kReduceGridBlocks ? (want ? want : 1) : kReduceGridBlocks);
    for (int phase = 0; phase < 2; ++phase) {
      team_kernel<<<1, 1, 0, st>>>(ds, team, 0, 0, 0);
      launched("team sync kernel launch (reduction)");
      reduce_phase_kernel<<<blocks, kReduceThreads, 0, st>>>(ds, team, op, dtype, dest, source, n,
                                                             phase);
      launched("reduction kernel launch");
    }
    team_kernel<<<1, 1, 0, st>>>(ds, team, 0, 0, 0);
    launched("team sync kernel launch (reduction)");
    if (user_stream == nullptr) sync(st, "reduction kernels");
    return 0;
  }
  if (user_stream != nullptr) {
    reduce_kernel<<<1, kReduceThreads, 0, st>>>(dstate("reduction"), team, op, dtype, dest, source,
                                                n);
    launched("reduction kernel launch");
    return 0;
  }
  std::lock_guard<std::mutex> lock(g_result_mutex);
  reduce_kernel<<<1, kReduceThreads, 0, st>>>(dstate("reduction"), team, op, dtype, dest, source,
                                              n);
  launched("reduction kernel launch");
  uint64_t rc = 0;
  read_local(&rc, &state().internal->host_result, sizeof rc);
  return static_cast<int>(static_cast<int64_t>(rc));
}

namespace {
// heap_apply's own stream and entry buffer: not the internal stream, which the host API's kernels
// (a barrier waiting for this very atomic) may hold.
struct HeapApply {
  std::mutex mu;
  cudaStream_t stream = nullptr;
  xshmem_heap_op_v1_t *slots = nullptr;  // pinned, mapped: the atomics of one wait
};
HeapApply g_heap;
// Atomics per wait (the kernels of one wait read their entries from the pinned slots).
constexpr unsigned kHeapSlots = 1024;
// How long heap_apply waits before it stops the job (XSHMEM_WAIT_TIMEOUT when longer): a
// one-block kernel takes microseconds, a time slice of another process milliseconds.
constexpr uint64_t kHeapDeadlineNs = 30ull * 1000 * 1000 * 1000;

// Why heap_apply refuses `a`, or NULL.
const char *heap_op_refusal(const dev::state_t &s, const xshmem_heap_op_v1_t &a) {
  if (!heap_on_device()) return "this PE's heap is not GPU memory";
  if (a.kind == XSHMEM_HEAP_OP_COPY) {
    return a.operand == 0 || dev::in_heap(s, a.addr, a.operand) || dev::in_heap(s, a.src, a.operand)
               ? nullptr
               : "neither side of the copy lies in this PE's heap";
  }
  return a.kind != XSHMEM_HEAP_OP_AMO                             ? "kind is not AMO or COPY"
         : a.width != 4 && a.width != 8                           ? "width is not 4 or 8"
         : a.op < XSHMEM_AMO_FETCH || a.op > XSHMEM_AMO_FETCH_XOR ? "op is not an xshmem_amo_op_t"
         : !dev::in_heap(s, a.addr, a.width)                      ? "addr is outside this PE's heap"
         : reinterpret_cast<uintptr_t>(a.addr) % a.width != 0     ? "addr is not aligned to width"
                                                                  : nullptr;
}

void log_refusal(const dev::state_t &s, const xshmem_heap_op_v1_t &a, const char *why) {
  if (a.kind == XSHMEM_HEAP_OP_COPY)
    XLOG_ERROR(kSubsys,
               "heap_apply: a copy from pe %d on pe %d refused: %s (dst %p, src %p, %llu "
               "bytes)",
               a.src_pe, s.my_pe, why, a.addr, a.src, static_cast<unsigned long long>(a.operand));
  else
    XLOG_ERROR(kSubsys,
               "heap_amo: an atomic from pe %d on pe %d refused: %s (addr %p, width %u, op %d)",
               a.src_pe, s.my_pe, why, a.addr, a.width, a.op);
}

// XSHMEM_ERR_IO while the process exits (static destructors unload the runtime while a progress
// thread still serves): an I/O error for the caller, not a job-wide stop with a misleading line.
xshmem_status_t heap_check(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return XSHMEM_SUCCESS;
  if (e == cudaErrorCudartUnloading) return XSHMEM_ERR_IO;
  fail(what, e);
}

// Launches the atomics g_heap.slots[from, to) as one kernel per kHeapAmoBatch.
xshmem_status_t heap_launch(unsigned from, unsigned to) {
  for (unsigned k = from; k < to; k += kHeapAmoBatch) {
    heap_amo_kernel<<<1, kHeapAmoBatch, 0, g_heap.stream>>>(g_heap.slots + k,
                                                            std::min(to - k, kHeapAmoBatch));
    if (xshmem_status_t st = heap_check(cudaGetLastError(), "transport atomic kernel launch"))
      return st;
  }
  return XSHMEM_SUCCESS;
}

// Waits for g_heap.stream; stops the job past the deadline (`n` operations, the first from
// `first_pe`, were issued).
xshmem_status_t heap_wait(const dev::state_t &s, size_t n, int first_pe) {
  const uint64_t limit = std::max<uint64_t>(kHeapDeadlineNs, s.wait_timeout_ns);
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 0;; ++spins) {
    const cudaError_t e = cudaStreamQuery(g_heap.stream);
    if (e == cudaSuccess) return XSHMEM_SUCCESS;
    if (e != cudaErrorNotReady) return heap_check(e, "transport heap operations");
    if (spins < 256) continue;
    const auto waited = std::chrono::steady_clock::now() - start;
    if (static_cast<uint64_t>(std::chrono::nanoseconds(waited).count()) > limit) {
      char msg[360];
      snprintf(msg, sizeof msg,
               "heap_apply: %zu operation%s of peers (the first from pe %d) on pe %d's GPU heap "
               "have not run in %.0f s: kernels of pe %d hold every SM of gpu %d (does one wait "
               "for them?)",
               n, n == 1 ? "" : "s", first_pe, s.my_pe, limit / 1e9, s.my_pe, cuda_device());
      fatal(1, kSubsys, msg);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(spins < 4096 ? 1 : 50));
  }
}
}  // namespace

Status heap_amo_open() {
  std::lock_guard<std::mutex> lock(g_heap.mu);
  if (g_heap.stream != nullptr) return XSHMEM_SUCCESS;
  if (cudaError_t e = cudaStreamCreateWithFlags(&g_heap.stream, cudaStreamNonBlocking);
      e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "cannot create the stream of the transports' heap operations: %s (%s)",
               cudaGetErrorString(e), cudaGetErrorName(e));
    g_heap.stream = nullptr;
    return XSHMEM_ERR_IO;
  }
  void *h = nullptr;
  if (cudaError_t e = cudaHostAlloc(&h, kHeapSlots * sizeof(xshmem_heap_op_v1_t),
                                    cudaHostAllocMapped | cudaHostAllocPortable);
      e != cudaSuccess) {
    XLOG_ERROR(kSubsys, "cannot allocate the entries of the transports' atomics: %s (%s)",
               cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaStreamDestroy(g_heap.stream);
    g_heap.stream = nullptr;
    return XSHMEM_ERR_NOMEM;
  }
  g_heap.slots = static_cast<xshmem_heap_op_v1_t *>(h);
  return XSHMEM_SUCCESS;
}

void heap_amo_close() {
  std::lock_guard<std::mutex> lock(g_heap.mu);
  if (g_heap.stream != nullptr) {
    (void)cudaStreamSynchronize(g_heap.stream);
    (void)cudaStreamDestroy(g_heap.stream);
  }
  if (g_heap.slots != nullptr) (void)cudaFreeHost(g_heap.slots);
  g_heap.stream = nullptr;
  g_heap.slots = nullptr;
}

xshmem_status_t heap_apply(xshmem_heap_op_v1_t *ops, size_t n) {
  const dev::state_t &s = state();
  xshmem_status_t first = XSHMEM_SUCCESS;
  std::lock_guard<std::mutex> lock(g_heap.mu);
  thread_local int bound = -1;
  if (g_heap.stream != nullptr && bound != cuda_device()) {
    check("cudaSetDevice (transport heap operations)", cudaSetDevice(cuda_device()));
    bound = cuda_device();
  }
  static unsigned idx[kHeapSlots];  // slot -> entry (under the mutex)
  for (size_t i = 0; i < n;) {
    // One wait's worth: up to kHeapSlots atomics and any copies between them, in array order on
    // the one stream (a run of atomics is a kernel, a copy a stream copy).
    const size_t window = i;
    unsigned used = 0, run = 0;
    size_t issued = 0;
    int first_pe = -1;
    xshmem_status_t st = XSHMEM_SUCCESS;
    for (; i < n && st == XSHMEM_SUCCESS; ++i) {
      xshmem_heap_op_v1_t &a = ops[i];
      const char *why = heap_op_refusal(s, a);
      if (why == nullptr && g_heap.stream == nullptr) why = "the service is closed";
      if (why != nullptr) {
        log_refusal(s, a, why);
        a.status = XSHMEM_ERR_INVALID;
        if (first == XSHMEM_SUCCESS) first = XSHMEM_ERR_INVALID;
        continue;
      }
      if (a.kind == XSHMEM_HEAP_OP_AMO && used == kHeapSlots) break;  // full: wait first
      a.status = XSHMEM_SUCCESS;  // until the wait says otherwise
      if (first_pe < 0) first_pe = a.src_pe;
      ++issued;
      if (a.kind == XSHMEM_HEAP_OP_COPY) {
        if ((st = heap_launch(run, used)) != XSHMEM_SUCCESS) break;
        run = used;
        if (a.operand != 0)
          st = heap_check(
              cudaMemcpyAsync(a.addr, a.src, a.operand, cudaMemcpyDefault, g_heap.stream),
              "transport heap copy");
        continue;
      }
      g_heap.slots[used] = a;
      idx[used++] = static_cast<unsigned>(i);
    }
    if (st == XSHMEM_SUCCESS) st = heap_launch(run, used);
    if (st == XSHMEM_SUCCESS && issued != 0) st = heap_wait(s, issued, first_pe);
    if (st != XSHMEM_SUCCESS) {  // exiting: nothing of this window is known to be applied
      for (size_t j = window; j < n; ++j)
        if (j >= i || ops[j].status == XSHMEM_SUCCESS) ops[j].status = st;
      return st;
    }
    const volatile xshmem_heap_op_v1_t *done = g_heap.slots;
    for (unsigned j = 0; j < used; ++j) ops[idx[j]].old = done[j].old;
  }
  return first;
}

int load_kernels(const char **failed) {
  // cudaFuncGetAttributes loads the kernel (the documented way to preload under lazy loading).
  struct {
    const void *fn;
    const char *name;
  } const kernels[] = {
      {reinterpret_cast<const void *>(&amo_kernel), "amo_kernel"},
      {reinterpret_cast<const void *>(&signal_kernel), "signal_kernel"},
      {reinterpret_cast<const void *>(&quiet_kernel), "quiet_kernel"},
      {reinterpret_cast<const void *>(&rma_kernel), "rma_kernel"},
      {reinterpret_cast<const void *>(&put_signal_kernel), "put_signal_kernel"},
      {reinterpret_cast<const void *>(&sync_kernel), "sync_kernel"},
      {reinterpret_cast<const void *>(&team_kernel), "team_kernel"},
      {reinterpret_cast<const void *>(&reduce_kernel), "reduce_kernel"},
      {reinterpret_cast<const void *>(&reduce_phase_kernel), "reduce_phase_kernel"},
      {reinterpret_cast<const void *>(&coll_move_kernel), "coll_move_kernel"},
      {reinterpret_cast<const void *>(&heap_amo_kernel), "heap_amo_kernel"},
  };
  for (const auto &k : kernels) {
    cudaFuncAttributes attr{};
    if (cudaError_t e = cudaFuncGetAttributes(&attr, k.fn); e != cudaSuccess) {
      (void)cudaGetLastError();
      if (failed) *failed = k.name;
      return static_cast<int>(e);
    }
  }
  return 0;
}

bool state_image(dev::state_t *out) {
  const dev::state_t *ds = device_state();
  if (ds == nullptr) return false;
  check("cudaMemcpy (device state)", cudaMemcpy(out, ds, sizeof *out, cudaMemcpyDeviceToHost));
  return true;
}

}  // namespace xshmem::core::gpu

namespace xc = xshmem::core;

namespace {

// The checks every on-stream transfer makes; false when the heap is not on the GPU (then the
// call is an error: streams carry GPU work only).
void check_stream_call(const char *call) {
  xc::check_init(call);
  if (!xc::heap_on_device()) {
    xc::check_fail(call, "needs a GPU heap, and this PE's heap is in host memory (XSHMEM_HEAP)");
  }
}

void check_transfer(const char *call, const char *sym_arg, const void *sym, const char *local_arg,
                    const void *local, size_t nbytes, int pe) {
  check_stream_call(call);
  if (!xc::checks_enabled()) return;
  xc::check_pe(call, pe);
  xc::check_symmetric(call, sym_arg, sym, nbytes);
  xc::check_buffer(call, local_arg, local, nbytes);
}

// A checked on-stream put or get: a copy on the stream to a mapped peer, else a one-thread kernel
// on the stream that runs the dispatcher (the proxy engine's rings move the data).
void rma_on_stream(const char *call, bool put, void *dest, const void *source, size_t nbytes,
                   int pe, cudaStream_t stream) {
  if (nbytes == 0) return;
  if (!xshmem::dev::peer_mapped(xc::state(), pe)) {
    xc::gpu::rma_kernel<<<1, 1, 0, stream>>>(xc::gpu::dstate(call), put, dest, source, nbytes, pe);
    xc::gpu::launched(call);
    return;
  }
  void *to = put ? xc::gpu::peer_addr(dest, pe) : dest;
  const void *from = put ? source : xc::gpu::peer_addr(source, pe);
  xc::gpu::check(call, cudaMemcpyAsync(to, from, nbytes, cudaMemcpyDefault, stream));
}

}  // namespace

extern "C" {

void xshmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                              struct CUstream_st *stream) {
  const char *call = "xshmemx_putmem_on_stream";
  check_transfer(call, "dest", dest, "source", source, nbytes, pe);
  rma_on_stream(call, true, dest, source, nbytes, pe, stream);
}

void xshmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                              struct CUstream_st *stream) {
  const char *call = "xshmemx_getmem_on_stream";
  check_transfer(call, "source", source, "dest", dest, nbytes, pe);
  rma_on_stream(call, false, dest, source, nbytes, pe, stream);
}

void xshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                     struct CUstream_st *stream) {
  const char *call = "xshmemx_putmem_signal_on_stream";
  check_transfer(call, "dest", dest, "source", source, nbytes, pe);
  if (xc::checks_enabled()) {
    xc::check_symmetric(call, "sig_addr", sig_addr, sizeof(uint64_t));
    xc::check_aligned(call, "sig_addr", sig_addr, sizeof(uint64_t));
    xc::check_sig_op(call, sig_op);
  }
  xc::gpu::enqueue_put_signal(stream, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}

void xshmemx_quiet_on_stream(struct CUstream_st *stream) {
  const char *call = "xshmemx_quiet_on_stream";
  check_stream_call(call);
  // Copies on the stream complete in order; this orders and completes the stores of kernels
  // earlier in the stream at system scope, and their PROXY operations, before anything later.
  xc::gpu::quiet_kernel<<<1, 1, 0, stream>>>(xc::gpu::dstate(call));
  xc::gpu::launched(call);
}

void xshmemx_barrier_all_on_stream(struct CUstream_st *stream) {
  const char *call = "xshmemx_barrier_all_on_stream";
  check_stream_call(call);
  xc::gpu::sync_kernel<<<1, 1, 0, stream>>>(xc::gpu::dstate(call), true);
  xc::gpu::launched(call);
}

void xshmemx_sync_all_on_stream(struct CUstream_st *stream) {
  const char *call = "xshmemx_sync_all_on_stream";
  check_stream_call(call);
  xc::gpu::sync_kernel<<<1, 1, 0, stream>>>(xc::gpu::dstate(call), false);
  xc::gpu::launched(call);
}

void xshmemx_team_sync_on_stream(xshmem_team_t team, struct CUstream_st *stream) {
  const char *call = "xshmemx_team_sync_on_stream";
  check_stream_call(call);
  if (!xshmem::dev::team_member(xshmem::dev::team_of(xc::state(), team))) {
    xc::check_fail(call,
                   "team %d is not a team of this pe (destroyed, invalid, or this pe is not "
                   "a member)",
                   static_cast<int>(team));
  }
  xc::gpu::team_kernel<<<1, 1, 0, stream>>>(xc::gpu::dstate(call), team, 0, 0, 0);
  xc::gpu::launched(call);
}

}  // extern "C"

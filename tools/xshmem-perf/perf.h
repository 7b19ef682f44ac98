// xshmem-perf: the metric table and the context every metric function runs in.
//
// A metric is a function that every PE calls at the same point of the program (lockstep): it
// synchronises with barriers, lets the PEs that take part do the work, verifies the data that
// moved, and records samples on PE 0. Metrics are grouped in tables by where they run (host
// API, perf_host.cc; device kernels, perf_device.cu, metrics named "dev.<name>") and named as in
// shared/bench/BASELINE.md wherever a reference figure exists.
//
// This header is also compiled by nvcc as C++17 (perf_device.cu): what needs C++20 is guarded.
#ifndef XSHMEM_TOOLS_PERF_PERF_H
#define XSHMEM_TOOLS_PERF_PERF_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__CUDACC__)
// A CUDA runtime call of a metric (perf_device.cu, perf_gda.cu): a failure stops the job with a
// line naming the call and where.
#define PERF_CUDA(call)                                                                      \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "xshmem-perf: %s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(e_));                                                  \
      xshmem_global_exit(1);                                                                 \
    }                                                                                        \
  } while (0)
#endif

namespace xshmem::perf {

struct Options {
  std::vector<std::string> metrics;  // empty: all
  size_t min_size = 8;
  size_t max_size = size_t{64} << 20;
  unsigned size_step = 2;   // sizes go min, min*step, ... up to max (max always included)
  unsigned iters = 1000;    // timed iterations per repetition of latency metrics
  unsigned reps = 5;        // repetitions; the median is reported
  double min_time_s = 0.1;  // bandwidth metrics time at least this long per repetition
  std::string csv_path;
  std::string json_path;
  bool progress = false;  // PE 0 prints each row to stderr as it is recorded
};

// One reported figure. `size` is 0 for metrics without a size.
struct Sample {
  std::string metric;
  size_t size = 0;
  double median = 0, min = 0, max = 0;
  std::string unit;
  uint64_t iters = 0;  // timed operations per repetition
  unsigned reps = 0;
  bool verified = true;  // the data moved by the last transfer was checked at the receiver
  std::string note;
  std::string transport;       // what the metric ran on (Context::transport when recorded)
  std::vector<double> values;  // the per-repetition values, in order
};

class Context {
 public:
  Context(const Options &options, int my_pe, int n_pes) : opt(options), me(my_pe), npes(n_pes) {}

  const Options &opt;
  const int me;
  const int npes;
  // The transport PE 0 reaches PE 1 with; record() stamps it on each sample (a metric that runs
  // on something else, a raw libfabric endpoint or a local memcpy, sets it around its records).
  std::string transport;

  // Sizes of the bandwidth sweeps, from opt.
  std::vector<size_t> sizes() const;
  // Records a sample whose values are the median, min and max of `per_rep` (PE 0 keeps it).
  void record(const std::string &metric, size_t size, std::vector<double> per_rep,
              const std::string &unit, uint64_t iters, bool verified, std::string note = {});
  void record_value(const std::string &metric, size_t size, double value, const std::string &unit,
                    bool verified = true, std::string note = {});
  // Every PE's `local_ok`, combined over the out-of-band bootstrap (works even when the data path
  // under test is broken). Collective.
  bool all_ok(bool local_ok);
  // The samples recorded so far (only PE 0 keeps them).
  const std::vector<Sample> &samples() const { return samples_; }
  // The per-repetition values of sample `index` of samples() (PE 0).
  const std::vector<double> &per_rep(size_t index) const { return samples_[index].values; }
  // Whether any recorded sample failed verification.
  bool any_failure() const { return failures_ > 0; }

 private:
  std::vector<Sample> samples_;
  int failures_ = 0;
};

using MetricFn = void (*)(Context &ctx);

enum class Where { kHost, kDevice };

struct MetricDef {
  const char *name;  // as printed, and as in BASELINE.md
  const char *unit;
  Where where;
  int min_pes;  // the metric is skipped (with a note) below this PE count
  const char *doc;
  MetricFn fn;  // nullptr: measured or derived by the driver (init_ms, finalize_ms, ratios)
  // Whether fn dereferences symmetric memory from the CPU (host metrics only): such metrics are
  // skipped when the heap is in GPU memory.
  bool host_touches_heap = true;
};

// The host-API metrics (perf_host.cc), in the order they run.
std::vector<MetricDef> host_metrics();

#ifdef XSHMEM_PERF_LIBFABRIC
// Raw libfabric next to the proxy path (perf_fabric.cc, builds with libfabric only).
std::vector<MetricDef> fabric_metrics();
#endif

#ifdef XSHMEM_PERF_DEVICE
// The device-kernel metrics (perf_device.cu, CUDA builds only), in the order they run. They
// follow the reference program shared/bench/nvshmem_baseline.cu: same grids, sizes, iteration
// counts and timing (cudaEvent around a launch for bandwidth, %globaltimer for latency).
std::vector<MetricDef> device_metrics();
// Whether the symmetric heap is in GPU memory on every PE (cudaPointerGetAttributes on a
// symmetric block); otherwise `why` says what was found. Collective.
bool device_heap_on_gpu(Context &ctx, std::string &why);
#endif

#ifdef XSHMEM_PERF_GDA
// The GPU posting rate of the ibgda transport's posting protocol (perf_gda.cu, CUDA builds with
// the NIC model library): metrics named dev.gda_post.*, on PE 0, standalone (no transport).
std::vector<MetricDef> gda_metrics();
#endif

// Wall clock for timing.
using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Median of a non-empty vector (sorts it).
double median(std::vector<double> v);

// Fills `n` bytes with a pattern derived from (seed, word index): 64-bit words mix(seed) + index
// (mix: multiplication by an odd constant, a bijection), then tail bytes; verify_pattern returns
// the offset of the first wrong byte or SIZE_MAX. Every word of a buffer differs, and a buffer
// written with another seed differs everywhere, so stale, shifted or partial transfers are caught.
void fill_pattern(void *buf, size_t n, uint64_t seed);
size_t verify_pattern(const void *buf, size_t n, uint64_t seed);

// "64 MiB", "8 B".
std::string format_size(size_t bytes);

}  // namespace xshmem::perf

#endif  // XSHMEM_TOOLS_PERF_PERF_H

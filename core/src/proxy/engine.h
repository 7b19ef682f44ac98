// xshmem core: the proxy engine (DESIGN.md "Proxy"; the ring is device/.../proxy_ring.h).
//
// The engine owns a channel set (XSHMEM_PROXY_CHANNELS rings of XSHMEM_PROXY_RING_SLOTS
// requests) and XSHMEM_PROXY_THREADS threads; thread t drains channels t, t + threads, ... in
// order and executes each request with the data operations of the transport serving its target
// PE (the table pe -> host_remote_t given at creation). The rings live in pinned host memory
// mapped into the GPU for GPU PEs, in plain page-aligned host memory for CPU PEs. Producers
// (GPU threads, host threads) never wait on the proxy except for the answers they asked for, and
// the proxy never waits on a producer, so a kernel that spins on data its own proxy delivers
// still progresses.
//
// Idle threads back off (spin, then yield, then sleep with waits growing to ~100 us) and call
// the transports' progress; thread 0 polls error_query about every millisecond while busy and at
// each idle round: an error goes to Options::on_error (default: core::fatal, which stops the job
// with the transport's line). Destruction drains the published requests, quiets every channel,
// joins the threads and frees the memory.
#ifndef XSHMEM_CORE_PROXY_ENGINE_H
#define XSHMEM_CORE_PROXY_ENGINE_H

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <xshmem/device/proxy_ring.h>
#include <xshmem/device/state.h>
#include "../status.h"

namespace xshmem::topo {
struct Machine;
}

namespace xshmem::proxy {

struct Options {
  int my_pe = 0;
  int local_rank = 0;  // spreads the PEs of one host over the CPUs near their NIC
  uint32_t channels = 4;
  uint32_t slots = 256;  // per channel, a power of two >= 4
  uint32_t threads = 1;  // <= channels
  uint32_t map = dev::proxy::ring::kMapCtx;
  // GPU PE: the rings go to pinned host memory mapped into the GPU (core/src/cuda/).
  bool mapped = false;
  // XSHMEM_PROXY_CPUS: CPUs the threads go to (list syntax "0-3,8"); empty: near_cpuset.
  std::string cpus;
  // CPUs near this PE's NIC or GPU (hwloc list syntax) and what they are near ("nic mlx5_0");
  // empty: the threads stay unpinned.
  std::string near_cpuset;
  std::string near_what;
  // Called with one line on a transport error or a failed request; default core::fatal.
  std::function<void(const std::string &line)> on_error;
};

// Options from the configuration table (XSHMEM_PROXY_*); false and one line naming the variable
// and its value in *error when a value is out of range.
bool options_from_config(Options *out, std::string *error);

// The CPUs near this PE's NIC (`nic`, by name) or else its GPU (`gpu_pci`, PCI bus id) on
// machine `m`; "" when neither is known. *what says which ("nic mlx5_0", "gpu 0000:1b:00.0").
std::string near_cpuset(const topo::Machine &m, const std::string &nic, const std::string &gpu_pci,
                        std::string *what);

// Parses a CPU list ("0-3,8,10-11"); false on a malformed one.
bool parse_cpu_list(const std::string &text, std::vector<int> *out);

class Engine {
 public:
  // Builds the channels and starts the threads. remote[pe]: the serving transport of each PE
  // (ops NULL: not a proxy peer; a request for it is an error).
  static Status create(const Options &opts, std::vector<dev::host_remote_t> remote,
                       std::unique_ptr<Engine> *out);
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  // The channel set, as host code addresses it and as GPU code does (the same for CPU PEs).
  dev::proxy::ring::channels_t *host_channels() const { return host_; }
  dev::proxy::ring::channels_t *device_channels() const { return dev_; }
  const Options &options() const { return opts_; }
  // The CPU each thread was pinned to, -1: unpinned.
  const std::vector<int> &thread_cpus() const { return cpus_; }
  // Requests executed so far, all channels.
  uint64_t executed() const { return executed_.load(std::memory_order_relaxed); }
  // Times an idle thread slept.
  uint64_t idle_sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

 private:
  Engine() = default;
  void run(uint32_t index);
  // Executes the published requests of channel c from *head, at most `budget`; returns how many.
  uint32_t drain(uint32_t c, uint64_t *head, uint32_t budget);
  void execute(uint32_t c, dev::proxy::ring::request_t *r, uint64_t ticket);
  void poll_errors();
  void report(const std::string &line);
  // The distinct transports of the remote table.
  struct Transport {
    const xshmem_transport_data_ops_v1_t *ops;
    void *tctx;
    void *ring_handle;  // mem_register of the ring block, or nullptr
  };

  Options opts_;
  std::vector<dev::host_remote_t> remote_;
  std::vector<Transport> transports_;
  dev::proxy::ring::channels_t *host_ = nullptr;
  dev::proxy::ring::channels_t *dev_ = nullptr;
  size_t bytes_ = 0;
  std::vector<std::thread> threads_;
  std::vector<int> cpus_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> executed_{0};
  std::atomic<uint64_t> sleeps_{0};
};

}  // namespace xshmem::proxy

#endif  // XSHMEM_CORE_PROXY_ENGINE_H

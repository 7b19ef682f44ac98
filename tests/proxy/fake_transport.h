// A fake transport for the proxy engine's tests: its data operations execute on local buffers
// that stand for the peers' heaps ("remote heaps", one per PE), count every call and record the
// order of the ones that matter.
//
// Modes:
// - deferred: NBI puts are kept per channel and delivered only at the channel's fence or quiet,
//   in REVERSE order (a transport that reorders within the rules: only fence and quiet order
//   them), so a test sees whether the engine passed fence and quiet through;
// - gate: put and put_signal block while the gate is closed (a slow or stuck NIC);
// - an error for error_query to return, with its line.
#ifndef XSHMEM_TESTS_PROXY_FAKE_TRANSPORT_H
#define XSHMEM_TESTS_PROXY_FAKE_TRANSPORT_H

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <xshmem/device/state.h>

namespace pt {

struct Event {
  int op;  // 'p' put, 'g' get, 'a' amo, 's' put_signal, 'f' fence, 'q' quiet, 'd' deferred put
           // delivered
  int channel;
  int pe;
  uint64_t offset;
  uint64_t size;
};

class FakeTransport {
 public:
  FakeTransport(int n_pes, size_t heap_bytes);
  ~FakeTransport();

  // The engine's remote table: every PE served by this transport (entries listed in `lsa` get
  // no ops: not a proxy peer).
  std::vector<xshmem::dev::host_remote_t> remote_table(const std::vector<int> &lsa = {});
  unsigned char *heap(int pe) { return heaps_[static_cast<size_t>(pe)].data(); }
  size_t heap_bytes() const { return heap_bytes_; }

  std::atomic<uint64_t> puts{0}, gets{0}, amos{0}, put_signals{0}, fences{0}, quiets{0},
      progresses{0}, error_queries{0}, nbi_calls{0};
  std::atomic<bool> deferred{false};
  std::atomic<bool> gate_open{true};
  std::atomic<uint64_t> quiet_delay_us{0};
  std::atomic<uint64_t> put_delay_us{0};
  std::atomic<bool> record{false};
  // error_query returns this (with error_line) once error_after_polls polls have passed.
  std::atomic<int> error_status{0};
  std::atomic<uint64_t> error_after_polls{0};
  std::string error_line;

  std::vector<Event> events();

  // The data operations (C ABI shims call these).
  int put(int channel, int pe, uint64_t off, const void *src, size_t n, uint32_t flags);
  int get(int channel, int pe, void *dst, uint64_t off, size_t n, uint32_t flags);
  int amo(int channel, int pe, uint64_t off, int op, int type, uint64_t operand, uint64_t compare,
          uint64_t *fetched, uint32_t flags);
  int put_signal(int channel, int pe, uint64_t off, const void *src, size_t n, uint64_t sig_off,
                 uint64_t signal, int sig_op, uint32_t flags);
  int fence(int channel);
  int quiet(int channel);
  int progress();
  int error_query(char *buf, size_t len);

  static const xshmem_transport_data_ops_v1_t kOps;

 private:
  struct Pending {
    int pe;
    uint64_t off;
    std::vector<unsigned char> bytes;
  };
  bool in_range(int pe, uint64_t off, size_t n) const;
  void log(int op, int channel, int pe, uint64_t off, uint64_t size);
  void deliver(int channel);
  void wait_gate();

  int n_pes_;
  size_t heap_bytes_;
  std::vector<std::vector<unsigned char>> heaps_;
  std::mutex mu_;
  std::vector<Event> events_;
  std::vector<std::vector<Pending>> pending_;  // per channel
};

}  // namespace pt

#endif  // XSHMEM_TESTS_PROXY_FAKE_TRANSPORT_H

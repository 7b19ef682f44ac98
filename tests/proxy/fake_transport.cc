#include "fake_transport.h"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace pt {

namespace {

FakeTransport *self(void *ctx) {
  return static_cast<FakeTransport *>(ctx);
}

xshmem_status_t c_put(void *ctx, int ch, int pe, uint64_t off, const void *src, size_t n,
                      uint32_t fl) {
  return self(ctx)->put(ch, pe, off, src, n, fl);
}
xshmem_status_t c_get(void *ctx, int ch, int pe, void *dst, uint64_t off, size_t n, uint32_t fl) {
  return self(ctx)->get(ch, pe, dst, off, n, fl);
}
xshmem_status_t c_amo(void *ctx, int ch, int pe, uint64_t off, xshmem_amo_op_t op,
                      xshmem_amo_type_t type, uint64_t operand, uint64_t compare, uint64_t *fetched,
                      uint32_t fl) {
  return self(ctx)->amo(ch, pe, off, op, type, operand, compare, fetched, fl);
}
xshmem_status_t c_put_signal(void *ctx, int ch, int pe, uint64_t off, const void *src, size_t n,
                             uint64_t sig_off, uint64_t signal, int sig_op, uint32_t fl) {
  return self(ctx)->put_signal(ch, pe, off, src, n, sig_off, signal, sig_op, fl);
}
xshmem_status_t c_fence(void *ctx, int ch) {
  return self(ctx)->fence(ch);
}
xshmem_status_t c_quiet(void *ctx, int ch) {
  return self(ctx)->quiet(ch);
}
xshmem_status_t c_progress(void *ctx) {
  return self(ctx)->progress();
}
xshmem_status_t c_error_query(void *ctx, char *buf, size_t len) {
  return self(ctx)->error_query(buf, len);
}

// The atomic on a word of type U; returns the old value as 64 bits.
template <typename U>
uint64_t rmw(unsigned char *p, int op, uint64_t operand, uint64_t compare) {
  std::atomic_ref<U> w(*reinterpret_cast<U *>(p));
  const U v = static_cast<U>(operand);
  switch (op) {
    case XSHMEM_AMO_FETCH:
      return static_cast<uint64_t>(w.load());
    case XSHMEM_AMO_SET:
      w.store(v);
      return 0;
    case XSHMEM_AMO_SWAP:
      return static_cast<uint64_t>(w.exchange(v));
    case XSHMEM_AMO_COMPARE_SWAP: {
      U expected = static_cast<U>(compare);
      w.compare_exchange_strong(expected, v);
      return static_cast<uint64_t>(expected);
    }
    case XSHMEM_AMO_ADD:
    case XSHMEM_AMO_FETCH_ADD:
      return static_cast<uint64_t>(w.fetch_add(v));
    case XSHMEM_AMO_AND:
    case XSHMEM_AMO_FETCH_AND:
      return static_cast<uint64_t>(w.fetch_and(v));
    case XSHMEM_AMO_OR:
    case XSHMEM_AMO_FETCH_OR:
      return static_cast<uint64_t>(w.fetch_or(v));
    case XSHMEM_AMO_XOR:
    case XSHMEM_AMO_FETCH_XOR:
      return static_cast<uint64_t>(w.fetch_xor(v));
    default:
      return 0;
  }
}

}  // namespace

const xshmem_transport_data_ops_v1_t FakeTransport::kOps = {
    .struct_size = sizeof(xshmem_transport_data_ops_v1_t),
    .flags = XSHMEM_DATA_OPS_AMO_COHERENT,
    .put = c_put,
    .get = c_get,
    .amo = c_amo,
    .put_signal = c_put_signal,
    .fence = c_fence,
    .quiet = c_quiet,
    .progress = c_progress,
    .mem_register = nullptr,
    .mem_deregister = nullptr,
    .error_query = c_error_query,
};

FakeTransport::FakeTransport(int n_pes, size_t heap_bytes)
    : n_pes_(n_pes), heap_bytes_(heap_bytes), heaps_(static_cast<size_t>(n_pes)), pending_(64) {
  for (auto &h : heaps_) h.assign(heap_bytes, 0);
}

FakeTransport::~FakeTransport() = default;

std::vector<xshmem::dev::host_remote_t> FakeTransport::remote_table(const std::vector<int> &lsa) {
  std::vector<xshmem::dev::host_remote_t> t(static_cast<size_t>(n_pes_));
  for (int pe = 0; pe < n_pes_; ++pe) {
    bool skip = false;
    for (int l : lsa) skip |= l == pe;
    if (!skip) t[static_cast<size_t>(pe)] = {&kOps, this};
  }
  return t;
}

std::vector<Event> FakeTransport::events() {
  std::lock_guard lock(mu_);
  return events_;
}

bool FakeTransport::in_range(int pe, uint64_t off, size_t n) const {
  return pe >= 0 && pe < n_pes_ && off <= heap_bytes_ && n <= heap_bytes_ - off;
}

void FakeTransport::log(int op, int channel, int pe, uint64_t off, uint64_t size) {
  if (!record.load()) return;
  std::lock_guard lock(mu_);
  events_.push_back({op, channel, pe, off, size});
}

void FakeTransport::wait_gate() {
  while (!gate_open.load(std::memory_order_acquire)) usleep(100);
  if (uint64_t d = put_delay_us.load(); d != 0) usleep(static_cast<useconds_t>(d));
}

void FakeTransport::deliver(int channel) {
  std::vector<Pending> list;
  {
    std::lock_guard lock(mu_);
    list.swap(pending_[static_cast<size_t>(channel)]);
  }
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    memcpy(heap(it->pe) + it->off, it->bytes.data(), it->bytes.size());
    log('d', channel, it->pe, it->off, it->bytes.size());
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

int FakeTransport::put(int channel, int pe, uint64_t off, const void *src, size_t n,
                       uint32_t flags) {
  if (!in_range(pe, off, n)) return XSHMEM_ERR_INVALID;
  wait_gate();
  ++puts;
  if (flags & XSHMEM_DATA_NBI) ++nbi_calls;
  log('p', channel, pe, off, n);
  if (deferred.load() && (flags & XSHMEM_DATA_NBI)) {
    const auto *b = static_cast<const unsigned char *>(src);
    std::lock_guard lock(mu_);
    pending_[static_cast<size_t>(channel)].push_back({pe, off, {b, b + n}});
    return XSHMEM_SUCCESS;
  }
  memcpy(heap(pe) + off, src, n);
  std::atomic_thread_fence(std::memory_order_release);
  return XSHMEM_SUCCESS;
}

int FakeTransport::get(int channel, int pe, void *dst, uint64_t off, size_t n, uint32_t flags) {
  if (!in_range(pe, off, n)) return XSHMEM_ERR_INVALID;
  ++gets;
  if (flags & XSHMEM_DATA_NBI) ++nbi_calls;
  log('g', channel, pe, off, n);
  memcpy(dst, heap(pe) + off, n);
  std::atomic_thread_fence(std::memory_order_release);
  return XSHMEM_SUCCESS;
}

int FakeTransport::amo(int channel, int pe, uint64_t off, int op, int type, uint64_t operand,
                       uint64_t compare, uint64_t *fetched, uint32_t flags) {
  const bool wide = type == XSHMEM_AMO_U64 || type == XSHMEM_AMO_I64 || type == XSHMEM_AMO_F64;
  if (!in_range(pe, off, wide ? 8 : 4) || off % (wide ? 8 : 4) != 0) return XSHMEM_ERR_INVALID;
  ++amos;
  if (flags & XSHMEM_DATA_NBI) ++nbi_calls;
  log('a', channel, pe, off, static_cast<uint64_t>(op));
  const uint64_t old = wide ? rmw<uint64_t>(heap(pe) + off, op, operand, compare)
                            : rmw<uint32_t>(heap(pe) + off, op, operand, compare);
  if (fetched != nullptr) *fetched = old;
  return XSHMEM_SUCCESS;
}

int FakeTransport::put_signal(int channel, int pe, uint64_t off, const void *src, size_t n,
                              uint64_t sig_off, uint64_t signal, int sig_op, uint32_t flags) {
  if (!in_range(pe, off, n) || !in_range(pe, sig_off, 8)) return XSHMEM_ERR_INVALID;
  wait_gate();
  ++put_signals;
  if (flags & XSHMEM_DATA_NBI) ++nbi_calls;
  log('s', channel, pe, off, n);
  memcpy(heap(pe) + off, src, n);
  std::atomic_ref<uint64_t> s(*reinterpret_cast<uint64_t *>(heap(pe) + sig_off));
  if (sig_op == 1)  // XSHMEM_SIGNAL_ADD
    s.fetch_add(signal, std::memory_order_release);
  else
    s.store(signal, std::memory_order_release);
  return XSHMEM_SUCCESS;
}

int FakeTransport::fence(int channel) {
  ++fences;
  deliver(channel);
  log('f', channel, -1, 0, 0);
  return XSHMEM_SUCCESS;
}

int FakeTransport::quiet(int channel) {
  if (uint64_t d = quiet_delay_us.load(); d != 0) usleep(static_cast<useconds_t>(d));
  ++quiets;
  deliver(channel);
  log('q', channel, -1, 0, 0);
  return XSHMEM_SUCCESS;
}

int FakeTransport::progress() {
  ++progresses;
  return XSHMEM_SUCCESS;
}

int FakeTransport::error_query(char *buf, size_t len) {
  const uint64_t n = ++error_queries;
  const int st = error_status.load();
  if (st == 0 || n <= error_after_polls.load()) return XSHMEM_SUCCESS;
  snprintf(buf, len, "%s", error_line.c_str());
  return st;
}

}  // namespace pt

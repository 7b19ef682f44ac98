// xshmem core: the proxy engine (see engine.h).
#include "engine.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include <xshmem/device/atomic.h>
#include "../config.h"
#include "../cuda/cuda_rt.h"
#include "../log.h"
#include "../runtime.h"

namespace xshmem::proxy {

namespace {

constexpr const char *kSubsys = "proxy";
namespace ring = dev::proxy::ring;
namespace at = dev::atomic;

// Idle back-off: rounds of pause, then of sched_yield, then sleeps doubling from kMinSleepUs to
// kMaxSleepUs (CI runs 8 PEs on 2 cores: an idle proxy must leave them the CPU).
constexpr unsigned kIdleSpins = 64;
constexpr unsigned kIdleYields = 64;
// And keep yielding until this long after the last request before the sleeps start: a request
// that follows its predecessor's answer (dependent atomics, get after put) arrives within a
// network round trip, and a sleeping proxy would add its wake-up to every one of them.
constexpr uint64_t kYieldNs = 200000;  // 200 us
constexpr unsigned kMinSleepUs = 1;
constexpr unsigned kMaxSleepUs = 100;
// Deep idle: after kDeepIdleNs without a request a thread sleeps kDeepSleepUs per round. A wake-up
// costs ~10 us of CPU on the CI's virtual machines, so 100 us sleeps alone keep ~6% of a core
// busy per thread; 1 ms sleeps keep an idle engine below 1%, and the first request after a long
// pause waits up to 1 ms once (the ladder restarts with it).
constexpr uint64_t kDeepIdleNs = 50000000;  // 50 ms
constexpr unsigned kDeepSleepUs = 1000;
// Requests one channel executes before its thread looks at the next (fairness).
constexpr uint32_t kBatch = 64;
// How often thread 0 asks the transports for asynchronous errors while busy.
constexpr uint64_t kErrorPollNs = 1000000;  // 1 ms
// At shutdown, how long a thread waits for a reserved slot's producer to publish it.
constexpr uint64_t kDrainGraceNs = 1000000000;  // 1 s

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

const char *op_name(uint8_t op) {
  switch (op) {
    case ring::kReqPut:
      return "put";
    case ring::kReqGet:
      return "get";
    case ring::kReqAmo:
      return "atomic";
    case ring::kReqPutSignal:
      return "put_signal";
    case ring::kReqFence:
      return "fence";
    case ring::kReqQuiet:
      return "quiet";
    default:
      return "unknown request";
  }
}

bool power_of_two(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

bool parse_cpu_list(const std::string &text, std::vector<int> *out) {
  out->clear();
  size_t i = 0;
  const size_t n = text.size();
  auto number = [&](long *v) {
    size_t j = i;
    while (j < n && text[j] >= '0' && text[j] <= '9') ++j;
    if (j == i || j - i > 6) return false;
    *v = strtol(text.substr(i, j - i).c_str(), nullptr, 10);
    i = j;
    return true;
  };
  while (i < n) {
    long a = 0, b = 0;
    if (!number(&a)) return false;
    b = a;
    if (i < n && text[i] == '-') {
      ++i;
      if (!number(&b) || b < a) return false;
    }
    if (b >= CPU_SETSIZE) return false;
    for (long c = a; c <= b; ++c) out->push_back(static_cast<int>(c));
    if (i < n) {
      if (text[i] != ',') return false;
      ++i;
      if (i == n) return false;
    }
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  return !out->empty();
}

bool options_from_config(Options *out, std::string *error) {
  const int64_t channels = config::get_int("XSHMEM_PROXY_CHANNELS");
  const int64_t threads = config::get_int("XSHMEM_PROXY_THREADS");
  const int64_t slots = config::get_int("XSHMEM_PROXY_RING_SLOTS");
  char line[256];
  if (channels < 1 || channels > 64) {
    snprintf(line, sizeof line,
             "XSHMEM_PROXY_CHANNELS=%" PRId64 " is out of range; give 1 to 64 channels", channels);
    *error = line;
    return false;
  }
  if (threads < 1 || threads > channels) {
    snprintf(line, sizeof line,
             "XSHMEM_PROXY_THREADS=%" PRId64
             " is out of range; give 1 to XSHMEM_PROXY_CHANNELS (%" PRId64 ") threads",
             threads, channels);
    *error = line;
    return false;
  }
  if (slots < 4 || slots > 65536 || !power_of_two(static_cast<uint64_t>(slots))) {
    snprintf(line, sizeof line,
             "XSHMEM_PROXY_RING_SLOTS=%" PRId64 " is not a power of two from 4 to 65536", slots);
    *error = line;
    return false;
  }
  const std::string cpus = config::get_string("XSHMEM_PROXY_CPUS");
  std::vector<int> parsed;
  if (!cpus.empty() && !parse_cpu_list(cpus, &parsed)) {
    *error = "XSHMEM_PROXY_CPUS=" + cpus +
             " is not a CPU list; write CPU numbers and ranges separated by commas (\"0-3,8\")";
    return false;
  }
  out->channels = static_cast<uint32_t>(channels);
  out->threads = static_cast<uint32_t>(threads);
  out->slots = static_cast<uint32_t>(slots);
  out->map =
      config::get_enum("XSHMEM_PROXY_CHANNEL_MAP") == "warp" ? ring::kMapWarp : ring::kMapCtx;
  out->cpus = cpus;
  return true;
}

Status Engine::create(const Options &opts, std::vector<dev::host_remote_t> remote,
                      std::unique_ptr<Engine> *out) {
  if (opts.channels < 1 || opts.threads < 1 || opts.threads > opts.channels || opts.slots < 4 ||
      !power_of_two(opts.slots)) {
    XLOG_ERROR(kSubsys,
               "pe %d: proxy engine: %u channels, %u threads, %u slots per channel is not a valid "
               "shape (1 <= threads <= channels, slots a power of two >= 4)",
               opts.my_pe, opts.channels, opts.threads, opts.slots);
    return XSHMEM_ERR_INVALID;
  }
  std::unique_ptr<Engine> e(new Engine());
  e->opts_ = opts;
  if (!e->opts_.on_error)
    e->opts_.on_error = [](const std::string &line) { core::fatal(1, kSubsys, line.c_str()); };
  e->remote_ = std::move(remote);
  for (const dev::host_remote_t &r : e->remote_) {
    if (r.ops == nullptr) continue;
    bool known = false;
    for (const Transport &t : e->transports_) known |= t.ops == r.ops && t.tctx == r.tctx;
    if (!known) e->transports_.push_back({r.ops, r.tctx, nullptr});
  }

  // The rings.
  e->bytes_ = ring::block_bytes(opts.channels, opts.slots);
  void *host = nullptr;
  void *device = nullptr;
  if (opts.mapped) {
    if (Status st = cuda::host_alloc_mapped(e->bytes_, &host, &device); !st.ok()) {
      XLOG_ERROR(kSubsys,
                 "pe %d: cannot allocate %zu bytes of mapped host memory for %u proxy "
                 "channels: %s",
                 opts.my_pe, e->bytes_, opts.channels, st.str());
      return st;
    }
  } else {
    host = mmap(nullptr, e->bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (host == MAP_FAILED) {
      XLOG_ERROR(kSubsys, "pe %d: cannot map %zu bytes for %u proxy channels: %s", opts.my_pe,
                 e->bytes_, opts.channels, strerror(errno));
      return XSHMEM_ERR_NOMEM;
    }
    device = host;
  }
  e->host_ = ring::init_block(host, opts.channels, opts.slots, opts.map);
  e->dev_ = static_cast<ring::channels_t *>(device);
  // Inline puts hand the transport a source inside the ring: register it where it is needed.
  for (Transport &t : e->transports_) {
    if (!XSHMEM_DATA_OPS_HAS_OP(t.ops, mem_register) || t.ops->mem_register == nullptr) continue;
    xshmem_status_t st =
        t.ops->mem_register(t.tctx, host, e->bytes_, XSHMEM_MEM_HOST, &t.ring_handle);
    if (st != XSHMEM_SUCCESS) {
      XLOG_WARN(kSubsys,
                "pe %d: a transport refused to register the proxy rings (%s); inline "
                "puts go through its unregistered-buffer path",
                opts.my_pe, Status::status_str(st));
      t.ring_handle = nullptr;
    }
  }

  // Placement.
  std::vector<int> cpus;
  std::string where;
  if (!opts.cpus.empty()) {
    if (!parse_cpu_list(opts.cpus, &cpus)) {
      XLOG_ERROR(kSubsys, "pe %d: XSHMEM_PROXY_CPUS=%s is not a CPU list (\"0-3,8\")", opts.my_pe,
                 opts.cpus.c_str());
      return XSHMEM_ERR_INVALID;
    }
    where = "XSHMEM_PROXY_CPUS";
  } else if (!opts.near_cpuset.empty() && parse_cpu_list(opts.near_cpuset, &cpus)) {
    where = "near " + opts.near_what;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool have_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  if (have_allowed)
    cpus.erase(
        std::remove_if(cpus.begin(), cpus.end(), [&](int c) { return !CPU_ISSET(c, &allowed); }),
        cpus.end());
  if (!where.empty() && cpus.empty())
    XLOG_WARN(kSubsys,
              "pe %d: no CPU of %s is available to this process; the proxy threads stay "
              "unpinned",
              opts.my_pe, where.c_str());

  e->cpus_.assign(opts.threads, -1);
  for (uint32_t i = 0; i < opts.threads; ++i) {
    if (!cpus.empty()) {
      const size_t k =
          (static_cast<size_t>(opts.local_rank < 0 ? 0 : opts.local_rank) * opts.threads + i) %
          cpus.size();
      e->cpus_[i] = cpus[k];
    }
  }
  for (uint32_t i = 0; i < opts.threads; ++i) {
    e->threads_.emplace_back([eng = e.get(), i] { eng->run(i); });
    char name[16];
    snprintf(name, sizeof name, "xshmem-proxy%u", i % 64);  // 15 chars at most
    (void)pthread_setname_np(e->threads_.back().native_handle(), name);
    if (e->cpus_[i] >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(e->cpus_[i], &set);
      if (int rc = pthread_setaffinity_np(e->threads_.back().native_handle(), sizeof set, &set);
          rc != 0) {
        XLOG_WARN(kSubsys, "pe %d: cannot pin proxy thread %u to cpu %d: %s; it stays unpinned",
                  opts.my_pe, i, e->cpus_[i], strerror(rc));
        e->cpus_[i] = -1;
      }
    }
    if (e->cpus_[i] >= 0)
      XLOG_INFO(kSubsys, "pe %d: proxy thread %u serves %u of %u channels on cpu %d (%s)",
                opts.my_pe, i, (opts.channels - i + opts.threads - 1) / opts.threads, opts.channels,
                e->cpus_[i], where.c_str());
    else
      XLOG_INFO(
          kSubsys, "pe %d: proxy thread %u serves %u of %u channels, unpinned (%s)", opts.my_pe, i,
          (opts.channels - i + opts.threads - 1) / opts.threads, opts.channels,
          where.empty() ? "no NIC or GPU placement known, XSHMEM_PROXY_CPUS unset" : where.c_str());
  }
  *out = std::move(e);
  return XSHMEM_SUCCESS;
}

Engine::~Engine() {
  stop_.store(true, std::memory_order_release);
  for (std::thread &t : threads_)
    if (t.joinable()) t.join();
  for (Transport &t : transports_)
    if (t.ring_handle != nullptr && XSHMEM_DATA_OPS_HAS_OP(t.ops, mem_deregister) &&
        t.ops->mem_deregister != nullptr)
      (void)t.ops->mem_deregister(t.tctx, t.ring_handle);
  if (host_ != nullptr) {
    if (opts_.mapped)
      cuda::host_free(host_);
    else
      munmap(host_, bytes_);
  }
}

void Engine::report(const std::string &line) {
  failed_.store(true, std::memory_order_release);
  opts_.on_error(line);
}

void Engine::poll_errors() {
  if (failed_.load(std::memory_order_acquire)) return;  // reported once
  for (const Transport &t : transports_) {
    if (!XSHMEM_DATA_OPS_HAS_OP(t.ops, error_query) || t.ops->error_query == nullptr) continue;
    char buf[256] = {0};
    const xshmem_status_t st = t.ops->error_query(t.tctx, buf, sizeof buf);
    if (st == XSHMEM_SUCCESS) continue;
    char line[400];
    snprintf(line, sizeof line, "pe %d: the proxy's transport reported an error: %s (%s)",
             opts_.my_pe, buf[0] ? buf : "no description", Status::status_str(st));
    report(line);
  }
}

void Engine::execute(uint32_t c, ring::request_t *r, uint64_t ticket) {
  const uint8_t op = r->op;
  const uint8_t flags = r->flags;
  const int pe = r->pe;
  const uint32_t dflags = (flags & ring::kReqNbi) ? XSHMEM_DATA_NBI : 0u;
  xshmem_status_t st = XSHMEM_SUCCESS;
  uint64_t result = 0;
  const int chan = static_cast<int>(c);
  if (op == ring::kReqFence || op == ring::kReqQuiet) {
    for (const Transport &t : transports_) {
      xshmem_status_t s2 =
          op == ring::kReqFence ? t.ops->fence(t.tctx, chan) : t.ops->quiet(t.tctx, chan);
      if (s2 != XSHMEM_SUCCESS && st == XSHMEM_SUCCESS) st = s2;
    }
  } else if (pe < 0 || static_cast<size_t>(pe) >= remote_.size() ||
             remote_[static_cast<size_t>(pe)].ops == nullptr) {
    char line[256];
    snprintf(line, sizeof line,
             "pe %d: proxy channel %u: %s for pe %d, which no proxy transport serves (%zu PEs)",
             opts_.my_pe, c, op_name(op), pe, remote_.size());
    st = XSHMEM_ERR_INVALID;
    report(line);
  } else {
    const dev::host_remote_t &t = remote_[static_cast<size_t>(pe)];
    switch (op) {
      case ring::kReqPut:
        if (flags & ring::kReqInline)
          st = t.ops->put(t.tctx, chan, pe, r->remote, r->arg, r->size, 0);
        else
          st = t.ops->put(t.tctx, chan, pe, r->remote, reinterpret_cast<const void *>(r->arg[0]),
                          r->size, dflags);
        break;
      case ring::kReqGet:
        if (flags & ring::kReqInline)  // blocking, at most kInlineBytes: into the slot itself
          st = r->size <= ring::kInlineBytes
                   ? t.ops->get(t.tctx, chan, pe, r->arg, r->remote, r->size, 0)
                   : XSHMEM_ERR_INVALID;
        else
          st = t.ops->get(t.tctx, chan, pe, reinterpret_cast<void *>(r->arg[0]), r->remote, r->size,
                          dflags);
        break;
      case ring::kReqAmo:
        st = t.ops->amo(t.tctx, chan, pe, r->remote, static_cast<xshmem_amo_op_t>(r->sub),
                        static_cast<xshmem_amo_type_t>(r->type), r->arg[0], r->arg[1],
                        (flags & ring::kReqAck) ? &result : nullptr, dflags);
        break;
      case ring::kReqPutSignal:
        st = t.ops->put_signal(t.tctx, chan, pe, r->remote,
                               reinterpret_cast<const void *>(r->arg[0]), r->size, r->arg[1],
                               r->arg[2], r->sub, dflags);
        break;
      default:
        st = XSHMEM_ERR_INVALID;
        break;
    }
    if (st != XSHMEM_SUCCESS) {
      char line[300];
      snprintf(line, sizeof line,
               "pe %d: proxy channel %u: %s to pe %d (offset 0x%" PRIx64 ", %" PRIu64
               " bytes) failed: %s",
               opts_.my_pe, c, op_name(op), pe, r->remote, r->size, Status::status_str(st));
      report(line);
    }
  }
  executed_.fetch_add(1, std::memory_order_relaxed);
  ring::channel_t *ch = ring::channel(host_, c);
  at::store_release(&ch->completed, at::load(&ch->completed) + 1);
  if (flags & ring::kReqAck) {
    r->remote = static_cast<uint64_t>(static_cast<int64_t>(st));
    if (!(op == ring::kReqGet && (flags & ring::kReqInline))) r->arg[3] = result;  // not the data
    at::store_release(&r->seq, ticket + 2);
  } else {
    at::store_release(&r->seq, ticket + host_->slots);
  }
}

uint32_t Engine::drain(uint32_t c, uint64_t *head, uint32_t budget) {
  uint32_t n = 0;
  while (n < budget) {
    ring::request_t *r = ring::slot(host_, c, *head);
    if (at::load_acquire(&r->seq) != *head + 1) break;
    execute(c, r, *head);
    ++*head;
    ++n;
  }
  return n;
}

void Engine::run(uint32_t index) {
  // The sleeps below are 1-100 us: without this the default timer slack (50 us) adds 50 us to
  // each of them, and so to the first request after an idle spell.
  (void)prctl(PR_SET_TIMERSLACK, 1000UL);
  std::vector<uint32_t> mine;
  for (uint32_t c = index; c < opts_.channels; c += opts_.threads) mine.push_back(c);
  std::vector<uint64_t> head(mine.size(), 0);
  unsigned idle = 0;
  unsigned sleep_us = kMinSleepUs;
  uint64_t idle_since = 0;  // when the current idle stretch began (0: busy)
  uint64_t next_poll = now_ns() + kErrorPollNs;
  const bool poller = index == 0;
  for (;;) {
    uint32_t done = 0;
    for (size_t k = 0; k < mine.size(); ++k) done += drain(mine[k], &head[k], kBatch);
    if (done != 0) {
      idle = 0;
      sleep_us = kMinSleepUs;
      idle_since = 0;
      if (poller) {
        const uint64_t now = now_ns();
        if (now >= next_poll) {
          next_poll = now + kErrorPollNs;
          poll_errors();
        }
      }
      continue;
    }
    if (stop_.load(std::memory_order_acquire)) break;
    // Idle.
    if (poller) {
      for (const Transport &t : transports_)
        if (XSHMEM_DATA_OPS_HAS_OP(t.ops, progress) && t.ops->progress != nullptr)
          (void)t.ops->progress(t.tctx);
      const uint64_t now = now_ns();
      if (now >= next_poll) {
        next_poll = now + kErrorPollNs;
        poll_errors();
      }
    }
    if (idle < kIdleSpins) {
      ++idle;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else if (idle < kIdleSpins + kIdleYields) {
      ++idle;
      sched_yield();
    } else {
      const uint64_t now = now_ns();
      if (idle_since == 0) idle_since = now;
      if (now - idle_since < kYieldNs) {
        // Still within a round trip of the last request: its producer may be about to post the
        // next one, so keep yielding rather than sleep.
        sched_yield();
        continue;
      }
      const unsigned us = now - idle_since >= kDeepIdleNs ? kDeepSleepUs : sleep_us;
      timespec ts{0, static_cast<long>(us) * 1000};
      nanosleep(&ts, nullptr);
      sleeps_.fetch_add(1, std::memory_order_relaxed);
      sleep_us = std::min(sleep_us * 2, kMaxSleepUs);
    }
  }
  // Stopping: execute what producers still publish (a reserved slot gets kDrainGraceNs to be
  // published), then complete everything at the targets.
  const uint64_t give_up = now_ns() + kDrainGraceNs;
  for (size_t k = 0; k < mine.size(); ++k) {
    ring::channel_t *ch = ring::channel(host_, mine[k]);
    while (head[k] < at::load_acquire(&ch->issued)) {
      if (drain(mine[k], &head[k], kBatch) == 0) {
        if (now_ns() >= give_up) {
          XLOG_WARN(kSubsys,
                    "pe %d: proxy channel %u: %" PRIu64
                    " reserved requests were never published; shutting down without them",
                    opts_.my_pe, mine[k], at::load_acquire(&ch->issued) - head[k]);
          break;
        }
        sched_yield();
      }
    }
    for (const Transport &t : transports_) (void)t.ops->quiet(t.tctx, static_cast<int>(mine[k]));
  }
}

}  // namespace xshmem::proxy

// xshmem core: the symmetric heap at init -- where it lives (host or GPU memory, agreed by every
// PE), its size, and its growth (heap_grow) told to every transport.
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
#include "loader.h"
#include "checks.h"
#include "config.h"
#include "cuda/cuda_rt.h"
#include "device_api.h"
#include "globals.h"
#include "heap.h"
#include "log.h"
#include "nics.h"
#include "node_ipc.h"
#include "runtime.h"
#include "selection.h"
#include "team.h"
#include "wait_deadline.h"
#include "runtime_internal.h"

namespace xshmem::core {

std::string g_heap_why;

namespace {

constexpr const char *kSubsys = "core";

// Where the heap lives, agreed by every PE: every PE's heap is of one kind, so heap growth (a
// collective of device heaps only) is called by all PEs or none.
struct HeapPlan {
  bool device = false;
  cuda::Probe gpu;
  size_t granularity = 0, chunk = 0;  // the largest over the PEs, so every PE grows alike
};

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
  g_rt.job.heap_kind = plan.device ? XSHMEM_MEM_DEVICE : XSHMEM_MEM_HOST;
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

}  // namespace

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
  // The executable's data becomes symmetric on host heaps (globals.h): the heap's memfd gets a
  // window of its size after the heap. Every PE must run the same executable (the same segment
  // size and link address), or no PE gets the window.
  g_rt.exe_data = globals::find_executable(&g_rt.globals_why);
  const bool want_globals = !plan.device && config::get_bool("XSHMEM_SYMMETRIC_GLOBALS");
  struct SizeCard {
    uint64_t size, globals_size, globals_link;
  } my{size, want_globals ? g_rt.exe_data.size : 0, g_rt.exe_data.link_addr};
  // Every PE must have the same heap size, or offsets would not be symmetric.
  std::vector<SizeCard> cards(g_rt.job.n_pes);
  XSHMEM_CHECK(oob_allgather(&my, cards.data(), sizeof(my)));
  bool globals_alike = true;
  int globals_odd = -1;
  for (int pe = 0; pe < g_rt.job.n_pes; ++pe) {
    if (cards[pe].size != my.size) {
      XLOG_ERROR(kSubsys,
                 "symmetric heap sizes differ: pe %d has %llu bytes, pe %d has %llu; set "
                 "XSHMEM_SYMMETRIC_SIZE alike on every PE",
                 g_rt.job.my_pe, static_cast<unsigned long long>(my.size), pe,
                 static_cast<unsigned long long>(cards[pe].size));
      return XSHMEM_ERR_INVALID;
    }
    if (cards[pe].globals_size == 0 || cards[pe].globals_size != cards[0].globals_size ||
        cards[pe].globals_link != cards[0].globals_link) {
      globals_alike = false;
      if (globals_odd < 0) globals_odd = pe;
    }
  }
  if (plan.device) {
    g_rt.globals_why = "the heap is in GPU memory (globals are symmetric on CPU PEs only)";
  } else if (!want_globals) {
    g_rt.globals_why = "XSHMEM_SYMMETRIC_GLOBALS=0";
  } else if (!globals_alike && my.globals_size != 0) {
    char why[192];
    snprintf(why, sizeof why,
             "pe %d's executable data differs from pe 0's (%llu bytes linked at %#llx here): "
             "every PE must run the same executable",
             globals_odd, static_cast<unsigned long long>(my.globals_size),
             static_cast<unsigned long long>(my.globals_link));
    g_rt.globals_why = why;
    XLOG_WARN(kSubsys, "global variables are not symmetric: %s", why);
  } else if (!globals_alike) {
    XLOG_WARN(kSubsys, "global variables are not symmetric: %s", g_rt.globals_why.c_str());
  }
  if (!plan.device) {
    const size_t window = globals_alike ? g_rt.exe_data.size : 0;
    XSHMEM_CHECK(g_rt.heap.create_host(size + window));
    g_rt.alloc.reset(size);
    auto off = g_rt.alloc.alloc(internal, page);  // offset 0: the runtime's internal region
    if (!off || *off != 0) return XSHMEM_ERR_INTERNAL;
    memset(g_rt.heap.base(), 0, internal);
    if (window != 0) {
      Status st = g_rt.heap.attach_globals(g_rt.exe_data, size);
      if (!all_ok(st.ok())) return st.ok() ? XSHMEM_ERR_IO : st;
      g_rt.globals_why.clear();
      XLOG_INFO(kSubsys, "global variables are symmetric: the executable's data, %zu bytes at %p",
                window, reinterpret_cast<void *>(g_rt.exe_data.base));
    }
    return XSHMEM_SUCCESS;
  }
  // GPU heap: reserve it all, commit only what the internal region needs (the rest comes with
  // allocations: committing gigabytes at init would cost seconds).
  XSHMEM_CHECK(cuda::open(plan.gpu.device));
  // Job info 1.2: the heap's GPU, for transports (NULL for host heaps).
  g_rt.gpu_pci = plan.gpu.pci_bus_id;
  g_rt.job.gpu_pci = g_rt.gpu_pci.empty() ? nullptr : g_rt.gpu_pci.c_str();
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

}  // namespace xshmem::core

// xshmem device API: the state the path code works on.
//
// The same plain structs are read by GPU threads (a copy lives in device memory) and by CPU
// threads (the host API uses the core's copy). They hold everything a put, get or atomic needs to
// reach a peer: the path byte and, for LSA peers, the peer heap's base in this address space.
#ifndef XSHMEM_DEVICE_STATE_H
#define XSHMEM_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <xshmem/plugin/transport_v1.h>

#if defined(__CUDACC__)
#define XSHMEM_HD __host__ __device__
#define XSHMEM_HD_INLINE __host__ __device__ __forceinline__
#else
#define XSHMEM_HD
#define XSHMEM_HD_INLINE inline __attribute__((always_inline))
#endif

// ---- the device-state layout ----
// The layout of what device code reads from the state (state_t, peer_t, team_t, team_sync_t,
// internal_region_t, device_error_t): bump it whenever any of them changes. The runtime writes
// it into state_t::layout; every CUDA translation unit registers its state sink with the layout
// it was compiled against (XSHMEMI_REGISTER_DEVICE_STATE_SINK, <xshmem/device/cuda_api.h>), and
// the runtime refuses a unit compiled against another layout, with one line naming it, before
// any of its kernels can read the table. 0 stands for units built before layouts were numbered.
#define XSHMEM_DEVICE_STATE_LAYOUT 5
// The layout this translation unit is compiled against: XSHMEM_DEVICE_STATE_LAYOUT, unless a
// test builds a unit as if compiled against another (-DXSHMEM_DEVICE_STATE_LAYOUT_OVERRIDE=N).
#if defined(XSHMEM_DEVICE_STATE_LAYOUT_OVERRIDE)
#define XSHMEMI_UNIT_STATE_LAYOUT (XSHMEM_DEVICE_STATE_LAYOUT_OVERRIDE)
#else
#define XSHMEMI_UNIT_STATE_LAYOUT XSHMEM_DEVICE_STATE_LAYOUT
#endif

extern "C" {
// Registers `sink` of translation unit `unit` (a name for the diagnostic), compiled against
// device-state layout `layout`. The runtime calls it with the device state's bytes and the PE's
// CUDA device after every xshmem_init, and at once when the runtime is already up. Returns 0, or
// XSHMEM_ERR_ABI when `layout` is not this library's (the sink is then never called, and an
// xshmem_init on a GPU heap fails). The sink returns 0 or a cudaError_t, which the runtime logs.
int xshmemi_register_device_state_sink2(int layout, const char *unit,
                                        int (*sink)(const void *state, size_t size, int device));
}
// The unit's name is its main source file (__BASE_FILE__), not the header the macro expands in,
// so the refusal names the user's .cu file.
#if defined(__BASE_FILE__)
#define XSHMEMI_UNIT_FILE __BASE_FILE__
#else
#define XSHMEMI_UNIT_FILE __FILE__
#endif
#define XSHMEMI_REGISTER_DEVICE_STATE_SINK(sink) \
  xshmemi_register_device_state_sink2(XSHMEMI_UNIT_STATE_LAYOUT, XSHMEMI_UNIT_FILE, sink)

// ---- path codes internal to the host's copy of the state ----
// The transports' path codes (xshmem_path_t: NONE, LSA, GDA, PROXY) are what the device's copy
// of the state holds. The host's copy (core/src/path_state.cc) may hold one more, which never
// appears in the device's copy and is never given to or taken from a plugin:
//   XSHMEM_PATH_HOST_CE: copy engine through the peer mapping. The heap is in GPU memory, which
//   the host cannot load or store: the host reaches an LSA peer (its mapping in peer_t::base, as
//   for LSA) with copies on the runtime's internal stream and one-thread kernels for atomics and
//   signals (state_t::host_ce, host_ce.h). Only the dispatchers' host-compiled code has its case.
#define XSHMEM_PATH_HOST_CE 0x80

namespace xshmem::dev {

// One peer as the path code sees it (16 bytes, 16-aligned: device code loads an entry at once).
struct alignas(16) peer_t {
  uint8_t path;   // xshmem_path_t
  uint8_t flags;  // XSHMEM_PEER_*
  uint16_t reserved0;
  uint32_t reserved1;
  uintptr_t base;  // LSA: the peer's heap base mapped in this process
};

// Host only: how the host reaches a peer whose path is not LSA, through the transport that
// serves it: the transport's data operations (the core substitutes stubs for the operations a
// plugin leaves out, so every pointer is callable) and the transport's context.
struct host_remote_t {
  const xshmem_transport_data_ops_v1_t *ops = nullptr;
  void *tctx = nullptr;
};

// Host only: the operations of the HOST_CE path (XSHMEM_PATH_HOST_CE), implemented by the core
// with the CUDA runtime on its internal stream (core/src/cuda/device_ops.h). Addresses: `copy`
// and `copy_strided` take addresses of this process (a peer's through its mapping); `amo` and
// `put_signal` take symmetric addresses of this PE and the target pe (their kernels translate).
// `blocking` false: complete by the next quiet.
struct host_ce_ops_t {
  void (*copy)(void *dst, const void *src, size_t n, bool blocking);
  // count elements of `elem` bytes, dst and src `dpitch`/`spitch` bytes apart.
  void (*copy_strided)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                       size_t count, bool blocking);
  // Atomic `op` (an amo_op of amo.h) of width 4 or 8 bytes, operands as bits; returns the old
  // value's bits; waits for completion.
  uint64_t (*amo)(int op, size_t width, void *dest, uint64_t value, uint64_t cond, int pe);
  // n bytes (n may be 0) then the signal update, ordered after the data.
  void (*put_signal)(void *dest, const void *source, size_t n, uint64_t *sig_addr, uint64_t signal,
                     int sig_op, int pe, bool blocking);
  // Completes every operation issued above.
  void (*quiet)();
};

// A team: the world PEs start + i * stride for i in [0, size) (stride may be negative: the
// order of the parent reversed), as every PE of the job sees it. Team handles (xshmem_team_t)
// index the table of these in state_t, the same index on every member. Translating between
// team and world numbering is arithmetic, so device code needs one table load per team call.
struct team_t {
  int32_t start = 0;         // world PE of member 0
  int32_t stride = 1;        // world PE distance between consecutive members
  int32_t size = 0;          // 0: the handle is not a team of this PE (destroyed, never created)
  int32_t my_index = -1;     // this PE's number in the team
  int32_t slot = -1;         // sync area of the team in the internal region (same on every member)
  int32_t num_contexts = 0;  // team_get_config: XSHMEM_TEAM_NUM_CONTEXTS
  int32_t reserved[2] = {0, 0};
};

// The per-team synchronisation words, one set per team slot in every heap. A team sync is a
// dissemination over the members: in round k a member writes the sync's epoch into flags[k] of
// the member 2^k places after it and waits for its own flags[k] to reach the epoch; `vals[k]`
// carries a word with the round's flag for the word allreduce (team creation agrees on slots
// with it). Each flag has one writer per team; epochs only grow while a team lives. A slot is
// zeroed by its new members before a team starts using it (team creation ends with a sync of
// the parent, so no member writes before every member zeroed).
struct team_sync_t {
  static constexpr int kMaxRounds = 32;  // dissemination rounds: supports 2^32 PEs
  uint64_t flags[kMaxRounds];            // written by peers: round k arrivals
  uint64_t vals[kMaxRounds][2];          // written by peers with flags[k]: round k payload,
                                         // by epoch parity (a partner runs at most one ahead)
  // Written by this PE only: the number of syncs done on this slot. Kept in the heap rather than
  // in the process, so GPU threads of every kernel module and host calls share it.
  uint64_t epoch;
  uint64_t reserved[7];
  // Free for the team's collectives (core/src and device/include/xshmem/device/coll*.h decide
  // their use): words peers signal into, e.g. arrivals per chunk of a pipelined collective.
  static constexpr int kCollSignals = 64;
  uint64_t coll_signal[kCollSignals];
};

// Words the runtime keeps at the start of every symmetric heap (the same offset on every PE);
// the runtime zeroes the region when it creates the heap.
struct internal_region_t {
  static constexpr int kMaxRounds = team_sync_t::kMaxRounds;
  static constexpr int kMaxTeams = 64;  // team slots, predefined teams included
  team_sync_t team[kMaxTeams];          // slot 0: the world team
  // GPU heaps: where the kernels of host-initiated atomics leave the fetched value for the host
  // to copy back (one host call at a time).
  uint64_t host_result;
  uint64_t reserved[31];
  // Symmetric scratch for the collectives of each team slot (a collective of team t at one PE
  // may receive peers' data here; members use it only inside a collective of t, so teams that
  // share PEs never collide). Reductions, collect and the like chunk larger data through it.
  static constexpr size_t kCollScratchBytes = size_t{128} << 10;
  alignas(256) unsigned char coll_scratch[kMaxTeams][kCollScratchBytes];
};

// A device-side checked-mode violation (ERR-11), written into host memory by the first GPU
// thread of this PE that meets one, which then traps. The runtime's watchdog thread reads it,
// prints the one-line diagnostic and stops the job (core/src/cuda/cuda_rt.cc).
enum device_check_code : int32_t {
  kDevCheckPe = 1,         // pe out of range
  kDevCheckSymmetric = 2,  // [addr, addr + size) not inside the symmetric heap
  kDevCheckAlign = 3,      // addr not a multiple of `align`
  kDevCheckNull = 4,       // a local buffer is NULL with `size` bytes to move
  kDevGlobalExit = 5,      // xshmem_global_exit from a GPU thread; `pe` holds the status
  // A wait passed XSHMEM_WAIT_TIMEOUT (LIV-03): `op` is the wait_call, `pe` the PE waited for,
  // `addr` the word, `size` the value expected, `align` the value last seen, and the wait_* fields
  // below the rest.
  kDevWaitTimeout = 6,
  // A PROXY-path request of a GPU thread failed (proxy.h): `op` is the call, `pe` the target,
  // `align` the status (XSHMEM_ERR_TIMEOUT: a ring wait passed XSHMEM_WAIT_TIMEOUT), `size` the
  // bytes.
  kDevProxyFailed = 7,
  // A GDA post or wait of a GPU thread failed (gda_path.h): `op` is the call, `pe` the target,
  // `align` the gda.h status (1: a queue wait passed its deadline, 2: the queue is in error).
  kDevGdaFailed = 8,
};
// Which device call family met it (the diagnostic names it).
enum device_check_op : int32_t {
  kDevOpPut = 1,
  kDevOpGet,
  kDevOpP,
  kDevOpG,
  kDevOpIput,
  kDevOpIget,
  kDevOpAtomic,
  kDevOpPutSignal,
  kDevOpSignal,
  kDevOpFence,
  kDevOpQuiet,
};
// The name of a device_check_op, for diagnostics (the watchdog's line, a path's failure line).
XSHMEM_HD_INLINE const char *op_name(int32_t op) {
  switch (op) {
    case kDevOpPut:
      return "put";
    case kDevOpGet:
      return "get";
    case kDevOpP:
      return "p";
    case kDevOpG:
      return "g";
    case kDevOpIput:
      return "iput";
    case kDevOpIget:
      return "iget";
    case kDevOpAtomic:
      return "atomic";
    case kDevOpPutSignal:
      return "put_signal";
    case kDevOpSignal:
      return "signal";
    case kDevOpFence:
      return "fence";
    case kDevOpQuiet:
      return "quiet";
    default:
      return "call";
  }
}
struct device_error_t {
  uint32_t claimed;  // 0 -> 1 by the reporting thread
  uint32_t ready;    // 1 once the fields below are written
  int32_t code;      // device_check_code
  int32_t op;        // device_check_op
  int32_t pe;        // the call's pe argument
  uint32_t block[3];
  uint32_t thread[3];
  uint32_t reserved;
  uint64_t addr, size, align;
  // kDevWaitTimeout only (see wait_timeout_t).
  int32_t wait_cmp, wait_round, wait_value_size, wait_value_signed;
  uint64_t wait_ns, wait_index, wait_nelems;
};

// ---- the wait deadline (XSHMEM_WAIT_TIMEOUT, LIV-03) ----
// The public call a blocking wait belongs to, for the diagnostic of a wait past the deadline.
enum wait_call : int32_t {
  kWaitNone = 0,  // an internal wait: no deadline
  kWaitUntil,
  kWaitUntilAll,
  kWaitUntilAny,
  kWaitUntilSome,
  kWaitUntilAllVector,
  kWaitUntilAnyVector,
  kWaitUntilSomeVector,
  kWaitSignalWaitUntil,
  kWaitBarrierAll,
  kWaitSyncAll,
  kWaitTeamSync,
  kWaitCollective,  // the waits inside a team collective (reduce, broadcast, collect, ...)
  // The waits of the deprecated active-set collectives (host only, core/src/compat/active_set.cc)
  // on a word of the caller's pSync: `round` the sync round or -1, `index` the pSync word.
  kWaitActiveSet,
};
// Where a wait is: its call and, for the rounds of a sync, the round. Host code also names the
// public call (`name`, e.g. "xshmem_int_wait_until"); device code leaves it NULL.
struct wait_site {
  int32_t call = kWaitNone;
  const char *name = nullptr;
};
// What a wait past the deadline waited for, as given to state_t::on_wait_timeout.
struct wait_timeout_t {
  int32_t call = kWaitNone;     // wait_call
  const char *name = nullptr;   // the public call (host), or NULL: by `call`
  int32_t cmp = 0;              // XSHMEM_CMP_*
  int32_t pe = -1;              // the PE whose update was awaited; -1: any (a local word)
  int32_t round = -1;           // syncs: the dissemination round, else -1
  int32_t value_size = 0;       // bytes of the waited word's type
  int32_t value_signed = 0;     // whether that type is signed
  const void *addr = nullptr;   // the waited word (for a set: the element, or the set's start)
  uint64_t expected = 0;        // the value compared against (syncs: the epoch)
  uint64_t seen = 0;            // the value last seen
  uint64_t index = UINT64_MAX;  // _all forms: the element waited on; UINT64_MAX: not a set
  uint64_t nelems = 0;          // set forms: the number of elements
  uint64_t waited_ns = 0;       // how long it waited
};

namespace proxy::ring {
struct channels_t;  // proxy_ring.h
}

struct state_t {
  // XSHMEM_DEVICE_STATE_LAYOUT of the library that filled the state (first, so that code of any
  // layout finds it), and a pad that keeps my_pe and n_pes one 8-byte load apart as before.
  int32_t layout = 0;
  int32_t reserved_layout = 0;
  int my_pe = -1;
  int n_pes = 0;
  uintptr_t heap_base = 0;  // this PE's heap
  size_t heap_size = 0;
  peer_t *peers = nullptr;                // [n_pes]
  internal_region_t *internal = nullptr;  // at heap_base, symmetric
  // [kMaxTeams] the team table (xshmem_team_t indexes it); read-only while kernels run, a new
  // table goes to a new address (like peers).
  team_t *teams = nullptr;
  // Host only: called by the path code for a peer whose path has no implementation here
  // (stops the job with a diagnostic). Device code traps instead.
  void (*on_bad_path)(int pe) = nullptr;
  // Host only: [n_pes] name of the transport serving each peer (xshmemx_transport_name).
  const char *const *transport_names = nullptr;
  // Host only: [n_pes] the data operations of each non-LSA peer's transport (ops NULL for LSA
  // peers); filled at connect (transports.cc), published by build_state.
  const host_remote_t *remote = nullptr;
  // Host only: the distinct transports among `remote` (fence and quiet visit each), how many,
  // the proxy channels per transport (xshmem_job_info_v1_t::num_channels), and the hook that
  // stops the job when a transport's data operation fails (`op` names it; pe -1: fence/quiet).
  const host_remote_t *remote_transports = nullptr;
  int32_t n_remote_transports = 0;
  int32_t num_channels = 1;
  void (*on_remote_error)(int pe, const char *op, int status) = nullptr;
  // Device only: checked mode (XSHMEM_CHECKS) for device calls, and where a violation goes
  // (host memory mapped into the GPU; NULL: trap without a report).
  int32_t device_checks = 0;
  // XSHMEM_COLL_REDUCE_ALGO as a reduce_algo (coll_reduce.h).
  int32_t coll_reduce_algo = 0;
  // XSHMEM_COLL_BCAST_ALGO and XSHMEM_COLL_FCOLLECT_ALGO as coll_move_algo values (coll_move.h).
  int32_t coll_bcast_algo = 0;
  int32_t coll_fcollect_algo = 0;
  device_error_t *device_error = nullptr;
  // XSHMEM_WAIT_TIMEOUT in nanoseconds; 0 (the default): waits have no deadline. A wait of the
  // API that lasts longer stops the job with a diagnostic (p2p.h, wait_clock).
  uint64_t wait_timeout_ns = 0;
  // Host only: reports a wait past the deadline and stops the job; does not return.
  void (*on_wait_timeout)(const wait_timeout_t *w) = nullptr;
  // Host only: the HOST_CE path's operations; set in the host's copy exactly when the heap is in
  // GPU memory (its peers' LSA codes are then HOST_CE), NULL otherwise and in the device's copy.
  const host_ce_ops_t *host_ce = nullptr;
  // The proxy engine's channel rings (proxy_ring.h, core/src/proxy/) when GPU threads of this PE
  // reach some peer by the PROXY path; NULL otherwise (CPU PEs: host threads call the transport
  // directly). Each copy holds the address its threads use: the host's copy the host address,
  // the device's copy the GPU's address of the same mapped host memory, which `proxy_device`
  // carries for publish_state (layout 2).
  proxy::ring::channels_t *proxy = nullptr;
  proxy::ring::channels_t *proxy_device = nullptr;
  // Host only: host threads use the rings too (XSHMEM_PROXY_HOST on a CPU PE), not the
  // transports' operations directly.
  int32_t host_rings = 0;
  // (layout 3) The PEs this one reaches by the GDA path, which quiet visits (gda_path.h), and
  // how many: the host's list, and in the device's copy the same list in GPU memory.
  int32_t n_gda_peers = 0;
  const int32_t *gda_peers = nullptr;
  // (layout 5) Host heaps: the executable's global data, symmetric (core/src/globals.h): the
  // addresses [globals_base, globals_base + globals_size) are the heap's window at offset
  // globals_offset. Sizes 0 (GPU heaps, XSHMEM_SYMMETRIC_GLOBALS=0): no window.
  uintptr_t globals_base = 0;
  size_t globals_size = 0;
  size_t globals_offset = 0;
};

// Whether [sym, sym+n) lies inside the executable's global data, symmetric on host heaps (never
// on the device: GPU heaps have no globals window).
XSHMEM_HD_INLINE bool in_globals(const state_t &s, const void *sym, size_t n) {
#if defined(__CUDA_ARCH__)
  (void)s, (void)sym, (void)n;
  return false;
#else
  const uintptr_t g = reinterpret_cast<uintptr_t>(sym) - s.globals_base;
  return g < s.globals_size && n <= s.globals_size - g;
#endif
}

// Offset of a symmetric address; the same on every PE. A global of the executable (host heaps)
// is at its place in the heap's globals window: one subtraction and a compare that is false on
// heap addresses (and always with no window).
XSHMEM_HD_INLINE uintptr_t heap_offset(const state_t &s, const void *sym) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(sym);
#if !defined(__CUDA_ARCH__)
  const uintptr_t g = a - s.globals_base;
  if (__builtin_expect(g < s.globals_size, 0)) return s.globals_offset + g;
#endif
  return a - s.heap_base;
}

// Whether [sym, sym+n) lies inside this PE's symmetric heap, or (host heaps) inside the
// executable's symmetric global data.
XSHMEM_HD_INLINE bool in_heap(const state_t &s, const void *sym, size_t n) {
  uintptr_t a = reinterpret_cast<uintptr_t>(sym);
  if (a >= s.heap_base && a - s.heap_base <= s.heap_size && n <= s.heap_size - (a - s.heap_base))
    return true;
  return in_globals(s, sym, n);
}

// A peer's entry of the table, path and base in one 16-byte load. On the device the load is a
// read-only (non-coherent) load in an asm statement the compiler may treat as a pure function of
// the entry's address: the runtime writes a table only before the kernels that use it start (a
// new table goes to a new address), so the lookup can be hoisted out of a caller's loop and kept
// in registers. Loaded otherwise (an ordinary or __ldg load), the memory clobbers of the atomics
// and the out-of-line PROXY calls on the dispatchers' other branch make the compiler reload the
// entry after every operation (bench/dispatch on one H200, ns per call on an LSA peer, __ldg
// loads against this one: a loop of xshmem_int_g 206 against 163, of xshmem_int_p 92 against 64,
// of summed fetch_adds 210 against 171).
XSHMEM_HD_INLINE peer_t peer_of(const state_t &s, int pe) {
#if defined(__CUDA_ARCH__)
  unsigned long long w0, w1;
  asm("ld.global.nc.v2.u64 {%0, %1}, [%2];"
      : "=l"(w0), "=l"(w1)
      : "l"(__cvta_generic_to_global(s.peers + pe)));
  peer_t p;
  p.path = static_cast<uint8_t>(w0);
  p.flags = static_cast<uint8_t>(w0 >> 8);
  p.reserved0 = 0;
  p.reserved1 = 0;
  p.base = static_cast<uintptr_t>(w1);
  return p;
#else
  return s.peers[pe];
#endif
}
XSHMEM_HD_INLINE uint8_t peer_path(const state_t &s, int pe) {
  return peer_of(s, pe).path;
}
XSHMEM_HD_INLINE uintptr_t peer_base(const state_t &s, int pe) {
  return peer_of(s, pe).base;
}

// Whether `pe`'s heap is mapped into this address space (peer_t::base is valid): LSA, and on the
// host's copy over a GPU heap HOST_CE (mapped, though only copies and kernels reach it).
XSHMEM_HD_INLINE bool peer_mapped(const state_t &s, int pe) {
#if defined(__CUDA_ARCH__)
  return peer_path(s, pe) == XSHMEM_PATH_LSA;
#else
  const uint8_t path = peer_path(s, pe);
  return path == XSHMEM_PATH_LSA || path == XSHMEM_PATH_HOST_CE;
#endif
}

// The address of symmetric object `sym` at the peer of entry `p` (peer_of), for LSA (and
// HOST_CE) peers; lsa_addr looks the entry up.
template <typename T>
XSHMEM_HD_INLINE T *lsa_at(const peer_t &p, const state_t &s, T *sym) {
  return reinterpret_cast<T *>(p.base + heap_offset(s, sym));
}
template <typename T>
XSHMEM_HD_INLINE T *lsa_addr(const state_t &s, T *sym, int pe) {
  return lsa_at(peer_of(s, pe), s, sym);
}

}  // namespace xshmem::dev

#endif  // XSHMEM_DEVICE_STATE_H

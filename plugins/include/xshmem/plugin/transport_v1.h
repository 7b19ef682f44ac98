/*
 * xshmem plugin SDK: transport plugins, ABI major version 1.
 *
 * A transport moves data between symmetric heaps. It never ships device code: it provides
 * host-side setup, memory registration, reachability and cost per peer, and the *descriptor*
 * that the header-only device/host path code needs for each peer (for the LSA path, the peer's
 * heap base mapped into this process).
 *
 * A transport plugin is a shared library named libxshmem_transport_<name>.so that exports exactly
 * one symbol, `xshmem_transport_plugin_v1`, of type xshmem_transport_v1_t.
 *
 * Call order (all collective over the world, in the same order on every PE):
 *   load -> init -> heap_register -> heap_grow for each chunk committed so far (DEVICE heaps)
 *   -> (can_reach for every pe) -> connect -> ... heap_grow as the heap grows ...
 *   -> heap_deregister -> finalize
 *
 * Minor versions append fields. The core accepts a plugin whose struct_size is at least
 * XSHMEM_TRANSPORT_V1_MIN_SIZE (the size of version 1.0) and treats operations past the plugin's
 * struct_size as NULL (XSHMEM_TRANSPORT_HAS_OP).
 */
#ifndef XSHMEM_PLUGIN_TRANSPORT_V1_H
#define XSHMEM_PLUGIN_TRANSPORT_V1_H

#include <xshmem/plugin/services_v1.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XSHMEM_TRANSPORT_ABI_VERSION 1
#define XSHMEM_TRANSPORT_ABI_MINOR 2 /* 1.0: base, 1.1: heap_grow, 1.2: data_ops, predict, desc */
#define XSHMEM_TRANSPORT_SYMBOL_V1 "xshmem_transport_plugin_v1"

/* Data paths (DESIGN.md "One device API, three data paths"); a closed set. */
typedef enum xshmem_path {
  XSHMEM_PATH_NONE = 0, /* unreachable */
  XSHMEM_PATH_LSA = 1,  /* load/store through a mapping of the peer's heap */
  XSHMEM_PATH_GDA = 2,  /* GPU-posted NIC work requests */
  XSHMEM_PATH_PROXY = 3 /* requests to a proxy thread that calls the transport's host ops */
} xshmem_path_t;

/* Per-peer attribute flags (xshmem_peer_info_v1_t.flags). */
#define XSHMEM_PEER_ATOMICS_NATIVE (1u << 0) /* atomics execute natively on the path */
#define XSHMEM_PEER_ORDERED (1u << 1)        /* puts to this peer arrive in issue order */

/* Capabilities (caps field). */
#define XSHMEM_TRANSPORT_CAP_HOST_HEAP (1u << 0)   /* serves heaps in host memory */
#define XSHMEM_TRANSPORT_CAP_DEVICE_HEAP (1u << 1) /* serves heaps in GPU memory */
/* Reaches peers through a network NIC (added in 1.1; older plugins leave it 0). When an allowed
 * transport has it and some PE is on another host (or the user names the transport in
 * XSHMEM_TRANSPORTS or XSHMEM_PAIR_TRANSPORTS), init discovers the topology and checks
 * XSHMEM_NICS and XSHMEM_NIC_MAP before the transports start: a bad value is an init error naming
 * the variable. Otherwise job info's nic is NULL. */
#define XSHMEM_TRANSPORT_CAP_NIC (1u << 2)

/* This PE's symmetric heap, as registered with each transport. */
typedef struct xshmem_mem_region_v1 {
  uint32_t struct_size;
  xshmem_mem_kind_t kind;
  void *base;  /* start of the heap in this process */
  size_t size; /* bytes */
  int fd;      /* a shareable file descriptor for the memory (memfd, CUDA POSIX handle), or -1 */
  int device;  /* CUDA device ordinal for DEVICE heaps, else -1 */
  /* ---- Appended in minor version 1.1 (check struct_size) ---- */
  /* DEVICE heaps: `base` and `size` are a reserved virtual range; physical memory is committed
   * from offset 0 upwards in chunks reported through heap_grow. Chunk offsets and sizes are
   * multiples of `granularity` (the CUDA allocation granularity), so a peer's range reserved with
   * this alignment can map each chunk at the same offset. 0 for HOST heaps. */
  size_t granularity;
} xshmem_mem_region_v1_t;

/* One piece of physical memory committed to a DEVICE heap (heap_grow). */
typedef struct xshmem_mem_chunk_v1 {
  uint32_t struct_size;
  size_t offset; /* from the heap's base; the same on every PE */
  size_t size;   /* bytes */
  int fd;        /* POSIX file descriptor of the CUDA allocation (owned by the core: dup it to keep
                    it past the call), or -1 if none */
} xshmem_mem_chunk_v1_t;

/* ---- Per-peer descriptors (1.2): what the path code needs to reach a peer, tagged by path ----
 * LSA: the peer heap's base mapped in this process (the same value as lsa_base).
 * GDA: an opaque device handle in a format the device path code knows (format names the layout,
 *      version its revision; the core refuses a format/version it was not built for). The handle
 *      lives in memory the GPU can read (device or mapped host memory) and stays valid until
 *      finalize.
 * PROXY: nothing the device needs beyond the path itself; the core's proxy engine calls the
 *      transport's data operations (xshmem_transport_data_ops_v1_t) for the peer. */
typedef enum xshmem_desc_kind {
  XSHMEM_DESC_NONE = 0,
  XSHMEM_DESC_LSA = 1,
  XSHMEM_DESC_GDA = 2,
  XSHMEM_DESC_PROXY = 3
} xshmem_desc_kind_t;

/* GDA handle formats known to the core. */
#define XSHMEM_GDA_FORMAT_MLX5 \
  1 /* mlx5 send queues + collapsed completion queues (the ibgda transport, gda_path.h) */

typedef struct xshmem_peer_desc_v1 {
  uint32_t kind; /* xshmem_desc_kind_t; NONE: the plugin left it to lsa_base (1.0/1.1 plugins) */
  uint32_t reserved;
  union {
    struct {
      void *base;
    } lsa;
    struct {
      uint32_t format;  /* XSHMEM_GDA_FORMAT_* */
      uint32_t version; /* revision of that format's layout */
      const void *handle;
      size_t handle_size;
    } gda;
    struct {
      uint64_t flags; /* reserved, 0 */
    } proxy;
  } u;
} xshmem_peer_desc_v1_t;

/* What a transport says of one peer. */
typedef struct xshmem_peer_info_v1 {
  uint32_t struct_size;
  xshmem_path_t path;      /* how the path code reaches the peer through this transport */
  uint32_t flags;          /* XSHMEM_PEER_* */
  uint32_t latency_ns;     /* cost estimate: one small operation */
  uint32_t bandwidth_mbps; /* cost estimate: large transfers, MB/s */
  void *lsa_base;          /* LSA: the peer's heap base mapped in this process (after connect) */
  /* ---- Appended in minor version 1.2 (the core sets struct_size to its own size; a plugin
   * writes a field only when XSHMEM_PEER_INFO_HAS(info, field)) ---- */
  /* Why can_reach said no (with XSHMEM_ERR_UNREACHABLE), or a short note on its yes: one line,
   * NUL-terminated, no newline ("peer on another host", "no P2P access between GPU 0 and 3").
   * xshmem-info prints it per pair; init names it when no transport reaches a peer. */
  char reason[128];
  /* The tagged per-peer descriptor the path code needs (filled by connect). */
  xshmem_peer_desc_v1_t desc;
  /* ---- Appended after the first 1.2 layout (write it only when
   * XSHMEM_PEER_INFO_HAS(info, gda_device_handle)) ---- */
  /* GDA: the handle GPU threads read, in memory the GPU reads fast (its own), in the format and
   * revision of desc.u.gda, when it differs from desc.u.gda.handle (which host threads read);
   * NULL: both read desc.u.gda.handle. */
  const void *gda_device_handle;
} xshmem_peer_info_v1_t;

/* Whether peer info `info` (a pointer) has room for field `field` (the core may be older). */
#define XSHMEM_PEER_INFO_HAS(info, field) \
  ((info)->struct_size >=                 \
   offsetof(xshmem_peer_info_v1_t, field) + sizeof(((xshmem_peer_info_v1_t *)0)->field))

/* Defined below (1.2). */
struct xshmem_plan_pe_v1;
struct xshmem_transport_data_ops_v1;

typedef struct xshmem_transport_v1 {
  uint32_t abi_version; /* XSHMEM_TRANSPORT_ABI_VERSION */
  uint32_t struct_size; /* sizeof(xshmem_transport_v1_t) of the plugin's SDK */
  const char *name;     /* "hostshm", "nvlink", ...: the name used in XSHMEM_TRANSPORTS */
  uint64_t caps;        /* XSHMEM_TRANSPORT_CAP_* */

  /* Called once after dlopen, before the bootstrap is up; registers config entries. A failure
   * refuses the plugin (it is unloaded, the others go on). */
  xshmem_status_t (*load)(const xshmem_core_services_v1_t *svc);

  /* Job start (the bootstrap is up; collectives of the services table work). *ctx is the
   * transport's state for the other calls. */
  xshmem_status_t (*init)(void **ctx);

  /* Registers this PE's heap and learns the peers' heaps (collective). */
  xshmem_status_t (*heap_register)(void *ctx, const xshmem_mem_region_v1_t *heap);

  /* Whether this transport can reach `pe`, and at what cost. Local and cheap, no communication.
   * Returns XSHMEM_SUCCESS and fills *info, or XSHMEM_ERR_UNREACHABLE. */
  xshmem_status_t (*can_reach)(void *ctx, int pe, xshmem_peer_info_v1_t *info);

  /* Collective: the core tells which peers chose this transport (`selected[pe]` nonzero);
   * the transport finishes the connections and fills infos[pe] (for LSA, lsa_base) for them. */
  xshmem_status_t (*connect)(void *ctx, const uint8_t *selected, xshmem_peer_info_v1_t *infos);

  /* Undoes heap_register (collective). */
  xshmem_status_t (*heap_deregister)(void *ctx);

  /* Frees everything init created. */
  xshmem_status_t (*finalize)(void *ctx);

  /* ---- Appended in minor version 1.1; optional (NULL: not needed) ---- */

  /* Collective: this PE's heap gained `chunk` (physical memory now backs [offset, offset+size)),
   * and so did every other PE's heap at the same offset (heaps grow alike: allocation is
   * collective and deterministic). Called after heap_register for every chunk, including those
   * committed before heap_register, in offset order. A failure stops the job: peers may already
   * have mapped the chunk. */
  xshmem_status_t (*heap_grow)(void *ctx, const xshmem_mem_chunk_v1_t *chunk);

  /* ---- Appended in minor version 1.2; optional (NULL: not provided) ---- */

  /* Host data operations, for PROXY (and host-initiated) traffic: a separately sized table (see
   * xshmem_transport_data_ops_v1_t). NULL: the transport serves only LSA or GDA peers. */
  const struct xshmem_transport_data_ops_v1 *data_ops;

  /* Plan without a job (xshmem-info --plan, the selection tests): whether this transport would
   * reach `peer` from `self`, described by topology only, and at what cost. Called without init;
   * pure, no communication. Fills info (path, flags, costs, reason) and returns XSHMEM_SUCCESS
   * or XSHMEM_ERR_UNREACHABLE. NULL: the plan shows the transport as "not predicted". */
  xshmem_status_t (*predict)(const struct xshmem_plan_pe_v1 *self,
                             const struct xshmem_plan_pe_v1 *peer, xshmem_peer_info_v1_t *info);
} xshmem_transport_v1_t;

/* A PE as the plan sees it (predict). */
typedef struct xshmem_plan_pe_v1 {
  uint32_t struct_size;
  int pe;
  uint64_t host_id;       /* equal: the same host */
  int gpu;                /* CUDA ordinal on its host, -1: a CPU PE */
  const char *gpu_pci;    /* "0000:1b:00.0", or NULL */
  const char *nic;        /* the NIC chosen for the PE ("mlx5_0"), or NULL */
  int gpu_p2p_with_peer;  /* 1: the two GPUs have peer access (same host), 0 no, -1 unknown */
  int nvlinks_with_peer;  /* NVLinks between the two GPUs, 0 none, -1 unknown */
  xshmem_mem_kind_t heap; /* where the PE's heap lives */
  /* Appended after the first 1.2 layout; read only when XSHMEM_PLAN_PE_HAS(pe, hosts). */
  int hosts; /* hosts (nodes) of the planned job, 0 unknown */
} xshmem_plan_pe_v1_t;

/* Whether plan record `p` (a pointer) has field `field` (the core may be older). */
#define XSHMEM_PLAN_PE_HAS(p, field) \
  ((p)->struct_size >=               \
   offsetof(xshmem_plan_pe_v1_t, field) + sizeof(((xshmem_plan_pe_v1_t *)0)->field))

/* ---- Host data operations (1.2) ----
 * Remote locations are offsets from the start of the target's symmetric heap (the same on every
 * PE); the transport translates them to its keys and addresses. Local buffers are addresses in
 * this process: inside the heap (registered by heap_register/heap_grow) or outside it (then
 * registered with mem_register, or staged by the transport). `channel` in [0, num_channels) of
 * xshmem_job_info_v1_t picks the transport's queue/endpoint: operations of one channel are issued
 * by one thread at a time; different channels may be used by different threads at once.
 * Completion: a call returns when its local buffer may be reused (put) or holds the data (get,
 * fetching atomics) unless XSHMEM_DATA_NBI is set, in which case completion happens by the next
 * quiet of that channel. Remote visibility: at quiet (all previous operations of the channel are
 * complete at their targets) or, between operations to one target, at fence.
 * Every operation that a table leaves NULL (or that lies past its struct_size) is "not supported":
 * the core substitutes a stub that returns XSHMEM_ERR_UNSUPPORTED. */
#define XSHMEM_DATA_NBI (1u << 0) /* do not wait for local completion */

/* Atomic operations and their operand types: xshmem_amo_op_t, xshmem_amo_type_t (common.h). */

/* Data-ops flags (xshmem_transport_data_ops_v1_t.flags). */
/* Puts from one channel to one target are delivered in issue order without a fence. */
#define XSHMEM_DATA_OPS_ORDERED (1u << 0)
/* amo executes at the target with the CPU's (host heaps) or GPU's (device heaps) atomic
 * instructions, so it is atomic with respect to LSA atomics on the same location. */
#define XSHMEM_DATA_OPS_AMO_COHERENT (1u << 1)

typedef struct xshmem_transport_data_ops_v1 {
  uint32_t struct_size; /* sizeof(xshmem_transport_data_ops_v1_t) of the plugin's SDK */
  uint32_t flags;       /* XSHMEM_DATA_OPS_* */

  xshmem_status_t (*put)(void *ctx, int channel, int pe, uint64_t remote_offset, const void *src,
                         size_t nbytes, uint32_t flags);
  xshmem_status_t (*get)(void *ctx, int channel, int pe, void *dst, uint64_t remote_offset,
                         size_t nbytes, uint32_t flags);
  /* *fetched receives the old value for FETCH* / SWAP / COMPARE_SWAP / FETCH (may be NULL for the
   * others). Fetching forms complete before returning even with XSHMEM_DATA_NBI unless `fetched`
   * stays valid until the channel's quiet. */
  xshmem_status_t (*amo)(void *ctx, int channel, int pe, uint64_t remote_offset, xshmem_amo_op_t op,
                         xshmem_amo_type_t type, uint64_t operand, uint64_t compare,
                         uint64_t *fetched, uint32_t flags);
  /* The data, then (ordered after it at the target: a peer that sees the signal sees the data)
   * the 64-bit signal at signal_offset updated with sig_op (XSHMEM_SIGNAL_SET or _ADD). */
  xshmem_status_t (*put_signal)(void *ctx, int channel, int pe, uint64_t remote_offset,
                                const void *src, size_t nbytes, uint64_t signal_offset,
                                uint64_t signal, int sig_op, uint32_t flags);
  /* Orders the channel's earlier puts, atomics and signals to each target before its later ones. */
  xshmem_status_t (*fence)(void *ctx, int channel);
  /* Completes every operation of the channel issued so far (remotely visible on return). */
  xshmem_status_t (*quiet)(void *ctx, int channel);
  /* Makes progress without blocking (the proxy engine calls it when idle; may be NULL). */
  xshmem_status_t (*progress)(void *ctx);
  /* Registers a local buffer outside the heap for use as src/dst; *handle is passed back to
   * mem_deregister. May be NULL (the transport stages unregistered buffers itself). */
  xshmem_status_t (*mem_register)(void *ctx, void *addr, size_t nbytes, xshmem_mem_kind_t kind,
                                  void **handle);
  xshmem_status_t (*mem_deregister)(void *ctx, void *handle);
  /* An asynchronous failure seen since the last call (a peer's connection lost, a completion in
   * error): returns its status and writes one line naming the peer into buf; XSHMEM_SUCCESS when
   * none. The core polls it from the proxy engine and stops the job on an error. */
  xshmem_status_t (*error_query)(void *ctx, char *buf, size_t len);
} xshmem_transport_data_ops_v1_t;

/* Size of the smallest data-ops table the core accepts (put through quiet). */
#define XSHMEM_TRANSPORT_DATA_OPS_V1_MIN_SIZE \
  (offsetof(xshmem_transport_data_ops_v1_t, quiet) + sizeof(void *))

/* Whether data-ops table `d` (a pointer) provides operation `op`. */
#define XSHMEM_DATA_OPS_HAS_OP(d, op)                                           \
  ((d)->struct_size >= offsetof(xshmem_transport_data_ops_v1_t, op) +           \
                           sizeof(((xshmem_transport_data_ops_v1_t *)0)->op) && \
   (d)->op != NULL)

/* Size of the version 1.0 struct: the smallest struct_size the core accepts. */
#define XSHMEM_TRANSPORT_V1_MIN_SIZE (offsetof(xshmem_transport_v1_t, finalize) + sizeof(void *))

/* Whether transport `t` (a pointer) provides operation `op`: the op lies within the plugin's
 * struct_size (older plugins end earlier) and is not NULL. */
#define XSHMEM_TRANSPORT_HAS_OP(t, op)                                                   \
  ((t)->struct_size >=                                                                   \
       offsetof(xshmem_transport_v1_t, op) + sizeof(((xshmem_transport_v1_t *)0)->op) && \
   (t)->op != NULL)

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_PLUGIN_TRANSPORT_V1_H */

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
 * transport has it, init discovers the topology and checks XSHMEM_NICS and XSHMEM_NIC_MAP before
 * the transports start: a bad value is an init error naming the variable. */
#define XSHMEM_TRANSPORT_CAP_NIC (1u << 2)

/* Kinds of symmetric heap memory. */
typedef enum xshmem_mem_kind { XSHMEM_MEM_HOST = 0, XSHMEM_MEM_DEVICE = 1 } xshmem_mem_kind_t;

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

/* What a transport says of one peer. */
typedef struct xshmem_peer_info_v1 {
  uint32_t struct_size;
  xshmem_path_t path;      /* how the path code reaches the peer through this transport */
  uint32_t flags;          /* XSHMEM_PEER_* */
  uint32_t latency_ns;     /* cost estimate: one small operation */
  uint32_t bandwidth_mbps; /* cost estimate: large transfers, MB/s */
  void *lsa_base;          /* LSA: the peer's heap base mapped in this process (after connect) */
} xshmem_peer_info_v1_t;

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
} xshmem_transport_v1_t;

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

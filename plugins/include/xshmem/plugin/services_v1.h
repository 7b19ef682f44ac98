/*
 * xshmem plugin SDK: the core-services table handed to every plugin's init.
 *
 * Plugins link neither libxshmem nor libcuda. Everything they need from the core (logging,
 * configuration, job-wide collectives, node-local descriptor exchange, CUDA driver entry points)
 * comes through this table. The table stays valid from the plugin's init until its finalize
 * returns.
 */
#ifndef XSHMEM_PLUGIN_SERVICES_V1_H
#define XSHMEM_PLUGIN_SERVICES_V1_H

#include <xshmem/plugin/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XSHMEM_SERVICES_ABI_VERSION 1

/* One operation of heap_apply (services 1.4): an atomic on a word of this PE's GPU heap, or a copy
 * into or out of that heap. */
#define XSHMEM_HEAP_OP_AMO 0
#define XSHMEM_HEAP_OP_COPY 1
typedef struct xshmem_heap_op_v1 {
  uint32_t kind;    /* XSHMEM_HEAP_OP_AMO or XSHMEM_HEAP_OP_COPY */
  uint32_t width;   /* AMO: 4 or 8 */
  int32_t op;       /* AMO: xshmem_amo_op_t */
  int32_t src_pe;   /* the PE the operation came from, for the log line of a refusal */
  void *addr;       /* AMO: the naturally aligned word; COPY: the destination */
  const void *src;  /* COPY: the source; one of addr and src lies in the heap, the other in host
                       memory (page-locked for speed) */
  uint64_t operand; /* AMO: the operand, zero-extended; COPY: the byte count */
  uint64_t compare; /* AMO: COMPARE_SWAP's compare value */
  uint64_t old;     /* out, AMO: the old value (SET: 0), zero-extended */
  int32_t status;   /* out: XSHMEM_SUCCESS, or XSHMEM_ERR_INVALID (refused, not applied) */
  uint32_t reserved;
} xshmem_heap_op_v1_t;

/* What the core knows of the job once the bootstrap is up (zeroed before that). */
typedef struct xshmem_job_info_v1 {
  uint32_t struct_size;
  int my_pe;               /* rank in the world team */
  int n_pes;               /* world size */
  int my_local_pe;         /* rank among PEs on the same host, -1 before the bootstrap */
  int n_local_pes;         /* PEs on the same host */
  const int *local_rank;   /* [n_pes]: the PE's rank on its host */
  const uint64_t *host_id; /* [n_pes]: equal values mean the same host */
  const char *job_token;   /* NUL-terminated hex string, the same on every PE of the job */
  /* ---- Appended in minor version 1.2 (check XSHMEM_JOB_INFO_HAS) ---- */
  const char *nic;     /* the NIC chosen for this PE (XSHMEM_NICS / hwloc distance), or NULL */
  const char *gpu_pci; /* this PE's GPU as a PCI bus id ("0000:1b:00.0"), or NULL: a CPU PE */
  int num_channels;    /* proxy channels: data operations use channel in [0, num_channels) */
  xshmem_mem_kind_t heap_kind; /* where this PE's symmetric heap lives */
} xshmem_job_info_v1_t;

#define XSHMEM_JOB_INFO_HAS(ji, field) \
  ((ji)->struct_size >=                \
   offsetof(xshmem_job_info_v1_t, field) + sizeof(((xshmem_job_info_v1_t *)0)->field))

typedef struct xshmem_core_services_v1 {
  uint32_t abi_version; /* XSHMEM_SERVICES_ABI_VERSION */
  uint32_t struct_size; /* sizeof(xshmem_core_services_v1_t) of the core */

  /* Logging: one logger for core and plugins. `subsys` is the plugin's name. The message is a
   * printf format; a newline is added. log_enabled lets callers skip building costly messages. */
  void (*log)(xshmem_log_level_t level, const char *subsys, const char *file, int line,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
  int (*log_enabled)(xshmem_log_level_t level, const char *subsys);

  /* Configuration: a plugin registers its variables once, in init, then reads them. Getters
   * return the value from the environment, or the default; a value that does not parse is
   * reported through the log and the default is used. */
  xshmem_status_t (*config_register)(const xshmem_config_entry_v1_t *entries, size_t n);
  const char *(*config_get_string)(const char *name);
  int64_t (*config_get_int)(const char *name); /* INT, SIZE (bytes), DURATION (ms), BOOL */

  /* The job, as far as it is known (my_pe is -1 before the bootstrap is up). */
  const xshmem_job_info_v1_t *(*job_info)(void);

  /* Job-wide collectives over the bootstrap (for transports; slow, out of band). All PEs call
   * them in the same order. */
  xshmem_status_t (*allgather)(const void *in, void *out, size_t len_per_pe);
  xshmem_status_t (*barrier)(void);

  /* Node-local descriptor exchange: every PE of the job calls it; each PE offers `my_fd` (or -1)
   * and receives, in peer_fds[pe], a new descriptor for the file offered by each PE on the same
   * host (-1 for itself, for PEs of other hosts and for PEs that offered -1). Runs over a
   * Unix-domain socket in the abstract namespace keyed by the job token. The caller owns and
   * closes the descriptors it receives. */
  xshmem_status_t (*node_fd_exchange)(int my_fd, int *peer_fds);

  /* Fatal error: logs `msg`, tells every PE of the job to exit, and exits with `exit_code`. */
  void (*fatal)(int exit_code, const char *subsys, const char *msg) __attribute__((noreturn));

  /* ---- Appended in minor version 1.1 (check with XSHMEM_SERVICES_HAS before use) ---- */

  /* CUDA driver entry point `symbol` (for example "cuMemMap"), in the ABI of the CUDA driver
   * version XSHMEM_CUDA_DRIVER_ABI (use the PFN_<symbol>_v<version> typedefs of cudaTypedefs.h
   * that this version selects), or NULL when there is no usable driver, the symbol is unknown, or
   * the core was built without CUDA. Plugins never link libcuda: this is how they reach it. Safe
   * to call from any thread; cheap after the first call for a symbol is not guaranteed, so look
   * entry points up once, in init. */
  void *(*cuda_driver_proc)(const char *symbol);

  /* ---- Appended in minor version 1.3 ---- */

  /* Atomic `op` on the naturally aligned word of `width` bytes (4 or 8) at `addr` in this PE's
   * symmetric heap when that heap is GPU memory, executed with the GPU's own atomic instructions
   * (a one-thread kernel on a stream of the core's, waited for). Atomic with respect to the
   * atomics that this PE's kernels and its NVLink peers apply to the same word, which a copy out,
   * a CPU update and a copy back are not: a transport that executes its peers' atomics on a GPU
   * heap (a progress thread) calls this. *old (may be NULL) receives the old value (SET: 0),
   * zero-extended. Returns XSHMEM_ERR_INVALID, with a log line naming `src_pe` (the PE the atomic
   * came from), when the heap is host memory or addr, width or op is out of range. Stops the job
   * when the kernel fails, or has not run within 30 s (XSHMEM_WAIT_TIMEOUT when longer: kernels
   * hold every SM). Thread-safe (calls are serialised). */
  xshmem_status_t (*heap_amo)(void *addr, uint32_t width, xshmem_amo_op_t op, uint64_t operand,
                              uint64_t compare, uint64_t *old, int src_pe);

  /* ---- Appended in minor version 1.4 ---- */

  /* The operations of ops[0, n) on this PE's GPU heap, in array order, on heap_amo's stream: runs
   * of atomics as one kernel each (heap_amo's instructions), copies as stream copies, then one
   * wait. A transport's progress thread passes everything it has received so far (its peers'
   * atomics and staged puts, say): a kernel launch, a wait and, where processes share a GPU, a
   * time slice per batch instead of per operation. An entry that heap_amo would refuse (or a
   * copy whose heap side is outside the heap) gets status XSHMEM_ERR_INVALID, with a log line
   * naming its src_pe, and is skipped; the others are applied. Returns XSHMEM_SUCCESS when every
   * entry was applied, else the first refused entry's status. Stops the job as heap_amo does.
   * Thread-safe (calls are serialised). */
  xshmem_status_t (*heap_apply)(xshmem_heap_op_v1_t *ops, size_t n);
} xshmem_core_services_v1_t;

/* The CUDA version whose driver ABI cuda_driver_proc returns (12.0). */
#define XSHMEM_CUDA_DRIVER_ABI 12000

/* Whether the services table `svc` (a pointer) has field `field` (appended in a minor version):
 * the core that handed it over may be older than the plugin's SDK. */
#define XSHMEM_SERVICES_HAS(svc, field)                                         \
  ((svc)->struct_size >= offsetof(xshmem_core_services_v1_t, field) +           \
                             sizeof(((xshmem_core_services_v1_t *)0)->field) && \
   (svc)->field != NULL)

/* Convenience logging macros for plugins; `svc` is the services table and `SUBSYS` a string. */
#define XSHMEM_PLOG(svc, lvl, subsys, ...)                          \
  do {                                                              \
    if ((svc)->log_enabled((lvl), (subsys)))                        \
      (svc)->log((lvl), (subsys), __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_PLUGIN_SERVICES_V1_H */

/*
 * xshmem plugin SDK: bootstrap plugins, ABI major version 1.
 *
 * A bootstrap plugin starts a job: it tells each process its rank and the job size and offers
 * slow, out-of-band collectives that the core uses during init and for control traffic (abort,
 * test agreement). It does not carry data-path traffic.
 *
 * A bootstrap plugin is a shared library named libxshmem_bootstrap_<name>.so that exports exactly
 * one symbol, `xshmem_bootstrap_plugin_v1`, of type xshmem_bootstrap_v1_t.
 */
#ifndef XSHMEM_PLUGIN_BOOTSTRAP_V1_H
#define XSHMEM_PLUGIN_BOOTSTRAP_V1_H

#include <xshmem/plugin/services_v1.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XSHMEM_BOOTSTRAP_ABI_VERSION 1
#define XSHMEM_BOOTSTRAP_SYMBOL_V1 "xshmem_bootstrap_plugin_v1"

/* Size of the opaque unique id (xshmem_uniqueid_t in the public API). */
#define XSHMEM_UNIQUEID_BYTES 128

/* Capabilities (caps field). */
#define XSHMEM_BOOTSTRAP_CAP_UNIQUEID (1u << 0) /* supports get_uniqueid / init with unique id */

/* Arguments of init. */
typedef struct xshmem_bootstrap_args_v1 {
  uint32_t struct_size;
  const void *uniqueid; /* NULL unless the application initialises with a unique id */
  int rank;             /* with uniqueid: this process's rank; else -1 */
  int nranks;           /* with uniqueid: the job size; else -1 */
  /* Since 1.1 (struct_size covers it): an MPI_Comm * of the application (the job is that
   * communicator), or NULL. Only the mpi plugin takes it. */
  const void *mpi_comm;
} xshmem_bootstrap_args_v1_t;

/* Whether the caller's args struct (its struct_size) reaches `field`: a plugin reads a field added
 * in a later minor version only when this holds (as XSHMEM_SERVICES_HAS for the services). */
#define XSHMEM_BOOTSTRAP_ARGS_COVER(args, field) \
  ((args)->struct_size >=                        \
   offsetof(xshmem_bootstrap_args_v1_t, field) + sizeof(((xshmem_bootstrap_args_v1_t *)0)->field))

typedef struct xshmem_bootstrap_v1 {
  uint32_t abi_version; /* XSHMEM_BOOTSTRAP_ABI_VERSION */
  uint32_t struct_size; /* sizeof(xshmem_bootstrap_v1_t) of the plugin's SDK */
  const char *name;     /* "tcp", "mpi", ...: selected by XSHMEM_BOOTSTRAP */
  uint64_t caps;        /* XSHMEM_BOOTSTRAP_CAP_* */

  /* Called once after the plugin is loaded; registers config entries. Must not start a job. */
  xshmem_status_t (*load)(const xshmem_core_services_v1_t *svc);

  /* How strongly the environment says the job was started by this plugin's launcher: 0 not at
   * all, higher wins. Used when XSHMEM_BOOTSTRAP is unset. */
  int (*detect)(void);

  /* Creates a unique id (rank 0 of an application with its own launcher). Optional (NULL). */
  xshmem_status_t (*get_uniqueid)(void *id, size_t len);

  /* Joins the job. On success *rank and *size are set and *ctx is the plugin's state. */
  xshmem_status_t (*init)(const xshmem_bootstrap_args_v1_t *args, void **ctx, int *rank, int *size);

  /* Collectives: every rank calls them in the same order; each returns an error (never hangs
   * past the bootstrap's timeout) if a rank died. */
  xshmem_status_t (*allgather)(void *ctx, const void *in, void *out, size_t len_per_rank);
  xshmem_status_t (*alltoall)(void *ctx, const void *in, void *out, size_t len_per_rank);
  xshmem_status_t (*bcast)(void *ctx, void *buf, size_t len, int root);
  xshmem_status_t (*barrier)(void *ctx);

  /* Makes every process of the job exit with `exit_code` soon; does not return. */
  void (*abort)(void *ctx, int exit_code, const char *reason);

  /* Leaves the job; frees everything init created (threads, sockets). */
  xshmem_status_t (*finalize)(void *ctx);
} xshmem_bootstrap_v1_t;

/* Size of the version 1.0 struct: the smallest struct_size the core accepts (later minor versions
 * append fields after finalize). */
#define XSHMEM_BOOTSTRAP_V1_MIN_SIZE (offsetof(xshmem_bootstrap_v1_t, finalize) + sizeof(void *))

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_PLUGIN_BOOTSTRAP_V1_H */

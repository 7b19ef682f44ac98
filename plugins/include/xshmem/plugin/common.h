/*
 * xshmem plugin SDK: types shared by every plugin kind.
 *
 * Plain C, no C++ types, no exceptions: these headers are the ABI between libxshmem and plugins
 * built separately. Structs that cross the boundary start with {abi_version, struct_size} so that
 * a newer core can read an older plugin (minor versions only append fields).
 */
#ifndef XSHMEM_PLUGIN_COMMON_H
#define XSHMEM_PLUGIN_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes returned across the plugin ABI. 0 is success, errors are negative. */
typedef int xshmem_status_t;
#define XSHMEM_SUCCESS 0
#define XSHMEM_ERR_INVALID (-1)     /* a bad argument */
#define XSHMEM_ERR_UNSUPPORTED (-2) /* the operation is not provided */
#define XSHMEM_ERR_NOMEM (-3)       /* out of memory or heap space */
#define XSHMEM_ERR_TIMEOUT (-4)     /* a deadline passed */
#define XSHMEM_ERR_IO (-5)          /* a system call or socket failed */
#define XSHMEM_ERR_UNREACHABLE (-6) /* the peer cannot be reached by this plugin */
#define XSHMEM_ERR_PEER_FAILED (-7) /* a peer died or closed its connection */
#define XSHMEM_ERR_ABI (-8)         /* ABI version mismatch */
#define XSHMEM_ERR_INTERNAL (-9)    /* a bug */
#define XSHMEM_ERR_NOT_FOUND (-10)  /* nothing matched (plugin, key, ...) */

/* Kinds of memory (symmetric heaps, registered buffers). */
typedef enum xshmem_mem_kind { XSHMEM_MEM_HOST = 0, XSHMEM_MEM_DEVICE = 1 } xshmem_mem_kind_t;

/* Atomic operations (the transports' data ops amo, the services' heap_amo). */
typedef enum xshmem_amo_op {
  XSHMEM_AMO_FETCH = 0,        /* returns the value */
  XSHMEM_AMO_SET = 1,          /* stores operand */
  XSHMEM_AMO_SWAP = 2,         /* stores operand, returns the old value */
  XSHMEM_AMO_COMPARE_SWAP = 3, /* stores operand if value == compare; returns the old value */
  XSHMEM_AMO_ADD = 4,
  XSHMEM_AMO_FETCH_ADD = 5,
  XSHMEM_AMO_AND = 6,
  XSHMEM_AMO_FETCH_AND = 7,
  XSHMEM_AMO_OR = 8,
  XSHMEM_AMO_FETCH_OR = 9,
  XSHMEM_AMO_XOR = 10,
  XSHMEM_AMO_FETCH_XOR = 11
} xshmem_amo_op_t;

/* Operand types of atomics (bits are passed in uint64_t, zero-extended). */
typedef enum xshmem_amo_type {
  XSHMEM_AMO_U32 = 0,
  XSHMEM_AMO_U64 = 1,
  XSHMEM_AMO_I32 = 2,
  XSHMEM_AMO_I64 = 3,
  XSHMEM_AMO_F32 = 4, /* FETCH, SET, SWAP only */
  XSHMEM_AMO_F64 = 5  /* FETCH, SET, SWAP only */
} xshmem_amo_type_t;

/* Log levels, from most to least severe. */
typedef enum xshmem_log_level {
  XSHMEM_LOG_ERROR = 0,
  XSHMEM_LOG_WARN = 1,
  XSHMEM_LOG_INFO = 2,
  XSHMEM_LOG_DEBUG = 3,
  XSHMEM_LOG_TRACE = 4
} xshmem_log_level_t;

/* Types of configuration variables (see xshmem_config_entry_v1_t). */
typedef enum xshmem_config_type {
  XSHMEM_CONFIG_BOOL = 0,    /* 0/1, y/n, yes/no, on/off, true/false */
  XSHMEM_CONFIG_INT = 1,     /* signed decimal */
  XSHMEM_CONFIG_SIZE = 2,    /* bytes with optional K, M, G, T suffix (powers of 1024) */
  XSHMEM_CONFIG_STRING = 3,  /* free text */
  XSHMEM_CONFIG_ENUM = 4,    /* one of the words in `choices` (comma separated) */
  XSHMEM_CONFIG_LIST = 5,    /* comma-separated words, "^a,b" excludes a and b */
  XSHMEM_CONFIG_DURATION = 6 /* seconds with optional ms, s, m suffix; stored as milliseconds */
} xshmem_config_type_t;

/*
 * One configuration variable. `name` is the whole environment variable name, for example
 * "XSHMEM_HOSTSHM_COPY_THRESHOLD". The core keeps one table built from its own entries and those
 * registered by plugins; `xshmem-info --env` prints it.
 */
typedef struct xshmem_config_entry_v1 {
  const char *name; /* XSHMEM_<MODULE>_<KEY> */
  xshmem_config_type_t type;
  const char *default_value; /* as text, parsed like a value from the environment */
  const char *choices;       /* ENUM and LIST: allowed words, comma separated; else NULL */
  const char *doc;           /* one sentence: what it does and when to change it */
} xshmem_config_entry_v1_t;

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_PLUGIN_COMMON_H */

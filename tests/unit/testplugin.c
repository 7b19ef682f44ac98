/* A plugin for the loader tests, built several times with different defines:
 *   TP_TRANSPORT / TP_BOOTSTRAP  which kind
 *   TP_NAME                      the plugin's name
 *   TP_ABI, TP_SIZE              override abi_version / struct_size (broken plugins)
 *   TP_LOAD_FAIL                 load() registers an entry, then fails with XSHMEM_ERR_IO
 *   TP_NO_SYMBOL                 the entry structure is exported under a wrong name
 *   TP_CAPS                      the transport's caps (default XSHMEM_TRANSPORT_CAP_HOST_HEAP)
 *   TP_REGISTER_OK               heap_register succeeds (the transport starts, reaching no one)
 *   TP_DATA_OPS                  provides a data-operations table (ABI 1.2) ...
 *   TP_DATA_OPS_SIZE             ... whose struct_size is this (default: the SDK's size)
 *   TP_JOBINFO                   init() logs the job info's 1.2 fields at warn level (then heap
 *                                registration fails, so the job goes on without this transport)
 *   TP_PREDICT                   provides predict (ABI 1.2): reaches a pair when the sum of the two
 *                                PE numbers is even, at 10 ns (cheaper than hostshm), with a reason
 * The good transport registers XSHMEM_UNITTEST_GOOD_KNOB in load() and hands the value it read
 * through the services table back as its init() context, so a test can check the round trip. */
#include <stdint.h>
#include <stdio.h>
#include <xshmem/plugin/bootstrap_v1.h>
#include <xshmem/plugin/transport_v1.h>

#define TP_EXPORT __attribute__((visibility("default")))

static const xshmem_core_services_v1_t *g_svc;
#if defined(TP_TRANSPORT)
static int64_t g_knob = -1;
#endif

#if defined(TP_LOAD_FAIL)
static const xshmem_config_entry_v1_t kEntries[] = {
    {"XSHMEM_UNITTEST_LOADFAIL_KNOB", XSHMEM_CONFIG_INT, "3", NULL,
     "Registered by a plugin whose load() then fails."}};
#elif defined(TP_TRANSPORT) && !defined(TP_DUP)
static const xshmem_config_entry_v1_t kEntries[] = {{"XSHMEM_UNITTEST_GOOD_KNOB",
                                                     XSHMEM_CONFIG_SIZE, "4K", NULL,
                                                     "Read by the good test transport in load()."}};
#endif

static xshmem_status_t tp_load(const xshmem_core_services_v1_t *svc) {
  g_svc = svc;
#if defined(TP_LOAD_FAIL)
  if (svc->config_register(kEntries, 1) != XSHMEM_SUCCESS) return XSHMEM_ERR_INTERNAL;
  XSHMEM_PLOG(svc, XSHMEM_LOG_DEBUG, TP_NAME, "failing load on purpose");
  return XSHMEM_ERR_IO;
#elif defined(TP_TRANSPORT) && !defined(TP_DUP)
  if (svc->config_register(kEntries, 1) != XSHMEM_SUCCESS) return XSHMEM_ERR_INTERNAL;
  g_knob = svc->config_get_int("XSHMEM_UNITTEST_GOOD_KNOB");
  XSHMEM_PLOG(svc, XSHMEM_LOG_INFO, TP_NAME, "knob is %lld", (long long)g_knob);
#endif
  return XSHMEM_SUCCESS;
}

#if defined(TP_TRANSPORT)
static xshmem_status_t tp_init(void **ctx) {
#ifdef TP_JOBINFO
  const xshmem_job_info_v1_t *ji = g_svc->job_info();
  if (XSHMEM_JOB_INFO_HAS(ji, heap_kind))
    XSHMEM_PLOG(g_svc, XSHMEM_LOG_WARN, TP_NAME,
                "pe %d of %d: nic %s, gpu_pci %s, num_channels %d, heap_kind %s", ji->my_pe,
                ji->n_pes, ji->nic ? ji->nic : "none", ji->gpu_pci ? ji->gpu_pci : "none",
                ji->num_channels, ji->heap_kind == XSHMEM_MEM_DEVICE ? "device" : "host");
  else
    XSHMEM_PLOG(g_svc, XSHMEM_LOG_WARN, TP_NAME, "job info of %u bytes has no 1.2 fields",
                ji->struct_size);
#endif
  *ctx = (void *)(intptr_t)g_knob;
  return XSHMEM_SUCCESS;
}
static xshmem_status_t tp_heap_register(void *ctx, const xshmem_mem_region_v1_t *heap) {
  (void)ctx;
  (void)heap;
#ifdef TP_REGISTER_OK
  return XSHMEM_SUCCESS;
#else
  return XSHMEM_ERR_UNSUPPORTED;
#endif
}
static xshmem_status_t tp_can_reach(void *ctx, int pe, xshmem_peer_info_v1_t *info) {
  (void)ctx;
  (void)pe;
  (void)info;
  return XSHMEM_ERR_UNREACHABLE;
}
static xshmem_status_t tp_connect(void *ctx, const uint8_t *selected,
                                  xshmem_peer_info_v1_t *infos) {
  (void)ctx;
  (void)selected;
  (void)infos;
  return XSHMEM_ERR_UNSUPPORTED;
}
static xshmem_status_t tp_ctx_only(void *ctx) {
  (void)ctx;
  return XSHMEM_SUCCESS;
}

#ifdef TP_DATA_OPS
static xshmem_status_t tp_put(void *ctx, int channel, int pe, uint64_t off, const void *src,
                              size_t n, uint32_t flags) {
  (void)ctx;
  (void)channel;
  (void)pe;
  (void)off;
  (void)src;
  (void)n;
  (void)flags;
  return XSHMEM_SUCCESS;
}
static xshmem_status_t tp_channel(void *ctx, int channel) {
  (void)ctx;
  (void)channel;
  return XSHMEM_SUCCESS;
}
#ifndef TP_DATA_OPS_SIZE
#define TP_DATA_OPS_SIZE sizeof(xshmem_transport_data_ops_v1_t)
#endif
static const xshmem_transport_data_ops_v1_t tp_data_ops = {
    .struct_size = TP_DATA_OPS_SIZE,
    .flags = 0,
    .put = tp_put,
    .get = NULL,
    .amo = NULL,
    .put_signal = NULL,
    .fence = tp_channel,
    .quiet = tp_channel,
    .progress = NULL,
    .mem_register = NULL,
    .mem_deregister = NULL,
    .error_query = NULL,
};
#define TP_DATA_OPS_PTR (&tp_data_ops)
#else
#define TP_DATA_OPS_PTR NULL
#endif

#ifdef TP_PREDICT
static xshmem_status_t tp_predict(const xshmem_plan_pe_v1_t *self, const xshmem_plan_pe_v1_t *peer,
                                  xshmem_peer_info_v1_t *info) {
  const int sum = self->pe + peer->pe;
  if (XSHMEM_PEER_INFO_HAS(info, reason))
    snprintf(info->reason, sizeof(info->reason), "test rule: pe sum %d is %s", sum,
             sum % 2 == 0 ? "even" : "odd");
  if (sum % 2 != 0) return XSHMEM_ERR_UNREACHABLE;
  info->path = XSHMEM_PATH_PROXY;
  info->latency_ns = 10;
  info->bandwidth_mbps = 1;
  return XSHMEM_SUCCESS;
}
#define TP_PREDICT_FN tp_predict
#else
#define TP_PREDICT_FN NULL
#endif

#ifdef TP_NO_SYMBOL
#define TP_SYMBOL xshmem_transport_plugin_v1_misspelled
#else
#define TP_SYMBOL xshmem_transport_plugin_v1
#endif
#ifndef TP_ABI
#define TP_ABI XSHMEM_TRANSPORT_ABI_VERSION
#endif
#ifndef TP_SIZE
#define TP_SIZE sizeof(xshmem_transport_v1_t)
#endif
#ifndef TP_CAPS
#define TP_CAPS XSHMEM_TRANSPORT_CAP_HOST_HEAP
#endif

TP_EXPORT const xshmem_transport_v1_t TP_SYMBOL = {
    .abi_version = TP_ABI,
    .struct_size = TP_SIZE,
    .name = TP_NAME,
    .caps = TP_CAPS,
    .load = tp_load,
    .init = tp_init,
    .heap_register = tp_heap_register,
    .can_reach = tp_can_reach,
    .connect = tp_connect,
    .heap_deregister = tp_ctx_only,
    .finalize = tp_ctx_only,
    .heap_grow = NULL,
    .data_ops = TP_DATA_OPS_PTR,
    .predict = TP_PREDICT_FN,
};

#else /* bootstrap */

static int tp_detect(void) {
  return 0;
}
static xshmem_status_t tp_init(const xshmem_bootstrap_args_v1_t *args, void **ctx, int *rank,
                               int *size) {
  (void)args;
  *ctx = (void *)0;
  *rank = 0;
  *size = 1;
  return XSHMEM_SUCCESS;
}
static xshmem_status_t tp_gather(void *ctx, const void *in, void *out, size_t len) {
  (void)ctx;
  (void)in;
  (void)out;
  (void)len;
  return XSHMEM_ERR_UNSUPPORTED;
}
static xshmem_status_t tp_bcast(void *ctx, void *buf, size_t len, int root) {
  (void)ctx;
  (void)buf;
  (void)len;
  (void)root;
  return XSHMEM_ERR_UNSUPPORTED;
}
static xshmem_status_t tp_ctx_only(void *ctx) {
  (void)ctx;
  return XSHMEM_SUCCESS;
}
static void tp_abort(void *ctx, int code, const char *reason) {
  (void)ctx;
  (void)code;
  (void)reason;
}

#ifndef TP_ABI
#define TP_ABI XSHMEM_BOOTSTRAP_ABI_VERSION
#endif
#ifndef TP_SIZE
#define TP_SIZE sizeof(xshmem_bootstrap_v1_t)
#endif

TP_EXPORT const xshmem_bootstrap_v1_t xshmem_bootstrap_plugin_v1 = {
    TP_ABI,  TP_SIZE,   TP_NAME,   0,        tp_load,     tp_detect, NULL,
    tp_init, tp_gather, tp_gather, tp_bcast, tp_ctx_only, tp_abort,  tp_ctx_only};

#endif

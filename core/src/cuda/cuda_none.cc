// xshmem core: the CUDA side of the runtime in a build without CUDA: no GPU is ever usable, so
// every heap is a host heap.
#include <cstdio>

#include "../heap.h"
#include "../log.h"
#include "../runtime.h"
#include "cuda_rt.h"
#include "device_ops.h"

namespace xshmem::cuda {

void *driver_proc(const char *) {
  return nullptr;
}

bool driver_usable(std::string *why) {
  if (why) *why = "this xshmem was built without CUDA (XSHMEM_ENABLE_CUDA=OFF or no nvcc found)";
  return false;
}

Probe probe(int) {
  Probe p;
  p.reason = "this xshmem was built without CUDA (XSHMEM_ENABLE_CUDA=OFF or no nvcc found)";
  return p;
}

Status open(int) {
  return XSHMEM_ERR_UNSUPPORTED;
}
void close() {}
Status publish_state(const dev::state_t &) {
  return XSHMEM_SUCCESS;  // no GPU heap: nothing to publish
}
Status memset_sync(void *, int, size_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
Status copy_sync(void *, const void *, size_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
Status host_alloc_mapped(size_t, void **host, void **device) {
  *host = nullptr;
  *device = nullptr;
  return XSHMEM_ERR_UNSUPPORTED;
}
void host_free(void *) {}

}  // namespace xshmem::cuda

namespace xshmem::core {

Status HeapMemory::create_device(size_t, int, size_t, size_t) {
  return XSHMEM_ERR_UNSUPPORTED;
}
Status HeapMemory::commit(size_t) {
  return XSHMEM_SUCCESS;  // host heaps are whole from the start
}
void HeapMemory::uncommit(size_t) {}
void HeapMemory::close_chunk_fds() {}
void HeapMemory::release_device() {
  device_ = -1;
}

bool heap_on_device() {
  return false;
}
bool lazy_module_loading() {
  return false;
}
int cuda_device() {
  return -1;
}
void *internal_stream() {
  return nullptr;
}
const dev::state_t *device_state() {
  return nullptr;
}
uint64_t device_state_version() {
  return 0;
}

}  // namespace xshmem::core

// device_ops.h without CUDA: no HOST_CE path, and the GPU-heap entries of the host API are never
// reached (host_path.h calls them only when the heap is in GPU memory). Each stops the job if
// that ever changes, naming itself.
namespace xshmem::core::gpu {
namespace {
[[noreturn]] void no_gpu(const char *what) {
  char msg[160];
  snprintf(msg, sizeof(msg),
           "%s was called for a GPU heap, but this xshmem was built without CUDA (internal error)",
           what);
  fatal(1, "gpu", msg);
}
}  // namespace

const dev::host_ce_ops_t *host_ce_ops() {
  return nullptr;
}
void read_local(void *, const void *, size_t) {
  no_gpu("gpu::read_local");
}
void world_sync(bool) {
  no_gpu("gpu::world_sync");
}
uint64_t team_op(int, int, uint64_t, int) {
  no_gpu("gpu::team_op");
}
int coll_move(int, int, void *, const void *, size_t, size_t, ptrdiff_t, ptrdiff_t, int) {
  no_gpu("gpu::coll_move");
}
int reduce(int, int, int, void *, const void *, size_t, void *) {
  no_gpu("gpu::reduce");
}
xshmem_status_t heap_apply(xshmem_heap_op_v1_t *ops, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    XLOG_ERROR("gpu", "%s: %s from pe %d on pe %d refused: this PE's heap is not GPU memory",
               ops[i].kind == XSHMEM_HEAP_OP_COPY ? "heap_apply" : "heap_amo",
               ops[i].kind == XSHMEM_HEAP_OP_COPY ? "a copy" : "an atomic", ops[i].src_pe,
               state().my_pe);
    ops[i].status = XSHMEM_ERR_INVALID;
  }
  return n ? XSHMEM_ERR_INVALID : XSHMEM_SUCCESS;
}
Status heap_amo_open() {
  return XSHMEM_ERR_UNSUPPORTED;
}
void heap_amo_close() {}
}  // namespace xshmem::core::gpu

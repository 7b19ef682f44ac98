// xshmem core: the CUDA side of the runtime in a build without CUDA: no GPU is ever usable, so
// every heap is a host heap.
#include "../heap.h"
#include "../runtime.h"
#include "cuda_rt.h"

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

// xshmem core: CUDA driver entry points, looked up at run time (CUDA builds only).
//
// cuda.h is included for types and prototypes only; nothing links libcuda. The table is filled
// through cudaGetDriverEntryPointByVersion in the ABI of XSHMEM_CUDA_DRIVER_ABI.
#ifndef XSHMEM_CORE_CUDA_DRIVER_H
#define XSHMEM_CORE_CUDA_DRIVER_H

#include <cuda.h>

#include <string>

namespace xshmem::cuda {

struct Driver {
#define XSHMEM_CU_FN(name) decltype(&::name) name = nullptr;
  XSHMEM_CU_FN(cuGetErrorName)
  XSHMEM_CU_FN(cuGetErrorString)
  XSHMEM_CU_FN(cuDeviceGet)
  XSHMEM_CU_FN(cuDeviceGetAttribute)
  XSHMEM_CU_FN(cuDeviceGetPCIBusId)
  XSHMEM_CU_FN(cuMemGetAllocationGranularity)
  XSHMEM_CU_FN(cuMemAddressReserve)
  XSHMEM_CU_FN(cuMemAddressFree)
  XSHMEM_CU_FN(cuMemCreate)
  XSHMEM_CU_FN(cuMemRelease)
  XSHMEM_CU_FN(cuMemMap)
  XSHMEM_CU_FN(cuMemUnmap)
  XSHMEM_CU_FN(cuMemSetAccess)
  XSHMEM_CU_FN(cuMemExportToShareableHandle)
#undef XSHMEM_CU_FN
};

// The table, or nullptr when the driver (or one of its entry points) is missing; `why` then says
// what was missing. Loaded once per process.
const Driver *driver(std::string *why = nullptr);

// "cuMemCreate failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string cu_error(const char *call, CUresult r);

}  // namespace xshmem::cuda

#endif  // XSHMEM_CORE_CUDA_DRIVER_H

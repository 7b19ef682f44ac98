// xshmem core: names of the ABI status codes.
#include "status.h"

namespace xshmem {

const char *Status::status_str(xshmem_status_t code) {
  switch (code) {
    case XSHMEM_SUCCESS:
      return "success";
    case XSHMEM_ERR_INVALID:
      return "invalid argument";
    case XSHMEM_ERR_UNSUPPORTED:
      return "operation not supported";
    case XSHMEM_ERR_NOMEM:
      return "out of memory";
    case XSHMEM_ERR_TIMEOUT:
      return "timed out";
    case XSHMEM_ERR_IO:
      return "i/o error";
    case XSHMEM_ERR_UNREACHABLE:
      return "peer unreachable";
    case XSHMEM_ERR_PEER_FAILED:
      return "peer failed";
    case XSHMEM_ERR_ABI:
      return "abi version mismatch";
    case XSHMEM_ERR_INTERNAL:
      return "internal error";
    case XSHMEM_ERR_NOT_FOUND:
      return "not found";
    default:
      return "unknown status";
  }
}

}  // namespace xshmem

// xshmem core: node-local exchange of file descriptors between PEs.
//
// Each PE listens on a Unix-domain socket in the abstract namespace named by a keyed hash of the
// job token (not the PID, so PEs in different PID namespaces of one host still meet), every PE
// connects to every other PE of its host, proves it belongs to the job and passes its descriptor
// with SCM_RIGHTS (protocol and checks: node_ipc_wire.h). Abstract sockets vanish with their last
// descriptor: nothing is left in the file system.
#ifndef XSHMEM_CORE_NODE_IPC_H
#define XSHMEM_CORE_NODE_IPC_H

#include <xshmem/plugin/services_v1.h>
#include "status.h"

namespace xshmem::core {

// See xshmem_core_services_v1_t::node_fd_exchange. Collective over the world.
Status node_fd_exchange(const xshmem_job_info_v1_t &job, int my_fd, int *peer_fds);

}  // namespace xshmem::core

#endif  // XSHMEM_CORE_NODE_IPC_H

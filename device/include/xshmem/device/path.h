// xshmem device API: the path code, all of it (RMA, atomics, signals, point-to-point
// synchronization, ordering, world sync). Included by the host API and by user kernels.
#ifndef XSHMEM_DEVICE_PATH_H
#define XSHMEM_DEVICE_PATH_H

#include <xshmem/device/amo.h>
#include <xshmem/device/atomic.h>
#include <xshmem/device/lsa.h>
#include <xshmem/device/ops.h>
#include <xshmem/device/p2p.h>
#include <xshmem/device/rma.h>
#include <xshmem/device/signal.h>
#include <xshmem/device/state.h>
#include <xshmem/device/sync.h>
#include <xshmem/device/team.h>

#endif  // XSHMEM_DEVICE_PATH_H

/*
 * shmemx.h: <shmem.h> and xshmem's extensions. The extensions keep their xshmemx_ names
 * (<xshmem/xshmemx.h>: on-stream operations, out-of-band collectives, transport names); this
 * header adds the OpenSHMEM-style spelling of the node team.
 */
#ifndef XSHMEM_COMPAT_SHMEMX_H
#define XSHMEM_COMPAT_SHMEMX_H

#include <shmem.h>
#include <xshmem/xshmemx.h>

/* The PEs on this PE's node (xshmem's third predefined team). */
#define SHMEMX_TEAM_NODE XSHMEMX_TEAM_NODE

#endif /* XSHMEM_COMPAT_SHMEMX_H */

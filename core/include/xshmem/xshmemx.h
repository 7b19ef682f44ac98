/*
 * xshmem extensions beyond OpenSHMEM (xshmemx_ prefix).
 */
#ifndef XSHMEM_XSHMEMX_H
#define XSHMEM_XSHMEMX_H

#include <stddef.h>

#include <xshmem/xshmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Out-of-band collectives over the bootstrap, not over the data path: slow, for test harnesses
 * and tools that must agree even when the data path under test is broken. Every PE calls them in
 * the same order. Return 0 on success. */
int xshmemx_oob_allgather(const void *in, void *out, size_t len_per_pe);
int xshmemx_oob_barrier(void);

/* The name of the transport that serves `pe` ("hostshm", ...), or NULL if none does. */
const char *xshmemx_transport_name(int pe);

#ifdef __cplusplus
}
#endif

#endif /* XSHMEM_XSHMEMX_H */

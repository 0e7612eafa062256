/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream host (stream_host.c): sst_stream_host_create(), _destroy(),
 * _stats(), _next_expiry() and _handle_expiry() of sst_stream.h.
 *
 * Owns: the host object and everything allocated with it: the array of
 * control blocks, the queue links, the tx_waiters and rx_owners arrays,
 * the two buffer pools; the parameters with their defaults filled in; the
 * upcall table (struct stream_upcalls); the layer's log type. Calls:
 * stream_life.h (the idle sweep and reaping on its timer), and hands
 * stream_service.h's entry to the modules below through the upcall table.
 * Frees: everything it allocated, in sst_stream_host_destroy() only, after
 * every peer was destroyed. It has no internal functions: the rest of the
 * layer reads the host's fields (stream_internal.h).
 */
#ifndef STREAM_HOST_H
#define STREAM_HOST_H

#include "stream_internal.h"

#endif /* STREAM_HOST_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tagged endpoint (docs/engine.md "Local endpoints"): a peer reached
 * from one of a worker's extra local endpoints (sst_worker_connect_from())
 * is keyed by the pair, folded into one struct sst_net_endpoint. Shared by
 * the worker, which makes and splits them (worker_local.c), and the shard
 * map, which hashes the local half as a NIC's RSS does (shard.c).
 */
#ifndef WORKER_TAG_H
#define WORKER_TAG_H

#include <stdbool.h>

#include "sst_net.h"

/*
 * IPv4 leaves bytes 4..15 of the address unused, so the local address goes
 * in bytes 4..7, its port in 8..9 (network order) and a 1 in byte 10. Every
 * table (endpoints, channels, negotiation's) then keys by the pair with no
 * change, and an endpoint of the worker's own local endpoint is as it
 * always was: the single-endpoint path costs nothing more. worker_io.c tags
 * what arrives at an extra endpoint and untags what leaves.
 */
enum { EP_LOCAL_ADDR = 4, EP_LOCAL_PORT = 8, EP_LOCAL_TAG = 10 };

/* Whether ep is a peer reached from one of the extra local endpoints (its
 * tag byte set); pure, for any endpoint. */
static inline bool
worker_ep_tagged(const struct sst_net_endpoint *ep)
{
	return ep->addr.family == SST_NET_IPV4 && ep->addr.bytes[EP_LOCAL_TAG] != 0;
}

#endif /* WORKER_TAG_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The udpsock link driver's configuration (sst_link_conf.driver_conf; NULL
 * takes the defaults). By default a link uses the kernel's UDP segmentation
 * offloads where the kernel has them: consecutive datagrams of a burst to
 * one peer and of one size leave as one message (UDP_SEGMENT, "GSO"), and
 * the kernel may hand over datagrams of one sender coalesced (UDP_GRO),
 * which the driver splits into one mbuf per datagram. A kernel that lacks
 * or refuses them (ENOPROTOOPT at open, EIO or EINVAL at the first send)
 * turns them off for the link; traffic goes on datagram by datagram.
 */
#ifndef SST_UDPSOCK_H
#define SST_UDPSOCK_H

#include <stdbool.h>
#include <stdint.h>

/** driver_conf of a "udpsock" link. */
struct sst_udpsock_conf {
	uint32_t size; /**< sizeof(struct sst_udpsock_conf) */
	bool no_gso;   /**< send every datagram as a message of its own */
	bool no_gro;   /**< do not ask the kernel to coalesce received datagrams */
};

#endif /* SST_UDPSOCK_H */

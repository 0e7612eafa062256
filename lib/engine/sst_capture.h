/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet capture to a pcapng file that Wireshark, tshark, libpcap and
 * sst-dump read. Frame links are captured as they are; datagram links
 * (udpsock, simpair: UDP payloads without headers) get Ethernet, IPv4 or
 * IPv6 and UDP headers made up from their endpoints, so both kinds look
 * the same in the file.
 *
 * A capture belongs to one worker thread (no locks). Packets are copied
 * into a buffer in the capture and written with write(2) when it fills, at
 * sst_capture_flush() and at sst_capture_close(): capturing costs a copy
 * per packet and, now and then, a file write on the worker's thread.
 */
#ifndef SST_CAPTURE_H
#define SST_CAPTURE_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sst_net.h"

enum {
	SST_CAPTURE_SNAPLEN_MAX = 65535, /**< bytes of a packet kept at most */
	SST_CAPTURE_BUFFER = 256 * 1024, /**< bytes buffered before a write */
};

/** Direction, as recorded in each packet's flags. */
enum sst_capture_dir {
	SST_CAPTURE_IN = 1,  /**< received */
	SST_CAPTURE_OUT = 2, /**< sent */
};

/** Counters. */
struct sst_capture_stats {
	uint64_t packets; /**< written to the file */
	uint64_t bytes;	  /**< their lengths on the wire (headers made up included) */
	uint64_t drops;	  /**< not written: write error, or a datagram no header can describe */
};

struct sst_capture;

/**
 * Create (or truncate) a capture file and write its header.
 *
 * @param port_id
 *   The DPDK port captured (its name labels the interface in the file), or
 *   UINT16_MAX for a datagram link.
 * @param snaplen
 *   Bytes kept of each packet; 0 or above SST_CAPTURE_SNAPLEN_MAX:
 *   SST_CAPTURE_SNAPLEN_MAX.
 * @param copy_pool
 *   Unused (may be NULL): packets are copied straight into the capture's
 *   buffer, so no copy mbufs are needed. Kept for a writer on another
 *   thread, which would need them.
 * @param path
 *   The file to write (pcapng).
 * @return
 *   The capture, or NULL with rte_errno set: EINVAL (no path), ENOMEM, or
 *   the system's error opening or writing the file.
 */
struct sst_capture *sst_capture_open(
	const char *path, uint16_t port_id, uint32_t snaplen, struct rte_mempool *copy_pool);

/**
 * Record n Ethernet frames (they stay the caller's).
 *
 * @param c
 *   The capture (sst_capture_open()); used by one thread at a time.
 * @param pkts
 *   The frames, recorded as they are (up to the snap length).
 * @param n
 *   Number of frames.
 * @param dir
 *   SST_CAPTURE_IN (received) or SST_CAPTURE_OUT (sent).
 */
void sst_capture_frames(
	struct sst_capture *c, struct rte_mbuf *const *pkts, uint16_t n, enum sst_capture_dir dir);

/**
 * Record n UDP payloads of a datagram link (they stay the caller's), each
 * with made-up Ethernet, IP and UDP headers: from peers[i] to local for
 * SST_CAPTURE_IN, from local to peers[i] for SST_CAPTURE_OUT. local may be
 * NULL, or of another family than a peer: the unspecified address and
 * port 0 stand in. A payload too long for one UDP datagram, or a peer with
 * no address family, is counted as a drop.
 *
 * @param c
 *   The capture (sst_capture_open()); used by one thread at a time.
 * @param pkts
 *   The UDP payloads.
 * @param peers
 *   n endpoints: each payload's peer.
 * @param n
 *   Number of payloads.
 * @param dir
 *   SST_CAPTURE_IN or SST_CAPTURE_OUT.
 * @param local
 *   Our endpoint, or NULL.
 */
void sst_capture_datagrams(struct sst_capture *c, struct rte_mbuf *const *pkts,
	const struct sst_net_endpoint *peers, uint16_t n, enum sst_capture_dir dir,
	const struct sst_net_endpoint *local);

/**
 * Write what is buffered.
 *
 * @param c
 *   The capture (sst_capture_open()); used by one thread at a time.
 * @return
 *   0, or the negative errno of the first write error (it sticks: every
 *   later flush returns it too).
 */
int sst_capture_flush(struct sst_capture *c);

/**
 * Write what is buffered and the interface statistics, close the file and
 * free the capture. NULL is ignored.
 * @param c
 *   The capture, or NULL.
 * @return 0, or the negative errno of the first write error of the capture.
 */
int sst_capture_close(struct sst_capture *c);

/**
 * The capture's counters (packets written, bytes, drops).
 *
 * @param c
 *   The capture (sst_capture_open()); used by one thread at a time.
 * @return
 *   The counters, valid until sst_capture_close().
 */
const struct sst_capture_stats *sst_capture_stats(const struct sst_capture *c);

#endif /* SST_CAPTURE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datagrams on the wire (paper 4.3.5): a datagram the application sends
 * goes out as Datagram packets on consecutive sequence numbers, one with
 * Begin|End when it fits, otherwise fragments; no record, no state left
 * behind (stream_tx_dgram.h).
 */
#include <errno.h>

#include <rte_mbuf.h>

#include "stream_chan_sids.h"
#include "stream_dgram.h"
#include "stream_tx.h"
#include "stream_tx_dgram.h"

/*
 * A Datagram packet: its header in front of the fragment, in place when
 * the fragment's first mbuf is its own and has the headroom (copied
 * fragments always, a one-packet datagram when the application left room),
 * otherwise in a header mbuf chained in front. NULL if that fails; frag is
 * freed then.
 */
static struct rte_mbuf *
dgram_packet(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *frag)
{
	size_t len = sst_stream_hdr_len(hdr->type);
	struct rte_mbuf *m;
	char *p = NULL;

	if (RTE_MBUF_DIRECT(frag) && rte_mbuf_refcnt_read(frag) == 1)
		p = rte_pktmbuf_prepend(frag, (uint16_t)len);
	if (p != NULL) {
		if (sst_stream_hdr_encode(hdr, p, len) >= 0)
			return frag;
		rte_pktmbuf_free(frag);
		return NULL;
	}
	m = stream_header_mbuf(c, hdr);
	if (m == NULL || rte_pktmbuf_chain(m, frag) < 0) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(frag);
		return NULL;
	}
	return m;
}

/*
 * A datagram as Datagram packets on consecutive sequence numbers (paper
 * 4.3.5): one with Begin|End when it fits, otherwise fragments (the caller
 * checked that the peer reassembles them). No record: a datagram leaves no
 * state behind.
 */
int
stream_send_dgram_packets(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now)
{
	struct sst_stream_chan *c =
		stream_is_root(parent) ? stream_peer_chan(parent->peer) : parent->tx_chan;
	struct sst_dgram_frag frags[STREAM_DGRAM_FRAGS];
	struct rte_mbuf *pkts[STREAM_DGRAM_FRAGS];
	int n;

	if (c == NULL || c->dead)
		return -ENOTCONN;
	if (c->on_hold)
		return -ENOBUFS; /* as when the window is full: in a moment */
	/* Best effort, but congestion controlled: a datagram goes when the
	 * window has room for anything at all, all fragments at once (like one
	 * write; requiring room for all could starve large ones forever at a
	 * small window). */
	if (sst_channel_send_allowance(c->ch, now, NULL) == 0)
		return -ENOBUFS;
	n = sst_dgram_split(m, stream_dgram_payload_max(c), c->peer->host->p.pool,
		SST_CRYPTO_TRAILER_MAX, frags, STREAM_DGRAM_FRAGS);
	if (n < 0)
		return n == -ENOSPC ? -EMSGSIZE : -ENOBUFS;
	for (int i = 0; i < n; i++) {
		struct sst_stream_hdr hdr = {.type = SST_STREAM_DATAGRAM,
			.flags = frags[i].flags,
			.sid = stream_is_root(parent) ? 0 : parent->tx_sid,
			.window = stream_advertise(c, parent)};

		pkts[i] = dgram_packet(c, &hdr, frags[i].m);
		if (pkts[i] == NULL) {
			/* The fragments were cut from m, which is gone: the
			 * datagram is dropped here, as the network might. */
			for (int k = i + 1; k < n; k++)
				rte_pktmbuf_free(frags[k].m);
			rte_pktmbuf_free_bulk(pkts, (unsigned int)i);
			parent->peer->host->stats.no_buffer++;
			return 0;
		}
	}
	parent->peer->host->stats.datagrams_tx++;
	c->stats.tx_packets += (uint64_t)n;
	sst_channel_send_contiguous(c->ch, pkts, NULL, (uint16_t)n, now, NULL);
	return 0;
}

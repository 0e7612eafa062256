/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer (sst_stream_peer): one remote host, the owner of its streams
 * (indexed by USID, stream_usid.c) across the channels that come and go.
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "stream_peer.h"
#include "stream_life.h"

struct sst_stream_peer *
sst_stream_peer_create(struct sst_stream_host *h, uint32_t caps)
{
	struct sst_stream_peer *p;
	uint32_t slots = STREAM_USIDS_INIT;

	p = h->p.mem->zalloc(h->p.mem->ctx, sizeof(*p));
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->usids = h->p.mem->zalloc(h->p.mem->ctx, slots * sizeof(*p->usids));
	if (p->usids == NULL)
		goto fail;
	p->host = h;
	p->caps = caps & SST_CAPS_ALL;
	p->usid_mask = slots - 1;
	p->usid_max = h->p.peer_usids;
	p->root.peer = p;
	p->root.role = STREAM_ROOT;
	p->root.listening = true;
	/* The root is attached on every channel from the start (SID 0). */
	p->root.tx_attach = STREAM_TX_ACKED;
	p->root.rx_attach = STREAM_RX_ATTACHED;
	p->root.hcid = STREAM_HCID_ROOT;
	p->root.refs = 1;
	return p;

fail:
	h->p.mem->release(h->p.mem->ctx, p, sizeof(*p));
	rte_errno = ENOMEM;
	return NULL;
}

uint32_t
sst_stream_peer_caps(const struct sst_stream_peer *p)
{
	return p->caps;
}

uint32_t
sst_stream_peer_streams(const struct sst_stream_peer *p)
{
	return p->nstreams;
}

struct sst_stream_peer *
sst_stream_peer_of(const struct sst_stream *s)
{
	return s->peer;
}

void
sst_stream_peer_destroy(struct sst_stream_peer *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++)
		if (p->chans[i] != NULL)
			sst_stream_chan_destroy(p->chans[i], 0);
	/* Every stream is now an orphan or only known by USID. */
	sst_stream_peer_abort(p, 0);
	/* Waiting for send buffers ends for the peer's streams. */
	for (uint32_t i = 0, n = p->host->tx_waiting; i < n; i++) {
		struct sst_stream_host *h = p->host;
		struct sst_stream *s = h->tx_waiters[h->tx_waiters_head];

		h->tx_waiters_head = (h->tx_waiters_head + 1) % h->tx_waiters_cap;
		h->tx_waiting--;
		if (s->peer == p) {
			s->flags &= ~SF_IN_TX_WAITERS;
			stream_unref(s, 0);
		} else {
			h->tx_waiters[(h->tx_waiters_head + h->tx_waiting) % h->tx_waiters_cap] = s;
			h->tx_waiting++;
		}
	}
	/* The root never resets; its buffers go with the peer. */
	stream_release_buffers(&p->root, true, 0);
	stream_reap(p->host, 0);
	if (p->nstreams == 0) {
		stream_peer_free_mem(p);
		return;
	}
	/* The application holds streams of the peer: they are reset (calls
	 * on them fail, as on any reset stream, and a stream opened on the
	 * peer finds no channel: ENOTCONN), their handles stay valid, and the
	 * last sst_stream_close() frees the peer. */
	p->gone = true;
	p->gone_next = p->host->gone;
	if (p->gone_next != NULL)
		p->gone_next->gone_prev = p;
	p->host->gone = p;
}

void
sst_stream_peer_fail(struct sst_stream_peer *p, enum sst_stream_end why, sst_time_t now)
{
	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s != NULL && !stream_is_reset(s))
			stream_do_reset(s, why, false, now);
	}
}

void
sst_stream_peer_abort(struct sst_stream_peer *p, sst_time_t now)
{
	sst_stream_peer_fail(p, SST_STREAM_ABORTED, now);
}

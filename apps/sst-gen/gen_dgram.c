/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client: the datagram workload (issue 21). Each channel opens one
 * stream to the service and sends datagrams on it (sst_stream_send_datagram(),
 * paper 2.2), --datagrams of them (or until --time ends) at --dgram-rate a
 * second, of --request sizes; each carries its tag (the channel and a
 * sequence number), its length and its send time, and content that depends
 * on the tag (gen_dgram_fill()). An sst-gen server checks every byte and
 * sends each datagram back as it came; the client checks every byte of the
 * echo and takes the round trip from the send time in it. Datagrams are
 * unreliable: after the last one the stream waits up to a grace period for
 * the echoes, and those that never came are counted lost, not failed; a
 * wrong byte is a failure.
 */
#include <errno.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "gen_client.h"
#include "tool_args.h"

enum {
	DGRAM_BURST = 32,		  /**< datagrams per pass at most */
	SEQ_BITS = 40,			  /**< the tag: channel << 40 | sequence */
	GRACE_NS = 500 * 1000 * 1000,	  /**< after the last: echoes still counted */
	RATE_SLACK_NS = 10 * 1000 * 1000, /**< a late pass catches up this much at most */
};

static void
dgram_end(struct gen_chan *ch, struct gen_flow *f, bool clean, sst_time_t now)
{
	struct gen_shard *sh = ch->sh;

	if (!f->live)
		return;
	f->live = false;
	sh->tot.dg_lost += f->tx - f->rx;
	if (clean)
		sh->tot.txns++;
	else
		sh->tot.stream_failed++;
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	f->s = NULL;
	ch->live--;
	sh->live--;
	ch->rounds++;
	if (ch->state == CH_UP)
		gen_chan_set_state(ch, CH_DONE);
}

static bool
dgram_open(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_shard *sh = ch->sh;
	const struct gen_conf *c = ch->g->c;

	f->s = sst_stream_connect(ch->peer, c->service, c->protocol, now);
	if (f->s == NULL)
		return false;
	/* Echoes too large for a packet would come as substreams. */
	sst_stream_listen_substream(f->s, true);
	sst_stream_set_user(f->s, f);
	f->live = true;
	f->shut = false;
	f->tx = f->rx = 0;
	f->ready_at = now;
	f->t0 = rte_rdtsc();
	ch->started = 1;
	ch->live++;
	sh->live++;
	sh->tot.streams++;
	return true;
}

/* Send what the rate allows now. @return false when the stream failed. */
static bool
dgram_send(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_shard *sh = ch->sh;
	const struct gen_workload *wl = ch->wl;
	bool counted = ch->g->c->time_ns == 0;

	for (int k = 0; k < DGRAM_BURST; k++) {
		uint32_t len;
		struct rte_mbuf *m;
		uint8_t *p;
		int rc;

		if ((wl->dgram_rate > 0 && now < f->ready_at) ||
			(counted && f->tx >= wl->datagrams))
			return true;
		len = (uint32_t)RTE_MIN(
			RTE_MAX(gen_dist_draw(&wl->request, &sh->rng), (uint64_t)GEN_DGRAM_HEADER),
			(uint64_t)GEN_DGRAM_MAX);
		m = rte_pktmbuf_alloc(ch->g->pool);
		p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len) : NULL;
		if (p == NULL) {
			rte_pktmbuf_free(m);
			return true; /* the pool refills as packets leave */
		}
		gen_dgram_fill(p, (uint64_t)ch->id << SEQ_BITS | (f->tx + 1), len, rte_rdtsc());
		if (ch->g->c->corrupt_every != 0 && (f->tx + 1) % ch->g->c->corrupt_every == 0)
			p[len - 1] ^= 0xff; /* --corrupt: its last byte */
		rc = sst_stream_send_datagram(f->s, m, now);
		if (rc < 0) {
			rte_pktmbuf_free(m);
			if (rc != -ENOBUFS)
				return false;
			sh->tot.dg_refused++; /* no window now: the same number goes again */
			return true;
		}
		f->tx++;
		sh->tot.dg_sent++;
		sh->tot.payload_tx += len;
		if (wl->dgram_rate > 0)
			f->ready_at = RTE_MAX(f->ready_at + (sst_time_t)(1e9 / wl->dgram_rate),
				now - RATE_SLACK_NS);
	}
	return true;
}

bool
gen_dgram_poll(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_client *g = ch->g;
	bool stopping = atomic_load_explicit(&g->stopping, memory_order_relaxed);

	if (!f->live) {
		if (ch->started > 0 || stopping)
			return false;	/* ended, or never to start */
		dgram_open(ch, f, now); /* else no control block now: again next pass */
		return true;
	}
	if (!f->shut) {
		if (stopping || (g->c->time_ns == 0 && f->tx >= ch->wl->datagrams)) {
			f->shut = true;
			f->ready_at = now + GRACE_NS;
		} else if (!dgram_send(ch, f, now)) {
			dgram_end(ch, f, false, now);
			return false;
		}
		return true;
	}
	/* Every datagram went: wait for the echoes, a grace period at most. */
	if (f->rx >= f->tx || now >= f->ready_at) {
		dgram_end(ch, f, true, now);
		return false;
	}
	return true;
}

void
gen_dgram_readable(struct gen_flow *f, sst_time_t now)
{
	struct gen_chan *ch = f->ch;
	struct gen_shard *sh = ch->sh;
	struct rte_mbuf *m;

	while (f->s != NULL && (m = sst_stream_recv_datagram(f->s, now)) != NULL) {
		uint8_t buf[GEN_DGRAM_MAX];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		const uint8_t *p = len <= GEN_DGRAM_MAX ? rte_pktmbuf_read(m, 0, len, buf) : NULL;
		uint64_t tag = 0, tsc = 0,
			 bad = p != NULL ? gen_dgram_check(p, len, &tag, &tsc) : len;
		uint64_t seq = tag & ((1ull << SEQ_BITS) - 1);

		/* Content of another channel's tag, or of one never sent. */
		if (bad == 0 && (tag >> SEQ_BITS != ch->id || seq == 0 || seq > f->tx))
			bad = len;
		if (bad != 0) {
			sh->tot.dg_bad++;
			sh->tot.verify_errors += bad;
		} else {
			f->rx++;
			sh->tot.dg_echoed++;
			sh->tot.payload_ok += len;
			gen_hist_add(&sh->txn, tool_tsc_to_ns(rte_rdtsc() - tsc, ch->g->tsc_hz));
		}
		rte_pktmbuf_free(m);
	}
}

void
gen_dgram_closed(struct gen_flow *f, sst_time_t now)
{
	dgram_end(f->ch, f, false, now);
}

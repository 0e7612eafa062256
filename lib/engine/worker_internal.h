/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's state (worker.c), shared with its telemetry (telemetry.c). */
#ifndef WORKER_INTERNAL_H
#define WORKER_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "sst_burst.h"
#include "sst_net.h"

#include "sst_worker.h"

struct worker_peer {
	struct sst_net_endpoint ep;
	struct sst_stream_peer *sp; /**< NULL: the slot is free */
	bool moving;		    /**< a channel to moving_to is being negotiated */
	struct sst_net_endpoint moving_to;
};

struct worker_chan {
	struct sst_worker *w;
	struct worker_peer *peer;
	struct sst_stream_chan *sc; /**< NULL: the number is free or negotiating */
	uint8_t peer_channel;
	enum sst_nego_mode mode; /**< how it was negotiated */
	bool taken;		 /**< the number is in use (negotiating or open) */
	bool closing;		 /**< to destroy at the end of this poll */
	bool idle_offered;	 /**< FINISH offered for this idle period */
	bool initiator;		 /**< we negotiated it (we replace it: replace_check()) */
	/* Replacement before the sequence space or the key's usage limit runs
	 * out (SST_CHANNEL_EV_REPLACE): asked for, and being negotiated. */
	bool replace_wanted;
	bool replacing;
	/** It took the streams of older channels to the peer, of which we were
	 * the initiator if pred_initiator (crossing_loser()). */
	bool successor;
	bool pred_initiator;
	sst_time_t replace_not_before; /**< after a failed attempt */
	/** A newer channel to the peer took the streams: closed as soon as
	 * nothing uses it, and ended by retire_by whatever the peer does. */
	bool retiring;
	sst_time_t retire_by;
	/** Exhausted while retiring (sst_stream_chan_exhausted()): it ends
	 * then, once what was in flight had time to be acknowledged; 0: not
	 * yet. */
	sst_time_t exhausted_until;
	/** A prototype peer's channel being closed (no FINISH): it ends then,
	 * after acknowledging what the peer still resends; 0: not closing. */
	sst_time_t linger_until;
	/** Secure initiator until the responder shows it has our SecI2: our
	 * packets ride in copies of SecI2 (sst_nego_send_early()). */
	bool unconfirmed;
	sst_time_t idle_since; /**< unused since; SST_TIME_NEVER while in use */
};

struct sst_worker {
	struct sst_worker_params p;
	struct sst_nego_host *nego;
	struct sst_stream_host *sh;
	const struct sst_stream_ops *app_ops; /**< the application's stream callbacks */
	void *app_ctx;
	struct sst_stream_ops stream_ops; /**< ours, forwarding to the application's */
	struct worker_peer *peers;
	struct worker_chan chans[256]; /**< by our channel number */
	uint8_t chan_cursor;	       /**< the number handed out last (nego_chan_alloc()) */
	struct sst_worker_stats stats;
	int id;				/**< index in the telemetry table, or a negative errno */
	struct sst_net *net;		/**< frame links: the network layer; else NULL */
	struct sst_net_endpoint local;	/**< our address family and UDP port */
	uint8_t steer_bits;		/**< of negotiation's steering tags (sharded) */
	struct sst_channel_stats ended; /**< channel counters of the channels that ended */
	sst_time_t next_sum;		/**< when stats.channels is refreshed next */
	/* This poll's datagrams for this worker: handed over, then received. */
	uint16_t rx_n;
	struct rte_mbuf *rx_pkts[2 * SST_MAX_BURST];
	struct sst_net_endpoint rx_from[2 * SST_MAX_BURST];
};

static inline bool
worker_ep_equal(const struct sst_net_endpoint *a, const struct sst_net_endpoint *b)
{
	return a->port == b->port && a->addr.family == b->addr.family &&
	       memcmp(a->addr.bytes, b->addr.bytes, sizeof(a->addr.bytes)) == 0;
}

/* worker_io.c */
int worker_io_init(struct sst_worker *w);
void worker_io_fini(struct sst_worker *w);
/** Receive this poll's datagrams into rx_pkts/rx_from. @return rx_n. */
uint16_t worker_rx(struct sst_worker *w, sst_time_t now);
/** Send n datagrams (ownership passes). */
void worker_send(struct sst_worker *w, struct rte_mbuf **pkts, const struct sst_net_endpoint *to,
	uint16_t n, sst_time_t now);
void worker_io_flush(struct sst_worker *w, sst_time_t now);
sst_time_t worker_io_next_expiry(const struct sst_worker *w);
void worker_io_expiry(struct sst_worker *w, sst_time_t now);

/* telemetry.c */
int worker_telemetry_add(struct sst_worker *w);
void worker_telemetry_remove(struct sst_worker *w);

#endif /* WORKER_INTERNAL_H */

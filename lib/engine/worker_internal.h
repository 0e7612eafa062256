/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's state (worker.c), shared with its telemetry (telemetry.c). */
#ifndef WORKER_INTERNAL_H
#define WORKER_INTERNAL_H

#include <stdbool.h>

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
	sst_time_t idle_since;	 /**< unused since; SST_TIME_NEVER while in use */
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
	struct sst_worker_stats stats;
	int id; /**< index in the telemetry table, or a negative errno */
};

/* telemetry.c */
int worker_telemetry_add(struct sst_worker *w);
void worker_telemetry_remove(struct sst_worker *w);

#endif /* WORKER_INTERNAL_H */

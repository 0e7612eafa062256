/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry (rte_telemetry) of the engine's workers, readable with
 * dpdk-telemetry.py when the EAL runs its telemetry socket:
 *
 *   /sst/workers             the ids of the workers
 *   /sst/worker,<id>         one worker's counters: its own, its link's and
 *                            its stream host's
 *
 * Workers are added and removed at setup and teardown only. The telemetry
 * thread reads the counters while the workers write them, without locks:
 * each is an aligned 64-bit word, written by one thread, so a reader sees
 * either the old or the new value, which is what telemetry needs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "sst_worker.h"
#include "worker_internal.h"

static struct sst_worker *workers[SST_WORKERS_MAX];
static bool registered;

static int
cmd_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	for (int i = 0; i < SST_WORKERS_MAX; i++)
		if (workers[i] != NULL)
			rte_tel_data_add_array_int(d, i);
	return 0;
}

#define ADD(d, name, v) rte_tel_data_add_dict_u64(d, name, v)

int
sst_worker_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct sst_worker_stats *ws;
	const struct sst_link_stats *ls;
	const struct sst_stream_host_stats *ss;
	struct sst_worker *w;
	char *end;
	long id;

	RTE_SET_USED(cmd);
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	id = strtol(params, &end, 10);
	if (*end != '\0' || id < 0 || id >= SST_WORKERS_MAX || workers[id] == NULL)
		return -EINVAL;
	w = workers[id];
	ws = sst_worker_stats(w);
	ls = sst_link_stats(w->p.link);
	ss = sst_stream_host_stats(w->sh);
	rte_tel_data_start_dict(d);
	ADD(d, "rx_packets", ws->rx_packets);
	ADD(d, "rx_control", ws->rx_control);
	ADD(d, "rx_channel", ws->rx_channel);
	ADD(d, "rx_no_channel", ws->rx_no_channel);
	ADD(d, "channels_open", ws->channels_open);
	ADD(d, "channels_made", ws->channels_made);
	ADD(d, "channels_closed", ws->channels_closed);
	ADD(d, "channels_idle", ws->channels_idle);
	ADD(d, "path_changes", ws->path_changes);
	ADD(d, "peers_full", ws->peers_full);
	ADD(d, "peers_evicted", ws->peers_evicted);
	ADD(d, "peers_open", ws->peers_open);
	ADD(d, "peers_freed", ws->peers_freed);
	ADD(d, "endpoints", ws->endpoints);
	ADD(d, "numbers_exhausted", ws->numbers_exhausted);
	ADD(d, "restarts", ws->restarts);
	ADD(d, "channels_replaced", ws->channels_replaced);
	ADD(d, "channels_crossed", ws->channels_crossed);
	ADD(d, "silences", ws->silences);
	ADD(d, "dead_peers", ws->dead_peers);
	ADD(d, "keepalives", ws->keepalives);
	ADD(d, "channels_unheard", ws->channels_unheard);
	ADD(d, "rx_wrong_port", ws->rx_wrong_port);
	ADD(d, "tx_refused", ws->tx_refused);
	ADD(d, "handoff_in", ws->handoff_in);
	ADD(d, "handoff_out", ws->handoff_out);
	ADD(d, "handoff_full", ws->handoff_full);
	ADD(d, "chan_tx_packets", ws->channels.tx_packets);
	ADD(d, "chan_tx_bytes", ws->channels.tx_bytes);
	ADD(d, "chan_rx_packets", ws->channels.rx_packets);
	ADD(d, "chan_rx_bytes", ws->channels.rx_bytes);
	ADD(d, "chan_rx_replays", ws->channels.rx_too_old + ws->channels.rx_duplicate);
	ADD(d, "chan_rx_armor_failures", ws->channels.rx_bad_trailer);
	ADD(d, "chan_rx_malformed", ws->channels.rx_malformed);
	ADD(d, "chan_lost", ws->channels.lost);
	ADD(d, "chan_rto", ws->channels.rto);
	ADD(d, "chan_optimistic_acks", ws->channels.optimistic_acks);
	ADD(d, "link_rx_packets", ls->rx_packets);
	ADD(d, "link_rx_bytes", ls->rx_bytes);
	ADD(d, "link_rx_nombuf", ls->rx_nombuf);
	ADD(d, "link_tx_packets", ls->tx_packets);
	ADD(d, "link_tx_bytes", ls->tx_bytes);
	ADD(d, "link_tx_full", ls->tx_full);
	ADD(d, "link_tx_errors", ls->tx_errors);
	ADD(d, "streams_open", ss->streams_live);
	ADD(d, "streams_opened", ss->streams_opened);
	ADD(d, "streams_accepted", ss->streams_accepted);
	ADD(d, "streams_closed", ss->streams_closed);
	ADD(d, "resets_sent", ss->streams_reset_tx);
	ADD(d, "resets_received", ss->streams_reset_rx);
	ADD(d, "segments_sent", ss->segments_tx);
	ADD(d, "segments_resent", ss->segments_retx);
	ADD(d, "datagrams_sent", ss->datagrams_tx);
	ADD(d, "datagrams_received", ss->datagrams_rx);
	ADD(d, "rx_refused", ss->rx_refused);
	ADD(d, "rx_malformed", ss->rx_malformed);
	ADD(d, "no_stream", ss->no_stream);
	ADD(d, "no_buffer", ss->no_buffer);
	ADD(d, "peer_streams_refused", ss->peer_streams_refused);
	ADD(d, "peer_buffers_refused", ss->peer_buffers_refused);
	if (w->net != NULL) {
		const struct sst_net_stats *ns = sst_net_stats(w->net);

		ADD(d, "net_rx_frames", ns->rx_frames);
		ADD(d, "net_rx_udp", ns->rx_udp);
		ADD(d, "net_rx_dropped",
			ns->rx_frames - ns->rx_udp - ns->rx_arp_request - ns->rx_arp_reply -
				ns->rx_icmp4_echo - ns->rx_icmp6_echo - ns->rx_nd_ns -
				ns->rx_nd_na - ns->rx_icmp4_pmtu - ns->rx_icmp6_pmtu);
		ADD(d, "net_tx_frames", ns->tx_frames);
		ADD(d, "net_tx_no_route", ns->tx_no_route);
		ADD(d, "net_neigh_failed", ns->neigh_failed);
	}
	return 0;
}

int
worker_telemetry_add(struct sst_worker *w)
{
	if (!registered) {
		rte_telemetry_register_cmd(
			"/sst/workers", cmd_workers, "The ids of the SST workers. No parameters");
		rte_telemetry_register_cmd("/sst/worker", sst_worker_telemetry,
			"One SST worker's counters. Parameter: worker id");
		registered = true;
	}
	for (int i = 0; i < SST_WORKERS_MAX; i++)
		if (workers[i] == NULL) {
			workers[i] = w;
			return i;
		}
	return -ENOSPC;
}

void
worker_telemetry_remove(struct sst_worker *w)
{
	for (int i = 0; i < SST_WORKERS_MAX; i++)
		if (workers[i] == w)
			workers[i] = NULL;
}

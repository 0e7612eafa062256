/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry (rte_telemetry) of the engine's workers and their channels,
 * readable with dpdk-telemetry.py when the EAL runs its telemetry socket:
 *
 *   /sst/workers                 the ids of the workers
 *   /sst/worker,<id>             one worker's counters: its own, its link's
 *                                and its stream host's
 *   /sst/channels[,<w>[.<from>]] the channels, as "<worker>.<index>" names:
 *                                of every worker, or of worker w from its
 *                                index <from> on (at most 512 a reply)
 *   /sst/channel,<w>.<index>     one channel: peer, state, armor, congestion
 *                                control (cwnd, ssthresh, srtt, rttvar, rto,
 *                                bytes in flight), losses, packets and bytes
 *                                resent, timeouts and counters
 *   /sst/stp_peers,<w>[.<from>] the peers of worker w and the untrusted
 *                                congestion-control module their channels
 *                                run (STP), WORKER_STP_PEERS_PAGE a reply
 *                                from channel index <from>; "next" goes on
 *   /sst/streams,<w>.<index>[.<from>]
 *                                the streams attached to one channel, at most
 *                                TEL_STREAMS_PAGE a reply, each a dictionary
 *                                keyed tx_<sid> or rx_<sid> (our SID or the
 *                                peer's): states, priority, offsets, buffer
 *                                fill and window; "next" is the <from> of the
 *                                next page, 0 after the last
 *
 * Workers are added and removed at setup and teardown only. The telemetry
 * thread never reads a worker's counters where the worker updates them
 * (plain fields, a data race under C11): the worker publishes a copy of
 * them in its mailbox when it is created and in the upkeep it runs every
 * 100 ms of polling (counters_publish()), each value and name stored with
 * a relaxed atomic store, and /sst/worker reads that copy with relaxed
 * loads. Each value is at most one upkeep old and the set is not one
 * snapshot (a reader may see half of the previous publication), which is
 * what telemetry needs; the worker's counters cost nothing more.
 *
 * Channels are another matter: the worker creates, moves and frees them
 * at any pass, so the telemetry thread never touches them. It asks their
 * worker instead, through the worker's mailbox: it writes the request and
 * bumps req; the worker, in the upkeep it runs every 100 ms (off the
 * packet path, worker_telemetry_serve()), sees req moved, writes the
 * answer into the mailbox and publishes done = req; the telemetry thread
 * waits for that (up to TEL_WAIT_MS, then -EAGAIN: a worker that is not
 * polled cannot answer) and reads the answer. A spinlock orders the
 * requests of several telemetry clients; the worker never takes it.
 * Mailboxes are static, so one outlives its worker: a request to a
 * worker destroyed meanwhile times out, it never reads freed memory.
 * Nothing is copied when nobody asks.
 *
 * A channel's index is its place in the worker's table at the time of the
 * listing; it changes when channels before it end. /sst/channel answers
 * with the peer and our channel number, which identify it for good.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "sst_policer.h"
#include "sst_stream_walk.h"
#include "sst_worker.h"
#include "tel_table.h"
#include "worker_internal.h"
#include "worker_stp.h"

enum {
	TEL_LIST_MAX = 512, /**< RTE_TEL_MAX_ARRAY_ENTRIES: names in one reply */
	TEL_WAIT_MS = 1000, /**< a worker polls its mailbox every 100 ms */
	TEL_CHAN_ROWS = 40, /**< counters of one channel */
	TEL_NAME_LEN = 64,  /**< strings of one channel */
	/** Streams in one reply: each takes about 300 bytes of JSON, and
	 * rte_telemetry sends at most 16 KB a reply (it drops what does not
	 * fit). */
	TEL_STREAMS_PAGE = 32,
	TEL_WORKER_ROWS = 88, /**< counters of one worker (worker_rows()) */
};

enum tel_request {
	TEL_LIST,
	TEL_CHANNEL,
	TEL_STREAMS,
	TEL_STP_PEERS,
};

/* One channel as its worker saw it when asked. */
struct tel_channel {
	struct sst_tel_u64 rows[TEL_CHAN_ROWS];
	uint32_t nrows;
	char peer[TEL_NAME_LEN];
	char armor[TEL_NAME_LEN];
	char cc[TEL_NAME_LEN];
	const char *state; /**< static strings */
	const char *mode;
	struct worker_stp_chan stp; /**< its module, if it runs one */
};

/* One peer of /sst/stp_peers, as its worker saw it when asked. */
struct tel_stp_peer {
	struct worker_stp_peer p; /**< p.first is cleared: it is the worker's */
	char peer[TEL_NAME_LEN];
	const char *mode;
};

/* A worker's counters as it last published them: written by the worker,
 * read by any thread, every access a relaxed atomic one. */
struct tel_counters {
	_Atomic(const char *) name[TEL_WORKER_ROWS]; /**< static strings */
	atomic_uint_fast64_t value[TEL_WORKER_ROWS];
	atomic_uint n; /**< rows published; 0: none yet */
};

struct tel_mailbox {
	struct tel_counters counters;
	rte_spinlock_t lock; /**< telemetry side: one request at a time */
	atomic_uint req;     /**< telemetry thread: a request is written */
	atomic_uint done;    /**< worker: the answer to req is written */
	/* The request. */
	enum tel_request what;
	uint32_t from; /**< TEL_LIST: first index; else the channel's index */
	uint32_t pos;  /**< TEL_STREAMS: where the page starts */
	/* The answer. */
	int status; /**< 0, or -ENOENT (no such channel) */
	uint32_t total;
	uint32_t n;
	uint32_t next; /**< TEL_STREAMS: where the next page starts; 0: none */
	union {
		uint32_t index[TEL_LIST_MAX];
		struct tel_channel chan;
		/* stream pointers are cleared: they are the worker's */
		struct sst_stream_walk_entry streams[TEL_STREAMS_PAGE];
		struct tel_stp_peer stp_peers[WORKER_STP_PEERS_PAGE];
	};
};

/* Written at setup and teardown, read by the telemetry thread: atomic
 * (every plain access to them is a sequentially consistent one). */
static struct sst_worker *_Atomic workers[SST_WORKERS_MAX];
static struct tel_mailbox mailboxes[SST_WORKERS_MAX];
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

static uint32_t
rows_add(struct sst_tel_u64 *out, uint32_t n, const struct sst_tel_u64 *rows, size_t count)
{
	for (size_t i = 0; i < count && n < TEL_WORKER_ROWS; i++)
		out[n++] = rows[i];
	return n;
}

/* The rows of /sst/worker: the worker's own counters, its link's, its
 * stream host's and its network layer's. On the worker's thread only. */
static uint32_t
worker_rows(struct sst_worker *w, struct sst_tel_u64 *out)
{
	const struct sst_worker_stats *ws = sst_worker_stats(w);
	const struct sst_link_stats *ls = sst_link_stats(w->link);
	const struct sst_stream_host_stats *ss = sst_stream_host_stats(w->sh);
	const struct sst_tel_u64 own[] = {
		{"rx_packets", ws->rx_packets},
		{"rx_control", ws->rx_control},
		{"rx_channel", ws->rx_channel},
		{"rx_no_channel", ws->rx_no_channel},
		{"channels_open", ws->channels_open},
		{"channels_made", ws->channels_made},
		{"channels_closed", ws->channels_closed},
		{"channels_idle", ws->channels_idle},
		{"path_changes", ws->path_changes},
		{"peers_full", ws->peers_full},
		{"peers_evicted", ws->peers_evicted},
		{"peers_open", ws->peers_open},
		{"peers_freed", ws->peers_freed},
		{"endpoints", ws->endpoints},
		{"numbers_exhausted", ws->numbers_exhausted},
		{"restarts", ws->restarts},
		{"channels_replaced", ws->channels_replaced},
		{"channels_crossed", ws->channels_crossed},
		{"silences", ws->silences},
		{"dead_peers", ws->dead_peers},
		{"keepalives", ws->keepalives},
		{"channels_unheard", ws->channels_unheard},
		{"rx_wrong_port", ws->rx_wrong_port},
		{"tx_refused", ws->tx_refused},
		{"handoff_in", ws->handoff_in},
		{"handoff_out", ws->handoff_out},
		{"handoff_full", ws->handoff_full},
		{"peers_handed", ws->peers_handed},
		{"steer_entries", ws->steer_entries},
		{"mem_in_use", ws->mem_in_use},
		{"mem_reserved", ws->mem_reserved},
		{"chan_tx_packets", ws->channels.tx_packets},
		{"chan_tx_bytes", ws->channels.tx_bytes},
		{"chan_rx_packets", ws->channels.rx_packets},
		{"chan_rx_bytes", ws->channels.rx_bytes},
		{"chan_rx_replays", ws->channels.rx_too_old + ws->channels.rx_duplicate},
		{"chan_rx_armor_failures", ws->channels.rx_bad_trailer},
		{"chan_rx_malformed", ws->channels.rx_malformed},
		{"chan_lost", ws->channels.lost},
		{"chan_rto", ws->channels.rto},
		{"chan_optimistic_acks", ws->channels.optimistic_acks},
		{"link_rx_packets", ls->rx_packets},
		{"link_rx_bytes", ls->rx_bytes},
		{"link_rx_nombuf", ls->rx_nombuf},
		{"link_tx_packets", ls->tx_packets},
		{"link_tx_bytes", ls->tx_bytes},
		{"link_tx_full", ls->tx_full},
		{"link_tx_errors", ls->tx_errors},
		{"streams_open", ss->streams_live},
		{"streams_opened", ss->streams_opened},
		{"streams_accepted", ss->streams_accepted},
		{"streams_closed", ss->streams_closed},
		{"resets_sent", ss->streams_reset_tx},
		{"resets_received", ss->streams_reset_rx},
		{"segments_sent", ss->segments_tx},
		{"segments_resent", ss->segments_retx},
		{"datagrams_sent", ss->datagrams_tx},
		{"datagrams_received", ss->datagrams_rx},
		{"rx_refused", ss->rx_refused},
		{"rx_malformed", ss->rx_malformed},
		{"no_stream", ss->no_stream},
		{"no_buffer", ss->no_buffer},
		{"peer_streams_refused", ss->peer_streams_refused},
		{"peer_buffers_refused", ss->peer_buffers_refused},
	};
	struct sst_tel_u64 stp[WORKER_STP_ROWS];
	uint32_t n = rows_add(out, 0, own, RTE_DIM(own));

	n = rows_add(out, n, stp, worker_stp_rows(w, stp));

	if (w->net != NULL) {
		const struct sst_net_stats *ns = sst_net_stats(w->net);
		const struct sst_tel_u64 net_rows[] = {
			{"net_rx_frames", ns->rx_frames},
			{"net_rx_udp", ns->rx_udp},
			{"net_rx_dropped", ns->rx_frames - ns->rx_udp - ns->rx_arp_request -
						   ns->rx_arp_reply - ns->rx_icmp4_echo -
						   ns->rx_icmp6_echo - ns->rx_nd_ns - ns->rx_nd_na -
						   ns->rx_icmp4_pmtu - ns->rx_icmp6_pmtu},
			{"net_tx_frames", ns->tx_frames},
			{"net_tx_no_route", ns->tx_no_route},
			{"net_neigh_failed", ns->neigh_failed},
		};

		n = rows_add(out, n, net_rows, RTE_DIM(net_rows));
	}
	return n;
}

/* Publish w's counters for readers on other threads (struct tel_counters).
 * On the worker's thread: at its creation and in its upkeep. */
static void
counters_publish(struct sst_worker *w, struct tel_counters *tc)
{
	struct sst_tel_u64 rows[TEL_WORKER_ROWS];
	uint32_t n = worker_rows(w, rows);

	for (uint32_t i = 0; i < n; i++) {
		atomic_store_explicit(&tc->name[i], rows[i].name, memory_order_relaxed);
		atomic_store_explicit(&tc->value[i], rows[i].value, memory_order_relaxed);
	}
	atomic_store_explicit(&tc->n, n, memory_order_relaxed);
}

/* The published counters of worker id, or NULL (no such worker). */
static const struct tel_counters *
counters_of(long id)
{
	if (id < 0 || id >= SST_WORKERS_MAX || workers[id] == NULL)
		return NULL;
	return &mailboxes[id].counters;
}

int
sst_worker_counter(int id, const char *name, uint64_t *value)
{
	const struct tel_counters *tc = counters_of(id);
	uint32_t n;

	if (tc == NULL || name == NULL || value == NULL)
		return -EINVAL;
	n = atomic_load_explicit(&tc->n, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		const char *k = atomic_load_explicit(&tc->name[i], memory_order_relaxed);

		if (k != NULL && strcmp(k, name) == 0) {
			*value = atomic_load_explicit(&tc->value[i], memory_order_relaxed);
			return 0;
		}
	}
	return -ENOENT;
}

int
sst_worker_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct tel_counters *tc;
	char *end;
	long id;
	uint32_t n;

	RTE_SET_USED(cmd);
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	id = strtol(params, &end, 10);
	tc = *end == '\0' ? counters_of(id) : NULL;
	if (tc == NULL)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	n = atomic_load_explicit(&tc->n, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		const struct sst_tel_u64 row = {
			atomic_load_explicit(&tc->name[i], memory_order_relaxed),
			atomic_load_explicit(&tc->value[i], memory_order_relaxed),
		};

		/* A row being published for the first time may lack its name. */
		if (row.name != NULL)
			sst_tel_dict_u64(d, &row, 1);
	}
	return 0;
}

/* ---- Channels: the worker's side ---- */

static const char *
chan_state_name(enum worker_chan_state s)
{
	static const char *const names[] = {
		[CHAN_LIVE] = "live",
		[CHAN_REPLACE_WANTED] = "replace_wanted",
		[CHAN_REPLACING] = "replacing",
		[CHAN_RETIRING] = "retiring",
		[CHAN_LINGERING] = "lingering",
		[CHAN_ENDING] = "ending",
	};

	return (size_t)s < RTE_DIM(names) && names[s] != NULL ? names[s] : "?";
}

static void
endpoint_format(const struct sst_net_endpoint *ep, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	bool v6 = ep->addr.family == SST_NET_IPV6;

	inet_ntop(v6 ? AF_INET6 : AF_INET, ep->addr.bytes, a, sizeof(a));
	snprintf(buf, len, v6 ? "[%s]:%u" : "%s:%u", a, ep->port);
}

static void
row(struct tel_channel *t, const char *name, uint64_t v)
{
	if (t->nrows < TEL_CHAN_ROWS)
		t->rows[t->nrows++] = (struct sst_tel_u64){name, v};
}

/* What /sst/channel shows of wc: read on wc's worker, copied out. */
static void
channel_describe(const struct worker_chan *wc, struct tel_channel *t)
{
	const struct sst_channel *ch = sst_stream_chan_channel(wc->sc);
	const struct sst_channel_stats *cs = sst_channel_stats(ch);
	struct sst_stream_chan_stats ss;
	struct sst_channel_info ci;

	sst_channel_info(ch, &ci);
	sst_stream_chan_stats(wc->sc, &ss);
	t->nrows = 0;
	endpoint_format(&wc->ep, t->peer, sizeof(t->peer));
	snprintf(t->armor, sizeof(t->armor), "%s", ci.suite != NULL ? ci.suite : "?");
	snprintf(t->cc, sizeof(t->cc), "%s", ci.cc != NULL ? ci.cc : "?");
	t->state = chan_state_name(wc->state);
	t->mode = wc->mode == SST_NEGO_MODE_SECURE ? "secure" : "checksum";
	row(t, "number", wc->number);
	row(t, "peer_number", wc->peer_channel);
	row(t, "initiator", wc->initiator);
	row(t, "cwnd", ci.cwnd);
	row(t, "ssthresh", ci.ssthresh);
	row(t, "srtt_ns", ci.srtt);
	row(t, "rttvar_ns", ci.rttvar);
	row(t, "rto_ns", ci.rto);
	row(t, "bytes_in_flight", ci.bytes_in_flight);
	row(t, "ack_only_in_flight", ci.ack_only_in_flight);
	row(t, "next_seq", ci.next_seq);
	row(t, "seq_limit", ci.seq_limit);
	row(t, "largest_acked", ci.largest_acked);
	row(t, "rx_highest", ci.rx_highest);
	row(t, "mtu", sst_channel_mtu(ch));
	row(t, "trailer_len", ci.trailer_len);
	row(t, "tx_packets", cs->tx_packets);
	row(t, "tx_bytes", cs->tx_bytes);
	row(t, "tx_ack_only", cs->tx_ack_only);
	row(t, "rx_packets", cs->rx_packets);
	row(t, "rx_bytes", cs->rx_bytes);
	row(t, "acked", cs->acked);
	row(t, "lost", cs->lost);
	row(t, "resent_packets", ci.resent_packets);
	row(t, "resent_bytes", ci.resent_bytes);
	row(t, "rto_expiries", cs->rto);
	row(t, "rx_replays", cs->rx_too_old + cs->rx_duplicate);
	row(t, "rx_armor_failures", cs->rx_bad_trailer);
	row(t, "rx_malformed", cs->rx_malformed);
	row(t, "streams_attached", ss.sids_attached);
	row(t, "window_updates", ss.window_updates);
	worker_stp_channel(ch, &t->stp);
}

/* The peers of w for /sst/stp_peers, from channel index mb->from. */
static void
stp_peers_collect(struct sst_worker *w, struct tel_mailbox *mb)
{
	struct worker_stp_peer page[WORKER_STP_PEERS_PAGE];

	mb->n = worker_stp_peers(w, mb->from, page, &mb->next);
	for (uint32_t i = 0; i < mb->n; i++) {
		struct tel_stp_peer *t = &mb->stp_peers[i];

		t->p = page[i];
		t->p.first = NULL;
		endpoint_format(&page[i].first->ep, t->peer, sizeof(t->peer));
		t->mode = page[i].first->mode == SST_NEGO_MODE_SECURE ? "secure" : "checksum";
	}
}

/* sst_stream_chan_walk() callback: one stream into the mailbox's page. */
static int
stream_collect(const struct sst_stream_walk_entry *e, void *arg)
{
	struct tel_mailbox *mb = arg;

	mb->streams[mb->n] = *e;
	mb->streams[mb->n].stream = NULL;
	return ++mb->n == TEL_STREAMS_PAGE;
}

void
worker_telemetry_serve(struct sst_worker *w)
{
	struct tel_mailbox *mb;
	unsigned int req;

	if (w->id < 0)
		return;
	mb = &mailboxes[w->id];
	counters_publish(w, &mb->counters);
	req = atomic_load_explicit(&mb->req, memory_order_acquire);
	if (req == atomic_load_explicit(&mb->done, memory_order_relaxed))
		return;
	mb->status = 0;
	mb->total = w->nchans;
	mb->n = 0;
	mb->next = 0;
	if (mb->what == TEL_LIST) {
		for (uint32_t i = mb->from; i < w->nchans && mb->n < TEL_LIST_MAX; i++)
			mb->index[mb->n++] = i;
	} else if (mb->what == TEL_STP_PEERS) {
		stp_peers_collect(w, mb);
	} else if (mb->from < w->nchans && mb->what == TEL_CHANNEL) {
		channel_describe(w->chans[mb->from], &mb->chan);
	} else if (mb->from < w->nchans) {
		mb->next =
			sst_stream_chan_walk(w->chans[mb->from]->sc, mb->pos, stream_collect, mb);
	} else {
		mb->status = -ENOENT;
	}
	atomic_store_explicit(&mb->done, req, memory_order_release);
}

/* ---- Channels: the telemetry thread's side ---- */

/* Ask worker id (the mailbox lock held) and wait for the answer.
 * @return 0, or -EAGAIN: the worker did not answer in time. */
static int
ask(int id, enum tel_request what, uint32_t from, uint32_t pos)
{
	struct tel_mailbox *mb = &mailboxes[id];
	unsigned int req;

	mb->what = what;
	mb->from = from;
	mb->pos = pos;
	req = atomic_load_explicit(&mb->req, memory_order_relaxed) + 1;
	atomic_store_explicit(&mb->req, req, memory_order_release);
	for (int ms = 0; ms < TEL_WAIT_MS; ms++) {
		if (atomic_load_explicit(&mb->done, memory_order_acquire) == req)
			return 0;
		rte_delay_us_sleep(1000);
	}
	return -EAGAIN;
}

/* "<worker>[.<n>[.<m>]]", with at least `need` and at most `most` numbers
 * after the worker: @return 0, or -EINVAL. */
static int
parse_name(const char *s, long *id, long *n, long *m, int need, int most)
{
	long *part[] = {n, m};
	char *end;
	int got = 0;

	*n = 0;
	*m = 0;
	if (s == NULL || s[0] == '\0')
		return -EINVAL;
	*id = strtol(s, &end, 10);
	if (end == s || *id < 0 || *id >= SST_WORKERS_MAX)
		return -EINVAL;
	while (*end == '.' && got < most) {
		s = end + 1;
		*part[got] = strtol(s, &end, 10);
		if (end == s || *part[got] < 0 || *part[got] > UINT32_MAX)
			return -EINVAL;
		got++;
	}
	return *end == '\0' && got >= need ? 0 : -EINVAL;
}

static int
cmd_channels(const char *cmd, const char *params, struct rte_tel_data *d)
{
	long only = -1, from = 0, unused;
	char name[32];
	int listed = 0;

	RTE_SET_USED(cmd);
	if (params != NULL && params[0] != '\0' &&
		parse_name(params, &only, &from, &unused, 0, 1) < 0)
		return -EINVAL;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (int id = 0; id < SST_WORKERS_MAX && listed < TEL_LIST_MAX; id++) {
		struct tel_mailbox *mb = &mailboxes[id];

		if (workers[id] == NULL || (only >= 0 && id != only))
			continue;
		rte_spinlock_lock(&mb->lock);
		if (ask(id, TEL_LIST, (uint32_t)from, 0) == 0)
			for (uint32_t i = 0; i < mb->n && listed < TEL_LIST_MAX; i++, listed++) {
				snprintf(name, sizeof(name), "%d.%u", id, mb->index[i]);
				rte_tel_data_add_array_string(d, name);
			}
		rte_spinlock_unlock(&mb->lock);
	}
	return 0;
}

/* Parse "<worker>.<index>" (and ".<from>" for TEL_STREAMS), lock the
 * worker's mailbox and ask it about that channel. The mailbox stays locked
 * for the caller to read the answer and unlock.
 * @return the mailbox, *rc set to 0, -EINVAL (no such channel) or -EAGAIN;
 *   NULL for bad parameters (nothing locked). */
static struct tel_mailbox *
ask_channel(const char *params, enum tel_request what, int *rc)
{
	struct tel_mailbox *mb;
	long id, index, from;

	if (parse_name(params, &id, &index, &from, 1, what == TEL_STREAMS ? 2 : 1) < 0 ||
		workers[id] == NULL)
		return NULL;
	mb = &mailboxes[id];
	rte_spinlock_lock(&mb->lock);
	*rc = ask((int)id, what, (uint32_t)index, (uint32_t)from);
	if (*rc == 0 && mb->status < 0)
		*rc = -EINVAL;
	return mb;
}

static int
cmd_channel(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_mailbox *mb;
	int rc;

	RTE_SET_USED(cmd);
	mb = ask_channel(params, TEL_CHANNEL, &rc);
	if (mb == NULL)
		return -EINVAL;
	if (rc == 0) {
		const struct tel_channel *t = &mb->chan;

		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "peer", t->peer);
		rte_tel_data_add_dict_string(d, "state", t->state);
		rte_tel_data_add_dict_string(d, "mode", t->mode);
		rte_tel_data_add_dict_string(d, "armor", t->armor);
		rte_tel_data_add_dict_string(d, "cc", t->cc);
		sst_tel_dict_u64(d, t->rows, t->nrows);
		if (t->stp.module) {
			const struct sst_tel_str strs[] = {
				{"stp_module", t->stp.hash},
				{"stp_exec", t->stp.exec},
				{"stp_policer", t->stp.policer},
				{"stp_revoked", t->stp.revoked},
			};

			sst_tel_dict_str(d, strs, RTE_DIM(strs));
			sst_tel_dict_u64(d, t->stp.rows, t->stp.nrows);
		}
	}
	rte_spinlock_unlock(&mb->lock);
	return rc;
}

/* One stream of a /sst/streams page as a dictionary; NULL when out of
 * memory (the stream is left out of the reply). */
static struct rte_tel_data *
stream_dict(const struct sst_stream_walk_entry *e)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	const struct sst_tel_u64 rows[] = {
		{"sid", e->sid},
		{"ours", e->ours},
		{"written", e->tx_written},
		{"sent", e->tx_sent},
		{"acked", e->tx_acked},
		{"sndbuf", e->tx_buffered},
		{"received", e->rx_received},
		{"rcvbuf", e->rx_buffered},
		{"rcvwnd", e->rx_window},
	};

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "state", e->state);
	rte_tel_data_add_dict_string(d, "send", e->send_state);
	rte_tel_data_add_dict_string(d, "recv", e->recv_state);
	rte_tel_data_add_dict_int(d, "priority", e->priority);
	sst_tel_dict_u64(d, rows, RTE_DIM(rows));
	return d;
}

static int
cmd_streams(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_mailbox *mb;
	int rc;

	RTE_SET_USED(cmd);
	mb = ask_channel(params, TEL_STREAMS, &rc);
	if (mb == NULL)
		return -EINVAL;
	if (rc == 0) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "next", mb->next);
		for (uint32_t i = 0; i < mb->n; i++) {
			const struct sst_stream_walk_entry *e = &mb->streams[i];
			struct rte_tel_data *sd = stream_dict(e);
			char key[16];

			if (sd == NULL)
				continue;
			snprintf(key, sizeof(key), "%s_%u", e->ours ? "tx" : "rx", e->sid);
			if (rte_tel_data_add_dict_container(d, key, sd, 0) < 0)
				rte_tel_data_free(sd);
		}
	}
	rte_spinlock_unlock(&mb->lock);
	return rc;
}

/* One peer of /sst/stp_peers as a dictionary; NULL when out of memory. */
static struct rte_tel_data *
stp_peer_dict(const struct tel_stp_peer *t)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	const struct worker_stp_peer *p = &t->p;
	const struct sst_tel_str strs[] = {
		{"peer", t->peer},
		{"id", p->id},
		{"mode", t->mode},
		{"cc", p->cc},
		{"module", p->hash},
		{"exec", p->exec},
		{"revoked", p->revoked},
	};
	const struct sst_tel_u64 rows[] = {
		{"channel", p->index},
		{"channels", p->channels},
		{"on_module", p->on_module},
		{"policer_init", p->policer[SST_POLICER_INIT]},
		{"policer_slowstart", p->policer[SST_POLICER_SLOWSTART]},
		{"policer_steady", p->policer[SST_POLICER_STEADY]},
		{"calls", p->calls},
		{"budget_overruns", p->overruns},
	};

	if (d == NULL)
		return NULL;
	rte_tel_data_start_dict(d);
	sst_tel_dict_str(d, strs, RTE_DIM(strs));
	sst_tel_dict_u64(d, rows, RTE_DIM(rows));
	return d;
}

static int
cmd_stp_peers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_mailbox *mb;
	long id, from, unused;
	int rc;

	RTE_SET_USED(cmd);
	if (parse_name(params, &id, &from, &unused, 0, 1) < 0 || workers[id] == NULL)
		return -EINVAL;
	mb = &mailboxes[id];
	rte_spinlock_lock(&mb->lock);
	rc = ask((int)id, TEL_STP_PEERS, (uint32_t)from, 0);
	if (rc == 0) {
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "next", mb->next);
		for (uint32_t i = 0; i < mb->n; i++) {
			struct rte_tel_data *pd = stp_peer_dict(&mb->stp_peers[i]);
			char key[24];

			/* A key is letters, digits and '_': the peer by its first
			 * channel's index (its endpoint is a value). */
			snprintf(key, sizeof(key), "peer_%u", mb->stp_peers[i].p.index);
			if (pd != NULL && rte_tel_data_add_dict_container(d, key, pd, 0) < 0)
				rte_tel_data_free(pd);
		}
	}
	rte_spinlock_unlock(&mb->lock);
	return rc;
}

int
worker_telemetry_add(struct sst_worker *w)
{
	if (!registered) {
		rte_telemetry_register_cmd(
			"/sst/workers", cmd_workers, "The ids of the SST workers. No parameters");
		rte_telemetry_register_cmd("/sst/worker", sst_worker_telemetry,
			"One SST worker's counters. Parameter: worker id");
		rte_telemetry_register_cmd("/sst/channels", cmd_channels,
			"The SST channels as <worker>.<index>. Parameter (optional): "
			"worker[.first index]");
		rte_telemetry_register_cmd("/sst/channel", cmd_channel,
			"One SST channel: peer, state, armor, cc, cwnd, srtt, losses... "
			"Parameter: worker.index");
		rte_telemetry_register_cmd("/sst/streams", cmd_streams,
			"The streams of one SST channel, a page at a time (\"next\" continues). "
			"Parameter: worker.index[.next]");
		rte_telemetry_register_cmd("/sst/stp_peers", cmd_stp_peers,
			"The peers of one SST worker and the eBPF CC module their channels run. "
			"Parameter: worker[.next]");
		registered = true;
	}
	for (int i = 0; i < SST_WORKERS_MAX; i++)
		if (workers[i] == NULL) {
			struct tel_mailbox *mb = &mailboxes[i];

			/* A request left from an earlier worker here is dropped. */
			rte_spinlock_lock(&mb->lock);
			atomic_store_explicit(&mb->done,
				atomic_load_explicit(&mb->req, memory_order_relaxed),
				memory_order_relaxed);
			rte_spinlock_unlock(&mb->lock);
			/* Readers see this worker's counters, never the last one's. */
			counters_publish(w, &mb->counters);
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

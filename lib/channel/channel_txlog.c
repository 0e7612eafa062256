/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "channel_txlog.h"

size_t
sst_txlog_size(uint32_t capacity)
{
	if (capacity < SST_TXLOG_MIN || capacity > SST_TXLOG_MAX ||
		(capacity & (capacity - 1)) != 0)
		return 0;
	return sizeof(struct sst_txlog) + (size_t)capacity * sizeof(struct sst_txlog_entry);
}

int
sst_txlog_init(struct sst_txlog *log, uint32_t capacity)
{
	size_t size = sst_txlog_size(capacity);

	if (size == 0)
		return -EINVAL;
	memset(log, 0, size);
	log->capacity = capacity;
	log->limit = capacity;
	log->e = (struct sst_txlog_entry *)(log + 1);
	log->next_seq = 1;
	log->oldest = 1;
	return 0;
}

int
sst_txlog_init_grow(struct sst_txlog *log, uint32_t limit, const struct sst_mem_ops *mem)
{
	if (sst_txlog_size(limit) == 0 || mem == NULL || mem->zalloc == NULL ||
		mem->release == NULL)
		return -EINVAL;
	memset(log, 0, sizeof(*log));
	log->limit = limit;
	log->mem = mem;
	log->next_seq = 1;
	log->oldest = 1;
	return 0;
}

void
sst_txlog_fini(struct sst_txlog *log)
{
	if (log == NULL || log->mem == NULL)
		return;
	log->mem->release(log->mem->ctx, log->e, (size_t)log->capacity * sizeof(*log->e));
	log->e = NULL;
	log->capacity = 0;
}

/*
 * Move the outstanding numbers (oldest .. next_seq) into a table of cap
 * entries, where each lands at seq % cap; what lies outside that range is
 * UNUSED and stays zero. Returns 0 or -ENOBUFS (no memory: unchanged).
 */
static int
grow(struct sst_txlog *log, uint32_t cap)
{
	struct sst_txlog_entry *e = log->mem->zalloc(log->mem->ctx, (size_t)cap * sizeof(*e));

	if (e == NULL) {
		log->grow_failures++;
		return -ENOBUFS;
	}
	for (uint64_t s = log->oldest; s < log->next_seq; s++)
		e[s & (cap - 1)] = log->e[s & (log->capacity - 1)];
	log->mem->release(log->mem->ctx, log->e, (size_t)log->capacity * sizeof(*log->e));
	log->e = e;
	log->capacity = cap;
	log->grows++;
	return 0;
}

int
sst_txlog_reserve(struct sst_txlog *log, uint32_t n)
{
	uint64_t need = log->next_seq - log->oldest + n;
	uint32_t cap = log->capacity != 0 ? log->capacity : SST_TXLOG_INIT;

	if (need <= log->capacity)
		return 0;
	if (log->mem == NULL || need > log->limit)
		return -ENOBUFS;
	while (cap < need)
		cap *= 2;
	return grow(log, cap < log->limit ? cap : log->limit);
}

static inline struct sst_txlog_entry *
entry(struct sst_txlog *log, uint64_t seq)
{
	return &log->e[seq & (log->capacity - 1)];
}

static inline const struct sst_txlog_entry *
entry_c(const struct sst_txlog *log, uint64_t seq)
{
	return &log->e[seq & (log->capacity - 1)];
}

uint64_t
sst_txlog_push(
	struct sst_txlog *log, sst_time_t now, uint32_t bytes, uintptr_t cookie, bool ack_eliciting)
{
	uint64_t seq = log->next_seq++;
	struct sst_txlog_entry *e = entry(log, seq);

	e->sent = now;
	e->cookie = cookie;
	e->bytes = bytes;
	e->state = SST_TX_IN_FLIGHT;
	e->ack_eliciting = ack_eliciting;
	if (ack_eliciting) {
		log->bytes_in_flight += bytes;
		log->packets_in_flight++;
	} else {
		log->ack_only_in_flight++;
	}
	return seq;
}

uint64_t
sst_txlog_skip(struct sst_txlog *log)
{
	uint64_t seq = log->next_seq++;
	struct sst_txlog_entry *e = entry(log, seq);

	memset(e, 0, sizeof(*e));
	e->state = SST_TX_SKIPPED;
	return seq;
}

/* Take a packet out of flight; the caller reports it. */
static void
resolve(struct sst_txlog *log, struct sst_txlog_entry *e)
{
	e->state = SST_TX_DONE;
	if (e->ack_eliciting) {
		log->bytes_in_flight -= e->bytes;
		log->packets_in_flight--;
	} else {
		log->ack_only_in_flight--;
	}
}

/* Release resolved entries at the bottom of the log. */
static void
advance_oldest(struct sst_txlog *log)
{
	while (log->oldest < log->next_seq) {
		struct sst_txlog_entry *e = entry(log, log->oldest);

		if (e->state != SST_TX_DONE)
			break;
		e->state = SST_TX_UNUSED;
		log->oldest++;
	}
}

bool
sst_txlog_withdraw(struct sst_txlog *log, uint64_t seq, struct sst_txlog_entry *out)
{
	struct sst_txlog_entry *e;

	if (seq < log->oldest || seq >= log->next_seq)
		return false;
	e = entry(log, seq);
	if (e->state != SST_TX_IN_FLIGHT)
		return false;
	*out = *e;
	resolve(log, e);
	/* Release it now: with nothing else in flight no ack or timer would,
	 * and a log full of withdrawn numbers could never send again. */
	advance_oldest(log);
	return true;
}

/*
 * Walk the unresolved packets below the largest acked. Packets were sent in
 * sequence order, so once one is inside both thresholds every later one is
 * too and the walk stops; it never revisits what advance_oldest() released.
 * A skipped number that an honest receiver has shown as a gap (3 later
 * packets acked) is retired the same way.
 */
static uint32_t
detect(struct sst_txlog *log, sst_time_t now, sst_time_t loss_delay,
	const struct sst_txlog_events *ev)
{
	uint32_t lost = 0;

	for (uint64_t s = log->oldest; s < log->largest_acked; s++) {
		struct sst_txlog_entry *e = entry(log, s);
		bool past_packets = s + SST_LOSS_PACKET_THRESHOLD <= log->largest_acked;

		if (e->state == SST_TX_SKIPPED) {
			if (past_packets)
				e->state = SST_TX_DONE;
			continue;
		}
		if (e->state != SST_TX_IN_FLIGHT)
			continue;
		if (!past_packets && (now < e->sent || now - e->sent < loss_delay))
			break;
		resolve(log, e);
		lost++;
		ev->lost(ev->ctx, s, e);
	}
	advance_oldest(log);
	return lost;
}

void
sst_txlog_ack(struct sst_txlog *log, uint64_t from, uint64_t to, sst_time_t now,
	sst_time_t loss_delay, const struct sst_txlog_events *ev, struct sst_txlog_ack_result *res)
{
	memset(res, 0, sizeof(*res));
	if (from < log->oldest)
		from = log->oldest;
	for (uint64_t s = from; s <= to && s < log->next_seq; s++) {
		struct sst_txlog_entry *e = entry(log, s);

		if (e->state == SST_TX_SKIPPED) {
			res->covers_skipped = true;
			return;
		}
		if (e->state != SST_TX_IN_FLIGHT)
			continue;
		resolve(log, e);
		res->acked_packets++;
		res->acked_bytes += e->bytes;
		res->newest_acked = s;
		if (e->ack_eliciting) {
			res->rtt_sample = now > e->sent ? now - e->sent : 0;
		}
		ev->acked(ev->ctx, s, e);
	}
	if (to > log->largest_acked && to < log->next_seq)
		log->largest_acked = to;
	detect(log, now, loss_delay, ev);
}

uint32_t
sst_txlog_detect_lost(struct sst_txlog *log, sst_time_t now, sst_time_t loss_delay,
	const struct sst_txlog_events *ev)
{
	return detect(log, now, loss_delay, ev);
}

uint32_t
sst_txlog_lose_all(struct sst_txlog *log, const struct sst_txlog_events *ev)
{
	uint32_t lost = 0;

	for (uint64_t s = log->oldest; s < log->next_seq; s++) {
		struct sst_txlog_entry *e = entry(log, s);

		if (e->state != SST_TX_IN_FLIGHT)
			continue;
		resolve(log, e);
		lost++;
		ev->lost(ev->ctx, s, e);
	}
	advance_oldest(log);
	return lost;
}

sst_time_t
sst_txlog_loss_time(const struct sst_txlog *log, sst_time_t loss_delay)
{
	for (uint64_t s = log->oldest; s < log->largest_acked; s++) {
		const struct sst_txlog_entry *e = entry_c(log, s);

		if (e->state == SST_TX_IN_FLIGHT)
			return sst_time_add(e->sent, loss_delay);
	}
	return SST_TIME_NEVER;
}

sst_time_t
sst_txlog_oldest_sent(const struct sst_txlog *log)
{
	for (uint64_t s = log->oldest; s < log->next_seq; s++) {
		const struct sst_txlog_entry *e = entry_c(log, s);

		if (e->state == SST_TX_IN_FLIGHT && e->ack_eliciting)
			return e->sent;
	}
	return SST_TIME_NEVER;
}

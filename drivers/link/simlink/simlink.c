/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One direction of a simulated link: the lifecycle, the path of a packet
 * through the queue and onto the wire (sst_simlink_enqueue), and its
 * delivery (sst_simlink_dequeue). The model, in the order a packet meets it:
 *
 *   MTU check -> tail-drop queue -> serialization at rate_bps -> loss on the
 *   wire -> propagation delay + jitter (+ reordering) -> duplication ->
 *   corruption -> delivery.
 *
 * A packet is in the queue from the moment it is accepted until its last bit
 * is serialized; a lost packet still takes its place in the queue and its
 * transmission time, as a packet lost on the wire does.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "simlink_heap.h"
#include "simlink_impair.h"
#include "sst_log.h"
#include "sst_params.h"
#include "sst_simlink.h"

RTE_LOG_REGISTER_DEFAULT(sst_logtype_simlink, NOTICE);
#define SIMLINK_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_simlink, "simlink", fmt, ##__VA_ARGS__)

/** A packet in the queue: when its last bit leaves, and its length. */
struct simlink_txq_entry {
	sst_time_t tx_end;
	uint32_t len;
};

struct sst_simlink {
	struct sst_simlink_params p;
	struct simlink_impair imp;
	struct sst_simlink_stats stats;
	struct simlink_heap heap;      /**< accepted packets by delivery time */
	struct simlink_txq_entry *txq; /**< ring of packets not yet serialized */
	uint32_t txq_head;
	uint32_t txq_count;
	uint64_t txq_bytes;
	sst_time_t now;	       /**< latest time seen */
	sst_time_t busy_until; /**< when the transmitter is free */
	uint64_t ser_carry;    /**< remainder of the last serialization, in ns * rate */
	sst_time_t last_fifo;  /**< latest in-order delivery time */
	uint64_t seq;	       /**< acceptance counter, the tie-breaker */
	bool in_order;	       /**< params_in_order(&p): nothing random to draw */
	bool from_zmalloc;
	/* heap storage then txq storage follow */
};

static bool
prob_ok(double p)
{
	return p >= 0.0 && p <= 1.0; /* false for NaN */
}

void
sst_simlink_params_default(struct sst_simlink_params *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->capacity = 1024;
	p->corrupt_bits = 1;
	p->ge_loss_bad = 1.0;
}

/* Copy caller parameters of any known size into a full struct. */
static int
params_import(struct sst_simlink_params *dst, const struct sst_simlink_params *src)
{
	if (src == NULL || !sst_params_size_ok(src->size, 1, sizeof(*dst)))
		return -EINVAL;
	memset(dst, 0, sizeof(*dst));
	memcpy(dst, src, src->size);
	dst->size = sizeof(*dst);
	return 0;
}

/*
 * Whether the parameters keep every delivery time at or after the previous
 * one's with nothing random on the way (no delay, jitter, reordering, loss,
 * duplication or corruption): the packets then leave in the order they
 * came, and the link holds them in a ring instead of a heap (issue 17:
 * the loopback's unimpaired link). Any impairment keeps the heap.
 */
static bool
params_in_order(const struct sst_simlink_params *p)
{
	return p->delay_ns == 0 && p->jitter_ns == 0 && p->reorder == 0.0 && p->loss == 0.0 &&
	       p->ge_p_good_bad == 0.0 && p->duplicate == 0.0 && p->corrupt == 0.0;
}

static int
params_valid(const struct sst_simlink_params *p)
{
	const char *why = NULL;

	if (p->capacity == 0 || p->capacity > SST_SIMLINK_MAX_CAPACITY)
		why = "capacity";
	else if (p->queue_pkts > p->capacity)
		why = "queue_pkts above capacity";
	else if (p->delay_ns > SST_SIMLINK_MAX_DELAY || p->jitter_ns > SST_SIMLINK_MAX_DELAY ||
		 p->reorder_delay_ns > SST_SIMLINK_MAX_DELAY)
		why = "delay";
	else if (p->jitter_dist != SST_SIMLINK_JITTER_UNIFORM &&
		 p->jitter_dist != SST_SIMLINK_JITTER_NORMAL)
		why = "jitter_dist";
	else if (!prob_ok(p->loss) || !prob_ok(p->ge_p_good_bad) || !prob_ok(p->ge_p_bad_good) ||
		 !prob_ok(p->ge_loss_good) || !prob_ok(p->ge_loss_bad) || !prob_ok(p->reorder) ||
		 !prob_ok(p->duplicate) || !prob_ok(p->corrupt))
		why = "probability outside [0, 1]";
	else if (p->corrupt != 0.0 &&
		 (p->corrupt_bits == 0 || p->corrupt_bits > SST_SIMLINK_MAX_CORRUPT_BITS))
		why = "corrupt_bits";
	if (why == NULL)
		return 0;
	SIMLINK_LOG(ERR, "invalid parameters: %s", why);
	return -EINVAL;
}

int
sst_simlink_params_check(const struct sst_simlink_params *p)
{
	struct sst_simlink_params full;

	if (params_import(&full, p) < 0)
		return -EINVAL;
	return params_valid(&full);
}

size_t
sst_simlink_size(uint32_t capacity)
{
	if (capacity == 0 || capacity > SST_SIMLINK_MAX_CAPACITY)
		return 0;
	return sizeof(struct sst_simlink) +
	       (size_t)capacity * (sizeof(struct simlink_pkt) + sizeof(struct simlink_txq_entry));
}

struct sst_simlink *
sst_simlink_init(void *mem, const struct sst_simlink_params *p)
{
	struct sst_simlink *l = mem;
	struct sst_simlink_params full;

	if (mem == NULL || params_import(&full, p) < 0 || params_valid(&full) < 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	memset(l, 0, sizeof(*l));
	l->p = full;
	l->heap.capacity = full.capacity;
	l->heap.pkts = (struct simlink_pkt *)(l + 1);
	l->txq = (struct simlink_txq_entry *)(l->heap.pkts + full.capacity);
	l->in_order = params_in_order(&full);
	simlink_heap_prefer_ring(&l->heap, l->in_order);
	simlink_impair_seed(&l->imp, full.seed);
	simlink_impair_configure(&l->imp, &full);
	return l;
}

uint32_t
sst_simlink_flush(struct sst_simlink *l)
{
	uint32_t n = l->heap.count;

	/* Entries start at head (0 in a heap) and may wrap round (a ring). */
	for (uint32_t i = 0, at = l->heap.head; i < n; i++) {
		rte_pktmbuf_free(l->heap.pkts[at].m);
		at = at + 1 == l->heap.capacity ? 0 : at + 1;
	}
	l->heap.count = 0;
	simlink_heap_prefer_ring(&l->heap, l->heap.prefer_ring);
	return n;
}

void
sst_simlink_fini(struct sst_simlink *l)
{
	if (l != NULL)
		sst_simlink_flush(l);
}

struct sst_simlink *
sst_simlink_create(const struct sst_simlink_params *p, int socket_id)
{
	struct sst_simlink_params full;
	struct sst_simlink *l;
	void *mem;

	if (params_import(&full, p) < 0 || params_valid(&full) < 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem = rte_zmalloc_socket(
		"sst_simlink", sst_simlink_size(full.capacity), RTE_CACHE_LINE_SIZE, socket_id);
	if (mem == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	l = sst_simlink_init(mem, &full);
	l->from_zmalloc = true;
	return l;
}

void
sst_simlink_destroy(struct sst_simlink *l)
{
	if (l == NULL)
		return;
	sst_simlink_fini(l);
	if (l->from_zmalloc)
		rte_free(l);
}

int
sst_simlink_set_params(struct sst_simlink *l, const struct sst_simlink_params *p)
{
	struct sst_simlink_params full;

	if (l == NULL || params_import(&full, p) < 0)
		return -EINVAL;
	if (full.capacity == 0)
		full.capacity = l->p.capacity;
	if (full.capacity != l->p.capacity || params_valid(&full) < 0)
		return -EINVAL;
	if (full.seed != l->p.seed)
		simlink_impair_seed(&l->imp, full.seed);
	if (full.rate_bps != l->p.rate_bps)
		l->ser_carry = 0;
	l->p = full;
	simlink_impair_configure(&l->imp, &full);
	l->in_order = params_in_order(&full);
	simlink_heap_prefer_ring(&l->heap, l->in_order);
	return 0;
}

/* Forget the queued packets whose last bit has left by now. */
static void
txq_expire(struct sst_simlink *l, sst_time_t now)
{
	while (l->txq_count > 0 && l->txq[l->txq_head].tx_end <= now) {
		l->txq_bytes -= l->txq[l->txq_head].len;
		l->txq_head = l->txq_head + 1 == l->p.capacity ? 0 : l->txq_head + 1;
		l->txq_count--;
	}
}

/*
 * Serialize a packet of len bytes accepted at now and return when its last
 * bit leaves. Durations are rounded down to the ns and the remainder carried
 * to the next packet of a back-to-back run, so a burst of n packets takes
 * n * bits / rate to within one ns, however the division falls.
 */
static sst_time_t
serialize(struct sst_simlink *l, sst_time_t now, uint32_t len)
{
	unsigned __int128 num;
	sst_time_t start, tx_end;
	uint32_t tail;

	if (l->p.rate_bps == 0)
		return now;
	num = (unsigned __int128)((uint64_t)len + l->p.overhead_bytes) * 8 * SST_NSEC_PER_SEC;
	if (l->busy_until >= now) {
		start = l->busy_until;
		num += l->ser_carry;
	} else {
		start = now;
	}
	l->ser_carry = (uint64_t)(num % l->p.rate_bps);
	tx_end = sst_time_add(start, (uint64_t)(num / l->p.rate_bps));
	l->busy_until = tx_end;
	if (tx_end > now) {
		tail = l->txq_head + l->txq_count;
		if (tail >= l->p.capacity)
			tail -= l->p.capacity;
		l->txq[tail].tx_end = tx_end;
		l->txq[tail].len = len;
		l->txq_count++;
		l->txq_bytes += len;
	}
	return tx_end;
}

/* Delivery time of one copy of a packet whose last bit left at tx_end. */
static sst_time_t
delivery_time(struct sst_simlink *l, sst_time_t tx_end)
{
	sst_time_t when = sst_time_add(tx_end, l->p.delay_ns);

	when = sst_time_add(when, simlink_impair_jitter(&l->imp));
	if (!l->p.jitter_reorder) {
		when = RTE_MAX(when, l->last_fifo);
	}
	if (simlink_impair_reorder(&l->imp)) {
		/* Held back: later packets may overtake it, so last_fifo stays. */
		l->stats.reordered++;
		return sst_time_add(when, l->p.reorder_delay_ns);
	}
	if (!l->p.jitter_reorder)
		l->last_fifo = when;
	return when;
}

static void
put_in_flight(struct sst_simlink *l, struct rte_mbuf *m, sst_time_t when)
{
	struct simlink_pkt e = {.when = when, .seq = l->seq++, .m = m};

	simlink_heap_push(&l->heap, &e);
}

static enum sst_simlink_verdict
drop(struct sst_simlink *l, enum sst_simlink_verdict v)
{
	switch (v) {
	case SST_SIMLINK_DROP_MTU:
		l->stats.dropped_mtu++;
		break;
	case SST_SIMLINK_DROP_QUEUE:
		l->stats.dropped_queue++;
		break;
	case SST_SIMLINK_DROP_LOSS:
		l->stats.dropped_loss++;
		break;
	case SST_SIMLINK_DROP_FULL:
		l->stats.dropped_full++;
		break;
	default:
		l->stats.dropped_nomem++;
		break;
	}
	return v;
}

enum sst_simlink_verdict
sst_simlink_enqueue(struct sst_simlink *l, struct rte_mbuf *m, sst_time_t now)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct rte_mbuf *dup = NULL;
	sst_time_t tx_end;

	if (now < l->now)
		now = l->now;
	l->now = now;
	l->stats.sent++;
	l->stats.sent_bytes += len;
	if (l->p.mtu != 0 && len > l->p.mtu)
		return drop(l, SST_SIMLINK_DROP_MTU);
	txq_expire(l, now);
	if ((l->p.queue_pkts != 0 && l->txq_count >= l->p.queue_pkts) ||
		(l->p.queue_bytes != 0 && l->txq_bytes + len > l->p.queue_bytes))
		return drop(l, SST_SIMLINK_DROP_QUEUE);
	if (l->heap.count == l->heap.capacity || l->txq_count == l->p.capacity)
		return drop(l, SST_SIMLINK_DROP_FULL);

	tx_end = serialize(l, now, len);
	/* No impairment: each of the draws below would answer "no" without
	 * drawing (a stream draws only while its impairment is on), so they
	 * are skipped, about 50 instructions a packet on the loopback. */
	if (l->in_order) {
		put_in_flight(l, m, delivery_time(l, tx_end));
		return SST_SIMLINK_QUEUED;
	}
	if (simlink_impair_lost(&l->imp))
		return drop(l, SST_SIMLINK_DROP_LOSS);

	/* Copy before corrupting, so that each copy is corrupted on its own. */
	if (simlink_impair_duplicate(&l->imp)) {
		if (l->heap.count + 2 <= l->heap.capacity)
			dup = rte_pktmbuf_copy(
				m, l->p.pool != NULL ? l->p.pool : m->pool, 0, UINT32_MAX);
		if (dup == NULL)
			l->stats.dup_failed++;
	}
	switch (simlink_impair_corrupt(&l->imp, &m, l->p.pool)) {
	case 1:
		l->stats.corrupted++;
		break;
	case 0:
		break;
	default:
		rte_pktmbuf_free(dup);
		return drop(l, SST_SIMLINK_DROP_NOMEM);
	}
	put_in_flight(l, m, delivery_time(l, tx_end));
	if (dup != NULL) {
		l->stats.duplicated++;
		if (simlink_impair_corrupt(&l->imp, &dup, l->p.pool) == 1)
			l->stats.corrupted++;
		put_in_flight(l, dup, delivery_time(l, tx_end));
	}
	return SST_SIMLINK_QUEUED;
}

void
sst_simlink_enqueue_burst(struct sst_simlink *l, struct rte_mbuf **pkts, uint16_t n, sst_time_t now,
	enum sst_simlink_verdict *verdicts)
{
	sst_time_t when;

	/* Anything that makes packets of one burst differ (a draw, the
	 * serialization of each, a queue of bytes) takes them one by one. */
	if (!l->in_order || l->p.rate_bps != 0 || l->p.queue_bytes != 0) {
		for (uint16_t i = 0; i < n; i++)
			verdicts[i] = sst_simlink_enqueue(l, pkts[i], now);
		return;
	}
	if (now < l->now)
		now = l->now;
	l->now = now;
	/* No rate: nothing is ever queued for the transmitter (txq stays
	 * empty, so queue_pkts never bites), and each packet leaves at now. */
	when = n > 0 ? delivery_time(l, now) : now;
	for (uint16_t i = 0; i < n; i++) {
		uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);

		l->stats.sent++;
		l->stats.sent_bytes += len;
		if (l->p.mtu != 0 && len > l->p.mtu)
			verdicts[i] = drop(l, SST_SIMLINK_DROP_MTU);
		else if (l->heap.count == l->heap.capacity)
			verdicts[i] = drop(l, SST_SIMLINK_DROP_FULL);
		else {
			put_in_flight(l, pkts[i], when);
			verdicts[i] = SST_SIMLINK_QUEUED;
		}
	}
}

sst_time_t
sst_simlink_next_delivery(const struct sst_simlink *l)
{
	return l->heap.count > 0 ? simlink_heap_first(&l->heap)->when : SST_TIME_NEVER;
}

uint16_t
sst_simlink_dequeue(struct sst_simlink *l, sst_time_t now, struct rte_mbuf **mbufs, uint16_t max)
{
	uint16_t n = 0;

	while (n < max && l->heap.count > 0 && simlink_heap_first(&l->heap)->when <= now) {
		struct rte_mbuf *m = simlink_heap_pop(&l->heap);

		l->stats.delivered++;
		l->stats.delivered_bytes += rte_pktmbuf_pkt_len(m);
		mbufs[n++] = m;
	}
	return n;
}

uint32_t
sst_simlink_count(const struct sst_simlink *l)
{
	return l->heap.count;
}

void
sst_simlink_stats_get(const struct sst_simlink *l, struct sst_simlink_stats *stats)
{
	*stats = l->stats;
}

void
sst_simlink_stats_reset(struct sst_simlink *l)
{
	memset(&l->stats, 0, sizeof(l->stats));
}

const char *
sst_simlink_verdict_name(enum sst_simlink_verdict v)
{
	static const char *const names[SST_SIMLINK_VERDICT_MAX] = {
		[SST_SIMLINK_QUEUED] = "queued",
		[SST_SIMLINK_DROP_MTU] = "mtu",
		[SST_SIMLINK_DROP_QUEUE] = "queue",
		[SST_SIMLINK_DROP_LOSS] = "loss",
		[SST_SIMLINK_DROP_FULL] = "full",
		[SST_SIMLINK_DROP_NOMEM] = "nomem",
	};

	if ((unsigned int)v >= SST_SIMLINK_VERDICT_MAX)
		return "unknown";
	return names[v];
}

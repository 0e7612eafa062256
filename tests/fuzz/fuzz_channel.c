/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A live channel driven by arbitrary input: received packets (garbage, or
 * sealed with the right key so they reach the ack and window logic),
 * sends, ack-only sends and the passing of time, in any order. After every
 * step the channel's invariants are checked:
 *  - every sequence number is reported acked or lost at most once;
 *  - the peer never gets credited with acknowledging what we did not send;
 *  - the bytes in flight equal the sum over the packets in flight;
 *  - the receive window only moves forward;
 *  - a failed channel stays failed and quiet;
 * and at the end every mbuf is back in the pool (nothing leaked).
 */
#include <string.h>

#include <rte_mbuf.h>

#include "channel_internal.h"
#include "channel_wire.h"
#include "fuzz_check.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

enum {
	POOL_SIZE = 8192,
	MAX_SEQ = 1 << 16,
	TX_KEY = 0x11111111,
	RX_KEY = 0x22222222,
};

static struct rte_mempool *pool;
static uint8_t outcome[MAX_SEQ];
static struct sst_channel *live;

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	bool eliciting = !sst_test_is_ack_only(m);

	(void)ctx;
	(void)seq;
	(void)now;
	rte_pktmbuf_free(m);
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
}

static void
note(uint64_t seq, uint8_t bit)
{
	FUZZ_CHECK(seq > 0 && seq < live->txlog->next_seq);
	if (seq < MAX_SEQ) {
		FUZZ_CHECK(outcome[seq] == 0);
		outcome[seq] = bit;
	}
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx;
	(void)cookie;
	(void)now;
	note(seq, 1);
}

static void
up_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx;
	(void)cookie;
	(void)now;
	note(seq, 2);
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	(void)ctx;
	sst_test_send_ack_only(live, pool, now);
}

static void
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx;
	(void)ev;
	(void)now;
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	(void)ctx;
	(void)now;
	rte_pktmbuf_free_bulk(pkts, n);
}

static const struct sst_channel_upper upper = {
	.receive = up_receive,
	.acked = up_acked,
	.lost = up_lost,
	.ack_due = up_ack_due,
	.event = up_event,
};

static const struct sst_channel_lower lower = {.transmit = low_transmit};

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (sst_test_eal_init("fuzz_channel") < 0)
		abort();
	pool = sst_test_pool("fuzz_channel", POOL_SIZE, 2048);
	if (pool == NULL)
		abort();
	return 0;
}

static void
check_invariants(const struct sst_channel *ch, uint64_t *last_highest)
{
	const struct sst_txlog *log = ch->txlog;
	uint64_t bytes = 0, packets = 0, ack_only_packets = 0;

	FUZZ_CHECK(log->largest_acked < log->next_seq);
	FUZZ_CHECK(log->oldest <= log->next_seq);
	FUZZ_CHECK(log->next_seq - log->oldest <= log->capacity);
	/* The log grows by doubling, never past its limit (channel_txlog.h). */
	FUZZ_CHECK(log->capacity <= log->limit && (log->capacity & (log->capacity - 1)) == 0);
	FUZZ_CHECK(log->capacity == 0 || log->capacity >= SST_TXLOG_INIT);
	for (uint64_t s = log->oldest; s < log->next_seq; s++) {
		const struct sst_txlog_entry *e = &log->e[s & (log->capacity - 1)];

		if (e->state != SST_TX_IN_FLIGHT)
			continue;
		FUZZ_CHECK(s >= MAX_SEQ || outcome[s] == 0);
		if (e->ack_eliciting) {
			bytes += e->bytes;
			packets++;
		} else {
			ack_only_packets++;
		}
	}
	FUZZ_CHECK(bytes == log->bytes_in_flight);
	FUZZ_CHECK(packets == log->packets_in_flight);
	FUZZ_CHECK(ack_only_packets == log->ack_only_in_flight);
	FUZZ_CHECK(ch->replay->highest >= *last_highest);
	*last_highest = ch->replay->highest;
	if (ch->failed)
		FUZZ_CHECK(sst_channel_next_expiry(ch) == SST_TIME_NEVER);
}

/* A packet from the input; with the seal flag it carries a valid trailer
 * for the number the channel will rebuild from its bytes 1-3. */
static void
receive_one(struct sst_channel *ch, struct fuzz_input *in, sst_time_t now)
{
	uint8_t flags = fuzz_take(in);
	uint8_t len = fuzz_take(in);
	uint8_t buf[256 + SST_CHK32_TRAILER_LEN];
	struct rte_mbuf *m;
	uint64_t seq;
	size_t n = len;

	for (size_t i = 0; i < n; i++)
		buf[i] = fuzz_take(in);
	if ((flags & 1) && n >= SST_CHAN_HDR_LEN) {
		uint32_t low = (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];

		if (flags & 2)
			buf[4] &= 0x0f; /* reserved bits clear, to get past the header */
		if (sst_chan_seq_expand(ch->replay->highest, low, &seq) == 0)
			n = (size_t)sst_chk32_seal(seq, buf, n, sizeof(buf), RX_KEY);
	}
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return;
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf, n);
	sst_channel_receive(ch, &m, 1, now);
}

static void
send_some(struct sst_channel *ch, uint8_t count, bool eliciting, sst_time_t now)
{
	struct rte_mbuf *pkts[8];
	uint16_t n = 0;

	for (uint8_t i = 0; i < (count % 8) + 1; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		if (m == NULL)
			break;
		memcpy(rte_pktmbuf_append(m, sizeof(sst_test_ack_only)), sst_test_ack_only,
			sizeof(sst_test_ack_only));
		if (eliciting)
			memset(rte_pktmbuf_append(m, 8), i, 8);
		pkts[n++] = m;
	}
	sst_channel_send(ch, pkts, NULL, n, eliciting, now, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sst_channel_params p;
	struct fuzz_input in = {data, size};
	uint64_t last_highest = 0;
	sst_time_t now = SST_NSEC_PER_SEC;
	unsigned int avail = rte_mempool_avail_count(pool);

	memset(outcome, 0, sizeof(outcome));
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.local_channel = 1;
	p.peer_channel = 1;
	p.suite = SST_CRYPTO_CHK32;
	p.keys.tx_chk_key = TX_KEY;
	p.keys.rx_chk_key = RX_KEY;
	p.replay_window = 64;
	p.tx_log = 256;
	p.skip_seed = size; /* vary the skip pattern with the input */
	p.pool = pool;
	p.upper = &upper;
	p.lower = &lower;
	live = sst_channel_create(&p, now);
	FUZZ_CHECK(live != NULL);

	while (in.left > 0) {
		uint8_t op = fuzz_take(&in);

		switch (op % 5) {
		case 0:
		case 1:
			receive_one(live, &in, now);
			break;
		case 2:
			send_some(live, fuzz_take(&in), true, now);
			break;
		case 3:
			send_some(live, fuzz_take(&in), false, now);
			break;
		case 4: {
			sst_time_t next = sst_channel_next_expiry(live);

			now += (sst_time_t)fuzz_take(&in) * SST_NSEC_PER_MSEC * 4;
			if (next <= now)
				sst_channel_handle_expiry(live, now);
			break;
		}
		}
		check_invariants(live, &last_highest);
	}
	sst_channel_destroy(live);
	live = NULL;
	FUZZ_CHECK(rte_mempool_avail_count(pool) == avail);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the tables of a stream's legal state transitions
 * (lib/stream/stream_state.c): for each enum, every pair of states is
 * checked against the transitions its diagram in stream_state.h draws,
 * written out again here, so that a transition added to or dropped from a
 * table without the diagram (or the other way round) fails; states out of
 * range are never legal. The setters (stream_internal.h) count what their
 * table forbids instead of trapping.
 */
#include <stdbool.h>
#include <stdio.h>

#include <rte_common.h>

#include "sst_test.h"
#include "stream_internal.h"
#include "stream_state.h"

struct pair {
	int from, to;
};

typedef bool (*legal_fn)(int from, int to);

static bool
listed(const struct pair *legal, int n, int from, int to)
{
	for (int i = 0; i < n; i++)
		if (legal[i].from == from && legal[i].to == to)
			return true;
	return false;
}

/* Every pair of [0, states] (one past the last: out of range) against the
 * list; returns the mismatches, each printed. */
static int
check_table(const char *name, legal_fn fn, int states, const struct pair *legal, int n)
{
	int bad = 0;

	for (int from = 0; from <= states; from++)
		for (int to = 0; to <= states; to++) {
			bool want = from < states && to < states && listed(legal, n, from, to);

			if (fn(from, to) != want) {
				fprintf(stderr, "  %s: %d -> %d is %s, want %s\n", name, from, to,
					want ? "illegal" : "legal", want ? "legal" : "illegal");
				bad++;
			}
		}
	return bad;
}

/* <name>_legal(from, to): stream_<state>_legal() on ints. */
#define LEGAL_FN(name, state)                                           \
	static bool name##_legal(int from, int to)                      \
	{                                                               \
		return state##_legal((enum state)from, (enum state)to); \
	}

LEGAL_FN(send, stream_send_state)
LEGAL_FN(recv, stream_recv_state)
LEGAL_FN(end, stream_end_state)
LEGAL_FN(service, stream_service_state)
LEGAL_FN(life, stream_life_state)
LEGAL_FN(tx_attach, stream_tx_attach_state)
LEGAL_FN(rx_attach, stream_rx_attach_state)

/* The transitions each diagram of stream_state.h draws. */
static const struct pair send_pairs[] = {
	{STREAM_SEND_OPEN, STREAM_SEND_CLOSE_OWED},
	{STREAM_SEND_OPEN, STREAM_SEND_CLOSE_QUEUED},
	{STREAM_SEND_CLOSE_OWED, STREAM_SEND_CLOSE_QUEUED},
	{STREAM_SEND_CLOSE_QUEUED, STREAM_SEND_CLOSE_ACKED},
};
static const struct pair recv_pairs[] = {
	{STREAM_RECV_OPEN, STREAM_RECV_EOF_READ},
};
static const struct pair end_pairs[] = {
	{STREAM_LIVE, STREAM_FINISHED},
	{STREAM_LIVE, STREAM_RESET},
	{STREAM_FINISHED, STREAM_RESET_AFTER_FINISH},
};
static const struct pair service_pairs[] = {
	{STREAM_SERVICE_WAITING, STREAM_SERVICE_DONE},
	{STREAM_SERVICE_WAITING, STREAM_SERVICE_REFUSED},
};
static const struct pair life_pairs[] = {
	{STREAM_PENDING_SERVICE, STREAM_APP_OWNED},
	{STREAM_PENDING_ACCEPT, STREAM_APP_OWNED},
	{STREAM_APP_OWNED, STREAM_APP_RELEASED},
	{STREAM_PENDING_SERVICE, STREAM_PENDING_REPLY},
	{STREAM_PENDING_REPLY, STREAM_APP_OWNED},
	{STREAM_PENDING_REPLY, STREAM_ABANDONED},
	{STREAM_PENDING_SERVICE, STREAM_ABANDONED},
	{STREAM_PENDING_ACCEPT, STREAM_ABANDONED},
	{STREAM_APP_OWNED, STREAM_ABANDONED},
};
static const struct pair tx_attach_pairs[] = {
	{STREAM_TX_DETACHED, STREAM_TX_BOUND},
	{STREAM_TX_BOUND, STREAM_TX_ATTACHING},
	{STREAM_TX_ATTACHING, STREAM_TX_BOUND},
	{STREAM_TX_BOUND, STREAM_TX_ACKED},
	{STREAM_TX_ATTACHING, STREAM_TX_ACKED},
	{STREAM_TX_BOUND, STREAM_TX_DETACHED},
	{STREAM_TX_ATTACHING, STREAM_TX_DETACHED},
	{STREAM_TX_ACKED, STREAM_TX_DETACHED},
};
static const struct pair rx_attach_pairs[] = {
	{STREAM_RX_DETACHED, STREAM_RX_ATTACHED},
	{STREAM_RX_ATTACHED, STREAM_RX_DETACHED},
};

#define TABLE(name, fn, states, pairs)                  \
	{                                               \
		name, fn, states, pairs, RTE_DIM(pairs) \
	}

static const struct table {
	const char *name;
	legal_fn fn;
	int states;
	const struct pair *legal;
	int n;
} tables[] = {
	TABLE("send", send_legal, STREAM_SEND_STATES, send_pairs),
	TABLE("recv", recv_legal, STREAM_RECV_STATES, recv_pairs),
	TABLE("end", end_legal, STREAM_END_STATES, end_pairs),
	TABLE("service", service_legal, STREAM_SERVICE_STATES, service_pairs),
	TABLE("life", life_legal, STREAM_LIFE_STATES, life_pairs),
	TABLE("tx_attach", tx_attach_legal, STREAM_TX_ATTACH_STATES, tx_attach_pairs),
	TABLE("rx_attach", rx_attach_legal, STREAM_RX_ATTACH_STATES, rx_attach_pairs),
};

static void
test_tables(void)
{
	for (size_t i = 0; i < RTE_DIM(tables); i++)
		CU_ASSERT_EQUAL(check_table(tables[i].name, tables[i].fn, tables[i].states,
					tables[i].legal, tables[i].n),
			0);
}

/* A few that must stay illegal, should a list above go wrong the same way
 * as its table: no way back, no skipping a step, no staying put. */
static void
test_illegal(void)
{
	CU_ASSERT_FALSE(stream_send_state_legal(STREAM_SEND_CLOSE_ACKED, STREAM_SEND_OPEN));
	CU_ASSERT_FALSE(stream_send_state_legal(STREAM_SEND_OPEN, STREAM_SEND_CLOSE_ACKED));
	CU_ASSERT_FALSE(stream_send_state_legal(STREAM_SEND_OPEN, STREAM_SEND_OPEN));
	CU_ASSERT_FALSE(stream_recv_state_legal(STREAM_RECV_EOF_READ, STREAM_RECV_OPEN));
	CU_ASSERT_FALSE(stream_end_state_legal(STREAM_RESET, STREAM_LIVE));
	CU_ASSERT_FALSE(stream_end_state_legal(STREAM_RESET, STREAM_FINISHED));
	CU_ASSERT_FALSE(stream_end_state_legal(STREAM_LIVE, STREAM_RESET_AFTER_FINISH));
	CU_ASSERT_FALSE(stream_service_state_legal(STREAM_SERVICE_NONE, STREAM_SERVICE_WAITING));
	CU_ASSERT_FALSE(stream_service_state_legal(STREAM_SERVICE_DONE, STREAM_SERVICE_REFUSED));
	CU_ASSERT_FALSE(stream_life_state_legal(STREAM_APP_RELEASED, STREAM_APP_OWNED));
	CU_ASSERT_FALSE(stream_life_state_legal(STREAM_ABANDONED, STREAM_APP_OWNED));
	CU_ASSERT_FALSE(stream_life_state_legal(STREAM_PENDING_ACCEPT, STREAM_APP_RELEASED));
	/* Its reply is not queued yet: the application cannot have had it. */
	CU_ASSERT_FALSE(stream_life_state_legal(STREAM_PENDING_REPLY, STREAM_APP_RELEASED));
	/* An attachment is acknowledged only once it exists, and a new one
	 * always starts unacknowledged (a SID given up is never "still acked"). */
	CU_ASSERT_FALSE(stream_tx_attach_state_legal(STREAM_TX_DETACHED, STREAM_TX_ACKED));
	CU_ASSERT_FALSE(stream_tx_attach_state_legal(STREAM_TX_DETACHED, STREAM_TX_ATTACHING));
	CU_ASSERT_FALSE(stream_tx_attach_state_legal(STREAM_TX_ACKED, STREAM_TX_BOUND));
	CU_ASSERT_FALSE(stream_tx_attach_state_legal(STREAM_TX_ACKED, STREAM_TX_ATTACHING));
	CU_ASSERT_FALSE(stream_rx_attach_state_legal(STREAM_RX_ATTACHED, STREAM_RX_ATTACHED));
}

/* A setter making a move its table forbids (a library bug) neither traps
 * nor stops: debug builds (the tests' builds) count it in the host's
 * statistics, and the move is made as a build without the check would. */
static void
test_illegal_counted(void)
{
	static struct sst_stream_host h;
	static struct sst_stream_peer p;
	struct sst_stream s = {.peer = &p};

	p.host = &h;
	stream_set_tx_attach(&s, STREAM_TX_BOUND);
	stream_set_tx_attach(&s, STREAM_TX_ACKED);
	stream_set_rx_attach(&s, STREAM_RX_ATTACHED);
	CU_ASSERT_EQUAL(h.stats.illegal_transitions, 0);
	stream_set_tx_attach(&s, STREAM_TX_BOUND); /* an acknowledgment is never taken back */
	CU_ASSERT_EQUAL(s.tx_attach, STREAM_TX_BOUND);
	stream_set_send(&s, STREAM_SEND_CLOSE_ACKED); /* the Close was never queued */
	CU_ASSERT_EQUAL(s.send, STREAM_SEND_CLOSE_ACKED);
#ifndef NDEBUG
	CU_ASSERT_EQUAL(h.stats.illegal_transitions, 2);
#else
	CU_ASSERT_EQUAL(h.stats.illegal_transitions, 0);
#endif
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_tables),
	SST_TEST(test_illegal),
	SST_TEST(test_illegal_counted),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_state", cases)

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The legal transitions of a stream's states (stream_state.h), one table
 * per enum: the diagrams of the header, and nothing else.
 */
#include "stream_state.h"

static const bool send_legal[STREAM_SEND_STATES][STREAM_SEND_STATES] = {
	[STREAM_SEND_OPEN][STREAM_SEND_CLOSE_OWED] = true,
	[STREAM_SEND_OPEN][STREAM_SEND_CLOSE_QUEUED] = true,
	[STREAM_SEND_CLOSE_OWED][STREAM_SEND_CLOSE_QUEUED] = true,
	[STREAM_SEND_CLOSE_QUEUED][STREAM_SEND_CLOSE_ACKED] = true,
};

static const bool recv_legal[STREAM_RECV_STATES][STREAM_RECV_STATES] = {
	[STREAM_RECV_OPEN][STREAM_RECV_EOF_READ] = true,
};

static const bool end_legal[STREAM_END_STATES][STREAM_END_STATES] = {
	[STREAM_LIVE][STREAM_FINISHED] = true,
	[STREAM_LIVE][STREAM_RESET] = true,
	[STREAM_FINISHED][STREAM_RESET_AFTER_FINISH] = true,
};

static const bool service_legal[STREAM_SERVICE_STATES][STREAM_SERVICE_STATES] = {
	[STREAM_SERVICE_WAITING][STREAM_SERVICE_DONE] = true,
	[STREAM_SERVICE_WAITING][STREAM_SERVICE_REFUSED] = true,
};

static const bool life_legal[STREAM_LIFE_STATES][STREAM_LIFE_STATES] = {
	[STREAM_PENDING_SERVICE][STREAM_APP_OWNED] = true,
	[STREAM_PENDING_ACCEPT][STREAM_APP_OWNED] = true,
	[STREAM_APP_OWNED][STREAM_APP_RELEASED] = true,
	[STREAM_PENDING_SERVICE][STREAM_PENDING_REPLY] = true,
	[STREAM_PENDING_REPLY][STREAM_APP_OWNED] = true,
	[STREAM_PENDING_REPLY][STREAM_ABANDONED] = true,
	[STREAM_PENDING_SERVICE][STREAM_ABANDONED] = true,
	[STREAM_PENDING_ACCEPT][STREAM_ABANDONED] = true,
	[STREAM_APP_OWNED][STREAM_ABANDONED] = true,
};

static const bool tx_attach_legal[STREAM_TX_ATTACH_STATES][STREAM_TX_ATTACH_STATES] = {
	[STREAM_TX_DETACHED][STREAM_TX_BOUND] = true,
	[STREAM_TX_BOUND][STREAM_TX_ATTACHING] = true,
	[STREAM_TX_ATTACHING][STREAM_TX_BOUND] = true,
	[STREAM_TX_BOUND][STREAM_TX_ACKED] = true,
	[STREAM_TX_ATTACHING][STREAM_TX_ACKED] = true,
	[STREAM_TX_BOUND][STREAM_TX_DETACHED] = true,
	[STREAM_TX_ATTACHING][STREAM_TX_DETACHED] = true,
	[STREAM_TX_ACKED][STREAM_TX_DETACHED] = true,
};

static const bool rx_attach_legal[STREAM_RX_ATTACH_STATES][STREAM_RX_ATTACH_STATES] = {
	[STREAM_RX_DETACHED][STREAM_RX_ATTACHED] = true,
	[STREAM_RX_ATTACHED][STREAM_RX_DETACHED] = true,
};

/* stream_<state>_legal(): the table's entry, false for a state out of
 * range (the table has none). */
#define STATE_LEGAL(state, count, table)                                    \
	bool state##_legal(enum state from, enum state to)                  \
	{                                                                   \
		return from < (count) && to < (count) && (table)[from][to]; \
	}

STATE_LEGAL(stream_send_state, STREAM_SEND_STATES, send_legal)
STATE_LEGAL(stream_recv_state, STREAM_RECV_STATES, recv_legal)
STATE_LEGAL(stream_end_state, STREAM_END_STATES, end_legal)
STATE_LEGAL(stream_service_state, STREAM_SERVICE_STATES, service_legal)
STATE_LEGAL(stream_life_state, STREAM_LIFE_STATES, life_legal)
STATE_LEGAL(stream_tx_attach_state, STREAM_TX_ATTACH_STATES, tx_attach_legal)
STATE_LEGAL(stream_rx_attach_state, STREAM_RX_ATTACH_STATES, rx_attach_legal)

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
	[STREAM_PENDING_SERVICE][STREAM_ABANDONED] = true,
	[STREAM_PENDING_ACCEPT][STREAM_ABANDONED] = true,
	[STREAM_APP_OWNED][STREAM_ABANDONED] = true,
};

bool
stream_send_state_legal(enum stream_send_state from, enum stream_send_state to)
{
	return from < STREAM_SEND_STATES && to < STREAM_SEND_STATES && send_legal[from][to];
}

bool
stream_recv_state_legal(enum stream_recv_state from, enum stream_recv_state to)
{
	return from < STREAM_RECV_STATES && to < STREAM_RECV_STATES && recv_legal[from][to];
}

bool
stream_end_state_legal(enum stream_end_state from, enum stream_end_state to)
{
	return from < STREAM_END_STATES && to < STREAM_END_STATES && end_legal[from][to];
}

bool
stream_service_state_legal(enum stream_service_state from, enum stream_service_state to)
{
	return from < STREAM_SERVICE_STATES && to < STREAM_SERVICE_STATES &&
	       service_legal[from][to];
}

bool
stream_life_state_legal(enum stream_life_state from, enum stream_life_state to)
{
	return from < STREAM_LIFE_STATES && to < STREAM_LIFE_STATES && life_legal[from][to];
}

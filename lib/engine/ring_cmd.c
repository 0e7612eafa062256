/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring mode, the agent's commands (sst_ring.h): each client's command ring
 * read in bursts, a command's arguments gathered, and the command executed
 * on its slot (ring_agent.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "ring_agent.h"

/*
 * Consume the argument elements of the command at buf[i]: those in this
 * burst and the rest from the ring (enqueued in one bulk with it, so they
 * are there). @return how many of buf[] were consumed; *n holds the names
 * if the command carries exactly a struct ring_names.
 */
static uint32_t
cmd_args(struct rte_ring *r, const struct ring_cmd *buf, uint32_t i, uint32_t nbuf,
	struct ring_names *n, bool *ok)
{
	struct ring_cmd tmp[RING_CMD_BURST];
	uint32_t e = buf[i].ext, have = RTE_MIN(e, nbuf - i - 1), rest = e - have;

	static_assert(RING_NAMES_ELEMS <= RING_CMD_BURST, "names fit the scratch");
	*ok = false;
	if (e == RING_NAMES_ELEMS) {
		memcpy(tmp, &buf[i + 1], have * sizeof(tmp[0]));
		if (rest == 0 || rte_ring_sc_dequeue_bulk_elem(
					 r, tmp + have, sizeof(tmp[0]), rest, NULL) == rest) {
			memcpy(n, tmp, sizeof(*n));
			n->service[SST_RING_NAME_MAX - 1] = '\0';
			n->protocol[SST_RING_NAME_MAX - 1] = '\0';
			*ok = true;
		}
		return have;
	}
	while (rest > 0) {
		uint32_t k = rte_ring_sc_dequeue_bulk_elem(
			r, tmp, sizeof(tmp[0]), RTE_MIN(rest, (uint32_t)RING_CMD_BURST), NULL);

		if (k == 0)
			break;
		rest -= k;
	}
	return have;
}

static void
cmd_drop(const struct ring_cmd *cmd, atomic_uint_fast64_t *counter)
{
	if (cmd->op == RING_OP_WRITE || cmd->op == RING_OP_DGRAM)
		rte_pktmbuf_free(cmd->m);
	ring_stat_add(counter, 1);
}

static void
cmd_close(struct sst_ring_agent *a, struct ring_slot *sl, sst_time_t now)
{
	if (sl->state == SLOT_LISTENER) {
		ring_listen_end(a, sl, true);
		sl->flags |= SLOT_F_CLOSE;
		ring_slot_release(sl, now);
		return;
	}
	sl->flags |= SLOT_F_CLOSE;
	sl->owe &= RING_OWE_READ; /* what arrives from now on is discarded */
	/* A pending stream still opens, sends what was written and closes. */
	if (sl->state == SLOT_PENDING || (sl->state == SLOT_LIVE && sl->fifo_count > 0))
		return;
	ring_slot_release(sl, now);
}

static void
cmd_reset(struct sst_ring_agent *a, struct ring_slot *sl, sst_time_t now)
{
	sl->flags &= ~SLOT_F_SHUT;
	ring_fifo_free(sl);
	if (sl->state == SLOT_PENDING)
		ring_slot_fail(a, sl, -ECONNRESET, SST_STREAM_RESET_LOCAL, now);
	else if (sl->s != NULL)
		sst_stream_reset(sl->s, now); /* closed() reports it */
}

static void
cmd_exec(struct sst_ring_agent *a, struct sst_ring_client *c, const struct ring_cmd *cmd,
	const struct ring_names *n, sst_time_t now)
{
	struct ring_slot *sl;

	ring_stat_add(&c->w.st.commands, 1);
	switch (cmd->op) {
	case RING_OP_CONNECT:
		sl = n != NULL ? ring_slot_new(c, cmd->handle, SLOT_PENDING) : NULL;
		if (sl == NULL)
			break;
		sl->flags |= SLOT_F_CONNECT;
		ring_connect_start(a, sl, n, now);
		return;
	case RING_OP_LISTEN:
		sl = n != NULL ? ring_slot_new(c, cmd->handle, SLOT_PENDING) : NULL;
		if (sl == NULL)
			break;
		ring_listen_start(a, sl, n);
		return;
	case RING_OP_SUBSTREAM:
		sl = ring_slot_new(c, cmd->handle, SLOT_PENDING);
		if (sl == NULL)
			break;
		ring_substream_start(a, sl, ring_slot_live(c, cmd->ref), now);
		return;
	default:
		sl = ring_slot_live(c, cmd->handle);
		if (sl == NULL) {
			cmd_drop(cmd, &c->w.st.dead_handle);
			return;
		}
		if (sl->state == SLOT_LISTENER && cmd->op != RING_OP_CLOSE)
			break;
		switch (cmd->op) {
		case RING_OP_WRITE:
			ring_write(sl, cmd->m, cmd->flags, now);
			return;
		case RING_OP_DGRAM:
			if (sl->s == NULL || sst_stream_send_datagram(sl->s, cmd->m, now) < 0) {
				rte_pktmbuf_free(cmd->m);
				ring_stat_add(&c->w.st.dgram_tx_drops, 1);
			}
			return;
		case RING_OP_LISTEN_SUB:
			/* Substreams waiting to be read as datagrams stay in
			 * the stream's accept queue: the mode cannot change. */
			if ((uint32_t)cmd->arg > SST_RING_SUBSTREAMS_AS_DATAGRAMS ||
				(sl->mode == SST_RING_SUBSTREAMS_AS_DATAGRAMS &&
					cmd->arg != SST_RING_SUBSTREAMS_AS_DATAGRAMS))
				break;
			sl->mode = (uint8_t)cmd->arg;
			if (sl->s != NULL)
				sst_stream_listen_substream(
					sl->s, sl->mode != SST_RING_SUBSTREAMS_OFF);
			return;
		case RING_OP_SHUTDOWN:
			if (sl->s != NULL && sl->fifo_count == 0)
				sst_stream_shutdown(sl->s, now);
			else if (sl->state == SLOT_PENDING || sl->fifo_count > 0)
				sl->flags |= SLOT_F_SHUT;
			return;
		case RING_OP_CLOSE:
			cmd_close(a, sl, now);
			return;
		case RING_OP_RESET:
			cmd_reset(a, sl, now);
			return;
		case RING_OP_PRIO:
			sl->prio = cmd->arg;
			sl->flags |= SLOT_F_PRIO;
			if (sl->s != NULL)
				sst_stream_set_priority(sl->s, cmd->arg);
			return;
		default:
			break;
		}
		break;
	}
	cmd_drop(cmd, &c->w.st.bad_commands);
}

void
ring_cmd_run(struct sst_ring_agent *a, struct sst_ring_client *c, sst_time_t now)
{
	struct ring_cmd buf[RING_CMD_BURST];
	uint32_t budget = RING_CMD_BUDGET, n;

	while (budget > 0 && (n = rte_ring_sc_dequeue_burst_elem(c->cmd, buf, sizeof(buf[0]),
				      RTE_MIN(budget, (uint32_t)RING_CMD_BURST), NULL)) > 0) {
		budget -= n;
		for (uint32_t i = 0; i < n; i++) {
			struct ring_names names;
			bool named = false;
			uint32_t at = i;

			if (buf[i].ext != 0)
				i += cmd_args(c->cmd, buf, i, n, &names, &named);
			cmd_exec(a, c, &buf[at], named ? &names : NULL, now);
		}
	}
}

void
ring_cmd_ring_drain(struct rte_ring *r)
{
	struct ring_cmd buf[RING_CMD_BURST];
	uint32_t n;

	while ((n = rte_ring_sc_dequeue_burst_elem(r, buf, sizeof(buf[0]), RTE_DIM(buf), NULL)) > 0)
		for (uint32_t i = 0; i < n; i++) {
			struct ring_names names;
			bool named;

			if (buf[i].op == RING_OP_WRITE || buf[i].op == RING_OP_DGRAM)
				rte_pktmbuf_free(buf[i].m);
			else if (buf[i].ext != 0)
				i += cmd_args(r, buf, i, n, &names, &named);
		}
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-stream flow control (paper 4.3.6) with CUSP's receiver window
 * auto-tuning. See stream_flowctl.h for the calling contract.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "stream_flowctl.h"

/* The free space from which the window byte would be above @p window's. */
static uint64_t
grow_free(uint8_t window)
{
	return 2 * (uint64_t)sst_window_credit(window) + 1;
}

int
sst_flowctl_rx_init(
	struct sst_flowctl_rx *rx, uint32_t min_buf, uint32_t max_buf, uint32_t mss, bool strict)
{
	if (rx == NULL || mss == 0 || max_buf > SST_FLOWCTL_BUF_MAX || min_buf > max_buf ||
		(uint64_t)min_buf < 2 * (uint64_t)mss)
		return -EINVAL;
	memset(rx, 0, sizeof(*rx));
	rx->min_buf = min_buf;
	rx->max_buf = max_buf;
	rx->target = min_buf;
	rx->mss = mss;
	rx->strict = strict;
	/* The sender starts with the credit of the initial buffer. */
	rx->adv_window = sst_window_encode(min_buf);
	rx->adv_credit = sst_window_credit(rx->adv_window);
	rx->grow_free = grow_free(rx->adv_window);
	rx->edge = rx->adv_credit;
	rx->edge_round = rx->edge;
	return 0;
}

int
sst_flowctl_rx_set_buffered(
	struct sst_flowctl_rx *rx, uint64_t read_off, uint64_t ready, uint64_t ooo)
{
	if (read_off < rx->read_off)
		return -EINVAL;
	rx->read_off = read_off;
	rx->ready = ready;
	rx->ooo = ooo;
	return 0;
}

uint8_t
sst_flowctl_rx_window(const struct sst_flowctl_rx *rx)
{
	return sst_window_encode(sst_flowctl_rx_free(rx));
}

int
sst_flowctl_rx_advertise(struct sst_flowctl_rx *rx, uint64_t seq, uint8_t *window)
{
	uint64_t edge;

	if (rx->advertised && seq <= rx->last_seq)
		return -EINVAL;
	if (rx->round_acked) {
		/* The round ends here: the tuned window takes effect. */
		rx->target = sst_flowctl_rx_target(rx);
		rx->round_acked = false;
		rx->probing = false;
	}
	rx->adv_window = sst_flowctl_rx_window(rx);
	rx->adv_credit = sst_window_credit(rx->adv_window);
	rx->grow_free = grow_free(rx->adv_window);
	rx->last_seq = seq;
	rx->advertised = true;
	rx->stats.adverts++;

	/*
	 * Unacknowledged bytes within the credit reach at most read offset +
	 * buffered + credit: the edge this advertisement allows.
	 */
	edge = rx->read_off + rx->ready + rx->ooo + rx->adv_credit;
	if (!rx->probing) {
		/* CUSP: the advert whose acknowledgment ends the next round. */
		rx->probing = true;
		rx->probe_seq = seq;
		rx->probe_read = rx->read_off;
		rx->edge_round = edge;
	} else if (edge > rx->edge_round) {
		rx->edge_round = edge;
	}
	if (edge > rx->edge)
		rx->edge = edge;
	*window = rx->adv_window;
	return 0;
}

/* Receiver silly-window avoidance: an update must be worth this much. */
static uint32_t
update_step(const struct sst_flowctl_rx *rx)
{
	return RTE_MIN(sst_flowctl_rx_target(rx) / 4, 2 * rx->mss);
}

/*
 * The window byte for free space f is the largest e with 2^e - 1 <= f, so
 * its credit is above the advert's (2^a - 1) exactly when f reaches
 * 2^(a+1) - 1, grow_free: below it, sst_flowctl_rx_update_due() answers
 * no without calling here, and the answer is the same as this one's.
 */
bool
sst_flowctl_rx_update_worth(const struct sst_flowctl_rx *rx)
{
	uint32_t credit = sst_window_credit(sst_flowctl_rx_window(rx));
	uint32_t step = update_step(rx);

	if (!rx->advertised)
		return false;
	return credit > rx->adv_credit && credit - rx->adv_credit >= step;
}

bool
sst_flowctl_rx_edge_due(const struct sst_flowctl_rx *rx)
{
	uint32_t credit = sst_window_credit(sst_flowctl_rx_window(rx));

	return rx->read_off + rx->ready + rx->ooo + credit >= rx->edge + update_step(rx);
}

int
sst_flowctl_rx_on_ack(struct sst_flowctl_rx *rx, uint64_t seq)
{
	if (!rx->probing || rx->round_acked || seq < rx->probe_seq)
		return 0;
	/* CUSP: the probe reached the sender; sst_flowctl_rx_target() re-tunes. */
	rx->round_acked = true;
	/*
	 * The sender has seen the probe, so adverts older than it are
	 * superseded (it uses the most recent one): only those since the
	 * probe still bound what it may send.
	 */
	rx->edge = rx->edge_round;
	rx->stats.retunes++;
	return 1;
}

enum sst_flowctl_verdict
sst_flowctl_rx_check(struct sst_flowctl_rx *rx, uint64_t off, uint32_t len)
{
	uint64_t end = off + len;

	if (end <= rx->edge)
		return SST_FLOWCTL_ACCEPT;
	if (rx->strict) {
		/* Paper 4.3.6: an overrunning segment is treated as lost. */
		rx->stats.overrun_drops++;
		return SST_FLOWCTL_DROP;
	}
	if (end > rx->read_off + rx->max_buf) {
		rx->stats.overrun_max_drops++;
		return SST_FLOWCTL_DROP;
	}
	rx->stats.overrun_tolerated++;
	return SST_FLOWCTL_ACCEPT;
}

int
sst_flowctl_tx_init(struct sst_flowctl_tx *tx, uint32_t mss, uint8_t window)
{
	if (tx == NULL || mss == 0)
		return -EINVAL;
	memset(tx, 0, sizeof(*tx));
	tx->mss = mss;
	tx->window = window & SST_WINDOW_EXP_MASK;
	tx->credit = sst_window_credit(tx->window);
	return 0;
}

int
sst_flowctl_tx_on_window(struct sst_flowctl_tx *tx, uint64_t seq, uint8_t window)
{
	/* Paper 4.3.6: only the most recently sent update is used. */
	if (tx->updated && seq <= tx->update_seq) {
		tx->stats.stale_updates++;
		return 0;
	}
	tx->updated = true;
	tx->update_seq = seq;
	tx->window = window & SST_WINDOW_EXP_MASK;
	tx->credit = sst_window_credit(tx->window);
	tx->stats.updates++;
	return 1;
}

void
sst_flowctl_tx_sent(struct sst_flowctl_tx *tx, uint32_t bytes)
{
	tx->inflight += bytes;
}

int
sst_flowctl_tx_acked(struct sst_flowctl_tx *tx, uint32_t bytes)
{
	if (bytes > tx->inflight)
		return -ERANGE;
	tx->inflight -= bytes;
	return 0;
}

int
sst_flowctl_tx_lost(struct sst_flowctl_tx *tx, uint32_t bytes)
{
	return sst_flowctl_tx_acked(tx, bytes);
}

uint64_t
sst_flowctl_tx_allowance(const struct sst_flowctl_tx *tx)
{
	return tx->inflight < tx->credit ? tx->credit - tx->inflight : 0;
}

uint64_t
sst_flowctl_tx_sendable(struct sst_flowctl_tx *tx, uint64_t pending, bool push)
{
	uint64_t allow = sst_flowctl_tx_allowance(tx);
	uint64_t fits = pending < allow ? pending : allow;
	uint64_t whole;

	if (pending <= allow && push)
		return pending;
	/* Paper 4.3.6: wait for room for a full segment rather than cut one. */
	whole = fits / tx->mss * tx->mss;
	if (whole < fits)
		tx->stats.sws_waits++;
	return whole;
}

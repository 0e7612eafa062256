/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen's latency clock. A port with RTE_ETH_RX_OFFLOAD_TIMESTAMP
 * stamps each received frame with its own clock (the mbuf's timestamp
 * dynamic field); rte_eth_read_clock() reads that clock now. Two readings
 * of it beside the TSC give a line from one to the other, renewed every
 * second, on which a response's arrival is placed: the end of a
 * transaction is then when its last bytes reached the port, not when the
 * application got round to them. The start of a transaction and the whole
 * of a setup stay on the TSC (no frame of ours carries a stamp when it
 * leaves, and a setup ends in a callback, not on an mbuf). Without the
 * offload, or on kernel UDP, the TSC times everything.
 */
#define ALLOW_EXPERIMENTAL_API /* rte_eth_read_clock() */

#include <errno.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "gen_clock.h"

int
gen_clock_fit(struct gen_clock_fit *f, uint64_t tsc0, uint64_t nic0, uint64_t tsc1, uint64_t nic1)
{
	if (tsc1 <= tsc0 || nic1 <= nic0)
		return -EINVAL;
	*f = (struct gen_clock_fit){
		.tsc0 = tsc0, .nic0 = nic0, .tsc_span = tsc1 - tsc0, .nic_span = nic1 - nic0};
	return 0;
}

uint64_t
gen_clock_nic_to_tsc(const struct gen_clock_fit *f, uint64_t nic)
{
	unsigned __int128 d;

	if (nic >= f->nic0) {
		d = (unsigned __int128)(nic - f->nic0) * f->tsc_span / f->nic_span;
		return f->tsc0 + (uint64_t)d;
	}
	d = (unsigned __int128)(f->nic0 - nic) * f->tsc_span / f->nic_span;
	return (uint64_t)d > f->tsc0 ? 0 : f->tsc0 - (uint64_t)d;
}

enum gen_clock_source
gen_clock_choose(bool port, bool port_offers, bool enabled, int read_clock_rc, const char **why)
{
	if (!port)
		*why = "kernel UDP: no port to stamp frames";
	else if (!port_offers)
		*why = "the port offers no receive timestamps";
	else if (!enabled)
		*why = "the port's receive timestamps are not enabled";
	else if (read_clock_rc != 0)
		*why = "the port's clock cannot be read (rte_eth_read_clock)";
	else {
		*why = "the port's receive timestamps, mapped to the TSC";
		return GEN_CLOCK_NIC;
	}
	return GEN_CLOCK_TSC;
}

/* Two readings of both clocks @p gap_us apart. @return 0 or -errno. */
static int
read_pair(uint16_t port, uint64_t gap_us, uint64_t *tsc0, uint64_t *nic0, uint64_t *tsc1,
	uint64_t *nic1)
{
	int rc = rte_eth_read_clock(port, nic0);

	*tsc0 = rte_rdtsc();
	if (rc != 0)
		return rc;
	rte_delay_us_block((unsigned int)gap_us);
	rc = rte_eth_read_clock(port, nic1);
	*tsc1 = rte_rdtsc();
	return rc;
}

void
gen_clock_init(struct gen_clock *clk, uint16_t port_id)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	bool port = port_id != UINT16_MAX, offers = false, enabled = false;
	uint64_t tsc0 = 0, nic0 = 0, tsc1 = 0, nic1 = 0;
	int rc = -ENOTSUP;

	*clk = (struct gen_clock){.source = GEN_CLOCK_TSC, .port = port_id, .dynfield = -1};
	if (port && rte_eth_dev_info_get(port_id, &info) == 0)
		offers = (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
	if (offers && rte_eth_dev_conf_get(port_id, &conf) == 0)
		enabled = (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
	if (enabled && rte_mbuf_dyn_rx_timestamp_register(&clk->dynfield, &clk->dynflag) != 0)
		enabled = false;
	if (enabled)
		rc = read_pair(port_id, 10000, &tsc0, &nic0, &tsc1, &nic1);
	if (rc == 0)
		rc = gen_clock_fit(&clk->fit, tsc0, nic0, tsc1, nic1);
	clk->source = gen_clock_choose(port, offers, enabled, rc, &clk->why);
	clk->refit_gap = rte_get_tsc_hz();
	clk->refit_tsc = tsc1 + clk->refit_gap;
}

uint64_t
gen_clock_rx_tsc(struct gen_clock *clk, const struct rte_mbuf *m)
{
	uint64_t nic, now;
	struct gen_clock_fit f;

	if (clk->source != GEN_CLOCK_NIC)
		return 0;
	if (!(m->ol_flags & clk->dynflag)) {
		clk->unstamped++;
		return 0;
	}
	/* The line from the last reading to one now: the port's rate as it
	 * is, not as it was at start. */
	now = rte_rdtsc();
	if (now >= clk->refit_tsc && rte_eth_read_clock(clk->port, &nic) == 0 &&
		gen_clock_fit(&f, clk->fit.tsc0 + clk->fit.tsc_span,
			clk->fit.nic0 + clk->fit.nic_span, now, nic) == 0) {
		clk->fit = f;
		clk->refit_tsc = now + clk->refit_gap;
	}
	clk->stamped++;
	return gen_clock_nic_to_tsc(
		&clk->fit, *RTE_MBUF_DYNFIELD(m, clk->dynfield, const rte_mbuf_timestamp_t *));
}

const char *
gen_clock_name(const struct gen_clock *clk)
{
	return clk->source == GEN_CLOCK_NIC ? "nic" : "tsc";
}

void
gen_clock_report(const struct gen_clock *clk, bool json)
{
	const char *why = clk->why != NULL ? clk->why : "kernel UDP: no port to stamp frames";

	if (json)
		printf("  \"latency_clock\": {\"source\": \"%s\", \"why\": \"%s\", "
		       "\"reads_stamped\": %llu, \"reads_unstamped\": %llu},\n",
			gen_clock_name(clk), why, (unsigned long long)clk->stamped,
			(unsigned long long)clk->unstamped);
	else
		printf("%-22s %s (%s); response reads stamped by the port %llu, not %llu; "
		       "setups and transaction starts by the TSC\n",
			"latency clock", gen_clock_name(clk), why, (unsigned long long)clk->stamped,
			(unsigned long long)clk->unstamped);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen's latency clock (gen_clock.c): the TSC, or where the port
 * stamps received frames (RTE_ETH_RX_OFFLOAD_TIMESTAMP), the port's clock
 * mapped onto the TSC for the moment a response's last bytes arrived.
 */
#ifndef GEN_CLOCK_H
#define GEN_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;

/** Which clock times the ends of transactions. */
enum gen_clock_source {
	GEN_CLOCK_TSC = 0, /**< read when the application saw the event */
	GEN_CLOCK_NIC,	   /**< the port's receive timestamp, mapped to the TSC */
};

/**
 * A straight line from the port's clock to the TSC through two readings
 * of both (rte_eth_read_clock() beside rte_rdtsc()): the port counts
 * nic_span ticks while the TSC counts tsc_span cycles.
 */
struct gen_clock_fit {
	uint64_t tsc0, nic0; /**< the first reading of both */
	uint64_t tsc_span, nic_span;
};

/**
 * Fit the line through two readings.
 * @return 0, or -EINVAL when the second is not after the first on both
 *   clocks (no rate can be drawn from them).
 */
int gen_clock_fit(
	struct gen_clock_fit *f, uint64_t tsc0, uint64_t nic0, uint64_t tsc1, uint64_t nic1);

/** The TSC value at port clock @p nic on the line @p f (before tsc0 too:
 * a frame stamped before the first reading); exact to a cycle, with
 * 128-bit products. */
uint64_t gen_clock_nic_to_tsc(const struct gen_clock_fit *f, uint64_t nic);

/** The latency clock of a run. */
struct gen_clock {
	enum gen_clock_source source;
	const char *why; /**< why this source (static text) */
	uint16_t port;
	int dynfield;	    /**< offset of the mbuf's timestamp field */
	uint64_t dynflag;   /**< the flag a stamped mbuf carries */
	uint64_t refit_tsc; /**< when to take a new second reading */
	uint64_t refit_gap; /**< TSC cycles between readings (a second) */
	uint64_t stamped;   /**< response data read with the port's stamp */
	uint64_t unstamped; /**< ... without one, on a port that stamps */
	struct gen_clock_fit fit;
};

/**
 * Choose the clock for a run from what the port says (pure: the caller
 * asked the port). TSC when there is no port, the port does not offer
 * the offload, it was not enabled, or its clock cannot be read.
 * @param port_offers The port's rx_offload_capa has the timestamp.
 * @param enabled The port runs with the offload (rte_eth_dev_conf_get()).
 * @param read_clock_rc What rte_eth_read_clock() returned.
 * @param why Set to the reason, for the report.
 * @return The source.
 */
enum gen_clock_source gen_clock_choose(
	bool port, bool port_offers, bool enabled, int read_clock_rc, const char **why);

/**
 * Set @p clk up for port @p port_id (UINT16_MAX: no port, kernel UDP):
 * the port's stamps and a first fit (two readings 10 ms apart), or the TSC.
 * At setup, after the port started.
 */
void gen_clock_init(struct gen_clock *clk, uint16_t port_id);

/**
 * The TSC time at which the port received @p m, or 0 when it carries no
 * stamp (the TSC is then the clock: the caller reads it). Takes a new
 * reading of both clocks once a second, so that the line follows the
 * port's drift.
 */
uint64_t gen_clock_rx_tsc(struct gen_clock *clk, const struct rte_mbuf *m);

/** The clock's name for the report ("tsc", "nic"). */
const char *gen_clock_name(const struct gen_clock *clk);

/** The clock's line of the final table, or its member of the JSON object
 * (a clock never set up with gen_clock_init() is the TSC of kernel UDP). */
void gen_clock_report(const struct gen_clock *clk, bool json);

#endif /* GEN_CLOCK_H */

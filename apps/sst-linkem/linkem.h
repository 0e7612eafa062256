/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-linkem: an emulated link between two network interfaces
 * (docs/tools/sst-linkem.md). Every frame read on one interface goes
 * through one direction of the simlink model (drivers/link/simlink: rate,
 * bottleneck queue, loss, delay, jitter) in real time and out of the other
 * interface, so that kernel TCP and SST-DPDK cross the same link. The
 * interfaces are DPDK ports on net_af_packet: veth ends, typically, whose
 * peers sit in the namespaces of a client and a server.
 */
#ifndef LINKEM_H
#define LINKEM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "sst_simlink.h"

/** Direction 0 carries A to B, direction 1 B to A. */
enum { LINKEM_DIRS = 2 };

/** Bytes of a net_af_packet ring frame (the PMD's default, set explicitly:
 * the ring view of linkem_ring.h needs the geometry). */
enum { LINKEM_FRAME_SIZE = 2048 };

/** How the bridge waits when it has nothing to do. */
enum linkem_wait {
	/** Sleep, never past the next delivery (less the wake-up's
	 * latency): with arrivals at the kernel's stamps, also up to the
	 * link's one-way delay (at most 1 ms), as a frame that arrives
	 * meanwhile cannot be due before, and its wait in the ring changes
	 * nothing in the model; with arrivals at the reads, 50 us at a time
	 * (before session 15). A link without delay blocks in poll() instead.
	 * The default. */
	LINKEM_WAIT_SLEEP,
	/** Block in poll() on the ports' packet sockets until a frame
	 * arrives or the next delivery is near. */
	LINKEM_WAIT_POLL,
	/** Never wait: poll the ports without a pause (a CPU of its own). */
	LINKEM_WAIT_BUSY,
};

struct linkem_conf {
	const char *iface[LINKEM_DIRS]; /**< interface A, interface B */
	/** The model of each direction; capacity and pool are set by linkem_run(). */
	struct sst_simlink_params dir[LINKEM_DIRS];
	uint32_t mbufs;	 /**< packet buffers of the process */
	uint32_t frames; /**< net_af_packet ring frames per interface */
	double run_s;	 /**< stop after this long; 0: until interrupted */
	bool quiet;	 /**< no per-second counters */
	enum linkem_wait wait;
	/** Each frame enters the model at the time the bridge read it, not at
	 * the kernel's stamp of its arrival (before session 15; for
	 * comparisons). */
	bool arrival_read;
};

/** What one direction did (totals of a run). */
struct linkem_dir_stats {
	uint64_t rx;	   /**< frames read on the input interface */
	uint64_t tx;	   /**< frames written on the output interface */
	uint64_t tx_bytes; /**< their bytes */
	uint64_t tx_fail;  /**< frames the output interface refused (freed) */
	struct sst_simlink_stats link;
};

/** The DPDK device name under which interface d must be plugged in
 * ("net_af_packet0" for A, "net_af_packet1" for B). */
const char *linkem_port_name(int d);

/** "A>B" or "B>A". */
const char *linkem_dir_name(int d);

/**
 * Bridge the two interfaces through the model until interrupted
 * (@p stop set nonzero) or conf->run_s has passed, printing one line of
 * counters per second on stderr unless conf->quiet. The EAL must be up with
 * the interfaces plugged in as linkem_port_name(0) and (1).
 * @return 0, or the tools' setup exit status after printing why.
 */
int linkem_run(const struct linkem_conf *conf, volatile sig_atomic_t *stop,
	struct linkem_dir_stats out[LINKEM_DIRS]);

#endif /* LINKEM_H */

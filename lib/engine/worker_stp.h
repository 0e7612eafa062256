/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STP telemetry of a worker (worker_cc.c, for telemetry.c): its counters of
 * untrusted controllers, what one channel's module and policer are, and
 * which module each of its peers' channels run. Every function runs on the
 * worker's thread (in its upkeep, answering the mailbox).
 */
#ifndef WORKER_STP_H
#define WORKER_STP_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_cc_driver.h"
#include "tel_table.h"

struct sst_channel;
struct sst_worker;
struct worker_chan;

enum {
	WORKER_STP_ROWS = 9,	    /**< rows of worker_stp_rows() */
	WORKER_STP_CHAN_ROWS = 8,   /**< rows of struct worker_stp_chan */
	WORKER_STP_PEERS_PAGE = 16, /**< peers in one reply of /sst/stp_peers */
	WORKER_STP_HEX = 65,	    /**< a hash or key in hex, NUL included */
};

/* What one channel's controller is, when it is an untrusted module. */
struct worker_stp_chan {
	bool module; /* false: a built-in controller, nothing else is set */
	char hash[WORKER_STP_HEX];
	const char *exec;    /* "jit" or "interpreter" */
	const char *policer; /* "init", "slowstart", "steady" or "off" */
	const char *revoked; /* "none", "policer" or "budget" */
	struct sst_tel_u64 rows[WORKER_STP_CHAN_ROWS];
	uint32_t nrows;
};

/* One peer: its channels and the module they run. */
struct worker_stp_peer {
	const struct worker_chan *first; /* its first channel (endpoint, mode) */
	uint32_t index;			 /* that channel's index in the worker */
	char id[WORKER_STP_HEX];	 /* secure mode: its key; else zeros */
	char cc[SST_CC_NAME_MAX];  /* the controller of a channel on a module, else the first's */
	char hash[WORKER_STP_HEX]; /* the module's, or "" */
	const char *exec;	   /* of the module, or "" */
	const char *revoked;	   /* of the module, or "" */
	uint32_t channels, on_module;
	uint32_t policer[3]; /* its channels on a module by policer state */
	uint64_t calls, overruns;
};

/* The worker's STP counters as telemetry rows (stp_*); returns how many. */
uint32_t worker_stp_rows(const struct sst_worker *w, struct sst_tel_u64 rows[WORKER_STP_ROWS]);

/* Describe @p ch's controller into @p out. */
void worker_stp_channel(const struct sst_channel *ch, struct worker_stp_chan *out);

/*
 * The peers whose first channel is at index @p from or later, in channel
 * order, at most WORKER_STP_PEERS_PAGE. Returns how many; *next is the
 * index to continue from, 0 when all were listed.
 */
uint32_t worker_stp_peers(
	const struct sst_worker *w, uint32_t from, struct worker_stp_peer *out, uint32_t *next);

#endif /* WORKER_STP_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf, the client's state: shared by the test logic (perf_client.c)
 * and the reports (perf_report.c).
 */
#ifndef PERF_CLIENT_H
#define PERF_CLIENT_H

#include "perf.h"
#include "perf_prio.h"
#include "perf_web.h"

enum perf_phase {
	CP_CONNECTING, /**< waiting for the channel */
	CP_PARAMS,     /**< parameters sent, waiting for the server's answer */
	CP_RUNNING,    /**< the test */
	CP_RESULTS,    /**< control stream ended, waiting for the server's counters */
	CP_DONE,
};

enum flow_state {
	FL_FREE = 0, /**< rr: a slot without a transaction */
	FL_OPEN,     /**< writing */
	FL_SHUT,     /**< our direction ended */
	FL_DONE,     /**< finished (handle released) */
};

/* One data stream (bulk, streams, dgram) or transaction slot (rr). */
struct cli_flow {
	struct sst_stream *s;
	uint64_t tag;
	uint64_t tx_off, tx_len;
	uint64_t rx_off;
	uint64_t rx_len; /**< rr and web: the response's length */
	sst_time_t t0;
	uint8_t state;
	bool blocked;  /**< write refused: ops.writable() will come */
	bool queued;   /**< in the work queue */
	bool answered; /**< streams mode: the whole response arrived */
};

struct perf_client {
	const struct perf_conf *conf;
	struct tool_host *h;
	struct sst_net_endpoint server;
	/* The worker that holds the server's channels and our streams: the
	 * client's work is done in its passes only, not once per worker. */
	struct sst_worker *home;
	struct sst_stream_peer *peer;
	enum perf_phase phase;
	bool failed;
	bool closing; /**< being destroyed: callbacks do nothing */
	/* A stream's end reported inside a read of it (see defer_close()). */
	struct sst_stream *in_read;
	bool close_pending;
	enum sst_stream_end close_why;
	char error[256];
	/* Control stream. */
	struct sst_stream *ctl;
	uint8_t ctl_buf[PERF_READY_LEN + PERF_RESULT_LEN];
	uint32_t ctl_len;
	struct perf_result r;
	/* Data flows and the queue of those with writing to do. */
	struct cli_flow *flows;
	uint32_t nflows;
	struct cli_flow **work;
	uint32_t work_head, work_len;
	uint64_t started;	  /**< streams opened / transactions started / datagrams sent */
	uint64_t finished;	  /**< streams finished / transactions done */
	uint64_t answered;	  /**< streams mode */
	uint64_t unanswered_ends; /**< streams mode: ended before their answer (never get one) */
	uint64_t in_flight;
	bool stopping;		  /**< no new data: the time or the count is reached */
	bool data_ended;	  /**< every data stream finished */
	bool dgram_ready;	  /**< dgram mode: the data stream is connected */
	uint64_t dgram_live0;	  /**< dgram mode: streams live then (control, data) */
	struct rte_mbuf *dg_part; /**< dgram mode: the next datagram, being made */
	uint32_t dg_built;	  /**< its bytes so far */
	bool shutting;		  /**< streams mode: all answered, ending them */
	uint32_t shut_next;
	uint64_t open_retries; /**< sst_stream_connect() found no resources */
	uint64_t failures;     /**< data streams that ended abnormally */
	uint64_t verify_errors;
	uint64_t tx_bytes, rx_bytes;
	struct perf_hist *hist;
	/* Times. */
	sst_time_t t_start, t_stop, t_answered, t_end, deadline, give_up;
	sst_time_t next_progress;
	uint64_t tsc0, tsc1;
	uint64_t peak_live;
	struct tool_counters c0, c1;
	/* Progress: values at the previous line. */
	uint64_t prog_bytes, prog_count;
	uint64_t prog_answered, prog_finished; /**< streams: at the last progress line */
	sst_time_t prog_t;		       /**< when the last progress line was printed */
	uint64_t acked_done;		       /**< bulk: bytes of streams already finished */
	struct perf_prio prio;		       /**< prio mode's schedule */
	struct perf_web web;		       /**< web mode's walk through the trace */
};

/** Open data stream @p i (its request: --request bytes). The caller may
 * still set the flow's tag and rx_len: its request is written from the
 * next pass on. @return false when the stream layer had no room: try again
 * at a later pass. */
bool perf_client_open(struct perf_client *cl, uint32_t i, sst_time_t now);

/** One progress line on stderr. */
void perf_progress(struct perf_client *cl, sst_time_t now);

#endif /* PERF_CLIENT_H */

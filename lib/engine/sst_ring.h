/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Ring mode: the paper's stream operations for application threads that are
 * not workers (docs/engine.md, "Ring mode"). Each application thread
 * attaches a client to a worker's agent; the pair shares two
 * single-producer/single-consumer rte_rings, one carrying commands (app to
 * worker) and one carrying events (worker to app). Data travels as mbufs
 * whose ownership passes through the rings: nothing is copied.
 *
 * Worker side (the agent, one per worker, used on the worker's thread
 * only):
 *
 *   a = sst_ring_agent_create(&ap);
 *   sst_ring_agent_worker_params(a, &wp);   // stream and worker callbacks
 *   w = sst_worker_create(&wp);
 *   sst_ring_agent_bind(a, w);
 *   ... sst_worker_poll(w, now) runs the agent (worker ops app_poll) ...
 *   sst_worker_destroy(w);                  // aborts every stream
 *   sst_ring_agent_destroy(a);
 *
 * Application side (a client, used by exactly one thread):
 *
 *   c = sst_ring_client_create(a, &cp);
 *   h = sst_ring_connect(c, &ep, "echo", "test", SST_NEGO_MODE_CHECKSUM);
 *   sst_ring_write(c, h, m, SST_WRITE_MESSAGE);   // at once: pipelined
 *   n = sst_ring_poll(c, ev, 32);                 // CONNECTED, DATA, ...
 *   sst_ring_close(c, h);                         // FREED follows
 *   sst_ring_client_destroy(c);
 *
 * Handles. A stream, substream or listener is named by a handle: a positive
 * int holding a table index (low 16 bits) and a generation (bits 16..30).
 * The application gets the handle of what it opens at once (connect,
 * create_substream, listen), so writes can follow before the worker has
 * even seen the command; streams the peer opens get theirs from the agent,
 * in an ACCEPTED event. Every handle lives until the application closes it
 * (sst_ring_close(), also after CLOSED); the agent answers with FREED, the
 * last event of the handle, and only after FREED is its index used again,
 * with a new generation. A command naming an index whose generation is not
 * the live one, or a handle already closed, is ignored by the agent
 * (counted as dead_handle, its mbuf freed), so a stale handle can never
 * touch a reused one; the client refuses such commands itself (-EBADF) and
 * drops events for handles it has closed.
 *
 * Backpressure. Writes are credited per handle: at most write_window
 * writes may be outstanding (sent and not yet taken by the stream layer);
 * sst_ring_write() returns -EAGAIN when none is left, and WRITABLE events
 * give credit back. The agent keeps writes the stream layer refused
 * (-EAGAIN) in the handle's FIFO of write_window entries, which the credit
 * makes impossible to overflow, so one slow stream never blocks the
 * commands of others. When the event ring is full the agent stops reading
 * streams (the data waits in the stream layer, whose flow control slows
 * the peer) and resumes on later polls; control events are per-handle
 * state in the agent and are never dropped. Datagrams read while the ring
 * is full are dropped and counted.
 */
#ifndef SST_RING_H
#define SST_RING_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "sst_net.h"
#include "sst_negotiation.h"
#include "sst_stream.h"
#include "sst_worker.h"

struct sst_ring_agent;
struct sst_ring_client;

enum {
	SST_RING_NAME_MAX = 64,		/**< service and protocol names, NUL included */
	SST_RING_HANDLES_MAX = 1 << 16, /**< handles of one client (both ranges) */
};

/** How an agent is created. Fields left zero take the defaults shown. */
struct sst_ring_agent_params {
	uint32_t size;	      /**< sizeof(struct sst_ring_agent_params) */
	int socket_id;	      /**< NUMA socket of the agent's tables */
	uint32_t max_clients; /**< clients attached at once; 0: 16 */
	uint32_t max_pending; /**< connects waiting for a channel; 0: 64 */
	/** A connect still waiting for its channel after this long fails
	 * with -ETIMEDOUT; 0: only when the negotiation fails (after
	 * SST_NEGO_FAIL_AFTER). */
	sst_time_t connect_timeout;
};

/** Create an agent (at setup).
 * @param p Parameters, copied; NULL: the defaults.
 * @return The agent, or NULL with rte_errno set: EINVAL (bad size field,
 *   max_pending too large), ENOMEM. */
struct sst_ring_agent *sst_ring_agent_create(const struct sst_ring_agent_params *p);

/**
 * Install the agent in a worker's parameters, before sst_worker_create():
 * the stream callbacks (p->stream.ops, ctx) and the worker callbacks
 * (p->ops, ctx: peer_ready, connect_failed, app_poll). A worker has one
 * set of callbacks: a worker serving ring clients is not also embedded.
 * @param a The agent.
 * @param p The worker's parameters, modified.
 */
void sst_ring_agent_worker_params(struct sst_ring_agent *a, struct sst_worker_params *p);

/** Tell the agent which worker it serves (once, after sst_worker_create(),
 * on the worker's thread or before it runs).
 * @param a The agent.
 * @param w The worker made with the parameters of
 *   sst_ring_agent_worker_params(). */
void sst_ring_agent_bind(struct sst_ring_agent *a, struct sst_worker *w);

/**
 * Destroy an agent, after its worker (sst_worker_destroy() aborts the
 * streams; the worker calls into the agent until then). Queued writes and
 * commands are freed; clients still attached are marked detached (their
 * threads then only call sst_ring_client_destroy()).
 * @param a The agent; NULL is ignored.
 */
void sst_ring_agent_destroy(struct sst_ring_agent *a);

/** Accepting substreams (sst_ring_listen_substream()). */
enum sst_ring_substreams {
	SST_RING_SUBSTREAMS_OFF = 0, /**< the peer's substreams are refused */
	/** Each substream the peer opens comes as an ACCEPTED event (ref: the
	 * parent); substreams of accepted streams accept alike. */
	SST_RING_SUBSTREAMS_ACCEPT = 1,
	/** Substreams are read as datagrams once complete (paper 2.2: a large
	 * datagram travels as an ephemeral substream) and come as DATAGRAM
	 * events. A stream stays in this mode once set. */
	SST_RING_SUBSTREAMS_AS_DATAGRAMS = 2,
};

/** How a client is created. Fields left zero take the defaults shown. */
struct sst_ring_client_params {
	uint32_t size;	       /**< sizeof(struct sst_ring_client_params) */
	int socket_id;	       /**< NUMA socket of the rings and tables */
	uint32_t cmd_ring;     /**< command ring entries (a power of 2); 0: 4096 */
	uint32_t event_ring;   /**< event ring entries (a power of 2); 0: 4096 */
	uint32_t max_handles;  /**< handles the application opens; 0: 256 */
	uint32_t max_accepted; /**< handles of streams the peer opens; 0: 256 */
	uint32_t write_window; /**< writes outstanding per handle; 0: 32 */
};

/**
 * Attach a client to an agent: the rings and every table are allocated
 * here, on any thread, while the worker runs or not; the worker starts
 * serving the client at its next poll. The client is then used by the
 * thread that created it only.
 * @param a The agent.
 * @param p Parameters, copied; NULL: the defaults.
 * @return The client, or NULL with rte_errno set: EINVAL (a NULL, bad size
 *   field, too many handles, write_window over 65535, a ring too small),
 *   ENOMEM, ENOSPC (max_clients attached).
 */
struct sst_ring_client *sst_ring_client_create(
	struct sst_ring_agent *a, const struct sst_ring_client_params *p);

/**
 * Ask the worker to detach the client, without waiting: at its next poll
 * it resets the client's streams, withdraws its services and frees every
 * mbuf the client gave it. Commands are refused from now on.
 * @param c The client.
 * @return 0 once detached (or the agent was destroyed), -EINPROGRESS
 *   until then (call again: a thread that also polls the worker must).
 */
int sst_ring_client_detach(struct sst_ring_client *c);

/**
 * Detach (waiting for the worker's next poll, so the worker must be
 * running on another thread unless sst_ring_client_detach() returned 0
 * already) and free a client, on its thread; what is left in the rings is
 * freed.
 * @param c The client; NULL is ignored.
 */
void sst_ring_client_destroy(struct sst_ring_client *c);

/**
 * Open a top-level stream to (service, protocol) on the host at @p ep; if
 * the worker has no channel there yet, it negotiates one first (@p mode).
 * CONNECTED reports the answer (0, -ECONNREFUSED: no such service,
 * -ETIMEDOUT, ...); a failed connect is followed by CLOSED.
 * @param c The client.
 * @param ep The peer's endpoint (copied).
 * @param service Service name (copied), shorter than SST_RING_NAME_MAX.
 * @param protocol Protocol name (copied), shorter than SST_RING_NAME_MAX.
 * @param mode How to negotiate a channel if one is needed.
 * @return the handle (> 0), or -EINVAL (ep NULL, names empty or too long), -EMFILE
 *   (no free handle), -ENOBUFS (command ring full: try again after
 *   sst_ring_poll()), -ENOTCONN (the client was detached).
 */
int sst_ring_connect(struct sst_ring_client *c, const struct sst_net_endpoint *ep,
	const char *service, const char *protocol, enum sst_nego_mode mode);

/**
 * Offer a service: top-level streams for (service, protocol) come to this
 * client as ACCEPTED events whose ref is the returned listener handle, and
 * accept substreams as @p substreams says. LISTENING reports the outcome
 * (0, -EEXIST: offered already, -ENOSPC). Close the listener handle to
 * withdraw the service.
 * @param c The client.
 * @param service Service name (copied).
 * @param protocol Protocol name (copied).
 * @param substreams What to do with substreams of the accepted streams.
 * @return the listener handle, or as sst_ring_connect() (-EINVAL also for
 *   an unknown @p substreams).
 */
int sst_ring_listen(struct sst_ring_client *c, const char *service, const char *protocol,
	enum sst_ring_substreams substreams);

/**
 * Open a substream of @p parent (paper 2.1); it may be written at once,
 * even while the parent's connect is pending.
 * @param c The client.
 * @param parent The parent's handle.
 * @return the handle, or -EBADF (parent not live) or as sst_ring_connect().
 */
int sst_ring_create_substream(struct sst_ring_client *c, int parent);

/** Accept substreams of @p h, or read them as datagrams, or refuse them.
 * @param c The client.
 * @param h A stream's handle (not a listener).
 * @param mode What to do with its substreams.
 * @return 0, -EBADF (h not live, or a listener), -EINVAL (unknown mode),
 *   -ENOBUFS (command ring full), -ENOTCONN (detached). */
int sst_ring_listen_substream(struct sst_ring_client *c, int h, enum sst_ring_substreams mode);

/**
 * Write an mbuf chain (flags: SST_WRITE_MESSAGE, SST_WRITE_MORE).
 * Ownership of @p m passes on success only; it is not copied.
 * @param c The client.
 * @param h A stream's handle.
 * @param m The data.
 * @param flags enum sst_stream_write_flags; other bits are ignored.
 * @return 0, -EAGAIN (no write credit: wait for WRITABLE), -EBADF (h not
 *   live, a listener, or m NULL), -ENOBUFS (command ring full),
 *   -ENOTCONN (detached).
 */
int sst_ring_write(struct sst_ring_client *c, int h, struct rte_mbuf *m, uint32_t flags);

/** Writes that may be sent on @p h now.
 * @param c The client.
 * @param h A handle.
 * @return Its credit, or -EBADF (h not live). */
int sst_ring_write_credit(const struct sst_ring_client *c, int h);

/**
 * Send a datagram on @p parent (unreliable; dropped and counted when the
 * stream layer refuses it). Ownership of @p m passes on success only.
 * @param c The client.
 * @param parent A stream's handle.
 * @param m The datagram.
 * @return 0, -EBADF (not live, a listener, or m NULL), -ENOBUFS (command
 *   ring full), -ENOTCONN (detached).
 */
int sst_ring_send_datagram(struct sst_ring_client *c, int parent, struct rte_mbuf *m);

/** End our direction once the writes before it are out (half close).
 * @param c The client.
 * @param h A stream's handle.
 * @return 0, -EBADF (not live, or a listener), -ENOBUFS (command ring
 *   full), -ENOTCONN (detached). */
int sst_ring_shutdown(struct sst_ring_client *c, int h);

/**
 * Release the handle: our direction ends after the writes before it,
 * whatever arrives is discarded, and no event but FREED comes for it any
 * more (the client drops those already in the ring). A listener handle
 * withdraws its service.
 * @param c The client.
 * @param h A handle (stream or listener).
 * @return 0, -EBADF (not live), -ENOBUFS (command ring full: the handle
 *   stays live, try again), -ENOTCONN (detached).
 */
int sst_ring_close(struct sst_ring_client *c, int h);

/** Reset the stream in both directions (paper 4.3.8); queued writes are
 * dropped. CLOSED follows; the handle still needs sst_ring_close().
 * @param c The client.
 * @param h A stream's handle.
 * @return 0, -EBADF (not live, or a listener), -ENOBUFS (command ring
 *   full), -ENOTCONN (detached). */
int sst_ring_reset(struct sst_ring_client *c, int h);

/** Set the stream's priority (higher first; equal priorities share).
 * @param c The client.
 * @param h A stream's handle.
 * @param prio The priority.
 * @return 0, -EBADF (not live, or a listener), -ENOBUFS (command ring
 *   full), -ENOTCONN (detached). */
int sst_ring_set_priority(struct sst_ring_client *c, int h, int32_t prio);

/** What happened (struct sst_ring_event.type). */
enum sst_ring_event_type {
	SST_RING_EV_CONNECTED = 1, /**< handle: err 0, or the connect failed */
	SST_RING_EV_LISTENING,	   /**< handle (a listener): err 0 or why not */
	SST_RING_EV_ACCEPTED,	   /**< handle: new; ref: the listener or the parent */
	SST_RING_EV_DATA,	   /**< handle: m, in order; flags: SST_RING_EV_F_MESSAGE */
	SST_RING_EV_DATAGRAM,	   /**< handle: the parent; m: one datagram */
	SST_RING_EV_WRITABLE,	   /**< handle: credit writes given back */
	SST_RING_EV_END,	   /**< handle: the peer ended its direction; all read */
	SST_RING_EV_CLOSED,	   /**< handle: the stream ended (why), err */
	SST_RING_EV_FREED,	   /**< handle: gone; its index may be reused */
};

enum {
	SST_RING_EV_F_MESSAGE = 0x1, /**< DATA: this record ends a message */
};

/** One event: 16 bytes in the event ring. */
struct sst_ring_event {
	uint8_t type;	 /**< enum sst_ring_event_type */
	uint8_t flags;	 /**< SST_RING_EV_F_* */
	uint16_t why;	 /**< CLOSED: enum sst_stream_end */
	uint32_t handle; /**< the stream, substream or listener */
	union {
		struct rte_mbuf *m; /**< DATA, DATAGRAM: the application's now */
		uint32_t ref;	    /**< ACCEPTED: the listener or parent handle */
		int32_t err;	    /**< CONNECTED, LISTENING, CLOSED: 0 or negative errno */
		uint32_t credit;    /**< WRITABLE: writes given back */
	};
};

/**
 * Take up to @p max events. Events for handles the application closed
 * are dropped here (their mbufs freed), so every handle in a returned event
 * is live, or FREED. Write credit from WRITABLE is already counted.
 * @param c The client.
 * @param ev Filled with the events; the mbufs of DATA and DATAGRAM events
 *   become the caller's to free.
 * @param max Room in @p ev.
 * @return events stored (0: none waiting), or -ENOTCONN once detached.
 */
int sst_ring_poll(struct sst_ring_client *c, struct sst_ring_event *ev, unsigned int max);

/** Counters of one client. The agent's are written by the worker thread
 * and read here without locks (aligned 64-bit words, one writer each). */
struct sst_ring_client_stats {
	uint64_t commands;	 /**< commands the agent executed */
	uint64_t events;	 /**< events the agent enqueued */
	uint64_t dead_handle;	 /**< commands for handles not live (mbufs freed) */
	uint64_t bad_commands;	 /**< malformed or not allowed (e.g. over the credit) */
	uint64_t write_errors;	 /**< writes the stream refused for good (reset, shut) */
	uint64_t dgram_tx_drops; /**< datagrams the stream layer refused */
	uint64_t dgram_rx_drops; /**< datagrams dropped: event ring full */
	uint64_t accept_drops;	 /**< streams the peer opened, reset: no free handle */
	uint64_t connect_full;	 /**< connects failed: the pending table was full */
	uint64_t ring_full;	 /**< passes that stopped reading: event ring full */
	/* Counted by the client. */
	uint64_t cmd_ring_full; /**< commands refused with -ENOBUFS */
	uint64_t no_credit;	/**< writes refused with -EAGAIN */
	uint64_t stale_events;	/**< events for closed handles, dropped */
};

/** Counters of one client, on the client's thread.
 * @param c The client.
 * @param st Filled in completely. */
void sst_ring_client_stats(const struct sst_ring_client *c, struct sst_ring_client_stats *st);

#endif /* SST_RING_H */

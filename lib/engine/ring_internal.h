/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring mode's shared state (sst_ring.h): the command format, a client's
 * two halves (the agent's, touched only on the worker's thread, and the
 * application's, touched only on the client's thread), and the agent.
 * ring_client.c is the application side, ring_agent.c the worker side.
 */
#ifndef RING_INTERNAL_H
#define RING_INTERNAL_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "sst_ring.h"

enum {
	RING_GEN_SHIFT = 16,
	RING_INDEX_MASK = 0xffff,
	RING_GEN_MAX = 0x7fff,	/**< generations 1..RING_GEN_MAX: a handle is a positive int */
	RING_SERVICES_MAX = 64, /**< as many as a stream host offers */
};

/* Commands (struct ring_cmd.op). */
enum ring_op {
	RING_OP_CONNECT = 1, /**< handle: new; ext: struct ring_names */
	RING_OP_LISTEN,	     /**< handle: new listener; ext: struct ring_names */
	RING_OP_SUBSTREAM,   /**< handle: new; ref: the parent */
	RING_OP_LISTEN_SUB,  /**< arg: enum sst_ring_substreams */
	RING_OP_WRITE,	     /**< m; flags: write flags */
	RING_OP_DGRAM,	     /**< m */
	RING_OP_SHUTDOWN,
	RING_OP_CLOSE,
	RING_OP_RESET,
	RING_OP_PRIO, /**< arg: the priority */
};

/* One command: 16 bytes in the command ring (the fast element size of
 * rte_ring), followed by ext elements of arguments for connect and listen,
 * enqueued with it in one bulk operation so the agent always finds them. */
struct ring_cmd {
	uint8_t op;
	uint8_t ext;
	uint16_t flags;
	uint32_t handle;
	union {
		struct rte_mbuf *m;
		struct {
			uint32_t ref;
			int32_t arg;
		};
	};
};
static_assert(sizeof(struct ring_cmd) == 16, "one command, one 16-byte element");
static_assert(sizeof(struct sst_ring_event) == 16, "one event, one 16-byte element");

/* Arguments of connect and listen. */
struct ring_names {
	struct sst_net_endpoint ep; /**< connect */
	uint8_t mode;		    /**< connect: enum sst_nego_mode; listen: substreams */
	char service[SST_RING_NAME_MAX];
	char protocol[SST_RING_NAME_MAX];
};

#define RING_NAMES_ELEMS ((sizeof(struct ring_names) + 15) / 16)

/* Attachment of a client (sst_ring_client.state). */
enum ring_attach {
	RING_ATTACHED = 1,
	RING_DETACHING, /**< the client asks; the worker tears down */
	RING_DETACHED,	/**< the worker is done with the client */
};

/* A write the stream layer refused for now, kept in its handle's FIFO. */
struct ring_wr {
	struct rte_mbuf *m;
	uint32_t flags;
};

/* The agent's side of one handle. Lists link by index + 1 (0: end). */
struct ring_slot {
	struct sst_stream *s; /**< NULL: not opened yet, a listener, or released */
	struct sst_ring_client *c;
	uint32_t idx;
	uint16_t gen;
	uint8_t state; /**< enum ring_slot_state */
	uint8_t mode;  /**< enum sst_ring_substreams */
	uint16_t owe;  /**< events owed (RING_OWE_*) */
	uint16_t flags;
	uint16_t why;	   /**< CLOSED */
	uint16_t pending;  /**< a connect waiting for its channel: entry + 1 */
	uint16_t service;  /**< a listener: services[] + 1 */
	int32_t conn_err;  /**< CONNECTED */
	int32_t close_err; /**< CLOSED */
	uint32_t ref;	   /**< ACCEPTED: the listener or parent handle */
	int32_t prio;
	uint32_t credit_owed; /**< writes taken and not yet given back */
	uint16_t fifo_head, fifo_count;
	uint32_t next_ready, next_tx;
	uint32_t parent;	       /**< a substream waiting for its parent: parent + 1 */
	uint32_t waiters, next_waiter; /**< substreams waiting for this one */
	uint32_t next_work;	       /**< opening waiters, breadth first */
};

/* The agent's counters of a client (struct sst_ring_client_stats): the
 * worker's thread writes them, the client's thread reads them
 * (sst_ring_client_stats()), so they are atomics, with relaxed order as the
 * worker's published counters (telemetry.c): each is a count on its own. */
struct ring_agent_stats {
	atomic_uint_fast64_t commands, events, dead_handle, bad_commands, write_errors,
		dgram_tx_drops, dgram_rx_drops, accept_drops, connect_full, ring_full;
};

/* Add n to one of the agent's counters. On the worker's thread, the only
 * writer: a relaxed load and store, no locked instruction. */
static inline void
ring_stat_add(atomic_uint_fast64_t *counter, uint64_t n)
{
	atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n,
		memory_order_relaxed);
}

/* The agent's half of a client. */
struct ring_agent_side {
	struct ring_slot *slots;
	struct ring_wr *fifo;  /**< write_window entries per slot */
	uint32_t *free_accept; /**< free indexes of the accepted range (a stack) */
	uint32_t free_accept_n;
	uint32_t ready_head, ready_tail; /**< slots owing events */
	uint32_t tx_head, tx_tail;	 /**< slots whose FIFO may drain */
	uint32_t credit_threshold;
	uint32_t room; /**< event ring entries known free */
	bool stalled;  /**< the last pass stopped at a full event ring */
	struct ring_agent_stats st;
};

/* The application's view of one handle. */
struct ring_handle {
	uint16_t gen;
	uint8_t state; /**< RING_H_* */
	uint8_t listener;
	int32_t credit;
};

enum { RING_H_FREE = 0, RING_H_LIVE, RING_H_CLOSING };

struct ring_app_side {
	struct ring_handle *handles;
	uint32_t *free_own; /**< free indexes of the application's range (a stack) */
	uint32_t free_own_n;
	uint64_t cmd_ring_full, no_credit, stale_events;
};

struct sst_ring_client {
	struct sst_ring_agent *agent;
	struct rte_ring *cmd; /**< application to worker */
	struct rte_ring *ev;  /**< worker to application */
	uint32_t max_handles, nslots, window;
	uint32_t agent_index;	/**< in agent->clients */
	_Atomic uint32_t state; /**< enum ring_attach */
	struct ring_agent_side w __rte_cache_aligned;
	struct ring_app_side a __rte_cache_aligned;
};

/* A connect waiting for a channel to its endpoint. */
struct ring_pending {
	struct sst_ring_client *c; /**< NULL: the entry is free */
	uint32_t idx;
	sst_time_t deadline;
	struct ring_names n;
};

/* A service offered through a client's listener. */
struct ring_service {
	struct sst_ring_client *c; /**< NULL: free */
	uint32_t idx;
	uint8_t mode;
	char service[SST_RING_NAME_MAX];
	char protocol[SST_RING_NAME_MAX];
};

/* A substream being accepted: its children may be offered before the
 * accept returns, while it has no slot pointer of ours yet. */
struct ring_accepting {
	struct sst_stream *s;
	struct ring_slot *slot;
	struct ring_accepting *prev;
};

struct sst_ring_agent {
	struct sst_ring_agent_params p;
	struct sst_worker *w;
	struct sst_stream_host *sh;
	struct sst_worker_ops wops;
	struct sst_stream_ops sops;
	sst_time_t now; /**< of the latest poll, for callbacks that carry none */
	uint32_t npending;
	struct ring_accepting *accepting;
	struct ring_pending *pending;
	struct ring_service services[RING_SERVICES_MAX];
	_Atomic(struct sst_ring_client *) *clients;
};

/* Events a slot owes, emitted in this order. */
enum {
	RING_OWE_ACCEPTED = 0x1,
	RING_OWE_CONNECTED = 0x2,
	RING_OWE_LISTENING = 0x4,
	RING_OWE_READ = 0x8, /**< the stream may have data or datagrams */
	RING_OWE_END = 0x10,
	RING_OWE_WRITABLE = 0x20,
	RING_OWE_CLOSED = 0x40,
	RING_OWE_FREED = 0x80,
	RING_OWE_FIRST = RING_OWE_ACCEPTED | RING_OWE_CONNECTED | RING_OWE_LISTENING,
};

enum ring_slot_state {
	SLOT_FREE = 0,
	SLOT_PENDING, /**< opened by the application; waits for a channel or its parent */
	SLOT_LIVE,    /**< has its stream */
	SLOT_ENDED,   /**< will never have one (failed, reset before it opened) */
	SLOT_LISTENER,
};

enum {
	SLOT_F_READY = 0x1,	/**< in the ready list */
	SLOT_F_TX = 0x2,	/**< in the tx list */
	SLOT_F_SHUT = 0x4,	/**< shut down once the FIFO is empty */
	SLOT_F_CLOSE = 0x8,	/**< closed by the application: release once the FIFO is empty */
	SLOT_F_END_SENT = 0x10, /**< END was emitted */
	SLOT_F_PRIO = 0x20,	/**< prio to set once it opens */
	SLOT_F_CONNECT = 0x40,	/**< a top-level stream of ours: CONNECTED is due */
	SLOT_F_LISTS = SLOT_F_READY | SLOT_F_TX,
};

enum {
	RING_CMD_BURST = 32,
	RING_CMD_BUDGET = 1024,	  /**< commands per client and pass */
	RING_READ_BURST = 32,	  /**< records per read */
	RING_READ_TURNS = 4,	  /**< reads per slot before the next slot's turn */
	RING_SERVE_BUDGET = 8192, /**< slot services per client and pass */
};

/* What serving a slot came to. */
enum { SERVE_DONE, SERVE_MORE, SERVE_FULL, SERVE_FREED };

static inline uint32_t
ring_handle(uint32_t idx, uint16_t gen)
{
	return (uint32_t)gen << RING_GEN_SHIFT | idx;
}

static inline uint16_t
ring_gen_next(uint16_t gen)
{
	return (uint16_t)(gen % RING_GEN_MAX + 1);
}

static inline uint32_t
ring_slot_handle(const struct ring_slot *sl)
{
	return ring_handle(sl->idx, sl->gen);
}

/* ring_slot.c: slots, their lists, writes, events. */
void ring_ready_push(struct ring_slot *sl);
void ring_owe(struct ring_slot *sl, uint16_t what);
void ring_tx_push(struct ring_slot *sl);
struct ring_slot *ring_slot_live(struct sst_ring_client *c, uint32_t h);
struct ring_slot *ring_slot_new(struct sst_ring_client *c, uint32_t h, uint8_t state);
struct ring_slot *ring_slot_accept(struct sst_ring_client *c);
void ring_fifo_free(struct ring_slot *sl);
void ring_fifo_drop(struct ring_slot *sl);
void ring_slot_release(struct ring_slot *sl, sst_time_t now);
void ring_write(struct ring_slot *sl, struct rte_mbuf *m, uint32_t flags, sst_time_t now);
void ring_tx_run(struct sst_ring_client *c, sst_time_t now);
void ring_ready_run(struct sst_ring_client *c, sst_time_t now);

/* ring_cmd.c: free the mbufs of commands left in a command ring. */
void ring_cmd_ring_drain(struct rte_ring *r);

#endif /* RING_INTERNAL_H */

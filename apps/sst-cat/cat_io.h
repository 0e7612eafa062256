/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-cat's standard input and output, polled from the worker loop: a read
 * or write happens only when poll() says it will not block, so a slow
 * terminal or pipe never stalls the stack (the file descriptors keep their
 * blocking mode, which they share with the shell that started us).
 */
#ifndef CAT_IO_H
#define CAT_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/**
 * Read what standard input has now, without blocking.
 * @return bytes read (0: nothing now), or -1 at end of input (or on a
 *   read error, reported on stderr).
 */
ssize_t cat_in_read(int fd, void *buf, size_t len);

enum { CAT_OUT_MAX = 512 };

/** Received data waiting for standard output, in arrival order. */
struct cat_out {
	int fd;
	struct {
		struct rte_mbuf *m;
		bool newline; /**< print a newline after it (a datagram) */
	} q[CAT_OUT_MAX];
	uint32_t head, n;
	uint32_t off;	  /**< bytes of q[head] already written */
	bool error;	  /**< the output failed (EPIPE...): drop what comes */
	uint64_t written; /**< bytes written */
};

/** Room for one more entry. */
static inline bool
cat_out_room(const struct cat_out *o)
{
	return o->n < CAT_OUT_MAX;
}

static inline bool
cat_out_empty(const struct cat_out *o)
{
	return o->n == 0;
}

/** Queue @p m (ownership passes); the caller checked cat_out_room(). */
void cat_out_push(struct cat_out *o, struct rte_mbuf *m, bool newline);

/** Write as much as the output takes now. */
void cat_out_flush(struct cat_out *o);

/** Free what is still queued. */
void cat_out_drop(struct cat_out *o);

#endif /* CAT_IO_H */

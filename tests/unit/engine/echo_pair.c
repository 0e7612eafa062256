/* SPDX-License-Identifier: BSD-3-Clause */
#include "echo_pair.h"

#include <errno.h>

#include <rte_mbuf.h>

#include "sst_engine.h"
#include "sst_test.h"

uint8_t
echo_pattern(uint32_t i, uint32_t off)
{
	return (uint8_t)((i * 2654435761u + off * 40503u) >> 13);
}

void
echo_connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct echo_side *sd = ctx;

	RTE_SET_USED(ep);
	RTE_SET_USED(err);
	sd->failed++;
}

static void
echo(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int j = 0; j < k; j++)
			if (sst_stream_write(s, d[j].m, d[j].flags, now) < 0)
				rte_pktmbuf_free(d[j].m);
	if (k == -EPIPE) {
		sst_stream_shutdown(s, now);
		sst_stream_close(s, now);
	}
}

/* The echo must come back whole on the stream of the channel it was sent
 * on (the stream's user value is the channel index). */
static void
check(struct echo_side *c, struct sst_stream *s, sst_time_t now)
{
	uint32_t i = (uint32_t)(uintptr_t)sst_stream_user(s);
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int j = 0; j < k; j++) {
			uint32_t len = rte_pktmbuf_pkt_len(d[j].m);
			uint8_t buf[2048];
			const uint8_t *p =
				len <= sizeof(buf) ? rte_pktmbuf_read(d[j].m, 0, len, buf) : NULL;

			for (uint32_t b = 0; b < len; b++)
				c->bad += p == NULL || p[b] != echo_pattern(i, c->echoed[i] + b);
			c->echoed[i] += len;
			rte_pktmbuf_free(d[j].m);
		}
	if (k == -EPIPE) {
		c->done++;
		c->bad += c->echoed[i] != c->request;
		sst_stream_close(s, now);
	}
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(parent);
	RTE_SET_USED(svc);
	echo(s, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct echo_side *sd = ctx;

	if (sd->server)
		echo(s, now);
	else
		check(sd, s, now);
}

const struct sst_stream_ops echo_stream_ops = {.accepted = op_accepted, .readable = op_readable};

void
echo_poll(struct echo_side *server, struct echo_side *client)
{
	sst_worker_poll(server->w, sst_engine_now());
	sst_worker_poll(client->w, sst_engine_now());
}

uint32_t
echo_streams(struct echo_side *server, struct echo_side *client, uint32_t n, uint32_t wave,
	struct rte_mempool *pool, sst_time_t deadline)
{
	uint32_t opened = 0, missing = 0;

	while (client->done + missing < n && sst_engine_now() < deadline) {
		while (opened < n && opened - client->done - missing < wave) {
			struct sst_stream *s;
			struct rte_mbuf *m;
			uint8_t *p;

			if (client->peers[opened] == NULL) {
				opened++;
				missing++;
				continue;
			}
			s = sst_stream_connect(
				client->peers[opened], "echo", "test", sst_engine_now());
			/* No send buffer free yet (those of finished streams come
			 * back as the layer releases them): again after a poll. */
			if (s == NULL) {
				client->no_buffer++;
				break;
			}
			sst_stream_set_user(s, (void *)(uintptr_t)opened);
			m = rte_pktmbuf_alloc(pool);
			CU_ASSERT_FATAL(m != NULL);
			p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)client->request);
			CU_ASSERT_FATAL(p != NULL);
			for (uint32_t b = 0; b < client->request; b++)
				p[b] = echo_pattern(opened, b);
			CU_ASSERT_FATAL(sst_stream_write(s, m, 0, sst_engine_now()) == 0);
			sst_stream_shutdown(s, sst_engine_now());
			opened++;
		}
		echo_poll(server, client);
	}
	return missing;
}

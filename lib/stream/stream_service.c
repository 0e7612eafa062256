/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service rendezvous (wire-format.md 5): the services a host listens on,
 * and the first message of a top-level stream, the service request
 * (acceptor) or reply (initiator), consumed before the application sees
 * the stream.
 */
#include <errno.h>
#include <string.h>

#include "stream_service.h"
#include "stream_app.h"
#include "stream_life.h"

static struct stream_service *
service_find(struct sst_stream_host *h, const char *service, size_t slen, const char *protocol,
	size_t plen)
{
	for (int i = 0; i < STREAM_SERVICES_MAX; i++) {
		struct stream_service *sv = &h->services[i];

		if (sv->used && strlen(sv->service) == slen && strlen(sv->protocol) == plen &&
			memcmp(sv->service, service, slen) == 0 &&
			memcmp(sv->protocol, protocol, plen) == 0)
			return sv;
	}
	return NULL;
}

int
sst_stream_listen(
	struct sst_stream_host *h, const char *service, const char *protocol, void *service_ctx)
{
	size_t slen = strlen(service), plen = strlen(protocol);

	if (slen == 0 || plen == 0 || slen >= sizeof(h->services[0].service) ||
		plen >= sizeof(h->services[0].protocol))
		return -EINVAL;
	if (service_find(h, service, slen, protocol, plen) != NULL)
		return -EEXIST;
	for (int i = 0; i < STREAM_SERVICES_MAX; i++) {
		struct stream_service *sv = &h->services[i];

		if (!sv->used) {
			memcpy(sv->service, service, slen + 1);
			memcpy(sv->protocol, protocol, plen + 1);
			sv->ctx = service_ctx;
			sv->used = true;
			return 0;
		}
	}
	return -ENOSPC;
}

int
sst_stream_unlisten(struct sst_stream_host *h, const char *service, const char *protocol)
{
	struct stream_service *sv =
		service_find(h, service, strlen(service), protocol, strlen(protocol));

	if (sv == NULL)
		return -ENOENT;
	sv->used = false;
	return 0;
}

/*
 * The first message of a top-level stream is the service request (acceptor)
 * or reply (initiator). It is consumed here, before the application sees
 * the stream.
 */
void
stream_service_rx(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_host *h = s->peer->host;
	struct stream_rxio *rx = s->rx;
	struct sst_rob_rx rec;
	bool complete = false;

	if (rx == NULL || !stream_service_waiting(s))
		return;
	/* Records never span a message end, so the message is gathered
	 * record by record into the receive buffers' service area. */
	while (!complete && sst_rob_read(&rx->rob, &rec, 1) == 1) {
		uint32_t n = rte_pktmbuf_pkt_len(rec.m);
		const void *src;

		if (rx->svc_len + n > sizeof(rx->svc)) {
			rte_pktmbuf_free(rec.m);
			stream_do_reset(s, SST_STREAM_REFUSED, true, now);
			return;
		}
		src = rte_pktmbuf_read(rec.m, 0, n, rx->svc + rx->svc_len);
		if (src != rx->svc + rx->svc_len)
			memcpy(rx->svc + rx->svc_len, src, n);
		rx->svc_len += n;
		complete = (rec.flags & (SST_FLAG_MESSAGE | SST_FLAG_CLOSE)) != 0;
		rte_pktmbuf_free(rec.m);
	}
	if (!complete)
		return;
	if (s->flags & SF_INITIATOR) {
		const struct sst_stream_ops *ops = h->p.ops;
		int32_t err;

		if (sst_service_reply_decode(rx->svc, rx->svc_len, &err) < 0 || err != 0) {
			/* Still waiting: the reset reports the refusal
			 * (connected() with -ECONNREFUSED) and ends it. */
			if (stream_peer_can(s->peer, SST_CAP_RESET)) {
				stream_do_reset(s, SST_STREAM_REFUSED, true, now);
				return;
			}
			/* The prototype cannot take a Reset: end our direction so
			 * its side of the stream can finish too. */
			stream_set_service(s, STREAM_SERVICE_REFUSED);
			if (ops != NULL && ops->connected != NULL && stream_app_holds(s))
				ops->connected(h->p.ctx, s, -ECONNREFUSED, now);
			sst_stream_shutdown(s, now);
			return;
		}
		stream_set_service(s, STREAM_SERVICE_DONE);
		if (ops != NULL && ops->connected != NULL && stream_app_holds(s))
			ops->connected(h->p.ctx, s, 0, now);
	} else {
		struct sst_service_request req;
		struct stream_service *sv = NULL;
		uint8_t reply[8];

		if (sst_service_request_decode(rx->svc, rx->svc_len, &req) == 0)
			sv = service_find(h, (const char *)req.service.ptr, req.service.len,
				(const char *)req.protocol.ptr, req.protocol.len);
		if (sv == NULL) {
			h->stats.services_refused++;
			stream_set_service(s, STREAM_SERVICE_REFUSED);
			stream_set_life(s, STREAM_ABANDONED);
			/* Peers that know Reset get one (the initiator reports the
			 * refusal); the prototype gets the non-zero reply it
			 * understands as failure, then the end of the stream. */
			if (stream_peer_can(s->peer, SST_CAP_RESET)) {
				stream_do_reset(s, SST_STREAM_REFUSED, true, now);
				stream_unref(s, now);
				return;
			}
			sst_service_reply_encode(1, reply, sizeof(reply));
			stream_write_internal(
				s, reply, sizeof(reply), SST_FLAG_PUSH | SST_FLAG_MESSAGE);
			sst_stream_shutdown(s, now);
			stream_unref(s, now);
			return;
		}
		stream_set_service(s, STREAM_SERVICE_DONE);
		/* Until the application has s, its user pointer is ours. */
		s->user = sv->ctx;
		stream_service_accept(s, now);
	}
}

void
stream_service_accept(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_host *h = s->peer->host;
	void *svc_ctx = s->user;
	uint8_t reply[8];
	bool delayed;

	sst_service_reply_encode(0, reply, sizeof(reply));
	/* A reply lost here let the application's first bytes go in its
	 * place, and the initiator refused the stream (sst-perf streams mode,
	 * once the send buffers were taken by earlier responses). */
	if (stream_write_internal(s, reply, sizeof(reply), SST_FLAG_PUSH | SST_FLAG_MESSAGE) < 0) {
		if (s->life != STREAM_PENDING_REPLY) {
			stream_set_life(s, STREAM_PENDING_REPLY);
			h->stats.replies_delayed++;
		}
		stream_tx_buffer_queue(s);
		if (!(s->flags & SF_TX_WAITING)) {
			stream_set_life(s, STREAM_ABANDONED);
			stream_do_reset(s, SST_STREAM_REFUSED, true, now);
			stream_unref(s, now);
		}
		return;
	}
	delayed = s->life == STREAM_PENDING_REPLY;
	s->user = NULL;
	h->stats.streams_accepted++;
	stream_set_life(s, STREAM_APP_OWNED);
	if (h->p.ops == NULL || h->p.ops->accepted == NULL) {
		sst_stream_close(s, now);
		return;
	}
	h->p.ops->accepted(h->p.ctx, NULL, s, svc_ctx, now);
	stream_reoffer_children(s, now);
	/* What arrived while the reply waited was kept for the application,
	 * which would otherwise hear of it only with the next packet. */
	if (delayed && s->rx != NULL && !stream_is_reset(s) &&
		(sst_rob_readable(&s->rx->rob) > 0 || sst_rob_eof(&s->rx->rob)))
		stream_rx_deliverable(s, now);
}

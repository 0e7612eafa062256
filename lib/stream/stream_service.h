/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service rendezvous (stream_service.c, wire-format.md 5): the services a
 * host listens on (sst_stream_listen()), and the first message of a
 * top-level stream, the request (acceptor) or the reply (initiator),
 * consumed before the application sees the stream.
 *
 * Owns: sst_stream_host.services, rxio.svc and svc_len, and a stream's
 * service state (enum stream_service_state) past WAITING. Calls: stream_life.h,
 * stream_app.h (shutdown, close and offering children on the acceptor's
 * behalf), the application's connected and accepted callbacks. Reached
 * from stream_app.c only through struct stream_upcalls. Frees: the mbufs
 * of the rendezvous message; a refused stream loses its reference.
 */
#ifndef STREAM_SERVICE_H
#define STREAM_SERVICE_H

#include "stream_internal.h"

/*
 * Gather the rendezvous message of top-level stream s from its receive
 * buffers and act on it once complete (STREAM_SERVICE_DONE or REFUSED): the initiator
 * hears ops.connected() (an error reply resets s, or shuts it down for the
 * prototype); the acceptor answers with stream_service_accept(), or
 * refuses an unknown service (s is reset, or shut down for the prototype,
 * and loses the acceptor's reference).
 * Nothing until the message is complete, or once the rendezvous is done.
 */
void stream_service_rx(struct sst_stream *s, sst_time_t now);

/*
 * Queue the reply that accepts the peer's top-level stream s (life
 * PENDING_SERVICE or PENDING_REPLY, s->user the service's context), then
 * hand s to ops.accepted(). Without a send buffer s goes PENDING_REPLY and
 * waits in the host's FIFO (stream_tx_buffer_queue()), which calls this
 * again through the upcall table when one comes back; s is reset as
 * refused if even the FIFO is full. The application hears of s only once
 * the reply is queued, so nothing it writes can go before the reply.
 */
void stream_service_accept(struct sst_stream *s, sst_time_t now);

#endif /* STREAM_SERVICE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peers (stream_peer.c): sst_stream_peer_create(), _destroy(), _fail(),
 * _abort() and the peer queries of sst_stream.h.
 *
 * Owns: the peer object, its root stream and its USID index allocation
 * (the index's content is stream_usid.c's). Calls: stream_life.h, and
 * sst_stream_chan_destroy() for each of its channels. Frees: the peer in
 * sst_stream_peer_destroy(), after its channels are destroyed, its
 * streams reset (the application hears closed() for each it holds) and
 * reaped; when the application still holds some of its streams, the peer
 * is marked gone and freed with the last of them (stream_free() calls
 * stream_peer_gone_freed()) or with the host (stream_peer_gone_fini()):
 * both in stream_life.c, below the host and the streams that free it.
 * It offers the other stream modules nothing: its API is sst_stream.h's.
 */
#ifndef STREAM_PEER_H
#define STREAM_PEER_H

#include "stream_internal.h"

#endif /* STREAM_PEER_H */

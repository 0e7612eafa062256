/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer's index of streams by USID (counter, half-channel ID) and its
 * table of half-channel IDs (stream_usid.c).
 *
 * Owns: sst_stream_peer.usids (the open-addressing index) and .hcids (the
 * reference counts of its entries). Holds no reference on the streams it
 * indexes: a stream leaves the index when it is freed (stream_life.c).
 * Calls: nothing of the stream layer. Frees: the old index when it grows.
 */
#ifndef STREAM_USID_H
#define STREAM_USID_H

#include "stream_internal.h"

/*
 * Index s by its USID (s->usid_counter, s->hcid), growing the index when it
 * would get more than half full. s is not indexed yet. Holds the
 * half-channel ID entry s names. Returns 0, or -ENOSPC when p has
 * peer_usids streams indexed or the index cannot grow (s is then not
 * indexed).
 */
int stream_usid_insert(struct sst_stream_peer *p, struct sst_stream *s);

/* The stream of p with that USID, or NULL. */
struct sst_stream *stream_usid_find(struct sst_stream_peer *p, uint64_t counter, uint8_t hcid);

/* Take s out of the index (nothing if it is not in it) and drop its hold on
 * the half-channel ID entry it names. */
void stream_usid_remove(struct sst_stream_peer *p, struct sst_stream *s);

/* Move s, which is indexed, to another USID (an Attach names it by a new
 * one). The entry of hcid is held for s, the old one dropped. */
void stream_usid_rekey(
	struct sst_stream_peer *p, struct sst_stream *s, uint64_t counter, uint8_t hcid);

/*
 * The index in p's table of the half-channel ID (id, len), added if new.
 * Takes no reference: the caller holds it (stream_peer_hcid_hold()) before
 * anything else may drop it. Returns the index, -EINVAL for an empty or
 * too long ID, or -ENOSPC when the table is full of held entries.
 */
int stream_peer_hcid(struct sst_stream_peer *p, const uint8_t *id, uint8_t len);

/* Take a reference on entry idx (a channel that has it, a USID naming it). */
void stream_peer_hcid_hold(struct sst_stream_peer *p, uint8_t idx);

/* Drop a reference on entry idx; the entry is free again with the last. */
void stream_peer_hcid_drop(struct sst_stream_peer *p, uint8_t idx);

#endif /* STREAM_USID_H */

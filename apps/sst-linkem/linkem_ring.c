/* SPDX-License-Identifier: BSD-3-Clause */
/* A read-only view of a net_af_packet port's receive ring (linkem_ring.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/if_packet.h>

#include "linkem_ring.h"

int
linkem_ring_open(struct linkem_ring *r, int fd, uint32_t frames, uint32_t frame_size)
{
	/* packet_mmap() maps only the exact size of both rings. */
	size_t len = (size_t)2 * frames * frame_size;
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	memset(r, 0, sizeof(*r));
	if (map == MAP_FAILED)
		return -errno;
	linkem_ring_init(r, map, frames, frame_size);
	r->map_len = len;
	return 0;
}

void
linkem_ring_close(struct linkem_ring *r)
{
	if (r->map != NULL && r->map_len != 0)
		munmap((void *)(uintptr_t)r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}

void
linkem_ring_init(struct linkem_ring *r, const void *mem, uint32_t frames, uint32_t frame_size)
{
	memset(r, 0, sizeof(*r));
	r->map = mem;
	r->frames = frames;
	r->frame_size = frame_size;
}

uint16_t
linkem_ring_peek(const struct linkem_ring *r, uint64_t *ts, uint32_t *len, uint16_t max)
{
	uint32_t at = r->next;
	uint16_t n = 0;

	while (n < max) {
		const struct tpacket2_hdr *h =
			(const struct tpacket2_hdr *)(r->map + (size_t)at * r->frame_size);

		/* The kernel fills the frame, stamp included, before it hands
		 * the frame over with this status (smp_wmb() there). */
		if ((__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) == 0)
			break;
		ts[n] = (uint64_t)h->tp_sec * SST_NSEC_PER_SEC + h->tp_nsec;
		len[n++] = h->tp_snaplen;
		if (++at == r->frames)
			at = 0;
	}
	return n;
}

void
linkem_ring_advance(struct linkem_ring *r, uint16_t n)
{
	r->next = (uint32_t)(((uint64_t)r->next + n) % r->frames);
}

sst_time_t
linkem_arrival(uint64_t ts, uint64_t real_now, sst_time_t now, sst_time_t floor)
{
	sst_time_t at = now;

	if (ts != 0 && ts < real_now) {
		uint64_t age = real_now - ts;

		at = age < now ? now - age : 0;
	}
	return at < floor ? floor : at;
}

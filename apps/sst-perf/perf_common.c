/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf: what both sides use: the control messages, the payload
 * pattern and the latency histogram (perf.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "perf.h"

const char *const perf_mode_names[PERF_MODES] = {"bulk", "rr", "dgram", "streams", "prio", "web"};

/* ---- Control messages ---- */

static void
put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
}

static void
put64(uint8_t *p, uint64_t v)
{
	v = rte_cpu_to_be_64(v);
	memcpy(p, &v, 8);
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_be_to_cpu_32(v);
}

static uint64_t
get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return rte_be_to_cpu_64(v);
}

void
perf_params_encode(const struct perf_params *p, uint8_t out[PERF_PARAMS_LEN])
{
	put32(out, PERF_MAGIC);
	put32(out + 4, PERF_VERSION);
	put32(out + 8, p->mode);
	put32(out + 12, p->flags);
	put32(out + 16, p->request);
	put32(out + 20, p->response);
	put32(out + 24, p->dgram_size);
	put32(out + 28, p->streams);
}

int
perf_params_decode(const uint8_t in[PERF_PARAMS_LEN], struct perf_params *p)
{
	if (get32(in) != PERF_MAGIC || get32(in + 4) != PERF_VERSION)
		return -EPROTO;
	p->mode = get32(in + 8);
	p->flags = get32(in + 12);
	p->request = get32(in + 16);
	p->response = get32(in + 20);
	p->dgram_size = get32(in + 24);
	p->streams = get32(in + 28);
	return p->mode < PERF_MODES ? 0 : -EINVAL;
}

void
perf_result_encode(const struct perf_result *r, uint8_t out[PERF_RESULT_LEN])
{
	const uint64_t v[11] = {r->rx_bytes, r->rx_span_ns, r->streams_done, r->streams_failed,
		r->dgrams, r->dgram_bytes, r->verify_errors, r->peak_live, r->segments_retx,
		r->tx_packets, r->cycles};

	put32(out, PERF_MAGIC);
	put32(out + 4, r->status);
	for (int i = 0; i < 11; i++)
		put64(out + 8 + 8 * i, v[i]);
}

int
perf_result_decode(const uint8_t in[PERF_RESULT_LEN], struct perf_result *r)
{
	uint64_t *v[11] = {&r->rx_bytes, &r->rx_span_ns, &r->streams_done, &r->streams_failed,
		&r->dgrams, &r->dgram_bytes, &r->verify_errors, &r->peak_live, &r->segments_retx,
		&r->tx_packets, &r->cycles};

	if (get32(in) != PERF_MAGIC)
		return -EPROTO;
	r->status = get32(in + 4);
	for (int i = 0; i < 11; i++)
		*v[i] = get64(in + 8 + 8 * i);
	return 0;
}

int
perf_write_bytes(struct sst_stream *s, struct rte_mempool *pool, const void *buf, uint32_t len,
	sst_time_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	if (m == NULL)
		return -1;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memcpy(p, buf, len);
	if (sst_stream_write(s, m, SST_WRITE_MESSAGE, now) < 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	return 0;
}

/* ---- Payload pattern ---- */

/* A prime, so that a tag's phase and an offset never line up for long. */
#define PAT_PRIME 65521u

static uint8_t pat[PAT_PRIME];

/*
 * The pattern twice over in DPDK memory, so that any run of up to
 * PAT_PRIME bytes is contiguous at its phase: the sender's mbufs past a
 * stream's tag point into it (external buffers) instead of copying it, as
 * iperf3 sends every write from one buffer. The stack never writes into an
 * application's mbuf (it copies or clones segments out of it), and the
 * bytes are those perf_fill() would have written, so --verify sees no
 * difference. Never freed while an mbuf may point into it: released at
 * exit only (perf_pattern_fini()).
 */
static uint8_t *pat_ext;
static rte_iova_t pat_ext_iova;

static void
pat_ext_unused(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

/* Its count only calls pat_ext_unused() (nothing) at 0, so a 16-bit
 * wrap with more than 65,535 mbufs in flight is harmless. */
static struct rte_mbuf_ext_shared_info pat_ext_info = {
	.free_cb = pat_ext_unused,
	.refcnt = 1,
};

void
perf_pattern_init(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < PAT_PRIME; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pat[i] = (uint8_t)(x >> 32);
	}
	/* Without it every mbuf is filled by copying, as before. */
	if (pat_ext != NULL)
		return;
	pat_ext = rte_malloc("sst-perf pattern", 2 * PAT_PRIME, RTE_CACHE_LINE_SIZE);
	if (pat_ext != NULL) {
		memcpy(pat_ext, pat, PAT_PRIME);
		memcpy(pat_ext + PAT_PRIME, pat, PAT_PRIME);
		pat_ext_iova = rte_malloc_virt2iova(pat_ext);
	}
}

void
perf_pattern_fini(void)
{
	rte_free(pat_ext);
	pat_ext = NULL;
}

uint64_t
perf_tag(uint64_t i)
{
	return rte_bswap64(i + 1);
}

uint64_t
perf_response_tag(uint64_t t, uint64_t request)
{
	uint64_t k = request < 8 ? request : 8;
	uint64_t known = k == 0 ? 0 : t & (~0ull << (64 - 8 * k));

	return known ^ 0xa5c3a5c3a5c3a5c3ull;
}

static uint32_t
phase(uint64_t tag, uint64_t off)
{
	return (uint32_t)((off % PAT_PRIME + (tag % PAT_PRIME) * 977u) % PAT_PRIME);
}

void
perf_fill(uint8_t *dst, uint64_t tag, uint64_t off, uint32_t len)
{
	uint32_t idx;

	if (off == 0 && len >= 8) {
		uint64_t tag_be = rte_cpu_to_be_64(tag);

		memcpy(dst, &tag_be, 8);
		dst += 8;
		len -= 8;
		off = 8;
	}
	for (; len > 0 && off < 8; len--, off++)
		*dst++ = (uint8_t)(tag >> (56 - 8 * off));
	if (len == 0)
		return;
	idx = phase(tag, off);
	while (len > 0) {
		uint32_t k = RTE_MIN(len, PAT_PRIME - idx);

		memcpy(dst, pat + idx, k);
		dst += k;
		len -= k;
		idx = 0;
	}
}

uint64_t
perf_check(const uint8_t *src, uint64_t tag, uint64_t off, uint32_t len)
{
	uint64_t bad = 0;
	uint32_t idx;

	for (; len > 0 && off < 8; len--, off++)
		bad += *src++ != (uint8_t)(tag >> (56 - 8 * off));
	if (len == 0)
		return bad;
	idx = phase(tag, off);
	while (len > 0) {
		uint32_t k = RTE_MIN(len, PAT_PRIME - idx);

		if (memcmp(src, pat + idx, k) != 0)
			for (uint32_t i = 0; i < k; i++)
				bad += src[i] != pat[idx + i];
		src += k;
		len -= k;
		idx = 0;
	}
	return bad;
}

uint64_t
perf_rx_tag(const struct perf_rx *rx)
{
	return rx->have == 0 ? 0 : rx->acc << (8 * (8 - rx->have));
}

uint64_t
perf_rx_take(struct perf_rx *rx, const uint8_t *p, uint32_t len, bool verify)
{
	uint64_t bad = 0;

	/* The tag bytes define the pattern: they cannot mismatch. */
	while (len > 0 && rx->off < 8) {
		rx->acc = rx->acc << 8 | *p++;
		rx->have++;
		rx->off++;
		len--;
	}
	if (len > 0 && verify)
		bad = perf_check(p, perf_rx_tag(rx), rx->off, len);
	rx->off += len;
	return bad;
}

/* Where perf_mbuf()'s bytes start in their stream's pattern. */
struct pattern_at {
	uint64_t tag, off;
};

static void
fill_pattern(const void *ctx, uint8_t *dst, uint64_t at, uint16_t len)
{
	const struct pattern_at *pa = ctx;

	perf_fill(dst, pa->tag, pa->off + at, len);
}

/* Bytes an mbuf attached to pat_ext covers at most: a whole write of the
 * bulk client (CHUNK in perf_client.c), since its own 2 KB room does not
 * bound an external buffer. Each mbuf costs the stack an append, a piece
 * of a segment's copy and a free on acknowledgment, and costs the tool an
 * allocation and the pattern's shared count twice (atomic): one per 2 KB
 * was about a tenth of the loopback's cycles outside the armor
 * (docs/performance.md, "Session 17"). */
#define PAT_EXT_MBUF_MAX 16384u

/* perf_mbuf() past the tag: each mbuf attached to its bytes in pat_ext. */
static void
attach_pattern(const void *ctx, struct rte_mbuf *m, uint64_t at, uint16_t len)
{
	const struct pattern_at *pa = ctx;
	uint32_t idx = phase(pa->tag, pa->off + at);

	rte_mbuf_ext_refcnt_update(&pat_ext_info, 1);
	rte_pktmbuf_attach_extbuf(m, pat_ext + idx, pat_ext_iova + idx, len, &pat_ext_info);
	m->data_off = 0;
	m->data_len = len;
	m->pkt_len = len;
}

struct rte_mbuf *
perf_mbuf(struct rte_mempool *pool, uint64_t tag, uint64_t off, uint32_t len)
{
	struct pattern_at pa = {tag, off};

	if (pat_ext != NULL && off >= 8 && len > 0)
		return tool_mbuf_chain_with(pool, len, PAT_EXT_MBUF_MAX, attach_pattern, &pa);
	return tool_mbuf_chain(pool, len, fill_pattern, &pa);
}

/* ---- Latency histogram ---- */

/* Values below 64 have a bucket each; above, 64 buckets per power of two. */
static uint32_t
bucket(uint64_t v)
{
	uint32_t e;

	if (v < 64)
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v);
	return (e - 5) * 64 + (uint32_t)((v >> (e - 6)) & 63);
}

static uint64_t
bucket_mid(uint32_t b)
{
	uint32_t e, sub;
	uint64_t lo;

	if (b < 64)
		return b;
	e = b / 64 + 5;
	sub = b % 64;
	lo = (uint64_t)(64 + sub) << (e - 6);
	return lo + ((uint64_t)1 << (e - 6)) / 2;
}

void
perf_hist_add(struct perf_hist *h, uint64_t v)
{
	uint32_t b = bucket(v);

	if (b >= PERF_HIST_BUCKETS)
		b = PERF_HIST_BUCKETS - 1;
	h->b[b]++;
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
}

uint64_t
perf_hist_quantile(const struct perf_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (h->n == 0)
		return 0;
	rank = (uint64_t)(q * (double)h->n);
	if (rank >= h->n)
		rank = h->n - 1;
	for (uint32_t b = 0; b < PERF_HIST_BUCKETS; b++) {
		seen += h->b[b];
		if (seen > rank)
			return RTE_MAX(h->min, RTE_MIN(h->max, bucket_mid(b)));
	}
	return h->max;
}

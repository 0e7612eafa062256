/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum (RFC 1071) of mbuf chains in software, for ports
 * without checksum offload (and for ICMP, which no port offloads). The sum
 * over each segment runs through a kernel: rte_raw_cksum(), the reference,
 * or a SIMD one chosen at start-up from the CPU's flags and the EAL's
 * SIMD width (net_cksum_avx2.c, net_cksum_avx512.c; the same choice as
 * Chk32's, channel_chk32.c). All give the same folded sum: each adds the same
 * 16-bit words exactly, and the folded value depends only on that total.
 */
#include <errno.h>

#include <rte_cpuflags.h>

#include "net_internal.h"

static uint16_t
net_cksum_scalar(const void *buf, size_t len)
{
	return rte_raw_cksum(buf, len);
}

/* The implementations, by enum sst_net_cksum_impl, narrowest first. */
static const struct {
	const char *name;
	net_cksum_fn sum;
	int cpu_flag;		/* enum rte_cpu_flag_t the kernel needs, or -1 */
	unsigned int simd_bits; /* its vector width, as rte_vect counts it */
} net_cksum_impls[SST_NET_CKSUM_IMPL_COUNT] = {
	[SST_NET_CKSUM_IMPL_SCALAR] = {"scalar", net_cksum_scalar, -1, 0},
	[SST_NET_CKSUM_IMPL_AVX2] = {"avx2", net_cksum_avx2, RTE_CPUFLAG_AVX2, 256},
	/* AVX-512BW implies AVX-512F on every CPU that has it. */
	[SST_NET_CKSUM_IMPL_AVX512] = {"avx512", net_cksum_avx512, RTE_CPUFLAG_AVX512BW, 512},
};

/* What the EAL allows before it has been asked (DPDK's default maximum
 * SIMD width on x86: 512-bit code only on request, because some CPUs
 * lower their clock while they run it). */
#define NET_CKSUM_DEFAULT_SIMD_BITS 256

/* Chosen before main() (the widest within the EAL's default SIMD width),
 * and again by sst_net_cksum_impl_select() before any thread checksums
 * (the engine's creation does it with the EAL's width): the per-packet
 * path reads it without synchronisation. */
static enum sst_net_cksum_impl net_cksum_active = SST_NET_CKSUM_IMPL_SCALAR;

bool
sst_net_cksum_impl_supported(enum sst_net_cksum_impl impl)
{
	if ((unsigned int)impl >= SST_NET_CKSUM_IMPL_COUNT)
		return false;
	return net_cksum_impls[impl].cpu_flag < 0 ||
	       rte_cpu_get_flag_enabled((enum rte_cpu_flag_t)net_cksum_impls[impl].cpu_flag) > 0;
}

const char *
sst_net_cksum_impl_name(enum sst_net_cksum_impl impl)
{
	return (unsigned int)impl < SST_NET_CKSUM_IMPL_COUNT ? net_cksum_impls[impl].name : NULL;
}

enum sst_net_cksum_impl
sst_net_cksum_impl_active(void)
{
	return net_cksum_active;
}

enum sst_net_cksum_impl
sst_net_cksum_impl_widest(unsigned int max_simd_bits)
{
	for (int i = SST_NET_CKSUM_IMPL_COUNT - 1; i > 0; i--)
		if (net_cksum_impls[i].simd_bits <= max_simd_bits &&
			sst_net_cksum_impl_supported((enum sst_net_cksum_impl)i))
			return (enum sst_net_cksum_impl)i;
	return SST_NET_CKSUM_IMPL_SCALAR;
}

int
sst_net_cksum_impl_select(enum sst_net_cksum_impl impl)
{
	if ((unsigned int)impl >= SST_NET_CKSUM_IMPL_COUNT)
		return -EINVAL;
	if (!sst_net_cksum_impl_supported(impl))
		return -ENOTSUP;
	net_cksum_active = impl;
	return 0;
}

RTE_INIT(net_cksum_select)
{
	sst_net_cksum_impl_select(sst_net_cksum_impl_widest(NET_CKSUM_DEFAULT_SIMD_BITS));
}

/*
 * Not rte_raw_cksum_mbuf(): DPDK 22.11 byte-swaps the sum of a segment that
 * starts at an odd offset after truncating it to 16 bits, losing its
 * carries. A stream segment made of several writes, the first of odd
 * length, then went out with a wrong UDP checksum, and so did every
 * retransmission of it (the same bytes cut the same way): the peer's
 * kernel dropped them all. Each segment's sum is folded before the swap.
 */
static int
net_cksum_chain(
	net_cksum_fn sum_fn, const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *cksum)
{
	uint32_t sum = 0, done = 0;

	if ((uint64_t)off + len > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	while (off >= m->data_len && len > 0) {
		off -= m->data_len;
		m = m->next;
	}
	while (done < len) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len - off, len - done);
		uint16_t part = sum_fn(rte_pktmbuf_mtod_offset(m, const void *, off), n);

		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
		off = 0;
		m = m->next;
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*cksum = (uint16_t)sum;
	return 0;
}

int
sst_net_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *cksum)
{
	return net_cksum_chain(net_cksum_impls[net_cksum_active].sum, m, off, len, cksum);
}

int
sst_net_cksum_mbuf_with(enum sst_net_cksum_impl impl, const struct rte_mbuf *m, uint32_t off,
	uint32_t len, uint16_t *cksum)
{
	return net_cksum_chain(net_cksum_impls[impl].sum, m, off, len, cksum);
}

int
net_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t phdr)
{
	uint16_t raw;
	uint32_t sum;

	if (sst_net_cksum_mbuf(m, off, len, &raw) != 0)
		return -1;
	sum = phdr + raw;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (int)sum;
}

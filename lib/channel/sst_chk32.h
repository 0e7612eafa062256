/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Chk32, the prototype's checksum armor (paper 4.2.3, docs/wire-format.md
 * section 3): the function the checksum-mode channel appends as a 4-byte
 * trailer. Public because the Chk32 crypto driver (drivers/crypto/chk32)
 * and packet tools compute it outside the channel layer. Every function is
 * pure and thread-safe.
 */
#ifndef SST_CHK32_H
#define SST_CHK32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;

enum {
	SST_CHK32_TRAILER_LEN = 4, /**< checksum armor trailer */
};

/**
 * The prototype's Chk32 (paper 4.2.3, "TCP-grade" armor) of a channel packet:
 * two 16-bit running sums modulo 65537 over the 8-byte big-endian sequence
 * number, the packet, and 0x80 padding to an even length.
 *
 * @param seq
 *   The packet's full 64-bit sequence number (the pseudo-header).
 * @param pkt
 *   The packet without its trailer.
 * @param len
 *   Its length.
 * @return
 *   (b << 16) | a, before the key is added.
 */
uint32_t sst_chk32(uint64_t seq, const void *pkt, size_t len);

/**
 * Chk32 of the first len bytes of an mbuf chain: the same value as
 * sst_chk32() over those bytes laid end to end. Segments may have any
 * length, odd ones included; a 16-bit word may straddle two segments.
 *
 * @param seq
 *   The packet's full 64-bit sequence number.
 * @param m
 *   The first segment of the chain.
 * @param len
 *   Bytes to cover, at most m->pkt_len (the packet without its trailer).
 * @return
 *   (b << 16) | a, before the key is added.
 */
uint32_t sst_chk32_mbuf(uint64_t seq, const struct rte_mbuf *m, uint32_t len);

/**
 * Implementations of Chk32, all giving the same values. sst_chk32() and
 * sst_chk32_mbuf() use the widest one the CPU runs within the SIMD width
 * the EAL allows (sst_chk32_impl_select()); the others stay reachable for
 * tests and benchmarks.
 */
enum sst_chk32_impl {
	SST_CHK32_IMPL_SCALAR, /**< portable C: the reference */
	SST_CHK32_IMPL_AVX2,   /**< 32 bytes per step; CPUs with AVX2 */
	SST_CHK32_IMPL_AVX512, /**< 64 bytes per step; CPUs with AVX-512F and BW */
	SST_CHK32_IMPL_COUNT,  /**< number of implementations */
};

/** Whether this CPU runs impl.
 * @param impl An implementation.
 * @return True when it runs here (false for values outside the enum). */
bool sst_chk32_impl_supported(enum sst_chk32_impl impl);

/** Short name of impl.
 * @param impl An implementation.
 * @return "scalar", "avx2", "avx512" (static strings), or NULL outside the enum. */
const char *sst_chk32_impl_name(enum sst_chk32_impl impl);

/** The implementation sst_chk32() and sst_chk32_mbuf() use.
 * @return Until sst_chk32_impl_select() is called, the widest this CPU runs
 *   within 256-bit vectors (the EAL's default SIMD width on x86). */
enum sst_chk32_impl sst_chk32_impl_active(void);

/**
 * The widest implementation this CPU runs within a SIMD width.
 *
 * @param max_simd_bits
 *   The widest vectors allowed, as the EAL counts them
 *   (rte_vect_get_max_simd_bitwidth(): 256 by default on x86, 512 with
 *   the EAL option --force-max-simd-bitwidth=512).
 * @return
 *   An implementation for which sst_chk32_impl_supported() is true
 *   (SST_CHK32_IMPL_SCALAR when no SIMD one fits).
 */
enum sst_chk32_impl sst_chk32_impl_widest(unsigned int max_simd_bits);

/**
 * Make impl the one sst_chk32() and sst_chk32_mbuf() use. Every
 * implementation gives the same values, so peers need not agree; but the
 * choice is read without synchronisation on the data path: make it before
 * any other thread checksums (sst_engine_create() calls it with
 * sst_chk32_impl_widest(rte_vect_get_max_simd_bitwidth())).
 *
 * @param impl
 *   The implementation.
 * @return
 *   0; -EINVAL when impl is outside the enum; -ENOTSUP when this CPU does
 *   not run it (the one in use is unchanged then).
 */
int sst_chk32_impl_select(enum sst_chk32_impl impl);

/**
 * sst_chk32() computed by a given implementation.
 *
 * @param impl
 *   One for which sst_chk32_impl_supported() is true (precondition).
 * @param seq
 *   The packet's full 64-bit sequence number.
 * @param pkt
 *   The packet without its trailer.
 * @param len
 *   Its length.
 * @return
 *   As sst_chk32().
 */
uint32_t sst_chk32_with(enum sst_chk32_impl impl, uint64_t seq, const void *pkt, size_t len);

/**
 * sst_chk32_mbuf() computed by a given implementation.
 *
 * @param impl
 *   One for which sst_chk32_impl_supported() is true (precondition).
 * @param seq
 *   The packet's full 64-bit sequence number.
 * @param m
 *   The first segment of the chain.
 * @param len
 *   Bytes to cover, at most m->pkt_len.
 * @return
 *   As sst_chk32_mbuf().
 */
uint32_t sst_chk32_mbuf_with(
	enum sst_chk32_impl impl, uint64_t seq, const struct rte_mbuf *m, uint32_t len);

/** The 4-byte trailer value.
 * @param seq The packet's full 64-bit sequence number.
 * @param pkt The packet without its trailer.
 * @param len Its length.
 * @param key The sender's checksum key.
 * @return Chk32 plus the key, modulo 2^32. */
static inline uint32_t
sst_chk32_trailer(uint64_t seq, const void *pkt, size_t len, uint32_t key)
{
	return sst_chk32(seq, pkt, len) + key;
}

/**
 * Append the checksum trailer to a packet held in a buffer with room for it.
 *
 * @param seq
 *   The packet's full 64-bit sequence number.
 * @param buf
 *   The packet; the trailer is written after it.
 * @param len
 *   Bytes of packet in buf.
 * @param cap
 *   Size of buf.
 * @param key
 *   The sender's checksum key.
 * @return
 *   The length with the trailer, or -ENOSPC.
 */
int sst_chk32_seal(uint64_t seq, void *buf, size_t len, size_t cap, uint32_t key);

/**
 * Check the trailer of a received packet.
 *
 * @param seq
 *   The packet's full 64-bit sequence number.
 * @param pkt
 *   The packet with its trailer.
 * @param key
 *   The sender's checksum key.
 * @param len
 *   Length including the 4-byte trailer.
 * @return
 *   0, -SST_ETRUNC (no room for a trailer) or -SST_EBADAUTH.
 */
int sst_chk32_verify(uint64_t seq, const void *pkt, size_t len, uint32_t key);

#endif /* SST_CHK32_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bare primitives under the armor drivers, timed on flat buffers, for the
 * benchmarks in perf/ to set their figures against (docs/channel-crypto.md and
 * docs/channel.md, "Performance"): IPsec-MB's direct AEAD API (AES-128-GCM,
 * ChaCha20-Poly1305), libsodium's detached ChaCha20-Poly1305 and sst_chk32().
 *
 * A packet is laid out as the armor sees it: the 4-byte clear prefix is the
 * associated data, the rest is encrypted and the 16-byte tag kept aside. One
 * sample is one burst of packets, each in its own buffer, encrypted (timed)
 * and then decrypted (timed) with rte_rdtsc_precise(); the figures are the
 * medians over the samples, divided by the burst size. Needs no EAL.
 *
 * Also shared: the armor implementations and packet sizes both benchmarks
 * measure, and their median and fill helpers.
 */
#ifndef PERF_RAW_H
#define PERF_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "sst_crypto_driver.h"

/** A bare primitive. */
enum perf_raw_kind {
	PERF_RAW_IMB_GCM,	/**< IMB_AES128_GCM_ENC / _DEC */
	PERF_RAW_IMB_CHACHA,	/**< IMB_CHACHA20_POLY1305_INIT / _UPDATE / _FINALIZE */
	PERF_RAW_SODIUM_CHACHA, /**< crypto_aead_chacha20poly1305_ietf_*_detached */
	PERF_RAW_CHK32,		/**< sst_chk32(), the same sum both ways */
};

enum {
	PERF_RAW_MAX_BURST = 64,    /**< packets per sample */
	PERF_RAW_MAX_REPS = 100001, /**< samples per measurement */
	PERF_RAW_MAX_SIZE = 1500,   /**< bytes per packet, without the tag */
};

/** An armor implementation the benchmarks measure, and the primitive under it. */
struct perf_armor {
	enum sst_crypto_suite suite;
	const char *driver;
	int raw; /**< enum perf_raw_kind, or -1 (the null suite has none) */
};

enum {
	PERF_ARMORS = 5, /**< entries of perf_armors */
	PERF_SIZES = 3,	 /**< entries of perf_sizes */
};

/** The armor implementations, in the order the benchmarks print them. */
extern const struct perf_armor perf_armors[PERF_ARMORS];

/** The packet sizes measured by default: 64, 1200, 1400 (channel packet without trailer). */
extern const uint32_t perf_sizes[PERF_SIZES];

/** What a row of figures calls the primitive ("IPsec-MB direct", "libsodium", ...). */
const char *perf_raw_name(enum perf_raw_kind kind);

/**
 * Initialise libsodium and allocate and initialise the IPsec-MB manager
 * (init_mb_mgr_auto: the best code the CPU supports).
 * @return 0, or -1 with a message on stderr.
 */
int perf_raw_init(void);

/** Free the IPsec-MB manager. */
void perf_raw_fini(void);

/** The IMB_ARCH that init_mb_mgr_auto() chose, for the benchmarks' banners. */
int perf_raw_imb_arch(void);

/** The same as a name: "avx512", "avx2", "avx", "sse", "no-aesni" or "none". */
const char *perf_raw_imb_arch_name(void);

/**
 * Median cycles per packet of the primitive at len bytes per packet (clear
 * prefix and encrypted part, without the tag).
 *
 * @param burst
 *   Packets per sample, 1..PERF_RAW_MAX_BURST.
 * @param reps
 *   Samples, 1..PERF_RAW_MAX_REPS.
 * @return 0, or -1 (not initialised, or an argument out of range).
 */
int perf_raw_cost(enum perf_raw_kind kind, uint32_t len, unsigned int burst, unsigned int reps,
	double *enc_cycles_per_pkt, double *dec_cycles_per_pkt);

/** Median of n samples (sorts v); the mean of the middle two when n is even. */
double perf_median(uint64_t *v, unsigned int n);

/** Fill p with n pseudo-random bytes from seed x (a fixed sequence). */
void perf_fill(uint8_t *p, size_t n, uint32_t x);

#endif /* PERF_RAW_H */

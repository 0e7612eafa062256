/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bare primitives on flat buffers (perf_raw.h), shared by crypto_bench
 * and channel_bench so that both set their figures against the same code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>
#include <rte_cycles.h>
#include <sodium.h>

#include "channel_wire.h"
#include "perf_raw.h"
#include "sst_crypto_driver.h"

const struct perf_armor perf_armors[PERF_ARMORS] = {
	{SST_CRYPTO_NULL, "null", -1},
	{SST_CRYPTO_CHK32, "chk32", PERF_RAW_CHK32},
	{SST_CRYPTO_AES128GCM, "ipsec_mb", PERF_RAW_IMB_GCM},
	{SST_CRYPTO_CHACHA20POLY1305, "ipsec_mb", PERF_RAW_IMB_CHACHA},
	{SST_CRYPTO_CHACHA20POLY1305, "sodium", PERF_RAW_SODIUM_CHACHA},
};

const uint32_t perf_sizes[PERF_SIZES] = {64, 1200, 1400};

static IMB_MGR *mgr;
static IMB_ARCH arch;
static uint64_t enc_samples[PERF_RAW_MAX_REPS], dec_samples[PERF_RAW_MAX_REPS];

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double
perf_median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

void
perf_fill(uint8_t *p, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

const char *
perf_raw_name(enum perf_raw_kind kind)
{
	switch (kind) {
	case PERF_RAW_IMB_GCM:
	case PERF_RAW_IMB_CHACHA:
		return "IPsec-MB direct";
	case PERF_RAW_SODIUM_CHACHA:
		return "libsodium";
	case PERF_RAW_CHK32:
		return "sst_chk32";
	}
	return "unknown";
}

int
perf_raw_init(void)
{
	if (mgr != NULL)
		return 0;
	if (sodium_init() < 0) {
		fprintf(stderr, "perf_raw: sodium_init failed\n");
		return -1;
	}
	mgr = alloc_mb_mgr(0);
	if (mgr == NULL) {
		fprintf(stderr, "perf_raw: no memory for the IPsec-MB manager\n");
		return -1;
	}
	init_mb_mgr_auto(mgr, &arch);
	return 0;
}

void
perf_raw_fini(void)
{
	free_mb_mgr(mgr);
	mgr = NULL;
}

int
perf_raw_imb_arch(void)
{
	return (int)arch;
}

const char *
perf_raw_imb_arch_name(void)
{
	switch (arch) {
	case IMB_ARCH_AVX512:
		return "avx512";
	case IMB_ARCH_AVX2:
		return "avx2";
	case IMB_ARCH_AVX:
		return "avx";
	case IMB_ARCH_SSE:
		return "sse";
	case IMB_ARCH_NOAESNI:
		return "no-aesni";
	default:
		return "none";
	}
}

int
perf_raw_cost(enum perf_raw_kind kind, uint32_t len, unsigned int burst, unsigned int reps,
	double *enc_cycles_per_pkt, double *dec_cycles_per_pkt)
{
	static uint8_t buf[PERF_RAW_MAX_BURST][PERF_RAW_MAX_SIZE + 16],
		out[PERF_RAW_MAX_BURST][PERF_RAW_MAX_SIZE + 16];
	static struct gcm_key_data gkey __attribute__((aligned(64)));
	struct gcm_context_data gctx;
	struct chacha20_poly1305_context_data cctx;
	uint8_t key[32], iv[12], tag[PERF_RAW_MAX_BURST][16];
	uint32_t text = len - SST_CRYPTO_CLEAR_PREFIX;
	volatile uint32_t sink = 0;

	if (mgr == NULL || len < SST_CRYPTO_CLEAR_PREFIX || len > PERF_RAW_MAX_SIZE || burst < 1 ||
		burst > PERF_RAW_MAX_BURST || reps < 1 || reps > PERF_RAW_MAX_REPS)
		return -1;
	perf_fill(key, sizeof(key), 1);
	perf_fill(iv, sizeof(iv), 2);
	for (unsigned int i = 0; i < burst; i++) {
		perf_fill(buf[i], len, 3 + i);
		memcpy(out[i], buf[i], SST_CRYPTO_CLEAR_PREFIX); /* the clear prefix */
	}
	IMB_AES128_GCM_PRE(mgr, key, &gkey);
	for (unsigned int rep = 0; rep < reps; rep++) {
		uint64_t t0, t1, t2;

		iv[11] = (uint8_t)rep;
		t0 = rte_rdtsc_precise();
		for (unsigned int i = 0; i < burst; i++) {
			uint8_t *p = buf[i], *q = out[i];

			switch (kind) {
			case PERF_RAW_IMB_GCM:
				IMB_AES128_GCM_ENC(mgr, &gkey, &gctx, q + 4, p + 4, text, iv, p, 4,
					tag[i], 16);
				break;
			case PERF_RAW_IMB_CHACHA:
				IMB_CHACHA20_POLY1305_INIT(mgr, key, &cctx, iv, p, 4);
				IMB_CHACHA20_POLY1305_ENC_UPDATE(
					mgr, key, &cctx, q + 4, p + 4, text);
				IMB_CHACHA20_POLY1305_ENC_FINALIZE(mgr, &cctx, tag[i], 16);
				break;
			case PERF_RAW_SODIUM_CHACHA:
				crypto_aead_chacha20poly1305_ietf_encrypt_detached(
					q + 4, tag[i], NULL, p + 4, text, p, 4, NULL, iv, key);
				break;
			case PERF_RAW_CHK32:
				sink += sst_chk32(rep, p, len);
				break;
			}
		}
		t1 = rte_rdtsc_precise();
		for (unsigned int i = 0; i < burst; i++) {
			uint8_t *p = out[i], *q = buf[i];

			switch (kind) {
			case PERF_RAW_IMB_GCM:
				IMB_AES128_GCM_DEC(mgr, &gkey, &gctx, q + 4, p + 4, text, iv, p, 4,
					tag[i], 16);
				break;
			case PERF_RAW_IMB_CHACHA:
				IMB_CHACHA20_POLY1305_INIT(mgr, key, &cctx, iv, p, 4);
				IMB_CHACHA20_POLY1305_DEC_UPDATE(
					mgr, key, &cctx, q + 4, p + 4, text);
				IMB_CHACHA20_POLY1305_DEC_FINALIZE(mgr, &cctx, tag[i], 16);
				break;
			case PERF_RAW_SODIUM_CHACHA:
				/* Verifies, then decrypts: both halves are timed. */
				sink += (uint32_t)
					crypto_aead_chacha20poly1305_ietf_decrypt_detached(
						q + 4, NULL, p + 4, text, tag[i], p, 4, iv, key);
				break;
			case PERF_RAW_CHK32:
				sink += sst_chk32(rep, p, len);
				break;
			}
		}
		t2 = rte_rdtsc_precise();
		enc_samples[rep] = t1 - t0;
		dec_samples[rep] = t2 - t1;
	}
	(void)sink;
	*enc_cycles_per_pkt = perf_median(enc_samples, reps) / burst;
	*dec_cycles_per_pkt = perf_median(dec_samples, reps) / burst;
	sodium_memzero(&gkey, sizeof(gkey));
	return 0;
}

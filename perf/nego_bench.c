/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure channel setups per core-second (docs/negotiation.md, "Benchmark"):
 * two negotiation hosts in the simulator, both in this process on one core,
 * set up secure channels over a clean 1 ms link in batches (connect 32,
 * run until both sides are established, confirm and release), and the CPU
 * time of the whole run (both sides, simulator included) gives the rate.
 * Next to it, in the same run, the cost of the libsodium primitives one
 * setup needs on both sides: 2 X25519 key generations, 2 X25519, 2 Ed25519
 * signatures and 2 verifications, 2 ChaCha20-Poly1305 seals and 2 opens of
 * the identity blocks, and the BLAKE2b transcript and key-schedule calls.
 * Their sum is the crypto-bound rate; the target is 0.8x of it.
 *
 * Run by hand: nice build/perf/nego_bench [--setups N] [--under-load]
 * (default 4096; --under-load answers every SecI1 with a cookie first).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>
#include <sodium.h>

#include "sim.h"
#include "sst_negotiation.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum { BATCH = 32, REPS = 2001 };

static struct rte_mempool *pool;

struct app {
	struct sim_host *host;
	struct sst_nego_host *nego;
	struct sst_nego_addr peer;
	struct sst_secure_identity id;
	struct sst_secure_host hosts[1];
	struct sst_secure_known_hosts kh;
	struct sst_secure_config cfg;
	uint8_t used[256];
	struct sst_nego_result res[256];
	unsigned int established;
};

static struct app apps[2];

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
tx(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct app *a = ctx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	(void)to;
	(void)now;
	if (m == NULL)
		return;
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), msg, len);
	sim_host_tx(a->host, 0, m);
}

static int
chan_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct app *a = ctx;

	(void)peer;
	for (int c = 1; c < 256; c++)
		if (!a->used[c]) {
			a->used[c] = 1;
			return c;
		}
	return -ENOSPC;
}

static void
chan_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct app *a = ctx;

	(void)peer;
	a->used[chan] = 0;
}

static int
established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct app *a = ctx;

	(void)now;
	a->res[r->local_channel] = *r;
	a->established++;
	return 0;
}

static const struct sst_nego_ops ops = {
	.transmit = tx,
	.chan_alloc = chan_alloc,
	.chan_free = chan_free,
	.established = established,
};

static void
host_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct app *a = ctx;

	(void)port;
	sst_nego_receive(a->nego, &a->peer, rte_pktmbuf_mtod(m, const uint8_t *),
		rte_pktmbuf_data_len(m), now);
	rte_pktmbuf_free(m);
}

static sst_time_t
host_next_expiry(void *ctx)
{
	return sst_nego_next_expiry(((struct app *)ctx)->nego);
}

static void
host_handle_expiry(void *ctx, sst_time_t now)
{
	sst_nego_handle_expiry(((struct app *)ctx)->nego, now);
}

static const struct sim_host_ops host_ops = {
	.receive = host_receive,
	.next_expiry = host_next_expiry,
	.handle_expiry = host_handle_expiry,
};

static void
app_init(struct app *a, struct sim *sim, uint8_t self, uint8_t peer)
{
	struct sst_nego_host_params p;
	struct sst_secure_identity pid;
	uint8_t seed[32];

	memset(a, 0, sizeof(*a));
	memset(seed, self, sizeof(seed));
	sst_secure_identity_from_seed(&a->id, seed);
	memset(seed, peer, sizeof(seed));
	sst_secure_identity_from_seed(&pid, seed);
	a->kh = (struct sst_secure_known_hosts){a->hosts, 1, 0};
	sst_secure_known_hosts_add(&a->kh, "peer", pid.pk);
	a->cfg.size = sizeof(a->cfg);
	a->cfg.identity = &a->id;
	a->cfg.known_hosts = &a->kh;
	sst_secure_suites_default(&a->cfg, true, false);
	a->cfg.random = sst_secure_random_sodium;
	a->peer = (struct sst_nego_addr){.len = 6, .bytes = {10, 0, 0, peer, 0x21, 0xd5}};
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	randombytes_buf(p.secret, sizeof(p.secret));
	p.ulp_caps = SST_NEGO_CAP_ALL;
	p.rate_per_sec = p.rate_burst = UINT32_MAX; /* one source makes them all */
	p.ops = &ops;
	p.ctx = a;
	p.secure = &a->cfg;
	a->nego = sst_nego_host_create(&p);
	a->host = sim_host_add(sim, self == 1 ? "a" : "b", &host_ops, a);
	if (a->nego == NULL || a->host == NULL) {
		fprintf(stderr, "nego_bench: setup failed\n");
		exit(1);
	}
}

static bool
batch_unfinished(void *arg)
{
	unsigned int *want = arg;

	return apps[0].established < *want || apps[1].established < *want;
}

/* Secure setups in batches; returns CPU seconds. */
static double
run_setups(unsigned int n, bool under_load)
{
	struct sim_config cfg = {.seed = 1};
	struct sim *sim = sim_create(&cfg);
	struct sst_simlink_params link;
	unsigned int want = 0;
	double t0;

	app_init(&apps[0], sim, 1, 2);
	app_init(&apps[1], sim, 2, 1);
	sst_nego_set_under_load(apps[1].nego, under_load);
	sst_simlink_params_default(&link);
	link.rate_bps = 10ull * 1000 * 1000 * 1000;
	link.delay_ns = SST_NSEC_PER_MSEC;
	link.capacity = 4096;
	link.pool = pool;
	sim_connect(sim, apps[0].host, 0, apps[1].host, 0, &link, NULL);
	t0 = cpu_now();
	while (want < n) {
		unsigned int k = RTE_MIN((unsigned int)BATCH, n - want);

		for (unsigned int i = 0; i < k; i++)
			sst_nego_connect(
				apps[0].nego, &apps[0].peer, SST_NEGO_MODE_SECURE, sim_now(sim));
		want += k;
		sim_host_kick(apps[0].host);
		if (sim_run_while(sim, batch_unfinished, &want,
			    sim_now(sim) + 60 * SST_NSEC_PER_SEC) != 0) {
			fprintf(stderr, "nego_bench: batch did not finish (%u/%u, %u)\n",
				apps[0].established, apps[1].established, want);
			exit(1);
		}
		/* The channels end: numbers and entries go back. */
		for (int c = 1; c < 256; c++) {
			if (apps[0].used[c]) {
				sst_nego_confirm(apps[0].nego, &apps[0].peer, (uint8_t)c);
				apps[0].used[c] = 0;
			}
			if (apps[1].used[c]) {
				sst_nego_release(apps[1].nego, &apps[1].peer, (uint8_t)c,
					apps[1].res[c].peer_channel);
				apps[1].used[c] = 0;
			}
		}
	}
	t0 = cpu_now() - t0;
	for (int i = 0; i < 2; i++) {
		sst_nego_host_destroy(apps[i].nego);
		sst_secure_identity_wipe(&apps[i].id);
	}
	sim_destroy(sim);
	return t0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median nanoseconds of one call of each primitive. */
enum prim { P_BASE, P_DH, P_SIGN, P_VERIFY, P_SEAL, P_OPEN, P_HASH, P_KDF, P_COUNT };
static const char *const prim_name[P_COUNT] = {"X25519 keygen", "X25519", "Ed25519 sign",
	"Ed25519 verify", "ChaCha20-Poly1305 seal (152 B)", "ChaCha20-Poly1305 open (152 B)",
	"BLAKE2b-256 (<=200 B)", "BLAKE2b KDF"};
/* Calls per setup, both sides (docs/negotiation.md, "Benchmark"). */
static const unsigned int prim_calls[P_COUNT] = {2, 2, 2, 2, 2, 2, 16, 20};

static double
prim_cost(enum prim p)
{
	static double t[REPS];
	uint8_t sk[32], pk[32], out[32], msg[200], ct[200], dec[200], sig[64], key[32], seed[32];
	uint8_t esk[64], epk[32], n12[12] = {0};
	unsigned long long l;

	randombytes_buf(sk, sizeof(sk));
	randombytes_buf(msg, sizeof(msg));
	randombytes_buf(key, sizeof(key));
	randombytes_buf(seed, sizeof(seed));
	crypto_scalarmult_base(pk, sk);
	crypto_sign_seed_keypair(epk, esk, seed);
	crypto_sign_detached(sig, NULL, msg, 63, esk);
	crypto_aead_chacha20poly1305_ietf_encrypt(ct, &l, msg, 136, key, 32, NULL, n12, key);
	for (unsigned int r = 0; r < REPS; r++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 16; i++) {
			switch (p) {
			case P_BASE:
				crypto_scalarmult_base(out, sk);
				break;
			case P_DH:
				if (crypto_scalarmult(out, sk, pk) != 0)
					exit(1);
				break;
			case P_SIGN:
				crypto_sign_detached(sig, NULL, msg, 63, esk);
				break;
			case P_VERIFY:
				if (crypto_sign_verify_detached(sig, msg, 63, epk) != 0)
					exit(1);
				break;
			case P_SEAL:
				crypto_aead_chacha20poly1305_ietf_encrypt(
					ct, &l, msg, 136, key, 32, NULL, n12, key);
				break;
			case P_OPEN:
				if (crypto_aead_chacha20poly1305_ietf_decrypt(
					    dec, &l, NULL, ct, 152, key, 32, n12, key) != 0)
					exit(1);
				break;
			case P_HASH:
				crypto_generichash(out, 32, msg, 100, NULL, 0);
				break;
			default:
				crypto_kdf_derive_from_key(out, 32, 1, "SST key ", key);
				break;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[r] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 16;
	}
	qsort(t, REPS, sizeof(t[0]), cmp_double);
	return t[REPS / 2];
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"setups", required_argument, NULL, 's'},
		{"under-load", no_argument, NULL, 'u'},
		{NULL, 0, NULL, 0},
	};
	unsigned int n = 4096;
	bool under_load = false;
	double cpu, crypto_ns = 0, rate, bound;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's')
			n = (unsigned int)strtoul(optarg, NULL, 0);
		else if (c == 'u')
			under_load = true;
		else
			return 2;
	}
	if (sodium_init() < 0 || sst_test_eal_init("nego_bench") < 0)
		return 1;
	pool = sst_test_pool("nego_bench", 8192, 2048);
	if (pool == NULL)
		return 1;
	printf("libsodium primitives (median of %d x 16 calls):\n", REPS);
	for (int p = 0; p < P_COUNT; p++) {
		double ns = prim_cost((enum prim)p);

		crypto_ns += ns * prim_calls[p];
		printf("  %-32s %9.0f ns  x %2u per setup\n", prim_name[p], ns, prim_calls[p]);
	}
	cpu = run_setups(n, under_load);
	rate = n / cpu;
	bound = 1e9 / crypto_ns;
	printf("crypto per setup (both sides): %.1f us -> crypto-bound %.0f setups/core-s\n",
		crypto_ns / 1e3, bound);
	printf("secure setups%s: %u in %.3f CPU s -> %.0f setups/core-s = %.2fx crypto-bound\n",
		under_load ? " (cookie first)" : "", n, cpu, rate, rate / bound);
	return 0;
}

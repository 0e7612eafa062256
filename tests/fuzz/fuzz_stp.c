/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/stp's exchange on hostile bytes: the first input byte picks the side
 * (requester or responder) and the chunk size, the rest is what the stream
 * delivers. Checked after every step: the state is one of the enum's; what
 * the exchange offers to send parses as whole messages (stp_hdr_check());
 * the responder never switches the channel to a module its load hook did
 * not return, nor loads anything that does not hash to the USE's module.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fuzz_check.h"
#include "stp_wire.h"

static struct sst_cc_ops fake_ops = {.name = "fuzzed"};
static unsigned int loads, applies;
static bool load_ok;

static const struct sst_cc_ops *
f_lookup(void *ctx, const uint8_t *hash)
{
	(void)ctx;
	return hash[0] == 0xcc ? &fake_ops : NULL; /* "cached" for some hashes */
}

static const struct sst_cc_ops *
f_load(void *ctx, const uint8_t *code, size_t len, char *err, size_t errlen)
{
	(void)ctx;
	(void)code;
	loads++;
	if (len % 2 == 0) {
		snprintf(err, errlen, "refused\n\033[31m");
		return NULL;
	}
	load_ok = true;
	return &fake_ops;
}

static int
f_apply(void *ctx, const struct sst_cc_ops *ops, sst_time_t now)
{
	(void)ctx;
	(void)now;
	FUZZ_CHECK(ops == &fake_ops);
	applies++;
	return 0;
}

/* Whatever the exchange offers is a sequence of well-formed messages. */
static void
check_tx(struct sst_stp *st)
{
	const uint8_t *p;
	size_t n;
	uint8_t hdr[STP_HDR_LEN];
	size_t have = 0;
	uint64_t body_left = 0;

	while ((n = sst_stp_tx_peek(st, &p)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (body_left > 0) {
				body_left--;
				continue;
			}
			hdr[have++] = p[i];
			if (have == STP_HDR_LEN) {
				struct stp_hdr h;

				memcpy(&h, hdr, sizeof(h));
				FUZZ_CHECK(stp_hdr_check(&h) == 0);
				body_left = rte_be_to_cpu_32(h.len);
				have = 0;
			}
		}
		sst_stp_tx_advance(st, n);
	}
	FUZZ_CHECK(have == 0 && body_left == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *mem;
	static const struct sst_stp_policy allow = {.mode = SST_STP_ALLOW_ALL};
	static const uint8_t code[] = {1, 2, 3};
	const struct sst_stp_hooks hooks = {.lookup = f_lookup, .load = f_load, .apply = f_apply};
	uint8_t hash[SST_STP_HASH_LEN];
	struct sst_stp *st;
	size_t chunk;
	bool responder;

	if (mem == NULL) {
		mem = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
		if (mem == NULL || sodium_init() < 0)
			abort();
	}
	if (size < 1)
		return 0;
	responder = data[0] & 1;
	chunk = 1 + (data[0] >> 1) * 17;
	data++;
	size--;
	loads = applies = 0;
	load_ok = false;
	crypto_generichash(hash, sizeof(hash), code, sizeof(code), NULL, 0);
	st = responder ? sst_stp_respond(mem, &allow, NULL, &hooks, 0)
		       : sst_stp_request(mem, hash, code, sizeof(code), 0);
	FUZZ_CHECK(st != NULL);
	check_tx(st);
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		sst_stp_input(st, data + off, n, (sst_time_t)off);
		FUZZ_CHECK(sst_stp_state(st) <= SST_STP_FAILED);
		check_tx(st);
		if (!responder)
			FUZZ_CHECK(loads == 0 && applies == 0);
	}
	sst_stp_input_end(st, (sst_time_t)size);
	FUZZ_CHECK(sst_stp_state(st) >= SST_STP_ACCEPTED);
	FUZZ_CHECK(applies <= 1 && loads <= 1);
	/* A module is used only when found cached or loaded. */
	if (applies == 1 && loads == 1)
		FUZZ_CHECK(load_ok);
	if (sst_stp_state(st) == SST_STP_REFUSED)
		for (const char *c = sst_stp_detail(st); *c != '\0'; c++)
			FUZZ_CHECK(responder || (*c >= 0x20 && *c <= 0x7e));
	return 0;
}

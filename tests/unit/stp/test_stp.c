/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STP's exchange (lib/stp/stp.c, stp_policy.c) between a requester and a
 * responder whose hooks are the real bpf driver (lookup by hash, load from
 * memory) and a congestion state that sst_cc_switch() moves: the example
 * modules shipped, cached, denied, cut short, tampered with, timed out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cc_bpf.h"
#include "sst_cc.h"
#include "sst_stp.h"
#include "sst_test.h"

static uint8_t *req_mem, *rsp_mem;
static struct sst_cc cc;
static unsigned int loads, applies;
static struct sst_stp_policy policy;

static const struct sst_cc_ops *
hook_lookup(void *ctx, const uint8_t *hash)
{
	(void)ctx;
	return cc_bpf_find_hash(hash, true);
}

static const struct sst_cc_ops *
hook_load(void *ctx, const uint8_t *code, size_t len, char *err, size_t errlen)
{
	(void)ctx;
	loads++;
	return cc_bpf_load_mem(code, len, true, "shipped", err, errlen);
}

static int
hook_apply(void *ctx, const struct sst_cc_ops *ops, sst_time_t now)
{
	(void)ctx;
	applies++;
	return sst_cc_switch(&cc, ops, now);
}

static const struct sst_stp_hooks hooks = {
	.lookup = hook_lookup, .load = hook_load, .apply = hook_apply};

/* A module's image, read whole. */
static uint8_t *
image(const char *name, size_t *len)
{
	const char *dir = getenv("SST_CC_BPF_MODULES");
	char path[512];
	uint8_t *buf = malloc(SST_STP_CODE_MAX);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.o", dir != NULL ? dir : ".", name);
	f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	*len = fread(buf, 1, SST_STP_CODE_MAX, f);
	fclose(f);
	CU_ASSERT_FATAL(*len > 0);
	return buf;
}

/* Move whatever @p from offers to @p to, @p chunk bytes at a time. */
static size_t
pump1(struct sst_stp *from, struct sst_stp *to, size_t chunk, sst_time_t now)
{
	const uint8_t *p;
	size_t n, moved = 0;

	while ((n = sst_stp_tx_peek(from, &p)) > 0) {
		n = n < chunk ? n : chunk;
		sst_stp_input(to, p, n, now);
		sst_stp_tx_advance(from, n);
		moved += n;
	}
	return moved;
}

static void
pump(struct sst_stp *a, struct sst_stp *b, size_t chunk, sst_time_t now)
{
	while (pump1(a, b, chunk, now) + pump1(b, a, chunk, now) > 0)
		;
}

static void
fresh_channel(void)
{
	CU_ASSERT_EQUAL_FATAL(sst_cc_init(&cc, sst_cc_find("newreno"), 1200, 0), 0);
	cc.cwnd = 50000;
	cc.ssthresh = 40000;
	loads = applies = 0;
}

static void
hash_of(const uint8_t *buf, size_t len, uint8_t *hash)
{
	crypto_generichash(hash, SST_STP_HASH_LEN, buf, len, NULL, 0);
}

/* A new channel on NewReno and both sides of an exchange about @p hash,
 * run to their end with @p chunk bytes per delivery. */
static void
exchange(const uint8_t *hash, const uint8_t *code, size_t len, const uint8_t *peer, size_t chunk,
	struct sst_stp **rq, struct sst_stp **rs)
{
	fresh_channel();
	*rq = sst_stp_request(req_mem, hash, code, len, 0);
	*rs = sst_stp_respond(rsp_mem, &policy, peer, &hooks, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*rq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*rs);
	pump(*rq, *rs, chunk, 1000);
}

/* Shipped on SENDME, loaded, used; a second channel gets it from the
 * cache with USE answered OK and no code. Chunks of 1 byte and of 1000. */
static void
test_shipped_then_cached(void)
{
	size_t len;
	uint8_t *code = image("vegas", &len), hash[SST_STP_HASH_LEN];
	struct sst_stp_counters c0, c1;
	struct sst_stp *rq, *rs;

	hash_of(code, len, hash);
	sst_stp_policy_parse(&policy, "allow-all");
	sst_stp_counters(&c0);
	exchange(hash, code, len, NULL, 1, &rq, &rs);
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_ACCEPTED);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_ACCEPTED);
	CU_ASSERT(sst_stp_done(rq) && sst_stp_done(rs));
	CU_ASSERT(sst_stp_code_received(rs));
	CU_ASSERT_EQUAL(loads, 1);
	CU_ASSERT_EQUAL(applies, 1);
	CU_ASSERT_PTR_EQUAL(cc.ops, cc_bpf_find_hash(hash, true));
	CU_ASSERT_EQUAL(memcmp(cc_bpf_hash(cc.ops), hash, SST_STP_HASH_LEN), 0);
	/* The switch keeps the window and ssthresh the channel had. */
	CU_ASSERT_EQUAL(cc.cwnd, 50000);
	CU_ASSERT_EQUAL(cc.ssthresh, 40000);

	exchange(hash, code, len, NULL, 1000, &rq, &rs);
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_ACCEPTED);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_ACCEPTED);
	CU_ASSERT(!sst_stp_code_received(rs));
	CU_ASSERT_EQUAL(loads, 0);
	CU_ASSERT_EQUAL(applies, 1);
	CU_ASSERT_PTR_EQUAL(cc.ops, cc_bpf_find_hash(hash, true));
	sst_stp_counters(&c1);
	CU_ASSERT_EQUAL(c1.shipped - c0.shipped, 1);
	CU_ASSERT_EQUAL(c1.cached - c0.cached, 1);
	CU_ASSERT_EQUAL(c1.used - c0.used, 2);
	CU_ASSERT_EQUAL(c1.accepted - c0.accepted, 2);
	free(code);
}

/* A requester that has only the hash: fine when cached, failed on SENDME. */
static void
test_hash_only(void)
{
	uint8_t hash[SST_STP_HASH_LEN];
	struct sst_stp *rq, *rs;

	memset(hash, 0xab, sizeof(hash));
	sst_stp_policy_parse(&policy, "allow-all");
	exchange(hash, NULL, 0, NULL, 64, &rq, &rs);
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_FAILED);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_WAIT_CODE);
	/* The responder gives up at its deadline; the channel is untouched. */
	CU_ASSERT_EQUAL(sst_stp_next_expiry(rs), 1000 + SST_STP_TIMEOUT);
	sst_stp_handle_expiry(rs, 1000 + SST_STP_TIMEOUT - 1);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_WAIT_CODE);
	sst_stp_handle_expiry(rs, 1000 + SST_STP_TIMEOUT);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_FAILED);
	CU_ASSERT_EQUAL(sst_stp_next_expiry(rs), SST_TIME_NEVER);
	CU_ASSERT_STRING_EQUAL(cc.ops->name, "newreno");
	CU_ASSERT_EQUAL(applies, 0);
}

/* A shorter wait (sst-perf's --stp-timeout): the wait under way moves too,
 * and an exchange that ended has none. */
static void
test_set_timeout(void)
{
	uint8_t hash[SST_STP_HASH_LEN];
	struct sst_stp *rq = (struct sst_stp *)req_mem;

	memset(hash, 0xcd, sizeof(hash));
	CU_ASSERT_PTR_EQUAL_FATAL(sst_stp_request(rq, hash, NULL, 0, 1000), rq);
	CU_ASSERT_EQUAL(sst_stp_next_expiry(rq), 1000 + SST_STP_TIMEOUT);
	CU_ASSERT_EQUAL(sst_stp_set_timeout(rq, 0, 2000), -EINVAL);
	CU_ASSERT_EQUAL(sst_stp_set_timeout(rq, SST_TIME_NEVER, 2000), -EINVAL);
	CU_ASSERT_EQUAL(sst_stp_set_timeout(rq, SST_NSEC_PER_SEC, 2000), 0);
	CU_ASSERT_EQUAL(sst_stp_next_expiry(rq), 2000 + SST_NSEC_PER_SEC);
	sst_stp_handle_expiry(rq, 1999 + SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_WAIT_REPLY);
	sst_stp_handle_expiry(rq, 2000 + SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_FAILED);
	CU_ASSERT_STRING_EQUAL(sst_stp_detail(rq), "no reply in time");
	CU_ASSERT_EQUAL(sst_stp_set_timeout(rq, SST_NSEC_PER_SEC, 3000), 0);
	CU_ASSERT_EQUAL(sst_stp_next_expiry(rq), SST_TIME_NEVER);
}

static void
expect_refused(const uint8_t *hash, const uint8_t *code, size_t len, const uint8_t *peer,
	enum sst_stp_reason why, const char *detail)
{
	struct sst_stp *rq, *rs;

	exchange(hash, code, len, peer, 700, &rq, &rs);
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_REFUSED);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_REFUSED);
	CU_ASSERT_EQUAL(sst_stp_reason(rq), why);
	CU_ASSERT_EQUAL(sst_stp_reason(rs), why);
	CU_ASSERT_PTR_NOT_NULL(strstr(sst_stp_detail(rq), detail));
	if (strstr(sst_stp_detail(rq), detail) == NULL)
		printf("\n  detail: %s\n", sst_stp_detail(rq));
	CU_ASSERT_STRING_EQUAL(cc.ops->name, "newreno");
	CU_ASSERT_EQUAL(cc.cwnd, 50000);
	CU_ASSERT_EQUAL(applies, 0);
}

/* Deny (the default) answers NO before anything else; pinned admits only
 * authenticated peers with a pinned key. */
static void
test_policy(void)
{
	size_t len;
	uint8_t *code = image("greedy", &len), hash[SST_STP_HASH_LEN];
	uint8_t key[SST_STP_KEY_LEN], other[SST_STP_KEY_LEN], zero[SST_STP_KEY_LEN] = {0};

	hash_of(code, len, hash);
	memset(key, 7, sizeof(key));
	memset(other, 8, sizeof(other));
	memset(&policy, 0, sizeof(policy)); /* deny */
	expect_refused(hash, code, len, NULL, SST_STP_NO_POLICY, "no congestion control");
	expect_refused(hash, code, len, key, SST_STP_NO_POLICY, "no congestion control");
	CU_ASSERT_EQUAL(loads, 0);

	CU_ASSERT_EQUAL(sst_stp_policy_parse(&policy, "pinned"), 0);
	CU_ASSERT_EQUAL(sst_stp_policy_pin(&policy, key), 0);
	expect_refused(hash, code, len, NULL, SST_STP_NO_POLICY, "");
	expect_refused(hash, code, len, zero, SST_STP_NO_POLICY, ""); /* checksum mode */
	expect_refused(hash, code, len, other, SST_STP_NO_POLICY, "");
	CU_ASSERT(sst_stp_policy_allows(&policy, key));
	CU_ASSERT(!sst_stp_policy_allows(NULL, key));
	CU_ASSERT_EQUAL(sst_stp_policy_parse(&policy, "maybe"), -EINVAL);
	for (int i = 0; i < SST_STP_PINNED_MAX; i++)
		sst_stp_policy_pin(&policy, other);
	CU_ASSERT_EQUAL(sst_stp_policy_pin(&policy, other), -ENOSPC);
	free(code);
}

/* Cut short (hash of the cut image: the ELF reader refuses it), tampered
 * (hash of the whole image, one byte changed), cut short against the
 * whole image's hash, and a stream that ends inside CODE. */
static void
test_truncated_and_mismatched(void)
{
	size_t len;
	uint8_t *code = image("newreno", &len), hash[SST_STP_HASH_LEN], cut[SST_STP_HASH_LEN];
	struct sst_stp *rq, *rs;
	const uint8_t *p;
	size_t n, sent = 0;

	sst_stp_policy_parse(&policy, "allow-all");
	/* A different image than the cached one: vegas and newreno may be loaded. */
	hash_of(code, len / 2, cut);
	expect_refused(cut, code, len / 2, NULL, SST_STP_NO_INVALID, "ELF");
	CU_ASSERT_EQUAL(loads, 1);
	hash_of(code, len, hash);
	code[len - 1] ^= 1;
	expect_refused(hash, code, len, NULL, SST_STP_NO_HASH, "does not hash");
	code[len - 1] ^= 1;
	expect_refused(hash, code, len - 1, NULL, SST_STP_NO_HASH, "does not hash");
	CU_ASSERT_EQUAL(loads, 0);

	exchange(hash, code, len, NULL, 64, &rq, &rs); /* the whole image arrives */
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_ACCEPTED);
	/* Again on a new responder, cutting the stream inside CODE. */
	memset(hash, 0x5a, sizeof(hash));
	fresh_channel();
	rq = sst_stp_request(req_mem, hash, code, len, 0);
	rs = sst_stp_respond(rsp_mem, &policy, NULL, &hooks, 0);
	pump1(rq, rs, 1000, 0);
	pump1(rs, rq, 1000, 0);
	while ((n = sst_stp_tx_peek(rq, &p)) > 0 && sent < 200) {
		n = n < 50 ? n : 50;
		sst_stp_input(rs, p, n, 0);
		sst_stp_tx_advance(rq, n);
		sent += n;
	}
	sst_stp_input_end(rs, 0);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_FAILED);
	CU_ASSERT_PTR_NOT_NULL(strstr(sst_stp_detail(rs), "inside a message"));
	CU_ASSERT_EQUAL(loads, 0);
	CU_ASSERT_STRING_EQUAL(cc.ops->name, "newreno");
	free(code);
}

/* Malformed and misplaced messages: a responder answers NO(PROTOCOL) and
 * the exchange fails; the channel is untouched. */
static void
test_malformed(void)
{
	static const uint8_t bad_version[] = {1, 2, 0, 0, 0, 0, 0, 32};
	static const uint8_t big_code[] = {4, 1, 0, 0, 0x7f, 0, 0, 0};
	uint8_t msg[41] = {4, 1, 0, 0, 0, 0, 0, 33}; /* CODE before USE */
	struct sst_stp *rs;
	const uint8_t *p;
	size_t n;

	sst_stp_policy_parse(&policy, "allow-all");
	fresh_channel();
	rs = sst_stp_respond(rsp_mem, &policy, NULL, &hooks, 0);
	CU_ASSERT_EQUAL(sst_stp_input(rs, bad_version, sizeof(bad_version), 0), -EPROTO);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_FAILED);
	n = sst_stp_tx_peek(rs, &p);
	CU_ASSERT(n > 40 && p[0] == SST_STP_MSG_NO && p[40] == SST_STP_NO_PROTOCOL);

	rs = sst_stp_respond(rsp_mem, &policy, NULL, &hooks, 0);
	CU_ASSERT_EQUAL(sst_stp_input(rs, big_code, sizeof(big_code), 0), -EFBIG);
	n = sst_stp_tx_peek(rs, &p);
	CU_ASSERT(n > 40 && p[40] == SST_STP_NO_TOO_LARGE);

	rs = sst_stp_respond(rsp_mem, &policy, NULL, &hooks, 0);
	CU_ASSERT_EQUAL(sst_stp_input(rs, msg, 8 + 33, 0), 0);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_REFUSED);
	CU_ASSERT_EQUAL(sst_stp_reason(rs), SST_STP_NO_PROTOCOL);
	CU_ASSERT_EQUAL(sst_stp_input(rs, msg, 1, 0), -EPROTO); /* nothing after the end */
	/* A requester prints a NO's detail: control bytes become '?'. */
	{
		uint8_t no[8 + 33 + 3] = {5, 1, 0, 0, 0, 0, 0, 36};
		struct sst_stp *rq = sst_stp_request(req_mem, no + 8, NULL, 0, 0);

		no[8 + 32] = SST_STP_NO_POLICY;
		memcpy(no + 41, "a\033b", 3);
		CU_ASSERT_EQUAL(sst_stp_input(rq, no, sizeof(no), 0), 0);
		CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_REFUSED);
		CU_ASSERT_STRING_EQUAL(sst_stp_detail(rq), "a?b");
	}
	CU_ASSERT_STRING_EQUAL(cc.ops->name, "newreno");
	CU_ASSERT_EQUAL(applies + loads, 0);

	CU_ASSERT_PTR_NULL(sst_stp_request(NULL, msg, NULL, 0, 0));
	CU_ASSERT_PTR_NULL(sst_stp_request(req_mem, msg, msg, SST_STP_CODE_MAX + 1, 0));
	CU_ASSERT_PTR_NULL(sst_stp_respond(rsp_mem, NULL, NULL, &hooks, 0));
}

/* A shipped greedy module is revoked by the policer on its channel; the
 * channel goes on with NewReno from the window it had, and a later USE of
 * the same module is answered SENDME, then NO (the driver refuses it). */
static void
test_revoked_not_reused(void)
{
	size_t len;
	uint8_t *code = image("greedy", &len), hash[SST_STP_HASH_LEN];
	struct sst_stp *rq, *rs;
	sst_time_t now = 0;
	uint64_t seq = 1;

	hash_of(code, len, hash);
	sst_stp_policy_parse(&policy, "allow-all");
	exchange(hash, code, len, NULL, 4096, &rq, &rs);
	CU_ASSERT_EQUAL_FATAL(sst_stp_state(rs), SST_STP_ACCEPTED);
	CU_ASSERT_PTR_EQUAL(cc.ops, cc_bpf_find_hash(hash, true));
	for (int i = 0; i < 400 && strcmp(cc.ops->name, "newreno") != 0; i++) {
		struct sst_cc_ack_event ev = {.now = now += 20000000,
			.largest_acked = seq++,
			.acked_bytes = 1200,
			.acked_packets = 1,
			.bytes_in_flight = 12000,
			.rtt_sample = 20000000,
			.srtt = 20000000,
			.min_rtt = 20000000};

		sst_cc_on_ack(&cc, &ev);
	}
	CU_ASSERT_STRING_EQUAL(cc.ops->name, "newreno");
	CU_ASSERT_PTR_NULL(cc_bpf_find_hash(hash, true));
	expect_refused(hash, code, len, NULL, SST_STP_NO_INVALID, "unloaded");
	free(code);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_shipped_then_cached),
	SST_TEST(test_hash_only),
	SST_TEST(test_set_timeout),
	SST_TEST(test_policy),
	SST_TEST(test_truncated_and_mismatched),
	SST_TEST(test_malformed),
	SST_TEST(test_revoked_not_reused),
	SST_TEST_END,
};

int
main(void)
{
	req_mem = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
	rsp_mem = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
	if (req_mem == NULL || rsp_mem == NULL || sodium_init() < 0)
		return 1;
	return sst_test_run("stp", cases);
}

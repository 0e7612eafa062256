/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One side of a module exchange (sst_stp.h): the requester's USE, CODE on
 * SENDME, and the responder's policy check, cache lookup, SENDME, hash
 * check, load and switch. The receive side reassembles one message at a
 * time into the exchange's own buffer (a CODE is at most SST_STP_CODE_MAX);
 * the send side offers one small control message at a time, or the
 * requester's image in place.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>
#include <sodium.h>

#include "stp_wire.h"
#include "tel_table.h"

enum stp_role { STP_REQUESTER, STP_RESPONDER };

struct sst_stp {
	enum stp_role role;
	enum sst_stp_state state;
	enum sst_stp_reason reason;
	sst_time_t deadline;
	sst_time_t timeout; /* the wait for each message */
	uint8_t hash[SST_STP_HASH_LEN];
	bool code_received;
	bool shipped;
	/* Requester: the image to ship. */
	const uint8_t *code;
	size_t code_len;
	/* Responder. */
	const struct sst_stp_policy *policy;
	struct sst_stp_hooks hooks;
	uint8_t peer_id[SST_STP_KEY_LEN];
	bool peer_known;
	/* Send side: a control message, then (for CODE) the image. */
	uint8_t tx[STP_HDR_LEN + STP_NO_FIXED + SST_STP_DETAIL_MAX];
	size_t tx_len, tx_off;
	const uint8_t *tx_code;
	size_t tx_code_len;
	/* Receive side: the header, then the body. */
	struct stp_hdr hdr;
	size_t hdr_have;
	uint32_t body_len, body_have;
	char detail[SST_STP_DETAIL_MAX + 1];
	uint8_t body[SST_STP_HASH_LEN + SST_STP_CODE_MAX];
};

static struct {
	atomic_ullong requested, shipped, accepted, refused, used, cached, denied, failed;
} stp_counters;

#define STP_COUNT(name) atomic_fetch_add_explicit(&stp_counters.name, 1, memory_order_relaxed)

size_t
sst_stp_size(void)
{
	return sizeof(struct sst_stp);
}

static void
stp_end(struct sst_stp *st, enum sst_stp_state state, enum sst_stp_reason reason,
	const char *detail)
{
	st->state = state;
	st->reason = reason;
	st->deadline = SST_TIME_NEVER;
	snprintf(st->detail, sizeof(st->detail), "%s", detail != NULL ? detail : "");
	if (state == SST_STP_FAILED)
		STP_COUNT(failed);
}

/* Queue a control message (the previous one was sent: one message per step). */
static void
stp_send(struct sst_stp *st, enum sst_stp_msg type, uint32_t extra, uint8_t reason,
	const char *detail)
{
	st->tx_len = stp_encode(st->tx, sizeof(st->tx), type, st->hash, extra, reason, detail);
	st->tx_off = 0;
}

/* Responder: say NO and end. */
static void
stp_refuse(struct sst_stp *st, enum sst_stp_reason reason, const char *detail)
{
	stp_send(st, SST_STP_MSG_NO, 0, (uint8_t)reason, detail);
	stp_end(st, SST_STP_REFUSED, reason, detail);
	STP_COUNT(denied);
}

/* Responder: the channel moves to @p ops, or stays where it is. */
static void
stp_use(struct sst_stp *st, const struct sst_cc_ops *ops, sst_time_t now)
{
	char why[64];
	int rc = st->hooks.apply(st->hooks.ctx, ops, now);

	if (rc != 0) {
		snprintf(why, sizeof(why), "the channel cannot switch to it (%s)", strerror(-rc));
		stp_refuse(st, SST_STP_NO_FAILED, why);
		return;
	}
	stp_send(st, SST_STP_MSG_OK, 0, 0, NULL);
	stp_end(st, SST_STP_ACCEPTED, 0, NULL);
	STP_COUNT(used);
}

/* STP's first step at the responder: USE(H). Policy first, so a denied
 * peer learns nothing of this host's cache. */
static void
stp_on_use(struct sst_stp *st, sst_time_t now)
{
	const struct sst_cc_ops *ops;

	memcpy(st->hash, st->body, SST_STP_HASH_LEN);
	if (!sst_stp_policy_allows(st->policy, st->peer_known ? st->peer_id : NULL)) {
		stp_refuse(st, SST_STP_NO_POLICY,
			"this host runs no congestion control from this peer");
		return;
	}
	ops = st->hooks.lookup(st->hooks.ctx, st->hash);
	if (ops != NULL) {
		STP_COUNT(cached);
		stp_use(st, ops, now);
		return;
	}
	stp_send(st, SST_STP_MSG_SENDME, 0, 0, NULL);
	st->state = SST_STP_WAIT_CODE;
	st->deadline = sst_time_add(now, st->timeout);
}

/* The code arrived: it must be the module asked for, to the byte, before
 * anything parses it. */
static void
stp_on_code(struct sst_stp *st, sst_time_t now)
{
	uint8_t hash[SST_STP_HASH_LEN];
	const uint8_t *code = st->body + SST_STP_HASH_LEN;
	size_t len = st->body_len - SST_STP_HASH_LEN;
	char why[SST_STP_DETAIL_MAX];
	const struct sst_cc_ops *ops;

	st->code_received = true;
	if (memcmp(st->body, st->hash, SST_STP_HASH_LEN) != 0) {
		stp_refuse(st, SST_STP_NO_HASH, "CODE names another module than USE");
		return;
	}
	crypto_generichash(hash, sizeof(hash), code, len, NULL, 0);
	if (sodium_memcmp(hash, st->hash, sizeof(hash)) != 0) {
		stp_refuse(st, SST_STP_NO_HASH, "the code does not hash to the module asked for");
		return;
	}
	why[0] = '\0';
	ops = st->hooks.load(st->hooks.ctx, code, len, why, sizeof(why));
	if (ops == NULL) {
		stp_refuse(st, SST_STP_NO_INVALID, why);
		return;
	}
	stp_use(st, ops, now);
}

/* The requester's side of a reply. */
static void
stp_on_reply(struct sst_stp *st, sst_time_t now)
{
	switch (st->hdr.type) {
	case SST_STP_MSG_OK:
		stp_end(st, SST_STP_ACCEPTED, 0, NULL);
		STP_COUNT(accepted);
		return;
	case SST_STP_MSG_NO:
		snprintf(st->detail, sizeof(st->detail), "%.*s", (int)(st->body_len - STP_NO_FIXED),
			(const char *)st->body + STP_NO_FIXED);
		/* The peer's words end up on terminals and in logs: printable ASCII only. */
		for (char *c = st->detail; *c != '\0'; c++)
			if (*c < 0x20 || *c > 0x7e)
				*c = '?';
		st->state = SST_STP_REFUSED;
		st->reason = st->body[SST_STP_HASH_LEN];
		st->deadline = SST_TIME_NEVER;
		STP_COUNT(refused);
		return;
	case SST_STP_MSG_SENDME:
		if (st->code == NULL || st->tx_code != NULL) {
			stp_end(st, SST_STP_FAILED, 0,
				st->code == NULL ? "the peer asked for code this host does not have"
						 : "the peer asked for the code twice");
			return;
		}
		stp_send(st, SST_STP_MSG_CODE, (uint32_t)st->code_len, 0, NULL);
		st->tx_code = st->code;
		st->tx_code_len = st->code_len;
		st->shipped = true;
		st->deadline = sst_time_add(now, st->timeout);
		STP_COUNT(shipped);
		return;
	default:
		stp_end(st, SST_STP_FAILED, 0, "unexpected message");
	}
}

/* A whole message is in st->hdr and st->body. */
static int
stp_dispatch(struct sst_stp *st, sst_time_t now)
{
	if (memcmp(st->body, st->hash, SST_STP_HASH_LEN) != 0 && st->state == SST_STP_WAIT_REPLY) {
		stp_end(st, SST_STP_FAILED, 0, "a reply about another module");
		return -EPROTO;
	}
	if (st->state == SST_STP_WAIT_REPLY)
		stp_on_reply(st, now);
	else if (st->state == SST_STP_WAIT_USE && st->hdr.type == SST_STP_MSG_USE)
		stp_on_use(st, now);
	else if (st->state == SST_STP_WAIT_CODE && st->hdr.type == SST_STP_MSG_CODE)
		stp_on_code(st, now);
	else if (st->role == STP_RESPONDER)
		stp_refuse(st, SST_STP_NO_PROTOCOL, "message out of place");
	else
		stp_end(st, SST_STP_FAILED, 0, "message after the end");
	return st->state == SST_STP_FAILED ? -EPROTO : 0;
}

/* Malformed input: a responder still says why (the hash may be unknown). */
static int
stp_malformed(struct sst_stp *st, int rc)
{
	const char *why = rc == -EFBIG ? "code too large" : "malformed message";

	if (st->role == STP_RESPONDER && st->state != SST_STP_REFUSED) {
		stp_refuse(st, rc == -EFBIG ? SST_STP_NO_TOO_LARGE : SST_STP_NO_PROTOCOL, why);
		STP_COUNT(failed);
		st->state = SST_STP_FAILED;
	} else {
		stp_end(st, SST_STP_FAILED, 0, why);
	}
	return rc;
}

int
sst_stp_input(struct sst_stp *st, const uint8_t *data, size_t len, sst_time_t now)
{
	while (len > 0) {
		size_t n;
		int rc;

		if (st->state == SST_STP_FAILED)
			return -EPROTO;
		if (st->state == SST_STP_ACCEPTED || st->state == SST_STP_REFUSED)
			return stp_malformed(st, -EPROTO); /* nothing may follow the end */
		if (st->hdr_have < STP_HDR_LEN) {
			n = RTE_MIN(len, STP_HDR_LEN - st->hdr_have);
			memcpy((uint8_t *)&st->hdr + st->hdr_have, data, n);
			st->hdr_have += n;
			data += n;
			len -= n;
			if (st->hdr_have < STP_HDR_LEN)
				break;
			rc = stp_hdr_check(&st->hdr);
			if (rc != 0)
				return stp_malformed(st, rc);
			st->body_len = rte_be_to_cpu_32(st->hdr.len);
			st->body_have = 0;
		}
		n = RTE_MIN(len, (size_t)(st->body_len - st->body_have));
		memcpy(st->body + st->body_have, data, n);
		st->body_have += (uint32_t)n;
		data += n;
		len -= n;
		if (st->body_have < st->body_len)
			break;
		st->hdr_have = 0;
		rc = stp_dispatch(st, now);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void
sst_stp_input_end(struct sst_stp *st, sst_time_t now)
{
	char why[96];

	(void)now;
	if (st->state != SST_STP_WAIT_REPLY && st->state != SST_STP_WAIT_USE &&
		st->state != SST_STP_WAIT_CODE)
		return;
	if (st->hdr_have > 0 || st->body_have > 0)
		snprintf(why, sizeof(why), "the stream ended inside a message (%u of %u bytes)",
			st->body_have, st->body_len);
	else
		snprintf(why, sizeof(why), "the stream ended before the exchange did");
	stp_end(st, SST_STP_FAILED, 0, why);
}

size_t
sst_stp_tx_peek(struct sst_stp *st, const uint8_t **data)
{
	if (st->tx_off < st->tx_len) {
		*data = st->tx + st->tx_off;
		return st->tx_len - st->tx_off;
	}
	if (st->tx_code != NULL && st->tx_code_len > 0) {
		*data = st->tx_code;
		return st->tx_code_len;
	}
	*data = NULL;
	return 0;
}

void
sst_stp_tx_advance(struct sst_stp *st, size_t n)
{
	size_t k = RTE_MIN(n, st->tx_len - st->tx_off);

	st->tx_off += k;
	n -= k;
	if (n > 0 && st->tx_code != NULL) {
		n = RTE_MIN(n, st->tx_code_len);
		st->tx_code += n;
		st->tx_code_len -= n;
	}
}

sst_time_t
sst_stp_next_expiry(const struct sst_stp *st)
{
	return st->deadline;
}

void
sst_stp_handle_expiry(struct sst_stp *st, sst_time_t now)
{
	if (now < st->deadline)
		return;
	stp_end(st, SST_STP_FAILED, 0,
		st->state == SST_STP_WAIT_CODE ? "no code came in time" : "no reply in time");
}

int
sst_stp_set_timeout(struct sst_stp *st, sst_time_t timeout, sst_time_t now)
{
	if (timeout == 0 || timeout == SST_TIME_NEVER)
		return -EINVAL;
	st->timeout = timeout;
	if (st->deadline != SST_TIME_NEVER)
		st->deadline = sst_time_add(now, timeout);
	return 0;
}

static void
stp_init(struct sst_stp *st, enum stp_role role, sst_time_t now)
{
	/* Only the header: the 192 KiB body is written before it is read. */
	memset(st, 0, offsetof(struct sst_stp, body));
	st->role = role;
	st->timeout = SST_STP_TIMEOUT;
	st->deadline = sst_time_add(now, st->timeout);
}

struct sst_stp *
sst_stp_request(void *mem, const uint8_t *hash, const uint8_t *code, size_t len, sst_time_t now)
{
	struct sst_stp *st = mem;

	if (mem == NULL || hash == NULL || len > SST_STP_CODE_MAX || (code == NULL) != (len == 0))
		return NULL;
	stp_init(st, STP_REQUESTER, now);
	st->state = SST_STP_WAIT_REPLY;
	memcpy(st->hash, hash, SST_STP_HASH_LEN);
	st->code = code;
	st->code_len = len;
	stp_send(st, SST_STP_MSG_USE, 0, 0, NULL);
	STP_COUNT(requested);
	return st;
}

struct sst_stp *
sst_stp_respond(void *mem, const struct sst_stp_policy *policy, const uint8_t *peer_id,
	const struct sst_stp_hooks *hooks, sst_time_t now)
{
	struct sst_stp *st = mem;

	if (mem == NULL || policy == NULL || hooks == NULL || hooks->lookup == NULL ||
		hooks->load == NULL || hooks->apply == NULL)
		return NULL;
	if (sodium_init() < 0)
		return NULL;
	stp_init(st, STP_RESPONDER, now);
	st->state = SST_STP_WAIT_USE;
	st->policy = policy;
	st->hooks = *hooks;
	if (peer_id != NULL) {
		memcpy(st->peer_id, peer_id, SST_STP_KEY_LEN);
		st->peer_known = true;
	}
	return st;
}

enum sst_stp_state
sst_stp_state(const struct sst_stp *st)
{
	return st->state;
}

bool
sst_stp_done(const struct sst_stp *st)
{
	bool ended = st->state == SST_STP_ACCEPTED || st->state == SST_STP_REFUSED ||
		     st->state == SST_STP_FAILED;

	return ended && st->tx_off == st->tx_len && (st->tx_code == NULL || st->tx_code_len == 0);
}

enum sst_stp_reason
sst_stp_reason(const struct sst_stp *st)
{
	return st->reason;
}

const char *
sst_stp_detail(const struct sst_stp *st)
{
	return st->detail;
}

const uint8_t *
sst_stp_hash(const struct sst_stp *st)
{
	return st->hash;
}

const char *
sst_stp_reason_name(enum sst_stp_reason r)
{
	static const char *const names[] = {
		[SST_STP_NO_POLICY] = "policy",
		[SST_STP_NO_HASH] = "hash",
		[SST_STP_NO_INVALID] = "invalid",
		[SST_STP_NO_TOO_LARGE] = "too-large",
		[SST_STP_NO_FAILED] = "failed",
		[SST_STP_NO_PROTOCOL] = "protocol",
	};

	if ((unsigned int)r < RTE_DIM(names) && names[r] != NULL)
		return names[r];
	return r == 0 ? "none" : "unknown";
}

bool
sst_stp_code_shipped(const struct sst_stp *st)
{
	return st->shipped;
}

bool
sst_stp_code_received(const struct sst_stp *st)
{
	return st->code_received;
}

void
sst_stp_counters(struct sst_stp_counters *c)
{
	c->requested = atomic_load_explicit(&stp_counters.requested, memory_order_relaxed);
	c->shipped = atomic_load_explicit(&stp_counters.shipped, memory_order_relaxed);
	c->accepted = atomic_load_explicit(&stp_counters.accepted, memory_order_relaxed);
	c->refused = atomic_load_explicit(&stp_counters.refused, memory_order_relaxed);
	c->used = atomic_load_explicit(&stp_counters.used, memory_order_relaxed);
	c->cached = atomic_load_explicit(&stp_counters.cached, memory_order_relaxed);
	c->denied = atomic_load_explicit(&stp_counters.denied, memory_order_relaxed);
	c->failed = atomic_load_explicit(&stp_counters.failed, memory_order_relaxed);
}

static int
stp_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct sst_stp_counters c;

	(void)cmd;
	(void)params;
	sst_stp_counters(&c);
	const struct sst_tel_u64 rows[] = {
		{"requested", c.requested},
		{"shipped", c.shipped},
		{"accepted", c.accepted},
		{"refused", c.refused},
		{"used", c.used},
		{"cached", c.cached},
		{"denied", c.denied},
		{"failed", c.failed},
	};

	rte_tel_data_start_dict(d);
	return sst_tel_dict_u64(d, rows, RTE_DIM(rows));
}

RTE_INIT(stp_telemetry_register)
{
	rte_telemetry_register_cmd("/sst/stp", stp_telemetry,
		"Module exchanges of this process (requested, shipped, accepted, refused, used, "
		"cached, denied, failed). No parameters");
}

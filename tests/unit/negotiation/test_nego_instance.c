/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host instances and restart detection (docs/negotiation.md section 3.1):
 * the version 1 and 2 ulp blobs and their compatibility with each other
 * and with legacy peers; every result reports the peer's instance; a host that comes back
 * at the same address with another instance while channels of the earlier
 * one are held is reported as restarted, on either side, in both modes,
 * and only then: not for a second channel of the same instance, not after
 * the earlier channels were released, not for a peer without an instance
 * (unless its checksum key shows another secret), an anonymous initiator
 * or another identity. A forged instance restarts a
 * checksum-mode peer (checksum mode authenticates nothing) but cannot
 * complete a secure handshake.
 */
#include <errno.h>
#include <string.h>

#include "nego_pair.h"

#define SEC (SST_NSEC_PER_SEC)

static struct tp_side C, S;

/* Version 1 (an older SST-DPDK host's blob) and legacy peers. */
static void
test_ulp_v1(void)
{
	uint8_t buf[32];
	struct sst_nego_ulp u;

	CU_ASSERT_TRUE(sst_nego_ulp_encode(1, SST_NEGO_CAP_ALL, buf, sizeof(buf)) == 12 &&
		       sst_nego_ulp_encode(1, 0, buf, 11) == -ENOSPC);
	sst_nego_ulp_encode(1, SST_NEGO_CAP_RESET | SST_NEGO_CAP_FLOWCTL, buf, sizeof(buf));
	sst_nego_ulp_decode(buf, 12, &u);
	CU_ASSERT_TRUE(u.extended && u.version == 1 &&
		       u.caps == (SST_NEGO_CAP_RESET | SST_NEGO_CAP_FLOWCTL));
	CU_ASSERT_EQUAL(memcmp(buf, "\x53\x53\x54\x44\0\0\0\x01\0\0\0\x09", 12), 0);
	/* A later version with more fields: the known prefix counts. */
	sst_nego_ulp_encode(2, 0x80000001, buf, sizeof(buf));
	memset(buf + 12, 0xab, 8);
	sst_nego_ulp_decode(buf, 20, &u);
	CU_ASSERT_TRUE(u.extended && u.version == 2 && u.caps == 0x80000001);
	/* Legacy: empty, short, other magic, version 0. */
	sst_nego_ulp_decode(NULL, 0, &u);
	CU_ASSERT_FALSE(u.extended);
	sst_nego_ulp_decode(buf, 11, &u);
	CU_ASSERT_FALSE(u.extended);
	buf[0] ^= 1;
	sst_nego_ulp_decode(buf, 12, &u);
	CU_ASSERT_FALSE(u.extended || u.caps || u.version);
	sst_nego_ulp_encode(0, 7, buf, sizeof(buf));
	sst_nego_ulp_decode(buf, 12, &u);
	CU_ASSERT_FALSE(u.extended || u.caps);
}

/* The version 2 blob, byte for byte, and what each reader makes of it. */
static void
test_ulp_v2(void)
{
	static const uint8_t v2[20] = {0x53, 0x53, 0x54, 0x44, 0, 0, 0, 2, 0, 0, 0, 0x0f, 0x01,
		0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
	uint8_t buf[32];
	struct sst_nego_ulp u;

	CU_ASSERT_EQUAL(
		sst_nego_ulp_encode_instance(2, 0xf, 0x0123456789abcdef, buf, sizeof(buf)), 20);
	CU_ASSERT_EQUAL(memcmp(buf, v2, sizeof(v2)), 0);
	CU_ASSERT_EQUAL(sst_nego_ulp_encode_instance(2, 0xf, 1, buf, 19), -ENOSPC);
	sst_nego_ulp_decode(v2, sizeof(v2), &u);
	CU_ASSERT_TRUE(u.extended && u.version == 2 && u.caps == 0xf);
	CU_ASSERT_TRUE(u.has_instance && u.instance == 0x0123456789abcdef);
	/* A version 1 blob (an older SST-DPDK host): capabilities, no instance. */
	CU_ASSERT_EQUAL(sst_nego_ulp_encode_instance(1, 0x5, 77, buf, sizeof(buf)), 12);
	sst_nego_ulp_decode(buf, 12, &u);
	CU_ASSERT_TRUE(u.extended && u.version == 1 && u.caps == 0x5 && !u.has_instance);
	/* Version 1 with bytes after it: still no instance (they are not its). */
	memcpy(buf + 12, v2 + 12, 8);
	sst_nego_ulp_decode(buf, 20, &u);
	CU_ASSERT_TRUE(u.extended && !u.has_instance && u.instance == 0);
	/* Version 2 cut short, or with instance 0: no instance. */
	sst_nego_ulp_decode(v2, 16, &u);
	CU_ASSERT_TRUE(u.extended && u.version == 2 && !u.has_instance);
	sst_nego_ulp_encode(2, 0, buf, sizeof(buf));
	sst_nego_ulp_decode(buf, 20, &u);
	CU_ASSERT_TRUE(u.extended && !u.has_instance);
	/* A later version appends: the instance is still read. */
	memcpy(buf, v2, sizeof(v2));
	buf[7] = 3;
	memset(buf + 20, 0x99, 8);
	sst_nego_ulp_decode(buf, 28, &u);
	CU_ASSERT_TRUE(u.version == 3 && u.has_instance && u.instance == 0x0123456789abcdef);
	/* A version 1 reader's view of our blob is its first 12 bytes. */
	sst_nego_ulp_decode(v2, 12, &u);
	CU_ASSERT_TRUE(u.extended && u.caps == 0xf && !u.has_instance);
}

static void
pair_init(bool secure)
{
	tp_init(&C, 0x10, 0x0a000001, secure);
	tp_init(&S, 0x30, 0x0a000002, secure);
	tp_pin(&C, &S);
}

static void
pair_fini(void)
{
	tp_fini(&C);
	tp_fini(&S);
}

/* One negotiation C -> S at now, to completion; @return S's result count. */
static void
negotiate(enum sst_nego_mode mode, sst_time_t now)
{
	unsigned int c = C.established, s = S.established;

	CU_ASSERT_TRUE_FATAL(sst_nego_connect(C.h, &S.self, mode, now) > 0);
	for (int k = 0; k < 3; k++) {
		tp_deliver(&C, &S, now);
		tp_deliver(&S, &C, now);
	}
	CU_ASSERT_EQUAL_FATAL(C.established, c + 1);
	CU_ASSERT_EQUAL_FATAL(S.established, s + 1);
}

static const struct sst_nego_result *
last(const struct tp_side *s)
{
	return &s->res[(s->established - 1) % TP_NRES];
}

/* A process restart: the host goes, the application's numbers too. */
static void
restart(struct tp_side *s, uint64_t instance)
{
	tp_stop(s);
	memset(&s->chans, 0, sizeof(s->chans));
	s->p.instance = instance;
	tp_start(s);
}

/* Our instance: fixed by the parameter, else drawn; results carry it. */
static void
test_instance_reported(void)
{
	for (int secure = 0; secure < 2; secure++) {
		enum sst_nego_mode mode = secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;

		pair_init(secure);
		C.p.instance = 0xc0ffee;
		tp_start(&C);
		tp_start(&S);
		CU_ASSERT_EQUAL(sst_nego_instance(C.h), 0xc0ffee);
		CU_ASSERT_TRUE(sst_nego_instance(S.h) != 0 && sst_nego_instance(S.h) != 0xc0ffee);
		negotiate(mode, 0);
		CU_ASSERT_TRUE(
			last(&S)->peer_instance_known && last(&S)->peer_instance == 0xc0ffee);
		CU_ASSERT_TRUE(last(&S)->peer_ulp.has_instance && last(&S)->peer_ulp.version == 2);
		CU_ASSERT_TRUE(last(&C)->peer_instance_known &&
			       last(&C)->peer_instance == sst_nego_instance(S.h));
		CU_ASSERT_FALSE(last(&C)->peer_restarted || last(&S)->peer_restarted);
		pair_fini();
	}
	/* Drawn: from the random source in secure mode (two draws differ),
	 * from the secret without one (two secrets differ). */
	pair_init(true);
	tp_start(&C);
	tp_stop(&C);
	{
		uint64_t first;

		tp_start(&C);
		first = sst_nego_instance(C.h);
		tp_stop(&C);
		tp_start(&C);
		CU_ASSERT_NOT_EQUAL(sst_nego_instance(C.h), first);
	}
	pair_fini();
	pair_init(false);
	tp_start(&C);
	tp_start(&S);
	CU_ASSERT_NOT_EQUAL(sst_nego_instance(C.h), sst_nego_instance(S.h));
	pair_fini();
}

/* The initiator restarts at the same address: the responder reports it on
 * the new channel, once; a second channel of the new instance is not a
 * restart. Then the responder restarts and the initiator reports it. */
static void
test_restart(void)
{
	for (int secure = 0; secure < 2; secure++) {
		enum sst_nego_mode mode = secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;
		const struct sst_nego_result *r;

		pair_init(secure);
		C.p.instance = 0x1111;
		S.p.instance = 0x5555;
		tp_start(&C);
		tp_start(&S);
		negotiate(mode, 0);
		negotiate(mode, 0);
		CU_ASSERT_FALSE(last(&S)->peer_restarted);
		/* C restarts at 30 s (after the 20 s during which its reused
		 * chani would be taken for a stray) without S releasing. */
		restart(&C, 0x2222);
		negotiate(mode, 30 * SEC);
		r = last(&S);
		CU_ASSERT_TRUE(r->peer_restarted && r->peer_instance == 0x2222);
		CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 1);
		CU_ASSERT_FALSE(last(&C)->peer_restarted); /* S did not restart */
		negotiate(mode, 31 * SEC);
		CU_ASSERT_FALSE(last(&S)->peer_restarted);
		/* The stale channels' release changes nothing now. */
		CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, S.res[0].local_channel, 1), -ENOENT);
		negotiate(mode, 32 * SEC);
		CU_ASSERT_FALSE(last(&S)->peer_restarted);
		/* S restarts; C still holds its three channels with it. */
		restart(&S, 0x6666);
		negotiate(mode, 60 * SEC);
		CU_ASSERT_TRUE(last(&C)->peer_restarted && last(&C)->peer_instance == 0x6666);
		CU_ASSERT_FALSE(last(&S)->peer_restarted);
		CU_ASSERT_EQUAL(sst_nego_stats(C.h)->peer_restarts, 1);
		pair_fini();
	}
}

/* Released channels do not count: a new instance after every channel of the
 * old one ended is no restart. In checksum mode a new instance of a peer
 * with live channels replaces its entry at once, even within the 20 s in
 * which a reused chani is otherwise refused (the prototype's rule, which
 * still holds for the same instance and for a peer without channels). */
static void
test_release_and_timing(void)
{
	pair_init(false);
	C.p.instance = 1;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, last(&S)->local_channel, 1), 0);
	/* C's side: an initiator's channel has no entry, but is released. */
	CU_ASSERT_EQUAL(sst_nego_release(C.h, &S.self, last(&C)->local_channel, 1), -ENOENT);
	restart(&C, 2);
	negotiate(SST_NEGO_MODE_CHECKSUM, SEC);
	CU_ASSERT_FALSE(last(&S)->peer_restarted);
	/* A restart within 20 s of S's entry: replaces it at once. */
	restart(&C, 3);
	negotiate(SST_NEGO_MODE_CHECKSUM, 2 * SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_i1_conflict, 0);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 3);
	/* The same instance with another key within 20 s: a stray. */
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 3 * SEC) > 0);
	C.out[0].b[19] ^= 1;			  /* cki */
	C.out[0].b[23] = last(&C)->local_channel; /* chani of the live channel */
	tp_deliver(&C, &S, 3 * SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_i1_conflict, 1);
	/* Without a record of live channels (here the entry is a channel of
	 * a peer that sent no instance), the rule holds for a new instance. */
	CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, last(&S)->local_channel, 1), 0);
	C.p.ulp_legacy = true;
	restart(&C, 4);
	negotiate(SST_NEGO_MODE_CHECKSUM, 5 * SEC);
	C.p.ulp_legacy = false;
	restart(&C, 5);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 6 * SEC) > 0);
	tp_deliver(&C, &S, 6 * SEC);
	CU_ASSERT_TRUE(S.established == 4 && sst_nego_stats(S.h)->rx_i1_conflict == 2);
	pair_fini();
}

/* A late message of the process that restarted (sent before it died,
 * delayed in the network) must not look like a restart back to it: it would
 * make the caller drop the new process's channels. Checksum mode: a ChkI1
 * for another chani, and a retransmission for the chani the new instance
 * took over. Secure mode: a SecI2 that completes a handshake begun before
 * the restart. Such channels are reported as peer_stale, neither a restart
 * nor recorded, and a stale instance does not replace an entry. */
static void
test_straggler(void)
{
	struct tp_msg late_other, late_same;

	pair_init(false);
	C.p.instance = 1;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, SEC) > 0);
	late_other = C.out[0]; /* chani 2, held in the network */
	C.nout = 0;
	restart(&C, 2);
	negotiate(SST_NEGO_MODE_CHECKSUM, 2 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 2);
	/* Instance 1's ChkI1 for chani 2 arrives: a channel, but stale. */
	sst_nego_receive(S.h, &C.self, late_other.b, late_other.len, 3 * SEC);
	CU_ASSERT_EQUAL_FATAL(S.established, 3);
	CU_ASSERT_TRUE(last(&S)->peer_stale && !last(&S)->peer_restarted);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_stale, 1);
	/* Instance 1's ChkI1 for chani 1 (instance 2 holds it): a stray. */
	late_same = late_other;
	late_same.b[23] = 1;
	sst_nego_receive(S.h, &C.self, late_same.b, late_same.len, 3 * SEC);
	CU_ASSERT_TRUE(S.established == 3 && sst_nego_stats(S.h)->rx_i1_conflict == 1);
	/* Instance 2 is still the one recorded: its next channel (chani 2,
	 * after the stale entry's 20 s) is normal. */
	negotiate(SST_NEGO_MODE_CHECKSUM, 24 * SEC);
	CU_ASSERT_FALSE(last(&S)->peer_restarted || last(&S)->peer_stale);
	pair_fini();

	pair_init(true);
	C.p.instance = 1;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_SECURE, 0);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, SEC) > 0);
	tp_deliver(&C, &S, SEC);
	tp_deliver(&S, &C, SEC);
	late_other = C.out[0]; /* the SecI2, held */
	C.nout = 0;
	CU_ASSERT_EQUAL(tp_type(&late_other), SST_NEGO_SECI2);
	restart(&C, 2);
	negotiate(SST_NEGO_MODE_SECURE, 30 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 2);
	sst_nego_receive(S.h, &C.self, late_other.b, late_other.len, 31 * SEC);
	CU_ASSERT_EQUAL_FATAL(S.established, 3);
	CU_ASSERT_TRUE(last(&S)->peer_stale && !last(&S)->peer_restarted);
	negotiate(SST_NEGO_MODE_SECURE, 32 * SEC);
	CU_ASSERT_FALSE(last(&S)->peer_restarted || last(&S)->peer_stale);
	/* A real restart after that: instance 3, then 1 is not stale any
	 * more than any other instance (only the last replaced one is). */
	restart(&C, 3);
	negotiate(SST_NEGO_MODE_SECURE, 60 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 3);
	pair_fini();
}

/* Peers without an instance: legacy (no blob), an older SST-DPDK host
 * (version 1 blob): known false, no restart by instance (the same secret
 * keeps the same keys: test_legacy_key), and they leave the record of the
 * address alone. */
static void
test_without_instance(void)
{
	pair_init(false);
	C.p.instance = 7;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	restart(&C, 8);
	tp_stop(&C);
	C.p.ulp_legacy = true;
	tp_start(&C);
	negotiate(SST_NEGO_MODE_CHECKSUM, 30 * SEC);
	CU_ASSERT_FALSE(last(&S)->peer_instance_known || last(&S)->peer_restarted);
	CU_ASSERT_FALSE(last(&S)->peer_ulp.extended);
	tp_stop(&C);
	C.p.ulp_legacy = false;
	C.p.ulp_version = 1;
	tp_start(&C);
	negotiate(SST_NEGO_MODE_CHECKSUM, 31 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_ulp.extended && last(&S)->peer_ulp.version == 1);
	CU_ASSERT_FALSE(last(&S)->peer_instance_known || last(&S)->peer_restarted);
	/* Instance 7's channel is still held: instance 9 is a restart. */
	C.p.ulp_version = 0;
	restart(&C, 9);
	negotiate(SST_NEGO_MODE_CHECKSUM, 61 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 9);
	pair_fini();
}

/* A ChkI1 as the 2007 prototype sends it (no ulp blob), from C to S. */
static void
legacy_i1(uint32_t cki, uint8_t chani, sst_time_t now)
{
	struct sst_nego_chki1 i1 = {.cki = cki, .chani = chani};
	struct sst_nego_builder b;
	uint8_t buf[64];

	CU_ASSERT_EQUAL_FATAL(sst_nego_build_begin(&b, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_build_chki1(&b, &i1), 0);
	CU_ASSERT_EQUAL(sst_nego_receive(S.h, &C.self, buf, sst_nego_build_end(&b), now), 0);
}

/*
 * Issue 15, finding 7(d): a peer without an instance (the 2007 prototype)
 * that comes back with a chani we hold is not made to wait 20 s. Its key
 * is a hash under its secret plus its clock in 4-us units, so a key that
 * moved with the clock is the same host's next channel with that number
 * (taken at once, no restart), a key behind the one held is a straggler,
 * and any other key comes from another secret: a restart, taken at once
 * and reported. The keys a restart or a reuse replaced stay stragglers,
 * whatever they say.
 */
static void
test_legacy_key(void)
{
	const uint32_t k1 = 0x10000000;
	const uint32_t k_reuse = k1 + 2 * 250000; /* 2 s later on the same clock */

	pair_init(false);
	tp_start(&S);
	legacy_i1(k1, 1, 1 * SEC);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	CU_ASSERT_FALSE(last(&S)->peer_restarted || last(&S)->peer_ulp.extended);
	/* An older key of the same clock: a straggler. */
	legacy_i1(k1 - 100, 1, 2 * SEC);
	CU_ASSERT_TRUE(S.established == 1 && sst_nego_stats(S.h)->rx_i1_conflict == 1);
	/* The same host's next channel numbered 1, 2 s later: at once. */
	legacy_i1(k_reuse, 1, 3 * SEC);
	CU_ASSERT_EQUAL_FATAL(S.established, 2);
	CU_ASSERT_FALSE(last(&S)->peer_restarted);
	CU_ASSERT_NOT_EQUAL(S.res[1].local_channel, S.res[0].local_channel);
	/* A late copy of the key it replaced. */
	legacy_i1(k1, 1, 4 * SEC);
	CU_ASSERT_TRUE(S.established == 2 && sst_nego_stats(S.h)->rx_i1_conflict == 2);
	/* A restart: another secret, its first channel numbered 1 again. */
	legacy_i1(k1 ^ 0x80000000, 1, 5 * SEC);
	CU_ASSERT_EQUAL_FATAL(S.established, 3);
	CU_ASSERT_TRUE(last(&S)->peer_restarted);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 1);
	CU_ASSERT_EQUAL(S.nout, 3); /* a ChkR1 for each channel */
	/* The dead instance's last key, late: not a restart back to it. */
	legacy_i1(k_reuse, 1, 6 * SEC);
	CU_ASSERT_TRUE(S.established == 3 && sst_nego_stats(S.h)->rx_i1_conflict == 3);
	pair_fini();
}

/*
 * What a legacy peer means for the channel (sst_nego_channel_params()):
 * toward a peer without an SST-DPDK blob (it may be the 2007 prototype,
 * whose acknowledgments freeze past 65,535 packets of a channel,
 * wire-format.md 9.4) the channel stops numbering there, so that it is
 * replaced before; a host posing as the prototype gets channels that
 * acknowledge as its do; between SST-DPDK hosts nothing changes.
 */
static void
test_legacy_channel_params(void)
{
	struct sst_channel_params cp;

	pair_init(false);
	C.p.ulp_legacy = true;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_channel_params(last(&S), &cp), 0);
	CU_ASSERT_TRUE(cp.packet_limit == SST_CHANNEL_PROTOTYPE_SEQ_MAX + 1 && !cp.prototype_acks);
	CU_ASSERT_EQUAL_FATAL(sst_nego_channel_params(last(&C), &cp), 0);
	CU_ASSERT_TRUE(last(&C)->local_legacy && cp.prototype_acks && cp.packet_limit == 0);
	tp_stop(&C);
	C.p.ulp_legacy = false;
	tp_start(&C);
	negotiate(SST_NEGO_MODE_CHECKSUM, SEC);
	CU_ASSERT_EQUAL_FATAL(sst_nego_channel_params(last(&S), &cp), 0);
	CU_ASSERT_TRUE(cp.packet_limit == 0 && !cp.prototype_acks && !last(&S)->local_legacy);
	pair_fini();
}

/* Replace the 8 instance bytes of our blob in a message (they follow the
 * blob's magic, version 2 and capabilities). */
static bool
forge_instance(struct tp_msg *m, uint64_t instance)
{
	static const uint8_t head[8] = {0x53, 0x53, 0x54, 0x44, 0, 0, 0, 2};

	for (size_t k = 0; k + 20 <= m->len; k++) {
		if (memcmp(m->b + k, head, sizeof(head)) != 0)
			continue;
		for (int i = 0; i < 8; i++)
			m->b[k + 12 + i] = (uint8_t)(instance >> (56 - 8 * i));
		return true;
	}
	return false;
}

/* Checksum mode: anyone who can send from C's address can claim a restart
 * (documented). Secure mode: a changed instance in SecI1 breaks the
 * transcript, nothing is established, nothing reported. */
static void
test_forged(void)
{
	struct tp_msg m;

	pair_init(false);
	C.p.instance = 0x1234;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, SEC) > 0);
	m = C.out[0];
	C.nout = 0;
	CU_ASSERT_FATAL(forge_instance(&m, 0x6666));
	sst_nego_receive(S.h, &C.self, m.b, m.len, SEC);
	CU_ASSERT_TRUE(S.established == 2 && last(&S)->peer_restarted);
	pair_fini();

	pair_init(true);
	C.p.instance = 0x1234;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_SECURE, 0);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, SEC) > 0);
	m = C.out[0];
	C.nout = 0;
	CU_ASSERT_FATAL(forge_instance(&m, 0x6666));
	sst_nego_receive(S.h, &C.self, m.b, m.len, SEC);
	CU_ASSERT_EQUAL(S.nout, 1); /* SecR1 (SecI1 is not authenticated) */
	tp_deliver(&S, &C, SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_r1_bad, 1);
	CU_ASSERT_TRUE(C.nout == 0 && C.established == 1 && S.established == 1);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 0);
	/* The forged half-open entry expires; C's next channel is no
	 * restart. */
	sst_nego_handle_expiry(C.h, 21 * SEC);
	sst_nego_handle_expiry(S.h, 41 * SEC);
	C.nout = 0;
	negotiate(SST_NEGO_MODE_SECURE, 42 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_instance == 0x1234 && !last(&S)->peer_restarted);
	pair_fini();
}

/* Secure mode binds the record to the identity: an anonymous initiator is
 * never recorded or reported, another identity at the same address is not
 * a restart of the first. A full record table leaves channels untracked. */
static void
test_principals(void)
{
	struct sst_secure_identity other;

	pair_init(true);
	S.cfg.allow_anonymous = true;
	S.cfg.policy = SST_SECURE_TOFU; /* for the other identity below, */
	S.peer_name = NULL;		/* looked up by key, not by name */
	C.p.instance = 1;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_SECURE, 0);
	/* Anonymous, new instance: not a restart. */
	C.cfg.identity = NULL;
	restart(&C, 2);
	negotiate(SST_NEGO_MODE_SECURE, 30 * SEC);
	CU_ASSERT_EQUAL(last(&S)->peer_status, SST_SECURE_PEER_ANONYMOUS);
	CU_ASSERT_TRUE(last(&S)->peer_instance_known && !last(&S)->peer_restarted);
	/* Another identity (TOFU at S), new instance: not a restart. */
	tp_identity(0x70, &other);
	C.cfg.identity = &other;
	restart(&C, 3);
	negotiate(SST_NEGO_MODE_SECURE, 60 * SEC);
	CU_ASSERT_EQUAL(last(&S)->peer_status, SST_SECURE_PEER_NEW);
	CU_ASSERT_FALSE(last(&S)->peer_restarted);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_untracked, 1);
	/* The first identity again with a new instance: a restart. */
	C.cfg.identity = &C.id;
	restart(&C, 4);
	negotiate(SST_NEGO_MODE_SECURE, 90 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 4);
	sst_secure_identity_wipe(&other);
	pair_fini();

	/* One record: a second peer address is not tracked. */
	pair_init(false);
	S.p.max_peer_records = 1;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	C.self = tp_addr(0x0a000003, 4000);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_untracked, 1);
	/* Releasing the first frees its record for the second address. */
	CU_ASSERT_EQUAL(sst_nego_release(
				S.h, &S.res[0].peer, S.res[0].local_channel, S.res[0].peer_channel),
		0);
	negotiate(SST_NEGO_MODE_CHECKSUM, SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_untracked, 1);
	restart(&C, 0x77);
	negotiate(SST_NEGO_MODE_CHECKSUM, 30 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted);
	pair_fini();
}

/* established() of a restarted channel may release the stale channels
 * itself: the new channel is still recorded. */
static uint8_t stale_chan;

static int
release_stale(struct tp_side *s, const struct sst_nego_result *r, sst_time_t now)
{
	(void)now;
	if (r->peer_restarted)
		CU_ASSERT_EQUAL(sst_nego_release(s->h, &r->peer, stale_chan, 1), -ENOENT);
	return 0;
}

/* A refused channel is not recorded (the restart is reported again for the
 * next one) and not counted; a callback may release the stale channels. */
static void
test_refused(void)
{
	struct tp_msg late;

	pair_init(false);
	C.p.instance = 1;
	tp_start(&C);
	tp_start(&S);
	negotiate(SST_NEGO_MODE_CHECKSUM, 0);
	restart(&C, 2);
	S.refuse = -EPERM;
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 30 * SEC) > 0);
	tp_deliver(&C, &S, 30 * SEC);
	CU_ASSERT_TRUE(S.established == 2 && last(&S)->peer_restarted);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 0);
	S.refuse = 0;
	sst_nego_handle_expiry(C.h, 30 * SEC + SST_NEGO_RETX_INITIAL);
	tp_deliver(&C, &S, 30 * SEC + SST_NEGO_RETX_INITIAL);
	CU_ASSERT_TRUE(S.established == 3 && last(&S)->peer_restarted);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 1);
	/* Another restart; the callback releases the stale channel (the
	 * record empties), and a late ChkI1 of the replaced instance is
	 * still recognised as stale. */
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 59 * SEC) > 0);
	late = C.out[0];
	C.nout = 0;
	stale_chan = last(&S)->local_channel;
	S.on_established = release_stale;
	restart(&C, 3);
	negotiate(SST_NEGO_MODE_CHECKSUM, 60 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 3);
	S.on_established = NULL;
	sst_nego_receive(S.h, &C.self, late.b, late.len, 61 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_stale && !last(&S)->peer_restarted);
	negotiate(SST_NEGO_MODE_CHECKSUM, 82 * SEC);
	CU_ASSERT_FALSE(last(&S)->peer_restarted || last(&S)->peer_stale);
	restart(&C, 4);
	negotiate(SST_NEGO_MODE_CHECKSUM, 90 * SEC);
	CU_ASSERT_TRUE(last(&S)->peer_restarted && last(&S)->peer_instance == 4);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 3);
	pair_fini();
}

/* A new process at the same address reuses chani 1 within seconds of the
 * responder's entry for its predecessor's channel, in either mode and
 * switching modes (tests/system/cat_veth.sh: a secure client 3 s after a
 * checksum one from the same port got no answer for 20 s: its SecI1
 * copies at 0 to 15.5 s all fell within the entry's 20 s). An entry whose
 * handshake is over gives way to another instance's I1 at once; a
 * handshake still half-open, and the same instance with another nonce,
 * keep the 20 s rule. */
static void
test_new_instance_within_20s(void)
{
	static const enum sst_nego_mode modes[] = {SST_NEGO_MODE_SECURE, SST_NEGO_MODE_SECURE,
		SST_NEGO_MODE_CHECKSUM, SST_NEGO_MODE_SECURE, SST_NEGO_MODE_CHECKSUM};
	const struct sst_nego_stats *st;

	pair_init(true);
	C.p.instance = 1;
	tp_start(&C);
	tp_start(&S);
	st = sst_nego_stats(S.h);
	for (unsigned int k = 0; k < RTE_DIM(modes); k++) {
		if (k > 0)
			restart(&C, 1 + k);
		negotiate(modes[k], k * 2 * SEC);
		CU_ASSERT_EQUAL(last(&C)->local_channel, 1);
		CU_ASSERT_TRUE(st->rx_i1_conflict == 0 && st->rx_sec_i1_conflict == 0);
		/* Each secure channel after the first: a restart of the
		 * identity (checksum channels are another principal). */
		CU_ASSERT_EQUAL(last(&S)->peer_restarted, k == 1 || k == 3);
	}
	/* The same instance again (a host that comes back with its instance
	 * fixed by configuration): another nonce on a held number, a stray. */
	restart(&C, 5);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 11 * SEC) > 0);
	tp_deliver(&C, &S, 11 * SEC);
	CU_ASSERT_TRUE(S.nout == 0 && st->rx_sec_i1_conflict == 1);
	/* A half-open handshake: another instance's SecI1 may not end it. */
	restart(&C, 6);
	C.self = tp_addr(0x0a000009, 4000);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 12 * SEC) > 0);
	tp_deliver(&C, &S, 12 * SEC);
	CU_ASSERT_EQUAL(S.nout, 1); /* SecR1, held */
	S.nout = 0;
	restart(&C, 7);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 13 * SEC) > 0);
	tp_deliver(&C, &S, 13 * SEC);
	CU_ASSERT_TRUE(S.nout == 0 && st->rx_sec_i1_conflict == 2);
	restart(&C, 8);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 14 * SEC) > 0);
	tp_deliver(&C, &S, 14 * SEC);
	CU_ASSERT_TRUE(S.nout == 0 && st->rx_i1_conflict == 1);
	pair_fini();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ulp_v1),
	SST_TEST(test_ulp_v2),
	SST_TEST(test_instance_reported),
	SST_TEST(test_restart),
	SST_TEST(test_release_and_timing),
	SST_TEST(test_straggler),
	SST_TEST(test_without_instance),
	SST_TEST(test_legacy_key),
	SST_TEST(test_legacy_channel_params),
	SST_TEST(test_forged),
	SST_TEST(test_principals),
	SST_TEST(test_refused),
	SST_TEST(test_new_instance_within_20s),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_instance", cases)

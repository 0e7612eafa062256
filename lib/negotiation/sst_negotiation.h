/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Channel negotiation (paper 4.4, docs/negotiation.md): the control
 * exchange that gives two hosts a channel: channel numbers, armor suite and
 * keys, half-channel IDs, and what each side's upper layer can do.
 *
 * A negotiation host (struct sst_nego_host) is a sans-IO state machine for
 * one local endpoint (one UDP port): it never reads a clock and never
 * touches a socket. Control messages come in through sst_nego_receive()
 * with the time and the sender's address; messages go out through the
 * transmit callback; timers are sst_nego_next_expiry() plus
 * sst_nego_handle_expiry(). When a channel is ready, on either side, the
 * established callback gets a struct sst_nego_result, which
 * sst_nego_channel_params() turns into channel parameters. The host never
 * allocates after setup. One host belongs to one thread.
 *
 * Modes: checksum mode (ChkI1/ChkR1, prototype-compatible, no
 * authentication) and secure mode (SecI1/SecR1/SecI2, docs/secure-mode.md,
 * through the sans-IO handshake core of lib/negotiation; sst_secure.h
 * configures it). A responder goes under load by
 * itself when its half-open entries pass a threshold (and leaves it with
 * hysteresis); under load it answers a SecI1, and the ChkI1 of an SST-DPDK
 * initiator, with a stateless cookie challenge, drops the ChkI1 of a legacy
 * one, and rate-limits cookie-proven setups per source in bounded memory. It
 * never sends an unvalidated address more than 3x the bytes it received
 * from it (docs/negotiation.md section 5).
 *
 * Every host has a random 64-bit instance identifier that it advertises in
 * its ulp blob; a host that sees a peer address come back with another
 * instance while channels of the earlier one are still held reports
 * peer_restarted (docs/negotiation.md section 3.1). A multi-worker engine
 * gives each worker's host a steering tag, which the initiator embeds in
 * what the responder echoes, so that sst_nego_steer_tag() can route an
 * answer to the worker that initiated (section 8).
 */
#ifndef SST_NEGOTIATION_H
#define SST_NEGOTIATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_channel.h"
#include "sst_crypto_driver.h"
#include "sst_secure.h"
#include "sst_time.h"
#include "sst_usid.h"

struct sst_nego_host;

enum {
	SST_NEGO_ADDR_MAX = 28,	   /**< bytes of an opaque peer address (IPv6 + port + spare) */
	SST_NEGO_SECRET_LEN = 32,  /**< bytes of the host secret */
	SST_NEGO_HCID_CHK_LEN = 8, /**< half-channel ID after checksum negotiation */
	SST_NEGO_ULP_MAGIC = 0x53535444, /**< "SSTD": an SST-DPDK ulp blob */
	SST_NEGO_ULP_VERSION = 2,	 /**< version of the blob we write */
	SST_NEGO_ULP_V1_LEN = 12,	 /**< bytes of a version 1 blob (magic, version, caps) */
	SST_NEGO_ULP_LEN = 20,		 /**< bytes of a version 2 blob (+ instance) */
	SST_NEGO_DEFAULT_MAX_INITIATING = 64,	/**< default max_initiating */
	SST_NEGO_DEFAULT_MAX_RESPONDING = 1024, /**< default max_responding */
	SST_NEGO_MAX_ENTRIES = 1 << 20,		/**< bound on max_initiating + max_responding */
	SST_NEGO_HCID_SEC_LEN = SST_SECURE_HCID_LEN, /**< half-channel ID, secure mode */
	SST_NEGO_DEFAULT_RATE = 20,	    /**< setups per second per source, under load */
	SST_NEGO_DEFAULT_BURST = 5,	    /**< ... and in a burst (WireGuard's figures) */
	SST_NEGO_DEFAULT_RATE_SLOTS = 1024, /**< sources tracked at once */
	SST_NEGO_RATE_SLOTS_MAX = 1 << 20,  /**< bound on rate_slots */
	SST_NEGO_AMP_FACTOR = 3,	    /**< bytes to an unvalidated address <= 3x received */
	SST_NEGO_COOKIES_MAX = 4,	    /**< cookie requests answered per attempt */
	SST_NEGO_COOKIE_LEN = 16,	    /**< the cookies we make (both modes) */
	/** The default load_high is max_responding / 2, but at least this
	 * (or max_responding, if smaller). */
	SST_NEGO_LOAD_HIGH_MIN = 16,
	SST_NEGO_STEER_BITS_MAX = 6, /**< bits of a steering tag */
	/** Default bound on a SecI2 message carrying a Packet chunk: the IPv6
	 * minimum MTU (1280) less the IPv6 and UDP headers. */
	SST_NEGO_EARLY_MAX_DEFAULT = 1232,
};

/** Retransmission schedule of an initiator (the prototype's, wire-format.md 6.5). */
#define SST_NEGO_RETX_INITIAL (500 * SST_NSEC_PER_MSEC) /**< first retransmission */
#define SST_NEGO_RETX_MAX (60 * SST_NSEC_PER_SEC)	/**< interval cap (doubling) */
#define SST_NEGO_FAIL_AFTER (20 * SST_NSEC_PER_SEC)	/**< an attempt fails after this */
/** An R0 ping does not make an attempt resend if it sent within this time. */
#define SST_NEGO_PING_HOLDOFF (100 * SST_NSEC_PER_MSEC)
/** A responder's secure half-open entry lives this long (an initiator sends
 * SecI1 for up to 20 s, then SecI2 for up to 20 s after SecR1). */
#define SST_NEGO_HALF_OPEN_TTL (2 * SST_NEGO_FAIL_AFTER)
/** Default rotation period of the cookie secret (a cookie lives 1-2 periods). */
#define SST_NEGO_COOKIE_PERIOD (120 * SST_NSEC_PER_SEC)

/** Capability bits of the ulp blob (docs/negotiation.md). */
enum sst_nego_cap {
	SST_NEGO_CAP_RESET = 1u << 0,	   /**< understands Reset (prototype aborts) */
	SST_NEGO_CAP_DETACH = 1u << 1,	   /**< understands Detach (prototype aborts) */
	SST_NEGO_CAP_DGRAM_FRAG = 1u << 2, /**< reassembles multi-fragment datagrams */
	SST_NEGO_CAP_FLOWCTL = 1u << 3,	   /**< enforces the receive window */
	SST_NEGO_CAP_ALL = 0xf,		   /**< every capability defined so far */
};

/** Negotiation modes. */
enum sst_nego_mode {
	SST_NEGO_MODE_CHECKSUM = 1, /**< ChkI1/ChkR1, Chk32 armor (prototype-compatible) */
	SST_NEGO_MODE_SECURE,	    /**< SecI1/SecR1/SecI2: X25519/Ed25519, AEAD armor */
};

/** Which side of the negotiation we were. */
enum sst_nego_role {
	SST_NEGO_INITIATOR = 1, /**< we sent the I1 */
	SST_NEGO_RESPONDER,	/**< the peer did */
};

/** An opaque peer address (IP and port, as the caller encodes them). */
struct sst_nego_addr {
	uint8_t len;			  /**< bytes used, 1..SST_NEGO_ADDR_MAX */
	uint8_t bytes[SST_NEGO_ADDR_MAX]; /**< the address; bytes past len are ignored */
};

/** What an upper layer advertises in ulpi/ulpr. */
struct sst_nego_ulp {
	bool extended;	  /**< an SST-DPDK blob was present; false: legacy (prototype) */
	uint32_t version; /**< blob version (0 for a legacy peer) */
	uint32_t caps;	  /**< enum sst_nego_cap bits (0 for a legacy peer) */
	/** A version 2 blob with a non-zero instance: the sender's host
	 * instance identifier (docs/negotiation.md section 3). */
	bool has_instance;
	uint64_t instance; /**< 0 unless has_instance */
};

/** A negotiated channel, handed to the established callback. */
struct sst_nego_result {
	enum sst_nego_mode mode;     /**< how it was negotiated */
	enum sst_nego_role role;     /**< which side we were */
	struct sst_nego_addr peer;   /**< the peer's address */
	uint8_t local_channel;	     /**< byte 0 of packets the peer sends us */
	uint8_t peer_channel;	     /**< byte 0 of packets we send */
	enum sst_crypto_suite suite; /**< SST_CRYPTO_CHK32 in checksum mode */
	/** Keys: in checksum mode tx_chk_key is our own key (cki for the
	 * initiator, ckr for the responder) and rx_chk_key the peer's. */
	struct sst_crypto_keys keys;
	uint8_t hcid_len;	       /**< bytes of each half-channel ID */
	uint8_t tx_hcid[SST_HCID_MAX]; /**< ours: USIDs of streams we create */
	uint8_t rx_hcid[SST_HCID_MAX]; /**< the peer's: USIDs of streams it creates */
	struct sst_usid root_usid;     /**< (0, the initiator's transmit ID) */
	struct sst_nego_ulp peer_ulp;  /**< what the peer advertised */
	uint32_t common_caps;	       /**< our caps & the peer's (0 with a legacy peer) */
	/** Secure mode: what the handshake learnt of the peer's identity
	 * (KNOWN, NEW under TOFU: remember it, or ANONYMOUS); checksum mode:
	 * SST_SECURE_PEER_UNKNOWN. */
	enum sst_secure_peer peer_status;
	uint8_t peer_id[SST_SECURE_KEY_LEN]; /**< Ed25519 key; zero if anonymous or checksum */
	/** The peer advertised its host instance (peer_ulp.has_instance):
	 * authenticated in secure mode, as weak as everything else in
	 * checksum mode. */
	bool peer_instance_known;
	uint64_t peer_instance; /**< peer_ulp.instance */
	/**
	 * The peer restarted: this host holds channels with the same address
	 * (and, in secure mode, the same identity) established under another
	 * instance and not yet released. The caller drops those stale
	 * channels (docs/negotiation.md section 3.1); the host has stopped
	 * counting them. From a peer that sends no instance (the 2007
	 * prototype): its ChkI1 reused a channel number we still hold with a
	 * key that no instance of the earlier one would have drawn (section
	 * 3.2); the caller drops that peer's channels the same way.
	 */
	bool peer_restarted;
	/**
	 * The channel comes from the instance that the peer's last restart
	 * replaced: a message its dead process sent before the restart,
	 * delayed in the network. Neither a restart nor recorded; the caller
	 * should refuse it (established() returning an error), as no process
	 * will use it.
	 */
	bool peer_stale;
	/** We posed as the 2007 prototype (sst_nego_host_params.ulp_legacy):
	 * the channel should acknowledge as the prototype does
	 * (sst_nego_channel_params()). */
	bool local_legacy;
};

/** The caller's side of a negotiation host. */
struct sst_nego_ops {
	/** Send a control message (a UDP payload) to an address. Required.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param to The destination.
	 * @param msg The message, valid during the call.
	 * @param len Its length.
	 * @param now Current time.
	 */
	void (*transmit)(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len,
		sst_time_t now);
	/**
	 * Allocate a local channel number for a channel with this peer.
	 * Required. @return 1..255, or a negative errno when none is free.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param peer The peer the channel is with.
	 */
	int (*chan_alloc)(void *ctx, const struct sst_nego_addr *peer);
	/** Give back a number from chan_alloc() whose negotiation ended
	 * without a channel. Required.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param peer The peer.
	 * @param chan The number chan_alloc() gave.
	 */
	void (*chan_free)(void *ctx, const struct sst_nego_addr *peer, uint8_t chan);
	/**
	 * A channel is ready (initiator: ChkR1 received; responder: ChkI1
	 * accepted). The result's key material is wiped after the call:
	 * copy what you keep. The local channel number now belongs to the
	 * caller (free it with your allocator when the channel ends).
	 * Required. @return 0 to accept, or a negative errno to refuse (the
	 * number is given back with chan_free() and nothing is sent).
	 * Secure mode: the initiator is established when SecR1 verifies (it
	 * may send channel data at once) and the responder when SecI2 does.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param r The negotiated channel, valid during the call.
	 * @param now Current time.
	 */
	int (*established)(void *ctx, const struct sst_nego_result *r, sst_time_t now);
	/** An attempt from sst_nego_connect() failed: -ETIMEDOUT, or
	 * -ENOTSUP when a secure responder refused it for want of a common
	 * suite (SecRefuse, docs/secure-mode.md 3.6). Optional. Its channel
	 * number was given back before the call.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param peer The peer sst_nego_connect() was given.
	 * @param local_channel The number the attempt had (already given back).
	 * @param error -ETIMEDOUT or -ENOTSUP.
	 * @param now Current time.
	 */
	void (*failed)(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel,
		int error, sst_time_t now);
	/**
	 * Optional: choose our checksum key for a new channel. NULL: the
	 * default, BLAKE2b keyed with the host secret over (local channel,
	 * peer address) plus microseconds/4 of now. Tests set it to replay a
	 * capture's keys. With steer_bits, the low bits of the key are
	 * replaced by the steering tag.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param local_channel Our number for the channel.
	 * @param peer The peer.
	 * @param now Current time.
	 * @return The key.
	 */
	uint32_t (*chk_key)(
		void *ctx, uint8_t local_channel, const struct sst_nego_addr *peer, sst_time_t now);
	/**
	 * Optional, secure mode: the name a peer must be known under in the
	 * known-hosts table (docs/secure-mode.md section 6). NULL (callback
	 * or return value): any entry with the peer's key.
	 * @param ctx sst_nego_host_params.ctx.
	 * @param peer The peer.
	 * @return The name, or NULL.
	 */
	const char *(*peer_name)(void *ctx, const struct sst_nego_addr *peer);
	/**
	 * Optional, secure mode: a channel packet that arrived in a Packet
	 * chunk after the SecI2 that established local_channel, in the same
	 * message (docs/secure-mode.md 3.4). Hand it to the channel's receive
	 * path (the channel the peer at @p peer has as local_channel); the
	 * bytes are valid during the call only. Also called for
	 * the Packet chunks after a byte-identical repetition of that SecI2
	 * (the initiator's sst_nego_send_early()). NULL: such packets are
	 * dropped and counted (the stream layer resends the data).
	 * @param ctx sst_nego_host_params.ctx.
	 * @param peer The peer it came from.
	 * @param local_channel Our number of the channel it is for.
	 * @param pkt The channel packet, valid during the call.
	 * @param len Its length.
	 * @param now Current time.
	 */
	void (*packet)(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel,
		const void *pkt, size_t len, sst_time_t now);
};

/** How to set up a host. Fields left zero take the defaults shown. */
struct sst_nego_host_params {
	uint32_t size;			     /**< sizeof(struct sst_nego_host_params) */
	uint8_t secret[SST_NEGO_SECRET_LEN]; /**< host secret (the caller's randomness) */
	uint32_t ulp_version;		     /**< 0: SST_NEGO_ULP_VERSION */
	uint32_t ulp_caps;		     /**< what we advertise (enum sst_nego_cap) */
	bool ulp_legacy;		     /**< send empty ulpi/ulpr, as the prototype */
	uint32_t max_initiating;	     /**< our own open attempts; 0: 64 */
	uint32_t max_responding;	     /**< peer-initiated entries; 0: 1024 */
	/** The callbacks (required, and transmit, chan_alloc, chan_free and
	 * established in it); the table is copied. */
	const struct sst_nego_ops *ops;
	void *ctx; /**< first argument of every callback */
	/**
	 * Secure mode (the struct is copied; the identity and known-hosts
	 * table it points to stay the caller's and must outlive the host; the
	 * table may grow, e.g. with TOFU keys): identity (a responder needs
	 * one; without, we only initiate, anonymously), policy,
	 * allow_anonymous, acceptable suites in cost order, and the random
	 * source, which also draws the cookie secrets. NULL: checksum mode only.
	 */
	const struct sst_secure_config *secure;
	/** Secure half-open entries before SecI1 needs a cookie; 0: max_responding. */
	uint32_t max_half_open;
	/** Under load (docs/negotiation.md 5.3): cookie-proven setups per
	 * second per source; 0: 20. Not limited when not under load. */
	uint32_t rate_per_sec;
	uint32_t rate_burst;	/**< ... in a burst; 0: 5 */
	uint32_t rate_slots;	/**< sources tracked (rounded up to a power of 2); 0: 1024 */
	uint8_t rate_prefix;	/**< leading address bytes naming a source; 0: all */
	uint8_t amp_factor;	/**< amplification bound; 0: 3 (tests lower it) */
	uint64_t cookie_period; /**< ns between cookie secret rotations; 0: 120 s */
	/**
	 * Our instance identifier, advertised in the ulp blob; it must differ
	 * between runs. 0: drawn at init from the secure configuration's
	 * random source, or, without one, derived from the secret (so a
	 * checksum-only caller that reuses its secret across runs must set
	 * it). Tests fix it.
	 */
	uint64_t instance;
	/** Peer addresses whose instance is remembered for restart detection;
	 * 0: max_initiating + max_responding. */
	uint32_t max_peer_records;
	/**
	 * Steering (docs/negotiation.md section 8): our attempts carry
	 * steer_tag in the low steer_bits bits of cki (checksum mode) and of
	 * the last byte of ni (secure mode), which the responder echoes.
	 * steer_bits 0..SST_NEGO_STEER_BITS_MAX, 0: no tag; steer_tag below
	 * 2^steer_bits.
	 */
	uint8_t steer_tag;
	uint8_t steer_bits; /**< bits of steer_tag used (see steer_tag) */
	/** Secure mode, initiator: largest message sst_nego_send_early()
	 * builds (SecI2 plus a Packet chunk); 0: SST_NEGO_EARLY_MAX_DEFAULT. */
	uint16_t early_max;
	/**
	 * Load detection (docs/negotiation.md 5.1): the host goes under load
	 * by itself when it holds load_high half-open entries (both modes,
	 * sst_nego_half_open()), and leaves it when they are down to
	 * load_low. 0: max_responding / 2, at least SST_NEGO_LOAD_HIGH_MIN
	 * (or max_responding if smaller); UINT32_MAX: never by itself
	 * (only sst_nego_set_under_load()).
	 */
	uint32_t load_high;
	uint32_t load_low; /**< below load_high; 0: load_high / 2 */
};

/** Counters. Every dropped message is counted under exactly one reason. */
struct sst_nego_stats {
	uint64_t rx_msgs;	     /**< messages given to sst_nego_receive() */
	uint64_t rx_malformed;	     /**< framing failed: dropped whole */
	uint64_t rx_bad_chunk;	     /**< a known chunk that did not decode */
	uint64_t rx_unknown_chunk;   /**< chunk types we do not know (skipped) */
	uint64_t rx_unsupported;     /**< known chunks we do not answer (DH, Packet) */
	uint64_t rx_ping;	     /**< zero-chunk R0 pings */
	uint64_t rx_ping_unmatched;  /**< R0 from an address we are not calling */
	uint64_t rx_i1;		     /**< ChkI1 decoded */
	uint64_t rx_i1_duplicate;    /**< retransmitted ChkI1: same ChkR1 resent */
	uint64_t rx_i1_conflict;     /**< same (address, chani), other key: a straggler */
	uint64_t rx_i1_refused_full; /**< responder table full */
	uint64_t rx_i1_no_channel;   /**< chan_alloc() failed */
	uint64_t rx_i1_refused;	     /**< established() refused */
	uint64_t rx_i1_challenged;   /**< SST-DPDK initiator, no valid cookie: cookie request */
	uint64_t rx_i1_cookie_ok;    /**< carried a valid cookie when one was needed */
	uint64_t rx_i1_cookie_bad;   /**< carried a cookie that did not verify (challenged again) */
	uint64_t rx_i1_legacy;	     /**< legacy initiator (cannot answer a cookie): dropped */
	uint64_t rx_r1;		     /**< ChkR1 decoded */
	uint64_t rx_r1_unmatched;    /**< no outstanding attempt (late duplicate, forged) */
	uint64_t rx_r1_cookie;	     /**< cookie request answered: ChkI1 again with the cookie */
	uint64_t rx_r1_cookie_bad;   /**< cookie request without a cookie, or over the limit */
	uint64_t rx_r1_refused;	     /**< established() refused */
	uint64_t tx_i1;		     /**< ChkI1 sent, first transmissions */
	uint64_t tx_i1_retx;	     /**< ChkI1 retransmissions (timer, ping or cookie) */
	uint64_t tx_r1;		     /**< ChkR1 sent, duplicates included */
	uint64_t tx_r1_cookie;	     /**< ChkR1 cookie requests sent */
	uint64_t chk_heard;	     /**< checksum channels confirmed (sst_nego_confirm()) */
	uint64_t established_initiator; /**< channels established() accepted as initiator */
	uint64_t established_responder; /**< ... and as responder */
	uint64_t failed;		/**< attempts that timed out */
	/* Under load (both modes). */
	uint64_t rx_rate_limited; /**< cookie-proven I1 over their source's rate: dropped */
	uint64_t load_on;	  /**< the host went under load (by itself or told) */
	uint64_t load_off;	  /**< ... and left it */
	/* Secure mode, responder. */
	uint64_t rx_sec_i1;		/**< SecI1 decoded */
	uint64_t rx_sec_i1_duplicate;	/**< same (address, chani, ni): same SecR1 resent */
	uint64_t rx_sec_i1_conflict;	/**< same (address, chani), other ni, too soon */
	uint64_t rx_sec_i1_challenged;	/**< answered with SecCookie, no state kept */
	uint64_t rx_sec_i1_cookie_ok;	/**< carried a valid cookie when one was needed */
	uint64_t rx_sec_i1_cookie_bad;	/**< carried a cookie that did not verify */
	uint64_t rx_sec_i1_refused;	/**< no mutual suite, bad key, table full, no number */
	uint64_t rx_sec_i1_unsupported; /**< secure mode not configured for responding */
	uint64_t rx_sec_i2;		/**< SecI2 decoded enough to be matched */
	uint64_t rx_sec_i2_unmatched;	/**< no half-open entry for (address, nr) */
	uint64_t rx_sec_i2_bad;		/**< did not verify: nothing changed */
	uint64_t rx_sec_i2_duplicate;	/**< for a channel already established */
	uint64_t rx_sec_i2_refused;	/**< established() refused */
	uint64_t rx_packet;		/**< Packet chunks handed to ops->packet */
	uint64_t rx_packet_dropped;	/**< Packet chunks without a SecI2 just verified */
	uint64_t tx_sec_r1;		/**< SecR1 sent, duplicates included */
	uint64_t tx_sec_cookie;		/**< SecCookie sent */
	uint64_t tx_sec_refuse;		/**< SecRefuse sent (no mutual suite; spec 3.6) */
	uint64_t half_open_expired;	/**< half-open entries that never saw SecI2 */
	uint64_t half_open_evicted;	/**< dropped for a cookie-proven initiator */
	/* Amplification (both modes, docs/negotiation.md 5.2). */
	uint64_t amp_limited;  /**< an answer withheld, or replaced by a cookie challenge (3x) */
	uint64_t amp_rx_bytes; /**< bytes received from unvalidated addresses */
	uint64_t amp_tx_bytes; /**< bytes sent to unvalidated addresses */
	/* Secure mode, initiator. */
	uint64_t rx_sec_r1;	      /**< SecR1 matched to an attempt */
	uint64_t rx_sec_r1_unmatched; /**< no attempt waiting for it */
	uint64_t rx_sec_r1_bad;	      /**< did not verify or refused by policy */
	uint64_t rx_sec_r1_refused;   /**< established() refused */
	uint64_t rx_sec_cookie;	      /**< SecCookie answered */
	uint64_t rx_sec_cookie_bad;   /**< unmatched, malformed, or over the limit */
	uint64_t tx_sec_i1;	      /**< SecI1 sent: first, retransmitted, with cookie */
	uint64_t tx_sec_i2;	      /**< SecI2 sent, retransmissions included */
	uint64_t confirmed;	      /**< SecI2 retransmission ended by sst_nego_confirm() */
	uint64_t unconfirmed;	      /**< ... or by its 20 s */
	uint64_t tx_packet;	      /**< Packet chunks sent after SecI2 (sst_nego_send_early) */
	uint64_t rx_sec_refuse;	      /**< SecRefuse believed: attempt failed, -ENOTSUP */
	uint64_t rx_sec_refuse_bad;   /**< unmatched, malformed or inconsistent: ignored */
	/* Restart detection (both modes). */
	uint64_t peer_restarts;	 /**< channels established with peer_restarted */
	uint64_t peer_untracked; /**< instance known but not recorded (no room, other peer) */
	uint64_t peer_stale;	 /**< channels accepted with peer_stale */
};

/**
 * Bytes of memory a host with these parameters needs.
 * @param p Parameters.
 * @return the size, or 0 for invalid parameters (rte_errno = EINVAL).
 */
size_t sst_nego_host_size(const struct sst_nego_host_params *p);

/**
 * Set up a host in caller memory of sst_nego_host_size() bytes, aligned to
 * 8 bytes. The secret is copied (and wiped by sst_nego_host_fini()). The
 * host belongs to the calling thread; its callbacks run on it, inside
 * the host's functions.
 * @param h The memory.
 * @param p Parameters, read during the call (the secure configuration's
 *   identity and known-hosts table are kept, see secure).
 * @retval 0 Ready.
 * @retval -EINVAL Missing callback, bad size field, limits too large,
 *   an invalid secure configuration or steering tag, early_max under
 *   256, or libsodium failed to initialise.
 */
int sst_nego_host_init(struct sst_nego_host *h, const struct sst_nego_host_params *p);

/**
 * Wipe the host's secrets. Open attempts and secure half-open entries end
 * silently; their channel numbers are given back with chan_free() (not
 * those of established channels). The memory stays the caller's.
 * @param h The host; NULL, or one finished already, is ignored.
 */
void sst_nego_host_fini(struct sst_nego_host *h);

/** sst_nego_host_size() + rte_zmalloc() + sst_nego_host_init().
 * @param p Parameters, as for sst_nego_host_init().
 * @return The host, or NULL with rte_errno set: EINVAL, ENOMEM. */
struct sst_nego_host *sst_nego_host_create(const struct sst_nego_host_params *p);

/** sst_nego_host_fini() + rte_free().
 * @param h A host from sst_nego_host_create(); NULL is ignored. */
void sst_nego_host_destroy(struct sst_nego_host *h);

/**
 * Start negotiating a channel with a peer: allocate a local channel number,
 * send the first message (checksum mode: ChkI1, secure mode: SecI1) and arm the retransmission
 * timer. The outcome comes later through established() or failed().
 *
 * @param h The host.
 * @param peer The peer's address (copied).
 * @param mode How to negotiate.
 * @param now Current time.
 * @return the local channel number (1..255), or -EINVAL (bad address),
 *   -ENOTSUP (unknown mode, or secure mode without a secure
 *   configuration), -ENOSPC (max_initiating attempts open, or no free
 *   entry), -ERANGE (chan_alloc() returned 0 or more than 255),
 *   chan_alloc()'s error, or in secure mode the handshake's error in
 *   starting (the number is given back with chan_free() on every error
 *   after chan_alloc()).
 */
int sst_nego_connect(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	enum sst_nego_mode mode, sst_time_t now);

/**
 * Abandon an open attempt without reporting failed(); its number is given
 * back with chan_free(). A secure attempt that is already established (it
 * only repeats SecI2) ends as with sst_nego_confirm(): the number stays the
 * caller's.
 * @param h The host.
 * @param peer The address given to sst_nego_connect().
 * @param local_channel The number sst_nego_connect() returned.
 * @retval 0 Abandoned.
 * @retval -ENOENT No such attempt.
 * @retval -EINVAL h NULL or the address invalid.
 */
int sst_nego_cancel(
	struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel);

/**
 * Process one received control message (a UDP payload whose first byte is
 * 0) from an address. Malformed messages are dropped and counted; nothing
 * in them changes state. Callbacks (transmit, established, ...) run from
 * inside.
 *
 * @param h The host.
 * @param from The sender's address.
 * @param msg The message; read during the call only.
 * @param len Bytes at @p msg.
 * @param now Current time.
 * @return 0 if the message was well-formed (whatever it caused), or the
 *   negative parse error (enum sst_error) it was dropped for.
 */
int sst_nego_receive(struct sst_nego_host *h, const struct sst_nego_addr *from, const void *msg,
	size_t len, sst_time_t now);

/** When sst_nego_handle_expiry() must next be called.
 * @param h The host.
 * @return The time, or SST_TIME_NEVER. */
sst_time_t sst_nego_next_expiry(const struct sst_nego_host *h);

/** Run the timers due by now: retransmissions and failures of attempts.
 * @param h The host.
 * @param now Current time. */
void sst_nego_handle_expiry(struct sst_nego_host *h, sst_time_t now);

/**
 * A channel ended (either role): call it for every channel that
 * established() accepted. For a responder-side channel the host forgets its
 * entry, so a ChkI1 with the same (address, chani) is then a new
 * negotiation; for either role the channel stops counting for restart
 * detection (docs/negotiation.md section 3.1). Does not free the local
 * number (the caller owns it since established()).
 * @param h The host.
 * @param peer The peer's address.
 * @param local_channel Our channel number (sst_nego_result.local_channel).
 * @param peer_channel The peer's (sst_nego_result.peer_channel).
 * @return 0, or -ENOENT (no responder entry: an initiator's channel, or
 *   one already released or replaced; its restart record is still
 *   updated), -EINVAL (h NULL or the address invalid).
 */
int sst_nego_release(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	uint8_t local_channel, uint8_t peer_channel);

/**
 * The first authenticated channel packet from the peer arrived on a channel
 * (call it once per channel; the engine does for every channel).
 *
 * Secure mode, initiator: the responder has our SecI2; stop repeating it
 * (docs/secure-mode.md 3.4). Without this call SecI2 is repeated on the
 * retransmission schedule for 20 s after SecR1.
 *
 * Checksum mode, responder: the initiator got our ChkR1 and uses the
 * channel; it stops counting as half-open (docs/negotiation.md 5.1).
 * Without this call it counts until sst_nego_release(), and enough such
 * channels put the host under load.
 *
 * @param h The host.
 * @param peer The peer's address.
 * @param local_channel Our channel number.
 * @return 0, or -ENOENT (nothing to confirm: another kind of channel, or
 *   already confirmed), -EINVAL (h NULL or the address invalid).
 */
int sst_nego_confirm(
	struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel);

/**
 * Secure mode, initiator: send a channel packet of an established channel
 * whose SecI2 is still being repeated (not confirmed): the host sends its
 * SecI2 again with the packet in a Packet chunk after it
 * (docs/secure-mode.md 3.4), so that the packet reaches the responder's
 * channel even if every earlier SecI2 was lost. The caller routes the
 * packets its channel transmits here until this returns -ENOENT (after
 * sst_nego_confirm(), or 20 s), and sends them itself from then on, or
 * when the packet is too big.
 *
 * @param h The host.
 * @param peer The responder's address.
 * @param local_channel Our channel number.
 * @param pkt A sealed channel packet, byte 0 the responder's channel
 *   number; copied, it stays the caller's.
 * @param len Bytes at @p pkt.
 * @param now Current time.
 * @return 0 (sent: do not send it again), -ENOENT (no unconfirmed secure
 *   attempt for this channel: send it as usual), -EMSGSIZE (SecI2 and the
 *   packet exceed early_max: send it as usual), -EINVAL (bad arguments, or
 *   byte 0 is not the responder's channel number).
 */
int sst_nego_send_early(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	uint8_t local_channel, const void *pkt, size_t len, sst_time_t now);

/** Our instance identifier.
 * @param h The host.
 * @return params.instance, or the one drawn at init. */
uint64_t sst_nego_instance(const struct sst_nego_host *h);

/**
 * Steering (docs/negotiation.md section 8): the tag a control message
 * carries for the worker that initiated the negotiation it answers. Needs
 * no host and reads only the message: it checks the framing and that the
 * first chunk is an answer to an initiation (ChkR1 that decodes: low
 * steer_bits bits of the echoed cki; SecR1 or SecCookie: low bits of the
 * last byte of the echoed ni). Safe on hostile input.
 *
 * @param msg A control message (UDP payload).
 * @param len Bytes at @p msg.
 * @param steer_bits The bits of the tag (sst_nego_host_params.steer_bits).
 * @return the tag, 0..2^steer_bits - 1, or -1 for anything else: initiator
 *   messages (ChkI1, SecI1, SecI2), R0 pings, other chunks, malformed
 *   input, steer_bits above SST_NEGO_STEER_BITS_MAX.
 */
int sst_nego_steer_tag(const void *msg, size_t len, uint8_t steer_bits);

/**
 * Steering of a moved peer (docs/engine.md, "Mobility"): the host instance
 * that a secure initiator names in the ulp blob of a SecI1, read without
 * a host, as sst_nego_steer_tag() reads a tag. The blob is in clear and not
 * yet authenticated (the initiator's signature in SecI2 covers it): a
 * worker may use it to choose which worker answers the handshake, never
 * to decide who the peer is. Safe on hostile input.
 *
 * @param msg A control message (UDP payload).
 * @param len Bytes at @p msg.
 * @param instance Set to the instance on success.
 * @return 0; -EINVAL if the message is malformed or its first chunk is not
 *   a SecI1 that decodes; -ENOENT if its blob names no instance.
 */
int sst_nego_secure_i1_instance(const void *msg, size_t len, uint64_t *instance);

/**
 * Tell the host that it is under attack, whatever its own load detection
 * says (true), or leave it to that detection again (false). Under load
 * every SecI1, and every ChkI1 of an SST-DPDK initiator, without a valid
 * cookie gets a cookie challenge and no state; a legacy initiator's ChkI1
 * is dropped; cookie-proven setups are rate-limited per source
 * (docs/negotiation.md 5).
 * @param h The host.
 * @param under_load True: under load whatever the detection says.
 */
void sst_nego_set_under_load(struct sst_nego_host *h, bool under_load);

/** Whether the host is under load: told so, or by its own detection.
 * @param h The host.
 * @return True when under load. */
bool sst_nego_under_load(const struct sst_nego_host *h);

/** Open attempts we initiated (secure attempts repeating SecI2 excluded).
 * @param h The host.
 * @return That count. */
uint32_t sst_nego_initiating(const struct sst_nego_host *h);

/**
 * Half-open entries: peer-initiated negotiations that answered and have not
 * yet heard from the initiator again. Secure mode: SecR1 sent, SecI2 not yet
 * verified (they expire after SST_NEGO_HALF_OPEN_TTL); checksum mode: ChkR1
 * sent (the channel exists), no sst_nego_confirm() yet. What load detection
 * counts (load_high, load_low).
 * @param h The host.
 * @return That count.
 */
uint32_t sst_nego_half_open(const struct sst_nego_host *h);

/** Peer-initiated entries held (bounded by max_responding).
 * @param h The host.
 * @return That count. */
uint32_t sst_nego_responding(const struct sst_nego_host *h);

/** Counters.
 * @param h The host.
 * @return The host's own counters, updated in place; valid until
 *   sst_nego_host_fini(). */
const struct sst_nego_stats *sst_nego_stats(const struct sst_nego_host *h);

/**
 * Fill the negotiated part of channel parameters from a result: size,
 * channel numbers, suite and keys (the chosen suite's: CHK32 uses the
 * checksum keys, the AEAD suites the keys and IVs), and what a legacy peer
 * implies: toward a peer that sent no SST-DPDK blob (it may be the 2007
 * prototype, whose acknowledgments freeze past 65,535 packets of a channel,
 * wire-format.md 9.4) packet_limit is SST_CHANNEL_PROTOTYPE_SEQ_MAX + 1, so
 * the channel is replaced before; a host posing as the prototype
 * (result.local_legacy) gets prototype_acks. The caller adds pool, cc,
 * upper and lower callbacks and whatever else it wants (a packet_limit of
 * its own should not exceed the one set here); other fields are zeroed.
 * @param r The result established() got.
 * @param p Filled in (keys copied: wipe them once the channel has them).
 * @return 0, or -EINVAL (no suite or channel numbers in the result, or the
 *   null suite).
 */
int sst_nego_channel_params(const struct sst_nego_result *r, struct sst_channel_params *p);

/**
 * Encode a ulp blob (docs/negotiation.md section 3): magic, version,
 * capabilities and, from version 2 on, the instance identifier (0: none).
 * @param version Blob version.
 * @param caps enum sst_nego_cap bits.
 * @param instance Host instance identifier (version 2 on).
 * @param buf Output.
 * @param cap Bytes at @p buf.
 * @return bytes written (SST_NEGO_ULP_V1_LEN for version 0 or 1,
 *   SST_NEGO_ULP_LEN otherwise) or -ENOSPC.
 */
int sst_nego_ulp_encode_instance(
	uint32_t version, uint32_t caps, uint64_t instance, void *buf, size_t cap);

/** sst_nego_ulp_encode_instance() without an instance (written as 0 from version 2 on).
 * @param version Blob version.
 * @param caps enum sst_nego_cap bits.
 * @param buf Output.
 * @param cap Bytes at @p buf.
 * @return Bytes written, or -ENOSPC. */
int sst_nego_ulp_encode(uint32_t version, uint32_t caps, void *buf, size_t cap);

/**
 * Decode a peer's ulpi/ulpr. Never fails: an empty or unrecognised blob
 * means a legacy peer (extended false, no capabilities). Capability bits
 * are kept as sent (sst_nego_result::common_caps masks them with ours). The
 * instance is taken from a blob of version 2 or later that holds it (a
 * version 1 blob, or a shorter one, has none; 0 means none); bytes after
 * the fields we know are a later version's and ignored.
 * @param buf The blob.
 * @param len Bytes at @p buf (0: none).
 * @param ulp Filled in.
 */
void sst_nego_ulp_decode(const void *buf, size_t len, struct sst_nego_ulp *ulp);

/** Whether two addresses are equal.
 * @param a An address.
 * @param b Another.
 * @return True when their lengths and bytes match. */
static inline bool
sst_nego_addr_equal(const struct sst_nego_addr *a, const struct sst_nego_addr *b)
{
	if (a->len != b->len)
		return false;
	for (uint8_t i = 0; i < a->len; i++)
		if (a->bytes[i] != b->bytes[i])
			return false;
	return true;
}

#endif /* SST_NEGOTIATION_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A responder under load (docs/negotiation.md section 5): when it is under
 * load, the cookie secret of both modes' challenges, and the amplification
 * budget of an answer to an address that has not proven itself.
 *
 * Load is read from the half-open count (sst_nego_half_open()): responder
 * entries that answered an I1 and have not heard from its initiator again
 * (secure: no SecI2 yet; checksum: no channel packet yet). A flood of I1
 * from spoofed addresses makes exactly such entries, since the answers go
 * to hosts that did not ask, while a genuine initiator leaves the count one
 * round trip later; a count that stays high means state nobody uses. The
 * host goes under load when the count reaches load_high and leaves when it
 * is down to load_low. The gap is the hysteresis: entries expire, end or
 * are heard one by one, and a host with one threshold would flip at each
 * of them while a flood goes on. Under load an I1 creates state only after
 * a cookie round trip proved its address, so a spoofed flood cannot push
 * the count any further: what a flood holds is at most load_high entries,
 * and load_high - load_low more each time the count has fallen back.
 *
 * The state is two bits (told by the caller, seen by the detector) and the
 * two thresholds; nothing here reads a clock or allocates.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "nego_internal.h"

int
nego_load_thresholds(const struct sst_nego_host_params *p, uint32_t max_responding, uint32_t *high,
	uint32_t *low)
{
	uint32_t hi = p->load_high;

	/* Half the table: a flood never holds more than that, so the other
	 * half is always there for clients who prove their address. Real
	 * handshakes in flight (rate x round trip) stay far below it, and so
	 * do the quiet channels of a burst of clients behind one address,
	 * who would be throttled by the per-source limit under load
	 * (WireGuard's threshold is 512 handshakes, an eighth of its
	 * queue). A small table gets a floor, so that a few concurrent
	 * handshakes do not put it under load. */
	if (hi == 0)
		hi = RTE_MAX(max_responding / 2,
			RTE_MIN((uint32_t)SST_NEGO_LOAD_HIGH_MIN, max_responding));
	*high = hi;
	*low = p->load_low != 0 ? p->load_low : hi / 2;
	return *low < *high ? 0 : -EINVAL;
}

/*
 * The cookie secret's random source for a host without a secure
 * configuration (checksum mode): BLAKE2b keyed with the host secret over a
 * label and a counter. The host secret is the caller's randomness, so the
 * cookie secrets are as unpredictable as it is, and tests stay
 * deterministic. len is a cookie secret's 32 bytes.
 */
static void
cookie_random_derived(void *ctx, void *buf, size_t len)
{
	static const uint8_t tag[] = "sst-nego-cookie-secret";
	struct sst_nego_host *h = ctx;
	uint8_t in[sizeof(tag) + 8];
	uint64_t n = h->cookie_draws++;

	memcpy(in, tag, sizeof(tag));
	for (int i = 0; i < 8; i++)
		in[sizeof(tag) + i] = (uint8_t)(n >> (56 - 8 * i));
	crypto_generichash(buf, len, in, sizeof(in), h->secret, sizeof(h->secret));
}

void
nego_load_init(struct sst_nego_host *h, const struct sst_nego_host_params *p)
{
	/* Validated by sst_nego_host_size()'s layout. */
	nego_load_thresholds(p, h->max_responding, &h->load_high, &h->load_low);
	h->cookie_period = p->cookie_period ? p->cookie_period : SST_NEGO_COOKIE_PERIOD;
	if (h->sec != NULL) {
		h->cookie_random = h->sec_cfg.random;
		h->cookie_random_ctx = h->sec_cfg.random_ctx;
	} else {
		h->cookie_random = cookie_random_derived;
		h->cookie_random_ctx = h;
	}
	sst_secure_cookie_secret_init(&h->cookie, h->cookie_random, h->cookie_random_ctx, 0);
}

/* Count a change of the effective state (told or seen). */
static void
load_count(struct sst_nego_host *h, bool before)
{
	bool now = nego_under_load(h);

	if (now && !before)
		h->stats.load_on++;
	else if (!now && before)
		h->stats.load_off++;
}

void
nego_load_update(struct sst_nego_host *h)
{
	uint32_t n = h->n_half + h->n_unheard;
	bool before = nego_under_load(h);

	if (!h->load_seen && n >= h->load_high)
		h->load_seen = true;
	else if (h->load_seen && n <= h->load_low)
		h->load_seen = false;
	load_count(h, before);
}

void
sst_nego_set_under_load(struct sst_nego_host *h, bool under_load)
{
	bool before = nego_under_load(h);

	h->load_told = under_load;
	load_count(h, before);
}

bool
sst_nego_under_load(const struct sst_nego_host *h)
{
	return nego_under_load(h);
}

void
nego_cookie_rotate(struct sst_nego_host *h, sst_time_t now)
{
	sst_secure_cookie_secret_rotate(
		&h->cookie, h->cookie_random, h->cookie_random_ctx, now, h->cookie_period);
}

/* Section 5.2: before an address is proven, what we send it in answer to a
 * message is at most amp_factor times that message. */
bool
nego_amp_allow(struct sst_nego_host *h, uint32_t budget, size_t len)
{
	h->stats.amp_rx_bytes += budget;
	if (len > (uint64_t)h->amp_factor * budget) {
		h->stats.amp_limited++;
		return false;
	}
	h->stats.amp_tx_bytes += len;
	return true;
}

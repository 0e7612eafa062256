/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may ship this host code (sst_stp.h): nobody by default; in secure
 * mode, peers whose Ed25519 key the host pinned; anybody in labs. A
 * checksum-mode peer is unauthenticated (its identity is all zero), so
 * only "allow-all" admits it.
 */
#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "sst_stp.h"

bool
sst_stp_policy_allows(const struct sst_stp_policy *p, const uint8_t *peer_id)
{
	if (p == NULL)
		return false;
	if (p->mode == SST_STP_ALLOW_ALL)
		return true;
	if (p->mode != SST_STP_ALLOW_PINNED || peer_id == NULL ||
		sodium_is_zero(peer_id, SST_STP_KEY_LEN))
		return false;
	for (unsigned int i = 0; i < p->npinned && i < SST_STP_PINNED_MAX; i++)
		if (memcmp(p->pinned[i], peer_id, SST_STP_KEY_LEN) == 0)
			return true;
	return false;
}

int
sst_stp_policy_parse(struct sst_stp_policy *p, const char *name)
{
	if (p == NULL || name == NULL)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (strcmp(name, "deny") == 0)
		p->mode = SST_STP_DENY;
	else if (strcmp(name, "allow-all") == 0)
		p->mode = SST_STP_ALLOW_ALL;
	else if (strcmp(name, "pinned") == 0)
		p->mode = SST_STP_ALLOW_PINNED;
	else
		return -EINVAL;
	return 0;
}

int
sst_stp_policy_pin(struct sst_stp_policy *p, const uint8_t key[SST_STP_KEY_LEN])
{
	if (p == NULL || key == NULL)
		return -EINVAL;
	if (p->npinned >= SST_STP_PINNED_MAX)
		return -ENOSPC;
	memcpy(p->pinned[p->npinned++], key, SST_STP_KEY_LEN);
	return 0;
}

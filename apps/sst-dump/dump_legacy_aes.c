/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <intel-ipsec-mb.h>
#include <sodium.h>

#include "dump_legacy_aes.h"
#include "sst_error.h"

enum { CLEAR_PREFIX = 4 };

static IMB_MGR *mgr;

int
dump_aes_init(void)
{
	if (mgr != NULL)
		return 0;
	if (sodium_init() < 0)
		return -1;
	mgr = alloc_mb_mgr(0);
	if (mgr == NULL)
		return -1;
	init_mb_mgr_auto(mgr, NULL);
	return 0;
}

void
dump_aes_fini(void)
{
	if (mgr != NULL)
		free_mb_mgr(mgr);
	mgr = NULL;
}

int
dump_aes_keys_set(struct dump_aes_keys *k, const uint8_t aes_key[DUMP_AES_KEY_LEN],
	const uint8_t mac_key[DUMP_AES_MAC_KEY_LEN])
{
	if (mgr == NULL)
		return -1;
	memcpy(k->mac_key, mac_key, DUMP_AES_MAC_KEY_LEN);
	IMB_AES_KEYEXP_128(mgr, aes_key, k->enc_sched, k->dec_sched);
	return 0;
}

static void
store_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

int
dump_aes_open(
	const struct dump_aes_keys *k, uint64_t seq, const uint8_t *pkt, size_t len, uint8_t *out)
{
	crypto_auth_hmacsha256_state st;
	uint8_t seq_be[8], mac[crypto_auth_hmacsha256_BYTES];
	uint8_t iv[16];
	size_t body;
	IMB_JOB *job;

	if (len < CLEAR_PREFIX + DUMP_AES_TAG_LEN)
		return -SST_ETRUNC;
	body = len - DUMP_AES_TAG_LEN;
	store_be64(seq_be, seq);
	crypto_auth_hmacsha256_init(&st, k->mac_key, DUMP_AES_MAC_KEY_LEN);
	crypto_auth_hmacsha256_update(&st, seq_be, sizeof(seq_be));
	crypto_auth_hmacsha256_update(&st, pkt, body);
	crypto_auth_hmacsha256_update(&st, pkt, body);
	crypto_auth_hmacsha256_final(&st, mac);
	if (sodium_memcmp(mac, pkt + body, DUMP_AES_TAG_LEN) != 0)
		return -SST_EBADAUTH;

	/* Counter block: sequence number, "VXAf", block counter from 0. */
	memcpy(iv, seq_be, 8);
	memcpy(iv + 8, "VXAf", 4);
	memset(iv + 12, 0, 4);
	memcpy(out, pkt, CLEAR_PREFIX);
	job = IMB_GET_NEXT_JOB(mgr);
	job->cipher_mode = IMB_CIPHER_CNTR;
	job->cipher_direction = IMB_DIR_ENCRYPT;
	job->chain_order = IMB_ORDER_CIPHER_HASH;
	job->hash_alg = IMB_AUTH_NULL;
	job->enc_keys = k->enc_sched;
	job->dec_keys = k->dec_sched;
	job->key_len_in_bytes = IMB_KEY_128_BYTES;
	job->iv = iv;
	job->iv_len_in_bytes = sizeof(iv);
	job->src = pkt + CLEAR_PREFIX;
	job->dst = out + CLEAR_PREFIX;
	job->cipher_start_src_offset_in_bytes = 0;
	job->msg_len_to_cipher_in_bytes = body - CLEAR_PREFIX;
	job = IMB_SUBMIT_JOB(mgr);
	if (job == NULL)
		job = IMB_FLUSH_JOB(mgr);
	if (job == NULL || job->status != IMB_STATUS_COMPLETED)
		return -SST_EBADAUTH;
	return 0;
}

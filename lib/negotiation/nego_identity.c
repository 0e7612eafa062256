/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure-mode host identities and known hosts (docs/secure-mode.md section
 * 6): the Ed25519 key file (created on first use, mode 0600, refused when
 * group or others may read it) and the known-hosts table with its text file.
 * Split from nego_secure.c, which holds the handshake itself: nothing here
 * runs per message, only at setup and when a TOFU peer is remembered.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "nego_secure.h"

enum { KEY = SST_SECURE_KEY_LEN };

/*
 * Setup-time files (spec 6). Nothing below runs per packet. Secrets read or
 * written pass through local buffers that are wiped before returning.
 */

int
sst_secure_identity_from_seed(struct sst_secure_identity *id, const uint8_t seed[32])
{
	if (sodium_init() < 0)
		return -EINVAL;
	return crypto_sign_seed_keypair(id->pk, id->sk, seed) == 0 ? 0 : -EINVAL;
}

void
sst_secure_identity_wipe(struct sst_secure_identity *id)
{
	sodium_memzero(id, sizeof(*id));
}

/* Write buf to a new or appended file, flush it to the disk, close it. */
static int
write_close(int fd, const char *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);
	int rc = n < 0 ? -errno : (size_t)n != len ? -EIO : fsync(fd) < 0 ? -errno : 0;

	close(fd);
	return rc;
}

/* Parse 64 hex digits into 32 bytes. */
static int
hex32(const char *hex, uint8_t out[KEY])
{
	const char *end;
	size_t n;

	if (sodium_hex2bin(out, KEY, hex, 2 * KEY, NULL, &n, &end) != 0 || n != KEY ||
		end != hex + 2 * KEY)
		return -EINVAL;
	return 0;
}

int
sst_secure_identity_load(const char *path, struct sst_secure_identity *id)
{
	char buf[2 * KEY + 2];
	uint8_t seed[KEY];
	struct stat sb;
	ssize_t n = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0)
		rc = -errno;
	else if (!S_ISREG(sb.st_mode))
		rc = -EINVAL;
	else if ((sb.st_mode & 077) != 0) /* like ssh: others may read it, it is no secret */
		rc = -EPERM;
	else if ((n = read(fd, buf, sizeof(buf))) < 0)
		rc = -errno;
	else if (n != 2 * KEY + 1 || buf[2 * KEY] != '\n' || hex32(buf, seed) < 0)
		rc = -EINVAL;
	else
		rc = sst_secure_identity_from_seed(id, seed);
	close(fd);
	sodium_memzero(buf, sizeof(buf));
	sodium_memzero(seed, sizeof(seed));
	return rc;
}

int
sst_secure_identity_load_or_create(const char *path, sst_secure_random_fn random, void *random_ctx,
	struct sst_secure_identity *id)
{
	char buf[2 * KEY + 1];
	uint8_t seed[KEY];
	int fd, rc = sst_secure_identity_load(path, id);

	if (rc != -ENOENT)
		return rc;
	/* O_EXCL: never replace a file; EEXIST means another process won. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EEXIST)
		return -errno;
	if (fd >= 0) {
		random(random_ctx, seed, KEY);
		sodium_bin2hex(buf, sizeof(buf), seed, KEY);
		buf[2 * KEY] = '\n';
		rc = write_close(fd, buf, sizeof(buf));
		sodium_memzero(buf, sizeof(buf));
		sodium_memzero(seed, sizeof(seed));
		if (rc < 0) {
			unlink(path);
			return rc;
		}
	}
	rc = sst_secure_identity_load(path, id);
	return rc < 0 ? rc : fd >= 0;
}

/* Names are 1..63 printable ASCII characters without spaces. */
static bool
name_ok(const char *name, size_t len)
{
	if (len == 0 || len >= SST_SECURE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

int
sst_secure_known_hosts_add(
	struct sst_secure_known_hosts *kh, const char *name, const uint8_t pk[SST_SECURE_KEY_LEN])
{
	size_t len = strnlen(name, SST_SECURE_NAME_MAX);

	if (!name_ok(name, len))
		return -EINVAL;
	if (kh->n >= kh->cap)
		return -ENOSPC;
	memcpy(kh->hosts[kh->n].pk, pk, KEY);
	memcpy(kh->hosts[kh->n].name, name, len + 1);
	kh->n++;
	return 0;
}

enum sst_secure_peer
sst_secure_known_hosts_lookup(const struct sst_secure_known_hosts *kh, const char *name,
	const uint8_t pk[SST_SECURE_KEY_LEN])
{
	bool named = false;

	for (uint32_t i = 0; i < kh->n; i++) {
		const struct sst_secure_host *h = &kh->hosts[i];
		bool same_name = name == NULL || strcmp(h->name, name) == 0;

		if (same_name && sodium_memcmp(h->pk, pk, KEY) == 0)
			return SST_SECURE_PEER_KNOWN;
		named |= name != NULL && same_name;
	}
	return named ? SST_SECURE_PEER_MISMATCH : SST_SECURE_PEER_UNKNOWN;
}

/* One known-hosts line: "<64 hex> <name>", blank, or a "#" comment. */
static int
known_hosts_line(struct sst_secure_known_hosts *kh, const char *line)
{
	char hex[2 * KEY + 2], name[SST_SECURE_NAME_MAX + 1], extra;
	int n = sscanf(line, "%65s %64s %c", hex, name, &extra);
	uint8_t pk[KEY];

	if (n < 1 || hex[0] == '#')
		return 0;
	if (n != 2 || strlen(hex) != 2 * KEY || hex32(hex, pk) < 0)
		return -EINVAL;
	return sst_secure_known_hosts_add(kh, name, pk);
}

int
sst_secure_known_hosts_load(struct sst_secure_known_hosts *kh, const char *path)
{
	char line[2 * KEY + SST_SECURE_NAME_MAX + 32];
	FILE *f;
	int rc = 0;

	kh->n = 0;
	f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? 0 : -errno;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);

		/* A line longer than the buffer is longer than any valid line. */
		rc = (len == 0 || line[len - 1] != '\n') && !feof(f) ? -EINVAL
								     : known_hosts_line(kh, line);
	}
	if (rc == 0 && ferror(f))
		rc = -EIO;
	fclose(f);
	if (rc < 0)
		kh->n = 0;
	return rc;
}

int
sst_secure_known_hosts_append(
	const char *path, const char *name, const uint8_t pk[SST_SECURE_KEY_LEN])
{
	char line[2 * KEY + 1 + SST_SECURE_NAME_MAX + 1];
	size_t len = strnlen(name, SST_SECURE_NAME_MAX);
	int fd;

	if (!name_ok(name, len))
		return -EINVAL;
	sodium_bin2hex(line, 2 * KEY + 1, pk, KEY);
	line[2 * KEY] = ' ';
	memcpy(line + 2 * KEY + 1, name, len);
	line[2 * KEY + 1 + len] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	return write_close(fd, line, 2 * KEY + 2 + len);
}

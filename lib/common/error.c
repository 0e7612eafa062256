/* SPDX-License-Identifier: BSD-3-Clause */
#include <limits.h>
#include <string.h>

#include "sst_error.h"

struct error_text {
	const char *name;
	const char *text;
};

static const struct error_text sst_errors[SST_ERROR_END - SST_ERROR_BASE] = {
	[SST_ETRUNC - SST_ERROR_BASE] = {"truncated", "input ends inside a field"},
	[SST_EBADTYPE - SST_ERROR_BASE] = {"bad-type", "unknown type"},
	[SST_EBADFLAGS - SST_ERROR_BASE] = {"bad-flags", "flag bits not defined for this type"},
	[SST_ERESERVED - SST_ERROR_BASE] = {"reserved", "reserved bits are not zero"},
	[SST_EBADMAGIC - SST_ERROR_BASE] = {"bad-magic", "unknown control magic"},
	[SST_EBADLEN -
		SST_ERROR_BASE] = {"bad-length", "length field disagrees with its container"},
	[SST_EBADPAD - SST_ERROR_BASE] = {"bad-padding", "XDR padding is not zero"},
	[SST_ETOOLONG - SST_ERROR_BASE] = {"too-long", "field longer than its bound"},
	[SST_ETRAILING - SST_ERROR_BASE] = {"trailing", "bytes after a complete structure"},
	[SST_EBADVALUE - SST_ERROR_BASE] = {"bad-value", "field value out of range"},
	[SST_ESEQRANGE - SST_ERROR_BASE] = {"seq-range", "sequence number not representable"},
	[SST_EBADAUTH - SST_ERROR_BASE] = {"bad-auth", "checksum or authenticator mismatch"},
};

/* Compare before negating: -INT_MIN is not an int. */
static const struct error_text *
sst_error_lookup(int err)
{
	if (err > -SST_ERROR_BASE || err <= -SST_ERROR_END)
		return NULL;
	return &sst_errors[-err - SST_ERROR_BASE];
}

const char *
sst_strerror(int err)
{
	const struct error_text *e;

	if (err == 0)
		return "success";
	e = sst_error_lookup(err);
	if (e != NULL)
		return e->text;
	if (err < 0 && err != INT_MIN)
		return strerror(-err);
	return "unknown error";
}

const char *
sst_error_name(int err)
{
	const struct error_text *e;

	if (err == 0)
		return "ok";
	e = sst_error_lookup(err);
	if (e != NULL)
		return e->name;
	return "errno";
}

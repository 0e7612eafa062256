/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Error convention: functions returning int give 0 (or a length) on success
 * and a negative number on failure. Failures that an operating system already
 * names use -errno (-EINVAL for a bad argument, -ENOSPC for an output buffer
 * that is too small, -ENOMEM). Malformed input from the network gets one of
 * the specific codes below, negated, so that a caller, a counter or a test can
 * tell exactly which rule a packet broke.
 */
#ifndef SST_ERROR_H
#define SST_ERROR_H

/** Base of the SST-specific codes: well above every errno value. */
#define SST_ERROR_BASE 1000

/** Kinds of malformed input. Decoders return them negated. */
enum sst_error {
	SST_ETRUNC = SST_ERROR_BASE, /**< input ends inside a field */
	SST_EBADTYPE,		     /**< unknown packet, header or chunk type */
	SST_EBADFLAGS,		     /**< flag bits not defined for this type */
	SST_ERESERVED,		     /**< reserved bits are not zero */
	SST_EBADMAGIC,		     /**< control packet with an unknown magic */
	SST_EBADLEN,		     /**< length field disagrees with its container */
	SST_EBADPAD,		     /**< XDR padding bytes are not zero */
	SST_ETOOLONG,		     /**< variable-length field above its bound */
	SST_ETRAILING,		     /**< bytes left over after a complete structure */
	SST_EBADVALUE,		     /**< field value outside its allowed range */
	SST_ESEQRANGE,		     /**< sequence number not representable */
	SST_EBADAUTH,		     /**< checksum or authenticator mismatch */
	SST_ERROR_END		     /**< one past the last code */
};

/**
 * Describe an error code.
 *
 * @param err
 *   A return value of an SST function: 0, -errno, or a negated enum sst_error.
 * @return
 *   A static string; never NULL.
 */
const char *sst_strerror(int err);

/**
 * Short stable name of an error code, for counters and JSON output
 * ("truncated", "bad-type", ...).
 *
 * @param err
 *   As for sst_strerror().
 * @return
 *   A static string; never NULL.
 */
const char *sst_error_name(int err);

#endif /* SST_ERROR_H */

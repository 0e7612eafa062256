/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry dictionaries from tables: every /sst/ handler answers with a
 * dictionary of named counters, so each writes its values as one table of
 * (name, value) rows and hands it over, rather than a call per value.
 */
#ifndef TEL_TABLE_H
#define TEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct rte_tel_data;

/** One counter of a telemetry dictionary. */
struct sst_tel_u64 {
	const char *name; /**< key; static storage */
	uint64_t value;
};

/**
 * Add rows to a dictionary that rte_tel_data_start_dict() started.
 *
 * @param d
 *   The reply being built.
 * @param rows
 *   n rows; keys must be shorter than RTE_TEL_MAX_STRING_LEN.
 * @param n
 *   Number of rows.
 * @return
 *   0, or the first error of rte_tel_data_add_dict_u64() (-ENOSPC: the
 *   dictionary is full; the rows before it were added).
 */
int sst_tel_dict_u64(struct rte_tel_data *d, const struct sst_tel_u64 *rows, size_t n);

/** One string of a telemetry dictionary. */
struct sst_tel_str {
	const char *name;  /**< key; static storage */
	const char *value; /**< copied into the reply */
};

/**
 * Add string rows to a dictionary that rte_tel_data_start_dict() started.
 *
 * @param d
 *   The reply being built.
 * @param rows
 *   n rows; keys must be shorter than RTE_TEL_MAX_STRING_LEN.
 * @param n
 *   Number of rows.
 * @return
 *   0, or the first error of rte_tel_data_add_dict_string().
 */
int sst_tel_dict_str(struct rte_tel_data *d, const struct sst_tel_str *rows, size_t n);

#endif /* TEL_TABLE_H */

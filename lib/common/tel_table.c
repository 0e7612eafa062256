/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_telemetry.h>

#include "tel_table.h"

int
sst_tel_dict_u64(struct rte_tel_data *d, const struct sst_tel_u64 *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = rte_tel_data_add_dict_u64(d, rows[i].name, rows[i].value);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int
sst_tel_dict_str(struct rte_tel_data *d, const struct sst_tel_str *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = rte_tel_data_add_dict_string(d, rows[i].name, rows[i].value);

		if (rc < 0)
			return rc;
	}
	return 0;
}

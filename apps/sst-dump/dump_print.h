/* SPDX-License-Identifier: BSD-3-Clause */
/* sst-dump output: one readable line, or one JSON object, per SST packet. */
#ifndef DUMP_PRINT_H
#define DUMP_PRINT_H

#include <stdio.h>

#include "dump_session.h"

struct dump_printer {
	FILE *out;
	bool json;
	bool quiet; /**< print only malformed and unverified packets */
};

/** Print one record: the dump_session emit callback. */
void dump_print_record(const struct dump_record *rec, void *printer);

#endif /* DUMP_PRINT_H */

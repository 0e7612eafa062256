/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Invariant checks for the libFuzzer targets. A failed check prints the
 * condition and aborts, which libFuzzer reports as a crash and saves the
 * input that caused it. Tests may abort; the libraries never do.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                       \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, \
				#cond);                                                        \
			abort();                                                               \
		}                                                                              \
	} while (0)

/* True when [p, p + n) lies inside [base, base + len). */
#define FUZZ_INSIDE(p, n, base, len)                                                 \
	((const uint8_t *)(p) >= (const uint8_t *)(base) &&                          \
		(size_t)((const uint8_t *)(p) - (const uint8_t *)(base)) <= (len) && \
		(size_t)(n) <= (len) - (size_t)((const uint8_t *)(p) - (const uint8_t *)(base)))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input reader for targets that read a program of operations: bytes run out
 * as zeros, which end the program. */
struct fuzz_input {
	const uint8_t *p;
	size_t left;
};

static inline uint8_t
fuzz_take(struct fuzz_input *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

#endif /* FUZZ_CHECK_H */

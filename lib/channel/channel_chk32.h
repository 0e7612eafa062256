/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chk32's kernels (internal, never installed): the part of the checksum
 * that runs over the bulk of a packet, one per instruction set, behind one
 * function type so that channel_chk32.c can pick one at start-up and the
 * tests can run each against the scalar reference.
 */
#ifndef CHANNEL_CHK32_H
#define CHANNEL_CHK32_H

#include <stddef.h>
#include <stdint.h>

/**
 * Add whole chunks (16 or 32 words) of big-endian words from p to the
 * exact running sums of the definition: a grows by each word, b by a after
 * each word. A kernel takes as many whole chunks as nwords holds, at any
 * alignment of p, and leaves the rest to the caller.
 *
 * Precondition: nwords is within one of channel_chk32.c's reduction blocks
 * (at most 2^20 words since *a and *b were last reduced), so the sums
 * cannot overflow.
 *
 * @return
 *   The words taken: nwords rounded down to a multiple of the kernel's
 *   chunk (16 words, 32 for AVX-512); the caller takes the rest.
 */
typedef size_t (*chk32_kernel_fn)(uint64_t *a, uint64_t *b, const uint8_t *p, size_t nwords);

/** The AVX2 kernel (channel_chk32_avx2.c); only on a CPU with AVX2. */
size_t chk32_kernel_avx2(uint64_t *a, uint64_t *b, const uint8_t *p, size_t nwords);

/** The AVX-512 kernel (channel_chk32_avx512.c), 32 words a step, which it
 * takes as many of as nwords holds (a multiple of 32, not of 16); only on
 * a CPU with AVX-512F and AVX-512BW. */
size_t chk32_kernel_avx512(uint64_t *a, uint64_t *b, const uint8_t *p, size_t nwords);

#endif /* CHANNEL_CHK32_H */

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A synthetic web trace for the SST paper's Figure 8 (issue 19,
docs/evaluation.md section 4): pages of one primary object (the HTML)
followed by zero or more secondary objects (images, scripts), with
heavy-tailed sizes. The paper drove its simulation with the UC Berkeley
Home IP traces; this generator needs no external trace, and the same seed
gives the same file on every machine (Python's random.Random is the
Mersenne Twister, specified and stable across versions).

The model and where its parameters come from:

- Object sizes (primary and secondary alike): SURGE's file-size model
  (P. Barford and M. Crovella, "Generating representative Web workloads
  for network and server performance evaluation", SIGMETRICS 1998,
  Table 1): a lognormal body, ln(bytes) ~ N(mu=9.357, sigma=1.318)
  (median 11.6 KB), and a Pareto tail above k=133 KB with alpha=1.1 for
  TAIL_FRACTION=7 % of the objects (their body/tail split, 93 % / 7 %).
  Sizes are clipped to [MIN_BYTES, MAX_BYTES]: 100 bytes (an HTTP error
  page) and 2 MB, so that one page cannot take minutes on the 1.5 Mbit/s
  link (a 2 MB object takes 11 s there).
- Secondary objects per page (SURGE's "embedded references"): SURGE uses
  a Pareto with k=1, alpha=2.43, whose pages rarely have more than 5
  objects; the paper's Figure 8 has groups up to 20 and more requests per
  page, so this generator keeps the Pareto shape with a heavier tail:
  with probability ZERO_SECONDARY=0.3 a page has none (the paper's
  leftmost group, pages of one request), otherwise
  floor(k * U^(-1/alpha)) with k=1, alpha=SECONDARY_ALPHA=1.0 (so that
  P(n >= m) = 1/m), clipped to MAX_SECONDARY=40: half of the pages that
  have secondaries have one, 5 % of them 20 or more (3.5 % of all pages).

The trace: comment lines (#) with the generator, its parameters and seed,
then one page per line: the sizes in bytes of its objects, primary first,
separated by spaces.

Usage: web_trace.py [--pages N] [--seed S] [--out FILE]
"""
import argparse
import math
import random
import sys

BODY_MU, BODY_SIGMA = 9.357, 1.318
TAIL_K, TAIL_ALPHA, TAIL_FRACTION = 133000, 1.1, 0.07
MIN_BYTES, MAX_BYTES = 100, 2000000
ZERO_SECONDARY, SECONDARY_ALPHA, MAX_SECONDARY = 0.3, 1.0, 40
DEFAULT_SEED, DEFAULT_PAGES = 19, 100


def object_size(rng):
    """Bytes of one object: SURGE's lognormal body or Pareto tail."""
    if rng.random() < TAIL_FRACTION:
        # Inverse transform of the Pareto CDF 1 - (k/x)^alpha; 1 - U is in
        # (0, 1], so no division by zero.
        size = TAIL_K * (1.0 - rng.random()) ** (-1.0 / TAIL_ALPHA)
    else:
        size = math.exp(rng.gauss(BODY_MU, BODY_SIGMA))
    return int(min(MAX_BYTES, max(MIN_BYTES, round(size))))


def secondary_count(rng):
    if rng.random() < ZERO_SECONDARY:
        return 0
    n = math.floor((1.0 - rng.random()) ** (-1.0 / SECONDARY_ALPHA))
    return min(MAX_SECONDARY, max(1, n))


def pages(n, seed):
    """n pages, each a list of object sizes, the primary first."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = secondary_count(rng)
        out.append([object_size(rng) for _ in range(1 + k)])
    return out


def header(n, seed):
    return (
        f"# web_trace.py --pages {n} --seed {seed}: one page per line, object sizes in bytes, "
        "primary first\n"
        f"# sizes: lognormal(mu={BODY_MU}, sigma={BODY_SIGMA}) body, Pareto(k={TAIL_K}, "
        f"alpha={TAIL_ALPHA}) tail for {TAIL_FRACTION:g} of objects (SURGE), "
        f"clipped to [{MIN_BYTES}, {MAX_BYTES}]\n"
        f"# secondaries: none with p={ZERO_SECONDARY:g}, else floor(Pareto(k=1, "
        f"alpha={SECONDARY_ALPHA})) up to {MAX_SECONDARY}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=DEFAULT_PAGES)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    if a.pages < 1:
        ap.error("--pages: at least 1")
    f = sys.stdout if a.out == "-" else open(a.out, "w")
    f.write(header(a.pages, a.seed))
    for p in pages(a.pages, a.seed):
        f.write(" ".join(str(s) for s in p) + "\n")
    if f is not sys.stdout:
        f.close()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""perf/web_trace.py, the synthetic web trace of Figure 8 (issue 19): the
same seed gives the same trace, another seed another one, and for a fixed
seed the distributions have the properties docs/evaluation.md claims. The
margins are those of 5,000 pages (about 20,000 objects) drawn with the
fixed seed, wide enough for any correct sampler, narrow enough to catch a
wrong parameter (a body median off by a third, no tail, ceil for floor).

Usage: web_trace_test.py PATH/TO/perf/web_trace.py
"""
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile

path = sys.argv[1]
spec = importlib.util.spec_from_file_location("web_trace", path)
wt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wt)
fails = 0


def check(what, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


pages = wt.pages(5000, 19)
check("same seed, same trace", pages == wt.pages(5000, 19))
check("another seed, another trace", pages != wt.pages(5000, 20))
sec = [len(p) - 1 for p in pages]
sizes = [s for p in pages for s in p]
zero = sec.count(0) / len(sec)
check(f"pages without secondaries: {zero:.3f} (0.3 +- 0.03)", abs(zero - 0.3) < 0.03)
# Discrete Pareto, alpha 1: P(n >= m) = 1/m among pages with secondaries.
some = [n for n in sec if n > 0]
one = some.count(1) / len(some)
check(f"one secondary among pages with some: {one:.3f} (0.5 +- 0.04)", abs(one - 0.5) < 0.04)
ge20 = sum(1 for n in some if n >= 20) / len(some)
check(f"20 or more among them: {ge20:.3f} (0.05 +- 0.015)", abs(ge20 - 0.05) < 0.015)
check(f"secondaries within 0..{wt.MAX_SECONDARY}", 0 <= min(sec) and max(sec) <= wt.MAX_SECONDARY)
# Body median exp(9.357) = 11.6 KB; the tail lifts the median of all a little.
med = statistics.median(sizes)
check(f"median object {med:.0f} bytes (11.6 KB to 14.5 KB)", 11600 <= med <= 14500)
# Above 133 KB: the 7 % tail plus the body's own share (P(ln x > ln 133000)
# = 1 - Phi(1.85) = 3.2 % of 93 %): about 10 %.
big = sum(1 for s in sizes if s > wt.TAIL_K) / len(sizes)
check(f"objects above 133 KB: {big:.3f} (0.10 +- 0.015)", abs(big - 0.10) < 0.015)
check("sizes clipped to [100, 2,000,000]",
      min(sizes) >= wt.MIN_BYTES and max(sizes) <= wt.MAX_BYTES)
check("some objects reach the 2 MB clip (heavy tail)", sizes.count(wt.MAX_BYTES) > 0)

# The file: a commented header with the seed, then one page per line.
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "trace")
    subprocess.run([sys.executable, path, "--pages", "50", "--seed", "7", "--out", out],
                   check=True)
    lines = open(out).read().splitlines()
    body = [l for l in lines if not l.startswith("#")]
    check("the header names the seed", any("--seed 7" in l for l in lines if l.startswith("#")))
    check("50 page lines matching pages(50, 7)",
          [[int(x) for x in l.split()] for l in body] == wt.pages(50, 7))
sys.exit(1 if fails else 0)

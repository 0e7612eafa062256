#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Figure 8 of the SST paper from scripts/evaluate.sh's fig8.csv (issue 19,
docs/evaluation.md section 4): the scatter of page load time against page
size, in five groups by requests per page as in the paper, one colour per
method (fig8.png), and the medians the acceptance is judged on, added to
summary.json under "fig8" (and printed).

fig8.csv: link,method,rep,page,requests,bytes,load_ms (a row per page
load). The medians are over the page loads every method completed (all
repetitions), so that a run that stopped early (a failed page ends it) is
not set against pages it never loaded; "ratio" medians are over those pages
of the per-page ratio of SST's load time to a method's (the same page, the
same repetition).

Usage: plot-web.py RESULTS_DIR
"""
import csv
import json
import os
import statistics
import sys

METHODS = [
    ("sst", "SST, a stream per object"),
    ("http1.0-serial", "HTTP/1.0 serial"),
    ("http1.0-parallel", "HTTP/1.0 parallel (8)"),
    ("http1.1-persistent", "HTTP/1.1 persistent (2)"),
    ("http1.1-pipelined", "HTTP/1.1 pipelined (2 x 4)"),
]
# Requests per page: the paper's five groups (their bounds are ours: the
# paper does not give them).
GROUPS = [(1, 1, "1 request"), (2, 2, "2"), (3, 4, "3-4"), (5, 8, "5-8"), (9, 10**9, "9 or more")]


def summarize(rows):
    loads = {}
    for r in rows:
        loads.setdefault(r["method"], set()).add((r["rep"], r["page"]))
    common = set.intersection(*loads.values())
    by = {}
    for r in rows:
        if (r["rep"], r["page"]) in common:
            by.setdefault(r["method"], []).append(r)
    out = {"median_load_ms": {}, "pages": {},
           "pages_loaded": {m: len(v) for m, v in loads.items()}}
    for m, rs in by.items():
        out["median_load_ms"][m] = statistics.median(float(r["load_ms"]) for r in rs)
        out["pages"][m] = len(rs)
    sst = {(r["rep"], r["page"]): float(r["load_ms"]) for r in by.get("sst", [])}
    out["sst_ratio_median"] = {}
    for m, rs in by.items():
        ratios = [sst[(r["rep"], r["page"])] / float(r["load_ms"]) for r in rs
                  if m != "sst" and (r["rep"], r["page"]) in sst and float(r["load_ms"]) > 0]
        if ratios:
            out["sst_ratio_median"][m] = statistics.median(ratios)
    out["groups"] = {}
    for lo, hi, name in GROUPS:
        g = {}
        for m, rs in by.items():
            v = [float(r["load_ms"]) for r in rs if lo <= int(r["requests"]) <= hi]
            if v:
                g[m] = {"median_load_ms": statistics.median(v), "pages": len(v)}
        out["groups"][name] = g
    return out


def plot(rows, path):
    import matplotlib
    import matplotlib.ticker
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(GROUPS), figsize=(9, 3.4), sharey=True)
    markers = ["o", "v", "^", "s", "x"]
    for ax, (lo, hi, name) in zip(axes, GROUPS):
        for (m, label), mk in zip(METHODS, markers):
            pts = [(int(r["bytes"]) / 1e3, float(r["load_ms"]) / 1e3) for r in rows
                   if r["method"] == m and lo <= int(r["requests"]) <= hi]
            if pts:
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, marker=mk,
                           label=label, alpha=0.75, linewidths=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        # Minor tick labels of a narrow log axis run into each other.
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(name, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("page size, KB", fontsize=7)
    axes[0].set_ylabel("page load time, s", fontsize=8)
    handles, labels = axes[-1].get_legend_handles_labels()
    for ax in axes:
        if len(ax.get_legend_handles_labels()[0]) > len(handles):
            handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, ncol=5, loc="lower center")
    fig.suptitle("Figure 8: web pages over 1.5 Mbit/s, 50 ms RTT, by requests per page",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=72)
    plt.close(fig)


def main():
    out = sys.argv[1]
    rows = list(csv.DictReader(open(os.path.join(out, "fig8.csv"))))
    if not rows:
        sys.exit("plot-web.py: no rows in fig8.csv")
    s = summarize(rows)
    path = os.path.join(out, "summary.json")
    summary = json.load(open(path)) if os.path.exists(path) else {}
    summary["fig8"] = s
    json.dump(summary, open(path, "w"), indent=1, sort_keys=True)
    for m, _ in METHODS:
        if m in s["median_load_ms"]:
            r = s["sst_ratio_median"].get(m)
            print(f"fig8 {m}: median page load {s['median_load_ms'][m]:.1f} ms over the "
                  f"{s['pages'][m]} pages all loaded ({s['pages_loaded'][m]} loaded)"
                  + (f", SST / it per page: {r:.2f}" if r else ""))
    plot(rows, os.path.join(out, "fig8.png"))


if __name__ == "__main__":
    main()

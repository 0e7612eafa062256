#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot an SST-DPDK event log (sst-perf --event-log FILE, JSON lines).

Writes two PNGs into DIR: cwnd.png (each channel's congestion window over
time, losses marked) and rtt.png (each channel's RTT samples and smoothed
RTT over time). Channels are named w<worker>.ch<number>; time is in seconds
from the first event of the file. Lines that are not JSON objects are
counted and reported, not fatal (a log cut by a crash ends mid-line).

Needs matplotlib (Debian python3-matplotlib, which scripts/setup-deps.sh eval
installs); without it the script says so and exits with status 3.

Usage: plot-events.py FILE --out DIR
"""

import argparse
import json
import os
import sys


def load(path):
    """The events of the file, and the number of lines that were not events."""
    events, bad = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(ev, dict) and "t" in ev and "ev" in ev:
                events.append(ev)
            else:
                bad += 1
    return events, bad


def by_channel(events, kind):
    """{channel name: [events of that kind]} in file order."""
    out = {}
    for ev in events:
        if ev["ev"] == kind:
            out.setdefault("w%s.ch%s" % (ev.get("w"), ev.get("ch")), []).append(ev)
    return out


def finish(plt, fig, ax, ylabel, title, legend, path):
    """Label a time plot, write it to path as PNG and release it."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="the event log (JSON lines)")
    ap.add_argument("--out", required=True, help="directory for cwnd.png and rtt.png")
    args = ap.parse_args()

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # setup-deps.sh installs Debian's package, for Debian's Python: a
        # python3 first on PATH (pyenv, a venv) may not see it.
        system = "/usr/bin/python3"
        if (os.path.realpath(sys.executable) != os.path.realpath(system)
                and os.access(system, os.X_OK) and not os.environ.get("SST_PLOT_REEXEC")):
            os.environ["SST_PLOT_REEXEC"] = "1"
            os.execv(system, [system] + sys.argv)
        print(
            "plot-events.py: matplotlib is not installed "
            "(Debian python3-matplotlib; scripts/setup-deps.sh eval installs it)",
            file=sys.stderr,
        )
        return 3

    events, bad = load(args.file)
    if not events:
        print("plot-events.py: %s holds no events" % args.file, file=sys.stderr)
        return 1
    t0 = min(ev["t"] for ev in events)

    def secs(ev):
        return (ev["t"] - t0) / 1e9

    os.makedirs(args.out, exist_ok=True)
    cwnd = by_channel(events, "cwnd")
    losses = by_channel(events, "loss")
    fig, ax = plt.subplots(figsize=(10, 5))
    for name, evs in sorted(cwnd.items()):
        line = ax.step([secs(e) for e in evs], [e["cwnd"] / 1024 for e in evs],
                       where="post", label=name)
        lost = losses.get(name, [])
        if lost:
            # Each loss at the window the channel had then.
            times = [secs(e) for e in evs]
            marks = []
            for ev in lost:
                i = max(0, sum(1 for t in times if t <= secs(ev)) - 1)
                marks.append(evs[i]["cwnd"] / 1024)
            ax.plot([secs(e) for e in lost], marks, "x", color=line[0].get_color(),
                    label=name + " losses")
    finish(plt, fig, ax, "congestion window (KiB)", "Congestion window over time", bool(cwnd),
           os.path.join(args.out, "cwnd.png"))

    rtt = by_channel(events, "rtt")
    fig, ax = plt.subplots(figsize=(10, 5))
    for name, evs in sorted(rtt.items()):
        t = [secs(e) for e in evs]
        pts = ax.plot(t, [e["sample_ns"] / 1e6 for e in evs], ".", markersize=2,
                      label=name + " samples")
        ax.plot(t, [e["srtt_ns"] / 1e6 for e in evs], "-", color=pts[0].get_color(),
                label=name + " srtt")
    finish(plt, fig, ax, "RTT (ms)", "Round-trip time over time", bool(rtt),
           os.path.join(args.out, "rtt.png"))

    print("plot-events.py: %d events (%d cwnd, %d rtt, %d losses) of %d channels -> %s%s"
          % (len(events), sum(map(len, cwnd.values())), sum(map(len, rtt.values())),
             sum(map(len, losses.values())), len(set(cwnd) | set(rtt)), args.out,
             "; %d lines were not events" % bad if bad else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

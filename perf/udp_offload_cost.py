#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""CPU cost per byte of SST bulk over kernel UDP across sst-linkem, with and
without udpsock's UDP offloads (GSO/GRO), interleaved in one sitting.

The set-up is scripts/evaluate.sh's (client namespace -- veth -- sst-linkem --
veth -- server namespace, the veths' offloads off), with two sst-perf servers:
one with the offloads (the default), one with --no-udp-offload. Each
repetition runs a bulk client of each kind, in alternating order, and reads
the CPU seconds (user + system) of the client (its rusage), of its server and
of sst-linkem (/proc/PID/stat, before and after), and turns them into cycles
per delivered payload byte at the TSC rate sst-perf reports. CPU seconds, not
goodput, are the measure on a machine others load: a process's time is its
own whatever the neighbours do (less the cache and frequency effects).
Kernel work done in softirq context on behalf of a process is counted for
whoever the interrupt happened to land on, so the sum of the three is the
figure to compare, not each alone.

Needs root. Usage (from the source tree, after scripts/build.sh):
    perf/udp_offload_cost.py [--build build-fast] [--base DIR] [--reps 5]
        [--time 8] [--rate 1000] [--delay 1] [--cc newreno] [--gro] [--json OUT]
--base DIR adds a third kind, "base": sst-perf of another build (an older
tree's build-fast, e.g. from `git archive COMMIT | tar -x`), client and
server, interleaved with the other two.
--gro leaves GRO on the end veths (the kernel then coalesces what reaches
the server; kernel TCP would profit too), to measure the receive side.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TCK = os.sysconf("SC_CLK_TCK")


def sh(*args, check=True):
    return subprocess.run(args, check=check, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)


def cpu_s(pid):
    """User + system seconds of a live process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TCK


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build-fast")
    ap.add_argument("--base")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--time", type=float, default=8)
    ap.add_argument("--rate", default="1000")
    ap.add_argument("--delay", default="1")
    ap.add_argument("--cc", default="newreno")
    ap.add_argument("--gro", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    perf = os.path.join(root, a.build, "apps/sst-perf/sst-perf")
    lem = os.path.join(root, a.build, "apps/sst-linkem/sst-linkem")
    for b in (perf, lem):
        if not os.access(b, os.X_OK):
            sys.exit(f"udp_offload_cost: {b} is missing (scripts/build.sh)")
    tag = os.getpid()
    nc, nm, ns = f"uocc{tag}", f"uocm{tag}", f"uocs{tag}"
    ca, cb, sa, sb = f"uoca{tag}", f"uocb{tag}", f"uosa{tag}", f"uosb{tag}"
    ip_c, ip_s = "10.81.0.1", "10.81.0.2"
    procs = []
    try:
        for n in (nc, nm, ns):
            sh("ip", "netns", "add", n)
        sh("ip", "-n", nm, "link", "add", ca, "type", "veth", "peer", "name", cb, "netns", nc)
        sh("ip", "-n", nm, "link", "add", sa, "type", "veth", "peer", "name", sb, "netns", ns)
        sh("ip", "-n", nc, "addr", "add", ip_c + "/24", "dev", cb)
        sh("ip", "-n", ns, "addr", "add", ip_s + "/24", "dev", sb)
        for n, d in ((nc, cb), (ns, sb), (nm, ca), (nm, sa)):
            gro = "on" if a.gro and d in (cb, sb) else "off"
            sh("ip", "netns", "exec", n, "ethtool", "-K", d, "tx", "off", "rx", "off",
               "tso", "off", "gso", "off", "gro", gro, check=False)
            sh("ip", "-n", n, "link", "set", d, "up")
        lemp = subprocess.Popen(["ip", "netns", "exec", nm, lem, "--rate", a.rate,
                                 "--delay", a.delay, "--quiet", ca, sa],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(lemp)
        servers = {}
        kinds = [("offload", perf, 4433, []), ("no-offload", perf, 4434, ["--no-udp-offload"])]
        if a.base:
            base = os.path.join(os.path.abspath(a.base), "apps/sst-perf/sst-perf")
            if not os.access(base, os.X_OK):
                sys.exit(f"udp_offload_cost: {base} is missing")
            kinds.append(("base", base, 4435, []))
        for kind, binary, port, extra in kinds:
            p = subprocess.Popen(["ip", "netns", "exec", ns, binary, "--", "--server", "--udp",
                                  f"{ip_s}:{port}", "--mtu", "1472", "--quiet"] + extra,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(p)
            servers[kind] = (p, binary, port, extra)
        for _ in range(80):
            if sh("ip", "netns", "exec", nc, "ping", "-c", "1", "-W", "1", ip_s,
                  check=False).returncode == 0:
                break
            time.sleep(0.25)
        else:
            sys.exit("udp_offload_cost: no ping across sst-linkem")
        time.sleep(0.5)
        runs = []
        for r in range(a.reps):
            order = [k[0] for k in kinds]
            order = order[r % len(order):] + order[:r % len(order)]
            for kind in order:
                srv, binary, port, extra = servers[kind]
                la = loadavg()
                s0, l0 = cpu_s(srv.pid), cpu_s(lemp.pid)
                cli = subprocess.Popen(["ip", "netns", "exec", nc, binary, "--", "--udp",
                                        f"{ip_s}:{port}", "--mtu", "1472", "--cc", a.cc,
                                        "--time", str(a.time), "--json", "--quiet"] + extra +
                                       ["bulk"], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
                out = cli.stdout.read()
                _, status, ru = os.wait4(cli.pid, 0)
                cli.returncode = status
                s1, l1 = cpu_s(srv.pid), cpu_s(lemp.pid)
                d = json.loads(out)
                if not d.get("ok"):
                    print(f"#{r + 1} {kind}: failed: {d.get('error')}", flush=True)
                    continue
                hz, nbytes = d["tsc_hz"], d["payload_bytes"]
                c = ru.ru_utime + ru.ru_stime
                row = {"rep": r + 1, "kind": kind, "load": la,
                       "goodput_mbps": d["goodput_mbps"], "bytes": nbytes,
                       "retransmits": d["retransmits"],
                       "client_cpb": c * hz / nbytes, "server_cpb": (s1 - s0) * hz / nbytes,
                       "linkem_cpb": (l1 - l0) * hz / nbytes}
                row["total_cpb"] = row["client_cpb"] + row["server_cpb"] + row["linkem_cpb"]
                runs.append(row)
                print(f"#{row['rep']} {kind:10s} load {la:4.2f}  {row['goodput_mbps']:8.1f} "
                      f"Mbit/s  retx {row['retransmits']:5d}  cycles/byte client "
                      f"{row['client_cpb']:5.2f} server {row['server_cpb']:5.2f} linkem "
                      f"{row['linkem_cpb']:5.2f} total {row['total_cpb']:5.2f}", flush=True)
        print("medians:")
        for kind in [k[0] for k in kinds]:
            rs = [x for x in runs if x["kind"] == kind]
            if not rs:
                continue
            med = {k: statistics.median(x[k] for x in rs)
                   for k in ("goodput_mbps", "client_cpb", "server_cpb", "linkem_cpb",
                             "total_cpb", "load")}
            print(f"  {kind:10s} n={len(rs)} {med['goodput_mbps']:8.1f} Mbit/s  cycles/byte "
                  f"client {med['client_cpb']:.2f} server {med['server_cpb']:.2f} linkem "
                  f"{med['linkem_cpb']:.2f} total {med['total_cpb']:.2f}  (load "
                  f"{med['load']:.2f})")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"args": vars(a), "runs": runs}, f, indent=1)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        for n in (nc, nm, ns):
            sh("ip", "netns", "del", n, check=False)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where each flow of a fairness run lost its packets (docs/evaluation.md, section 2).

Reads two captures of one run of scripts/evaluate.sh's fair experiment
(--fair-capture): one on the client's veth, before sst-linkem, and one on the
server's, after it. Every data packet sent is matched with its copy on the
far side by its IP header and first transport bytes (which the emulator does
not change), so a packet missing on the far side was dropped by the link:
its queue or its random loss. Per flow (SST: UDP to port 4433; TCP: to
5202, the largest connection) it prints:

- packets sent and lost (the last half second left out: still in flight);
- with SST's event log (sst-perf --event-log), how many of its declared
  losses were real (a declared loss whose packet reached the server is a
  spurious one) and how many real losses it never declared;
- the loss rate by position in a burst (packets less than 60 us apart on the
  client's veth: each ack releases one), which separates drops a flow's
  own bursts cause from the rest;
- the queue's occupancy each packet found, reconstructed from the two
  captures (a packet delivered at time t left the queue at t minus the
  one-way delay), and the phase of its arrival after the last departure,
  in service times of a full-sized packet;
- for its lost packets, whose packet the queue took last before each, if
  it came after the last departure (the place that departure freed went
  to that flow's packet: its own, the first of its pair, or the other
  flow's), and how often each flow's packet took a departure's place
  first.

Only Python's standard library: the captures are read as pcap (dumpcap -P).

Usage: fair-drops.py CLIENT.pcap SERVER.pcap --rate MBIT --delay MS
                     [--queue BYTES] [--events SST-EVENTS.jsonl]
"""

import argparse
import bisect
import collections
import json
import struct
import sys

SST_PORT, TCP_PORT = 4433, 5202
BURST_GAP = 60e-6


def read_pcap(path):
    """Packets of a pcap file as dicts; IPv4 UDP and TCP only."""
    out = []
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            return out
        magic = struct.unpack("<I", head[:4])[0]
        if magic not in (0xA1B2C3D4, 0xA1B23C4D):
            sys.exit("%s: not a little-endian pcap file (use dumpcap -P)" % path)
        scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, frac, incl, _ = struct.unpack("<IIII", rec)
            d = f.read(incl)
            if len(d) < 34 or d[12:14] != b"\x08\x00":
                continue
            ip = d[14:]
            ihl = (ip[0] & 15) * 4
            proto, total = ip[9], struct.unpack(">H", ip[2:4])[0]
            l4 = ip[ihl:]
            if proto not in (6, 17) or len(l4) < 20:
                continue
            sport, dport = struct.unpack(">HH", l4[:4])
            if proto == 17:
                plen, tsn = total - ihl - 8, None
                if len(l4) >= 12:
                    tsn = struct.unpack(">I", l4[8:12])[0] & 0xFFFFFF
            else:
                plen, tsn = total - ihl - (l4[12] >> 4) * 4, None
            out.append({
                "t": sec + frac * scale, "udp": proto == 17, "sport": sport,
                "dport": dport, "len": plen, "tsn": tsn,
                # IP header without TTL and checksum, then transport bytes.
                "key": bytes(ip[:8]) + bytes(ip[12:20]) + bytes(l4[:20]),
            })
    return out


def upstream(p):
    return p["dport"] in (SST_PORT, TCP_PORT)


def flow_of(p):
    return ("sst" if p["udp"] else "tcp", p["sport"] if upstream(p) else p["dport"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("client")
    ap.add_argument("server")
    ap.add_argument("--rate", type=float, required=True, help="link rate, Mbit/s")
    ap.add_argument("--delay", type=float, required=True, help="one-way delay, ms")
    ap.add_argument("--queue", type=int, default=48000, help="queue, bytes")
    ap.add_argument("--events", help="SST's event log of the run")
    a = ap.parse_args()
    svc = 1500 * 8 / (a.rate * 1e6)
    cap = a.queue // 1500
    cli, srv = read_pcap(a.client), read_pcap(a.server)
    arrived = collections.Counter(p["key"] for p in srv if upstream(p))
    departures = sorted(p["t"] - a.delay / 1e3 for p in srv if upstream(p))
    sent = [p for p in cli if upstream(p)]
    for p in sent:
        p["lost"] = arrived[p["key"]] == 0
        if not p["lost"]:
            arrived[p["key"]] -= 1
    # Occupancy: delivered packets that arrived before t and left after it.
    in_times = sorted(p["t"] for p in sent if not p["lost"])
    data = [p for p in sent if p["len"] > 200]
    if not data:
        sys.exit("no data packets in %s" % a.client)
    flows = collections.defaultdict(list)
    for p in data:
        flows[flow_of(p)].append(p)
    # The largest flow of each kind (iperf3's control connection is small).
    chosen = {}
    for k, v in flows.items():
        if k[0] not in chosen or len(v) > len(flows[chosen[k[0]]]):
            chosen[k[0]] = k
    # Admitted data packets of the two flows, in arrival order, with the
    # first arrival after each departure.
    admitted = sorted((p["t"], flow_of(p)[0]) for k in chosen.values() for p in flows[k]
                      if not p["lost"])
    adm_t = [t for t, _ in admitted]
    first_after = collections.Counter()
    for d in departures:
        i = bisect.bisect_right(adm_t, d)
        if i < len(admitted):
            first_after[admitted[i][1]] += 1
    for kind in ("sst", "tcp"):
        if kind not in chosen:
            continue
        pk = flows[chosen[kind]]
        end = pk[-1]["t"] - 0.5
        pk = [p for p in pk if p["t"] <= end]
        lost = [p for p in pk if p["lost"]]
        print("%s (port %d): %.1f s, %d data packets sent, %d lost on the link (%.2f %%)" % (
            kind, chosen[kind][1], pk[-1]["t"] - pk[0]["t"], len(pk), len(lost),
            100.0 * len(lost) / len(pk)))
        if kind == "sst" and a.events:
            declared = set()
            with open(a.events, encoding="utf-8") as f:
                for line in f:
                    if '"loss"' in line:
                        declared.add(json.loads(line)["seq"] & 0xFFFFFF)
            real = {p["tsn"] for p in lost}
            sent = {p["tsn"] for p in pk}
            declared &= sent
            print("  declared lost %d: %d really lost, %d spurious; %d real losses never declared"
                  % (len(declared), len(declared & real), len(declared - real),
                     len(real - declared)))
        bursts, cur = [], [pk[0]]
        for prev, p in zip(pk, pk[1:]):
            if p["t"] - prev["t"] < BURST_GAP:
                cur.append(p)
            else:
                bursts.append(cur)
                cur = [p]
        bursts.append(cur)
        n, l = collections.Counter(), collections.Counter()
        for b in bursts:
            for i, p in enumerate(b):
                key = (min(len(b), 3), min(i + 1, 3))
                n[key] += 1
                l[key] += p["lost"]
        print("  loss by burst size and position (3: 3 or more):")
        for size in (1, 2, 3):
            print("    burst %d: %s" % (size, "  ".join(
                "#%d %d/%d = %.2f %%" % (pos, l[(size, pos)], n[(size, pos)],
                                        100.0 * l[(size, pos)] / max(1, n[(size, pos)]))
                for pos in range(1, size + 1))))
        occ, phase = collections.Counter(), collections.Counter()
        for p in pk:
            o = bisect.bisect_left(in_times, p["t"]) - bisect.bisect_right(departures, p["t"])
            occ[min(max(o, 0), cap) >= cap - 2] += 1
            i = bisect.bisect_right(departures, p["t"]) - 1
            if i >= 0:
                phase[min(int((p["t"] - departures[i]) / svc * 5), 5)] += 1
        print("  arrived with the queue within 2 packets of full: %.1f %%" % (
            100.0 * occ[True] / len(pk)))
        taker = collections.Counter()
        for p in lost:
            i = bisect.bisect_left(adm_t, p["t"]) - 1
            j = bisect.bisect_right(departures, p["t"]) - 1
            if i < 0 or j < 0 or adm_t[i] <= departures[j]:
                taker["nobody since the last departure"] += 1
            else:
                taker["sst" if admitted[i][1] == "sst" else "tcp"] += 1
        print("  its losses, by whose packet the queue took last, after the last departure: "
              + ", ".join("%s %d" % (k, v) for k, v in sorted(taker.items())))
        print("  departures whose freed place its packet took first: %d of %d" % (
            first_after[kind], len(departures)))
        print("  arrival phase after the last departure (service times): " + " ".join(
            "%.1f-%s %.0f %%" % (b / 5, "%.1f" % ((b + 1) / 5) if b < 5 else "",
                                 100.0 * phase[b] / len(pk)) for b in range(6)))


if __name__ == "__main__":
    main()

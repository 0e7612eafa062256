#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The SST paper's experiments, SST-DPDK against the kernel's TCP and UDP on
# the same emulated links (issue 19, docs/evaluation.md):
#
#   client namespace -- veth -- sst-linkem (middle namespace) -- veth -- server namespace
#
# sst-linkem applies the link model (rate, one-way delay, loss, bottleneck
# queue) each way; SST runs as sst-perf over kernel UDP in the namespaces
# (and, in bulk, also over net_af_packet ports on the same veths),
# the kernel as iperf3 (bulk) and perf/txn_anchor (transactions).
#
# Experiments (--only takes a comma-separated list of these names):
#   bulk   bulk goodput, one flow: SST (NewReno, CUBIC) vs TCP (Reno, CUBIC)
#   fair   SST and TCP sharing the bottleneck: shares and Jain's index
#   fairtcp  (only when named) fair's control: kernel TCP against kernel
#          TCP, started as SST and TCP are in fair (--fair-start)
#   fig7   Figure 7: transaction latency vs response size: SST new stream
#          per transaction, TCP connection per transaction, persistent TCP,
#          UDP (up to 64 KB)
#   fig8   Figure 8: a web workload on the DSL link: the pages of a
#          synthetic trace (perf/web_trace.py, seeded) loaded by SST, a
#          stream per object (sst-perf web), and over kernel TCP by
#          perf/web_anchor as HTTP/1.0 serial, HTTP/1.0 parallel (8),
#          HTTP/1.1 persistent (2) and pipelined (2 x 4): page load times
#   fig9   Figure 9: three 1.5 MB downloads over the DSL link, the third
#          with a high priority at 5 s, the second raised above the first
#          at 10 s (sst-perf prio): received bytes over time
#   headers  Table 1: header bytes per data packet, ack and stream creation,
#          from captures (dumpcap; sst-dump and tshark decode them)
#
# Results: results/<date-time>/ (git-ignored): raw/ (every tool's output),
# one CSV per experiment, summary.json (medians and spreads) and PNG plots
# (python3-matplotlib; scripts/setup-deps.sh eval installs it).
#
# Usage: scripts/evaluate.sh [--quick] [--only LIST] [--links LIST] [--build DIR] [--out DIR]
#        scripts/evaluate.sh --plot-only DIR
#   --quick   shorter runs, one repetition (under 10 minutes: 6 s bulk
#             runs, 15 s fairness runs, fewer transactions per Figure 7
#             point, a 14-page Figure 8 trace); the full run repeats each
#             point 5 times, 60 s per bulk and fairness run
#   --links   the bulk and fair experiments' links (default: all; names below)
#   --fair-start together|tcp-first   how fair's two flows start: at the
#             same moment, as the paper's "two downloads at once" (the
#             default), or TCP first and SST a second later, into the
#             queue TCP has filled (the harder case; fairtcp's second
#             flow likewise)
#   --fair-time S   seconds per fairness run (default 15 quick, 60 full)
#   --reps N  repetitions of each point (default 1 quick, 5 full)
#   --linkem-args "ARGS"   extra sst-linkem options for every link (e.g.
#             "--jitter 0/5": 5 ms of random delay on the acks' way)
#   --no-udp-offload   SST over kernel UDP without the kernel's UDP
#             segmentation offloads (GSO, GRO; sst-perf --no-udp-offload),
#             as before session 14, for before-and-after figures
#   --fair-emulator auto|busy|idle   how sst-linkem waits for frames in
#             fair and fairtcp: polling without a pause (busy), or sleeping
#             when idle, as in the other experiments, never past the next
#             delivery nor the link's one-way delay (idle; frames enter the
#             queue at the kernel's stamp of their arrival either way since
#             session 15); auto
#             (the default): busy on wifi, where the emulator's former
#             50 us sleeps biased the drops against the slower host's flow
#             and idle has not yet been shown to give the same shares,
#             idle on dsl (docs/evaluation.md section 2). The former idle
#             mode: --linkem-args "--wait sleep --arrival read"
#   --fair-capture   fair also captures every pair on both sides of the
#             emulator (dumpcap, 80 bytes a frame) and writes per flow the
#             packets the link dropped, by position in the sender's bursts,
#             and SST's spurious and undeclared losses
#             (raw/fair-<link>-<cc>-<rep>-drops.txt, scripts/fair-drops.py),
#             and the client's TCP counters over the pair (recovery episodes,
#             timeouts, undos: raw/fair-<link>-<cc>-<rep>-tcpstat.txt)
#   --bulk-events   bulk's SST runs also write the sender's event log
#             (raw/bulk-<link>-<stack>-<cc>-<rep>-events.jsonl: its window,
#             data in flight, RTT and losses), to tell what holds a flow
#             below the link's rate; the log costs the sender some CPU
#   --plot-only DIR   only redo summary.json and the plots of a results folder
# Needs root (namespaces, af_packet), iproute2, ethtool, ping, iperf3, and
# for Table 1 dumpcap and tshark; builds DIR (scripts/build.sh release) when
# a tool is missing.
set -u
cd "$(dirname "$0")/.."
root=$(pwd)

quick=0
only=bulk,fair,fig7,fig8,fig9,headers
links=
plot_only=
fair_start=together
fair_time=
fair_capture=0
bulk_events=0
fair_emulator=auto
reps_arg=
linkem_args=
udp_opts=()
build=build
out=
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--only) only=${2:?--only needs a list}; shift ;;
	--links) links=${2:?--links needs a list}; shift ;;
	--fair-start) fair_start=${2:?--fair-start needs together or tcp-first}; shift ;;
	--fair-time) fair_time=${2:?--fair-time needs seconds}; shift ;;
	--fair-capture) fair_capture=1 ;;
	--bulk-events) bulk_events=1 ;;
	--fair-emulator) fair_emulator=${2:?--fair-emulator needs auto, busy or idle}; shift ;;
	--reps) reps_arg=${2:?--reps needs a count}; shift ;;
	--linkem-args) linkem_args=${2?--linkem-args needs options}; shift ;;
	--no-udp-offload) udp_opts=(--no-udp-offload) ;;
	--build) build=${2:?--build needs a directory}; shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--plot-only) plot_only=${2:?--plot-only needs a results directory}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "evaluate.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "evaluate.sh: $*" >&2; exit 1; }
# summarize DIR: summary.json (median, min and max of every point over its
# repetitions) and the PNG plots from the CSVs.
summarize() {
	"$py" - "$1" <<'PY'
import csv, json, os, statistics, sys
out = sys.argv[1]

def rows(name):
    path = os.path.join(out, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []

def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None

def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}

def group(rs, keys, field):
    g = {}
    for r in rs:
        g.setdefault(tuple(r[k] for k in keys), []).append(num(r[field]))
    return {"/".join(k): stats(v) for k, v in g.items()}

bulk, fair, fig7 = rows("bulk.csv"), rows("fair.csv"), rows("fig7.csv")
fig9 = rows("fig9.csv")

def fig9_done(rs, i):
    """Per repetition: when download i had all its bytes (s)."""
    reps = {}
    for r in rs:
        reps.setdefault(r["rep"], []).append(r)
    done = []
    for rr in reps.values():
        last = int(rr[-1][f"req{i}_bytes"])
        done.append(next(float(r["t_s"]) for r in rr if int(r[f"req{i}_bytes"]) == last))
    return stats(done)

summary = {
    "bulk_goodput_mbps": group(bulk, ["link", "stack", "cc"], "goodput_mbps"),
    "fair_sst_share": group(fair, ["link", "pair"], "sst_share"),
    "fair_jain": group(fair, ["link", "pair"], "jain"),
    "fig7_p50_us": group(fig7, ["method", "response_bytes"], "p50_us"),
    "fig9_done_s": {f"request{i}": fig9_done(fig9, i) for i in (1, 2, 3)} if fig9 else {},
}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1, sort_keys=True)

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def save(fig, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=72)
    plt.close(fig)

if bulk:
    links = list(dict.fromkeys(r["link"] for r in bulk))
    rate = {r["link"]: float(r["rate_mbps"]) for r in bulk}
    names = {"sst": "SST (UDP socket)", "sst-afp": "SST (af_packet)", "tcp": "TCP"}
    series = [(st, cc) for st, cc in [("sst", "newreno"), ("sst", "cubic"), ("sst-afp", "newreno"),
                                      ("sst-afp", "cubic"), ("tcp", "reno"), ("tcp", "cubic")]
              if any(r["stack"] == st for r in bulk)]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    w = 0.8 / len(series)
    for i, (st, cc) in enumerate(series):
        ys = []
        for l in links:
            s = summary["bulk_goodput_mbps"].get(f"{l}/{st}/{cc}")
            ys.append(100 * s["median"] / rate[l] if s else 0)
        ax.bar([x + (i - (len(series) - 1) / 2) * w for x in range(len(links))], ys, w,
               label=f"{names[st]} {cc}")
    ax.set_xticks(range(len(links)))
    ax.set_xticklabels([f"{l}\n{rate[l]:g} Mbit/s" for l in links], fontsize=8)
    ax.set_ylabel("goodput, % of link rate")
    ax.set_ylim(0, 125)
    ax.legend(fontsize=7, ncol=4, loc="upper center")
    ax.set_title("Bulk goodput, one flow (median)", fontsize=9)
    save(fig, "bulk.png")

if fair:
    keys = list(summary["fair_sst_share"].keys())
    fig, ax = plt.subplots(figsize=(6.4, 3))
    ys = [100 * summary["fair_sst_share"][k]["median"] for k in keys]
    ax.bar(range(len(keys)), ys, 0.5, color="tab:blue", label="SST")
    ax.bar(range(len(keys)), [100 - y for y in ys], 0.5, bottom=ys, color="tab:orange",
           label="TCP")
    ax.axhline(50, color="k", lw=0.8, ls="--")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([k.replace("/", "\n") for k in keys], fontsize=7)
    ax.set_ylabel("share of goodput, %")
    ax.legend(fontsize=7)
    ax.set_title("SST and TCP sharing one bottleneck", fontsize=9)
    save(fig, "fair.png")

if fig7:
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels = {"sst": "SST, new stream per transaction", "tcp-conn": "TCP, connection per transaction",
              "tcp-persist": "TCP, persistent connection", "udp": "UDP, response in one-packet datagrams"}
    for m, label in labels.items():
        pts = sorted((int(k.split("/")[1]), v["median"] / 1000)
                     for k, v in summary["fig7_p50_us"].items() if k.split("/")[0] == m and v)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("response size, bytes")
    ax.set_ylabel("transaction latency, ms (median)")
    ax.legend(fontsize=7)
    ax.set_title("Figure 7: 1.5 Mbit/s, 50 ms RTT", fontsize=9)
    save(fig, "fig7.png")

if fig9:
    # The first repetition: a time series has no median. The schedule is
    # exp_fig9's --prio-at.
    first = [r for r in fig9 if r["rep"] == fig9[0]["rep"]]
    t = [float(r["t_s"]) for r in first]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for i, label in ((1, "request 1"), (2, "request 2"), (3, "request 3 (high priority)")):
        ax.plot(t, [int(r[f"req{i}_bytes"]) / 1e6 for r in first], label=label)
    for x, what in ((5, "request 3"), (10, "request 2 raised")):
        ax.axvline(x, color="k", lw=0.6, ls=":")
        ax.text(x + 0.2, 1.52, what, fontsize=7)
    ax.set_xlabel("time, s")
    ax.set_ylabel("bytes received, MB")
    ax.set_ylim(0, 1.65)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Figure 9: priorities, 1.5 Mbit/s, 50 ms RTT", fontsize=9)
    save(fig, "fig9.png")
PY
	# Figure 8's medians (into summary.json) and its scatter plot.
	[ ! -s "$1/fig8.csv" ] || "$py" "$root/scripts/plot-web.py" "$1" >&2
}

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
want() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }

# Debian's python3-matplotlib lives in the system's python3, which a
# python3 of one's own (pyenv, venv) earlier on the PATH does not see.
py=python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && py=/usr/bin/python3
if [ -n "$plot_only" ]; then
	summarize "$plot_only"
	exit
fi
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, af_packet)"
for t in ip ethtool ping iperf3 python3 $(want headers && echo dumpcap tshark) \
	$([ $fair_capture -eq 1 ] && want fair && echo dumpcap nstat); do
	command -v "$t" >/dev/null || die "needs $t (scripts/setup-deps.sh eval)"
done
perf_bin=$root/$build/apps/sst-perf/sst-perf
lem_bin=$root/$build/apps/sst-linkem/sst-linkem
txn_bin=$root/$build/perf/txn_anchor
web_bin=$root/$build/perf/web_anchor
dump_bin=$root/$build/apps/sst-dump/sst-dump
for b in "$perf_bin" "$lem_bin" "$txn_bin" "$dump_bin" "$web_bin"; do
	[ "$b" = "$txn_bin" ] && ! want fig7 && ! want fig8 && ! want headers && continue
	[ "$b" = "$web_bin" ] && ! want fig8 && continue
	[ "$b" = "$dump_bin" ] && ! want headers && continue
	if [ ! -x "$b" ]; then
		# From a clean clone: build once (a few minutes).
		log "$b is missing: scripts/build.sh release $build"
		scripts/build.sh release "$build" >&2 || die "the build failed"
	fi
	[ -x "$b" ] || die "$b is missing after the build"
done

[ -n "$out" ] || out=$root/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out/raw" || die "cannot create $out"
raw=$out/raw

# Links: name, rate Mbit/s, one-way delay ms, loss %. The paper's DSL and
# WiFi-like links, then modern ones.
links_all=(
	"dsl 1.5 25 0"
	"wifi 18 10 0.1"
	"lan100 100 10 0"
	"gig 1000 1 0"
	"mobile 50 30 0.1"
)
# Figure 7: transactions per point up to 64 KB (fig7_n) and from 128 KB
# (fig7_n_large).
# Figure 8's trace: perf/web_trace.py's seed and pages (docs/evaluation.md,
# section 4). The quick run's is the 14-page trace with every group of
# requests per page and about the full trace's median page size (57.5 KB
# against 50.5 KB; 1.07 MB in all, where seed 19's first 20 pages hold
# 5.7 MB and took 4 of the quick run's 13 minutes).
if [ $quick -eq 1 ]; then
	reps=1 bulk_s=6 fair_s=15 fair_links="dsl wifi"
	fig7_sizes="32 128 512 2048 8192 32768 131072 524288"
	fig7_n=7 fig7_n_large=2
	fig8_seed=353 fig8_pages=14
else
	reps=5 bulk_s=60 fair_s=60 fair_links="dsl wifi"
	fig7_sizes=$(for i in $(seq 5 21); do echo $((1 << i)); done)
	fig7_n=9 fig7_n_large=3
	fig8_seed=19 fig8_pages=60
fi
case "$fair_emulator" in
auto | busy | idle) ;;
*) echo "evaluate.sh: --fair-emulator takes auto, busy or idle, not '$fair_emulator'" >&2; exit 2 ;;
esac
case "$fair_start" in
together | tcp-first) ;;
*) echo "evaluate.sh: --fair-start takes together or tcp-first, not '$fair_start'" >&2; exit 2 ;;
esac
for v in "$fair_time" "$reps_arg"; do
	case "$v" in
	'') ;;
	*[!0-9]* | 0) echo "evaluate.sh: --fair-time and --reps take a positive whole number, not '$v'" >&2; exit 2 ;;
	esac
done
[ -n "$fair_time" ] && fair_s=$fair_time
[ -n "$reps_arg" ] && reps=$reps_arg
# With tcp-first the second flow starts this many seconds after the first;
# the first runs that much longer, so that it ends last.
fair_lead=0
[ "$fair_start" = tcp-first ] && fair_lead=1

tag=$$
ns_c=sst-ev-c$tag ns_m=sst-ev-m$tag ns_s=sst-ev-s$tag
ip_c=10.79.0.1 ip_s=10.79.0.2
# SST-DPDK on the same veths as DPDK ports (net_af_packet), at addresses
# and Ethernet addresses the kernels there do not hold (so they drop our
# frames as another host's instead of routing them): lib/net answers ARP
# for them and builds the frames, as on a NIC (bulk's "sst-afp" stack).
afp_ip_c=10.79.0.11 afp_ip_s=10.79.0.12
afp_mac_c=02:53:45:56:00:0b afp_mac_s=02:53:45:56:00:0c
afp_eal=(--no-huge --no-pci -m 512 --no-telemetry --log-level=lib.eal:error)
sst_port=4433 txn_port=5301 fair_port=5202
# SST's channel packets as large as the link's 1500-byte MTU allows over
# UDP (the default, 1232, is the safe size for unknown paths), so that SST
# and TCP send packets of the same size.
sst_mtu=1472
lem_pid= servers=()
# sst-linkem options of the experiment running (for_fair_links: --busy).
lem_mode=

cleanup() {
	trap - EXIT INT TERM
	# What an interrupted experiment left running (its iperf3 clients).
	# shellcheck disable=SC2046
	kill $(jobs -p) 2>/dev/null
	[ -n "$lem_pid" ] && kill "$lem_pid" 2>/dev/null && wait "$lem_pid" 2>/dev/null
	for p in "${servers[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${servers[@]}"; do wait "$p" 2>/dev/null; done
	for n in "$ns_c" "$ns_m" "$ns_s"; do ip netns del "$n" 2>/dev/null; done
}
# INT (Ctrl-C, to the whole process group) and TERM stop the run at once:
# the commands in the namespaces run in the background and the script
# waits for them (in_c, in_s), because a signal interrupts `wait`, where
# bash ran no trap at all when a foreground sst-perf or iperf3 handled the
# INT itself and exited (the script went on without its emulator and
# servers). The handler stops the command waited for.
# The trap runs inside the interrupted function, under its redirections
# (a run's stderr file): the message goes to the script's own stderr.
exec {stderr_fd}>&2
waiting_for=
on_signal() {
	trap - INT TERM
	printf '[%(%H:%M:%S)T] interrupted\n' -1 >&"$stderr_fd"
	[ -n "$waiting_for" ] && kill "$waiting_for" 2>/dev/null
	exit 130
}
trap cleanup EXIT
trap on_signal INT TERM

# For commands the script waits for (see on_signal): the command runs in
# the background, where it is ip netns exec's own process (which execs it
# in place), so that the handler stops the command itself; the caller's
# redirections apply. A background job started through these functions
# (in_c ... &) would be a subshell, whose pid is not the command's: those
# are started with ip netns exec directly.
in_ns() { # NAMESPACE COMMAND...
	local rc
	ip netns exec "$@" &
	waiting_for=$!
	wait "$waiting_for"
	rc=$?
	waiting_for=
	return $rc
}
in_c() { in_ns "$ns_c" "$@"; }
in_s() { in_ns "$ns_s" "$@"; }

setup_net() {
	local d
	for n in "$ns_c" "$ns_m" "$ns_s"; do ip netns add "$n" || die "cannot create namespace $n"; done
	ip -n "$ns_m" link add evc$tag type veth peer name evcp$tag netns "$ns_c" ||
		die "cannot create a veth pair"
	ip -n "$ns_m" link add evs$tag type veth peer name evsp$tag netns "$ns_s" ||
		die "cannot create a veth pair"
	ip netns exec "$ns_m" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	in_c ip addr add $ip_c/24 dev evcp$tag
	in_s ip addr add $ip_s/24 dev evsp$tag
	# Frames cross the emulator as they are on the wire: no segmentation
	# or checksum offloads (a 64 KB TSO frame is not a packet of the link,
	# and af_packet never completes a checksum left to the device).
	for d in "$ns_c evcp$tag" "$ns_s evsp$tag" "$ns_m evc$tag" "$ns_m evs$tag"; do
		set -- $d
		ip netns exec "$1" ethtool -K "$2" tx off rx off tso off gso off gro off >/dev/null 2>&1
		ip -n "$1" link set "$2" up
	done
	ip -n "$ns_c" link set lo up
	ip -n "$ns_s" link set lo up
	in_s iperf3 -s -D --pidfile "$raw/iperf3.pid" >/dev/null 2>&1 || die "iperf3 -s failed"
	sleep 0.2
	servers+=("$(cat "$raw/iperf3.pid")")
	ip netns exec "$ns_s" "$perf_bin" -- --server --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --quiet >"$raw/sst-perf-server.log" 2>&1 &
	servers+=($!)
	ip netns exec "$ns_s" "$txn_bin" server --port $txn_port >"$raw/txn-server.log" 2>&1 &
	servers+=($!)
}

# The af_packet server runs only around bulk's sst-afp runs: its packet
# socket gets a copy of every frame on the server's veth, so left running it
# woke for every frame of the other runs and took 10 % of the machine's CPU
# during SST's socket run on gig (perf record, session 16), from both SST
# and TCP on a machine the emulator already keeps busy.
afp_pid=
afp_server_start() {
	ip netns exec "$ns_s" "$perf_bin" "${afp_eal[@]}" --file-prefix="sst-ev-s$tag" \
		--vdev="net_af_packet0,iface=evsp$tag" -- --server --udp $sst_port --port 0 \
		--ip $afp_ip_s/24 --mac $afp_mac_s --mtu $sst_mtu --quiet >>"$raw/sst-perf-afp-server.log" 2>&1 &
	afp_pid=$!
	servers+=($afp_pid)
	sleep 1 # the EAL and the port
}
afp_server_stop() {
	[ -n "$afp_pid" ] || return 0
	kill "$afp_pid" 2>/dev/null
	wait "$afp_pid" 2>/dev/null
	afp_pid=
}

# link_up NAME RATE DELAY LOSS: (re)start the emulator with that link and
# wait until a ping crosses it.
link_up() {
	local name=$1 rate=$2 delay=$3 loss=$4 i
	[ -n "$lem_pid" ] && kill "$lem_pid" 2>/dev/null && wait "$lem_pid" 2>/dev/null
	# shellcheck disable=SC2086 # --linkem-args is split into options
	ip netns exec "$ns_m" "$lem_bin" --rate "$rate" --delay "$delay" --loss "$loss" $lem_mode $linkem_args \
		evc$tag evs$tag >"$raw/linkem-$name.out" 2>"$raw/linkem-$name.err" &
	lem_pid=$!
	for i in $(seq 40); do
		in_c ping -c 1 -W 1 $ip_s >/dev/null 2>&1 && break
		kill -0 "$lem_pid" 2>/dev/null || die "sst-linkem failed: $(tail -3 "$raw/linkem-$name.err")"
		sleep 0.25
	done
	in_c ping -c 3 -i 0.2 $ip_s >"$raw/ping-$name.txt" 2>&1
	log "link $name: $rate Mbit/s, $delay ms one way, $loss % loss${lem_mode:+, $lem_mode}${linkem_args:+, $linkem_args}: $(tail -1 "$raw/ping-$name.txt")"
}

link_params() {
	local l
	for l in "${links_all[@]}"; do
		set -- $l
		[ "$1" = "$want_link" ] && { echo "$l"; return; }
	done
}

# jfield FILE EXPR: a value from a JSON file (EXPR indexes the object d).
jfield() { "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }

# The runs write their results to files, read afterwards (tcp_mbps,
# sst_mbps): run inside a command substitution, a run made bash 5.2 fail
# to parse the signal trap when TERM came, and the run went on.
tcp_bulk() { # NAME CC SECONDS
	in_c iperf3 -c $ip_s -t "$3" -C "$2" -J >"$raw/$1.json" 2>"$raw/$1.err"
}
tcp_mbps() { jfield "$raw/$1.json" "round(d['end']['sum_received']['bits_per_second']/1e6,3)"; }
tcp_retx() { jfield "$raw/$1.json" "d['end']['sum_sent'].get('retransmits',0)"; }
# bulk_event_opts NAME: sst-perf's options for --bulk-events.
bulk_event_opts() { [ $bulk_events -eq 1 ] && echo --event-log "$raw/$1-events.jsonl"; }
sst_bulk() { # NAME CC SECONDS
	local f=$raw/$1
	# shellcheck disable=SC2046
	in_c "$perf_bin" -- --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --cc "$2" --time "$3" \
		$(bulk_event_opts "$1") --json --quiet bulk \
		>"$f.json" 2>"$f.err"
}
sst_mbps() { jfield "$raw/$1.json" "d['goodput_mbps'] if d['ok'] else ''"; }
sst_retx() { jfield "$raw/$1.json" "d['retransmits']"; }
sst_afp_bulk() { # NAME CC SECONDS
	local f=$raw/$1
	# shellcheck disable=SC2046
	in_c "$perf_bin" "${afp_eal[@]}" --file-prefix="sst-ev-c$tag" \
		--vdev="net_af_packet0,iface=evcp$tag" -- --udp $afp_ip_s:$sst_port --port 0 \
		--ip $afp_ip_c/24 --mac $afp_mac_c --mtu $sst_mtu --cc "$2" --time "$3" \
		$(bulk_event_opts "$1") --json --quiet bulk \
		>"$f.json" 2>"$f.err"
}

exp_bulk() {
	local csv=$out/bulk.csv l name r stack cc mbps retx
	echo "link,rate_mbps,stack,cc,rep,goodput_mbps,retransmits" >"$csv"
	for l in "${links_all[@]}"; do
		set -- $l
		name=$1
		case ",${links:-$name}," in *",$name,"*) ;; *) continue ;; esac
		link_up "$@"
		for r in $(seq $reps); do
			for stack in sst sst-afp tcp; do
				if [ $stack = sst-afp ]; then afp_server_start; else afp_server_stop; fi
				for cc in newreno cubic; do
					local kcc=$cc
					[ $stack = tcp ] && [ $cc = newreno ] && kcc=reno
					local run=bulk-$name-$stack-$kcc-$r
					if [ $stack = sst ]; then
						sst_bulk "$run" "$cc" "$bulk_s"
						mbps=$(sst_mbps "$run") retx=$(sst_retx "$run")
					elif [ $stack = sst-afp ]; then
						sst_afp_bulk "$run" "$cc" "$bulk_s"
						mbps=$(sst_mbps "$run") retx=$(sst_retx "$run")
					else
						tcp_bulk "$run" "$kcc" "$bulk_s"
						mbps=$(tcp_mbps "$run") retx=$(tcp_retx "$run")
					fi
					log "bulk $name $stack $kcc #$r: ${mbps:-failed} Mbit/s, $retx retransmits"
					echo "$name,$2,$stack,$kcc,$r,$mbps,$retx" >>"$csv"
				done
			done
		done
		afp_server_stop
	done
}

# overlap_rates A T_A B T_B: the mean Mbit/s of two flows over the seconds
# in which both ran, less one at each end, and A's share and Jain's index.
# A flow's file is an iperf3 server's JSON (one-second intervals of bytes
# received, from T, the wall-clock time its client was started) or, for a
# file ending in .progress, sst-perf's progress lines (bytes acknowledged
# each second), each stamped with the wall clock as it was read (T unused).
overlap_rates() {
	"$py" - "$@" <<'PY'
import json, re, sys

def bins(path, t0):
    """(start, end, Mbit/s) in wall-clock seconds."""
    if path.endswith(".progress"):
        out = []
        for line in open(path):
            m = re.match(r"([0-9.]+) \[ *[0-9.]+ s\] +([0-9.]+) Mbit/s acknowledged", line)
            if m:
                w = float(m.group(1))
                out.append((w - 1, w, float(m.group(2))))
        return out
    t0 = float(t0)
    return [(t0 + i["sum"]["start"], t0 + i["sum"]["end"], i["sum"]["bits_per_second"] / 1e6)
            for i in json.load(open(path))["intervals"]]

a_bins, b_bins = bins(sys.argv[1], sys.argv[2]), bins(sys.argv[3], sys.argv[4])
lo = max(a_bins[0][0], b_bins[0][0]) + 1
hi = min(a_bins[-1][1], b_bins[-1][1]) - 1

def mean(bs):
    bits = span = 0.0
    for s, e, r in bs:
        o = min(hi, e) - max(lo, s)
        if o > 0:
            bits += r * o
            span += o
    return bits / span if span else 0.0

a, b = mean(a_bins), mean(b_bins)
t = a + b
print(round(a, 3), round(b, 3), round(a / t, 4) if t else "",
      round(t * t / (2 * (a * a + b * b)), 4) if t else "")
PY
}

# for_fair_links FN: FN NAME REP for each of the fair links (the emulator
# set up with it) and each repetition. On wifi the emulator polls without
# waiting (--fair-emulator auto or busy): sleeping 50 us at a time as it
# did until session 14, it took in the frames that arrived meanwhile only
# when it woke, and the flow whose host answers acks later (sst-perf in
# user space against the kernel's TCP) had more of its packets dropped at
# the full queue (0.74 % against 0.46 %) and took 40 % of wifi for that
# alone. Session 15's emulator takes arrivals from the kernel's stamps,
# which removes that mechanism in every mode, but its quick wifi runs on a
# loaded machine have not yet shown SST its share in either mode, so auto
# stays busy there. On dsl polling cost
# SST 7 to 8 points on a loaded machine, cause not found, so auto does not
# poll there (docs/evaluation.md section 2).
for_fair_links() {
	local name r
	for name in $fair_links; do
		case ",${links:-$name}," in *",$name,"*) ;; *) continue ;; esac
		want_link=$name
		lem_mode=
		case $fair_emulator-$name in busy-* | auto-wifi) lem_mode=--busy ;; esac
		link_up $(link_params)
		for r in $(seq $reps); do "$1" "$name" "$r"; done
	done
	lem_mode=
}

exp_fair() {
	echo "link,pair,rep,sst_mbps,tcp_mbps,sst_share,jain,start" >"$out/fair.csv"
	for_fair_links fair_rep
}

fair_rep() { # NAME REP
	local csv=$out/fair.csv name=$1 r=$2 pair scc tcc sst tcp
	for pair in newreno:reno cubic:cubic; do
		scc=${pair%:*} tcc=${pair#*:}
		local run=fair-$name-$scc-$r t0 share jain
		# Both rates over the same seconds (overlap_rates): TCP's
		# from a one-off iperf3 server, SST's from sst-perf's
		# progress lines.
		ip netns exec "$ns_s" iperf3 -s -1 -p $fair_port -J >"$raw/$run-tcp.json" 2>&1 &
		local ip3s=$!
		[ $fair_capture -eq 1 ] && fair_capture_start "$run"
		sleep 0.5
		t0=$(date +%s.%N)
		ip netns exec "$ns_c" iperf3 -c $ip_s -p $fair_port -t $((fair_s + 3 * fair_lead)) \
			-C "$tcc" >"$raw/$run-tcp-client.txt" 2>&1 &
		local ip3=$!
		sleep $fair_lead
		in_c "$perf_bin" -- --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --cc "$scc" \
			--event-log "$raw/$run-events.jsonl" \
			--time "$fair_s" bulk >"$raw/$run-sst.txt" 2> >(while IFS= read -r l; do
				echo "$(date +%s.%N) $l"
			done >"$raw/$run-sst.progress")
		wait $ip3 $ip3s
		[ $fair_capture -eq 1 ] && fair_capture_end "$run"
		read -r sst tcp share jain < <(overlap_rates "$raw/$run-sst.progress" - \
			"$raw/$run-tcp.json" "$t0")
		log "fair $name SST $scc vs TCP $tcc #$r ($fair_start): $sst vs $tcp Mbit/s, share $share, Jain $jain"
		echo "$name,$scc-vs-$tcc,$r,$sst,$tcp,$share,$jain,$fair_start" >>"$csv"
	done
}

# --fair-capture: dumpcap on both sides of the emulator for one pair, and
# the client namespace's TCP counters (only the pair's TCP flow moves them)
# before and after it.
cap_pids=()
fair_capture_start() { # RUN
	local side file
	in_c nstat -asz >"$raw/$1-tcpstat.before" 2>&1
	for side in client server; do
		local ns=$ns_c dev=evcp$tag
		[ $side = server ] && ns=$ns_s dev=evsp$tag
		file=$raw/$1-$side.pcap
		ip netns exec "$ns" dumpcap -q -P -s 80 -i "$dev" -w "$file" \
			>/dev/null 2>"$raw/$1-dumpcap-$side.err" &
		cap_pids+=($!)
	done
	sleep 1 # dumpcap's start
}

fair_capture_end() { # RUN
	local run=$1 p
	sleep 0.5 # the last packets through the emulator
	for p in "${cap_pids[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${cap_pids[@]}"; do wait "$p" 2>/dev/null; done
	cap_pids=()
	in_c nstat -asz >"$raw/$run-tcpstat.after" 2>&1
	"$py" - "$raw/$run-tcpstat.before" "$raw/$run-tcpstat.after" >"$raw/$run-tcpstat.txt" <<'PY'
import re, sys
def load(path):
    return {m.group(1): int(m.group(2)) for m in
            (re.match(r"(\w+)\s+(\d+)", l) for l in open(path)) if m}
a, b = load(sys.argv[1]), load(sys.argv[2])
for k in ("TcpOutSegs", "TcpRetransSegs", "TcpExtTCPSackRecovery", "TcpExtTCPRenoRecovery",
          "TcpExtTCPLossProbes", "TcpExtTCPLossProbeRecovery", "TcpExtTCPTimeouts",
          "TcpExtTCPLostRetransmit", "TcpExtTCPFullUndo", "TcpExtTCPPartialUndo",
          "TcpExtTCPDSACKUndo", "TcpExtTCPLossUndo", "TcpExtTCPSpuriousRTOs"):
    print(k, b.get(k, 0) - a.get(k, 0))
PY
	# shellcheck disable=SC2046 # link_params' words: name rate delay loss
	set -- $(link_params)
	"$py" "$root/scripts/fair-drops.py" "$raw/$run-client.pcap" "$raw/$run-server.pcap" \
		--rate "$2" --delay "$3" --events "$raw/$run-events.jsonl" >"$raw/$run-drops.txt" 2>&1
}

# The control of fair (not in the default list: --only fairtcp): kernel TCP
# against kernel TCP with the same controller, the second flow started as
# SST is in fair (--fair-start: at once, or a second late), so the share
# the second flow takes on the link with nothing of SST in the path.
exp_fairtcp() {
	echo "link,pair,rep,late_mbps,first_mbps,late_share,jain,start" >"$out/fairtcp.csv"
	for_fair_links fairtcp_rep
}

fairtcp_rep() { # NAME REP
	local csv=$out/fairtcp.csv name=$1 r=$2 cc late first share jain
	for cc in reno cubic; do
		local run=fairtcp-$name-$cc-$r t0 t1
		ip netns exec "$ns_s" iperf3 -s -1 -p $fair_port -J >"$raw/$run-first.json" 2>&1 &
		local s1=$!
		ip netns exec "$ns_s" iperf3 -s -1 -p $((fair_port + 1)) -J \
			>"$raw/$run-late.json" 2>&1 &
		local s2=$!
		sleep 0.5
		t0=$(date +%s.%N)
		ip netns exec "$ns_c" iperf3 -c $ip_s -p $fair_port -t $((fair_s + 3 * fair_lead)) \
			-C "$cc" >"$raw/$run-first-client.txt" 2>&1 &
		local c1=$!
		sleep $fair_lead
		t1=$(date +%s.%N)
		in_c iperf3 -c $ip_s -p $((fair_port + 1)) -t "$fair_s" -C "$cc" \
			>"$raw/$run-late-client.txt" 2>&1
		wait $c1 $s1 $s2
		read -r late first share jain < <(overlap_rates "$raw/$run-late.json" "$t1" \
			"$raw/$run-first.json" "$t0")
		log "fairtcp $name TCP $cc late vs first #$r: $late vs $first Mbit/s, share $share, Jain $jain"
		echo "$name,$cc-vs-$cc,$r,$late,$first,$share,$jain,$fair_start" >>"$csv"
	done
}

exp_fig7() {
	local csv=$out/fig7.csv size n m run p50 p10 p90 r
	echo "link,method,response_bytes,rep,count,failed,p50_us,p10_us,p90_us" >"$csv"
	want_link=dsl
	link_up $(link_params)
	for size in $fig7_sizes; do
		# Enough transactions for a median, fewer where one takes seconds.
		n=$fig7_n
		[ "$size" -ge 131072 ] && n=$fig7_n_large
		[ "$size" -ge 1048576 ] && n=1
		for r in $(seq $reps); do
			run=fig7-sst-$size-$r
			in_c "$perf_bin" -- --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --json --quiet --count $((n + 1)) \
				--request 64 --response "$size" rr >"$raw/$run.json" 2>"$raw/$run.err"
			read -r p50 p10 p90 < <(jfield "$raw/$run.json" \
				"'%s - -' % d['latency_us']['p50'] if d['ok'] else ''")
			p10= p90=
			echo "dsl,sst,$size,$r,$((n + 1)),$(jfield "$raw/$run.json" "d['failed_streams']"),$p50,$p10,$p90" >>"$csv"
			log "fig7 $size B sst #$r: p50 ${p50:-failed} us"
			for m in conn persist udp; do
				[ $m = udp ] && [ "$size" -gt 65507 ] && continue
				run=fig7-$m-$size-$r
				in_c "$txn_bin" client $ip_s --port $txn_port --mode $m --count "$n" \
					--request 64 --response "$size" >"$raw/$run.json" 2>"$raw/$run.err"
				read -r p50 p10 p90 < <(jfield "$raw/$run.json" \
					"'%s %s %s' % (d['latency_us']['p50'], d['latency_us']['p10'], d['latency_us']['p90'])")
				echo "dsl,tcp-$m,$size,$r,$n,$(jfield "$raw/$run.json" "d['failed']"),$p50,$p10,$p90" >>"$csv"
				[ $m = udp ] && sed -i '$ s/tcp-udp/udp/' "$csv"
				log "fig7 $size B $m #$r: p50 ${p50:-failed} us"
			done
		done
	done
}

# Figure 8: the same pages loaded five ways over the DSL link, one after
# the other; a row per page load (the per-page lines of sst-perf web and
# web_anchor: page,requests,bytes,load_ms).
exp_fig8() {
	local csv=$out/fig8.csv trace=$raw/fig8-trace.txt r m run
	"$py" "$root/perf/web_trace.py" --pages $fig8_pages --seed $fig8_seed --out "$trace" ||
		die "perf/web_trace.py failed"
	echo "link,method,rep,page,requests,bytes,load_ms" >"$csv"
	want_link=dsl
	link_up $(link_params)
	for r in $(seq $reps); do
		for m in sst http1.0-serial http1.0-parallel http1.1-persistent http1.1-pipelined; do
			run=fig8-$m-$r
			case $m in
			sst)
				in_c "$perf_bin" -- --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --quiet web \
					--trace "$trace" >"$raw/$run.out" 2>"$raw/$run.err" ;;
			*)
				local mode=${m#http1.?-}
				[ "$mode" = persistent ] && mode=persist
				[ "$mode" = pipelined ] && mode=pipeline
				in_c "$web_bin" $ip_s --port $txn_port --mode $mode --trace "$trace" \
					>"$raw/$run.out" 2>"$raw/$run.err" ;;
			esac
			grep -E '^[0-9]+,' "$raw/$run.out" | sed "s/^/dsl,$m,$r,/" >>"$csv"
			log "fig8 $m #$r: $(grep -cE '^[0-9]+,' "$raw/$run.out") of $fig8_pages pages," \
				"median load $(grep -E '^[0-9]+,' "$raw/$run.out" | cut -d, -f4 | sort -g |
					awk '{v[NR] = $1} END {print NR ? (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 : "-"}') ms"
		done
	done
}

# Figure 9 in real time: sst-perf prio on the DSL link, the paper's
# schedule (the plot in summarize() marks these times). The client sends
# the priorities to the server as stream-layer requests, which the server
# applies.
exp_fig9() {
	local csv=$out/fig9.csv r run
	echo "rep,t_s,req1_bytes,req2_bytes,req3_bytes" >"$csv"
	want_link=dsl
	link_up $(link_params)
	for r in $(seq $reps); do
		run=fig9-$r
		in_c "$perf_bin" -- --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --quiet --prio-at 5,10,0.1 \
			prio >"$raw/$run.out" 2>"$raw/$run.err"
		grep '^[0-9]' "$raw/$run.out" | sed "s/^/$r,/" >>"$csv"
		log "fig9 #$r: downloads done at $(grep '^[0-9]' "$raw/$run.out" | "$py" -c '
import sys
rows = [[float(x) for x in l.split(",")] for l in sys.stdin]
print(", ".join("%.1f s" % next(r[0] for r in rows if r[i] == rows[-1][i]) for i in (1, 2, 3)))
' 2>/dev/null)"
	done
}

# Table 1: header bytes per packet, from captures on the client's veth of
# a few transactions each way: SST (sst-perf rr, decoded by sst-dump) and
# TCP (txn_anchor, one connection per transaction, decoded by tshark).
exp_headers() {
	local cap=$raw/headers cp
	want_link=lan100
	link_up $(link_params)
	for stack in sst tcp; do
		if [ $stack = sst ]; then
			ip netns exec "$ns_c" dumpcap -q -i evcp$tag -f "udp port $sst_port" -w "$cap-sst.pcapng" \
				2>"$cap-sst.dumpcap.err" &
		else
			ip netns exec "$ns_c" dumpcap -q -i evcp$tag -f "tcp port $txn_port" -w "$cap-tcp.pcapng" \
				2>"$cap-tcp.dumpcap.err" &
		fi
		cp=$!
		sleep 1.5
		if [ $stack = sst ]; then
			in_c "$perf_bin" -- --udp $ip_s:$sst_port "${udp_opts[@]}" --mtu $sst_mtu --json --quiet --count 5 \
				--request 64 --response 20000 rr >"$cap-sst.json" 2>&1
		else
			in_c "$txn_bin" client $ip_s --port $txn_port --mode conn --count 5 --request 64 \
				--response 20000 >"$cap-tcp.json" 2>&1
		fi
		sleep 0.5
		# SIGTERM: a background job of a script ignores SIGINT.
		kill -TERM $cp
		wait $cp
	done
	"$dump_bin" -p $sst_port --json "$cap-sst.pcapng" >"$cap-sst.dump.json" 2>/dev/null
	tshark -r "$cap-sst.pcapng" -T fields -e frame.number -e ip.hdr_len -e udp.length \
		>"$cap-sst.fields" 2>/dev/null
	tshark -r "$cap-tcp.pcapng" -T fields -e frame.number -e ip.hdr_len -e tcp.hdr_len -e tcp.len \
		-e tcp.flags.syn -e tcp.flags.fin -e tcp.stream >"$cap-tcp.fields" 2>/dev/null
	"$py" - "$cap" "$out/headers.csv" <<'PY'
import collections, json, statistics, sys
cap, out = sys.argv[1], sys.argv[2]
rows = []
# SST: header = IP + UDP + (UDP payload - the stream payload sst-dump reports).
udp = {}
for line in open(cap + "-sst.fields"):
    f = line.split()
    if len(f) == 3:
        udp[int(f[0])] = (int(f[1]), int(f[2]))
sst = collections.defaultdict(list)
for line in open(cap + "-sst.dump.json"):
    p = json.loads(line)
    if p.get("kind") != "channel" or p.get("frame") not in udp:
        continue
    ip, ulen = udp[p["frame"]]
    hdr = ip + 8 + (ulen - 8 - p["len"])
    # A stream is created by its first packet, which carries data: it costs
    # no packet of its own, only this header.
    if p["type"] == "Init" and p["tsn"] == 0:
        sst["stream creation (the first Init, with data)"].append(hdr)
    if p["type"] in ("Init", "Reply", "Data") and p["len"] > 0:
        sst["data packet"].append(hdr)
    elif p["type"] == "Ack":
        sst["ack"].append(hdr)
# TCP: header = IP + TCP (options included); a connection's setup is its
# SYN, SYN-ACK and the ACK after them, its end the FINs and their ACKs.
tcp = collections.defaultdict(list)
conns = collections.defaultdict(list)
for line in open(cap + "-tcp.fields"):
    f = line.split()
    if len(f) != 7:
        continue
    ip, th, tl, syn, fin, conn = int(f[1]), int(f[2]), int(f[3]), f[4], f[5], f[6]
    hdr = ip + th
    conns[conn].append((hdr, tl, syn in ("1", "True"), fin in ("1", "True")))
    if tl > 0:
        tcp["data packet"].append(hdr)
    elif syn not in ("1", "True") and fin not in ("1", "True"):
        tcp["ack"].append(hdr)
for pk in conns.values():
    setup = pk[:3] if len(pk) >= 3 and pk[0][2] and pk[1][2] else []
    if setup:
        tcp["stream creation (SYN, SYN-ACK, ACK)"].append(sum(h for h, _, _, _ in setup))
with open(out, "w") as o:
    o.write("stack,what,packets,header_bytes_median,header_bytes_min,header_bytes_max\n")
    for name, d in (("sst", sst), ("tcp", tcp)):
        for what, v in d.items():
            o.write(f"{name},{what},{len(v)},{statistics.median(v)},{min(v)},{max(v)}\n")
PY
	log "headers: $(tr '\n' ';' <"$out/headers.csv")"
}
setup_net
log "results in $out"
want bulk && exp_bulk
want fair && exp_fair
want fairtcp && exp_fairtcp
want fig7 && exp_fig7
want fig8 && exp_fig8
want fig9 && exp_fig9
want headers && exp_headers
summarize "$out" || log "summary or plots not made (python3-matplotlib?)"
log "done in $SECONDS s: $out"

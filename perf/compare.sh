#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# SST-DPDK next to the kernel in one sitting (issue 17; docs/performance.md).
#
# Every row is measured in rounds, the rows interleaved within a round, and
# the median of the rounds is printed. A run's cost is the CPU time of both
# of its ends as the scheduler accounts it (utime + stime of every thread,
# /proc/PID/task/TID/stat), taken between two of the run's progress lines
# (one a second: sst-perf's and txn_anchor pair's "N in all", iperf3's
# intervals), so that setup and teardown are left out. Cycles are those
# CPU-seconds times the TSC frequency the kernel reports (constant_tsc: the
# nominal frequency, whatever the core's clock did meanwhile).
#
#   SST-DPDK  sst-perf --loopback bulk (chk32, AES-128-GCM) and rr (32 B each
#             way, each transaction on a new stream: a top-level stream, and
#             a substream with --substreams), one process: both ends;
#             sst-perf bulk and rr over the veth pair below, each end a DPDK
#             port on net_af_packet (two processes), and the same on
#             net_af_xdp (AF_XDP sockets; docs/performance.md, "Session
#             13"); bulk and rr over the loopback's
#             net_ring pair with one worker a side (--frames) and with two
#             (-w 2): what a second worker costs or gains per CPU-second
#             when one thread polls both; and two workers on two cores
#             (perf/engine_bench --workers 2: worker k of both engines,
#             which hold the two ends of channel k, on lcore k) against
#             one (--local-ports: the client's channel from a local port,
#             as the two workers' are), bulk and rr, per CPU-second and in
#             throughput
#   anchors   kernel TCP (iperf3) over a veth pair between two network
#             namespaces made for the run, offloads on and off; kernel UDP
#             ping-pong and TCP_CRR (perf/txn_anchor pair, both ends in one
#             process); the per-packet floor, dpdk-testpmd's io forwarding
#             between two net_null ports (its own --record-core-cycles count:
#             TSC cycles in its forwarding calls per packet, one core)
#             when dpdk-testpmd is installed; ngtcp2's examples over lo
#             (gtlsserver/gtlsclient, Debian's ngtcp2-server and
#             ngtcp2-client, installed here with apt-get when missing):
#             HTTP/3 over QUIC with AES-128-GCM, one download of a
#             generated body, both processes' CPU time from start to exit
#
# Usage: perf/compare.sh [--quick] [--rounds N] [--window SECONDS] [--build DIR]
#                        [--versus DIR] [--veth] [--afp-args ARGS] [--afx-args ARGS]
#                        [--afp-alt ARGS] [--afx-alt ARGS]
#   --quick        one round, 2-second windows (under 2 minutes)
#   --rounds N     rounds (default 3)
#   --window S     seconds measured per run (default 4)
#   --build DIR    the build to measure (default build-fast, made by
#                  scripts/build.sh fast when missing)
#   --versus DIR   also SST-DPDK's rows with DIR's sst-perf (another build, or
#                  a directory holding apps/sst-perf/sst-perf of another
#                  commit), interleaved with the others: a before/after table
#   --veth         only the rows over the veth pair and their anchors: kernel
#                  TCP without offloads, SST-DPDK bulk and rr on
#                  net_af_packet and on net_af_xdp, kernel UDP ping-pong
#   --afp-args A   devargs appended to both ends' net_af_packet vdev (e.g.
#                  ",qdisc_bypass=1,framecnt=4096")
#   --afx-args A   the same for net_af_xdp (e.g. ",busy_budget=0")
#   --afp-alt A, --afx-alt A  also the PMD's bulk and rr rows with devargs
#                  A instead, interleaved with the others: a table of the
#                  devargs against the defaults in one sitting
# Needs root (network namespaces), iperf3 and ethtool.
set -eu
cd "$(dirname "$0")/.."

rounds=3
window=4
build=build-fast
versus=
veth_only=
afp_args=
afx_args=
afp_alt=
afx_alt=
while [ $# -gt 0 ]; do
	case $1 in
	--quick)
		rounds=1
		window=2
		;;
	--rounds)
		rounds=$2
		shift
		;;
	--window)
		window=$2
		shift
		;;
	--build)
		build=$2
		shift
		;;
	--versus)
		versus=$2
		shift
		;;
	--veth)
		veth_only=1
		;;
	--afp-args)
		afp_args=$2
		shift
		;;
	--afx-args)
		afx_args=$2
		shift
		;;
	--afp-alt)
		afp_alt=$2
		shift
		;;
	--afx-alt)
		afx_alt=$2
		shift
		;;
	*)
		sed -n '/^# Usage/,/^# Needs/p' "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
	shift
done

if [ ! -x "$build/apps/sst-perf/sst-perf" ] || [ ! -x "$build/perf/txn_anchor" ]; then
	if [ "$build" = build-fast ]; then
		scripts/build.sh fast build-fast >&2
	else
		echo "compare.sh: $build has no sst-perf or txn_anchor (ninja -C $build)" >&2
		exit 2
	fi
fi
for tool in iperf3 ethtool ip; do
	command -v $tool >/dev/null || {
		echo "compare.sh: $tool is missing (scripts/setup-deps.sh)" >&2
		exit 2
	}
done
# ngtcp2's examples (Debian bookworm: 0.12.1): the AES-128-GCM anchor. The
# row says "not installed" when they cannot be had.
if ! command -v gtlsclient >/dev/null || ! command -v gtlsserver >/dev/null; then
	if command -v apt-get >/dev/null; then
		echo "compare.sh: installing ngtcp2-client and ngtcp2-server" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q ngtcp2-client ngtcp2-server \
			>/dev/null 2>&1 || echo "compare.sh: apt-get could not install ngtcp2" >&2
	fi
fi

perf=$build/apps/sst-perf/sst-perf
anchor=$build/perf/txn_anchor
engine_bench=$build/perf/engine_bench
tmp=$(mktemp -d) || exit 1
ns_a=sstcmp-a-$$
ns_b=sstcmp-b-$$
clk_tck=$(getconf CLK_TCK)
# The TSC frequency: the kernel's calibration (dmesg) when readable, else
# the frequency /proc/cpuinfo reports (the same with constant_tsc).
tsc_mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | tail -n 1)
tsc_src="the kernel's TSC calibration"
if [ -z "$tsc_mhz" ]; then
	tsc_mhz=$(awk -F': ' '/^cpu MHz/ {print $2; exit}' /proc/cpuinfo)
	tsc_src="/proc/cpuinfo cpu MHz"
fi

cleanup() {
	ip netns del "$ns_a" 2>/dev/null || true
	ip netns del "$ns_b" 2>/dev/null || true
	rm -rf "$tmp" "/run/dpdk/sstcmp-t-$$" "/run/dpdk/sstcmp-s-$$" "/run/dpdk/sstcmp-c-$$"
}
trap cleanup EXIT

# The veth pair between two namespaces of our own: 10.211.0.1 (server) in
# ns_a, 10.211.0.2 in ns_b.
ip netns add "$ns_a"
ip netns add "$ns_b"
# Interface names: at most 15 characters.
if_a=sstca$$
if_b=sstcb$$
ip link add "$if_a" type veth peer name "$if_b"
ip link set "$if_a" netns "$ns_a"
ip link set "$if_b" netns "$ns_b"
ip -n "$ns_a" addr add 10.211.0.1/24 dev "$if_a"
ip -n "$ns_b" addr add 10.211.0.2/24 dev "$if_b"
for n in "$ns_a" "$ns_b"; do
	ip -n "$n" link set lo up
done
ip -n "$ns_a" link set "$if_a" up
ip -n "$ns_b" link set "$if_b" up

offloads() {
	ip netns exec "$ns_a" ethtool -K "$if_a" tso "$1" gso "$1" gro "$1" tx "$1" rx "$1" \
		>/dev/null 2>&1 || true
	ip netns exec "$ns_b" ethtool -K "$if_b" tso "$1" gso "$1" gro "$1" tx "$1" rx "$1" \
		>/dev/null 2>&1 || true
}

# CPU ticks (1/CLK_TCK s) of every thread of the given processes.
cpu_ticks() {
	local total=0 pid f s
	for pid in "$@"; do
		for f in /proc/"$pid"/task/*/stat; do
			s=$(cat "$f" 2>/dev/null) || continue
			s=${s##*) }
			# shellcheck disable=SC2086
			set -- $s
			total=$((total + ${12} + ${13}))
		done
	done
	echo "$total"
}

# measure NAME KIND EXTRA_PIDS CMD...: run CMD and measure between its first
# progress line and the one `window` seconds later. KIND: count (sst-perf
# and txn_anchor pair: "... N in all" or "... N bytes in all") or iperf (iperf3
# -f K interval lines). Appends "NAME units cycles" to $tmp/results and
# keeps CMD's output in $tmp/NAME.out.
measure() {
	local name=$1 kind=$2 extra=$3 line n=0 v=0 v0=0 c0=0 c1=0 v1=0 pid
	shift 3
	rm -f "$tmp/fifo" "$tmp/$name.out"
	mkfifo "$tmp/fifo"
	"$@" >"$tmp/fifo" 2>&1 &
	pid=$!
	while IFS= read -r line; do
		echo "$line" >>"$tmp/$name.out"
		[ $n -le "$window" ] || continue
		case $kind in
		iperf)
			# The transfer column has 3 digits: bytes from the rate
			# (-f K: KBytes/s, 7 digits) times the interval.
			[[ $line =~ ^\[\ *[0-9]+\]\ +([0-9.]+)-([0-9.]+)\ +sec\ .*\ ([0-9.]+)\ KBytes/sec ]] ||
				continue
			[[ $line != *sender* && $line != *receiver* ]] || continue
			v=$(awk -v v="$v" -v a="${BASH_REMATCH[1]}" -v b="${BASH_REMATCH[2]}" \
				-v r="${BASH_REMATCH[3]}" 'BEGIN {printf "%.0f", v + r * 1024 * (b - a)}')
			;;
		*)
			[[ $line =~ ^\[.*\ ([0-9]+)\ (bytes\ )?in\ all ]] || continue
			v=${BASH_REMATCH[1]}
			;;
		esac
		n=$((n + 1))
		if [ $n -eq 1 ]; then
			# shellcheck disable=SC2086
			c0=$(cpu_ticks $pid $extra)
			v0=$v
		elif [ $n -eq $((window + 1)) ]; then
			# shellcheck disable=SC2086
			c1=$(cpu_ticks $pid $extra)
			v1=$v
		fi
	done <"$tmp/fifo"
	wait $pid || {
		echo "compare.sh: $name failed:" >&2
		tail -n 5 "$tmp/$name.out" >&2
		return 1
	}
	if [ $n -le "$window" ] || [ "$v1" -le "$v0" ]; then
		echo "compare.sh: $name: too few progress lines ($n)" >&2
		return 1
	fi
	# %.0f, not %d: mawk's %d stops at 2^31 - 1, and a bulk run now moves
	# more bytes than that in a window (every SST row read 4.84 cycles/byte).
	awk -v n="$name" -v u=$((v1 - v0)) -v t=$((c1 - c0)) -v hz="$clk_tck" -v mhz="$tsc_mhz" \
		'BEGIN {printf "%s %.0f %.0f %.3f\n", n, u, t / hz * mhz * 1e6, t / hz}' \
		>>"$tmp/results"
}

run_time=$((window + 3))
# sst_bulk NAME ARMOR [SST-PERF], sst_rr NAME [SST-PERF]
sst_bulk() {
	measure "$1" count "" "${3:-$perf}" --loopback -t "$run_time" --armor "$2" bulk
}
sst_rr() {
	measure "$1" count "" "${2:-$perf}" --loopback -t "$run_time" --request 32 --response 32 rr
}
sst_rr_sub() {
	measure "$1" count "" "$perf" --loopback -t "$run_time" --request 32 --response 32 \
		--substreams rr
}
# sst_workers NAME MODE WORKER-OPTION...: loopback over the net_ring pair.
sst_workers() {
	local name=$1 mode=$2
	shift 2
	if [ "$mode" = rr ]; then
		measure "$name" count "" "$perf" --loopback -t "$run_time" "$@" --request 32 \
			--response 32 rr
	else
		measure "$name" count "" "$perf" --loopback -t "$run_time" "$@" bulk
	fi
}
# eb_lanes NAME ARGS...: one run of perf/engine_bench for the window (after
# its half-second warm-up), by its own count: the polling threads' CPU time
# (CLOCK_THREAD_CPUTIME_ID) times the TSC, per byte or per transaction.
eb_lanes() {
	local name=$1 out
	shift
	out=$("$engine_bench" --seconds "$window" --runs 1 --armor chk32 "$@" 2>"$tmp/$name.out") || {
		echo "compare.sh: $name failed:" >&2
		tail -n 5 "$tmp/$name.out" >&2
		return 1
	}
	echo "$out" >>"$tmp/$name.out"
	echo "$out" | awk -v n="$name" -v w="$window" -v mhz="$tsc_mhz" '
		$2 == "goodput" {u = $3 * 1e6 / 8 * w; c = $5}
		$2 == "rr" {u = $3 * w; c = $5}
		END {if (u > 0) printf "%s %.0f %.0f %.3f\n", n, u, u * c, u * c / mhz / 1e6}' \
		>>"$tmp/results"
}
# testpmd NAME: io forwarding between two net_null ports for the window;
# its own count of cycles per packet (record-core-cycles), appended as
# "NAME packets cycles -".
testpmd=$(command -v dpdk-testpmd || true)
testpmd_io() {
	local out=$tmp/$1.out
	(
		sleep "$window"
		echo
	) | "$testpmd" -l 0-1 --no-huge -m 512 --no-pci --no-telemetry --file-prefix="sstcmp-t-$$" \
		--vdev net_null0 --vdev net_null1 -- --forward-mode=io --nb-cores=1 \
		--total-num-mbufs=8192 --record-core-cycles >"$out" 2>&1 || {
		echo "compare.sh: testpmd failed:" >&2
		tail -n 5 "$out" >&2
		return 1
	}
	sed -n 's/.*total cycles=\([0-9]*\) \/ total io packets=\([0-9]*\)).*/\2 \1/p' "$out" |
		awk -v n="$1" '$1 > 0 {print n, $1, $2, "-"}' >>"$tmp/results"
}
if [ -n "$versus" ] && [ ! -x "$versus/apps/sst-perf/sst-perf" ]; then
	echo "compare.sh: $versus/apps/sst-perf/sst-perf is missing" >&2
	exit 2
fi
iperf() {
	local srv
	offloads "$2"
	ip netns exec "$ns_a" iperf3 -s -1 -B 10.211.0.1 >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	measure "$1" iperf "$srv" ip netns exec "$ns_b" iperf3 -c 10.211.0.1 -t "$run_time" -i 1 \
		-f K --forceflush
	wait "$srv" || true
}

# SST-DPDK over the same veth pair: each end a DPDK port on net_af_packet,
# frames through lib/net at addresses the kernel does not hold.
# sst_afp NAME bulk|rr [SST-PERF]: rr is 32 bytes each way, each
# transaction on a new stream, as the loopback's rr row. Each end uses an
# Ethernet address of its own (--mac) where sst-perf has the option: the
# veth's own address would make the namespace's kernel take every SST
# frame too, route it and drop it (an address it does not hold, no
# forwarding), which cost as much as SST itself (docs/performance.md).
eal=(--no-huge --no-pci -m 512 --no-telemetry --log-level=lib.eal:error)
# sst_port NAME bulk|rr PMD DEVARGS [SST-PERF]: both ends on PMD
# (net_af_packet, net_af_xdp) with DEVARGS after the interface.
sst_port() {
	local srv name=$1 mode=$2 pmd=$3 args=$4 bin=${5:-$perf} test=(bulk) mac_s=() mac_c=()
	[ "$mode" != rr ] || test=(--request 32 --response 32 rr)
	[ "$mode" != rrsub ] || test=(--request 32 --response 32 --substreams rr)
	if "$bin" --help 2>&1 | grep -q -- '--mac ADDR'; then
		mac_s=(--mac 02:53:54:00:00:01)
		mac_c=(--mac 02:53:54:00:00:02)
	fi
	ip netns exec "$ns_a" "$bin" "${eal[@]}" --file-prefix="sstcmp-s-$$" \
		--vdev="${pmd}0,iface=$if_a$args" -- --server --once --udp 4433 --port 0 \
		--ip 10.211.1.1/24 "${mac_s[@]}" >/dev/null 2>&1 &
	srv=$!
	sleep 2
	measure "$name" count "$srv" ip netns exec "$ns_b" "$bin" "${eal[@]}" \
		--file-prefix="sstcmp-c-$$" --vdev="${pmd}0,iface=$if_b$args" -- \
		--udp 10.211.1.1:4433 --port 0 --ip 10.211.1.2/24 "${mac_c[@]}" -t "$run_time" \
		"${test[@]}"
	wait "$srv" || true
}
sst_afp() {
	sst_port "$1" "$2" net_af_packet "$afp_args" "${3:-$perf}"
}
# On net_af_xdp, both ends' queues are AF_XDP sockets on queue 0 of their
# veth, each with the PMD's XDP program (native XDP on veth: each end's
# program turns on its receive NAPI) redirecting every frame there.
sst_afx() {
	sst_port "$1" "$2" net_af_xdp "$afx_args" "${3:-$perf}"
}
# Whether sst-perf runs on net_af_xdp here (the kernel's AF_XDP sockets,
# the PMD): the rows say "not available" otherwise.
afx_ok=
if python3 -c 'import socket; socket.socket(44, socket.SOCK_RAW, 0)' 2>/dev/null &&
	ls /usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so* >/dev/null 2>&1; then
	afx_ok=1
fi

# ngtcp2 NAME: gtlsserver and gtlsclient over 127.0.0.1, TLS 1.3 with
# AES-128-GCM only, the client downloading a body the server generates
# (path /N: N bytes; 50 MB per second of --window, about as long as the
# other runs here). Both processes from start to exit: the client's whole
# CPU time (the shell's times) and the server's ticks over the download,
# so the one handshake is counted, against 100 MB or more of data.
# Appends "NAME bytes cycles seconds".
ngtcp2_client=$(command -v gtlsclient || true)
ngtcp2_server=$(command -v gtlsserver || true)
ngtcp2_key=/etc/ssl/private/ssl-cert-snakeoil.key
ngtcp2_cert=/etc/ssl/certs/ssl-cert-snakeoil.pem
ngtcp2_bulk() {
	local srv t0 t1 cli bytes=$((window * 50000000)) port=$((20000 + $$ % 20000))
	local ciphers='NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM'
	(cd "$tmp" && exec "$ngtcp2_server" -q --max-dyn-length=2G --ciphers="$ciphers" \
		127.0.0.1 "$port" "$ngtcp2_key" "$ngtcp2_cert") >"$tmp/$1.srv" 2>&1 &
	srv=$!
	sleep 0.5
	t0=$(cpu_ticks $srv)
	cli=$( (timeout 120 "$ngtcp2_client" -q --exit-on-all-streams-close --ciphers="$ciphers" \
		127.0.0.1 "$port" "https://127.0.0.1:$port/$bytes" >/dev/null 2>"$tmp/$1.out" ||
		echo "ngtcp2-client-failed" >&2
	times) 2>>"$tmp/$1.out" | sed -n 2p)
	t1=$(cpu_ticks $srv)
	kill "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	if grep -q ngtcp2-client-failed "$tmp/$1.out" || [ -z "$cli" ]; then
		echo "compare.sh: $1 failed:" >&2
		tail -n 5 "$tmp/$1.out" "$tmp/$1.srv" >&2
		return 1
	fi
	# times: "XmY.YYYs XmY.YYYs", user and system of the client.
	echo "$cli" | awk -v n="$1" -v b="$bytes" -v t=$((t1 - t0)) -v hz="$clk_tck" \
		-v mhz="$tsc_mhz" '{
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		c = u[1] * 60 + u[2] + s[1] * 60 + s[2] + t / hz
		printf "%s %.0f %.0f %.3f\n", n, b, c * mhz * 1e6, c
	}' >>"$tmp/results"
}
ngtcp2_ok=
[ -z "$ngtcp2_client" ] || [ -z "$ngtcp2_server" ] || [ ! -r "$ngtcp2_key" ] || ngtcp2_ok=1
echo "compare.sh: $rounds round(s), ${window}-second windows, $build; cycles = CPU-seconds x" \
	"${tsc_mhz} MHz ($tsc_src)" >&2
# The rows over the veth pair, in this order in every round.
veth_rows() {
	iperf tcp_off off
	sst_afp sst_afp bulk
	[ -z "$versus" ] || sst_afp v_afp bulk "$versus/apps/sst-perf/sst-perf"
	sst_afp sst_afp_rr rr
	[ -z "$versus" ] || sst_afp v_afp_rr rr "$versus/apps/sst-perf/sst-perf"
	[ -z "$afx_ok" ] || sst_afx sst_afx bulk
	[ -z "$afx_ok" ] || sst_afx sst_afx_rr rr
	[ -z "$afx_ok" ] || sst_afx sst_afx_rrsub rrsub
	if [ -n "$afp_alt" ]; then
		sst_port alt_afp bulk net_af_packet "$afp_alt"
		sst_port alt_afp_rr rr net_af_packet "$afp_alt"
	fi
	if [ -n "$afx_alt" ] && [ -n "$afx_ok" ]; then
		sst_port alt_afx bulk net_af_xdp "$afx_alt"
		sst_port alt_afx_rr rr net_af_xdp "$afx_alt"
	fi
}
for r in $(seq "$rounds"); do
	echo "compare.sh: round $r" >&2
	if [ -n "$veth_only" ]; then
		veth_rows
		measure udp_rr count "" "$anchor" pair udp --seconds "$run_time" --size 32
		continue
	fi
	sst_bulk sst_chk32 chk32
	iperf tcp_on on
	sst_bulk sst_aes aes128gcm
	[ -z "$ngtcp2_ok" ] || ngtcp2_bulk ngtcp2
	veth_rows
	sst_rr sst_rr
	sst_rr_sub sst_rr_sub
	if [ -n "$versus" ]; then
		sst_bulk v_chk32 chk32 "$versus/apps/sst-perf/sst-perf"
		sst_rr v_rr "$versus/apps/sst-perf/sst-perf"
		sst_bulk v_aes aes128gcm "$versus/apps/sst-perf/sst-perf"
	fi
	measure udp_rr count "" "$anchor" pair udp --seconds "$run_time" --size 32
	measure tcp_crr count "" "$anchor" pair crr --seconds "$run_time" --size 32
	sst_workers w1_bulk bulk --frames
	sst_workers w2_bulk bulk -w 2
	sst_workers w1_rr rr --frames
	sst_workers w2_rr rr -w 2
	eb_lanes eb_w1_bulk --local-ports
	eb_lanes eb_w2_bulk --workers 2
	eb_lanes eb_w1_rr --rr --local-ports
	eb_lanes eb_w2_rr --rr --workers 2
	[ -z "$testpmd" ] || testpmd_io testpmd
	cp "$tmp/sst_chk32.out" "$tmp/sst_chk32.$r.out"
	cp "$tmp/sst_rr.out" "$tmp/sst_rr.$r.out"
	cp "$tmp/sst_rr_sub.out" "$tmp/sst_rr_sub.$r.out"
done

# The armor's share of the loopback bulk run's CPU time: one more run of
# the chk32 row under perf (cpu-clock samples of both ends), the samples in
# Chk32's functions (the driver's seal and open bursts, the checksum and its
# kernels) over all, user and kernel. "nan" without perf. It splits the cycles per packet
# into the armor's and the rest, the issue's "outside the armor".
armor_share=nan
if command -v perf >/dev/null && [ -z "$veth_only" ]; then
	# -D: samples from 2 s in, once the EAL's start-up is over.
	perf record -q -e cpu-clock -F 4999 -D 2000 -o "$tmp/bulk.perf" -- \
		"$perf" --loopback -t "$run_time" --armor chk32 bulk >"$tmp/bulk_perf.out" 2>&1 &&
		armor_share=$(perf report -i "$tmp/bulk.perf" --no-children --sort symbol --stdio \
			-q 2>/dev/null | awk '$2 == "[.]" || $2 == "[k]" {
				p = $1; sub("%", "", p); all += p
				if ($3 ~ /^(sst_)?chk32/) armor += p
			} END {if (all > 0) printf "%.4f", armor / all; else print "nan"}') ||
		echo "compare.sh: perf record of the bulk run failed; no armor share" >&2
fi

# Medians over the rounds: cycles per unit of each name.
med() {
	awk -v n="$1" '$1 == n {print $3 / $2}' "$tmp/results" | sort -g |
		awk '{a[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
			else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
# Medians over the rounds: units per second of each name (bytes, or
# transactions for rr rows).
med_rate() {
	awk -v n="$1" -v w="$window" '$1 == n {print $2 / w}' "$tmp/results" | sort -g |
		awk '{a[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
			else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
# alt_table PMD TAG ARGS ALT: the PMD's rows with devargs ALT against ARGS.
alt_table() {
	[ -n "$4" ] || return 0
	awk -v a="$(med sst_$2)" -v b="$(med alt_$2)" -v ar="$(med_rate sst_$2)" \
		-v br="$(med_rate alt_$2)" -v c="$(med sst_$2_rr)" -v d="$(med alt_$2_rr)" \
		-v cr="$(med_rate sst_$2_rr)" -v dr="$(med_rate alt_$2_rr)" -v pmd="$1" \
		-v va="${3:-defaults}" -v vb="$4" 'BEGIN {
	printf "\n| %s, same sitting | %s | %s | ratio |\n|---|---|---|---|\n", pmd, va, vb
	printf "| bulk chk32, cycles/byte | %.2f | %.2f | %.2fx |\n", a, b, a / b
	printf "| bulk chk32, Mbit/s | %.0f | %.0f | %.2fx |\n", ar * 8 / 1e6, br * 8 / 1e6, br / ar
	printf "| rr 32 B, cycles/txn | %.0f | %.0f | %.2fx |\n", c, d, c / d
	printf "| rr 32 B, txn/s | %.0f | %.0f | %.2fx |\n", cr, dr, dr / cr
}'
}
# The veth pair's table: SST-DPDK on net_af_packet next to the kernel.
veth_table() {
	awk -v off="$(med tcp_off)" -v offr="$(med_rate tcp_off)" -v afp="$(med sst_afp)" \
		-v afpr="$(med_rate sst_afp)" -v udp="$(med udp_rr)" -v rr="$(med sst_afp_rr)" \
		-v rrr="$(med_rate sst_afp_rr)" 'BEGIN {
	print "\n| over the veth pair | anchor, same sitting | SST-DPDK on net_af_packet | SST / anchor |"
	print "|---|---|---|---|"
	printf "| bulk, chk32 | kernel TCP, offloads off: %.2f cycles/byte, %.0f Mbit/s | %.2f cycles/byte, %.0f Mbit/s | %.2fx per CPU-second |\n",
		off, offr * 8 / 1e6, afp, afpr * 8 / 1e6, off / afp
	printf "| transactions, 32 B each way, a new stream each | UDP ping-pong over lo: %.1fk cycles/txn | %.1fk cycles/txn, %.0f txn/s | %.2fx per CPU-second |\n",
		udp / 1e3, rr / 1e3, rrr, udp / rr
}'
	awk -v off="$(med tcp_off)" -v offr="$(med_rate tcp_off)" -v afx="$(med sst_afx)" \
		-v afxr="$(med_rate sst_afx)" -v udp="$(med udp_rr)" -v rr="$(med sst_afx_rr)" \
		-v rrr="$(med_rate sst_afx_rr)" -v afp="$(med sst_afp)" -v afprr="$(med sst_afp_rr)" \
		-v rrs="$(med sst_afx_rrsub)" -v rrsr="$(med_rate sst_afx_rrsub)" 'BEGIN {
	print "\n| over the veth pair | anchor, same sitting | SST-DPDK on net_af_xdp | SST / anchor | net_af_xdp / net_af_packet |"
	print "|---|---|---|---|---|"
	if (afx == "nan") {
		print "| bulk and rr | - | net_af_xdp not available (kernel without AF_XDP, or no PMD) | - | - |"
		exit
	}
	printf "| bulk, chk32 | kernel TCP, offloads off: %.2f cycles/byte, %.0f Mbit/s | %.2f cycles/byte, %.0f Mbit/s | %.2fx per CPU-second | %.2fx per CPU-second |\n",
		off, offr * 8 / 1e6, afx, afxr * 8 / 1e6, off / afx, afp / afx
	printf "| transactions, 32 B each way, a new stream each | UDP ping-pong over lo: %.1fk cycles/txn | %.1fk cycles/txn, %.0f txn/s | %.2fx per CPU-second | %.2fx per CPU-second |\n",
		udp / 1e3, rr / 1e3, rrr, udp / rr, afprr / rr
	printf "| the same, each on a new substream (`--substreams`) | the same | %.1fk cycles/txn, %.0f txn/s | %.2fx per CPU-second | - |\n",
		rrs / 1e3, rrsr, udp / rrs
}'
	alt_table net_af_packet afp "$afp_args" "$afp_alt"
	alt_table net_af_xdp afx "$afx_args" "$afx_alt"
	[ -n "$versus" ] || return 0
	awk -v a="$(med v_afp)" -v b="$(med sst_afp)" -v ar="$(med_rate v_afp)" \
		-v br="$(med_rate sst_afp)" -v c="$(med v_afp_rr)" -v d="$(med sst_afp_rr)" \
		-v cr="$(med_rate v_afp_rr)" -v dr="$(med_rate sst_afp_rr)" -v va="$versus" \
		-v vb="$build" 'BEGIN {
	printf "\n| net_af_packet, same sitting | %s | %s | ratio |\n|---|---|---|---|\n", va, vb
	printf "| bulk chk32, cycles/byte | %.2f | %.2f | %.2fx |\n", a, b, a / b
	printf "| bulk chk32, Mbit/s | %.0f | %.0f | %.2fx |\n", ar * 8 / 1e6, br * 8 / 1e6, br / ar
	printf "| rr 32 B, cycles/txn | %.0f | %.0f | %.2fx |\n", c, d, c / d
	printf "| rr 32 B, txn/s | %.0f | %.0f | %.2fx |\n", cr, dr, dr / cr
}'
}
if [ -n "$veth_only" ]; then
	printf "\nMedians of %d round(s), %d-second windows; cycles = CPU-seconds of both ends x %s MHz\n" \
		"$rounds" "$window" "$tsc_mhz"
	veth_table
	echo
	echo "Per round (cycles per byte, or per transaction for the rr rows):"
	for n in tcp_off sst_afp v_afp sst_afp_rr v_afp_rr sst_afx sst_afx_rr sst_afx_rrsub alt_afp alt_afp_rr \
		alt_afx alt_afx_rr udp_rr; do
		awk -v n="$n" '$1 == n {r = r sprintf(" %.4g", $3 / $2)} END {if (r != "") print "  " n ":" r}' \
			"$tmp/results"
	done
	exit 0
fi
chk=$(med sst_chk32)
aes=$(med sst_aes)
rr=$(med sst_rr)
rrs=$(med sst_rr_sub)
on=$(med tcp_on)
off=$(med tcp_off)
afp=$(med sst_afp)
udp=$(med udp_rr)
crr=$(med tcp_crr)
# Packets per byte and per transaction from sst-perf's own count (the
# links' transmitted packets of both ends) in the last round.
pkt_byte=$(awk '/^  packets / {p = $2} /^  payload delivered/ {b = $3} END {print p / b}' \
	"$tmp/sst_chk32.out")
pkt_txn=$(awk '/^  packets / {p = $2} /^  transactions / {t = $2} END {print p / t}' \
	"$tmp/sst_rr.out")
pkt_txn_sub=$(awk '/^  packets / {p = $2} /^  transactions / {t = $2} END {print p / t}' \
	"$tmp/sst_rr_sub.out")
ng=$(med ngtcp2)
tpmd=$(med testpmd)

awk -v chk="$chk" -v afp="$afp" -v aes="$aes" -v rr="$rr" -v on="$on" -v off="$off" -v udp="$udp" \
	-v crr="$crr" -v pb="$pkt_byte" -v pt="$pkt_txn" -v ng="$ng" -v rounds="$rounds" \
	-v rrs="$rrs" -v pts="$pkt_txn_sub" \
	-v win="$window" -v mhz="$tsc_mhz" -v tp="$tpmd" -v ash="$armor_share" 'BEGIN {
	printf "\nMedians of %d round(s), %d-second windows; cycles = CPU-seconds of both ends x %s MHz\n\n",
		rounds, win, mhz
	print "| work | anchor, same sitting | SST-DPDK | SST / anchor |"
	print "|---|---|---|---|"
	printf "| bulk, in-memory link, chk32 | kernel TCP over veth, offloads on: %.2f cycles/byte | `sst-perf --loopback`: %.2f cycles/byte | %.2fx per CPU-second |\n",
		on, chk, on / chk
	printf "| bulk, veth + net_af_packet, chk32 | kernel TCP over veth, offloads off: %.2f cycles/byte | %.2f cycles/byte | %.2fx |\n",
		off, afp, off / afp
	if (ng == "nan")
		printf "| bulk, AES-128-GCM, in-memory | ngtcp2: not installed | %.2f cycles/byte | - |\n", aes
	else
		printf "| bulk, AES-128-GCM, in-memory | ngtcp2 over lo: %.2f cycles/byte | %.2f cycles/byte | %.2fx per CPU-second |\n",
			ng, aes, ng / aes
	printf "| transactions, 32 B each way, a new stream each | UDP ping-pong %.1fk cycles/txn; TCP_CRR %.1fk | %.1fk cycles/txn, %.1f packets each | %.2fx UDP, %.2fx TCP_CRR |\n",
		udp / 1e3, crr / 1e3, rr / 1e3, pt, udp / rr, crr / rr
	printf "| the same, each on a new substream (`--substreams`) | the same | %.1fk cycles/txn, %.1f packets each | %.2fx UDP, %.2fx TCP_CRR |\n",
		rrs / 1e3, pts, udp / rrs, crr / rrs
	if (tp == "nan")
		printf "| cycles per packet, both ends, loopback bulk | testpmd: not installed | %.0f | - |\n",
			chk / pb
	else
		printf "| cycles per packet, both ends, loopback bulk | testpmd io on net_null: %.0f | %.0f | %.0fx the floor |\n",
			tp, chk / pb, chk / pb / tp
	if (ash != "nan")
		printf "| the same, outside the armor (perf: Chk32 %.1f %% of the samples) | - | %.0f | - |\n",
			100 * ash, chk / pb * (1 - ash)
}'
veth_table

# Every round's figure, so that the spread of the sitting shows.
echo
echo "Per round (cycles per byte, or per transaction for the rr rows):"
for n in sst_chk32 tcp_on sst_aes ngtcp2 tcp_off sst_afp sst_afp_rr sst_afx sst_afx_rr sst_afx_rrsub alt_afp \
	alt_afp_rr alt_afx alt_afx_rr sst_rr sst_rr_sub udp_rr tcp_crr w1_bulk \
	w2_bulk w1_rr w2_rr eb_w1_bulk eb_w2_bulk eb_w1_rr eb_w2_rr testpmd v_chk32 v_aes v_rr v_afp \
	v_afp_rr; do
	awk -v n="$n" '$1 == n {r = r sprintf(" %.4g", $3 / $2)} END {if (r != "") print "  " n ":" r}' \
		"$tmp/results"
done

# One worker a side against two, both over the loopback's net_ring pair.
awk -v a="$(med w1_bulk)" -v b="$(med w2_bulk)" -v c="$(med w1_rr)" -v d="$(med w2_rr)" 'BEGIN {
	print "\n| loopback over the net_ring pair, chk32 | -w 1 --frames | -w 2 | -w 2 per CPU-second, of -w 1 |"
	print "|---|---|---|---|"
	printf "| bulk, cycles/byte | %.2f | %.2f | %.2fx |\n", a, b, a / b
	printf "| rr 32 B, each on a new stream, cycles/txn | %.0f | %.0f | %.2fx |\n", c, d, c / d
}'
# Two workers on two cores against one (engine_bench's lanes).
awk -v a="$(med eb_w1_bulk)" -v b="$(med eb_w2_bulk)" -v c="$(med eb_w1_rr)" \
	-v d="$(med eb_w2_rr)" -v ar="$(med_rate eb_w1_bulk)" -v br="$(med_rate eb_w2_bulk)" \
	-v cr="$(med_rate eb_w1_rr)" -v dr="$(med_rate eb_w2_rr)" 'BEGIN {
	print "\n| engine_bench over a net_ring pair, chk32 | one worker a side | two, a lane a core | per CPU-second, of one | throughput, of one |"
	print "|---|---|---|---|---|"
	printf "| bulk, 8 streams a channel | %.3f cycles/byte, %.0f Mbit/s | %.3f cycles/byte, %.0f Mbit/s | %.2fx | %.2fx |\n",
		a, ar * 8 / 1e6, b, br * 8 / 1e6, a / b, br / ar
	printf "| rr 32 B, each on a new stream | %.0f cycles/txn, %.0f txn/s | %.0f cycles/txn, %.0f txn/s | %.2fx | %.2fx |\n",
		c, cr, d, dr, c / d, dr / cr
}'
[ -n "$versus" ] || exit 0
awk -v a="$(med v_chk32)" -v b="$chk" -v c="$(med v_aes)" -v d="$aes" -v e="$(med v_rr)" \
	-v f="$rr" -v va="$versus" -v vb="$build" 'BEGIN {
	printf "\n| SST-DPDK, same sitting | %s | %s | ratio |\n|---|---|---|---|\n", va, vb
	printf "| bulk chk32, cycles/byte | %.2f | %.2f | %.2fx |\n", a, b, a / b
	printf "| bulk AES-128-GCM, cycles/byte | %.2f | %.2f | %.2fx |\n", c, d, c / d
	printf "| rr 32 B, cycles/txn | %.0f | %.0f | %.2fx |\n", e, f, e / f
}'

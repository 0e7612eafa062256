#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's attacks on a live server while a legitimate client is served
# (issue 21), over kernel UDP on 127.0.0.1 against `sst-gen server`:
#  - optimistic acks (--attack optimistic-ack): a client that acknowledges
#    everything the server sent, whether it came or not, asking 1 MB
#    responses (hundreds of packets, so the server skips numbers). The
#    server must catch it (its count of optimistic acks above 0: it failed
#    the channel) and stop sending on that channel;
#  - acks of the future (--ack-jump 100000): the server drops those packets
#    (its count of acks beyond what it sent rises);
#  - meanwhile a legitimate client's 5 channels x 10 streams all verified;
#  - stream-slot exhaustion (--attack stream-slots): 2 channels open streams
#    and never use them; the server (2,048 streams, 512 a peer) must refuse
#    them past a peer's share, and then serve the legitimate client again
#    while the attacker holds its streams;
#  - optimistic acks in secure mode (--armor aes128gcm, another server):
#    the ack word is encrypted and authenticated, so the client's channels
#    forge it before sealing; the server must catch them the same way (its
#    optimistic count above 0) while a legitimate secure client is served;
#  - cookie replay (--attack cookie-replay, secure mode, the same server):
#    each channel's SecI2 sent again from 4 other endpoints is answered by
#    nothing and counted as unmatched;
#  - cookie expiry (--attack cookie-expiry, secure mode, a server with 2 s
#    cookie periods and a load threshold of 1): each channel's SecI1 that
#    carried a cookie, sent again from its own endpoint after the channels
#    closed, with the server under load (a SecI1 from another endpoint just
#    before): 1.5 s after, within the cookie's lifetime, it is taken (SecR1:
#    the control); 5 s after, past two periods, it is refused with a new
#    challenge and counted as a bad cookie. Before the fix of the lazy
#    rotation (nego_secure_i1.c) the 5 s replays were taken too.
# Usage: gen_attack.sh PATH/TO/sst-gen
set -u
gen_bin=${1:?usage: gen_attack.sh PATH/TO/sst-gen}
cat_bin=/bin/false
. "$(dirname "$0")/cat_common.sh"
. "$(dirname "$0")/gen_common.sh"

gen_server --max-streams 2048
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --attack optimistic-ack --channels 2 \
	--streams 2 --request 100 --response 1M --timeout 3 --json \
	>"$dir/opt.json" 2>"$dir/opt.err" &
opt=$!
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --attack optimistic-ack \
	--ack-jump 100000 --channels 1 --streams 1 --request 5000 --response 1M --timeout 3 \
	--json >"$dir/jump.json" 2>"$dir/jump.err" &
jump=$!
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --channels 5 --streams 10 \
	--request uniform:1-3000 --response uniform:1-20000 --json \
	>"$dir/legit.json" 2>"$dir/legit.err" || fail "legitimate client: exit $?"
[ "$(json_field "$dir/legit.json" ok)" = true ] &&
	[ "$(json_field "$dir/legit.json" transactions)" = 50 ] ||
	fail "legitimate client not served: $(cat "$dir/legit.json" "$dir/legit.err")"
wait "$opt" || fail "optimistic-ack client: exit $? $(cat "$dir/opt.err")"
wait "$jump" || fail "ack-jump client: exit $? $(cat "$dir/jump.err")"

timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --attack stream-slots --channels 2 \
	--timeout 50 --json >"$dir/slots.json" 2>"$dir/slots.err" &
slots=$!
# The legitimate client again once the server refused the attacker.
refused=0
for _ in $(seq 300); do
	refused=$(sed -n "s/.*refused over a peer's share \([0-9]*\)$/\1/p" "$dir/server.err" |
		tail -1)
	[ "${refused:-0}" -gt 0 ] && break
	kill -0 "$slots" 2>/dev/null || break
	sleep 0.1
done
[ "${refused:-0}" -gt 0 ] || fail "the server never refused the stream-slot attacker"
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --channels 5 --streams 10 \
	--request uniform:1-3000 --response uniform:1-20000 --json \
	>"$dir/legit2.json" 2>"$dir/legit2.err" || fail "legitimate client under slots: exit $?"
[ "$(json_field "$dir/legit2.json" ok)" = true ] &&
	[ "$(json_field "$dir/legit2.json" transactions)" = 50 ] ||
	fail "legitimate client not served beside the slot attacker: $(cat "$dir/legit2.json")"
kill -INT "$slots"
wait "$slots" || fail "stream-slots client: exit $? $(cat "$dir/slots.err")"
echo "stream-slots client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/slots.json")"
[ "$(json_field "$dir/slots.json" slots_refused)" -gt 0 ] 2>/dev/null ||
	fail "the slot attacker saw no refusal: $(cat "$dir/slots.json")"
# Streams opened in the burst that met the limit are refused too: what the
# attacker keeps is at most a peer's share (512) on each of its 2 channels.
held=$(json_field "$dir/slots.json" slots_held)
[ "${held:-0}" -ge 512 ] && [ "${held:-0}" -le 1024 ] ||
	fail "the attacker held $held streams at the end (want 512 to 2 x 512, a peer's share each)"
kill "$server"
wait "$server" || fail "sst-gen server: exit $? $(tail -3 "$dir/server.err")"
server=
end=$(grep 'server (end):' "$dir/server.err")
skipped=$(echo "$end" | sed -n 's/.*acks: \([0-9]*\) numbers skipped.*/\1/p')
optimistic=$(echo "$end" | sed -n 's/.*, \([0-9]*\) optimistic (channel failed).*/\1/p')
beyond=$(echo "$end" | sed -n 's/.*, \([0-9]*\) beyond what was sent.*/\1/p')
echo "server: $end"
echo "optimistic-ack client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/opt.json")," \
	"$(json_field "$dir/opt.json" transactions) of 4 streams done"
echo "ack-jump client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/jump.json")"
[ "${skipped:-0}" -gt 0 ] || fail "the server skipped no sequence number: $end"
[ "${optimistic:-0}" -gt 0 ] || fail "the server did not catch the optimistic acks: $end"
[ "${beyond:-0}" -gt 0 ] || fail "the server took acks of what it never sent: $end"
[ "$(json_field "$dir/opt.json" forged_acks)" -gt 0 ] 2>/dev/null ||
	fail "the attack forged nothing: $(cat "$dir/opt.json")"
# A caught channel sends nothing more: the attacker's 1 MB responses cannot
# all have come.
[ "$(json_field "$dir/opt.json" transactions)" -lt 4 ] 2>/dev/null ||
	fail "the optimistic acker got every response: $(cat "$dir/opt.json")"
# Secure mode: optimistic acks forged by the client's own channels before
# sealing (the channel layer's ack_forge_for_testing), beside a legitimate
# secure client; then the cookie replay, each channel's SecI2 sent again
# from 4 other endpoints: the server answers none (no half-open entry).
gen_server --armor aes128gcm
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --armor aes128gcm \
	--attack optimistic-ack --channels 2 --streams 2 --request 100 --response 1M \
	--timeout 3 --json >"$dir/opt-sec.json" 2>"$dir/opt-sec.err" &
opt=$!
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --armor aes128gcm --channels 3 \
	--streams 5 --request uniform:1-3000 --response uniform:1-20000 --json \
	>"$dir/legit-sec.json" 2>"$dir/legit-sec.err" || fail "legitimate secure client: exit $?"
[ "$(json_field "$dir/legit-sec.json" transactions)" = 15 ] ||
	fail "legitimate secure client not served: $(cat "$dir/legit-sec.json")"
wait "$opt" || fail "secure optimistic-ack client: exit $? $(cat "$dir/opt-sec.err")"
echo "optimistic-ack client (aes128gcm): $(sed -n 's/.*"attack": \(.*\),$/\1/p' \
	"$dir/opt-sec.json"), $(json_field "$dir/opt-sec.json" transactions) of 4 streams done"
[ "$(json_field "$dir/opt-sec.json" forged_acks)" -gt 0 ] 2>/dev/null ||
	fail "the secure attack forged nothing: $(cat "$dir/opt-sec.json" "$dir/opt-sec.err")"
[ "$(json_field "$dir/opt-sec.json" transactions)" -lt 4 ] 2>/dev/null ||
	fail "the secure optimistic acker got every response: $(cat "$dir/opt-sec.json")"
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --armor aes128gcm --attack cookie-replay \
	--channels 2 --streams 2 --request 100 --response 1000 --time 1 --timeout 3 --json \
	>"$dir/replay.json" 2>"$dir/replay.err" || fail "cookie-replay client: exit $?"
kill "$server"
wait "$server" || fail "sst-gen server (secure): exit $? $(tail -3 "$dir/server.err")"
server=
end=$(grep 'server (end):' "$dir/server.err")
optimistic=$(echo "$end" | sed -n 's/.*, \([0-9]*\) optimistic (channel failed).*/\1/p')
[ "${optimistic:-0}" -gt 0 ] ||
	fail "the secure server did not catch the sealed optimistic acks: $end"
echo "cookie-replay client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/replay.json")"
echo "server: $end"
unmatched=$(echo "$end" | sed -n 's/.*, \([0-9]*\) SecI2 unmatched.*/\1/p')
[ "$(json_field "$dir/replay.json" replayed)" = 8 ] ||
	fail "not 2 x 4 replays: $(cat "$dir/replay.json" "$dir/replay.err")"
[ "$(json_field "$dir/replay.json" replay_answers)" = 0 ] ||
	fail "the server answered a replayed SecI2: $(cat "$dir/replay.json")"
[ "${unmatched:-0}" -ge 8 ] || fail "the server did not count the replays: $end"

# expiry AFTER_MS: a fresh server, 3 channels, their cookie SecI1s replayed
# AFTER_MS after they went; the client's JSON in $dir/expiry-AFTER_MS.json,
# the server's last line in $end.
expiry() {
	gen_server --armor aes128gcm --load-high 1 --cookie-period 2000 --quiet
	timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --armor aes128gcm \
		--attack cookie-expiry --replay-after "$1" --channels 3 --streams 2 --json \
		>"$dir/expiry-$1.json" 2>"$dir/expiry-$1.err" || fail "cookie-expiry client: exit $?"
	kill "$server"
	wait "$server" || fail "sst-gen server (cookies): exit $? $(tail -3 "$dir/server.err")"
	server=
	end=$(grep 'server (end):' "$dir/server.err")
	echo "cookie-expiry $1 ms: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/expiry-$1.json")"
	echo "server: $(echo "$end" | grep -o 'negotiation: .* unmatched')"
}
expiry 1500
taken=$(json_field "$dir/expiry-1500.json" replayed)
[ "${taken:-0}" -ge 1 ] || fail "no cookie SecI1 replayed: $(cat "$dir/expiry-1500.json")"
[ "$(json_field "$dir/expiry-1500.json" replay_accepted)" = "$taken" ] ||
	fail "a replay within the cookie's lifetime not taken: $(cat "$dir/expiry-1500.json")"
expiry 5000
taken=$(json_field "$dir/expiry-5000.json" replayed)
bad=$(echo "$end" | sed -n 's/.*, \([0-9]*\) cookies bad,.*/\1/p')
[ "${taken:-0}" -ge 1 ] || fail "no cookie SecI1 replayed: $(cat "$dir/expiry-5000.json")"
[ "$(json_field "$dir/expiry-5000.json" replay_accepted)" = 0 ] ||
	fail "an expired cookie was taken: $(cat "$dir/expiry-5000.json")"
[ "$(json_field "$dir/expiry-5000.json" replay_challenged)" = "$taken" ] ||
	fail "expired cookies not challenged again: $(cat "$dir/expiry-5000.json")"
[ "${bad:-0}" -ge "$taken" ] || fail "the server did not count the expired cookies: $end"
[ "$fails" -eq 0 ] && echo "sst-gen: optimistic acks caught (both modes), acks of the future dropped," \
	"stream slots refused past a peer's share, a legitimate client served," \
	"replayed SecI2 unanswered, expired cookies refused"
exit $((fails != 0))

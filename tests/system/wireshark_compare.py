#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare the Wireshark dissector (tools/wireshark/sst.lua, run by tshark)
with sst-dump --json, packet by packet, over one capture.

Every frame sst-dump reports must be dissected as SST and agree on the fields
both decode: channel number, 64-bit sequence and ack numbers, the stream
header, service messages, Attach USIDs, the trailer check, malformed packets
and, for negotiation messages, the chunks and their fields. A packet the
dissector marks "encrypted" (secure-mode AEAD or the prototype's AES armor,
whose keys never appear on the wire) is compared on what is in clear: the
channel number and the sequence number. sst-dump, which has no secure-mode
decoder, reads garbage there and that is not compared.

Usage: wireshark_compare.py TSHARK SST_LUA SST_DUMP PORT CAPTURE
           [--encrypted N] [--bad N] [--chk-key SRC,DST,CHAN,KEY]...
  --encrypted N: at least N channel packets must be marked encrypted, and
                 every channel packet must be when N > 0
  --bad N:       exactly N channel packets fail their trailer check
Prints one line per capture; exit status 1 on any difference.
"""
import argparse
import json
import subprocess
import sys

# tshark fields; lists because a field may occur several times in a frame.
FIELDS = [
    "frame.number", "sst.kind", "sst.ch", "sst.seq", "sst.ack", "sst.ack_from",
    "sst.type_name", "sst.sid", "sst.ref", "sst.tsn", "sst.flag_letters", "sst.win",
    "sst.credit", "sst.len", "sst.service", "sst.protocol", "sst.reply_error",
    "sst.usid.counter", "sst.usid.hcid", "sst.parent.counter", "sst.parent.hcid",
    "sst.armor", "sst.trailer_status", "sst.error", "sst.where", "sst.attach_error",
    "sst.chunks", "sst.chunk.type", "sst.chunk.len",
    "sst.chki1.cki", "sst.chki1.chani", "sst.chkr1.cki", "sst.chkr1.ckr", "sst.chkr1.chanr",
    "sst.dhi1.group", "sst.dhi1.keymin", "sst.dhi1.nhi", "sst.dhr1.group", "sst.dhr1.keylen",
    "sst.dhr1.nhi", "sst.dhr1.nr", "sst.dhi2.group", "sst.dhi2.keylen", "sst.dhi2.ni",
    "sst.dhi2.nr", "sst.dhr2.nhi",
]

# sst-dump chunk name -> dissector field prefix, and the fields compared.
CHUNK_FIELDS = {
    "ChkI1": ("chki1", ["cki", "chani"]),
    "ChkR1": ("chkr1", ["cki", "ckr", "chanr"]),
    "DhI1": ("dhi1", ["group", "keymin", "nhi"]),
    "DhR1": ("dhr1", ["group", "keylen", "nhi", "nr"]),
    "DhI2": ("dhi2", ["group", "keylen", "ni", "nr"]),
    "DhR2": ("dhr2", ["nhi"]),
}
CHUNK_CODES = {"Packet": 0x1, "ChkI1": 0x11, "ChkR1": 0x12, "DhI1": 0x21, "DhR1": 0x22,
               "DhI2": 0x23, "DhR2": 0x24}


def norm(v):
    """One value as a comparable string: numbers in decimal, hex lower case."""
    v = str(v).strip()
    if v.startswith("0x"):
        return str(int(v, 16))
    return v.replace(":", "").lower()


def tshark_frames(args):
    cmd = [args.tshark, "-n", "-X", "lua_script:" + args.lua, "-o", "sst.port:%d" % args.port,
           "-r", args.capture, "-T", "fields", "-E", "header=n", "-E", "separator=/t",
           "-E", "occurrence=a", "-E", "aggregator=|"]
    if args.chk_key:
        cmd += ["-o", "sst.chk_keys:" + ";".join(args.chk_key)]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = {}
    for line in out.splitlines():
        cols = line.split("\t")
        row = {}
        for name, val in zip(FIELDS, cols):
            row[name] = [norm(x) for x in val.split("|")] if val != "" else []
        frames[int(cols[0])] = row
    return frames


def dump_records(args):
    cmd = [args.dump, "--json", "--port", str(args.port)]
    for k in args.chk_key or []:
        cmd += ["--chk-key", k]
    cmd.append(args.capture)
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    recs = []
    for line in out.splitlines():
        # Keep repeated keys (sst-dump writes one "chunk" key per unnamed chunk).
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
        d = dict(pairs)
        if "summary" not in d:
            recs.append(pairs)
    return recs


def compare(args):
    tf = tshark_frames(args)
    recs = dump_records(args)
    diffs = []
    encrypted = 0

    def want(frame, field, value, row):
        got = row.get(field, [])
        exp = norm(value)
        if got[:1] != [exp]:
            diffs.append("frame %d: %s: dissector %s, sst-dump %s" % (frame, field, got, exp))

    for pairs in recs:
        d = dict(pairs)
        frame = d["frame"]
        row = tf.get(frame)
        if row is None or row["sst.kind"][:1] != [d["kind"]]:
            diffs.append("frame %d: not dissected as SST %s" % (frame, d["kind"]))
            continue
        if d["kind"] == "control":
            if "chunks" not in d:
                want(frame, "sst.error", d.get("error", ""), row)
                continue
            want(frame, "sst.chunks", d["chunks"], row)
            chunks = [(k, dict(v)) for k, v in pairs if isinstance(v, list)]
            types = row["sst.chunk.type"]
            lens = row["sst.chunk.len"]
            if len(types) != len(chunks):
                diffs.append("frame %d: %d chunks, sst-dump %d" % (frame, len(types), len(chunks)))
                continue
            for i, (name, body) in enumerate(chunks):
                code = int(body["type"], 16) if name == "chunk" else CHUNK_CODES[name]
                if int(types[i]) != code:
                    diffs.append("frame %d chunk %d: type %s, sst-dump %s" % (frame, i, types[i], code))
                if "len" in body and int(lens[i]) - 4 != body["len"]:
                    diffs.append("frame %d chunk %d: body %d bytes, sst-dump %d" %
                                 (frame, i, int(lens[i]) - 4, body["len"]))
                prefix, names = CHUNK_FIELDS.get(name, (None, []))
                for n in names:
                    # sst-dump writes checksum keys as hex strings.
                    v = int(body[n], 16) if n in ("cki", "ckr") else body[n]
                    want(frame, "sst.%s.%s" % (prefix, n), v, row)
            continue
        want(frame, "sst.ch", d["ch"], row)
        if "seq" in d:
            want(frame, "sst.seq", d["seq"], row)
        if row["sst.trailer_status"][:1] == ["encrypted"]:
            encrypted += 1
            continue
        for key, field in [("ack", "sst.ack"), ("ack_from", "sst.ack_from"),
                           ("type", "sst.type_name"), ("sid", "sst.sid"), ("ref", "sst.ref"),
                           ("tsn", "sst.tsn"), ("flags", "sst.flag_letters"),
                           ("win", "sst.win"), ("credit", "sst.credit"), ("len", "sst.len"),
                           ("chk32", "sst.trailer_status"), ("error", "sst.error"),
                           ("where", "sst.where"), ("attach_error", "sst.attach_error")]:
            if key in d:
                want(frame, field, d[key], row)
        for key, fields in [("ConnectRequest", [("service", "sst.service"),
                                                ("protocol", "sst.protocol")]),
                            ("ConnectReply", [("error", "sst.reply_error")]),
                            ("usid", [("counter", "sst.usid.counter"), ("hcid", "sst.usid.hcid")]),
                            ("parent", [("counter", "sst.parent.counter"),
                                        ("hcid", "sst.parent.hcid")])]:
            if key in d:
                body = dict(d[key])
                for k, field in fields:
                    want(frame, field, body[k], row)
        # Nothing the dissector decodes that sst-dump does not.
        for key, field in [("type", "sst.type_name"), ("error", "sst.error")]:
            if key not in d and row[field]:
                diffs.append("frame %d: dissector has %s %s" % (frame, field, row[field]))
    extra = set(f for f, r in tf.items() if r["sst.kind"]) - set(dict(p)["frame"] for p in recs)
    for f in sorted(extra):
        diffs.append("frame %d: dissected as SST, not in sst-dump" % f)
    channel = sum(1 for p in recs if dict(p)["kind"] == "channel")
    bad = sum(1 for r in tf.values() if "bad" in r["sst.trailer_status"])
    if bad != args.bad:
        diffs.append("%d packets with a bad trailer, want %d" % (bad, args.bad))
    if args.encrypted > 0 and (encrypted < args.encrypted or encrypted != channel):
        diffs.append("%d of %d channel packets marked encrypted, want all and at least %d" %
                     (encrypted, channel, args.encrypted))
    if args.encrypted == 0 and encrypted:
        diffs.append("%d channel packets marked encrypted, want none" % encrypted)
    return diffs, len(recs), encrypted


def main():
    p = argparse.ArgumentParser()
    p.add_argument("tshark")
    p.add_argument("lua")
    p.add_argument("dump")
    p.add_argument("port", type=int)
    p.add_argument("capture")
    p.add_argument("--encrypted", type=int, default=0)
    p.add_argument("--bad", type=int, default=0)
    p.add_argument("--chk-key", action="append")
    args = p.parse_args()
    diffs, n, enc = compare(args)
    name = args.capture.rsplit("/", 1)[-1]
    for d in diffs[:20]:
        print("FAIL: %s: %s" % (name, d))
    if len(diffs) > 20:
        print("FAIL: %s: ... %d differences in all" % (name, len(diffs)))
    if diffs or n == 0:
        if n == 0:
            print("FAIL: %s: sst-dump found no SST packet" % name)
        return 1
    print("ok: %s: %d packets agree%s" % (name, n, " (%d encrypted)" % enc if enc else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

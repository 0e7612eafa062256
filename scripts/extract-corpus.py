#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Regenerate the libFuzzer seed corpora under tests/fuzz/corpus/ from packet
captures of the SST prototype (classic pcap, IPv4 or IPv6, UDP).

Each UDP payload is classified as the receiver sees it (docs: wire-format.md
section 1): byte 0 == 0 is a negotiation message, anything else a channel
packet (8-byte channel header, stream header, payload, 4-byte Chk32 trailer).
Channel packets are only used from captures that negotiated checksum mode:
a capture that contains a DH/JFK chunk (DhI1..DhR2) uses encrypted armor, so
only its negotiation messages are taken.

Targets and what their seeds are:
  fuzz_channel_wire  whole channel packets, one per header shape
  fuzz_stream_wire   channel packet minus channel header and trailer (stream
                     header + payload, Attach headers with their bodies),
                     plus Attach packets with parent USID and slot 1 made
                     from the observed ones
  fuzz_nego_wire     whole negotiation messages, plus hand-made framing cases
  fuzz_service       payloads of Init/Reply packets at TSN 0 carrying the
                     Message flag (service request/reply), plus hand-made ones
  fuzz_xdr           hand-made programs for the XDR reader (see fuzz_xdr.c)

Output is deterministic: a file is named after the SHA-1 of its content,
duplicates collapse, and packets are visited in file-name and capture order.
Files in a target directory whose names start with "regression-" (inputs that
once found a bug) are kept; every other file is replaced.
"""

import argparse
import hashlib
import os
import struct
import sys

TARGETS = ("fuzz_xdr", "fuzz_channel_wire", "fuzz_stream_wire", "fuzz_nego_wire", "fuzz_service")
NEGO_MAGIC = 0x00535354
CHUNK_DH = (0x21, 0x22, 0x23, 0x24)
CHAN_HDR = 8
TRAILER = 4
# Stream packet types with a long (8-byte) header: Init, Reply, Data.
LONG_TYPES = (1, 2, 3)
ATTACH = 7
MSG_FLAG = 0x2


def read_pcap(path):
    """Yield the UDP payloads of a classic pcap file, in capture order."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("%s: too short for a pcap header" % path)
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise ValueError("%s: not a classic pcap file (pcapng is not supported)" % path)
    linktype = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8 : off + 12])[0]
        frame = data[off + 16 : off + 16 + incl]
        off += 16 + incl
        payload = udp_payload(linktype, frame)
        if payload is not None:
            yield payload


def udp_payload(linktype, frame):
    """The UDP payload of one frame, or None if it is not IP/UDP."""
    if linktype == 1:  # Ethernet
        ethertype, l3 = struct.unpack(">H", frame[12:14])[0], 14
        while ethertype in (0x8100, 0x88A8) and len(frame) >= l3 + 4:
            ethertype = struct.unpack(">H", frame[l3 + 2 : l3 + 4])[0]
            l3 += 4
        ip = frame[l3:]
    elif linktype == 113:  # Linux cooked
        ethertype, ip = struct.unpack(">H", frame[14:16])[0], frame[16:]
    elif linktype in (101, 12, 228, 229):  # raw IP
        ip = frame
        ethertype = 0x0800 if ip[:1] and ip[0] >> 4 == 4 else 0x86DD
    else:
        return None
    if ethertype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 0xF) * 4
        if ip[9] != 17:
            return None
        end = min(len(ip), struct.unpack(">H", ip[2:4])[0])
        udp = ip[ihl:end]
    elif ethertype == 0x86DD and len(ip) >= 40:
        if ip[6] != 17:  # no extension headers in our captures
            return None
        udp = ip[40 : 40 + struct.unpack(">H", ip[4:6])[0]]
    else:
        return None
    if len(udp) < 8:
        return None
    ulen = struct.unpack(">H", udp[4:6])[0]
    return bytes(udp[8:ulen]) if 8 <= ulen <= len(udp) else None


def nego_chunks(msg):
    """List of (type, body) of a well-framed negotiation message, else None."""
    if len(msg) < 8 or struct.unpack(">I", msg[:4])[0] != NEGO_MAGIC:
        return None
    n = struct.unpack(">I", msg[4:8])[0]
    pos, chunks = 8, []
    for _ in range(n):
        if pos + 4 > len(msg):
            return None
        clen = struct.unpack(">I", msg[pos : pos + 4])[0]
        if clen < 4 or pos + 4 + clen > len(msg):
            return None
        chunk = msg[pos + 4 : pos + 4 + clen]
        chunks.append((struct.unpack(">i", chunk[:4])[0], chunk[4:]))
        pos += 4 + ((clen + 3) & ~3)
    return chunks


def size_class(n):
    """Exact size for short inputs, power-of-two buckets for long ones."""
    return n if n <= 64 else 1 << n.bit_length()


def xdr_opaque(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) & 3)


def xdr_string(s):
    return xdr_opaque(s.encode())


def nego_msg(chunks):
    out = struct.pack(">II", NEGO_MAGIC, len(chunks))
    for ctype, body in chunks:
        chunk = struct.pack(">i", ctype) + body
        out += xdr_opaque(chunk)
    return out


class Corpus:
    """Seeds per target, deduplicated by content and by a caller's shape key."""

    def __init__(self, limit):
        self.limit = limit
        self.seeds = {t: {} for t in TARGETS}
        self.shapes = {t: set() for t in TARGETS}

    def add(self, target, data, shape=None):
        seeds = self.seeds[target]
        if shape is not None:
            if shape in self.shapes[target]:
                return
            self.shapes[target].add(shape)
        if len(seeds) < self.limit:
            seeds.setdefault(hashlib.sha1(data).hexdigest(), data)


def add_capture(corpus, payloads):
    encrypted = False
    for p in payloads:
        if p[0] == 0:
            chunks = nego_chunks(p)
            if chunks and any(t in CHUNK_DH for t, _ in chunks):
                encrypted = True
    for p in payloads:
        if p[0] == 0:
            corpus.add("fuzz_nego_wire", p)
            continue
        if encrypted or len(p) < CHAN_HDR + TRAILER:
            continue
        # Shape of a channel packet: everything in the headers that steers
        # the decoders (sequence numbers excepted), and the size class.
        stream = p[CHAN_HDR:-TRAILER]
        hdr = stream[:4]
        corpus.add("fuzz_channel_wire", p, (p[0], p[4], bytes(hdr[2:4]), size_class(len(p))))
        corpus.add("fuzz_stream_wire", stream, (bytes(hdr[2:4]), size_class(len(stream))))
        if len(hdr) < 4:
            continue
        ptype, flags = hdr[2] >> 4, hdr[2] & 0xF
        if ptype in LONG_TYPES[:2] and flags & MSG_FLAG and len(stream) >= 8:
            tsn = struct.unpack(">H", stream[6:8])[0]
            if tsn == 0:
                corpus.add("fuzz_service", stream[8:])
        if ptype == ATTACH:
            add_attach_variants(corpus, stream)


def add_attach_variants(corpus, stream):
    """From an observed Attach (slot 0, no Init), make the slot-1 and
    new-stream forms: Init flag and the parent's USID, which for a
    top-level stream is the root stream (counter 0, same half-channel ID)."""
    hdr, body = stream[:4], stream[4:]
    if len(body) < 12:
        return
    hcid_len = struct.unpack(">I", body[8:12])[0]
    usid = body[: 12 + hcid_len + (-hcid_len & 3)]
    root = struct.pack(">Q", 0) + usid[8:]
    for tf, b in ((0x71, usid), (0x78, usid + root), (0x79, usid + root)):
        corpus.add("fuzz_stream_wire", hdr[:2] + bytes([tf]) + hdr[3:4] + b)


def add_handmade(corpus):
    """Seeds no capture contains: edge cases of framing and encoding."""
    # Negotiation: the zero-chunk ping, cookies and ulp data with every
    # padding length, a cookie request, an unknown chunk type, two chunks.
    chki1 = struct.pack(">II", 0xC21C5F62, 1)
    chkr1 = struct.pack(">III", 0xC21C5F62, 0x35D53D2A, 1)
    for msg in (
        nego_msg([]),
        nego_msg([(0x11, chki1 + xdr_opaque(b"c") + xdr_opaque(b"sst-dpdk/1") + xdr_opaque(b""))]),
        nego_msg([(0x11, chki1 + xdr_opaque(b"cookie!") + xdr_opaque(b"ulp") + xdr_opaque(b"pk"))]),
        nego_msg([(0x12, chkr1 + xdr_opaque(b"") + xdr_opaque(b"v1") + xdr_opaque(b""))]),
        nego_msg([(0x12, struct.pack(">III", 7, 7, 0) + xdr_opaque(b"cookie") + xdr_opaque(b"") * 2)]),
        nego_msg([(0x7777, b"unknown chunk"), (0x11, chki1 + xdr_opaque(b"") * 3)]),
        nego_msg([(0x01, b"")]),
        nego_msg([(0x24, b"\x11" * 32 + xdr_opaque(b"identity"))]),
    ):
        corpus.add("fuzz_nego_wire", msg)

    # Service rendezvous: requests whose names end on every padding length,
    # a refusal and an acceptance.
    for service, protocol in (("interop", "echo"), ("a", "bc"), ("file", "abcdefgh"), ("s" * 256, "p")):
        corpus.add("fuzz_service", struct.pack(">i", 0x101) + xdr_string(service) + xdr_string(protocol))
    for err in (0, 1, -1):
        corpus.add("fuzz_service", struct.pack(">ii", 0x201, err))

    # XDR reader programs (format in tests/fuzz/fuzz_xdr.c): byte 0 is the
    # program length, then the program, then the XDR input it reads.
    u32, i32, u64, boolean, fixed, opaque, string, end = range(8)

    def prog(ops, data):
        return bytes([len(ops)]) + bytes(ops) + data

    hcid = bytes.fromhex("d974d4aeab1d6a8d")
    for ops, data in (
        ([u32, i32, u64, end], struct.pack(">IiQ", 0xDEADBEEF, -2, 1 << 40)),
        ([boolean, boolean, boolean], struct.pack(">III", 0, 1, 2)),
        ([fixed, 5, fixed, 32, end], b"abcde\0\0\0" + b"\x42" * 32),
        ([fixed, 3], b"abc\x01"),
        ([u64, opaque, 32, end], struct.pack(">Q", 1) + xdr_opaque(hcid)),
        ([opaque | 8 * 5, 255, opaque, 2], xdr_opaque(b"abcdef") + xdr_opaque(b"xyz")),
        ([string, 16, string, 16, end], xdr_string("interop") + xdr_string("echo")),
        ([string, 255], xdr_opaque(b"a\0b")),
        ([opaque, 255], struct.pack(">I", 0xFFFFFFFF) + b"\0" * 8),
        ([opaque, 255], struct.pack(">I", 5) + b"hello\0\0\x07"),
        ([u32 | 8 * 3, u64 | 8 * 7, end], b"\x01\x02\x03\x04" + b"\x05" * 8),
        ([u64], b"\0\0\0"),
        ([end], b""),
    ):
        corpus.add("fuzz_xdr", prog(ops, data))


def write_corpus(corpus, outdir):
    total = 0
    for target in TARGETS:
        tdir = os.path.join(outdir, target)
        os.makedirs(tdir, exist_ok=True)
        wanted = corpus.seeds[target]
        for name in sorted(os.listdir(tdir)):
            if name.startswith("regression-"):
                continue
            if name not in wanted:
                os.remove(os.path.join(tdir, name))
        size = 0
        for name, data in sorted(wanted.items()):
            path = os.path.join(tdir, name)
            with open(path, "wb") as f:
                f.write(data)
            size += len(data)
        total += size
        print("%-18s %4d seeds %8d bytes" % (target, len(wanted), size))
    print("%-18s %4s       %8d bytes" % ("total", "", total))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Example: %(prog)s /work/shared/vectors/sst-prototype")
    parser.add_argument("pcap_dir", help="directory of *.pcap captures of the SST prototype")
    parser.add_argument("-o", "--output", default=os.path.join(here, "..", "tests", "fuzz", "corpus"),
        help="corpus root; one subdirectory per target (default: tests/fuzz/corpus)")
    parser.add_argument("-n", "--max-per-target", type=int, default=200,
        help="at most this many seeds per target (default: 200)")
    args = parser.parse_args()

    pcaps = sorted(f for f in os.listdir(args.pcap_dir) if f.endswith(".pcap"))
    if not pcaps:
        parser.error("no *.pcap files in %s" % args.pcap_dir)
    corpus = Corpus(args.max_per_target)
    add_handmade(corpus)
    for name in pcaps:
        add_capture(corpus, list(read_pcap(os.path.join(args.pcap_dir, name))))
    write_corpus(corpus, os.path.normpath(args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())

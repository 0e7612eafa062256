#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# A UDP relay for the tools' system tests: a server that goes silent. It
# listens on 127.0.0.1 (a port the kernel picks, printed on stdout as
# "relay on PORT"), forwards every datagram of its one client to the server,
# and forwards only the server's first N datagrams back: with N 1 the client
# gets the server's first negotiation answer (ChkR1, SecR1) and nothing after
# it, as from a server that stopped answering then.
# Usage: udp_relay.py SERVER_PORT N
import select
import socket
import sys


def main():
    server = ("127.0.0.1", int(sys.argv[1]))
    budget = int(sys.argv[2])
    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind(("127.0.0.1", 0))
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.bind(("127.0.0.1", 0))
    print("relay on %d" % front.getsockname()[1], flush=True)
    client = None
    while True:
        ready, _, _ = select.select([front, back], [], [])
        if front in ready:
            data, client = front.recvfrom(65535)
            back.sendto(data, server)
        if back in ready:
            data, _ = back.recvfrom(65535)
            if client is not None and budget > 0:
                budget -= 1
                front.sendto(data, client)


if __name__ == "__main__":
    main()

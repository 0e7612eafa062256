#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The stream modules' layering (issue 16, docs/stream.md "Module map").

Two graphs between the modules of lib/stream (a module is a .c and its .h,
named by their stem):

  calls     from the static library's object files: module A calls B when
            A's object has an undefined symbol that B's object defines
            (nm; functions only). Calls through the upcall table (struct stream_upcalls)
            name no symbol and are not edges: that is the point of the
            table.
  includes  from the sources: module A includes B when A's .c or .h has
            #include "B.h" for a header of lib/stream.

Fails (exit 1) when a graph has a circle: for two modules calling or
including each other both ways, the pair and the symbols (or files) each
way; for a longer circle, its modules in order. A circle of calls means
the modules are no longer in one order, lowest first, each calling only
below itself.

Usage: check-stream-layers.py --lib LIBSST_STREAM.a --src lib/stream [--nm NM]
       check-stream-layers.py --self-test
"""
import argparse
import collections
import os
import re
import subprocess
import sys


def call_graph(lib, nm):
    """{module: {callee module: set of symbols}} from nm over the archive."""
    out = subprocess.run([nm, '-A', lib], check=True, capture_output=True, text=True).stdout
    defined = {}
    undefined = collections.defaultdict(set)
    for line in out.splitlines():
        # "lib.a:stream_app.c.o:0000000000000000 T sst_stream_write" or
        # "lib.a:stream_app.c.o:                 U stream_tx_wake"
        # (meson's thin archives name each member by its path).
        m = re.match(r'^[^:]*:([^:]+)\.c\.o:\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$', line)
        if m is None:
            continue
        path, kind, sym = m.groups()
        module = os.path.basename(path)
        if kind == 'U':
            undefined[module].add(sym)
        elif kind in 'TW':
            # Functions only: a shared variable (the log type that
            # stream_host.c registers) is no call.
            defined[sym] = module
    graph = collections.defaultdict(lambda: collections.defaultdict(set))
    for module, syms in undefined.items():
        for sym in syms:
            callee = defined.get(sym)
            if callee is not None and callee != module:
                graph[module][callee].add(sym)
    return graph


def include_graph(src):
    """{module: {included module: set of including files}} from the sources."""
    headers = {f[:-2] for f in os.listdir(src) if f.endswith('.h')}
    graph = collections.defaultdict(lambda: collections.defaultdict(set))
    for f in sorted(os.listdir(src)):
        if not f.endswith(('.c', '.h')):
            continue
        module = f[:-2]
        with open(os.path.join(src, f), encoding='utf-8') as fh:
            for line in fh:
                m = re.match(r'\s*#\s*include\s+"([^"/]+)\.h"', line)
                if m and m.group(1) in headers and m.group(1) != module:
                    graph[module][m.group(1)].add(f)
    return graph


def circles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    nodes = set(graph) | {b for a in graph for b in graph[a]}

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def report(graph, what, how):
    """Print every circle of graph; return how many there are."""
    comps = circles(graph)
    for comp in comps:
        pairs = [(a, b) for a in comp for b in comp
                 if a < b and b in graph.get(a, {}) and a in graph.get(b, {})]
        for a, b in pairs:
            print(f'{what}: {a} and {b} {how} each other both ways')
            print(f'  {a} -> {b}: {", ".join(sorted(graph[a][b]))}')
            print(f'  {b} -> {a}: {", ".join(sorted(graph[b][a]))}')
        if not pairs:
            print(f'{what}: a circle through {", ".join(comp)}')
            for a in comp:
                for b in sorted(graph.get(a, {})):
                    if b in comp:
                        print(f'  {a} -> {b}: {", ".join(sorted(graph[a][b]))}')
    return len(comps)


def self_test():
    """The checker must see a back-call and a longer circle, and pass a
    layered graph: fail loudly if it does not."""
    def g(edges):
        graph = collections.defaultdict(lambda: collections.defaultdict(set))
        for a, b in edges:
            graph[a][b].add(f'{b}_fn')
        return graph

    layered = g([('app', 'tx'), ('tx', 'life'), ('app', 'life')])
    back = g([('app', 'tx'), ('tx', 'life'), ('life', 'app')])
    pair = g([('app', 'tx'), ('tx', 'app'), ('tx', 'life')])
    ok = circles(layered) == [] and circles(back) == [['app', 'life', 'tx']] and \
        circles(pair) == [['app', 'tx']]
    print('self-test', 'passed' if ok else 'FAILED')
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--lib', help='libsst_stream.a')
    ap.add_argument('--src', help='lib/stream')
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.lib or not args.src:
        ap.error('--lib and --src are needed')
    calls = call_graph(args.lib, args.nm)
    includes = include_graph(args.src)
    bad = report(calls, 'calls', 'call') + report(includes, 'includes', 'include')
    edges = sum(len(v) for v in calls.values())
    print(f'{len(calls)} calling modules, {edges} module-to-module call edges, '
          f'{sum(len(v) for v in includes.values())} include edges: '
          f'{"no circle" if bad == 0 else f"{bad} circle(s)"}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

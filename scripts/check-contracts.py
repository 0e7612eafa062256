#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Contracts and the documents that name code (issue 16; conventions.md 11).

1. Every function declared or defined (static inline) at file scope in the
   stream layer's internal headers (lib/stream/*.h but the installed
   sst_*.h, which doxygen checks) and the engine's worker headers
   (lib/engine/worker_*.h) has a contract comment: the nearest line above
   it that is not blank ends a comment. A run of declarations with no
   blank line between them shares the comment above the first when that
   comment names each of them, by name or by a pattern (the seven
   stream_<state>_legal() of stream_state.h).
2. Every function the packet walk of docs/architecture.md (section 5.1)
   names, `name()`, is defined in lib/ or drivers/ (DPDK's rte_ ones
   aside), and every file it names exists.
3. docs/stream.md's module map names every .c and .h of lib/stream, and
   every stream_*.[ch] it names exists.

Prints each fault with its file and line; exit 1 if there is any.
Usage: check-contracts.py [SOURCE_ROOT]
"""
import glob
import os
import re
import sys

KEYWORDS = {'if', 'while', 'for', 'switch', 'return', 'sizeof', 'static_assert',
            '_Static_assert', 'typedef'}


def strip_comments(text):
    """text with comments and strings blanked, newlines kept."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"', blank, text, flags=re.S)


def declarations(path):
    """(first line, last line, name) of every function declared or defined
    at file scope in a header (lines from 1)."""
    raw = open(path, encoding='utf-8').read()
    lines = strip_comments(raw).split('\n')
    out, depth, start, buf = [], 0, None, ''
    i = 0
    while i < len(lines):
        line = lines[i]
        if depth == 0 and start is None and line.lstrip().startswith('#'):
            while line.rstrip().endswith('\\') and i + 1 < len(lines):
                i += 1
                line = lines[i]
            i += 1
            continue
        if depth == 0 and start is None and re.match(r'^[A-Z][A-Z0-9_]*\(.*\)\s*$', line):
            i += 1  # a macro that expands to definitions (STREAM_STATE_SETTER)
            continue
        for ch in line:
            if depth == 0 and start is None and not ch.isspace():
                start, buf = i, ''
            if start is not None and depth == 0:
                buf += ch
            if ch == '{':
                if depth == 0 and start is not None:
                    m = re.search(r'\b(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*\{$', buf)
                    if m and m.group(1) not in KEYWORDS and not buf.lstrip().startswith(
                            ('struct', 'enum', 'union', 'typedef')):
                        out.append((start + 1, i + 1, m.group(1)))
                    start = None
                depth += 1
            elif ch == '}':
                depth -= 1
            elif ch == ';' and depth == 0 and start is not None:
                m = re.search(r'\b(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*;$', buf)
                if m and m.group(1) not in KEYWORDS and '(*' not in buf and \
                        not buf.lstrip().startswith('typedef'):
                    out.append((start + 1, i + 1, m.group(1)))
                start = None
        if start is not None and depth == 0:
            buf += '\n'
        i += 1
    return out


def names_in(comment, name):
    """Whether a comment heading a run of declarations names this one:
    by its name, or by a pattern such as stream_<state>_legal()."""
    if re.search(r'\b' + name + r'\b', comment):
        return True
    for pat in re.findall(r'[\w<>]*<\w+>[\w<>]*', comment):
        if re.fullmatch(re.sub(r'<\w+>', r'\\w+', pat), name):
            return True
    return False


def check_headers(root):
    faults = []
    headers = [h for h in sorted(glob.glob(os.path.join(root, 'lib/stream/*.h')))
               if not os.path.basename(h).startswith('sst_')]
    headers += sorted(glob.glob(os.path.join(root, 'lib/engine/worker_*.h')))
    for h in headers:
        raw = open(h, encoding='utf-8').read().split('\n')
        run_end, heading = None, ''
        for first, last, name in declarations(h):
            j = first - 2
            while j >= 0 and raw[j].strip() == '':
                j -= 1
            above = raw[j].rstrip() if j >= 0 else ''
            if above.endswith('*/') or above.lstrip().startswith('//'):
                k = j
                while k > 0 and '/*' not in raw[k] and not raw[k].lstrip().startswith('//'):
                    k -= 1
                run_end, heading = last, '\n'.join(raw[k:j + 1])
            elif run_end is not None and j == run_end - 1 and names_in(heading, name):
                run_end = last
            else:
                run_end = None
                faults.append(f'{os.path.relpath(h, root)}:{first}: {name}() has no contract comment')
    return faults


def definitions(root):
    """Names defined or declared at file scope in lib/ and drivers/:
    DPDK style puts them at column 0 (the return type on the line above),
    where calls are indented; function-like macros too."""
    names = set()
    for path in glob.glob(os.path.join(root, 'lib/**/*.[ch]'), recursive=True) + \
            glob.glob(os.path.join(root, 'drivers/**/*.[ch]'), recursive=True):
        text = open(path, encoding='utf-8', errors='replace').read()
        names.update(re.findall(r'^(?:\w[\w \*]*[ \*])?(\w+)\(', text, re.M))
        names.update(re.findall(r'^#define (\w+)\(', text, re.M))
    return names


def check_walk(root):
    doc = os.path.join(root, 'docs/architecture.md')
    text = open(doc, encoding='utf-8').read()
    m = re.search(r'^### 5\.1 .*?(?=^## )', text, re.S | re.M)
    if m is None:
        return ['docs/architecture.md: no section 5.1 (the packet walk)']
    walk = m.group(0)
    faults, names = [], set(re.findall(r'`(\w+)\(', walk))
    known = definitions(root)
    for name in sorted(names):
        if not name.startswith('rte_') and name not in known:
            faults.append(f'docs/architecture.md 5.1: {name}() is defined nowhere in lib/ or drivers/')
    files = {os.path.basename(f) for f in glob.glob(os.path.join(root, '*/**/*.[ch]'), recursive=True)}
    for f in sorted(set(re.findall(r'`(?:[\w/]*/)?(\w+\.[ch])`', walk))):
        if f not in files:
            faults.append(f'docs/architecture.md 5.1: {f} does not exist')
    if not names:
        faults.append('docs/architecture.md 5.1: names no function')
    return faults


def check_module_map(root):
    doc = open(os.path.join(root, 'docs/stream.md'), encoding='utf-8').read()
    m = re.search(r'^## Module map\n(.*?)(?=^## )', doc, re.S | re.M)
    if m is None:
        return ['docs/stream.md: no "Module map" section']
    section = m.group(1)
    files = {os.path.basename(f) for f in glob.glob(os.path.join(root, 'lib/stream/*.[ch]'))}
    stems = {f[:-2] for f in files}
    named, faults = set(), []
    for stem, ext in re.findall(r'`((?:stream|sst)_\w+)(\.\[ch\]|\.[ch])?`', section):
        if ext:
            named.update(f'{stem}.{e}' for e in ('ch' if ext == '.[ch]' else ext[1]))
            if not any(f'{stem}.{e}' in files for e in 'ch'):
                faults.append(f'docs/stream.md module map: {stem}{ext} does not exist in lib/stream')
        elif stem in stems:
            named.update({f'{stem}.c', f'{stem}.h'})
    for f in sorted(files - named):
        faults.append(f'docs/stream.md module map: lib/stream/{f} is not in it')
    return faults


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    faults = check_headers(root) + check_walk(root) + check_module_map(root)
    for f in faults:
        print(f)
    print(f'{len(faults)} fault(s)')
    return 1 if faults else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a tool's manual page from its --help text, the one source of both.

Usage: help2man.py PROGRAM NAME VERSION OUTPUT

The help text follows the tools' shape: "Usage:" lines (the synopsis),
paragraphs (the description), and sections introduced by a line ending in
a colon ("Options:", "Modes:") whose entries are two-space indented terms
with their text aligned in a column. "Exit status: ..." becomes its own
section. Anything else is kept as a paragraph.
"""
import re
import subprocess
import sys

ENTRY = re.compile(r"^(?:  |      (?=-))(\S.*?)(?:\s{2,}(\S.*))?$")


def roff(text):
    """Escape what roff would take as markup."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def sections(lines):
    """Split the help text into (title, lines) blocks."""
    title, block = "DESCRIPTION", []
    for line in lines:
        if re.match(r"^[A-Z][A-Za-z ()]*:$", line):
            yield title, block
            title, block = line[:-1].upper(), []
        elif line.startswith("Exit status:"):
            yield title, block
            title, block = "EXIT STATUS", [line[len("Exit status:"):].strip()]
        else:
            block.append(line)
    yield title, block


def paragraphs(block):
    """Render plain text: blank lines separate paragraphs."""
    out = []
    for line in block:
        if not line.strip():
            out.append(".PP")
        else:
            out.append(roff(line.strip()))
    return out


def entries(block):
    """Render a list of "  TERM   text" entries and their continuation lines."""
    out, column = [], None
    for line in block:
        if not line.strip():
            out.append(".PP")
            column = None
            continue
        m = ENTRY.match(line)
        indent = len(line) - len(line.lstrip())
        if m and indent in (2, 6):
            out.append(".TP")
            out.append("\\fB" + roff(m.group(1).strip()) + "\\fR")
            if m.group(2):
                out.append(roff(m.group(2)))
                column = line.index(m.group(2))
            else:
                column = 4
        else:
            out.append(roff(line.strip()))
    return out


def main():
    prog, name, version, output = sys.argv[1:5]
    text = subprocess.run([prog, "--help"], check=True, capture_output=True,
                          text=True).stdout.splitlines()
    usage = []
    while text and (text[0].startswith("Usage:") or text[0].startswith("       ")):
        usage.append(text.pop(0).replace("Usage:", "", 1).strip())
    while text and not text[0].strip():
        text.pop(0)
    # NAME: the first sentence of the description (up to ":" or ".").
    first = " ".join(t.strip() for t in text[:text.index("")] if t) if "" in text else name
    summary = re.split(r"[:.](?:\s|$)", first)[0].strip()
    page = [
        '.TH "%s" 1 "" "SST-DPDK %s" "User Commands"' % (name.upper(), version),
        ".SH NAME",
        "%s \\- %s" % (roff(name), roff(summary[0].lower() + summary[1:])),
        ".SH SYNOPSIS",
    ]
    for u in usage:
        page += [".br", roff(u)]
    for title, block in sections(text):
        while block and not block[-1].strip():
            block.pop()
        while block and not block[0].strip():
            block.pop(0)
        if not block:
            continue
        page.append(".SH " + title)
        listed = any(ENTRY.match(b) for b in block)
        page += entries(block) if listed else paragraphs(block)
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()

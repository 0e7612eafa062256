# SPDX-License-Identifier: BSD-3-Clause
"""What the system tests' Python checks share (telemetry.sh, telemetry_stp.sh,
event_log.sh): answers read from a file of JSON lines, and checks that
report every failure before the script fails, so one run shows all that is
wrong rather than the first thing.

A script's check runs as `PYTHONPATH=DIR python3 - ARGS <<'PY'` with DIR the
directory of this file, and ends with `jsonl_check.done()`.
"""
import json
import sys

_failures = 0


def lines(path):
    """The JSON value of every non-empty line of PATH, in order."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check(cond, what):
    """Report WHAT as a failure when COND is false; returns COND."""
    global _failures
    if not cond:
        print("FAIL:", what)
        _failures += 1
    return cond


def ok():
    """True while no check has failed."""
    return _failures == 0


def done():
    """Exit 0 when every check passed, 1 otherwise."""
    sys.exit(0 if _failures == 0 else 1)

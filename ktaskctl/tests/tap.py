# SPDX-License-Identifier: GPL-2.0-or-later
"""The TAP output the Python host tests share: report() prints one
"ok"/"not ok" line per check (diagnostics as "#" lines under a failure),
skip() an ok with a SKIP directive, done() the plan at the end and the
exit status."""

import sys

count = 0
failed = 0


def report(passed, name, diag=""):
    global count, failed
    count += 1
    failed += not passed
    print(f"{'ok' if passed else 'not ok'} {count} - {name}")
    if not passed and diag:
        for line in str(diag).splitlines():
            print(f"#   {line}")
    sys.stdout.flush()


def skip(name, why):
    global count
    count += 1
    print(f"ok {count} - {name} # SKIP {why}")


def done():
    """Prints the plan; returns the exit status, 1 when a check failed."""
    print(f"1..{count}")
    return 1 if failed else 0

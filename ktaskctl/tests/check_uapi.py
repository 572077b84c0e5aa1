#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ktaskctl/ktask_uapi.h must be the kernel's include/uapi/linux/ktask.h.

Usage: check_uapi.py PATCH_DIR KTASK_UAPI_H   (prints TAP)
       check_uapi.py --print PATCH_DIR        (prints the kernel's header)

The kernel side exists only as the patch series in PATCH_DIR (applied in
the order of its 'series' file, else by name), so the header is rebuilt by
applying, in order, every hunk of every patch that touches it; a hunk
whose context does not match fails the check.

The one allowed difference: ktaskctl's copy may carry, right after the
SPDX line, a comment block "/*", " * ktaskctl: ...", ... up to the first
line " */" -- the note that it is a copy.  Everything else must be
identical, line for line.
"""

import difflib
import os
import re
import sys

from tap import report, done

UAPI = "include/uapi/linux/ktask.h"
NOTE_START = ("/*", " * ktaskctl:")
NOTE_END = " */"

def series(patch_dir):
    listed = os.path.join(patch_dir, "series")
    if os.path.exists(listed):
        with open(listed) as f:
            names = [l.split("#")[0].strip() for l in f]
        return [n for n in names if n]
    return sorted(n for n in os.listdir(patch_dir) if n.endswith(".patch"))


def file_diffs(text):
    """Yields (old path, new path, diff lines) for each file of a patch."""
    blocks = re.split(r"^(?=diff --git )", text, flags=re.M)
    for block in blocks[1:]:
        lines = block.split("\n")
        old = new = None
        for line in lines:
            if line.startswith("--- "):
                old = line[4:].strip()
            elif line.startswith("+++ "):
                new = line[4:].strip()
                break
        yield old, new, lines


def apply_hunks(content, lines, where):
    """Applies a file diff's hunks to content (a list of lines)."""
    out, pos = [], 0
    i = 0
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", lines[i])
        i += 1
        if not m:
            continue
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        # The counts bound the hunk: a "-- " signature may follow it.
        old_left = int(m.group(2) or 1)
        new_left = int(m.group(4) or 1)
        if start < pos or start > len(content):
            raise ValueError(f"{where}: hunk at line {m.group(1)} is out of order")
        out += content[pos:start]
        pos = start
        while i < len(lines) and (old_left or new_left):
            # An empty line is a blank context line whose space was lost.
            tag, text = (lines[i][:1] or " "), lines[i][1:]
            i += 1
            if tag == "\\":
                continue        # "\ No newline at end of file"
            if tag not in (" ", "-", "+"):
                raise ValueError(f"{where}: hunk ends early at {lines[i - 1]!r}")
            if tag == "+":
                out.append(text)
                new_left -= 1
                continue
            if pos >= len(content) or content[pos] != text:
                raise ValueError(f"{where}: hunk context does not match at line {pos + 1}: {text!r}")
            if tag == " ":
                out.append(text)
                new_left -= 1
            old_left -= 1
            pos += 1
    return out + content[pos:]


def kernel_header(patch_dir):
    """The header's lines and the patches that touch it."""
    content, touched = None, []
    for name in series(patch_dir):
        with open(os.path.join(patch_dir, name), errors="replace") as f:
            text = f.read()
        for old, new, lines in file_diffs(text):
            if new != f"b/{UAPI}" and old != f"a/{UAPI}":
                continue
            touched.append(name)
            if old == "/dev/null":
                content = []
            elif content is None:
                raise ValueError(f"{name}: changes {UAPI} before any patch creates it")
            if new == "/dev/null":
                content = None
            else:
                content = apply_hunks(content, lines, name)
    return content, touched


def strip_note(lines):
    """The copy without ktaskctl's note, and whether it had one."""
    if (len(lines) > 2 and lines[1] == NOTE_START[0]
            and lines[2].startswith(NOTE_START[1])):
        for end in range(2, len(lines)):
            if lines[end] == NOTE_END:
                return lines[:1] + lines[end + 1:], True
    return lines, False


def main():
    if sys.argv[1:2] == ["--print"]:
        content, _ = kernel_header(sys.argv[2])
        sys.stdout.write("".join(l + "\n" for l in content))
        return 0
    patch_dir, copy = sys.argv[1:3]
    if not os.path.isdir(patch_dir):
        print(f"1..0 # SKIP no kernel patches at {patch_dir}")
        return 0
    try:
        content, touched = kernel_header(patch_dir)
    except ValueError as e:
        report(False, f"the series applies to {UAPI}", e)
        return done()
    report(content is not None, f"the series creates {UAPI}", f"patches: {touched}")
    if content is None:
        return done()
    print(f"# {UAPI}: " + (f"created by {touched[0]}" if len(touched) == 1
                           else f"created and changed by {', '.join(touched)}"))

    with open(copy) as f:
        ours = f.read().splitlines()
    ours, had_note = strip_note(ours)
    print(f"# {os.path.basename(copy)}: " +
          ("ktaskctl's note after the SPDX line ignored" if had_note else "no note"))
    diff = list(difflib.unified_diff(content, ours, f"kernel {UAPI}", copy, lineterm=""))
    report(not diff, f"{os.path.basename(copy)} is identical to the kernel's {UAPI}",
           "\n".join(diff))
    return done()


if __name__ == "__main__":
    sys.exit(main())

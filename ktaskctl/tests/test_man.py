#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The man page renders without warnings and documents every command and
option that ktaskctl's own help lists; prints TAP.

Usage: test_man.py GROFF KTASKCTL_8 KTASKCTL
"""

import re
import subprocess
import sys

from tap import report, done

groff, manpage, ktaskctl = sys.argv[1:4]

res = subprocess.run([groff, "-man", "-ww", "-z", manpage], capture_output=True, text=True)
report(res.returncode == 0 and res.stderr == "", "groff -man -ww renders ktaskctl.8 without warnings",
       res.stderr)

with open(manpage) as f:
    source = f.read()
# Plain text of the source: "\-" is a hyphen, font escapes vanish.
plain = re.sub(r"\\f[BIRP]", "", source.replace("\\-", "-"))
sections = re.findall(r"^\.SS \"?(\S+)", plain, re.M)

main_help = subprocess.run([ktaskctl, "help"], capture_output=True, text=True).stdout
commands = re.findall(r"^  (\S+)\s{2,}", main_help.split("Commands:")[1].split("Options:")[0], re.M)
report(len(commands) >= 7, "ktaskctl help lists the commands", main_help)

for cmd in commands:
    report(cmd in sections, f"ktaskctl.8 has a section for '{cmd}'", sections)
    usage = subprocess.run([ktaskctl, cmd, "--help"], capture_output=True, text=True).stdout
    for option in sorted(set(re.findall(r"--[a-z][a-z-]*", usage))):
        report(option in plain, f"ktaskctl.8 documents '{cmd} {option}'")

global_section = plain.split(".SH GLOBAL OPTIONS")[-1].split(".SH ")[0]
for option in sorted(set(re.findall(r"--[a-z][a-z-]*", main_help.split("Options:")[1]))):
    report(option in global_section, f"ktaskctl.8 GLOBAL OPTIONS documents '{option}'")

for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS",
                "ENVIRONMENT", "FILES", "EXAMPLES"):
    report(f".SH {heading}" in source, f"ktaskctl.8 has {heading}")
report("KTASK_DEBUGFS" in plain, "ktaskctl.8 documents KTASK_DEBUGFS")

sys.exit(done())

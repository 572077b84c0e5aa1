#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ktaskctl's command-line behaviour on the build host; prints TAP.

Usage: test_cli.py KTASKCTL FIXTURES_DIR

There is no ktask kernel here, so:
- stats reads fixture files through KTASK_DEBUGFS;
- run-synthetic and bench talk to a FIFO standing in for debugfs
  ktask/synthetic, served by FakeSynthetic below, which checks the
  request lines and answers with results the test chooses;
- get/set/monitor must report that the kernel has no ktask, since the
  host has no generic netlink family "ktask".
Under -j/--json or -p/--pretty every error is one {"error": "..."} object
on stdout and nothing goes to stderr; without them, errors are text on
stderr.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

from tap import report, skip, done

KTASKCTL = os.path.abspath(sys.argv[1])
FIXTURES = os.path.abspath(sys.argv[2])
DEBUGFS = os.path.join(FIXTURES, "ktask")
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected")

COMMANDS = ["stats", "run-synthetic", "bench", "get", "set", "monitor", "help"]
NO_KTASK = "kernel has no ktask (CONFIG_KTASK)"

def run(args, debugfs=DEBUGFS, timeout=30, **kwargs):
    env = dict(os.environ, KTASK_DEBUGFS=debugfs, LC_ALL="C")
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([KTASKCTL] + args, env=env, text=True,
                          timeout=timeout, **kwargs)


def describe(res):
    return f"exit {res.returncode}\nstdout: {res.stdout!r}\nstderr: {res.stderr!r}"


def expect(args, code, stderr_has=None, stdout_has=None, name=None, **kwargs):
    """Runs ktaskctl and checks its exit status and output; returns the result."""
    res = run(args, **kwargs)
    passed = res.returncode == code
    if stderr_has is not None:
        passed = passed and stderr_has in res.stderr
    if stdout_has is not None:
        passed = passed and stdout_has in res.stdout
    report(passed, name or f"ktaskctl {' '.join(args)} -> exit {code}"
           + (f", '{stderr_has}'" if stderr_has else ""), describe(res))
    return res


def usage_error(args, message):
    """A usage error: exit 2, 'ktaskctl: <cmd>: <message>', a pointer to help, no stdout."""
    res = run(args, debugfs="/nonexistent/ktask")
    passed = (res.returncode == 2 and message in res.stderr
              and res.stderr.startswith("ktaskctl: ") and "--help" in res.stderr
              and res.stdout == "")
    report(passed, f"usage error: ktaskctl {' '.join(args)}: {message}", describe(res))


def valid_json(text):
    """What `python3 -m json.tool` says: the JSON must be well-formed."""
    res = subprocess.run([sys.executable, "-m", "json.tool"], input=text,
                         capture_output=True, text=True)
    return res.returncode == 0


class FakeSynthetic:
    """Plays the kernel's side of debugfs ktask/synthetic over a FIFO.

    ktaskctl opens the file O_WRONLY, writes the request line and closes it,
    then opens it again to read the result: with a FIFO, each open meets
    the matching open here.  respond(line, index) returns the result text.
    """

    def __init__(self, respond):
        self.dir = tempfile.mkdtemp(prefix="ktaskctl-test-")
        self.path = os.path.join(self.dir, "synthetic")
        os.mkfifo(self.path)
        self.respond = respond
        self.requests = []
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()

    def _serve(self):
        try:
            self._serve_forever()
        except OSError:
            pass    # close() removed the FIFO

    def _serve_forever(self):
        while True:
            fd = os.open(self.path, os.O_RDONLY)
            data = b""
            while chunk := os.read(fd, 4096):
                data += chunk
            os.close(fd)
            line = data.decode()
            self.requests.append(line)
            answer = self.respond(line, len(self.requests) - 1)
            fd = os.open(self.path, os.O_WRONLY)
            os.write(fd, answer.encode())
            os.close(fd)

    def close(self):
        # A thread blocked in open() stays behind; it is a daemon.
        shutil.rmtree(self.dir, ignore_errors=True)


def result_text(threads_used=2, elapsed_ns=123456789, units_done=100000,
                units_undone=0, error=0, size=100000, max_threads=2, chunks=8):
    return (f"kind: cpu\nsize: {size}\nmin_chunk: 1\nmax_threads: {max_threads}\n"
            f"threads_used: {threads_used}\nchunks: {chunks}\n"
            f"elapsed_ns: {elapsed_ns}\nunits_done: {units_done}\n"
            f"units_undone: {units_undone}\nerror: {error}\n")


def request_keys(line):
    return dict(pair.split("=", 1) for pair in line.split())


# --- global behaviour -------------------------------------------------------

def test_global():
    res = expect(["--version"], 0, name="--version exits 0")
    report(re.fullmatch(r"ktaskctl \d+\.\d+\S*\n", res.stdout) is not None,
           "--version prints 'ktaskctl X.Y'", res.stdout)

    for args in (["help"], ["--help"], ["-h"]):
        res = expect(args, 0)
        report(res.stdout.startswith("Usage: ktaskctl")
               and all(f"  {c} " in res.stdout for c in COMMANDS),
               f"ktaskctl {args[0]} lists every command", res.stdout)

    res = expect([], 2, name="no command: exit 2")
    report("Usage: ktaskctl" in res.stderr and res.stdout == "",
           "no command: usage on stderr", describe(res))

    for cmd in COMMANDS:
        for flag in ("--help", "-h"):
            res = expect([cmd, flag], 0)
            report(res.stdout.startswith(f"Usage: ktaskctl {cmd}"),
                   f"ktaskctl {cmd} {flag} prints its usage", res.stdout)
        res = expect(["help", cmd], 0)
        report(res.stdout.startswith(f"Usage: ktaskctl {cmd}"),
               f"ktaskctl help {cmd} prints its usage", res.stdout)

    res = expect(["frobnicate"], 2, "ktaskctl: frobnicate: unknown command")
    report(res.stderr == "ktaskctl: frobnicate: unknown command\nTry 'ktaskctl help'.\n"
           and res.stdout == "",
           "unknown command: points to 'ktaskctl help', not 'ktaskctl frobnicate --help'",
           describe(res))
    expect(["help", "frobnicate"], 2, "ktaskctl: help: frobnicate: unknown command")
    expect(["--bogus"], 2, "ktaskctl: unrecognized option '--bogus'")
    expect(["-x", "stats"], 2, "ktaskctl: invalid option '-x'")
    usage_error(["stats", "--bogus"], "ktaskctl: stats: unrecognized option '--bogus'")
    usage_error(["stats", "-q"], "ktaskctl: stats: invalid option '-q'")
    usage_error(["stats", "extra"], "ktaskctl: stats: unexpected argument 'extra'")
    usage_error(["run-synthetic", "--size"],
                "ktaskctl: run-synthetic: option '--size' requires an argument")
    usage_error(["run-synthetic", "-s"],
                "ktaskctl: run-synthetic: option '-s' requires an argument")

    # Options are named as typed: getopt's short letter for a long option
    # ("-j" for "--json=x") would name an option the user never wrote.
    res = expect(["--json=x", "stats"], 2, "ktaskctl: option '--json' doesn't allow an argument",
                 name="--json=x before the command: named as typed")
    report("'-j'" not in res.stderr, "--json=x is not reported as '-j'", describe(res))
    usage_error(["stats", "--json=x"], "ktaskctl: stats: option '--json' doesn't allow an argument")
    usage_error(["stats", "--js=x"], "ktaskctl: stats: option '--js' doesn't allow an argument")
    usage_error(["stats", "--pretty=1"], "ktaskctl: stats: option '--pretty' doesn't allow an argument")
    usage_error(["monitor", "--verbose=yes"],
                "ktaskctl: monitor: option '--verbose' doesn't allow an argument")
    usage_error(["stats", "--frob"], "ktaskctl: stats: unrecognized option '--frob'")
    usage_error(["run-synthetic", "--size", "1", "--threads"],
                "ktaskctl: run-synthetic: option '--threads' requires an argument")
    usage_error(["bench", "--threads"], "ktaskctl: bench: option '--threads' requires an argument")
    usage_error(["monitor", "-vc"], "ktaskctl: monitor: option '-c' requires an argument")
    usage_error(["monitor", "--count", "1", "-vq"], "ktaskctl: monitor: invalid option '-q'")
    # A bad short option after a good long one is the short one.
    usage_error(["run-synthetic", "--size=1", "-qh"], "ktaskctl: run-synthetic: invalid option '-q'")


# --- JSON errors ------------------------------------------------------------

def json_error(args, code, message, name=None, **kwargs):
    """Under JSON: exit code, one {"error": ...} line on stdout, nothing on stderr."""
    res = run(args, **kwargs)
    try:
        doc = json.loads(res.stdout)
    except ValueError:
        doc = None
    passed = (res.returncode == code and res.stderr == "" and res.stdout.count("\n") == 1
              and isinstance(doc, dict) and list(doc) == ["error"] and message in doc["error"])
    report(passed, name or f"ktaskctl {' '.join(args)}: exit {code}, {{\"error\": ...{message}...}}",
           describe(res))
    return doc


def test_json_errors():
    nofs = "/nonexistent/ktask"
    # Usage errors once JSON was asked for, before or after the command.
    doc = json_error(["-j", "frobnicate"], 2, "frobnicate: unknown command")
    report(doc == {"error": "frobnicate: unknown command"},
           "-j frobnicate: the message as text has it, without 'ktaskctl: '", doc)
    json_error(["-p", "frobnicate"], 2, "frobnicate: unknown command")
    json_error(["-j"], 2, "missing command")
    json_error(["-j", "stats", "extra"], 2, "stats: unexpected argument 'extra'")
    json_error(["-j", "stats", "--json=x"], 2, "stats: option '--json' doesn't allow an argument")
    json_error(["-j", "--bogus", "stats"], 2, "unrecognized option '--bogus'")
    json_error(["stats", "-j", "--bogus"], 2, "stats: unrecognized option '--bogus'")
    json_error(["stats", "--pretty", "--bogus"], 2, "stats: unrecognized option '--bogus'")
    json_error(["-j", "run-synthetic"], 2, "run-synthetic: --size or --nodes is required")
    json_error(["run-synthetic", "--json", "--size", "0"], 2,
               "run-synthetic: --size: '0' is out of range (1..4G)")
    json_error(["-j", "run-synthetic", "--nodes", ",".join(["0:1"] * 9)], 2,
               "more than 8 parts, the kernel's limit")
    json_error(["-j", "bench", "--threads", "0"], 2, "bench: --threads: bad list '0'")
    json_error(["-j", "set", "renice", "maybe"], 2, "set: renice: 'maybe' is not on or off")
    json_error(["-j", "get", "bogus"], 2, "get: unknown key 'bogus'")
    json_error(["-j", "monitor", "--count", "0"], 2, "monitor: --count: '0' is not a number")
    json_error(["-j", "help", "frobnicate"], 2, "help: frobnicate: unknown command")

    # Runtime errors.
    doc = json_error(["-j", "stats"], 1, "stats: debugfs is not mounted at /nonexistent",
                     debugfs=nofs)
    report(doc == {"error": "stats: debugfs is not mounted at /nonexistent "
                            "(mount -t debugfs none /nonexistent)"},
           "-j stats: the whole message, as text would say it", doc)
    json_error(["stats", "-p"], 1, "stats: debugfs is not mounted", debugfs=nofs)
    json_error(["-j", "run-synthetic", "--size", "10"], 1,
               "run-synthetic: debugfs is not mounted", debugfs=nofs)
    fake = FakeSynthetic(lambda line, i: result_text(error=-5))
    json_error(["-j", "bench", "--threads", "1", "--repeat", "1"], 1,
               "bench: the task with 1 thread failed: Input/output error", debugfs=fake.dir)
    fake.close()
    fake = FakeSynthetic(lambda line, i: "runs: 0\n")
    json_error(["-p", "run-synthetic", "--size", "1"], 1,
               "unexpected result: no synthetic task has run yet", debugfs=fake.dir)
    fake.close()

    # Quotes, backslashes and control characters in a message stay JSON.
    doc = json_error(["-j", "get", 'a"b\\c\td'], 2, "unknown key")
    report(doc == {"error": 'get: unknown key \'a"b\\c\td\' (max-threads, helper-nice or renice)'},
           "JSON error: the argument is escaped", doc)

    # Without JSON, the same errors stay text on stderr.
    res = expect(["stats", "extra"], 2, "ktaskctl: stats: unexpected argument 'extra'",
                 name="text: usage error on stderr")
    report(res.stdout == "" and "Try 'ktaskctl stats --help'." in res.stderr,
           "text: nothing on stdout, a pointer to help", describe(res))

    # If stdout itself fails, the error cannot go there: stderr it is.
    with open("/dev/full", "w") as full:
        res = run(["-j", "stats"], stdout=full, stderr=subprocess.PIPE)
    report(res.returncode == 1 and res.stderr == "ktaskctl: write error on standard output\n",
           "-j stats > /dev/full: the write error goes to stderr", describe(res))


# --- stats ------------------------------------------------------------------

def read_fixture_table(name):
    lines = [l.split() for l in open(os.path.join(DEBUGFS, name)) if l.strip()]
    head = lines[0]
    return [dict(zip(head, (int(v) if re.fullmatch(r"-?\d+", v) else v for v in row)))
            for row in lines[1:]]


def read_fixture_kv(name):
    pairs = (l.split(":", 1) for l in open(os.path.join(DEBUGFS, name)) if l.strip())
    return {k.strip(): int(v) for k, v in pairs}


def test_stats():
    res = expect(["stats"], 0, name="stats from fixtures: exit 0")
    with open(os.path.join(EXPECTED, "stats.txt")) as f:
        want = f.read()
    report(res.stdout == want, "stats text matches expected/stats.txt (aligned tables)",
           f"got:\n{res.stdout}\nwant:\n{want}")

    res = expect(["stats", "--json"], 0, name="stats --json: exit 0")
    report(valid_json(res.stdout), "stats --json passes python3 -m json.tool", res.stdout)
    doc = json.loads(res.stdout)
    report(list(doc) == ["rlimits", "nodes", "workers", "tasks"],
           "stats --json top-level keys: rlimits, nodes, workers, tasks", list(doc))
    report(doc["rlimits"] == read_fixture_table("rlimits"),
           "stats --json rlimits: one object per scope, numbers as numbers",
           doc["rlimits"])
    report(doc["nodes"] == read_fixture_table("nodes"),
           "stats --json nodes: one object per node with every column", doc["nodes"])
    report(doc["workers"] == read_fixture_kv("workers"),
           "stats --json workers: the workers file's keys", doc["workers"])
    report(doc["tasks"] == read_fixture_kv("stats"),
           "stats --json tasks: the stats file's keys, in order", doc["tasks"])
    report(list(doc["tasks"]) == list(read_fixture_kv("stats")),
           "stats --json tasks keep the file's order", list(doc["tasks"]))

    report(res.stdout.count("\n") == 1 and res.stdout.endswith("}\n"),
           "stats --json is compact: one line", res.stdout)
    for args in (["--json", "stats"], ["stats", "-j"], ["-j", "stats"]):
        res2 = expect(args, 0)
        report(res2.stdout == res.stdout, f"ktaskctl {' '.join(args)} gives the same JSON")

    pretty = expect(["stats", "--pretty"], 0, name="stats --pretty: exit 0")
    report(pretty.stdout.startswith("{\n  \"rlimits\": [\n    {")
           and pretty.stdout.endswith("\n}\n"),
           "stats --pretty is indented, one row per line", pretty.stdout)
    report(json.loads(pretty.stdout) == doc, "stats --pretty holds the same document")
    for args in (["-p", "stats"], ["--pretty", "stats"], ["stats", "-p"], ["-p", "stats", "-j"],
                 ["-j", "stats", "-p"], ["--json", "--pretty", "stats"]):
        res2 = expect(args, 0)
        report(res2.stdout == pretty.stdout,
               f"ktaskctl {' '.join(args)} gives pretty JSON (-p implies -j; -j keeps it pretty)")

    report(doc["workers"]["renice"] == 1, "stats --json keeps renice as the kernel's 1",
           doc["workers"])
    text = expect(["stats"], 0).stdout
    report(re.search(r"^  renice: +on$", text, re.M) is not None,
           "stats text says renice: on, as get does", text)


def with_debugfs_copy(mutate):
    """A temporary copy of the fixtures, changed by mutate(dir)."""
    tmp = tempfile.mkdtemp(prefix="ktaskctl-test-")
    d = os.path.join(tmp, "ktask")
    shutil.copytree(DEBUGFS, d)
    mutate(d)
    return tmp, d


def test_stats_errors():
    # debugfs not mounted: the parent of the ktask dir is missing or empty.
    expect(["stats"], 1,
           "ktaskctl: stats: debugfs is not mounted at /nonexistent "
           "(mount -t debugfs none /nonexistent)",
           name="stats: missing debugfs dir -> not mounted", debugfs="/nonexistent/ktask")
    empty = tempfile.mkdtemp(prefix="ktaskctl-test-")
    expect(["stats"], 1, "debugfs is not mounted at " + empty,
           name="stats: empty debugfs -> not mounted",
           debugfs=os.path.join(empty, "ktask"))
    os.rmdir(empty)

    # debugfs mounted (something else in it) but no ktask directory.
    tmp = tempfile.mkdtemp(prefix="ktaskctl-test-")
    os.mkdir(os.path.join(tmp, "kunit"))
    expect(["stats"], 1,
           f"ktaskctl: stats: {NO_KTASK}: {tmp}/ktask does not exist",
           name="stats: no ktask dir in a mounted debugfs -> no ktask",
           debugfs=os.path.join(tmp, "ktask"))
    shutil.rmtree(tmp)

    # The directory exists but a file is missing.
    tmp, d = with_debugfs_copy(lambda d: os.unlink(os.path.join(d, "nodes")))
    res = expect(["stats"], 1, f"ktaskctl: stats: {d}/nodes: No such file or directory",
                 name="stats: a missing file is named", debugfs=d)
    report(res.stdout == "", "stats: no partial output on failure", res.stdout)
    shutil.rmtree(tmp)

    # Malformed files.
    def short_row(d):
        with open(os.path.join(d, "nodes"), "a") as f:
            f.write("2 1 2\n")
    tmp, d = with_debugfs_copy(short_row)
    expect(["stats"], 1, f"ktaskctl: stats: {d}/nodes: unexpected format at line 4",
           name="stats: a short table row is reported with its line", debugfs=d)
    shutil.rmtree(tmp)

    def bad_kv(d):
        with open(os.path.join(d, "stats"), "a") as f:
            f.write("no colon here\n")
    tmp, d = with_debugfs_copy(bad_kv)
    expect(["stats"], 1, f"ktaskctl: stats: {d}/stats: unexpected format at line 11",
           name="stats: a line without 'key: value' is reported", debugfs=d)
    shutil.rmtree(tmp)

    # Not root: the files are 0400 root.
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        skip("stats as non-root: Permission denied (are you root?)", "needs root and setpriv")
        skip("run-synthetic as non-root: Permission denied", "needs root and setpriv")
    else:
        tmp, d = with_debugfs_copy(lambda d: open(os.path.join(d, "synthetic"), "w").close())
        for dirpath in (tmp, d):
            os.chmod(dirpath, 0o755)
        for name in os.listdir(d):
            os.chmod(os.path.join(d, name), 0o400)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", KTASKCTL]
        env = dict(os.environ, KTASK_DEBUGFS=d, LC_ALL="C")
        res = subprocess.run(nobody + ["stats"], env=env, capture_output=True, text=True)
        report(res.returncode == 1 and res.stderr ==
               f"ktaskctl: stats: {d}/rlimits: Permission denied (are you root?)\n",
               "stats as non-root: Permission denied (are you root?)", describe(res))
        res = subprocess.run(nobody + ["run-synthetic", "--size", "10"], env=env,
                             capture_output=True, text=True)
        report(res.returncode == 1 and res.stderr ==
               f"ktaskctl: run-synthetic: {d}/synthetic: Permission denied (are you root?)\n",
               "run-synthetic as non-root: Permission denied (are you root?)", describe(res))
        shutil.rmtree(tmp)

    # A failed write to stdout is a failure, not silence.
    with open("/dev/full", "w") as full:
        res = run(["stats"], stdout=full, stderr=subprocess.PIPE)
    report(res.returncode == 1 and "write error" in res.stderr,
           "stats > /dev/full: exit 1, write error", describe(res))


# --- run-synthetic ----------------------------------------------------------

def test_synthetic_usage():
    rs = ["run-synthetic"]
    usage_error(rs, "--size or --nodes is required")
    usage_error(rs + ["--size", "0"], "--size: '0' is out of range (1..4G)")
    usage_error(rs + ["--size", "4097M"], "--size: '4097M' is out of range (1..4G)")
    usage_error(rs + ["--size", "99999999999999999999"], "--size: '99999999999999999999' is out of range")
    usage_error(rs + ["--size", "17179869184G"], "--size: '17179869184G' is out of range")
    usage_error(rs + ["--size", "12x"], "--size: '12x' is not a number")
    usage_error(rs + ["--size", "1T"], "--size: '1T' is not a number")
    usage_error(rs + ["--size", "-1"], "--size: '-1' is not a number")
    usage_error(rs + ["--size", ""], "--size: '' is not a number")
    usage_error(rs + ["--size", "10", "--kind", "gpu"], "--kind: 'gpu' is not cpu, memclear or sleep")
    usage_error(rs + ["--size", "10", "--threads", "1025"], "--threads: '1025' is out of range (0..1024)")
    usage_error(rs + ["--size", "10", "--threads", "two"], "--threads: 'two' is not a number")
    usage_error(rs + ["--size", "10", "--min-chunk", "11"], "--min-chunk must be 1..size")
    usage_error(rs + ["--size", "10", "--min-chunk", "0"], "--min-chunk: '0' is out of range")
    usage_error(rs + ["--size", "10", "--fail-at", "10"], "--fail-at must be below the size")
    usage_error(rs + ["--size", "10", "--fail-at", "x"], "--fail-at: 'x' is not a number (optionally with K, M or G)")
    usage_error(rs + ["--size", "10", "--err", "0"], "--err: '0' is out of range")
    usage_error(rs + ["--size", "10", "--err", "4096"], "--err: '4096' is out of range")
    usage_error(rs + ["--size", "10", "--err", "EBOGUS"], "--err: 'EBOGUS' is not an errno")
    usage_error(rs + ["--size", "10", "--repeat", "0"], "--repeat: '0' is out of range")
    usage_error(rs + ["--nodes", "0:5,x:3"],
                "--nodes: bad layout '0:5,x:3': node is not a number or 'any'")
    usage_error(rs + ["--nodes", "0:5,"], "--nodes: bad layout '0:5,': an entry is not NID:SIZE")
    usage_error(rs + ["--nodes", "0:0"], "the task size must be 1..4294967296")
    usage_error(rs + ["--nodes", "2048:1"], "node number out of range")
    usage_error(rs + ["--nodes", "0:1,1:18446744073709551615"], "total size overflows 64 bits")
    usage_error(rs + ["--nodes", "0:4G,1:1"], "the task size must be 1..4294967296")
    usage_error(rs + ["--nodes", "0:5", "--size", "6"], "--size must equal the sum of the --nodes sizes")
    usage_error(rs + ["--nodes", "0:5", "--fail-at", "5"], "--fail-at must be below the size")
    usage_error(rs + ["--size", "10", "extra"], "unexpected argument 'extra'")
    # The kernel's parser takes 8 parts (KTASK_SYNTH_MAX_NODES).
    nine = ",".join(["1000:1000"] * 9)
    usage_error(rs + ["--nodes", nine],
                f"ktaskctl: run-synthetic: --nodes: bad layout '{nine}': more than 8 parts, "
                "the kernel's limit")
    usage_error(["bench", "--nodes", nine], "more than 8 parts, the kernel's limit")
    fake = FakeSynthetic(lambda line, i: result_text())
    eight = ",".join(["1023:536870912"] * 8)
    expect(rs + ["--nodes", eight, "--threads", "1024", "--min-chunk", "4G",
                 "--fail-at", "4294967295", "--err", "4095", "--kind", "memclear"], 0,
           debugfs=fake.dir, name="run-synthetic: 8 parts, every key at its widest, is sent")
    report(fake.requests == [f"kind=memclear min_chunk=4294967296 max_threads=1024 nodes={eight} "
                             "fail_at=4294967295 err=4095\n"],
           "run-synthetic: 8 parts go to the kernel as given", fake.requests)
    fake.close()


def test_synthetic_runs():
    fake = FakeSynthetic(lambda line, i: result_text(error=-5, units_done=99000,
                                                     units_undone=1000))
    res = expect(["run-synthetic", "--size", "1M", "--threads", "4",
                  "--nodes", "0:512K,any:512K", "--min-chunk", "1K",
                  "--fail-at", "100", "--err", "EIO"], 0,
                 name="run-synthetic: every option, exit 0", debugfs=fake.dir)
    want = ("kind=cpu size=1048576 min_chunk=1024 max_threads=4 "
            "nodes=0:524288,any:524288 fail_at=100 err=5\n")
    report(fake.requests == [want],
           "run-synthetic writes one normalized line: suffixes expanded, --threads is max_threads",
           fake.requests)
    want_text = ("kind:         cpu\n"
                 "size:         100000\n"
                 "min_chunk:    1\n"
                 "max_threads:  2\n"
                 "threads_used: 2\n"
                 "chunks:       8\n"
                 "elapsed:      123.457 ms\n"
                 "throughput:   801900 units/s\n"
                 "units_done:   99000\n"
                 "units_undone: 1000\n"
                 "error:        -5 (Input/output error)\n")
    report(res.stdout == want_text, "run-synthetic text: result, elapsed, throughput, error",
           f"got:\n{res.stdout}")
    fake.close()

    fake = FakeSynthetic(lambda line, i: result_text())
    res = expect(["run-synthetic", "--size", "100000", "--json"], 0,
                 name="run-synthetic --json: exit 0", debugfs=fake.dir)
    report(fake.requests == ["kind=cpu size=100000\n"],
           "run-synthetic leaves unset keys to the kernel's defaults", fake.requests)
    report(valid_json(res.stdout), "run-synthetic --json passes python3 -m json.tool", res.stdout)
    report(res.stdout.count("\n") == 1, "run-synthetic --json is one line", res.stdout)
    doc = json.loads(res.stdout)
    report(doc.get("threads_used") == 2 and doc.get("elapsed_ns") == 123456789
           and doc.get("units_done") == 100000 and doc.get("units_undone") == 0
           and doc.get("error") == 0 and doc.get("throughput") == 810000
           and doc.get("kind") == "cpu" and doc.get("chunks") == 8,
           "run-synthetic --json: threads_used, elapsed_ns, units_done, units_undone, error, throughput",
           doc)
    fake.close()

    elapsed = [300, 100, 200]
    used = [1, 2, 2]
    fake = FakeSynthetic(lambda line, i: result_text(elapsed_ns=elapsed[i], threads_used=used[i]))
    res = expect(["run-synthetic", "--kind", "sleep", "--size", "4", "--repeat", "3", "--json"], 0,
                 name="run-synthetic --repeat 3 --json: exit 0", debugfs=fake.dir)
    report(fake.requests == ["kind=sleep size=4\n"] * 3,
           "run-synthetic --repeat 3 runs the task 3 times", fake.requests)
    doc = json.loads(res.stdout) if valid_json(res.stdout) else {}
    report(doc.get("runs") == 3 and doc.get("elapsed_ns_min") == 100
           and doc.get("elapsed_ns_median") == 200 and doc.get("elapsed_ns_max") == 300
           and doc.get("elapsed_ns") == 200 and doc.get("threads_used_min") == 1
           and doc.get("threads_used_median") == 2 and doc.get("threads_used_max") == 2
           and doc.get("threads_used") == 2 and "units_done" in doc and "error" in doc,
           "run-synthetic --repeat: runs, min/median/max of elapsed_ns and threads_used", doc)
    fake.close()

    elapsed = [4000000, 1000000, 3000000, 2000000]
    fake = FakeSynthetic(lambda line, i: result_text(elapsed_ns=elapsed[i]))
    res = expect(["run-synthetic", "--size", "100000", "--repeat", "4"], 0, debugfs=fake.dir)
    report("runs:         4\n" in res.stdout
           and "elapsed:      min 1.000 ms, median 2.500 ms, max 4.000 ms\n" in res.stdout
           and "threads_used: min 2, median 2, max 2\n" in res.stdout,
           "run-synthetic --repeat 4 text: even count's median is the middle mean", res.stdout)
    fake.close()

    fake = FakeSynthetic(lambda line, i: "threads_used: 1\nelapsed_ns: 2000\n"
                         "units_done: 5\nunits_undone: 0\nerror: 0\n")
    res = expect(["run-synthetic", "--size", "5", "--json"], 0, debugfs=fake.dir,
                 name="run-synthetic: a result with only the required keys")
    doc = json.loads(res.stdout) if valid_json(res.stdout) else {}
    report(doc == {"threads_used": 1, "elapsed_ns": 2000, "throughput": 2500000,
                   "units_done": 5, "units_undone": 0, "error": 0},
           "run-synthetic: keys the kernel left out are left out", doc)
    fake.close()

    fake = FakeSynthetic(lambda line, i: "runs: 0\n")
    expect(["run-synthetic", "--size", "1"], 1,
           f"run-synthetic: {fake.dir}/synthetic: unexpected result: no synthetic task has run yet",
           name="run-synthetic: a 'runs: 0' answer is an error", debugfs=fake.dir)
    fake.close()

    fake = FakeSynthetic(lambda line, i: "threads_used: 1\nunits_done: 1\nunits_undone: 0\nerror: 0\n")
    expect(["run-synthetic", "--size", "1"], 1, "unexpected result: missing or malformed 'elapsed_ns'",
           name="run-synthetic: a result without elapsed_ns is an error", debugfs=fake.dir)
    fake.close()


def test_synthetic_errors():
    # The kernel's errno from write() is shown as is: here ENOSPC from /dev/full.
    tmp = tempfile.mkdtemp(prefix="ktaskctl-test-")
    os.symlink("/dev/full", os.path.join(tmp, "synthetic"))
    res = expect(["run-synthetic", "--size", "10"], 1, name="run-synthetic: write() errno surfaces",
                 debugfs=tmp)
    report(res.stderr == "ktaskctl: run-synthetic: No space left on device\n",
           "run-synthetic: write() failure reads 'ktaskctl: run-synthetic: <strerror>'",
           describe(res))
    shutil.rmtree(tmp)

    tmp = tempfile.mkdtemp(prefix="ktaskctl-test-")
    expect(["run-synthetic", "--size", "10"], 1,
           f"ktaskctl: run-synthetic: {tmp}/synthetic: No such file or directory",
           name="run-synthetic: a missing synthetic file is named", debugfs=tmp)
    report(os.listdir(tmp) == [], "run-synthetic never creates the synthetic file", os.listdir(tmp))
    os.rmdir(tmp)

    expect(["run-synthetic", "--size", "10"], 1, "debugfs is not mounted at /nonexistent",
           name="run-synthetic: debugfs not mounted", debugfs="/nonexistent/ktask")


# --- bench -------------------------------------------------------------------

def bench_answer(seen):
    """1.2 s / threads; each thread count's first run (warm-up) is absurdly slow."""
    def respond(line, i):
        threads = int(request_keys(line)["max_threads"])
        warmup = threads not in seen
        seen.add(threads)
        elapsed = 10**12 if warmup else 1200000000 // threads + (i % 3)
        return result_text(threads_used=min(threads, 2), elapsed_ns=elapsed,
                           max_threads=threads)
    return respond


def test_bench():
    seen = set()
    fake = FakeSynthetic(bench_answer(seen))
    res = expect(["bench", "--threads", "2,4", "--repeat", "3", "--size", "1000", "--json"], 0,
                 name="bench --threads 2,4 --repeat 3 --json: exit 0", debugfs=fake.dir, timeout=60)
    threads = [int(request_keys(l)["max_threads"]) for l in fake.requests]
    report(threads == [1] * 4 + [2] * 4 + [4] * 4,
           "bench: 1 thread always measured first; warm-up + 3 runs per count", threads)
    report(all(request_keys(l)["size"] == "1000" and request_keys(l)["kind"] == "cpu"
               for l in fake.requests), "bench: every request has the kind and size", fake.requests)
    report(valid_json(res.stdout), "bench --json passes python3 -m json.tool", res.stdout)
    report(res.stdout.count("\n") == 1, "bench --json is one line, its table too", res.stdout)
    doc = json.loads(res.stdout) if valid_json(res.stdout) else {"results": []}
    rows = doc.get("results", [])
    report([r.get("threads") for r in rows] == [1, 2, 4], "bench --json: one result per thread count", rows)
    report(all(r["elapsed_ns_max"] < 10**12 for r in rows),
           "bench: warm-up runs are discarded", rows)
    report([r.get("speedup") for r in rows] == [1.0, 2.0, 4.0],
           "bench: speedup is the 1-thread median over each median", rows)
    report(rows and rows[1]["elapsed_ns_median"] == 600000001
           and rows[1]["elapsed_ns_min"] == 600000000 and rows[1]["elapsed_ns_max"] == 600000002,
           "bench: min/median/max of the timed runs", rows)
    report([r.get("threads_used_max") for r in rows] == [1, 2, 2],
           "bench: threads_used as the kernel reported it", rows)
    report(doc.get("kind") == "cpu" and doc.get("size") == 1000 and doc.get("repeat") == 3,
           "bench --json: kind, size, repeat", doc)
    fake.close()

    seen = set()
    fake = FakeSynthetic(bench_answer(seen))
    res = expect(["bench", "--threads", "1-2", "--repeat", "1", "--kind", "sleep"], 0,
                 name="bench text: exit 0", debugfs=fake.dir, timeout=60)
    lines = res.stdout.splitlines()
    report("kind:   sleep" in lines and "size:   200" in lines and "repeat: 1" in lines,
           "bench text: header fields; sleep's default size is 200", res.stdout)
    report(any(re.fullmatch(r"\s*threads\s+min\s+median\s+max\s+threads_used\s+speedup", l)
               for l in lines), "bench text: table heading", res.stdout)
    report(any(re.fullmatch(r"\s*2\s+600\.000 ms\s+600\.000 ms\s+600\.000 ms\s+2\s+2\.00", l)
               for l in lines), "bench text: a row with times, threads used and speedup", res.stdout)
    fake.close()

    seen = set()
    fake = FakeSynthetic(bench_answer(seen))
    expect(["bench", "--repeat", "1", "--size", "10"], 0, debugfs=fake.dir, timeout=60,
           name="bench without --threads: exit 0")
    ncpus = os.sysconf("SC_NPROCESSORS_ONLN")
    threads = sorted({int(request_keys(l)["max_threads"]) for l in fake.requests})
    report(threads == list(range(1, ncpus + 1)), f"bench: default thread counts are 1..nproc ({ncpus})",
           threads)
    fake.close()

    fake = FakeSynthetic(lambda line, i: result_text(error=-5))
    expect(["bench", "--threads", "1", "--repeat", "1"], 1,
           "ktaskctl: bench: the task with 1 thread failed: Input/output error",
           name="bench: a failing task stops the benchmark", debugfs=fake.dir)
    fake.close()

    usage_error(["bench", "--threads", "0"], "--threads: bad list '0': thread count out of range")
    usage_error(["bench", "--threads", "4-2"], "--threads: bad list '4-2': range runs backwards")
    usage_error(["bench", "--threads", "1,,2"], "--threads: bad list '1,,2'")
    usage_error(["bench", "--threads", "x"], "--threads: bad list 'x': not a number")
    usage_error(["bench", "--repeat", "0"], "--repeat: '0' is out of range")
    usage_error(["bench", "--size", "5G"], "--size: '5G' is out of range")
    usage_error(["bench", "--fail-at", "1"], "unrecognized option '--fail-at'")


# --- netlink: get, set, monitor ---------------------------------------------

def netlink_absence_testable():
    """None if this host lacks the family 'ktask' as expected, else why not."""
    if os.path.exists("/sys/module/ktask"):
        return "this kernel has ktask"
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16).close()
    except OSError as e:
        return f"no generic netlink here: {e.strerror}"
    return None


def test_netlink():
    no_family = (f"{NO_KTASK}: generic netlink family 'ktask' not found")
    why_not = netlink_absence_testable()
    for args in (["get", "max-threads"], ["get"], ["get", "helper-nice"], ["get", "renice"],
                 ["set", "max-threads", "4"], ["set", "helper-nice", "-5"],
                 ["set", "renice", "off", "max-threads", "2"], ["monitor", "--count", "1"]):
        if why_not:
            skip(f"ktaskctl {' '.join(args)}: {NO_KTASK}", why_not)
            continue
        res = expect(args, 1, f"ktaskctl: {args[0]}: {no_family}")
        report(res.stdout == "", f"ktaskctl {' '.join(args)}: nothing on stdout", res.stdout)
    for args in (["-j", "get"], ["get", "-p", "renice"], ["-j", "set", "helper-nice", "-5"],
                 ["monitor", "-j", "--count", "1"], ["-p", "monitor", "--verbose"]):
        if why_not:
            skip(f"ktaskctl {' '.join(args)}: JSON error: {NO_KTASK}", why_not)
            continue
        json_error(args, 1, f"{[a for a in args if not a.startswith('-')][0]}: {no_family}")

    usage_error(["get", "bogus"], "ktaskctl: get: unknown key 'bogus'")
    usage_error(["get", "max-threads", "extra"], "unexpected argument 'extra'")
    usage_error(["set"], "ktaskctl: set: missing KEY VALUE")
    usage_error(["set", "max-threads"], "ktaskctl: set: max-threads: missing value")
    usage_error(["set", "max-threads", "0"], "max-threads: '0' is not a number 1..nr_cpu_ids")
    usage_error(["set", "max-threads", "x"], "max-threads: 'x' is not a number")
    usage_error(["set", "max-threads", "4294967296"], "max-threads: '4294967296' is not a number")
    usage_error(["set", "helper-nice", "20"], "helper-nice: '20' is not a nice level -20..19")
    usage_error(["set", "helper-nice", "-21"], "helper-nice: '-21' is not a nice level -20..19")
    usage_error(["set", "renice", "maybe"], "renice: 'maybe' is not on or off")
    usage_error(["set", "frob", "1"], "ktaskctl: set: unknown key 'frob'")
    usage_error(["set", "renice", "on", "helper-nice"], "helper-nice: missing value")
    usage_error(["monitor", "--count", "0"], "--count: '0' is not a number of events")
    usage_error(["monitor", "--count", "x"], "--count: 'x' is not a number of events")
    usage_error(["monitor", "extra"], "ktaskctl: monitor: unexpected argument 'extra'")


def main():
    test_global()
    test_json_errors()
    test_stats()
    test_stats_errors()
    test_synthetic_usage()
    test_synthetic_runs()
    test_synthetic_errors()
    test_bench()
    test_netlink()
    return done()


if __name__ == "__main__":
    sys.exit(main())

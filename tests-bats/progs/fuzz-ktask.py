#!/usr/bin/env python3
"""Fuzz ktask's interfaces with invalid input; everything must be refused.

  fuzz-ktask.py files [--seed S] [--rounds N]
      debugfs ktask/{synthetic,workers,power} and the sysfs parameter
      max_threads: empty, 4 KiB, random binary, partial tokens, valid keys
      with garbage, writes after lseek, huge numbers, unicode, bad buffer
      addresses, mutations of valid lines.  The read-only files (rlimits,
      nodes, stats) must refuse every write.
  fuzz-ktask.py netlink [--seed S] [--rounds N]
      malformed and out-of-range messages to the generic netlink family
      "ktask" over a raw NETLINK_GENERIC socket.
  fuzz-ktask.py netlink-get-attrs
      GET_CONFIG requests carrying attributes that pass the family's
      policy (the spec lists no request attributes for get-config).

The rule that keeps the state comparable: every input is invalid by
construction.  Inputs come either from a fixed list of contract violations
(one violation in an otherwise valid request, with the errno the contract
names) or from random generators and mutations whose output goes through a
deliberately permissive model of the parsers; anything the model thinks
could be accepted is dropped, not sent.  So no write and no message may
succeed, and the settings and every counter must read the same afterwards
(the program compares a snapshot, the bats file does too).

Prints the seed, per-interface counts and every failure (the exact input,
repr() of the bytes, and what came back); exits 1 on any failure.
Environment: FUZZ_SEED (default 1).
"""
import argparse, ctypes, errno, glob, os, random, re, select, socket, struct, sys

KTASK = "/sys/kernel/debug/ktask"
MAX_THREADS = "/sys/module/ktask/parameters/max_threads"
LINE_MAX = 256		# KTASK_DEBUGFS_LINE_MAX
PAGE = 4096
E = errno

failures = []
counts = {}
errnos = {}


def fail(iface, what):
    failures.append("%s: %s" % (iface, what))
    if len(failures) <= 60:
        print("FAIL %s: %s" % (iface, what), flush=True)


def count(iface, result):
    counts[iface] = counts.get(iface, 0) + 1
    key = (iface, result)
    errnos[key] = errnos.get(key, 0) + 1


def ename(n):
    return E.errorcode.get(n, str(n))


def ncpu_ids():
    with open("/sys/devices/system/cpu/possible") as f:
        last = f.read().strip().replace(",", "-").split("-")[-1]
    return int(last) + 1


def online_nodes():
    return sorted(int(os.path.basename(p)[4:])
                  for p in glob.glob("/sys/devices/system/node/node[0-9]*")) or [0]


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        return ("<%s>" % ename(e.errno)).encode()


def snapshot():
    """Settings, counters and the last synthetic result."""
    names = ["rlimits", "nodes", "stats", "workers", "power", "synthetic"]
    snap = {n: read(os.path.join(KTASK, n)) for n in names}
    snap["max_threads"] = read(MAX_THREADS)
    return snap


def compare(before, after, iface):
    for k in before:
        if before[k] != after[k]:
            fail(iface, "%s changed:\n--- before\n%s--- after\n%s" % (
                k, before[k].decode(errors="replace"), after[k].decode(errors="replace")))


# ---------------------------------------------------------------------------
# Permissive models of the parsers: True if the input could be accepted.
# They accept more than the kernel does (that only drops inputs); an input
# they reject is invalid by the contract in docs/interface.md.

NUM = re.compile(rb"[-+]{0,2}[0-9]+\n?")


def num(v, lo=None, hi=None):
    if not NUM.fullmatch(v):
        return False
    s = v.rstrip(b"\n")
    neg = s.startswith(b"-")
    n = int(s.lstrip(b"+-")) * (-1 if neg else 1)
    return (lo is None or n >= lo) and (hi is None or n <= hi)


def debugfs_pairs(data, offset):
    """The key=value pairs of a debugfs write, or None if the framing is bad."""
    if offset != 0 or not data or len(data) >= LINE_MAX:
        return None
    if data.endswith(b"\n"):
        data = data[:-1]
    if b"\0" in data:
        return None
    pairs = []
    for tok in re.split(rb"[ \t]", data):
        if not tok:
            continue
        key, eq, value = tok.partition(b"=")
        if not eq or not key or not value:
            return None
        pairs.append((key, value))
    keys = [k for k, _ in pairs]
    if not pairs or len(set(keys)) != len(keys):
        return None
    return pairs


def workers_ok(data, offset):
    pairs = debugfs_pairs(data, offset)
    if pairs is None:
        return False
    for k, v in pairs:
        if k == b"helper_nice":
            if not num(v, -20, 19):
                return False
        elif k == b"renice":
            if v.lstrip(b"+").rstrip(b"\n") not in (b"0", b"1"):
                return False
        else:
            return False
    return True


def power_ok(data, offset):
    pairs = debugfs_pairs(data, offset)
    if pairs is None:
        return False
    return all(k == b"mode" and v.rstrip(b"\n") in (b"auto", b"powersave", b"performance")
               for k, v in pairs)


SYNTH_NUMERIC = {b"size", b"min_chunk", b"max_threads", b"fail_at", b"err", b"repeat"}


def synthetic_ok(data, offset):
    """Could run a task: every pair has a known key and a plausible value
    (no range or cross-field checks: those inputs come from the list)."""
    pairs = debugfs_pairs(data, offset)
    if pairs is None:
        return False
    for k, v in pairs:
        if k in SYNTH_NUMERIC:
            if not num(v):
                return False
        elif k == b"kind":
            if v not in (b"cpu", b"memclear", b"sleep"):
                return False
        elif k == b"direct":
            if not (v[:1] in b"yYtT1nNfF0" or (v[:1] in b"oO" and v[1:2] in b"nNfF")):
                return False
        elif k == b"nodes":
            for part in v.split(b","):
                nid, colon, size = part.partition(b":")
                if not colon or not (nid == b"any" or num(nid)) or not num(size):
                    return False
        else:
            return False
    return True


def max_threads_ok(data, offset, ncpus):
    """sysfs: offsets are ignored, the value ends at the first NUL, an
    empty write is a no-op; kstrtouint base 0, 1..nr_cpu_ids."""
    v = data[:PAGE].split(b"\0")[0]
    m = re.fullmatch(rb"\+?(0[xX][0-9a-fA-F]+|[0-9]+)\n?", v)
    if not m:
        return False
    s = m.group(1)
    try:
        n = int(s, 16) if s[:2].lower() == b"0x" else int(s, 8) if s.startswith(b"0") and len(s) > 1 else int(s)
    except ValueError:
        n = int(s, 10)	# "09": not octal, but be permissive
    return 1 <= n <= ncpus


# ---------------------------------------------------------------------------
# Input generators.

GARBAGE_VALUES = [
    b"", b"-", b"+", b"--5", b"0x10", b"0X1f", b"1e3", b"1.5", b"0b1", b"010a", b" 5", b"5 ",
    b"5\r", b"5\n5", b"\n", b"\t", b"=", b"==", b"a=b=c", b"NaN", b"inf", b"None", b"null",
    b"true", b"%s%n%x", b"\\x00", b"$(reboot)", b"'; --", b"18446744073709551616",
    b"18446744073709551615", b"9223372036854775808", b"-9223372036854775809",
    b"4294967296", b"2147483648", b"-2147483649", b"9" * 40, b"9" * 200, b"0" * 100 + b"1x",
    "１".encode(), "١".encode(), "५".encode(), "½".encode(), "∞".encode(), "ｃｐｕ".encode(),
    "pówersave".encode(), "🙂".encode(), "a\u0301".encode(), "\u202e1".encode(), "\ufeff1".encode(),
    b"\xff\xfe", b"\xc0\x80", b"\xed\xa0\x80", b"\x80", b"\x00", b"\x01\x02\x03",
]
SEPARATORS = [b" ", b"\t", b"  ", b"\n", b"\r", b"\v", b"\f", b",", b";", b"&", b"\0", b"\xc2\xa0",
              "\u3000".encode()]


def mutate(rng, data):
    """One random mutation of data."""
    op = rng.randrange(11)
    i = rng.randint(0, len(data))
    if op == 0:					# partial token
        return data[:rng.randint(0, len(data))]
    if op == 1:					# insert bytes
        return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) + data[i:]
    if op == 2 and data:			# delete a byte
        return data[:i] + data[i + 1:]
    if op == 3 and data:			# replace a byte with a special one
        i = min(i, len(data) - 1)
        return data[:i] + rng.choice(b"= \t\n\0,:-+x9\xff").to_bytes(1, "big") + data[i + 1:]
    if op == 4:					# a value replaced by garbage
        toks = data.split(b" ")
        j = rng.randrange(len(toks))
        toks[j] = toks[j].partition(b"=")[0] + b"=" + rng.choice(GARBAGE_VALUES)
        return b" ".join(toks)
    if op == 5:					# a token repeated
        toks = data.split(b" ")
        return b" ".join(toks + [rng.choice(toks)])
    if op == 6:					# odd separators
        return rng.choice(SEPARATORS).join(data.split(b" "))
    if op == 7:					# an extra garbage token
        return data + b" " + rng.choice([b"x", b"=", b"k=v", b"turbo=1", rng.choice(GARBAGE_VALUES)])
    if op == 8:					# key in upper case
        return data.upper()
    if op == 9:					# byte order mark, or trailing newlines
        return rng.choice([b"\xef\xbb\xbf" + data, data + b"\n\n", data + b"\0", b"\n" + data])
    return data + rng.choice(GARBAGE_VALUES)	# garbage glued to the value


def random_binary(rng, n):
    return bytes(rng.randrange(256) for _ in range(n))


def random_text(rng, n):
    return bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz_=0123456789 ,:-\t") for _ in range(n))


def random_unicode(rng, n):
    return "".join(chr(rng.choice([rng.randrange(0x80, 0x800), rng.randrange(0x800, 0xd800),
                                   rng.randrange(0xe000, 0x10000), rng.randrange(0x10000, 0x110000)]))
                   for _ in range(n)).encode()


# Contract violations: (line, errnos the contract allows).  One violation
# each in a request that is otherwise valid; the base requests are tiny.
EINVAL, ERANGE, E2BIG, ENOMEM = {E.EINVAL}, {E.ERANGE}, {E.E2BIG}, {E.ENOMEM}
# A value beyond its field's C type (u32/int) but within 64 bits: the kernel
# parses into the field's type and reports ERANGE, 040-bad-input.bats
# expects that for helper_nice; the contract's "value out of range" is EINVAL.
TYPE_RANGE = {E.EINVAL, E.ERANGE}


def synthetic_violations(nodes):
    offline = next(n for n in range(1, 1 << 20) if n not in nodes)
    v = [
        (b"size=10 colour=blue", EINVAL), (b"kind=gpu size=10", EINVAL), (b"kind=CPU size=10", EINVAL),
        (b"kind= size=10", EINVAL), (b"size=", EINVAL), (b"size", EINVAL), (b"=5", EINVAL),
        (b"size=ten", EINVAL), (b"size=-5", EINVAL), (b"size=10 min_chunk=0x2", EINVAL),
        (b"size=5.0", EINVAL), (b"size=1e3", EINVAL),
        (b"size=184467440737095516160", ERANGE), (b"size=18446744073709551616", ERANGE),
        (b"size=10 fail_at=18446744073709551616", ERANGE),
        (b"size=10 min_chunk=99999999999999999999999", ERANGE),
        (b"size=0", EINVAL), (b"size=4294967297", EINVAL), (b"size=18446744073709551615", EINVAL),
        (b"size=10 min_chunk=0", EINVAL), (b"size=10 min_chunk=11", EINVAL),
        (b"size=10 max_threads=1025", EINVAL), (b"size=10 max_threads=4294967295", EINVAL),
        (b"size=10 max_threads=4294967296", TYPE_RANGE),
        (b"size=10 fail_at=10", EINVAL), (b"size=10 fail_at=18446744073709551615", EINVAL),
        (b"size=10 fail_at=1 err=0", EINVAL), (b"size=10 fail_at=1 err=4096", EINVAL),
        (b"size=10 fail_at=1 err=-5", EINVAL), (b"size=10 fail_at=1 err=2147483648", TYPE_RANGE),
        (b"size=10 repeat=0", EINVAL), (b"size=10 repeat=1000001", EINVAL),
        (b"size=10 repeat=4294967296", TYPE_RANGE),
        (b"size=10 direct=2", EINVAL), (b"size=10 direct=1 fail_at=3", EINVAL),
        (b"size=10 direct=", EINVAL), (b"size=10 direct=x", EINVAL),
        (b"size=10 size=10", EINVAL), (b"kind=cpu kind=cpu size=10", EINVAL),
        (b"nodes=0:10 nodes=0:10", EINVAL),
        (b"nodes=%d:10" % offline, EINVAL), (b"nodes=0:10,%d:10" % offline, EINVAL),
        (b"nodes=-1:10", EINVAL), (b"nodes=1024:10", EINVAL), (b"nodes=2147483647:10", EINVAL),
        (b"nodes=2147483648:10", TYPE_RANGE),
        (b"nodes=0:10,", EINVAL), (b"nodes=,0:10", EINVAL), (b"nodes=0:10,,0:1", EINVAL),
        (b"nodes=0-10", EINVAL), (b"nodes=0:", EINVAL), (b"nodes=:10", EINVAL),
        (b"nodes=0:0", EINVAL), (b"nodes=0:0,any:0", EINVAL), (b"nodes=ANY:10", EINVAL),
        (b"nodes=anyy:10", EINVAL), (b"nodes=0:10:10", EINVAL), (b"nodes=0:x", EINVAL),
        (b"nodes=0:10 size=11", EINVAL), (b"nodes=0:10 size=9", EINVAL),
        (b"nodes=" + b",".join([b"0:1"] * 9), EINVAL),
        (b"nodes=0:4294967296,any:1", EINVAL), (b"nodes=0:18446744073709551616", ERANGE),
        (b"kind=cpu", EINVAL), (b"min_chunk=1 max_threads=2", EINVAL),
        (b"kind=memclear size=4294967296", ENOMEM),
        (b"", EINVAL), (b"\n", EINVAL), (b" ", EINVAL), (b"\t\t", EINVAL),
        (b"size=5\0size=6", EINVAL), (b"\0", EINVAL), (b"size=5\0", EINVAL),
        (b"size=1 " + b"x" * 300, E2BIG), (b"size=1" + b" " * 250, E2BIG),
        (b"kind=cpu size=1" + b" " * (LINE_MAX - 15), E2BIG),
    ]
    return v


WORKERS_VIOLATIONS = [
    (b"helper_nice=20", EINVAL), (b"helper_nice=-21", EINVAL), (b"renice=2", EINVAL),
    (b"renice=on", EINVAL), (b"renice=-1", EINVAL), (b"helper_nice=5 renice=7", EINVAL),
    (b"helper_nice=5 turbo=1", EINVAL), (b"helper_nice=99999999999", TYPE_RANGE),
    (b"helper_nice=99999999999999999999999", ERANGE), (b"helper_nice=2147483648", TYPE_RANGE),
    (b"helper_nice=-2147483648", EINVAL), (b"helper_nice=0x5", EINVAL),
    (b"helper_nice=5 helper_nice=6", EINVAL), (b"renice=1 renice=1", EINVAL),
    (b"renice_events=0", EINVAL), (b"helper_nice=", EINVAL), (b"renice", EINVAL), (b"=1", EINVAL),
    (b"", EINVAL), (b"\n", EINVAL), (b" \t ", EINVAL), (b"renice=1\0", EINVAL),
    (b"helper_nice=0" + b" " * 300, E2BIG),
]
POWER_VIOLATIONS = [
    (b"mode=turbo", EINVAL), (b"mode=Auto", EINVAL), (b"mode=AUTO", EINVAL), (b"level=powersave", EINVAL),
    (b"mode=powersave mode=auto", EINVAL), (b"mode=auto mode=auto", EINVAL), (b"powersave", EINVAL),
    (b"mode=", EINVAL), (b"saving=1", EINVAL), (b"mode=auto saving=0", EINVAL), (b"mode=autoo", EINVAL),
    (b"mode=auto\n\n", EINVAL), (b"mode=power save", EINVAL), (b"", EINVAL), (b"mode=auto\0", EINVAL),
    (b"mode=performance" + b" " * 250, E2BIG),
]


def max_threads_violations(ncpus):
    return [(v, EINVAL) for v in [
        b"0", b"0\n", b"%d" % (ncpus + 1), b"%d\n" % (ncpus + 1), b"-1", b"abc", b"\n", b" ",
        b"4294967296", b"18446744073709551616", b"99999999999999999999999", b"1.0", b"1 ", b" 1",
        b"1\n\n", b"0x0", b"00", b"--1", b"1,2", b"one", b"\0", "１".encode()]]


def valid_lines(name, rng, nodes, ncpus):
    """Lines the file would accept (bases for mutation and offset writes)."""
    if name == "synthetic":
        return (b"kind=%s size=%d" % (rng.choice([b"cpu", b"sleep"]), rng.randint(1, 8)),
                b"nodes=%d:3,any:2 min_chunk=2 max_threads=2" % rng.choice(nodes),
                b"size=8 fail_at=3 err=%d" % rng.randint(1, 133))
    if name == "workers":
        return (b"helper_nice=%d" % rng.randint(-20, 19), b"renice=%d" % rng.randint(0, 1),
                b"helper_nice=%d renice=%d" % (rng.randint(-20, 19), rng.randint(0, 1)))
    if name == "power":
        return (b"mode=" + rng.choice([b"auto", b"powersave", b"performance"]),)
    return (b"%d" % rng.randint(1, ncpus), b"%d\n" % rng.randint(1, ncpus))


class Libc:
    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
        self.libc.write.restype = ctypes.c_ssize_t
        self.libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_int, ctypes.c_long]
        self.libc.mmap.restype = ctypes.c_void_p
        self.libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        # two pages, the second one inaccessible: a buffer can run into it
        self.area = self.libc.mmap(None, 2 * PAGE, 3, 0x22, -1, 0)	# RW, PRIVATE|ANONYMOUS
        self.libc.mprotect(self.area + PAGE, PAGE, 0)

    def write_raw(self, fd, addr, n):
        ctypes.set_errno(0)
        r = self.libc.write(fd, addr, n)
        if r < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return r

    def straddle(self, data):
        """An address where data's last two bytes would fall into the
        inaccessible page (the rest placed before it)."""
        addr = self.area + PAGE - (len(data) - 2)
        ctypes.memmove(addr, data, len(data) - 2)
        return addr


GENERIC = {E.EINVAL, E.ERANGE, E.E2BIG, E.ENOMEM, E.EFAULT}


def fuzz_files(args):
    rng = random.Random(args.seed)
    nodes = online_nodes()
    ncpus = ncpu_ids()
    libc = Libc()
    targets = {
        "synthetic": (os.path.join(KTASK, "synthetic"), synthetic_ok, synthetic_violations(nodes)),
        "workers": (os.path.join(KTASK, "workers"), workers_ok, WORKERS_VIOLATIONS),
        "power": (os.path.join(KTASK, "power"), power_ok, POWER_VIOLATIONS),
        "max_threads": (MAX_THREADS, lambda d, o: max_threads_ok(d, o, ncpus),
                        max_threads_violations(ncpus)),
    }
    if not os.path.exists(targets["power"][0]):
        print("power: no debugfs ktask/power, skipped")
        del targets["power"]
    before = snapshot()
    dropped = {}

    for name, (path, could_be_valid, violations) in targets.items():
        sysfs = name == "max_threads"
        fd = os.open(path, os.O_RDWR)

        def attempt(data, expect=None, offset=0, how="write", addr=None, force=False):
            """One write; expect: errnos the contract allows (default: any
            of GENERIC).  Inputs the models could accept are dropped."""
            if not force and could_be_valid(data, 0 if sysfs else offset):
                dropped[name] = dropped.get(name, 0) + 1
                return
            desc = "%s %r%s" % (how, data[:120] + (b"...(%d bytes)" % len(data) if len(data) > 120 else b""),
                                " at offset %d" % offset if offset else "")
            if how == "lseek+write":
                try:
                    pos = os.lseek(fd, offset, os.SEEK_SET)
                except OSError as e:	# the write would land elsewhere
                    count(name, "lseek refused: " + ename(e.errno))
                    return
                if pos != offset:
                    fail(name, "lseek to %d returned %d" % (offset, pos))
                    return
            try:
                if how == "lseek+write":
                    r = os.write(fd, data)
                elif how == "pwrite":
                    r = os.pwrite(fd, data, offset)
                elif how == "bad-address":
                    os.lseek(fd, 0, os.SEEK_SET)
                    r = libc.write_raw(fd, addr if addr is not None else libc.straddle(data), len(data))
                else:
                    os.lseek(fd, 0, os.SEEK_SET)
                    r = os.write(fd, data)
            except OSError as e:
                count(name, ename(e.errno))
                allowed = expect or GENERIC
                if e.errno not in allowed:
                    fail(name, "%s: %s, expected %s" % (desc, ename(e.errno),
                                                        "/".join(sorted(ename(x) for x in allowed))))
                return
            if sysfs and not data and r == 0:
                count(name, "0 (empty write, no-op)")
                return
            count(name, "accepted")
            fail(name, "%s: accepted (returned %d), expected an error" % (desc, r))

        # 1. the contract's violations, as they are and mutated
        for data, expect in violations:
            attempt(data, expect, force=True)
            attempt(data + b"\n" if not data.endswith(b"\n") and len(data) < LINE_MAX - 1 else data,
                    expect, force=True)
        # 2. framing: empty, line limit, 4 KiB, embedded NUL
        base = valid_lines(name, rng, nodes, ncpus)[0]
        attempt(b"", {E.EINVAL} if not sysfs else None, force=True)
        for n in (LINE_MAX - 1, LINE_MAX, LINE_MAX + 1, PAGE - 1, PAGE, PAGE + 1, 3 * PAGE):
            if sysfs:
                attempt(b"x" * n, {E.EINVAL})
                attempt(base + b"\n" + b"9" * (n - len(base) - 1), {E.EINVAL})
            else:
                attempt(base + b" " * (n - len(base)), {E.E2BIG} if n >= LINE_MAX else None)
                attempt(random_text(rng, n), {E.E2BIG} if n >= LINE_MAX else None)
        attempt(base + b"\0" + base, {E.EINVAL})
        # 3. valid lines written at a non-zero offset (debugfs: EINVAL); sysfs
        # ignores the offset, so only invalid values there
        for off in (1, 3, LINE_MAX, PAGE, 1 << 31, 1 << 62):
            for line in valid_lines(name, rng, nodes, ncpus):
                if sysfs:
                    line = line + b"x"
                attempt(line, {E.EINVAL}, off, "lseek+write", force=True)
                # seq_file clears FMODE_PWRITE: ESPIPE before ktask sees it
                attempt(line, {E.EINVAL, E.ESPIPE}, off, "pwrite", force=True)
        # 4. bad buffer addresses (EFAULT), lines short of the limit
        for line in valid_lines(name, rng, nodes, ncpus):
            attempt(line, {E.EFAULT}, how="bad-address", addr=0, force=True)
            attempt(line, {E.EFAULT}, how="bad-address", addr=1, force=True)
            attempt(line, {E.EFAULT}, how="bad-address", addr=libc.area + PAGE, force=True)
            attempt(line + b"\n", {E.EFAULT}, how="bad-address", force=True)	# runs into the guard page
        # 5. random inputs
        for _ in range(args.rounds):
            kind = rng.randrange(8)
            limit = PAGE + 16 if sysfs else LINE_MAX + 8
            if kind == 0:
                data = random_binary(rng, rng.randint(1, limit))
            elif kind == 1:
                data = random_text(rng, rng.randint(1, 80))
            elif kind == 2:
                data = random_unicode(rng, rng.randint(1, 40))
            elif kind == 3:				# a valid key with garbage
                key = rng.choice([b"kind", b"size", b"min_chunk", b"max_threads", b"nodes", b"fail_at",
                                  b"err", b"repeat", b"direct", b"helper_nice", b"renice", b"mode"])
                data = key + b"=" + rng.choice(GARBAGE_VALUES + [random_unicode(rng, 3)])
            elif kind == 4:				# huge numbers
                n = rng.choice([2 ** 32, 2 ** 63, 2 ** 64, 10 ** rng.randint(10, 80)]) + rng.randint(-2, 2)
                data = rng.choice(valid_lines(name, rng, nodes, ncpus)).partition(b"=")[0]
                data = (b"%d" % n) if sysfs else data + b"=%s%d" % (rng.choice([b"", b"-"]), n)
            else:					# mutations of valid lines
                data = rng.choice(valid_lines(name, rng, nodes, ncpus))
                for _ in range(rng.randint(1, 3)):
                    data = mutate(rng, data)
            attempt(data)
        os.close(fd)

    # read-only files: opening for writing fails, or every write does
    for name in ("rlimits", "nodes", "stats"):
        path = os.path.join(KTASK, name)
        inputs = [b"", b"0", b"system 0 1\n", b"tasks: 0\n", b"x" * PAGE, random_binary(rng, 100)]
        inputs += [random_text(rng, rng.randint(1, 200)) for _ in range(20)]
        for mode in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_TRUNC, os.O_WRONLY | os.O_APPEND):
            try:
                fd = os.open(path, mode)
            except OSError as e:
                count(name, "open: " + ename(e.errno))
                if e.errno not in (E.EACCES, E.EPERM):
                    fail(name, "open(%#o): %s, expected EACCES/EPERM" % (mode, ename(e.errno)))
                continue
            for data in inputs:
                try:
                    r = os.write(fd, data)
                except OSError as e:
                    count(name, ename(e.errno))
                    if e.errno not in (E.EINVAL, E.EACCES, E.EPERM, E.EBADF, E.EIO):
                        fail(name, "write %r: %s" % (data[:60], ename(e.errno)))
                    continue
                count(name, "accepted")
                fail(name, "write %r (open %#o) accepted (returned %d)" % (data[:60], mode, r))
            os.close(fd)

    compare(before, snapshot(), "state")
    print("seed: %d (FUZZ_SEED=%d repeats this run)" % (args.seed, args.seed))
    for name in list(targets) + ["rlimits", "nodes", "stats"]:
        results = ", ".join("%s %d" % (res, n) for (i, res), n in sorted(errnos.items()) if i == name)
        print("%s: %d inputs (%s)%s" % (name, counts.get(name, 0), results,
                                         "; %d generated inputs the model could accept, not sent" %
                                         dropped[name] if dropped.get(name) else ""))
    print("total inputs: %d" % sum(counts.values()))
    print("failures: %d" % len(failures))
    return 1 if failures else 0


# ---------------------------------------------------------------------------
# netlink

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_ECHO = 1, 2, 4, 8
NLM_F_ROOT, NLM_F_MATCH = 0x100, 0x200
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 0x8000, 0x4000
NLMSGERR_ATTR_MSG = 1

CMD_EVENT, CMD_GET, CMD_SET = 1, 2, 3
A_FUNC, A_SIZE, A_THREADS, A_CHUNKS, A_ELAPSED, A_ERROR, A_UNDONE = range(1, 8)
A_MAX_THREADS, A_HELPER_NICE, A_RENICE, A_PAD = 8, 9, 10, 11
A_MAX = 11
# the request attributes: type -> payload length the policy wants
CONFIG_ATTRS = {A_MAX_THREADS: 4, A_HELPER_NICE: 4, A_RENICE: 1}


def nla(atype, payload, length=None):
    """One attribute; length overrides nla_len (the padding stays real)."""
    n = 4 + len(payload) if length is None else length
    raw = struct.pack("=HH", n & 0xffff, atype & 0xffff) + payload
    return raw + b"\0" * (-len(raw) % 4)


def u32(v):
    return struct.pack("=I", v & 0xffffffff)


def s32(v):
    return struct.pack("=i", v)


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.seq = 1000

    def next_seq(self):
        self.seq += 1
        return self.seq

    def msg(self, mtype, flags, cmd, attrs=b"", version=1, reserved=0, seq=None, length=None):
        body = struct.pack("=BBH", cmd, version, reserved) + attrs
        n = 16 + len(body) if length is None else length
        return struct.pack("=IHHII", n, mtype, flags, self.next_seq() if seq is None else seq, 0) + body

    def recv_all(self, timeout, want=()):
        """Messages the kernel sends: (type, flags, seq, payload).  Waits up
        to timeout for an answer to each seq in want; genetlink handles a
        request inside send(), so the answers are normally queued already."""
        out, answered = [], set()
        while select.select([self.sock], [], [], 0 if answered >= set(want) else timeout)[0]:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                n, t, f, s, _ = struct.unpack_from("=IHHII", data, off)
                if n < 16:
                    break
                out.append((t, f, s, data[off + 16:off + n]))
                if t in (NLMSG_ERROR, NLMSG_DONE):
                    answered.add(s)
                off += (n + 3) & ~3
        return out

    def transact(self, raw, timeout=2.0, want=None):
        self.sock.send(raw)
        return self.recv_all(timeout, seqs_of(raw) if want is None else want)

    def family(self, name):
        m = self.msg(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY,
                     nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        for t, f, s, p in self.transact(m):
            if t == GENL_ID_CTRL:
                for at, val in attrs_of(p[4:]):
                    if at == CTRL_ATTR_FAMILY_ID:
                        return struct.unpack("=H", val[:2])[0]
            if t == NLMSG_ERROR and struct.unpack_from("=i", p)[0] < 0:
                raise OSError(-struct.unpack_from("=i", p)[0], "family %s" % name)
        raise OSError(E.ENOENT, "family %s" % name)

    def family_ids(self):
        m = self.msg(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP, CTRL_CMD_GETFAMILY)
        ids = set()
        for t, f, s, p in self.transact(m):
            if t == GENL_ID_CTRL:
                for at, val in attrs_of(p[4:]):
                    if at == CTRL_ATTR_FAMILY_ID:
                        ids.add(struct.unpack("=H", val[:2])[0])
        return ids


def attrs_of(buf):
    off = 0
    while off + 4 <= len(buf):
        n, t = struct.unpack_from("=HH", buf, off)
        if n < 4:
            break
        yield t & 0x3fff, buf[off + 4:off + n]
        off += (n + 3) & ~3


def get_config(g, fam):
    m = g.msg(fam, NLM_F_REQUEST | NLM_F_ACK, CMD_GET)
    for t, f, s, p in g.transact(m):
        if t == fam:
            return {at: val for at, val in attrs_of(p[4:])}
    return None


def policy_valid(attrs):
    """Permissive model of the strict policy parse: True if attrs (raw
    bytes) could pass it."""
    off = 0
    while off < len(attrs):
        if len(attrs) - off < 4:
            return False
        n, t = struct.unpack_from("=HH", attrs, off)
        if n < 4 or n > len(attrs) - off:
            return False
        if t & NLA_F_NESTED or (t & 0x3fff) not in CONFIG_ATTRS or n - 4 != CONFIG_ATTRS[t & 0x3fff]:
            return False
        off += (n + 3) & ~3
    return True


def netlink_cases(rng, fam, other_ids, ncpus):
    """(label, raw datagram, expectation); expectation "error" (every message
    in it answered by a negative errno) or "error-or-drop"."""
    g = Genl.__new__(Genl)
    g.seq = 5000
    RA = NLM_F_REQUEST | NLM_F_ACK
    good = {A_MAX_THREADS: u32(1), A_HELPER_NICE: s32(0), A_RENICE: b"\0"}
    cases = []

    def add(label, raw, expect="error"):
        cases.append((label, raw, expect))

    # unknown commands, with and without attributes
    for cmd in [0, CMD_EVENT] + list(range(4, 256)):
        add("unknown command", g.msg(fam, RA, cmd))
        add("unknown command", g.msg(fam, RA, cmd, nla(A_MAX_THREADS, u32(1))))
    # dump requests: the family has no dumpit
    for cmd in (CMD_GET, CMD_SET):
        add("dump", g.msg(fam, RA | NLM_F_DUMP, cmd))
    # SET_CONFIG without a setting
    add("set: no attribute", g.msg(fam, RA, CMD_SET))
    # wrong sizes (GET and SET: the policy applies to both)
    for cmd in (CMD_GET, CMD_SET):
        for at, want in CONFIG_ATTRS.items():
            for size in (0, 1, 2, 3, 4, 5, 7, 8, 16, 64):
                if size != want:
                    add("wrong size", g.msg(fam, RA, cmd, nla(at, bytes(size))))
                    add("wrong size", g.msg(fam, RA, cmd, nla(at, b"\x01" * size)))
            # nla_len shorter than the header, longer than the message
            add("bad nla_len", g.msg(fam, RA, cmd, nla(at, bytes(want), length=3)))
            add("bad nla_len", g.msg(fam, RA, cmd, nla(at, bytes(want), length=0)))
            add("bad nla_len", g.msg(fam, RA, cmd, nla(at, bytes(want), length=200)))
            add("bad nla_len", g.msg(fam, RA, cmd, nla(at, bytes(want), length=0xffff)))
        # wrong types: event attributes, pad, unspec, unknown types, nested flag
        for at in [0, A_FUNC, A_SIZE, A_THREADS, A_CHUNKS, A_ELAPSED, A_ERROR, A_UNDONE, A_PAD,
                   12, 13, 100, 0x3fff]:
            add("wrong type", g.msg(fam, RA, cmd, nla(at, u32(1))))
            add("wrong type", g.msg(fam, RA, cmd, nla(at, b"ktask\0")))
            add("wrong type", g.msg(fam, RA, cmd, nla(at, u32(1)) + nla(A_RENICE, b"\1")))
        for at in CONFIG_ATTRS:
            add("nested flag", g.msg(fam, RA, cmd, nla(at | NLA_F_NESTED, good[at])))
            add("nested garbage", g.msg(fam, RA, cmd, nla(at | NLA_F_NESTED, nla(at, good[at]))))
    # out-of-range values (SET)
    for v in (0, ncpus + 1, ncpus + 2, 1024, 0x7fffffff, 0x80000000, 0xffffffff):
        add("out of range", g.msg(fam, RA, CMD_SET, nla(A_MAX_THREADS, u32(v))))
    for v in (-21, 20, 100, -(1 << 31), (1 << 31) - 1):
        add("out of range", g.msg(fam, RA, CMD_SET, nla(A_HELPER_NICE, s32(v))))
    for v in (2, 3, 127, 128, 255):
        add("out of range", g.msg(fam, RA, CMD_SET, nla(A_RENICE, bytes([v]))))
    # one bad value among good ones of the other settings, before or after
    # them: all-or-nothing.  (A repeated attribute is no case here: netlink
    # keeps the last one, so a bad value followed by a good one is valid.)
    for bad_at, bad in ((A_MAX_THREADS, u32(0)), (A_HELPER_NICE, s32(20)), (A_RENICE, b"\2")):
        others = b"".join(nla(at, good[at]) for at in CONFIG_ATTRS if at != bad_at)
        add("out of range with valid", g.msg(fam, RA, CMD_SET, others + nla(bad_at, bad)))
        add("out of range with valid", g.msg(fam, RA, CMD_SET, nla(bad_at, bad) + others))
        add("out of range with valid", g.msg(fam, RA, CMD_SET, nla(bad_at, good[bad_at]) + others + nla(bad_at, bad)))
        add("valid with garbage", g.msg(fam, RA, CMD_SET, others + nla(77, b"xx")))
    # truncated headers: shorter than nlmsghdr (dropped), nlmsg_len lying
    for n in range(1, 16):
        add("truncated nlmsghdr", g.msg(fam, RA, CMD_GET)[:n], "error-or-drop")
    for n in (0, 1, 8, 15):
        add("nlmsg_len < header", g.msg(fam, RA, CMD_GET, length=n), "error-or-drop")
    for n in (16, 17, 18, 19):
        add("truncated genlmsghdr", g.msg(fam, RA, CMD_GET, length=n)[:n], "error-or-drop")
        add("truncated genlmsghdr", g.msg(fam, RA, CMD_SET, length=n)[:n], "error-or-drop")
    for n in (100, 4096, 0xffffffff):
        add("nlmsg_len > datagram", g.msg(fam, RA, CMD_SET, nla(A_RENICE, b"\1"), length=n), "error-or-drop")
    for cmd in (CMD_GET, CMD_SET):
        full = g.msg(fam, RA, cmd, nla(A_MAX_THREADS, u32(1)) + nla(A_RENICE, b"\1"))
        for cut in (21, 22, 23, 26, 29):		# cut inside an attribute
            m = bytearray(full[:cut])
            struct.pack_into("=I", m, 0, cut)
            add("truncated attribute", bytes(m))
        add("trailing bytes", g.msg(fam, RA, cmd, nla(A_RENICE, b"\1") + b"\xff\xff"))
    # deeply nested garbage
    inner = nla(A_MAX_THREADS, u32(1))
    for depth in range(1, 40):
        inner = nla(rng.choice([A_MAX_THREADS, A_HELPER_NICE, A_RENICE, 12, 0]) | NLA_F_NESTED, inner)
        if depth % 4 == 0:
            add("nested garbage", g.msg(fam, RA, rng.choice([CMD_GET, CMD_SET]), inner))
    # oversized: many attributes (the last one bad), one huge attribute
    for size in (4096, 16384, 65536, 150000):
        body = b"".join(nla(A_RENICE, b"\1") for _ in range(size // 8)) + nla(A_RENICE, b"\2")
        add("oversized", g.msg(fam, RA, CMD_SET, body))
        add("oversized", g.msg(fam, RA, CMD_SET, nla(200, bytes(min(size, 0xfff0)))))
        add("oversized", g.msg(fam, RA, CMD_GET, nla(A_FUNC, bytes(min(size, 0xfff0)))))
    # flags: reserved header bits with a bad request
    for flags in (RA | NLM_F_ECHO, RA | NLM_F_MULTI, RA | 0x10, RA | 0x800, 0xffff & ~NLM_F_MULTI):
        add("odd flags", g.msg(fam, flags | NLM_F_REQUEST | NLM_F_ACK, CMD_SET, nla(A_RENICE, b"\7")))
    # wrong versions and reserved bits with a bad request
    for ver, res in ((0, 0), (2, 0), (255, 0xffff)):
        add("version/reserved", g.msg(fam, RA, CMD_SET, nla(A_MAX_THREADS, u32(0)), version=ver, reserved=res))
    # message types that are no family
    free = [t for t in range(0x11, 0x400) if t not in other_ids and t != fam]
    for t in rng.sample(free, 10) + [0xffff]:
        add("unknown family", g.msg(t, RA, CMD_GET))
    # several bad messages in one datagram: each gets its error
    batch = b"".join(g.msg(fam, RA, c, nla(A_RENICE, b"\5")) for c in (CMD_SET, 9, CMD_SET))
    add("batch", batch)
    # random attribute areas, kept when the policy would reject them
    n = 0
    while n < 300:
        attrs = bytearray()
        for _ in range(rng.randint(1, 6)):
            r = rng.randrange(5)
            if r == 0:
                attrs += random_binary(rng, rng.randint(1, 12))
            else:
                at = rng.choice(list(CONFIG_ATTRS) + [0, A_FUNC, A_PAD, 12, rng.randrange(0x10000)])
                attrs += nla(at, random_binary(rng, rng.choice([0, 1, 2, 4, 5, 8, rng.randint(0, 40)])),
                             length=rng.choice([None, None, None, rng.randrange(0x10000)]))
        attrs = bytes(attrs)
        if policy_valid(attrs):
            continue
        add("random attributes", g.msg(fam, RA, rng.choice([CMD_GET, CMD_SET]), attrs))
        n += 1
    return cases


def seqs_of(raw):
    """Sequence numbers of the messages in a datagram."""
    seqs, off = [], 0
    while off + 16 <= len(raw):
        n, = struct.unpack_from("=I", raw, off)
        seqs.append(struct.unpack_from("=I", raw, off + 8)[0])
        if n < 16:
            break
        off += (n + 3) & ~3
    return seqs


def check_reply(replies, raw, fam):
    """'' if every message of raw got a negative errno and nothing else came."""
    seqs = seqs_of(raw)
    got = {}
    for t, f, s, p in replies:
        if t == NLMSG_ERROR and len(p) >= 4:
            got[s] = struct.unpack_from("=i", p)[0]
        else:
            return "unexpected message type %#x (seq %d)" % (t, s)
    for s in seqs:
        if s not in got:
            return "no answer for seq %d" % s
        if got[s] >= 0:
            return "answered %d (accepted)" % got[s]
    return ""


def fuzz_netlink(args):
    rng = random.Random(args.seed)
    ncpus = ncpu_ids()
    g = Genl()
    fam = g.family("ktask")
    other = g.family_ids()
    config = get_config(g, fam)
    before = snapshot()
    if config is None:
        fail("netlink", "GET_CONFIG got no reply")
        config = {}
    per = {}
    results = {}
    cases = netlink_cases(rng, fam, other, ncpus)
    for label, raw, expect in cases:
        per[label] = per.get(label, 0) + 1
        try:
            replies = g.transact(raw, want=() if expect == "error-or-drop" else None)
        except OSError as e:		# refused by the socket itself
            results[label + ": send " + ename(e.errno)] = results.get(label + ": send " + ename(e.errno), 0) + 1
            count("netlink", "send " + ename(e.errno))
            if e.errno != E.EMSGSIZE:
                fail("netlink", "%s: send: %s" % (label, ename(e.errno)))
            continue
        why = check_reply(replies, raw, fam)
        if expect == "error-or-drop" and not replies:
            count("netlink", "dropped")
            continue
        for t, f, s, p in replies:
            if t == NLMSG_ERROR:
                count("netlink", ename(-struct.unpack_from("=i", p)[0]) if struct.unpack_from("=i", p)[0] else "0")
        if why:
            fail("netlink", "%s: %r: %s" % (label, raw[:80], why))
    # unprivileged SET_CONFIG, valid and invalid: EPERM
    pid = os.fork()
    if pid == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        u = Genl()
        bad = 0
        for attrs in (nla(A_MAX_THREADS, u32(1)), nla(A_HELPER_NICE, s32(0)), nla(A_RENICE, b"\0"),
                      nla(A_RENICE, b"\7")):
            r = u.transact(u.msg(fam, NLM_F_REQUEST | NLM_F_ACK, CMD_SET, attrs))
            e = [struct.unpack_from("=i", p)[0] for t, f, s, p in r if t == NLMSG_ERROR]
            if e != [-E.EPERM]:
                print("FAIL netlink: unprivileged SET_CONFIG %r: %r, expected EPERM" % (attrs, e), flush=True)
                bad += 1
        os._exit(4 + bad)
    _, status = os.waitpid(pid, 0)
    counts["netlink"] = counts.get("netlink", 0) + 4
    per["unprivileged set"] = 4
    if os.waitstatus_to_exitcode(status) != 4:
        failures.append("netlink: unprivileged SET_CONFIG")

    after = get_config(g, fam)
    if after != config:
        fail("netlink", "GET_CONFIG before %r, after %r" % (config, after))
    compare(before, snapshot(), "state")
    print("seed: %d (FUZZ_SEED=%d repeats this run)" % (args.seed, args.seed))
    print("family ktask: id %d" % fam)
    for label, n in sorted(per.items()):
        print("  %-28s %d" % (label, n))
    print("netlink: %d inputs (%s)" % (counts.get("netlink", 0), ", ".join(
        "%s %d" % (res, n) for (i, res), n in sorted(errnos.items()) if i == "netlink")))
    print("failures: %d" % len(failures))
    return 1 if failures else 0


def netlink_get_attrs(args):
    """GET_CONFIG with attributes the family policy accepts; the spec lists
    no request attributes for get-config, so each should be refused."""
    g = Genl()
    fam = g.family("ktask")
    bad = 0
    tried = 0
    for attrs in (nla(A_MAX_THREADS, u32(0)), nla(A_HELPER_NICE, s32(99)), nla(A_RENICE, b"\7"),
                  nla(A_MAX_THREADS, u32(1))):
        tried += 1
        r = g.transact(g.msg(fam, NLM_F_REQUEST | NLM_F_ACK, CMD_GET, attrs))
        err = [struct.unpack_from("=i", p)[0] for t, f, s, p in r if t == NLMSG_ERROR]
        replies = [t for t, f, s, p in r if t == fam]
        if not err or err[0] >= 0:
            print("GET_CONFIG with %r: accepted (%d config replies, ack %r)" % (attrs, len(replies), err))
            bad += 1
    print("netlink-get-attrs: %d inputs, %d accepted" % (tried, bad))
    print("failures: %d" % bad)
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["files", "netlink", "netlink-get-attrs"])
    p.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", 1)))
    p.add_argument("--rounds", type=int, default=None)
    args = p.parse_args()
    if args.what == "files":
        args.rounds = args.rounds or 700
        sys.exit(fuzz_files(args))
    if args.what == "netlink":
        sys.exit(fuzz_netlink(args))
    sys.exit(netlink_get_attrs(args))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Stress debugfs ktask/synthetic with random tasks from concurrent callers.

  stress-synthetic.py [--tasks N] [--callers C] [--seed S]

Every task has a random kind, size, minimum chunk, thread count, node layout
(the online nodes and "any", up to 8 parts, empty parts allowed) and, for
about a third of them, a failure point with a random errno 1..133.  Each
caller opens the file once, writes a task and reads the result back through
the same descriptor (pread at offset 0), and checks it:

  - the write returns its length (a broken promise would make it EIO);
  - kind and size are the ones asked for;
  - no failure injected: error 0, units_done == size, units_undone 0;
  - failure injected: error == -err, units_undone == units_done < size.

Prints the seed, the counts (tasks run, failures injected, mismatches) and
the first mismatches; exits 1 on any mismatch or a short run.
Environment: STRESS_TASKS (default 10000), STRESS_SEED (default: random).
"""
import argparse, glob, os, random, sys, time

SYNTHETIC = "/sys/kernel/debug/ktask/synthetic"
MAX_SIZE = {"cpu": 2000, "memclear": 512, "sleep": 20}
MAX_ERR = 133
SHOWN = 10	# mismatches printed per caller


def online_nodes():
    nodes = sorted(int(os.path.basename(p)[4:])
                   for p in glob.glob("/sys/devices/system/node/node[0-9]*"))
    return nodes or [0]


def split(total, parts, rng):
    """total split into parts non-negative numbers (some may be 0)."""
    cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
    edges = [0] + cuts + [total]
    return [edges[i + 1] - edges[i] for i in range(parts)]


def make_task(rng, nodes):
    kind = rng.choice(sorted(MAX_SIZE))
    size = rng.randint(1, MAX_SIZE[kind])
    tokens = ["kind=" + kind]
    if rng.random() < 0.3:
        tokens.append("size=%d" % size)
    else:
        parts = rng.randint(1, 8)
        where = [str(rng.choice(nodes + ["any"])) for _ in range(parts)]
        layout = ",".join("%s:%d" % (w, n) for w, n in zip(where, split(size, parts, rng)))
        tokens.append("nodes=" + layout)
        if rng.random() < 0.5:
            tokens.append("size=%d" % size)
    if rng.random() < 0.7:
        # log-uniform over 1..size: small chunks (many of them) are common
        tokens.append("min_chunk=%d" % max(1, min(size, int(size ** rng.random()))))
    if rng.random() < 0.7:
        tokens.append("max_threads=%d" % rng.choice([0, 1, 2, 2, 3, 4, rng.randint(5, 1024)]))
    fail_at = err = None
    if rng.random() < 1 / 3:
        fail_at = rng.randrange(size)
        err = rng.randint(1, MAX_ERR)
        tokens += ["fail_at=%d" % fail_at, "err=%d" % err]
    rng.shuffle(tokens)
    return " ".join(tokens), kind, size, err


def parse(text):
    res = {}
    for line in text.decode().splitlines():
        key, _, value = line.partition(":")
        res[key] = value.strip()
    return res


def check(line, kind, size, err, written, res):
    """'' if the result is what ktask promises, else why not."""
    if written != len(line):
        return "write returned %d of %d bytes" % (written, len(line))
    try:
        done, undone, error = (int(res[k]) for k in ("units_done", "units_undone", "error"))
        if res["kind"] != kind or int(res["size"]) != size:
            return "result is for another task: kind %s size %s" % (res["kind"], res["size"])
    except (KeyError, ValueError):
        return "unreadable result"
    if err is None:
        if error != 0 or done != size or undone != 0:
            return "error %d, units_done %d of %d, units_undone %d" % (error, done, size, undone)
    elif error != -err or undone != done or done >= size:
        return "error %d (expected %d), units_done %d of %d, units_undone %d" % (
            error, -err, done, size, undone)
    return ""


def caller(index, tasks, seed, nodes, out):
    rng = random.Random("%d/%d" % (seed, index))
    fd = os.open(SYNTHETIC, os.O_RDWR)
    run = injected = bad = 0
    kinds = {k: 0 for k in MAX_SIZE}
    for _ in range(tasks):
        line, kind, size, err = make_task(rng, nodes)
        data = line.encode()
        res = {}
        try:
            written = os.pwrite(fd, data, 0)
            res = parse(os.pread(fd, 4096, 0))
            why = check(data, kind, size, err, written, res)
        except OSError as e:
            why = "write failed: %s" % os.strerror(e.errno)
        run += 1
        kinds[kind] += 1
        injected += err is not None
        if why:
            bad += 1
            if bad <= SHOWN:
                print("mismatch (caller %d): '%s': %s; read back: %s" % (
                    index, line, why, " ".join("%s=%s" % kv for kv in res.items())),
                    file=out, flush=True)
    os.close(fd)
    print("counts %d %d %d %s" % (run, injected, bad,
                                  " ".join("%s=%d" % kv for kv in sorted(kinds.items()))),
          file=out, flush=True)


def stress(args):
    nodes = online_nodes()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print("seed: %d (STRESS_SEED=%d repeats this run)" % (seed, seed))
    print("callers: %d, online nodes: %s" % (args.callers, " ".join(map(str, nodes))))
    sys.stdout.flush()
    start = time.monotonic()
    pipes, pids = [], []
    for i in range(args.callers):
        share = args.tasks // args.callers + (i < args.tasks % args.callers)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            with os.fdopen(w, "w") as out:
                try:
                    caller(i, share, seed, nodes, out)
                except BaseException as e:	# reported by the parent's counts
                    print("caller %d died: %r" % (i, e), file=out, flush=True)
            os._exit(0)
        os.close(w)
        pipes.append(r)
        pids.append(pid)
    run = injected = bad = 0
    kinds = {}
    for r in pipes:
        with os.fdopen(r) as f:
            for line in f:
                if line.startswith("counts "):
                    fields = line.split()
                    run += int(fields[1])
                    injected += int(fields[2])
                    bad += int(fields[3])
                    for kv in fields[4:]:
                        k, v = kv.split("=")
                        kinds[k] = kinds.get(k, 0) + int(v)
                else:
                    print(line, end="")
    for pid in pids:
        os.waitpid(pid, 0)
    print("tasks run: %d" % run)
    print("failures injected: %d" % injected)
    print("mismatches: %d" % bad)
    print("kinds: %s" % " ".join("%s=%d" % kv for kv in sorted(kinds.items())))
    print("elapsed: %.1f s" % (time.monotonic() - start))
    return 0 if run == args.tasks and bad == 0 else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=int(os.environ.get("STRESS_TASKS", 10000)))
    p.add_argument("--callers", type=int, default=4)
    seed = os.environ.get("STRESS_SEED")
    p.add_argument("--seed", type=int, default=int(seed) if seed else None)
    sys.exit(stress(p.parse_args()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The benchmark's results library (bench/bench.sh runs it on the host).

Reads the raw guest output of one `make bench` run, OUT/raw/*.log (lines
"@boot NAME KERNEL SMP MEM [NODES]", "@sample MEASURE VARIANT NS", "@meta KEY
VALUE", "@failed JOB"; the rest is progress) and OUT/run.env, and writes
OUT/results.json (one entry per measure: name, unit, ktask, baseline,
ratio, goal, met and the min/median/max behind them), OUT/results.md (the
table a person reads first) and, with gnuplot, OUT/*.png.

Every side of a measure is a median of samples taken in one boot (or, for
deferred init and the boot measure, of one sample per boot over BENCH_BOOTS
boots); ratios pair
sides of the same boot except where the baseline kernel is the other side,
which needs its own boot.  A goal is judged on the unrounded ratio; a
measure that could not be taken is reported with met: null.

Usage: results.py OUT
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The jobs of bench/bench.sh and the measures each gives.
JOBS = {
    "cpu": ["synthetic-cpu-1thread", "synthetic-cpu-speedup"],
    "tiny": ["tiny-task", "tiny-task-2x", "tiny-task-1unit"],
    "fallocate": ["fallocate-1G-pages", "fallocate-2M-pages", "fallocate-total-work-"],
    "deferred": ["deferred-init", "deferred-total-work"],
    "boot": ["boot-1G-struct-pages", "boot-2M-pool", "boot-1G-to-init"],
    "vfio": ["vfio-map", "vfio-total-work"],
    "populate": ["populate-", "munmap-"],
    "shmem-fallocate": ["shmem-fallocate"],
    "migrate": ["migrate"],
    "contention": ["contention-nice19", "contention-nice0"],
    "starvation": ["starvation-renice", "starvation-no-renice"],
    "containment": ["containment-cgroup-2threads"],
}


def read_env(path):
    env = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                env[key] = value
    return env


class Boot:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".log")]
        self.kernel = None
        self.smp = self.nodes = None
        self.samples = {}       # (measure, variant) -> [ns...]
        self.meta = {}
        self.failed_jobs = []
        with open(path, errors="replace") as f:
            for line in f:
                words = line.split()
                if not words or not words[0].startswith("@"):
                    continue
                if words[0] == "@boot" and len(words) >= 3:
                    self.kernel = words[2]
                    if len(words) >= 6 and words[3].isdigit() and words[5].isdigit():
                        self.smp, self.nodes = int(words[3]), int(words[5])
                elif words[0] == "@sample" and len(words) == 4:
                    try:
                        value = float(words[3])
                    except ValueError:
                        value = 0
                    if value <= 0:  # no time is a broken measurement
                        print(f"results.py: {self.name}: bad sample ignored: {line.strip()}",
                              file=sys.stderr)
                        continue
                    self.samples.setdefault((words[1], words[2]), []).append(value)
                elif words[0] == "@meta" and len(words) >= 3:
                    self.meta[words[1]] = " ".join(words[2:])
                elif words[0] == "@failed" and len(words) == 2:
                    self.failed_jobs.append(words[1])


def stats(values, scale):
    if not values:
        return None
    v = [x / scale for x in values]
    return {"min": min(v), "median": statistics.median(v), "max": max(v), "n": len(v)}


class Results:
    def __init__(self, out):
        self.out = out
        self.env = read_env(os.path.join(out, "run.env"))
        rawdir = os.path.join(out, "raw")
        self.boots = [Boot(os.path.join(rawdir, f)) for f in sorted(os.listdir(rawdir))
                      if f.endswith(".log")] if os.path.isdir(rawdir) else []
        self.failed_boots = self.env.get("failed_boots", "").split()
        self.entries = []

    def find_boot(self, name):
        for b in self.boots:
            if b.name == name:
                return b
        return None

    def samples(self, boot_prefix, measure, variant):
        """Samples of (measure, variant) from the boots named boot_prefix*."""
        got = []
        for b in self.boots:
            if b.name == boot_prefix or b.name.startswith(boot_prefix + "-"):
                got += b.samples.get((measure, variant), [])
        return got

    def meta(self, boot, key):
        b = self.find_boot(boot)
        return b.meta.get(key) if b else None

    def add(self, name, unit, compare, sides, ktask, baseline, ratio, ratio_means,
            goal=None, note=None):
        """sides: {label: stats}; ktask/baseline/ratio: numbers or None."""
        met = None
        if goal and ratio is not None:
            op, limit = goal.split()
            met = ratio >= float(limit) if op == ">=" else ratio <= float(limit)
        self.entries.append({
            "name": name, "unit": unit, "ktask": ktask, "baseline": baseline,
            "ratio": ratio, "goal": goal, "met": met, "ratio_means": ratio_means,
            "compare": compare, "sides": sides, "note": note,
        })

    def missing(self, name, unit, goal, why):
        self.entries.append({
            "name": name, "unit": unit, "ktask": None, "baseline": None, "ratio": None,
            "goal": goal, "met": None, "ratio_means": None, "compare": None,
            "sides": {}, "note": why,
        })

    # ---- the measures -------------------------------------------------

    def cpu(self):
        v = max([int(k[1].split("-")[1]) for b in self.boots for k in b.samples
                 if k[0] == "cpu"] or [0])
        k1 = stats(self.samples("synthetic", "cpu", "ktask-1"), 1e6)
        u1 = stats(self.samples("synthetic", "cpu", "user-1"), 1e6)
        if not k1 or not u1:
            self.missing("synthetic-cpu-speedup-2threads", "x", ">= 0.97", "not measured")
            return
        units = self.meta("synthetic", "cpu_units")
        self.add("synthetic-cpu-1thread", "ms",
                 f"one thread: the synthetic cpu task of {units} units in the kernel vs "
                 "the same loop in one userspace process, same boot",
                 {"ktask 1 thread": k1, "userspace 1 process": u1},
                 k1["median"], u1["median"], k1["median"] / u1["median"],
                 "kernel time / userspace time")
        self.speedup = [(1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)]
        for t in range(2, v + 1):
            kt = stats(self.samples("synthetic", "cpu", f"ktask-{t}"), 1e6)
            ut = stats(self.samples("synthetic", "cpu", f"user-{t}"), 1e6)
            if not kt or not ut:
                continue
            ks = k1["median"] / kt["median"]
            us = u1["median"] / ut["median"]
            used = self.meta("synthetic", f"threads_used-{t}")
            self.speedup.append((t, ks, k1["median"] / kt["max"], k1["median"] / kt["min"],
                                 us, u1["median"] / ut["max"], u1["median"] / ut["min"]))
            self.add(f"synthetic-cpu-speedup-{t}threads", "x",
                     f"speedup over one thread (median times) of the synthetic cpu task at "
                     f"{t} threads ({used} ran chunks) vs {t} userspace processes, same boot",
                     {f"ktask {t} threads (ms)": kt, f"userspace {t} processes (ms)": ut},
                     ks, us, ks / us, "ktask speedup / userspace speedup",
                     ">= 0.97" if t == 2 else None)

    def tiny(self):
        chunk = self.meta("synthetic", "tiny_chunk") or "?"
        calls = self.meta("synthetic", "tiny_calls") or "?"
        chunk2 = int(chunk) * 2 if chunk.isdigit() else "2 x min_chunk"
        for name, measure, what, goal in (
                ("tiny-task", "tiny-1x", f"size = min_chunk = {chunk} units (one thread)", "<= 1.05"),
                ("tiny-task-2x", "tiny-2x", f"size {chunk2}, min_chunk {chunk} (two chunks: a helper)", None),
                ("tiny-task-1unit", "tiny-1unit", "size = min_chunk = 1 unit (the smallest task)", "<= 1.3")):
            k = stats(self.samples("synthetic", measure, "ktask"), 1)
            d = stats(self.samples("synthetic", measure, "direct"), 1)
            if not k or not d:
                self.missing(name, "ns/call", goal, "not measured")
                continue
            used = self.meta("synthetic", f"threads_used-{measure}")
            # Each round times ktask and then the direct call: the median of
            # the rounds' ratios cancels the host's slow drifts, which a
            # ratio of the two medians keeps.
            pairs = [a / b for a, b in zip(self.samples("synthetic", measure, "ktask"),
                                           self.samples("synthetic", measure, "direct")) if b]
            # tiny.sh runs the single unit min_chunk times as often.
            ncalls = (int(calls) * int(chunk) if measure == "tiny-1unit" and calls.isdigit()
                      and chunk.isdigit() else calls)
            self.add(name, "ns/call",
                     f"cpu task, {what}: ktask_run ({used} thread(s) ran chunks) vs a direct call of "
                     f"the thread function, ns per call over {ncalls} calls, same boot, "
                     f"{len(pairs)} rounds",
                     {"ktask": k, "direct call": d}, k["median"], d["median"],
                     statistics.median(pairs), "median of the rounds' ktask / direct call", goal,
                     f"ktask adds {k['median'] - d['median']:.0f} ns per call (medians)")

    def versus_baseline(self, name, measure, goal, what, boot="memory"):
        """A measure of the BOOT-ktask and BOOT-baseline boots (the memory
        boots by default): ktask (and 1 thread) vs baseline."""
        k = stats(self.samples(f"{boot}-ktask", measure, "ktask"), 1e6)
        one = stats(self.samples(f"{boot}-ktask", measure, "1thread"), 1e6)
        base = stats(self.samples(f"{boot}-baseline", measure, "baseline"), 1e6)
        if not k or not base:
            self.missing(name, "ms", goal, "not measured" + ("" if k else " (ktask boot)")
                         + ("" if base else " (baseline boot)"))
            return
        sides = {"ktask": k}
        if one:
            sides["ktask 1 thread"] = one
        sides["baseline kernel"] = base
        note = None
        if one:
            note = (f"ktask at its default vs ktask limited to 1 thread, same boot: "
                    f"{one['median'] / k['median']:.2f}x")
        self.add(name, "ms", what + "; ktask and ktask at 1 thread in one boot, the baseline "
                 "kernel in its own", sides, k["median"], base["median"],
                 base["median"] / k["median"], "speedup: baseline time / ktask time", goal, note)
        e = self.entries[-1]
        e["ktask_1thread"] = one["median"] if one else None
        e["ratio_1thread"] = one["median"] / k["median"] if one else None

    def fallocate(self):
        size = (self.meta("memory-ktask", "falloc_size") or self.meta("memory-baseline", "falloc_size")
                or "?")
        self.versus_baseline("fallocate-1G-pages", "fallocate-1G", ">= 1.7",
                             f"fallocate -l {size} on hugetlbfs, 1 GiB pages")
        self.versus_baseline("fallocate-2M-pages", "fallocate-2M", ">= 1.6",
                             f"fallocate -l {size} on hugetlbfs, 2 MiB pages")
        for pages in ("1G", "2M"):
            self.total_work(f"fallocate-total-work-{pages}", "memory", f"fallocate-cpu-{pages}",
                            f"CPU time of every thread of a {size} hugetlbfs fallocate, "
                            f"{pages[0]} {pages[1]}iB pages")

    def vfio(self):
        size = (self.meta("memory-ktask", "vfio_size") or self.meta("memory-baseline", "vfio_size")
                or "1G")
        self.versus_baseline(f"vfio-map-{size}", f"vfio-map-{size}", ">= 1.6",
                             f"VFIO_IOMMU_MAP_DMA of {size}, fresh buffer (pinning faults it in)")
        self.versus_baseline(f"vfio-map-{size}-populated", f"vfio-map-{size}-populated", None,
                             f"VFIO_IOMMU_MAP_DMA of {size}, MAP_POPULATE'd buffer")
        for buf in ("", "-populated"):
            self.total_work(f"vfio-total-work-{size}{buf}", "memory", f"vfio-map-cpu-{size}{buf}",
                            f"CPU time of every thread of a VFIO_IOMMU_MAP_DMA of {size}, "
                            + ("MAP_POPULATE'd buffer" if buf else "fresh buffer"))

    def most_threads(self, boots, key):
        """The largest @meta KEY (a thread count) over the boots BOOTS-N."""
        return max([int(b.meta.get(key, 0)) for b in self.boots
                    if b.name.startswith(boots + "-")] or [0])

    def total_work(self, name, boot, measure, what, one_boot=None):
        """Total work: the CPU time of all of a task's threads, ktask at its
        default vs limited to one thread, in the same boot (BOOT-ktask) or,
        for a boot-time user, in boots of their own (BOOT-ktask-N vs
        ONE_BOOT-N, booted on one CPU: the boot users set their own
        maximum, which ktask.max_threads=1 does not cap)."""
        k = stats(self.samples(f"{boot}-ktask", measure, "ktask"), 1e6)
        one = stats(self.samples(one_boot or f"{boot}-ktask", measure, "1thread"), 1e6)
        if not k or not one:
            self.missing(name, "CPU ms", "<= 1.15", "not measured")
            return
        where = (f"median over {k['n']} boots each" if one_boot else "same boot")
        goal, note = "<= 1.15", None
        if one_boot:
            # boot.sh and deferred.sh say how many threads each side ran.
            threads = f"{measure[:-len('-cpu')]}-threads"
            ran = self.most_threads(one_boot, f"{threads}-1thread")
            default = self.most_threads(f"{boot}-ktask", f"{threads}-ktask")
            if ran > 1:
                goal = None
                note = (f"not judged: the 1-thread boots ran {ran} threads; "
                        "both sides are ktask at N threads")
            elif default <= 1:
                goal = None
                note = "not judged: ktask's default ran 1 thread too; both sides are one thread"
        self.add(name, "CPU ms", f"{what}; ktask at its default vs limited to 1 thread, {where}",
                 {"ktask (CPU ms)": k, "ktask 1 thread (CPU ms)": one}, k["median"], one["median"],
                 k["median"] / one["median"], "total work: CPU time at N threads / at 1", goal, note)

    def populate(self):
        size = (self.meta("populate-ktask", "populate_size")
                or self.meta("populate-baseline", "populate_size") or "?")
        for thp in ("never", "always"):
            measure = f"populate-thp-{thp}"
            self.versus_baseline(measure, measure, ">= 1.6",
                                 f"madvise(MADV_POPULATE_WRITE) of {size} fresh anonymous "
                                 f"memory, THP {thp}", boot="populate")
            e = self.entries[-1]
            self.total_work(f"populate-total-work-thp-{thp}", "populate", f"populate-cpu-thp-{thp}",
                            f"CPU time of every thread of a {size} MADV_POPULATE_WRITE, THP {thp}")
            self.ceiling(e, "populate", f"populate-ceiling-thp-{thp}", "populating")
            self.munmap(thp, size, e)

    def munmap(self, thp, size, populate):
        """The assessment of a parallel free at munmap/exit (not converted):
        the munmap() of the populated range, single-threaded on both
        kernels, against the populate before it, and the most splitting it
        could get, 2 userspace processes freeing half each at once."""
        name = f"munmap-thp-{thp}"
        m = stats(self.samples("populate-ktask", name, "1thread"), 1e6)
        base = stats(self.samples("populate-baseline", name, "baseline"), 1e6)
        one = stats(self.samples("populate-ktask", f"munmap-ceiling-thp-{thp}", "1process"), 1e6)
        two = stats(self.samples("populate-ktask", f"munmap-ceiling-thp-{thp}", "2processes"), 1e6)
        if not m or not one or not two:
            self.missing(name, "ms", None, "not measured")
            return
        sides = {"munmap, ktask kernel": m}
        if base:
            sides["munmap, baseline kernel"] = base
        sides["ceiling: 1 process"] = one
        sides["ceiling: 2 processes, half each"] = two
        note = None
        if populate.get("ktask_1thread"):
            note = (f"munmap takes {m['median'] / populate['ktask_1thread']:.1%} of the "
                    f"1-thread populate before it ({populate['ktask_1thread']:.0f} ms); "
                    f"2 threads could save at most {m['median'] * (1 - two['median'] / one['median']):.0f} ms")
        self.add(name, "ms", f"munmap() of the {size} just populated, THP {thp} (not converted: "
                 "the ceiling says what a parallel free could get)", sides, m["median"],
                 base["median"] if base else None, one["median"] / two["median"],
                 "ceiling: 1 process / 2 processes freeing half each", None, note)

    def shmem_fallocate(self):
        size = (self.meta("populate-ktask", "shmem_falloc_size")
                or self.meta("populate-baseline", "shmem_falloc_size") or "?")
        self.versus_baseline("shmem-fallocate", "shmem-fallocate", ">= 1.6",
                             f"fallocate(2) of a new {size} memfd, 4 KiB pages", boot="populate")
        e = self.entries[-1]
        self.total_work("shmem-fallocate-total-work", "populate", "shmem-fallocate-cpu",
                        f"CPU time of every thread of a {size} memfd fallocate")
        self.ceiling(e, "populate", "shmem-fallocate-ceiling", "preallocating")

    def migrate(self):
        size = (self.meta("populate-ktask", "migrate_size")
                or self.meta("populate-baseline", "migrate_size") or "?")
        self.versus_baseline("migrate", "migrate", ">= 1.6",
                             f"move_pages(2) of {size} of THP from node 0 to node 1", boot="populate")
        e = self.entries[-1]
        copy = stats(self.samples("populate-ktask", "migrate-copy", "memcpy"), 1e6)
        if copy and e.get("ktask_1thread"):
            e["sides"]["memcpy() of the range, node 0 to 1"] = copy
            e["note"] = ((e["note"] + "; ") if e["note"] else "") + (
                f"the copy alone (a userspace memcpy) is {copy['median'] / e['ktask_1thread']:.0%} "
                "of the 1-thread call")
        self.total_work("migrate-total-work", "populate", "migrate-cpu",
                        f"CPU time of every thread of a move_pages(2) of {size} of THP")
        self.ceiling(e, "populate", "migrate-ceiling", "moving")

    def ceiling(self, e, boot, measure, doing):
        """Adds to entry E the ceiling of its 2-thread speedup, MEASURE's
        samples in the BOOT-ktask boot: 2 userspace processes DOING half
        each at once vs 1 doing all, and ktask's share of it."""
        one = stats(self.samples(f"{boot}-ktask", measure, "1process"), 1e6)
        two = stats(self.samples(f"{boot}-ktask", measure, "2processes"), 1e6)
        if not one or not two:
            return
        ceiling = one["median"] / two["median"]
        e["ceiling"] = ceiling
        e["sides"]["ceiling: 1 process"] = one
        e["sides"]["ceiling: 2 processes, half each"] = two
        if e.get("ratio_1thread"):
            share = e["ratio_1thread"] / ceiling
            e["ceiling_share"] = share
            e["note"] = ((e["note"] + "; ") if e["note"] else "") + (
                f"ceiling (2 userspace processes {doing} half each vs 1, same boot): "
                f"{ceiling:.2f}x; ktask's 2-thread speedup is {share:.2f} of it (goal >= 0.9)")

    def per_boot(self, name, job, measure, goal, what):
        """One sample per boot, BENCH_BOOTS boots of each of the ktask kernel,
        the ktask kernel on one CPU and the baseline kernel (boots
        JOB-VARIANT-N)."""
        k = stats(self.samples(f"{job}-ktask", measure, "ktask"), 1e6)
        one = stats(self.samples(f"{job}-1thread", measure, "1thread"), 1e6)
        base = stats(self.samples(f"{job}-baseline", measure, "baseline"), 1e6)
        if not k or not base:
            self.missing(name, "ms", goal, "not measured")
            return
        sides = {"ktask": k}
        if one:
            sides["ktask on one CPU (maxcpus=1)"] = one
        sides["baseline kernel (padata)"] = base
        topology = next((f" ({b.smp} vCPUs over {b.nodes} node(s))" for b in self.boots
                         if b.name.startswith(f"{job}-ktask-") and b.nodes), "")
        self.add(name, "ms", f"{what}, median over {k['n']} boots per kernel{topology}", sides,
                 k["median"], base["median"], k["median"] / base["median"],
                 "ktask time / baseline time", goal,
                 f"ktask on one CPU: {one['median']:.0f} ms" if one else None)
        self.entries[-1]["ktask_1thread"] = one["median"] if one else None
        self.entries[-1]["ratio_1thread"] = one["median"] / k["median"] if one else None

    def deferred(self):
        self.per_boot("deferred-init", "deferred", "deferred", "<= 1.0",
                      "deferred struct page init at boot, slowest node")
        self.total_work("deferred-total-work", "deferred", "deferred-cpu",
                        "CPU time of every thread of every node's deferred struct page init "
                        "(ktask_task_end events)", one_boot="deferred-1thread")

    def boot(self):
        # The goal is on the 1 GiB pages' struct page init, the step the
        # 1 GiB reservation adds; the 2 MiB pool and the whole boot are
        # reported beside it (both vary 3-4x between boots of one kernel).
        pages = self.meta("boot-ktask-1", "boot_pages") or "1 GiB and 2 MiB pages"
        self.per_boot("boot-1G-struct-pages", "boot", "boot-gigantic", "<= 1.0",
                      f"a boot reserving {pages}: the struct page init of the 1 GiB pages "
                      "(hugetlb_bootmem_struct_page_init)")
        self.total_work("boot-1G-struct-pages-total-work", "boot", "boot-gigantic-cpu",
                        "CPU time of every thread of the 1 GiB pages' struct page init "
                        "(ktask_task_end events)", one_boot="boot-1thread")
        self.per_boot("boot-2M-pool", "boot", "boot-hugetlb-init", None,
                      f"a boot reserving {pages}: hugetlb_init, which allocates the 2 MiB pool")
        self.total_work("boot-2M-pool-total-work", "boot", "boot-hugetlb-init-cpu",
                        "CPU time of every thread allocating the 2 MiB pool "
                        "(ktask_task_end events)", one_boot="boot-1thread")
        self.per_boot("boot-1G-to-init", "boot", "boot-to-init", None,
                      f"a boot reserving {pages}: the kernel's time until init runs")

    def contention(self):
        alone = stats(self.samples("synthetic", "contention", "alone"), 1e6)
        workers = self.meta("synthetic", "contention_workers")
        threads = self.meta("synthetic", "contention_ktask_threads")
        for name, variant, nice, goal in (("contention-nice19", "nice19", 19, "<= 1.05"),
                                          ("contention-nice0", "nice0", 0, None)):
            s = stats(self.samples("synthetic", "contention", variant), 1e6)
            if not alone or not s:
                self.missing(name, "ms", goal, "not measured")
                continue
            # The CPU time stress-ng got per wall second, in the guest's
            # eyes: below 100% the guest's scheduler gave its CPU away; a
            # slowdown at 100% is the host's (a vCPU thread starved).
            share = {}
            for v in ("alone", variant):
                cpu = sum(self.samples("synthetic", "contention-cpu", v))
                wall = sum(self.samples("synthetic", "contention", v))
                if cpu and wall:
                    share[v] = 100 * cpu / wall / int(workers or 1)
            note = None
            if len(share) == 2:
                note = (f"stress-ng's workers got {share[variant]:.0f}% of their CPUs' time "
                        f"(alone {share['alone']:.0f}%) as the guest counts it, which cannot see "
                        "the host starving a vCPU")
            self.add(name, "ms",
                     f"stress-ng --cpu {workers} (fixed bogo ops) while a {threads}-thread "
                     f"ktask task's helpers run at nice {nice} vs stress-ng alone, same boot",
                     {f"with nice-{nice} helpers": s, "alone": alone},
                     s["median"], alone["median"], s["median"] / alone["median"],
                     "stress-ng time with ktask / alone", goal, note)

    def starvation(self):
        one = stats(self.samples("synthetic", "starvation", "1thread"), 1e6)
        workers = self.meta("synthetic", "starvation_workers")
        threads = self.meta("synthetic", "starvation_ktask_threads")
        for name, variant, what, goal in (("starvation-renice", "renice1", "with renice", "<= 1.0"),
                                          ("starvation-no-renice", "renice0", "without renice", None)):
            s = stats(self.samples("synthetic", "starvation", variant), 1e6)
            if not one or not s:
                self.missing(name, "ms", goal, "not measured")
                continue
            self.add(name, "ms",
                     f"the caller's task time under stress-ng --cpu {workers} (started first): "
                     f"{threads} threads {what} vs 1 thread, same boot",
                     {f"{threads} threads {what}": s, "1 thread": one},
                     s["median"], one["median"], s["median"] / one["median"],
                     "task time / 1-thread task time", goal)

    def containment(self):
        c = stats(self.samples("synthetic", "containment", "cgroup"), 1e6)
        r = stats(self.samples("synthetic", "containment", "root"), 1e6)
        name = "containment-cgroup-2threads"
        if not c or not r:
            self.missing(name, "ms", "<= 1.05", "not measured")
            return
        units = self.meta("synthetic", "containment_units")
        note = None
        k2 = stats(self.samples("synthetic", "tiny-2x", "ktask"), 1)
        d2 = stats(self.samples("synthetic", "tiny-2x", "direct"), 1)
        if k2 and d2:
            note = (f"a task that starts one helper thread costs {k2['median'] - d2['median']:.0f} ns "
                    "more than a direct call (tiny-task-2x)")
        self.add(name, "ms",
                 f"the synthetic cpu task of {units} units at 2 threads, started inside a cgroup "
                 "(cpu controller, no limit: its helpers are charged there) vs in the root cgroup, same boot",
                 {"in a cgroup": c, "root cgroup": r}, c["median"], r["median"],
                 c["median"] / r["median"], "time in a cgroup / time in the root", "<= 1.05", note)

    def build(self):
        self.speedup = None
        ran = self.env.get("only", " ".join(JOBS)).split()
        for job in JOBS:
            if job in ran:
                getattr(self, job.replace("-", "_"))()
        # A job the guest reported as failed.
        failed = sorted({j.replace("-dma", "") for b in self.boots for j in b.failed_jobs})
        for e in self.entries:
            for job in failed:
                if any(e["name"].startswith(m) for m in JOBS[job]):
                    e["note"] = ((e["note"] + "; ") if e["note"] else "") + f"job {job} failed"
        self.failed_jobs = failed

    # ---- output -------------------------------------------------------

    def write_json(self):
        doc = {"run": self.env, "failed_jobs": self.failed_jobs, "measures": self.entries}
        with open(os.path.join(self.out, "results.json"), "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")

    @staticmethod
    def num(x, unit=None):
        if x is None:
            return "-"
        if unit == "x":
            return f"{x:.2f}"
        if abs(x) >= 100:
            return f"{x:.0f}"
        if abs(x) >= 10:
            return f"{x:.1f}"
        return f"{x:.2f}"

    def write_md(self, plots):
        env = self.env
        lines = ["# ktask benchmark results", ""]
        wall = int(env.get("wall_s", "0") or 0)
        lines.append(
            f"{env.get('date', '?')}: {'QUICK run' if env.get('quick') else 'full run'} in "
            f"{wall // 60}m{wall % 60:02d}s; guest {env.get('smp', '?')} vCPUs over "
            f"{env.get('nodes', '?')} nodes ({env.get('accel', 'tcg')}) on a "
            f"{env.get('host_cpus', '?')}-CPU host; {env.get('repeats', '?')} timed runs per "
            f"variant after a discarded warm-up, {env.get('boots', '?')} boot(s) per kernel for "
            "deferred init and for the boot with huge pages reserved.")
        lines.append("")
        if int(env.get("host_busy_pct", "0") or 0):
            lines.append(f"**The host was not quiet:** during {env['host_busy_pct']}% of the run "
                         f"other work ran beside the benchmark (up to "
                         f"{env.get('host_other_guests', '?')} other QEMU guest(s), "
                         f"{env.get('host_compilers', '?')} compiler process(es); load average "
                         f"{env.get('host_load_start', '?')} at the start): the timings, and so "
                         "the goals' verdicts, are not to be trusted.")
            lines.append("")
        lines.append(f"Kernels: ktask {env.get('ktask_image', '?')}, baseline "
                     f"{env.get('baseline_image', '?')} (series last changed in "
                     f"{env.get('series_commit', '?')}).")
        lines.append("")
        lines.append("| measure | unit | ktask | baseline | ratio | goal | met |")
        lines.append("|---|---|---:|---:|---:|---|---|")
        for e in self.entries:
            met = {True: "yes", False: "**NO**", None: "-"}[e["met"]]
            if e["met"] is None and e["goal"]:
                met = "not measured"
            ratio = "-" if e["ratio"] is None else f"{e['ratio']:.3f}"
            lines.append(f"| {e['name']} | {e['unit']} | {self.num(e['ktask'], e['unit'])} | "
                         f"{self.num(e['baseline'], e['unit'])} | {ratio} | "
                         f"{e['goal'] or ''} | {met} |")
        lines.append("")
        missed = [e for e in self.entries if e["met"] is False]
        unmeasured = [e for e in self.entries if e["goal"] and e["met"] is None]
        if missed:
            lines.append("**Goals missed:** " + "; ".join(
                f"{e['name']} (ratio {e['ratio']:.3f}, goal {e['goal']})" for e in missed) + ".")
        else:
            lines.append("Goals missed: none.")
        if unmeasured:
            lines.append("")
            lines.append("**Not measured:** " + ", ".join(e["name"] for e in unmeasured) + ".")
        if self.env.get("failed_boots"):
            lines.append("")
            lines.append(f"**Failed boots:** {self.env['failed_boots']} (see raw/NAME.log.err).")
        lines += ["", "How to read it: `ktask` and `baseline` are medians of the two sides "
                  "named under each measure below (the baseline is mainline's code path, a "
                  "direct call, userspace or the workload alone, as the measure says); "
                  "`ratio` is what the goal is about and says how it is computed.  Under TCG "
                  "timings vary by 20-30% from boot to boot: ratios within one boot are the "
                  "firm ones, ratios against the baseline kernel compare two boots.", ""]
        lines.append("## Measures")
        lines.append("")
        for e in self.entries:
            lines.append(f"### {e['name']}")
            lines.append("")
            if e["compare"]:
                lines.append(e["compare"] + ".")
                lines.append("")
            if e["ratio_means"]:
                lines.append(f"ratio = {e['ratio_means']}"
                             + (f"; goal {e['goal']}" if e["goal"] else "; no goal (reported)")
                             + ".")
                lines.append("")
            if e["sides"]:
                unit = "ms" if e["unit"] == "x" else e["unit"]
                lines.append(f"| side | min | median | max | runs |")
                lines.append("|---|---:|---:|---:|---:|")
                for label, s in e["sides"].items():
                    lines.append(f"| {label} | {self.num(s['min'])} | {self.num(s['median'])} | "
                                 f"{self.num(s['max'])} | {s['n']} |")
                lines.append("")
                if e["unit"] == "x":
                    lines.append("(times in ms)")
                    lines.append("")
            if e["note"]:
                lines.append(e["note"] + ".")
                lines.append("")
        if plots:
            lines.append("## Plots")
            lines.append("")
            for png, title in plots:
                lines.append(f"![{title}]({png})")
                lines.append("")
        with open(os.path.join(self.out, "results.md"), "w") as f:
            f.write("\n".join(lines))
        return lines

    def plot(self):
        """Data files and gnuplot; returns [(png, title)] made."""
        gnuplot = shutil.which("gnuplot")
        jobs = []
        if self.speedup and len(self.speedup) > 1:
            dat = os.path.join(self.out, "speedup.dat")
            with open(dat, "w") as f:
                f.write("# threads ktask ktask_low ktask_high user user_low user_high\n")
                for row in self.speedup:
                    f.write(" ".join(f"{x:.4f}" if isinstance(x, float) else str(x)
                                     for x in row) + "\n")
            jobs.append(("speedup.png", "speedup.gp", dat,
                         "Synthetic cpu task: speedup vs threads, ktask and userspace processes"))

        def bars(png, names, title, ylabel):
            rows = []
            for label, e, side in names:
                s = e["sides"].get(side) if e else None
                if s:
                    rows.append((label, s))
            if not rows:
                return
            dat = os.path.join(self.out, png.replace(".png", ".dat"))
            with open(dat, "w") as f:
                f.write("# label median min max\n")
                for label, s in rows:
                    f.write(f'"{label}" {s["median"]:.3f} {s["min"]:.3f} {s["max"]:.3f}\n')
            jobs.append((png, "bars.gp", dat, title, ylabel))

        by = {e["name"]: e for e in self.entries}
        c19, c0 = by.get("contention-nice19"), by.get("contention-nice0")
        bars("contention.png",
             [("stress-ng alone", c19, "alone"),
              ("with nice-19 helpers", c19, "with nice-19 helpers"),
              ("with nice-0 helpers", c0, "with nice-0 helpers")],
             "Seed 004 contention: stress-ng's time (min/median/max)", "stress-ng wall time (ms)")
        s1, s0 = by.get("starvation-renice"), by.get("starvation-no-renice")
        t = self.meta("synthetic", "starvation_ktask_threads") or "V"
        bars("starvation.png",
             [(f"{t} threads, no renice", s0, f"{t} threads without renice"),
              (f"{t} threads, renice", s1, f"{t} threads with renice"),
              ("1 thread", s1, "1 thread")],
             "Seed 005 starvation: the caller's task time under stress-ng (min/median/max)",
             "task time (ms)")
        # Issue 17: speedup and total work side by side, per user.
        vfio = (self.meta("memory-ktask", "vfio_size") or "1G")
        work = []
        for label, speed, cpu in (
                ("hugetlbfs fallocate 1G", "fallocate-1G-pages", "fallocate-total-work-1G"),
                ("hugetlbfs fallocate 2M", "fallocate-2M-pages", "fallocate-total-work-2M"),
                ("populate, THP never", "populate-thp-never", "populate-total-work-thp-never"),
                ("populate, THP always", "populate-thp-always", "populate-total-work-thp-always"),
                ("memfd fallocate", "shmem-fallocate", "shmem-fallocate-total-work"),
                ("move_pages, THP", "migrate", "migrate-total-work"),
                ("VFIO map", f"vfio-map-{vfio}", f"vfio-total-work-{vfio}"),
                ("deferred init (boot)", "deferred-init", "deferred-total-work"),
                ("1G struct pages (boot)", "boot-1G-struct-pages", "boot-1G-struct-pages-total-work"),
                ("2M pool (boot)", "boot-2M-pool", "boot-2M-pool-total-work")):
            sp, tw = by.get(speed), by.get(cpu)
            if sp and tw and sp.get("ratio_1thread") and tw["ratio"] is not None:
                work.append((label, sp["ratio_1thread"], tw["ratio"]))
        if work:
            dat = os.path.join(self.out, "work.dat")
            with open(dat, "w") as f:
                f.write("# user speedup total_work\n")
                for label, sp, tw in work:
                    f.write(f'"{label}" {sp:.3f} {tw:.3f}\n')
            jobs.append(("work.png", "work.gp", dat,
                         "Each user at ktask's default threads vs 1: speedup and total work",
                         "ratio to 1 thread"))
        made = []
        if not gnuplot:
            print("results.py: no gnuplot (make deps): no plots", file=sys.stderr)
            return made
        for job in jobs:
            png, script, dat, title = job[:4]
            ylabel = job[4] if len(job) > 4 else ""
            def q(text):    # a gnuplot single-quoted string
                return "'" + text.replace("'", "''") + "'"
            args = [gnuplot, "-e", f"datafile={q(dat)}; outfile={q(os.path.join(self.out, png))}; "
                    f"plottitle={q(title)}; ylabel={q(ylabel)}", os.path.join(HERE, script)]
            r = subprocess.run(args, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"results.py: gnuplot {script} failed:\n{r.stderr}", file=sys.stderr)
                continue
            made.append((png, title))
        return made


def main():
    if len(sys.argv) != 2:
        print("usage: results.py OUT", file=sys.stderr)
        return 2
    r = Results(sys.argv[1])
    r.build()
    r.write_json()
    plots = r.plot()
    lines = r.write_md(plots)
    # The table, for the terminal.
    for line in lines:
        if line.startswith("## Measures"):
            break
        print(line)
    print(f"(details: {os.path.join(r.out, 'results.md')}, results.json"
          + (", " + ", ".join(p for p, _ in plots) if plots else "") + ")")
    # A measure asked for and not measured fails the bench, loudly.
    unmeasured = [e for e in r.entries if "not measured" in (e["note"] or "")
                  or "failed" in (e["note"] or "")]
    for e in unmeasured:
        print(f"results.py: {e['name']}: {e['note']}", file=sys.stderr)
    if unmeasured or r.failed_jobs:
        print(f"results.py: {len(unmeasured)} measure(s) not measured, "
              f"failed jobs: {', '.join(r.failed_jobs) or 'none'}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

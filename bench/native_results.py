#!/usr/bin/env python3
"""Results of bench/native.sh: reads OUT/raw.log ("@sample MEASURE THREADS
NS", "@meta KEY VALUE") and writes OUT/results.json, OUT/results.md and,
with gnuplot, OUT/speedup.png.  A thread count's time is the median of its
rounds; its speedup is the 1-thread median over it, with a low and high
from the slowest and fastest runs.  Beside each speedup stands RFC v4's at
the same thread count, where the seeds have one.

Usage: native_results.py OUT
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from results import Boot  # noqa: E402  the one parser of the raw format

# RFC v4's tables: what was measured and on what machine, speedup by threads.
SEEDS = {
    "fallocate-1G": ("clear_gigantic_page via fallocate, 100 GiB (RFC v4 12/13), "
                     "on a 288-CPU Xeon E7-8895 v3 with 1 TiB",
                     {2: 2.03, 4: 4.28, 8: 8.39, 16: 10.44}),
    "fallocate-2M": ("hugetlbfs fallocate, 200 GiB (RFC v4 13/13), "
                     "on a 288-CPU Xeon E7-8895 v3 with 1 TiB",
                     {2: 3.09, 4: 5.72, 8: 9.45, 16: 9.74}),
    "vfio-map": ("VFIO map of a 320 GiB guest (RFC v4 09/13), "
                 "on a 96-CPU Xeon Platinum 8160 with 754 GiB",
                 {2: 1.9, 3: 2.8, 4: 3.6, 5: 4.3, 6: 5.1, 7: 5.7, 8: 6.4, 12: 8.6, 16: 10.2}),
}
ORDER = ["synthetic-cpu", "fallocate-2M", "fallocate-1G", "fault-1G", "vfio-map", "populate"]
WHAT = {
    "synthetic-cpu": "synthetic cpu task ({cpu_units} units)",
    "fallocate-2M": "fallocate on hugetlbfs, 2 MiB pages ({falloc})",
    "fallocate-1G": "fallocate on hugetlbfs, 1 GiB pages ({falloc_1g})",
    "fault-1G": "one 1 GiB page faulted in by a process (cleared by the caller alone)",
    "vfio-map": "VFIO_IOMMU_MAP_DMA ({vfio})",
    "populate": "madvise(MADV_POPULATE_WRITE) of fresh anonymous memory ({populate}, THP {thp})",
}


def gib(n):
    n = int(n)
    return f"{n / (1 << 30):g} GiB" if n >= 1 << 30 else f"{n >> 20} MiB"


def measure_rows(boot, measure):
    counts = sorted(int(t) for (m, t) in boot.samples if m == measure)
    base = boot.samples.get((measure, "1"))
    if not base:
        return []
    base_median = statistics.median(base)
    rows = []
    for t in counts:
        v = boot.samples[(measure, str(t))]
        med = statistics.median(v)
        used = boot.meta.get(f"threads_used-{measure}-{t}")
        rows.append({
            "threads": t,
            "runs": len(v),
            "ms_min": min(v) / 1e6, "ms_median": med / 1e6, "ms_max": max(v) / 1e6,
            "speedup": base_median / med,
            "speedup_low": base_median / max(v), "speedup_high": base_median / min(v),
            "threads_used": int(used) if used else None,
            "seeds_speedup": SEEDS.get(measure, ("", {}))[1].get(t),
        })
    return rows


def main():
    if len(sys.argv) != 2:
        print("usage: native_results.py OUT", file=sys.stderr)
        return 2
    out = sys.argv[1]
    boot = Boot(os.path.join(out, "raw.log"))
    meta = boot.meta
    results = {"machine": meta, "measures": {}}
    for m in ORDER:
        rows = measure_rows(boot, m)
        if rows:
            results["measures"][m] = rows
    if not results["measures"]:
        print("native_results.py: no samples in raw.log", file=sys.stderr)
        return 1
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")

    fmt = {
        "cpu_units": meta.get("cpu_units", "?"),
        "falloc": gib(meta.get("falloc_bytes", 0)),
        "falloc_1g": gib(meta.get("falloc_1g_bytes", 0)),
        "vfio": gib(meta.get("vfio_bytes", 0)),
        "populate": gib(meta.get("populate_bytes", 0)),
        "thp": meta.get("thp", "?"),
    }
    md = ["# ktask on this machine (bench/native.sh)", "",
          "| machine | |", "|---|---|"]
    for key, label in [("machine", "host"), ("kernel", "kernel"), ("cpu_model", "CPU"),
                       ("cpus", "CPUs"), ("nodes", "NUMA nodes"), ("memory_gib", "memory (GiB)"),
                       ("governor", "cpufreq governor"), ("power_mode", "ktask power mode"),
                       ("default_max_threads", "ktask max_threads (default)"),
                       ("repeats", "rounds per thread count"), ("date", "date")]:
        md.append(f"| {label} | {meta.get(key, '?')} |")
    for m, rows in results["measures"].items():
        md += ["", f"## {m}: {WHAT[m].format(**fmt)}", ""]
        seeds = SEEDS.get(m)
        head = "| threads | median ms | min | max | speedup |"
        sep = "|---:|---:|---:|---:|---:|"
        if m == "synthetic-cpu":
            head += " threads used |"
            sep += "---:|"
        if seeds:
            head += " RFC v4 |"
            sep += "---:|"
        md += [head, sep]
        for r in rows:
            line = (f"| {r['threads']} | {r['ms_median']:.1f} | {r['ms_min']:.1f} | "
                    f"{r['ms_max']:.1f} | {r['speedup']:.2f}x |")
            if m == "synthetic-cpu":
                line += f" {r['threads_used'] if r['threads_used'] is not None else '?'} |"
            if seeds:
                s = r["seeds_speedup"]
                line += f" {s:.2f}x |" if s else " |"
            md.append(line)
        if seeds:
            md += ["", f"RFC v4: {seeds[0]}."]
    md += ["", "A time is the median of its rounds; speedup is the 1-thread median over it.",
           "ktask lets one task use at most 80% of the CPUs' worth of helpers at a time:",
           "counts above that run with fewer (synthetic-cpu shows the threads used)."]

    plot = shutil.which("gnuplot")
    multi = {m: rows for m, rows in results["measures"].items() if len(rows) > 1}
    if plot and multi:
        dat = os.path.join(out, "speedup.dat")
        with open(dat, "w") as f:
            for m, rows in multi.items():
                f.write(f"# {m}: threads speedup low high\n")
                for r in rows:
                    f.write(f"{r['threads']} {r['speedup']:.4f} {r['speedup_low']:.4f} "
                            f"{r['speedup_high']:.4f}\n")
                f.write("\n\n")
        title = f"ktask speedup on {meta.get('machine', '?')}: {meta.get('cpus', '?')} CPUs"
        args = [plot, "-e",
                f"datafile='{dat}'; outfile='{os.path.join(out, 'speedup.png')}'; "
                f"plottitle='{title}'; titles='{' '.join(multi)}'; "
                f"maxthreads={max(r['threads'] for rows in multi.values() for r in rows)}",
                os.path.join(HERE, "native-speedup.gp")]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            md += ["", "![speedup](speedup.png)"]
        else:
            print(f"native_results.py: gnuplot failed:\n{r.stderr}", file=sys.stderr)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

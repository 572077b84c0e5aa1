#!/usr/bin/env python3
"""Host tests of make bench's pieces that need no guest: bench/results.py on
made-up raw output, and bench/cpu-units.  Usage: test_results.py
RESULTS_PY CPU_UNITS (meson passes both)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

RESULTS_PY, CPU_UNITS = sys.argv[1:3] if len(sys.argv) >= 3 else (None, None)


def raw(out, name, kernel, lines, nodes=""):
    os.makedirs(os.path.join(out, "raw"), exist_ok=True)
    with open(os.path.join(out, "raw", name + ".log"), "w") as f:
        f.write(f"@boot {name} {kernel} 2 4G {nodes}\n")
        f.write("\n".join(lines) + "\n")


def samples(measure, variant, *ms):
    return [f"@sample {measure} {variant} {int(v * 1e6)}" for v in ms]


class Results(unittest.TestCase):
    def run_results(self, out, only, unmeasured=()):
        """results.py exits 1, naming each, when a measure asked for is missing."""
        with open(os.path.join(out, "run.env"), "w") as f:
            f.write(f"only={only}\nsmp=2\nrepeats=3\nwall_s=61\nhost_other_guests=0\n")
        r = subprocess.run([sys.executable, RESULTS_PY, out], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1 if unmeasured else 0, r.stderr)
        for name in unmeasured:
            self.assertIn(f"results.py: {name}: ", r.stderr)
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
        return {e["name"]: e for e in doc["measures"]}, md, r

    def test_ratios_goals_and_missing(self):
        with tempfile.TemporaryDirectory() as out:
            raw(out, "synthetic", "ktask",
                ["  progress lines are ignored", "@meta cpu_units 1000",
                 "@meta threads_used-2 2", "@meta tiny_chunk 16", "@meta tiny_calls 100"]
                + samples("cpu", "ktask-1", 100, 110, 90) + samples("cpu", "user-1", 100, 100, 100)
                + samples("cpu", "ktask-2", 55, 50, 60) + samples("cpu", "user-2", 52, 51, 50)
                + samples("tiny-1x", "ktask", 1.1, 1.2, 1.0) + samples("tiny-1x", "direct", 1, 1, 1)
                + samples("tiny-1unit", "ktask", 1.2, 2.4, 1.5)
                + samples("tiny-1unit", "direct", 1.0, 2.0, 1.0)
                + samples("contention", "alone", 10, 10, 10)
                + samples("contention", "nice19", 10.2, 10.4, 10.3)
                + samples("contention", "nice0", 15, 15, 15)
                + samples("containment", "cgroup", 103, 104, 102)
                + samples("containment", "root", 100, 100, 100)
                + ["@sample cpu ktask-1 0", "@failed starvation"])
            raw(out, "memory-ktask", "ktask",
                samples("fallocate-1G", "ktask", 50, 50, 50) + samples("fallocate-1G", "1thread", 100, 100, 100)
                + samples("fallocate-2M", "ktask", 60, 60, 60)
                + samples("fallocate-cpu-1G", "ktask", 110, 112, 108)
                + samples("fallocate-cpu-1G", "1thread", 100, 100, 100))
            raw(out, "memory-baseline", "baseline",
                samples("fallocate-1G", "baseline", 90, 90, 90) + samples("fallocate-2M", "baseline", 100, 100, 100))
            m, md, r = self.run_results(
                out, "cpu tiny contention starvation containment fallocate",
                unmeasured=("tiny-task-2x", "starvation-renice", "fallocate-total-work-2M"))
            self.assertIn("bad sample ignored", r.stderr)

            c = m["containment-cgroup-2threads"]
            self.assertAlmostEqual(c["ratio"], 1.03)          # cgroup median / root median
            self.assertTrue(c["met"])

            e = m["synthetic-cpu-speedup-2threads"]
            self.assertAlmostEqual(e["ktask"], 100 / 55)
            self.assertAlmostEqual(e["baseline"], 100 / 51)
            self.assertAlmostEqual(e["ratio"], (100 / 55) / (100 / 51))
            self.assertEqual(e["goal"], ">= 0.97")
            self.assertFalse(e["met"])
            self.assertEqual(e["sides"]["ktask 2 threads (ms)"],
                             {"min": 50, "median": 55, "max": 60, "n": 3})

            self.assertAlmostEqual(m["tiny-task"]["ratio"], 1.1)
            self.assertFalse(m["tiny-task"]["met"])
            self.assertIsNone(m["tiny-task-2x"]["met"])       # not measured, no goal
            # The median of the rounds' ratios (1.2, 1.2, 1.5), not of the
            # medians' ratio (1.5): a slow round slows both of its sides.
            self.assertAlmostEqual(m["tiny-task-1unit"]["ratio"], 1.2)
            self.assertTrue(m["tiny-task-1unit"]["met"])

            self.assertTrue(m["contention-nice19"]["met"])    # 1.03 <= 1.05
            self.assertIsNone(m["contention-nice0"]["goal"])
            self.assertAlmostEqual(m["contention-nice0"]["ratio"], 1.5)

            f1 = m["fallocate-1G-pages"]
            self.assertAlmostEqual(f1["ratio"], 1.8)          # baseline / ktask
            self.assertTrue(f1["met"])
            self.assertAlmostEqual(f1["ratio_1thread"], 2.0)
            self.assertAlmostEqual(m["fallocate-2M-pages"]["ratio"], 100 / 60)
            self.assertTrue(m["fallocate-2M-pages"]["met"])
            self.assertAlmostEqual(m["fallocate-total-work-1G"]["ratio"], 1.1)
            self.assertTrue(m["fallocate-total-work-1G"]["met"])

            s = m["starvation-renice"]
            self.assertIsNone(s["met"])
            self.assertIn("job starvation failed", s["note"])
            self.assertNotIn("deferred-init", m)              # not asked for

            self.assertIn("| tiny-task | ns/call |", md)
            self.assertIn("**Goals missed:** synthetic-cpu-speedup-2threads", md)
            self.assertIn("**Not measured:** fallocate-total-work-2M, starvation-renice", md)
            for key in ("name", "unit", "ktask", "baseline", "ratio", "goal", "met"):
                self.assertIn(key, f1)

    def test_prefault_measures(self):
        """The populate boots: speedups, total work and the ceiling share."""
        with tempfile.TemporaryDirectory() as out:
            raw(out, "populate-ktask", "ktask",
                ["@meta populate_size 2G", "@meta shmem_falloc_size 2G"]
                + samples("shmem-fallocate", "ktask", 50, 52, 54)
                + samples("shmem-fallocate", "1thread", 100, 100, 100)
                + samples("shmem-fallocate-cpu", "ktask", 104, 110, 108)
                + samples("shmem-fallocate-cpu", "1thread", 100, 100, 100)
                + samples("shmem-fallocate-ceiling", "1process", 100, 100, 100)
                + samples("shmem-fallocate-ceiling", "2processes", 55, 55, 55))
            raw(out, "populate-baseline", "baseline",
                samples("shmem-fallocate", "baseline", 104, 104, 104))
            m, md, r = self.run_results(out, "shmem-fallocate")
            e = m["shmem-fallocate"]
            self.assertAlmostEqual(e["ratio"], 2.0)           # baseline 104 / ktask 52
            self.assertTrue(e["met"])
            self.assertAlmostEqual(e["ratio_1thread"], 100 / 52)
            self.assertAlmostEqual(e["ceiling"], 100 / 55)
            self.assertAlmostEqual(e["ceiling_share"], (100 / 52) / (100 / 55))
            self.assertIn("preallocating half each", e["note"])
            w = m["shmem-fallocate-total-work"]
            self.assertAlmostEqual(w["ratio"], 1.08)          # CPU at 2 threads / at 1
            self.assertTrue(w["met"])
            self.assertNotIn("populate-thp-never", m)         # not asked for
            self.assertNotIn("munmap-thp-never", m)
            self.assertIn("| shmem-fallocate |", md)
            with open(os.path.join(out, "work.dat")) as f:
                self.assertIn('"memfd fallocate" 1.923 1.080', f.read())

        with tempfile.TemporaryDirectory() as out:
            raw(out, "populate-ktask", "ktask",
                ["@meta migrate_size 1G"]
                + samples("migrate", "ktask", 60, 60, 60)
                + samples("migrate", "1thread", 100, 100, 100)
                + samples("migrate-cpu", "ktask", 120, 120, 120)
                + samples("migrate-cpu", "1thread", 100, 100, 100)
                + samples("migrate-copy", "memcpy", 70, 70, 70)
                + samples("migrate-ceiling", "1process", 100, 100, 100)
                + samples("migrate-ceiling", "2processes", 50, 50, 50))
            raw(out, "populate-baseline", "baseline", samples("migrate", "baseline", 90, 90, 90))
            m, md, r = self.run_results(out, "migrate")
            e = m["migrate"]
            self.assertAlmostEqual(e["ratio"], 1.5)           # baseline 90 / ktask 60
            self.assertFalse(e["met"])                        # goal >= 1.6
            self.assertAlmostEqual(e["ceiling_share"], (100 / 60) / 2)
            self.assertIn("1G of THP", e["compare"])
            self.assertIn("the copy alone (a userspace memcpy) is 70% of the 1-thread call",
                          e["note"])
            self.assertIn("memcpy() of the range, node 0 to 1", e["sides"])
            w = m["migrate-total-work"]
            self.assertAlmostEqual(w["ratio"], 1.2)
            self.assertFalse(w["met"])                        # goal <= 1.15
            with open(os.path.join(out, "work.dat")) as f:
                self.assertIn('"move_pages, THP" 1.667 1.200', f.read())

        with tempfile.TemporaryDirectory() as out:
            lines = ["@meta populate_size 2G"]
            for thp in ("never", "always"):
                lines += (samples(f"populate-thp-{thp}", "ktask", 50, 50, 50)
                          + samples(f"populate-thp-{thp}", "1thread", 100, 100, 100)
                          + samples(f"populate-cpu-thp-{thp}", "ktask", 100, 100, 100)
                          + samples(f"populate-cpu-thp-{thp}", "1thread", 100, 100, 100)
                          + samples(f"munmap-thp-{thp}", "1thread", 4, 5, 6)
                          + samples(f"munmap-ceiling-thp-{thp}", "1process", 5, 5, 5)
                          + samples(f"munmap-ceiling-thp-{thp}", "2processes", 4, 4, 4))
            raw(out, "populate-ktask", "ktask", lines)
            raw(out, "populate-baseline", "baseline",
                samples("populate-thp-never", "baseline", 100, 100, 100)
                + samples("populate-thp-always", "baseline", 100, 100, 100))
            m, md, r = self.run_results(out, "populate")
            u = m["munmap-thp-never"]
            self.assertAlmostEqual(u["ktask"], 5)
            self.assertAlmostEqual(u["ratio"], 5 / 4)         # the freeing ceiling
            self.assertIsNone(u["met"])                       # an assessment, no goal
            self.assertIn("munmap takes 5.0% of the 1-thread populate", u["note"])
            self.assertIn("could save at most 1 ms", u["note"])

    def test_boot_measure(self):
        with tempfile.TemporaryDirectory() as out:
            for n, (k, one, base) in enumerate(((100, 180, 110), (120, 170, 100), (90, 200, 130)), 1):
                raw(out, f"boot-ktask-{n}", "ktask", ["@meta boot_pages 8x1G 1024x2M"]
                    + samples("boot-gigantic", "ktask", k) + samples("boot-to-init", "ktask", 10 * k)
                    + samples("boot-gigantic-cpu", "ktask", 2 * k) + ["@meta boot-gigantic-threads-ktask 2"]
                    + samples("boot-hugetlb-init-cpu", "ktask", 5) + ["@meta boot-hugetlb-init-threads-ktask 2"])
                raw(out, f"boot-1thread-{n}", "ktask", samples("boot-gigantic", "1thread", one)
                    + samples("boot-gigantic-cpu", "1thread", one) + ["@meta boot-gigantic-threads-1thread 1"]
                    + samples("boot-hugetlb-init-cpu", "1thread", 4) + ["@meta boot-hugetlb-init-threads-1thread 2"])
                raw(out, f"boot-baseline-{n}", "baseline",
                    samples("boot-gigantic", "baseline", base) + samples("boot-to-init", "baseline", 1100))
            m, md, _ = self.run_results(out, "boot", unmeasured=("boot-2M-pool",))
            e = m["boot-1G-struct-pages"]
            self.assertEqual(e["sides"]["ktask"]["n"], 3)
            self.assertAlmostEqual(e["ktask"], 100)            # medians over the boots
            self.assertAlmostEqual(e["baseline"], 110)
            self.assertAlmostEqual(e["ratio"], 100 / 110)
            self.assertTrue(e["met"])
            self.assertAlmostEqual(e["ktask_1thread"], 180)
            self.assertIn("8x1G 1024x2M", e["compare"])
            t = m["boot-1G-to-init"]
            self.assertAlmostEqual(t["ratio"], 1000 / 1100)
            self.assertIsNone(t["met"])                        # shown, no goal
            self.assertIn("not measured", m["boot-2M-pool"]["note"])   # no samples given
            self.assertNotIn("deferred-init", m)
            # Total work pairs the medians of boots of their own: 200 / 180.
            w = m["boot-1G-struct-pages-total-work"]
            self.assertAlmostEqual(w["ratio"], 200 / 180)
            self.assertTrue(w["met"])
            self.assertIn("median over 3 boots each", w["compare"])
            self.assertAlmostEqual(e["ratio_1thread"], 180 / 100)
            # A 1-thread boot whose task ran 2 threads is shown, not judged.
            p = m["boot-2M-pool-total-work"]
            self.assertAlmostEqual(p["ratio"], 5 / 4)
            self.assertIsNone(p["goal"])
            self.assertIn("ran 2 threads", p["note"])

    def test_vfio_and_deferred_total_work(self):
        with tempfile.TemporaryDirectory() as out:
            raw(out, "memory-ktask", "ktask", ["@meta vfio_size 1G"]
                + samples("vfio-map-1G", "ktask", 60, 60, 60) + samples("vfio-map-1G", "1thread", 100, 100, 100)
                + samples("vfio-map-1G-populated", "ktask", 30, 30, 30)
                + samples("vfio-map-cpu-1G", "ktask", 120, 125, 130)
                + samples("vfio-map-cpu-1G", "1thread", 100, 100, 100)
                + samples("vfio-map-cpu-1G-populated", "ktask", 40, 40, 40)
                + samples("vfio-map-cpu-1G-populated", "1thread", 30, 30, 30))
            raw(out, "memory-baseline", "baseline",
                samples("vfio-map-1G", "baseline", 95, 95, 95)
                + samples("vfio-map-1G-populated", "baseline", 30, 30, 30))
            raw(out, "deferred-ktask-1", "ktask", samples("deferred", "ktask", 200)
                + samples("deferred-cpu", "ktask", 420) + ["@meta deferred-threads-ktask 2"], nodes=1)
            raw(out, "deferred-1thread-1", "ktask", samples("deferred", "1thread", 400)
                + samples("deferred-cpu", "1thread", 400) + ["@meta deferred-threads-1thread 1"], nodes=1)
            raw(out, "deferred-baseline-1", "baseline", samples("deferred", "baseline", 210), nodes=1)
            m, md, _ = self.run_results(out, "vfio deferred")
            self.assertAlmostEqual(m["vfio-total-work-1G"]["ratio"], 1.25)
            self.assertFalse(m["vfio-total-work-1G"]["met"])  # 1.25 > 1.15
            self.assertAlmostEqual(m["vfio-total-work-1G-populated"]["ratio"], 40 / 30)
            self.assertAlmostEqual(m["deferred-total-work"]["ratio"], 1.05)
            self.assertTrue(m["deferred-total-work"]["met"])
            # The deferred boots' topology, one node of 2 vCPUs, is named.
            d = m["deferred-init"]
            self.assertIn("(2 vCPUs over 1 node(s))", d["compare"])
            self.assertIn("ktask on one CPU (maxcpus=1)", d["sides"])
            self.assertIn("ktask on one CPU: 400 ms", d["note"])
            self.assertIn("| vfio-total-work-1G | CPU ms |", md)

    def test_deferred_one_cpu_over_nodes(self):
        """Several nodes on one CPU: deferred.sh gives no 1-thread time, only the CPU time."""
        with tempfile.TemporaryDirectory() as out:
            raw(out, "deferred-ktask-1", "ktask", samples("deferred", "ktask", 100)
                + samples("deferred-cpu", "ktask", 410) + ["@meta deferred-threads-ktask 2"], nodes=2)
            raw(out, "deferred-1thread-1", "ktask", samples("deferred-cpu", "1thread", 400)
                + ["@meta deferred-threads-1thread 1"], nodes=2)
            raw(out, "deferred-baseline-1", "baseline", samples("deferred", "baseline", 100), nodes=2)
            m, md, _ = self.run_results(out, "deferred")
            d = m["deferred-init"]
            self.assertEqual(list(d["sides"]), ["ktask", "baseline kernel (padata)"])
            self.assertIsNone(d["ktask_1thread"])
            self.assertAlmostEqual(m["deferred-total-work"]["ratio"], 410 / 400)

    def test_nothing_measured(self):
        with tempfile.TemporaryDirectory() as out:
            os.makedirs(os.path.join(out, "raw"))
            m, md, _ = self.run_results(out, "deferred vfio", unmeasured=("deferred-init",))
            self.assertIsNone(m["deferred-init"]["met"])
            self.assertIn("not measured", m["deferred-init"]["note"])
            self.assertIn("Goals missed: none.", md)


class CpuUnits(unittest.TestCase):
    def test_output_and_usage(self):
        r = subprocess.run([CPU_UNITS, "1000", "3"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        words = dict(w.split("=") for w in r.stdout.split())
        self.assertEqual(words["units"], "1000")
        self.assertEqual(words["procs"], "3")
        self.assertGreater(int(words["elapsed_ns"]), 0)
        for bad in (["0"], ["10", "0"], ["x"], ["-1"], ["1", "2", "3"], []):
            r = subprocess.run([CPU_UNITS] + bad, capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("usage", r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])

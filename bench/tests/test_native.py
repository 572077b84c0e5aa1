#!/usr/bin/env python3
"""Host tests of bench/native.sh's pieces that need no ktask kernel:
native_results.py on made-up raw output, and native.sh refusing to run on
a kernel without ktask (this host's).  Usage: test_native.py NATIVE_SH
NATIVE_RESULTS_PY (meson passes both)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

NATIVE_SH, NATIVE_RESULTS_PY = sys.argv[1:3] if len(sys.argv) >= 3 else (None, None)


class NativeResults(unittest.TestCase):
    def run_results(self, lines):
        out = tempfile.mkdtemp()
        with open(os.path.join(out, "raw.log"), "w") as f:
            f.write("\n".join(lines) + "\n")
        r = subprocess.run([sys.executable, NATIVE_RESULTS_PY, out], capture_output=True, text=True)
        return out, r

    def test_speedups_medians_and_the_seeds_column(self):
        out, r = self.run_results([
            "@meta machine bighost", "@meta cpus 16", "@meta falloc_bytes 17179869184",
            "@meta falloc_1g_bytes 17179869184", "@meta threads_used-synthetic-cpu-8 6",
            "progress lines are ignored",
            "@sample fallocate-2M 1 8000000000", "@sample fallocate-2M 1 8400000000",
            "@sample fallocate-2M 1 9000000000",
            "@sample fallocate-2M 4 2000000000", "@sample fallocate-2M 4 2100000000",
            "@sample fallocate-2M 4 1900000000",
            "@sample synthetic-cpu 1 1000", "@sample synthetic-cpu 8 250",
        ])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        f2m = doc["measures"]["fallocate-2M"]
        self.assertEqual([row["threads"] for row in f2m], [1, 4])
        self.assertEqual(f2m[0]["ms_median"], 8400.0)
        self.assertAlmostEqual(f2m[1]["speedup"], 8400 / 2000)
        self.assertAlmostEqual(f2m[1]["speedup_low"], 8400 / 2100)
        self.assertAlmostEqual(f2m[1]["speedup_high"], 8400 / 1900)
        self.assertEqual(f2m[1]["seeds_speedup"], 5.72)
        self.assertEqual(doc["measures"]["synthetic-cpu"][1]["threads_used"], 6)
        self.assertEqual(doc["machine"]["cpus"], "16")
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
        self.assertIn("| CPUs | 16 |", md)
        self.assertIn("## fallocate-2M: fallocate on hugetlbfs, 2 MiB pages (16 GiB)", md)
        self.assertIn("| 4 | 2000.0 | 1900.0 | 2100.0 | 4.20x | 5.72x |", md)
        self.assertIn("| 8 | 0.0 | 0.0 | 0.0 | 4.00x | 6 |", md)

    def test_no_samples_is_an_error(self):
        _, r = self.run_results(["@meta cpus 2"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("no samples", r.stderr)

    def test_refuses_a_kernel_without_ktask(self):
        if os.path.exists("/sys/module/ktask"):
            self.skipTest("this kernel has ktask")
        out = os.path.join(tempfile.mkdtemp(), "out")
        r = subprocess.run(["bash", NATIVE_SH, out], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stderr, r"^bench/native.sh: (run it as root|this kernel .* has no ktask)")
        self.assertFalse(os.path.exists(out), "refused, yet created its output directory")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

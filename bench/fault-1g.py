#!/usr/bin/env python3
"""Fault in one 1 GiB page (anonymous, MAP_HUGETLB | MAP_HUGE_1GB) and print
how long the fault took in nanoseconds: the kernel clears the whole page in
it.  The page must be free in the 1 GiB pool.  Used by bench/native.sh."""
import mmap
import sys
import time

MAP_HUGETLB = 0x40000
MAP_HUGE_1GB = 30 << 26
SIZE = 1 << 30

try:
    m = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB,
                  prot=mmap.PROT_READ | mmap.PROT_WRITE)
except OSError as e:
    sys.exit(f"fault-1g.py: mmap of a 1 GiB huge page: {e.strerror}")
start = time.perf_counter_ns()
m[0] = 1
elapsed = time.perf_counter_ns() - start
m.close()
print(elapsed)

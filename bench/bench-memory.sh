#!/bin/bash
# The memory users' measures of make bench alone: hugetlbfs fallocate and
# deferred struct page init, ktask against the baseline kernel (see
# bench/bench.sh; results in build/bench/results.md).
BENCH_ONLY="fallocate deferred" exec "$(dirname "$0")/bench.sh"

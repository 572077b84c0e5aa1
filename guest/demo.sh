#!/bin/bash
# Runs in the guest for 'make demo': a ktaskctl session.
set -e
results=/sys/kernel/debug/kunit/ktask/results
size=${DEMO_SIZE:-200000}

say() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }
median_ns() { python3 -c 'import json,sys; print(json.load(sys.stdin)["elapsed_ns_median"])'; }

say "guest: $(uname -r), $(nproc) CPUs, NUMA nodes $(cat /sys/devices/system/node/online)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "   ${n##*/}: CPUs $(cat "$n/cpulist"), $(awk '/MemTotal/ {print $4 " " $5}' "$n/meminfo")"
done
pass=$(grep -cE '^\s+ok [0-9]+ ktask_test_' "$results")
total=$(grep -cE '^\s+(ok|not ok) [0-9]+ ktask_test_' "$results")
echo "   KUnit suite ktask at boot: $pass of $total cases passed"

say "what ktask has done since boot"
show ktaskctl stats

say "the same CPU task ($size units) with 1 and with 2 threads, 3 runs each"
show ktaskctl run-synthetic --size "$size" --threads 1 --repeat 3
show ktaskctl run-synthetic --size "$size" --threads 2 --repeat 3
one=$(ktaskctl run-synthetic --size "$size" --threads 1 --repeat 3 --json | median_ns)
two=$(ktaskctl run-synthetic --size "$size" --threads 2 --repeat 3 --json | median_ns)
python3 -c "import sys; print('   speedup at 2 threads: %.2fx (median %.1f ms -> %.1f ms)' % (int(sys.argv[1]) / int(sys.argv[2]), int(sys.argv[1]) / 1e6, int(sys.argv[2]) / 1e6))" "$one" "$two"

say "the default maximum threads, changed at run time (tasks that set none follow it)"
show ktaskctl get max-threads
show ktaskctl set max-threads 1
ktaskctl run-synthetic --size "$size" | grep -E 'threads_used|elapsed'
show ktaskctl set max-threads 2
ktaskctl run-synthetic --size "$size" | grep -E 'threads_used|elapsed'

say "monitor: one event per finished task, from the netlink group"
ktaskctl monitor --count 4 &
monitor=$!
sleep 1
ktaskctl run-synthetic --size 50000 --threads 2 > /dev/null
ktaskctl run-synthetic --size 50000 --threads 1 > /dev/null
ktaskctl run-synthetic --kind memclear --nodes 0:16K,1:16K > /dev/null
ktaskctl run-synthetic --size 50000 --threads 2 --fail-at 40000 > /dev/null
wait $monitor

say "a speedup table (ktaskctl bench)"
show ktaskctl bench --size "$size" --threads 1,2 --repeat 3

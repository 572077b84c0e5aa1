#!/bin/bash
# Runs in the guest for 'make demo': a ktaskctl session.
set -e
results=/sys/kernel/debug/kunit/ktask/results
size=${DEMO_SIZE:-200000}

say() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }
tmp=$(mktemp -d)

say "guest: $(uname -r), $(nproc) CPUs, NUMA nodes $(cat /sys/devices/system/node/online)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "   ${n##*/}: CPUs $(cat "$n/cpulist"), $(awk '/MemTotal/ {print $4 " " $5}' "$n/meminfo")"
done
pass=$(grep -cE '^\s+ok [0-9]+ ktask_test_' "$results")
total=$(grep -cE '^\s+(ok|not ok) [0-9]+ ktask_test_' "$results")
echo "   KUnit suite ktask at boot: $pass of $total cases passed"

say "what ktask has done since boot"
show ktaskctl stats

say "the same CPU task ($size units) at 1 and 2 threads, 3 runs each, and the speedup of those runs"
show ktaskctl bench --size "$size" --threads 1,2 --repeat 3

say "the default maximum threads, changed at run time (tasks that set none follow it)"
show ktaskctl get max-threads
show ktaskctl set max-threads 1
ktaskctl run-synthetic --size "$size" | grep -E 'threads_used|elapsed'
show ktaskctl set max-threads 2
ktaskctl run-synthetic --size "$size" | grep -E 'threads_used|elapsed'

say "monitor: one event per finished task, from the netlink group"
ktaskctl monitor --verbose --count 4 2> "$tmp/listening" &
monitor=$!
# Tasks run only once the monitor has joined the group (it says so).
timeout 30 bash -c 'until grep -q listening "$1"; do sleep 0.05; done' _ "$tmp/listening"
ktaskctl run-synthetic --size 50000 --threads 2 > /dev/null
ktaskctl run-synthetic --size 50000 --threads 1 > /dev/null
ktaskctl run-synthetic --kind memclear --nodes 0:16K,1:16K > /dev/null
ktaskctl run-synthetic --size 50000 --threads 2 --fail-at 40000 > /dev/null || true
timeout 30 tail --pid="$monitor" -f /dev/null || { echo "   (monitor: fewer than 4 events in 30 s)"; kill "$monitor"; }
wait "$monitor" || true

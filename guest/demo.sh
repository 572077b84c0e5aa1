#!/bin/bash
# Runs in the guest for 'make demo': what ktask did during this boot.
results=/sys/kernel/debug/kunit/ktask/results

echo "== guest: $(uname -r), $(nproc) CPUs, NUMA nodes $(cat /sys/devices/system/node/online)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "   ${n##*/}: CPUs $(cat "$n/cpulist"), $(awk '/MemTotal/ {print $4 " " $5}' "$n/meminfo")"
done
echo
echo "== ktask at boot (dmesg)"
dmesg | grep -iE 'ktask|kunit' | grep -v '^\s*$' | head -n 20 || true
echo
echo "== KUnit suite ktask: one line per case"
grep -E '^\s+(ok|not ok) [0-9]+ ktask_test_' "$results" | sed -E 's/^\s+/   /'
pass=$(grep -cE '^\s+ok [0-9]+ ktask_test_' "$results")
total=$(grep -cE '^\s+(ok|not ok) [0-9]+ ktask_test_' "$results")
echo "   => $pass of $total cases passed"
echo
echo "== a task at each max_threads setting (200 units, 1-unit chunks, slowed down):"
grep -E 'max_threads [0-9]+: threads used' "$results" | sed -E 's/^\s*#\s*/   /'
echo
echo "Threads used is capped by max_threads, by the CPUs online and by the"
echo "resource limit (80% of CPUs, here $(( $(nproc) * 4 / 5 )) helper(s) + the caller)."
[ "$pass" = "$total" ] && [ "$total" -gt 0 ]

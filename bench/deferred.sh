#!/bin/bash
# Guest side of measure 4 (bench/bench.sh): deferred struct page init at
# this boot, per node, from the kernel log ("node N deferred pages
# initialised in Mms").  The measure is the slowest node: the boot waits
# for all of them.  bench/bench.sh boots each kernel BENCH_BOOTS times.
#
# Usage: deferred.sh VARIANT (ktask, 1thread, baseline: the boot's kernel)
# Samples: deferred VARIANT NS; @meta deferred-node-N MS per node;
# deferred-cpu ktask|1thread NS, the CPU time of every thread of every
# node's task (total work, from the ktask_task_end events in the log), and
# @meta deferred-threads-VARIANT, the most threads a task ran.
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: deferred.sh ktask|1thread|baseline}
lines=$(dmesg | sed -n 's/.*node \([0-9]*\) deferred pages initialised in \([0-9]*\)ms.*/\1 \2/p')
[ -n "$lines" ] || die "no 'deferred pages initialised' line in the kernel log"
worst=0 text=
while read -r node ms; do
	meta "deferred-node-$node" "$ms"
	[ "$ms" -le "$worst" ] || worst=$ms
	text+="${text:+, }node $node $ms ms"
done <<< "$lines"
# On one CPU (the 1thread boots, maxcpus=1) the nodes' tasks share it:
# the slowest node's time would hold the other nodes' work too.
if [ "$variant" = 1thread ] && [ "$(wc -l <<< "$lines")" -gt 1 ]; then
	progress "deferred init ($variant): $text; the nodes shared one CPU: no 1-thread time"
else
	sample deferred "$variant" $(( worst * 1000000 ))
	progress "deferred init ($variant): $text"
fi
boot_total_work deferred deferred_init_memmap_chunk "$variant"

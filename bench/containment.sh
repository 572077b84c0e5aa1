#!/bin/bash
# Guest side of the containment measure (bench/bench.sh): what it costs
# that a user task's helpers are threads of its process, charged to its
# cgroup.  The synthetic cpu task at 2 threads, started from a shell inside
# a cgroup (cpu controller on, no limit) and from one in the root cgroup,
# alternating, after a warm-up of each.  (The cost of creating the threads
# per task is tiny-task-2x's, measure 2.)
#
# Samples: containment cgroup|root NS.
. "$(dirname "$0")/lib.sh"

units=${BENCH_CONTAINMENT_UNITS:-400000}
cgroot=/sys/fs/cgroup
cg=$cgroot/ktask-bench
have_ktask || die "needs the ktask kernel"
[ "$(nproc)" -ge 2 ] || die "needs 2 vCPUs"
mountpoint -q "$cgroot" || mount -t cgroup2 none "$cgroot"
echo "+cpu" > "$cgroot/cgroup.subtree_control"
mkdir -p "$cg"
trap 'rmdir "$cg" 2>/dev/null' EXIT
meta containment_units "$units"

# task_in CGROUP: the task's elapsed ns, started from a shell in CGROUP
# (empty: the root cgroup).
task_in() {
	bash -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs"; exec 3<> "$2" && echo "$3" >&3 && cat /proc/self/fd/3' _ \
		"$1" "$KTASK_DEBUGFS/synthetic" "kind=cpu size=$units max_threads=2" |
		awk '$1 == "elapsed_ns:" { print $2 } $1 == "threads_used:" { t = $2 } END { if (t != 2) exit 1 }'
}

task_in "$cg" > /dev/null && task_in "" > /dev/null || die "the task did not use 2 threads"
for ((r = 1; r <= BENCH_REPEATS; r++)); do
	c=$(task_in "$cg") || die "the task in the cgroup did not use 2 threads"
	o=$(task_in "") || die "the task in the root cgroup did not use 2 threads"
	sample containment cgroup "$c"
	sample containment root "$o"
	progress "containment round $r/$BENCH_REPEATS: in a cgroup $c ns, in the root $o ns"
done

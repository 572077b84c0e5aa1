#!/bin/bash
# Guest side of measure 1 (bench/bench.sh): the synthetic cpu task at 1..V
# threads (V = the guest's CPUs) against V userspace processes running the
# same per-unit loop (bench/cpu-units.c): what the guest can give at best.
# One discarded warm-up of each, then BENCH_REPEATS rounds, each running
# every thread and process count once, so drift hits all alike.
#
# Samples: cpu ktask-T NS, cpu user-P NS (wall time of BENCH_CPU_UNITS units).
. "$(dirname "$0")/lib.sh"

units=${BENCH_CPU_UNITS:-1000000}
v=${BENCH_THREADS:-$(nproc)}
cpu_units=$BENCH_TOP/build/meson/bench/cpu-units
[ -x "$cpu_units" ] || die "no $cpu_units (make tools)"
have_ktask || die "needs the ktask kernel"

meta cpus "$(nproc)"
meta cpu_units "$units"

# ktask T: one task of $units units at T threads; sets NS and USED.
ktask() {
	synth "kind=cpu size=$units max_threads=$1"
	NS=$SYNTH_elapsed_ns USED=$SYNTH_threads_used
}

# user P: the same units in P processes; sets NS.
user() {
	local out
	out=$("$cpu_units" "$units" "$1") || die "cpu-units $units $1 failed"
	NS=${out##*elapsed_ns=}
}

ktask "$v"; user "$v"	# warm-up, discarded
progress "cpu: $units units, 1..$v threads vs processes, $BENCH_REPEATS rounds"
for ((r = 1; r <= BENCH_REPEATS; r++)); do
	line=
	for ((t = 1; t <= v; t++)); do
		ktask "$t"
		sample cpu "ktask-$t" "$NS"
		meta "threads_used-$t" "$USED"
		line+=" ktask/$t $(ms "$NS")"
		user "$t"
		sample cpu "user-$t" "$NS"
		line+=" user/$t $(ms "$NS")"
	done
	progress "cpu round $r/$BENCH_REPEATS (ms):$line"
done

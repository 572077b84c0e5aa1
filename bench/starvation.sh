#!/bin/bash
# Guest side of measure 7 (bench/bench.sh), seed 005's starvation case:
# stress-ng's cpu stressor is started first on all V CPUs (V workers) and
# keeps them busy while a ktask task runs at V threads without renicing
# (renice=0: the waiting caller leaves its nice-19 helpers starved), with
# renicing (renice=1: the caller lends its nice level to one helper at a
# time), and at 1 thread.  The task's size is what one thread does in about
# BENCH_STARVE_SECS on an idle CPU.  The variants alternate, first one
# changing each round, after a discarded warm-up.
#
# Samples: starvation renice0|renice1|1thread NS (the caller's task time).
. "$(dirname "$0")/lib.sh"

v=${BENCH_THREADS:-$(nproc)}
secs=${BENCH_STARVE_SECS:-2}
have_ktask || die "needs the ktask kernel"
command -v stress-ng > /dev/null || die "no stress-ng (make deps)"
saved_renice=$(workers_get renice)
stress_pid=
cleanup() {
	[ -z "$stress_pid" ] || kill "$stress_pid" 2>/dev/null
	wait 2>/dev/null
	workers "renice=$saved_renice"
}
trap cleanup EXIT

synth "kind=cpu size=100000 max_threads=1"
size=$(( 100000 * secs * 1000000000 / SYNTH_elapsed_ns ))
meta starvation_workers "$v"
meta starvation_ktask_threads "$v"
meta starvation_task_units "$size"

(cd /tmp && exec stress-ng --cpu "$v" --cpu-method ackermann --timeout 3600) > /tmp/stress-ng.log 2>&1 &
stress_pid=$!
# Every worker running (stress-ng takes most of a second to start here; its
# workers are named stress-ng-cpu).
for ((i = 0; i < 100; i++)); do
	[ "$(pgrep -c stress-ng)" -le "$v" ] || break
	sleep 0.1
done
sleep 0.5
[ "$(pgrep -c stress-ng)" -gt "$v" ] || { cat /tmp/stress-ng.log >&2; die "stress-ng did not start"; }
progress "starvation: stress-ng --cpu $v running; a $size-unit ktask task (about ${secs}s at one idle thread) at $v threads without and with renice, and at 1 thread"

# run VARIANT: one task; sets NS.
run() {
	case $1 in
	renice0) workers renice=0; synth "kind=cpu size=$size max_threads=$v" ;;
	renice1) workers renice=1; synth "kind=cpu size=$size max_threads=$v" ;;
	1thread) synth "kind=cpu size=$size max_threads=1" ;;
	esac
	NS=$SYNTH_elapsed_ns
}

variants=(renice0 renice1 1thread)
run 1thread	# warm-up, discarded
declare -A got
for ((r = 1; r <= BENCH_REPEATS; r++)); do
	got=()
	for ((i = 0; i < 3; i++)); do
		var=${variants[$(( (r + i) % 3 ))]}
		run "$var"
		got[$var]=$NS
		sample starvation "$var" "$NS"
	done
	progress "starvation round $r/$BENCH_REPEATS: $v threads without renice $(ms "${got[renice0]}") ms, with renice $(ms "${got[renice1]}") ms, 1 thread $(ms "${got[1thread]}") ms"
done
kill -0 "$stress_pid" 2>/dev/null || die "stress-ng stopped before the end"

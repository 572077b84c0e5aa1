#!/bin/bash
# Guest side of measure 6 (bench/bench.sh), seed 004's contention case:
# how much a ktask task's helpers slow a CPU-bound job sharing the CPUs,
# with the helpers at nice 19 (helper_nice, the default) and at nice 0.
#
# As in seed 004, the ktask task runs at V threads (V = the guest's CPUs:
# the caller and V-1 helpers) and stress-ng's cpu stressor at V-1 workers
# (BENCH_CONTENTION_WORKERS), unpinned: the caller, at nice 0 like any
# caller, keeps one CPU's worth for itself and the helpers are what
# competes with stress-ng.  (With V workers the caller alone would take
# 1/(V+1) of the machine whatever the helpers' nice level.)  The ktask task
# starts first and is far too large to finish: once stress-ng is done it is
# killed (the writer's death stops the task).  stress-ng runs a fixed
# number of bogo ops calibrated to take BENCH_STRESS_SECS alone.
#
# Samples: contention alone|nice19|nice0 NS (stress-ng's wall time),
# contention-cpu alone|nice19|nice0 NS (the CPU time its workers got).
. "$(dirname "$0")/lib.sh"

v=${BENCH_THREADS:-$(nproc)}
workers=${BENCH_CONTENTION_WORKERS:-$((v > 1 ? v - 1 : 1))}
secs=${BENCH_STRESS_SECS:-4}
have_ktask || die "needs the ktask kernel"
command -v stress-ng > /dev/null || die "no stress-ng (make deps)"
saved_nice=$(workers_get helper_nice)
trap 'workers helper_nice=$saved_nice' EXIT

# stress ARGS...: run stress-ng's cpu stressor; sets NS, the stressor's own
# wall-clock time (stress-ng takes most of a second to start in the guest,
# the same alone or not), CPU, the CPU time its workers got, and OPS, its
# bogo ops.  CPU against NS tells the guest's scheduler apart from the
# host's: a vCPU the host starves still counts as running in the guest.
stress() {
	rm -f /tmp/stress-ng.yaml
	(cd /tmp && stress-ng --cpu "$workers" --cpu-method ackermann --metrics-brief \
		--yaml /tmp/stress-ng.yaml "$@") > /tmp/stress-ng.log 2>&1 ||
		{ cat /tmp/stress-ng.log >&2; die "stress-ng $* failed"; }
	NS=$(awk '$1 == "wall-clock-time:" { printf "%.0f", $2 * 1e9 }' /tmp/stress-ng.yaml)
	CPU=$(awk '$1 == "user-time:" || $1 == "system-time:" { t += $2 } END { printf "%.0f", t * 1e9 }' /tmp/stress-ng.yaml)
	OPS=$(awk '$1 == "bogo-ops:" { print $2 }' /tmp/stress-ng.yaml)
	[ -n "$NS" ] && [ -n "$OPS" ] || { cat /tmp/stress-ng.log /tmp/stress-ng.yaml >&2; die "no metrics from stress-ng"; }
}

# Calibration (and stress-ng's warm-up): bogo ops for $secs seconds alone,
# and the synthetic task's rate at one thread.
stress --timeout 2
ops=$(( OPS * secs * 1000000000 / NS ))
synth "kind=cpu size=100000 max_threads=1"
rate=$(( 100000 * 1000000000 / SYNTH_elapsed_ns ))	# units per second
# Enough for 20 x $secs at full speed: the task never finishes on its own.
size=$(( rate * secs * 20 * v ))
[ "$size" -le 4294967295 ] || size=4294967295
meta contention_workers "$workers"
meta stress_ops "$ops"
meta contention_ktask_threads "$v"
meta contention_task_units "$size"
progress "contention: stress-ng --cpu $workers --cpu-ops $ops (about ${secs}s alone) vs a $v-thread ktask task, helpers at nice 19 and nice 0"

stress --cpu-ops "$ops"	# warm-up, discarded

# against NICE: stress-ng while a ktask task with helpers at NICE runs.
against() {
	local pid
	workers "helper_nice=$1"
	( echo "kind=cpu size=$size max_threads=$v" > "$KTASK_DEBUGFS/synthetic" ) 2>/dev/null &
	pid=$!
	sleep 0.3	# the task is under way, its helpers queued (and stress-ng takes long to start)
	stress --cpu-ops "$ops"
	kill -0 "$pid" 2>/dev/null || die "the ktask task ended before stress-ng did (calibration off)"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}

# run VARIANT: one stress-ng run alone or against the task; sets NS.
run() {
	case $1 in
	alone) stress --cpu-ops "$ops" ;;
	nice19) against 19 ;;
	nice0) against 0 ;;
	esac
}

variants=(alone nice19 nice0)
declare -A share
for ((r = 1; r <= BENCH_REPEATS; r++)); do
	declare -A got=()
	# A different variant first each round: drift does not favour one.
	for ((i = 0; i < 3; i++)); do
		var=${variants[$(( (r + i) % 3 ))]}
		run "$var"
		got[$var]=$NS
		share[$var]=$(( 100 * CPU / (NS * workers) ))
		sample contention "$var" "$NS"
		sample contention-cpu "$var" "$CPU"
	done
	progress "contention round $r/$BENCH_REPEATS: stress-ng alone $(ms "${got[alone]}") ms, with nice-19 helpers $(ms "${got[nice19]}") ms, with nice-0 helpers $(ms "${got[nice0]}") ms (CPU share ${share[alone]}%, ${share[nice19]}%, ${share[nice0]}%)"
done

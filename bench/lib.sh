# Shared by the guest sides of the benchmark (bench/*.sh); sourced, never run.
#
# A job prints its raw samples on stdout as
#     @sample MEASURE VARIANT VALUE
# and facts about the run as
#     @meta KEY VALUE...
# which bench/bench.sh collects (bench/results.py turns them into
# min/median/max and ratios); everything else is progress for a person,
# indented by two spaces.  The guest sees none of the host's environment:
# bench/bench.sh passes the BENCH_* settings on the command line.

BENCH_TOP=${KTASK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
. "$BENCH_TOP/guest/synthetic.sh"
BENCH_REPEATS=${BENCH_REPEATS:-5}
KTASK_DEBUGFS=/sys/kernel/debug/ktask
KTASK_MAX_THREADS=/sys/module/ktask/parameters/max_threads

sample() {
	echo "@sample $1 $2 $3"
}

meta() {
	echo "@meta $*"
}

progress() {
	echo "  $*"
}

die() {
	echo "bench/${0##*/}: $*" >&2
	exit 1
}

now_ns() {
	date +%s%N
}

# have_ktask: the booted kernel carries the series.
# boot_task_cpu_ns FUNC: the CPU time (ns) of every thread of the boot's
# ktask tasks of thread function FUNC, summed over their ktask_task_end
# events, which bench/bench.sh has the ktask kernel print in its log
# (trace_event=ktask:ktask_task_end tp_printk: the ring buffer keeps none
# of the events before init); empty when there are none (the baseline
# kernel).
boot_task_cpu_ns() {
	dmesg | sed -n "s/.* ktask_task_end: func=$1 .* cpu_ns=\([0-9]*\).*/\1/p" |
		awk '{ sum += $1; n++ } END { if (n) printf "%.0f\n", sum }'
}

# boot_task_threads FUNC: the most threads any of those tasks ran.
# The boot users set their own maximum (the CPUs or nodes they cover),
# which ktask.max_threads=1 does not cap: bench.sh boots their 1-thread
# side on one CPU, and this tells whether it ran one thread.
boot_task_threads() {
	dmesg | sed -n "s/.* ktask_task_end: func=$1 .* threads=\([0-9]*\) .*/\1/p" | sort -n | tail -n 1
}

# boot_total_work MEASURE FUNC VARIANT: the samples MEASURE-cpu VARIANT
# (every thread's CPU time in FUNC's tasks) and the meta
# MEASURE-threads-VARIANT, when this boot has FUNC's events.
boot_total_work() {
	local cpu threads
	cpu=$(boot_task_cpu_ns "$2")
	[ -n "$cpu" ] || return 0
	threads=$(boot_task_threads "$2")
	sample "$1-cpu" "$3" "$cpu"
	meta "$1-threads-$3" "$threads"
	progress "$1 ($3): $2's tasks used $(ms "$cpu") ms of CPU, at most $threads thread(s)"
}

have_ktask() {
	[ -e "$KTASK_MAX_THREADS" ]
}

# synth LINE: run a synthetic task; its result fields become SYNTH_<field>
# (SYNTH_elapsed_ns, SYNTH_ns_per_run, SYNTH_threads_used, ...).  Only one
# task runs at a time here, so a fresh open reads this task's result.
synth() {
	echo "$1" > "$KTASK_DEBUGFS/synthetic" || die "synthetic '$1' failed"
	synthetic_result SYNTH_
	[ "${SYNTH_error:-0}" = 0 ] || die "synthetic '$1': error $SYNTH_error"
}

# workers KEY=VALUE...: helper settings (debugfs ktask/workers).
workers() {
	echo "$*" > "$KTASK_DEBUGFS/workers" || die "workers '$*' failed"
}

# workers_get KEY
workers_get() {
	sed -n "s/^$1: //p" "$KTASK_DEBUGFS/workers"
}

# ms NS: nanoseconds as milliseconds with one decimal.
ms() {
	awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'
}

# median NUMBERS...
median() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# at_exit COMMAND: run COMMAND (a string, for eval) when the script exits,
# after those registered before it; one EXIT trap holds them all.
BENCH_AT_EXIT=
at_exit() {
	BENCH_AT_EXIT+="$1; "
	trap 'eval "$BENCH_AT_EXIT"' EXIT
}

# ktask_variants: the variants a measure alternates, in VARIANTS: on the
# ktask kernel ktask at its default maximum threads (KTASK_DEFAULT, put
# back on exit) and limited to one, on the baseline kernel its one path.
ktask_variants() {
	if have_ktask; then
		KTASK_DEFAULT=$(cat "$KTASK_MAX_THREADS")
		# shellcheck disable=SC2016  # expanded at exit
		at_exit 'echo "$KTASK_DEFAULT" > "$KTASK_MAX_THREADS"'
		# shellcheck disable=SC2034  # the measure's script reads it
		VARIANTS=(ktask 1thread)
		meta ktask_max_threads "$KTASK_DEFAULT"
	else
		# shellcheck disable=SC2034
		VARIANTS=(baseline)
	fi
}

# use_variant VARIANT: ktask's maximum threads for VARIANT (ktask_variants).
use_variant() {
	case $1 in
	ktask) echo "$KTASK_DEFAULT" > "$KTASK_MAX_THREADS" ;;
	1thread) echo 1 > "$KTASK_MAX_THREADS" ;;
	esac
}

# field VAR KEY LINE: VAR set to the value of KEY in a line of KEY=VALUE
# words (a program's one-line report).
field() {
	local v=${3#*"$2"=}
	[ "$v" != "$3" ] || die "no $2= in: $3"
	printf -v "$1" '%s' "${v%% *}"
}

# thp_for_vfio: transparent huge pages as BENCH_VFIO_THP says (never) until
# the script exits.  With "always" a fresh buffer gets 2M pages only while
# the guest has free 2M blocks, so a map's time follows the guest's
# fragmentation (1 GiB at 1 thread varied 2.3-4.5 s, a populated map
# 36-520 ms); "never" pins 4K pages every time.
thp_for_vfio() {
	local thp=/sys/kernel/mm/transparent_hugepage/enabled
	THP_WAS=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2> /dev/null)
	[ -n "$THP_WAS" ] || return 0
	echo "${BENCH_VFIO_THP:-never}" > "$thp" || die "cannot set THP to ${BENCH_VFIO_THP:-never}"
	# shellcheck disable=SC2016  # expanded at exit
	at_exit 'echo "$THP_WAS" > /sys/kernel/mm/transparent_hugepage/enabled'
}

# size_mib SIZE: SIZE (N[GM]) in MiB.
size_mib() {
	case $1 in
	*G) echo $(( ${1%G} * 1024 )) ;;
	*M) echo "${1%M}" ;;
	*) die "$1 is not N[GM]" ;;
	esac
}

# span FILE_PREFIX N START_KEY END_KEY: NS set to the span from the earliest
# START_KEY to the latest END_KEY in the reports FILE_PREFIX0 to
# FILE_PREFIX(N-1), the ceilings' processes' lines of key=value.
span() {
	local p out s e first='' last=''
	for ((p = 0; p < $2; p++)); do
		out=$(< "$1$p")
		field s "$3" "$out"
		field e "$4" "$out"
		[ -n "$first" ] && [ "$first" -le "$s" ] || first=$s
		[ -n "$last" ] && [ "$last" -ge "$e" ] || last=$e
	done
	# shellcheck disable=SC2034  # the measure's script reads it
	NS=$(( last - first ))
}

# ceiling N MIB PROG ARGS...: what userspace gets from N CPUs for the same
# work, N processes running PROG ARGS at once, each with MIB/N MiB in place
# of the argument @MIB@.  Sets NS to the span from the first call's start to
# the last call's end (the programs report start_ns and end_ns), so that the
# processes' start and exit stay outside.
ceiling() {
	local n=$1 mib=$2 pids=() p out
	shift 2
	for ((p = 0; p < n; p++)); do
		"${@/@MIB@/$(( mib / n ))}" > "/tmp/ceiling.$p" &
		pids+=($!)
	done
	for ((p = 0; p < n; p++)); do
		wait "${pids[$p]}" || die "$n processes of $* at $(( mib / n )) MiB each failed"
		out=$(< "/tmp/ceiling.$p")
		[[ $out == result=ok\ * ]] || die "$* at $(( mib / n )) MiB: $out"
	done
	span /tmp/ceiling. "$n" start_ns end_ns
	rm -f /tmp/ceiling.*
}

# barrier_ceiling N MIB ENV PROG ARGS...: as ceiling, for a program that
# sets up (fills its memory) before its call: each of the N processes, run
# with ENV set to a FIFO, prints a line "ready" once set up and waits for a
# byte from the FIFO, and all N calls start together.  Sets NS to the span
# of the calls, their setup left out.
barrier_ceiling() {
	local n=$1 mib=$2 env=$3 fifo=/tmp/ceiling.fifo pids=() p tries=0 tick out
	shift 3
	rm -f /tmp/ceiling.*
	mkfifo "$fifo" /tmp/ceiling.tick
	# A FIFO nobody writes: reading it with a timeout pauses without a CPU.
	exec {tick}<> /tmp/ceiling.tick
	for ((p = 0; p < n; p++)); do
		env "$env=$fifo" "${@/@MIB@/$(( mib / n ))}" > "/tmp/ceiling.$p" &
		pids+=($!)
	done
	for ((p = 0; p < n; p++)); do
		until grep -qx ready "/tmp/ceiling.$p"; do
			[ $(( ++tries )) -le 6000 ] || die "ceiling: $* not ready in 120 s"
			kill -0 "${pids[$p]}" 2> /dev/null || die "ceiling: process $p exited: $(< "/tmp/ceiling.$p")"
			read -r -t 0.02 -u "$tick" || true
		done
	done
	exec 9> "$fifo"
	printf '%*s' "$n" '' >&9
	for ((p = 0; p < n; p++)); do
		wait "${pids[$p]}" || die "ceiling: $n processes of $* failed"
	done
	exec 9>&- {tick}>&-
	for ((p = 0; p < n; p++)); do
		out=$(tail -n 1 "/tmp/ceiling.$p")
		[[ $out == result=ok\ * ]] || die "$* at $(( mib / n )) MiB: $out"
	done
	span /tmp/ceiling. "$n" start_ns end_ns
	rm -f /tmp/ceiling.*
}

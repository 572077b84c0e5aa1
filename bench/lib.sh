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
	trap 'echo "$THP_WAS" > /sys/kernel/mm/transparent_hugepage/enabled' EXIT
}

#!/bin/bash
# Guest side of the populate measure (bench/bench.sh; boots of 4 GiB):
# madvise(MADV_POPULATE_WRITE) of BENCH_POPULATE_SIZE (2G) of fresh
# anonymous memory, THP off and on (tests-bats/progs/populate).  On the ktask
# kernel, ktask at its default maximum threads and limited to one alternate;
# on the baseline kernel the single-threaded path runs.
#
# The ceiling, in the same boot: what userspace gets from the same number of
# CPUs for the same faults, two processes each populating half the size at
# once against one populating all of it (the calls' span), ktask at one
# thread.
# One discarded warm-up per THP setting: the host backs guest memory on
# first touch.
#
# Settings come on the command line: BENCH_REPEATS=N BENCH_POPULATE_SIZE=S
# bench/populate.sh
# Samples: populate-thp-never|populate-thp-always ktask|1thread|baseline NS,
#          populate-cpu-thp-never|-always ktask|1thread|baseline NS (total
#          work: CPU time of all the call's threads, from getrusage()),
#          populate-ceiling-thp-never|-always 1process|2processes NS,
#          munmap-thp-never|-always ktask|1thread|baseline NS (the munmap()
#          of the populated range: single-threaded on every kernel, for the
#          assessment of a parallel free), munmap-ceiling-thp-never|-always
#          1process|2processes NS (2 processes freeing half each at once).
. "$(dirname "$0")/lib.sh"

size=${BENCH_POPULATE_SIZE:-2G}
mib=$(size_mib "$size") || exit 1
prog=$BENCH_TOP/build/meson/tests-bats/progs/populate
[ -x "$prog" ] || die "no $prog (make tools)"
thp=/sys/kernel/mm/transparent_hugepage/enabled
# shellcheck disable=SC2034  # read at exit
saved_thp=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
# shellcheck disable=SC2016  # expanded at exit
at_exit 'echo "$saved_thp" > "$thp"'
meta populate_size "$size"
ktask_variants

# populate MIB: one populate of MIB MiB in a fresh process; sets NS (the
# call alone, as the program times it), CPU_NS (the CPU time of every
# thread over the call) and MUNMAP_NS (the munmap() of the range after it).
populate() {
	local out
	out=$(POPULATE_MUNMAP=now "$prog" madv-write "$1" anon) || die "populate $1 MiB failed"
	[[ $out == result=ok\ * ]] || die "populate $1 MiB: $out"
	field NS elapsed_ns "$out"
	field CPU_NS cpu_ns "$out"
	field MUNMAP_NS munmap_ns "$out"
}

# free_ceiling N: N processes populate 1/N of the size each, then, once all
# have, munmap it at once (a FIFO lets them go); sets NS to the span of the
# munmap calls.  What splitting the freeing of one range could get.
free_ceiling() {
	local fifo=/tmp/free-ceiling.fifo pids=() p tries=0 tick
	rm -f "$fifo" /tmp/free-ceiling.*
	mkfifo "$fifo" /tmp/free-ceiling.tick
	# A FIFO nobody writes: reading it with a timeout pauses without a CPU.
	exec {tick}<> /tmp/free-ceiling.tick
	for ((p = 0; p < $1; p++)); do
		POPULATE_MUNMAP=$fifo "$prog" madv-write $(( mib / $1 )) anon > "/tmp/free-ceiling.$p" &
		pids+=($!)
	done
	for ((p = 0; p < $1; p++)); do
		until grep -q '^result=ok ' "/tmp/free-ceiling.$p"; do
			[ $(( ++tries )) -le 6000 ] || die "free ceiling: populates not done in 120 s"
			kill -0 "${pids[$p]}" 2> /dev/null || die "free ceiling: populate $p exited: $(< "/tmp/free-ceiling.$p")"
			read -r -t 0.02 -u "$tick" || true
		done
	done
	exec 9> "$fifo"
	printf '%*s' "$1" '' >&9
	for ((p = 0; p < $1; p++)); do
		wait "${pids[$p]}" || die "free ceiling: process $p failed"
	done
	exec 9>&- {tick}>&-
	span /tmp/free-ceiling. "$1" munmap_start_ns munmap_end_ns
	rm -f "$fifo" /tmp/free-ceiling.*
}

for t in never always; do
	echo "$t" > "$thp"
	use_variant "${VARIANTS[0]}"
	populate "$mib"		# warm-up, discarded
	for ((r = 1; r <= BENCH_REPEATS; r++)); do
		line=
		for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
			var=${VARIANTS[$(( (r + i) % ${#VARIANTS[@]} ))]}
			use_variant "$var"
			populate "$mib"
			sample "populate-thp-$t" "$var" "$NS"
			sample "populate-cpu-thp-$t" "$var" "$CPU_NS"
			sample "munmap-thp-$t" "$var" "$MUNMAP_NS"
			line+=" $var $(ms "$NS") ms (CPU $(ms "$CPU_NS") ms, munmap $(ms "$MUNMAP_NS") ms)"
		done
		if have_ktask; then
			use_variant 1thread
			ceiling 1 "$mib" "$prog" madv-write @MIB@ anon
			sample "populate-ceiling-thp-$t" 1process "$NS"
			line+=", ceiling: 1 process $(ms "$NS") ms"
			ceiling 2 "$mib" "$prog" madv-write @MIB@ anon
			sample "populate-ceiling-thp-$t" 2processes "$NS"
			line+=" 2 processes $(ms "$NS") ms"
			free_ceiling 1
			sample "munmap-ceiling-thp-$t" 1process "$NS"
			line+=", munmap ceiling: 1 process $(ms "$NS") ms"
			free_ceiling 2
			sample "munmap-ceiling-thp-$t" 2processes "$NS"
			line+=" 2 processes $(ms "$NS") ms"
		fi
		progress "populate $size, THP $t, round $r/$BENCH_REPEATS:$line"
	done
done

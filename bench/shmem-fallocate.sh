#!/bin/bash
# Guest side of the shmem-fallocate measure (bench/bench.sh; the populate
# boots of 4 GiB): fallocate(2) of BENCH_POPULATE_SIZE (2G) of a new memfd,
# 4 KiB pages (shmem_enabled as the guest boots: never), by
# tests-bats/progs/falloc.  On the ktask kernel, ktask at its default
# maximum threads and limited to one alternate; on the baseline kernel the
# single-threaded path runs.  The ceiling, in the same boot: two processes
# each preallocating half the size in a memfd of their own at once against
# one preallocating all of it (the calls' span), ktask at one thread.  One
# discarded warm-up: the host backs guest memory on first touch.
#
# Settings come on the command line: BENCH_REPEATS=N BENCH_POPULATE_SIZE=S
# bench/shmem-fallocate.sh
# Samples: shmem-fallocate ktask|1thread|baseline NS,
#          shmem-fallocate-cpu ktask|1thread|baseline NS (total work: CPU
#          time of all the call's threads, from getrusage()),
#          shmem-fallocate-ceiling 1process|2processes NS.
. "$(dirname "$0")/lib.sh"

size=${BENCH_POPULATE_SIZE:-2G}
mib=$(size_mib "$size") || exit 1
prog=$BENCH_TOP/build/meson/tests-bats/progs/falloc
[ -x "$prog" ] || die "no $prog (make tools)"
meta shmem_falloc_size "$size"
ktask_variants

# falloc MIB: one fallocate of a new memfd of MIB MiB in a fresh process
# (the memfd goes with it); sets NS (the call alone) and CPU_NS (the CPU
# time of every thread over the call).
falloc() {
	local out
	out=$("$prog" memfd 0 "$1") || die "falloc memfd 0 $1 failed"
	[[ $out == result=ok\ * ]] || die "falloc memfd 0 $1: $out"
	field NS elapsed_ns "$out"
	field CPU_NS cpu_ns "$out"
}

use_variant "${VARIANTS[0]}"
falloc "$mib"		# warm-up, discarded
for ((r = 1; r <= BENCH_REPEATS; r++)); do
	line=
	for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
		var=${VARIANTS[$(( (r + i) % ${#VARIANTS[@]} ))]}
		use_variant "$var"
		falloc "$mib"
		sample shmem-fallocate "$var" "$NS"
		sample shmem-fallocate-cpu "$var" "$CPU_NS"
		line+=" $var $(ms "$NS") ms (CPU $(ms "$CPU_NS") ms)"
	done
	if have_ktask; then
		use_variant 1thread
		ceiling 1 "$mib" "$prog" memfd 0 @MIB@
		sample shmem-fallocate-ceiling 1process "$NS"
		line+=", ceiling: 1 process $(ms "$NS") ms"
		ceiling 2 "$mib" "$prog" memfd 0 @MIB@
		sample shmem-fallocate-ceiling 2processes "$NS"
		line+=" 2 processes $(ms "$NS") ms"
	fi
	progress "memfd fallocate $size, round $r/$BENCH_REPEATS:$line"
done

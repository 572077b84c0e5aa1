#!/bin/bash
# Guest side of measure 3 (bench/bench.sh; boot with 6 GiB and
# "hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=1100"): times
# fallocate of BENCH_FALLOC_SIZE (2G) on hugetlbfs with 1 GiB and 2 MiB
# pages.  On the ktask kernel, ktask at its default maximum threads and
# limited to one (max_threads=1) alternate; on the baseline kernel the one
# (single-threaded) path runs.  One discarded warm-up per page size: the
# host backs guest memory on first touch.
#
# Settings come on the command line (the guest sees none of the host's
# environment): BENCH_REPEATS=N BENCH_FALLOC_SIZE=S bench/fallocate.sh
# Samples: fallocate-1G|fallocate-2M ktask|1thread|baseline NS,
#          fallocate-cpu-1G|-2M ktask|1thread|baseline NS (total work: CPU
#          time of all the call's threads, from getrusage()).
. "$(dirname "$0")/lib.sh"

size=${BENCH_FALLOC_SIZE:-2G}
meta falloc_size "$size"
ktask_variants

mkdir -p /tmp/b1g /tmp/b2m
mount -t hugetlbfs -o pagesize=1G none /tmp/b1g || die "no 1 GiB hugetlbfs"
mount -t hugetlbfs -o pagesize=2M none /tmp/b2m || die "no 2 MiB hugetlbfs"

mib=$(size_mib "$size") || exit 1
prog=$BENCH_TOP/build/meson/tests-bats/progs/falloc
[ -x "$prog" ] || die "no $prog (make tools)"

# falloc DIR VARIANT: one fallocate of $size (tests-bats/progs/falloc); sets
# NS (the call alone) and CPU_NS (the CPU time of every thread over it).
falloc() {
	local out
	use_variant "$2"
	out=$("$prog" "$1/f" 0 "$mib") || die "falloc $1/f 0 $mib failed"
	[[ $out == result=ok\ * ]] || die "falloc $1/f 0 $mib: $out"
	field NS elapsed_ns "$out"
	field CPU_NS cpu_ns "$out"
	rm -f "$1/f"
}

for pages in 1G 2M; do
	dir=/tmp/b${pages,,}
	falloc "$dir" "${VARIANTS[0]}"	# warm-up, discarded
	for ((r = 1; r <= BENCH_REPEATS; r++)); do
		line=
		# Alternate, the first variant changing each round.
		for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
			var=${VARIANTS[$(( (r + i) % ${#VARIANTS[@]} ))]}
			falloc "$dir" "$var"
			sample "fallocate-$pages" "$var" "$NS"
			sample "fallocate-cpu-$pages" "$var" "$CPU_NS"
			line+=" $var $(ms "$NS") ms (CPU $(ms "$CPU_NS") ms)"
		done
		progress "fallocate $size, $pages pages, round $r/$BENCH_REPEATS:$line"
	done
done

#!/bin/bash
# Guest side of the migrate measure (bench/bench.sh; the populate boots of
# 4 GiB, 2 nodes): move_pages(2) of BENCH_MIGRATE_SIZE (1G) of THP from
# node 0 to node 1, one address per THP, by tests-bats/progs/migrate.  On
# the ktask kernel, ktask at its default maximum threads and limited to one
# alternate; on the baseline kernel the single-threaded path runs.  In the
# same boot: the copy alone (a userspace memcpy() of the range from node 0
# to a populated buffer on node 1), whose share of the 1-thread call says
# where the time goes, and the ceiling, two processes each moving half the
# size at once (started together once both have filled their memory)
# against one moving all of it, ktask at one thread.  One discarded
# warm-up: the host backs guest memory on first touch.
#
# Settings come on the command line: BENCH_REPEATS=N BENCH_MIGRATE_SIZE=S
# bench/migrate.sh
# Samples: migrate ktask|1thread|baseline NS,
#          migrate-cpu ktask|1thread|baseline NS (total work: CPU time of
#          all the call's threads, from getrusage()),
#          migrate-copy memcpy NS,
#          migrate-ceiling 1process|2processes NS.
. "$(dirname "$0")/lib.sh"

size=${BENCH_MIGRATE_SIZE:-1G}
mib=$(size_mib "$size") || exit 1
prog=$BENCH_TOP/build/meson/tests-bats/progs/migrate
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -x "$prog" ] || die "no $prog (make tools)"
[ -d /sys/devices/system/node/node1 ] || die "one NUMA node: nothing to migrate between"
meta migrate_size "$size"
ktask_variants
thp_before=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
at_exit "echo $thp_before > $thp"
echo madvise > "$thp"

# migrate CALL: one CALL of $mib MiB of THP, node 0 to 1, in a fresh
# process; sets NS (the call alone) and CPU_NS (the CPU time of every
# thread over the call).
migrate() {
	local out
	out=$("$prog" "$1" "$mib" thp 0 1) || die "migrate $1 $mib failed"
	[[ $out == result=ok\ * ]] || die "migrate $1 $mib: $out"
	field NS elapsed_ns "$out"
	field CPU_NS cpu_ns "$out"
}

use_variant "${VARIANTS[0]}"
migrate move_pages	# warm-up, discarded
for ((r = 1; r <= BENCH_REPEATS; r++)); do
	line=
	for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
		var=${VARIANTS[$(( (r + i) % ${#VARIANTS[@]} ))]}
		use_variant "$var"
		migrate move_pages
		sample migrate "$var" "$NS"
		sample migrate-cpu "$var" "$CPU_NS"
		line+=" $var $(ms "$NS") ms (CPU $(ms "$CPU_NS") ms)"
	done
	migrate copy
	sample migrate-copy memcpy "$NS"
	line+=", memcpy $(ms "$NS") ms"
	if have_ktask; then
		use_variant 1thread
		barrier_ceiling 1 "$mib" MIGRATE_FIFO "$prog" move_pages @MIB@ thp 0 1
		sample migrate-ceiling 1process "$NS"
		line+=", ceiling: 1 process $(ms "$NS") ms"
		barrier_ceiling 2 "$mib" MIGRATE_FIFO "$prog" move_pages @MIB@ thp 0 1
		sample migrate-ceiling 2processes "$NS"
		line+=" 2 processes $(ms "$NS") ms"
	fi
	progress "move_pages of $size of THP, node 0 to 1, round $r/$BENCH_REPEATS:$line"
done

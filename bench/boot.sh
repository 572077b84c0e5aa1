#!/bin/bash
# Guest side of the boot measure (bench/bench.sh): a boot with 1 GiB and
# 2 MiB pages reserved on the command line, read back from the kernel log.
# bench/bench.sh boots each kernel BENCH_BOOTS times with
#     hugepagesz=1G hugepages=G hugepagesz=2M hugepages=M initcall_debug
# (and kunit.enable=0: the ktask kernel would run its suite before init)
# and this script takes, from the log's timestamps:
#   - gigantic: initialising the struct pages of the memblock-reserved
#     1 GiB pages (hugetlb_bootmem_struct_page_init(), padata on the
#     baseline kernel, ktask_run_numa() on ktask).  It runs in
#     page_alloc_init_late() between the last "deferred pages initialised"
#     line and the "Memory:" line, which is the interval measured;
#   - hugetlb_init: the initcall that allocates the 2 MiB pool
#     (hugetlb_pages_alloc_boot(): padata or ktask_run()), from
#     initcall_debug;
#   - to-init: the kernel's whole boot, up to running init.
# It first checks the boot worked: both pools have every page asked for.
#
# Usage: boot.sh VARIANT GIGANTIC_PAGES SMALL_PAGES
# Samples: boot-gigantic|boot-hugetlb-init|boot-to-init VARIANT NS;
# boot-gigantic-cpu|boot-hugetlb-init-cpu ktask|1thread NS, the CPU time
# of every thread of those tasks (total work, from ktask_task_end events in the log),
# and @meta boot-gigantic|boot-hugetlb-init-threads-VARIANT, their most threads.
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: boot.sh ktask|1thread|baseline GIGANTIC_PAGES SMALL_PAGES}
want_1g=${2:?}
want_2m=${3:?}

log=$(dmesg) || die "cannot read the kernel log"

# pool SIZE_KB: the pages this boot's pool of that size holds.
pool() {
	cat "/sys/kernel/mm/hugepages/hugepages-${1}kB/nr_hugepages" 2> /dev/null || echo 0
}
have_1g=$(pool 1048576)
have_2m=$(pool 2048)
[ "$have_1g" = "$want_1g" ] || die "1 GiB pool has $have_1g pages, the command line asked for $want_1g"
[ "$have_2m" = "$want_2m" ] || die "2 MiB pool has $have_2m pages, the command line asked for $want_2m"

# stamp_us PATTERN [first|last]: the timestamp (us) of the first or last
# log line matching the extended regex PATTERN.
stamp_us() {
	local line
	if [ "${2:-first}" = last ]; then
		line=$(grep -E -- "$1" <<< "$log" | tail -n 1)
	else
		line=$(grep -E -m 1 -- "$1" <<< "$log")
	fi
	[ -n "$line" ] || die "no '$1' line in the kernel log"
	sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{6\}\)\].*/\1\2/p' <<< "$line" | sed 's/^0*\([0-9]\)/\1/'
}

deferred_done=$(stamp_us 'deferred pages initialised in' last)
memory_line=$(stamp_us '\] Memory: [0-9]+K/')
to_init=$(stamp_us 'Run .* as init process')
gigantic_us=$(( memory_line - deferred_done ))
hugetlb_init_us=$(sed -n 's/.*initcall hugetlb_init+.* returned 0 after \([0-9]*\) usecs.*/\1/p' <<< "$log")
[ -n "$hugetlb_init_us" ] || die "no initcall_debug line for hugetlb_init (is initcall_debug on the command line?)"

sample boot-gigantic "$variant" $(( gigantic_us * 1000 ))
sample boot-hugetlb-init "$variant" $(( hugetlb_init_us * 1000 ))
sample boot-to-init "$variant" $(( to_init * 1000 ))
# Total work, on the ktask kernel: the CPU time of every thread.
boot_total_work boot-gigantic gather_bootmem_prealloc_chunk "$variant"
boot_total_work boot-hugetlb-init hugetlb_pages_alloc_boot_chunk "$variant"
meta boot_pages "${want_1g}x1G ${want_2m}x2M"
progress "boot ($variant): ${want_1g} x 1 GiB struct pages $(( gigantic_us / 1000 )) ms," \
	"${want_2m} x 2 MiB pool (hugetlb_init) $(( hugetlb_init_us / 1000 )) ms," \
	"init started at $(( to_init / 1000 )) ms"

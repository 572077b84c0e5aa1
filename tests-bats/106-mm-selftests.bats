#!/usr/bin/env bats
# The kernel's own mm selftests for the paths the prefault, shmem
# fallocate and migration users touch (MADV_POPULATE_*, MAP_POPULATE, mlock;
# memfd, its seals and fallocate; move_pages(2) racing faults), built from
# the kernel tree by
# scripts/build-mm-selftests.sh: they pass on the ktask kernel as on the
# baseline.  Their ranges are small (8 KiB to a few MiB), below the sizes
# at which populate_parallel() (256 MiB), shmem_fallocate() (over 128 MiB)
# or migrate_pages_parallel() (256 MiB) hands a range to ktask helpers: they
# check that the single-threaded path kept its semantics; 105-populate.bats,
# 107-shmem-fallocate.bats and 108-migrate.bats compare the parallel path
# with it.

load helpers

SELFTESTS=$KTASK_TOP/build/mm-selftests

teardown() {
	kill_test_jobs
	[ -z "${HUGEPAGES_BEFORE:-}" ] || echo "$HUGEPAGES_BEFORE" > /proc/sys/vm/nr_hugepages
}

# run_selftest NAME [LAST_LINE]: the selftest exits 0 and either its
# kselftest totals say fail:0 error:0 or, for one that prints none, its
# last line is LAST_LINE.
run_selftest() {
	[ -x "$SELFTESTS/$1" ] || fail "no $SELFTESTS/$1: make tools (with a kernel tree)"
	run timeout 300 "$SELFTESTS/$1"
	echo "# $1: $(grep '^# Totals' <<< "$output" || tail -n 1 <<< "$output")" >&3
	[ "$status" -eq 0 ] || fail "$(printf '%s: expected exit 0, got %s\n%s' "$1" "$status" "$(tail -n 20 <<< "$output")")"
	if [ -n "${2:-}" ]; then
		expect "$(tail -n 1 <<< "$output")" = "$2" "$1: last line"
	else
		assert_output --regexp '# Totals: pass:[1-9][0-9]* fail:0 xfail:0 xpass:0 skip:[0-9]+ error:0'
	fi
}

@test "mm selftest madv_populate" {
	run_selftest madv_populate
}

@test "mm selftest map_populate" {
	run_selftest map_populate
}

@test "mm selftest mlock2-tests" {
	run_selftest mlock2-tests
}

@test "mm selftest memfd_test (memfd seals, fallocate of a sealed memfd)" {
	run_selftest memfd_test "memfd: DONE"
}

# Its hugetlb cases need a free 2 MiB page on each node, and it needs two
# threads besides its own to fault on the pages it moves: 3 CPUs, so this
# file runs in the 4-vCPU confine4 guest (scripts/run-tests.sh).
@test "mm selftest migration (move_pages(2) of pages other threads fault on)" {
	[ -d /sys/devices/system/node/node1 ] || skip "one NUMA node"
	[ "$(nproc)" -ge 3 ] || skip "the migration selftest needs 3 CPUs, this guest has $(nproc)"
	HUGEPAGES_BEFORE=$(cat /proc/sys/vm/nr_hugepages)
	echo $(( HUGEPAGES_BEFORE + 4 )) > /proc/sys/vm/nr_hugepages
	run_selftest migration
}

@test "kernel log is clean after the mm selftests" {
	assert_kernel_log_clean
}

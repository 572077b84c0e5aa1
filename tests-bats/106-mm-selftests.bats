#!/usr/bin/env bats
# The kernel's own mm selftests for the paths the prefault user touches
# (MADV_POPULATE_*, MAP_POPULATE, mlock), built from the kernel tree by
# scripts/build-mm-selftests.sh: they pass on the ktask kernel as on the
# baseline.  Their ranges are small (2 MiB to a few MiB), below the 256 MiB
# at which populate_parallel() hands a range to ktask: they check that the
# single-threaded path kept its semantics; 105-populate.bats compares the
# parallel path with it.

load helpers

SELFTESTS=$KTASK_TOP/build/mm-selftests

# run_selftest NAME: the selftest exits 0 and its kselftest totals say
# fail:0 error:0.
run_selftest() {
	[ -x "$SELFTESTS/$1" ] || fail "no $SELFTESTS/$1: make tools (with a kernel tree)"
	run timeout 300 "$SELFTESTS/$1"
	echo "# $1: $(grep '^# Totals' <<< "$output" || echo "no totals")" >&3
	[ "$status" -eq 0 ] || fail "$(printf '%s: expected exit 0, got %s\n%s' "$1" "$status" "$(tail -n 20 <<< "$output")")"
	assert_output --regexp '# Totals: pass:[1-9][0-9]* fail:0 xfail:0 xpass:0 skip:[0-9]+ error:0'
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

@test "kernel log is clean after the mm selftests" {
	assert_kernel_log_clean
}

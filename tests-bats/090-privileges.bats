#!/usr/bin/env bats
# An unprivileged user can change nothing.

load helpers

@test "nobody cannot read or write the debugfs files" {
	for f in rlimits nodes stats workers synthetic; do
		run as_nobody cat "$KTASK_DEBUGFS/$f"
		assert_failure
		assert_output --regexp 'Permission denied|Operation not permitted'
	done
	run as_nobody bash -c 'echo "size=10" > "$1"' _ "$KTASK_DEBUGFS/synthetic"
	assert_failure
	assert_output --regexp 'Permission denied|Operation not permitted'
}

@test "nobody cannot change max_threads, and it stays unchanged" {
	before=$(cat "$MAX_THREADS_PARAM")
	run as_nobody bash -c 'echo 1 > "$1"' _ "$MAX_THREADS_PARAM"
	assert_failure
	assert_output --partial "Permission denied"
	expect "$(cat "$MAX_THREADS_PARAM")" = "$before" max_threads
}

@test "kernel log is clean at the end of the suite" {
	assert_kernel_log_clean
}

@test "nobody: ktaskctl stats and run-synthetic fail with a clear message, exit 1" {
	run as_nobody "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" stats
	assert_failure 1
	assert_output --regexp 'ktaskctl: stats: .*(Permission denied|not permitted)'
	run as_nobody "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" run-synthetic --size 10
	assert_failure 1
	assert_output --regexp 'ktaskctl: run-synthetic: .*(Permission denied|not permitted)'
}

@test "nobody: netlink set is refused with EPERM and changes nothing; get works" {
	before=$(ktask_state)
	run as_nobody "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" set max-threads 1
	assert_failure 1
	assert_output --partial "Operation not permitted"
	run as_nobody "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" set helper-nice 0
	assert_failure 1
	expect "$(ktask_state)" = "$before" ktask_state
	run as_nobody "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" get max-threads
	assert_success
	assert_output "$(cat "$MAX_THREADS_PARAM")"
}

@test "nobody: ktaskctl monitor cannot join the events group (EPERM), exit 1; root can" {
	run as_nobody timeout 30 "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" monitor --count 1
	assert_failure 1
	assert_output "ktaskctl: monitor: joining the 'events' group needs CAP_SYS_ADMIN: Operation not permitted"
	# Root still gets the events.
	"$KTASK_TOP/build/meson/ktaskctl/ktaskctl" monitor --verbose --count 1 \
		> "$BATS_TEST_TMPDIR/events" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	echo "kind=cpu size=1000" > "$KTASK_DEBUGFS/synthetic"
	wait_bounded "$pid" 60
	run cat "$BATS_TEST_TMPDIR/events"
	assert_output --regexp '^func=ktask_synth_thread size=1000 '
}

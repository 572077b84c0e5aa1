#!/usr/bin/env bats
# Power awareness: tasks stay single-threaded while energy saving is in
# force.  QEMU has no cpufreq, so the debugfs override stands in for a
# powersave governor.

load helpers

setup() {
	save_settings
	[ "$(nproc)" -ge 2 ] || skip "one CPU: always single-threaded"
	echo 2 > "$MAX_THREADS_PARAM"
}

teardown() {
	kill_test_jobs
	restore_settings
}

TASK="kind=sleep size=100 max_threads=2"

@test "auto without cpufreq: not saving, tasks use helpers" {
	run cat "$KTASK_DEBUGFS/power"
	assert_output $'mode: auto\nsaving: 0'
	run_synthetic "$TASK"
	expect "$SYN_threads_used" -eq 2 threads_used
}

@test "mode=powersave: one thread, counted under single_threaded_power" {
	before=$(ktask_value stats single_threaded_power)
	write_ktask power "mode=powersave"
	assert_success
	run cat "$KTASK_DEBUGFS/power"
	assert_output $'mode: powersave\nsaving: 1'
	run_synthetic "$TASK"
	expect "$SYN_threads_used" -eq 1 threads_used
	expect "$SYN_units_done" -eq 100 units_done
	expect "$(ktask_value stats single_threaded_power)" -eq $(( before + 1 )) "stats single_threaded_power"
}

@test "mode=performance and back to auto: helpers again" {
	write_ktask power "mode=powersave"
	write_ktask power "mode=performance"
	assert_success
	run_synthetic "$TASK"
	expect "$SYN_threads_used" -eq 2 threads_used
	write_ktask power "mode=auto"
	run_synthetic "$TASK"
	expect "$SYN_threads_used" -eq 2 threads_used
}

@test "power is root only" {
	run as_nobody bash -c "echo mode=powersave > $KTASK_DEBUGFS/power"
	assert_failure
	run cat "$KTASK_DEBUGFS/power"
	assert_line "mode: auto"
}

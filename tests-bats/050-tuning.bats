#!/usr/bin/env bats
# Runtime tuning: default max threads (sysfs) and helper priority (workers).

load helpers

setup() {
	save_settings
}

teardown() {
	kill_test_jobs
	restore_settings
}

@test "max_threads defaults to min(4, CPUs) and accepts 1..nr_cpu_ids" {
	cpus=$(( $(awk -F- '{ print $NF }' /sys/devices/system/cpu/possible) + 1 ))
	expect "$saved_max" -eq $(( cpus < 4 ? cpus : 4 )) "default max_threads"
	echo 1 > "$MAX_THREADS_PARAM"
	expect "$(cat "$MAX_THREADS_PARAM")" = 1 max_threads
	echo "$cpus" > "$MAX_THREADS_PARAM"
	expect "$(cat "$MAX_THREADS_PARAM")" = "$cpus" max_threads
}

@test "a max_threads change takes effect on the next task" {
	echo 1 > "$MAX_THREADS_PARAM"
	run_synthetic "kind=cpu size=10000"
	expect "$SYN_threads_used" -eq 1 threads_used
	echo 2 > "$MAX_THREADS_PARAM"
	run_synthetic "kind=cpu size=10000"
	expect "$SYN_threads_used" -eq 2 threads_used
}

@test "single-threaded because of max_threads is counted as such" {
	echo 1 > "$MAX_THREADS_PARAM"
	before=$(ktask_value stats single_threaded_max_threads)
	run_synthetic "kind=cpu size=10000"
	expect "$(ktask_value stats single_threaded_max_threads)" -eq $(( before + 1 )) "stats single_threaded_max_threads"
}

@test "helper_nice and renice can be set together and read back" {
	write_ktask workers "helper_nice=0 renice=0"
	assert_success
	expect "$(ktask_value workers helper_nice)" = 0 "workers helper_nice"
	expect "$(ktask_value workers renice)" = 0 "workers renice"
}

@test "helpers run at the configured nice level" {
	local pid
	write_ktask workers "helper_nice=7 renice=0"
	assert_success
	# A user caller's helpers are threads of its process, named ktask_helper.
	start_sleep_task
	pid=$!
	wait_for_helper_thread "$pid"
	run ps -L -o ni=,comm= -p "$pid"
	kill_bounded "$pid"
	assert_line --regexp '^ *7 ktask_helper$'
}

@test "renice=0 stops the loans, renice=1 resumes them" {
	# A loan happens when the caller runs out of chunks while the helper
	# is still in one.  With one chunk each the helper, started after the
	# caller began its own, is nearly always still in it (with the default
	# chunks one run in twenty lent nothing once): run twenty.
	echo Y > "$KTASK_DEBUGFS/one_chunk_per_thread"
	write_ktask workers "renice=0"
	before=$(ktask_value workers renice_events)
	for i in {1..20}; do echo "kind=sleep size=40 max_threads=2" > "$KTASK_DEBUGFS/synthetic"; done
	expect "$(ktask_value workers renice_events)" -eq "$before" "workers renice_events"
	write_ktask workers "renice=1"
	for i in {1..20}; do echo "kind=sleep size=40 max_threads=2" > "$KTASK_DEBUGFS/synthetic"; done
	expect "$(ktask_value workers renice_events)" -gt "$before" "workers renice_events"
}

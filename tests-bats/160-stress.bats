#!/usr/bin/env bats
# bats file_tags=stress
# Stress: thousands of random synthetic tasks from 4 concurrent callers,
# each checked by the kernel (a broken promise fails the write with EIO) and
# by its caller (the result read back through its own descriptor); then no
# work item, pool entry or memory may be left behind, and a killed caller
# must come back at once.
#
# Alone: scripts/vm-run.sh 'tests-bats/run-suite.sh --only 160-stress.bats'
# or, in a guest, bats --filter-tags stress tests-bats/ (bats >= 1.8).
# STRESS_TASKS (default 10000) and STRESS_SEED go in the guest's command
# string, e.g. 'STRESS_TASKS=2000 tests-bats/run-suite.sh --only 160-stress.bats'.

load helpers

STRESS=$BATS_TEST_DIRNAME/progs/stress-synthetic.py
KMEMLEAK=$DEBUGFS/kmemleak

setup_file() {
	# Leaks reported before this file are not ours: scan and forget them.
	if [ -w "$KMEMLEAK" ]; then
		echo scan > "$KMEMLEAK"
		echo clear > "$KMEMLEAK"
	fi
}

@test "random synthetic tasks from 4 callers: every result is the one promised" {
	local tasks=${STRESS_TASKS:-10000}
	run python3 "$STRESS" --tasks "$tasks" --callers 4
	# the counts go to the TAP stream as comments, pass or fail
	sed 's/^/# /' <<< "$output" >&3
	assert_success
	assert_line "tasks run: $tasks"
	assert_line "mismatches: 0"
	assert_line --regexp '^failures injected: [1-9][0-9]*$'
}

@test "after the stress run: every rlimits row has in_use 0" {
	assert_rlimits_idle
}

@test "after the stress run: kmemleak finds nothing new" {
	[ -w "$KMEMLEAK" ] || skip "no kmemleak"
	# objects younger than 5 s are not reported yet; two scans settle
	# pointers still in flight
	sleep 6
	echo scan > "$KMEMLEAK"
	echo scan > "$KMEMLEAK"
	run cat "$KMEMLEAK"
	assert_success
	assert_output ""
}

@test "SIGKILL inside a long sleep task returns within 2 s and leaves rlimits at zero" {
	local tasks pid i
	tasks=$(ktask_value stats tasks)
	# 100000 units of 1 ms: 50 s at two threads, were it not killed
	python3 -c 'import os, sys; os.write(os.open(sys.argv[1], os.O_WRONLY), b"kind=sleep size=100000 max_threads=2")' \
		"$KTASK_DEBUGFS/synthetic" 3>&- &
	pid=$!
	# wait until the task has started, then give it time to get going
	for ((i = 0; i < 100; i++)); do
		[ "$(ktask_value stats tasks)" -gt "$tasks" ] && break
		sleep 0.1
	done
	expect "$(ktask_value stats tasks)" -gt "$tasks" "stats tasks"
	sleep 1
	assert_sigkill_within_2s "$pid"
	assert_rlimits_idle
}

@test "kernel log is clean after the stress run" {
	assert_kernel_log_clean
}

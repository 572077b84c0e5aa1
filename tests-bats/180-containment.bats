#!/usr/bin/env bats
# A user task's helpers are threads of its own process: their CPU time is
# charged to the caller's cgroup and throttled by its cpu.max, and they die
# with it.  (hugetlb cgroup, memory policy and cpuset.mems: 100-hugetlbfs;
# VFIO under SIGKILL: 110-vfio.)  Needs 2 CPUs or more.

load helpers

CGROOT=/sys/fs/cgroup
CG=$CGROOT/ktask-containment
# A CPU task long enough for several cpu.max periods (100 ms) at 2 threads.
CPU_TASK="kind=cpu size=1500000 max_threads=2"

setup_file() {
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
	echo "+cpu" > "$CGROOT/cgroup.subtree_control"
}

setup() {
	save_settings
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no helper to contain"
	echo 2 > "$MAX_THREADS_PARAM"
	mkdir -p "$CG"
}

teardown() {
	kill_test_jobs
	[ ! -d "$CG" ] || rmdir "$CG"
	restore_settings
}

# synthetic_in_cgroup LINE: run a synthetic task from a shell in $CG; its
# result goes to SYN_<key>, its wall time in microseconds to wall_usec.
synthetic_in_cgroup() {
	local start=${EPOCHREALTIME/./} key value
	run bash -c 'echo $$ > "$1/cgroup.procs" && exec 3<> "$2" && echo "$3" >&3 && cat /proc/self/fd/3' _ \
		"$CG" "$KTASK_DEBUGFS/synthetic" "$1"
	wall_usec=$(( ${EPOCHREALTIME/./} - start ))
	assert_success
	while read -r key value; do
		printf -v "SYN_${key%:}" '%s' "$value"
	done <<< "$output"
}

@test "CPU time: a 2-thread task charges the caller's cgroup for both threads (>= 0.95)" {
	before=$(cgroup_stat "$CG" usage_usec)
	synthetic_in_cgroup "$CPU_TASK"
	used=$(( $(cgroup_stat "$CG" usage_usec) - before ))
	[ "$SYN_threads_used" -eq 2 ] || fail "threads_used: expected 2, got $SYN_threads_used"
	task_usec=$(( SYN_elapsed_ns / 1000 * SYN_threads_used ))
	echo "# charged ${used} us for ${SYN_elapsed_ns} ns x $SYN_threads_used threads ($(( used * 100 / task_usec ))%)" >&3
	[ "$used" -ge $(( task_usec * 95 / 100 )) ] ||
		fail "usage_usec: expected >= $(( task_usec * 95 / 100 )) (0.95 x elapsed x threads), got $used"
}

@test "cpu.max of 1.5 CPUs: the helpers are throttled with the caller, usage within quota + one period" {
	echo "150000 100000" > "$CG/cpu.max"
	before=$(cgroup_stat "$CG" usage_usec) throttled=$(cgroup_stat "$CG" nr_throttled)
	synthetic_in_cgroup "$CPU_TASK"
	used=$(( $(cgroup_stat "$CG" usage_usec) - before ))
	[ "$SYN_threads_used" -eq 2 ] || fail "threads_used: expected 2, got $SYN_threads_used"
	# Two busy threads ask for 2 CPUs: only the helper's time in the group
	# can make the group run out of its 1.5.
	[ "$(cgroup_stat "$CG" nr_throttled)" -gt "$throttled" ] ||
		fail "nr_throttled: expected more than $throttled, got $(cgroup_stat "$CG" nr_throttled)"
	limit=$(( wall_usec * 3 / 2 + 100000 ))
	echo "# charged ${used} us in ${wall_usec} us of wall time (quota allows $limit)" >&3
	[ "$used" -le "$limit" ] || fail "usage_usec: expected <= $limit (1.5 x wall + 100 ms), got $used"
}

@test "the helpers are threads of the caller's process, named ktask_helper" {
	local pid helper
	start_sleep_task
	pid=$!
	wait_for_helper_thread "$pid"
	helper=$(grep -lx ktask_helper /proc/"$pid"/task/*/comm | head -n 1)
	run cat "${helper%/comm}/status"
	kill_bounded "$pid"
	echo "# ${helper%/comm}" >&3
	# A thread of the caller's process, not a kernel thread of its own.
	assert_line --regexp "^Tgid:[[:space:]]+$pid\$"
}

@test "kernel callers (boot, KUnit) keep workqueue helpers: fewer threads than helpers" {
	started=$(ktask_value stats helpers_started) threads=$(ktask_value stats helper_threads)
	[ "$started" -gt 0 ] || fail "helpers_started: expected > 0 after boot"
	[ "$threads" -lt "$started" ] ||
		fail "helper_threads: expected fewer than helpers_started ($started), got $threads"
}

@test "SIGKILL to the caller stops a one-chunk-per-thread task within 2 s" {
	echo Y > "$KTASK_DEBUGFS/one_chunk_per_thread"
	bash -c 'echo "kind=sleep size=100000 max_threads=2" > "$1"' _ "$KTASK_DEBUGFS/synthetic" &
	pid=$!
	# Kill once the task holds its helper (a work item charged in rlimits).
	for ((i = 0; i < 2000; i++)); do
		awk 'NR > 1 && $2 != 0 { busy = 1 } END { exit !busy }' "$KTASK_DEBUGFS/rlimits" && break
	done
	[ "$i" -lt 2000 ] || fail "the task never started its helper"
	assert_sigkill_within_2s "$pid"
	assert_rlimits_idle
}

@test "kernel log is clean after the containment tests" {
	assert_kernel_log_clean
}

#!/usr/bin/env bats
# Helpers stay within the caller's limits: its CPU affinity, its cpuset and
# its CPU bandwidth (cpu.max).  Needs 2 CPUs or more; make test also runs it
# in the 4-vCPU boot.

load helpers

CGROOT=/sys/fs/cgroup
CG=$CGROOT/ktask-test

setup_file() {
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
	echo "+cpu +cpuset" > "$CGROOT/cgroup.subtree_control"
}

setup() {
	save_settings
	[ "$(nproc)" -ge 2 ] || skip "one CPU: nothing to confine"
	echo "$(nproc)" > "$MAX_THREADS_PARAM"
	mkdir -p "$CG"
}

teardown() {
	kill_test_jobs
	[ ! -d "$CG" ] || rmdir "$CG"
	restore_settings
}

# confined_synthetic LINE CMD...: run a synthetic task from a shell started
# by CMD (taskset, a cgroup), reading its own result back.
confined_synthetic() {
	local line=$1
	shift
	run "$@" bash -c 'exec 3<> "$1" && echo "$2" >&3 && cat /proc/self/fd/3' _ \
		"$KTASK_DEBUGFS/synthetic" "$line"
	assert_success
}

# in_cgroup FILE VALUE: a command prefix running its command in $CG with
# FILE set to VALUE.
in_cgroup() {
	echo "$2" > "$CG/$1"
	echo "sh -c 'echo \$\$ > $CG/cgroup.procs && exec \"\$@\"' _"
}

TASK="kind=sleep size=200"

@test "unconfined, the same task uses every CPU it may" {
	confined_synthetic "$TASK" env
	assert_line "threads_used: $(nproc)"
}

@test "taskset -c 0: one thread, counted as confined" {
	before=$(ktask_value stats single_threaded_confined)
	confined_synthetic "$TASK" taskset -c 0
	assert_line "threads_used: 1"
	assert_line "cpus: 0"
	expect "$(ktask_value stats single_threaded_confined)" -eq $(( before + 1 )) "stats single_threaded_confined"
}

@test "taskset -c 0 ktaskctl run-synthetic --threads 2 uses one thread" {
	run taskset -c 0 "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" run-synthetic \
		--kind sleep --size 200 --threads 2 --json
	assert_success
	run json 'd["threads_used"]' <<< "$output"
	assert_output 1
}

@test "taskset of two CPUs: two threads, and chunks ran only there" {
	[ "$(nproc)" -ge 3 ] || skip "needs 3 CPUs to leave one out"
	last=$(( $(nproc) - 1 ))
	# busy units keep each thread on its CPU; the caller may still move
	# between its two, so any subset of them is right, and nothing else.
	# 200000 units: at 20000 the caller finished all 32 chunks in 71 ms on
	# a loaded debug guest before the helper's vCPU first ran.
	confined_synthetic "kind=cpu size=200000" taskset -c "1,$last"
	assert_line "threads_used: 2"
	assert_line --regexp "^cpus: (1|$last|1,$last)\$"
}

@test "a cgroup v2 cpuset of one CPU: one thread, on that CPU" {
	eval "prefix=($(in_cgroup cpuset.cpus 1))"
	confined_synthetic "$TASK" "${prefix[@]}"
	assert_line "threads_used: 1"
	assert_line "cpus: 1"
}

@test "cpu.max of half a CPU: one thread; of two CPUs: two" {
	eval "prefix=($(in_cgroup cpu.max '50000 100000'))"
	confined_synthetic "$TASK" "${prefix[@]}"
	assert_line "threads_used: 1"
	eval "prefix=($(in_cgroup cpu.max '200000 100000'))"
	confined_synthetic "$TASK" "${prefix[@]}"
	assert_line "threads_used: 2"
}

@test "the kernel log stays clean" {
	assert_kernel_log_clean
}

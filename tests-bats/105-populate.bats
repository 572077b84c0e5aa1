#!/usr/bin/env bats
# Prefault on ktask: madvise(MADV_POPULATE_READ/WRITE), mlock(2) and
# mmap(MAP_POPULATE) of a range of 256 MiB or more run in the caller and its
# helpers (threads of its process), with the single thread's results: the
# same errors, the pages below a failure populated, the content, the
# caller's memory cgroup and memory policy.  progs/populate does the calls.

load helpers

POPULATE=$KTASK_TOP/build/meson/tests-bats/progs/populate
TRACEFS=/sys/kernel/tracing
THP=/sys/kernel/mm/transparent_hugepage/enabled
CGROOT=/sys/fs/cgroup
CG=$CGROOT/ktask-populate

setup_file() {
	mountpoint -q "$TRACEFS" || mount -t tracefs none "$TRACEFS"
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
}

setup() {
	save_settings
	[ -x "$POPULATE" ] || fail "no $POPULATE: build it with meson (make tools)"
	saved_thp=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP")
	echo 2 > "$MAX_THREADS_PARAM"
}

teardown() {
	kill_test_jobs
	echo 0 > "$TRACEFS/events/ktask/ktask_task_end/enable" 2>/dev/null || true
	echo > "$TRACEFS/trace" 2>/dev/null || true
	echo "$saved_thp" > "$THP"
	[ ! -d "$CG" ] || rmdir "$CG"
	restore_settings
}

# traced_populate ARGS...: progs/populate ARGS with ktask_task_end traced;
# its line in $output, each key in POP_<key>, and the threads of its ktask
# task (none: 0) in $threads.
traced_populate() {
	traced_run POP_ populate_task_chunk "$POPULATE" "$@"
}

# expect_complete WHAT: the last traced_populate succeeded, every page of
# its range is resident and reads what it should, and no helper outlived
# the call: right after it, unshare(CLONE_THREAD), which a second thread
# fails with EINVAL, succeeded, and the process had one thread.
expect_complete() {
	expect "$POP_result" = ok "$1: result"
	expect "${POP_prefix%/*}" -eq "${POP_prefix#*/}" "$1: resident pages"
	expect "$POP_content" = ok "$1: content"
	expect "$POP_unshare" = ok "$1: unshare(CLONE_THREAD) right after the call"
	expect "$POP_threads" -eq 1 "$1: threads of the process right after the call"
}

@test "MADV_POPULATE_WRITE of 1 GiB runs on 2 threads, THP off and on: every page resident and zero" {
	local thp
	for thp in never always; do
		echo "$thp" > "$THP"
		traced_populate madv-write 1024 anon
		expect_complete "THP $thp"
		expect "$threads" -eq 2 "THP $thp: threads of the populate task"
		echo "# THP $thp: $(( POP_elapsed_ns / 1000000 )) ms" >&3
	done
}

@test "ktask_task_end's cpu_ns is the CPU time of every thread: a 1 GiB populate's, at 2 threads and at 1, is the process's" {
	local t lower
	echo never > "$THP"
	for t in 2 1; do
		echo "$t" > "$MAX_THREADS_PARAM"
		traced_populate madv-write 1024 anon
		expect_complete "$t thread(s)"
		expect "$threads" -eq "$t" "threads of the populate task"
		# The process's time over the call (getrusage, every thread, the
		# same scheduler clock) holds the task's and little else: the
		# syscall around it and the helpers' exit.  Counting the caller
		# alone would give half at 2 threads.
		lower=$(( POP_cpu_ns * 9 / 10 ))
		expect "$task_cpu_ns" -ge "$lower" "$t thread(s): the task's cpu_ns vs 90% of the process's CPU time over the call"
		expect "$task_cpu_ns" -le "$POP_cpu_ns" "$t thread(s): the task's cpu_ns vs the process's CPU time over the call"
		echo "# $t thread(s): task cpu_ns $(( task_cpu_ns / 1000000 )) ms, process $(( POP_cpu_ns / 1000000 )) ms, elapsed $(( POP_elapsed_ns / 1000000 )) ms" >&3
	done
}

@test "MADV_POPULATE_READ and _WRITE of a 512 MiB memfd, private and shared: the file's content" {
	local mode layout
	for mode in madv-read madv-write; do
		for layout in cow shared; do
			traced_populate "$mode" 512 "$layout"
			expect_complete "$mode $layout"
			expect "$threads" -eq 2 "$mode $layout: threads"
		done
	done
}

@test "mlock(2) and mmap(MAP_POPULATE) of 512 MiB run on 2 threads" {
	local mode
	for mode in mlock map-populate; do
		traced_populate "$mode" 512 anon
		expect_complete "$mode"
		expect "$threads" -eq 2 "$mode: threads"
	done
}

@test "no helper outlives its call: 100 quick populates of a populated 512 MiB, each probed at once" {
	echo always > "$THP"
	run env POPULATE_REPEAT=100 "$POPULATE" madv-write 512 anon
	assert_success
	echo "# $output" >&3
	assert_output --regexp '^result=ok .* repeats_outlived=0/100 unshare=ok threads=1 '
}

@test "a range below 256 MiB is populated by the caller alone" {
	traced_populate madv-write 254 anon
	expect_complete "254 MiB"
	expect "$threads" -eq 0 "ktask tasks traced for 254 MiB"
}

@test "errors are the single thread's: the same errno, the same pages populated below the failure" {
	local mode layout one two
	for mode in madv-write madv-read mlock; do
		for layout in hole-end protnone-mid; do
			echo 1 > "$MAX_THREADS_PARAM"
			traced_populate "$mode" 512 "$layout"
			one="$POP_result prefix=$POP_prefix"
			echo 2 > "$MAX_THREADS_PARAM"
			traced_populate "$mode" 512 "$layout"
			two="$POP_result prefix=$POP_prefix"
			expect "$POP_result" != ok "$mode $layout: result"
			expect "$two" = "$one" "$mode $layout, 2 threads against 1"
			echo "# $mode $layout: $two" >&3
		done
	done
}

@test "memory cgroup: the helpers' pages are charged to the caller's group, and its memory.max holds" {
	echo "+memory" > "$CGROOT/cgroup.subtree_control"
	mkdir -p "$CG"
	run bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" madv-write 512 anon' _ "$CG" "$POPULATE"
	assert_success
	assert_output --partial "result=ok"
	expect "$(cat "$CG/memory.peak")" -ge $(( 512 << 20 )) "memory.peak after 512 MiB (bytes)"
	rmdir "$CG"
	# A limit below the range: the populate fails or is killed by the
	# group's OOM killer; either way the group stays under its limit.
	mkdir "$CG"
	echo $(( 128 << 20 )) > "$CG/memory.max"
	echo 0 > "$CG/memory.swap.max" 2> /dev/null || true
	run timeout 120 bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" madv-write 512 anon' _ "$CG" "$POPULATE"
	echo "# under memory.max 128 MiB: status $status, $output" >&3
	refute_output --partial "result=ok"
	expect "$(cat "$CG/memory.peak")" -le $(( 128 << 20 )) "memory.peak under memory.max 128 MiB (bytes)"
}

@test "memory policy: a caller bound to node 1 gets every page on node 1" {
	[ -d /sys/devices/system/node/node1 ] || skip "one NUMA node"
	run env POPULATE_NODES=1 numactl --membind=1 "$POPULATE" madv-write 512 anon
	assert_success
	assert_output --partial "result=ok"
	assert_output --regexp " nodes=0,131072 "
}

@test "SIGKILL inside a 1 GiB MADV_POPULATE_WRITE returns within 2 s and leaks nothing" {
	local pid anon_before rss=0 tries=0
	anon_before=$(awk '/^AnonPages:/ { print $2 }' /proc/meminfo)
	"$POPULATE" madv-write 1024 anon > /dev/null 3>&- &
	pid=$!
	# Inside the populate once 32 MiB is resident (at most 60 s).
	while [ "$rss" -lt 32768 ]; do
		[ $(( ++tries )) -le 3000 ] || fail "populate's VmRSS stayed below 32 MiB for 60 s"
		thread_group_dead "$pid" && fail "populate ended before the kill (VmRSS ${rss} kB)"
		rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$pid"/status 2> /dev/null || echo 0)
		rss=${rss:-0}
		poll_pause
	done
	echo "# killed at VmRSS ${rss} kB" >&3
	assert_sigkill_within_2s "$pid"
	assert_rlimits_idle
	expect "$(awk '/^AnonPages:/ { print $2 }' /proc/meminfo)" -le $(( anon_before + 32768 )) \
		"AnonPages after the kill (kB; before: $anon_before)"
}

@test "kernel log is clean after the populate tests" {
	assert_kernel_log_clean
}

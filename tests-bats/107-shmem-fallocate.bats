#!/usr/bin/env bats
# tmpfs and memfd fallocate on ktask: a preallocation of more than 128 MiB
# (one chunk) runs in the caller and its helpers (threads of its process), with the
# single thread's results: every page allocated, the file's content zero,
# the same errno and nothing left allocated after a failure or a SIGKILL
# (the undo), the caller's memory cgroup and memory policy.
# progs/falloc does the calls.

load helpers

FALLOC=$KTASK_TOP/build/meson/tests-bats/progs/falloc
TRACEFS=/sys/kernel/tracing
CGROOT=/sys/fs/cgroup
CG=$CGROOT/ktask-falloc
MNT=/tmp/ktask-shmem
PAGES_PER_MIB=256

setup_file() {
	mountpoint -q "$TRACEFS" || mount -t tracefs none "$TRACEFS"
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
}

setup() {
	save_settings
	[ -x "$FALLOC" ] || fail "no $FALLOC: build it with meson (make tools)"
	echo 2 > "$MAX_THREADS_PARAM"
	mkdir -p "$MNT"
}

teardown() {
	kill_test_jobs
	echo 0 > "$TRACEFS/events/ktask/ktask_task_end/enable" 2>/dev/null || true
	echo > "$TRACEFS/trace" 2>/dev/null || true
	! mountpoint -q "$MNT" || umount "$MNT"
	[ ! -d "$CG" ] || rmdir "$CG"
	restore_settings
}

# mount_tmpfs OPTIONS: a fresh tmpfs on $MNT.
mount_tmpfs() {
	! mountpoint -q "$MNT" || umount "$MNT"
	mount -t tmpfs -o "$1" ktask-shmem "$MNT"
}

# traced_falloc ARGS...: progs/falloc ARGS with ktask_task_end traced; its
# line in $output, each key in FA_<key>, and the threads of its ktask task
# (none: 0) in $threads.
traced_falloc() {
	traced_run FA_ shmem_falloc_chunk "$FALLOC" "$@"
}

# expect_allocated WHAT MIB: the last traced_falloc succeeded, the file holds
# MIB MiB of pages, and no helper outlived the call (unshare(CLONE_THREAD)
# right after it succeeded, with one thread in the process).
expect_allocated() {
	expect "$FA_result" = ok "$1: result"
	expect "$FA_pages" -eq $(( $2 * PAGES_PER_MIB )) "$1: pages the file holds"
	expect "$FA_unshare" = ok "$1: unshare(CLONE_THREAD) right after the call"
	expect "$FA_threads" -eq 1 "$1: threads of the process right after the call"
}

# node_shmem_kb NODE: the node's Shmem, in kB.
node_shmem_kb() {
	awk '$3 == "Shmem:" { print $4 }' "/sys/devices/system/node/node$1/meminfo"
}

@test "fallocate of 1 GiB on tmpfs runs on 2 threads, huge=never and huge=always: every page allocated, zero" {
	local huge
	for huge in never always; do
		mount_tmpfs "size=2G,huge=$huge"
		FALLOC_CONTENT=1 traced_falloc "$MNT/file" 0 1024
		expect_allocated "huge=$huge" 1024
		expect "$FA_size" -eq $(( 1024 << 20 )) "huge=$huge: i_size"
		expect "$FA_content" = ok "huge=$huge: content"
		expect "$threads" -eq 2 "huge=$huge: threads of the fallocate task"
		echo "# huge=$huge: $(( FA_elapsed_ns / 1000000 )) ms" >&3
	done
}

@test "a memfd: 512 MiB at offset 2 MiB, with and without FALLOC_FL_KEEP_SIZE" {
	traced_falloc memfd 2 512
	expect_allocated "memfd" 512
	expect "$FA_size" -eq $(( 514 << 20 )) "memfd: i_size"
	expect "$threads" -eq 2 "memfd: threads"
	traced_falloc memfd 2 512 keep-size
	expect_allocated "memfd, keep-size" 512
	expect "$FA_size" -eq 0 "memfd, keep-size: i_size"
	expect "$threads" -eq 2 "memfd, keep-size: threads"
}

@test "no helper outlives its call: 100 more fallocates of an allocated 512 MiB, each probed at once" {
	mount_tmpfs "size=1G"
	run env FALLOC_REPEAT=100 "$FALLOC" "$MNT/file" 0 512
	assert_success
	echo "# $output" >&3
	assert_output --regexp '^result=ok .* repeats_outlived=0/100 unshare=ok threads=1$'
}

@test "a range of one chunk (128 MiB) is preallocated by the caller alone, one PMD more by 2 threads" {
	mount_tmpfs "size=1G"
	traced_falloc "$MNT/file" 0 128
	expect_allocated "128 MiB" 128
	expect "$threads" -eq 1 "threads of the 128 MiB task"
	traced_falloc "$MNT/file2" 0 130
	expect_allocated "130 MiB" 130
	expect "$threads" -eq 2 "threads of the 130 MiB task"
}

@test "ENOSPC midway: the single thread's errno, and nothing of the call left allocated" {
	local n result
	mount_tmpfs "size=768M"
	# 256 MiB of another file, so that a 640 MiB call passes the up-front
	# size check and fails when the filesystem fills, past 512 MiB.
	run "$FALLOC" "$MNT/filler" 0 256
	assert_output --partial "result=ok"
	for n in 1 2; do
		echo "$n" > "$MAX_THREADS_PARAM"
		rm -f "$MNT/file"
		traced_falloc "$MNT/file" 0 640
		result[n]="result=$FA_result pages=$FA_pages size=$FA_size"
		expect "$threads" -eq "$n" "$n thread(s): threads of the task"
		expect "$(( $(stat -f -c '%b - %f' "$MNT") ))" -eq $(( 256 * PAGES_PER_MIB )) \
			"$n thread(s): blocks in use on the tmpfs after the failure (the filler's)"
	done
	expect "${result[1]}" = "result=ENOSPC pages=0 size=0" "1 thread"
	expect "${result[2]}" = "${result[1]}" "2 threads against 1"
}

@test "punching a hole still frees the pages" {
	mount_tmpfs "size=1G"
	traced_falloc "$MNT/file" 0 512
	expect_allocated "before the hole" 512
	fallocate -p -o $(( 128 << 20 )) -l $(( 256 << 20 )) "$MNT/file"
	expect "$(stat -c %b "$MNT/file")" -eq $(( 256 * 2048 )) "512-byte blocks after punching 256 MiB"
}

@test "memory cgroup: the helpers' pages are charged to the caller's group, and its memory.max holds" {
	mount_tmpfs "size=1G"
	echo "+memory" > "$CGROOT/cgroup.subtree_control"
	mkdir -p "$CG"
	run bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3" 0 512' _ "$CG" "$FALLOC" "$MNT/file"
	assert_output --partial "result=ok"
	# The file's pages stay charged to the group after the process exits.
	expect "$(cat "$CG/memory.current")" -ge $(( 512 << 20 )) "memory.current after 512 MiB (bytes)"
	rm "$MNT/file"
	rmdir "$CG"
	# A limit below the range: the group's OOM killer ends the call,
	# whose undo leaves nothing allocated; the group stays under its limit.
	mkdir "$CG"
	echo $(( 128 << 20 )) > "$CG/memory.max"
	echo 0 > "$CG/memory.swap.max" 2> /dev/null || true
	run timeout 120 bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3" 0 512' _ "$CG" "$FALLOC" "$MNT/file"
	echo "# under memory.max 128 MiB: status $status, $output" >&3
	refute_output --partial "result=ok"
	expect "$(cat "$CG/memory.peak")" -le $(( 128 << 20 )) "memory.peak under memory.max 128 MiB (bytes)"
	expect "$(stat -c %b "$MNT/file")" -eq 0 "512-byte blocks of the file after the failed call"
	rm "$MNT/file"
}

@test "memory policy: a caller bound to node 1 gets every page on node 1" {
	local node0 node1
	[ -d /sys/devices/system/node/node1 ] || skip "one NUMA node"
	mount_tmpfs "size=1G"
	node0=$(node_shmem_kb 0) node1=$(node_shmem_kb 1)
	run numactl --membind=1 "$FALLOC" "$MNT/file" 0 512
	assert_output --partial "result=ok"
	expect "$(( $(node_shmem_kb 1) - node1 ))" -ge $(( 512 << 10 )) "node 1 Shmem growth (kB)"
	expect "$(( $(node_shmem_kb 0) - node0 ))" -le 1024 "node 0 Shmem growth (kB)"
}

@test "SIGKILL inside a 2 GiB fallocate returns within 2 s and leaves nothing allocated" {
	local pid blocks=0 tries=0 shmem_before
	mount_tmpfs "size=3G"
	shmem_before=$(awk '/^Shmem:/ { print $2 }' /proc/meminfo)
	"$FALLOC" "$MNT/file" 0 2048 > /dev/null 3>&- &
	pid=$!
	# Inside the call once 32 MiB is allocated (at most 60 s).
	while [ "$blocks" -lt 65536 ]; do
		[ $(( ++tries )) -le 3000 ] || fail "the file stayed below 32 MiB for 60 s"
		thread_group_dead "$pid" && fail "falloc ended before the kill (${blocks} blocks)"
		blocks=$(stat -c %b "$MNT/file" 2> /dev/null || echo 0)
		poll_pause
	done
	echo "# killed at $(( blocks / 2048 )) MiB" >&3
	assert_sigkill_within_2s "$pid"
	expect "$(stat -c %b "$MNT/file")" -eq 0 "512-byte blocks of the file after the kill"
	expect "$(awk '/^Shmem:/ { print $2 }' /proc/meminfo)" -le $(( shmem_before + 1024 )) \
		"Shmem after the kill (kB; before: $shmem_before)"
}

@test "kernel log is clean after the shmem fallocate tests" {
	assert_kernel_log_clean
}

#!/usr/bin/env bats
# NUMA migration on ktask: move_pages(2), migrate_pages(2) and mbind(2)
# with MPOL_MF_MOVE of a list of 256 MiB or more migrate it in slices, in
# the caller and its helpers (threads of its process), with the single
# thread's results: every page on the target node with its content, the
# same statuses and errno on a hole or a full node, nothing left isolated
# after a failure or a SIGKILL.  progs/migrate does the calls.

load helpers

MIGRATE=$KTASK_TOP/build/meson/tests-bats/progs/migrate
TRACEFS=/sys/kernel/tracing
MNT=/tmp/ktask-migrate
PAGES_PER_MIB=256

setup_file() {
	mountpoint -q "$TRACEFS" || mount -t tracefs none "$TRACEFS"
}

setup() {
	[ -d /sys/devices/system/node/node1 ] || skip "one NUMA node"
	save_settings
	[ -x "$MIGRATE" ] || fail "no $MIGRATE: build it with meson (make tools)"
	echo 2 > "$MAX_THREADS_PARAM"
	THP_ENABLED=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
	echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
}

teardown() {
	kill_test_jobs
	echo 0 > "$TRACEFS/events/ktask/ktask_task_start/enable" 2>/dev/null || true
	echo > "$TRACEFS/trace" 2>/dev/null || true
	! mountpoint -q "$MNT" || umount "$MNT"
	[ -z "${THP_ENABLED:-}" ] || echo "$THP_ENABLED" > /sys/kernel/mm/transparent_hugepage/enabled
	restore_settings
}

# traced_migrate ARGS...: progs/migrate ARGS with ktask_task_end traced; its
# line in $output, each key in MG_<key>, and the threads of its ktask task
# (none: 0) in $threads.
traced_migrate() {
	traced_run MG_ migrate_slices "$MIGRATE" "$@"
}

# expect_moved WHAT MIB: the last traced_migrate succeeded, all MIB MiB are
# on node 1 with their content, and no helper outlived the call.
expect_moved() {
	expect "$MG_result" = ok "$1: result"
	expect "$MG_ret" -eq 0 "$1: return value (folios not migrated)"
	expect "$MG_on_to" -eq $(( $2 * PAGES_PER_MIB )) "$1: 4 KiB pages on node 1"
	expect "$MG_on_from" -eq 0 "$1: 4 KiB pages left on node 0"
	expect "$MG_content" = ok "$1: content"
	expect "$MG_unshare" = ok "$1: unshare(CLONE_THREAD) right after the call"
	expect "$MG_threads" -eq 1 "$1: threads of the process right after the call"
}

# isolated_pages: pages isolated from the LRU for migration, system-wide.
isolated_pages() {
	awk '$1 == "nr_isolated_anon" || $1 == "nr_isolated_file" { n += $2 } END { print n }' /proc/vmstat
}

@test "move_pages of 1 GiB to node 1 runs on 2 threads, THP and 4 KiB pages: every page moved, content intact" {
	traced_migrate move_pages 1024 thp
	expect_moved "THP" 1024
	expect "$MG_statuses" = "1:512" "THP: statuses (value:count)"
	expect "$MG_thp_to_kb" -ge $(( 1000 << 10 )) "THP: node 1 AnonHugePages growth (kB): moved as THPs"
	expect "$threads" -eq 2 "THP: threads of the migration task"
	echo "# THP: $(( MG_elapsed_ns / 1000000 )) ms" >&3
	traced_migrate move_pages 1024 nothp
	expect_moved "4 KiB pages" 1024
	expect "$MG_statuses" = "1:262144" "4 KiB pages: statuses (value:count)"
	expect "$threads" -eq 2 "4 KiB pages: threads of the migration task"
	echo "# 4 KiB pages: $(( MG_elapsed_ns / 1000000 )) ms" >&3
}

@test "migrate_pages(2) and mbind(MPOL_MF_MOVE) of 1 GiB of THP run on 2 threads: every page moved, content intact" {
	local call
	for call in migrate_pages mbind; do
		traced_migrate "$call" 1024 thp
		expect_moved "$call" 1024
		expect "$MG_thp_to_kb" -ge $(( 1000 << 10 )) "$call: node 1 AnonHugePages growth (kB)"
		expect "$threads" -eq 2 "$call: threads of the migration task"
		echo "# $call: $(( MG_elapsed_ns / 1000000 )) ms" >&3
	done
}

@test "a list under 256 MiB is migrated by the caller alone, 256 MiB by 2 threads" {
	traced_migrate move_pages 254 nothp
	expect_moved "254 MiB" 254
	expect "$threads" -eq 0 "254 MiB: threads of a ktask task (0: none ran)"
	traced_migrate move_pages 256 nothp
	expect_moved "256 MiB" 256
	expect "$threads" -eq 2 "256 MiB: threads of the migration task"
}

@test "a hole in the range: the single thread's statuses and return value" {
	local n result
	for n in 1 2; do
		echo "$n" > "$MAX_THREADS_PARAM"
		MIGRATE_HOLE=1 traced_migrate move_pages 1024 nothp
		result[n]="result=$MG_result ret=$MG_ret statuses=$MG_statuses on_to=$MG_on_to content=$MG_content"
		expect "$threads" -eq "$n" "$n thread(s): threads of the last migration task"
	done
	# The hole's 512 addresses report EFAULT and cut the list in two: 512
	# MiB before it, 510 MiB after it.
	expect "${result[1]}" = "result=ok ret=0 statuses=1:261632,-14:512 on_to=261632 content=ok" \
		"1 thread"
	expect "${result[2]}" = "${result[1]}" "2 threads against 1"
}

@test "node 1 fills midway: the single thread's ENOMEM, every page readable, none left isolated" {
	local n free_kb fill_mib result
	mkdir -p "$MNT"
	mount -t tmpfs -o size=4G ktask-migrate "$MNT"
	free_kb=$(awk '$3 == "MemFree:" { print $4 }' /sys/devices/system/node/node1/meminfo)
	# Node 1 left with about 256 MiB free: a move of 1 GiB fails past it.
	fill_mib=$(( free_kb / 1024 - 256 ))
	[ "$fill_mib" -gt 0 ] || skip "node 1 has only $free_kb kB free"
	run numactl --membind=1 fallocate -l "${fill_mib}M" "$MNT/filler"
	assert_success
	for n in 1 2; do
		echo "$n" > "$MAX_THREADS_PARAM"
		traced_migrate move_pages 1024 nothp
		result[n]="result=$MG_result content=$MG_content pages=$(( MG_on_to + MG_on_from ))"
		echo "# $n thread(s): $MG_on_to pages moved before ENOMEM, ${threads} threads" >&3
		expect "$(isolated_pages)" -eq 0 "$n thread(s): pages left isolated (nr_isolated_*)"
	done
	expect "${result[1]}" = "result=ENOMEM content=ok pages=$(( 1024 * PAGES_PER_MIB ))" "1 thread"
	expect "${result[2]}" = "${result[1]}" "2 threads against 1"
}

# 512 MiB of 4 KiB pages: a thread stops at its next 32 MiB slice, and the
# exit that follows frees the range (about 0.4 s per GiB under TCG).
@test "SIGKILL inside a 512 MiB move_pages returns within 2 s and leaves nothing isolated" {
	local pid tries=0
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/events/ktask/ktask_task_start/enable"
	"$MIGRATE" move_pages 512 nothp > /dev/null 3>&- &
	pid=$!
	# Inside the call once its ktask task started (at most 120 s: the fill
	# comes first).
	until grep -q "func=migrate_slices" "$TRACEFS/trace"; do
		[ $(( ++tries )) -le 6000 ] || fail "no migration task started within 120 s"
		thread_group_dead "$pid" && fail "migrate ended before its task started"
		poll_pause
	done
	assert_sigkill_within_2s "$pid"
	expect "$(isolated_pages)" -eq 0 "pages left isolated (nr_isolated_*) after the kill"
}

@test "kernel log is clean after the migration tests" {
	assert_kernel_log_clean
}

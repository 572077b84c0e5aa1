#!/usr/bin/env bats
# hugetlbfs fallocate and gigantic page clearing on ktask, and the hugetlb
# cgroup, memory policy and cpuset limits of the caller.  make test boots an
# 8 GiB guest with 1 GiB and 2 MiB pages reserved to run this file (4 GiB a
# node: the node 1 tests need normal memory beside node 1's huge pages);
# other boots skip it.

load helpers

HUGETLB=$BATS_TEST_DIRNAME/progs/hugetlb.py
POPULATE=$KTASK_TOP/build/meson/tests-bats/progs/populate
CGROOT=/sys/fs/cgroup
# A cgroup for the containment tests: hugetlb limits, cpuset.mems.
HCG=$CGROOT/ktask-hugetlb

pool() { cat "/sys/kernel/mm/hugepages/hugepages-$1kB/$2"; }

setup_file() {
	# bats 1.8 cannot skip from setup_file: leave the reason to setup().
	export HUGETLB_MISSING=
	if [ "$(pool 1048576 nr_hugepages 2>/dev/null || echo 0)" -lt 2 ] ||
	   [ "$(pool 2048 nr_hugepages)" -lt 1024 ]; then
		HUGETLB_MISSING="booted without hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=1024 or more"
		return 0
	fi
	mkdir -p /tmp/huge1g /tmp/huge2m
	mountpoint -q /tmp/huge1g || mount -t hugetlbfs -o pagesize=1G none /tmp/huge1g
	mountpoint -q /tmp/huge2m || mount -t hugetlbfs -o pagesize=2M none /tmp/huge2m
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
	echo "+hugetlb +cpuset" > "$CGROOT/cgroup.subtree_control"
}

setup() {
	save_settings
	[ -z "$HUGETLB_MISSING" ] || skip "$HUGETLB_MISSING"
	free1g=$(pool 1048576 free_hugepages) rsvd1g=$(pool 1048576 resv_hugepages)
	free2m=$(pool 2048 free_hugepages) rsvd2m=$(pool 2048 resv_hugepages)
}

teardown() {
	kill_test_jobs
	rm -f /tmp/huge1g/* /tmp/huge2m/*
	[ ! -d "$HCG" ] || rmdir "$HCG"
	restore_settings
}

# The pools are back where the test found them.
expect_pools_restored() {
	expect "$(pool 1048576 free_hugepages)" -eq "$free1g" "1G free_hugepages"
	expect "$(pool 1048576 resv_hugepages)" -eq "$rsvd1g" "1G resv_hugepages"
	expect "$(pool 2048 free_hugepages)" -eq "$free2m" "2M free_hugepages"
	expect "$(pool 2048 resv_hugepages)" -eq "$rsvd2m" "2M resv_hugepages"
}

@test "1 GiB pages: fallocate 2 GiB, dirty them, refallocate: every byte reads zero" {
	fallocate -l 2G /tmp/huge1g/f
	expect "$(pool 1048576 free_hugepages)" -eq $(( free1g - 2 )) "1G free_hugepages"
	"$HUGETLB" fill /tmp/huge1g/f 0xa5
	run "$HUGETLB" zero /tmp/huge1g/f
	assert_failure
	assert_output --partial "byte 0 is 0xa5"
	rm /tmp/huge1g/f
	fallocate -l 2G /tmp/huge1g/f
	run "$HUGETLB" zero /tmp/huge1g/f
	assert_success
	assert_output $(( 2 << 30 ))
	rm /tmp/huge1g/f
	expect_pools_restored
}

@test "2 MiB pages: fallocate 2 GiB, dirty them, refallocate: every byte reads zero" {
	fallocate -l 2G /tmp/huge2m/f
	expect "$(pool 2048 free_hugepages)" -eq $(( free2m - 1024 )) "2M free_hugepages"
	"$HUGETLB" fill /tmp/huge2m/f 0x5a
	rm /tmp/huge2m/f
	fallocate -l 2G /tmp/huge2m/f
	run "$HUGETLB" zero /tmp/huge2m/f
	assert_success
	assert_output $(( 2 << 30 ))
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "fallocate went multithreaded: both page sizes, each 1 GiB page cleared by its thread" {
	ktaskctl monitor --verbose --count 4 > "$BATS_TEST_TMPDIR/events" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	fallocate -l 512M /tmp/huge2m/f
	fallocate -l 2G /tmp/huge1g/f
	wait_bounded $pid 60
	run cat "$BATS_TEST_TMPDIR/events"
	assert_line --regexp '^func=hugetlbfs_falloc_chunk size=256 threads=2 '
	# The helpers, threads of fallocate's process, were started before the
	# inode lock; each clears its gigantic page alone, under the fault mutex.
	assert_line --regexp '^func=hugetlbfs_falloc_chunk size=2 threads=2 .* error=0 '
	assert_line --regexp '^func=clear_gigantic_page_chunk size=262144 threads=1 .* error=0 '
}

# in_hcg CMD...: run CMD in $HCG, status and output in $status and $output.
in_hcg() {
	run sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$HCG" "$@"
}

node_free2m() {
	cat "/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/free_hugepages"
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$3" = "$2" ] || fail "$1: expected $2, got $3"
}

@test "hugetlb cgroup, 2 MiB: fallocate 1 GiB past 128 pages fails with ENOSPC, takes at most 128, all charged" {
	mkdir "$HCG"
	echo $(( 128 << 21 )) > "$HCG/hugetlb.2MB.max"
	echo $(( 128 << 21 )) > "$HCG/hugetlb.2MB.rsvd.max"
	in_hcg fallocate -l 1G /tmp/huge2m/f
	assert_failure
	assert_output --partial "No space left on device"
	taken=$(( free2m - $(pool 2048 free_hugepages) ))
	[ "$taken" -le 128 ] || fail "pages taken: expected at most 128, got $taken"
	# Every page the file holds, the helpers' too, is charged to the group.
	expect_eq "hugetlb.2MB.current" $(( taken << 21 )) "$(cat "$HCG/hugetlb.2MB.current")"
	expect_eq "hugetlb.2MB.rsvd.current" $(( taken << 21 )) "$(cat "$HCG/hugetlb.2MB.rsvd.current")"
	rm /tmp/huge2m/f
	expect_eq "hugetlb.2MB.current after rm" 0 "$(cat "$HCG/hugetlb.2MB.current")"
	expect_eq "hugetlb.2MB.rsvd.current after rm" 0 "$(cat "$HCG/hugetlb.2MB.rsvd.current")"
	expect_pools_restored
}

@test "hugetlb cgroup, 2 MiB: a 256 MiB fallocate within the limit is charged in full to the group" {
	mkdir "$HCG"
	echo $(( 256 << 21 )) > "$HCG/hugetlb.2MB.max"
	threads=$(ktask_value stats helper_threads)
	in_hcg fallocate -l 256M /tmp/huge2m/f
	assert_success
	[ "$(ktask_value stats helper_threads)" -gt "$threads" ] || fail "no helper thread started"
	expect_eq "hugetlb.2MB.current" $(( 256 << 20 )) "$(cat "$HCG/hugetlb.2MB.current")"
	rm /tmp/huge2m/f
	expect_eq "hugetlb.2MB.current after rm" 0 "$(cat "$HCG/hugetlb.2MB.current")"
	expect_pools_restored
}

@test "hugetlb cgroup, 1 GiB: fallocate 2 GiB past one page fails with ENOSPC and takes one page" {
	mkdir "$HCG"
	echo $(( 1 << 30 )) > "$HCG/hugetlb.1GB.max"
	in_hcg fallocate -l 2G /tmp/huge1g/f
	assert_failure
	assert_output --partial "No space left on device"
	taken=$(( free1g - $(pool 1048576 free_hugepages) ))
	[ "$taken" -le 1 ] || fail "1 GiB pages taken: expected at most 1, got $taken"
	expect_eq "hugetlb.1GB.current" $(( taken << 30 )) "$(cat "$HCG/hugetlb.1GB.current")"
	rm /tmp/huge1g/f
	expect_pools_restored
}

# expect_node1_only CMD...: CMD fallocates 512 MiB of 2 MiB pages with two
# threads, every page from node 1.
expect_node1_only() {
	[ -d /sys/devices/system/node/node1 ] || skip "one node"
	echo 2 > "$MAX_THREADS_PARAM"
	n0=$(node_free2m 0) n1=$(node_free2m 1) threads=$(ktask_value stats helper_threads)
	"$@"
	assert_success
	[ "$(ktask_value stats helper_threads)" -gt "$threads" ] || fail "no helper thread started"
	expect_eq "pages taken from node 0" 0 $(( n0 - $(node_free2m 0) ))
	expect_eq "pages taken from node 1" 256 $(( n1 - $(node_free2m 1) ))
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "memory policy: a caller bound to node 1 (MPOL_BIND) gets no page from node 0" {
	expect_node1_only run numactl --membind=1 fallocate -l 512M /tmp/huge2m/f
}

@test "cpuset: a caller whose cpuset.mems is node 1 gets no page from node 0" {
	[ -d /sys/devices/system/node/node1 ] || skip "one node"
	mkdir "$HCG"
	echo 1 > "$HCG/cpuset.mems"
	expect_node1_only in_hcg fallocate -l 512M /tmp/huge2m/f
}

# wait_for_page_taken SIZE_KB FREE [PID]: a background job has taken a page
# of SIZE_KB from a pool that had FREE free pages; prints the free count then.
# With PID, returns as soon as PID has died too: its caller says why.
# Builtins only (a fork per poll is slower than a 1 GiB clear on the debug
# kernel), bounded by bash's clock at 60 s (180 on the debug kernel), not
# by a count of polls; poll_pause leaves the vCPU to the job between polls.
wait_for_page_taken() {
	local file=/sys/kernel/mm/hugepages/hugepages-${1}kB/free_hugepages free start=${EPOCHREALTIME/./}
	local limit_s=60
	# Python starts in seconds on the debug kernel, more on a loaded host.
	[ "${KERNEL:-}" != debug ] || limit_s=180
	while (( ${EPOCHREALTIME/./} - start < limit_s * 1000000 )); do
		read -r free < "$file"
		if [ "$free" -lt "$2" ] || { [ -n "${3:-}" ] && thread_group_dead "$3"; }; then
			echo "$free"
			return 0
		fi
		poll_pause
	done
	fail "no ${1} kB page taken within $limit_s s: free_hugepages $free, was $2${3:+; $(task_whereabouts "$3")}"
}

wait_for_1g_page_taken() {
	wait_for_page_taken 1048576 "$free1g" "$@" > /dev/null
}

# interrupted_clears_since MARK: the clears of gigantic pages that ended in
# -EINTR, as tp_printk logs them, after MARK was written to the kernel log.
# Counting after a mark, not the whole log: the ring buffer drops old lines.
interrupted_clears_since() {
	dmesg | sed -n "/ktask-test: $1\$/,\$p" |
		grep -c 'ktask_task_end: func=clear_gigantic_page_chunk .* error=-4 ' || true
}

# kill_inside_1g_fault CMD [ARG]: run "hugetlb.py CMD /tmp/huge1g/f ARG",
# SIGKILL it once its fault has taken a 1 GiB page, assert it dies within
# 30 s, and leave in $interrupted the clears that SIGKILL ended.  The trace
# decides whether the kill landed inside the ~1.6 s clear: a guest starved
# by the host polls late, and its kill can land after the clear, between
# the fault and CMD's "faulted".  Such a try proves nothing: the next one
# starts afresh.  A kernel whose clear ignores SIGKILL logs no
# interrupted clear in any of the three tries, and fails.  CMD ending
# before the kill without success (CI saw it once, 2026-12-05, cause
# unknown) fails with CMD's status, stderr and the kernel log.  CMD that
# takes no page at all in the poll's bound (CI saw it once, 2026-12-06: 60
# s on the ktask kernel, cause unknown) is killed and tried again, its
# whereabouts kept: three such tries fail with all three, so a fault that
# never takes its page still fails, and says where it sleeps.
kill_inside_1g_fault() {
	local try pid mark status stalls='' out=$BATS_TEST_TMPDIR/fault.out err=$BATS_TEST_TMPDIR/fault.err
	for try in 1 2 3; do
		mark="kill-inside-1g-fault $BATS_TEST_NUMBER.$try"
		echo "ktask-test: $mark" > /dev/kmsg
		truncate -s 1G /tmp/huge1g/f
		HUGETLB_ALARM_S=300 "$HUGETLB" "$1" /tmp/huge1g/f "${@:2}" > "$out" 2> "$err" 3>&- &
		pid=$!
		if ! (wait_for_1g_page_taken "$pid") 2> "$BATS_TEST_TMPDIR/stall"; then
			stalls+="try $try: $(< "$BATS_TEST_TMPDIR/stall"); "
			echo "# try $try: $(< "$BATS_TEST_TMPDIR/stall"): again" >&3
			kill_bounded "$pid"
			rm -f /tmp/huge1g/f
			continue
		fi
		if thread_group_dead "$pid"; then
			status=0
			wait "$pid" || status=$?
			# Done before the poll saw its page (a starved guest): again.
			if [ "$status" = 0 ] && [ -s "$out" ]; then
				echo "# try $try: $1 ended before the kill: again" >&3
				rm -f /tmp/huge1g/f
				continue
			fi
			# Nothing killed it yet: whatever ended it is the bug.
			fail "$(printf '%s\n' "try $try: $HUGETLB $* exited with status $status before the kill" \
				"stdout: $(< "$out")" "stderr: $(< "$err")" \
				"kernel log since the mark:" "$(dmesg | sed -n "/ktask-test: $mark\$/,\$p" | tail -n 20)")"
		fi
		if [ -s "$out" ]; then
			kill -KILL "$pid" 2> /dev/null || true
			wait "$pid" || true
			echo "# try $try: the fault had returned before the kill ($(< "$out")): again" >&3
		else
			# 30 s (60 on the debug kernel): the trace shows when
			# the clear stopped, and the clock only catches a task
			# that dies late or never (the unfixed kernel looped 60
			# s after the kill; the helper gives up at the bound
			# plus 60 s).  A TCG stall once took 12.7 s here with
			# the fault given up 0.4 ms after the kill.
			assert_sigkill_within_2s "$pid" 30000
			interrupted=$(interrupted_clears_since "$mark")
			[ "$interrupted" -eq 0 ] || return 0
			echo "# try $try: no clear ended by -EINTR (output: '$(< "$out")'): again" >&3
		fi
		rm -f /tmp/huge1g/f
	done
	fail "3 tries: no SIGKILL landed inside a 1 GiB clear (none ended by -EINTR): ${stalls}$(dmesg | grep 'func=clear_gigantic_page_chunk' | tail -n 3)"
}

@test "SIGKILL inside a 1 GiB page fault stops the clearing at its next page and leaks nothing" {
	# make test boots this file with ktask trace events and tp_printk.
	grep -q 'tp_printk' /proc/cmdline || skip "booted without trace_event=ktask:... tp_printk"
	# The clear alone takes about 1.6 s here: the trace, not the clock,
	# shows it stopped; the bound only catches a fault that never returns.
	kill_inside_1g_fault fill 0x5a
	expect "$interrupted" -eq 1 "clears ended by -EINTR"
	assert_rlimits_idle
	rm -f /tmp/huge1g/f
	expect_pools_restored
}

@test "SIGKILL inside a 1 GiB page fault taken by the kernel (read(2) into the mapping) ends the task" {
	grep -q 'tp_printk' /proc/cmdline || skip "booted without trace_event=ktask:... tp_printk"
	kill_inside_1g_fault read-into
	# A fault in copy_to_user() that returned without mapping the page
	# would be taken again and again (the unfixed kernel: still alive 60 s
	# after SIGKILL).  x86's clear_user() retries the rest byte by byte
	# after a fault: at most two interrupted clears, then the end.
	expect "$interrupted" -le 2 "clears ended by -EINTR"
	assert_rlimits_idle
	rm -f /tmp/huge1g/f
	expect_pools_restored
}

@test "FALLOC_FL_KEEP_SIZE preallocates without changing i_size" {
	touch /tmp/huge2m/f
	fallocate -n -l 64M /tmp/huge2m/f
	expect "$(stat -c %s /tmp/huge2m/f)" -eq 0 "i_size of /tmp/huge2m/f"
	expect "$(pool 2048 free_hugepages)" -eq $(( free2m - 32 )) "2M free_hugepages"
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "punching a hole still frees the pages" {
	fallocate -l 64M /tmp/huge2m/f
	fallocate -p -o 0 -l 16M /tmp/huge2m/f
	expect "$(pool 2048 free_hugepages)" -eq $(( free2m - 24 )) "2M free_hugepages"
	expect "$(stat -c %s /tmp/huge2m/f)" -eq $(( 64 << 20 )) "i_size of /tmp/huge2m/f"
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "F_SEAL_GROW still gives EPERM" {
	run "$HUGETLB" sealed-grow $(( 2 << 20 ))
	assert_output EPERM
	expect_pools_restored
}

@test "fallocate beyond the pool fails with ENOSPC and leaks nothing" {
	run fallocate -l $(( free2m * 2 + 64 ))M /tmp/huge2m/f
	assert_failure
	assert_output --partial "No space left on device"
	rm -f /tmp/huge2m/f
	expect_pools_restored
	run fallocate -l 3G /tmp/huge1g/f
	assert_failure
	assert_output --partial "No space left on device"
	rm -f /tmp/huge1g/f
	expect_pools_restored
}

@test "a fallocate interrupted by a signal returns EINTR and leaks nothing" {
	run "$HUGETLB" interrupt /tmp/huge2m/f $(( 2 << 30 )) 0.3
	assert_output EINTR
	# Pages preallocated before the signal stay in the file, as before ktask.
	expect "$(pool 2048 free_hugepages)" -gt $(( free2m - 1024 )) "2M free_hugepages"
	rm -f /tmp/huge2m/f
	expect_pools_restored
}

@test "SIGKILL inside a 2 GiB fallocate returns within 2 s and leaks nothing" {
	local pid free
	fallocate -l 2G /tmp/huge2m/f 3>&- &
	pid=$!
	# Kill as soon as the first pages are taken.
	free=$(wait_for_page_taken 2048 "$free2m")
	echo "# $(( free2m - free )) or more pages in" >&3
	assert_sigkill_within_2s "$pid"
	# The killed fallocate stopped short of the whole file.
	expect "$(pool 2048 free_hugepages)" -gt $(( free2m - 1024 )) "2M free_hugepages"
	assert_rlimits_idle
	rm -f /tmp/huge2m/f
	expect_pools_restored
}

@test "with ktask limited to one thread the same fallocate still works" {
	echo 1 > "$MAX_THREADS_PARAM"
	fallocate -l 256M /tmp/huge2m/f
	run "$HUGETLB" zero /tmp/huge2m/f
	assert_output $(( 256 << 20 ))
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "the boot-time pools were built on ktask: gigantic struct pages and the 2 MiB pool" {
	# make test boots this file with trace_event=ktask:ktask_task_start,
	# ktask:ktask_task_end tp_printk: the boot-time events land in the log
	grep -q 'tp_printk' /proc/cmdline || skip "booted without trace_event=ktask:... tp_printk"
	run bash -c "dmesg | grep -o 'ktask_task_[a-z]*: func=[a-z_]* .*'"
	# one part per node with memory, at most one thread per node
	assert_line --regexp "^ktask_task_end: func=gather_bootmem_prealloc_chunk size=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l) threads=[1-9][0-9]* chunks=[0-9]+ error=0 undone=0 elapsed_ns=[0-9]+ cpu_ns=[0-9]+\$"
	# 1100 pages in chunks of at least 275: the task asked for a helper.
	# Whether the helper ran a chunk is timing: the caller may finish all
	# four chunks before the helper is on a CPU, and then cancels it.
	assert_line --regexp '^ktask_task_start: func=hugetlb_pages_alloc_boot_chunk size=1100 nodes=[1-9][0-9]* threads=2 chunk_size=[0-9]+$'
	assert_line --regexp '^ktask_task_end: func=hugetlb_pages_alloc_boot_chunk size=1100 threads=[12] chunks=[0-9]+ error=0 undone=0 elapsed_ns=[0-9]+ cpu_ns=[0-9]+$'
	expect "$(pool 2048 nr_hugepages)" -ge 1024 "2M nr_hugepages"
	expect "$(pool 1048576 nr_hugepages)" -eq 2 "1G nr_hugepages"
}

@test "MADV_POPULATE_WRITE and MAP_POPULATE of hugetlbfs mappings run on ktask: every page zero" {
	local mark="populate-hugetlbfs $BATS_TEST_NUMBER" line
	grep -q 'tp_printk' /proc/cmdline || skip "booted without trace_event=ktask:... tp_printk"
	echo "ktask-test: $mark" > /dev/kmsg
	# 2 GiB of 1 GiB pages: a page spans several chunks, and the threads
	# that reach one page together take turns on its fault mutex.
	for line in "madv-write 2048 file=/tmp/huge1g/f" "map-populate 512 file=/tmp/huge2m/f"; do
		run "$POPULATE" $line
		assert_success
		assert_output --regexp '^result=ok prefix=([0-9]+)/\1 .* content=ok$'
		echo "# $line: ${output#*elapsed_ns=}" >&3
		rm -f "${line##*file=}"
	done
	run bash -c "dmesg | sed -n '/ktask-test: $mark\$/,\$p' | grep -o 'ktask_task_end: func=populate_task_chunk .*'"
	assert_line --index 0 --regexp '^ktask_task_end: func=populate_task_chunk size=1024 threads=2 chunks=[0-9]+ error=0 '
	assert_line --index 1 --regexp '^ktask_task_end: func=populate_task_chunk size=256 threads=2 chunks=[0-9]+ error=0 '
	expect_pools_restored
}

@test "kernel log is clean after the hugetlbfs tests" {
	assert_kernel_log_clean
}

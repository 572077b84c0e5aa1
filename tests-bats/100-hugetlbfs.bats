#!/usr/bin/env bats
# hugetlbfs fallocate and gigantic page clearing on ktask.  make test boots
# a 6 GiB guest with 1 GiB and 2 MiB pages reserved to run this file; other
# boots skip it.

load helpers

HUGETLB=$BATS_TEST_DIRNAME/progs/hugetlb.py

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
}

setup() {
	save_settings
	[ -z "$HUGETLB_MISSING" ] || skip "$HUGETLB_MISSING"
	free1g=$(pool 1048576 free_hugepages) rsvd1g=$(pool 1048576 resv_hugepages)
	free2m=$(pool 2048 free_hugepages) rsvd2m=$(pool 2048 resv_hugepages)
}

teardown() {
	rm -f /tmp/huge1g/* /tmp/huge2m/*
	restore_settings
}

# The pools are back where the test found them.
expect_pools_restored() {
	[ "$(pool 1048576 free_hugepages)" -eq "$free1g" ]
	[ "$(pool 1048576 resv_hugepages)" -eq "$rsvd1g" ]
	[ "$(pool 2048 free_hugepages)" -eq "$free2m" ]
	[ "$(pool 2048 resv_hugepages)" -eq "$rsvd2m" ]
}

@test "1 GiB pages: fallocate 2 GiB, dirty them, refallocate: every byte reads zero" {
	fallocate -l 2G /tmp/huge1g/f
	[ "$(pool 1048576 free_hugepages)" -eq $(( free1g - 2 )) ]
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
	[ "$(pool 2048 free_hugepages)" -eq $(( free2m - 1024 )) ]
	"$HUGETLB" fill /tmp/huge2m/f 0x5a
	rm /tmp/huge2m/f
	fallocate -l 2G /tmp/huge2m/f
	run "$HUGETLB" zero /tmp/huge2m/f
	assert_success
	assert_output $(( 2 << 30 ))
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "fallocate went multithreaded: helpers for 2 MiB, clear_gigantic_page for 1 GiB" {
	ktaskctl monitor --count 3 > "$BATS_TEST_TMPDIR/events" &
	pid=$!
	sleep 1
	fallocate -l 512M /tmp/huge2m/f
	fallocate -l 1G /tmp/huge1g/f
	wait $pid
	run cat "$BATS_TEST_TMPDIR/events"
	assert_line --regexp '^func=hugetlbfs_falloc_chunk size=256 threads=2 '
	# The gigantic page is preallocated in one thread, cleared in two.
	assert_line --regexp '^func=hugetlbfs_falloc_chunk size=1 threads=1 '
	assert_line --regexp '^func=clear_gigantic_page_chunk size=262144 threads=2 .* error=0 '
}

@test "FALLOC_FL_KEEP_SIZE preallocates without changing i_size" {
	touch /tmp/huge2m/f
	fallocate -n -l 64M /tmp/huge2m/f
	[ "$(stat -c %s /tmp/huge2m/f)" -eq 0 ]
	[ "$(pool 2048 free_hugepages)" -eq $(( free2m - 32 )) ]
	rm /tmp/huge2m/f
	expect_pools_restored
}

@test "punching a hole still frees the pages" {
	fallocate -l 64M /tmp/huge2m/f
	fallocate -p -o 0 -l 16M /tmp/huge2m/f
	[ "$(pool 2048 free_hugepages)" -eq $(( free2m - 24 )) ]
	[ "$(stat -c %s /tmp/huge2m/f)" -eq $(( 64 << 20 )) ]
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
	[ "$(pool 2048 free_hugepages)" -gt $(( free2m - 1024 )) ]
	rm -f /tmp/huge2m/f
	expect_pools_restored
}

@test "SIGKILL inside a 2 GiB fallocate returns within 2 s and leaks nothing" {
	local pid free i
	fallocate -l 2G /tmp/huge2m/f &
	pid=$!
	# Kill as soon as the first pages are taken (builtins only: a fork per
	# poll would let the 1024 pages finish first on the debug kernel).
	for ((i = 0; i < 200000; i++)); do
		read -r free < /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages
		[ "$free" -lt "$free2m" ] && break
	done
	[ "$free" -lt "$free2m" ]
	echo "# $(( free2m - free )) or more pages in" >&3
	assert_sigkill_within_2s "$pid"
	# The killed fallocate stopped short of the whole file.
	[ "$(pool 2048 free_hugepages)" -gt $(( free2m - 1024 )) ]
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
	# make test boots this file with trace_event=ktask:ktask_task_end
	# tp_printk: the boot-time events land in the kernel log
	grep -q 'tp_printk' /proc/cmdline || skip "booted without trace_event=ktask:ktask_task_end tp_printk"
	run bash -c "dmesg | grep -o 'ktask_task_end: func=[a-z_]* .*'"
	# one part per node with memory, at most one thread per node
	assert_line --regexp "^ktask_task_end: func=gather_bootmem_prealloc_chunk size=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l) threads=[1-9][0-9]* chunks=[0-9]+ error=0 undone=0 elapsed_ns=[0-9]+\$"
	# 1100 pages in chunks of at least 275: the helpers took part
	assert_line --regexp '^ktask_task_end: func=hugetlb_pages_alloc_boot_chunk size=1100 threads=2 chunks=[0-9]+ error=0 undone=0 elapsed_ns=[0-9]+$'
	[ "$(pool 2048 nr_hugepages)" -ge 1024 ]
	[ "$(pool 1048576 nr_hugepages)" -eq 2 ]
}

@test "kernel log is clean after the hugetlbfs tests" {
	assert_kernel_log_clean
}

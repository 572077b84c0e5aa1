#!/usr/bin/env bats
# The guest booted the kernel under test, with the topology the tests expect.

load helpers

@test "guest runs the ktask kernel with ktask built in" {
	run uname -r
	assert_success
	assert_output --partial -ktask
	[ -d "$DEBUGFS/kunit/ktask" ]
}

@test "guest has the NUMA nodes and CPUs it was booted with" {
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
	expect "$nodes" -eq "${VM_NODES:-2}" "NUMA nodes"
	expect "$(nproc)" -eq "${VM_SMP:-2}" nproc
}

@test "ktask initialised without disabling itself" {
	run dmesg
	refute_output --partial "ktask: disabled"
}

@test "kernel log is free of WARN, BUG and lockdep reports" {
	assert_kernel_log_clean
}

#!/usr/bin/env bats
# Every bad write fails with its errno and changes no counter or setting.

load helpers

# expect_rejected FILE LINE MESSAGE: the write fails with MESSAGE (the
# errno's text) and ktask's state is what it was before.
expect_rejected() {
	local before
	before=$(ktask_state)
	write_ktask "$1" "$2"
	assert_failure
	assert_output --partial "$3"
	expect "$(ktask_state)" = "$before" ktask_state
}

@test "synthetic: unknown key -> EINVAL" {
	expect_rejected synthetic "size=10 colour=blue" "Invalid argument"
}

@test "synthetic: unknown kind -> EINVAL" {
	expect_rejected synthetic "kind=gpu size=10" "Invalid argument"
}

@test "synthetic: missing value or '=' -> EINVAL" {
	expect_rejected synthetic "size=" "Invalid argument"
	expect_rejected synthetic "size" "Invalid argument"
	expect_rejected synthetic "=5" "Invalid argument"
}

@test "synthetic: non-numeric and negative values -> EINVAL" {
	expect_rejected synthetic "size=ten" "Invalid argument"
	expect_rejected synthetic "size=-5" "Invalid argument"
	expect_rejected synthetic "size=10 min_chunk=0x2" "Invalid argument"
}

@test "synthetic: a number over 64 bits -> ERANGE" {
	expect_rejected synthetic "size=184467440737095516160" "Numerical result out of range"
}

@test "synthetic: out-of-range values -> EINVAL" {
	expect_rejected synthetic "size=0" "Invalid argument"
	expect_rejected synthetic "size=4294967297" "Invalid argument"
	expect_rejected synthetic "size=10 min_chunk=11" "Invalid argument"
	expect_rejected synthetic "size=10 max_threads=1025" "Invalid argument"
	expect_rejected synthetic "size=10 fail_at=10" "Invalid argument"
	expect_rejected synthetic "size=10 fail_at=1 err=0" "Invalid argument"
	expect_rejected synthetic "size=10 fail_at=1 err=4096" "Invalid argument"
}

@test "synthetic: repeat=0, repeat over 1000000, direct with fail_at, direct=2 -> EINVAL" {
	expect_rejected synthetic "size=10 repeat=0" "Invalid argument"
	expect_rejected synthetic "size=10 repeat=1000001" "Invalid argument"
	expect_rejected synthetic "size=10 direct=1 fail_at=3" "Invalid argument"
	expect_rejected synthetic "size=10 direct=2" "Invalid argument"
}

@test "synthetic: repeated key -> EINVAL" {
	expect_rejected synthetic "size=10 size=20" "Invalid argument"
}

@test "synthetic: bad layouts -> EINVAL" {
	expect_rejected synthetic "nodes=0:10,7:10" "Invalid argument"
	expect_rejected synthetic "nodes=0:10," "Invalid argument"
	expect_rejected synthetic "nodes=0-10" "Invalid argument"
	expect_rejected synthetic "nodes=0:0,1:0" "Invalid argument"
	expect_rejected synthetic "nodes=0:10 size=11" "Invalid argument"
	expect_rejected synthetic "nodes=0:1,0:1,0:1,0:1,0:1,0:1,0:1,0:1,0:1" "Invalid argument"
}

@test "synthetic: memclear larger than the available memory -> ENOMEM" {
	avail=$(awk '/MemAvailable/ { print int($2 / 4) }' /proc/meminfo)
	expect_rejected synthetic "kind=memclear size=$(( avail * 2 ))" "Cannot allocate memory"
}

@test "synthetic: a line of 256 bytes or more -> E2BIG" {
	expect_rejected synthetic "size=1 $(printf 'x%.0s' {1..300})" "Argument list too long"
}

@test "synthetic: empty write and binary data -> EINVAL" {
	local before
	before=$(ktask_state)
	# A write(2) of zero bytes (printf "" > file makes none at all).
	run python3 -c 'import os, sys; os.write(os.open(sys.argv[1], os.O_WRONLY), b"")' "$KTASK_DEBUGFS/synthetic"
	assert_failure
	assert_output --partial "Invalid argument"
	expect "$(ktask_state)" = "$before" ktask_state
	run bash -c 'printf "size=5\0size=6" > "$1"' _ "$KTASK_DEBUGFS/synthetic"
	assert_failure
	assert_output --partial "Invalid argument"
	expect "$(ktask_state)" = "$before" ktask_state
}

@test "synthetic: a write at a non-zero offset -> EINVAL" {
	local before
	before=$(ktask_state)
	run python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY); os.lseek(fd, 3, 0); os.write(fd, b"size=5")' \
		"$KTASK_DEBUGFS/synthetic"
	assert_failure
	assert_output --partial "Invalid argument"
	expect "$(ktask_state)" = "$before" ktask_state
}

@test "workers: out-of-range nice, bad renice, unknown key -> EINVAL, nothing applied" {
	expect_rejected workers "helper_nice=20" "Invalid argument"
	expect_rejected workers "helper_nice=-21" "Invalid argument"
	expect_rejected workers "renice=2" "Invalid argument"
	expect_rejected workers "renice=on" "Invalid argument"
	expect_rejected workers "helper_nice=5 renice=7" "Invalid argument"
	expect_rejected workers "helper_nice=5 turbo=1" "Invalid argument"
	expect_rejected workers "helper_nice=99999999999" "Numerical result out of range"
}

@test "power: unknown mode, unknown key, repeated key, no pair -> EINVAL, nothing applied" {
	expect_rejected power "mode=turbo" "Invalid argument"
	expect_rejected power "level=powersave" "Invalid argument"
	expect_rejected power "mode=powersave mode=auto" "Invalid argument"
	expect_rejected power "powersave" "Invalid argument"
	expect_rejected power "mode=" "Invalid argument"
}

@test "max_threads: 0, nr_cpu_ids + 1 and garbage -> EINVAL, value unchanged" {
	before=$(cat "$MAX_THREADS_PARAM")
	for v in 0 $(( $(cat /sys/devices/system/cpu/possible | awk -F- '{ print $NF }') + 2 )) abc -1 ""; do
		run bash -c 'echo "$2" > "$1"' _ "$MAX_THREADS_PARAM" "$v"
		assert_failure
		assert_output --partial "Invalid argument"
		expect "$(cat "$MAX_THREADS_PARAM")" = "$before" max_threads
	done
}

@test "kernel log stays clean after the bad inputs" {
	assert_kernel_log_clean
}

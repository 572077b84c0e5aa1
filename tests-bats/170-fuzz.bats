#!/usr/bin/env bats
# bats file_tags=fuzz
# Fuzzing every interface: the debugfs files, the sysfs parameter and the
# generic netlink family get a few thousand invalid inputs each run
# (progs/fuzz-ktask.py; the seed is printed, FUZZ_SEED overrides it).
#
# The rule that makes "nothing changed" checkable: every input is invalid
# by construction (contract violations from a list, or random inputs that a
# permissive model of the parsers rejects; inputs the model could accept are
# not sent).  So no write and no message may succeed, and the settings
# (workers, power, max_threads) and every counter (stats, nodes, rlimits,
# the last synthetic result) must read exactly as before.

load helpers

FUZZ=$BATS_TEST_DIRNAME/progs/fuzz-ktask.py

setup_file() {
	export FUZZ_SEED=${FUZZ_SEED:-1}
	# Nothing should change; should something, later files still start
	# from the defaults.
	save_settings
	export saved_max
}

teardown_file() {
	restore_settings
}

# fuzz WHAT: run the fuzzer, its counts to the TAP stream, and check that
# ktask_state and the netlink view of the settings did not move.  The
# fuzzer's output stays in $output.
fuzz() {
	local before config
	before=$(ktask_state)
	config=$("$KTASK_TOP/build/meson/ktaskctl/ktaskctl" get)
	run python3 "$FUZZ" "$@"
	sed 's/^/# /' <<< "$output" >&3
	assert_success
	assert_line "failures: 0"
	[ "$(ktask_state)" = "$before" ]
	[ "$("$KTASK_TOP/build/meson/ktaskctl/ktaskctl" get)" = "$config" ]
}

@test "debugfs and sysfs: random and malformed writes are refused, nothing changes" {
	fuzz files
	assert_line --regexp '^synthetic: [0-9]{3,} inputs'
	assert_line --regexp '^workers: [0-9]{3,} inputs'
	assert_line --regexp '^max_threads: [0-9]{3,} inputs'
	[ ! -e "$KTASK_DEBUGFS/power" ] || assert_line --regexp '^power: [0-9]{3,} inputs'
	assert_line --regexp '^(rlimits|nodes|stats): [0-9]+ inputs'
}

@test "netlink: malformed and out-of-range messages get a negative errno, nothing changes" {
	fuzz netlink
	assert_line --regexp '^netlink: [0-9]{3,} inputs'
}

@test "netlink: GET_CONFIG with request attributes (the spec lists none) is refused" {
	fuzz netlink-get-attrs
}

@test "netlink: SET_CONFIG is gated by CAP_SYS_ADMIN as documented, not CAP_NET_ADMIN" {
	local before ktaskctl=$KTASK_TOP/build/meson/ktaskctl/ktaskctl
	before=$(ktask_state)
	# root without CAP_SYS_ADMIN (CAP_NET_ADMIN kept): refused, nothing changes
	run setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "$ktaskctl" set renice off
	echo "# without CAP_SYS_ADMIN: status $status: $output" >&3
	expect "$(ktask_state)" = "$before" ktask_state
	assert_failure 1
	assert_output --partial "Operation not permitted"
	# root with CAP_SYS_ADMIN but without CAP_NET_ADMIN: allowed (the
	# value it sets is the current one)
	run setpriv --bounding-set=-net_admin --inh-caps=-net_admin "$ktaskctl" set renice "$(ktask_value workers renice | sed 's/1/on/;s/0/off/')"
	echo "# without CAP_NET_ADMIN: status $status: $output" >&3
	assert_success
}

@test "kernel log is clean after the fuzzing" {
	assert_kernel_log_clean
}

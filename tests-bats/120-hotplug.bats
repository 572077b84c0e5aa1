#!/usr/bin/env bats
# CPU hotplug: ktask's limits follow the online CPUs and tasks in flight
# survive CPUs going away and coming back.  make test runs this file in a
# 4-vCPU boot; it needs at least 2 CPUs (cpu0 cannot go offline on x86).

load helpers

CPU_SYSFS=/sys/devices/system/cpu

# The CPUs that can go offline, highest first.
hotpluggable_cpus() {
	ls -d "$CPU_SYSFS"/cpu[0-9]*/online 2>/dev/null |
		sed 's|.*/cpu\([0-9]*\)/online|\1|' | sort -rn
}

set_online() { echo "$2" > "$CPU_SYSFS/cpu$1/online"; }

online_count() { grep -c . < <(tr ',' '\n' < "$CPU_SYSFS/online" | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done); }

# The CPUs of node N that are online.
node_online_count() {
	local n=0 c
	for c in /sys/devices/system/node/node$1/cpu[0-9]*; do
		[ -e "$c" ] || continue
		c=${c##*/cpu}
		[ "$c" = 0 ] || [ "$(cat "$CPU_SYSFS/cpu$c/online")" = 1 ] || continue
		n=$((n + 1))
	done
	echo "$n"
}

rlimit() { awk -v s="$1" '$1 == s { print $3 }' "$KTASK_DEBUGFS/rlimits"; }
in_use() { awk -v s="$1" '$1 == s { print $2 }' "$KTASK_DEBUGFS/rlimits"; }

# The limits match 80% of the online CPUs, system-wide and per node.
assert_limits_follow_online() {
	expect "$(rlimit system)" -eq $(( $(online_count) * 4 / 5 )) "system rlimit"
	for n in /sys/devices/system/node/node[0-9]*; do
		id=${n##*node}
		expect "$(rlimit "node$id")" -eq $(( $(node_online_count "$id") * 4 / 5 )) "node$id rlimit"
	done
}

setup() {
	save_settings
	[ "$(hotpluggable_cpus | wc -l)" -ge 1 ] || skip "no CPU can go offline"
	echo "$(nproc --all)" > "$MAX_THREADS_PARAM"
}

teardown() {
	kill_test_jobs
	for c in $(hotpluggable_cpus); do set_online "$c" 1; done
	restore_settings
}

@test "limits follow CPUs going offline and online; the pool stays sized for all" {
	pool_size=$(rlimit pool)
	expect "$pool_size" -eq $(( $(nproc --all) - 1 )) "pool rlimit (possible CPUs less the caller's)"
	assert_limits_follow_online
	for c in $(hotpluggable_cpus); do
		set_online "$c" 0
		assert_limits_follow_online
		expect "$(rlimit pool)" -eq "$pool_size" "pool rlimit"
	done
	for c in $(hotpluggable_cpus); do
		set_online "$c" 1
		assert_limits_follow_online
	done
	assert_kernel_log_clean
}

@test "ktaskctl stats shows the new limit" {
	c=$(hotpluggable_cpus | head -1)
	set_online "$c" 0
	run_ktaskctl stats --json
	assert_success
	run json '[r["limit"] for r in d["rlimits"] if r["scope"] == "system"][0]' <<< "$output"
	assert_output "$(( $(online_count) * 4 / 5 ))"
}

@test "tasks use the helpers the online CPUs allow" {
	for c in $(hotpluggable_cpus) ""; do
		online=$(online_count)
		limit=$(rlimit system)
		want=$(( limit + 1 < online ? limit + 1 : online ))
		# sleep units keep every thread busy long enough to start
		run_synthetic "kind=sleep size=200 max_threads=$(nproc --all)"
		[ "$SYN_threads_used" -eq "$want" ] || {
			echo "online $online limit $limit: $SYN_threads_used threads, want $want"
			return 1
		}
		[ -z "$c" ] || set_online "$c" 0
	done
}

@test "a task in flight survives CPUs going offline and online, and leaves nothing in use" {
	# 1 ms sleeps: 10 s at 4 threads, longer than a round of hotplug.
	size=40000
	# bats owns fd 3: the writer keeps its own descriptor to read back through
	bash -c 'exec 7<> "$1" && echo "$2" >&7 && cat /proc/self/fd/7' _ \
		"$KTASK_DEBUGFS/synthetic" "kind=sleep size=$size max_threads=$(nproc --all)" \
		> "$BATS_TEST_TMPDIR/result" 3>&- &
	writer=$!
	wait_for_helper_thread "$writer"
	for round in 1 2 3; do
		for c in $(hotpluggable_cpus); do set_online "$c" 0; done
		for c in $(hotpluggable_cpus); do set_online "$c" 1; done
		# The first round must happen while the task is still in flight.
		[ "$round" != 1 ] || kill -0 "$writer" 2>/dev/null ||
			fail "the task ended before the first round of hotplug was over: nothing was tested"
	done
	wait_bounded "$writer" 120
	run cat "$BATS_TEST_TMPDIR/result"
	assert_line "units_done: $size"
	assert_line "error: 0"
	expect "$(in_use system)" -eq 0 "system in use"
	expect "$(in_use pool)" -eq 0 "pool in use"
	assert_kernel_log_clean
}

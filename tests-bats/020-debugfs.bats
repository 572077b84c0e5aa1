#!/usr/bin/env bats
# The debugfs files: present, root only, in their documented formats.

load helpers

@test "debugfs ktask/ holds rlimits, nodes, stats, workers, power, synthetic" {
	for f in rlimits nodes stats workers power synthetic; do
		[ -f "$KTASK_DEBUGFS/$f" ]
	done
}

@test "read-only files are 0400, writable ones 0600, all owned by root" {
	run stat -c '%n %a %U' "$KTASK_DEBUGFS"/{rlimits,nodes,stats,workers,synthetic}
	assert_line "$KTASK_DEBUGFS/rlimits 400 root"
	assert_line "$KTASK_DEBUGFS/nodes 400 root"
	assert_line "$KTASK_DEBUGFS/stats 400 root"
	assert_line "$KTASK_DEBUGFS/workers 600 root"
	assert_line "$KTASK_DEBUGFS/synthetic 600 root"
}

@test "rlimits: a system row and one row per node, 80% of the CPUs" {
	run cat "$KTASK_DEBUGFS/rlimits"
	assert_line --index 0 --regexp '^scope +in_use +limit$'
	assert_line --regexp "^system +0 +$(( $(nproc) * 4 / 5 ))\$"
	for n in /sys/devices/system/node/node[0-9]*; do
		id=${n##*node}
		cpus=$(ls -d "$n"/cpu[0-9]* 2>/dev/null | wc -l)
		assert_line --regexp "^node$id +0 +$(( cpus * 4 / 5 ))\$"
	done
}

@test "nodes: header and one numeric row per online node" {
	run cat "$KTASK_DEBUGFS/nodes"
	assert_line --index 0 --regexp '^node +queued +chunks +units +fallbacks$'
	expect "${#lines[@]}" -eq $(( VM_NODES + 1 )) "nodes lines (header + one per node)"
	for ((i = 1; i < ${#lines[@]}; i++)); do
		[[ ${lines[$i]} =~ ^[0-9]+(\ +[0-9]+){4}$ ]]
	done
}

@test "stats: every documented key, and the reasons add up" {
	for k in tasks single_threaded single_threaded_too_small single_threaded_limits \
		 single_threaded_max_threads single_threaded_confined single_threaded_power \
		 helpers_started errors undo_calls units_undone time_ns; do
		[[ $(ktask_value stats $k) =~ ^[0-9]+$ ]]
	done
	sum=$(( $(ktask_value stats single_threaded_too_small) + $(ktask_value stats single_threaded_limits) +
		$(ktask_value stats single_threaded_max_threads) + $(ktask_value stats single_threaded_confined) +
		$(ktask_value stats single_threaded_power) ))
	expect "$sum" -eq "$(ktask_value stats single_threaded)" "sum of the single_threaded_* reasons"
}

@test "workers: helpers at nice 19, renice on by default" {
	expect "$(ktask_value workers helper_nice)" = 19 "workers helper_nice"
	expect "$(ktask_value workers renice)" = 1 "workers renice"
	[[ $(ktask_value workers renice_events) =~ ^[0-9]+$ ]]
}

@test "the boot-time users (KUnit) went multithreaded and left no work item in use" {
	expect "$(ktask_value stats helpers_started)" -gt 0 "stats helpers_started"
	run awk 'NR > 1 { print $2 }' "$KTASK_DEBUGFS/rlimits"
	for v in "${lines[@]}"; do [ "$v" = 0 ]; done
}

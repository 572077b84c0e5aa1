#!/usr/bin/env bats
# Synthetic tasks through debugfs ktask/synthetic.

load helpers

@test "a cpu task at 2 threads uses 2 threads and does every unit" {
	run_synthetic "kind=cpu size=20000 max_threads=2"
	expect "$SYN_kind" = cpu kind
	expect "$SYN_threads_used" -eq 2 threads_used
	expect "$SYN_units_done" -eq 20000 units_done
	expect "$SYN_units_undone" -eq 0 units_undone
	expect "$SYN_error" -eq 0 error
	expect "$SYN_elapsed_ns" -gt 0 elapsed_ns
}

@test "max_threads=1 keeps the task in one thread and one chunk" {
	run_synthetic "kind=cpu size=5000 max_threads=1"
	expect "$SYN_threads_used" -eq 1 threads_used
	expect "$SYN_chunks" -eq 1 chunks
	expect "$SYN_units_done" -eq 5000 units_done
}

@test "a task smaller than two minimum chunks stays single-threaded, counted as too small" {
	before=$(ktask_value stats single_threaded_too_small)
	run_synthetic "kind=cpu size=100 min_chunk=100 max_threads=2"
	expect "$SYN_threads_used" -eq 1 threads_used
	expect "$(ktask_value stats single_threaded_too_small)" -eq $(( before + 1 )) "stats single_threaded_too_small"
}

@test "a task of one chunk runs as a plain call: counted, its error returned, untimed with nobody looking" {
	local traced=/sys/kernel/tracing/events/ktask/ktask_task_end/enable
	mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
	[ "$(cat "$traced")" = 0 ] ||
		fail "ktask_task_end is traced (enable: expected 0, got $(cat "$traced")): one-chunk tasks are timed then"
	tasks=$(ktask_value stats tasks) small=$(ktask_value stats single_threaded_too_small)
	time_ns=$(ktask_value stats time_ns) errors=$(ktask_value stats errors)
	run_synthetic "kind=cpu size=32 min_chunk=32 max_threads=2 repeat=10"
	expect "$SYN_threads_used" -eq 1 threads_used
	expect "$SYN_chunks" -eq 1 chunks
	expect "$SYN_units_done" -eq 32 units_done
	expect "$(ktask_value stats tasks)" -eq $(( tasks + 10 )) "stats tasks"
	expect "$(ktask_value stats single_threaded_too_small)" -eq $(( small + 10 )) \
		"stats single_threaded_too_small"
	# time_ns leaves out tasks too small to split: no clock is read for them.
	expect "$(ktask_value stats time_ns)" -eq "$time_ns" "stats time_ns"
	run_synthetic "kind=cpu size=32 min_chunk=32 fail_at=31 err=28"
	expect "$SYN_error" -eq -28 error
	expect "$SYN_units_undone" -eq 0 units_undone
	expect "$(ktask_value stats errors)" -eq $(( errors + 1 )) "stats errors"
}

@test "repeat runs and checks the task each time; direct calls the thread function" {
	run_synthetic "kind=cpu size=64 min_chunk=32 max_threads=2 repeat=50"
	expect "$SYN_repeat" -eq 50 repeat
	expect "$SYN_direct" -eq 0 direct
	expect "$SYN_units_done" -eq 64 units_done
	expect "$SYN_ns_per_run" -eq $(( SYN_elapsed_ns / 50 )) ns_per_run
	tasks=$(ktask_value stats tasks)
	run_synthetic "kind=cpu size=64 min_chunk=32 repeat=50 direct=1"
	expect "$SYN_direct" -eq 1 direct
	expect "$SYN_threads_used" -eq 1 threads_used
	expect "$SYN_chunks" -eq 1 chunks
	expect "$SYN_units_done" -eq 64 units_done
	# direct runs never reach ktask
	expect "$(ktask_value stats tasks)" -eq "$tasks" "stats tasks"
}

@test "memclear clears pages placed over both nodes and any node" {
	run_synthetic "kind=memclear nodes=0:3000,1:3000,any:500 max_threads=2"
	expect "$SYN_size" -eq 6500 size
	expect "$SYN_units_done" -eq 6500 units_done
	expect "$SYN_error" -eq 0 error
}

@test "sleep tasks keep helpers busy and finish" {
	run_synthetic "kind=sleep size=40 max_threads=2"
	expect "$SYN_units_done" -eq 40 units_done
	expect "$SYN_threads_used" -eq 2 threads_used
}

@test "an injected failure returns its errno and undoes exactly the completed units" {
	undo_before=$(ktask_value stats units_undone)
	run_synthetic "kind=cpu size=20000 max_threads=2 fail_at=15000 err=28"
	expect "$SYN_error" -eq -28 error
	expect "$SYN_units_undone" -eq "$SYN_units_done" units_undone
	expect "$SYN_units_done" -lt 20000 units_done
	expect "$(ktask_value stats units_undone)" -eq $(( undo_before + SYN_units_undone )) "stats units_undone"
}

@test "a failure in the first unit undoes nothing that did not run" {
	run_synthetic "kind=cpu size=1000 max_threads=1 fail_at=0"
	expect "$SYN_error" -eq -5 error
	expect "$SYN_units_done" -eq 0 units_done
	expect "$SYN_units_undone" -eq 0 units_undone
}

@test "layouts with empty parts and every node work" {
	run_synthetic "nodes=0:0,1:777,any:0,0:1234 min_chunk=7"
	expect "$SYN_units_done" -eq 2011 units_done
}

@test "counters move by exactly one task per run and rlimits return to zero" {
	tasks=$(ktask_value stats tasks)
	run_synthetic "kind=cpu size=3000 max_threads=2"
	expect "$(ktask_value stats tasks)" -eq $(( tasks + 1 )) "stats tasks"
	run awk 'NR > 1 { print $2 }' "$KTASK_DEBUGFS/rlimits"
	for v in "${lines[@]}"; do [ "$v" = 0 ]; done
}

@test "per-node counters count the chunks and units run" {
	sum_units() { awk 'NR > 1 { s += $4 } END { print s }' "$KTASK_DEBUGFS/nodes"; }
	sum_chunks() { awk 'NR > 1 { s += $3 } END { print s }' "$KTASK_DEBUGFS/nodes"; }
	units=$(sum_units) chunks=$(sum_chunks)
	run_synthetic "kind=cpu size=4321 max_threads=2"
	expect "$(sum_units)" -eq $(( units + 4321 )) "nodes units, all nodes"
	expect "$(sum_chunks)" -eq $(( chunks + SYN_chunks )) "nodes chunks, all nodes"
}

@test "reading before any run in this boot reports runs: 0 or the last result" {
	run cat "$KTASK_DEBUGFS/synthetic"
	assert_success
	assert_line --regexp '^(runs: 0|kind: (cpu|memclear|sleep))$'
}

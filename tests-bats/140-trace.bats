#!/usr/bin/env bats
# ktask's trace events, read back from tracefs.

load helpers

TRACEFS=/sys/kernel/tracing

setup_file() {
	mountpoint -q "$TRACEFS" || mount -t tracefs none "$TRACEFS"
}

setup() {
	save_settings
	[ -d "$TRACEFS/events/ktask" ] || skip "kernel without ktask trace events"
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/events/ktask/enable"
	echo 1 > "$TRACEFS/tracing_on"
}

teardown() {
	kill_test_jobs
	echo 0 > "$TRACEFS/events/ktask/enable" 2>/dev/null || true
	echo > "$TRACEFS/trace" 2>/dev/null || true
	restore_settings
}

# The ktask events of the synthetic thread function, fields only.
synth_events() {
	grep -o 'ktask_[a-z_]*: func=ktask_synth_thread.*' "$TRACEFS/trace"
}

@test "the ktask group has task_start, chunk and task_end" {
	run ls "$TRACEFS/events/ktask"
	assert_line ktask_task_start
	assert_line ktask_chunk
	assert_line ktask_task_end
}

@test "a task traces its start, every chunk and its end, and the chunks add up" {
	run_synthetic "kind=cpu size=20000 max_threads=2"
	run synth_events
	assert_success
	# The start comes before any chunk, helpers' included, and has the
	# whole size: a helper thread takes its first chunk as soon as it runs.
	assert_regex "${lines[0]}" '^ktask_task_start: func=ktask_synth_thread size=20000 nodes=1 threads=2 chunk_size=[0-9]+$'
	assert_line --regexp "^ktask_task_end: func=ktask_synth_thread size=20000 threads=2 chunks=$SYN_chunks error=0 undone=0 elapsed_ns=[0-9]+ cpu_ns=[0-9]+\$"
	chunks=$(synth_events | grep -c '^ktask_chunk:')
	expect "$chunks" -eq "$SYN_chunks" "ktask_chunk events"
	units=$(synth_events | sed -n 's/^ktask_chunk: .* size=\([0-9]*\) node=[0-9]* ret=0$/\1/p' | paste -sd+ | bc)
	expect "$units" -eq 20000 "units in ktask_chunk events"
}

@test "a failing chunk traces its error and the end carries the undo" {
	run_synthetic "kind=cpu size=10000 max_threads=2 fail_at=5000 err=28"
	run synth_events
	assert_line --regexp '^ktask_chunk: func=ktask_synth_thread start=0x[0-9a-f]+ size=[0-9]+ node=[0-9]+ ret=-28$'
	assert_line --regexp "^ktask_task_end: .* error=-28 undone=$SYN_units_undone elapsed_ns=[0-9]+ cpu_ns=[0-9]+\$"
}

@test "chunks of a two-node task report both nodes" {
	[ -d /sys/devices/system/node/node1 ] || skip "one node"
	run_synthetic "kind=cpu nodes=0:4000,1:4000 max_threads=2"
	run synth_events
	assert_line --regexp '^ktask_task_start: .* nodes=2 '
	assert_line --regexp '^ktask_chunk: .* node=0 ret=0$'
	assert_line --regexp '^ktask_chunk: .* node=1 ret=0$'
}

@test "the kernel log stays clean" {
	assert_kernel_log_clean
}

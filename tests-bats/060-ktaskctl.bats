#!/usr/bin/env bats
# ktaskctl against the running kernel: every subcommand and option.

load helpers

setup() {
	save_settings
}

teardown() {
	restore_settings
}

json() {
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {"d": d}))' "$1"
}

@test "ktaskctl is on PATH in the guest, built from this checkout" {
	run command -v ktaskctl
	assert_output "$KTASK_TOP/build/meson/ktaskctl/ktaskctl"
	run_ktaskctl --version
	assert_success
}

@test "stats shows rlimits, nodes, workers and tasks as tables" {
	run_ktaskctl stats
	assert_success
	assert_output --partial "rlimits:"
	assert_output --partial "nodes:"
	assert_output --partial "workers:"
	assert_output --partial "tasks:"
	assert_output --regexp "helper_nice: +19"
}

@test "stats --json has the documented keys and agrees with debugfs" {
	run_ktaskctl stats --json
	assert_success
	run json 'sorted(k for k in d if k in ("rlimits", "nodes", "workers", "tasks"))' <<< "$output"
	assert_output "['nodes', 'rlimits', 'tasks', 'workers']"
	tasks=$(ktask_value stats tasks)
	run bash -c 'ktaskctl stats --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"tasks\"][\"tasks\"])"'
	assert_output "$tasks"
}

@test "run-synthetic reports threads, time, throughput, units and error" {
	run_ktaskctl run-synthetic --size 20000 --threads 2
	assert_success
	assert_output --regexp "threads_used: +2"
	assert_output --regexp "units_done: +20000"
	assert_output --regexp "throughput: +[0-9]+ units/s"
	assert_output --regexp "error: +0"
}

@test "run-synthetic --json has the documented keys" {
	run_ktaskctl run-synthetic --size 8K --threads 2 --json
	assert_success
	run json '(d["threads_used"], d["units_done"], d["units_undone"], d["error"], d["elapsed_ns"] > 0)' <<< "$output"
	assert_output "(2, 8192, 0, 0, True)"
}

@test "run-synthetic --repeat gives min, median and max" {
	run_ktaskctl run-synthetic --size 4000 --repeat 3 --json
	assert_success
	run json '(d["runs"], d["elapsed_ns_min"] <= d["elapsed_ns_median"] <= d["elapsed_ns_max"])' <<< "$output"
	assert_output "(3, True)"
}

@test "run-synthetic --kind memclear --nodes places pages per node" {
	run_ktaskctl run-synthetic --kind memclear --nodes 0:2K,1:2K,any:16 --json
	assert_success
	run json '(d["kind"], d["size"], d["units_done"])' <<< "$output"
	assert_output "('memclear', 4112, 4112)"
}

@test "run-synthetic --kind sleep --min-chunk" {
	run_ktaskctl run-synthetic --kind sleep --size 20 --min-chunk 5 --threads 2 --json
	assert_success
	run json '(d["units_done"], d["chunks"] <= 4)' <<< "$output"
	assert_output "(20, True)"
}

@test "run-synthetic --fail-at --err reports the error and the undo" {
	run_ktaskctl run-synthetic --size 10000 --threads 2 --fail-at 9000 --err ENOSPC --json
	assert_success
	run json '(d["error"], d["units_undone"] == d["units_done"], d["units_done"] < 10000)' <<< "$output"
	assert_output "(-28, True, True)"
}

@test "run-synthetic with a bad request: exit 2 for usage, 1 for the kernel's EINVAL" {
	run_ktaskctl run-synthetic --size 12Q
	assert_failure 2
	assert_output --partial "ktaskctl: run-synthetic:"
	run_ktaskctl run-synthetic --size 10 --min-chunk 11
	assert_failure 2
	assert_output --partial "ktaskctl: run-synthetic: --min-chunk"
	# Only the kernel knows node 9 is not online.
	run_ktaskctl run-synthetic --nodes 0:5,9:5
	assert_failure 1
	assert_output --partial "ktaskctl: run-synthetic: Invalid argument"
}

@test "get and set max-threads through netlink; the next task follows" {
	run_ktaskctl set max-threads 1
	assert_success
	run_ktaskctl get max-threads
	assert_output "1"
	[ "$(cat "$MAX_THREADS_PARAM")" = 1 ]
	run_ktaskctl run-synthetic --size 20000 --json
	run json 'd["threads_used"]' <<< "$output"
	assert_output "1"
	run_ktaskctl set max-threads 2
	run_ktaskctl run-synthetic --size 20000 --json
	run json 'd["threads_used"]' <<< "$output"
	assert_output "2"
}

@test "set rejects out-of-range values with the kernel's reason, changing nothing" {
	before=$(ktask_state)
	run_ktaskctl set max-threads 0
	assert_failure
	run_ktaskctl set max-threads 100000
	assert_failure 1
	assert_output --partial "Invalid argument"
	run_ktaskctl set helper-nice 20
	assert_failure
	run_ktaskctl set renice maybe
	assert_failure 2
	[ "$(ktask_state)" = "$before" ]
}

@test "set helper-nice and renice, read back with get and in debugfs" {
	run_ktaskctl set helper-nice 5
	assert_success
	run_ktaskctl set renice off
	assert_success
	run_ktaskctl get --json
	run json '(d["helper-nice"] if "helper-nice" in d else d["helper_nice"], d["renice"])' <<< "$output"
	assert_output "(5, 0)"
	[ "$(ktask_value workers helper_nice)" = 5 ]
	[ "$(ktask_value workers renice)" = 0 ]
}

@test "monitor receives the events of tasks run meanwhile" {
	ktaskctl monitor --verbose --count 3 --json > "$BATS_TEST_TMPDIR/events" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	for size in 1111 2222 3333; do
		ktaskctl run-synthetic --size $size --threads 2 > /dev/null
	done
	wait_bounded $pid 60
	run cat "$BATS_TEST_TMPDIR/events"
	[ "${#lines[@]}" -eq 3 ]
	run python3 -c 'import json,sys; print([ (e["func"], e["size"]) for e in map(json.loads, open(sys.argv[1])) ])' "$BATS_TEST_TMPDIR/events"
	assert_output "[('ktask_synth_thread', 1111), ('ktask_synth_thread', 2222), ('ktask_synth_thread', 3333)]"
}

@test "monitor events carry threads, chunks, error and undone" {
	ktaskctl monitor --verbose --count 1 > "$BATS_TEST_TMPDIR/event" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	ktaskctl run-synthetic --size 5000 --threads 2 --fail-at 4999 > /dev/null
	wait_bounded $pid 60
	run cat "$BATS_TEST_TMPDIR/event"
	assert_output --regexp '^func=ktask_synth_thread size=5000 threads=2 chunks=[0-9]+ elapsed=.* error=-5 undone=[0-9]+$'
}

@test "bench prints a speedup table against 1 thread" {
	run_ktaskctl bench --size 10000 --threads 1,2 --repeat 2
	assert_success
	assert_line --regexp "threads +min +median +max +threads_used +speedup"
	assert_line --regexp "^ +1 .* 1\.00$"
	assert_line --regexp "^ +2 .* [0-9]+\.[0-9]+$"
}

@test "bench --json lists every thread count with its speedup" {
	run_ktaskctl bench --kind cpu --size 10000 --threads 2 --repeat 2 --json
	assert_success
	run python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["results"]; print(sorted(x["threads"] for x in r), r[0]["speedup"])' <<< "$output"
	assert_output "[1, 2] 1.0"
}

@test "every subcommand has --help, and help lists them all" {
	for cmd in stats run-synthetic bench get set monitor; do
		run_ktaskctl $cmd --help
		assert_success
		assert_output --partial "Usage: ktaskctl $cmd"
	done
	run_ktaskctl help
	assert_success
	run_ktaskctl frobnicate
	assert_failure 2
	assert_output --partial "ktaskctl: frobnicate: unknown command"
}

@test "the man page is installed with the tool's sources" {
	[ -f "$KTASK_TOP/ktaskctl/ktaskctl.8" ]
	run man -l "$KTASK_TOP/ktaskctl/ktaskctl.8"
	assert_success
	assert_output --partial "run-synthetic"
}

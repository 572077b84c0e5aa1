#!/usr/bin/env bats
# ktaskctl against the running kernel: every subcommand and option.

load helpers

setup() {
	save_settings
}

teardown() {
	kill_test_jobs
	restore_settings
}

@test "ktaskctl is on PATH in the guest, built from this checkout" {
	run command -v ktaskctl
	assert_output "$KTASK_TOP/build/meson/ktaskctl/ktaskctl"
	run_ktaskctl --version
}

@test "stats shows rlimits, nodes, workers and tasks as tables" {
	run_ktaskctl stats
	assert_output --partial "rlimits:"
	assert_output --partial "nodes:"
	assert_output --partial "workers:"
	assert_output --partial "tasks:"
	assert_output --regexp "helper_nice: +19"
}

@test "stats --json has the documented keys and agrees with debugfs" {
	run_ktaskctl stats --json
	run json 'sorted(k for k in d if k in ("rlimits", "nodes", "workers", "tasks"))' <<< "$output"
	assert_output "['nodes', 'rlimits', 'tasks', 'workers']"
	tasks=$(ktask_value stats tasks)
	run_ktaskctl stats --json
	run json 'd["tasks"]["tasks"]' <<< "$output"
	assert_output "$tasks"
}

@test "--json prints one line, --pretty the same document indented" {
	run_ktaskctl stats --json
	expect "${#lines[@]}" -eq 1 "output lines"
	compact=$output
	run_ktaskctl --pretty stats
	expect "${#lines[@]}" -gt 1 "output lines"
	assert_line --index 0 "{"
	# Counters may move between the two runs: compare the shape.
	pretty=$output
	run json '{k: list(v) for k, v in d.items() if isinstance(v, dict)}' <<< "$compact"
	shape=$output
	run json '{k: list(v) for k, v in d.items() if isinstance(v, dict)}' <<< "$pretty"
	assert_output "$shape"
}

@test "with --json an error is one {\"error\": ...} line on stdout, nothing on stderr, same exit status" {
	# The kernel's EINVAL for an offline node: a runtime error, exit 1.
	run bash -c 'ktaskctl -j run-synthetic --nodes 0:5,9:5 2> "$1"' _ "$BATS_TEST_TMPDIR/stderr"
	assert_failure 1
	[ ! -s "$BATS_TEST_TMPDIR/stderr" ]
	run json 'd["error"]' <<< "$output"
	assert_output --partial "run-synthetic: Invalid argument"
	# The kernel's extended ack, through netlink.
	run bash -c 'ktaskctl -p set max-threads 100000 2> "$1"' _ "$BATS_TEST_TMPDIR/stderr"
	assert_failure 1
	[ ! -s "$BATS_TEST_TMPDIR/stderr" ]
	run json 'list(d)' <<< "$output"
	assert_output "['error']"
	# A usage error: exit 2.
	run bash -c 'ktaskctl -j set renice maybe 2> "$1"' _ "$BATS_TEST_TMPDIR/stderr"
	assert_failure 2
	[ ! -s "$BATS_TEST_TMPDIR/stderr" ]
	run json 'd["error"]' <<< "$output"
	assert_output "set: renice: 'maybe' is not on or off"
}

@test "--nodes takes the kernel's 8 parts; a 9th is a usage error, as the kernel would refuse it" {
	run_ktaskctl run-synthetic --nodes any:1,any:1,any:1,any:1,any:1,any:1,any:1,any:1 --json
	run json 'd["units_done"]' <<< "$output"
	assert_output 8
	run_ktaskctl 2 run-synthetic --nodes any:1,any:1,any:1,any:1,any:1,any:1,any:1,any:1,any:1
	assert_output --partial "more than 8 parts, the kernel's limit"
	# The kernel's own parser (KTASK_SYNTH_MAX_NODES) draws the same line.
	write_ktask synthetic "kind=cpu nodes=any:1,any:1,any:1,any:1,any:1,any:1,any:1,any:1,any:1"
	assert_failure
	assert_output --partial "Invalid argument"
}

@test "run-synthetic reports threads, time, throughput, units and error" {
	run_ktaskctl run-synthetic --size 20000 --threads 2
	assert_output --regexp "threads_used: +2"
	assert_output --regexp "units_done: +20000"
	assert_output --regexp "throughput: +[0-9]+ units/s"
	assert_output --regexp "error: +0"
}

@test "run-synthetic --json has the documented keys" {
	run_ktaskctl run-synthetic --size 8K --threads 2 --json
	run json '(d["threads_used"], d["units_done"], d["units_undone"], d["error"], d["elapsed_ns"] > 0)' <<< "$output"
	assert_output "(2, 8192, 0, 0, True)"
}

@test "run-synthetic --repeat gives min, median and max" {
	run_ktaskctl run-synthetic --size 4000 --repeat 3 --json
	run json '(d["runs"], d["elapsed_ns_min"] <= d["elapsed_ns_median"] <= d["elapsed_ns_max"])' <<< "$output"
	assert_output "(3, True)"
}

@test "run-synthetic --kind memclear --nodes places pages per node" {
	run_ktaskctl run-synthetic --kind memclear --nodes 0:2K,1:2K,any:16 --json
	run json '(d["kind"], d["size"], d["units_done"])' <<< "$output"
	assert_output "('memclear', 4112, 4112)"
}

@test "run-synthetic --kind sleep --min-chunk" {
	run_ktaskctl run-synthetic --kind sleep --size 20 --min-chunk 5 --threads 2 --json
	run json '(d["units_done"], d["chunks"] <= 4)' <<< "$output"
	assert_output "(20, True)"
}

@test "run-synthetic --fail-at --err reports the error and the undo" {
	run_ktaskctl run-synthetic --size 10000 --threads 2 --fail-at 9000 --err ENOSPC --json
	run json '(d["error"], d["units_undone"] == d["units_done"], d["units_done"] < 10000)' <<< "$output"
	assert_output "(-28, True, True)"
}

@test "run-synthetic with a bad request: exit 2 for usage, 1 for the kernel's EINVAL" {
	run_ktaskctl 2 run-synthetic --size 12Q
	assert_output --partial "ktaskctl: run-synthetic:"
	run_ktaskctl 2 run-synthetic --size 10 --min-chunk 11
	assert_output --partial "ktaskctl: run-synthetic: --min-chunk"
	# Only the kernel knows node 9 is not online.
	run_ktaskctl 1 run-synthetic --nodes 0:5,9:5
	assert_output --partial "ktaskctl: run-synthetic: Invalid argument"
}

@test "get and set max-threads through netlink; the next task follows" {
	run_ktaskctl set max-threads 1
	run_ktaskctl get max-threads
	assert_output "1"
	expect "$(cat "$MAX_THREADS_PARAM")" = 1 max_threads
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
	run_ktaskctl 2 set max-threads 0
	run_ktaskctl 1 set max-threads 100000
	assert_output --partial "Invalid argument"
	run_ktaskctl 2 set helper-nice 20
	run_ktaskctl 2 set renice maybe
	expect "$(ktask_state)" = "$before" ktask_state
}

@test "set helper-nice and renice, read back with get and in debugfs" {
	run_ktaskctl set helper-nice 5
	run_ktaskctl set renice off
	run_ktaskctl get --json
	run json '(d["helper_nice"], d["renice"])' <<< "$output"
	assert_output "(5, 0)"
	expect "$(ktask_value workers helper_nice)" = 5 "workers helper_nice"
	expect "$(ktask_value workers renice)" = 0 "workers renice"
}

@test "get and stats both say renice on or off; their JSON both keep 0/1" {
	run_ktaskctl set renice off
	run_ktaskctl get renice
	assert_output off
	run_ktaskctl stats
	assert_output --regexp "renice: +off"
	run_ktaskctl set renice on
	run_ktaskctl get renice
	assert_output on
	run_ktaskctl stats
	assert_output --regexp "renice: +on"
	run bash -c 'ktaskctl -j get && ktaskctl -j stats'
	assert_success
	run json '"%s %s" % (docs[0]["renice"], docs[1]["workers"]["renice"])' <<< "$output"
	assert_output "1 1"
}

@test "a negative helper-nice keeps its sign through netlink (s32)" {
	run_ktaskctl set helper-nice -5
	run_ktaskctl get helper-nice
	assert_output "-5"
	run_ktaskctl get --json
	run json 'd["helper_nice"]' <<< "$output"
	assert_output "-5"
	expect "$(ktask_value workers helper_nice)" = -5 "workers helper_nice"
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
	expect "${#lines[@]}" -eq 3 "output lines"
	run json '[(e["func"], e["size"]) for e in docs]' < "$BATS_TEST_TMPDIR/events"
	assert_output "[('ktask_synth_thread', 1111), ('ktask_synth_thread', 2222), ('ktask_synth_thread', 3333)]"
}

@test "monitor events carry threads, chunks, error and undone" {
	ktaskctl monitor --verbose --count 1 > "$BATS_TEST_TMPDIR/event" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	ktaskctl run-synthetic --size 5000 --threads 2 --fail-at 4999 > /dev/null
	wait_bounded $pid 60
	run cat "$BATS_TEST_TMPDIR/event"
	assert_output --regexp '^func=ktask_synth_thread size=5000 threads=2 chunks=[0-9]+ elapsed=[^ ]+ cpu=[^ ]+ error=-5 undone=[0-9]+$'
}

@test "monitor reports a task of one chunk, which runs as a plain call, with its time" {
	ktaskctl monitor --verbose --json --count 1 > "$BATS_TEST_TMPDIR/event" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	ktaskctl run-synthetic --size 64 --min-chunk 64 --threads 2 > /dev/null
	wait_bounded $pid 60
	run json '(d["size"], d["threads"], d["chunks"], d["elapsed_ns"] > 0)' < "$BATS_TEST_TMPDIR/event"
	assert_output "(64, 1, 1, True)"
}

@test "monitor's cpu_ns is every thread's CPU time: a cpu-bound task's is its elapsed time at 1 thread, well above it at 2" {
	local t threads ratio
	for t in 1 2; do
		ktaskctl monitor --verbose --json --count 1 > "$BATS_TEST_TMPDIR/event" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
		pid=$!
		wait_for_listening "$BATS_TEST_TMPDIR/listening"
		ktaskctl run-synthetic --size 4M --threads $t > /dev/null
		wait_bounded $pid 60
		run json '(d["threads"], d["cpu_ns"] * 100 // d["elapsed_ns"])' < "$BATS_TEST_TMPDIR/event"
		assert_success
		read -r threads ratio <<< "$(tr -d '(),' <<< "$output")"
		expect "$threads" -eq "$t" "threads of the task"
		echo "# $t thread(s): cpu_ns = ${ratio}% of elapsed_ns" >&3
		# One thread runs the whole task, every chunk on the CPU; two
		# share it, and both run (a 2-vCPU guest gives two CPU-bound
		# threads 1.8-1.9x): counting the caller alone would give 100%.
		if [ "$t" = 1 ]; then
			expect "$ratio" -ge 90 "1 thread: cpu_ns as a percentage of elapsed_ns"
			expect "$ratio" -le 101 "1 thread: cpu_ns as a percentage of elapsed_ns"
		else
			expect "$ratio" -ge 130 "2 threads: cpu_ns as a percentage of elapsed_ns"
			expect "$ratio" -le 201 "2 threads: cpu_ns as a percentage of elapsed_ns"
		fi
	done
}

@test "monitor: a task already running when monitor started has no cpu_ns, not a wrong one" {
	start_sleep_task
	task=$!
	wait_for_helper_thread $task
	ktaskctl monitor --verbose --json --count 1 > "$BATS_TEST_TMPDIR/event" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	kill_bounded $task
	wait_bounded $pid 60
	run json '(d["func"], d["threads"], "elapsed_ns" in d, "cpu_ns" in d)' < "$BATS_TEST_TMPDIR/event"
	assert_output "('ktask_synth_thread', 2, True, False)"
}

@test "monitor --pretty: one JSON line per event, a negative error (s32), 'listening' on stderr" {
	ktaskctl -p monitor --verbose --count 1 > "$BATS_TEST_TMPDIR/event" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	ktaskctl run-synthetic --size 5000 --threads 2 --fail-at 4999 --err ENOSPC > /dev/null
	wait_bounded $pid 60
	run cat "$BATS_TEST_TMPDIR/event"
	expect "${#lines[@]}" -eq 1 "output lines"
	run json '(d["func"], d["size"], d["error"])' < "$BATS_TEST_TMPDIR/event"
	assert_output "('ktask_synth_thread', 5000, -28)"
	run cat "$BATS_TEST_TMPDIR/listening"
	assert_output "ktaskctl: monitor: listening"
}

@test "bench prints a speedup table against 1 thread" {
	run_ktaskctl bench --size 10000 --threads 1,2 --repeat 2
	assert_line --regexp "threads +min +median +max +threads_used +speedup"
	assert_line --regexp "^ +1 .* 1\.00$"
	assert_line --regexp "^ +2 .* [0-9]+\.[0-9]+$"
}

@test "bench --json lists every thread count with its speedup" {
	run_ktaskctl bench --kind cpu --size 10000 --threads 2 --repeat 2 --json
	run json '"%s %s" % (sorted(x["threads"] for x in d["results"]), d["results"][0]["speedup"])' <<< "$output"
	assert_output "[1, 2] 1.0"
}

@test "every subcommand has --help, and help lists them all" {
	for cmd in stats run-synthetic bench get set monitor; do
		run_ktaskctl $cmd --help
		assert_output --partial "Usage: ktaskctl $cmd"
	done
	run_ktaskctl help
	run_ktaskctl 2 frobnicate
	assert_output --partial "ktaskctl: frobnicate: unknown command"
	assert_output --partial "Try 'ktaskctl help'."
}

@test "the man page is installed with the tool's sources" {
	[ -f "$KTASK_TOP/ktaskctl/ktaskctl.8" ]
	run man -l "$KTASK_TOP/ktaskctl/ktaskctl.8"
	assert_success
	assert_output --partial "run-synthetic"
}

# complete WORD...: what the bash completion offers for the last WORD ('' for
# a new word), as bash calls it on <TAB>, sorted on one line.
complete_ktaskctl() {
	run bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_ktaskctl ktaskctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd " "' \
		_ "$KTASK_TOP/ktaskctl/completion/ktaskctl.bash" ktaskctl "$@"
	assert_success
}

@test "bash completion, with the guest's bash: commands, options and settings" {
	complete_ktaskctl ru
	assert_output "run-synthetic"
	complete_ktaskctl set ''
	assert_output "helper-nice max-threads renice"
	complete_ktaskctl run-synthetic --kind ''
	assert_output "cpu memclear sleep"
	complete_ktaskctl monitor --co
	assert_output "--count"
}

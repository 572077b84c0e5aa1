# Shared setup for the bats suites; runs inside the test guest.
# bats-support and bats-assert, sourced file by file: their load.bash runs
# dirname once per file, 18 execs per test, which cost about 2.5 s a test on
# the normal kernel and 12 s on the debug one.
for f in /usr/lib/bats/bats-support/src/*.bash /usr/lib/bats/bats-assert/src/*.bash; do
	source "$f"
done
unset f

KTASK_TOP=${KTASK_TOP:-$(cd "$BATS_TEST_DIRNAME/.." && pwd)}
DEBUGFS=/sys/kernel/debug
KUNIT_RESULTS=$DEBUGFS/kunit/ktask/results

# ktaskctl from the meson build; the control-plane tests use it.
run_ktaskctl() {
	local expected=0
	if [[ ${1:-} =~ ^([0-9]+|\?)$ ]]; then
		expected=$1
		shift
	fi
	run "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" "$@"
	[ "$expected" = '?' ] || [ "$status" -eq "$expected" ] ||
		fail "$(printf 'ktaskctl %s\n  expected status: %s\n  actual status:   %s\n  output: %s' \
			"$*" "$expected" "$status" "$output")"
}

# expect ACTUAL OP EXPECTED [WHAT]: test(1)'s "ACTUAL OP EXPECTED" holds
# (OP: = != -eq -ne -lt -le -gt -ge), or the test fails saying what was
# compared (WHAT, default "value"), what was expected and what it got.
expect() {
	local actual=$1 op=$2 expected=$3 what=${4:-value} want
	case $op in
	=|-eq) want=$expected ;;
	!=|-ne) want="anything but $expected" ;;
	-lt) want="< $expected" ;;
	-le) want="<= $expected" ;;
	-gt) want="> $expected" ;;
	-ge) want=">= $expected" ;;
	*) fail "expect: unknown operator '$op'" ;;
	esac
	[ "$actual" "$op" "$expected" ] 2>/dev/null ||
		fail "$(printf '%s: expected %s\n%*s got %s' "$what" "$want" "${#what}" '' "$actual")"
}

# The kernel log holds no bug report (scripts/kernel-reports.sh, which
# vm-run.sh also runs on the console).
assert_kernel_log_clean() {
	run bash -c 'dmesg | "$1"' _ "$KTASK_TOP/scripts/kernel-reports.sh"
	assert_failure 1
}

KTASK_DEBUGFS=$DEBUGFS/ktask
MAX_THREADS_PARAM=/sys/module/ktask/parameters/max_threads

# write_ktask FILE LINE: one write(2) of LINE to debugfs ktask/FILE, as
# echo does; status and message land in $status and $output.
write_ktask() {
	run bash -c 'echo "$2" > "$1"' _ "$KTASK_DEBUGFS/$1" "$2"
}

# A value from a "key: value" file.
ktask_value() {
	awk -v k="$2:" '$1 == k { print $2 }' "$KTASK_DEBUGFS/$1"
}

# Everything a bad input must leave alone, in one string.
ktask_state() {
	cat "$KTASK_DEBUGFS"/{rlimits,nodes,stats,workers,power} "$MAX_THREADS_PARAM"
}

. "$KTASK_TOP/guest/synthetic.sh"

# run_synthetic LINE: run a task and load its result into SYN_<key>.
run_synthetic() {
	write_ktask synthetic "$1"
	[ "$status" -eq 0 ] || return 1
	synthetic_result SYN_
}

# json EXPR: the suite's one JSON reader.  Prints the Python expression
# EXPR over the JSON on stdin: one document (compact or pretty) is d, JSON
# lines (ktaskctl monitor) are docs, and d is the first of them.
json() {
	python3 -c 'import json, sys
text = sys.stdin.read()
try:
    docs = [json.loads(text)]
except ValueError:
    docs = [json.loads(line) for line in text.splitlines() if line.strip()]
print(eval(sys.argv[1], {"d": docs[0] if docs else None, "docs": docs}))' "$1"
}

# Run a command as an unprivileged user (nobody).
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
}

# Every rlimits row's in_use is 0: no helper queued, the work pool full.
assert_rlimits_idle() {
	run awk 'NR > 1 && $2 != 0' "$KTASK_DEBUGFS/rlimits"
	assert_success
	assert_output ""
}

# thread_group_dead PID: every thread of PID has exited (the leader is a
# zombie or gone).  Bash builtins only: no exec on the timed path.
thread_group_dead() {
	local stat threads
	threads=(/proc/"$1"/task/*)
	[ -e "${threads[0]}" ] || return 0
	[ "${#threads[@]}" -le 1 ] || return 1
	read -r stat 2>/dev/null < /proc/"$1"/stat || return 0
	[[ ${stat##*) } == [ZX]* ]]
}

# task_whereabouts PID: one line on where PID is now, for a diagnostic:
# its state, CPU time so far and, when asleep in the kernel, the kernel
# stack it sleeps on (one frame per ';').
task_whereabouts() {
	local stat fields stack
	read -r stat 2>/dev/null < /proc/"$1"/stat || { echo "pid $1 gone"; return 0; }
	# After "comm)": state is field 3, utime and stime (clock ticks) 14 and 15.
	read -ra fields <<< "${stat##*) }"
	stack=$(sed 's/^\[<[0-9a-f]*>\] //; s/+0x[0-9a-f/x]*$//' /proc/"$1"/stack 2>/dev/null | paste -sd';' -)
	echo "pid $1 state ${fields[0]}, utime ${fields[11]} stime ${fields[12]} ticks, kernel stack: ${stack:-none}"
}

# assert_sigkill_within_2s PID [MS]: PID (a child of the test, still running)
# dies of SIGKILL, every thread of it, within MS milliseconds (2000).  Timed
# with bash builtins alone (the clock, a 20 ms read timeout on a FIFO as the
# poll interval): an exec alone takes a second on the debug kernel, and the
# bound is for the kernel, not for the tools.  A task that does not die is
# given up on after MS + 60 s, not waited for.  On the debug kernel
# (KASAN checks every page the exit frees) the bound is doubled, headroom
# for a loaded host: kills measured 0.5-0.8 s there on a quiet one.
assert_sigkill_within_2s() {
	local pid=$1 max_ms=${2:-2000} start now tick_fd
	[ "${KERNEL:-}" != debug ] || max_ms=$(( max_ms * 2 ))
	[ -p "$BATS_TEST_TMPDIR/tick" ] || mkfifo "$BATS_TEST_TMPDIR/tick"
	exec {tick_fd}<>"$BATS_TEST_TMPDIR/tick"
	kill -0 "$pid"
	start=${EPOCHREALTIME/./}
	kill -KILL "$pid"
	# SIGKILL_TRACE_MARKER: a line in the trace right after the kill.
	[ -z "${SIGKILL_TRACE_MARKER:-}" ] || echo "$SIGKILL_TRACE_MARKER" > "${TRACEFS:-/sys/kernel/tracing}/trace_marker"
	until thread_group_dead "$pid"; do
		now=${EPOCHREALTIME/./}
		[ $(( (now - start) / 1000 )) -lt $(( max_ms + 60000 )) ] ||
			fail "pid $pid still alive $(( max_ms / 1000 + 60 )) s after SIGKILL"
		read -r -t 0.02 -u "$tick_fd" || true
	done
	now=${EPOCHREALTIME/./}
	exec {tick_fd}<&-
	wait "$pid" || true
	echo "# killed after $(( (now - start) / 1000 )) ms" >&3
	[ $(( (now - start) / 1000 )) -lt "$max_ms" ] ||
		fail "SIGKILL to dead: expected < $max_ms ms, got $(( (now - start) / 1000 )) ms"
}

# poll_pause: 20 ms without an exec (a read timeout on a FIFO of the test's),
# so that a poll loop leaves the vCPU to the job it waits for: busy polling
# kept a Python helper from reaching its fault for 60 s on a loaded debug
# guest.
poll_pause() {
	[ -p "$BATS_TEST_TMPDIR/tick" ] || mkfifo "$BATS_TEST_TMPDIR/tick"
	[ -n "${POLL_TICK_FD:-}" ] || exec {POLL_TICK_FD}<>"$BATS_TEST_TMPDIR/tick"
	read -r -t 0.02 -u "$POLL_TICK_FD" || true
}

# start_sleep_task: a synthetic sleep task of about a minute in the
# background (pid in $!), for a test that watches it and then kills it:
# it cannot end before the test has seen what it looks for.
start_sleep_task() {
	bash -c 'echo "kind=sleep size=100000 max_threads=2" > "$1"' _ "$KTASK_DEBUGFS/synthetic" 3>&- &
}

# wait_for_helper_thread PID: a thread of PID is named ktask_helper (at
# most 60 s); kills PID and fails otherwise.
wait_for_helper_thread() {
	timeout 60 bash -c 'until grep -qx ktask_helper /proc/$1/task/*/comm 2>/dev/null; do :; done' _ "$1" && return
	kill -KILL "$1" 2>/dev/null || true
	fail "no thread of pid $1 named ktask_helper within 60 s: $(cat /proc/"$1"/task/*/comm 2>/dev/null | tr '\n' ' ')"
}

# kill_bounded PID: SIGKILL a background job of this test and reap it (at
# most 60 s).
kill_bounded() {
	kill -KILL "$1" 2>/dev/null || true
	timeout 60 tail --pid="$1" -f /dev/null || fail "pid $1 still running 60 s after SIGKILL"
	wait "$1" || true
}

# kill_test_jobs: every teardown starts here.  A test that failed before
# its own kill or wait leaves no job running into the next test (or keeping
# a cgroup or a file busy for the teardown).
kill_test_jobs() {
	local pid
	for pid in $(jobs -p); do
		# bats' own BATS_TEST_TIMEOUT watchdog is a job of the test shell
		# too: killed, it would leave its sleep holding bats' output open.
		# bats 1.8 has its pid in BATS_killer_pid in the test's function,
		# and in killer_pid in bats_teardown_trap, which calls teardown
		# both after a pass and from the EXIT trap after a failure.
		[ "$pid" != "${killer_pid:-${BATS_killer_pid:-}}" ] || continue
		kill -KILL "$pid" 2>/dev/null || true
		timeout 60 tail --pid="$pid" -f /dev/null || echo "# pid $pid survived SIGKILL for 60 s" >&3
		wait "$pid" 2>/dev/null || true
	done
}

# The teardown of files that need no other.
teardown() {
	kill_test_jobs
}

# Tests that change settings save them in setup and put them back in
# teardown, so that later files start from the defaults.
save_settings() {
	saved_max=$(cat "$MAX_THREADS_PARAM")
}

restore_settings() {
	echo "$saved_max" > "$MAX_THREADS_PARAM"
	echo "helper_nice=19 renice=1" > "$KTASK_DEBUGFS/workers"
	echo "mode=auto" > "$KTASK_DEBUGFS/power"
	echo N > "$KTASK_DEBUGFS/one_chunk_per_thread"
}

# wait_for_listening FILE: ktaskctl monitor --verbose, its stderr in FILE,
# has joined the events group (at most 30 s).
wait_for_listening() {
	timeout 30 bash -c 'until grep -q "monitor: listening" "$1"; do sleep 0.05; done' _ "$1" ||
		fail "ktaskctl monitor did not start listening: $(cat "$1")"
}

# wait_bounded PID SECONDS: wait for a background job of this test, failing
# (and killing it) if it is still running after SECONDS.
wait_bounded() {
	local pid=$1 secs=$2
	if ! timeout "$secs" tail --pid="$pid" -f /dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
		fail "pid $pid still running after $secs s"
	fi
	wait "$pid"
}

# cgroup_stat CGROUP KEY: a value of CGROUP's cpu.stat (usage_usec, nr_throttled).
cgroup_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/cpu.stat"
}

# traced_run PREFIX FUNC PROG ARGS...: PROG ARGS with ktask_task_end traced;
# its one-line key=value report in $output, each key in PREFIX<key>, in
# $threads the threads of the last ktask task of thread function FUNC it ran
# (none: 0) and in $task_cpu_ns the CPU time of all of FUNC's tasks, every
# thread of each (their events' cpu_ns summed; none: 0).
traced_run() {
	local prefix=$1 func=$2 kv tracefs=${TRACEFS:-/sys/kernel/tracing}
	shift 2
	echo > "$tracefs/trace"
	echo 1 > "$tracefs/events/ktask/ktask_task_end/enable"
	run "$@"
	echo 0 > "$tracefs/events/ktask/ktask_task_end/enable"
	assert_success
	for kv in $output; do
		printf -v "$prefix${kv%%=*}" '%s' "${kv#*=}"
	done
	threads=$(grep -o "func=$func size=[0-9]* threads=[0-9]*" "$tracefs/trace" |
		sed -n '$s/.*threads=//p')
	threads=${threads:-0}
	task_cpu_ns=$(sed -n "s/.* ktask_task_end: func=$func .* cpu_ns=\([0-9]*\).*/\1/p" "$tracefs/trace" |
		awk '{ sum += $1 } END { printf "%.0f\n", sum }')
}

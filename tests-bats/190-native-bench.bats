#!/usr/bin/env bats
# bench/native.sh, the benchmark for a real machine booted into the ktask
# kernel, end to end with small sizes: its results and that it puts back
# what it changed.  (Speed is make bench's business, not this file's.)

load helpers

# What native.sh changes while it runs: max_threads and every huge page pool
# (the 1 GiB one exists only when the command line asks for it).
native_state() {
	echo $(cat "$MAX_THREADS_PARAM" /sys/kernel/mm/hugepages/*/nr_hugepages)
}

# The default thread counts native.sh picks: 1, the powers of two below the
# CPUs, and the CPUs, as a Python list.
default_counts() {
	local t counts=()
	for ((t = 1; t < $(nproc); t *= 2)); do counts+=("$t"); done
	counts+=("$(nproc)")
	local IFS=,
	echo "[${counts[*]}]" | sed 's/,/, /g'
}

setup() {
	save_settings
	before=$(native_state)
}

teardown() {
	kill_test_jobs
	restore_settings
}

@test "native bench: every thread count of each measure, a machine header, settings put back" {
	out=$BATS_TEST_TMPDIR/native
	run timeout 600 env NATIVE_REPEATS=2 NATIVE_CPU_UNITS=20000 NATIVE_FALLOC_SIZE=128M \
		NATIVE_POPULATE_SIZE=256M NATIVE_MEASURES="synthetic-cpu fallocate-2M populate" \
		"$KTASK_TOP/bench/native.sh" "$out"
	expect "$status" -eq 0 "bench/native.sh status (output: $output)"
	for f in raw.log results.json results.md; do
		[ -s "$out/$f" ] || fail "no $out/$f"
	done
	expect "$(json 'd["machine"]["cpus"]' < "$out/results.json")" = "$(nproc)" "machine cpus"
	expect "$(json 'd["machine"]["kernel"]' < "$out/results.json")" = "$(uname -r)" "machine kernel"
	expect "$(json 'sorted(d["measures"])' < "$out/results.json")" = "['fallocate-2M', 'populate', 'synthetic-cpu']" measures
	# Every default count, each run NATIVE_REPEATS times.
	expect "$(json '[r["threads"] for r in d["measures"]["fallocate-2M"]]' < "$out/results.json")" = "$(default_counts)" "fallocate-2M threads"
	expect "$(json 'set(r["runs"] for r in d["measures"]["synthetic-cpu"])' < "$out/results.json")" = "{2}" "synthetic-cpu runs"
	expect "$(json 'd["measures"]["synthetic-cpu"][0]["speedup"]' < "$out/results.json")" = "1.0" "1-thread speedup"
	expect "$(json 'd["measures"]["synthetic-cpu"][1]["threads_used"]' < "$out/results.json")" -eq 2 "threads used at 2"
	expect "$(json 'd["measures"]["fallocate-2M"][1]["ms_median"] > 0' < "$out/results.json")" = True "fallocate-2M time"
	expect "$(json '[r["threads"] for r in d["measures"]["populate"]]' < "$out/results.json")" = "$(default_counts)" "populate threads"
	expect "$(json 'd["measures"]["populate"][1]["ms_median"] > 0' < "$out/results.json")" = True "populate time"
	grep -q '^| CPUs | '"$(nproc)"' |$' "$out/results.md" || fail "results.md has no CPUs row: $(cat "$out/results.md")"
	grep -q '^## fallocate-2M: .*(128 MiB)$' "$out/results.md" || fail "results.md has no fallocate-2M section: $(cat "$out/results.md")"
	grep -q '^## populate: .*(256 MiB, THP [a-z]*)$' "$out/results.md" || fail "results.md has no populate section: $(cat "$out/results.md")"
	expect "$(native_state)" = "$before" "max_threads and pools after the run"
	run bash -c 'ls -d /tmp/ktask-native.* 2>/dev/null'
	assert_output ""
	assert_kernel_log_clean
}

@test "native bench: a bad setting is refused before anything changes" {
	run timeout 60 env NATIVE_THREADS=0 "$KTASK_TOP/bench/native.sh" "$BATS_TEST_TMPDIR/native"
	expect "$status" -eq 1 status
	assert_output --partial "NATIVE_THREADS: '0' is not a count from 1 to the $(nproc) CPUs"
	run timeout 60 env NATIVE_MEASURES=nonsense "$KTASK_TOP/bench/native.sh" "$BATS_TEST_TMPDIR/native"
	expect "$status" -eq 1 status
	assert_output --partial "unknown measure 'nonsense'"
	expect "$(native_state)" = "$before" "max_threads and pools"
}

@test "native bench: a failure mid-way puts the pools and max_threads back" {
	# The 2 MiB pool grows, then the VFIO check refuses a device that is
	# not bound to vfio-pci.
	run timeout 120 env NATIVE_FALLOC_SIZE=64M NATIVE_MEASURES="fallocate-2M vfio-map" \
		NATIVE_VFIO_DEVICE=0000:00:00.0 "$KTASK_TOP/bench/native.sh" "$BATS_TEST_TMPDIR/native"
	expect "$status" -eq 1 status
	assert_output --partial "0000:00:00.0 is not bound to vfio-pci"
	expect "$(native_state)" = "$before" "max_threads and pools"
	run bash -c 'ls -d /tmp/ktask-native.* 2>/dev/null'
	assert_output ""
}

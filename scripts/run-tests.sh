#!/bin/bash
# Run the whole suite: boot the default guest for KUnit + bats, a 4-vCPU
# guest for KUnit again, and a guest of its own for each file that needs
# kernel arguments, memory, devices or 4 vCPUs (hotplug, confinement).  Prints one line per test and closes with
# "N passed, N failed".  A guest whose kernel log shows a report, or that
# dies or hangs, counts as a failed test of its own.
#
# Environment: BATS_FILTER (regex of bats test names), BATS_TEST_TIMEOUT,
# STRESS_SEED, STRESS_TASKS, FUZZ_SEED (passed into the guests),
# KTASK_TEST_RUNS (space-separated "name:VM_SMP:mode" triples; mode full
# (every bats file that has no run of its own), kunit, or a bats file to run alone, booted with that file's kernel arguments, memory and
# QEMU devices, or a comma-separated list of bats files to run together),
# KTASK_TEST_JOBS (guests to run at once, default 1), KTASK_TEST_ONLY_RUNS=1
# (just those guest runs: no host tests, no deferred-init boots).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

runs=${KTASK_TEST_RUNS:-"smp2:2:full smp4:4:kunit param:2:095-boot-param.bats hugetlb:2:100-hugetlbfs.bats vfio:2:110-vfio.bats hotplug4:4:120-hotplug.bats confine4:4:130-confinement.bats,106-mm-selftests.bats"}

# Kernel arguments, memory and extra QEMU devices for the runs of a single
# bats file.
declare -A run_append=(
	[095-boot-param.bats]="ktask.max_threads=1"
	[100-hugetlbfs.bats]="hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=1100 trace_event=ktask:ktask_task_start,ktask:ktask_task_end tp_printk kunit.enable=0"
	[110-vfio.bats]="intel_iommu=on iommu=nopt"
)
declare -A run_mem=([100-hugetlbfs.bats]=8G [110-vfio.bats]=3G)
declare -A run_qemu=([110-vfio.bats]="-device intel-iommu -device edu")
# A guest that does not exit in VM_TIMEOUT counts as hung.  The full smp2
# run takes about 15 minutes under TCG (all 129 bats tests passed at 900 s
# once, a timeout away from failing), so give each guest 30 minutes; an hour on the
# debug kernel, where bats runs about 10x slower (docs/testing.md: The debug kernel).
if [ "${KERNEL:-ktask}" = debug ]; then
	export VM_TIMEOUT=${VM_TIMEOUT:-3600}
else
	export VM_TIMEOUT=${VM_TIMEOUT:-1800}
fi
# Logs per kernel: .ci/run's debug subset must not overwrite make test's.
if [ "${KERNEL:-ktask}" = ktask ]; then
	out_dir=$KTASK_TOP/build/test
else
	out_dir=$KTASK_TOP/build/test-$KERNEL
fi
mkdir -p "$out_dir"
passed=0 failed=0 skipped=0

# parse NAME < output: count and print the results of one guest run; a
# failed bats test's diagnostics (the "# " lines TAP puts after it) follow
# its FAIL line, so a CI log says why without the guest log beside it.
parse() {
	local name=$1 section='' line status case diag=0 diag_lines=0
	while IFS= read -r line; do
		if [ "$diag" = 1 ] && [[ $line == "# "* ]]; then
			# Bounded: a runaway diagnostic stays in the guest log.
			diag_lines=$((diag_lines + 1))
			[ "$diag_lines" -gt 40 ] || echo "    $line"
			continue
		fi
		diag=0
		case $line in
		"=== KUNIT "*) section=kunit; continue ;;
		"=== BATS") section=bats; continue ;;
		"=== END") section=; continue ;;
		esac
		case $section in
		kunit)
			# Test cases are indented; the suite's own line is not.
			[[ $line =~ ^[[:space:]]+(ok|not\ ok)\ [0-9]+\ ([A-Za-z0-9_]+)(.*)$ ]] || continue
			status=${BASH_REMATCH[1]} case=${BASH_REMATCH[2]}
			;;
		bats)
			[[ $line =~ ^(ok|not\ ok)\ [0-9]+\ (.*)$ ]] || continue
			status=${BASH_REMATCH[1]} case=${BASH_REMATCH[2]}
			case=${case% in [0-9]*ms}
			;;
		*) continue ;;
		esac
		if [[ $line == *"# SKIP"* || $line == *"# skip"* ]]; then
			skipped=$((skipped + 1)); echo "SKIP $name/$section: $case"
		elif [ "$status" = ok ]; then
			passed=$((passed + 1)); echo "PASS $name/$section: $case"
		else
			failed=$((failed + 1)); echo "FAIL $name/$section: $case"
			[ "$section" != bats ] || diag=1 diag_lines=0
		fi
	done
}

# Host side: ktaskctl's meson tests (parsing, formatting, error messages).
host_tests() {
	local line
	info "meson test (ktaskctl, on the host)"
	if meson test -C "$KTASK_TOP/build/meson" --print-errorlogs > "$out_dir/meson.log" 2>&1; then :; fi
	while IFS= read -r line; do
		[[ $line =~ ^\ *[0-9]+/[0-9]+\ +([A-Za-z0-9_-]+)\ +(OK|FAIL|SKIP|TIMEOUT|ERROR)\  ]] || continue
		case ${BASH_REMATCH[2]} in
		OK) passed=$((passed + 1)); echo "PASS host/meson: ${BASH_REMATCH[1]}" ;;
		SKIP) skipped=$((skipped + 1)); echo "SKIP host/meson: ${BASH_REMATCH[1]}" ;;
		*) failed=$((failed + 1)); echo "FAIL host/meson: ${BASH_REMATCH[1]}"; tail -n 30 "$out_dir/meson.log" ;;
		esac
	done < <(sed '/^Summary of Failures/,$d' "$out_dir/meson.log")
	grep -qE '^ *[0-9]+/[0-9]+ ' "$out_dir/meson.log" || {
		failed=$((failed + 1)); echo "FAIL host/meson: no results"; tail -n 30 "$out_dir/meson.log"; }
}
[ "${KTASK_TEST_ONLY_RUNS:-0}" = 1 ] || host_tests

# launch NAME SMP MODE: boot the guest for one run in the background; its
# output lands in NAME.log and NAME.log.err, its exit status in NAME.rc.
launch() {
	local name=$1 smp=$2 mode=$3 arg log=$out_dir/$1.log env='' var
	# vm-run.sh passes no environment into the guest: the variables the
	# bats files read go on the command line.
	for var in $guest_vars; do
		[ -z "${!var:-}" ] || env+="$var=$(printf %q "${!var}") "
	done
	case $mode in
	full) arg="--except $own_boot_files" ;;
	kunit) arg=--kunit-only ;;
	*.bats) arg="--only $mode" ;;
	*) die "KTASK_TEST_RUNS: $name: mode '$mode' is not full, kunit or FILE.bats[,FILE.bats...]" ;;
	esac
	info "test run $name: $smp vCPUs, $mode"
	rm -f "$out_dir/$name.rc"
	(
		VM_MEM=${run_mem[$mode]:-${VM_MEM:-4G}} VM_SMP=$smp VM_QUIET=1 VM_APPEND="${VM_APPEND:-} ${run_append[$mode]:-}" \
			VM_QEMU_ARGS="${VM_QEMU_ARGS:-} ${run_qemu[$mode]:-}" "$KTASK_TOP/scripts/vm-run.sh" \
			"$env$KTASK_TOP/tests-bats/run-suite.sh $arg" > "$log" 2> "$log.err"
		echo $? > "$out_dir/$name.rc"
	) &
}

# report NAME MODE: count and print the results of a finished run.
report() {
	local name=$1 mode=$2 log=$out_dir/$1.log rc counts_before
	rc=$(cat "$out_dir/$name.rc")
	counts_before=$((passed + failed))
	parse "$name" < "$log"
	# vm-run fails on a dirty kernel log even when every test passed.
	if grep -q '^vm-run:' "$log.err"; then
		failed=$((failed + 1))
		echo "FAIL $name/guest: $(grep -m1 '^vm-run:' "$log.err" | sed 's/^vm-run: //')"
		sed 's/^/    /' "$log.err" | tail -n 30
	elif [ "$rc" != 0 ] && [ "$((passed + failed))" = "$counts_before" ]; then
		failed=$((failed + 1))
		echo "FAIL $name/guest: exited $rc without results"
		tail -n 30 "$log" "$log.err"
	fi
	# A BATS_FILTER that matches nothing in this run's files is a plan of 1..0.
	bats_tap=$(sed -n '/^=== BATS/,/^=== END/p' "$log")
	if [ "$mode" != kunit ] && ! grep -qE '^(ok|not ok) [0-9]+ ' <<< "$bats_tap" &&
		! { [ -n "${BATS_FILTER:-}" ] && grep -qx '1\.\.0' <<< "$bats_tap"; }; then
		failed=$((failed + 1))
		echo "FAIL $name/bats: no bats results"
		sed -n '/^=== BATS/,/^=== END/p' "$log" | tail -n 20
	fi
	if grep -q '^=== KUNIT' "$log" && ! grep -qE '^\s+(ok|not ok) [0-9]+ ktask_test' "$log"; then
		failed=$((failed + 1)); echo "FAIL $name/kunit: no KUnit case results"
	fi
}

# What the bats files read from the environment (docs/testing.md: Variables).
guest_vars="BATS_FILTER BATS_TEST_TIMEOUT STRESS_SEED STRESS_TASKS FUZZ_SEED"
# A full run leaves out the files that have a boot of their own here, so
# that a SKIP means something could not be tested, not "runs later".
own_boot_files=$(for run in $runs; do IFS=: read -r _ _ mode <<< "$run"; [[ $mode == *.bats ]] && echo "$mode"; done | paste -sd, -)
own_boot_files=${own_boot_files:-none}

# Up to KTASK_TEST_JOBS guests at once; results are reported in the order of
# the runs, each as soon as it and every run before it has finished.
max_jobs=${KTASK_TEST_JOBS:-1}
[[ $max_jobs =~ ^[1-9][0-9]*$ ]] || die "KTASK_TEST_JOBS=$max_jobs: use a number of guests >= 1"
launched=() reported=0
report_finished() {
	while [ "$reported" -lt "${#launched[@]}" ]; do
		local name mode
		read -r name mode <<< "${launched[$reported]}"
		[ -f "$out_dir/$name.rc" ] || break
		report "$name" "$mode"
		reported=$((reported + 1))
	done
}
for run in $runs; do
	IFS=: read -r name smp mode <<< "$run"
	while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do
		wait -n
		report_finished
	done
	launch "$name" "$smp" "$mode"
	launched+=("$name $mode")
done
wait
report_finished

# Deferred struct page init on ktask: the same memory comes up whether
# ktask may use helpers or not, and every node logs its deferred init.
deferred_boot() {
	VM_MEM=8G VM_QUIET=1 VM_APPEND="${VM_APPEND:-} $1" "$KTASK_TOP/scripts/vm-run.sh" \
		'grep MemTotal /proc/meminfo; dmesg | grep "deferred pages initialised"' \
		> "$out_dir/deferred$2.log" 2>&1
}
deferred_tests() {
	local total total1 n helpers
	info "deferred struct page init: 8 GiB over 2 nodes, default vs ktask.max_threads=1"
	if deferred_boot "" "" && deferred_boot "ktask.max_threads=1" "-1thread"; then
		total=$(grep MemTotal "$out_dir/deferred.log")
		total1=$(grep MemTotal "$out_dir/deferred-1thread.log")
		if [ -n "$total" ] && [ "$total" = "$total1" ]; then
			passed=$((passed + 1)); echo "PASS deferred/host: MemTotal equal with and without helpers ($total)"
		else
			failed=$((failed + 1)); echo "FAIL deferred/host: MemTotal differs: '$total' vs '$total1'"
		fi
		for n in 0 1; do
			if grep -q "node $n deferred pages initialised in [0-9]*ms" "$out_dir/deferred.log"; then
				passed=$((passed + 1)); echo "PASS deferred/host: node $n logs its deferred init"
			else
				failed=$((failed + 1)); echo "FAIL deferred/host: node $n logged no deferred init"
			fi
		done
	else
		failed=$((failed + 1)); echo "FAIL deferred/guest: boot failed"
		tail -n 30 "$out_dir"/deferred*.log
	fi

	# With two CPUs per node, deferred init gets helpers: KUnit off, it and
	# the hugetlb boot pool are the only ktask users during boot, so the
	# counters are theirs.  The pool's helpers go round the nodes with
	# CPUs, as padata's numa_aware job sent them, each within its node's
	# boot limit (all its CPUs): no helper is queued past it, and none
	# falls back to any node.  A helper whose node ran out of work takes
	# another node's chunks where it runs, so it is never queued again.
	info "boot-time tasks: 4 vCPUs, 2 per node, deferred init and hugepages=512, KUnit off"
	local log=$out_dir/deferred-smp4.log nr fallbacks
	if VM_SMP=4 VM_MEM=8G VM_QUIET=1 VM_APPEND="${VM_APPEND:-} kunit.enable=0 hugepages=512" \
		"$KTASK_TOP/scripts/vm-run.sh" 'cat /sys/kernel/debug/ktask/stats /sys/kernel/debug/ktask/nodes; echo nr_hugepages $(cat /proc/sys/vm/nr_hugepages)' \
		> "$log" 2>&1; then
		helpers=$(awk '$1 == "helpers_started:" { print $2 }' "$log")
		if [ "${helpers:-0}" -gt 0 ]; then
			passed=$((passed + 1)); echo "PASS deferred/host: deferred init started $helpers helper(s) with 2 CPUs per node"
		else
			failed=$((failed + 1)); echo "FAIL deferred/host: deferred init started no helper with 2 CPUs per node"
			cat "$log"
		fi
		nr=$(awk '$1 == "nr_hugepages" { print $2 }' "$log")
		# debugfs ktask/nodes: column 5 is fallbacks.
		fallbacks=$(awk '/^node +queued/ { t = 1; next }
			t && NF == 5 { f += $5 } END { print f + 0 }' "$log")
		if [ "${nr:-}" = 512 ] && [ "$fallbacks" -eq 0 ]; then
			passed=$((passed + 1)); echo "PASS deferred/host: 512 boot huge pages, no helper queued past its node's limit"
		else
			failed=$((failed + 1)); echo "FAIL deferred/host: expected nr_hugepages 512 and 0 fallbacks, got nr_hugepages '${nr:-}' and $fallbacks fallback(s)"
			sed 's/^/    /' "$log" | tail -n 20
		fi
	else
		failed=$((failed + 1)); echo "FAIL deferred/guest: 4-vCPU boot failed"
		tail -n 30 "$log"
	fi

	# Six CPUs on one node: deferred init asks for every one of them
	# (deferred_page_init_max_threads()), as it had with padata; 80% would
	# give it five.  The task's start event says how many threads it got.
	info "deferred struct page init: 6 vCPUs on one node, threads per task"
	local want=6 got
	log=$out_dir/deferred-smp6.log
	if VM_SMP=$want VM_NODES=1 VM_MEM=8G VM_QUIET=1 \
		VM_APPEND="${VM_APPEND:-} kunit.enable=0 trace_event=ktask:ktask_task_start" \
		"$KTASK_TOP/scripts/vm-run.sh" 'cat /sys/kernel/tracing/trace' > "$log" 2>&1; then
		got=$(sed -n 's/.*func=deferred_init_memmap_chunk.* threads=\([0-9]*\).*/\1/p' "$log" | sort -n | tail -n 1)
		if [ "${got:-0}" = "$want" ]; then
			passed=$((passed + 1)); echo "PASS deferred/host: deferred init ran with all $want CPUs of its node"
		else
			failed=$((failed + 1)); echo "FAIL deferred/host: deferred init: expected $want threads in its largest task, got '${got:-none}'"
			grep -E 'ktask_task_start|deferred' "$log" | sed 's/^/    /' | tail -n 20
		fi
	else
		failed=$((failed + 1)); echo "FAIL deferred/guest: 6-vCPU boot failed"
		tail -n 30 "$log"
	fi
}
[ "${KTASK_TEST_ONLY_RUNS:-0}" = 1 ] || deferred_tests

# Boot-time gigantic pages asked for on a memoryless node: memblock takes
# them from another node, queued on the memoryless node's list, and the
# struct page init on ktask must walk that list too (patch 22).  A page on
# node 0 as well makes two parts: the memoryless node's goes to a helper.
memoryless_tests() {
	local log=$out_dir/memoryless.log nr free
	info "boot-time 1 GiB pages on node 0 and on a memoryless node (hugepages=0:1,2:1)"
	if VM_NODES=3 VM_SMP=3 VM_MEMLESS_NODES=1 VM_MEM=6G VM_QUIET=1 \
		VM_APPEND="${VM_APPEND:-} hugepagesz=1G hugepages=0:1,2:1 kunit.enable=0" \
		"$KTASK_TOP/scripts/vm-run.sh" \
		'cat /sys/devices/system/node/has_memory; cd /sys/kernel/mm/hugepages/hugepages-1048576kB && echo nr $(cat nr_hugepages) free $(cat free_hugepages)' \
		> "$log" 2>&1; then
		read -r _ nr _ free < <(grep '^nr ' "$log")
		if [ "$(grep -x '0-1' "$log")" = 0-1 ] && [ "${nr:-}" = 2 ] && [ "${free:-}" = 2 ]; then
			passed=$((passed + 1)); echo "PASS memoryless/host: the page asked for on memoryless node 2 is in the pool"
		else
			failed=$((failed + 1))
			echo "FAIL memoryless/host: nodes with memory 0-1, 1 GiB pages nr 2 free 2 expected, got:"
			sed 's/^/    /' "$log" | tail -n 20
		fi
	else
		failed=$((failed + 1)); echo "FAIL memoryless/guest: boot failed"
		tail -n 30 "$log"
	fi
}
[ "${KTASK_TEST_ONLY_RUNS:-0}" = 1 ] || memoryless_tests

echo "logs: $out_dir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

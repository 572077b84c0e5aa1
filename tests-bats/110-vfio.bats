#!/usr/bin/env bats
# VFIO type1 DMA mapping (vfio_pin_map_dma) on ktask.  make test boots a
# guest with QEMU's intel-iommu and edu devices (-device intel-iommu
# -device edu, intel_iommu=on iommu=nopt) to run this file, binding edu to
# vfio-pci; other boots skip it.  progs/vfio-map maps an anonymous buffer
# through the edu's group and reports times, VmLck and errno names.

load helpers

VFIO_MAP=$KTASK_TOP/build/meson/tests-bats/progs/vfio-map
TRACEFS=/sys/kernel/tracing
THP=/sys/kernel/mm/transparent_hugepage/enabled
CGROOT=/sys/fs/cgroup
# The memory cgroup of the OOM test: kernel-reports.sh expects the OOM
# killer's report for cgroups named ktask-*.
OOM_CG=$CGROOT/ktask-vfio-oom

setup_file() {
	# bats 1.8 cannot skip from setup_file: leave the reason to setup().
	export VFIO_MISSING='' VFIO_BDF='' VFIO_GROUP=''
	local bound
	if ! bound=$("$BATS_TEST_DIRNAME/progs/vfio-bind.sh" 2>&1); then
		VFIO_MISSING="${bound#vfio-bind: }"
		return 0
	fi
	read -r VFIO_BDF VFIO_GROUP <<< "$bound"
}

setup() {
	save_settings
	[ -z "$VFIO_MISSING" ] || skip "$VFIO_MISSING"
	[ -x "$VFIO_MAP" ] || fail "no $VFIO_MAP: build the tools (make tools)"
	pins_before=$(pins_held)
}

teardown() {
	kill_test_jobs
	[ -z "${monitor_pid:-}" ] || kill "$monitor_pid" 2>/dev/null || true
	echo 0 > "$TRACEFS/events/ktask/ktask_chunk/enable" 2>/dev/null || true
	[ -z "${thp_saved:-}" ] || echo "$thp_saved" > "$THP"
	[ -z "${map_pid:-}" ] || kill -KILL "$map_pid" 2>/dev/null || true
	[ ! -d "$OOM_CG" ] || rmdir "$OOM_CG"
	restore_settings
}

# Pages pinned with FOLL_PIN and not released yet, system-wide.  The
# counters are per-CPU and fold into /proc/vmstat lazily (pins taken on one
# CPU and released on another leave the sum off for a while): stat_refresh
# folds them first.
pins_held() {
	echo 1 > /proc/sys/vm/stat_refresh
	awk '$1 == "nr_foll_pin_acquired" { a = $2 } $1 == "nr_foll_pin_released" { r = $2 }
	     END { print a - r }' /proc/vmstat
}

# result KEY: a key=value line of the last run's output.
result() {
	sed -n "s/^$1=//p" <<< "$output"
}

# vfio_map ARGS...: map through the edu's group.
vfio_map() {
	run "$VFIO_MAP" "$@" "$VFIO_GROUP"
}

# unprivileged LIMIT ARGS...: vfio-map without CAP_IPC_LOCK (which bypasses
# RLIMIT_MEMLOCK), its locked memory limited to LIMIT bytes.
unprivileged() {
	local limit=$1
	shift
	run setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
		prlimit --memlock="$limit:$limit" "$VFIO_MAP" "$@" "$VFIO_GROUP"
}

# Everything pinned is released: VmLck after the unmap (or the failed map)
# is back to its value before, and no page stays pinned in the system.
expect_nothing_held() {
	local before after
	before=$(result vmlck_before_kb)
	after=$(result vmlck_after_unmap_kb)
	[ -n "$after" ] || after=$(result vmlck_after_map_kb)
	if [ -z "$before" ] || [ "$after" != "$before" ]; then
		fail "VmLck was ${before:-?} kB before, ${after:-?} kB after"
	fi
	[ "$(pins_held)" -eq "$pins_before" ] ||
		fail "pinned pages: $pins_before before, $(pins_held) after"
}

# expect_mapped SIZE_BYTES: a successful map and unmap of SIZE_BYTES.
expect_mapped() {
	assert_success
	assert_line "size=$1"
	[ "$(result vmlck_after_map_kb)" -eq $(( $(result vmlck_before_kb) + $1 / 1024 )) ] ||
		fail "VmLck after the map: $(result vmlck_after_map_kb) kB, expected $(( $(result vmlck_before_kb) + $1 / 1024 ))"
	expect_nothing_held
}

@test "map and unmap 4 KiB and 2 MiB: VmLck counts the pages while mapped" {
	vfio_map --size 4K
	expect_mapped 4096
	vfio_map --size 2M --populate
	expect_mapped $(( 2 << 20 ))
	vfio_map --size 2M
	expect_mapped $(( 2 << 20 ))
	assert_kernel_log_clean
}

@test "map and unmap odd sizes over several chunks: 2M+12K, 3M+4K, 130M+12K" {
	vfio_map --size 2M+12K
	expect_mapped $(( (2 << 20) + 12288 ))
	vfio_map --size 3M+4K --populate
	expect_mapped $(( (3 << 20) + 4096 ))
	vfio_map --size 130M+12K
	expect_mapped $(( (130 << 20) + 12288 ))
	vfio_map --size 130M+12K --populate --iova 0x40000000
	expect_mapped $(( (130 << 20) + 12288 ))
	assert_kernel_log_clean
}

@test "map and unmap 1 GiB" {
	vfio_map --size 1G
	expect_mapped $(( 1 << 30 ))
	echo "# 1 GiB: map $(( $(result map_ns) / 1000000 )) ms, unmap $(( $(result unmap_ns) / 1000000 )) ms" >&3
	vfio_map --size 1G --populate
	expect_mapped $(( 1 << 30 ))
	echo "# 1 GiB populated: map $(( $(result map_ns) / 1000000 )) ms, unmap $(( $(result unmap_ns) / 1000000 )) ms" >&3
	assert_kernel_log_clean
}

@test "--verify: edu DMA through the IOMMU reads and writes the pinned pages" {
	faults=$(dmesg | grep -c 'DMAR: .*[Ff]ault' || true)
	vfio_map --size 64M --verify --samples 8
	expect_mapped $(( 64 << 20 ))
	assert_line verified_pages=8
	vfio_map --size 130M+12K --populate --iova 0x2000000 --verify
	expect_mapped $(( (130 << 20) + 12288 ))
	assert_line verified_pages=6
	# The check has teeth: DMA one page past each sample and it reads back wrong.
	vfio_map --size 8M --verify-skew 4K
	assert_failure 3
	assert_output --partial "vfio-map: verify: page 0 copied through edu into page"
	[ "$(pins_held)" -eq "$pins_before" ] || fail "pinned pages: $pins_before before, $(pins_held) after"
	[ "$(dmesg | grep -c 'DMAR: .*[Ff]ault' || true)" -eq "$faults" ] ||
		fail "DMAR faults: $(dmesg | grep 'DMAR: .*[Ff]ault')"
	assert_kernel_log_clean
}

@test "the unprivileged runner has no CAP_IPC_LOCK and the memlock limit it is given" {
	run setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock prlimit --memlock=1048576:1048576 \
		bash -c 'grep ^CapEff: /proc/self/status; ulimit -l'
	assert_line 1024
	cap_eff=$(awk '{ print $2 }' <<< "${lines[0]}")
	(( (0x$cap_eff >> 14 & 1) == 0 )) || fail "CapEff $cap_eff includes CAP_IPC_LOCK"
	assert_kernel_log_clean
}

@test "within RLIMIT_MEMLOCK exactly the map succeeds; one page over fails with ENOMEM" {
	unprivileged $(( 256 << 20 )) --size 256M
	expect_mapped $(( 256 << 20 ))
	unprivileged $(( (256 << 20) - 4096 )) --size 256M
	assert_failure 1
	assert_line error=ENOMEM
	assert_output --partial "vfio-map: VFIO_IOMMU_MAP_DMA: ENOMEM"
	expect_nothing_held
	assert_kernel_log_clean
}

@test "over RLIMIT_MEMLOCK the map fails with ENOMEM and leaks nothing" {
	unprivileged $(( 16 << 20 )) --size 64M
	assert_failure 1
	assert_line error=ENOMEM
	assert_output --partial "vfio-map: VFIO_IOMMU_MAP_DMA: ENOMEM"
	expect_nothing_held
	unprivileged $(( 512 << 20 )) --size 1G
	assert_failure 1
	assert_line error=ENOMEM
	expect_nothing_held
	unprivileged $(( 512 << 20 )) --size 1G --populate
	assert_failure 1
	assert_line error=ENOMEM
	expect_nothing_held
	assert_kernel_log_clean
}

@test "a hole in the buffer fails the map with EFAULT and leaks nothing" {
	# First page, last page, and deep inside a large map.
	vfio_map --size 64M --hole 0
	assert_failure 1
	assert_line error=EFAULT
	assert_output --partial "vfio-map: VFIO_IOMMU_MAP_DMA: EFAULT"
	expect_nothing_held
	vfio_map --size 64M --hole 65532K --populate
	assert_failure 1
	assert_line error=EFAULT
	expect_nothing_held
	vfio_map --size 1G --hole 700M+4K
	assert_failure 1
	assert_line error=EFAULT
	expect_nothing_held
	vfio_map --size 1G --hole 300M --populate
	assert_failure 1
	assert_line error=EFAULT
	expect_nothing_held
	assert_kernel_log_clean
}

@test "20 map/unmap cycles leak nothing" {
	vfio_map --size 64M+4K --repeat 20
	expect_mapped $(( (64 << 20) + 4096 ))
	assert_line cycles=20
	assert_line "vmlck_after_unmap_max_kb=$(result vmlck_before_kb)"
	assert_kernel_log_clean
}

@test "closing the container without unmapping releases the pins" {
	vfio_map --size 256M --unmap-none
	assert_success
	expect "$(result vmlck_after_map_kb)" -eq $(( 256 << 10 )) vmlck_after_map_kb
	[ "$(pins_held)" -eq "$pins_before" ] ||
		fail "pinned pages: $pins_before before, $(pins_held) after"
	assert_kernel_log_clean
}

@test "with ktask limited to one thread the same maps work" {
	echo 1 > "$MAX_THREADS_PARAM"
	vfio_map --size 1G
	expect_mapped $(( 1 << 30 ))
	vfio_map --size 64M --verify
	expect_mapped $(( 64 << 20 ))
	vfio_map --size 1G --hole 700M
	assert_failure 1
	assert_line error=EFAULT
	expect_nothing_held
	assert_kernel_log_clean
}

@test "a 1 GiB map runs vfio_pin_map_dma_chunk in 2 threads (ktask monitor)" {
	# fd 3 closed: bats waits for whatever holds it open.
	ktaskctl monitor --verbose --count 1 > "$BATS_TEST_TMPDIR/events" 2> "$BATS_TEST_TMPDIR/listening" 3>&- &
	monitor_pid=$!
	wait_for_listening "$BATS_TEST_TMPDIR/listening"
	vfio_map --size 1G
	expect_mapped $(( 1 << 30 ))
	wait_bounded "$monitor_pid" 60
	monitor_pid=
	run cat "$BATS_TEST_TMPDIR/events"
	assert_line --regexp '^func=vfio_pin_map_dma_chunk size=[0-9]+ threads=2 .*error=0( |$)'
	assert_kernel_log_clean
}

@test "SIGKILL inside a 1 GiB map stops every thread's chunk within 2 s and leaks nothing" {
	local pid vmlck i
	# One 512 MiB chunk per thread: a helper deaf to the caller's signal
	# would pin its whole half before the map returned.
	echo Y > "$KTASK_DEBUGFS/one_chunk_per_thread"
	echo 2 > "$MAX_THREADS_PARAM"
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/events/ktask/ktask_chunk/enable"
	"$VFIO_MAP" --size 1G "$VFIO_GROUP" > "$BATS_TEST_TMPDIR/out" 3>&- &
	pid=$!
	# Kill once pages are pinned (VmLck grows as the chunks pin).
	for ((i = 0; i < 200000; i++)); do
		vmlck=0
		while read -r key value _; do
			[ "$key" = VmLck: ] && vmlck=$value
		done < "/proc/$pid/status"
		[ "$vmlck" -gt 0 ] && break
	done
	[ "$vmlck" -gt 0 ] || fail "the map never pinned a page"
	SIGKILL_TRACE_MARKER=ktask-test-killed assert_sigkill_within_2s "$pid"
	echo 0 > "$TRACEFS/events/ktask/ktask_chunk/enable"
	run awk '/tracing_mark_write: ktask-test-killed/ { killed = 1; next }
		/ktask_chunk: func=vfio_pin_map_dma_chunk/ {
			sub(/.*ktask_chunk: /, ""); print (killed ? "after kill: " : "before: ") $0
		}' "$TRACEFS/trace"
	echo "$output" | sed 's/^/# /' >&3
	# One per thread that took its chunk before the signal came.
	[ "${#lines[@]}" -ge 1 ] && [ "${#lines[@]}" -le 2 ] ||
		fail "chunks: expected 1 or 2, got ${#lines[@]}"
	# The signal stopped a chunk, and none ran to its end after it.  A
	# chunk may have ended before it: VmLck rises after each contiguous
	# run, and a helper pinned its whole 512 MiB as one (make test,
	# 2026-12-08).
	assert_line --regexp 'ret=-[0-9]+$'
	refute_line --regexp '^after kill: .*ret=0$'
	[ "$(pins_held)" -eq "$pins_before" ] ||
		fail "pinned pages: $pins_before before, $(pins_held) after"
	assert_rlimits_idle
}

# numa_hit NODE: pages allocated on NODE so far.
numa_hit() {
	awk '$1 == "numa_hit" { print $2 }' "/sys/devices/system/node/node$1/numastat"
}

@test "memory policy: a map by a caller bound to node 1 faults every page on node 1, at 2 threads" {
	[ -d /sys/devices/system/node/node1 ] || skip "one node"
	echo 2 > "$MAX_THREADS_PARAM"
	# 4 KiB pages only: numa_hit counts allocations, not pages.
	thp_saved=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP")
	echo never > "$THP"
	n0=$(numa_hit 0) n1=$(numa_hit 1) threads=$(ktask_value stats helper_threads)
	run numactl --membind=1 "$VFIO_MAP" --size 256M "$VFIO_GROUP"
	expect_mapped $(( 256 << 20 ))
	[ "$(ktask_value stats helper_threads)" -gt "$threads" ] || fail "no helper thread started"
	d0=$(( $(numa_hit 0) - n0 )) d1=$(( $(numa_hit 1) - n1 ))
	echo "# pages allocated: node 0 $d0, node 1 $d1" >&3
	[ "$d1" -ge 65536 ] || fail "node 1: expected >= 65536 pages (256 MiB), got $d1"
	# What else ran meanwhile (this shell, page tables) stays far below.
	[ "$d0" -lt 8192 ] || fail "node 0: expected < 8192 pages, got $d0"
}

# memory_event KEY: a counter of $OOM_CG/memory.events (builtins only, as
# the polling loops need).
memory_event() {
	local key value
	while read -r key value; do
		if [ "$key" = "$1" ]; then
			echo "$value"
			return 0
		fi
	done < "$OOM_CG/memory.events"
	return 1
}

@test "OOM: a 1 GiB map over its cgroup's 256 MiB memory.max is OOM-killed within 2 s and leaks nothing" {
	local kills=0 i start end rc
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
	echo +memory > "$CGROOT/cgroup.subtree_control"
	mkdir "$OOM_CG"
	echo 256M > "$OOM_CG/memory.max"
	[ ! -f "$OOM_CG/memory.swap.max" ] || echo 0 > "$OOM_CG/memory.swap.max"
	# One 512 MiB chunk per thread: the helpers fault the pages the memcg
	# refuses, and must stop at the kill that follows.
	echo Y > "$KTASK_DEBUGFS/one_chunk_per_thread"
	echo 2 > "$MAX_THREADS_PARAM"
	bash -c 'echo $$ > "$1/cgroup.procs" && exec "$2" --size 1G "$3"' _ \
		"$OOM_CG" "$VFIO_MAP" "$VFIO_GROUP" > "$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	map_pid=$!
	for ((i = 0; i < 200000 && kills == 0; i++)); do
		kills=$(memory_event oom_kill)
		kill -0 "$map_pid" 2>/dev/null || break
	done
	start=${EPOCHREALTIME/./}
	[ "$kills" -ge 1 ] || fail "no OOM kill in $OOM_CG: $(cat "$OOM_CG/memory.events" "$BATS_TEST_TMPDIR/out")"
	rc=0
	wait "$map_pid" || rc=$?
	end=${EPOCHREALTIME/./}
	map_pid=
	echo "# exited $(( (end - start) / 1000 )) ms after the OOM kill was seen" >&3
	[ "$rc" -eq 137 ] || fail "vfio-map: expected death by SIGKILL (137), got $rc: $(cat "$BATS_TEST_TMPDIR/out")"
	[ $(( end - start )) -lt 2000000 ] || fail "exited $(( (end - start) / 1000 )) ms after the kill, expected < 2000"
	[ "$(pins_held)" -eq "$pins_before" ] ||
		fail "pinned pages: $pins_before before, $(pins_held) after"
	assert_rlimits_idle
	# The report names our cgroup; nothing else in the log.
	run bash -c "dmesg | grep -c 'oom-kill:constraint=CONSTRAINT_MEMCG,.*oom_memcg=/ktask-vfio-oom'"
	assert_output 1
	assert_kernel_log_clean
}

@test "kernel log is clean after the vfio tests" {
	assert_kernel_log_clean
}

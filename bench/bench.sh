#!/bin/bash
# make bench: the seeds' experiments on this machine, ktask side by side with
# the baseline kernel (the same tree and config without the series) and with
# userspace.  One boot per kernel and configuration; the guest sides are
# bench/*.sh, which print raw samples; bench/results.py turns them into
# build/bench/results.json, results.md and the PNG plots.
#
#   boot "synthetic" (ktask, 4G): cpu, tiny, contention, starvation
#   boots "memory-ktask", "memory-baseline" (6G, 1 GiB + 2 MiB pages
#     reserved, intel-iommu + edu): fallocate, vfio-dma
#   boots "populate-ktask", "populate-baseline" (4G): populate, shmem-fallocate,
#     migrate
#   BENCH_BOOTS x boots "deferred-{ktask,1thread,baseline}-N" (16G, nodes of
#     two CPUs or more)
#   BENCH_BOOTS x boots "boot-{ktask,1thread,baseline}-N" (1 GiB and 2 MiB
#     pages reserved on the command line): boot
#   the "1thread" boots run on one CPU (maxcpus=1 noreplace-smp): the boot users set their
#     own maximum threads, which ktask.max_threads=1 does not cap
#   before each of those two groups, one discarded boot of its size
#     ("warmup-deferred", "warmup-boot") that runs nothing
#
# Environment:
#   QUICK=1          a short run of every measure (fewer, smaller runs)
#   BENCH_REPEATS    timed runs per variant after the warm-up (5; QUICK 3)
#   BENCH_BOOTS      boots per kernel for deferred init and boot (3; QUICK 1)
#   BENCH_ONLY       measures to run, of: cpu tiny contention starvation
#                    containment fallocate vfio populate shmem-fallocate migrate deferred boot
#                    (default: all)
#   VM_SMP (2), VM_NODES (2; the deferred boots halve it until each node has
#   two CPUs), VM_MEM (raises every guest's memory; never
#   below a measure's need), VM_APPEND, VM_QEMU_ARGS, VM_TIMEOUT (1800)
#   BENCH_DEFERRED_MEM (16G; QUICK 8G): the deferred init guests' memory
#   BENCH_BOOT_1G (8; QUICK 4), BENCH_BOOT_2M (1024; QUICK 512): the pages
#   the boot measure reserves (its guests get 2 GiB more than that)
#   BENCH_CPU_UNITS, BENCH_TINY_CHUNK, BENCH_TINY_CALLS, BENCH_TINY_ROUNDS,
#   BENCH_STRESS_SECS, BENCH_STARVE_SECS, BENCH_FALLOC_SIZE, BENCH_VFIO_SIZE,
#   BENCH_VFIO_THP, BENCH_MIGRATE_SIZE: see bench/*.sh
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

start_s=$(date +%s)
quick=${QUICK:-}
[ "$quick" != 0 ] || quick=
out=$KTASK_TOP/build/bench
raw=$out/raw

# What the guest sees: settings go on its command line (vm-run.sh does not
# forward the environment).
if [ -n "$quick" ]; then
	: "${BENCH_REPEATS:=3}" "${BENCH_BOOTS:=1}" "${BENCH_CPU_UNITS:=300000}" "${BENCH_TINY_CALLS:=300}"
	: "${BENCH_STRESS_SECS:=1}" "${BENCH_STARVE_SECS:=1}" "${BENCH_FALLOC_SIZE:=1G}"
	: "${BENCH_VFIO_SIZE:=512M}" "${BENCH_POPULATE_SIZE:=1G}" "${BENCH_DEFERRED_MEM:=8G}" "${BENCH_BOOT_1G:=4}" "${BENCH_BOOT_2M:=512}"
fi
: "${BENCH_REPEATS:=5}" "${BENCH_BOOTS:=3}" "${BENCH_DEFERRED_MEM:=16G}"
: "${BENCH_BOOT_1G:=8}" "${BENCH_BOOT_2M:=1024}"
guest_vars=(BENCH_REPEATS BENCH_CPU_UNITS BENCH_TINY_CHUNK BENCH_TINY_CALLS BENCH_TINY_ROUNDS BENCH_STRESS_SECS
	BENCH_STARVE_SECS BENCH_CONTENTION_WORKERS BENCH_FALLOC_SIZE BENCH_VFIO_SIZE BENCH_VFIO_THP BENCH_POPULATE_SIZE BENCH_MIGRATE_SIZE)
settings=
for v in "${guest_vars[@]}"; do
	[ -z "${!v:-}" ] || settings+="$v=$(printf '%q' "${!v}") "
done

only=" ${BENCH_ONLY:-cpu tiny contention starvation containment fallocate vfio populate shmem-fallocate migrate deferred boot} "
only=${only//,/ }
for m in $only; do
	case $m in
	cpu|tiny|contention|starvation|containment|fallocate|vfio|populate|shmem-fallocate|migrate|deferred|boot) ;;
	*) die "BENCH_ONLY: unknown measure '$m' (cpu tiny contention starvation containment fallocate vfio populate shmem-fallocate migrate deferred boot)" ;;
	esac
done
wanted() { [[ $only == *" $1 "* ]]; }

export VM_SMP=${VM_SMP:-2}
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
export VM_QUIET=1

# mem_for MIN_MIB: VM_MEM if it is larger than what the measure needs.
to_mib() {
	case $1 in
	*[Gg]) echo $(( ${1%[Gg]} * 1024 )) ;;
	*[Mm]) echo "${1%[Mm]}" ;;
	*) echo "$1" ;;
	esac
}
mem_for() {
	local want=$1 have
	have=$(to_mib "${VM_MEM:-0}")
	[ "$have" -gt "$want" ] || have=$want
	if [ $(( have % 1024 )) = 0 ]; then echo "$(( have / 1024 ))G"; else echo "${have}M"; fi
}

for f in build/meson/bench/cpu-units build/meson/tests-bats/progs/vfio-map build/meson/tests-bats/progs/populate build/meson/tests-bats/progs/falloc build/meson/tests-bats/progs/migrate build/meson/ktaskctl/ktaskctl; do
	[ -x "$KTASK_TOP/$f" ] || { "$KTASK_TOP/scripts/build-tools.sh"; break; }
done
command -v stress-ng > /dev/null || die "no stress-ng (make deps)"

# The plan: one line per boot, "NAME KERNEL MEM_MIB NODES APPEND|QEMU|CMD".
plan=()
nodes=${VM_NODES:-2}
synthetic_jobs=
for j in cpu tiny contention starvation containment; do
	wanted "$j" && synthetic_jobs+="$j "
done
[ -z "$synthetic_jobs" ] || plan+=("synthetic ktask 4096 $nodes ||$synthetic_jobs")
# fallocate and VFIO share a boot: 6 GiB, 4.2 GiB of it reserved as huge
# pages, leaves room for the 1 GiB VFIO buffer.
memory_jobs=
for j in fallocate vfio-dma; do
	wanted "${j%-dma}" && memory_jobs+="$j "
done
memory_args="hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=1100 intel_iommu=on iommu=nopt|-device intel-iommu -device edu"
if [ -n "$memory_jobs" ]; then
	plan+=("memory-ktask ktask 6144 $nodes $memory_args|$memory_jobs")
	plan+=("memory-baseline baseline 6144 $nodes $memory_args|$memory_jobs")
fi
# The prefault users share a boot of 4 GiB, 2 of them for the measures.
prefault_jobs=
for j in populate shmem-fallocate migrate; do
	wanted "$j" && prefault_jobs+="$j "
done
if [ -n "$prefault_jobs" ]; then
	plan+=("populate-ktask ktask 4096 $nodes ||$prefault_jobs")
	plan+=("populate-baseline baseline 4096 $nodes ||$prefault_jobs")
fi
# The ktask kernel's boots print their tasks' ends in the log: each event
# carries the CPU time of every thread of the task, the boot users' total
# work (a few lines per boot).  KUnit off: the suite's thousands of tasks
# would push the boot's out of the log.
trace_ends="trace_event=ktask:ktask_task_end tp_printk kunit.enable=0"
# The first boot of a run took 2-3x the boots after it, the same kernel
# and settings included (deferred init 156-164 ms against 40-72 ms, QUICK,
# 2026-12-07): the host backs guest memory on first touch and, after a
# kernel build has filled its page cache, likely reclaims for the first
# big guest.  One discarded boot of each size, running nothing, comes
# first.
# The boot users set their own maximum threads (a node's CPUs, the nodes
# with pages), which ktask.max_threads=1 does not cap: their 1-thread side
# is a boot on one CPU.  noreplace-smp: with maxcpus=1 x86 patches the
# LOCK prefixes out of the kernel text, which under multi-threaded TCG
# would make that side's atomics cheaper than the other's.
one_cpu="maxcpus=1 noreplace-smp"
if wanted deferred; then
	deferred_mem=$(to_mib "$BENCH_DEFERRED_MEM")
	# Deferred init runs a task per node on that node's CPUs: nodes of
	# one CPU (2 vCPUs over 2 nodes) would compare one thread with one.
	# Halving keeps the count a divisor of the memory's split.
	deferred_nodes=$nodes
	while [ "$deferred_nodes" -gt 1 ] && [ $(( VM_SMP / deferred_nodes )) -lt 2 ]; do
		deferred_nodes=$(( deferred_nodes / 2 ))
	done
	plan+=("warmup-deferred ktask $deferred_mem $deferred_nodes $trace_ends||")
	for ((b = 1; b <= BENCH_BOOTS; b++)); do
		plan+=("deferred-ktask-$b ktask $deferred_mem $deferred_nodes $trace_ends||deferred ktask")
		plan+=("deferred-1thread-$b ktask $deferred_mem $deferred_nodes $trace_ends $one_cpu||deferred 1thread")
		plan+=("deferred-baseline-$b baseline $deferred_mem $deferred_nodes ||deferred baseline")
	done
fi
if wanted boot; then
	# Gigantic pages need 1 GiB-aligned free ranges on each node: below 4G
	# q35 keeps 2 GiB of RAM and the kernel, so 2 GiB of slack were too few
	# for QUICK's 4 pages in 7 GiB (3 of 4 on 2026-12-03); 4 GiB are enough.
	boot_mem=$(( (BENCH_BOOT_1G + 4) * 1024 + BENCH_BOOT_2M * 2 ))
	# KUnit off: the ktask kernel's suite would run inside boot-to-init.
	boot_args="hugepagesz=1G hugepages=$BENCH_BOOT_1G hugepagesz=2M hugepages=$BENCH_BOOT_2M initcall_debug kunit.enable=0"
	plan+=("warmup-boot ktask $boot_mem $nodes $boot_args $trace_ends||")
	for ((b = 1; b <= BENCH_BOOTS; b++)); do
		plan+=("boot-ktask-$b ktask $boot_mem $nodes $boot_args $trace_ends||boot ktask $BENCH_BOOT_1G $BENCH_BOOT_2M")
		plan+=("boot-1thread-$b ktask $boot_mem $nodes $boot_args $trace_ends $one_cpu||boot 1thread $BENCH_BOOT_1G $BENCH_BOOT_2M")
		plan+=("boot-baseline-$b baseline $boot_mem $nodes $boot_args||boot baseline $BENCH_BOOT_1G $BENCH_BOOT_2M")
	done
fi

# Nothing is rebuilt: the benchmark measures the kernels that are built,
# building only a missing one that the plan boots (BENCH_ONLY=cpu needs no
# baseline).
used_kernels=$(printf '%s\n' "${plan[@]}" | awk '{ print $2 }' | sort -u)
for k in $used_kernels; do
	[ -f "$(kernel_image "$k")" ] || "$KTASK_TOP/scripts/build-kernel.sh" "$k"
	# Two kernels configured from different fragments measure the config:
	# a baseline without tracing boots faster than the ktask kernel with it.
	[ "$(cat "$(kernel_build_dir "$k")/.ktask-config-id" 2> /dev/null)" = "$(kernel_config_id "$k")" ] ||
		die "the $k kernel was configured from older kernel/configs fragments: make kernel KERNEL=$k"
done
image_id() {
	local img
	img=$(kernel_image "$1")
	echo "$(date -r "$img" '+%Y-%m-%d %H:%M') sha256:$(sha256sum "$img" | cut -c1-12)"
}
declare -A image_ids=([ktask]="not booted" [baseline]="not booted")
for k in $used_kernels; do
	image_ids[$k]=$(image_id "$k")
done

rm -rf "$raw"
mkdir -p "$raw"
rm -f "$out"/results.* "$out"/*.png "$out"/*.dat "$out"/busy.log

elapsed() {
	local s=$(( $(date +%s) - start_s ))
	printf '%dm%02ds' $(( s / 60 )) $(( s % 60 ))
}

# The guest command: each job of the boot, a failed one reported as
# "@failed JOB" and the rest still run.
guest_cmd() {
	local cmd='rc=0; ' job args
	for job in $1; do
		args=
		case $job in deferred|boot) args=" $2" ;; esac
		cmd+="$settings$KTASK_TOP/bench/$job.sh$args || { rc=1; echo '@failed $job'; }; "
	done
	echo "${cmd}exit \$rc"
}

# Benchmarks need a quiet host.  host_others: "GUESTS COMPILERS", the QEMU
# guests not started by this run and the compilers running (a stopped one,
# state T, takes no CPU).  A sampler notes them every 5 s in busy.log.
host_others() {
	ps -eo pid=,ppid=,stat=,comm=,args= | awk -v me=$$ '
		{ parent[$1] = $2 }
		$3 ~ /^T/ { next }
		$4 ~ /^qemu-system/ { guest[$1] = 1 }
		$4 ~ /^(cc1|cc1plus|ld|as)$/ { cc++ }
		END {
			for (p in guest) {
				for (x = p; x > 1 && x != me; x = parent[x]) ;
				if (x != me) n++
			}
			printf "%d %d\n", n, cc
		}'
}
( while sleep 5; do echo "$(date +%s) $(host_others)"; done ) > "$out/busy.log" 2>/dev/null &
sampler=$!
trap 'kill $sampler 2>/dev/null' EXIT
failed=()
step=0
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
info "bench: ${#plan[@]} boots, $VM_SMP vCPUs, $BENCH_REPEATS repeats${quick:+ (QUICK)}; raw output in $raw"
for entry in "${plan[@]}"; do
	step=$((step + 1))
	read -r name kernel mem boot_nodes rest <<< "$entry"
	IFS='|' read -r append qemu jobs <<< "$rest"
	mem=$(mem_for "$mem")
	case $jobs in
	# deferred and boot carry their arguments (the variant first)
	deferred\ *|boot\ *) cmd=$(guest_cmd "${jobs%% *}" "${jobs#* }") ;;
	*) cmd=$(guest_cmd "$jobs") ;;
	esac
	log=$raw/$name.log
	others=$(host_others)
	[ "$others" = "0 0" ] || info "warning: host busy (${others% *} other guest(s), ${others#* } compiler(s)): timings will suffer"
	info "[$step/${#plan[@]}] $name: $kernel kernel, $VM_SMP vCPUs, $boot_nodes node(s), $mem${append:+, $append} ($(elapsed) elapsed)"
	echo "@boot $name $kernel $VM_SMP $mem $boot_nodes" > "$log"
	if KERNEL=$kernel VM_MEM=$mem VM_NODES=$boot_nodes VM_APPEND="${VM_APPEND:-} $append" VM_QEMU_ARGS="${VM_QEMU_ARGS:-} $qemu" \
		"$KTASK_TOP/scripts/vm-run.sh" "$cmd" 2> "$log.err" |
		tee -a "$log" | awk '/^@failed/ { print "    FAILED: " $2; fflush() } !/^@/ { print "  " $0; fflush() }' >&2; then
		:
	else
		failed+=("$name")
		echo "  $name: the boot failed; $log.err:" >&2
		tail -n 15 "$log.err" | sed 's/^/  | /' >&2
	fi
done

wall=$(( $(date +%s) - start_s ))
for k in $used_kernels; do
	[ "$(image_id "$k")" = "${image_ids[$k]}" ] ||
		image_ids[$k]+=" (replaced during the run by $(image_id "$k"))"
done
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "quick=${quick:+1}"
	echo "repeats=$BENCH_REPEATS"
	echo "boots=$BENCH_BOOTS"
	echo "smp=$VM_SMP"
	echo "nodes=${VM_NODES:-2}"
	echo "vm_mem=${VM_MEM:-}"
	echo "accel=${VM_ACCEL:-tcg}"
	echo "host_cpus=$(nproc)"
	echo "host=$(uname -sr)"
	echo "ktask_image=${image_ids[ktask]}"
	echo "baseline_image=${image_ids[baseline]}"
	echo "series_commit=$(git -C "$KTASK_TOP" log -1 --format='%h %s' -- kernel/patches 2>/dev/null || true)"
	echo "only=$(echo $only)"
	echo "settings=$settings"
	echo "failed_boots=${failed[*]}"
	echo "host_load_start=$load_start"
	awk '{ n++; if ($2 > g) g = $2; if ($3 > c) c = $3; if ($2 + $3 > 0) b++ }
		END { printf "host_other_guests=%d\nhost_compilers=%d\nhost_busy_pct=%d\n", g, c, n ? 100 * b / n : 0 }' "$out/busy.log"
	echo "wall_s=$wall"
} > "$out/run.env"

info "bench: done in $(elapsed); results"
results_rc=0
python3 "$KTASK_TOP/bench/results.py" "$out" || results_rc=$?
[ ${#failed[@]} = 0 ] || die "failed boots: ${failed[*]} (logs in $raw)"
[ "$results_rc" = 0 ] || die "some measures were not measured (above; logs in $raw)"

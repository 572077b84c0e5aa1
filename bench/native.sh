#!/bin/bash
# The seeds' experiments on the machine this runs on, booted into the ktask
# kernel (no QEMU): each at 1, 2, 4, 8... threads up to the CPUs, the thread
# counts alternating round by round so drift hits them all alike, then
# results.md, results.json and speedup.png (bench/native_results.py).
#
#   synthetic-cpu   the synthetic cpu task (debugfs ktask/synthetic)
#   fallocate-2M    fallocate of NATIVE_FALLOC_SIZE on hugetlbfs, 2 MiB pages
#   fallocate-1G    the same with 1 GiB pages (clears gigantic pages: the
#                   seeds' clear_gigantic_page table was taken this way)
#   fault-1G        one 1 GiB page faulted in by a user process: a fault
#                   clears its page alone under ktask's containment (README:
#                   Known limits), so expect 1x; it shows the clearing rate
#   vfio-map        VFIO_IOMMU_MAP_DMA of NATIVE_VFIO_SIZE, when
#                   NATIVE_VFIO_DEVICE names a PCI device bound to vfio-pci
#   populate        madvise(MADV_POPULATE_WRITE) of NATIVE_POPULATE_SIZE of
#                   fresh anonymous memory (tests-bats/progs/populate), THP
#                   as the machine has it
# A count's time is the median of its rounds; speedup is the 1-thread median
# over it.  Thread counts above what ktask lets one task use (80% of the
# CPUs) run with fewer: results.md says so.
#
# Usage (as root): bench/native.sh [OUT]   (default build/bench-native)
# Environment:
#   NATIVE_THREADS      counts to run, "1,2,4" (default: 1, powers of two
#                       below the CPUs, and the CPUs)
#   NATIVE_REPEATS      rounds (5)
#   NATIVE_MEASURES     of: synthetic-cpu fallocate-2M fallocate-1G fault-1G
#                       vfio-map populate (default: all that the machine
#                       can run)
#   NATIVE_CPU_UNITS    units of the synthetic task (4000000)
#   NATIVE_FALLOC_SIZE  fallocate size (16G; at most a quarter of the
#                       available memory, in whole GiB)
#   NATIVE_VFIO_DEVICE  PCI address (0000:01:00.0) bound to vfio-pci: its
#                       IOMMU group is opened (make tools builds vfio-map)
#   NATIVE_VFIO_SIZE    bytes mapped per map (4G), with THP off
#   NATIVE_POPULATE_SIZE  populate size (16G; at most a quarter of the
#                       available memory, in whole MiB)
set -uo pipefail
KTASK_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$KTASK_TOP/bench/lib.sh"

die() {
	echo "bench/native.sh: $*" >&2
	exit 1
}

# Refuse before touching anything.
[ "$(id -u)" = 0 ] || die "run it as root: it reserves huge pages and sets ktask's max_threads"
have_ktask || die "this kernel ($(uname -r)) has no ktask ($KTASK_MAX_THREADS missing): boot the ktask kernel first (README: Running on real hardware)"

out=$(realpath -m "${1:-$KTASK_TOP/build/bench-native}")
raw=$out/raw.log
repeats=${NATIVE_REPEATS:-5}
cpus=$(nproc)
units=${NATIVE_CPU_UNITS:-4000000}
vfio_size=${NATIVE_VFIO_SIZE:-4G}

to_bytes() {
	numfmt --from=iec "$1" 2>/dev/null || die "not a size: '$1'"
}
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die "NATIVE_REPEATS: '$repeats' is not a count"
[[ $units =~ ^[1-9][0-9]*$ ]] || die "NATIVE_CPU_UNITS: '$units' is not a count"
vfio_bytes=$(to_bytes "$vfio_size") || exit 1

if [ -n "${NATIVE_THREADS:-}" ]; then
	IFS=, read -ra threads <<< "$NATIVE_THREADS"
	for t in "${threads[@]}"; do
		[[ $t =~ ^[1-9][0-9]*$ ]] && [ "$t" -le "$cpus" ] ||
			die "NATIVE_THREADS: '$t' is not a count from 1 to the $cpus CPUs"
	done
	# 1 thread is every speedup's baseline.
	[[ " ${threads[*]} " == *" 1 "* ]] || threads=(1 "${threads[@]}")
else
	threads=()
	for ((t = 1; t < cpus; t *= 2)); do threads+=("$t"); done
	threads+=("$cpus")
fi

# Each of the two pools takes at most a quarter of the available memory, in
# whole 2 MiB pages; the 1 GiB measures use the whole GiB of it.
avail_kb=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
falloc_bytes=$(to_bytes "${NATIVE_FALLOC_SIZE:-16G}") || exit 1
quarter=$(( avail_kb * 1024 / 4 ))
[ "$falloc_bytes" -le "$quarter" ] || falloc_bytes=$quarter
falloc_bytes=$(( falloc_bytes >> 21 << 21 ))
[ "$falloc_bytes" -ge $((64 << 20)) ] || die "NATIVE_FALLOC_SIZE: $falloc_bytes bytes, below 64 MiB (or too little memory)"
falloc_1g_bytes=$(( falloc_bytes >> 30 << 30 ))
populate_bytes=$(to_bytes "${NATIVE_POPULATE_SIZE:-16G}") || exit 1
[ "$populate_bytes" -le "$quarter" ] || populate_bytes=$quarter
populate_bytes=$(( populate_bytes >> 20 << 20 ))
[ "$populate_bytes" -ge $((64 << 20)) ] || die "NATIVE_POPULATE_SIZE: $populate_bytes bytes, below 64 MiB (or too little memory)"

all="synthetic-cpu fallocate-2M fallocate-1G fault-1G vfio-map populate"
measures=" ${NATIVE_MEASURES:-$all} "
for m in $measures; do
	[[ " $all " == *" $m "* ]] || die "NATIVE_MEASURES: unknown measure '$m' ($all)"
done
wanted() { [[ $measures == *" $1 "* ]]; }
if wanted vfio-map && [ -z "${NATIVE_VFIO_DEVICE:-}" ]; then
	[ -n "${NATIVE_MEASURES:-}" ] && die "vfio-map needs NATIVE_VFIO_DEVICE (a PCI device bound to vfio-pci)"
	measures=${measures/ vfio-map / }
fi

mkdir -p "$out" || die "cannot create $out"
debugfs_mounted=
if [ ! -d "$KTASK_DEBUGFS" ] && ! mountpoint -q /sys/kernel/debug; then
	mount -t debugfs none /sys/kernel/debug || die "cannot mount debugfs"
	debugfs_mounted=1
fi
if [ ! -d "$KTASK_DEBUGFS" ]; then
	[ -z "$debugfs_mounted" ] || umount /sys/kernel/debug
	die "no $KTASK_DEBUGFS: the kernel lacks CONFIG_DEBUG_FS"
fi

# Everything changed below is put back on exit, whatever happens.
default_threads=$(cat "$KTASK_MAX_THREADS")
hp2m=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
hp1g=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
was2m=$(cat "$hp2m" 2>/dev/null || echo)
was1g=$(cat "$hp1g" 2>/dev/null || echo)
mnt=$(mktemp -d /tmp/ktask-native.XXXXXX)
restore() {
	echo "$default_threads" > "$KTASK_MAX_THREADS"
	for d in "$mnt"/*/; do
		[ -d "$d" ] || continue
		rm -f "$d"f
		umount "$d" 2>/dev/null
		rmdir "$d"
	done
	rmdir "$mnt" 2>/dev/null
	[ -z "$was2m" ] || echo "$was2m" > "$hp2m"
	[ -z "$was1g" ] || echo "$was1g" > "$hp1g"
	[ -z "${thp_was:-}" ] || echo "$thp_was" > "$thp"
	[ -z "$debugfs_mounted" ] || umount /sys/kernel/debug
}
trap restore EXIT
trap 'exit 130' INT TERM

# pool NR_HUGEPAGES PAGES: grow the pool until PAGES are free; fails when
# the kernel gives fewer (memory too fragmented for 1 GiB pages).
pool() {
	local free_file=${1%nr_hugepages}free_hugepages free
	free=$(cat "$free_file")
	[ "$free" -ge "$2" ] && return 0
	echo $(( $(cat "$1") + $2 - free )) > "$1" 2>/dev/null
	[ "$(cat "$free_file")" -ge "$2" ]
}

use_threads() {
	echo "$1" > "$KTASK_MAX_THREADS" || die "cannot set max_threads to $1"
}

# Each run_* THREADS sets NS to one run's wall time.
run_synthetic-cpu() {
	synth "kind=cpu size=$units max_threads=$1"
	NS=$SYNTH_elapsed_ns
	meta "threads_used-synthetic-cpu-$1" "$SYNTH_threads_used"
}

# falloc DIR THREADS [BYTES]
falloc() {
	local dir=$1 bytes=${3:-$falloc_bytes} start
	use_threads "$2"
	start=$(now_ns)
	fallocate -l "$bytes" "$dir/f" || die "fallocate -l $bytes $dir/f failed"
	NS=$(( $(now_ns) - start ))
	rm -f "$dir/f"
}
run_fallocate-2M() { falloc "$mnt/2M" "$1"; }
run_fallocate-1G() { falloc "$mnt/1G" "$1" "$falloc_1g_bytes"; }

run_fault-1G() {
	use_threads "$1"
	NS=$(python3 "$KTASK_TOP/bench/fault-1g.py") || die "1 GiB fault failed"
}

run_vfio-map() {
	local out
	use_threads "$1"
	out=$("$vfio_map" --size "$vfio_size" "$vfio_group") || die "vfio-map --size $vfio_size $vfio_group failed"
	NS=$(sed -n 's/^map_ns=//p' <<< "$out")
}

run_populate() {
	local out
	use_threads "$1"
	out=$("$populate" madv-write $(( populate_bytes >> 20 )) anon) ||
		die "populate madv-write $(( populate_bytes >> 20 )) anon failed"
	[[ $out == result=ok\ * ]] || die "populate: $out"
	field NS elapsed_ns "$out"
}

# What each measure needs, set up once.
if wanted fallocate-2M; then
	if mkdir "$mnt/2M" && pool "$hp2m" $(( falloc_bytes >> 21 )) &&
	   mount -t hugetlbfs -o pagesize=2M none "$mnt/2M"; then :
	else
		progress "fallocate-2M: not measured (could not reserve $(( falloc_bytes >> 21 )) 2 MiB pages)"
		measures=${measures/ fallocate-2M / }
	fi
fi
pages1g=$(( falloc_1g_bytes >> 30 ))
[ "$pages1g" -gt 0 ] || pages1g=1
if wanted fallocate-1G || wanted fault-1G; then
	if [ -n "$was1g" ] && mkdir "$mnt/1G" && pool "$hp1g" "$pages1g" &&
	   mount -t hugetlbfs -o pagesize=1G none "$mnt/1G"; then
		if [ "$falloc_1g_bytes" = 0 ] && wanted fallocate-1G; then
			progress "fallocate-1G: not measured (the fallocate size, $((falloc_bytes >> 20)) MiB, is below 1 GiB)"
			measures=${measures/ fallocate-1G / }
		fi
	else
		progress "1 GiB pages: not measured (could not have $pages1g free; boot with hugepagesz=1G hugepages=N)"
		measures=${measures/ fallocate-1G / }
		measures=${measures/ fault-1G / }
	fi
fi
if wanted vfio-map; then
	vfio_map=$KTASK_TOP/build/meson/tests-bats/progs/vfio-map
	[ -x "$vfio_map" ] || die "no $vfio_map (make tools)"
	dev=/sys/bus/pci/devices/$NATIVE_VFIO_DEVICE
	[ "$(basename "$(readlink "$dev/driver" 2>/dev/null)")" = vfio-pci ] ||
		die "NATIVE_VFIO_DEVICE: $NATIVE_VFIO_DEVICE is not bound to vfio-pci"
	vfio_group=$(basename "$(readlink "$dev/iommu_group")")
	# 4K pages every time: with THP a map's time follows fragmentation.
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2>/dev/null)
	[ -z "$thp_was" ] || echo never > "$thp"
fi

if wanted populate; then
	populate=$KTASK_TOP/build/meson/tests-bats/progs/populate
	[ -x "$populate" ] || die "no $populate (make tools)"
fi

# The machine header, then the samples.
{
	meta machine "$(uname -n)"
	meta kernel "$(uname -r)"
	meta cpu_model "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	meta cpus "$cpus"
	meta nodes "$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)"
	meta memory_gib "$(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)"
	meta governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo none)"
	meta power_mode "$(sed -n 's/^mode: //p' "$KTASK_DEBUGFS/power" 2>/dev/null || echo unknown)"
	meta default_max_threads "$default_threads"
	meta threads "${threads[*]}"
	meta repeats "$repeats"
	meta cpu_units "$units"
	meta falloc_bytes "$falloc_bytes"
	meta falloc_1g_bytes "$falloc_1g_bytes"
	meta vfio_bytes "$vfio_bytes"
	meta populate_bytes "$populate_bytes"
	meta thp "$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo none)"
	meta date "$(date -u +%Y-%m-%dT%H:%MZ)"
} > "$raw"
echo "machine: $(uname -n), $cpus CPUs, nodes $(cat /sys/devices/system/node/online 2>/dev/null || echo 0), kernel $(uname -r)"

for m in $measures; do
	"run_$m" "${threads[-1]}" > /dev/null	# warm-up, discarded
	for ((r = 1; r <= repeats; r++)); do
		line=
		for ((i = 0; i < ${#threads[@]}; i++)); do
			t=${threads[$(( (r + i) % ${#threads[@]} ))]}
			"run_$m" "$t" >> "$raw"
			sample "$m" "$t" "$NS" >> "$raw"
			line+=" $t:$(ms "$NS")"
		done
		progress "$m round $r/$repeats (threads:ms)$line"
	done
done

python3 "$KTASK_TOP/bench/native_results.py" "$out" || die "native_results.py failed"
cat "$out/results.md"

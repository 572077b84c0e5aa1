#!/bin/bash
# Runs in the guest (bench/bench-vfio.sh; boot with -device intel-iommu
# -device edu and intel_iommu=on iommu=nopt): times VFIO_IOMMU_MAP_DMA of
# BENCH_VFIO_SIZE (1G) through the edu device's group, ktask limited to
# 1 thread vs the default, alternating, after one discarded warm-up (the
# host backs guest memory on first touch).  Each map runs in a fresh
# process on a fresh buffer, so pinning faults the pages in, as for a VM
# whose memory is not preallocated; the "-populated" measure maps a
# MAP_POPULATE'd buffer (pin and IOMMU map only).  Prints one line per
# measure: "name unit min_1thread min_default ratio"; progress on stderr,
# indented.
#
# BENCH_VFIO_SWEEP=1 instead sweeps the sizes in BENCH_VFIO_SIZES (2M ...
# 256M) and prints "vfio-map-SIZE us median_1thread median_default ratio",
# to choose the minimum chunk size.  BENCH_REPEATS (5): measures per side.
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
vfio_map=$top/build/meson/tests-bats/progs/vfio-map
size=${BENCH_VFIO_SIZE:-1G}
sizes=${BENCH_VFIO_SIZES:-"2M 4M 8M 16M 32M 64M 128M 256M"}
repeats=${BENCH_REPEATS:-5}
param=/sys/module/ktask/parameters/max_threads
default=$(cat "$param")
thp_for_vfio

[ -x "$vfio_map" ] || { echo "bench/vfio.sh: no $vfio_map (make tools)" >&2; exit 1; }
read -r bdf group < <("$top/tests-bats/progs/vfio-bind.sh") || exit 1
echo "  edu $bdf, /dev/vfio/$group; ktask max_threads $default; $(nproc) CPUs; THP ${BENCH_VFIO_THP:-never}" >&2

# map SIZE [ARGS...]: one map and unmap of SIZE in a fresh process; their
# times in ns in MAP and UNMAP, the map's CPU time (every thread's) in CPU.
map() {
	local out
	out=$("$vfio_map" --size "$@" "$group") || { echo "bench/vfio.sh: vfio-map --size $*: failed" >&2; exit 1; }
	MAP=$(sed -n 's/^map_ns=//p' <<< "$out")
	UNMAP=$(sed -n 's/^unmap_ns=//p' <<< "$out")
	CPU=$(sed -n 's/^map_cpu_ns=//p' <<< "$out")
}

# pick min|median NUMBERS...  (median: bench/lib.sh's)
pick() {
	local how=$1
	shift
	if [ "$how" = min ]; then
		printf '%s\n' "$@" | sort -n | head -n 1
	else
		median "$@"
	fi
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'
}

# measure NAME UNIT_DIVISOR UNIT HOW SIZE [ARGS...]: alternate 1 thread and
# the default after a warm-up; print the map line (and the unmap line for
# the 1 GiB measures).
measure() {
	local name=$1 div=$2 unit=$3 how=$4 i one=() def=() uone=() udef=() cone cdef
	shift 4
	map "$@"	# warm-up, discarded
	for ((i = 0; i < repeats; i++)); do
		echo 1 > "$param"
		map "$@"; one+=($(( MAP / div ))); uone+=($(( UNMAP / div ))); cone=$(( CPU / div ))
		echo "$default" > "$param"
		map "$@"; def+=($(( MAP / div ))); udef+=($(( UNMAP / div ))); cdef=$(( CPU / div ))
		echo "  $name: 1 thread ${one[-1]} $unit (CPU $cone $unit), $default threads ${def[-1]} $unit (CPU $cdef $unit)" >&2
	done
	local a b
	a=$(pick "$how" "${one[@]}") b=$(pick "$how" "${def[@]}")
	echo "$name $unit $a $b $(ratio "$a" "$b")"
	if [ -z "${BENCH_VFIO_SWEEP:-}" ]; then
		a=$(pick "$how" "${uone[@]}") b=$(pick "$how" "${udef[@]}")
		echo "${name/map/unmap} $unit $a $b $(ratio "$a" "$b")"
	fi
}

if [ -n "${BENCH_VFIO_SWEEP:-}" ]; then
	for s in $sizes; do
		measure "vfio-map-$s" 1000 us median "$s"
	done
else
	measure "vfio-map-$size" 1000000 ms min "$size"
	measure "vfio-map-$size-populated" 1000000 ms min "$size" --populate
fi
echo "$default" > "$param"

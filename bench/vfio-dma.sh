#!/bin/bash
# Guest side of measure 5 (bench/bench.sh; boot with -device intel-iommu
# -device edu and intel_iommu=on iommu=nopt): VFIO_IOMMU_MAP_DMA of
# BENCH_VFIO_SIZE (1G), each map in a fresh process on a fresh buffer (the
# pins fault the pages in) and on a MAP_POPULATE'd one ("-populated").
# On the ktask kernel bench/vfio.sh measures, ktask at its default and at
# one thread alternating, and its per-round lines become samples; the
# baseline kernel has no ktask to limit, so the same maps run here, after
# the same discarded warm-up.
#
# Samples: vfio-map-SIZE[-populated] ktask|1thread|baseline NS,
#          vfio-map-cpu-SIZE[-populated] ktask|1thread NS (total work: the
#          CPU time of every thread of the mapping process over the map).
. "$(dirname "$0")/lib.sh"

size=${BENCH_VFIO_SIZE:-1G}
meta vfio_size "$size"
meta vfio_thp "${BENCH_VFIO_THP:-never}"

if have_ktask; then
	export BENCH_REPEATS BENCH_VFIO_SIZE=$size
	# "  NAME: 1 thread A ms (CPU C ms), N threads B ms (CPU D ms)" per
	# round (bench/vfio.sh).  Its summary lines (not indented) are left
	# out: the samples say more.
	"$BENCH_TOP/bench/vfio.sh" 2>&1 | awk '
		/^ / { print; fflush() }
		/^  vfio-map-[^ ]*: 1 thread [0-9]+ ms \(CPU [0-9]+ ms\), [0-9]+ threads [0-9]+ ms \(CPU [0-9]+ ms\)$/ {
			name = $1; sub(/:$/, "", name)
			cpu = name; sub(/^vfio-map-/, "vfio-map-cpu-", cpu)
			printf "@sample %s 1thread %.0f\n@sample %s ktask %.0f\n", name, $4 * 1000000, name, $11 * 1000000
			printf "@sample %s 1thread %.0f\n@sample %s ktask %.0f\n", cpu, $7 * 1000000, cpu, $14 * 1000000
			n++; fflush()
		}
		END { if (!n) { print "bench/vfio-dma.sh: no samples from bench/vfio.sh" > "/dev/stderr"; exit 1 } }'
	status=("${PIPESTATUS[@]}")
	[ "${status[0]}" = 0 ] || die "bench/vfio.sh failed"
	exit "${status[1]}"
fi

vfio_map=$BENCH_TOP/build/meson/tests-bats/progs/vfio-map
[ -x "$vfio_map" ] || die "no $vfio_map (make tools)"
read -r bdf group < <("$BENCH_TOP/tests-bats/progs/vfio-bind.sh") || die "no VFIO group"
thp_for_vfio
progress "edu $bdf, /dev/vfio/$group; no ktask; $(nproc) CPUs; THP ${BENCH_VFIO_THP:-never}"

# map ARGS...: one map and unmap in a fresh process; sets NS (the map's).
map() {
	local out
	out=$("$vfio_map" --size "$size" "$@" "$group") || die "vfio-map --size $size $*: failed"
	NS=$(sed -n 's/^map_ns=//p' <<< "$out")
}

for name in "vfio-map-$size" "vfio-map-$size-populated"; do
	args=()
	[ "$name" = "vfio-map-$size" ] || args=(--populate)
	map "${args[@]}"	# warm-up, discarded
	for ((r = 1; r <= BENCH_REPEATS; r++)); do
		map "${args[@]}"
		sample "$name" baseline "$NS"
		progress "$name round $r/$BENCH_REPEATS: baseline $(ms "$NS") ms"
	done
done

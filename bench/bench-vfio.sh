#!/bin/bash
# The VFIO benchmark: VFIO_IOMMU_MAP_DMA of 1 GiB (vfio_pin_map_dma) with
# ktask at the default maximum vs limited to one thread, side by side in
# one boot of a guest with QEMU's intel-iommu and edu devices (bench/vfio.sh
# does the measuring).  Prints a table of ratios and writes it to
# build/bench/vfio.txt.  BENCH_VFIO_SWEEP=1 sweeps map sizes 2M-256M instead
# (medians; for choosing the minimum chunk size) into build/bench/vfio-sweep.txt.
#
# Environment: BENCH_REPEATS (5), BENCH_VFIO_SIZE (1G), BENCH_VFIO_SWEEP,
# BENCH_VFIO_THP (never: transparent huge pages in the guest, bench/lib.sh),
# BENCH_VFIO_SIZES ("2M 4M ... 256M"), VM_MEM (3G), VM_SMP (2).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

out=$KTASK_TOP/build/bench
mkdir -p "$out"
[ -x "$KTASK_TOP/build/meson/tests-bats/progs/vfio-map" ] || "$KTASK_TOP/scripts/build-tools.sh"

# The guest sees none of this environment: pass the settings on the command line.
settings=
for v in BENCH_REPEATS BENCH_VFIO_SIZE BENCH_VFIO_SWEEP BENCH_VFIO_SIZES BENCH_VFIO_THP; do
	[ -z "${!v:-}" ] || settings+="$v=$(printf '%q' "${!v}") "
done
if [ -n "${BENCH_VFIO_SWEEP:-}" ]; then
	name=vfio-sweep what="map sizes ${BENCH_VFIO_SIZES:-2M-256M}, median of ${BENCH_REPEATS:-5}"
else
	name=vfio what="map ${BENCH_VFIO_SIZE:-1G}, min of ${BENCH_REPEATS:-5}"
fi

info "vfio: ${VM_MEM:-3G} guest with intel-iommu and edu, $what"
VM_QUIET=1 VM_MEM=${VM_MEM:-3G} VM_QEMU_ARGS="${VM_QEMU_ARGS:-} -device intel-iommu -device edu" \
	VM_APPEND="${VM_APPEND:-} intel_iommu=on iommu=nopt" \
	"$KTASK_TOP/scripts/vm-run.sh" "$settings$KTASK_TOP/bench/vfio.sh" > "$out/$name.raw"
grep '^ ' "$out/$name.raw" >&2 || true

{
	printf '%-28s %-5s %10s %10s %8s\n' measure unit 1-thread ktask speedup
	while read -r measure unit a b ratio; do
		printf '%-28s %-5s %10s %10s %7sx\n' "$measure" "$unit" "$a" "$b" "$ratio"
	done < <(grep -v '^ ' "$out/$name.raw")
} | tee "$out/$name.txt"

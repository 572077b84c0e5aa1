#!/bin/bash
# The memory users' benchmark: hugetlbfs fallocate (1 GiB and 2 MiB pages)
# with ktask at the default maximum vs limited to one thread, side by side
# in one boot; and deferred struct page init per node at boot for the ktask
# kernel, the ktask kernel with ktask.max_threads=1 and the baseline kernel
# (mainline's padata path).  Prints a table of ratios.
#
# Environment: BENCH_REPEATS (3), BENCH_BOOTS (3 boots per deferred-init
# kernel), VM_SMP (2).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

boots=${BENCH_BOOTS:-3}
out=$KTASK_TOP/build/bench
mkdir -p "$out"

info "fallocate: 6 GiB guest, 2 x 1 GiB + 1100 x 2 MiB pages"
VM_QUIET=1 VM_MEM=6G VM_APPEND="hugepagesz=1G hugepages=2 hugepagesz=2M hugepages=1100" \
	BENCH_REPEATS=${BENCH_REPEATS:-3} \
	"$KTASK_TOP/scripts/vm-run.sh" "$KTASK_TOP/bench/fallocate.sh" > "$out/fallocate.txt"
grep '^ ' "$out/fallocate.txt" >&2 || true

# deferred_ms KERNEL APPEND: the slowest node's deferred init over $boots boots (min of those).
deferred_ms() {
	local best= ms
	for ((b = 0; b < boots; b++)); do
		ms=$(KERNEL=$1 VM_QUIET=1 VM_MEM=16G VM_APPEND="$2" "$KTASK_TOP/scripts/vm-run.sh" \
			'dmesg | sed -n "s/.*node [0-9]* deferred pages initialised in \([0-9]*\)ms/\1/p"' |
			sort -n | tail -1)
		[ -n "$ms" ] || die "no deferred init line from the $1 kernel"
		echo "  deferred init, $1 ${2:-}: ${ms} ms" >&2
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
	done
	echo "$best"
}

info "deferred struct page init: 16 GiB guest (8 GiB per node), $boots boots per kernel"
[ -f "$(kernel_image baseline)" ] || "$KTASK_TOP/scripts/build-kernel.sh" baseline
ktask=$(deferred_ms ktask "")
one=$(deferred_ms ktask "ktask.max_threads=1")
base=$(deferred_ms baseline "")

{
	printf '%-22s %-5s %10s %10s %8s\n' measure unit 1-thread ktask "speedup"
	while read -r name unit a b ratio; do
		printf '%-22s %-5s %10s %10s %7sx\n' "$name" "$unit" "$a" "$b" "$ratio"
	done < <(grep -v '^ ' "$out/fallocate.txt")
	printf '%-22s %-5s %10s %10s %7sx   (baseline padata: %s ms, ktask/baseline %s)\n' \
		deferred-init-per-node ms "$one" "$ktask" \
		"$(awk -v a="$one" -v b="$ktask" 'BEGIN { printf "%.2f", b ? a / b : 0 }')" "$base" \
		"$(awk -v a="$ktask" -v b="$base" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
} | tee "$out/memory.txt"

#!/bin/bash
# Build the kernel's own mm selftests for the paths the series' users touch
# (MADV_POPULATE_*, MAP_POPULATE, mlock, memfd and its fallocate, NUMA
# migration) into
# build/mm-selftests, static, so
# that the test guest runs them as they are (106-mm-selftests.bats).  They
# come from the kernel tree the kernels are built from, against its UAPI
# headers (headers_install, into the same directory).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The selftests, DIR/TEST each, built from DIR/TEST.c, its directory's
# shared code (SHARED_SOURCE) and the libraries it needs (LIBS; libnuma
# from libnuma-dev, linked in statically).
MM_SELFTESTS=(mm/madv_populate mm/map_populate mm/mlock2-tests memfd/memfd_test mm/migration)
declare -A SHARED_SOURCE=([mm]="vm_util.c thp_settings.c" [memfd]=common.c)
declare -A LIBS=([mm/migration]="-lnuma -lpthread")

out=$KTASK_TOP/build/mm-selftests
src=$KTASK_SRC/tools/testing/selftests
[ -d "$src/mm" ] || die "no $src/mm: make kernel first"
mkdir -p "$out"
stamp=$out/.built-from
want="$(git -C "$KTASK_SRC" rev-parse HEAD) ${MM_SELFTESTS[*]}"
[ "$(cat "$stamp" 2> /dev/null)" != "$want" ] || exit 0

info "building mm selftests (${MM_SELFTESTS[*]}) into $out"
make -s -C "$KTASK_SRC" O="$out/hdr-build" headers_install INSTALL_HDR_PATH="$out/hdr" > "$out/build.log" 2>&1 ||
	die "headers_install failed: $out/build.log"
for t in "${MM_SELFTESTS[@]}"; do
	dir=${t%/*}
	read -ra shared <<< "${SHARED_SOURCE[$dir]}"
	read -ra libs <<< "${LIBS[$t]:-}"
	gcc -static -O2 -Wall -isystem "$out/hdr/include" -I "$src" -I "$KTASK_SRC/tools/include" \
		-o "$out/${t#*/}" "$src/$t.c" "${shared[@]/#/$src/$dir/}" \
		"${libs[@]}" >> "$out/build.log" 2>&1 ||
		die "building $t failed: $out/build.log"
done
rm -rf "$out/hdr-build"
echo "$want" > "$stamp"

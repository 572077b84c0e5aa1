#!/bin/bash
# Build the kernel's own mm selftests for the paths the series' users touch
# (MADV_POPULATE_*, MAP_POPULATE, mlock) into build/mm-selftests, static, so
# that the test guest runs them as they are (106-mm-selftests.bats).  They
# come from the kernel tree the kernels are built from, against its UAPI
# headers (headers_install, into the same directory).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The selftests, each built from TEST.c and the mm selftests' vm_util.c.
MM_SELFTESTS=(madv_populate map_populate mlock2-tests)

out=$KTASK_TOP/build/mm-selftests
src=$KTASK_SRC/tools/testing/selftests/mm
[ -d "$src" ] || die "no $src: make kernel first"
mkdir -p "$out"
stamp=$out/.built-from
want=$(git -C "$KTASK_SRC" rev-parse HEAD)
[ "$(cat "$stamp" 2> /dev/null)" != "$want" ] || exit 0

info "building mm selftests (${MM_SELFTESTS[*]}) into $out"
make -s -C "$KTASK_SRC" O="$out/hdr-build" headers_install INSTALL_HDR_PATH="$out/hdr" > "$out/build.log" 2>&1 ||
	die "headers_install failed: $out/build.log"
for t in "${MM_SELFTESTS[@]}"; do
	gcc -static -O2 -Wall -isystem "$out/hdr/include" -I "$src/.." -I "$KTASK_SRC/tools/include" \
		-o "$out/$t" "$src/$t.c" "$src/vm_util.c" >> "$out/build.log" 2>&1 ||
		die "building $t failed: $out/build.log"
done
rm -rf "$out/hdr-build"
echo "$want" > "$stamp"

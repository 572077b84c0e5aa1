#!/bin/bash
# Build one kernel flavour in $KTASK_CACHE/build/<flavour>, incrementally.
#
# Usage: build-kernel.sh ktask|baseline|ktask-off
# Flavours share the source tree ($KTASK_SRC, checked out just before the
# build), so do not build two at the same time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-ktask}
build=$(kernel_build_dir "$flavour")

"$KTASK_TOP/scripts/unpack-source.sh"
"$KTASK_TOP/scripts/apply-series.sh" "$( [ "$flavour" = baseline ] && echo baseline || echo ktask )"
mkdir -p "$CCACHE_DIR"
kconfigure "$flavour" "$KTASK_SRC" "$build"

info "building $flavour kernel in $build (log: $build/build.log)"
start=$(date +%s)
kbuild_progress "$KTASK_SRC" "$build" "$build/build.log" bzImage ||
	die "$flavour kernel build failed"
info "$flavour kernel ready: $(kernel_image "$flavour") ($(( $(date +%s) - start )) s)"

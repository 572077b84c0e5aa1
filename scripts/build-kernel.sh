#!/bin/bash
# Build one kernel flavour in $KTASK_CACHE/build/<flavour>, incrementally.
#
# Usage: build-kernel.sh ktask|baseline|debug
# A flavour's source is checked out just before its build; flavours share
# the source tree, so do not build two at the same time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-ktask}
fragments=$(kernel_fragments "$flavour")
build=$(kernel_build_dir "$flavour")
jobs=${JOBS:-$(( $(nproc) + 1 ))}

"$KTASK_TOP/scripts/unpack-source.sh"
"$KTASK_TOP/scripts/apply-series.sh" "$( [ "$flavour" = baseline ] && echo baseline || echo ktask )"

mkdir -p "$build" "$CCACHE_DIR"
kmake() {
	make -C "$KTASK_SRC" O="$build" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=ktask KBUILD_BUILD_HOST=ktask \
		KBUILD_BUILD_TIMESTAMP="2000-01-01" "$@"
}

# Regenerate .config only when a fragment changed: a fresh .config makes
# kbuild re-check every object.
config_id=$(cd "$KTASK_CONFIGS" && cat $fragments | sha256sum | cut -c1-16)
if [ ! -f "$build/.config" ] || [ "$(cat "$build/.ktask-config-id" 2>/dev/null)" != "$config_id" ]; then
	info "configuring $flavour kernel: tinyconfig + $fragments"
	kmake -s tinyconfig >/dev/null
	(cd "$KTASK_CONFIGS" && "$KTASK_SRC/scripts/kconfig/merge_config.sh" -m -O "$build" \
		"$build/.config" $fragments) > "$build/merge-config.log"
	kmake -s olddefconfig >/dev/null
	# merge_config only warns; a requested option that did not stick is an error.
	missing=0
	for f in $fragments; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=n) grep -qx "${line%=n}=y" "$build/.config" &&
				{ echo "  $f: $line not honoured" >&2; missing=1; } ;;
			CONFIG_*) grep -qxF "$line" "$build/.config" ||
				{ echo "  $f: $line not honoured" >&2; missing=1; } ;;
			esac
		done < "$KTASK_CONFIGS/$f"
	done
	[ $missing = 0 ] || die "config fragments not honoured (dependencies missing?)"
	echo "$config_id" > "$build/.ktask-config-id"
fi

info "building $flavour kernel in $build (-j$jobs, log: $build/build.log)"
start=$(date +%s)
set +e
kmake -j"$jobs" bzImage 2>&1 | tee "$build/build.log" | awk '
	/^  [A-Z]+ / { n++; if (n % 200 == 0) { printf "    ... %d steps\n", n; fflush() } next }
	/warning:|error:|Error / { print; fflush() }'
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" != 0 ]; then
	tail -40 "$build/build.log" >&2
	die "$flavour kernel build failed"
fi
info "$flavour kernel ready: $(kernel_image "$flavour") ($(( $(date +%s) - start )) s)"

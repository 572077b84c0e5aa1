#!/bin/bash
# Config coverage: the series (all of it applied) builds in the configs a
# kernel maintainer and a distribution build, not only in the guest's.
#
# Usage: check-configs.sh [--list] [LANE...]   (default: every lane)
#
# Lanes (docs/testing.md: Config coverage):
#   <fragment>  every kernel/configs/lanes/<lane>.config: the guest config
#               (tinyconfig + base.config + ktask.config) plus the fragment,
#               vmlinux and, with MODULES=y, the modules and modpost;
#   w1          the files the series adds, compiled with W=1: no warning;
#   debian      Debian's own amd64 config (package linux-config-6.12) with
#               ktask on, its KUnit suite and VFIO as modules: the objects
#               the series touches and the modules that use ktask (a full
#               Debian build takes hours here; the link and modpost checks
#               are the modules and i386 lanes').
# Each lane builds in $KTASK_CACHE/build/cfg-<lane> from its own worktree
# ($KTASK_CACHE/configs-src), so it never disturbs the kernels under test.
# A lane fails on a build error, on a fragment option that did not stick, and
# on any warning in a file the series touches.  Prints one line per lane with
# its time and "N passed, N failed".
#
# CHECK_CONFIGS_BUDGET_S: seconds the lanes may take (.ci/run gives what its
# budget has left).  A lane whose measured cost would overrun what is left is
# skipped with a SKIP line, not failed, and the cheaper lanes after it still
# run.  The cost is the warm one when the lane's last build (passed or not)
# was of this tree, or of one that differs from it in .c files only; cold
# otherwise (a header, Kconfig or Makefile changed: most objects rebuild).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

lanes_dir=$KTASK_CONFIGS/lanes
all_lanes() {
	(cd "$lanes_dir" && ls -1 *.config | sed 's/\.config$//')
	echo w1
	echo debian
}
if [ "${1:-}" = --list ]; then
	all_lanes
	exit 0
fi
lanes=("$@")
[ ${#lanes[@]} -gt 0 ] || mapfile -t lanes < <(all_lanes)
known=$(all_lanes)
for lane in "${lanes[@]}"; do
	grep -qxF "$lane" <<< "$known" || die "unknown lane '$lane' (--list shows them)"
done

budget=${CHECK_CONFIGS_BUDGET_S:-}
[ -z "$budget" ] || [[ $budget =~ ^-?[0-9]+$ ]] ||
	die "CHECK_CONFIGS_BUDGET_S must be a number of seconds, got '$budget'"
# Less than the setup and the cheapest warm lane take: no setup either.
if [ -n "$budget" ] && [ "$budget" -lt 60 ]; then
	for lane in "${lanes[@]}"; do
		echo "SKIP check-configs: $lane: CHECK_CONFIGS_BUDGET_S=$budget leaves no time for any lane"
	done
	echo "0 passed, 0 failed"
	exit 0
fi

"$KTASK_TOP/scripts/unpack-source.sh" || exit 1
src=$KTASK_CACHE/configs-src
worktree "$src" || exit 1
"$KTASK_TOP/scripts/apply-series.sh" ktask "$src" || exit 1
mkdir -p "$CCACHE_DIR"

# What the series touches, from the checkout (base..HEAD).
touched_files=$(git -C "$src" diff --name-only refs/tags/base HEAD)
added_objs=$(git -C "$src" diff --name-only --diff-filter=A refs/tags/base HEAD -- '*.c' | sed 's/\.c$/.o/')

# Seconds per lane measured here (docs/testing.md: Config coverage): cold in
# an empty build directory beside other builds, warm after a pass (the
# files the series touches are always rebuilt, see forget_touched_objects).
declare -A cold_s=([i386]=1537 [modules]=680 [nocpufreq]=694 [nodebugfs]=764
	[noktask]=723 [nomemcg]=684 [nonet]=572 [nonuma]=728 [notracing]=530
	[up]=2523 [w1]=72 [debian]=624)
declare -A warm_s=([i386]=67 [modules]=79 [nocpufreq]=49 [nodebugfs]=68
	[noktask]=69 [nomemcg]=67 [nonet]=71 [nonuma]=67 [notracing]=60
	[up]=47 [w1]=39 [debian]=40)
# A lane measured nowhere above is assumed as costly as the costliest.
unmeasured_s=2523
# The tree (git tree id) a lane's build directory last built.
built_stamp=.ktask-lane-built-tree
current_tree=$(git -C "$src" rev-parse 'HEAD^{tree}')

lane_is_warm() {
	local built changed
	built=$(cat "$KTASK_CACHE/build/cfg-$1/$built_stamp" 2>/dev/null) || return 1
	[ "$built" = "$current_tree" ] && return 0
	# Trees of earlier series stay in the object store until git gc: a
	# diff that fails counts as cold.
	changed=$(git -C "$src" diff --name-only "$built" "$current_tree" 2>/dev/null) || return 1
	! grep -qv '\.c$' <<< "$changed"
}

lane_cost() {
	if lane_is_warm "$1"; then
		echo "${warm_s[$1]:-$unmeasured_s}"
	else
		echo "${cold_s[$1]:-$unmeasured_s}"
	fi
}

passed=0 failed=0 skipped=0
result() {
	if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "PASS check-configs: $2"
	else failed=$((failed + 1)); echo "FAIL check-configs: $2"; fi
}

# configure_lane BUILD ARCH BASECONFIG-CMD FRAGMENT...: BASECONFIG-CMD makes
# the starting .config ("tinyconfig", or "cp FILE"), the fragments (paths)
# are merged onto it, and only the last fragment (the lane's own) must
# stick: the guest fragments ask for 64-bit things an i386 lane drops.
configure_lane() {
	local build=$1 arch=$2 start=$3
	shift 3
	mkdir -p "$build"
	case $start in
	tinyconfig) kmake "$src" "$build" ARCH="$arch" -s tinyconfig >/dev/null || return 1 ;;
	*) cp "$start" "$build/.config" || return 1 ;;
	esac
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$@" \
		> "$build/merge-config.log" || return 1
	kmake "$src" "$build" ARCH="$arch" -s olddefconfig >/dev/null || return 1
	kconfig_verify "$build/.config" "${@: -1}"
}

# series_warnings LOG: warnings and errors in files the series touches,
# modpost's (upper case, naming the module) included.
series_warnings() {
	grep -iE '(warning|error):' "$1" |
		grep -F -f <(echo "$touched_files"; grep '\.c$' <<< "$touched_files" | sed 's/\.c$/.ko/') || true
}

# forget_touched_objects BUILD: a warning does not stop an object being
# written, so without this a second run would not see it again.
forget_touched_objects() {
	local f
	for f in $(grep '\.c$' <<< "$touched_files"); do
		rm -f "$1/${f%.c}.o"
	done
}

run_lane() {
	local lane=$1 build=$KTASK_CACHE/build/cfg-$1 arch=x86_64 log targets rc=0 warnings
	local guest=("$KTASK_CONFIGS/base.config" "$KTASK_CONFIGS/ktask.config")
	log=$build/build.log
	forget_touched_objects "$build"
	case $lane in
	w1)
		configure_lane "$build" x86_64 tinyconfig "${guest[@]}" || return 1
		kmake "$src" "$build" -j"$(( $(nproc) + 1 ))" W=1 $added_objs > "$log" 2>&1 || rc=1
		;;
	debian)
		local debian=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
		[ -f "$debian" ] || { echo "    $debian missing: make deps installs linux-config-6.12"; return 1; }
		mkdir -p "$build"
		xz -dc "$debian" > "$build/debian.config" || return 1
		# Debian's trusted keys are files of its own source package.
		printf '%s\n' CONFIG_KTASK=y CONFIG_KUNIT=y CONFIG_KTASK_KUNIT_TEST=m \
			CONFIG_VFIO=m CONFIG_VFIO_IOMMU_TYPE1=m 'CONFIG_SYSTEM_TRUSTED_KEYS=""' \
			> "$build/lane.config"
		configure_lane "$build" x86_64 "$build/debian.config" "$build/lane.config" || return 1
		targets=$(grep '\.c$' <<< "$touched_files" | sed 's/\.c$/.o/')
		kmake "$src" "$build" -j"$(( $(nproc) + 1 ))" $targets > "$log" 2>&1 || rc=1
		;;
	*)
		[ "$lane" = i386 ] && arch=i386
		configure_lane "$build" "$arch" tinyconfig "${guest[@]}" "$lanes_dir/$lane.config" || return 1
		# The modules lane boots its kernel: the bzImage, which links vmlinux.
		targets=vmlinux
		[ "$lane" != modules ] || targets=bzImage
		! grep -q '^CONFIG_MODULES=y' "$build/.config" || targets+=" modules"
		kmake "$src" "$build" ARCH="$arch" -j"$(( $(nproc) + 1 ))" $targets > "$log" 2>&1 || rc=1
		;;
	esac
	[ "$rc" = 0 ] || tail -30 "$log" | sed 's/^/    /'
	warnings=$(series_warnings "$log")
	[ -z "$warnings" ] || { sed 's/^/    /' <<< "$warnings"; rc=1; }
	[ "$rc" != 0 ] || [ "$lane" != modules ] || kunit_module_passes "$build" || rc=1
	return $rc
}

# kunit_module_passes BUILD: boot the modules lane's kernel and load its
# ktask_test.ko (the guest sees the host's files): every case must pass.
kunit_module_passes() {
	local build=$1 out cases failures
	out=$(VM_IMAGE=$build/arch/x86/boot/bzImage VM_QUIET=1 VM_TIMEOUT=900 \
		"$KTASK_TOP/scripts/vm-run.sh" \
		"insmod $build/kernel/ktask_test.ko && cat /sys/kernel/debug/kunit/ktask/results" 2>&1)
	cases=$(grep -cE '^\s+ok [0-9]+ ktask_test_' <<< "$out")
	failures=$(grep -cE '^\s+not ok [0-9]+ ktask_test_' <<< "$out")
	echo "    ktask_test.ko loaded in the guest: $cases cases passed, $failures failed"
	if [ "$cases" = 0 ] || [ "$failures" != 0 ] || ! grep -qE '^ok [0-9]+ ktask' <<< "$out"; then
		tail -40 <<< "$out" | sed 's/^/    /'
		return 1
	fi
}

for lane in "${lanes[@]}"; do
	if [ -n "$budget" ]; then
		cost=$(lane_cost "$lane")
		if [ $(( SECONDS + cost )) -gt "$budget" ]; then
			skipped=$((skipped + 1))
			echo "SKIP check-configs: $lane: about $cost s, $(( budget - SECONDS )) s left of CHECK_CONFIGS_BUDGET_S=$budget"
			continue
		fi
	fi
	info "lane $lane (log: $KTASK_CACHE/build/cfg-$lane/build.log)"
	start=$SECONDS
	run_lane "$lane"
	rc=$?
	# Passed or not, the build directory now holds this tree's objects.
	[ ! -d "$KTASK_CACHE/build/cfg-$lane" ] ||
		echo "$current_tree" > "$KTASK_CACHE/build/cfg-$lane/$built_stamp"
	result "$rc" "$lane ($(( SECONDS - start )) s)"
done
[ "$skipped" = 0 ] || echo "$skipped lanes skipped: they did not fit CHECK_CONFIGS_BUDGET_S"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

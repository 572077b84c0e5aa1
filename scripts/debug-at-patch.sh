#!/bin/bash
# Boot the debug kernel (lockdep, KASAN, kmemleak: configs/debug.config) at
# chosen points of the series and run the users present there, so that a
# lockdep report is pinned to the patch that brings it in.
#
# Usage: debug-at-patch.sh N...   (N: the number of patches applied, 2..all)
#
# Each N is built incrementally in $KTASK_CACHE/build/debug-at from a
# worktree of the development tree ($KTASK_TREE, branch ktask) at the Nth
# commit after base: the points are built in ascending order, so a point
# recompiles only what its patches changed.  The guest then checks the KUnit
# suite's results (from boot) and runs a synthetic task, each only if the
# series has that interface yet, fallocates 2 MiB and 1 GiB pages on
# hugetlbfs and faults in a 1 GiB page; vm-run.sh fails the boot on any
# oops, WARN, lockdep, KASAN or kmemleak report.  Prints one PASS/FAIL line
# per point.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: debug-at-patch.sh N... (patches applied, ascending)"
[ -d "$KTASK_TREE" ] || die "no development tree at $KTASK_TREE (run 'make tree')"
debug_config=$(kernel_build_dir debug)/.config
[ -f "$debug_config" ] || die "no debug kernel configured (run 'make test-debug' or 'make kernel KERNEL=debug' first)"

mapfile -t commits < <(git -C "$KTASK_TREE" rev-list --reverse base..ktask)
src=$KTASK_CACHE/debug-at-src
build=$KTASK_CACHE/build/debug-at
mkdir -p "$build" "$CCACHE_DIR"
worktree "$src" "$KTASK_TREE"

# Runs in the guest as root.  A step whose interface the series lacks at
# this point says so and is skipped; any other failure fails the point.
guest_script='
set -eu
fail=0
if [ -r /sys/kernel/debug/kunit/ktask/results ]; then
	r=/sys/kernel/debug/kunit/ktask/results
	echo "kunit: $(grep -cE "^\s+ok [0-9]+ ktask_test_" "$r" || true) ok, $(grep -cE "^\s+not ok [0-9]+ ktask_test_" "$r" || true) not ok"
	grep -qE "^ok [0-9]+ ktask$" "$r" || { grep -E "not ok" "$r"; fail=1; }
else
	echo "kunit: no results (suite not in this series yet)"
fi
if [ -w /sys/kernel/debug/ktask/synthetic ]; then
	echo "kind=cpu size=200000 min_chunk=1000 max_threads=4" > /sys/kernel/debug/ktask/synthetic
	echo "synthetic: $(tr "\n" " " < /sys/kernel/debug/ktask/synthetic)"
else
	echo "synthetic: not in this series yet"
fi
mkdir -p /tmp/h2 /tmp/h1
mount -t hugetlbfs -o pagesize=2M none /tmp/h2
mount -t hugetlbfs -o pagesize=1G none /tmp/h1
fallocate -l 128M /tmp/h2/f && echo "fallocate 2M pages: ok" || fail=1
rm -f /tmp/h2/f
fallocate -l 1G /tmp/h1/f && echo "fallocate 1G page: ok" || fail=1
rm -f /tmp/h1/f
python3 '"$KTASK_TOP"'/bench/fault-1g.py >/dev/null && echo "fault 1G page: ok" || fail=1
exit $fail
'

passed=0 failed=0
for n in "$@"; do
	case $n in ''|*[!0-9]*) die "$n: not a patch count" ;; esac
	[ "$n" -ge 1 ] && [ "$n" -le "${#commits[@]}" ] || die "$n: the series has ${#commits[@]} patches"
	commit=${commits[$((n - 1))]}
	subject=$(git -C "$KTASK_TREE" log -1 --format=%s "$commit")
	git -C "$src" checkout -q --detach "$commit"
	cp "$debug_config" "$build/.config"
	kmake "$src" "$build" -s olddefconfig >/dev/null
	info "debug kernel with patches 1..$n ($subject)"
	log=$build/boot-$n.log
	if ! kbuild_progress "$src" "$build" "$build/build-$n.log" bzImage >/dev/null; then
		failed=$((failed + 1)); echo "FAIL debug-at-patch: $n builds ($build/build-$n.log)"
		continue
	fi
	# 1 GiB for the pages, 3 GiB for KASAN's shadow and the rest.
	if KERNEL=debug VM_IMAGE=$build/arch/x86/boot/bzImage VM_MEM=4G VM_SMP=2 VM_QUIET=1 \
		VM_APPEND="hugepagesz=1G hugepages=1 hugepagesz=2M hugepages=64" \
		timeout 1500 "$KTASK_TOP/scripts/vm-run.sh" "$guest_script" > "$log" 2>&1; then
		passed=$((passed + 1)); echo "PASS debug-at-patch: $n ($subject): $(grep -E '^(kunit|synthetic|fallocate|fault)' "$log" | tr '\n' ';')"
	else
		failed=$((failed + 1)); echo "FAIL debug-at-patch: $n ($subject); the guest's log:"
		tail -40 "$log" | sed 's/^/    /'
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

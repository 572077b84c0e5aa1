#!/bin/bash
# Check the packages make deb built: boot the packaged vmlinuz as it is
# (make vm-run, VM_IMAGE), load the packaged KUnit modules, run the smoke
# tests (boot, KUnit, debugfs, synthetic tasks), the packaged ktaskctl and
# bench/native.sh with guest-sized settings (the guest's root is read-only:
# its table comes back in the log, kept as build/deb/native-results.md; the
# packaged kernel's figures under TCG, not a real machine's).
# Prints "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$KTASK_TOP/build/deb
image_deb=$(ls "$out"/linux-image-*.deb 2>/dev/null | grep -v -- -dbg_ | head -n1)
ctl_deb=$(ls "$out"/ktaskctl_*.deb 2>/dev/null | head -n1)
[ -n "$image_deb" ] && [ -n "$ctl_deb" ] || die "no packages in $out (make deb)"
# Extracted under build/, which the guest sees over 9p (its /tmp is its own).
ext=$out/extracted
rm -rf "$ext" "$out/native-results.md" && mkdir -p "$ext"
dpkg-deb -x "$image_deb" "$ext" && dpkg-deb -x "$ctl_deb" "$ext" || die "dpkg-deb -x failed"
vmlinuz=$(ls "$ext"/boot/vmlinuz-* | head -n1)
release=${vmlinuz##*/vmlinuz-}
mods=$ext/lib/modules/$release/kernel
info "booting $vmlinuz ($release) from $(basename "$image_deb")"

guest_cmd="set -e
insmod \$(ls $mods/lib/kunit/kunit.ko*)
insmod \$(ls $mods/kernel/ktask_test.ko*)
$ext/usr/sbin/ktaskctl --version
$ext/usr/sbin/ktaskctl stats > /dev/null && echo 'ok - packaged ktaskctl stats'
tests-bats/run-suite.sh --only 000-boot.bats,010-kunit.bats,020-debugfs.bats,030-synthetic.bats
# Guest-sized: 4G over two nodes holds 512 MiB of 2 MiB pages (too small
# for fallocate-1G, which native.sh then skips and says so).
if timeout 1200 env NATIVE_REPEATS=3 NATIVE_CPU_UNITS=400000 NATIVE_FALLOC_SIZE=512M \
	bench/native.sh /tmp/native; then
	echo 'ok - bench/native.sh on the packaged kernel'
	echo '--- native results.md'
	cat /tmp/native/results.md
	echo '--- end'
else
	echo 'not ok - bench/native.sh on the packaged kernel'
fi"
log=$out/deb-check.log
VM_IMAGE=$vmlinuz VM_QUIET=1 VM_TIMEOUT=${VM_TIMEOUT:-1800} \
	"$KTASK_TOP/scripts/vm-run.sh" "$guest_cmd" > "$log" 2>&1
rc=$?
passed=$(grep -cE '^ok ' "$log")
failed=$(grep -cE '^not ok ' "$log")
grep -E '^(ok|not ok) ' "$log" | sed 's/^ok /PASS deb-check: /; s/^not ok /FAIL deb-check: /'
if [ "$rc" != 0 ] || [ "$passed" = 0 ]; then
	failed=$((failed + 1))
	echo "FAIL deb-check: the guest run exited $rc (log: $log)"
	tail -30 "$log"
fi
sed -n '/^--- native results.md$/,/^--- end$/{//!p}' "$log" > "$out/native-results.md"
[ -s "$out/native-results.md" ] && info "native bench on the packaged kernel: $out/native-results.md" ||
	rm -f "$out/native-results.md"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

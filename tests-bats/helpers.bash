# Shared setup for the bats suites; runs inside the test guest.
load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

KTASK_TOP=${KTASK_TOP:-$(cd "$BATS_TEST_DIRNAME/.." && pwd)}
DEBUGFS=/sys/kernel/debug
KUNIT_RESULTS=$DEBUGFS/kunit/ktask/results

# ktaskctl from the meson build; the control-plane tests use it.
run_ktaskctl() {
	run "$KTASK_TOP/build/meson/ktaskctl/ktaskctl" "$@"
}

# Kernel log lines that mean a bug, as scripts/vm-run.sh also checks.
KERNEL_REPORTS='Oops|BUG:|WARNING:|cut here|general protection fault|possible circular locking|inconsistent lock state|suspicious RCU usage|soft lockup|KASAN|UBSAN|kmemleak: .* new suspected|ODEBUG:|Call Trace:'

assert_kernel_log_clean() {
	run bash -c "dmesg | grep -E '$KERNEL_REPORTS'"
	assert_failure 1
}

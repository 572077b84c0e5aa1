#!/bin/bash
# Runs inside the guest (see scripts/run-tests.sh): prints the KUnit results
# and the bats TAP stream, each after a marker line the host parses.
#   run-suite.sh [--kunit-only | --only FILE.bats[,...] | --except FILE.bats[,...]]
# A test still running after BATS_TEST_TIMEOUT seconds (default 600: the
# slowest test, hugetlbfs' cpuset one, took 11-170 s on a quiet host and 470
# on a loaded one under TCG; 1800 on the debug kernel) fails, and the run
# goes on.
cd "$(dirname "$0")" || exit 1

if [ "${1:-}" != --only ]; then
	echo "=== KUNIT ktask"
	cat /sys/kernel/debug/kunit/ktask/results 2>/dev/null || echo "# no KUnit results for ktask"
fi
[ "${1:-}" = --kunit-only ] && { echo "=== END"; exit 0; }

echo "=== BATS"
export VM_SMP VM_NODES
files=([0-9]*.bats)
case ${1:-} in
--only) IFS=, read -ra files <<< "$2" ;;
--except)
	keep=()
	for f in "${files[@]}"; do [[ ",$2," == *",$f,"* ]] || keep+=("$f"); done
	files=("${keep[@]}")
	;;
esac
if [ "${KERNEL:-}" = debug ]; then
	export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-1800}
else
	export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}
fi
bats --tap --timing ${BATS_FILTER:+--filter "$BATS_FILTER"} "${files[@]}"
rc=$?
echo "=== END"
exit $rc

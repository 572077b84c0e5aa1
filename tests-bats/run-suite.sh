#!/bin/bash
# Runs inside the guest (see scripts/run-tests.sh): prints the KUnit results
# and the bats TAP stream, each after a marker line the host parses.
#   run-suite.sh [--kunit-only | --only FILE.bats[,FILE.bats...]]
cd "$(dirname "$0")" || exit 1

if [ "${1:-}" != --only ]; then
	echo "=== KUNIT ktask"
	cat /sys/kernel/debug/kunit/ktask/results 2>/dev/null || echo "# no KUnit results for ktask"
fi
[ "${1:-}" = --kunit-only ] && { echo "=== END"; exit 0; }

echo "=== BATS"
export VM_SMP VM_NODES
files=([0-9]*.bats)
[ "${1:-}" = --only ] && IFS=, read -ra files <<< "$2"
bats --tap --timing ${BATS_FILTER:+--filter "$BATS_FILTER"} "${files[@]}"
rc=$?
echo "=== END"
exit $rc

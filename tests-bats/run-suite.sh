#!/bin/bash
# Runs inside the guest (see scripts/run-tests.sh): prints the KUnit results
# and the bats TAP stream, each after a marker line the host parses.
#   run-suite.sh [--kunit-only]
cd "$(dirname "$0")" || exit 1

echo "=== KUNIT ktask"
cat /sys/kernel/debug/kunit/ktask/results 2>/dev/null || echo "# no KUnit results for ktask"
[ "${1:-}" = --kunit-only ] && { echo "=== END"; exit 0; }

echo "=== BATS"
export VM_SMP VM_NODES
bats --tap ${BATS_FILTER:+--filter "$BATS_FILTER"} [0-9]*.bats
rc=$?
echo "=== END"
exit $rc

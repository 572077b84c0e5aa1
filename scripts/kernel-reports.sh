#!/bin/bash
# kernel-reports.sh < LOG: print the lines of a kernel log (dmesg or a
# console capture) that report a kernel bug; exit 0 if there is one, 1 if
# not, as grep does.  scripts/vm-run.sh checks every guest's console with it
# and tests-bats/helpers.bash every bats file's dmesg.
#
# One report is expected, not a bug: the OOM killer's, when a test drives a
# memory cgroup of its own (named ktask-*) over memory.max on purpose.  Its
# stack dump ("Call Trace:") is skipped; any other report line inside it
# still counts, and so does an OOM report for any other cgroup or for the
# whole machine.  The same goes for the page allocation failure report of a
# migration to a node a test filled on purpose (108-migrate.bats): an
# allocation that named its node (__GFP_THISNODE) by the test's program or
# its ktask helpers; two helpers may interleave theirs, so a report stays
# open until as many show_mem() ends ("pages reserved") as headers.
reports='Kernel panic|Oops|BUG:|WARNING:|cut here|general protection fault|'
reports+='possible circular locking|inconsistent lock state|possible recursive locking|'
reports+='suspicious RCU usage|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|'
reports+='KASAN|UBSAN|KFENCE|kmemleak: .* new suspected|ODEBUG:|Call Trace:'

exec awk -v reports="$reports" '
# print_reports EXPECTED_OOM: the report lines of the buffered OOM report.
function print_reports(expected_oom,    i) {
	for (i = 1; i <= n; i++)
		if (block[i] ~ reports && !(expected_oom && block[i] ~ /Call Trace:/)) {
			print block[i]
			found = 1
		}
	n = 0
}
/(migrate|ktask_helper): page allocation failure: .*__GFP_THISNODE/ { alloc_open++ }
alloc_open > 0 && / pages reserved$/ { alloc_open--; next }
alloc_open > 0 && /Call Trace:/ { next }
/ invoked oom-killer: / { in_oom = 1; n = 0 }
in_oom {
	block[++n] = $0
	if ($0 ~ /oom-kill:constraint=CONSTRAINT_MEMCG,.*oom_memcg=\/ktask-/)
		expected_oom = 1
	if ($0 ~ /Killed process [0-9]+/) {
		print_reports(expected_oom)
		in_oom = expected_oom = 0
	}
	next
}
$0 ~ reports { print; found = 1 }
END {
	if (in_oom)
		print_reports(0)
	exit !found
}'

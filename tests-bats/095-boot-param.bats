#!/usr/bin/env bats
# ktask.max_threads= on the kernel command line.  make test boots a guest
# with ktask.max_threads=1 to run this file; other boots skip it.

load helpers

setup() {
	param=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^ktask\.max_threads=//p')
	[ -n "$param" ] || skip "booted without ktask.max_threads="
}

@test "ktask.max_threads= sets the default maximum" {
	expect "$(cat "$MAX_THREADS_PARAM")" = "$param" max_threads
}

@test "tasks that set no maximum follow the boot parameter" {
	run_synthetic "kind=cpu size=10000"
	expect "$SYN_threads_used" -le "$param" threads_used
	run_synthetic "kind=cpu size=10000 max_threads=2"
	expect "$SYN_threads_used" -eq 2 threads_used
}

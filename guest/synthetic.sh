# The result of the last synthetic task, for the bats suite
# (tests-bats/helpers.bash) and the benchmarks (bench/lib.sh), both in the
# guest; sourced, never run.

# synthetic_result PREFIX: debugfs ktask/synthetic's "key: value" lines as
# shell variables PREFIX<key> (PREFIXelapsed_ns, PREFIXthreads_used, ...).
# A fresh open reads the newest task's result system-wide: callers run one
# task at a time.
synthetic_result() {
	local key value
	while read -r key value; do
		printf -v "$1${key%:}" '%s' "$value"
	done < /sys/kernel/debug/ktask/synthetic
}

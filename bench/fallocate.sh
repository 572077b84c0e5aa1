#!/bin/bash
# Runs in the guest (scripts/bench-memory.sh): times hugetlbfs fallocate of
# SIZE with 1 GiB and 2 MiB pages, ktask limited to 1 thread vs the default,
# alternating, after one discarded warm-up each.  Prints one line per
# measure: "name unit min_1thread min_default ratio".
size=${BENCH_FALLOC_SIZE:-2G}
repeats=${BENCH_REPEATS:-3}
param=/sys/module/ktask/parameters/max_threads
default=$(cat "$param")

mkdir -p /tmp/b1g /tmp/b2m
mount -t hugetlbfs -o pagesize=1G none /tmp/b1g
mount -t hugetlbfs -o pagesize=2M none /tmp/b2m

time_ms() {
	local start end
	start=$(date +%s%N)
	fallocate -l "$size" "$1/f" || { echo "fallocate $1 failed" >&2; exit 1; }
	end=$(date +%s%N)
	rm -f "$1/f"
	echo $(( (end - start) / 1000000 ))
}

for dir in /tmp/b1g /tmp/b2m; do
	name=$([ "$dir" = /tmp/b1g ] && echo fallocate-1G-pages || echo fallocate-2M-pages)
	time_ms "$dir" > /dev/null	# warm-up: the host backs guest memory on first touch
	one=() def=()
	for ((i = 0; i < repeats; i++)); do
		echo 1 > "$param"; one+=("$(time_ms "$dir")")
		echo "$default" > "$param"; def+=("$(time_ms "$dir")")
		echo "  $name: 1 thread ${one[-1]} ms, $default threads ${def[-1]} ms" >&2
	done
	min1=$(printf '%s\n' "${one[@]}" | sort -n | head -1)
	mind=$(printf '%s\n' "${def[@]}" | sort -n | head -1)
	echo "$name ms $min1 $mind $(awk -v a="$min1" -v b="$mind" 'BEGIN { printf "%.2f", a / b }')"
done

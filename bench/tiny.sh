#!/bin/bash
# Guest side of measure 2 (bench/bench.sh): what ktask costs on tasks too
# small to split.  A cpu task of size == min_chunk (ktask runs it in the
# caller; debugfs cannot ask for less than min_chunk, and a smaller task
# takes the same path), of 2 x min_chunk (two chunks: a helper is woken),
# and of a single unit (min_chunk 1: the smallest task there is), each run
# BENCH_TINY_CALLS times (the single unit min_chunk times as often) through
# ktask and through a direct call of the thread function (repeat=N
# direct=1), alternating for BENCH_TINY_ROUNDS rounds (11), after a warm-up.
#
# Samples: tiny-1x|tiny-2x|tiny-1unit ktask|direct NS_PER_CALL.
. "$(dirname "$0")/lib.sh"

chunk=${BENCH_TINY_CHUNK:-16}
calls=${BENCH_TINY_CALLS:-2000}
# Rounds, each ktask then direct: more than BENCH_REPEATS, as a round costs
# little and the ratio is the median of the rounds' ratios.
rounds=${BENCH_TINY_ROUNDS:-11}
have_ktask || die "needs the ktask kernel"
meta tiny_chunk "$chunk"
meta tiny_calls "$calls"
meta tiny_rounds "$rounds"

# calls NAME SIZE MIN_CHUNK NR_CALLS
calls() {
	local name=$1 size=$2 min=$3 calls=$4 r k d
	for d in 0 1; do	# warm-up, discarded
		synth "kind=cpu size=$size min_chunk=$min repeat=$calls direct=$d"
	done
	for ((r = 1; r <= rounds; r++)); do
		synth "kind=cpu size=$size min_chunk=$min repeat=$calls"
		k=$SYNTH_ns_per_run
		meta "threads_used-$name" "$SYNTH_threads_used"
		synth "kind=cpu size=$size min_chunk=$min repeat=$calls direct=1"
		d=$SYNTH_ns_per_run
		sample "$name" ktask "$k"
		sample "$name" direct "$d"
		progress "$name (size $size, min_chunk $min) round $r/$rounds: ktask $k ns, direct $d ns per call"
	done
}

calls tiny-1x "$chunk" "$chunk" "$calls"
calls tiny-2x $((2 * chunk)) "$chunk" "$calls"
# As many units per round as tiny-1x: a round of $calls one-unit calls
# lasts a millisecond, within the reach of a single host hiccup.
calls tiny-1unit 1 1 $((calls * chunk))

#!/bin/bash
# Review gates for kernel/patches:
#  1. the series applies to the freshly unpacked tree without fuzz;
#  2. every patch builds on its own (base + patches 1..N, incrementally);
#  3. scripts/checkpatch.pl --strict: no errors, and every remaining
#     warning or check justified in the patch's commit message
#     (a "checkpatch:" paragraph);
#  4. scripts/kernel-doc -none is silent on the files the series adds and
#     on flush_work_at_nice();
#  5. the objects the series touches compile with CONFIG_KTASK=n.
# Prints one line per check and "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

"$KTASK_TOP/scripts/unpack-source.sh" || exit 1
passed=0 failed=0
result() {
	if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "PASS check-series: $2"
	else failed=$((failed + 1)); echo "FAIL check-series: $2"; fi
}

src=$KTASK_CACHE/check-src
build=$KTASK_CACHE/build/check
cd "$KTASK_SRC" || exit 1
if [ ! -d "$src" ]; then
	git worktree prune
	git worktree add -q --detach "$src" refs/tags/base || exit 1
fi
mkdir -p "$CCACHE_DIR"

# 1 + 2: apply each patch with git apply (no fuzz) and build.
git -C "$src" checkout -q --detach refs/tags/base
final_config=$(kernel_build_dir ktask)/.config
[ -f "$final_config" ] || { echo "check-series: run 'make kernel' first" >&2; exit 1; }
mkdir -p "$build"
n=0
while read -r patch; do
	n=$((n + 1))
	name=${patch##*/}
	if ! git -C "$src" apply --index --whitespace=nowarn "$patch"; then
		result 1 "$name applies"
		break
	fi
	result 0 "$name applies"
	git -C "$src" -c user.name=check -c user.email=check@localhost commit -q -m "$name"
	# The ktask kernel's config, less the symbols this far lacks.
	cp "$final_config" "$build/.config"
	kmake "$src" "$build" -s olddefconfig >/dev/null 2>&1
	info "building with patches 1..$n"
	kbuild_progress "$src" "$build" "$build/build-$n.log" bzImage >/dev/null 2>&1
	rc=$?
	# A new warning in the files the patch touches fails it too.
	warnings=$(grep -E '(warning|error):' "$build/build-$n.log" | grep -F -f <(git -C "$src" show --name-only --format= HEAD) || true)
	[ -z "$warnings" ] || { echo "$warnings"; rc=1; }
	result "$rc" "$name builds on its own"
done < <(series_patches)

# 3: checkpatch.
while read -r patch; do
	name=${patch##*/}
	# checkpatch runs from the tree; its SPDX check wants Debian's python3
	# (python3-ply, python3-git), whatever python3 comes first in PATH.
	out=$(cd "$src" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --quiet --show-types "$patch" 2>&1)
	errors=$(grep -c '^ERROR:' <<< "$out")
	remarks=$(grep -cE '^(WARNING|CHECK):' <<< "$out")
	# Each remaining type must be named in a "checkpatch:" paragraph of
	# the commit message (the part before the first "---").
	message=$(sed '/^---$/q' "$patch")
	unjustified=
	for type in $(grep -oE '^(WARNING|CHECK):[A-Z_]+' <<< "$out" | cut -d: -f2 | sort -u); do
		grep -A6 '^checkpatch:' <<< "$message" | grep -q "$type" || unjustified+=" $type"
	done
	rc=0
	[ "$errors" = 0 ] && [ -z "$unjustified" ] || rc=1
	[ "$rc" = 0 ] && [ "$remarks" = 0 ] || sed 's/^/    /' <<< "$out"
	result "$rc" "$name checkpatch --strict ($errors errors, $remarks warnings/checks justified in the message${unjustified:+, unjustified:$unjustified})"
done < <(series_patches)

# 4: kernel-doc on what the series adds.
files=$(cd "$src" && git diff --name-only --diff-filter=A refs/tags/base HEAD -- '*.c' '*.h')
out=$(cd "$src" && scripts/kernel-doc -none -Wall $files 2>&1;
      scripts/kernel-doc -none -function flush_work_at_nice kernel/workqueue.c 2>&1)
[ -z "$out" ] || echo "$out" | sed 's/^/    /'
result "$([ -z "$out" ] && echo 0 || echo 1)" "kernel-doc -none silent on $(echo $files) and flush_work_at_nice()"

# built_objs CONFIG OBJ...: the objects CONFIG builds at all.  One its
# directory's Makefile gates on an option CONFIG leaves unset (padata.o
# once nothing selects PADATA) has no rule to make it there.
built_objs() {
	local config=$1 obj base sym
	shift
	for obj; do
		base=$(basename "$obj")
		sym=$(grep -oE "^obj-\\\$\(CONFIG_[A-Z0-9_]+\)[[:space:]]*\+=.*(^|[[:space:]])$base([[:space:]]|$)" \
			"$src/$(dirname "$obj")/Makefile" 2>/dev/null | grep -oE 'CONFIG_[A-Z0-9_]+' | head -n 1)
		[ -z "$sym" ] || grep -qE "^$sym=(y|m)$" "$config" || continue
		echo "$obj"
	done
}

# 5: CONFIG_KTASK=n.
offbuild=$KTASK_CACHE/build/ktask-off
if kconfigure ktask-off "$src" "$offbuild" && ! grep -q '^CONFIG_KTASK=y' "$offbuild/.config"; then
	objs=$(cd "$src" && git diff --name-only refs/tags/base HEAD -- '*.c' | grep -v '_test\.c$' | sed 's/\.c$/.o/')
	objs=$(built_objs "$offbuild/.config" $objs)
	kbuild_progress "$src" "$offbuild" "$offbuild/build.log" $objs >/dev/null 2>&1
	rc=$?
	grep -E '(warning|error):' "$offbuild/build.log" && rc=1
	result "$rc" "CONFIG_KTASK=n compiles $(echo $objs)"
else
	result 1 "CONFIG_KTASK=n configuration"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

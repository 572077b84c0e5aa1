#!/bin/bash
# Check out, in $KTASK_SRC, base plus the series (or base alone for
# KERNEL=baseline).  The commits are built in a scratch index, so the final
# checkout rewrites only the files that differ from what was there before and
# make rebuilds only what the change touches.
#
# Usage: apply-series.sh ktask|baseline [CHECKOUT]
# CHECKOUT is a worktree of $KTASK_SRC to check out instead of $KTASK_SRC
# itself, for builds that must not disturb it (make check-configs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-ktask}
checkout=${2:-$KTASK_SRC}
cd "$KTASK_SRC"
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"

target=$(git rev-parse refs/tags/base)
if [ "$flavour" != baseline ]; then
	index=$(mktemp)
	trap 'rm -f "$index"' EXIT
	GIT_INDEX_FILE=$index git read-tree refs/tags/base
	while read -r patch; do
		[ -f "$patch" ] || die "series lists ${patch##*/}, which does not exist"
		# git apply refuses fuzz: the context of every hunk must match.
		GIT_INDEX_FILE=$index git apply --cached --whitespace=nowarn "$patch" ||
			die "${patch##*/} does not apply to the tree so far"
		tree=$(GIT_INDEX_FILE=$index git write-tree)
		target=$(git commit-tree -p "$target" -m "${patch##*/}" "$tree")
	done < <(series_patches)
fi

if [ "$(git -C "$checkout" rev-parse HEAD)" != "$target" ]; then
	git -C "$checkout" checkout -q --detach "$target"
	info "source tree at ${flavour}: $(git -C "$checkout" log -1 --format=%s)"
fi

#!/bin/bash
# Create the development checkout $KTASK_TREE: a worktree of the source
# repository on branch "ktask", base plus one commit per patch (git am).
# Refuses to overwrite a tree holding commits or changes that are not in
# kernel/patches unless FORCE=1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$KTASK_TOP/scripts/unpack-source.sh"
cd "$KTASK_SRC"

if [ -d "$KTASK_TREE" ]; then
	if [ -z "${FORCE:-}" ]; then
		dirty=$(git -C "$KTASK_TREE" status --porcelain --untracked-files=no)
		[ -z "$dirty" ] || die "$KTASK_TREE has uncommitted changes; commit them and 'make export-patches', or FORCE=1"
		tmp=$(mktemp -d)
		git -C "$KTASK_TREE" format-patch -q --no-signature --zero-commit -N \
			-o "$tmp" base..ktask
		if ! diff -q <(cd "$tmp" && ls) <(series_patches | xargs -r -n1 basename) >/dev/null ||
		   ! (cd "$tmp" && for p in *; do [ -e "$p" ] || continue; cmp -s "$p" "$KTASK_PATCHES/$p" || exit 1; done); then
			rm -rf "$tmp"
			die "$KTASK_TREE has commits not exported to kernel/patches; run 'make export-patches' first, or FORCE=1"
		fi
		rm -rf "$tmp"
	fi
	git worktree remove --force "$KTASK_TREE"
fi
git worktree prune
git worktree add -q -B ktask "$KTASK_TREE" base
cd "$KTASK_TREE"
if [ -n "$(series_patches)" ]; then
	series_patches | xargs git am -q --whitespace=nowarn ||
		die "git am failed; the tree is left mid-am in $KTASK_TREE"
fi
[ -f "$KTASK_COVER" ] && git config branch.ktask.description "$(cat "$KTASK_COVER")"
info "$KTASK_TREE: branch ktask, $(git rev-list --count base..ktask) patches on base"

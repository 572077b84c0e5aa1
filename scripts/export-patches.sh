#!/bin/bash
# Regenerate kernel/patches (the series file, one format-patch file per
# commit of $KTASK_TREE's branch ktask since base, and the cover letter) from
# the development checkout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$KTASK_TREE" ] || die "no development tree at $KTASK_TREE (run 'make tree')"
cd "$KTASK_TREE"
[ "$(git symbolic-ref -q --short HEAD)" = ktask ] || die "$KTASK_TREE is not on branch ktask"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$KTASK_TREE has uncommitted changes; commit them first"

[ -f "$KTASK_COVER" ] || die "$KTASK_COVER missing"
git config branch.ktask.description "$(cat "$KTASK_COVER")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The patches keep their authors; the cover letter is the project's.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
# --zero-commit and no signature keep unchanged patches byte-identical.
git -c user.name="ktask maintainers" -c user.email=ktask@lists.example.org \
	format-patch -q --no-signature --zero-commit --subject-prefix='RFC PATCH v5' --cover-letter \
	--cover-from-description=subject --base=base -o "$tmp" base..ktask
# The cover letter is dated like the newest patch, not the export.
sed -i "s/^Date: .*/Date: $(git log -1 --format=%aD ktask)/" "$tmp"/0000-cover-letter.patch
rm -f "$KTASK_PATCHES"/*.patch
mkdir -p "$KTASK_PATCHES"
cp "$tmp"/*.patch "$KTASK_PATCHES"/
(cd "$KTASK_PATCHES" && ls -1 [0-9]*.patch | grep -v '^0000-cover-letter' > series)
info "exported $(wc -l < "$KTASK_PATCHES/series") patches + cover letter to kernel/patches"

#!/bin/bash
# Unpack the linux-source-6.12 tarball into $KTASK_CACHE/src as a git
# repository whose first commit is tagged "base".  Re-unpacks only when the
# installed package version changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -r "$KTASK_SRC_TARBALL" ] || die "$KTASK_SRC_TARBALL missing (run 'make deps')"
version=$(dpkg-query -W -f='${Version}' "$KTASK_SRC_PKG" 2>/dev/null || echo unknown)
stamp=$KTASK_SRC/.git/ktask-base-version

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ] &&
   git -C "$KTASK_SRC" rev-parse -q --verify base >/dev/null; then
	exit 0
fi

info "unpacking $KTASK_SRC_TARBALL ($KTASK_SRC_PKG $version) into $KTASK_SRC"
rm -rf "$KTASK_SRC" "$KTASK_TREE"
mkdir -p "$KTASK_SRC"
tar -xf "$KTASK_SRC_TARBALL" -C "$KTASK_SRC" --strip-components=1
cd "$KTASK_SRC"
git init -q -b upstream
git config gc.auto 0
git config core.autocrlf false
# Debian's top-level .gitignore ends with an ignore-everything block (its
# packaging repo holds only debian/).  Drop it, so that new files such as
# kernel/ktask.c show up in git status; no patch touches .gitignore.
sed -i '/^# Debian packaging: ignore everything/,$d' .gitignore
sed -i '${/^#$/d}' .gitignore
git add -A
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
kver=$(make -s kernelversion)
git commit -q -m "Linux $kver ($KTASK_SRC_PKG $version)"
git tag base
echo "$version" > "$stamp"
info "base tree: Linux $kver, commit $(git rev-parse --short base)"

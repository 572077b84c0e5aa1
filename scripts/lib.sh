# Common settings for the ktask scripts; sourced, never run.
# Everything large (kernel tree, build dirs, ccache) lives in KTASK_CACHE,
# outside the clone, so CI runs and later sessions on one machine share it.

KTASK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KTASK_CACHE=${KTASK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ktask}
KTASK_SRC_TARBALL=${KTASK_SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KTASK_SRC_PKG=linux-source-6.12

# The repository holding the pristine tree (tag "base") and, checked out in
# src/, the tree the kernels are built from.
KTASK_SRC=$KTASK_CACHE/src
# The development checkout: branch "ktask", one commit per patch.
KTASK_TREE=${KTASK_TREE:-$KTASK_CACHE/tree}
KTASK_PATCHES=$KTASK_TOP/kernel/patches
KTASK_CONFIGS=$KTASK_TOP/kernel/configs
KTASK_COVER=$KTASK_TOP/kernel/cover-letter.txt

export CCACHE_DIR=${CCACHE_DIR:-$KTASK_CACHE/ccache}
# Builds in different directories share ccache hits.
export CCACHE_BASEDIR=$KTASK_CACHE
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}

die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

info() {
	printf '==> %s\n' "$*" >&2
}

# Kernel flavours: name -> fragments (in order) and whether the series is applied.
kernel_fragments() {
	case $1 in
	ktask)    echo "base.config ktask.config" ;;
	baseline) echo "base.config" ;;
	debug)    echo "base.config ktask.config debug.config" ;;
	nosmp-ktask-off) echo "base.config ktask-off.config" ;;
	*) die "unknown KERNEL '$1' (ktask, baseline, debug)" ;;
	esac
}

kernel_build_dir() {
	echo "$KTASK_CACHE/build/$1"
}

kernel_image() {
	echo "$(kernel_build_dir "$1")/arch/x86/boot/bzImage"
}

# The series, in order, as absolute paths.
series_patches() {
	local p
	[ -f "$KTASK_PATCHES/series" ] || return 0
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		echo "$KTASK_PATCHES/$p"
	done < "$KTASK_PATCHES/series"
}

# Deterministic identities so the same inputs give the same commit ids.
export GIT_AUTHOR_NAME="ktask build" GIT_AUTHOR_EMAIL="ktask@localhost"
export GIT_COMMITTER_NAME="ktask build" GIT_COMMITTER_EMAIL="ktask@localhost"

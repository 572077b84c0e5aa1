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
KTASK_PATCHES=${KTASK_PATCHES:-$KTASK_TOP/kernel/patches}
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
	ktask-off) echo "base.config ktask-off.config" ;;
	debug)    echo "base.config ktask.config debug.config" ;;
	*) die "unknown KERNEL '$1' (ktask, baseline, ktask-off, debug)" ;;
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

# kmake SRC BUILD ARGS...: kbuild with ccache and reproducible identities.
kmake() {
	local src=$1 build=$2
	shift 2
	make -C "$src" O="$build" CC="ccache gcc" HOSTCC="ccache gcc" \
		KBUILD_BUILD_USER=ktask KBUILD_BUILD_HOST=ktask \
		KBUILD_BUILD_TIMESTAMP="2000-01-01" "$@"
}

# kernel_config_id FLAVOUR: names the flavour's fragments as they are now;
# a build configured from other fragments has another id in .ktask-config-id.
kernel_config_id() {
	(cd "$KTASK_CONFIGS" && cat $(kernel_fragments "$1") | sha256sum | cut -c1-16)
}

# kconfigure FLAVOUR SRC BUILD: tinyconfig + the flavour's fragments.  Only
# rewrites .config when a fragment changed: a fresh .config makes kbuild
# re-check every object.
kconfigure() {
	local flavour=$1 src=$2 build=$3 fragments config_id
	fragments=$(kernel_fragments "$flavour")
	config_id=$(kernel_config_id "$flavour")
	mkdir -p "$build"
	if [ -f "$build/.config" ] && [ "$(cat "$build/.ktask-config-id" 2>/dev/null)" = "$config_id" ]; then
		return 0
	fi
	info "configuring $flavour kernel: tinyconfig + $fragments"
	kmake "$src" "$build" -s tinyconfig >/dev/null
	(cd "$KTASK_CONFIGS" && "$src/scripts/kconfig/merge_config.sh" -m -O "$build" \
		"$build/.config" $fragments) > "$build/merge-config.log"
	kmake "$src" "$build" -s olddefconfig >/dev/null
	(cd "$KTASK_CONFIGS" && kconfig_verify "$build/.config" $fragments) ||
		die "config fragments not honoured (dependencies missing?)"
	echo "$config_id" > "$build/.ktask-config-id"
}

# kconfig_verify CONFIG FRAGMENT...: merge_config only warns; a requested
# option that did not stick is an error.  A later fragment overrides an
# earlier one (debug.config's LOCALVERSION), so only each option's last
# request is checked.  Fragments are paths from the current directory.
kconfig_verify() {
	local config=$1 missing=0 f line
	shift
	while IFS=' ' read -r f line; do
		case $line in
		CONFIG_*=n) grep -qxE "${line%=n}=[ym]" "$config" &&
			{ echo "  $f: $line not honoured" >&2; missing=1; } ;;
		CONFIG_*) grep -qxF "$line" "$config" ||
			{ echo "  $f: $line not honoured" >&2; missing=1; } ;;
		esac
	done < <(awk '/^CONFIG_/ {
			opt = $0; sub(/=.*/, "", opt)
			if (!(opt in last)) order[n++] = opt
			last[opt] = FILENAME " " $0
		} END { for (i = 0; i < n; i++) print last[order[i]] }' "$@")
	return $missing
}

# worktree DIR [REPO]: a detached worktree of REPO ($KTASK_SRC by default)
# at its tag base, made again when DIR is missing or no longer a checkout
# (unpack-source.sh made a new src).
worktree() {
	local repo=${2:-$KTASK_SRC}
	git -C "$1" rev-parse --git-dir >/dev/null 2>&1 && return 0
	rm -rf "$1"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$1" refs/tags/base
}

# kbuild_progress SRC BUILD LOG TARGETS...: build, printing a line every 200
# steps and any warning or error; the full log goes to LOG.
kbuild_progress() {
	local src=$1 build=$2 log=$3 rc=0
	shift 3
	# With pipefail (every script sets it) the status is make's; "|| rc=$?"
	# keeps a caller's errexit from ending it before the log is shown.
	local steps_file=$build/.ktask-full-build-steps full=0 total
	# The total is that of the last build from an empty directory: a build
	# after it has at most as many steps.
	[ -e "$build/vmlinux" ] || full=1
	total=$(cat "$steps_file" 2>/dev/null || echo 0)
	kmake "$src" "$build" -j"${JOBS:-$(( $(nproc) + 1 ))}" "$@" 2>&1 | tee "$log" | awk -v total="$total" '
		/^  [A-Z]+ / {
			n++
			if (n % 200 == 0) {
				if (total > 0)
					printf "    ... [%d/%d] %d%%\n", n, total, (n > total ? 99 : 100 * n / total)
				else
					printf "    ... [%d/?] (the first build here: no total yet)\n", n
				fflush()
			}
			next
		}
		/warning:|error:|Error / { print; fflush() }' || rc=$?
	[ "$rc" = 0 ] || tail -40 "$log" >&2
	[ "$rc" != 0 ] || [ "$full" = 0 ] || grep -cE '^  [A-Z]+ ' "$log" > "$steps_file" || true
	return "$rc"
}

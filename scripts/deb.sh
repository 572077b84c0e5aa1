#!/bin/bash
# Debian packages for a real machine: the kernel with the series on Debian's
# own 6.12 config (make bindeb-pkg: linux-image, linux-headers, linux-libc-dev)
# and ktaskctl (binary, man page, bash completion).  They land in build/deb/.
#
# Usage: deb.sh [kernel] [ktaskctl]   (default: both)
# Environment:
#   LOCALMODCONFIG=1  keep only the modules this machine has loaded (lsmod),
#                     for a build that fits a small machine; the default is
#                     Debian's full config, for machines with cores to spare
#   DEB_CONFIG        the starting config (default Debian's amd64 one, from
#                     linux-config-6.12)
# Either way the config gains kernel/configs/deb.config: ktask, its KUnit
# suite and VFIO as modules, no debug info (a Debian-sized build with it
# needs hours and tens of GiB here), and what `make vm-run` needs built in
# (virtio, 9p) so `make deb-check` can boot the packaged vmlinuz as it is.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(kernel ktaskctl)
out=$KTASK_TOP/build/deb
mkdir -p "$out"

deb_kernel() {
	local src=$KTASK_CACHE/deb-src build=$KTASK_CACHE/build/deb
	local start_config=${DEB_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
	command -v dh_listpackages >/dev/null ||
		die "no debhelper (make deps installs it): bindeb-pkg needs it"
	"$KTASK_TOP/scripts/unpack-source.sh"
	worktree "$src"
	"$KTASK_TOP/scripts/apply-series.sh" ktask "$src"
	mkdir -p "$build" "$CCACHE_DIR"
	case $start_config in
	*.xz) xz -dc "$start_config" > "$build/.config" ;;
	*) cp "$start_config" "$build/.config" ;;
	esac
	kmake "$src" "$build" -s olddefconfig
	if [ "${LOCALMODCONFIG:-0}" = 1 ]; then
		# A kernel without modules (this build host's, say) has no
		# /proc/modules: an empty list keeps only the built-in part.
		lsmod 2>/dev/null > "$build/lsmod.txt" || true
		info "LOCALMODCONFIG=1: keeping the $(( $(wc -l < "$build/lsmod.txt") > 0 ? $(wc -l < "$build/lsmod.txt") - 1 : 0 )) loaded modules"
		kmake "$src" "$build" LSMOD="$build/lsmod.txt" localmodconfig < <(yes '') \
			> "$build/localmodconfig.log" 2>&1
	fi
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" \
		"$KTASK_CONFIGS/deb.config" > "$build/merge-config.log"
	kmake "$src" "$build" -s olddefconfig
	kconfig_verify "$build/.config" "$KTASK_CONFIGS/deb.config" ||
		die "kernel/configs/deb.config not honoured (see $build/merge-config.log)"
	info "building the kernel packages in $build (log: $build/build.log)"
	rm -f "$KTASK_CACHE"/build/linux-*.deb
	# LOCALVERSION= on the command line: no "+" for the tree's git state,
	# so the release is 6.12.N-ktask.
	kbuild_progress "$src" "$build" "$build/build.log" LOCALVERSION= bindeb-pkg ||
		die "make bindeb-pkg failed"
	# bindeb-pkg writes the packages beside the build directory.
	rm -f "$out"/linux-*.deb
	mv "$KTASK_CACHE"/build/linux-*.deb "$out"/
	info "kernel packages: $(cd "$out" && ls linux-*.deb | tr '\n' ' ')"
}

deb_ktaskctl() {
	local build=$KTASK_TOP/build/deb-ktaskctl stage version arch deps lib pkg
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' RETURN
	[ -f "$build/build.ninja" ] ||
		meson setup "$build" "$KTASK_TOP" --prefix=/usr --buildtype=release >/dev/null
	ninja -C "$build" ktaskctl/ktaskctl >/dev/null
	meson install -C "$build" --destdir "$stage/root" --no-rebuild >/dev/null
	version=$(meson introspect "$build" --projectinfo | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
	version+="+git$(git -C "$KTASK_TOP" log -1 --format=%cd.%h --date=format:%Y%m%d)"
	arch=$(dpkg --print-architecture)
	# Depends: the package of every shared library the binary links.
	deps=()
	for lib in $(ldd "$stage/root/usr/sbin/ktaskctl" | awk '$3 ~ /^\// { print $3 }'); do
		pkg=$(dpkg -S "$(realpath "$lib")" 2>/dev/null | head -n1 | cut -d: -f1) || true
		[ -n "$pkg" ] || pkg=$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1) || true
		[ -n "$pkg" ] || die "no Debian package owns $lib"
		deps+=("$pkg (>= $(dpkg-query -W -f='${Version}' "$pkg" | sed 's/-[^-]*$//'))")
	done
	mkdir -p "$stage/root/DEBIAN" "$stage/root/usr/share/doc/ktaskctl"
	gzip -9n "$stage/root/usr/share/man/man8/ktaskctl.8"
	cat > "$stage/root/usr/share/doc/ktaskctl/copyright" <<-EOF
	Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
	Upstream-Name: ktask
	License: GPL-2.0-or-later

	Files: *
	Copyright: the ktask maintainers
	License: GPL-2.0-or-later
	 On Debian systems, the full text of the GNU General Public License
	 version 2 is in /usr/share/common-licenses/GPL-2.
	EOF
	cat > "$stage/root/DEBIAN/control" <<-EOF
	Package: ktaskctl
	Version: $version
	Architecture: $arch
	Maintainer: ktask maintainers <ktask@lists.example.org>
	Depends: $(printf '%s\n' "${deps[@]}" | sort -u | paste -sd, | sed 's/,/, /g')
	Section: admin
	Priority: optional
	Description: control and watch ktask, the kernel's multithreaded tasks
	 ktaskctl reads ktask's statistics and settings (debugfs, sysfs), changes
	 them over generic netlink, runs and times synthetic tasks, and prints
	 one line per finished task (netlink events), as text or JSON.  It needs
	 a kernel with the ktask series.
	EOF
	rm -f "$out"/ktaskctl_*.deb
	dpkg-deb --root-owner-group --build "$stage/root" "$out/ktaskctl_${version}_$arch.deb" >/dev/null
	info "ktaskctl package: $out/ktaskctl_${version}_$arch.deb"
}

for part in "${parts[@]}"; do
	case $part in
	kernel) deb_kernel ;;
	ktaskctl) deb_ktaskctl ;;
	*) die "unknown part '$part' (kernel, ktaskctl)" ;;
	esac
done

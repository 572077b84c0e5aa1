#!/bin/bash
# Install, with apt-get, every package the project needs.  Quiet and quick
# when everything is already there.
set -euo pipefail

packages=(
	linux-source-6.12 linux-config-6.12 qemu-system-x86 qemu-utils
	gcc make flex bison bc libelf-dev libssl-dev cpio ccache rsync xz-utils git perl python3 dpkg-dev debhelper
	python3-ply python3-git meson ninja-build pkg-config libnl-3-dev libnl-genl-3-dev libnuma-dev
	bats bats-assert bats-support
	util-linux procps kmod numactl
	stress-ng gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

echo "==> installing: ${missing[*]}" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists once a day at most.
stamp=/var/lib/apt/periodic/ktask-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	$sudo apt-get update -q >/dev/null
	$sudo mkdir -p "${stamp%/*}" && $sudo touch "$stamp"
fi
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null

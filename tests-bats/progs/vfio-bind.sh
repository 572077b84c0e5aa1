#!/bin/bash
# Runs in the guest: bind QEMU's edu device (PCI 1234:11e8) to vfio-pci and
# print "BDF GROUP" (GROUP: the N of /dev/vfio/N, node created if missing).
# Exit 1 with the reason on stderr when the guest has no edu device, no
# IOMMU group for it or no VFIO (boot with -device intel-iommu -device edu
# and intel_iommu=on iommu=nopt).  Sets vfio_iommu_type1's
# allow_unsafe_interrupts: the guest kernel has no interrupt remapping.
set -uo pipefail

why() { echo "vfio-bind: $*" >&2; exit 1; }

bdf=
for dev in /sys/bus/pci/devices/*; do
	[ "$(cat "$dev/vendor" 2>/dev/null):$(cat "$dev/device" 2>/dev/null)" = 0x1234:0x11e8 ] || continue
	bdf=${dev##*/}
	break
done
[ -n "$bdf" ] || why "no edu device (QEMU -device edu)"
dev=/sys/bus/pci/devices/$bdf
[ -e "$dev/iommu_group" ] || why "$bdf: no IOMMU group (QEMU -device intel-iommu, kernel intel_iommu=on iommu=nopt)"
group=$(basename "$(readlink "$dev/iommu_group")")

# Every device in the group must be bound to vfio-pci for it to be viable.
driver=$(basename "$(readlink "$dev/driver" 2>/dev/null)" 2>/dev/null)
if [ "$driver" != vfio-pci ]; then
	[ -d /sys/bus/pci/drivers/vfio-pci ] || why "no vfio-pci driver (CONFIG_VFIO_PCI)"
	[ -z "$driver" ] || echo "$bdf" > "$dev/driver/unbind" || why "$bdf: cannot unbind from $driver"
	echo vfio-pci > "$dev/driver_override" || why "$bdf: cannot set driver_override"
	echo "$bdf" > /sys/bus/pci/drivers_probe 2>/dev/null
	[ "$(basename "$(readlink "$dev/driver" 2>/dev/null)" 2>/dev/null)" = vfio-pci ] ||
		why "$bdf: vfio-pci did not bind (dmesg tells why)"
fi

# The guest kernel has no interrupt remapping (CONFIG_IRQ_REMAP): without
# this VFIO_SET_IOMMU fails with EPERM.  Harmless in a test guest.
unsafe=/sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts
[ "$(cat "$unsafe" 2>/dev/null)" = Y ] || echo 1 > "$unsafe" 2>/dev/null ||
	why "cannot set $unsafe (needed without interrupt remapping)"

# devtmpfs creates the nodes; make them when /dev is something else.
mknod_from() {
	local node=$1 sys=$2 majmin
	[ -e "$node" ] && return 0
	majmin=$(cat "$sys" 2>/dev/null) || why "no $sys for $node"
	{ mkdir -p "${node%/*}" && mknod -m 0600 "$node" c "${majmin%:*}" "${majmin#*:}"; } ||
		why "cannot create $node"
}
mknod_from /dev/vfio/vfio /sys/class/misc/vfio/dev
chmod 0666 /dev/vfio/vfio
mknod_from "/dev/vfio/$group" "/sys/class/vfio/$group/dev"
echo "$bdf $group"

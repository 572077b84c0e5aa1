#!/bin/bash
# Boot a built kernel in QEMU with the host's root shared read-only over 9p,
# run a command as root in the guest, print its output and exit with its
# status.  A guest oops, panic, BUG, WARN, lockdep/KASAN/kmemleak report or
# a hang past VM_TIMEOUT fails the run.
#
# Usage: vm-run.sh CMD...
# Environment: KERNEL (ktask|baseline), VM_SMP, VM_MEM, VM_NODES,
#   VM_MEMLESS_NODES (the last N nodes have CPUs but no memory), VM_APPEND, VM_QEMU_ARGS, VM_TIMEOUT (seconds), VM_ACCEL (tcg|kvm),
#   VM_QUIET=1 (do not echo the boot banner), VM_IMAGE (boot this bzImage
#   or vmlinuz instead of KERNEL's: make check-configs, make deb-check).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: vm-run.sh CMD..."
flavour=${KERNEL:-ktask}
if [ -n "${VM_IMAGE:-}" ]; then
	image=$VM_IMAGE
	[ -f "$image" ] || die "VM_IMAGE: no kernel image at $image"
else
	kernel_fragments "$flavour" >/dev/null
	image=$(kernel_image "$flavour")
	[ -f "$image" ] || die "no $flavour kernel at $image (run 'make kernel${KERNEL:+ KERNEL=$KERNEL}')"
fi

smp=${VM_SMP:-2}
nodes=${VM_NODES:-2}
memless=${VM_MEMLESS_NODES:-0}
mem=${VM_MEM:-4G}
timeout_s=${VM_TIMEOUT:-900}
accel=${VM_ACCEL:-tcg}

to_mib() {
	case $1 in
	*[Gg]) echo $(( ${1%[Gg]} * 1024 )) ;;
	*[Mm]) echo "${1%[Mm]}" ;;
	*[0-9]) echo "$1" ;;
	*) die "VM_MEM=$1: use a size like 4G or 2048M" ;;
	esac
}
mem_mib=$(to_mib "$mem")
[ "$nodes" -ge 1 ] && [ "$smp" -ge 1 ] || die "VM_SMP and VM_NODES must be >= 1"
[[ $memless =~ ^[0-9]+$ ]] && [ "$memless" -lt "$nodes" ] && { [ "$memless" = 0 ] || [ "$smp" -ge "$nodes" ]; } ||
	die "VM_MEMLESS_NODES=$memless: leave a node with memory, and give each node a CPU (VM_SMP >= VM_NODES)"
mem_nodes=$(( nodes - memless ))
[ $(( mem_mib % mem_nodes )) = 0 ] || die "VM_MEM=$mem does not split evenly over $mem_nodes nodes"

# CPUs are spread over the nodes in contiguous blocks; a node left without a
# CPU (VM_SMP < VM_NODES) is a memory-only node, one of the last
# VM_MEMLESS_NODES a CPU-only node.
numa_args=()
cpu=0
for ((n = 0; n < nodes; n++)); do
	per=$(( smp / nodes + (n < smp % nodes ? 1 : 0) ))
	memdev=
	if [ "$n" -lt "$mem_nodes" ]; then
		numa_args+=(-object "memory-backend-ram,id=m$n,size=$(( mem_mib / mem_nodes ))M")
		memdev=,memdev=m$n
	fi
	if [ "$per" -gt 0 ]; then
		numa_args+=(-numa "node,nodeid=$n,cpus=$cpu-$(( cpu + per - 1 ))$memdev")
	else
		numa_args+=(-numa "node,nodeid=$n$memdev")
	fi
	cpu=$(( cpu + per ))
done

# One socket per node: CPUs sharing a socket share its last-level cache, and
# the scheduler warns when cache siblings sit on different nodes.
if [ $(( smp % nodes )) = 0 ]; then
	topology="sockets=$nodes,cores=$(( smp / nodes )),threads=1"
else
	topology="sockets=$smp,cores=1,threads=1"
fi

case $accel in
tcg) accel_args=(-accel tcg,thread=multi -cpu max) ;;
kvm) accel_args=(-accel kvm -cpu host) ;;
*) die "VM_ACCEL=$accel: use tcg or kvm" ;;
esac

mkdir -p "$KTASK_CACHE/vm"
run=$(mktemp -d "$KTASK_CACHE/vm/run.XXXXXX")
ln -sfn "$run" "$KTASK_CACHE/vm/last"
# Keep the last few runs for post-mortems.
# Guests booted side by side clean up at once: a run another one just
# removed is no error (with pipefail it ended this run, exit 2).
{ ls -dt "$KTASK_CACHE"/vm/run.* 2>/dev/null || true; } | tail -n +11 | xargs -r rm -rf

{
	printf '#!/bin/bash\n'
	printf 'cd %q || exit 125\n' "$PWD"
	printf 'export KTASK_TOP=%q KERNEL=%q VM_SMP=%q VM_NODES=%q\n' "$KTASK_TOP" "$flavour" "$smp" "$nodes"
	# ktaskctl and the test programs, built from this checkout by meson.
	printf 'export PATH=%q:$PATH\n' "$KTASK_TOP/build/meson/ktaskctl"
	if [ $# = 1 ]; then printf '%s\n' "$1"; else printf '%q ' "$@"; echo; fi
} > "$run/cmd"
# Paths the guest must still see once it mounts a tmpfs over /tmp.
printf '%s\n' "$KTASK_TOP" "$run" "$PWD" > "$run/keep"
: > "$run/console.log" ; : > "$run/out.log" ; : > "$run/status"

append="console=ttyS0,115200 root=/dev/root rootfstype=9p ro"
append+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
append+=" init=$KTASK_TOP/guest/init ktask_run_dir=$run panic=-1"
# Under TCG a vCPU can crawl for tens of seconds over one page: a 4 KiB
# copy_mc in bash's COW fault (soft lockup, 26 s) and a clear_page_erms in
# python's anonymous fault (RCU stall, 21 s) crawled at 3-17 bytes/s, both
# writing physical pages at 0x1c1xxxx, where the freed init text lies (TCG
# translated code there at boot), on 2026-12-04; neither involved ktask.
# Soft lockups need 2 x watchdog_thresh and RCU stalls the stall timeout:
# at 120 s both still catch a kernel that loops.
[ "$accel" != tcg ] || append+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
# -cpu max has LA57, and 6.12 answers pgtable_l5_enabled() from
# boot_cpu_data, which identify_cpu() clears while it re-reads CPUID: an
# interrupt in that window makes KASAN see the 5-level direct map as a
# wild-memory-access (seen once in rcu_is_watching() at boot).  The debug
# kernel boots with 4-level paging.
[ "$flavour" != debug ] || append+=" no5lvl"
append+=" ${VM_APPEND:-}"

# shellcheck disable=SC2206 # VM_QEMU_ARGS is a list of words by design
extra=(${VM_QEMU_ARGS:-})
[ -n "${VM_QUIET:-}" ] || info "booting $flavour kernel: $smp vCPUs, $mem over $nodes nodes, $accel${VM_APPEND:+, append '$VM_APPEND'}${VM_QEMU_ARGS:+, qemu '$VM_QEMU_ARGS'}"

start=$(date +%s)
set +e
timeout -k 10 "$timeout_s" qemu-system-x86_64 \
	-machine q35 "${accel_args[@]}" -smp "$smp,$topology" -m "${mem_mib}M" "${numa_args[@]}" \
	-nodefaults -no-user-config -display none -monitor none -no-reboot \
	-kernel "$image" -append "$append" \
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	-serial "file:$run/console.log" -serial "file:$run/out.log" -serial "file:$run/status" \
	"${extra[@]}" </dev/null > "$run/qemu.log" 2>&1 &
qemu=$!
tail -n +1 -f --pid=$qemu "$run/out.log" &
tailer=$!
wait $qemu
qrc=$?
wait $tailer 2>/dev/null
set -e
elapsed=$(( $(date +%s) - start ))

fail() {
	echo "vm-run: $*" >&2
	echo "vm-run: last lines of the guest console ($run/console.log):" >&2
	tail -n 60 "$run/console.log" | sed 's/^/  | /' >&2
	exit 1
}

[ "$qrc" != 124 ] && [ "$qrc" != 137 ] || fail "guest hung: no exit after ${timeout_s}s (VM_TIMEOUT)"
[ "$qrc" = 0 ] || { cat "$run/qemu.log" >&2; fail "qemu exited with status $qrc"; }

# Anything the kernel reports as a bug fails the run, whatever CMD returned.
if reports=$("$KTASK_TOP/scripts/kernel-reports.sh" < "$run/console.log"); then
	echo "vm-run: the guest kernel reported a problem:" >&2
	head -n 20 <<< "$reports" | sed 's/^/  | /' >&2
	fail "kernel log not clean"
fi

status=$(tr -dc '0-9' < "$run/status")
[ -n "$status" ] || fail "guest stopped before CMD finished (no exit status)"
[ -n "${VM_QUIET:-}" ] || info "guest done in ${elapsed}s, CMD exited with $status (log: $run)"
exit "$status"

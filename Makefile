# ktask: build, boot and test the ktask kernel series in QEMU.
# Targets are an interface (README, CI and issues refer to them).

SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KERNEL ?= ktask
export KERNEL KTASK_CACHE VM_SMP VM_MEM VM_NODES VM_MEMLESS_NODES VM_APPEND VM_QEMU_ARGS VM_TIMEOUT VM_ACCEL

# Targets install packages (deps) and build the kernel with every CPU
# themselves: under make -j they would race each other.
.NOTPARALLEL:

.PHONY: help deps kernel tree export-patches vm-run test test-debug test-debug-subset test-kunit test-bats demo \
	check-series check-configs deb deb-check tools bench bench-vfio clean

help:
	@echo "make deps             install what the project needs (apt-get)"
	@echo "make kernel           build the kernel (KERNEL=ktask|baseline|debug|ktask-off)"
	@echo "make tree             development checkout, one commit per patch"
	@echo "make export-patches   regenerate kernel/patches from the checkout"
	@echo "make vm-run CMD='...' boot the kernel and run CMD as root in the guest"
	@echo "make test             everything: KUnit + bats in the guest"
	@echo "make test-debug       the same on the debug kernel (KASAN, lockdep, kmemleak, KFENCE)"
	@echo "make test-debug-subset  the debug kernel on stress, fuzz, hotplug, hugetlbfs (in CI)"
	@echo "make demo             boot the guest and show ktask at work"
	@echo "make check-series     every patch builds on its own, checkpatch, kernel-doc, KTASK=n"
	@echo "make check-configs    the series builds in other configs: i386, SMP=n, modules, Debian's... (LANES=...)"
	@echo "make deb              Debian packages: the kernel on Debian's config (LOCALMODCONFIG=1: reduced), ktaskctl"
	@echo "make deb-check        boot the packaged kernel, load its KUnit module, smoke tests"
	@echo "make bench            the seeds' experiments, ktask vs baseline kernel and userspace (QUICK=1: short)"
	@echo "make bench-vfio       VFIO map 1 GiB, ktask vs 1 thread (BENCH_VFIO_SWEEP=1: 2M-256M)"
	@echo "make tools            build ktaskctl and the test programs (build/meson)"
	@echo "make clean            remove build/ (the caches in ~/.cache/ktask stay)"
	@echo "make help             this list"

deps:
	@$(TOP)/scripts/deps.sh

kernel:
	@$(TOP)/scripts/build-kernel.sh $(KERNEL)

tree:
	@$(TOP)/scripts/tree.sh

export-patches:
	@$(TOP)/scripts/export-patches.sh

# $(value CMD): the command as typed, so that make leaves its '$' alone.
vm-run:
	@[ -n '$(subst ','\'',$(value CMD))' ] || { echo "usage: make vm-run CMD='...'" >&2; exit 2; }
	@$(TOP)/scripts/vm-run.sh '$(subst ','\'',$(value CMD))'

tools:
	@$(TOP)/scripts/build-tools.sh

test: deps kernel tools
	@$(TOP)/scripts/run-tests.sh

# The same suite on the debug kernel (KASAN, lockdep, kmemleak, ...), two
# guests at a time: a debug guest keeps about one host CPU busy.  The default
# run's bats files are split over two guests (and the longest runs go first)
# so that the two lanes finish together.
DEBUG_RUNS := smp2-core:2:000-boot.bats,010-kunit.bats,020-debugfs.bats,030-synthetic.bats,040-bad-input.bats,050-tuning.bats \
	vfio:2:110-vfio.bats hugetlb:2:100-hugetlbfs.bats \
	smp2-ctl:2:060-ktaskctl.bats,090-privileges.bats,140-trace.bats,150-power.bats,180-containment.bats \
	hotplug4:4:120-hotplug.bats confine4:4:130-confinement.bats,106-mm-selftests.bats stress:2:160-stress.bats \
	fuzz:2:170-fuzz.bats param:2:095-boot-param.bats smp4:4:kunit \
	users:2:105-populate.bats,107-shmem-fallocate.bats,108-migrate.bats
test-debug: deps tools
	@$(TOP)/scripts/build-kernel.sh debug
	@KERNEL=debug KTASK_TEST_JOBS=$${KTASK_TEST_JOBS:-2} KTASK_TEST_RUNS="$(DEBUG_RUNS)" $(TOP)/scripts/run-tests.sh

# The debug kernel on the files that drive ktask hardest, the subset .ci/run
# runs: stress (undo included) and fuzz in one guest, hotplug, and the
# hugetlbfs user, where the lockdep report of patch 20 came from
# (docs/testing.md: The debug kernel).
DEBUG_SUBSET := hugetlb:2:100-hugetlbfs.bats stress-fuzz:2:160-stress.bats,170-fuzz.bats,180-containment.bats \
	hotplug4:4:120-hotplug.bats
test-debug-subset: deps tools
	@$(TOP)/scripts/build-kernel.sh debug
	@KERNEL=debug KTASK_TEST_JOBS=$${KTASK_TEST_JOBS:-2} KTASK_TEST_ONLY_RUNS=1 KTASK_TEST_RUNS="$(DEBUG_SUBSET)" $(TOP)/scripts/run-tests.sh

demo: deps kernel tools
	@$(TOP)/scripts/demo.sh

check-series: deps kernel
	@$(TOP)/scripts/check-series.sh

# LANES="i386 modules": some lanes only (scripts/check-configs.sh --list).
check-configs: deps
	@$(TOP)/scripts/check-configs.sh $(LANES)

# LOCALMODCONFIG=1: only the modules loaded here; DEB_CONFIG: another start.
deb: deps tools
	@LOCALMODCONFIG=$(LOCALMODCONFIG) DEB_CONFIG=$(DEB_CONFIG) $(TOP)/scripts/deb.sh $(DEB_PARTS)

deb-check: deps tools
	@$(TOP)/scripts/deb-check.sh

# Benchmarks boot whatever kernel is built: they never rebuild it.
bench: deps tools
	@$(TOP)/bench/bench.sh

bench-vfio: tools
	@$(TOP)/bench/bench-vfio.sh

clean:
	rm -rf $(TOP)/build

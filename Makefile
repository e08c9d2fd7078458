# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ib_async top level. The two commands a newcomer needs:
#   make demo    boot the QEMU guest and watch live RDMA events
#   make check   build, lint and run every test (host and guest)
# Both install missing Debian packages first (scripts/install-deps.sh).

# The guest kernel: Debian's newest installed 6.1 image of the flavour
# (KFLAVOUR=rt: the PREEMPT_RT one, linux-image-rt-amd64), as
# scripts/kernel-release.sh picks it. The module is built against its
# headers and booted with it, never against the host's kernel.
KFLAVOUR ?=
KVER ?= $(shell $(CURDIR)/scripts/kernel-release.sh $(KFLAVOUR) 2>/dev/null)
# once, rather than at every use of $(KVER)
KVER := $(KVER)
KDIR ?= /lib/modules/$(KVER)/build

BUILD := $(CURDIR)/build
STAGE := $(BUILD)/stage
LINUX_TOOLS := $(BUILD)/linux-src
KSFT_DIR := $(LINUX_TOOLS)/tools/testing/selftests
SELFTESTS := $(CURDIR)/selftests/ib_async
TEST_MODULES := $(SELFTESTS)/modules

# Targets that build against the guest kernel stop with one line when its
# headers are missing (a fresh machine): `make deps` installs them.
need-kdir = $(if $(wildcard $(KDIR)/Makefile),,$(error no kernel build tree \
	at '$(KDIR)': run 'make deps' first, or pass KDIR=<tree>))

# make expands $ in command-line variables; keep the guest command verbatim.
export RAW_CMD := $(value CMD)

.PHONY: all module test-modules user selftests linux-tools stage vm demo \
	check check-run lint deps clean distclean help bench bench-profile difftest fuzz \
	peer-test rdmacm-test

all: module test-modules user selftests

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@scripts/install-deps.sh

module:
	$(need-kdir)
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

test-modules:
	$(need-kdir)
	$(MAKE) -C $(KDIR) M=$(TEST_MODULES) W=1 modules

user:
	$(MAKE) -C user

linux-tools:
	@scripts/extract-linux-tools.sh $(LINUX_TOOLS)

selftests: linux-tools user
	$(MAKE) -C $(SELFTESTS) KSFT_DIR=$(KSFT_DIR)

# The guest's overlay: what /init finds under / at boot (scripts/stage.sh,
# which also stages for the debug and RT kernels).
stage: all
	scripts/stage.sh $(rdma-core-opts) $(STAGE)

# Debian suites whose rdma-core ib_async_devinfo.sh also runs the shim
# under (scripts/rdma-core-root.sh; make check: Debian 13's), in every
# guest the stages boot; empty for make vm and make demo.
RDMA_CORE_SUITES ?=
CHECK_RDMA_CORE_SUITES ?= trixie
rdma-core-opts = $(foreach s,$(RDMA_CORE_SUITES),--rdma-core $(s))

# The debug guest kernel (KASAN, lockdep, kmemleak...): built from Debian's
# linux-source-6.1 by scripts/debug-kernel.sh, cached outside the checkout.
DEBUG_STAGE := $(BUILD)/stage-debug

# make vm [KERNEL=debug] [CMD='shell command'] [PAYLOAD=dir] [TIMEOUT=seconds]
vm: stage
	$(if $(filter debug,$(KERNEL)),tree=$$(scripts/stage.sh --debug \
		$(DEBUG_STAGE)) &&) \
	scripts/guest/vm.sh --kver $(KVER) \
		$(if $(filter debug,$(KERNEL)),--kernel-tree "$$tree" \
			--stage $(DEBUG_STAGE),--stage $(STAGE)) \
		$(if $(PAYLOAD),--payload $(PAYLOAD)) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT))

# The demo's output only; the guest's console goes to build/demo-console.log.
demo: deps
	$(MAKE) stage
	RAW_CMD='sh demo.sh' IBASYNC_CONSOLE_LOG=$(BUILD)/demo-console.log \
		scripts/guest/show.sh --kver $(KVER) --stage $(STAGE) \
		--payload $(CURDIR)/scripts/demo

check: deps
	$(MAKE) check-run RDMA_CORE_SUITES='$(CHECK_RDMA_CORE_SUITES)'

# With Debian's PREEMPT_RT kernel installed (install-deps.sh installs it), the
# guest suite also runs on it, unless KFLAVOUR=rt made it the main one.
RT_STAGE := $(BUILD)/stage-rt
RT_KVER := $(if $(KFLAVOUR),,$(shell $(CURDIR)/scripts/kernel-release.sh rt 2>/dev/null))
RT_KVER := $(if $(wildcard /lib/modules/$(RT_KVER)/build/Makefile),$(RT_KVER))

# Debian 12's 6.12 from the security suite (install-deps.sh installs the
# newest): the guest suite runs on it, and the module is built against its
# PREEMPT_RT headers. Unless KFLAVOUR or KVER picked another main kernel.
K612_STAGE := $(BUILD)/stage-6.12
K612_KVER := $(if $(KFLAVOUR),,$(shell $(CURDIR)/scripts/kernel-release.sh stock 6.12 2>/dev/null))
K612_KVER := $(if $(wildcard /lib/modules/$(K612_KVER)/build/Makefile),$(K612_KVER))
K612RT_KVER := $(shell $(CURDIR)/scripts/kernel-release.sh --headers rt 6.12 2>/dev/null)

# The newest Debian kernel (7.x from trixie-backports) lives in the cached
# Debian NEWEST_SUITE chroot (scripts/chroot.sh), newer than this host's
# toolchain: the modules are built there and the guest boots its image.
NEWEST_SUITE ?= trixie
NEWEST_STAGE := $(BUILD)/stage-newest
# the suite to take it from when KERNELS asks for it, else empty
newest-suite = $(if $(filter newest,$(KERNELS)),$(NEWEST_SUITE))

# make check KERNELS='6.1 6.12': the guest kernels to run the suite on, of
# 6.1 6.1-rt debug 6.12 newest (all that are installed by default).
KERNELS ?= 6.1 6.1-rt debug 6.12 newest
# Debian suites whose newest backports kernel (7.x from trixie-backports)
# the module is built against in a cached chroot (scripts/chroot.sh).
CHROOTS ?= trixie
# The Debian suite whose chroot make check installs the packages in (make
# deb-test's, there with Debian 13 and its newest kernel too); empty: none.
DEB_TEST_SUITE ?= trixie

check-run: stage
	tree=$$(scripts/stage.sh --debug $(rdma-core-opts) $(DEBUG_STAGE)) && \
	$(if $(RT_KVER),scripts/stage.sh --kdir /lib/modules/$(RT_KVER)/build \
		--name rt $(rdma-core-opts) $(RT_STAGE) &&) \
	$(if $(K612_KVER),scripts/stage.sh --kdir /lib/modules/$(K612_KVER)/build \
		--name k612 $(rdma-core-opts) $(K612_STAGE) &&) \
	$(if $(newest-suite), \
		root=$$(scripts/chroot.sh $(newest-suite)) && \
		newest=$$(scripts/kernel-release.sh --root "$$root" stock newest) && \
		scripts/stage.sh --kdir /lib/modules/$$newest/build --name newest \
			--chroot $(newest-suite) $(rdma-core-opts) $(NEWEST_STAGE) &&) \
	scripts/check.sh --kver $(KVER) --kdir $(KDIR) --stage $(STAGE) \
		--linux-tools $(LINUX_TOOLS) \
		--debug-tree "$$tree" --debug-stage $(DEBUG_STAGE) \
		$(if $(RT_KVER),--guest 6.1-rt:$(RT_KVER):$(RT_STAGE)) \
		$(if $(K612_KVER),--guest 6.12:$(K612_KVER):$(K612_STAGE)) \
		$(if $(newest-suite),--guest "newest:$$newest:$(NEWEST_STAGE):$$root") \
		$(if $(K612RT_KVER),--build-only /lib/modules/$(K612RT_KVER)/build) \
		$(foreach c,$(CHROOTS),--chroot $(c)) \
		$(if $(DEB_TEST_SUITE),--deb-test $(DEB_TEST_SUITE)) \
		--deb-host --install \
		--kernels '$(KERNELS)'

lint: linux-tools
	$(need-kdir)
	scripts/lint.sh --kdir $(KDIR) --linux-tools $(LINUX_TOOLS)

# One guest boot of a bench payload: $(call bench-guest,SCRIPT,NAME,DIR,
# TIMEOUT) runs SCRIPT of bench/build/DIR, its console in
# build/NAME-console.log. ibasync.strict=0: the guest leaves out the checker
# of kernel work requests (ib_async_strict.ko), whose probes on every post
# would be in the timings.
bench-guest = RAW_CMD='sh $(1)' IBASYNC_CONSOLE_LOG=$(BUILD)/$(2)-console.log \
	IBASYNC_APPEND='$(IBASYNC_APPEND) ibasync.strict=0' \
	scripts/guest/vm.sh --kver $(KVER) --stage $(STAGE) \
	--payload $(CURDIR)/bench/build/$(3) --timeout $(4)

# make bench: ib_async beside ib_uverbs, one guest boot (bench/,
# Documentation/performance.rst). The table is also left in build/bench.txt.
bench: deps
	$(MAKE) stage
	$(MAKE) -C bench
	$(call bench-guest,bench.sh,bench,payload,1500)
	sed -n '/^@@BENCH_TABLE_BEGIN@@/,/^@@BENCH_TABLE_END@@/{//!p;}' \
		$(BUILD)/bench-console.log >$(BUILD)/bench.txt

# make bench-profile: where a receive's post goes on ib_async, one guest
# boot (bench/profile.sh): the per-call times of its layers beside
# ib_uverbs, perf's split of the doorbell command by stage, and how
# often rxe's worker (6.12 on) starts on a CPU woken for it. Left in
# build/bench-profile.txt.
bench-profile: deps
	@scripts/install-deps.sh linux-perf
	$(MAKE) stage
	$(MAKE) -C bench profile
	$(call bench-guest,profile.sh,profile,profile,900)
	sed -n -e '/^side=/p' -e '/^wakeups /p' \
		-e '/^@@PROFILE_BEGIN@@/,/^@@PROFILE_END@@/{//!p;}' \
		$(BUILD)/profile-console.log >$(BUILD)/bench-profile.txt
	cat $(BUILD)/bench-profile.txt

# make difftest [PROGRAMS=N] [SEED=S]: random verb programs on ib_uverbs and
# on ib_async in one guest boot, traces compared (selftests/ib_async/gen).
difftest: deps
	$(MAKE) stage
	$(MAKE) -C $(SELFTESTS)/gen KVER=$(KVER) STAGE=$(STAGE)

# make peer-test: rdma-core's own test suite (Debian's python3-pyverbs) on
# rdma-core + ib_uverbs and over the shim, in one boot of the 6.1 guest
# (selftests/ib_async/peer). Ends with exactly "peer-suite: uverbs P
# passed; shim S passed, F failed, E errors, K skipped of N"; fails when a
# test of peer/expected-shim-pass.txt does not pass on both stacks or
# uverbs passes fewer than its floor (peer/report.sh says why).
peer-test: deps
	$(MAKE) stage
	@$(SELFTESTS)/peer/peer-test.sh --kver $(KVER) --stage $(STAGE)

# make rdmacm-test: Debian's rdmacm-utils examples and perftest's verbs
# tools with -R (librdmacm's connection setup), on rdma-core + ib_uverbs
# and over the shim in one boot of the 6.1 guest (selftests/ib_async/rdmacm).
# Ends with exactly "rdmacm: uverbs U ok; shim S ok of N"; fails when a
# program that works on uverbs fails over the shim or moves other data.
rdmacm-test: deps
	$(MAKE) stage
	@$(SELFTESTS)/rdmacm/rdmacm-test.sh --kver $(KVER) --stage $(STAGE)

# make fuzz [CALLS=N] [SEED=S] [KERNEL=debug|stock|rt]: the structure-aware
# fuzzer of the char device (selftests/ib_async/fuzz) in one guest boot, on
# the debug kernel unless KERNEL says otherwise. Ends with exactly
# "fuzz: N calls, R reports" and fails if R > 0; each report names the seed
# that replays it (make fuzz SEED=<seed> CALLS=2000).
fuzz: deps
	$(MAKE) stage
	@selftests/ib_async/fuzz/fuzz.sh --kernel $(or $(KERNEL),debug) \
		--kver $(KVER) --rt-kver '$(RT_KVER)' --stage $(STAGE) \
		--calls $(or $(CALLS),100000) --seed $(or $(SEED),1) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT))

# make deb: the Debian packages of debian/ (ib-async-dkms, libibasync1,
# libibasync-dev, ib-async-utils) in build/deb/, built with
# dpkg-buildpackage from a clean copy of HEAD (commit first: uncommitted
# changes are not in them) and failing on any lintian error or warning.
# The build's output, with the shim's unit tests, is in build/deb/build.log.
# make deb-test [SUITE=trixie]: installs them in a cached Debian 12 (or
# SUITE) chroot and checks that DKMS builds the module for each kernel
# there (scripts/deb-test.sh).
.PHONY: deb deb-test
DEB_DIR := $(BUILD)/deb

deb: deps
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src
	git archive -o $(DEB_DIR)/src.tar HEAD
	tar -xf $(DEB_DIR)/src.tar -C $(DEB_DIR)/src && rm $(DEB_DIR)/src.tar
	cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc -j2 \
		>$(DEB_DIR)/build.log 2>&1 || { tail -n 30 $(DEB_DIR)/build.log; \
		echo "make deb: failed, see $(DEB_DIR)/build.log" >&2; exit 1; }
	ls $(DEB_DIR)/*.deb
	lintian --fail-on error,warning $(DEB_DIR)/*.changes

deb-test: deb
	scripts/deb-test.sh $(if $(SUITE),--suite $(SUITE)) $(DEB_DIR)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C $(KDIR) M=$(TEST_MODULES) clean
	-$(MAKE) -C user clean
	-$(MAKE) -C $(SELFTESTS) clean
	-$(MAKE) -C bench clean
	-$(MAKE) -C $(SELFTESTS)/gen clean
	rm -rf $(STAGE) $(DEBUG_STAGE) $(RT_STAGE) $(K612_STAGE) $(BUILD)/check \
		$(BUILD)/check-build $(BUILD)/lint \
		$(BUILD)/fuzz $(BUILD)/peer \
		$(BUILD)/debug-modules $(BUILD)/rt-modules $(BUILD)/k612-modules

# Also drop the cached guest images and the extracted kernel tools.
distclean: clean
	rm -rf $(BUILD)

# make install / make uninstall [DESTDIR=...] [PREFIX=/usr/local]
include mk/install.mk

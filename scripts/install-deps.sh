#!/usr/bin/env bash
# install-deps.sh [EXTRA_PACKAGE...]
#
# Installs the Debian (bookworm) packages that ib_async's build, lint and QEMU test bed need,
# with the newest of Debian 12's 6.12 kernels (kernel_612_packages).
# Idempotent: when everything is present it only runs one dpkg-query and exits 0.
# As root it installs what is missing; otherwise it prints the missing packages and exits 1.
set -euo pipefail

# One package per line: "name  # why". Keep the comment short; it is shown to users.
PACKAGES_SPEC='
build-essential      # gcc, make, libc headers: kernel module, library and tests
linux-image-amd64    # the guest kernel booted under QEMU (and its /lib/modules tree)
linux-headers-amd64  # kbuild tree for the out-of-tree module (same version as the image)
linux-image-rt-amd64   # the PREEMPT_RT guest kernel: make check runs the suite on it too
linux-headers-rt-amd64 # its kbuild tree
linux-source-6.1     # kselftest headers/lib.mk, checkpatch.pl and kernel-doc, extracted at build time
qemu-system-x86      # runs the test guest (TCG)
busybox-static       # guest shell and basic applets
iproute2             # guest ip (veth) and rdma (rxe link); busybox ip cannot make veth
kmod                 # modprobe/insmod/depmod for the guest module set
rdma-core            # rdma userspace config (/etc/libibverbs.d), reference behaviour
ibverbs-utils        # ibv_devinfo, ibv_asyncwatch ... run in the guest
ibverbs-providers    # librxe provider for libibverbs
perftest             # ib_send_bw ... ib_atomic_bw: run in the guest over the shim and in make bench
rdmacm-utils         # rping, ucmatose, udaddy...: make rdmacm-test runs them on both stacks
librdmacm-dev        # rdma_cma.h: the hot-unplug probe of make rdmacm-test links librdmacm
libibverbs-dev       # verbs headers and libibverbs.so to build against
libsystemd-dev       # sd_journal_sendv() of ib_async_watch --journal
prometheus           # promtool: make -C user check validates the --metrics file (daemon kept off)
sparse               # make C=1 static checking
shellcheck           # make lint: every shell script of the tree
cpio                 # builds the guest initramfs
xz-utils             # unpacks linux-source-6.1.tar.xz
perl                 # scripts/checkpatch.pl
rsync                # kselftest lib.mk install rule
coreutils            # timeout (host VM watchdog, kselftest runner in guest), sha256sum
libc-bin             # ldd (collect guest libs) and ldconfig (guest ld.so.cache)
flex                 # debug guest kernel build (kconfig, scripts/debug-kernel.sh)
bison                # debug guest kernel build
bc                   # debug guest kernel build (timeconst)
libelf-dev           # debug guest kernel build (objtool, ORC unwinder)
libssl-dev           # debug guest kernel build (certificate tools)
debhelper            # make deb: dh and debhelper-compat 13 of debian/rules
dh-dkms              # make deb: dh_dkms, the dkms sequence of ib-async-dkms
lintian              # make deb: the packages must pass it without warnings
debootstrap          # scripts/chroot.sh: Debian chroots (make deb-test)
python3-pyverbs      # make peer-test: rdma-core test suite, run in the guest
python3-docutils     # make lint: scripts/rst-check.py over the .rst files
'

# Print the package names of PACKAGES_SPEC plus the extra arguments.
wanted_packages() {
	printf '%s\n' "$PACKAGES_SPEC" | sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d'
	local p
	for p in "$@"; do printf '%s\n' "$p"; done
}

# Print the wanted packages that are not fully installed ("ii").
missing_packages() {
	local installed
	# One dpkg-query for all names keeps the no-op case well under a second.
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null |
		awk '$2 == "ii" { print $1 }') || true
	local p
	for p in "$@"; do
		grep -qxF -- "$p" <<<"$installed" || printf '%s\n' "$p"
	done
}

# Debian 12's 6.12 kernels (the security suite) come only as versioned
# packages: linux-image-6.12.N+deb12-amd64 and the headers of it and of its
# rt flavour. Print the packages of the newest N, or nothing when a 6.12
# image and both headers are installed already (N is never hard-coded).
kernel_612_packages() {
	local rk top n
	top=$(cd "$(dirname "$0")/.." && pwd)
	rk=$top/scripts/kernel-release.sh
	if "$rk" stock 6.12 >/dev/null 2>&1 &&
		"$rk" --headers stock 6.12 >/dev/null 2>&1 &&
		"$rk" --headers rt 6.12 >/dev/null 2>&1; then
		return 0
	fi
	[ "$(id -u)" -ne 0 ] || apt-get update -q >&2
	n=$(apt-cache search --names-only '^linux-headers-6\.12\..*\+deb12-amd64$' |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*\)+deb12-amd64 .*/\1/p' |
		sort -V | tail -n 1)
	if [ -z "$n" ]; then
		echo "install-deps: no linux-headers-6.12.N+deb12-amd64 in the" \
			"package lists (is bookworm-security in the sources?)" >&2
		return 1
	fi
	printf '%s\n' "$(kernel_612_image "$n")" \
		"linux-headers-$n+deb12-amd64" "linux-headers-$n+deb12-rt-amd64"
}

# The image of 6.12.N: the signed package, or while Debian has not signed
# that N yet (the security suite then carries only the -unsigned package,
# and the signed name is a virtual one apt cannot install) its -unsigned
# twin, which installs the same /boot and /lib/modules files.
kernel_612_image() {
	local img=linux-image-$1+deb12-amd64
	if apt-cache policy "$img" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		echo "$img"
	else
		echo "$img-unsigned"
	fi
}

# A machine reset in the middle of a dpkg run (deb-test.sh --host's
# install, typically) leaves dpkg "interrupted", and apt-get refuses to
# install anything until it is finished: finish it, ours purged first.
recover_dpkg() {
	[ -n "$(dpkg --audit 2>/dev/null)" ] || return 0
	echo "install-deps: dpkg was interrupted; finishing it first"
	"$(dirname "$0")/deb-test.sh" --host-recover
	dpkg --configure -a
}

# The prometheus package is here for its promtool alone; its postinst
# enables and starts a Prometheus server (port 9090) where the init
# system lets it (policy-rc.d of a container usually does not). Stop it
# and keep it from starting at boot; a host that runs its own Prometheus
# has the package already and is not touched here.
prometheus_off() {
	if [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >/dev/null 2>&1 || true
	elif [ -x /etc/init.d/prometheus ]; then
		/etc/init.d/prometheus stop >/dev/null 2>&1 || true
		update-rc.d prometheus disable >/dev/null 2>&1 || true
	fi
}

main() {
	local -a wanted missing k612
	mapfile -t k612 < <(kernel_612_packages)
	mapfile -t wanted < <(wanted_packages "$@" "${k612[@]}")
	mapfile -t missing < <(missing_packages "${wanted[@]}")
	[ "${#missing[@]}" -eq 0 ] && return 0

	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing Debian packages: ${missing[*]}" >&2
		echo "install-deps: install them with:" >&2
		echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}" >&2
		return 1
	fi

	echo "install-deps: installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	recover_dpkg
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"

	if printf '%s\n' "${missing[@]}" | grep -qx prometheus; then
		prometheus_off
	fi

	# Verify: a typo in an extra package name must not pass silently.
	mapfile -t missing < <(missing_packages "${wanted[@]}")
	if [ "${#missing[@]}" -ne 0 ]; then
		echo "install-deps: still missing after install: ${missing[*]}" >&2
		return 1
	fi
}

main "$@"

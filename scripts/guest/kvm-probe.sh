#!/usr/bin/env bash
# kvm-probe.sh KERNEL INITRD
#
# Prints "kvm" if QEMU with KVM boots KERNEL with INITRD to userspace within a hard timeout,
# else "tcg". On these test machines /dev/kvm exists but -enable-kvm hangs before the kernel
# prints anything (nested virtualisation), so KVM is never assumed: it must prove itself.
# The result is cached in build/guest/kvm-probe, keyed by the kernel, the QEMU version and the host
# kernel. IBASYNC_ACCEL=tcg|kvm skips the probe; IBASYNC_KVM_PROBE_TIMEOUT (default 20 s).
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROBE_TIMEOUT=${IBASYNC_KVM_PROBE_TIMEOUT:-20}

probe_key() {
	echo "$1 $(qemu-system-x86_64 --version | head -n 1) host $(uname -r)"
}

# Boot once with KVM; the guest /init prints the marker and powers off at once in probe mode.
boot_with_kvm() {
	local kernel=$1 initrd=$2 out
	out=$(timeout -k 2 "$PROBE_TIMEOUT" qemu-system-x86_64 \
		-accel kvm -cpu host -smp 2 -m 512 \
		-display none -nodefaults -serial stdio -no-reboot \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 loglevel=1 panic=-1 ibasync.probe=1" </dev/null 2>&1) || true
	grep -q '@@IBASYNC_PROBE_OK@@' <<<"$out"
}

main() {
	[ $# -eq 2 ] || { echo "usage: $0 KERNEL INITRD" >&2; exit 2; }
	local kernel=$1 initrd=$2 cache=$BUILD_GUEST_DIR/kvm-probe key result
	case ${IBASYNC_ACCEL:-auto} in
	tcg | kvm) echo "$IBASYNC_ACCEL"; return 0 ;;
	auto) ;;
	*) die "IBASYNC_ACCEL must be tcg, kvm or auto" ;;
	esac
	# No usable /dev/kvm: nothing to probe.
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return 0
	fi
	key=$(probe_key "$kernel")
	if [ -f "$cache" ] && [ "$(sed -n 1p "$cache")" = "$key" ]; then
		sed -n 2p "$cache"
		return 0
	fi
	note "probing KVM (up to ${PROBE_TIMEOUT} s, cached in $cache)"
	result=tcg
	boot_with_kvm "$kernel" "$initrd" && result=kvm
	mkdir -p "$BUILD_GUEST_DIR"
	printf '%s\n%s\n' "$key" "$result" >"$cache"
	note "KVM probe result: $result"
	echo "$result"
}

main "$@"

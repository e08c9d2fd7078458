#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# chroot.sh SUITE [-- COMMAND...]
#
# A Debian SUITE (trixie...) chroot made with debootstrap and cached
# outside the checkout in /var/cache/ib_async/chroot-SUITE, like the debug
# kernel: made once (a few minutes), with build-essential, kmod and the
# newest kernel of SUITE-backports, headers and image (linux-headers-amd64,
# linux-image-amd64: the guest boots the chroot's /boot and /lib/modules,
# scripts/guest/vm.sh --kernel-root), refreshed at most once a day. Without COMMAND it prints the
# chroot's path; with one, it runs COMMAND inside (as root, /proc and
# /dev bound for the duration, the checkout visible at /src read-only).
#
# Kernels newer than the host's userspace need it: the modpost and objtool
# of Debian's 7.x headers need glibc >= 2.38, newer than Debian 12's.
set -euo pipefail

usage() { echo "usage: $0 SUITE [-- COMMAND...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
suite=$1
shift
case $suite in *[!a-z]* | '') usage ;; esac
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || usage
	shift
fi
[ "$(id -u)" = 0 ] || { echo "chroot.sh: needs root" >&2; exit 1; }

top=$(cd "$(dirname "$0")/.." && pwd)
root=/var/cache/ib_async/chroot-$suite
mirror=http://deb.debian.org/debian
packages=build-essential,kmod,ca-certificates,xz-utils,bc,flex,bison,libelf-dev,libssl-dev,git

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[$i]}" 2>/dev/null || true
	done
}
trap cleanup EXIT
bind() {	# bind SRC DIR [ro]
	mkdir -p "$root/$2"
	mount --bind "$1" "$root/$2"
	mounted+=("$root/$2")
	[ -z "${3:-}" ] || mount -o remount,bind,ro "$root/$2"
}

if [ ! -e "$root/.ib_async-ready" ]; then
	command -v debootstrap >/dev/null ||
		{ echo "chroot.sh: debootstrap missing: run scripts/install-deps.sh" >&2; exit 1; }
	echo "chroot.sh: making the $suite chroot in $root (once)" >&2
	rm -rf "$root"
	mkdir -p "$(dirname "$root")"
	debootstrap --variant=buildd --include="$packages" "$suite" \
		"$root.tmp" "$mirror" >&2
	cat >"$root.tmp/etc/apt/sources.list" <<EOS
deb $mirror $suite main
deb $mirror $suite-updates main
deb $mirror $suite-backports main
deb http://security.debian.org/debian-security $suite-security main
EOS
	mv "$root.tmp" "$root"
	touch "$root/.ib_async-ready"
fi

bind /proc proc
bind /dev dev
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The newest backports kernel, looked for at most once a day (git too:
# chroots made before it was in $packages lack it). The stamp's name
# changed when the image joined the headers, so older chroots get it.
stamp=$root/.ib_async-kernel
if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	echo "chroot.sh: updating $suite-backports kernel headers and image" >&2
	chroot "$root" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends \
		git && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends -t $suite-backports linux-headers-amd64 \
		linux-image-amd64" >&2
	touch "$stamp"
fi

if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi
bind "$top" src ro
chroot "$root" "$@"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kernel-release.sh [--root DIR] [--headers] [FLAVOUR [SERIES]]: print the
# release of the newest installed Debian kernel of FLAVOUR and SERIES (its
# /boot/vmlinuz-REL and /lib/modules/REL both present; with --headers, its
# kbuild tree /lib/modules/REL/build instead of the image), on this host or,
# with --root, in the Debian chroot DIR (scripts/chroot.sh):
#   FLAVOUR stock (or empty) or rt (PREEMPT_RT)
#   SERIES  6.1 (default)  6.1.0-N-amd64, 6.1.0-N-rt-amd64: Debian 12's
#                          kernel (linux-image-amd64, linux-image-rt-amd64)
#           6.12           6.12.N+deb12-amd64, 6.12.N+deb12-rt-amd64:
#                          Debian 12's security suite, versioned packages
#                          only; release names have no ABI number
#           newest         any series: the newest of all, 7.x from
#                          trixie-backports in a Debian 13 chroot
# The top-level Makefile (KVER, KFLAVOUR=rt, RT_KVER, K612_KVER) and
# scripts/ (install-deps.sh, guest/) ask this script rather than
# searching /boot themselves. The debug kernel is not a release: it is a
# tree that scripts/debug-kernel.sh builds, booted with the stock 6.1
# release's userspace.
# Exits 1, printing nothing on stdout, when no such kernel is installed.
set -euo pipefail

headers=0 root=
while [ $# -gt 0 ]; do
	case $1 in
	--headers) headers=1; shift ;;
	--root) root=${2:?}; shift 2 ;;
	*) break ;;
	esac
done
case ${1:-} in
'' | stock) suffix=amd64 ;;
rt) suffix=rt-amd64 ;;
*) echo "usage: $0 [--root DIR] [--headers] [stock|rt [6.1|6.12|newest]]" >&2; exit 2 ;;
esac
# the shape of a release name: not -cloud-amd64, not rt for stock
case ${2:-6.1} in
6.1) glob="6.1.0-*-$suffix" re="^6\\.1\\.0-[0-9]+-$suffix\$" ;;
6.12) glob="6.12.*+deb12-$suffix" re="^6\\.12\\.[0-9]+\\+deb12-$suffix\$" ;;
newest) glob="*-$suffix" re="^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9]+)?(\\+deb[0-9]+)?-$suffix\$" ;;
*) echo "usage: $0 [--root DIR] [--headers] [stock|rt [6.1|6.12|newest]]" >&2; exit 2 ;;
esac

best=
for d in "$root"/lib/modules/$glob; do
	rel=${d#"$root"/lib/modules/}
	[[ $rel =~ $re ]] || continue
	if [ "$headers" = 1 ]; then
		[ -f "$d/build/Makefile" ] || continue
	else
		[ -f "$root/boot/vmlinuz-$rel" ] || continue
	fi
	best=$(printf '%s\n%s\n' "$best" "$rel" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "kernel-release.sh: no Debian ${2:-6.1} $suffix kernel" \
		"$([ "$headers" = 1 ] && echo headers || echo image) installed;" \
		"run scripts/install-deps.sh" >&2
	exit 1
fi
echo "$best"

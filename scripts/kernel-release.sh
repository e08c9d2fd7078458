#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kernel-release.sh [FLAVOUR [SERIES]]: print the release of the newest
# installed Debian kernel of FLAVOUR and SERIES (its /boot/vmlinuz-REL and
# /lib/modules/REL both present; with --headers, its kbuild tree
# /lib/modules/REL/build instead of the image):
#   FLAVOUR stock (or empty) or rt (PREEMPT_RT)
#   SERIES  6.1 (default)  6.1.0-N-amd64, 6.1.0-N-rt-amd64: Debian 12's
#                          kernel (linux-image-amd64, linux-image-rt-amd64)
#           6.12           6.12.N+deb12-amd64, 6.12.N+deb12-rt-amd64:
#                          Debian 12's security suite, versioned packages
#                          only; release names have no ABI number
# The top-level Makefile (KVER, KFLAVOUR=rt, RT_KVER, K612_KVER) and
# scripts/ (install-deps.sh, guest/) ask this script rather than
# searching /boot themselves. The debug kernel is not a release: it is a
# tree that scripts/debug-kernel.sh builds, booted with the stock 6.1
# release's userspace.
# Exits 1, printing nothing on stdout, when no such kernel is installed.
set -euo pipefail

headers=0
if [ "${1:-}" = --headers ]; then
	headers=1
	shift
fi
case ${1:-} in
'' | stock) suffix=amd64 ;;
rt) suffix=rt-amd64 ;;
*) echo "usage: $0 [--headers] [stock|rt [6.1|6.12]]" >&2; exit 2 ;;
esac
# the shape of a release name: not -cloud-amd64, not rt for stock
case ${2:-6.1} in
6.1) glob="6.1.0-*-$suffix" re="^6\\.1\\.0-[0-9]+-$suffix\$" ;;
6.12) glob="6.12.*+deb12-$suffix" re="^6\\.12\\.[0-9]+\\+deb12-$suffix\$" ;;
*) echo "usage: $0 [--headers] [stock|rt [6.1|6.12]]" >&2; exit 2 ;;
esac

best=
for d in /lib/modules/$glob; do
	rel=${d#/lib/modules/}
	[[ $rel =~ $re ]] || continue
	if [ "$headers" = 1 ]; then
		[ -f "$d/build/Makefile" ] || continue
	else
		[ -f "/boot/vmlinuz-$rel" ] || continue
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kernel-release.sh [FLAVOUR]: print the release of the guest kernel of
# FLAVOUR, the newest Debian 6.1 image of it installed on this machine (its
# /boot/vmlinuz-REL and /lib/modules/REL both present):
#   stock (or empty)  6.1.0-N-amd64
#   rt                6.1.0-N-rt-amd64, PREEMPT_RT (linux-image-rt-amd64)
# The top-level Makefile (KVER, KFLAVOUR=rt, RT_KVER) and scripts/guest/
# (IBASYNC_KFLAVOUR) ask this script rather than searching /boot themselves.
# The debug kernel is not a release: it is a tree that
# scripts/debug-kernel.sh builds, booted with the stock release's userspace.
# Exits 1, printing nothing on stdout, when no such kernel is installed.
set -euo pipefail

case ${1:-} in
'' | stock) suffix=amd64 ;;
rt) suffix=rt-amd64 ;;
*) echo "usage: $0 [stock|rt]" >&2; exit 2 ;;
esac

best=
for f in /boot/vmlinuz-6.1.0-*-"$suffix"; do
	rel=${f#/boot/vmlinuz-}
	# 6.1.0-N-amd64 only: not 6.1.0-N-rt-amd64 or 6.1.0-N-cloud-amd64
	[[ $rel =~ ^6\.1\.0-[0-9]+-$suffix$ ]] || continue
	[ -d "/lib/modules/$rel" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$rel" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "kernel-release.sh: no Debian 6.1 $suffix kernel installed" \
		"(/boot/vmlinuz-6.1.0-N-$suffix and /lib/modules/...);" \
		"run scripts/install-deps.sh" >&2
	exit 1
fi
echo "$best"

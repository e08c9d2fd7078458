#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Build (or reuse) the debug guest kernel: Debian's linux-source-6.1,
# tinyconfig + kernel-debug/debug.config (KASAN, lockdep, kmemleak...).
#
# The tree is cached outside the checkout, keyed by the source package
# version, the fragment and this script, so a rebuild happens only when one
# of them changes. Prints the tree's path (usable as KDIR; its bzImage is
# arch/x86/boot/bzImage) on stdout; progress goes to stderr.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fragment=$top/kernel-debug/debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${IB_ASYNC_CACHE:-/var/cache/ib_async}

[ -r "$tarball" ] || { echo "missing $tarball (linux-source-6.1)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$srcver"; cat "$fragment" "$0"; } | sha256sum | cut -c1-16)
tree=$cache/linux-debug-$key

if [ -f "$tree/.ib_async-built" ]; then
	echo "$tree"
	exit 0
fi

log() { echo "debug-kernel: $*" >&2; }

mkdir -p "$cache"
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
log "extracting linux-source $srcver into $tree"
tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
mv "$tree.tmp" "$tree"
cd "$tree"

log "configuring: tinyconfig + $(basename "$fragment")"
make -s tinyconfig >&2
scripts/kconfig/merge_config.sh -m .config "$fragment" >&2
make -s olddefconfig >&2

# merge_config only warns when an option cannot be set; a detector that
# silently fell out of the config would make the debug run worthless.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		if ! grep -qx -- "$line" .config; then
			log "option did not take: $line"
			missing=1
		fi ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" .config; then
			log "option could not be unset: $opt"
			missing=1
		fi ;;
	esac
done < "$fragment"
[ $missing -eq 0 ] || exit 1

jobs=$(( $(nproc) + 1 ))
log "building bzImage and modules with -j$jobs (about 6 minutes on 2 cores)"
make -s -j"$jobs" bzImage modules >&2
touch .ib_async-built
echo "$tree"

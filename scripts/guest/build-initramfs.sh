#!/usr/bin/env bash
# build-initramfs.sh KVER [OUT.cpio]
#
# Builds the cached base initramfs for the test guest: dash as /bin/sh, busybox, iproute2 (ip, rdma), kmod,
# bash, coreutils timeout, ldconfig, rdma-core (libibverbs + rxe provider), ibverbs-utils, the
# rxe kernel modules of KVER, and scripts/guest/init as /init. Prints the archive's path.
# Default OUT: build/guest/base-KVER.cpio; OUT.list gets the list of files in it.
# Rebuilt only when KVER, the Debian package versions used or these scripts change.
# The kernel's files come from $IBASYNC_KROOT (a chroot's root) when set, see lib.sh.
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Packages whose files go into the image: their versions are part of the cache key.
SOURCE_PACKAGES="busybox-static dash iproute2 kmod bash coreutils libc-bin libc6 rdma-core
ibverbs-utils ibverbs-providers libibverbs1 libnl-3-200 libnl-route-3-200"

# Modules rxe needs (REFERENCE.md 1), plus the rest of the RDMA core so test modules can
# modprobe what they use.
GUEST_MODULES="ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_rxe veth
rdma_cm rdma_ucm ib_umad ${IBASYNC_GUEST_MODULES:-}"
# Taken where KVER has them: crc32_generic is not a declared dependency, but 6.1's and 6.12's
# rxe fail without it; 7.x computes CRC32 in the kernel's library and has no such module.
OPTIONAL_MODULES="crc32_generic"

# Everything that determines the image's content.
cache_key() {
	local kver=$1 p
	echo "kver $kver"
	echo "kernel root ${KROOT:-/}"
	stat -c 'vmlinuz %s %Y' "$KROOT/boot/vmlinuz-$kver"
	stat -c 'modules.dep %s %Y' "$KROOT/lib/modules/$kver/modules.dep"
	for p in $SOURCE_PACKAGES; do
		dpkg-query -W -f='${Package} ${Version}\n' "$p" 2>/dev/null || echo "$p absent"
	done
	echo "modules $GUEST_MODULES optional $OPTIONAL_MODULES"
	sha256sum "$GUEST_DIR/build-initramfs.sh" "$GUEST_DIR/lib.sh" "$GUEST_DIR/init" \
		"$GUEST_DIR/ib_async_modules.sh" | cut -d' ' -f1
}

# Merged-/usr skeleton, as on the Debian host (ELF interpreter is /lib64/ld-linux-x86-64.so.2).
make_skeleton() {
	local root=$1 d
	mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{proc,sys,dev,tmp,run,root,mnt,etc,var}
	for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
	ln -s ../tmp "$root/var/tmp"
	chmod 1777 "$root/tmp"
}

# Host ELF programs the guest gets, plus everything they link against.
install_programs() {
	local root=$1 f
	local -a progs=(/bin/dash /bin/ip /usr/bin/rdma /bin/kmod /bin/bash /usr/bin/timeout /sbin/ldconfig)
	# All of ibverbs-utils (ibv_devinfo, ibv_devices, ibv_asyncwatch, the pingpong tests).
	mapfile -t -O "${#progs[@]}" progs < <(dpkg -L ibverbs-utils | grep '^/usr/bin/')
	# perftest's verbs tools (ib_send_bw ... ib_atomic_lat), not its raw Ethernet ones.
	mapfile -t -O "${#progs[@]}" progs < <(dpkg -L perftest | grep '^/usr/bin/ib_')
	local rxe
	rxe=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
	for f in "${progs[@]}" "$rxe" /usr/lib/x86_64-linux-gnu/libibverbs.so.1; do
		copy_into_root "$root" "$f"
	done
	for f in $(elf_libs "${progs[@]}" "$rxe"); do
		copy_into_root "$root" "$f"
	done
	# kmod multi-call names, as Debian installs them.
	# /bin/sh is dash as on Debian, not busybox: Debian's busybox-static runs its own applets
	# in preference to PATH (standalone shell), which would pick busybox ip over iproute2's.
	ln -s dash "$root/usr/bin/sh"
	for f in modprobe insmod rmmod lsmod depmod modinfo; do
		ln -sf ../bin/kmod "$root/usr/sbin/$f"
	done
}

# Busybox applets for every name not provided by a real program above.
install_busybox() {
	local root=$1 a dst n
	cp /bin/busybox "$root/usr/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		dst=$(usr_merged_path "/$a")
		n=${a##*/}
		# A real program of that name in either bin directory wins (iproute2 ip, kmod, ...).
		if [ -e "$root/usr/bin/$n" ] || [ -L "$root/usr/bin/$n" ] ||
			[ -e "$root/usr/sbin/$n" ] || [ -L "$root/usr/sbin/$n" ]; then
			continue
		fi
		mkdir -p "$root$(dirname "$dst")"
		ln -s /usr/bin/busybox "$root$dst"
	done
}

# Configuration files: loader, libibverbs (rxe only, so no warnings about absent providers),
# iproute2 tables, a root user.
install_etc() {
	local root=$1
	# Only Debian's own loader paths, not whatever else the host has added.
	echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
	mkdir -p "$root/etc/ld.so.conf.d"
	printf '/usr/local/lib\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' \
		>"$root/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
	[ -d /etc/iproute2 ] && cp -r /etc/iproute2 "$root/etc/"
	mkdir -p "$root/etc/libibverbs.d"
	cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
	echo 'root:x:0:' >"$root/etc/group"
	echo 'ibasync-vm' >"$root/etc/hostname"
	printf '127.0.0.1 localhost ibasync-vm\n::1 localhost\n' >"$root/etc/hosts"
}

# The RDMA modules of KVER and their dependencies, with a modules.dep made for this subset.
install_modules() {
	local root=$1 kver=$2 m f
	local src=$KROOT/lib/modules/$kver dst=$root/usr/lib/modules/$kver
	mkdir -p "$dst"
	{
		for m in $OPTIONAL_MODULES; do
			modprobe -d "${KROOT:-/}" -S "$kver" --show-depends "$m" 2>/dev/null || true
		done
		for m in $GUEST_MODULES; do
			modprobe -d "${KROOT:-/}" -S "$kver" --show-depends "$m" ||
				die "module $m not found for $kver"
		done
	} | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
		mkdir -p "$dst$(dirname "${f#"$src"}")"
		cp "$f" "$dst${f#"$src"}"
	done
	cp "$src"/modules.{order,builtin,builtin.modinfo} "$dst/"
	depmod -b "$root" "$kver"
}

build() {
	local kver=$1 out=$2 key=$3 root
	root=$(mktemp -d "$BUILD_GUEST_DIR/base-root.XXXXXX")
	# shellcheck disable=SC2064 # expand now: root is local
	trap "rm -rf '$root'" EXIT
	make_skeleton "$root"
	install_programs "$root"
	install_busybox "$root"
	install_etc "$root"
	install_modules "$root" "$kver"
	install -m 0755 "$GUEST_DIR/init" "$root/init"
	install -D -m 0644 "$GUEST_DIR/ib_async_modules.sh" \
		"$root/usr/lib/ib_async/guest/ib_async_modules.sh"
	# Loader cache for the base; /init reruns ldconfig after the per-run overlay.
	ldconfig -r "$root"

	# Device nodes first (written without mknod), then the tree, as two concatenated archives.
	{
		write_dev_cpio
		(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet)
	} >"$out.tmp.$$"
	# Unique temporary names and rename: concurrent vm.sh runs may rebuild at the same time.
	(cd "$root" && find . -mindepth 1 | sed 's/^\.//' | LC_ALL=C sort) >"$out.list.$$"
	printf '%s\n' "$key" >"$out.key.$$"
	mv "$out.tmp.$$" "$out"
	mv "$out.list.$$" "$out.list"
	mv "$out.key.$$" "$out.key"
}

main() {
	if [ $# -lt 1 ] || [ $# -gt 2 ]; then
		echo "usage: $0 KVER [OUT.cpio]" >&2
		exit 2
	fi
	local kver=$1
	mkdir -p "$BUILD_GUEST_DIR"
	local out=${2:-$BUILD_GUEST_DIR/base-$kver.cpio} key
	[ -f "$KROOT/boot/vmlinuz-$kver" ] || die "$KROOT/boot/vmlinuz-$kver not found"
	[ -d "$KROOT/lib/modules/$kver" ] || die "$KROOT/lib/modules/$kver not found"
	key=$(cache_key "$kver")
	if [ -f "$out" ] && [ -f "$out.list" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		echo "$out"
		return 0
	fi
	note "building base initramfs for $kver"
	build "$kver" "$out" "$key"
	echo "$out"
}

main "$@"

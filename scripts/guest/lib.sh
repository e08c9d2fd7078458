# shellcheck shell=bash
# Helpers shared by the scripts in scripts/guest/ (sourced, not run).

GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$GUEST_DIR/../.." && pwd)
# Cached artefacts (base initramfs, KVM probe result, last console log).
BUILD_GUEST_DIR=${IBASYNC_GUEST_BUILD:-$REPO_ROOT/build/guest}
# Where the guest kernel's files are: empty for the host's own kernels, or
# the root of a Debian chroot (scripts/chroot.sh) for a kernel installed
# only there: $KROOT/boot/vmlinuz-KVER, $KROOT/lib/modules/KVER. The
# userspace always comes from the host. vm.sh --kernel-root sets it.
KROOT=${IBASYNC_KROOT:-}

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

note() {
	echo "${0##*/}: $*" >&2
}

# The newest Debian 6.1 kernel of the flavour (IBASYNC_KFLAVOUR=rt: the
# PREEMPT_RT one), as scripts/kernel-release.sh picks it for the Makefile.
default_kver() {
	"$REPO_ROOT/scripts/kernel-release.sh" "${IBASYNC_KFLAVOUR:-}" ||
		die "no guest kernel to boot"
}

# Write one newc cpio header+name for a node without data (directory or device).
# Usage: newc_entry NAME MODE(octal, with type bits) [RDEVMAJOR RDEVMINOR]
# Lets us put /dev/console and /dev/null into the initramfs without mknod (no root needed).
newc_entry() {
	local name=$1 mode=$((8#$2)) maj=${3:-0} min=${4:-0}
	local namesize=$((${#name} + 1)) pad
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		0 "$mode" 0 0 1 0 0 0 0 "$maj" "$min" "$namesize" 0
	printf '%s\0' "$name"
	# Header (110 bytes) + name is padded to a multiple of 4.
	pad=$(((4 - (110 + namesize) % 4) % 4))
	head -c "$pad" /dev/zero
}

# A complete cpio archive with /dev, /dev/console (5,1) and /dev/null (1,3).
write_dev_cpio() {
	newc_entry dev 040755
	newc_entry dev/console 020600 5 1
	newc_entry dev/null 020666 1 3
	newc_entry TRAILER!!! 0
}

# True if FILE is an ELF object.
is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# Shared libraries (absolute host paths, including the ELF interpreter) that the given ELF
# files load. "not found" entries are skipped: they may come from the stage tree; so are
# the "FILE: ... version `GLIBC_2.38' not found" lines of a file built for a newer glibc
# (the other Debian's rdma-core root brings its own).
elf_libs() {
	local f
	for f in "$@"; do
		is_elf "$f" || continue
		ldd "$f" 2>/dev/null | awk '
			$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\// && $1 !~ /:$/ { print $1 }'
	done | sort -u
}

# Copy host file SRC into tree ROOT at the same path, dereferencing symlinks, with /lib, /bin,
# /sbin, /lib64 folded into /usr (the guest tree is merged-/usr like the host).
copy_into_root() {
	local root=$1 src=$2 dst
	dst=$(usr_merged_path "$src")
	[ -e "$root$dst" ] && return 0
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
}

usr_merged_path() {
	case $1 in
	/bin/* | /sbin/* | /lib/* | /lib64/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

# Print the kernel image to boot for KVER. Preferred: the uncompressed vmlinux ELF, extracted
# once from $KROOT/boot/vmlinuz-KVER into BUILD_GUEST_DIR; QEMU boots it through the PVH entry point
# (CONFIG_PVH), skipping SeaBIOS's loader and the in-guest xz decompression, which under TCG
# saves ~5 s per boot. Falls back to the bzImage if that is not possible or IBASYNC_PVH=0.
guest_kernel() {
	local kver=$1 bz=$KROOT/boot/vmlinuz-$1 out=$BUILD_GUEST_DIR/vmlinux-$1 key
	if [ "${IBASYNC_PVH:-1}" = 0 ] ||
		! grep -qx 'CONFIG_PVH=y' "$KROOT/boot/config-$kver" 2>/dev/null; then
		echo "$bz"
		return 0
	fi
	key=$(stat -c '%n %s %Y' "$bz")
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		echo "$out"
		return 0
	fi
	mkdir -p "$BUILD_GUEST_DIR"
	# Unique temporary name: several vm.sh may start at once.
	local tmp=$out.tmp.$$
	if decompress_bzimage "$bz" >"$tmp" && is_elf "$tmp"; then
		mv "$tmp" "$out"
		printf '%s\n' "$key" >"$out.key"
		echo "$out"
	else
		rm -f "$tmp"
		note "could not extract vmlinux from $bz; booting the bzImage (slower)"
		echo "$bz"
	fi
}

# Write the vmlinux embedded in a bzImage to stdout (xz or zstd payload: Debian uses xz).
decompress_bzimage() {
	local off
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$1" | head -n 1 | cut -d: -f1)
	if [ -n "$off" ]; then
		# xz stops after the payload's stream; tail then dies of SIGPIPE: only xz's status counts.
		tail -c "+$((off + 1))" "$1" | xz -dcq --single-stream
		return "${PIPESTATUS[1]}"
	fi
	off=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$1" | head -n 1 | cut -d: -f1)
	if [ -n "$off" ] && command -v zstd >/dev/null; then
		tail -c "+$((off + 1))" "$1" | zstd -dcq 2>/dev/null
		return "${PIPESTATUS[1]}"
	fi
	return 1
}

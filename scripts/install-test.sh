#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# install-test.sh: `make install` and `make uninstall` (mk/install.mk,
# user/Makefile) into a temporary DESTDIR, with PREFIX=/usr and with
# PREFIX=/usr/local. For each, what was installed is checked, not what
# the Makefiles meant to install:
#   - the file list, exactly (the module source by debian/ib-async-dkms.install,
#     a man page for every function of <infiniband/ib_async_shim.h> and
#     <infiniband/ib_async.h>);
#   - libibasync.so.1: SONAME, its NEEDED libibverbs, every symbol of
#     user/libibasync.map exported at its version node and nothing else;
#     the libibasync.so link; ib_async_watch runs on the installed library;
#   - libibasync.pc: a program builds and links against the installed tree
#     with pkg-config (PKG_CONFIG_SYSROOT_DIR into DESTDIR) and runs;
#   - dkms.conf: debian/changelog's upstream version; with PREFIX=/usr,
#     its MAKE builds the installed source against a kernel's headers
#     (SKIP without headers);
#   - the udev rule: `udevadm verify` (SKIP where udevadm has no verify,
#     as systemd 252 of Debian 12), and it names the class and the nodes
#     kernel/core/device.c makes;
#   - make uninstall removes every file install put there and leaves
#     others' files in the same directories.
# TAP on stdout; exit status 1 if any test failed. Builds user/ (and
# the module once, in a temporary copy) but changes nothing outside the
# checkout's build outputs and a temporary directory.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"

tmp=$(mktemp -d /tmp/ib_async-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log
multiarch=$(cc -print-multiarch 2>/dev/null || true)
multiarch=${multiarch:-x86_64-linux-gnu}

# debian/changelog's upstream version, read by dpkg's parser rather than
# mk/version.mk's sed
changelog_version() {
	local v
	if command -v dpkg-parsechangelog >/dev/null; then
		v=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
	else
		v=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
	fi
	v=${v#*:}
	echo "${v%-*}"
}
version=$(changelog_version)

# The functions <infiniband/ib_async_shim.h> and <infiniband/ib_async.h>
# declare (the name before the parenthesis: a return type may be a
# struct ibasync_... too).
shim_functions() {
	grep -hoE '^[a-z_0-9 ]+[ *]ibasync_[a-z_0-9]+\(' \
		"$top/user/include/infiniband/ib_async_shim.h" \
		"$top/user/include/infiniband/ib_async.h" |
		grep -oE 'ibasync_[a-z_0-9]+\($' | tr -d '(' | sort -u
}

# The module's source files, where debian/ib-async-dkms.install puts them
# (as dh_install does: each file a glob matches, in the DEST-DIR it names,
# relative to the source directory).
dkms_source_files() {
	local src dst f
	# shellcheck disable=SC2016 # debhelper's ${env:...}, literally
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' \
		-e 's|${env:IB_ASYNC_DKMS_SRC}/*||' "$top/debian/ib-async-dkms.install" |
		while read -r src dst; do
			(cd "$top" && for f in $src; do echo "$dst${f##*/}"; done)
		done
}

# expected_files PREFIX: every path install should put under DESTDIR
expected_files() {
	local p=$1 libdir=$1/lib/$multiarch f
	printf '%s\n' "$p/bin/ib_async_watch" \
		"$p/include/infiniband/ib_async_shim.h" \
		"$p/include/infiniband/ib_async.h" \
		"$p/include/rdma/ib_async.h" \
		"$libdir/libibasync.so.1" "$libdir/libibasync.so" \
		"$libdir/pkgconfig/libibasync.pc" \
		"$p/lib/udev/rules.d/60-ib-async.rules" \
		"$p/share/doc/ib-async/examples/modules-load.d/ib_async.conf" \
		"$p/share/man/man1/ib_async_watch.1" \
		"$p/share/man/man7/libibasync.7" \
		"$p/src/ib_async-$version/dkms.conf"
	for f in $(shim_functions); do
		echo "$p/share/man/man3/$f.3"
	done
	for f in $(dkms_source_files); do
		echo "$p/src/ib_async-$version/$f"
	done
}

installed_files() {	# installed_files DESTDIR: files and links, not dirs
	(cd "$1" && find . ! -type d | sed 's|^\.||' | sort)
}

same_list() {	# same_list EXPECTED ACTUAL (files): diff on failure
	diff -u "$1" "$2"
}

# ---- the library --------------------------------------------------------
# "NODE symbol" of the version script
map_symbols() {
	awk '
		/^[A-Za-z_][A-Za-z0-9_.]*[[:space:]]*\{/ { node = $1; next }
		/^\}/ { node = ""; next }
		node != "" && /^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;/ {
			s = $1; sub(/;$/, "", s); print node, s
		}' "$top/user/libibasync.map" | sort
}

# "NODE symbol" of the functions the shared object defines and exports
lib_symbols() {
	objdump -T --wide "$1" |
		awk '$2 == "g" && $4 == ".text" { v = $(NF - 1); gsub(/[()]/, "", v);
			print v, $NF }' | sort
}

check_version_nodes() {	# LIB
	map_symbols >"$tmp/map.txt"
	lib_symbols "$1" >"$tmp/lib.txt"
	[ -s "$tmp/map.txt" ] && diff -u "$tmp/map.txt" "$tmp/lib.txt"
}

check_dynamic() {	# LIB: SONAME and NEEDED libibverbs
	local d
	d=$(readelf -d "$1")
	echo "$d"
	grep -F '(SONAME)' <<<"$d" | grep -F '[libibasync.so.1]' >/dev/null &&
		grep -F '(NEEDED)' <<<"$d" | grep -F '[libibverbs.so.1]' >/dev/null
}

# ib_async_watch runs, and on the installed libibasync.so.1
check_watch() {	# DEST PREFIX
	local bin=$1$2/bin/ib_async_watch libdir=$1$2/lib/$multiarch out
	out=$(LD_LIBRARY_PATH=$libdir ldd "$bin")
	echo "$out"
	grep -F "libibasync.so.1 => $libdir/libibasync.so.1" <<<"$out" >/dev/null &&
		LD_LIBRARY_PATH=$libdir "$bin" --help | grep '^Usage: ib_async_watch' >/dev/null
}

# ---- a program built against the installed tree ------------------------
# scripts/installed-program.c

# pkg-config of the DESTDIR tree; libibverbs.pc stays the system's
pc() {	# DEST PREFIX pkg-config-args...
	local dest=$1 prefix=$2
	shift 2
	PKG_CONFIG_SYSROOT_DIR=$dest \
		PKG_CONFIG_PATH=$dest$prefix/lib/$multiarch/pkgconfig \
		PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 \
		pkg-config "$@"
}

check_pc() {	# DEST PREFIX
	local dest=$1 prefix=$2 v prefix_var libs
	v=$(pc "$dest" "$prefix" --modversion libibasync)
	prefix_var=$(PKG_CONFIG_PATH=$dest$prefix/lib/$multiarch/pkgconfig \
		pkg-config --variable=prefix libibasync)
	libs=$(pc "$dest" "$prefix" --libs libibasync)
	echo "version $v, prefix $prefix_var, libs $libs"
	[ "$v" = "$version" ] && [ "$prefix_var" = "$prefix" ] &&
		grep -E -- "-L$dest$prefix/lib/$multiarch -libasync .*-libverbs" \
			<<<"$libs" >/dev/null
}

# The header comes from DEST (the dependency list says), the program
# binds libibasync's versioned symbols and runs on the installed library.
build_program() {	# DEST PREFIX
	local dest=$1 prefix=$2 flags prog=$tmp/prog
	flags=$(pc "$dest" "$prefix" --cflags --libs libibasync)
	echo "cc $flags"
	# shellcheck disable=SC2086 # pkg-config's words
	cc -Wall -Wextra -Werror -MMD -MF "$prog.d" -o "$prog" \
		"$top/scripts/installed-program.c" $flags &&
		grep -F "$dest$prefix/include/infiniband/ib_async_shim.h" "$prog.d" >/dev/null &&
		grep -F "$dest$prefix/include/infiniband/ib_async.h" "$prog.d" >/dev/null &&
		grep -F "$dest$prefix/include/rdma/ib_async.h" "$prog.d" >/dev/null &&
		objdump -T "$prog" | grep -E '\(?IBASYNC_1\.0\)?[[:space:]]+ibasync_lost_events$' >/dev/null &&
		objdump -T "$prog" | grep -E '\(?IBASYNC_1\.1\)?[[:space:]]+ibasync_create_channel$' >/dev/null &&
		LD_LIBRARY_PATH=$dest$prefix/lib/$multiarch ldd "$prog" |
		grep -F "libibasync.so.1 => $dest$prefix/lib/$multiarch/" >/dev/null &&
		LD_LIBRARY_PATH=$dest$prefix/lib/$multiarch "$prog"
}

# ---- man pages, dkms.conf, udev -------------------------------------------
check_man_links() {	# DEST PREFIX: ".so" pages name a page that is there
	local man=$1$2/share/man f target rc=0
	for f in "$man"/man*/*; do
		target=$(sed -n 's/^\.so \(.*\)/\1/p' "$f")
		[ -n "$target" ] || continue
		echo "${f#"$man"/} -> $target"
		[ -f "$man/$target" ] || rc=1
	done
	return "$rc"
}

# man3/FUNCTION.3 for each function of the header, naming it (after .so)
check_man_pages() {	# DEST PREFIX
	local man=$1$2/share/man f page target rc=0
	[ -n "$(shim_functions)" ] || return 1
	for f in $(shim_functions); do
		page=$man/man3/$f.3
		target=$(sed -n 's/^\.so \(.*\)/\1/p' "$page" 2>/dev/null) || true
		[ -z "$target" ] || page=$man/$target
		if [ -f "$page" ] && sed -n '/^\.SH NAME/,/^\.SH/p' "$page" |
			grep -w -- "$f" >/dev/null; then
			echo "$f: ${page#"$man"/}"
		else
			echo "$f: no page names it"
			rc=1
		fi
	done
	return "$rc"
}

check_dkms_conf() {	# DIR
	(
		set +u
		# shellcheck disable=SC1091 # the installed file
		. "$1/dkms.conf"
		echo "PACKAGE_NAME=$PACKAGE_NAME PACKAGE_VERSION=$PACKAGE_VERSION"
		[ "$PACKAGE_NAME" = ib_async ] && [ "$PACKAGE_VERSION" = "$version" ]
	) && [ -x "$1/kernel/conftest.sh" ]
}

# A kernel's kbuild tree: the guest's 6.1 one the Makefile builds against,
# else any.
kernel_tree() {
	local k d
	if k=$("$top/scripts/kernel-release.sh" --headers 2>/dev/null) &&
		[ -e "/lib/modules/$k/build/Makefile" ]; then
		echo "/lib/modules/$k/build"
		return
	fi
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && { echo "$d"; return; }
	done
	return 0
}

# dkms.conf's MAKE on the installed source, as DKMS runs it
# (scripts/dkms-make.sh): ib_async.ko with the tree's vermagic.
build_module() {	# SRCDIR /lib/modules/RELEASE/build
	local release vermagic ko
	ko=$("$top/scripts/dkms-make.sh" "$1" "$2" "$tmp/dkms") || return 1
	release=$(basename "$(dirname "$2")")	# /lib/modules/REL/build
	vermagic=$(modinfo -F vermagic "$ko")
	echo "vermagic $vermagic, kernel $release"
	[ "${vermagic%% *}" = "$release" ]
}

check_udev_names() {	# RULE: the class and node names of kernel/core/device.c
	local rule=$1 dev=$top/kernel/core/device.c
	grep -E '^SUBSYSTEM=="ib_async", KERNEL=="ib_async\[0-9\]\*", OWNER="[a-z]+", GROUP="[a-z]+", MODE="0[0-7]{3}"$' "$rule" &&
		grep -E '\.name[[:space:]]*=[[:space:]]*"ib_async",' "$dev" &&
		grep -E 'dev_set_name\(.*"ib_async%d"' "$dev"
}

# ---- one PREFIX -----------------------------------------------------------
run_prefix() {	# PREFIX
	local prefix=$1 dest k lib
	dest=$tmp/dest${prefix//\//_}
	lib=$dest$prefix/lib/$multiarch/libibasync.so.1

	check "PREFIX=$prefix: make install DESTDIR=... PREFIX=$prefix" \
		make -C "$top" install DESTDIR="$dest" PREFIX="$prefix"
	expected_files "$prefix" | sort >"$tmp/expected"
	installed_files "$dest" >"$tmp/installed"
	check "PREFIX=$prefix: the files installed are the expected $(wc -l <"$tmp/expected")" \
		same_list "$tmp/expected" "$tmp/installed"
	check "PREFIX=$prefix: a man page for each of the $(shim_functions | wc -l) functions of ib_async_shim.h and ib_async.h" \
		check_man_pages "$dest" "$prefix"
	check "PREFIX=$prefix: the .so man pages name pages installed" \
		check_man_links "$dest" "$prefix"
	check "PREFIX=$prefix: libibasync.so -> libibasync.so.1" \
		test "$(readlink "$dest$prefix/lib/$multiarch/libibasync.so")" = libibasync.so.1
	check "PREFIX=$prefix: libibasync.so.1: SONAME libibasync.so.1, NEEDED libibverbs.so.1" \
		check_dynamic "$lib"
	check "PREFIX=$prefix: libibasync.so.1 exports libibasync.map's $(map_symbols | wc -l) symbols at their version nodes, and only those" \
		check_version_nodes "$lib"
	check "PREFIX=$prefix: ib_async_watch --help on the installed libibasync.so.1" \
		check_watch "$dest" "$prefix"
	check "PREFIX=$prefix: libibasync.pc: version $version, prefix $prefix, -libasync -libverbs" \
		check_pc "$dest" "$prefix"
	check "PREFIX=$prefix: a program builds with pkg-config against the installed tree and runs" \
		build_program "$dest" "$prefix"
	check "PREFIX=$prefix: dkms.conf: ib_async $version; conftest.sh executable" \
		check_dkms_conf "$dest$prefix/src/ib_async-$version"
	if [ "$prefix" = /usr ]; then
		k=$(kernel_tree)
		if [ -n "$k" ]; then
			check "PREFIX=$prefix: dkms.conf's MAKE builds the installed source against $k" \
				build_module "$dest$prefix/src/ib_async-$version" "$k"
		else
			skip "PREFIX=$prefix: the installed source builds" "no kernel headers in /lib/modules"
		fi
	fi
	check "PREFIX=$prefix: 60-ib-async.rules names kernel/core/device.c's class and nodes, owner, group and mode" \
		check_udev_names "$dest$prefix/lib/udev/rules.d/60-ib-async.rules"
	if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
		check "PREFIX=$prefix: udevadm verify 60-ib-async.rules" \
			udevadm verify --resolve-names=never \
			"$dest$prefix/lib/udev/rules.d/60-ib-async.rules"
	else
		skip "PREFIX=$prefix: udevadm verify 60-ib-async.rules" \
			"udevadm $(udevadm --version 2>/dev/null || echo missing) has no verify"
	fi

	# others' files in directories install shares stay
	mkdir -p "$dest$prefix/include/rdma" "$dest$prefix/lib/udev/rules.d"
	echo other >"$dest$prefix/include/rdma/other.h"
	echo other >"$dest$prefix/lib/udev/rules.d/99-other.rules"
	check "PREFIX=$prefix: make uninstall DESTDIR=... PREFIX=$prefix" \
		make -C "$top" uninstall DESTDIR="$dest" PREFIX="$prefix"
	printf '%s\n' "$prefix/include/rdma/other.h" \
		"$prefix/lib/udev/rules.d/99-other.rules" | sort >"$tmp/expected"
	installed_files "$dest" >"$tmp/installed"
	check "PREFIX=$prefix: uninstall left no file of install's, and the others'" \
		same_list "$tmp/expected" "$tmp/installed"
	check "PREFIX=$prefix: uninstall removed src/ib_async-$version and share/doc/ib-async" \
		test ! -e "$dest$prefix/src/ib_async-$version" -a \
		! -e "$dest$prefix/share/doc/ib-async"
}

echo 'TAP version 13'
check "debian/changelog has a version ($version)" test -n "$version"
run_prefix /usr
run_prefix /usr/local
echo "1..$n"
[ "$failed" -eq 0 ]

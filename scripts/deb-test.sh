#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# deb-test.sh [--suite SUITE] [DEB_DIR]
# deb-test.sh --host [DEB_DIR]
#
# The packages of `make deb` (DEB_DIR, default build/deb) installed as a
# test engineer installs them, in the cached Debian SUITE chroot (bookworm,
# Debian 12, by default; trixie is Debian 13) of scripts/chroot.sh rather
# than on this host, whose /lib/modules stays as it is. In the chroot,
# which has the newest SUITE-backports kernel headers already:
#   1. apt-get installs the four .debs, with dkms and what else they need
#      from the archive: DKMS builds ib_async.ko at once for the kernel
#      whose headers are there;
#   2. apt-get installs the headers of SUITE's own kernel (6.1 in
#      bookworm, 6.12 in trixie): the kernel hook of DKMS builds it for
#      that kernel too (AUTOINSTALL);
#   3. for every kernel with headers: dkms status says installed, the
#      module is in /lib/modules/RELEASE/updates/dkms with that kernel's
#      vermagic and the alias rdma-client-ib_async, and depmod found it;
#   4. ib-async-watch.service is installed, not enabled nor started;
#      ib_async_watch --help runs and ldd resolves libibasync and
#      libibverbs; a program builds against libibasync-dev;
#   5. apt-get purge ib-async-dkms removes every module again.
# TAP on stdout, apt and DKMS output only when a test fails (as "#"
# lines: for a kernel DKMS cannot build for, the compiler's errors from
# its make.log); exit status 1 if any test failed. Needs root, as
# chroot.sh does; one run at a time (the chroot's dpkg lock).
#
# The chroot keeps dkms and SUITE's own headers (a cache, as the chroot
# is); the ib_async packages are purged, and those headers removed at the
# start of the next run, so that step 2 always tests the hook.
#
# --host: the same on this host, against every kernel whose headers are
# in /lib/modules/*/build (on the test bed Debian 12's 6.1, 6.1-rt, 6.12
# and 6.12-rt). It stops before changing anything when an ib_async
# package, a DKMS ib_async or a /usr/src/ib_async-* is there already
# (someone's install, which it must not remove). Then:
#   1. apt-get installs the four .debs without Recommends (dkms would
#      bring linux-headers-amd64): dkms and what else they need come from
#      the archive; DKMS's postinst builds for the kernels with headers
#      (dkms 3.0.10: all of them), `dkms autoinstall -k RELEASE` for any
#      it left out (as Documentation/ib_async.rst tells a user to);
#   2. for every kernel with headers, the checks of step 3 above;
#   3. the udev rule, the .pc, the modules-load.d example and the
#      ib-async-watch.service unit are where the packages put them (the
#      example not active, the unit not enabled); ib_async_watch --help
#      and ldd; a program builds with pkg-config --cflags --libs libibasync;
#   4. apt-get purge of the four: dpkg knows none of them, none of their
#      files is left, no /var/lib/dkms/ib_async, /usr/src/ib_async-* or
#      updates/dkms/ib_async.ko of any kernel;
#   5. the packages the install added (dkms...) are purged again, so the
#      host has the packages it had, and /var/lib/dkms goes if it was not
#      there before (dkms's purge leaves the MOK key pair it made for
#      signing). Packages the install upgraded stay upgraded.
# A trap does 4 and 5 (and removes DKMS's leftovers of ib_async) however
# the run ends. A run that never reached its trap (the host rebooted or
# was killed mid-install, dpkg left "interrupted") is finished by the next
# one, or by --host-recover (install-deps.sh calls it before apt-get): its
# journal, $host_journal, holds the package list from before the install. It writes to the host's /lib/modules while it runs: not
# while a guest is staged from it.
set -euo pipefail
# With pipefail, "... | grep -q" fails when grep's early exit kills the
# writer with SIGPIPE: the checks below let grep read everything.

packages=(ib-async-dkms libibasync1 libibasync-dev ib-async-utils)
work=/tmp/ib_async-deb-test	# in the chroot

# ---- TAP ---------------------------------------------------------------
# shellcheck source=scripts/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# ---- inside the chroot --------------------------------------------------
apt_get() {
	apt-get -q -y -o Dpkg::Use-Pty=0 "$@"
}

installed_packages() {	# of the arguments, those dpkg has installed
	dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null |
		awk '$2 ~ /^[ih]/ { print $1 }' || true
}

# The headers package of SUITE's own newest kernel: what
# linux-headers-amd64 depends on in SUITE (or SUITE-security), while the
# chroot has the metapackage of SUITE-backports.
headers_suite_package() {
	local v
	v=$(apt-cache madison linux-headers-amd64 |
		awk -F' [|] ' '$3 !~ /-backports/ { print $2 }' | sort -V | tail -n 1)
	[ -n "$v" ] || return 1
	apt-cache show "linux-headers-amd64=$v" |
		sed -n 's/^Depends: \(linux-headers-[^ ,]*\).*/\1/p' | head -n 1
}

kernels_with_headers() {
	local d
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
	done
	return 0
}

# The build log of each kernel DKMS failed for, as diagnostics.
dkms_failures() {
	local f
	for f in /var/lib/dkms/ib_async/*/build/make.log \
		/var/lib/dkms/ib_async/*/*/*/log/make.log; do
		[ -f "$f" ] || continue
		echo "$f:"
		grep -E -m 20 'error|Error' "$f" || tail -n 20 "$f"
	done 2>/dev/null | diag
}

in_list() {	# in_list WORD LIST...
	local w
	for w in "${@:2}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

dkms_installed() {	# dkms_installed VERSION RELEASE
	dkms status -m ib_async -v "$1" -k "$2" | tee /dev/stderr |
		grep ': installed' >/dev/null
}

module_file() {	# module_file RELEASE: the installed ib_async.ko*, if any
	find "/lib/modules/$1/updates/dkms" -maxdepth 1 -name 'ib_async.ko*' \
		2>/dev/null | head -n 1 || true
}

check_module() {	# check_module RELEASE
	local k=$1 f vermagic
	f=$(module_file "$k")
	if [ -z "$f" ]; then
		not_ok "$k: ib_async.ko in /lib/modules/$k/updates/dkms"
		ok "$k: modinfo # SKIP no module"
		ok "$k: modinfo -k $k ib_async # SKIP no module"
		return
	fi
	ok "$k: $f"
	vermagic=$(modinfo -F vermagic "$f" | sed 's/[[:space:]]*$//')
	if [ "${vermagic%% *}" = "$k" ] &&
		modinfo -F alias "$f" | grep -x 'rdma-client-ib_async' >/dev/null; then
		ok "$k: modinfo: vermagic '$vermagic', alias rdma-client-ib_async"
	else
		not_ok "$k: modinfo: vermagic '$vermagic' is $k's, alias rdma-client-ib_async"
		modinfo "$f" | diag
	fi
	# what modprobe ib_async would load on that kernel (depmod ran); a
	# kernel with headers but no image has nothing for depmod to index
	if [ ! -d "/lib/modules/$k/kernel" ]; then
		ok "$k: modinfo -k $k ib_async # SKIP headers only, no image of $k"
		return
	fi
	check "$k: modinfo -k $k ib_async finds it" \
		test "$(modinfo -k "$k" -n ib_async 2>/dev/null)" = "$f"
}

# A program of libibasync-dev's: scripts/installed-program.c, beside this
# script (in the chroot too, where the checkout is /src).
program=$(cd "$(dirname "$0")" && pwd)/installed-program.c

build_shim_program() {
	cc -Wall -Werror -o "$work/prog" "$program" -libasync -libverbs &&
		ldd "$work/prog" | grep 'libibasync\.so\.1 => /' >/dev/null
}

watch_libs_resolve() {
	local out
	out=$(ldd /usr/bin/ib_async_watch)
	echo "$out"
	# /lib is /usr/lib on merged-/usr systems (Debian 13): either will do
	! grep -q 'not found' <<<"$out" &&
		grep -qE 'libibasync\.so\.1 => /(usr/)?lib/' <<<"$out" &&
		grep -qE 'libibverbs\.so\.1 => /(usr/)?lib/' <<<"$out"
}

watch_help() {
	ib_async_watch --help | tee /dev/stderr |
		grep '^Usage: ib_async_watch' >/dev/null
}

purge_ours() {	# purge_ours PACKAGE...: those of them installed
	local -a inst
	mapfile -t inst < <(installed_packages "$@")
	[ "${#inst[@]}" -eq 0 ] || apt_get purge "${inst[@]}"
}

no_module_left() {
	local k f rc=0
	for k in "$@"; do
		f=$(module_file "$k")
		if [ -n "$f" ]; then echo "left: $f"; rc=1; fi
	done
	return "$rc"
}

no_dkms_ib_async() {
	dkms status -m ib_async
	[ -z "$(dkms status -m ib_async 2>/dev/null)" ] &&
		[ ! -e /var/lib/dkms/ib_async ] &&
		! compgen -G '/usr/src/ib_async-*' >/dev/null
}

in_chroot() {
	local dir=$1 suite=$2 h61 k61 version k
	local -a debs kernels
	export DEBIAN_FRONTEND=noninteractive
	log=$dir/log
	work=$dir
	echo 'TAP version 13'

	mapfile -t debs < <(find "$dir" -maxdepth 1 -name '*.deb' | sort)
	version=$(dpkg-deb -f "$dir"/ib-async-dkms_*.deb Version)
	version=${version%-*}

	# What an interrupted run left, and the 6.1 headers of the last one.
	h61=$(headers_suite_package) || h61=
	check "found $suite's own newest headers package (${h61:-none})" \
		test -n "$h61"
	k61=${h61#linux-headers-}
	check "clean start: no ib_async package, no $suite headers" \
		purge_ours "${packages[@]}" ${h61:+"$h61"}

	mapfile -t kernels < <(kernels_with_headers)
	check "headers of $suite-backports' kernel installed (${kernels[*]:-none})" \
		test "${#kernels[@]}" -ge 1
	check "apt-get install the packages (${debs[*]##*/})" \
		apt_get install "${debs[@]}"
	[ "$passed_last" = 1 ] || dkms_failures
	if [ -n "$h61" ]; then
		check "apt-get install $h61 (DKMS builds for it)" \
			apt_get install --no-install-recommends "$h61"
		[ "$passed_last" = 1 ] || dkms_failures
	fi

	mapfile -t kernels < <(kernels_with_headers)
	check "kernels with headers: ${kernels[*]} ($suite's: $k61)" \
		in_list "$k61" "${kernels[@]}"
	check_kernels "$version" "${kernels[@]}"

	check "ib-async-watch.service of ib-async-utils, not enabled nor started" \
		service_not_enabled
	check "ib_async_watch --help prints its usage" watch_help
	check "ldd ib_async_watch resolves libibasync.so.1 and libibverbs.so.1" \
		watch_libs_resolve
	check "a program builds against libibasync-dev (-libasync -libverbs)" \
		build_shim_program

	check "apt-get purge ib-async-dkms" apt_get purge ib-async-dkms
	check "no ib_async.ko left in /lib/modules/*/updates/dkms" \
		no_module_left "${kernels[@]}"
	check "dkms status and /usr/src have no ib_async left" no_dkms_ib_async
	check "apt-get purge ib-async-utils libibasync-dev libibasync1" \
		purge_ours "${packages[@]}"

	echo "1..$n"
	[ "$failed" -eq 0 ]
}

# ---- on this host (--host) --------------------------------------------
# Outside /tmp, which a reboot may empty: a run's journal and work files.
host_journal=/var/lib/ib_async-deb-test
host_work=
host_added=	# file: the packages apt-get install added, once known
host_had_dkms_dir=1	# whether /var/lib/dkms was there before the run

# "PACKAGE:ARCH" of every installed package
all_installed() {
	dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' |
		awk '$2 ~ /^ii/ { print $1 }' | sort
}

# Someone's ib_async on this host, which the run must leave alone.
host_has_ib_async() {
	[ -n "$(installed_packages "${packages[@]}")" ] ||
		[ -e /var/lib/dkms/ib_async ] ||
		compgen -G '/usr/src/ib_async-*' >/dev/null ||
		compgen -G '/lib/modules/*/updates/dkms/ib_async.ko*' >/dev/null
}

# Kernels DKMS has not installed ib_async VERSION for yet.
kernels_not_built() {	# VERSION RELEASE...
	local v=$1 k
	shift
	for k in "$@"; do
		dkms status -m ib_async -v "$v" -k "$k" 2>/dev/null |
			grep ': installed' >/dev/null || echo "$k"
	done
	return 0
}

dkms_autoinstall() {	# RELEASE
	dkms autoinstall -k "$1" && dkms_installed "$version" "$1"
}

# The files dpkg -L lists for the packages, directories left out.
package_files() {
	local f
	dpkg -L "$@" | while IFS= read -r f; do
		[ -d "$f" ] || echo "$f"	# /lib: a link to usr/lib, merged /usr
	done
}

no_file_left() {	# LIST
	local f rc=0
	while IFS= read -r f; do
		if [ -e "$f" ] || [ -L "$f" ]; then echo "left: $f"; rc=1; fi
	done <"$1"
	return "$rc"
}

dpkg_knows_none() {	# no package of ours installed or with config left
	local st
	st=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' \
		"${packages[@]}" 2>/dev/null || true)
	echo "$st"
	! awk '{ print $2 }' <<<"$st" | grep -E '^[a-z][icUFHWT]' >/dev/null
}

owned_by() {	# FILE PACKAGE: dpkg -S names PACKAGE for FILE
	dpkg -S "$1" | tee /dev/stderr | grep -E "^$2(:[a-z0-9]+)?: " >/dev/null
}

example_not_active() {
	local ex=/usr/share/doc/ib-async-dkms/examples/modules-load.d/ib_async.conf
	owned_by "$ex" ib-async-dkms && grep -x 'ib_async' "$ex" >/dev/null &&
		! grep -rlx 'ib_async' /etc/modules-load.d /usr/lib/modules-load.d \
			/etc/modules 2>/dev/null
}

# The unit is ib-async-utils', installed where systemd reads units, and
# neither enabled (no link in a .wants directory) nor started: the
# operator chooses to turn it on.
service_not_enabled() {
	local unit
	unit=$(dpkg -L ib-async-utils | grep -E '^(/usr)?/lib/systemd/system/ib-async-watch\.service$') &&
		echo "$unit" && grep -x 'ExecStart=/usr/bin/ib_async_watch --follow --journal' "$unit" &&
		! ls /etc/systemd/system/*.wants/ib-async-watch.service 2>/dev/null &&
		! deb-systemd-helper --quiet is-enabled ib-async-watch.service || return 1
	if [ -d /run/systemd/system ]; then
		! systemctl --quiet is-enabled ib-async-watch.service &&
			! systemctl --quiet is-active ib-async-watch.service
	fi
}

build_pc_program() {
	local flags
	flags=$(pkg-config --cflags --libs libibasync)
	echo "cc $flags"
	# shellcheck disable=SC2086 # pkg-config's words
	cc -Wall -Werror -o "$work/prog" "$program" $flags &&
		ldd "$work/prog" | grep -E 'libibasync\.so\.1 => /(usr/)?lib/' >/dev/null &&
		"$work/prog"
}

# The packages apt-get install added, of those still there; then DKMS's
# state directory if the run made it (dkms's purge leaves its MOK keys).
purge_added() {
	local -a left
	[ -n "$host_added" ] && [ -s "$host_added" ] || return 0
	mapfile -t left < <(comm -12 "$host_added" <(all_installed))
	[ "${#left[@]}" -eq 0 ] || apt_get purge "${left[@]}"
	# (dpkg's word: command -v would answer bash's hash of a removed dkms)
	if [ "$host_had_dkms_dir" = 0 ] && [ -d /var/lib/dkms ] &&
		[ -z "$(installed_packages dkms)" ]; then
		echo "removing /var/lib/dkms:" /var/lib/dkms/*
		rm -rf /var/lib/dkms
	fi
}

# Of the packages before the run, none gone; of those it added, none left
# (others an administrator installs meanwhile do not count).
same_packages() {	# BEFORE
	local gone left
	gone=$(comm -23 "$1" <(all_installed))
	left=$(comm -12 "$host_added" <(all_installed))
	echo "removed: ${gone:-none}; added and left: ${left:-none}"
	[ -z "$gone" ] && [ -z "$left" ] &&
		{ [ "$host_had_dkms_dir" = 1 ] || [ ! -e /var/lib/dkms ]; }
}

# However the run ends: our packages and what they brought purged, DKMS's
# ib_async gone from every kernel, the work directory removed.
host_cleanup() {
	local f k
	set +e
	[ -e "$host_work/had-dkms-dir" ] || host_had_dkms_dir=0
	# stopped before the difference was taken (a signal waits for the
	# apt-get install it came in): it is what is new since the start
	if [ -z "$host_added" ] && [ -s "$host_work/before" ]; then
		host_added=$host_work/added
		comm -13 "$host_work/before" <(all_installed) >"$host_added"
	fi
	{
		purge_ours "${packages[@]}"
		purge_added
		for f in /lib/modules/*/updates/dkms/ib_async.ko*; do
			[ -e "$f" ] || continue
			k=${f#/lib/modules/}
			k=${k%%/*}
			rm -f "$f"
			depmod -a "$k"
		done
		rm -rf /var/lib/dkms/ib_async /usr/src/ib_async-*
	} >>"$host_work/cleanup.log" 2>&1
	rm -rf "$host_work"
}

# A run killed before its trap: dpkg may be "interrupted" with ours
# unpacked or half-configured, which apt-get refuses to work past. dpkg
# purges ours as they are (their prerm removes what DKMS built), finishes
# the rest (triggers), then the cleanup of a normal end runs.
host_recover() {
	local -a ours
	[ -d "$host_journal" ] || return 0
	echo "# deb-test --host: finishing an interrupted run ($host_journal)"
	host_work=$host_journal
	mapfile -t ours < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' \
		"${packages[@]}" 2>/dev/null | awk '$2 !~ /^.n/ { print $1 }')
	{
		[ "${#ours[@]}" -eq 0 ] || dpkg --purge "${ours[@]}"
		dpkg --configure -a
	} >>"$host_work/cleanup.log" 2>&1
	host_cleanup
	[ ! -d "$host_journal" ]
}

on_host() {
	local debdir=$1 start k
	local -a debs kernels built missing added
	start=$(date +%s)
	[ "$(id -u)" = 0 ] || { echo "deb-test.sh --host: needs root" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	echo 'TAP version 13'
	host_recover | sed 's/^[^#]/# &/'
	if host_has_ib_async; then
		echo "Bail out! ib_async is installed on this host already" \
			"(a package, DKMS or /usr/src): not touching it"
		exit 1
	fi

	host_work=$host_journal
	mkdir -m 0700 "$host_work"
	work=$host_work
	log=$work/log
	trap host_cleanup EXIT
	trap 'exit 130' INT TERM
	for p in "${packages[@]}"; do
		cp "$debdir/${p}"_*.deb "$work/"
	done
	# apt reads local .debs as its unprivileged _apt user
	chmod 0755 "$work"
	chmod 0644 "$work"/*.deb
	mapfile -t debs < <(find "$work" -maxdepth 1 -name '*.deb' | sort)
	version=$(dpkg-deb -f "$work"/ib-async-dkms_*.deb Version)
	version=${version%-*}

	mapfile -t kernels < <(kernels_with_headers)
	check "kernels with headers: ${kernels[*]:-none}" test "${#kernels[@]}" -ge 1
	[ -e /var/lib/dkms ] || host_had_dkms_dir=0
	[ "$host_had_dkms_dir" = 0 ] || touch "$work/had-dkms-dir"
	all_installed >"$work/before"
	sync "$work/before"	# the journal: written before apt-get changes anything
	check "apt-get install --no-install-recommends the packages (${debs[*]##*/})" \
		apt_get -o DPkg::Lock::Timeout=600 install --no-install-recommends "${debs[@]}"
	[ "$passed_last" = 1 ] || dkms_failures
	# no other apt-get can run within ours: the difference is ours
	host_added=$work/added
	comm -13 "$work/before" <(all_installed) >"$host_added"
	mapfile -t added < <(sed 's/:.*//' "$host_added")
	echo "# apt-get install added: ${added[*]}"

	mapfile -t missing < <(kernels_not_built "$version" "${kernels[@]}")
	mapfile -t built < <(comm -23 <(printf '%s\n' "${kernels[@]}" | sort) \
		<(printf '%s\n' "${missing[@]}" | sort))
	echo "# built by the postinst: ${built[*]:-none}"
	for k in "${missing[@]}"; do
		[ -n "$k" ] || continue
		check "$k: dkms autoinstall -k $k" dkms_autoinstall "$k"
		[ "$passed_last" = 1 ] || dkms_failures
	done
	check_kernels "$version" "${kernels[@]}"

	check "udev rule /lib/udev/rules.d/60-ib-async.rules of ib-async-dkms" \
		owned_by /lib/udev/rules.d/60-ib-async.rules ib-async-dkms
	check "modules-load.d example in ib-async-dkms's doc, not active" \
		example_not_active
	check "libibasync.pc of libibasync-dev" owned_by \
		"/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/pkgconfig/libibasync.pc" \
		libibasync-dev
	check "ib-async-watch.service of ib-async-utils, not enabled nor started" \
		service_not_enabled
	check "ib_async_watch --help prints its usage" watch_help
	check "ldd ib_async_watch resolves libibasync.so.1 and libibverbs.so.1" \
		watch_libs_resolve
	check "a program builds with pkg-config --cflags --libs libibasync and runs" \
		build_pc_program

	package_files "${packages[@]}" >"$work/files"
	check "apt-get purge the four packages" purge_ours "${packages[@]}"
	check "dpkg knows none of them (not installed, no config files)" \
		dpkg_knows_none
	check "none of their $(wc -l <"$work/files") files left" \
		no_file_left "$work/files"
	check "no ib_async.ko left in /lib/modules/*/updates/dkms" \
		no_module_left "${kernels[@]}"
	check "dkms status, /var/lib/dkms and /usr/src have no ib_async left" \
		no_dkms_ib_async
	check "apt-get purge what the install added (${added[*]:-nothing})" \
		purge_added
	check "the host has the packages it had (none added left, none removed), /var/lib/dkms as it was" \
		same_packages "$work/before"

	echo "# host run: $(($(date +%s) - start)) s"
	echo "1..$n"
	[ "$failed" -eq 0 ]
}

# check_kernels VERSION RELEASE...: DKMS installed ib_async VERSION for
# each kernel, and its module is there as it should be.
check_kernels() {
	local version=$1 k
	shift
	dkms status -m ib_async 2>/dev/null | diag
	for k in "$@"; do
		check "$k: dkms status: ib_async/$version installed" \
			dkms_installed "$version" "$k"
		check_module "$k"
	done
}

need_debs() {	# need_debs DIR: the four packages are there, or exit
	local p
	for p in "${packages[@]}"; do
		if ! compgen -G "$1/${p}_*.deb" >/dev/null; then
			echo "deb-test.sh: no $p package in $1: run 'make deb'" >&2
			exit 1
		fi
	done
}

if [ "${1:-}" = --in-chroot ]; then
	in_chroot "$2" "$3"
	exit
fi
if [ "${1:-}" = --host-recover ]; then
	[ "$(id -u)" = 0 ] || { echo "deb-test.sh --host-recover: needs root" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	host_recover
	exit
fi
if [ "${1:-}" = --host ]; then
	top=$(cd "$(dirname "$0")/.." && pwd)
	debdir=${2:-$top/build/deb}
	need_debs "$debdir"
	on_host "$debdir"
	exit
fi
suite=bookworm
if [ "${1:-}" = --suite ]; then
	suite=${2:?}
	shift 2
fi

# ---- on the host --------------------------------------------------------
top=$(cd "$(dirname "$0")/.." && pwd)
debdir=${1:-$top/build/deb}
need_debs "$debdir"

root=$("$top/scripts/chroot.sh" "$suite")
rm -rf "${root:?}$work"
trap 'rm -rf "${root:?}$work"' EXIT
mkdir -p "$root$work"
for p in "${packages[@]}"; do
	cp "$debdir/${p}"_*.deb "$root$work/"
done
# apt reads local .debs as its unprivileged _apt user
chmod 0755 "$root$work"
chmod 0644 "$root$work"/*.deb

"$top/scripts/chroot.sh" "$suite" -- env -i \
	PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
	bash /src/scripts/deb-test.sh --in-chroot "$work" "$suite"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# make-payload.sh: prints the path of a directory holding peer-python.tar,
# what the guest needs to run rdma-core's own test suite (Debian's
# python3-pyverbs), and builds it first if needed. The busybox guest has no
# Python: run.sh unpacks Debian's own and runs it with PYTHONHOME=<root>/py,
# PYTHONPATH=<root>/py/site, LD_LIBRARY_PATH=<root>/py/deps. In the tar:
#   py/bin/python3.11                  Debian's interpreter (libpython inside)
#   py/lib/python311.zip               the standard library, compiled, zipped
#   py/lib/python3.11/lib-dynload/     its C modules (a zip cannot hold them)
#   py/site/pyverbs/                   pyverbs (Cython modules on libibverbs)
#   py/deps/                           the libraries all these link (ldd),
#                                      but for libc's and libibverbs, which
#                                      the guest has and must share
#   tests/                             rdma-core's tests, gunzipped, compiled
# One tar, and the libraries found here once: scripts/guest/vm.sh inspects
# every file of a payload at each boot (ldd on each ELF file), which for
# the ~200 files of this tree took longer than the tests themselves.
# Parts of the standard library no test reaches (tkinter, idle, lib2to3, the
# test package, the build configuration...) are left out.
# Cached in $IB_ASYNC_CACHE (default /var/cache/ib_async), keyed on the
# Debian packages' versions and this script: a re-run costs one dpkg-query.
# Missing packages are installed (scripts/install-deps.sh; as another user
# it says what to install).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
PY=python3.11
PACKAGES=(python3-pyverbs "$PY-minimal" "lib$PY-minimal" "lib$PY-stdlib" "lib$PY")
# What no test imports, by name under /usr/lib/python3.11 (directories and
# modules) and in lib-dynload (prefixes); the rest goes in whole, so that a
# test's import inside a function still finds its module.
STDLIB_SKIP='test idlelib tkinter turtledemo lib2to3 ensurepip distutils
pydoc_data site-packages dist-packages config-3.11-x86_64-linux-gnu
__pycache__ turtle.py lib-dynload'
DYNLOAD_SKIP='_test xx _ctypes_test _tkinter _curses _dbm _gdbm _sqlite3
_ssl _hashlib nis ossaudiodev readline audioop'
# Libraries the guest's base has (scripts/guest/build-initramfs.sh) and that
# must be the ones the rest of the guest uses: the loader, libc, and
# libibverbs, the one libibasync's preload stands in front of.
DEPS_SKIP='ld-linux libc.so libibverbs.so'

"$top/scripts/install-deps.sh" "${PACKAGES[@]}" >&2

cache=${IB_ASYNC_CACHE:-/var/cache/ib_async}
key=$({
	dpkg-query -W -f='${Package} ${Version}\n' "${PACKAGES[@]}"
	sha256sum "$0" | cut -d' ' -f1
} | sha256sum | cut -c1-16)
out=$cache/peer-payload-$key
# versions VERSIONS_FILE: the packages of py/deps's libraries, as they are
# now, and as they were when the tar was made (a libc upgrade must rebuild
# it: the guest's base gets the new libc, py/deps must match it).
versions() {
	# shellcheck disable=SC2046 # one word per package
	dpkg-query -W -f='${Package} ${Version}\n' $(cut -d' ' -f1 "$1") 2>/dev/null
}
if [ -f "$out/peer-python.tar" ] &&
	[ "$(versions "$out/deps.versions")" = "$(cat "$out/deps.versions")" ]; then
	echo "$out"
	exit 0
fi

echo "make-payload.sh: building $out" >&2
mkdir -p "$cache"
# A unique name, renamed at the end: other checkouts may build it at once.
tmp=$(mktemp -d "$cache/.peer-payload.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

skipped() {	# skipped NAME LIST [*]: is NAME in LIST (with *: a prefix of it)?
	local s
	for s in $2; do
		# shellcheck disable=SC2254 # $3: a pattern on purpose
		case $1 in "$s"${3:-}) return 0 ;; esac
	done
	return 1
}

stdlib_zip() {
	local src=/usr/lib/$PY lib=$tmp/stdlib f n
	mkdir -p "$lib"
	for f in "$src"/*; do
		n=${f##*/}
		skipped "$n" "$STDLIB_SKIP" && continue
		cp -a "$f" "$lib/"
	done
	find "$lib" -name __pycache__ -prune -exec rm -rf {} +
	find "$lib" -name '*.pyc' -delete
	# Sourceless .pyc beside the module (-b): zipimport does not read
	# __pycache__, and a .py beside its .pyc would be checked by a DOS
	# timestamp that depends on the time zone.
	"/usr/bin/$PY" -m compileall -q -b -j 0 "$lib" >/dev/null
	find "$lib" -name '*.py' -delete
	(cd "$lib" && "/usr/bin/$PY" -m zipfile -c "$root/py/lib/python311.zip" ./*)
	rm -rf "$lib"
}

dynload() {
	local d=$root/py/lib/$PY/lib-dynload f
	mkdir -p "$d"
	for f in "/usr/lib/$PY"/lib-dynload/*.so; do
		skipped "${f##*/}" "$DYNLOAD_SKIP" '*' && continue
		cp "$f" "$d/"
	done
}

tests() {
	cp -r /usr/share/doc/rdma-core/tests "$root/tests"
	gunzip "$root"/tests/*.gz
	# compiled here once rather than in the guest under emulation
	"/usr/bin/$PY" -m compileall -q "$root/tests" >/dev/null
}

deps() {
	local lib
	mkdir -p "$root/py/deps"
	find "$root/py" -type f \( -name '*.so' -o -name "$PY" \) -exec ldd {} + |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	while read -r lib; do
		skipped "${lib##*/}" "$DEPS_SKIP" '*' && continue
		cp -L "$lib" "$root/py/deps/"
		dpkg -S "$(realpath "$lib")" 2>/dev/null || dpkg -S "$lib"
	done | cut -d: -f1 | sort -u >"$tmp/deps.packages"
	# shellcheck disable=SC2046 # one word per package
	dpkg-query -W -f='${Package} ${Version}\n' $(cat "$tmp/deps.packages") \
		>"$tmp/deps.versions"
	rm "$tmp/deps.packages"
}

mkdir -p "$root/py/bin" "$root/py/lib" "$root/py/site"
cp "/usr/bin/$PY" "$root/py/bin/"
stdlib_zip
dynload
cp -r /usr/lib/python3/dist-packages/pyverbs "$root/py/site/"
"/usr/bin/$PY" -m compileall -q "$root/py/site" >/dev/null
tests
deps
chmod -R go+rX "$root"
tar -cf "$tmp/peer-python.tar" -C "$root" .
rm -rf "$root"
chmod 0755 "$tmp"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "make-payload.sh: $(du -sh "$out" | cut -f1) in $out" >&2
echo "$out"

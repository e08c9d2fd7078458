#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# rdma-core-root.sh SUITE OUT
#
# A small root file system holding Debian SUITE's rdma-core (trixie: 56,
# where this host has Debian 12's 44), for the guest to run programs
# built against that rdma-core's <infiniband/verbs.h> over its
# libibverbs, on ib_uverbs and with the shim preloaded:
# selftests/ib_async/ib_async_devinfo.sh chroots into it. Its
# struct verbs_context, struct ibv_port_attr and struct ibv_qp_ex are
# larger than 44's, and a program built against them passes the larger
# sizes and reaches the later members: the shim, built here against 44,
# must serve them (libibasync(7), "Newer rdma-core").
#
# In SUITE's cached chroot (scripts/chroot.sh) it installs ibverbs-utils
# and libibverbs-dev, builds ib_async_inline_verbs there, and copies into
# OUT what those programs load: ibv_devinfo, ib_async_inline_verbs, env,
# the shared objects they link (the dynamic loader included),
# libibverbs' providers and their /etc/libibverbs.d entries. The shim is
# not among them: scripts/stage.sh adds the one it stages. OUT is made
# again only when the chroot's rdma-core or the test's source changed.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 SUITE OUT" >&2; exit 2; }
suite=$1
out=$(realpath -m "$2")
top=$(cd "$(dirname "$0")/.." && pwd)
root=$("$top/scripts/chroot.sh" "$suite")
ksft=$top/build/linux-src/tools/testing/selftests
[ -f "$ksft/kselftest_harness.h" ] ||
	{ echo "rdma-core-root.sh: no $ksft: run scripts/extract-linux-tools.sh" >&2; exit 1; }

"$top/scripts/chroot.sh" "$suite" -- sh -c 'dpkg -s ibverbs-utils libibverbs-dev \
	>/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends ibverbs-utils libibverbs-dev' >&2

# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
version=$(chroot "$root" dpkg-query -W -f '${Version}' libibverbs1)
src=$top/selftests/ib_async/ib_async_inline_verbs.c
stamp="$version $(cat "$src" "$top"/selftests/ib_async/lib/*.h \
	"$top"/selftests/ib_async/lib/*.c "$0" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$out"
	exit 0
fi

# Built in the chroot with its compiler and headers, the test library
# (selftests/ib_async/lib) as the selftests' Makefile builds it; the
# checkout is /src there, read-only.
work=/tmp/ib_async-rdma-core-root
export cflags="-O2 -g -Wall -Wextra -Werror -pthread -D_GNU_SOURCE \
-I/src/include/uapi -I/src/include -I$work -I/src/selftests/ib_async"
"$top/scripts/chroot.sh" "$suite" -- sh -c "rm -rf $work && mkdir -p $work &&
	cp /src/build/linux-src/tools/testing/selftests/kselftest_harness.h \
		/src/build/linux-src/tools/testing/selftests/kselftest.h $work/ &&
	cd $work && for f in /src/selftests/ib_async/lib/*.c; do
		gcc \$cflags -c \$f -o \$(basename \$f .c).o || exit 1
	done && ar rcs libiba_test.a *.o &&
	gcc \$cflags /src/selftests/ib_async/ib_async_inline_verbs.c \
		-o ib_async_inline_verbs libiba_test.a -libverbs" >&2

rm -rf "$out"
mkdir -p "$out/usr/bin" "$out/usr/lib/ib_async" "$out/etc" "$out/tmp" \
	"$out/dev" "$out/proc" "$out/sys"
chmod 1777 "$out/tmp"
# copy PATH...: each path of the chroot to the same place under OUT,
# following symbolic links (the loader's and the libraries' names)
copy() {
	local f
	for f in "$@"; do
		mkdir -p "$out$(dirname "$f")"
		cp -L "$root$f" "$out$f"
	done
}
multiarch=$(chroot "$root" dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
	echo x86_64-linux-gnu)
providers=/usr/lib/$multiarch/libibverbs
cp "$root$work/ib_async_inline_verbs" "$out/usr/lib/ib_async/"
copy /usr/bin/ibv_devinfo /usr/bin/env /usr/bin/timeout
cp -r "$root/etc/libibverbs.d" "$out/etc/"
mkdir -p "$out$providers"
cp -L "$root$providers"/*.so "$out$providers/"
# What they link, as the chroot's loader resolves it: the providers'
# libraries and libibverbs' own (libnl) included.
mapfile -t libs < <(chroot "$root" sh -c "ldd /usr/bin/ibv_devinfo \
	/usr/bin/env /usr/bin/timeout $work/ib_async_inline_verbs \
	$providers/*.so" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u)
copy "${libs[@]}"
echo "$stamp" >"$out/.stamp"
echo "$out"

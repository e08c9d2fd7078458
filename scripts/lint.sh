#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Kernel-side lint as TAP: checkpatch --strict, and a W=1 + sparse (C=1)
# rebuild of every module that must print no warning.
set -uo pipefail

usage() { echo "usage: $0 --kdir KDIR --linux-tools DIR" >&2; exit 2; }
KDIR= TOOLS=
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) KDIR=$2; shift 2 ;;
	--linux-tools) TOOLS=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$KDIR" ] && [ -n "$TOOLS" ] || usage

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$top/build/lint
mkdir -p "$log"
n=0 fails=0

tap() {	# tap STATUS DESCRIPTION LOGFILE
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		fails=$((fails + 1))
		echo "not ok $n - $2"
		sed 's/^/# /' "$3" | head -n 40
	fi
}

sources=$(git ls-files --cached --others --exclude-standard \
	'kernel/*.[ch]' 'include/uapi/*.h' \
	'selftests/ib_async/modules/*.[ch]' 2>/dev/null)
[ -n "$sources" ] || sources=$(ls kernel/*.[ch] include/uapi/rdma/*.h \
	selftests/ib_async/modules/*.[ch] 2>/dev/null)
# shellcheck disable=SC2086
perl "$TOOLS/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	-f $sources > "$log/checkpatch.log" 2>&1 </dev/null
grep -qE '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' "$log/checkpatch.log"
tap $(( $? == 0 )) "checkpatch --strict --no-tree: $(echo $sources | wc -w) files" \
	"$log/checkpatch.log"

# Build a fresh copy: every file is compiled (and checked) again, and
# nothing runs Kbuild's clean on the checkout, which would delete every .ko
# below it, staged ones included.
build_copy() {	# build_copy NAME FILE...: warning-free W=1 C=1 build
	local name=$1 dir=$log/src-$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r --parents "$@" "$dir/"
	make -C "$KDIR" M="$dir" W=1 C=1 modules > "$log/$name.log" 2>&1 ||
		return 1
	! grep -qE 'warning:|error:|: sparse: ' "$log/$name.log"
}

build_copy ib_async Kbuild kernel include
tap $? "W=1 C=1 build of ib_async without warnings" "$log/ib_async.log"
(shopt -s nullglob; cd selftests/ib_async/modules &&
	build_copy test-modules Kbuild ./*.c ./*.h)
tap $? "W=1 C=1 build of the test modules without warnings" \
	"$log/test-modules.log"

echo "1..$n"
[ $fails -eq 0 ]

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

sources=$(git ls-files 'kernel/*.[ch]' 'include/uapi/*.h' \
	'selftests/ib_async/modules/*.[ch]' 2>/dev/null)
[ -n "$sources" ] || sources=$(ls kernel/*.[ch] include/uapi/rdma/*.h \
	selftests/ib_async/modules/*.[ch] 2>/dev/null)
# shellcheck disable=SC2086
perl "$TOOLS/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	-f $sources > "$log/checkpatch.log" 2>&1 </dev/null
grep -qE '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' "$log/checkpatch.log"
tap $(( $? == 0 )) "checkpatch --strict --no-tree: $(echo $sources | wc -w) files" \
	"$log/checkpatch.log"

build_clean() {	# build_clean DIR NAME: warning-free W=1 C=1 build
	make -C "$KDIR" M="$1" clean >/dev/null 2>&1
	make -C "$KDIR" M="$1" W=1 C=1 modules > "$log/$2.log" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || return $rc
	! grep -E 'warning:|error:|: sparse: ' "$log/$2.log" | \
		grep -v 'Skipping BTF generation' >> "$log/$2.log.warn"
}

for m in "$top:ib_async" "$top/selftests/ib_async/modules:test-modules"; do
	rm -f "$log/${m##*:}.log.warn"
	build_clean "${m%%:*}" "${m##*:}"
	tap $? "W=1 C=1 build of ${m##*:} without warnings" "$log/${m##*:}.log"
done

echo "1..$n"
[ $fails -eq 0 ]

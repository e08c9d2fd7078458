#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The uAPI against its released table (abi_released.txt): every ioctl
# number, constant, structure size and field offset and size released
# must still be there with the same value. New entries pass, and are
# listed; the table takes them at the release that ships them.
set -u
ABI_DUMP=${ABI_DUMP:-build/plain/bin/abi_dump}
TABLE=$(dirname "$0")/abi_released.txt
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

TMP=$(mktemp -d /tmp/ibasync-abi.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
grep -v '^#' "$TABLE" | LC_ALL=C sort > "$TMP/released"
"$ABI_DUMP" > "$TMP/dump"
ok $? "the dump of the current uAPI header runs"
LC_ALL=C sort "$TMP/dump" > "$TMP/current"

# kind DESCRIPTION: the released entries of a kind absent from the current
# dump (changed or gone), each printed with its current value if any
check() {
	grep "^$1 " "$TMP/released" > "$TMP/want"
	LC_ALL=C comm -23 "$TMP/want" "$TMP/current" > "$TMP/lost"
	while read -r kind name _; do
		echo "# released: $(grep -F "$kind $name " "$TMP/want")"
		echo "# now:      $(grep -F "$kind $name " "$TMP/current" ||
			echo "(none)")"
	done < "$TMP/lost"
	[ -s "$TMP/want" ] && [ ! -s "$TMP/lost" ]
	ok $? "$2: $(wc -l < "$TMP/want") released, $(wc -l < "$TMP/lost") changed or gone"
}
check ioctl "ioctl numbers"
check size "structure sizes"
check field "field offsets and sizes"
check const "constants"

# entries no release had (a changed one was printed above)
LC_ALL=C comm -13 "$TMP/released" "$TMP/current" |
	while read -r kind name rest; do
		grep -qF "$kind $name " "$TMP/released" ||
			echo "# new: $kind $name $rest"
	done
tap_done

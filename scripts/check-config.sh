#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# check-config.sh FRAGMENT CONFIG...: whether each kernel configuration has
# every option of the config fragment (selftests/ib_async/config), as TAP,
# one line per CONFIG. A fragment's =m is met by m or y (built in); =y only
# by y; "# CONFIG_X is not set" by X being unset. make check runs it over
# the guest kernels, so that the fragment and the kernels the suite really
# runs on cannot drift apart unseen.
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: $0 FRAGMENT CONFIG..." >&2; exit 2; }
fragment=$1
shift

# missing CONFIG: the fragment's lines that CONFIG does not meet
missing() {
	local line opt want have
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*} want=${line#*=}
			have=$(sed -n "s/^$opt=//p" "$1")
			case $want/$have in
			m/m | m/y) ;;
			*) [ "$want" = "$have" ] || echo "$opt=$want (has ${have:-none})" ;;
			esac ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# } opt=${opt%% *}
			have=$(sed -n "s/^$opt=//p" "$1")
			[ -z "$have" ] || echo "$opt unset (has $have)" ;;
		esac
	done <"$fragment"
}

echo "TAP version 13"
echo "1..$#"
n=0 fails=0
for config in "$@"; do
	n=$((n + 1))
	if [ ! -r "$config" ]; then
		echo "not ok $n - $config: not readable"
		fails=$((fails + 1))
		continue
	fi
	out=$(missing "$config")
	if [ -z "$out" ]; then
		echo "ok $n - $config has every option of ${fragment##*/selftests/}"
	else
		echo "not ok $n - $config lacks options of ${fragment##*/selftests/}"
		printf '%s\n' "$out" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# check-circles.sh [--allow A:B]... OBJECT...: which objects call each other.
#
# A file that calls another, which calls it back, is two rooms with one
# job: the dependency should go one way. From nm's defined and undefined
# symbols of each object, prints every pair that calls both ways (as
# "a.o <-> b.o: sym_a_needs_from_b ... | sym_b_needs_from_a ...") and
# exits 1 if any pair is not allowed by an --allow A:B (base names, either
# order), such as a device and its files.
set -euo pipefail

allow=()
while [ $# -gt 0 ]; do
	case $1 in
	--allow) allow+=("$2"); shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--allow A:B]... OBJECT..." >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
	b=$(basename "$o")
	nm --defined-only "$o" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u >"$tmp/$b.def"
	nm --undefined-only "$o" | awk '{ print $NF }' | sort -u >"$tmp/$b.undef"
done

bad=0
objs=("$@")
for ((i = 0; i < ${#objs[@]}; i++)); do
	a=$(basename "${objs[$i]}")
	for ((j = i + 1; j < ${#objs[@]}; j++)); do
		b=$(basename "${objs[$j]}")
		ab=$(comm -12 "$tmp/$a.undef" "$tmp/$b.def" | tr '\n' ' ')
		ba=$(comm -12 "$tmp/$b.undef" "$tmp/$a.def" | tr '\n' ' ')
		if [ -z "$ab" ] || [ -z "$ba" ]; then continue; fi
		ok=0
		for p in "${allow[@]}"; do
			case $p in "$a:$b"|"$b:$a") ok=1 ;; esac
		done
		tag=$([ $ok = 1 ] && echo "allowed" || echo "circle")
		echo "$tag: $a <-> $b: ${ab}| ${ba}"
		[ $ok = 1 ] || bad=1
	done
done
exit $bad

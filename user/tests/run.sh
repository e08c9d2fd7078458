#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run test programs ("label:path" each) and merge their TAP into one
# stream: "ok N - label/name: description", plan at the end. Exit status
# non-zero if any test failed or a program exited non-zero.
set -u
total=0 failed=0
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
out=$(mktemp /tmp/ibasync-tap.XXXXXX)
trap 'rm -f "$out"' EXIT

for spec in "$@"; do
	label=${spec%%:*} prog=${spec#*:}
	name="$label/$(basename "$prog")"
	if [ "$label" = sh ]; then sh "$prog" > "$out"; else "$prog" > "$out"; fi
	rc=$?
	planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			total=$((total + 1))
			status=${line%% [0-9]*}
			desc=${line#* - }
			[ "$status" = "not ok" ] && failed=$((failed + 1))
			printf '%s %d - %s: %s\n' "$status" "$total" "$name" "$desc" ;;
		1..*) ;;
		*) printf '# %s\n' "$line" ;;
		esac
	done < "$out"
	if [ $rc -ne 0 ] || [ -z "$planned" ]; then
		total=$((total + 1)) failed=$((failed + 1))
		note=
		[ -n "$planned" ] || note=", no plan"
		printf 'not ok %d - %s: exited with status %d%s\n' "$total" "$name" "$rc" "$note"
	fi
done
echo "1..$total"
[ $failed -eq 0 ] || { echo "# $failed of $total failed"; exit 1; }

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# check-header-index.sh HEADER...: a header's index says where things are.
#
# Our private headers group their prototypes under comments that name a
# file ("/* evq.c */", "/* state.c: what a state record says */"): a reader
# opens that file to find the body. This checks it: every function
# declared under such a comment is defined in the named file, beside the
# header. Prints one line per mismatch and exits 1 if there is any.
set -euo pipefail

bad=0
for h in "$@"; do
	dir=$(dirname "$h")
	# "FILE NAME" for each prototype under a section comment
	while read -r file name; do
		src=$dir/$file
		if [ ! -f "$src" ]; then
			echo "$h: $name is listed under $file, which does not exist"
			bad=1
		elif ! grep -Eq "^[^ 	#/*].*[^A-Za-z0-9_]$name\([^;]*(\)|,)\$" "$src"; then
			echo "$h: $name is listed under $file but not defined there"
			bad=1
		fi
	done < <(awk '
		# a section: "/* name.c" at the start of a line, or a comment
		# whose first line is " * name.c:"
		/^\/\* [A-Za-z0-9_]+\.c([: ]|$)/ {
			file = $2; sub(/:$/, "", file); proto = ""; next
		}
		prev == "/*" && /^ \* [A-Za-z0-9_]+\.c:/ {
			file = $2; sub(/:$/, "", file); proto = ""
		}
		{ prev = $0 }
		file == "" { next }
		# a prototype: from a line at column 0 to the ");" that ends it
		proto == "" && /^[a-z]/ && !/^(static|struct [a-z_]+ \{|enum|union|typedef|extern)/ {
			proto = $0
		}
		proto != "" && proto != $0 { proto = proto " " $0 }
		proto != "" && /\);[ \t]*$/ {
			s = proto; proto = ""
			if (s ~ /\{/) next
			sub(/\(.*/, "", s)
			n = split(s, w, /[ \t*]+/)
			print file, w[n]
			next
		}
		proto != "" && /[{;]/ { proto = "" }
	' "$h")
done
exit $bad

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The library's layering (src/cmd.h): only the command layer, src/cmd_*.c,
# speaks the kernel ABI. No other source file calls ioctl(), mmap() or
# munmap(), or names an IB_ASYNC_IOC_* command, outside its comments.
#
# Calls between the library's files go one way: no two files of src/
# call each other (each object's undefined symbols against the others'
# defined ones, with nm over build/plain/src/*.o, which make check builds
# first; OBJ= names another directory).
#
# The tools (tools/, TOOLS= another directory) are clients of the public
# API alone: no header of src/ included, whatever the path; no ioctl()
# or read() (their objects import neither, TOOL_OBJ=: the descriptors
# they poll are libibasync's, which reads them) and no IB_ASYNC_IOC_*
# command; no libibasync variable (IBASYNC_*) set in the environment.
set -u
SRC=$(dirname "$0")/../src
OBJ=${OBJ:-$(dirname "$0")/../build/plain/src}
TOOLS=${TOOLS:-$(dirname "$0")/../tools}
TOOL_OBJ=${TOOL_OBJ:-$(dirname "$0")/../build/plain/tools}
NM=${NM:-nm}
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

# code_uses PATTERN: file:line:text of each use in code, cmd_*.c aside
code_uses() {
	for f in "$SRC"/*.c "$SRC"/*.h; do
		case ${f##*/} in
		cmd_*.c | cmd.h) continue ;;
		esac
		grep -nHE "$1" "$f" |
			grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)'
	done
}

n=0
for f in "$SRC"/cmd_*.c; do
	[ -f "$f" ] && n=$((n + 1))
done
[ "$n" -gt 0 ]
ok $? "the command layer: $n files"
for what in 'ioctl' 'mmap' 'munmap'; do
	uses=$(code_uses "\\<${what}[[:space:]]*\\(")
	[ -z "$uses" ]
	ok $? "no $what() outside src/cmd_*.c${uses:+: $uses}"
done
uses=$(code_uses 'IB_ASYNC_IOC_')
[ -z "$uses" ]
ok $? "no IB_ASYNC_IOC_* command outside src/cmd_*.c${uses:+: $uses}"

# calls DIR: "caller callee" for each call from one object of DIR to a
# function or variable another defines (names the file, .o dropped); every
# definition is read (D sorts first) before the first use is looked up
calls() {
	for o in "$1"/*.o; do
		"$NM" --defined-only -g "$o" |
			awk -v f="${o##*/}" 'NF == 3 { print "D", f, $3 }'
		"$NM" -u "$o" | awk -v f="${o##*/}" '{ print "U", f, $2 }'
	done | sort -s -k1,1 | awk '$1 == "D" { def[$3] = $2; next }
		($3 in def) && def[$3] != $2 { print $2, def[$3] }' |
		sed 's/\.o / /; s/\.o$//' | sort -u
}

nobj=0
for o in "$OBJ"/*.o; do
	[ -f "$o" ] && nobj=$((nobj + 1))
done
[ "$nobj" -gt 1 ]
ok $? "the library's objects: $nobj in $OBJ"
edges=$(calls "$OBJ")
# a pair once, as "a.c <-> b.c"
pairs=$(printf '%s\n' "$edges" | awk 'NF == 2 { e[$1 " " $2] = 1 }
	END { for (k in e) { split(k, a, " ");
		if ((a[2] " " a[1]) in e && a[1] < a[2])
			printf "%s.c <-> %s.c; ", a[1], a[2] } }' | sed 's/; $//')
[ -z "$pairs" ]
ok $? "no two files of src/ call each other ($(printf '%s\n' "$edges" |
	grep -c .) calls between files)${pairs:+: $pairs}"

# in_code FILE...: file:line:text of each line matching $PATTERN once
# comments are left out (lines that open or continue one, and a comment
# at the end of a line of code)
in_code() {
	for f in "$@"; do
		sed -e 's|/\*.*\*/||g' -e 's|//.*$||' \
			-e 's|^[[:space:]]*/\{0,1\}\*.*$||' "$f" |
			grep -nE "$PATTERN" | sed "s|^|$f:|"
	done
}

ntools=0
for f in "$TOOLS"/*.c "$TOOLS"/*.h; do
	[ -f "$f" ] && ntools=$((ntools + 1))
done
[ "$ntools" -gt 0 ]
ok $? "the tools: $ntools files in $TOOLS"
private=$(for h in "$SRC"/*.h; do printf '%s|' "${h##*/}"; done)
PATTERN="^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]([^>\"]*/)?(${private%|})[>\"]|^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"][^>\"]*src/"
uses=$(in_code "$TOOLS"/*.[ch])
[ -z "$uses" ]
ok $? "no tool includes a private header of src/${uses:+: $uses}"
PATTERN='(^|[^[:alnum:]_])(ioctl|read)[[:space:]]*\(|IB_ASYNC_IOC_'
uses=$(in_code "$TOOLS"/*.[ch])
[ -z "$uses" ]
ok $? "no ioctl(), read() or IB_ASYNC_IOC_* in the tools' code${uses:+: $uses}"
PATTERN='(setenv|putenv)[[:space:]]*\(.*IBASYNC_'
uses=$(in_code "$TOOLS"/*.[ch])
[ -z "$uses" ]
ok $? "no tool sets a libibasync variable${uses:+: $uses}"
nobj=0 imports=
for o in "$TOOL_OBJ"/*.o; do
	[ -f "$o" ] || continue
	nobj=$((nobj + 1))
	imports="$imports$("$NM" -u "$o" | awk -v f="${o##*/}" '
		$2 ~ /^(ioctl|read|__read_chk|readv|pread|pread64|setenv|putenv)$/ {
			printf "%s: %s; ", f, $2 }')"
done
[ "$nobj" -gt 0 ] && [ -z "$imports" ]
ok $? "the tools' $nobj objects import no ioctl, read or setenv${imports:+: ${imports%; }}"
tap_done

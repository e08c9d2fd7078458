#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The library's layering (src/cmd.h): only the command layer, src/cmd_*.c,
# speaks the kernel ABI. No other source file calls ioctl(), mmap() or
# munmap(), or names an IB_ASYNC_IOC_* command, outside its comments.
set -u
SRC=$(dirname "$0")/../src
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
tap_done

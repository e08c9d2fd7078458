#!/usr/bin/env bash
# check-log.sh CONSOLE_LOG
#
# Scans a guest console log for signs of kernel trouble (WARN, BUG, Oops, GPF, refcount_t and
# list corruption reports, hung tasks, lockups, RCU stalls, panics, sanitizer and kmemleak
# reports).
# Checked: every line of the dmesg section that the guest /init prints between
# @@IBASYNC_DMESG_BEGIN@@ and @@IBASYNC_DMESG_END@@, and every kernel-formatted line
# ("[ seconds.micros] ...") elsewhere in the console, e.g. an oops printed before a crash.
# Plain command output outside the dmesg section is not checked, so a test that prints the
# word "WARNING" does not fail the run. Exit 0: clean; 1: offending lines printed to stdout.
set -euo pipefail

# ERE; \b keeps DEBUG/BUG_ON and similar identifiers from matching.
PATTERN='\bBUG\b|\bWARNING\b|Oops|general protection|refcount_t|list_del corruption|list_add corruption|hung task|blocked for more than|soft lockup|hard LOCKUP|detected stall|Kernel panic|UBSAN|KASAN|kfence|KFENCE|suspected memory leak|unreferenced object'

[ $# -eq 1 ] || { echo "usage: $0 CONSOLE_LOG" >&2; exit 2; }

# Kernel lines: the dmesg section whole, elsewhere only lines carrying a printk timestamp.
kernel_lines() {
	tr -d '\r' <"$1" | awk '
		/@@IBASYNC_DMESG_BEGIN@@/ { in_dmesg = 1; next }
		/@@IBASYNC_DMESG_END@@/ { in_dmesg = 0; next }
		in_dmesg || /\[ *[0-9]+\.[0-9]+\] / { print }'
}

# The same message usually appears twice (live on the console and in the dmesg dump).
bad=$(kernel_lines "$1" | { grep -E -- "$PATTERN" || true; } | awk '
	{ k = $0; if (match($0, /\[ *[0-9]+\.[0-9]+\] /)) k = substr($0, RSTART) }
	!seen[k]++ { print k }')
[ -z "$bad" ] && exit 0
printf '%s\n' "$bad"
exit 1

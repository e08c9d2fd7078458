# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash disable=SC2034 # passed_last: the sourcing script reads it
# TAP helpers of the host-side test scripts (deb-test.sh, install-test.sh),
# sourced. The sourcing script sets log to a writable file first and ends
# with: echo "1..$n"; [ "$failed" -eq 0 ]

n=0
failed=0
passed_last=1	# whether the last check passed
log=/dev/null

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { ok "$1 # SKIP $2"; }
diag() { sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: one test, COMMAND's output to the log
# and, when it fails, the log's end as diagnostics.
check() {
	local desc=$1
	shift
	: >"$log"
	passed_last=1
	if "$@" >>"$log" 2>&1; then
		ok "$desc"
	else
		passed_last=0
		not_ok "$desc"
		tail -n 25 "$log" | diag
	fi
}

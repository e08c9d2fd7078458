#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# report.sh [--tap] [--vm-status N] CONSOLE_LOG [KNOWN_GAPS]
# The verdict of `make rdmacm-test` from the guest's console (run.sh's
# "@@RDMACM" lines): a table of every program, its outcome on rdma-core +
# ib_uverbs and over the shim, then exactly one closing line,
#   rdmacm: uverbs U ok; shim S ok of N
# The note column says "SHIM" where a program works on uverbs only, "data"
# where both stacks ran it but what it moved differs (its shim column says
# "data" too, and it does not count as ok), "gap" for either when
# KNOWN_GAPS (known-gaps.txt) lists the program, "fixed" when a listed
# program works over the shim, "STACK ran twice" where a program
# run.sh knows to be racy (RACY) failed its first run (the second counts), and
# "uverbs too"
# where it fails on ib_uverbs already (the guest's or rxe's limit, not the
# shim's: Documentation/ib_async.rst, "Applications that use librdmacm").
#
# The rule (exit status 1 when broken): every program that works on uverbs
# works over the shim with the same data, but for the known gaps; both
# stacks ran to their end;
# uverbs passes at least UVERBS_FLOOR programs and the guest run ended
# cleanly (--vm-status: scripts/guest/vm.sh's status, non-zero on a kernel
# warning or a timeout), so a guest where nothing works cannot pass; and the
# hot-unplug check over the shim ("@@RDMACM unplug", last) passed: rping
# and a probe saw the removal through librdmacm and ibv_get_async_event().
# --tap: the same as TAP for scripts/check.sh (one line per program), the
# table and the closing line as "# " comments. RDMACM_REPORT_ONLY=1: a
# kernel the suite is not yet held to (none in make check today): what
# fails over the shim, and the hot-unplug check, are reported as skips
# ("report only"), and only a guest that did not run both stacks fails.
set -euo pipefail

# 20 of the 22 programs work on 6.1's rxe (not rdma_xclient -c x: rxe has
# no XRC; not udpong, see Documentation/ib_async.rst); a broken guest
# passes none.
UVERBS_FLOOR=${RDMACM_UVERBS_FLOOR:-15}
REPORT_ONLY=${RDMACM_REPORT_ONLY:-0}

tap=0 vm=0
while [ $# -gt 0 ]; do
	case $1 in
	--tap) tap=1; shift ;;
	--vm-status) vm=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || [ $# -eq 2 ] || {
	echo "usage: $0 [--tap] [--vm-status N] CONSOLE_LOG [KNOWN_GAPS]" >&2
	exit 2
}
gaps=${2:-/dev/null}

tr -d '\r' <"$1" | awk -v tap="$tap" -v floor="$UVERBS_FLOOR" -v vm="$vm" \
	-v report_only="$REPORT_ONLY" '
FILENAME == ARGV[1] {
	if ($0 !~ /^#/ && NF) gap[$1] = 1
	next
}
$1 == "@@RDMACM" && $2 == "unplug" {
	unplug = $3; $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); unplug_why = $0
	next
}
$1 != "@@RDMACM" || ($2 != "uverbs" && $2 != "shim") { next }
$3 == "done" { done[$2] = 1; next }
{
	if (!($3 in seen)) { seen[$3] = 1; ids[++n] = $3 }
	res[$2, $3] = $4
	d = $NF; sub(/^data=/, "", d); data[$2, $3] = d
	how[$2, $3] = $6 " " $7
	if ($8 == "retried=1") retried[$2, $3] = 1
}
function show(st, id) { return (st, id) in res ? res[st, id] : "missing" }
END {
	u = s = bad = 0
	for (i = 1; i <= n; i++) {
		id = ids[i]
		ru = show("uverbs", id); rs = show("shim", id)
		note = ""
		# ok over the shim: its status, and its data as on uverbs
		if (rs == "ok" && ru == "ok" && data["uverbs", id] != data["shim", id])
			rs = "data"
		if (ru == "ok") u++
		if (rs == "ok") s++
		if (ru != "ok") note = "uverbs too"
		else if (rs == "data") note = "data"
		else if (rs != "ok") note = "SHIM"
		else if (id in gap) note = "fixed"
		if ((note == "SHIM" || note == "data") &&
		    ((id in gap) || report_only))
			note = "gap"
		if (note == "SHIM" || note == "data") bad++
		for (k = 1; k <= 2; k++) {
			st = k == 1 ? "uverbs" : "shim"
			if ((st, id) in retried)
				note = note (note == "" ? "" : ", ") st " ran twice"
		}
		line[i] = sprintf("%-20s %-8s %-8s %s", id, ru, rs, note)
		if (note == "SHIM" || (note == "gap" && rs != "ok"))
			line[i] = line[i] " (" how["shim", id] ")"
		verdict[i] = note == "SHIM" || note == "data" ? "not ok" : "ok"
		notes[i] = note
	}
	healthy = done["uverbs"] && done["shim"] && u >= floor && vm == 0
	pre = tap ? "# " : ""
	printf "%s%-20s %-8s %-8s %s\n", pre, "program", "uverbs", "shim", "note"
	for (i = 1; i <= n; i++) print pre line[i]
	if (unplug == "") unplug = "missing"
	printf "%s%-20s %-8s %-8s %s\n", pre, "hot_unplug", "-", unplug,
		"shim only" (unplug_why != "" ? " (" unplug_why ")" : "")
	if (!healthy)
		printf "%srdmacm: guest run: uverbs %s, shim %s, %d ok on uverbs (floor %d), vm status %d\n",
			pre, done["uverbs"] ? "done" : "unfinished",
			done["shim"] ? "done" : "unfinished", u, floor, vm
	if (tap) {
		print "TAP version 13"
		print "1.." n + 2
		for (i = 1; i <= n; i++) {
			why = ""
			if (notes[i] == "gap" && report_only)
				why = " # SKIP report only on this kernel"
			else if (notes[i] == "gap")
				why = " # SKIP known gap (known-gaps.txt)"
			if (show("uverbs", ids[i]) != "ok") why = " # SKIP fails on uverbs too"
			printf "%s %d rdmacm_%s%s\n", verdict[i], i, ids[i], why
		}
		printf "%s %d rdmacm_guest_ran_both_stacks\n", healthy ? "ok" : "not ok", n + 1
		why = ""
		if (unplug != "ok" && report_only)
			why = " # SKIP report only on this kernel"
		printf "%s %d rdmacm_hot_unplug_under_rping_over_the_shim%s\n",
			unplug == "ok" || report_only ? "ok" : "not ok", n + 2, why
	}
	printf "rdmacm: uverbs %d ok; shim %d ok of %d\n", u, s, n
	exit !(healthy && (report_only || (bad == 0 && unplug == "ok")))
}' "$gaps" -

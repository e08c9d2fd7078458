#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The same program on both stacks in one boot, compared: first rdma-core's
# provider over ib_uverbs, then libibasync preloaded with /dev/infiniband
# overlaid with the ib_async nodes alone (as ib_async_pingpong.sh does).
#
# - rdma-core's own `ibv_devinfo -v` (ibverbs-utils), which reaches the
#   device through verbs.h's inlines over struct verbs_context and through
#   libibverbs' private ibv_query_gid_type(): it must exit 0 over the shim
#   (with the uverbs nodes visible too, printing the same) and print the
#   lines it prints on ib_uverbs, line by line. The lines
#   of DEVINFO_DIFFER may differ in value only (Documentation/ib_async.rst,
#   "ibv_devinfo over the shim", says why).
# - ib_async_inline_verbs, every entry point reached through the context's
#   operation tables called with valid objects, its outcome (return value,
#   errno) recorded one line per call: the records must match, except the
#   calls of VERBS_DIFFER, which the shim refuses where rxe serves them
#   (same section).
# Both again, built against another Debian's rdma-core (Debian 13's 56:
# larger struct ibv_port_attr, struct ibv_qp_ex and more ops), in each
# small root that make check stages (scripts/rdma-core-root.sh) under
# /usr/lib/ib_async/rdma-core-SUITE, chrooted into, the shim the same one;
# their TAP lines are prefixed with SUITE.
# Functions here also run by name through check, which shellcheck cannot
# see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

# ibv_devinfo fields whose values differ over the shim, by design (the
# line must be there; an *_odp_caps field with the flag lines under it:
# rxe of 7.x pages on demand, kernel MRs never do; the multicast limits
# are 0: QUERY_DEVICE has no field for them, though attaching works)
DEVINFO_DIFFER='max_mr_size max_mcast_grp max_mcast_qp_attach
max_total_mcast_qp_attach general_odp_caps rc_odp_caps uc_odp_caps
ud_odp_caps xrc_odp_caps'
# calls rxe serves and the shim refuses (EOPNOTSUPP), and those made only
# when one of them succeeded: their records are left out of the comparison
VERBS_DIFFER='ibv_alloc_mw ibv_dealloc_mw'
# 7.1 removed ib_resize_cq(): kernel verbs cannot resize a CQ there
grep -qw ib_resize_cq /proc/kallsyms ||
	VERBS_DIFFER="$VERBS_DIFFER ibv_resize_cq"

[ -n "$(find_node)" ] || skip_all "no ib_async device"
command -v ibv_devinfo >/dev/null || skip_all "ibv_devinfo not installed"
[ -x ./ib_async_inline_verbs ] || skip_all "ib_async_inline_verbs not built"
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -e /dev/infiniband/uverbs0 ] || skip_all "no ib_uverbs node to compare with"
SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
LD_PRELOAD=$SHIM /bin/true 2>&1 | grep -q . && skip_all "cannot preload $SHIM"
tmp=$(mktemp -d)
mounted=
cleanup() {
	[ -n "$mounted" ] && show_uverbs
	rm -rf "$tmp"
}
trap cleanup EXIT

# in_root PROGRAM ARGS...: PROGRAM run with $root as its root (when set),
# /dev (as it is overlaid now), /sys and /proc bound there for its run
in_root() {
	[ -n "$root" ] || { "$@"; return; }
	mount -o rbind /dev "$root/dev" && mount -o rbind /sys "$root/sys" &&
		mount -t proc proc "$root/proc" || return 1
	chroot "$root" "$@"
	ir_rc=$?
	umount -l "$root/proc"; umount -l "$root/sys"; umount -l "$root/dev"
	return $ir_rc
}

# run STACK PRELOAD: both programs on one stack, outputs in $tmp/*.STACK
run() {
	in_root env LD_PRELOAD="$2" timeout 60 ibv_devinfo -v \
		-d "$IB_ASYNC_IBDEV" >"$tmp/devinfo.$1" 2>"$tmp/devinfo-err.$1"
	echo $? >"$tmp/devinfo-rc.$1"
	rm -f "$root/tmp/verbs.record"
	in_root env IB_ASYNC_VERBS_RECORD=/tmp/verbs.record \
		LD_PRELOAD="$2" timeout 120 "$verbs" >"$tmp/harness.$1" 2>&1
	echo $? >"$tmp/verbs-rc.$1"
	cp "$root/tmp/verbs.record" "$tmp/verbs.$1" 2>/dev/null || : >"$tmp/verbs.$1"
}

# masked FILE WORDS MODE: FILE with each "field:" line or record of WORDS
# given "<differs>" for its value (MODE mask) or left out (MODE drop); the
# flag lines indented under a field of WORDS (ibv_devinfo's capability
# lists) go with it
masked() {
	awk -v words="$2" -v mode="$3" '
		BEGIN { n = split(words, w, /[ \n]+/); for (i = 1; i <= n; i++) m[w[i]] = 1 }
		under && /^\t\t/ { next }
		{
			under = 0
			k = $1; sub(/:$/, "", k)
			if (k in m) {
				if (mode == "mask") print $1 " <differs>"
				under = 1
				next
			}
			print
		}' "$1"
}

# same NAME WORDS MODE: the uverbs and shim outputs NAME.* equal but for
# WORDS (see masked)
same() {
	masked "$tmp/$1.uverbs" "$2" "$3" >"$tmp/$1.u"
	masked "$tmp/$1.shim" "$2" "$3" >"$tmp/$1.s"
	if ! diff -u "$tmp/$1.u" "$tmp/$1.s" >"$tmp/$1.diff"; then
		sed 's/^/#   /' "$tmp/$1.diff"
		return 1
	fi
}

# differs NAME WORDS: log each line of WORDS on both stacks
differs() {
	for d_w in $2; do
		log "$1 $d_w: uverbs '$(grep -m1 "^[[:space:]]*${d_w}[: ]" "$tmp/$1.uverbs" |
			tr -s '\t ' ' ')', shim '$(grep -m1 "^[[:space:]]*${d_w}[: ]" \
			"$tmp/$1.shim" | tr -s '\t ' ' ')'"
	done
}

visible_same() {
	[ "$(cat "$tmp/devinfo-rc.visible")" = 0 ] &&
		[ -s "$tmp/devinfo.visible" ] &&
		diff -q "$tmp/devinfo.visible" "$tmp/devinfo.shim" >/dev/null
}

# compare [SUITE]: the two programs on both stacks compared, as this
# system's rdma-core builds them or (SUITE) in that root
compare() {
	root='' pfx='' verbs=./ib_async_inline_verbs
	if [ -n "${1:-}" ]; then
		root=/usr/lib/ib_async/rdma-core-$1 pfx=${1}_
		verbs=/usr/lib/ib_async/ib_async_inline_verbs
	fi
	run uverbs ''
	# the shim with the uverbs nodes still there: the same output
	in_root env LD_PRELOAD="$SHIM" timeout 60 ibv_devinfo -v \
		-d "$IB_ASYNC_IBDEV" >"$tmp/devinfo.visible" 2>&1
	echo $? >"$tmp/devinfo-rc.visible"
	hide_uverbs "$tmp/dev" && mounted=1
	check "${pfx}uverbs_nodes_hidden" test -n "$mounted"
	[ -n "$mounted" ] && run shim "$SHIM"
	[ -n "$mounted" ] && show_uverbs && mounted=

	log "${pfx}ibv_devinfo -v: uverbs exit $(cat "$tmp/devinfo-rc.uverbs"), $(wc -l <"$tmp/devinfo.uverbs") lines; shim exit $(cat "$tmp/devinfo-rc.shim" 2>/dev/null), $(wc -l <"$tmp/devinfo.shim" 2>/dev/null) lines"
	sed 's/^/# shim stderr: /' "$tmp/devinfo-err.shim" 2>/dev/null
	check "${pfx}devinfo_v_on_uverbs" test "$(cat "$tmp/devinfo-rc.uverbs")" = 0
	check "${pfx}devinfo_v_over_the_shim_exits_0" \
		test "$(cat "$tmp/devinfo-rc.shim" 2>/dev/null)" = 0
	check "${pfx}devinfo_v_over_the_shim_same_with_uverbs_visible" \
		visible_same
	differs devinfo "$DEVINFO_DIFFER"
	check "${pfx}devinfo_v_same_lines_and_values" same devinfo "$DEVINFO_DIFFER" mask

	log "${pfx}inline verbs: uverbs exit $(cat "$tmp/verbs-rc.uverbs"), $(wc -l <"$tmp/verbs.uverbs") records; shim exit $(cat "$tmp/verbs-rc.shim" 2>/dev/null), $(wc -l <"$tmp/verbs.shim" 2>/dev/null) records"
	for s in uverbs shim; do
		[ "$(cat "$tmp/verbs-rc.$s" 2>/dev/null)" = 0 ] ||
			sed "s/^/# $s: /" "$tmp/harness.$s" 2>/dev/null
	done
	sed 's/^/# uverbs: /' "$tmp/verbs.uverbs"
	check "${pfx}inline_verbs_on_uverbs" test "$(cat "$tmp/verbs-rc.uverbs")" = 0
	check "${pfx}inline_verbs_over_the_shim" \
		test "$(cat "$tmp/verbs-rc.shim" 2>/dev/null)" = 0
	differs verbs "$VERBS_DIFFER"
	check "${pfx}inline_verbs_same_outcomes" same verbs "$VERBS_DIFFER" drop
}

compare
roots=0
for r in /usr/lib/ib_async/rdma-core-*; do
	[ -x "$r/usr/bin/ibv_devinfo" ] || continue
	roots=$((roots + 1))
	log "rdma-core of ${r##*/}: $(cat "$r/.stamp")"
	compare "${r##*rdma-core-}"
done
[ "$roots" -gt 0 ] || log "no other rdma-core staged (make check stages Debian 13's)"
finish

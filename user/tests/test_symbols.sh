#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The shared object's dynamic symbol table: names, versions, SONAME.
set -u
LIB=${LIB:-./libibasync.so.1}
OBJDUMP=${OBJDUMP:-objdump}
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

T=$("$OBJDUMP" -T "$LIB") || { echo "not ok 1 - objdump -T $LIB"; echo 1..1; exit 1; }
# defined, default-version entries: "<version> <name>" (hidden ones show "(v)")
DEFS=$(printf '%s\n' "$T" | awk '$0 ~ / DF \.text/ { print $(NF-1), $NF }')

for s in ibv_get_device_list ibv_free_device_list ibv_get_device_name \
	 ibv_get_device_guid ibv_open_device ibv_close_device \
	 ibv_get_async_event ibv_ack_async_event \
	 ibv_query_device ibv_query_port ibv_query_gid ibv_query_pkey \
	 ibv_alloc_pd ibv_dealloc_pd ibv_reg_mr ibv_dereg_mr \
	 ibv_create_cq ibv_resize_cq ibv_destroy_cq \
	 ibv_create_qp ibv_modify_qp ibv_query_qp ibv_destroy_qp \
	 ibv_create_srq ibv_modify_srq ibv_query_srq ibv_destroy_srq \
	 ibv_create_ah ibv_destroy_ah; do
	printf '%s\n' "$DEFS" | grep -qx "IBVERBS_1.1 $s"
	ok $? "$s@@IBVERBS_1.1 defined"
done
printf '%s\n' "$DEFS" | grep -qx "IBVERBS_1.8 ibv_reg_mr_iova2"
ok $? "ibv_reg_mr_iova2@@IBVERBS_1.8 defined (verbs.h's ibv_reg_mr() may call it)"
for s in ibasync_query ibasync_set_queue_len ibasync_lost_events; do
	printf '%s\n' "$DEFS" | grep -qx "IBASYNC_1.0 $s"
	ok $? "$s@@IBASYNC_1.0 defined"
done
for s in ibasync_create_channel ibasync_destroy_channel ibasync_channel_fd \
	 ibasync_subscribe ibasync_unsubscribe ibasync_get_events; do
	printf '%s\n' "$DEFS" | grep -qx "IBASYNC_1.1 $s"
	ok $? "$s@@IBASYNC_1.1 defined"
done
"$OBJDUMP" -p "$LIB" | grep -A1 'IBASYNC_1\.1$' | grep -q '^[[:space:]]*IBASYNC_1\.0[[:space:]]*$'
ok $? "IBASYNC_1.1 inherits IBASYNC_1.0"
printf '%s\n' "$DEFS" | grep -qx "IBASYNC_1.2 ibasync_get_state"
ok $? "ibasync_get_state@@IBASYNC_1.2 defined"
"$OBJDUMP" -p "$LIB" | grep -A1 'IBASYNC_1\.2$' | grep -q '^[[:space:]]*IBASYNC_1\.1[[:space:]]*$'
ok $? "IBASYNC_1.2 inherits IBASYNC_1.1"
for s in ibasync_root_dir ibasync_open_device ibasync_read_records \
	 ibasync_channel_read_records ibasync_channel_set_queue_len; do
	printf '%s\n' "$DEFS" | grep -qx "IBASYNC_1.3 $s"
	ok $? "$s@@IBASYNC_1.3 defined"
done
"$OBJDUMP" -p "$LIB" | grep -A1 'IBASYNC_1\.3$' | grep -q '^[[:space:]]*IBASYNC_1\.2[[:space:]]*$'
ok $? "IBASYNC_1.3 inherits IBASYNC_1.2"
# rdma-core's enum-to-string calls are libibverbs' own, reached through
# our dependency on it when a program is linked against us alone
STRS="ibv_event_type_str ibv_wc_status_str ibv_port_state_str ibv_node_type_str"
for s in $STRS; do
	! printf '%s\n' "$T" | grep -v '\*UND\*' | grep -q " $s$"
	ok $? "$s not defined: libibverbs' is used"
done
"$OBJDUMP" -p "$LIB" | grep -q 'NEEDED *libibverbs\.so\.1$'
ok $? "NEEDED libibverbs.so.1"
# rdma-core's tools reference one call of libibverbs' private node
printf '%s\n' "$DEFS" | grep -qx "IBVERBS_PRIVATE_34 ibv_query_gid_type"
ok $? "ibv_query_gid_type@@IBVERBS_PRIVATE_34 defined (ibv_devinfo -v, pyverbs)"
extra=$(printf '%s\n' "$DEFS" | grep -v -e '^IBVERBS_1\.[0-9]* _*ibv_' -e '^IBASYNC_1\.[0-3] ibasync_' \
	-e '^IBVERBS_PRIVATE_34 ibv_query_gid_type$')
[ -z "$extra" ]
ok $? "no other exported functions${extra:+: $extra}"

# Against the installed libibverbs: every IBVERBS symbol of ours is one of
# its symbols at the same version, and what we leave to it under
# LD_PRELOAD is only what reads no device, context or object state.
V=$(for d in /usr/lib/*-linux-gnu /usr/lib64 /usr/lib; do
	[ -e "$d/libibverbs.so.1" ] && { echo "$d/libibverbs.so.1"; break; }; done)
if [ -n "$V" ]; then
	THEIRS=$("$OBJDUMP" -T "$V" | awk '$0 ~ / DF \.text/ && $(NF-1) ~ /^IBVERBS_1/ { print $(NF-1), $NF }' | sort)
	OURS=$(printf '%s\n' "$DEFS" | grep '^IBVERBS_1' | sort)
	notours=$(printf '%s\n' "$OURS" | while read -r l; do
		printf '%s\n' "$THEIRS" | grep -qx "$l" || echo "$l"; done)
	[ -z "$notours" ]
	ok $? "each IBVERBS symbol is libibverbs' at the same version${notours:+: $notours}"
	left=$(printf '%s\n' "$THEIRS" | while read -r ver sym; do
		printf '%s\n' "$OURS" | grep -qx "$ver $sym" && continue
		case $sym in
		ibv_copy_*_kern|ibv_*fork*|ibv_rate_to_*|*_to_ibv_rate|\
		ibv_get_sysfs_path|ibv_read_sysfs_file|ibv_*_str) ;;
		*) echo "$sym@$ver" ;;
		esac
	done)
	[ -z "$left" ]
	ok $? "libibverbs calls left to libibverbs are state-free only${left:+; not covered: $left}"
	nostr=$(for s in $STRS; do
		printf '%s\n' "$THEIRS" | grep -qx "IBVERBS_1.1 $s" || echo "$s"; done)
	"$OBJDUMP" -T "$V" | grep -q ' IBVERBS_PRIVATE_34 *ibv_query_gid_type$'
	ok $? "libibverbs defines ibv_query_gid_type at IBVERBS_PRIVATE_34 too"
	[ -z "$nostr" ]
	ok $? "libibverbs defines the string calls at IBVERBS_1.1${nostr:+; not: $nostr}"
else
	for _ in 1 2 3 4; do
		skip "libibverbs.so.1 not installed"
	done
fi
! printf '%s\n' "$T" | grep -q '(IBVERBS_1.0)'
ok $? "no IBVERBS_1.0 compat definitions"
objdump -p "$LIB" | grep -q 'SONAME *libibasync.so.1$'
ok $? "SONAME libibasync.so.1"
[ "$(readlink libibasync.so)" = libibasync.so.1 ]
ok $? "libibasync.so -> libibasync.so.1"
objdump -p "$LIB" | grep -A2 '^Version definitions' | grep -q 'IBVERBS_1.0'
ok $? "IBVERBS_1.0 node defined (parent of IBVERBS_1.1)"

# every versioned ibv_ symbol these rdma-core programs reference is ours,
# but for the string calls libibverbs keeps
for prog in ibv_asyncwatch ibv_rc_pingpong ibv_ud_pingpong ibv_srq_pingpong; do
	W=$(command -v $prog)
	if [ -z "$W" ]; then
		skip "$prog not installed"
		continue
	fi
	need=$("$OBJDUMP" -T "$W" | awk '/\*UND\*/ && $NF ~ /^ibv_/ { gsub(/[()]/, "", $(NF-1)); print $(NF-1), $NF }')
	printf '%s\n' "$need" | while read -r ver sym; do
		[ -n "$sym" ] || continue
		case " $STRS " in *" $sym "*) continue ;; esac
		printf '%s\n' "$DEFS" | grep -qx "$ver $sym" || echo "$sym@$ver"
	done > missing.$$
	[ -n "$need" ] && [ ! -s missing.$$ ]
	ok $? "$prog's $(echo "$need" | wc -l) ibv_ references all provided$(tr '\n' ' ' < missing.$$)"
	rm -f missing.$$
done
tap_done

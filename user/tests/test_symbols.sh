#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The shared object's dynamic symbol table: names, versions, SONAME.
set -u
LIB=${LIB:-./libibasync.so.1}
OBJDUMP=${OBJDUMP:-objdump}
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi; }

T=$("$OBJDUMP" -T "$LIB") || { echo "not ok 1 - objdump -T $LIB"; echo 1..1; exit 1; }
# defined, default-version entries: "<version> <name>" (hidden ones show "(v)")
DEFS=$(printf '%s\n' "$T" | awk '$0 ~ / DF \.text/ { print $(NF-1), $NF }')

for s in ibv_get_device_list ibv_free_device_list ibv_get_device_name \
	 ibv_get_device_guid ibv_open_device ibv_close_device \
	 ibv_get_async_event ibv_ack_async_event ibv_event_type_str \
	 ibv_query_device ibv_query_port; do
	printf '%s\n' "$DEFS" | grep -qx "IBVERBS_1.1 $s"
	ok $? "$s@@IBVERBS_1.1 defined"
done
for s in ibasync_query ibasync_set_queue_len ibasync_lost_events; do
	printf '%s\n' "$DEFS" | grep -qx "IBASYNC_1.0 $s"
	ok $? "$s@@IBASYNC_1.0 defined"
done
extra=$(printf '%s\n' "$DEFS" | grep -v -e '^IBVERBS_1.1 ibv_' -e '^IBASYNC_1.0 ibasync_')
[ -z "$extra" ]
ok $? "no other exported functions${extra:+: $extra}"
printf '%s\n' "$T" | grep -q '(IBVERBS_1.0)'
[ $? -ne 0 ]
ok $? "no IBVERBS_1.0 compat definitions"
objdump -p "$LIB" | grep -q 'SONAME *libibasync.so.1$'
ok $? "SONAME libibasync.so.1"
[ "$(readlink libibasync.so)" = libibasync.so.1 ]
ok $? "libibasync.so -> libibasync.so.1"
objdump -p "$LIB" | grep -A2 '^Version definitions' | grep -q 'IBVERBS_1.0'
ok $? "IBVERBS_1.0 node defined (parent of IBVERBS_1.1)"

# every versioned ibv_ symbol ibv_asyncwatch references is ours
W=$(command -v ibv_asyncwatch)
if [ -n "$W" ]; then
	need=$("$OBJDUMP" -T "$W" | awk '/\*UND\*/ && $NF ~ /^ibv_/ { gsub(/[()]/, "", $(NF-1)); print $(NF-1), $NF }')
	[ -n "$need" ]
	ok $? "ibv_asyncwatch references ibv_ symbols"
	printf '%s\n' "$need" | while read -r ver sym; do
		printf '%s\n' "$DEFS" | grep -qx "$ver $sym" || echo "$sym@$ver"
	done > missing.$$
	[ ! -s missing.$$ ]
	ok $? "ibv_asyncwatch's needs all provided: $(echo $need | tr '\n' ' ')$(cat missing.$$)"
	rm -f missing.$$
else
	n=$((n + 1)); echo "ok $n - # SKIP ibv_asyncwatch not installed"
fi
echo "1..$n"
exit $fail

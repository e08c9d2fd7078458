#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lifetime and leaks. It unloads ib_async (and ib_async_evsrc before it, if
# loaded) and loads them again and, with
# IB_ASYNC_TEST_UNPLUG=1, deletes rxe0 and re-creates it on its netdev,
# waiting for its port to be ACTIVE again: the tests after it (in any
# order, run_guest.sh's IB_ASYNC_SHUFFLE) find the test bed as it was.
#
# What it proves, and what not: 10,000 open/close cycles and closes with
# events pending must not grow slab memory beyond a small tolerance, the
# module must refuse to unload while a file is open and unload cleanly
# after, and the kernel must not complain (vm.sh fails the run on
# WARN/BUG/kmem_cache_destroy errors). Slab and MemAvailable are global
# counters with noise; a per-open leak of a few bytes would go unseen
# (kmemleak would see it; Debian's kernel does not have it).
#
# On a KASAN kernel freed objects wait in KASAN's quarantine, so Slab grows
# with every open() whether or not anything leaks (measured on the debug
# guest: names_cache and filp, which are the VFS's, grew by megabytes over
# 20,000 opens). There the slab checks are skipped and the kmemleak scan of
# run_kmemleak.sh, which names each unreferenced object, decides instead.
# Functions here also run by name through check, wait_for and trap, calls
# that shellcheck cannot see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh
PATH=$PATH:.

CYCLES=${IB_ASYNC_CYCLES:-10000}
SLAB_TOLERANCE_KB=${IB_ASYNC_SLAB_TOLERANCE_KB:-1024}
AVAIL_TOLERANCE_KB=${IB_ASYNC_AVAIL_TOLERANCE_KB:-16384}

[ -d /sys/module/ib_async ] || skip_all "ib_async not loaded"
[ "$(id -u)" = 0 ] || skip_all "needs root"
node=$(find_node)
[ -n "$node" ] || skip_all "no ib_async device"

slab_check() { # slab_check NAME BASE NOW
	if kasan_quarantine; then
		ok "$1 # SKIP KASAN quarantine holds freed objects; kmemleak checks leaks"
	else
		check "$1" within "$2" "$3" "$SLAB_TOLERANCE_KB"
	fi
}

snapshot() { # snapshot LABEL: sets slab_LABEL, avail_LABEL (kB)
	settle
	eval "slab_$1=$(meminfo Slab) avail_$1=$(meminfo MemAvailable)"
	eval "log \"$1: Slab \$slab_$1 kB, SUnreclaim $(meminfo SUnreclaim) kB, MemAvailable \$avail_$1 kB\""
}
# Set by snapshot through eval; named here so that readers (and shellcheck)
# see where the values used below come from.
slab_base='' avail_base='' slab_churn='' avail_churn='' slab_unload=''
have_node() { [ -n "$(find_node)" ]; }
port_active() {
	[ "$(cat "/sys/class/infiniband/$IB_ASYNC_IBDEV/ports/1/state" \
		2>/dev/null)" = "4: ACTIVE" ]
}

refcnt=$(cat /sys/module/ib_async/refcnt)
log "ib_async refcnt at start: $refcnt"
# warm up: first opens may populate caches that stay
ib_async_churn 100 >/dev/null
snapshot base

check "open_close_${CYCLES}_cycles" ib_async_churn "$CYCLES"
if storm_load; then
	check "close_with_pending_events" ib_async_churn 200 pending 50
else
	ok "close_with_pending_events # SKIP no storm module"
fi
snapshot churn
slab_check slab_after_churn_near_baseline "$slab_base" "$slab_churn"
check "memavailable_after_churn_near_baseline" \
	within "$avail_churn" "$avail_base" "$AVAIL_TOLERANCE_KB"
check "module_refcnt_back_after_close" \
	[ "$(cat /sys/module/ib_async/refcnt)" = "$refcnt" ]

# A driver that kept objects removal gave up on holds ib_async until its
# own module goes (kernel/verbs/hold.c): the event source may, after
# ib_async_evsrc_test. It goes first, and comes back at the end.
evsrc_was_loaded=
if [ -d /sys/module/ib_async_evsrc ]; then
	evsrc_was_loaded=1
	check "evsrc_unloaded_first" rmmod ib_async_evsrc
fi

# A file open: the module cannot go. ib_async_storm does not use it.
exec 3< "$node"
if rmmod ib_async 2>/dev/null; then
	not_ok "rmmod_refused_while_file_open"
	exec 3<&-
else
	ok "rmmod_refused_while_file_open"
	exec 3<&-
fi
check "rmmod_after_close" wait_for 10 rmmod ib_async
check "module_gone" [ ! -d /sys/module/ib_async ]
check "class_gone" [ ! -d /sys/class/ib_async ]
check "nodes_gone" sh -c '! ls /dev/infiniband/ib_async* >/dev/null 2>&1'
snapshot unload
slab_check slab_after_unload_near_baseline "$slab_base" "$slab_unload"

# Back again, so the test bed is as it was.
check "insmod_again" load_module ib_async
check "node_back" wait_for 10 have_node
node=$(find_node)
check "usable_after_reload" ib_async_churn 10
if [ -n "$evsrc_was_loaded" ]; then
	check "evsrc_back" load_module ib_async_evsrc
fi

# Hot unplug with a file open: removal must not wait for the file.
if [ "${IB_ASYNC_TEST_UNPLUG:-1}" = 1 ] && command -v rdma >/dev/null &&
   rdma link show "$IB_ASYNC_IBDEV/1" >/dev/null 2>&1; then
	netdev=$(rdma link show "$IB_ASYNC_IBDEV/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
	exec 3< "$node"
	rdma link delete "$IB_ASYNC_IBDEV" &
	del=$!
	gone() { ! kill -0 "$del" 2>/dev/null; }
	if wait_for 30 gone; then
		ok "rxe_delete_with_open_file_returns"
		check "node_removed_with_device" sh -c "[ ! -e $node ]"
		exec 3<&-
		check "rxe_recreated" rdma link add "$IB_ASYNC_IBDEV" type rxe \
			netdev "${netdev:-$IB_ASYNC_NETDEV}"
		check "node_for_new_device" \
			wait_for 10 have_node
		check "new_device_usable" ib_async_churn 10
		check "new_device_port_active" wait_for 15 port_active
	else
		not_ok "rxe_delete_with_open_file_returns"
		exec 3<&-
		log "rdma link delete still blocked after 30 s"
	fi
else
	ok "rxe_delete_with_open_file_returns # SKIP disabled or no rdma tool"
fi

finish

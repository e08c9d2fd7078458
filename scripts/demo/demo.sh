#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The demo, run inside the guest by `make demo`: watch rxe0's asynchronous
# events through ib_async while the link and its addresses change.

step() {
	echo ">>> $*"
	"$@"
	sleep "${PAUSE:-3}"
}

echo ">>> ib_async devices"
for d in /sys/class/ib_async/ib_async*; do
	[ -e "$d/ibdev" ] && echo "    /dev/infiniband/${d##*/} serves $(cat "$d/ibdev")"
done

echo ">>> ib_async_watch, all devices, for 30 s"
ib_async_watch --timeout 30 &
watch=$!
sleep 2

step ip link set veth1 down
step ip link set veth1 up
step ip addr add 10.11.9.1/24 dev veth0
step ip addr del 10.11.9.1/24 dev veth0

echo ">>> the same, seen by rdma-core's unmodified ibv_asyncwatch under LD_PRELOAD"
LD_PRELOAD=libibasync.so.1 ibv_asyncwatch -d rxe0 &
compat=$!
sleep 2
# The listing is shown to the viewer (the fd links to the uverbs device),
# not parsed, so ls is the right tool here.
# shellcheck disable=SC2010
ls -l "/proc/$compat/fd" | grep infiniband
step ip link set veth1 down
step ip link set veth1 up

kill "$compat" 2>/dev/null
kill "$watch" 2>/dev/null
wait
echo ">>> done"

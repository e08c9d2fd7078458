#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_async_watch and the unmodified rdma-core ibv_asyncwatch (LD_PRELOAD)
# against fake trees (IBASYNC_TEST_ROOT), FIFOs standing in for the nodes.
set -u
WATCH=${WATCH:-./ib_async_watch}
MKREC=${MKREC:-build/plain/bin/mkrec}
FAKE_EVCHAN=${FAKE_EVCHAN:-$(pwd)/build/plain/lib/fake_evchan.so}
LIB=$(pwd)/libibasync.so.1
OBJDUMP=${OBJDUMP:-objdump}
NM=${NM:-nm}
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

# The watcher runs on the tree's libibasync.so.1, never an installed one.
LD_LIBRARY_PATH="$(pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# It is the shared object's client: no verbs call of its own, and
# libibasync.so.1 loaded ahead of libibverbs.so.1, so that the calls both
# define are bound to ours.
needed=$("$OBJDUMP" -p "$WATCH" | awk '$1 == "NEEDED" { print $2 }' | tr '\n' ' ')
case $needed in
*libibasync.so.1*libibverbs.so.1*) r=0 ;;
*) r=1 ;;
esac
ok $r "NEEDED libibasync.so.1 before libibverbs.so.1: $needed"
defs=$("$NM" --defined-only "$WATCH" | awk '$3 ~ /^ibv_/ { print $3 }' | tr '\n' ' ')
[ -z "$defs" ]
ok $? "no ibv_ function linked in${defs:+: $defs}"

TMP=$(mktemp -d /tmp/ibasync-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export IBASYNC_TEST_ROOT="$TMP/root"
mkdir -p "$IBASYNC_TEST_ROOT/dev/infiniband"

"$WATCH" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "ib_async module not loaded: .*/sys/class/ib_async missing" "$TMP/err"
ok $? "missing module: exit 1 and says so (rc $rc: $(cat "$TMP/err"))"

C="$IBASYNC_TEST_ROOT/sys/class/ib_async/ib_async0"
mkdir -p "$C" && echo fake0 > "$C/ibdev"
# the uAPI version libibasync speaks, as the module's class reports it
sed -n 's/^#define IB_ASYNC_ABI_VERSION[[:space:]]*//p' \
	"$(dirname "$0")/../../include/uapi/rdma/ib_async.h" \
	> "$IBASYNC_TEST_ROOT/sys/class/ib_async/abi_version"
mkfifo "$IBASYNC_TEST_ROOT/dev/infiniband/ib_async0"
FIFO="$IBASYNC_TEST_ROOT/dev/infiniband/ib_async0"

"$WATCH" -d foo >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no such RDMA device: foo" "$TMP/err"
ok $? "unknown device: exit 1, 'no such RDMA device: foo'"
"$WATCH" --help >"$TMP/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q -- "--timeout" "$TMP/out"
ok $? "--help: exit 0, usage on stdout"
"$WATCH" --bogus >/dev/null 2>&1
ok "$([ $? = 2 ]; echo $?)" "bad option: exit 2"
"$WATCH" -q 8 >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "cannot set queue length 8" "$TMP/err"
ok $? "-q failure (no ioctl on a FIFO) reported, exit 1"

"$WATCH" --timeout 0.2 >/dev/null 2>&1; rc=$?
ok "$([ $rc = 3 ]; echo $?)" "--timeout without events: exit 3 (rc $rc)"

# text output; the PORT_ACTIVE is filtered out, the overflow always shown
"$WATCH" -d fake0 -t port_err -n 2 >"$TMP/out" 2>"$TMP/err" &
pid=$!
"$MKREC" 9:1:5:1:1:0 0x10000:0:6:3:0:0xffff 10:1:9:1:1:0 10:2:10:1:2:0 > "$FIFO"
wait $pid; rc=$?
ok "$([ $rc = 0 ]; echo $?)" "-n 2: exit 0 after two events (rc $rc $(cat "$TMP/err"))"
sed -n 1p "$TMP/out" | grep -q " fake0 OVERFLOW 3 events lost seq 6-8$"
ok $? "overflow line: $(sed -n 1p "$TMP/out")"
sed -n 2p "$TMP/out" | grep -Eq "^1\.000000009 [0-9T:.-]+Z fake0 port 1 IBV_EVENT_PORT_ERR \(port error\) seq 9$"
ok $? "event line: $(sed -n 2p "$TMP/out")"
[ "$(wc -l < "$TMP/out")" = 3 ] && ! grep -q PORT_ACTIVE "$TMP/out"
ok $? "filter applied, exactly -n events printed"

"$WATCH" --json -n 1 >"$TMP/out" 2>&1 &
pid=$!
"$MKREC" 18:1:42:1:1:0 > "$FIFO"
wait $pid
grep -q '^{"timestamp_ns":1000000042,"time":"[^"]*","device":"fake0","seq":42,"type":"IBV_EVENT_GID_CHANGE","type_num":18,"desc":"GID table change","obj":"port","port":1,"handle":0,"element":1,"count":1}$' "$TMP/out"
ok $? "--json line: $(cat "$TMP/out")"

# Event channels. The fake tree's node has no ioctls, so no channels:
# -t alone keeps filtering the node's records here (above); --port and
# --coalesce cannot be met.
for opt in "--port 1" "--coalesce"; do
	# shellcheck disable=SC2086 # the option and its argument
	"$WATCH" -d fake0 $opt --timeout 1 >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 1 ] && grep -q "fake0: cannot create an event channel: the ib_async module has none" "$TMP/err"
	ok $? "$opt without kernel event channels: exit 1, says so (rc $rc: $(cat "$TMP/err"))"
done

# With them (fake_evchan.so answers the ioctls, the FIFO $CHAN is the
# channel): subscriptions made, the channel's records printed.
CHAN="$TMP/chan"
mkfifo "$CHAN"
export IBASYNC_FAKE_CHAN="$CHAN" IBASYNC_FAKE_LOG="$TMP/log"
exec 3<>"$CHAN"		# O_RDWR: writes never wait for the watcher
: > "$TMP/log"
"$MKREC" 0x10000:0:1:4:0:0xffff:0:0:0 8:1:5:1:1:0:0:1:1000000005 \
	10:2:6:1:2:0:1:3:1000000099 9:0:7:1:0:0:2:1:1000000007 \
	11:2:8:1:2:0:1:1:1000000008 >&3
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --port 2 -p 0 --port 2 \
	-t port_err -t IBV_EVENT_PORT_ACTIVE --coalesce -q 16 -n 2 \
	>"$TMP/out" 2>"$TMP/err"; rc=$?
ok "$([ $rc = 0 ]; echo $?)" "--port --coalesce -t -n 2: exit 0 (rc $rc $(cat "$TMP/err"))"
printf '%s\n' "create type=2 flags=3" "queue_len fd=node len=16" \
	"queue_len fd=chan len=16" \
	"subscribe fd=chan flags=3 port=2 types=0x600 cookie=1" \
	"subscribe fd=chan flags=3 port=0 types=0x600 cookie=2" > "$TMP/want"
sort "$TMP/want" > "$TMP/want.s"
sort "$TMP/log" > "$TMP/log.s"
cmp -s "$TMP/want.s" "$TMP/log.s"
ok $? "one NONBLOCK|COALESCE event channel, -q on it too, a subscription per port: $(tr '\n' '|' < "$TMP/log")"
sed -n 1p "$TMP/out" | grep -q " fake0 OVERFLOW 4 events lost seq 1-4$"
ok $? "channel overflow line: $(sed -n 1p "$TMP/out")"
sed -n 2p "$TMP/out" | grep -q " fake0 port 1 IBV_EVENT_DEVICE_FATAL (local catastrophic error) seq 5 cookie 0$"
ok $? "the stream's end, of no subscription, printed: $(sed -n 2p "$TMP/out")"
sed -n 3p "$TMP/out" | grep -q " fake0 port 2 IBV_EVENT_PORT_ERR (port error) seq 6 cookie 1 occurrences 3 last 1.000000099$"
ok $? "coalesced record: $(sed -n 3p "$TMP/out")"
sed -n 4p "$TMP/out" | grep -q " fake0 port 0 IBV_EVENT_PORT_ACTIVE (port active) seq 7 cookie 2$"
ok $? "second port's record: $(sed -n 4p "$TMP/out")"
[ "$(wc -l < "$TMP/out")" = 4 ]
ok $? "-n 2 counts the subscribed events only: 4 lines"

# -t alone: a channel where the kernel has them; JSON with the channel's fields
: > "$TMP/log"
"$MKREC" 10:1:9:1:1:0:1:2:1000000012 >&3
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 -t port_err --json -n 1 \
	>"$TMP/out" 2>"$TMP/err"; rc=$?
grep -q '"seq":9,"type":"IBV_EVENT_PORT_ERR","type_num":10,"desc":"port error","obj":"port","port":1,"handle":0,"element":1,"count":1,"cookie":1,"occurrences":2,"last_timestamp_ns":1000000012}$' "$TMP/out" &&
	[ $rc = 0 ]
ok $? "--json on a channel: port, type, cookie, occurrences, last_timestamp_ns: $(cat "$TMP/out" "$TMP/err")"
grep -qx "subscribe fd=chan flags=1 port=0 types=0x400 cookie=1" "$TMP/log" &&
	grep -qx "create type=2 flags=1" "$TMP/log"
ok $? "-t alone: one subscription of the type, no coalescing: $(tr '\n' '|' < "$TMP/log")"

LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --port 2 -t 21 --timeout 1 \
	>/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "event type 21 cannot be subscribed to (0-20 only)" "$TMP/err"
ok $? "--port with -t 21: exit 1, says so (rc $rc: $(cat "$TMP/err"))"
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --port 3 --timeout 1 \
	>/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no watched device has port 3" "$TMP/err"
ok $? "--port beyond the device's 2: exit 1, says so (rc $rc: $(cat "$TMP/err"))"
exec 3>&-
unset IBASYNC_FAKE_CHAN IBASYNC_FAKE_LOG

# the unmodified rdma-core binary, on our implementation
AW=$(command -v ibv_asyncwatch)
if [ -n "$AW" ]; then
	LD_PRELOAD="$LIB" "$AW" -d fake0 >"$TMP/out" 2>&1 &
	pid=$!
	"$MKREC" 10:1:1:1:1:0 9:2:2:1:2:0 short > "$FIFO"
	wait $pid; rc=$?
	grep -q "^fake0: async event FD [0-9]" "$TMP/out" &&
	grep -q "event_type IBV_EVENT_PORT_ERR (10), port 1$" "$TMP/out" &&
	grep -q "event_type IBV_EVENT_PORT_ACTIVE (9), port 2$" "$TMP/out" &&
	[ $rc = 1 ]
	ok $? "LD_PRELOAD ibv_asyncwatch prints our events, exits on error: $(tr '\n' '|' < "$TMP/out")"
else
	skip "ibv_asyncwatch not installed"
fi
tap_done

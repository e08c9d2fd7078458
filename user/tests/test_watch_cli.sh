#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_async_watch and the unmodified rdma-core ibv_asyncwatch (LD_PRELOAD)
# against fake trees (IBASYNC_TEST_ROOT), FIFOs standing in for the nodes.
set -u
WATCH=${WATCH:-./ib_async_watch}
MKREC=${MKREC:-build/plain/bin/mkrec}
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

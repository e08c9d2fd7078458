#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of `make peer-test`, run in /payload (make-payload.sh's
# peer-python.tar, driver.py): rdma-core's own test suite, twice in one boot.
# First on rdma-core + ib_uverbs ("uverbs"), then with libibasync preloaded
# and /dev/infiniband overlaid with the ib_async nodes alone ("shim"), as
# ib_async_pingpong.sh does, so nothing can reach uverbs behind the shim.
# Each test module runs in its own Python process (forked by driver.py)
# under a timeout: a crash or a hang costs that module's unfinished tests.
# The hardware-only modules (mlx5, efa, cuda) are not run: they skip on rxe.
#
# On the console, for report.sh on the host:
#   @@PEER STACK list ID | @@PEER STACK result ID WHAT
#   @@PEER STACK module NAME STATUS SECONDS   (driver.py's lines)
#   @@PEER STACK done SECONDS
# and the unittest output ("# STACK MODULE: ...") of every module over the
# shim and of each module in trouble on uverbs.
# Exits non-zero only when the suite could not run at all.
SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
DEV=${IBASYNC_RXE:-rxe0}
TMO=${PEER_TIMEOUT:-120}
root=/tmp/peer/root
mkdir -p "$root"
tar -xf peer-python.tar -C "$root" || exit 1
export PYTHONHOME="$root/py" PYTHONPATH="$root/py/site"
export LD_LIBRARY_PATH="$root/py/deps"
# set and dict order the same in every process, on both stacks
export PYTHONHASHSEED=0
PY=$root/py/bin/python3.11
# roce_gid_index, hide_uverbs: the selftests' shell library, from the stage
# shellcheck source=../ib_async_lib.sh
. /usr/lib/ib_async/selftests/ib_async/ib_async_lib.sh

uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }'; }

# troubled RESULTS: did a test of the module fail, or not report at all?
troubled() {
	grep -qE ' (fail|error)$' "$1" 2>/dev/null ||
		[ "$(grep -c '^list ' "$1" 2>/dev/null)" != \
			"$(grep -c '^result ' "$1" 2>/dev/null)" ]
}

# run_stack NAME [PRELOAD]: every module once; its lines on the console,
# then the unittest output of each module of the shim (the skip reasons
# say what it lacks) and of each module in trouble on uverbs.
run_stack() {
	stack=$1 pre=${2:-}
	t0=$(uptime_s)
	mkdir -p "/tmp/peer/$stack"
	# The outer timeout only if driver.py itself hangs: each module has TMO.
	# shellcheck disable=SC2086 # $MODULES: one word per module
	{
		LD_PRELOAD=$pre timeout -k 5 $((TMO * NMOD + 60)) "$PY" driver.py \
			"$root/tests" "$DEV" "$G" "/tmp/peer/$stack" "$TMO" $MODULES
		echo "$?" >"/tmp/peer/$stack.rc"
	} | sed "s/^/@@PEER $stack /"
	# "done" tells report.sh the stack ran to its end
	if [ "$(cat "/tmp/peer/$stack.rc")" = 0 ]; then
		echo "@@PEER $stack done $(since "$t0")"
	else
		echo "peer: driver.py exited $(cat "/tmp/peer/$stack.rc") on $stack"
	fi
	for m in $MODULES; do
		res=/tmp/peer/$stack/$m
		[ "$stack" = shim ] || troubled "$res" || continue
		tail -n 150 "$res.log" 2>/dev/null | sed "s/^/# $stack $m: /"
	done
}

MODULES='' NMOD=0
for f in "$root"/tests/test_*.py; do
	m=${f##*/}
	m=${m%.py}
	case $m in test_mlx5_* | test_efa* | test_cuda*) continue ;; esac
	MODULES="$MODULES $m" NMOD=$((NMOD + 1))
done
G=$(roce_gid_index "$DEV") || { echo "peer: no RoCE v2 IPv4 GID on $DEV"; exit 1; }
echo "peer: $DEV, GID index $G, $TMO s per module"
run_stack uverbs

# Only the ib_async nodes stay visible under /dev/infiniband.
hide_uverbs /tmp/peer/dev || { echo "peer: cannot hide the uverbs nodes"; exit 1; }
if LD_PRELOAD=$SHIM /bin/true 2>&1 | grep -q .; then
	echo "peer: cannot preload $SHIM"
	exit 1
fi
run_stack shim "$SHIM"
show_uverbs

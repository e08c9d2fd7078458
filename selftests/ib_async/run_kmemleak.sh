#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run_kmemleak.sh COMMAND...: run COMMAND (the suite) on a kernel with
# CONFIG_DEBUG_KMEMLEAK, then unload ib_async and the test modules, scan,
# and fail on any leak suspected since COMMAND started. Reports from boot
# are cleared first: they are not ours.
#
# Prints one TAP result line after COMMAND's output.
KMEMLEAK=/sys/kernel/debug/kmemleak

if [ ! -w "$KMEMLEAK" ]; then
	"$@"
	rc=$?
	echo "ok 1 kmemleak scan after the suite # SKIP no $KMEMLEAK"
	exit "$rc"
fi

echo clear > "$KMEMLEAK"
"$@"
rc=$?

# Every file is closed once COMMAND returns; now drop the modules so that
# whatever they leaked has no owner left.
for m in ib_async_storm ib_async; do
	[ -d "/sys/module/$m" ] && rmmod "$m"
done
# An object must stay unreferenced through two scans (and be older than
# kmemleak's minimum age) before it is reported.
echo scan > "$KMEMLEAK"
sleep 6
echo scan > "$KMEMLEAK"
leaks=$(cat "$KMEMLEAK")
if [ -n "$leaks" ]; then
	printf '%s\n' "$leaks" | sed 's/^/# /' | head -n 200
	echo "not ok 1 kmemleak scan after the suite"
	exit 1
fi
echo "ok 1 kmemleak scan after the suite"
exit "$rc"

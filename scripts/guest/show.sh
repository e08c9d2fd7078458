#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# show.sh VM.SH-ARGS...: run a guest (make demo) and show only what its
# command prints, as it prints it: not the boot log or kernel messages,
# which vm.sh keeps in $IBASYNC_CONSOLE_LOG (its own notes and errors
# still reach stderr). Exits with vm.sh's status.
top=$(cd "$(dirname "$0")/../.." && pwd)
log=${IBASYNC_CONSOLE_LOG:-$top/build/guest/last-console.log}
rcfile=$(mktemp)
trap 'rm -f "$rcfile"' EXIT
{
	IBASYNC_CONSOLE_LOG=$log "$top/scripts/guest/vm.sh" "$@"
	echo $? >"$rcfile"
} | sed -un -e '/@@IBASYNC_CMD_BEGIN@@/,/@@IBASYNC_CMD_END@@/{' \
	-e '/@@IBASYNC_CMD_/d' -e '/^\[ *[0-9]*\.[0-9]*\] /d' -e 'p' -e '}'
rc=$(cat "$rcfile")
echo "guest exit status $rc; full console log: $log"
exit "$rc"

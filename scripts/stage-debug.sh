#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stage-debug.sh STAGE DEBUG_STAGE: the guest overlay for the debug kernel
# (scripts/debug-kernel.sh builds or reuses its tree). Prints the tree's path.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 STAGE DEBUG_STAGE" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$("$top/scripts/debug-kernel.sh")
"$top/scripts/stage-kernel.sh" "$1" "$2" "$tree" debug
echo "$tree"

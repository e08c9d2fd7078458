#!/usr/bin/env bash
# extract-linux-tools.sh OUTDIR [TARBALL]
#
# Extracts the few kernel-tree files ib_async needs at build time (kselftest headers, lib.mk and
# runner; checkpatch.pl and its data; kernel-doc) from Debian's linux-source tarball into OUTDIR, with the
# leading "linux-source-6.1/" stripped:
#   OUTDIR/tools/testing/selftests/{kselftest.h,kselftest_harness.h,lib.mk,...}
#   OUTDIR/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch,kernel-doc}
# These files are GPL kernel sources: never copy them into the repository.
# A stamp keyed by the tarball's name, size and mtime makes a repeated run a no-op (a full
# decompression of the tarball takes ~15 s even when extracting only a few members).
set -euo pipefail

DEFAULT_TARBALL=/usr/src/linux-source-6.1.tar.xz

# Members relative to the tarball's top directory. lib.mk sources kselftest/runner.sh, which
# uses kselftest/prefix.pl; module.sh and kselftest_module.h serve module-loading tests;
# run_kselftest.sh runs an installed kselftest tree; kernel-doc checks the /** comments (lint).
MEMBERS=(
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest_module.h
	tools/testing/selftests/lib.mk
	tools/testing/selftests/run_kselftest.sh
	tools/testing/selftests/kselftest/runner.sh
	tools/testing/selftests/kselftest/prefix.pl
	tools/testing/selftests/kselftest/module.sh
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	scripts/kernel-doc
)

usage() {
	echo "usage: $0 OUTDIR [TARBALL (default $DEFAULT_TARBALL)]" >&2
	exit 2
}

# The tarball's top-level directory, e.g. linux-source-6.1 (derived from its file name, which
# avoids listing the archive).
top_dir_of() {
	local base
	base=$(basename "$1")
	echo "${base%%.tar*}"
}

# Identity of the tarball: changes when Debian ships a new linux-source-6.1.
tarball_key() {
	stat -c '%n %s %Y' "$1"
	printf '%s\n' "${MEMBERS[@]}"
}

all_present() {
	local m
	for m in "${MEMBERS[@]}"; do
		[ -f "$1/$m" ] || return 1
	done
}

main() {
	if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
	local out=$1 tarball=${2:-$DEFAULT_TARBALL}
	if [ ! -r "$tarball" ]; then
		echo "extract-linux-tools: $tarball not found (install linux-source-6.1: scripts/install-deps.sh)" >&2
		exit 1
	fi

	local stamp="$out/.extract-stamp" key top
	key=$(tarball_key "$tarball")
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && all_present "$out"; then
		return 0
	fi

	top=$(top_dir_of "$tarball")
	mkdir -p "$out"
	rm -f "$stamp"
	echo "extract-linux-tools: extracting ${#MEMBERS[@]} files from $tarball into $out"
	# Exact member names (no wildcards) so nothing else is written; -m: stamp with now so make
	# rules depending on these files see them as fresh.
	tar -xJf "$tarball" -C "$out" -m --strip-components=1 \
		"${MEMBERS[@]/#/$top/}"
	all_present "$out" || { echo "extract-linux-tools: members missing after extraction" >&2; exit 1; }
	printf '%s\n' "$key" >"$stamp"
}

main "$@"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Lint as TAP: checkpatch --strict and kernel-doc over the kernel sources,
# the uAPI built with -Wpadded as C and C++, a W=1 + sparse (C=1) rebuild
# of every module that must print no warning, the layers (no two files
# calling each other) and the header indexes, shellcheck over every shell
# script of the tree and docutils over every reStructuredText file.
set -uo pipefail

usage() { echo "usage: $0 --kdir KDIR --linux-tools DIR" >&2; exit 2; }
KDIR='' TOOLS=''
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) KDIR=$2; shift 2 ;;
	--linux-tools) TOOLS=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ -z "$KDIR" ] || [ -z "$TOOLS" ]; then usage; fi

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$top/build/lint
mkdir -p "$log"
n=0 fails=0

tap() {	# tap STATUS DESCRIPTION LOGFILE
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		fails=$((fails + 1))
		echo "not ok $n - $2"
		sed 's/^/# /' "$3" | head -n 40
	fi
}

# The files of the tree (tracked or new, not ignored); outside a git
# checkout, every file but build/ output.
tree_files() {
	git ls-files --cached --others --exclude-standard 2>/dev/null ||
		find . -path ./build -prune -o -path ./.git -prune -o -type f \
			-print | sed 's|^\./||'
}

mapfile -t sources < <(git ls-files --cached --others --exclude-standard \
	'kernel/*.[ch]' 'include/*.h' \
	'selftests/ib_async/modules/*.[ch]' 2>/dev/null)
if [ ${#sources[@]} -eq 0 ]; then
	sources=()
	for f in kernel/*.[ch] kernel/*/*.[ch] include/*.h include/uapi/rdma/*.h \
		selftests/ib_async/modules/*.[ch]; do
		[ -f "$f" ] && sources+=("$f")
	done
fi
# Tracepoint headers (*_trace.h) are written in TRACE_EVENT()'s own
# grammar, which checkpatch reads as ordinary macros and calls: the
# kernel's include/trace/events/rdma_core.h gets these four reports too.
# Everything else checkpatch knows still applies to them.
trace_quirks=OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,COMPLEX_MACRO,TRAILING_SEMICOLON
plain=() traces=()
for f in "${sources[@]}"; do
	case $f in
	*_trace.h) traces+=("$f") ;;
	*) plain+=("$f") ;;
	esac
done
{
	perl "$TOOLS/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "${plain[@]}"
	if [ ${#traces[@]} -gt 0 ]; then
		perl "$TOOLS/scripts/checkpatch.pl" --strict --no-tree --terse \
			--show-types --ignore "$trace_quirks" -f "${traces[@]}"
	fi
} > "$log/checkpatch.log" 2>&1 </dev/null
grep -qE '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' "$log/checkpatch.log"
tap $(( $? == 0 )) "checkpatch --strict --no-tree: ${#sources[@]} files" \
	"$log/checkpatch.log"

# Every /** comment must be complete kernel-doc (parameters, members, return
# value) and every other comment must open with /*. 6.1's kernel-doc has no
# -Wall yet: its -v turns on the same extra checks (Return: sections, short
# descriptions, contents before sections) and adds "info:" lines, which are
# not findings: they are left out of the log, which must end up empty.
kdoc=$TOOLS/scripts/kernel-doc
kdoc_all=-v
grep -qw Wall "$kdoc" 2>/dev/null && kdoc_all=-Wall
perl "$kdoc" -none "$kdoc_all" "${sources[@]}" 2>&1 </dev/null |
	grep -v ': info: Scanning doc for ' > "$log/kernel-doc.log"
[ "${PIPESTATUS[0]}" -eq 0 ] && [ ! -s "$log/kernel-doc.log" ]
tap $? "kernel-doc -none $kdoc_all: ${#sources[@]} files" "$log/kernel-doc.log"

# The uAPI has no implicit padding: every hole and every tail is a named
# reserved field, whether the header is compiled as C or as C++.
uapi_unpadded() {
	local h rc=0
	for h in include/uapi/rdma/*.h; do
		printf '#include <rdma/%s>\n' "${h##*/}" |
			gcc -std=c11 -x c -Wall -Wextra -Wpadded -Werror \
			-Iinclude/uapi -fsyntax-only - || rc=1
		printf '#include <rdma/%s>\n' "${h##*/}" |
			g++ -std=c++17 -x c++ -Wall -Wextra -Wpadded -Werror \
			-Iinclude/uapi -fsyntax-only - || rc=1
	done
	return $rc
}
uapi_unpadded > "$log/uapi-padded.log" 2>&1
tap $? "uAPI headers build with -Wpadded -Werror as C and C++" \
	"$log/uapi-padded.log"

# Build a fresh copy (scripts/build-modules.sh): every file is compiled
# (and checked) again, and nothing runs Kbuild's clean on the checkout,
# which would delete every .ko below it, staged ones included.
build_copy() {	# build_copy ib_async|test|core: warning-free W=1 C=1 build
	"$top/scripts/build-modules.sh" --only "$1" "$KDIR" "$log/src" C=1 \
		> "$log/$1.log" 2>&1 || return 1
	! grep -qE 'warning:|error:|: sparse: ' "$log/$1.log"
}

build_copy ib_async
tap $? "W=1 C=1 build of ib_async without warnings" "$log/ib_async.log"
# Layers, from nm over the objects just built: no two files of kernel/core
# call each other but a device and its files, none of kernel/verbs do.
objs=$log/src/ib_async/kernel
{
	scripts/check-circles.sh --allow device.o:file.o "$objs"/core/*.o &&
		scripts/check-circles.sh "$objs"/verbs/*.o
} > "$log/circles.log" 2>&1
tap $? "layers: no two files of kernel/core (but device/file) or kernel/verbs call each other" \
	"$log/circles.log"
build_copy test
tap $? "W=1 C=1 build of the test modules without warnings" "$log/test.log"
# The event core stands alone: built from a copy without kernel/verbs/, a
# core file that includes the verbs layer's header or calls it by name
# (rather than through struct ib_async_verbs_ops) fails to compile or link.
build_copy core
tap $? "the event core (kernel/core/) builds alone, without kernel/verbs/" \
	"$log/core.log"

# Shell scripts: *.sh, and the others by their sh/bash shebang (the guest's
# /init, .ci/run). .shellcheckrc says how to follow sourced helpers.
scripts=()
while IFS= read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) scripts+=("$f") ;;
	*) head -c 128 "$f" | head -n 1 |
		grep -qE '^#!.*[/ ](ba|da|k)?sh([[:space:]]|$)' && scripts+=("$f") ;;
	esac
done < <(tree_files)
if command -v shellcheck >/dev/null; then
	shellcheck -f gcc "${scripts[@]}" > "$log/shellcheck.log" 2>&1
else
	echo "shellcheck not installed: run make deps" > "$log/shellcheck.log"
	false
fi
tap $? "shellcheck: ${#scripts[@]} scripts" "$log/shellcheck.log"

# reStructuredText: docutils parses every .rst without a warning (a
# malformed table renders as an error block, silently, everywhere else).
# Debian's python3, whose docutils make deps installs (a python3 earlier
# on PATH, pyenv's say, would not see it).
rst=()
while IFS= read -r f; do
	[ -f "$f" ] && rst+=("$f")
done < <(tree_files | grep '\.rst$')
/usr/bin/python3 scripts/rst-check.py "${rst[@]}" > "$log/rst.log" 2>&1
tap $? "docutils: ${#rst[@]} reStructuredText files" "$log/rst.log"

# Header indexes: a function declared under "/* X.c */" is defined in X.c.
headers=()
while IFS= read -r f; do
	[ -f "$f" ] && headers+=("$f")
done < <(tree_files | grep -E '^(kernel/[a-z]+|user/src)/[a-z_]+\.h$')
scripts/check-header-index.sh "${headers[@]}" > "$log/header-index.log" 2>&1
tap $? "header indexes: ${#headers[@]} headers name the file of each function" \
	"$log/header-index.log"

echo "1..$n"
[ $fails -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Everything `make check` runs, as one TAP stream: kernel lint, the shim's
# host tests (plain and sanitized), the guest kernels' configurations
# against the kselftests' config fragment, the module built against the
# kernels no guest boots (--build-only, and in Debian chroots for newer
# kernels, --chroot), the Debian packages installed in a Debian chroot
# (--deb-test), and the kselftests inside the
# guest, through the kernel's kselftest runner (run_guest.sh).
# The guest suite runs on each kernel of --kernels (default: all of them)
# that is installed: Debian 12's 6.1 ("6.1"), the debug kernel built from
# it (KASAN, lockdep, kmemleak...; "debug"), where a kmemleak scan follows
# it, and each --guest NAME:KVER:STAGE[:KROOT]: 6.1's PREEMPT_RT flavour
# ("6.1-rt"), Debian 12's 6.12 ("6.12") and the newest Debian kernel
# ("newest", 7.x from a Debian 13 chroot, KROOT its root). --install adds
# make install's test, --deb-host the packages installed on this host.
# With 6.1, rdma-core's own test suite runs there too, on ib_uverbs and over
# the shim (make peer-test, suite "peer"), and the differential test's
# quick form (make difftest, suite "difftest"); Debian's rdmacm-utils
# programs and perftest -R on both stacks run on 6.1, 6.12 and the newest
# kernel (make rdmacm-test, suites "rdmacm", "rdmacm-6.12", "rdmacm-newest").
# Each suite writes its own TAP; this script renumbers the results into one
# plan, prints "kernel RELEASE: N passed, M failed" for each guest kernel,
# and "N passed, N failed, N skipped" last.
set -uo pipefail

usage() {
	echo "usage: $0 --kver KVER --kdir KDIR --stage DIR --linux-tools DIR" \
		"--debug-tree DIR --debug-stage DIR" \
		"[--guest NAME:KVER:STAGE[:KROOT]]... [--build-only KDIR]..." \
		"[--chroot SUITE]... [--deb-test SUITE] [--deb-host] [--install]" \
		"[--kernels 'NAME...']" >&2
	exit 2
}
KVER='' KDIR='' STAGE='' TOOLS='' DTREE='' DSTAGE=''
KERNELS='6.1 6.1-rt debug 6.12 newest'
GUESTS=() BUILD_ONLY=() CHROOTS=() DEB_SUITE='' DEB_HOST=0 INSTALL=0
while [ $# -gt 0 ]; do
	case $1 in
	--kver) KVER=$2; shift 2 ;;
	--kdir) KDIR=$2; shift 2 ;;
	--stage) STAGE=$2; shift 2 ;;
	--linux-tools) TOOLS=$2; shift 2 ;;
	--debug-tree) DTREE=$2; shift 2 ;;
	--debug-stage) DSTAGE=$2; shift 2 ;;
	--guest) GUESTS+=("$2"); shift 2 ;;
	--deb-host) DEB_HOST=1; shift ;;
	--install) INSTALL=1; shift ;;
	--build-only) BUILD_ONLY+=("$2"); shift 2 ;;
	--chroot) CHROOTS+=("$2"); shift 2 ;;
	--deb-test) DEB_SUITE=$2; shift 2 ;;
	--kernels) KERNELS=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ -z "$KVER" ] || [ -z "$KDIR" ] || [ -z "$STAGE" ] || [ -z "$TOOLS" ] ||
	[ -z "$DTREE" ] || [ -z "$DSTAGE" ]; then
	usage
fi

top=$(cd "$(dirname "$0")/.." && pwd)
logdir=$top/build/check
rm -rf "$logdir"
mkdir -p "$logdir"

suites=()
status=()
declare -A release	# guest suite -> the kernel release it booted

wanted() {	# wanted NAME: is the kernel NAME in --kernels?
	case " $KERNELS " in *" $1 "*) return 0 ;; esac
	return 1
}

run_suite() {	# run_suite NAME COMMAND...: output to the log and the console
	local name=$1
	shift
	echo "# ---- $name: $*"
	"$@" 2>&1 | tee "$logdir/$name.log"
	local rc=${PIPESTATUS[0]}
	suites+=("$name")
	status+=("$rc")
	echo "# ---- $name exited $rc"
}

run_suite lint "$top/scripts/lint.sh" --kdir "$KDIR" --linux-tools "$TOOLS"
run_suite user make -s -C "$top/user" check
# The event queue's model test: kernel/core/evq.c on the host, millions of
# random operations against a reference model (a fixed and a random seed).
run_suite model make -s -C "$top/selftests/ib_async/model" check
run_suite verbs python3 "$top/selftests/ib_async/gen/test_verbs.py" --tap
# gen/rdma_fuzzing_async.py, the classes for another generator: still what
# verbs.py gives (a drift fails), and their Python and C sides.
run_suite upstream python3 "$top/selftests/ib_async/gen/test_upstream.py" --tap
# The guest kernels have what the kselftests' config fragment asks for.
guest_configs=()
for g in "${GUESTS[@]}"; do
	IFS=: read -r _ gkver _ gkroot <<<"$g"
	guest_configs+=("$gkroot/boot/config-$gkver")
done
run_suite config "$top/scripts/check-config.sh" \
	"$top/selftests/ib_async/config" "/boot/config-$KVER" "$DTREE/.config" \
	"${guest_configs[@]}"
# The kernels make check does not boot: ib_async and the test modules must
# still build there, W=1 without a warning, one TAP line per kernel.
# Kernels newer than Debian 12's userspace build in a cached Debian chroot
# (scripts/chroot.sh, --chroot SUITE): every kbuild tree installed there.
build_only() {
	local k n=0 fail=0 suite
	local -a cmd
	echo "TAP version 13"
	build_one() {	# build_one RELEASE COMMAND...
		local rel=$1
		shift
		n=$((n + 1))
		if "$@" >"$logdir/build-$n.log" 2>&1 &&
			! grep -qE 'warning:|error:' "$logdir/build-$n.log"; then
			echo "ok $n W=1 build against $rel without warnings"
		else
			sed 's/^/# /' "$logdir/build-$n.log" | tail -n 30
			echo "not ok $n W=1 build against $rel without warnings"
			fail=1
		fi
	}
	for k in "${BUILD_ONLY[@]}"; do
		build_one "$(basename "$(dirname "$k")")" \
			"$top/scripts/build-modules.sh" "$k" "$top/build/check-build/$n"
	done
	for suite in "${CHROOTS[@]}"; do
		cmd=("$top/scripts/chroot.sh" "$suite" --)
		if ! "${cmd[@]}" true >"$logdir/chroot-$suite.log" 2>&1; then
			n=$((n + 1))
			sed 's/^/# /' "$logdir/chroot-$suite.log" | tail -n 30
			echo "not ok $n the Debian $suite chroot"
			fail=1
			continue
		fi
		for k in $("${cmd[@]}" sh -c 'ls -d /lib/modules/*/build'); do
			build_one "$(basename "$(dirname "$k")") (Debian $suite)" \
				"${cmd[@]}" /src/scripts/build-modules.sh "$k" \
				"/tmp/ib_async-check-build"
		done
	done
	echo "1..$n"
	return $fail
}
[ $((${#BUILD_ONLY[@]} + ${#CHROOTS[@]})) -eq 0 ] || run_suite build build_only

# The Debian packages (make deb: built from HEAD, lintian-clean), installed
# in the Debian DEB_SUITE chroot, where DKMS builds the module for every
# kernel with headers (scripts/deb-test.sh).
# The 6.1 guest then runs the suite from them (scripts/stage.sh --debs).
deb_stage=$top/build/stage-debs
make_deb() {	# make deb as TAP line 1, for the first suite that needs it
	if make -s -C "$top" deb >"$logdir/deb.log" 2>&1; then
		echo "ok 1 make deb: the packages build and are lintian-clean"
	else
		echo "not ok 1 make deb: the packages build and are lintian-clean"
		tail -n 30 "$logdir/deb.log" | sed 's/^/# /'
		return 1
	fi
}
package() {
	rm -rf "$deb_stage"
	make_deb || return 1
	if "$top/scripts/stage.sh" --debs "$top/build/deb" --kdir "$KDIR" "$deb_stage" \
		>"$logdir/stage-debs.log" 2>&1; then
		echo "ok 2 the 6.1 guest's stage from the packages (module by dkms.conf)"
	else
		echo "not ok 2 the 6.1 guest's stage from the packages (module by dkms.conf)"
		tail -n 30 "$logdir/stage-debs.log" | sed 's/^/# /'
	fi
	"$top/scripts/deb-test.sh" --suite "$DEB_SUITE" "$top/build/deb"
}
[ -z "$DEB_SUITE" ] || run_suite package package
# The same packages on this host (make deb's build/deb, built above or
# here): DKMS builds for every kernel whose headers are installed, and a
# purge leaves nothing (scripts/deb-test.sh --host).
deb_host() {
	[ -n "$DEB_SUITE" ] || make_deb || return 1
	"$top/scripts/deb-test.sh" --host "$top/build/deb"
}
[ "$DEB_HOST" = 0 ] || run_suite deb-host deb_host
# make install and make uninstall in a DESTDIR (scripts/install-test.sh).
[ "$INSTALL" = 0 ] || run_suite install "$top/scripts/install-test.sh"

guest_cmd='IB_ASYNC_REQUIRE=1 sh /usr/lib/ib_async/selftests/ib_async/run_guest.sh'
# On 6.1 the kselftests run in an order drawn from a seed, a new one each
# run (run_guest.sh's IB_ASYNC_SHUFFLE), so that a test leaving the test bed
# other than it found it fails the one after it; the other guests keep the
# runner's order. IB_ASYNC_SHUFFLE=N replays an order.
shuffle=${IB_ASYNC_SHUFFLE:-$(((RANDOM << 15 | RANDOM) % 1000000))}
case $shuffle in
'' | *[!0-9]*) echo "IB_ASYNC_SHUFFLE=$shuffle is not a number" >&2; exit 2 ;;
esac
# From the packages, where the package suite ran: what users install.
guest_stage=$STAGE
[ -z "$DEB_SUITE" ] || guest_stage=$deb_stage
if wanted 6.1; then
	release[guest]=$KVER
	echo "# kselftests on $KVER in the order of seed $shuffle" \
		"(replay: make check IB_ASYNC_SHUFFLE=$shuffle)"
	RAW_CMD="IB_ASYNC_SHUFFLE=$shuffle $guest_cmd" \
		run_suite guest "$top/scripts/guest/vm.sh" \
		--kver "$KVER" --stage "$guest_stage" --timeout 1500
fi
if wanted debug; then
	release[guest-debug]=$(cat "$DTREE/include/config/kernel.release")
	RAW_CMD='cd /usr/lib/ib_async/selftests/ib_async && sh run_kmemleak.sh env IB_ASYNC_REQUIRE=1 sh run_guest.sh' \
		run_suite guest-debug "$top/scripts/guest/vm.sh" --kver "$KVER" \
		--kernel-tree "$DTREE" --stage "$DSTAGE" --timeout 2400 --mem 2048
fi
# rdma-core's own test suite on uverbs and over the shim, one more boot of
# the 6.1 guest with the same stage (selftests/ib_async/peer/peer-test.sh):
# one TAP line for each test of peer/expected-shim-pass.txt, which must
# pass on both stacks, and for the guest's health (uverbs's floor); the
# shim's known gaps are only its table, as "# " lines.
if wanted 6.1; then
	run_suite peer "$top/selftests/ib_async/peer/peer-test.sh" --tap \
		--kver "$KVER" --stage "$guest_stage"
fi
# The differential test's quick form (make difftest, issue 13): 40 random
# verb programs of seed 1 and every regression program of gen/regress, on
# ib_uverbs and over the shim in one more boot of the 6.1 guest.
if wanted 6.1; then
	run_suite difftest make -s -C "$top/selftests/ib_async/gen" run \
		KVER="$KVER" STAGE="$guest_stage" PROGRAMS=40 SEED=1 TAP=1
fi
# Debian's rdmacm-utils examples and perftest -R (librdmacm's connection
# setup) on uverbs and over the shim, one more boot of the 6.1 guest
# (selftests/ib_async/rdmacm): one TAP line per program, which fails when
# it works on uverbs and not over the shim; the table as "# " lines.
if wanted 6.1; then
	run_suite rdmacm "$top/selftests/ib_async/rdmacm/rdmacm-test.sh" --tap \
		--kver "$KVER" --stage "$guest_stage" --out "$top/build/rdmacm"
fi
for g in "${GUESTS[@]}"; do
	IFS=: read -r gname gkver gstage gkroot <<<"$g"
	wanted "$gname" || continue
	release[guest-$gname]=$gkver
	RAW_CMD=$guest_cmd run_suite "guest-$gname" "$top/scripts/guest/vm.sh" \
		--kver "$gkver" --stage "$gstage" \
		${gkroot:+--kernel-root "$gkroot"} --timeout 1500
	# the librdmacm programs on the newer kernels too (6.12, the newest):
	# the kernel's rdma_cm is what they meet first. Held to the same rule
	# as on 6.1 since mckey's sender waits for rxe0 to send before it
	# leaves (rdmacm/mckey_drain.c): 19 of 19 on both stacks in three
	# runs each of 6.12 and 7.3.
	case $gname in
	6.12 | newest)
		run_suite "rdmacm-$gname" \
			"$top/selftests/ib_async/rdmacm/rdmacm-test.sh" --tap \
			--kver "$gkver" --stage "$gstage" \
			${gkroot:+--kernel-root "$gkroot"} \
			--out "$top/build/rdmacm-$gname" ;;
	esac
done

# One TAP stream. A result is "ok"/"not ok" at the start of a line (the
# guest console may add a carriage return). kselftest programs nest their
# test cases one level down as "# ok N name": those are counted, and the
# program's own line only when it had no cases or failed (a crash after
# some passing cases must still count).
echo "TAP version 13"
n=0 pass=0 fail=0 skip=0 pass0=0 fail0=0 skip0=0
summary=()
kernels=()
emit() {	# emit SUITE LINE
	local desc=${2#ok }
	desc=${desc#not ok }
	desc=${desc#* }		# drop the suite's own number
	n=$((n + 1))
	case $2 in
	"not ok "*) fail=$((fail + 1)); echo "not ok $n - $1: $desc"; return ;;
	*"# SKIP"*) skip=$((skip + 1)) ;;
	*) pass=$((pass + 1)) ;;
	esac
	echo "ok $n - $1: $desc"
}
for i in "${!suites[@]}"; do
	name=${suites[$i]}
	cases=0
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"# ok "*|"# not ok "*)
			cases=$((cases + 1))
			emit "$name" "${line#\# }" ;;
		"ok "*|"not ok "*)
			case $line in "not ok "*) cases=0 ;; esac
			[ "$cases" -eq 0 ] && emit "$name" "$line"
			cases=0 ;;
		esac
	done < "$logdir/$name.log"
	# A suite that failed without reporting a failing test still fails.
	if [ "${status[$i]}" != 0 ]; then
		# a guest's timeout or death: what vm.sh found stuck, or the
		# console's last lines, here where the summary shows them
		grep -aE '^vm\.sh: (TIMEOUT|stuck|the guest ended|console|clock)' "$logdir/$name.log" |
			head -n 48 | sed 's/^/# /'
		n=$((n + 1)); fail=$((fail + 1))
		echo "not ok $n - $name: suite exited ${status[$i]} (log: build/check/$name.log)"
	fi
	summary+=("# $name: $((pass - pass0)) passed, $((fail - fail0)) failed, $((skip - skip0)) skipped")
	if [ -n "${release[$name]:-}" ]; then
		kernels+=("kernel ${release[$name]}: $((pass - pass0)) passed, $((fail - fail0)) failed")
	fi
	pass0=$pass fail0=$fail skip0=$skip
done
printf '%s\n' "${summary[@]}"
# One line per guest kernel, in the order they ran.
[ ${#kernels[@]} -eq 0 ] || printf '%s\n' "${kernels[@]}"
# What broke, again at the end, where a truncated log still shows it: the
# kernel trouble vm.sh found and the fuzzer's reports of each failed suite.
for i in "${!suites[@]}"; do
	[ "${status[$i]}" = 0 ] && continue
	log=$logdir/${suites[$i]}.log
	{
		"$top/scripts/guest/check-log.sh" "$log" 2>/dev/null
		tr -d '\r' <"$log" | grep -a -E '^(# )*fuzz: report [0-9]+ was: '
	} | head -n 20 | sed "s|^|# ${suites[$i]}: |"
done
echo "1..$n"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$n" -gt 0 ]

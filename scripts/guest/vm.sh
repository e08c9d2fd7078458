#!/usr/bin/env bash
# vm.sh [--kver KVER] [--kernel-tree DIR | --kernel-root DIR] [--stage STAGEDIR] [--payload DIR]
#       [--timeout SECS] [--mem MB]
#
# Boots /boot/vmlinuz-KVER under QEMU with a busybox/rdma-core initramfs, brings up rxe0 on a
# veth pair, loads STAGEDIR's ib_async.ko and runs the shell command in $RAW_CMD (verbatim:
# quotes, $?, $(...) and pipes survive) with `sh`, in /payload if --payload was given.
#
#   STAGEDIR  copied over the guest root (usr/lib/ib_async/ib_async.ko, libibasync.so.1, ...).
#             Host libraries its (and the payload's) programs need are added automatically.
#   --payload copied to /payload (the command's working directory).
#   --kernel-tree boot DIR/arch/x86/boot/bzImage (a kernel built from source, e.g. the
#             debug kernel of scripts/debug-kernel.sh) instead of /boot/vmlinuz-KVER; the
#             userspace is still KVER's. Its modules.builtin is installed so that modprobe of
#             built-in drivers succeeds.
#   --kernel-root boot DIR/boot/vmlinuz-KVER with the modules of DIR/lib/modules/KVER: a
#             kernel installed only in a Debian chroot (scripts/chroot.sh), as the newest
#             Debian kernels are; the userspace is still the host's.
#   --timeout whole-run limit in seconds (default 600); --mem guest RAM in MB (default 1024).
#
# Exit status: the command's status; 124 timeout; 125 kernel log shows WARN/BUG/Oops/...
# (offending lines printed); 126 the guest died before reporting a status.
# On a timeout, "vm.sh: stuck: " lines say what hung: /init dumps, a little before QEMU is
# killed, the kernel stacks of the tasks blocked in the kernel (watchdog_report), with the
# kernel log's findings and the first kernel stacks of its lockup reports. When userspace
# no longer runs to dump, QEMU injects an NMI instead, which the guest panics on, printing
# the stack it interrupted (nmi_timer).
# A kernel that oopses or panics before /init's first line (Debian's kernels sometimes do
# under TCG with 2 vCPUs: an int3 in code text_poke() is still patching, REFERENCE.md 1) has
# not run anything of ours yet: that boot is reported, kept as CONSOLE.boot-error-N, and the
# guest is booted again, up to $IBASYNC_BOOT_TRIES times in all (default 2). Any trouble
# after /init started fails the run as above.
# The console is streamed to stdout and saved to build/guest/last-console.log
# (or $IBASYNC_CONSOLE_LOG).
# Environment: RAW_CMD; IBASYNC_ACCEL=auto|tcg|kvm (default auto: cached boot probe);
# IBASYNC_LOGLEVEL console loglevel (default 5: warnings and worse are shown live; the full
# dmesg is printed at the end anyway); IBASYNC_APPEND extra kernel command line.
set -euo pipefail
# shellcheck source=scripts/guest/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEFAULT_CMD='uname -a; rdma link; ls -l /dev/infiniband'
# Seconds before the timeout at which the guest dumps what is stuck: its
# own dump and sysrq's CPU backtraces reach the console within them.
WATCHDOG_LEAD=30
# Seconds before the timeout at which QEMU injects an NMI when that dump
# never came (nmi_timer): the panic it causes prints within them.
NMI_LEAD=12

KVER='' KTREE='' STAGE='' PAYLOAD='' TIMEOUT=600 MEM=1024
WORK=
START_NS=$(date +%s%N)

usage() {
	sed -n '2,32s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--kver) KVER=${2:?}; shift 2 ;;
		--kernel-tree) KTREE=${2:?}; shift 2 ;;
		--kernel-root) KROOT=${2:?}; export IBASYNC_KROOT=$KROOT; shift 2 ;;
		--stage) STAGE=${2:?}; shift 2 ;;
		--payload) PAYLOAD=${2:?}; shift 2 ;;
		--timeout) TIMEOUT=${2:?}; shift 2 ;;
		--mem) MEM=${2:?}; shift 2 ;;
		-h | --help) usage ;;
		*) echo "vm.sh: unknown argument: $1" >&2; usage ;;
		esac
	done
	[ -n "$KVER" ] || KVER=$(default_kver)
	[ -f "$KROOT/boot/vmlinuz-$KVER" ] || die "$KROOT/boot/vmlinuz-$KVER not found"
	[ -z "$KTREE" ] || [ -f "$KTREE/arch/x86/boot/bzImage" ] ||
		die "$KTREE/arch/x86/boot/bzImage not found (run scripts/debug-kernel.sh)"
	[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
	[[ $MEM =~ ^[0-9]+$ ]] || die "--mem wants megabytes"
	[ -z "$PAYLOAD" ] || [ -d "$PAYLOAD" ] || die "payload $PAYLOAD is not a directory"
	if [ -n "$STAGE" ] && [ ! -d "$STAGE" ]; then
		note "stage $STAGE does not exist; booting without it"
		STAGE=
	fi
}

elapsed() {
	awk -v a="$START_NS" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'
}

# Stage trees may use /bin, /lib ...: fold them into /usr, because replacing the base's
# merged-/usr symlinks with directories would hide the base's programs.
fold_into_usr() {
	local ov=$1 d
	for d in bin sbin lib lib64; do
		if [ -d "$ov/$d" ] && [ ! -L "$ov/$d" ]; then
			mkdir -p "$ov/usr/$d"
			cp -a "$ov/$d/." "$ov/usr/$d/"
			rm -rf "${ov:?}/$d"
		fi
	done
}

# Host libraries that ELF files in the overlay need and that neither the base nor the overlay
# provides (e.g. libstdc++ for a C++ test).
add_missing_libs() {
	local ov=$1 base_list=$2 lib dst
	local -a elves=()
	mapfile -t elves < <(find "$ov" -type f ! -name '*.ko' ! -name '*.ko.xz' -size +0 -print)
	[ "${#elves[@]}" -gt 0 ] || return 0
	for lib in $(elf_libs "${elves[@]}"); do
		dst=$(usr_merged_path "$lib")
		grep -qxF -- "$dst" "$base_list" && continue
		[ -n "$(find "$ov" -name "${lib##*/}" -print -quit)" ] && continue
		copy_into_root "$ov" "$lib"
	done
}

# A kernel with its drivers built in: tell kmod which modules are built in, so that /init's and
# the tests' modprobe calls succeed instead of looking for .ko files.
add_builtin_modules() {
	local ov=$1 rel
	rel=$(cat "$KTREE/include/config/kernel.release")
	mkdir -p "$ov/usr/lib/modules/$rel"
	cp "$KTREE/modules.builtin" "$KTREE/modules.builtin.modinfo" "$ov/usr/lib/modules/$rel/"
	: >"$ov/usr/lib/modules/$rel/modules.order"
	depmod -b "$ov/usr" "$rel"
}

# The per-run archive: stage tree as root overlay, /payload, /ibasync/cmd.sh.
make_overlay_cpio() {
	local ov=$WORK/overlay base_list=$1 out=$2
	mkdir -p "$ov/ibasync"
	[ -z "$STAGE" ] || cp -a "$STAGE/." "$ov/"
	fold_into_usr "$ov"
	if [ -n "$PAYLOAD" ]; then
		mkdir -p "$ov/payload"
		cp -a "$PAYLOAD/." "$ov/payload/"
	fi
	add_missing_libs "$ov" "$base_list"
	[ -z "$KTREE" ] || add_builtin_modules "$ov"
	if [ -n "${RAW_CMD:-}" ]; then
		printf '%s\n' "$RAW_CMD" >"$ov/ibasync/cmd.sh"
	else
		printf '%s\n' "$DEFAULT_CMD" >"$ov/ibasync/cmd.sh"
	fi
	# The kernel applies each directory entry's mode: keep overlay directories traversable.
	find "$ov" -type d -exec chmod u+rwx,go+rx {} +
	(cd "$ov" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
}

# A lockup /init's watchdog cannot report, as userspace no longer runs
# (both CPUs spinning with interrupts off, say): when neither its dump nor
# the command's end is on the console NMI_LEAD seconds before the
# timeout, QEMU's monitor injects an NMI. The guest, booted with
# unknown_nmi_panic, panics on it and prints the stack the NMI
# interrupted; QEMU then exits (-no-reboot), and report() takes the run
# for the timeout it is. $WORK/nmi says the NMI was sent.
nmi_timer() {
	local log=$1 mon=$2 nap
	# killed (TERM) once QEMU ended: the sleep goes with it
	sleep $((TIMEOUT - NMI_LEAD)) &
	nap=$!
	trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	wait "$nap"
	! grep -aqE '@@IBASYNC_(WATCHDOG|CMD_END)@@' "$log" || return 0
	: >"$WORK/nmi"
	# QEMU holds the pipe open for reading; should it be gone, no wait
	# shellcheck disable=SC2016 # $1 is the inner shell's
	timeout 5 sh -c 'echo nmi >"$1"' sh "$mon.in" || true
}

# Runs QEMU under a hard timeout, console to stdout and LOG. Returns timeout's status.
run_qemu() {
	local accel=$1 kernel=$2 initrd=$3 log=$4 rc timer=
	local -a accel_args mon_args=()
	if [ "$accel" = kvm ]; then
		accel_args=(-accel kvm -cpu host)
	else
		# qemu64: -cpu max panics some kernels early under TCG (REFERENCE.md 1).
		accel_args=(-accel tcg -cpu qemu64)
	fi
	# printk.devkmsg=on: messages written to /dev/kmsg by tests are not rate limited.
	local append="console=ttyS0,115200 loglevel=${IBASYNC_LOGLEVEL:-5} panic=-1 printk.devkmsg=on"
	# tsc=reliable: under TCG a busy host skews the TSC against the HPET
	# by a millisecond, and the clocksource watchdog marks the TSC
	# unstable mid-run. That flips sched_clock's static key, and TCG does
	# not honour text_poke_bp()'s serialisation: a vCPU looping through
	# local_clock() (the poller, CQ_WAIT's spin) can still run the int3
	# once the patch is done, "Oops: int3", a panic that often reaches no
	# console. QEMU's TSC is the host's clock, the same on every vCPU.
	[ "$accel" = kvm ] || append+=" tsc=reliable"
	append+=" ${IBASYNC_APPEND:-}"
	rm -f "$WORK/nmi"
	if [ "$TIMEOUT" -ge 120 ]; then
		# /init's watchdog: the guest's uptime at which it dumps what is
		# stuck; every CPU's backtrace with a soft lockup report; the NMI
		# of nmi_timer() a panic, which prints the stack it interrupted
		append+=" ibasync.watchdog=$((TIMEOUT - WATCHDOG_LEAD))"
		append+=" softlockup_all_cpu_backtrace=1 unknown_nmi_panic"
		# the monitor, on a pair of FIFOs: QEMU reads monitor.in
		mkfifo "$WORK/monitor.in" "$WORK/monitor.out"
		mon_args=(-chardev "pipe,id=mon0,path=$WORK/monitor"
			-mon "chardev=mon0,mode=readline")
		nmi_timer "$log" "$WORK/monitor" &
		timer=$!
	fi
	set +e
	# --foreground: QEMU stays in our process group, so Ctrl-C stops it too.
	timeout --foreground -k 10 "$TIMEOUT" qemu-system-x86_64 \
		"${accel_args[@]}" -smp 2 -m "$MEM" \
		-nographic -nodefaults -serial stdio -no-reboot \
		-d cpu_reset -D "$WORK/qemu.log" \
		"${mon_args[@]}" \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		</dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	if [ -n "$timer" ]; then
		kill "$timer" 2>/dev/null
		wait "$timer" 2>/dev/null
		rm -f "$WORK/monitor.in" "$WORK/monitor.out"
	fi
	return "$rc"
}

# True when the kernel reported trouble before userspace ran: /init prints
# @@IBASYNC_USERSPACE@@ first, so nothing of ib_async (module, tests) had run.
boot_error() {
	local log=$1
	! grep -aq '@@IBASYNC_USERSPACE@@' "$log" && ! "$GUEST_DIR/check-log.sh" "$log" >/dev/null
}

# What hung, for a run that timed out: the kernel log's findings, then each
# task /init's watchdog found blocked (state D) with the top of its kernel
# stack, a few lines each: make check quotes "vm.sh: " lines of a suite
# that failed without a failing test. Nothing from the watchdog: userspace
# itself no longer ran (a lockup: the findings and the NMI's panic, with
# their stacks, say more), or no watchdog. $2 non-empty: the NMI was sent.
watchdog_report() {
	local log=$1 nmi_sent=$2
	"$GUEST_DIR/check-log.sh" "$log" | head -n 8 | sed 's/^/vm.sh: stuck: kernel log: /' || true
	if ! grep -aq '@@IBASYNC_WATCHDOG@@' "$log"; then
		echo "vm.sh: stuck: no watchdog report from the guest${nmi_sent:+ (an NMI was injected)}"
	else
		awk '/@@IBASYNC_WATCHDOG@@/ { on = 1; next }
			/@@IBASYNC_WATCHDOG_END@@/ { on = 0 }
			on && /^stuck: task / { tasks++; depth = 0; if (tasks <= 6) print; next }
			on && /^stuck:   / { if (tasks <= 6 && depth++ < 5) print }
			END { if (!tasks) print "stuck: no task blocked in the kernel"
			      else if (tasks > 6) print "stuck: " tasks - 6 " more blocked tasks" }' \
			"$log" | sed 's/^/vm.sh: /'
	fi
	stack_report "$log"
}

# The kernel stacks printed from the first lockup, stall, hung task or NMI
# report on: who the stack is (the CPU and task, or the hung task), where
# it was (RIP), and its first reliable frames outside NMI handling (the
# ones the NMI interrupted); three different stacks at most, as a lockup
# is reported again and again. The stack of the CPU that asked sysrq for
# the backtraces (the watchdog's dump) says nothing.
stack_report() {
	tr -d '\r' <"$1" | awk '
		function flush() {
			if (cur != "" && !sysrq && !seen[cur]++ && ++shown <= 3)
				printf "%s", cur
			cur = ""; sysrq = 0
		}
		!/^\[ *[0-9]+\.[0-9]+\] / { next }
		{ sub(/^\[ *[0-9]+\.[0-9]+\] /, "") }
		!on && /soft lockup|hard LOCKUP|detected stall|NMI backtrace for cpu|Uhhuh\. NMI|blocked for more than/ { on = 1 }
		!on { next }
		/^CPU: [0-9]+ PID: |^task:.* state:/ {
			flush(); frames = 0; nmi = 0
			h = $0; sub(/ (Tainted|Not tainted).*| stack:.*/, "", h)
			cur = "stuck: stack: " h "\n"
			next
		}
		cur == "" { next }
		/^RIP: 0010:/ { cur = cur "stuck:   " $0 "\n"; next }
		/^ *<NMI>/ { nmi = 1; next }
		/^ *<\/NMI>/ { nmi = 0; next }
		!nmi && /^ +[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
			sub(/^ +/, "")
			if (/sysrq/) sysrq = 1
			if (frames++ < 5) cur = cur "stuck:   " $0 "\n"
		}
		END {
			flush()
			if (shown > 3) print "stuck: stack: " shown - 3 " more"
		}' |
		sed 's/^/vm.sh: /'
}

# A guest that reset itself says nothing on its console: a triple fault
# (the CPU could not even raise a double fault) ends QEMU (-no-reboot)
# silently. QEMU's log (-d cpu_reset, kept as $1) names it.
reset_report() {
	local rlog=$1
	grep -aq 'Triple fault' "$rlog" 2>/dev/null || return 0
	echo "vm.sh: console: QEMU: the guest triple-faulted (-d cpu_reset: $rlog)"
	grep -a -A 12 'Triple fault' "$rlog" | head -n 13 | sed 's/^/vm.sh: console: /'
}

# Under TCG, a sched_clock that became unstable mid-run: the static key
# run_qemu()'s tsc=reliable keeps still was flipped, and what ran after
# may have hit a stale int3. Prints the kernel's lines, if any, as
# "vm.sh: clock:" lines, which make check quotes.
tcg_clock_flipped() {
	local accel=$1 log=$2
	[ "$accel" != kvm ] || return 0
	grep -aE 'TSC found unstable after boot|sched_clock: Marking unstable' "$log" |
		awk '!seen[$0]++' | head -n 2 | sed 's/^/vm.sh: clock: under TCG: /' || true
}

# Decide the exit status from QEMU's status, the console log, the
# accelerator it ran under and QEMU's own log.
report() {
	local qrc=$1 log=$2 accel=$3 qlog=$4 bad marker nmi_sent=
	# the NMI of nmi_timer() ended a guest that was about to time out
	[ ! -e "$WORK/nmi" ] || nmi_sent=1
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ] || [ -n "$nmi_sent" ]; then
		if [ -n "$nmi_sent" ]; then
			note "TIMEOUT: no result after $((TIMEOUT - NMI_LEAD)) s (the guest ended by the NMI injected); console: $log"
		else
			note "TIMEOUT: no result after $TIMEOUT s (QEMU killed); console: $log"
		fi
		watchdog_report "$log" "$nmi_sent" >&2
		exit 124
	fi
	bad=$({ "$GUEST_DIR/check-log.sh" "$log" || true; tcg_clock_flipped "$accel" "$log"; })
	if [ -n "$bad" ]; then
		{
			echo "vm.sh: ===== kernel log problems ====="
			printf '%s\n' "$bad"
			echo "vm.sh: ================================ (console: $log)"
		} >&2
		exit 125
	fi
	marker=$(grep -ao '@@IBASYNC_RC=[0-9]*@@' "$log" | tail -n 1 || true)
	if [ -z "$marker" ]; then
		note "the guest ended without reporting the command's status (crash or panic?); QEMU status $qrc; console: $log"
		# CI keeps only what make check quotes: the console's last
		# lines say where the guest was when it ended.
		tr -d '\r' <"$log" | tail -n 25 | sed 's/^/vm.sh: console: /' >&2
		reset_report "$qlog" >&2
		exit 126
	fi
	marker=${marker#@@IBASYNC_RC=}
	marker=${marker%@@}
	note "command exit status $marker after $(elapsed) s"
	exit "$marker"
}

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -z "$WORK" ] || rm -rf "$WORK"
}

main() {
	parse_args "$@"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run scripts/install-deps.sh"
	mkdir -p "$BUILD_GUEST_DIR"
	local base kernel accel log=${IBASYNC_CONSOLE_LOG:-$BUILD_GUEST_DIR/last-console.log} qrc try
	local qlog=${log%.log}-qemu.log
	local tries=${IBASYNC_BOOT_TRIES:-2}
	[[ $tries =~ ^[1-9][0-9]*$ ]] || die "IBASYNC_BOOT_TRIES wants a count of at least 1"
	base=$("$GUEST_DIR/build-initramfs.sh" "$KVER")
	if [ -n "$KTREE" ]; then
		kernel=$KTREE/arch/x86/boot/bzImage
	else
		kernel=$(guest_kernel "$KVER")
	fi
	# Per-run files live outside build/, so a concurrent `make clean` cannot pull them away.
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibasync-vm.XXXXXX")
	trap cleanup EXIT
	make_overlay_cpio "$base.list" "$WORK/overlay.cpio"
	# Concatenated newc archives: the kernel unpacks them in order, later files win.
	cat "$base" "$WORK/overlay.cpio" >"$WORK/initrd.cpio"
	accel=$("$GUEST_DIR/kvm-probe.sh" "$kernel" "$base")
	mkdir -p "$(dirname "$log")"
	rm -f "$log".boot-error-*
	for ((try = 1; ; try++)); do
		note "booting ${KTREE:+$KTREE with userspace of }$KVER ($accel, ${MEM} MB, timeout ${TIMEOUT} s)"
		qrc=0
		run_qemu "$accel" "$kernel" "$WORK/initrd.cpio" "$WORK/console.raw" || qrc=$?
		tr -d '\r' <"$WORK/console.raw" >"$log"
		rm -f "$qlog"
		[ ! -s "$WORK/qemu.log" ] || mv "$WORK/qemu.log" "$qlog"
		if [ "$try" -ge "$tries" ] || ! boot_error "$log"; then
			break
		fi
		cp "$log" "$log.boot-error-$try"
		{
			echo "vm.sh: ===== boot $try of $tries failed before /init ran (nothing of ib_async loaded) ====="
			"$GUEST_DIR/check-log.sh" "$log" || true
			echo "vm.sh: ===== booting again (console kept: $log.boot-error-$try) ====="
		} >&2
	done
	report "$qrc" "$log" "$accel" "$qlog"
}

main "$@"

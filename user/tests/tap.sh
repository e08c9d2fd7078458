# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=sh
# Minimal TAP producer for the shell tests, as tap.h is for the C ones:
# `ok STATUS DESCRIPTION` per result, `skip WHY`, and `tap_done` prints the
# plan last and returns 1 if anything failed.
tap_n=0 tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=1
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - # SKIP $1"
}

tap_done() {
	echo "1..$tap_n"
	return $tap_failed
}

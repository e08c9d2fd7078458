# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# profile.awk: perf report --children of a receive-only loop, its samples
# limited to those under the doorbell command (-p); prints each stage of
# the command as a share of it. A stage is a function's children less
# those of the stages nested in it, so the shares add up to 100%.
#
# Input lines: "  12.34%  0.56%  [k] symbol  parent".

$1 ~ /%$/ && $3 == "[k]" {
	pct = $1
	sub(/%$/, "", pct)
	if (!($4 in c))
		c[$4] = pct + 0
}

function get(s) {
	return (s in c) ? c[s] : 0
}

function row(name, v) {
	printf("%-44s %6.1f%%\n", name, 100 * v / all)
}

END {
	all = get("ib_async_cmd_wr_doorbell")
	if (!all) {
		print "profile.awk: no sample under the doorbell command"
		exit 1
	}
	ring = get("ib_async_doorbell_ring")
	drain = get("ib_async_wr_ring_drain")
	# the compiler may fold the drain into its one caller, which adds
	# only the owner's lock around it
	if (!drain)
		drain = get("ib_async_wr_ring_ring")
	slots = get("ib_async_post_slots")
	track = get("ib_async_post_track")
	locked = get("ib_async_post_locked")
	mr = get("ib_async_mr_check_sge")
	attach = get("ib_async_wr_attach")
	drv = get("rxe_post_recv")
	print "@@PROFILE_BEGIN@@"
	printf("%-44s %7s\n", "stage of a receive's doorbell command", "share")
	row("its handle's lookup (QP, ring)", ring)
	row("the command, less the ring's drain", all - ring - drain)
	row("the ring's bookkeeping (lock, pending, publish)", drain - slots)
	row("slot copy, checks, arrays (post_slots)", slots - track - locked)
	row("the requests' tracking (post_track)", track)
	row("the MR key check (mr_check_sge)", mr)
	row("the request made the file's (wr_attach)", attach)
	row("the driver's post (rxe_post_recv)", drv)
	row("the rest of the locked post", locked - mr - attach - drv)
	printf("samples under the command: %.2f%% of all\n", all)
	print "@@PROFILE_END@@"
}

# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# table.awk: turn bench.sh's result lines (key=value, one per run) into the
# benchmark table (reStructuredText simple tables), medians per figure.
# Variables (-v): reps kver ncpu cpu accel dev latk sizes fanctx drain_n
# fan_n compk perfn dpk host ffan_n ffan_ctx ffan_types ffan_ctxq coal_sizes
# postlist.
function kv(line,    i, n, f, p) {
	delete F
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) {
		p = index(f[i], "=")
		if (p)
			F[substr(f[i], 1, p - 1)] = substr(f[i], p + 1)
	}
}
# values of group g, field k: V[g, k, i], C[g, k]
function add(g, k, v) { V[g, k, ++C[g, k]] = v + 0 }
function median(g, k,    n, i, j, t, a) {
	n = C[g, k]
	if (!n)
		return "nan"
	for (i = 1; i <= n; i++)
		a[i] = V[g, k, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function minv(g, k,    i, m) {
	m = V[g, k, 1]
	for (i = 2; i <= C[g, k]; i++)
		if (V[g, k, i] < m) m = V[g, k, i]
	return m
}
function maxv(g, k,    i, m) {
	m = V[g, k, 1]
	for (i = 2; i <= C[g, k]; i++)
		if (V[g, k, i] > m) m = V[g, k, i]
	return m
}
function pow10(n,    e) {
	for (e = 0; n >= 10 && n % 10 == 0; e++) n /= 10
	return n == 1 ? "10^" e : n
}
function kib(k) {
	if (k >= 10240 || k <= -10240) return sprintf("%.1f MiB", k / 1024)
	return sprintf("%d KiB", k)
}
function yn(b) { return b ? "**met**" : "**missed**" }
function rule(w,    i, j, n, s) {
	s = ""
	n = split(w, ws, " ")
	for (i = 1; i <= n; i++) {
		if (i > 1)
			s = s "  "
		for (j = 0; j < ws[i]; j++)
			s = s "="
	}
	return s
}
function row(w, a1, a2, a3, a4, a5, a6, a7, a8,    n, i, a, s) {
	n = split(w, ws, " ")
	a[1] = a1; a[2] = a2; a[3] = a3; a[4] = a4
	a[5] = a5; a[6] = a6; a[7] = a7; a[8] = a8
	s = ""
	for (i = 1; i <= n; i++)
		s = s (i > 1 ? "  " : "") sprintf("%-" ws[i] "s", a[i])
	sub(/ +$/, "", s)
	return s
}
{
	kv($0)
	side = F["side"]; mode = F["mode"]
	if (mode == "stall") {
		g = side SUBSEP "stall" SUBSEP F["n"]
		add(g, "growth", F["slab_kb"] + F["vmalloc_kb"])
		add(g, "got", F["got"]); add(g, "lost", F["lost"])
		add(g, "qlen", F["qlen"]); add(g, "complete", F["complete"])
		add(g, "ring", F["ring"] + 0)
	} else if (mode == "drain") {
		g = side SUBSEP "drain"
		add(g, "evps", F["evps"]); add(g, "rpe", F["reads_per_ev"])
		add(g, "ipe", F["ioctls_per_ev"])
		add(g, "got", F["got"]); add(g, "lost", F["lost"])
	} else if (mode == "drainb" || mode == "drainb_unread") {
		g = side SUBSEP mode
		add(g, "evps", F["evps"]); add(g, "cpe", F["calls_per_ev"])
		add(g, "ipe", F["ioctls_per_ev"])
		add(g, "got", F["got"]); add(g, "lost", F["lost"])
	} else if (mode == "drainprof") {
		g = side SUBSEP "drainprof"
		CLKSRC = F["clocksource"]
		split("clk_ns mutex_ns syscall_ns ack_ns loop_ns take_rec_ns ring64_rec_ns ring64_waits_per_rec wait_call_ns", PK, " ")
		for (i = 1; i in PK; i++)
			add(g, PK[i], F[PK[i]])
	} else if (mode == "ffan") {
		g = side SUBSEP "ffan" SUBSEP (side == "ib_async" ? F["chanq"] : 0)
		if (side == "ib_async")
			FQ[F["chanq"]] = 1
		add(g, "ms", F["ms"]); add(g, "sys", F["sys_ms"])
		add(g, "psys", F["proc_sys_ms"]); add(g, "storm", F["storm_ms"])
		add(g, "open", F["open_kb"]); add(g, "grow", F["storm_kb"])
		add(g, "complete", F["complete"]); add(g, "complete2", F["complete2"])
		add(g, "lost", F["lost"]); add(g, "lost2", F["lost2"])
		add(g, "other", F["other_per_ctx"])
	} else if (mode == "stormcost") {
		g = "none" SUBSEP "stormcost" SUBSEP F["type"]
		add(g, "us", F["us_per_ev"]); add(g, "sys", F["sys_ms"])
		SCN = F["n"]
	} else if (mode == "coalesce") {
		g = side SUBSEP "coal" SUBSEP F["n"]
		add(g, "growth", F["growth_kb"]); add(g, "open", F["open_kb"])
		add(g, "exact", F["exact"]); add(g, "records", F["records"])
		add(g, "occ", F["occurrences"]); add(g, "qlen", F["chan_qlen"])
		add(g, "ctxgot", F["ctx_got"]); add(g, "ctxlost", F["ctx_lost"])
	} else if (mode == "fanout") {
		g = side SUBSEP "fanout" SUBSEP F["ctx"]
		add(g, "ms", F["ms"]); add(g, "sys", F["sys_ms"])
		add(g, "psys", F["proc_sys_ms"]); add(g, "complete", F["complete"])
		add(g, "storm", F["storm_ms"])
	} else if (mode == "latency") {
		g = side SUBSEP "lat" SUBSEP F["reader"]
		add(g, "p50", F["p50_us"]); add(g, "p99", F["p99_us"])
	} else if (mode == "destroy") {
		g = side SUBSEP "destroy"
		DN = F["n"]
		add(g, "qp", F["qp_us"]); add(g, "cq", F["cq_us"])
		add(g, "pd", F["pd_us"])
	} else if (mode == "perf") {
		g = side SUBSEP "perf" SUBSEP F["tool"]
		if (F["tool"] ~ /_bw$/)
			add(g, "bw", F["bw"])
		else if (F["tool"] ~ /_lat$/) {
			add(g, "typ", F["typ"]); add(g, "p999", F["p999"])
		}
		if ("mpps" in F)
			add(g, "mpps", F["mpps"])
	} else if (mode == "dpprof") {
		g = side SUBSEP "dpprof"
		split("syscall_ns notty_ns get_info_ns empty_poll_ns post_recv_ns doorbell_ns post_send_ns poll_send_ns poll_recv_ns iter_ns empty_polls", PK, " ")
		for (i = 1; i in PK; i++)
			add(g, PK[i], F[PK[i]])
	} else if (mode == "rateprof") {
		g = side SUBSEP "rateprof"
		split("post_list_ns poll_send_ns poll_recv_ns post_recv_ns client_ns server_ns empty_polls", PK, " ")
		for (i = 1; i in PK; i++)
			add(g, PK[i], F[PK[i]])
	} else if (mode == "complat") {
		g = side SUBSEP "complat"
		add(g, "p50", F["p50_us"]); add(g, "p999", F["p999_us"])
	} else if (mode == "compflood") {
		g = side SUBSEP "compflood"
		FLOOD_CQS = F["cqs"]; FLOOD_ROUNDS = F["rounds"]
		add(g, "evps", F["evps"]); add(g, "lost", F["lost"])
	}
}
END {
	printf "Produced by ``make bench``: %s, %d vCPU (%s), %s;\n", kver, ncpu, cpu, accel
	if (host != "")
		printf "host: %s.\n", host
	printf "Device %s (rdma_rxe), events: SM_CHANGE on port 1 through\n", dev
	printf "ib_dispatch_event() (ib_async_storm.ko). Every figure is the median of\n"
	printf "%d runs; ib_async and ib_uverbs alternate within one boot.\n\n", reps

	# ---- 1. stalled reader
	print "1. Stalled reader: kernel memory growth during the storm (Slab + VmallocUsed)"
	print ""
	w = "5 9 19 9 17 8 21"
	print rule(w)
	print row(w, "storm", "no reader", "ib_uverbs", "ib_uverbs", "ib_async", "ib_async", "ib_async delivered")
	print row(w, "", "", "(per event)", "delivered", "(per event)", "bound", "+ lost (exact runs)")
	print rule(w)
	ns = split(sizes, S, " ")
	ok_ia = 1; ok_uv = 1
	# Slab noise: the largest growth (either sign) of a storm with no
	# reader at all, over every run
	noise = 0
	for (i = 1; i <= ns; i++) {
		gn = "none" SUBSEP "stall" SUBSEP S[i]
		for (j = 1; j <= C[gn, "growth"]; j++) {
			v = V[gn, "growth", j]
			if (v < 0) v = -v
			if (v > noise) noise = v
		}
	}
	for (i = 1; i <= ns; i++) {
		n = S[i]
		gu = "uverbs" SUBSEP "stall" SUBSEP n
		ga = "ib_async" SUBSEP "stall" SUBSEP n
		gn = "none" SUBSEP "stall" SUBSEP n
		mu = median(gu, "growth"); ma = median(ga, "growth"); mn = median(gn, "growth")
		q = median(ga, "qlen")
		# a mapped ring holds records too (allocated at open, before
		# the snapshot, so not in the growth): the file holds q + ring
		ring = median(ga, "ring")
		bound = (q + 2) * 56 / 1024
		exact = 0
		for (j = 1; j <= C[ga, "complete"]; j++) exact += V[ga, "complete", j]
		printf "%s\n", row(w, pow10(n), kib(mn),
			sprintf("%s (%.1f B)", kib(mu), mu * 1024 / n),
			minv(gu, "got") == n ? "all" : sprintf("%d", minv(gu, "got")),
			sprintf("%s (%.2f B)", kib(ma), ma * 1024 / n),
			sprintf("%.0f KiB", bound),
			sprintf("%d+%d (%d/%d)", median(ga, "got"), median(ga, "lost"), exact, C[ga, "complete"]))
		# bounded: growth beyond the no-reader baseline within the
		# queue bound (plus Slab noise), every run delivered + lost ==
		# storm
		if (ma - mn > bound + noise || exact != C[ga, "complete"] || maxv(ga, "got") > q + ring + 1)
			ok_ia = 0
		if (minv(gu, "got") != n)
			ok_uv = 0
		U[i] = mu - mn; A[i] = ma
	}
	print rule(w)
	print ""
	# independent of the storm size: from the smallest storm to the
	# largest, no more growth than the bound, give or take the noise
	if (ns >= 2 && A[ns] - A[1] > bound + noise)
		ok_ia = 0
	lin = ns >= 2 && U[1] > 0 && U[ns] / U[1] > 0.5 * S[ns] / S[1]
	printf "Slab noise (largest growth of a storm with no reader, any run): %s.\n", kib(noise)
	printf "Target: ib_async growth independent of storm size, within its bound: %s\n", yn(ok_ia)
	lins = lin ? "yes" : "no"
	gr = U[1] > 0 ? U[ns] / U[1] : 0
	printf "ib_uverbs grows linearly: %s (%.0fx the memory for a %.0fx storm).\n\n", lins, gr, S[ns] / S[1]

	# ---- 2. drain
	gu = "uverbs" SUBSEP "drain"; ga = "ib_async" SUBSEP "drain"
	gb = "ib_async" SUBSEP "drainb"; gp = "ib_async" SUBSEP "drainprof"
	gn = "ib_async" SUBSEP "drainb_unread"
	eu = median(gu, "evps"); ea = median(ga, "evps"); eb = median(gb, "evps")
	ru = median(gu, "rpe"); ra = median(ga, "rpe")
	printf "2. Drain of %s queued events: get+ack is ibv_get_async_event +\n", pow10(drain_n)
	printf "   ibv_ack_async_event, one event per call (ib_async: the shim takes each\n"
	printf "   record from the mapped ring); batched is ibasync_get_events, 64 records\n"
	printf "   per call, on an event channel subscribed to every event, its ring mapped\n"
	printf "   before the storm (ib_async only; the context's own queue, 64 records,\n"
	printf "   also gets every event, unread)\n\n"
	w = "21 10 10 27 8"
	print rule(w)
	print row(w, "", "events/s", "ratio", "syscalls per event", "target")
	print rule(w)
	print row(w, "ib_uverbs get+ack", sprintf("%.0f", eu), "1x", sprintf("%.4f read()", ru), "")
	print row(w, "ib_async get+ack", sprintf("%.0f", ea), sprintf("%.2fx", eu ? ea / eu : 0),
		sprintf("%.4f read() %.4f ioctl", ra, median(ga, "ipe")), ">= 20x")
	print row(w, "ib_async batched (64)", sprintf("%.0f", eb), sprintf("%.2fx", eu ? eb / eu : 0),
		sprintf("%.4f ioctl", median(gb, "ipe")), ">= 50x")
	print rule(w)
	print ""
	bexact = 1
	for (j = 1; j <= C[gb, "got"]; j++)
		if (V[gb, "got", j] != drain_n || V[gb, "lost", j] != 0)
			bexact = 0
	printf "Batched drain returned all %s events, none lost, in every run: %s.\n", \
		pow10(drain_n), bexact ? "yes" : "no"
	printf "Target: get+ack >= 20x ib_uverbs' events/s: %s; batched >= 50x: %s;\n", \
		yn(eu && ea / eu >= 20), yn(eu && eb / eu >= 50 && bexact)
	printf "<= 1/16 of the system calls per event (read() and ioctl): %s\n\n", \
		yn(ru && (ra + median(ga, "ipe")) / ru <= 1 / 16)

	if (C[gp, "loop_ns"]) {
		lp = median(gp, "loop_ns"); tk = median(gp, "take_rec_ns")
		ak = median(gp, "ack_ns"); rest = lp - tk - ak
		printf "Where ib_async's get+ack time goes (nanoseconds, medians over the runs).\n"
		printf "Each figure times a whole loop, no clock read per call (a read weighs as\n"
		printf "much as a call: clocksource %s, clock_gettime below). The drain is made\n", CLKSRC
		printf "again; then records are taken by hand as the shim takes them (type and\n"
		printf "element read in place, consumer store) from a ring the benchmark maps on\n"
		printf "a node file of its own, as large as the queue, over a second storm: the\n"
		printf "userspace floor of a record; the same from a ring of 64 behind the queue\n"
		printf "over a third (one RING_WAIT moves each 64); ibv_ack_async_event of a port\n"
		printf "event alone; the rest is the shim's own work per call. For scale, an\n"
		printf "uncontended mutex lock + unlock: the shim takes its event lock once per\n"
		printf "call in a process of several threads, none in one of one, as here.\n"
		printf "The batched drain is made again in one more process with its records\n"
		printf "counted, not read: ibasync_get_events' part alone; the rest is the\n"
		printf "benchmark's look at each record (kind, type, occurrences), which the\n"
		printf "batched figure above, and its verdict, include.\n"
		printf "Ceiling: the ratio to ib_uverbs if a record cost only its taking from\n"
		printf "the ring\n\n"
		w = "52 8 6"
		print rule(w)
		print row(w, "", "ns", "share")
		print rule(w)
		print row(w, "ib_uverbs get+ack, per event (drain above)", sprintf("%.0f", eu ? 1e9 / eu : 0), "")
		print row(w, "the 20x target, per event", sprintf("%.0f", eu ? 1e9 / eu / 20 : 0), "")
		print row(w, "ib_async get+ack, per event (drain above)", sprintf("%.0f", ea ? 1e9 / ea : 0), "")
		print row(w, "ib_async get+ack, per event (profiled drain)", sprintf("%.0f", lp), "100%")
		print row(w, "- taking a record from the ring (read, store)", sprintf("%.0f", tk), sprintf("%.0f%%", lp ? 100 * tk / lp : 0))
		print row(w, "- ibv_ack_async_event", sprintf("%.0f", ak), sprintf("%.0f%%", lp ? 100 * ak / lp : 0))
		print row(w, "- the shim's own work per call (the rest)", sprintf("%.0f", rest), sprintf("%.0f%%", lp ? 100 * rest / lp : 0))
		print row(w, "mutex lock + unlock (several threads only)", sprintf("%.0f", median(gp, "mutex_ns")), "")
		print row(w, "ring of 64 behind the queue, per record", sprintf("%.0f", median(gp, "ring64_rec_ns")), "")
		print row(w, sprintf("  RING_WAIT moving 64 (%.4f calls per record)", median(gp, "ring64_waits_per_rec")), sprintf("%.0f", median(gp, "wait_call_ns")), "")
		nb = sprintf("%.0f", eb ? 1e9 / eb : 0)
		print row(w, "ib_async batched channel drain, per event", nb, "")
		if (C[gn, "evps"]) {
			en = median(gn, "evps")
			# the rest from the figures as printed, so that they add up
			nn = sprintf("%.0f", en ? 1e9 / en : 0)
			print row(w, "- ibasync_get_events, records not read", nn, "")
			print row(w, "- the reader's look at each record (the rest)", nb - nn, "")
			print row(w, "  ratio to ib_uverbs, records not read", sprintf("%.1fx", eu ? en / eu : 0), "")
		}
		print row(w, "getppid() system call", sprintf("%.0f", median(gp, "syscall_ns")), "")
		print row(w, "clock_gettime(CLOCK_MONOTONIC)", sprintf("%.0f", median(gp, "clk_ns")), "")
		print row(w, "ratio ceiling: uverbs / taking a record", sprintf("%.1fx", tk && eu ? 1e9 / eu / tk : 0), "")
		print rule(w)
		print ""
	}

	# ---- 3. fan-out
	printf "3. Fan-out: %s events to N contexts read from one epoll loop\n", pow10(fan_n)
	print "   (wall time from the start of dispatch until every context has every event;"
	print "   kernel CPU: system + irq + softirq time of all CPUs, /proc/stat; in brackets"
	print "   the benchmark process alone, getrusage ru_stime)"
	print ""
	w = "8 12 12 20 20"
	print rule(w)
	print row(w, "contexts", "ib_uverbs", "ib_async", "ib_uverbs kernel CPU", "ib_async kernel CPU")
	print rule(w)
	nc = split(fanctx, FC, " ")
	fan_ok = 1
	for (i = 1; i <= nc; i++) {
		c = FC[i]
		gu = "uverbs" SUBSEP "fanout" SUBSEP c; ga = "ib_async" SUBSEP "fanout" SUBSEP c
		cu = 0; ca = 0
		for (j = 1; j <= C[gu, "complete"]; j++) cu += V[gu, "complete", j]
		for (j = 1; j <= C[ga, "complete"]; j++) ca += V[ga, "complete", j]
		print row(w, c,
			sprintf("%.0f ms%s", median(gu, "ms"), cu == C[gu, "complete"] ? "" : " (inc.)"),
			sprintf("%.0f ms%s", median(ga, "ms"), ca == C[ga, "complete"] ? "" : " (inc.)"),
			sprintf("%.0f ms (%.0f)", median(gu, "sys"), median(gu, "psys")),
			sprintf("%.0f ms (%.0f)", median(ga, "sys"), median(ga, "psys")))
		if (i == nc)
			fan_ok = ca == C[ga, "complete"] && median(ga, "ms") <= median(gu, "ms")
	}
	print rule(w)
	print ""
	printf "Target: fan-out to %s contexts no slower than ib_uverbs: %s\n\n", FC[nc], yn(fan_ok)

	# ---- 4. latency
	printf "4. Latency from dispatch (write() to the storm file) to the return of\n"
	printf "   ibv_get_async_event, %d single events per run, microseconds\n\n", latk
	w = "10 12 12 12 12"
	print rule(w)
	print row(w, "reader", "uverbs p50", "ib_async p50", "uverbs p99", "ib_async p99")
	print rule(w)
	lat_ok = 1
	split("blocking epoll", R, " ")
	for (i = 1; i <= 2; i++) {
		gu = "uverbs" SUBSEP "lat" SUBSEP R[i]; ga = "ib_async" SUBSEP "lat" SUBSEP R[i]
		print row(w, R[i],
			sprintf("%.0f", median(gu, "p50")), sprintf("%.0f", median(ga, "p50")),
			sprintf("%.0f", median(gu, "p99")), sprintf("%.0f", median(ga, "p99")))
		# worse than the median, but inside ib_uverbs' own spread
		# over the runs: within noise
		if (median(ga, "p99") > maxv(gu, "p99"))
			lat_ok = 0
		else if (median(ga, "p99") > median(gu, "p99") && lat_ok == 1)
			lat_ok = 2
		L[i] = median(ga, "p99") / median(gu, "p99")
		LR[i] = sprintf("%.0f-%.0f", minv(gu, "p99"), maxv(gu, "p99"))
	}
	print rule(w)
	print ""
	printf "ib_async/ib_uverbs p99: %.2f blocking, %.2f epoll (ib_uverbs p99 over the runs:\n", L[1], L[2]
	printf "%s us blocking, %s us epoll).\n", LR[1], LR[2]
	printf "Target: p99 no worse than ib_uverbs: %s\n", lat_ok == 2 ? \
		"**met within noise** (above the median, inside ib_uverbs' own range)" : yn(lat_ok)

	# ---- 5. destroy with a long queue
	printf "\n5. Destroy of a QP, a CQ and a PD (no records of their own) with %s\n", pow10(DN)
	printf "   records queued on the context, microseconds\n\n"
	w = "10 10 10 10"
	print rule(w)
	print row(w, "", "QP", "CQ", "PD")
	print rule(w)
	split("uverbs ib_async", S, " ")
	for (i = 1; i <= 2; i++) {
		g = S[i] SUBSEP "destroy"
		print row(w, S[i] == "uverbs" ? "ib_uverbs" : S[i],
			sprintf("%.0f", median(g, "qp")), sprintf("%.0f", median(g, "cq")),
			sprintf("%.0f", median(g, "pd")))
	}
	print rule(w)

	# ---- 6. completion events
	printf "\n6. Completion events (rxe RC loopback pair, a SEND to a receiver whose CQ is\n"
	printf "   armed on a completion channel): from ibv_post_send to the return of\n"
	printf "   ibv_get_cq_event in a blocked reader thread, %d SENDs per run, microseconds\n\n", compk
	w = "10 10 10"
	print rule(w)
	print row(w, "", "p50", "p99.9")
	print rule(w)
	gu = "uverbs" SUBSEP "complat"; ga = "ib_async" SUBSEP "complat"
	print row(w, "ib_uverbs", sprintf("%.0f", median(gu, "p50")), sprintf("%.0f", median(gu, "p999")))
	print row(w, "ib_async", sprintf("%.0f", median(ga, "p50")), sprintf("%.0f", median(ga, "p999")))
	print row(w, "ratio", sprintf("%.2fx", median(gu, "p50") ? median(ga, "p50") / median(gu, "p50") : 0),
		sprintf("%.2fx", median(gu, "p999") ? median(ga, "p999") / median(gu, "p999") : 0))
	print rule(w)

	# ---- 7. flood of armed CQs
	gu = "uverbs" SUBSEP "compflood"; ga = "ib_async" SUBSEP "compflood"
	printf "\n7. Flood of armed CQs: %d CQs on one completion channel (%d RC loopback\n", FLOOD_CQS, FLOOD_CQS / 2
	printf "   pairs), each completed and re-armed %d times; events drained through\n", FLOOD_ROUNDS
	printf "   ibv_get_cq_event + ibv_ack_cq_events (SENDs posted, CQs polled and\n"
	printf "   re-armed in the same loop)\n\n"
	w = "10 12 10"
	print rule(w)
	print row(w, "", "events/s", "lost")
	print rule(w)
	eu = median(gu, "evps"); ea = median(ga, "evps")
	print row(w, "ib_uverbs", sprintf("%.0f", eu), maxv(gu, "lost") < 0 ? "n/a" : sprintf("%d", maxv(gu, "lost")))
	print row(w, "ib_async", sprintf("%.0f", ea), sprintf("%d", maxv(ga, "lost")))
	print row(w, "ratio", sprintf("%.2fx", eu ? ea / eu : 0), "")
	print rule(w)

	# ---- 8. perftest
	printf "\n8. Debian's perftest tools (RC, two processes pinned to the two CPUs, %d\n", perfn
	printf "   iterations per run): ib_uverbs, and the shim alone (LD_PRELOAD, uverbs\n"
	printf "   nodes hidden); bandwidth in MB/s of 4096-byte messages, latency in us\n"
	printf "   of 64-byte ones (one way for SEND and WRITE, a round trip for READ, as\n"
	printf "   perftest reports them); the floor rows are the limit (see below), and\n"
	printf "   \"to floor\" is ib_async's figure over the floor's\n\n"
	w = "17 10 10 6 8 7"
	print rule(w)
	print row(w, "tool", "ib_uverbs", "ib_async", "ratio", "to floor", "target")
	print rule(w)
	split("send_bw write_bw read_bw", B, " ")
	perf_ok = 1
	for (i = 1; i <= 3; i++) {
		gu = "uverbs" SUBSEP "perf" SUBSEP B[i]; ga = "ib_async" SUBSEP "perf" SUBSEP B[i]
		r = median(gu, "bw") ? median(ga, "bw") / median(gu, "bw") : 0
		if (r < 1)
			perf_ok = 0
		print row(w, B[i], sprintf("%.1f", median(gu, "bw")), sprintf("%.1f", median(ga, "bw")),
			sprintf("%.2fx", r), "", ">= 1.0x")
	}
	# 8-byte atomics and 64-byte SENDs: too few MB/s for perftest's two
	# decimals, so in millions of operations per second (its MsgRate)
	split("atomic_bw send_rate", B, " ")
	for (i = 1; i <= 2; i++) {
		gu = "uverbs" SUBSEP "perf" SUBSEP B[i]; ga = "ib_async" SUBSEP "perf" SUBSEP B[i]
		r = median(gu, "mpps") ? median(ga, "mpps") / median(gu, "mpps") : 0
		if (i == 1 && r < 1)
			perf_ok = 0
		if (i == 2)
			rate_ok = r >= 1
		print row(w, B[i] " Mpps", sprintf("%.4f", median(gu, "mpps")), sprintf("%.4f", median(ga, "mpps")),
			sprintf("%.2fx", r), "", ">= 1.0x")
	}
	# the poller: ib_async with IBASYNC_POLLER=1 against the same uverbs runs
	gu = "uverbs" SUBSEP "perf" SUBSEP "send_rate"; ga = "ib_async" SUBSEP "perf" SUBSEP "poller_rate"
	poller_r = 0
	if (C[gu, "mpps"] && C[ga, "mpps"] && median(gu, "mpps") > 0)
		poller_r = median(ga, "mpps") / median(gu, "mpps")
	if (C[ga, "mpps"])
		print row(w, "send_rate poller", sprintf("%.4f", median(gu, "mpps")), sprintf("%.4f", median(ga, "mpps")),
			sprintf("%.2fx", poller_r), "", ">= 1.5x")
	split("send_lat write_lat read_lat", B, " ")
	split("typ p999", K, " ")
	for (i = 1; i <= 3; i++) {
		gu = "uverbs" SUBSEP "perf" SUBSEP B[i]; ga = "ib_async" SUBSEP "perf" SUBSEP B[i]
		gf = "floor" SUBSEP "perf" SUBSEP B[i]
		for (j = 1; j <= 2; j++) {
			r = median(gu, K[j]) ? median(ga, K[j]) / median(gu, K[j]) : 0
			if (r > 1.1 || r == 0)
				perf_ok = 0
			f = C[gf, K[j]] ? median(gf, K[j]) : 0
			print row(w, B[i] " " (j == 1 ? "typ" : "99.9%"),
				sprintf("%.1f", median(gu, K[j])), sprintf("%.1f", median(ga, K[j])),
				sprintf("%.2fx", r), f ? sprintf("%.2fx", median(ga, K[j]) / f) : "",
				"<= 1.1x")
		}
	}
	# the limit of both stacks' columns, hence in both
	for (i = 1; i <= 3; i++) {
		gf = "floor" SUBSEP "perf" SUBSEP B[i]
		for (j = 1; j <= 2 && C[gf, K[j]]; j++) {
			f = sprintf("%.1f", median(gf, K[j]))
			print row(w, "floor " substr(B[i], 1, index(B[i], "_") - 1) " " (j == 1 ? "typ" : "99.9%"),
				f, f, "", "", "limit")
		}
	}
	print rule(w)
	print ""
	printf "atomic_bw: ib_atomic_bw's 8-byte FETCH_AND_ADD; send_rate: the message\n"
	printf "rate, ib_send_bw's 64-byte SENDs posted in lists of %d (-l %d, a\n", postlist, postlist
	printf "completion per list); both in millions per second (perftest's MsgRate).\n"
	printf "Target: bandwidth and atomics at least 1.0x and latency at most 1.1x\n"
	printf "ib_uverbs (typical and 99.9%%): %s\n", yn(perf_ok)
	printf "Target: message rate at least 1.0x ib_uverbs: %s\n", yn(rate_ok)
	if (poller_r) {
		printf "send_rate poller: the same through the shim with IBASYNC_POLLER=1, each\n"
		printf "process lending one more thread that polls in the kernel: 4 busy threads\n"
		printf "on this guest's %d CPUs. Target at least 1.5x: %s\n", ncpu, yn(poller_r >= 1.5)
	}
	gu = "uverbs" SUBSEP "perf" SUBSEP "send_lat"; gf = "floor" SUBSEP "perf" SUBSEP "send_lat"
	gw = "uverbs" SUBSEP "perf" SUBSEP "write_lat"; gx = "floor" SUBSEP "perf" SUBSEP "write_lat"
	gr = "uverbs" SUBSEP "perf" SUBSEP "read_lat"; gy = "floor" SUBSEP "perf" SUBSEP "read_lat"
	if (C[gf, "typ"] && C[gx, "typ"] && C[gy, "typ"]) {
		printf "Floor: the same three tests, iterations and size between two kernel QPs\n"
		printf "of %s, client and server kernel threads busy-polling on the two CPUs, no\n", dev
		printf "system call and no user space (ib_async_floor.ko): the least either stack\n"
		printf "could reach. ib_uverbs' typical is %.2fx the floor's (send), %.2fx (write),\n", \
			median(gu, "typ") / median(gf, "typ"), median(gw, "typ") / median(gx, "typ")
		printf "%.2fx (read).\n", median(gr, "typ") / median(gy, "typ")
	}
	# ---- 8, where the time goes
	gu = "uverbs" SUBSEP "dpprof"; ga = "ib_async" SUBSEP "dpprof"
	printf "\nWhere the data path's time goes (microseconds per call, medians over the\n"
	printf "runs): one process, an RC loopback pair, each part timed as a whole loop\n"
	printf "of %d calls (no clock read per call). On 6.1 rxe carries a SEND through\n", dpk
	printf "both QPs before ibv_post_send returns, so each poll below finds its\n"
	printf "completion at once; from 6.4 its worker does, and the poll of the SEND's\n"
	printf "completion waits for it. The last row is the four calls in a row, what\n"
	printf "one message of a ping-pong costs (polls that found nothing: at most %d in\n", \
		max_both(gu, ga, "empty_polls")
	printf "a run)\n\n"
	w = "44 9 8 6"
	both_rows(w, gu, ga, "syscall_ns notty_ns get_info_ns empty_poll_ns post_recv_ns doorbell_ns post_send_ns poll_send_ns poll_recv_ns iter_ns",
		"getppid() system call|an ioctl the node refuses (ENOTTY)|IB_ASYNC_IOC_GET_INFO|ibv_poll_cq, empty|ibv_post_recv, one request|of which the doorbell of an empty ring|ibv_post_send, a SEND (its transfer on 6.1)|ibv_poll_cq, the SEND's completion|ibv_poll_cq, the receive's completion|all four in a row",
		"notty_ns get_info_ns doorbell_ns")
	print rule(w)
	rate_table()
	# ---- 9. filtered fan-out
	nt = split(ffan_types, FT, " ")
	share = ffan_n / 2 + 1024
	gn = "none" SUBSEP "ffan" SUBSEP 0; gu = "uverbs" SUBSEP "ffan" SUBSEP 0
	ga = "ib_async" SUBSEP "ffan" SUBSEP share
	printf "\n9. Filtered fan-out: %s events, %s and %s alternating in\n", pow10(ffan_n), FT[1], FT[2]
	printf "   writes of 256 events each, to %d contexts, context i wanting %s\n", ffan_ctx, FT[1]
	printf "   (i even) or %s (i odd). rxe0 has one port, so the filter is the\n", FT[2]
	printf "   event type, not the port (a storm of any type but SM_CHANGE also makes\n"
	printf "   the core refresh its port cache once per event: the same for both, in the\n"
	printf "   no-reader row). ib_async: per context an event channel subscribed to its\n"
	printf "   type, only the channels read (ibasync_get_events, 64); the contexts' own\n"
	printf "   queues (%d records) still get every event and overflow, unread (their\n", ffan_ctxq
	printf "   kernel work is in the CPU figures). Channel queue %d (the whole share:\n", share
	printf "   lossless like ib_uverbs) or the default 1024 (bounded). ib_uverbs: every\n"
	printf "   context reads every event (get+ack) and drops the other type. Phase 1,\n"
	printf "   readers keep up: wall time from the start of dispatch until every context\n"
	printf "   has its %d events (one epoll loop), kernel CPU as in section 3 (per\n", ffan_n / 2
	printf "   event: over the %s dispatched). Phase 2, the same storm with nobody\n", pow10(ffan_n)
	printf "   reading: growth of Slab + VmallocUsed (as section 1). Memory at open:\n"
	printf "   what opening the contexts (and channels) took\n\n"
	w = "20 8 15 9 9 9 9 16"
	print rule(w)
	print row(w, "", "wall", "kernel CPU", "kernel", "memory", "storm", "memory", "every context")
	print row(w, "", "", "(process)", "CPU per", "at open", "growth", "total", "exact (runs)")
	print row(w, "", "", "", "event", "per ctx", "per ctx", "per ctx", "")
	print rule(w)
	print row(w, "no reader", sprintf("%.0f ms", median(gn, "ms")),
		sprintf("%.0f ms (%.0f)", median(gn, "sys"), median(gn, "psys")),
		sprintf("%.1f us", median(gn, "sys") * 1000 / ffan_n), "", sprintf("(%s)", kib(median(gn, "grow"))), "", "")
	nr = 0
	RK[++nr] = "uverbs" SUBSEP "ffan" SUBSEP 0; RN[nr] = "ib_uverbs"
	RK[++nr] = ga; RN[nr] = sprintf("ib_async, queue %d", share)
	for (q in FQ)
		if (q != share) {
			RK[++nr] = "ib_async" SUBSEP "ffan" SUBSEP q; RN[nr] = sprintf("ib_async, queue %d", q)
		}
	for (i = 1; i <= nr; i++) {
		g = RK[i]
		c1 = 0; c2 = 0
		for (j = 1; j <= C[g, "complete"]; j++) {
			c1 += V[g, "complete", j]; c2 += V[g, "complete2", j]
		}
		ex = sprintf("%d/%d", c1 < c2 ? c1 : c2, C[g, "complete"])
		if (maxv(g, "lost") > 0 || maxv(g, "lost2") > 0)
			ex = ex sprintf(", lost %.0f+%.0f", median(g, "lost") / ffan_ctx, median(g, "lost2") / ffan_ctx)
		# the lossless rows must lose nothing at all
		LL[i] = g == ga || i == 1 ? maxv(g, "lost") == 0 && maxv(g, "lost2") == 0 : 1
		print row(w, RN[i], sprintf("%.0f ms", median(g, "ms")),
			sprintf("%.0f ms (%.0f)", median(g, "sys"), median(g, "psys")),
			sprintf("%.0f us", median(g, "sys") * 1000 / ffan_n),
			kib(median(g, "open") / ffan_ctx), kib(median(g, "grow") / ffan_ctx),
			kib((median(g, "open") + median(g, "grow")) / ffan_ctx), ex)
		FOK[i] = c1 == C[g, "complete"] && c2 == C[g, "complete"] && c1 > 0 && LL[i]
	}
	mu = median(gu, "ms"); ma = median(ga, "ms"); su = median(gu, "sys"); sa = median(ga, "sys")
	tu = median(gu, "open") + median(gu, "grow"); ta = median(ga, "open") + median(ga, "grow")
	print row(w, sprintf("ratio (queue %d)", share), sprintf("%.2fx", mu ? ma / mu : 0), sprintf("%.2fx", su ? sa / su : 0),
		"", "", "", sprintf("%.2fx", tu ? ta / tu : 0), "")
	print rule(w)
	print ""
	printf "The same storms with no context open, %d events of one type: %s %.1f us,\n", \
		SCN, FT[1], median("none" SUBSEP "stormcost" SUBSEP FT[1], "us")
	printf "%s %.1f us of wall time per event. Each ib_uverbs context read and dropped\n", \
		FT[2], median("none" SUBSEP "stormcost" SUBSEP FT[2], "us")
	printf "%.0f events of the other type per storm. *Exact*: in both phases, in every\n", median(gu, "other") / 2
	printf "context, delivered + lost is its share (ib_uverbs and the channels of the\n"
	printf "whole share must lose nothing); lost events per context, phase 1 + phase 2,\n"
	printf "shown when not 0. Kernel CPU per event: over all the contexts, per event\n"
	printf "dispatched. Storm growth of the no-reader row: the whole storm, no context.\n"
	allok = 1
	for (i = 1; i <= nr; i++)
		if (!FOK[i]) allok = 0
	gok = 1
	for (i = 2; i <= nr; i++)
		if (median(RK[i], "grow") > noise) gok = 0
	printf "Target: ib_async faster, with less kernel CPU, every context exact, storm\n"
	printf "growth (all contexts) within Slab noise (%s): %s\n", kib(noise), yn(ma < mu && sa < su && allok && gok)

	# ---- 10. coalescing
	printf "\n10. Coalescing under a storm of one type: a coalescing event channel\n"
	printf "    subscribed to SM_CHANGE (default queue length), nobody reading during the\n"
	printf "    storm; growth of Slab + VmallocUsed from after the channel was made to the\n"
	printf "    end of the storm (as section 1), then the channel read: it must hold one\n"
	printf "    record whose occurrences are the storm size, no overflow. The context's\n"
	printf "    own queue (1024) also got the storm: delivered + lost must be exact too\n\n"
	w = "5 9 15 12 22 20"
	print rule(w)
	print row(w, "storm", "no reader", "ib_async", "at open", "record read after", "context queue")
	print row(w, "", "", "growth", "(ctx + chan)", "(exact runs)", "delivered + lost")
	print rule(w)
	nz = split(coal_sizes, CZ, " ")
	coal_ok = 1
	for (i = 1; i <= nz; i++) {
		n = CZ[i]
		g = "ib_async" SUBSEP "coal" SUBSEP n
		gnn = "none" SUBSEP "stall" SUBSEP n
		ex = 0
		for (j = 1; j <= C[g, "exact"]; j++) ex += V[g, "exact", j]
		mg = median(g, "growth"); mnn = median(gnn, "growth")
		print row(w, pow10(n), C[gnn, "growth"] ? kib(mnn) : "n/a", kib(mg), kib(median(g, "open")),
			sprintf("%d x %d (%d/%d)", median(g, "records"), median(g, "occ"), ex, C[g, "exact"]),
			sprintf("%d+%d", median(g, "ctxgot"), median(g, "ctxlost")))
		# no more growth than a storm with no reader at all makes
		if (ex != C[g, "exact"] || !ex || mg > noise)
			coal_ok = 0
		CG[i] = mg
	}
	print rule(w)
	print ""
	if (nz >= 2 && CG[nz] - CG[1] > noise)
		coal_ok = 0
	printf "Target: growth no larger than a storm with no reader makes (Slab noise,\n"
	printf "%s) and independent of storm size, every run one record whose\n", kib(noise)
	printf "occurrences are exactly the storm: %s\n", yn(coal_ok)
}

# The most of field k in a run of either stack.
function max_both(gu, ga, k,    m) {
	m = maxv(gu, k)
	return maxv(ga, k) > m ? maxv(ga, k) : m
}

# The head of a table of times (microseconds) on both stacks and their
# rows: fields keys (a space between) named by labels ("|" between), of
# which those in mine (a space between) only ib_async has. The caller
# adds any other rows and the closing rule.
function both_rows(w, gu, ga, keys, labels, mine,    K, L, i, u, a, both) {
	print rule(w)
	print row(w, "", "ib_uverbs", "ib_async", "ratio")
	print rule(w)
	split(keys, K, " ")
	split(labels, L, "|")
	for (i = 1; i in K; i++) {
		u = median(gu, K[i]) / 1000; a = median(ga, K[i]) / 1000
		both = !index(" " mine " ", " " K[i] " ")
		print row(w, L[i], both ? sprintf("%.2f", u) : "-", sprintf("%.2f", a),
			both && u ? sprintf("%.1fx", a / u) : "")
	}
}

# A rateprof group's time per message on its slower side.
function slower_side(g) {
	return median(g, "client_ns") > median(g, "server_ns") ? \
		median(g, "client_ns") : median(g, "server_ns")
}

# Where the message rate's time goes (ibbench rateprof), beside the rate
# perftest measured in the same run; the slower side bounds the rate of
# two processes on two CPUs.
function rate_table(    gu, ga, w, bu, ba) {
	gu = "uverbs" SUBSEP "rateprof"; ga = "ib_async" SUBSEP "rateprof"
	if (!C[gu, "client_ns"] || !C[ga, "client_ns"])
		return
	printf "\nWhere the message rate's time goes (microseconds per message, medians\n"
	printf "over the runs): the send_rate row's calls made by one process on an RC\n"
	printf "loopback pair, %d rounds of %d lists of %d 64-byte SENDs, the last of each\n", rate_rounds, rate_m, postlist
	printf "signalled; each round posts the receives one by one, the lists, then\n"
	printf "reaps both CQs 16 at a time, each part timed over the round. On 6.1 rxe\n"
	printf "runs the transfers inside the post, from 6.4 in its worker, which the\n"
	printf "poll then waits for. The client is the lists and their polls, the server\n"
	printf "the receives' polls and posts; perftest runs them as two processes on\n"
	printf "two CPUs, so the slower side bounds the rate (polls that found nothing:\n"
	printf "at most %d in a run)\n\n", max_both(gu, ga, "empty_polls")
	w = "44 9 8 6"
	both_rows(w, gu, ga, "post_list_ns poll_send_ns client_ns poll_recv_ns post_recv_ns server_ns",
		"ibv_post_send, lists of " postlist "|ibv_poll_cq, a completion per list|the client|ibv_poll_cq, the receives (16 a poll)|ibv_post_recv, one per message|the server",
		"")
	bu = slower_side(gu)
	ba = slower_side(ga)
	print row(w, "the slower side's bound, Mpps", sprintf("%.4f", 1000 / bu), sprintf("%.4f", 1000 / ba),
		sprintf("%.2fx", bu / ba))
	gu = "uverbs" SUBSEP "perf" SUBSEP "send_rate"; ga = "ib_async" SUBSEP "perf" SUBSEP "send_rate"
	if (C[gu, "mpps"] && C[ga, "mpps"] && median(gu, "mpps") > 0)
		print row(w, "perftest's send_rate, Mpps (above)", sprintf("%.4f", median(gu, "mpps")),
			sprintf("%.4f", median(ga, "mpps")), sprintf("%.2fx", median(ga, "mpps") / median(gu, "mpps")))
	print rule(w)
}

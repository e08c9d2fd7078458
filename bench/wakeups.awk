# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# wakeups.awk: the guest's trace of workqueue and scheduler events over
# one ibbench run. For each rxe work item the program itself queued (in
# its system call): how long until a worker started it, and whether the
# worker's CPU was idle and had to be woken first (a kworker's
# sched_wakeup on behalf of <idle>). rxe queues its work on 6.12 and
# later; on 6.1 it runs tasklets and the counts are 0.

function stamp(   i, t) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) {
			t = $i
			sub(/:$/, "", t)
			return t + 0
		}
	return -1
}

/workqueue_queue_work:/ && /do_work/ && $1 ~ /^ibbench/ {
	pending = 1
	queued_at = stamp()
	woken = 0
	queued++
	next
}

/sched_wakeup:/ && /comm=kworker/ && $1 ~ /^<idle>/ {
	if (pending)
		woken = 1
	next
}

/workqueue_execute_start:/ && /do_work/ && pending {
	d = stamp() - queued_at
	pending = 0
	started++
	if (woken) {
		idle++
		idle_us += 1e6 * d
	} else {
		busy_us += 1e6 * d
	}
}

END {
	printf("wakeups side=%s queued=%d idle_cpu=%d idle_start_us=%.1f " \
	       "busy_cpu=%d busy_start_us=%.1f\n", side, queued, idle,
	       idle ? idle_us / idle : 0, started - idle,
	       started > idle ? busy_us / (started - idle) : 0)
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mckey_drain.so: preloaded into mckey's sender by make rdmacm-test, on
 * both stacks alike. mckey's sender posts its messages unsignaled and
 * then at once leaves the group, destroys its AH and its QP. rxe up to
 * 6.3 sends a user QP's work requests inside ibv_post_send() (and a
 * kernel QP's in a tasklet run before the post returns); from 6.4 on
 * rxe_post_send() only queues the QP's send task on a workqueue, and the
 * requests it has not reached when the AH and QP go are never sent: the
 * receivers then wait forever for them (6.12 and 7.3, on ib_uverbs and
 * over the shim; Documentation/ib_async.rst, "Applications that use
 * librdmacm").
 *
 * This rdma_leave_multicast() first waits until the device's sent_pkts
 * counter (rxe's hw_counters) has not moved for half a second, at least
 * one second and at most ten, then calls librdmacm's. It sends nothing
 * and changes no request: a stack that does not send the datagrams still
 * leaves the receivers waiting.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include <rdma/rdma_cma.h>

static long long packets_sent(const struct rdma_cm_id *id)
{
	char path[256];
	long long n = -1;
	FILE *f;

	if (!id->verbs || !id->verbs->device)
		return -1;
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%u/hw_counters/sent_pkts",
		 id->verbs->device->name, id->port_num ? id->port_num : 1);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	int (*leave)(struct rdma_cm_id *id, struct sockaddr *addr);
	long long was, now;
	int ms;

	was = packets_sent(id);
	nap(1000);
	for (ms = 1000; ms < 10000; ms += 500) {
		now = packets_sent(id);
		if (now == was)
			break;
		was = now;
		nap(500);
	}
	leave = (int (*)(struct rdma_cm_id *, struct sockaddr *))
		dlsym(RTLD_NEXT, "rdma_leave_multicast");
	if (!leave)
		return -1;
	return leave(id, addr);
}

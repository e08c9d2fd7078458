// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdmacm_unplug ADDR PORT: make rdmacm-test's hot-unplug probe. An
 * rdma_cm ID bound to ADDR:PORT with a UD QP (rdma_create_qp) on the
 * device librdmacm found for it, then nothing but waiting: librdmacm's
 * event channel and the verbs context's async fd (ibv_get_async_event())
 * are watched until the device goes away. Prints "ready" once set up,
 * then one line for each event, "cm EVENT" and "async EVENT", and exits
 * 0 once both RDMA_CM_EVENT_DEVICE_REMOVAL and IBV_EVENT_DEVICE_FATAL
 * came, 1 if 120 s passed first, 2 if the setup failed.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static int fail(const char *what)
{
	perror(what);
	return 2;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct ibv_qp_init_attr qa;
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int removal = 0, fatal = 0;
	time_t end;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1)
		return fail("inet_pton");
	ch = rdma_create_event_channel();
	if (!ch)
		return fail("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		return fail("rdma_create_id");
	if (rdma_bind_addr(id, (struct sockaddr *)&sin) || !id->verbs)
		return fail("rdma_bind_addr");
	pd = ibv_alloc_pd(id->verbs);
	if (!pd)
		return fail("ibv_alloc_pd");
	cq = ibv_create_cq(id->verbs, 4, NULL, NULL, 0);
	if (!cq)
		return fail("ibv_create_cq");
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_UD;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 2;
	qa.cap.max_recv_wr = 2;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qa))
		return fail("rdma_create_qp");
	printf("ready %s qp %u\n", ibv_get_device_name(id->verbs->device),
	       id->qp->qp_num);
	fflush(stdout);

	end = time(NULL) + 120;
	while (!(removal && fatal) && time(NULL) < end) {
		struct pollfd p[2] = {
			{ .fd = ch->fd, .events = POLLIN },
			{ .fd = id->verbs->async_fd, .events = POLLIN },
		};

		/* each source is read until its end-of-stream event */
		if (poll(p + removal, 2 - removal - fatal, 1000) <= 0)
			continue;
		if (!removal && (p[0].revents & POLLIN)) {
			struct rdma_cm_event *e;

			if (rdma_get_cm_event(ch, &e))
				return fail("rdma_get_cm_event");
			printf("cm %s\n", rdma_event_str(e->event));
			removal = e->event == RDMA_CM_EVENT_DEVICE_REMOVAL;
			rdma_ack_cm_event(e);
		}
		if (!fatal && (p[1].revents & POLLIN)) {
			struct ibv_async_event ae;

			if (ibv_get_async_event(id->verbs, &ae))
				return fail("ibv_get_async_event");
			printf("async %s(%d) %s\n",
			       ae.event_type == IBV_EVENT_DEVICE_FATAL ?
			       "IBV_EVENT_DEVICE_FATAL" : "",
			       ae.event_type, ibv_event_type_str(ae.event_type));
			fatal = ae.event_type == IBV_EVENT_DEVICE_FATAL;
			ibv_ack_async_event(&ae);
		}
		fflush(stdout);
	}
	/* The device is gone: teardown may fail (EIO), which is fine here. */
	rdma_destroy_qp(id);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	printf("removal %d fatal %d\n", removal, fatal);
	return removal && fatal ? 0 : 1;
}

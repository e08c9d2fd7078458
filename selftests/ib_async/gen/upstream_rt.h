/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Runtime of ib_async_upstream_async (test_upstream.py --emit): the C that
 * rdma_fuzzing_async.py's GetAsyncEvent and AckAsyncEvent generate, one
 * get and ack function pair per combination of their mutable fields, run
 * through real events of rxe (REFERENCE 2): the peer link down and up
 * (PORT_ERR, PORT_ACTIVE: a port element), a QP to ERR whose flush
 * overruns its one-entry receive CQ (CQ_ERR: a CQ element) and a UD QP
 * from RTS to SQD (SQ_DRAINED: a QP element).
 *
 * The program provides what that generator's programs have around the
 * generated code: `ctx`, the open context, and an IF_OK_PTR() that runs
 * its block only for a non-NULL pointer.  Each event read is checked here
 * against the object that caused it, acked once by the ack function (its
 * live flag must drop) and counted; the objects are destroyed at the end,
 * which would block on an event left unacked (SIGALRM ends the program
 * then).  One "ok"/"not ok" line per combination and scenario; exit 0 if
 * all passed.
 *
 *   ib_async_upstream_async PEER_NETDEV   (root: it sets the link down)
 */
#ifndef UPSTREAM_RT_H
#define UPSTREAM_RT_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* what the other generator's program template gives generated code */
static struct ibv_context *ctx;
#define IF_OK_PTR(p, ...)						\
	do {								\
		if (p) {						\
			__VA_ARGS__					\
		} else {						\
			fprintf(stderr, "[skip] %s is NULL\n", #p);	\
		}							\
	} while (0)

struct up_combo {
	const char *name;
	int nonblock;
	int timeout_ms;
	int (*get)(struct ibv_async_event *seen); /* 1: read one */
	int (*ack)(void);			  /* the live flag after */
};
extern const struct up_combo up_combos[];
extern const int up_ncombos;

static int up_reads, up_acks, up_failed, up_n;

static void up_result(int ok, const char *combo, const char *what)
{
	up_n++;
	up_failed += !ok;
	printf("%s %d - %s: %s\n", ok ? "ok" : "not ok", up_n, combo, what);
	fflush(stdout);
}

static double up_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Reads events through the combination's generated get for up to secs,
 * acking each through its generated ack, until one of type want whose
 * element is cq, qp or port (the others NULL/0: not checked) has come.
 * Other events (a GID_CHANGE of the link, an extra CQ_ERR of the same
 * flush) are acked and counted too. 1 if the wanted event came.
 */
static int up_collect(const struct up_combo *c, enum ibv_event_type want,
		      struct ibv_cq *cq, struct ibv_qp *qp, int port,
		      double secs)
{
	struct ibv_async_event seen;
	double end = up_now() + secs;
	int found = 0, bad = 0;

	while (!found && up_now() < end) {
		if (!c->get(&seen)) {
			/* nothing read: the blocking form already waited */
			if (c->nonblock || !c->timeout_ms)
				usleep(20000);
			continue;
		}
		up_reads++;
		if (c->ack()) {
			fprintf(stderr, "# %s: live after its ack\n", c->name);
			bad = 1;
		} else {
			up_acks++;
		}
		if (seen.event_type != want)
			continue;
		if ((cq && seen.element.cq != cq) ||
		    (qp && seen.element.qp != qp) ||
		    (port && (int)seen.element.port_num != port)) {
			fprintf(stderr, "# %s: %s on another element\n",
				c->name, ibv_event_type_str(want));
			bad = 1;
		}
		found = 1;
	}
	return found && !bad;
}

static int up_link(const char *netdev, const char *state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set %s %s", netdev, state);
	return system(cmd);
}

static void up_port_flap(const struct up_combo *c, const char *peer)
{
	up_result(up_link(peer, "down") == 0 &&
		  up_collect(c, IBV_EVENT_PORT_ERR, NULL, NULL, 1, 15),
		  c->name, "PORT_ERR of the link down, port 1, acked");
	up_result(up_link(peer, "up") == 0 &&
		  up_collect(c, IBV_EVENT_PORT_ACTIVE, NULL, NULL, 1, 15),
		  c->name, "PORT_ACTIVE of the link up, port 1, acked");
}

static int up_modify(struct ibv_qp *qp, enum ibv_qp_state s, int mask)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	a.port_num = 1;
	a.qkey = 0x11111111;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | mask);
}

/* CQ_ERR (the CQ element) and SQ_DRAINED (the QP element), then every
 * object destroyed: each destroy returns only once its events are acked */
static void up_qp_events(const struct up_combo *c, struct ibv_pd *pd)
{
	static char buf[64];
	struct ibv_qp_init_attr ia;
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_cq *cq1 = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *rc = NULL, *ud = NULL;
	int i, ok = 0;

	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	if (cq1 && cq && mr) {
		ia.qp_type = IBV_QPT_RC;
		ia.send_cq = cq;
		ia.recv_cq = cq1;
		rc = ibv_create_qp(pd, &ia);
		ia.qp_type = IBV_QPT_UD;
		ia.recv_cq = cq;
		ud = ibv_create_qp(pd, &ia);
	}
	if (rc && !up_modify(rc, IBV_QPS_INIT, IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		ok = 1;
		for (i = 0; i < 3; i++) {
			sge.addr = (uintptr_t)buf;
			sge.length = sizeof(buf);
			sge.lkey = mr->lkey;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			ok &= !ibv_post_recv(rc, &wr, &bad);
		}
		ok = ok && !up_modify(rc, IBV_QPS_ERR, 0);
	}
	up_result(ok && up_collect(c, IBV_EVENT_CQ_ERR, cq1, NULL, 0, 15),
		  c->name, "CQ_ERR of a QP's flush, its CQ, acked");
	ok = ud && !up_modify(ud, IBV_QPS_INIT, IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_QKEY) &&
	     !up_modify(ud, IBV_QPS_RTR, 0) &&
	     !up_modify(ud, IBV_QPS_RTS, IBV_QP_SQ_PSN) &&
	     !up_modify(ud, IBV_QPS_SQD, 0);
	up_result(ok && up_collect(c, IBV_EVENT_SQ_DRAINED, NULL, ud, 0, 15),
		  c->name, "SQ_DRAINED of a UD QP to SQD, its QP, acked");
	/* the rest of the flush's CQ_ERRs: read and acked before cq1 goes */
	while (up_collect(c, IBV_EVENT_CQ_ERR, cq1, NULL, 0, 0.3))
		;
	alarm(30);
	ok = (!rc || !ibv_destroy_qp(rc)) && (!ud || !ibv_destroy_qp(ud)) &&
	     (!cq1 || !ibv_destroy_cq(cq1)) && (!cq || !ibv_destroy_cq(cq)) &&
	     (!mr || !ibv_dereg_mr(mr));
	alarm(0);
	up_result(ok, c->name, "QPs and CQs destroyed: no event left unacked");
}

int main(int argc, char **argv)
{
	const char *ibdev = getenv("IB_ASYNC_IBDEV");
	struct ibv_device **list = NULL;
	struct ibv_pd *pd;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PEER_NETDEV\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!ibdev)
		ibdev = "rxe0";
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), ibdev))
			ctx = ibv_open_device(list[i]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd) {
		printf("not ok 1 - device %s opened, PD allocated\n1..1\n",
		       ibdev);
		return 1;
	}
	for (i = 0; i < up_ncombos; i++) {
		up_port_flap(&up_combos[i], argv[1]);
		up_qp_events(&up_combos[i], pd);
	}
	up_result(up_reads > 0 && up_reads == up_acks, "all",
		  "every event read was acked once");
	printf("# %d events read, %d acked\n", up_reads, up_acks);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	if (list)
		ibv_free_device_list(list);
	printf("1..%d\n", up_n);
	return up_failed ? 1 : 0;
}

#endif /* UPSTREAM_RT_H */

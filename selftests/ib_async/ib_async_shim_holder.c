// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for ib_async_unplug.sh: an rdma-core style program on libibasync
 * whose device is removed while it holds a PD, CQ and QP, has not
 * acknowledged a delivered SQ_DRAINED, and waits in ibv_get_async_event().
 *
 * After the removal it must get DEVICE_FATAL, then -1 with ENODEV; then
 * ibv_destroy_qp() must return 0 promptly although the QP's event is still
 * unacknowledged (acks can no longer matter), the late ack must be safe,
 * and the rest must clean up: destroy CQ, dealloc PD, close the device.
 * On rxe it also holds user memory registered with the device and a
 * receive posted into it: after the removal, ibv_dereg_mr() must succeed
 * and the pages must be unpinned (VmPin back to 0).
 *
 * Prints "ready PID", then "ok ..." and exits 0, or "fail: ..." and 1.
 * Device: IB_ASYNC_IBDEV (default rxe0; evsrc0 raises the SQ_DRAINED
 * through its raise file).
 */
#define IBA_NO_HARNESS
#include <infiniband/verbs.h>

#include "lib/iba_evsrc.h"

static int fail(const char *what)
{
	printf("fail: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(void)
{
	const char *name = getenv("IB_ASYNC_IBDEV") ? : "rxe0";
	struct ibv_qp_init_attr qi = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111 };
	struct ibv_async_event held, ev;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr = NULL;
	static char buf[65536] __attribute__((aligned(4096)));
	uint64_t t0;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return fail("open");
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	qi.send_cq = qi.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &qi) : NULL;
	if (!qp ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return fail("objects");
	if (!strncmp(name, "rxe", 3)) {
		struct ibv_sge sge = { (uintptr_t)buf, 4096, 0 };
		struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			return fail("ibv_reg_mr");
		sge.lkey = mr->lkey;
		if (ibv_post_recv(qp, &rw, &bad))
			return fail("ibv_post_recv");
		if (iba_vm_pin_kb() < (long)sizeof(buf) / 1024) {
			errno = EINVAL;
			return fail("VmPin after ibv_reg_mr");
		}
	}
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return fail("RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return fail("RTS");
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY))
		return fail("SQD");
	if (!strncmp(name, "evsrc", 5) &&
	    iba_evsrc_write("raise", "%u qp:%d process", IBV_EVENT_SQ_DRAINED,
			iba_evsrc_find("qp", qp->qp_num)))
		return fail("evsrc raise");
	do {
		if (ibv_get_async_event(ctx, &held))
			return fail("get SQ_DRAINED");
	} while (held.event_type != IBV_EVENT_SQ_DRAINED);
	if (held.element.qp != qp)
		return fail("SQ_DRAINED element");
	/* delivered, never acknowledged before the removal */
	printf("ready %d\n", getpid());
	fflush(stdout);

	do {
		if (ibv_get_async_event(ctx, &ev))
			return fail("get DEVICE_FATAL");
		ibv_ack_async_event(&ev);
	} while (ev.event_type != IBV_EVENT_DEVICE_FATAL);
	errno = 0;
	if (ibv_get_async_event(ctx, &ev) != -1 || errno != ENODEV)
		return fail("after DEVICE_FATAL (want -1, ENODEV)");

	t0 = iba_now_ms();
	if (ibv_destroy_qp(qp))
		return fail("ibv_destroy_qp");
	if (iba_now_ms() - t0 > 500) {
		errno = ETIMEDOUT;
		return fail("ibv_destroy_qp waited for an ack");
	}
	ibv_ack_async_event(&held);	/* late, on a parked QP: must be safe */
	if (mr && ibv_dereg_mr(mr))
		return fail("ibv_dereg_mr");
	if (mr && iba_vm_pin_kb() != 0) {
		errno = EBUSY;
		return fail("VmPin after ibv_dereg_mr");
	}
	if (ibv_destroy_cq(cq) || ibv_dealloc_pd(pd))
		return fail("destroy CQ/PD");
	if (ibv_close_device(ctx))
		return fail("close");
	printf("ok shim: DEVICE_FATAL, ENODEV, destroy in %llu ms without the ack%s\n",
	       (unsigned long long)(iba_now_ms() - t0),
	       mr ? ", user memory unpinned" : "");
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Regression (difftest, seed 100001): ibv_query_qp() must report the
 * capacities the driver really gave the QP, as rdma-core does.
 *
 * rxe rounds a queue of 16 work requests up to 31 (a power of two minus
 * one). rdma-core over ib_uverbs: ibv_create_qp() leaves the requested 16 in
 * init_attr.cap (uverbs copies back what the driver wrote, and rxe does not
 * write the RQ size), and ibv_query_qp() returns the driver's 31. The shim
 * answers ibv_query_qp() from the caps it saved at create time (16):
 * user/src/objects.c, attr->cap = q->cap, and IB_ASYNC_IOC_QUERY_QP
 * carries no caps.
 */
#include "difftest_rt.h"

int main(void)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	setup();
	create_cq(0, 16, 0);
	pd[0] = ibv_alloc_pd(ctx);
	tr_ptr("ibv_alloc_pd(pd0)", "ok", pd[0]);
	create_qp(0, 0, IBV_QPT_UD, 0, 0, -1, 16);
	if (qp[0] && !ibv_query_qp(qp[0], &a, IBV_QP_CAP, &i))
		line("query: attr.cap.max_recv_wr=%u init_attr.cap.max_recv_wr=%u max_send_wr=%u",
		     a.cap.max_recv_wr, i.cap.max_recv_wr, i.cap.max_send_wr);
	DESTROY(ibv_destroy_qp, qp, 0, "q");
	DESTROY(ibv_destroy_cq, cq, 0, "cq");
	DESTROY(ibv_dealloc_pd, pd, 0, "pd");
	return finish();
}

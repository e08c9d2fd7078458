/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Regression (difftest, seed 300007): a receive whose MR was deregistered
 * before the message arrived must not complete with success.
 *
 * On rxe over ib_uverbs the lkey is looked up when the message lands: the
 * receive completes with IBV_WC_LOC_QP_OP_ERR, the QP goes to ERR and the
 * rest is flushed. The shim checks lkeys only at post time (user/src/mr.c,
 * datapath.c) and writes the payload into the buffer when the completion
 * is polled, with success: into memory the program already gave back.
 */
#include "difftest_rt.h"

int main(void)
{
	setup();
	create_cq(0, 16, 0);
	pd[0] = ibv_alloc_pd(ctx);
	tr_ptr("ibv_alloc_pd(pd0)", "ok", pd[0]);
	reg_mr(0, 0, 0x1);
	reg_mr(1, 0, 0x1);
	create_qp(0, 0, IBV_QPT_UD, 0, 0, -1, 16);
	modify_qp(0, IBV_QPS_INIT, -1, -1);
	modify_qp(0, IBV_QPS_RTR, -1, -1);
	modify_qp(0, IBV_QPS_RTS, -1, -1);
	post_recv(0, -1, 1, 1, 512, 0);
	DESTROY(ibv_dereg_mr, mr, 1, "mr");
	create_ah(0, 0, 0);
	post_send(0, 0, 2, 64, 0, 1, 0, 0, QKEY, -1);
	poll_cq(0, 2);
	DESTROY(ibv_destroy_qp, qp, 0, "q");
	DESTROY(ibv_destroy_ah, ah, 0, "ah");
	DESTROY(ibv_dereg_mr, mr, 0, "mr");
	DESTROY(ibv_destroy_cq, cq, 0, "cq");
	DESTROY(ibv_dealloc_pd, pd, 0, "pd");
	return finish();
}

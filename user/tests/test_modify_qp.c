// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_modify_qp() sends the kernel only the fields its mask names, as
 * libibverbs does (copy_modify_qp_fields()). librdmacm's rdma_disconnect()
 * moves the QP to ERR with an ibv_qp_attr left uninitialised but for
 * qp_state (issue 44); passing the rest on made the kernel refuse a
 * cur_qp_state it was never asked to look at, the disconnect failed
 * before its DREQ, and ucmatose's two sides waited for DISCONNECTED
 * forever. A fake kernel keeps the MODIFY_QP argument the shim sent; the
 * test reads it back.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "tap.h"

static struct ib_async_qp_attr sent;
static int nsent;

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	if (req == IB_ASYNC_IOC_MODIFY_QP) {
		memcpy(&sent, arg, sizeof(sent));
		nsent++;
		return 0;
	}
	return FAKE_IOCTL_PASS;
}

/* the fields of @a other than argsz, handle, attr_mask and @keep, all 0? */
static int rest_zero(const struct ib_async_qp_attr *a)
{
	struct ib_async_qp_attr z;

	memcpy(&z, a, sizeof(z));
	z.argsz = 0;
	z.handle = 0;
	z.attr_mask = 0;
	z.qp_state = 0;
	return !memcmp(&z, &(struct ib_async_qp_attr){ 0 }, sizeof(z));
}

static void test_state_only(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int ret;

	/* what rdma_disconnect() passes: stack leftovers but for qp_state */
	memset(&attr, 0xa5, sizeof(attr));
	attr.qp_state = IBV_QPS_ERR;
	nsent = 0;
	ret = ibv_modify_qp(qp, &attr, IBV_QP_STATE);
	OK(ret == 0 && nsent == 1, "modify to ERR, state only: sent (%d)", ret);
	OK(sent.attr_mask == IBV_QP_STATE && sent.qp_state == IBV_QPS_ERR &&
	   sent.handle == 5,
	   "the kernel gets the mask, the state and the handle (%#x, %u)",
	   sent.attr_mask, sent.qp_state);
	OK(sent.cur_qp_state == 0,
	   "cur_qp_state outside the mask is not sent (%u)", sent.cur_qp_state);
	OK(rest_zero(&sent), "nothing else outside the mask is sent");
	OK(qp->state == IBV_QPS_ERR, "the QP's state follows (%d)", qp->state);
}

static void test_all_fields(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int mask = IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_PATH_MTU |
		IBV_QP_QKEY | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | IBV_QP_DEST_QPN |
		IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_MAX_QP_RD_ATOMIC |
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
		IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.cur_qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_1024;
	attr.qkey = 0x1234;
	attr.rq_psn = 11;
	attr.sq_psn = 12;
	attr.dest_qp_num = 13;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	attr.pkey_index = 1;
	attr.port_num = 1;
	attr.en_sqd_async_notify = 1;
	attr.max_rd_atomic = 2;
	attr.max_dest_rd_atomic = 3;
	attr.min_rnr_timer = 4;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 6;
	OK(ibv_modify_qp(qp, &attr, mask) == 0, "modify with every field");
	OK(sent.attr_mask == (uint32_t)mask && sent.qp_state == IBV_QPS_RTS &&
	   sent.cur_qp_state == IBV_QPS_RTR && sent.path_mtu == IBV_MTU_1024 &&
	   sent.qkey == 0x1234 && sent.rq_psn == 11 && sent.sq_psn == 12 &&
	   sent.dest_qp_num == 13 &&
	   sent.qp_access_flags == IBV_ACCESS_REMOTE_WRITE &&
	   sent.pkey_index == 1 && sent.port_num == 1 &&
	   sent.en_sqd_async_notify == 1 && sent.max_rd_atomic == 2 &&
	   sent.max_dest_rd_atomic == 3 && sent.min_rnr_timer == 4 &&
	   sent.timeout == 14 && sent.retry_cnt == 7 && sent.rnr_retry == 6,
	   "every field the mask names reaches the kernel");
}

int main(void)
{
	struct ft_fake0 ft;
	struct ibv_context *ctx;
	struct ibv_qp qp;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx != NULL, "open fake0"))
		return tap_done();
	memset(&qp, 0, sizeof(qp));
	qp.context = ctx;
	qp.handle = 5;
	qp.qp_type = IBV_QPT_RC;
	test_state_only(&qp);
	test_all_fields(&qp);
	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs objects' commands (cmd.h): the verbs call's arguments into
 * the uAPI's structures and the kernel's answer back into the object.
 * What is refused before the kernel is asked (other contexts' objects,
 * unsupported types) is the callers' (objects.c, mr.c): by the time a
 * command runs, it is one the library means to issue.
 *
 * An object's address is its user_handle: the kernel returns it in the
 * element of the object's event records.
 */
#include <string.h>

#include "cmd.h"

int ibasync_cmd_create_pd(struct ibv_context *ctx, uint32_t *handle)
{
	struct ib_async_create_pd arg = { 0 };
	int err;

	err = IBASYNC_CTX_CMD(ctx, CREATE_PD, &arg);
	if (!err)
		*handle = arg.handle;
	return err;
}

int ibasync_cmd_create_cq(struct ibv_context *ctx, struct ibv_cq *cq,
			  uint32_t cqe, uint32_t comp_vector, int comp_fd)
{
	struct ib_async_create_cq arg = {
		.user_handle = (uintptr_t)cq, .cqe = cqe,
		.comp_vector = comp_vector,
	};
	int err;

	if (comp_fd >= 0) {
		arg.flags = IB_ASYNC_CREATE_CQ_CHANNEL;
		arg.comp_channel = comp_fd;
	}
	err = IBASYNC_CTX_CMD(ctx, CREATE_CQ, &arg);
	if (err)
		return err;
	cq->handle = arg.handle;
	cq->cqe = (int)arg.cqe;
	return 0;
}

int ibasync_cmd_resize_cq(struct ibv_cq *cq, uint32_t cqe)
{
	struct ib_async_resize_cq arg = { .handle = cq->handle, .cqe = cqe };
	int err;

	err = IBASYNC_CTX_CMD(cq->context, RESIZE_CQ, &arg);
	if (!err)
		cq->cqe = (int)arg.cqe;
	return err;
}

int ibasync_cmd_req_notify_cq(struct ibv_cq *cq, bool solicited)
{
	struct ib_async_req_notify_cq arg = {
		.handle = cq->handle,
		.flags = solicited ? IB_ASYNC_NOTIFY_SOLICITED : 0,
	};

	return IBASYNC_CTX_CMD(cq->context, REQ_NOTIFY_CQ, &arg);
}

/* ---- address vectors ----------------------------------------------------- */

/* The callers refuse what ib_async does not set (rates, path bits). */
static void av_from_ibv(struct ib_async_av *av, const struct ibv_ah_attr *a)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, a->grh.dgid.raw, sizeof(av->dgid));
	av->flow_label = a->grh.flow_label;
	av->sgid_index = a->grh.sgid_index;
	av->hop_limit = a->grh.hop_limit;
	av->traffic_class = a->grh.traffic_class;
	av->dlid = a->dlid;
	av->sl = a->sl;
	av->is_global = a->is_global;
	av->port_num = a->port_num;
}

static void av_to_ibv(struct ibv_ah_attr *a, const struct ib_async_av *av)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid.raw, av->dgid, sizeof(av->dgid));
	a->grh.flow_label = av->flow_label;
	a->grh.sgid_index = av->sgid_index;
	a->grh.hop_limit = av->hop_limit;
	a->grh.traffic_class = av->traffic_class;
	a->dlid = av->dlid;
	a->sl = av->sl;
	a->is_global = av->is_global;
	a->port_num = av->port_num;
}

/* ---- QP ------------------------------------------------------------------ */

/* attr->cap is updated to what the kernel granted. */
int ibasync_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
			  struct ibv_qp_init_attr *attr)
{
	struct ib_async_create_qp arg = { 0 };
	int err;

	arg.user_handle = (uintptr_t)qp;
	arg.pd_handle = pd->handle;
	arg.send_cq_handle = attr->send_cq->handle;
	arg.recv_cq_handle = attr->recv_cq->handle;
	arg.srq_handle = attr->srq ? attr->srq->handle : 0;
	arg.qp_type = attr->qp_type;
	arg.sq_sig_all = !!attr->sq_sig_all;
	arg.max_send_wr = attr->cap.max_send_wr;
	arg.max_recv_wr = attr->cap.max_recv_wr;
	arg.max_send_sge = attr->cap.max_send_sge;
	arg.max_recv_sge = attr->cap.max_recv_sge;
	arg.max_inline_data = attr->cap.max_inline_data;
	err = IBASYNC_CTX_CMD(pd->context, CREATE_QP, &arg);
	if (err)
		return err;
	qp->handle = arg.handle;
	qp->qp_num = arg.qp_num;
	/* as libibverbs providers do: the caller learns what it got */
	attr->cap.max_send_wr = arg.max_send_wr;
	attr->cap.max_recv_wr = arg.max_recv_wr;
	attr->cap.max_send_sge = arg.max_send_sge;
	attr->cap.max_recv_sge = arg.max_recv_sge;
	attr->cap.max_inline_data = arg.max_inline_data;
	return 0;
}

int ibasync_cmd_modify_qp(struct ibv_qp *qp, const struct ibv_qp_attr *attr,
			  int attr_mask)
{
	struct ib_async_qp_attr a = {
		.handle = qp->handle, .attr_mask = (uint32_t)attr_mask,
	};

	/*
	 * Bits ib_async does not know are refused by the kernel, EOPNOTSUPP.
	 * As libibverbs (copy_modify_qp_fields()), only the fields the mask
	 * names are sent: callers leave the others uninitialised, as
	 * librdmacm's rdma_disconnect() does with all but qp_state.
	 */
#define MASKED(bit, field)						\
	do {								\
		if (attr_mask & (bit))					\
			a.field = attr->field;				\
	} while (0)
	MASKED(IBV_QP_STATE, qp_state);
	MASKED(IBV_QP_CUR_STATE, cur_qp_state);
	MASKED(IBV_QP_PATH_MTU, path_mtu);
	MASKED(IBV_QP_QKEY, qkey);
	MASKED(IBV_QP_RQ_PSN, rq_psn);
	MASKED(IBV_QP_SQ_PSN, sq_psn);
	MASKED(IBV_QP_DEST_QPN, dest_qp_num);
	if (attr_mask & IBV_QP_ACCESS_FLAGS)
		a.qp_access_flags = (uint32_t)attr->qp_access_flags;
	MASKED(IBV_QP_PKEY_INDEX, pkey_index);
	MASKED(IBV_QP_PORT, port_num);
	MASKED(IBV_QP_EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify);
	MASKED(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic);
	MASKED(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	MASKED(IBV_QP_MIN_RNR_TIMER, min_rnr_timer);
	MASKED(IBV_QP_TIMEOUT, timeout);
	MASKED(IBV_QP_RETRY_CNT, retry_cnt);
	MASKED(IBV_QP_RNR_RETRY, rnr_retry);
#undef MASKED
	if (attr_mask & IBV_QP_AV)
		av_from_ibv(&a.av, &attr->ah_attr);
	return IBASYNC_CTX_CMD(qp->context, MODIFY_QP, &a);
}

int ibasync_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr)
{
	struct ib_async_qp_attr a = { .handle = qp->handle };
	int err;

	err = IBASYNC_CTX_CMD(qp->context, QUERY_QP, &a);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = a.qp_state;
	attr->cur_qp_state = a.cur_qp_state;
	attr->path_mtu = a.path_mtu;
	attr->qkey = a.qkey;
	attr->rq_psn = a.rq_psn;
	attr->sq_psn = a.sq_psn;
	attr->dest_qp_num = a.dest_qp_num;
	attr->qp_access_flags = (unsigned int)a.qp_access_flags;
	attr->pkey_index = a.pkey_index;
	attr->port_num = a.port_num;
	attr->en_sqd_async_notify = a.en_sqd_async_notify;
	attr->sq_draining = a.sq_draining;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;
	/* What the driver reports now, as ib_uverbs' query returns it. */
	attr->cap.max_send_wr = a.max_send_wr;
	attr->cap.max_recv_wr = a.max_recv_wr;
	attr->cap.max_send_sge = a.max_send_sge;
	attr->cap.max_recv_sge = a.max_recv_sge;
	attr->cap.max_inline_data = a.max_inline_data;
	av_to_ibv(&attr->ah_attr, &a.av);
	return 0;
}

/* ---- SRQ, WQ, AH ---------------------------------------------------------*/

/* attr->attr's max_wr and max_sge are updated to what the kernel granted. */
int ibasync_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
			   struct ibv_srq_init_attr *attr)
{
	struct ib_async_create_srq arg = {
		.user_handle = (uintptr_t)srq, .pd_handle = pd->handle,
		.max_wr = attr->attr.max_wr, .max_sge = attr->attr.max_sge,
		.srq_limit = attr->attr.srq_limit,
	};
	int err;

	err = IBASYNC_CTX_CMD(pd->context, CREATE_SRQ, &arg);
	if (err)
		return err;
	srq->handle = arg.handle;
	attr->attr.max_wr = arg.max_wr;
	attr->attr.max_sge = arg.max_sge;
	return 0;
}

int ibasync_cmd_modify_srq(struct ibv_srq *srq,
			   const struct ibv_srq_attr *attr, int attr_mask)
{
	struct ib_async_srq_attr a = {
		.handle = srq->handle,
		.attr_mask = (uint32_t)attr_mask,
		.max_wr = attr->max_wr, .srq_limit = attr->srq_limit,
	};

	return IBASYNC_CTX_CMD(srq->context, MODIFY_SRQ, &a);
}

int ibasync_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ib_async_srq_attr a = { .handle = srq->handle };
	int err;

	err = IBASYNC_CTX_CMD(srq->context, QUERY_SRQ, &a);
	if (err)
		return err;
	attr->max_wr = a.max_wr;
	attr->max_sge = a.max_sge;
	attr->srq_limit = a.srq_limit;
	return 0;
}

/* attr's max_wr and max_sge are updated to what the kernel granted. */
int ibasync_cmd_create_wq(struct ibv_context *ctx, struct ibv_wq *wq,
			  struct ibv_wq_init_attr *attr)
{
	struct ib_async_create_wq arg = {
		.user_handle = (uintptr_t)wq, .pd_handle = attr->pd->handle,
		.cq_handle = attr->cq->handle, .max_wr = attr->max_wr,
		.max_sge = attr->max_sge,
	};
	int err;

	err = IBASYNC_CTX_CMD(ctx, CREATE_WQ, &arg);
	if (err)
		return err;
	wq->handle = arg.handle;
	attr->max_wr = arg.max_wr;
	attr->max_sge = arg.max_sge;
	return 0;
}

int ibasync_cmd_modify_wq(struct ibv_wq *wq, const struct ibv_wq_attr *attr)
{
	struct ib_async_modify_wq a = {
		.handle = wq->handle,
		.attr_mask = attr->attr_mask, .wq_state = attr->wq_state,
		.curr_wq_state = attr->curr_wq_state,
		.wq_flags = attr->flags, .wq_flags_mask = attr->flags_mask,
	};

	return IBASYNC_CTX_CMD(wq->context, MODIFY_WQ, &a);
}

int ibasync_cmd_create_ah(struct ibv_pd *pd, const struct ibv_ah_attr *attr,
			  uint32_t *handle)
{
	struct ib_async_create_ah arg = { .pd_handle = pd->handle };
	int err;

	av_from_ibv(&arg.av, attr);
	err = IBASYNC_CTX_CMD(pd->context, CREATE_AH, &arg);
	if (!err)
		*handle = arg.handle;
	return err;
}

/* ATTACH_MCAST or DETACH_MCAST of a UD QP; a kernel without them is ENOTTY */
int ibasync_cmd_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid, bool attach)
{
	struct ib_async_mcast arg = { .qp_handle = qp->handle, .lid = lid };

	memcpy(arg.gid, gid->raw, sizeof(arg.gid));
	if (attach)
		return IBASYNC_CTX_CMD(qp->context, ATTACH_MCAST, &arg);
	return IBASYNC_CTX_CMD(qp->context, DETACH_MCAST, &arg);
}

/* ---- MR, destroy ---------------------------------------------------------*/

int ibasync_cmd_reg_mr(struct ibv_pd *pd, struct ibv_mr *mr, void *addr,
		       size_t length, uint64_t iova, unsigned int access)
{
	struct ib_async_reg_mr arg = {
		.pd_handle = pd->handle, .addr = (uintptr_t)addr,
		.length = length, .iova = iova, .access = access,
	};
	int err;

	err = IBASYNC_CTX_CMD(pd->context, REG_MR, &arg);
	if (err)
		return err;
	mr->handle = arg.handle;
	mr->lkey = arg.lkey;
	mr->rkey = arg.rkey;
	return 0;
}

int ibasync_cmd_destroy(int fd, uint32_t obj_type, uint32_t handle,
			uint64_t *reported, uint64_t *comp_reported)
{
	struct ib_async_destroy d = {
		.argsz = sizeof(d), .obj_type = obj_type, .handle = handle,
	};
	int err;

	err = ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_DESTROY, &d);
	if (err)
		return err;
	*reported = d.events_reported;
	if (comp_reported)
		*comp_reported = d.comp_events_reported;
	return 0;
}

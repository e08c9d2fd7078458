// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: CREATE_QP, with the objects it names, MODIFY_QP and
 * QUERY_QP.
 *
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held.
 */

#include "verbs.h"

/* Look up the objects a QP names, all before anything is created. */
static int ib_async_qp_deps(struct ib_async_ucmd *c,
			    const struct ib_async_create_qp *arg,
			    struct ib_async_uobj **deps)
{
	static const u32 types[] = { IB_ASYNC_OBJ_PD, IB_ASYNC_OBJ_CQ,
				     IB_ASYNC_OBJ_CQ, IB_ASYNC_OBJ_SRQ };
	const u32 handles[] = { arg->pd_handle, arg->send_cq_handle,
				arg->recv_cq_handle, arg->srq_handle };
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		deps[i] = NULL;
		if (types[i] == IB_ASYNC_OBJ_SRQ && !handles[i])
			continue;
		deps[i] = ib_async_uobj_get(c->file, handles[i], types[i]);
		if (IS_ERR(deps[i]))
			return PTR_ERR(deps[i]);
	}
	return 0;
}

/* The sizes a QP's queues are charged for: asked for, or granted. */
static void ib_async_qp_sizes(struct ib_async_queue_sizes *s,
			      const struct ib_qp_init_attr *init)
{
	*s = (struct ib_async_queue_sizes) {
		.max_send_wr = init->cap.max_send_wr,
		.max_send_sge = init->cap.max_send_sge,
		.max_inline_data = init->cap.max_inline_data,
		.max_recv_wr = init->cap.max_recv_wr,
		.max_recv_sge = init->cap.max_recv_sge,
		.srq = !!init->srq,
	};
}

int ib_async_cmd_create_qp(struct ib_async_ucmd *c)
{
	struct ib_async_uobj *uobj, *deps[IB_ASYNC_UOBJ_MAX_USES];
	struct ib_qp_init_attr init = {};
	struct ib_async_create_qp *arg = c->cmd;
	struct ib_async_queue_sizes sizes;
	struct ib_qp *qp;
	int ret, i;

	if (arg->flags || arg->reserved || arg->handle || arg->qp_num)
		return -EINVAL;
	if ((arg->qp_type != IB_UVERBS_QPT_RC &&
	     arg->qp_type != IB_UVERBS_QPT_UC &&
	     arg->qp_type != IB_UVERBS_QPT_UD) ||
	    arg->sq_sig_all > 1)
		return -EINVAL;
	ret = ib_async_qp_deps(c, arg, deps);
	if (ret)
		return ret;

	uobj = ib_async_uobj_new(c->file, &ib_async_qp_type,
				 arg->user_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	init.event_handler = ib_async_uobj_event;
	init.qp_context = uobj;
	init.send_cq = deps[1]->cq;
	init.recv_cq = deps[2]->cq;
	init.srq = deps[3] ? deps[3]->srq : NULL;
	init.qp_type = arg->qp_type;
	init.sq_sig_type = arg->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = arg->max_send_wr;
	init.cap.max_recv_wr = arg->max_recv_wr;
	init.cap.max_send_sge = arg->max_send_sge;
	init.cap.max_recv_sge = arg->max_recv_sge;
	init.cap.max_inline_data = arg->max_inline_data;
	ib_async_qp_sizes(&sizes, &init);
	ret = ib_async_charge_asked(uobj, &sizes);
	if (ret)
		return ret;
	qp = ib_create_qp(deps[0]->pd, &init);
	if (IS_ERR(qp)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(qp);
	}
	uobj->qp = qp;
	uobj->qp_num = qp->qp_num;
	uobj->sq_sig_all = arg->sq_sig_all;
	uobj->max_inline = init.cap.max_inline_data;
	uobj->max_send_sge = init.cap.max_send_sge;
	uobj->max_recv_sge = init.srq ? 0 : init.cap.max_recv_sge;
	uobj->send_cq = deps[1];
	uobj->recv_cq = deps[2];
	uobj->qp_srq = deps[3];
	for (i = 0; i < IB_ASYNC_UOBJ_MAX_USES; i++)
		ib_async_uobj_use(uobj, deps[i]);

	arg->max_send_wr = init.cap.max_send_wr;
	arg->max_recv_wr = init.cap.max_recv_wr;
	arg->max_send_sge = init.cap.max_send_sge;
	arg->max_recv_sge = init.cap.max_recv_sge;
	arg->max_inline_data = init.cap.max_inline_data;
	arg->qp_num = qp->qp_num;
	ib_async_qp_sizes(&sizes, &init);
	return ib_async_put_charged(c, uobj, &sizes, &arg->handle);
}

/*
 * The primary path's port, as ib_uverbs checks it: INIT to RTR takes the
 * port chosen at RESET to INIT, so the address vector must name that one;
 * otherwise (SQD to SQD) the two go together, and an address vector alone
 * moves the QP's port with it, since the driver does not track the primary
 * port through a path change.
 */
static int ib_async_check_av_port(const struct ib_qp *qp,
				  struct ib_async_qp_attr *arg)
{
	if (!(arg->attr_mask & IB_ASYNC_QP_AV))
		return 0;
	if ((arg->attr_mask & IB_ASYNC_QP_STATE) &&
	    arg->qp_state == IB_QPS_RTR)
		return arg->av.port_num == qp->port ? 0 : -EINVAL;
	if (!(arg->attr_mask & IB_ASYNC_QP_PORT)) {
		arg->attr_mask |= IB_ASYNC_QP_PORT;
		arg->port_num = arg->av.port_num;
	}
	return arg->port_num == arg->av.port_num ? 0 : -EINVAL;
}

int ib_async_cmd_modify_qp(struct ib_async_ucmd *c)
{
	struct ib_async_qp_attr *arg = c->cmd;
	struct ib_async_uobj *uobj;
	struct ib_qp_attr attr = {};
	bool reset;
	int ret;

	if (arg->flags || arg->reserved || arg->reserved8 || arg->sq_draining ||
	    arg->av.reserved || !arg->attr_mask || arg->max_send_wr ||
	    arg->max_recv_wr || arg->max_send_sge || arg->max_recv_sge ||
	    arg->max_inline_data || arg->reserved2)
		return -EINVAL;
	if (arg->attr_mask & ~IB_ASYNC_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;
	/*
	 * As ib_uverbs' modify_qp(): a field counts only under its mask bit.
	 * librdmacm's rdma_disconnect() moves the QP to ERR with an
	 * ibv_qp_attr left uninitialised but for qp_state; refusing the
	 * stack's leftovers in cur_qp_state failed the disconnect before its
	 * DREQ, and ucmatose's peers waited for DISCONNECTED forever.
	 */
	if (((arg->attr_mask & IB_ASYNC_QP_STATE) &&
	     arg->qp_state > IB_QPS_ERR) ||
	    ((arg->attr_mask & IB_ASYNC_QP_CUR_STATE) &&
	     arg->cur_qp_state > IB_QPS_ERR) ||
	    ((arg->attr_mask & IB_ASYNC_QP_PORT) &&
	     !rdma_is_port_valid(c->ib_dev, arg->port_num)))
		return -EINVAL;
	if (arg->attr_mask & IB_ASYNC_QP_QKEY) {
		ret = ib_async_check_qkey(arg->qkey);
		if (ret)
			return ret;
	}
	uobj = ib_async_uobj_get(c->file, arg->handle, IB_ASYNC_OBJ_QP);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ib_async_check_av_port(uobj->qp, arg);
	if (ret)
		return ret;

	attr.qp_state = arg->qp_state;
	attr.cur_qp_state = arg->cur_qp_state;
	attr.path_mtu = arg->path_mtu;
	attr.qkey = arg->qkey;
	attr.rq_psn = arg->rq_psn;
	attr.sq_psn = arg->sq_psn;
	attr.dest_qp_num = arg->dest_qp_num;
	attr.qp_access_flags = arg->qp_access_flags;
	attr.pkey_index = arg->pkey_index;
	attr.port_num = arg->port_num;
	attr.en_sqd_async_notify = arg->en_sqd_async_notify;
	attr.max_rd_atomic = arg->max_rd_atomic;
	attr.max_dest_rd_atomic = arg->max_dest_rd_atomic;
	attr.min_rnr_timer = arg->min_rnr_timer;
	attr.timeout = arg->timeout;
	attr.retry_cnt = arg->retry_cnt;
	attr.rnr_retry = arg->rnr_retry;
	if (arg->attr_mask & IB_ASYNC_QP_AV) {
		ret = ib_async_av_to_attr(c->ib_dev, &arg->av, &attr.ah_attr);
		if (!ret)
			ret = ib_async_resolve_dmac(uobj->qp->pd, &attr.ah_attr);
		if (ret)
			return ret;
	}

	/*
	 * The driver validates the transition and the fields it needs. The
	 * data path runs on meanwhile (IB_ASYNC_CMD_OBJS_ONLY), as a user
	 * QP's posts do beside ib_uverbs' modify; but a move to RESET ends
	 * the requests the QP holds, which no post or poll may see half
	 * done.
	 */
	reset = (arg->attr_mask & IB_ASYNC_QP_STATE) &&
		arg->qp_state == IB_QPS_RESET;
	if (reset)
		down_write(&c->file->dp_rwsem);
	ret = ib_modify_qp(uobj->qp, &attr, arg->attr_mask);
	if (!ret && (arg->attr_mask & IB_ASYNC_QP_PORT))
		WRITE_ONCE(uobj->port, arg->port_num);
	if (!ret && reset)
		ib_async_qp_reset(uobj);
	if (reset)
		up_write(&c->file->dp_rwsem);
	return ret;
}

int ib_async_cmd_query_qp(struct ib_async_ucmd *c)
{
	/* zeroed: drivers leave some unset (rxe: an SRQ QP's receive caps) */
	struct ib_qp_init_attr init = {};
	struct ib_async_qp_attr *arg = c->cmd;
	struct ib_async_uobj *uobj;
	struct ib_qp_attr attr;
	int ret;

	/* Out fields may hold anything; reserved words must be 0. */
	if (arg->flags || arg->reserved || arg->reserved8 ||
	    arg->av.reserved || arg->reserved2)
		return -EINVAL;
	uobj = ib_async_uobj_get(c->file, arg->handle, IB_ASYNC_OBJ_QP);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	memset(&attr, 0, sizeof(attr));
	ret = ib_query_qp(uobj->qp, &attr, IB_ASYNC_QP_ATTR_SUPPORTED, &init);
	if (ret)
		return ret;
	memset(arg, 0, sizeof(*arg));
	arg->argsz = sizeof(*arg);
	arg->handle = uobj->handle;
	arg->attr_mask = IB_ASYNC_QP_ATTR_SUPPORTED;
	arg->qp_state = attr.qp_state;
	arg->cur_qp_state = attr.cur_qp_state;
	arg->path_mtu = attr.path_mtu;
	arg->qkey = attr.qkey;
	arg->rq_psn = attr.rq_psn;
	arg->sq_psn = attr.sq_psn;
	arg->dest_qp_num = attr.dest_qp_num;
	arg->qp_access_flags = attr.qp_access_flags;
	arg->pkey_index = attr.pkey_index;
	arg->port_num = attr.port_num;
	arg->en_sqd_async_notify = attr.en_sqd_async_notify;
	arg->sq_draining = attr.sq_draining;
	arg->max_rd_atomic = attr.max_rd_atomic;
	arg->max_dest_rd_atomic = attr.max_dest_rd_atomic;
	arg->min_rnr_timer = attr.min_rnr_timer;
	arg->timeout = attr.timeout;
	arg->retry_cnt = attr.retry_cnt;
	arg->rnr_retry = attr.rnr_retry;
	if (uobj->qp->qp_type != IB_QPT_UD)
		ib_async_attr_to_av(&attr.ah_attr, &arg->av);
	arg->max_send_wr = init.cap.max_send_wr;
	arg->max_recv_wr = init.cap.max_recv_wr;
	arg->max_send_sge = init.cap.max_send_sge;
	arg->max_recv_sge = init.cap.max_recv_sge;
	arg->max_inline_data = init.cap.max_inline_data;
	ib_async_ucmd_respond(c);
	return 0;
}

static int ib_async_qp_destroy(struct ib_async_uobj *uobj)
{
	/* each attachment is a use the core would refuse the destroy for */
	ib_async_qp_detach_all(uobj);
	return ib_destroy_qp_user(uobj->qp, NULL);
}

static void ib_async_qp_settle(struct ib_async_uobj *uobj)
{
	/* Only the address of the freed QP is used. */
	ib_async_qp_destroyed(uobj, uobj->qp);
}

static void ib_async_qp_set_name(struct ib_async_uobj *uobj, const char *name)
{
	rdma_restrack_set_name(&uobj->qp->res, name);
}

/* The uobj goes: it lets its submission rings go (mappings may keep them). */
static void ib_async_qp_free(struct ib_async_uobj *uobj)
{
	ib_async_wr_rings_drop(uobj);
}

const struct ib_async_uobj_type ib_async_qp_type = {
	.type		= IB_ASYNC_OBJ_QP,
	.destroy	= ib_async_qp_destroy,
	.destroyed	= ib_async_qp_settle,
	.set_name	= ib_async_qp_set_name,
	.let_go		= ib_async_wrs_let_go,
	.unlink		= ib_async_wr_rings_unpublish,
	.free		= ib_async_qp_free,
	.queue_bytes	= ib_async_qp_bytes,
	.events		= true,
};

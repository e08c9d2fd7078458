// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Object commands: marshal the uAPI structures into kernel verbs calls.
 *
 * The dispatcher (uapi.c) hands each handler the caller's argument already
 * copied into kernel memory and copies the answer back after dropping
 * every lock. Handlers run with the device's disassoc_rwsem held for
 * reading (the ib_device cannot go away underneath) and the file's
 * obj_mutex (the file's handles and dependency counts stay still).
 * Arguments are checked completely before anything is created, so bad
 * input changes nothing.
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_mad.h>

#include "verbs.h"

/**
 * ib_async_check_qkey - may the caller use this Q_Key?
 * @qkey: a Q_Key for a QP or a UD send
 *
 * A Q_Key with the high bit set is a controlled one (IBA 10.2.4): like
 * ib_uverbs, allow it only with CAP_NET_RAW or the rdma netlink
 * "privileged-qkey" setting on.
 *
 * Return: 0 or -EPERM.
 */
int ib_async_check_qkey(u32 qkey)
{
	if ((qkey & IB_QP_SET_QKEY) && !rdma_nl_get_privileged_qkey() &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/**
 * ib_async_put_created - answer a command that made an object
 * @u: the command
 * @uobj: the object
 * @handle: where in the command's structure its handle goes
 *
 * If the copy back fails the caller cannot know the object: the
 * dispatcher destroys it again.
 *
 * Return: 0.
 */
int ib_async_put_created(struct ib_async_ucmd *u, struct ib_async_uobj *uobj,
			 u32 *handle)
{
	ib_async_uobj_set_name(uobj, uobj->file->verbs->owner_name);
	*handle = uobj->handle;
	u->created = uobj->handle;
	u->uncreate = ib_async_cmd_uncreate;
	ib_async_ucmd_respond(u);
	return 0;
}

/*
 * Before the driver is asked: charge the new object's queues, for the
 * sizes asked for, so that a create past the budget allocates nothing.
 */
static int ib_async_charge_asked(struct ib_async_uobj *uobj,
				 const struct ib_async_queue_sizes *asked)
{
	int ret;

	ret = ib_async_verbs_charge(uobj, ib_async_queue_bytes(uobj->type,
							       asked));
	if (ret)
		ib_async_uobj_abort(uobj);
	return ret;
}

/*
 * Answer a create once what the driver granted beyond the sizes asked
 * for is charged too. If the budget refuses that, the object is
 * destroyed again, as for an answer that cannot be copied back: the
 * dispatcher does it once every lock is dropped.
 */
static int ib_async_put_charged(struct ib_async_ucmd *c,
				struct ib_async_uobj *uobj,
				const struct ib_async_queue_sizes *granted,
				u32 *handle)
{
	int ret;

	ret = ib_async_verbs_charge_to(uobj, ib_async_queue_bytes(uobj->type,
								  granted));
	if (ret) {
		c->created = uobj->handle;
		c->uncreate = ib_async_cmd_uncreate;
		return ret;
	}
	return ib_async_put_created(c, uobj, handle);
}

int ib_async_cmd_create_pd(struct ib_async_ucmd *c)
{
	struct ib_async_create_pd *arg = c->cmd;
	struct ib_async_uobj *uobj;
	struct ib_pd *pd;

	if (arg->flags || arg->reserved || arg->handle)
		return -EINVAL;

	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_PD, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = ib_alloc_pd(c->ib_dev, 0);
	if (IS_ERR(pd)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(pd);
	}
	uobj->pd = pd;
	return ib_async_put_created(c, uobj, &arg->handle);
}

int ib_async_cmd_create_cq(struct ib_async_ucmd *c)
{
	struct ib_cq_init_attr attr = {};
	struct ib_async_create_cq *arg = c->cmd;
	struct ib_async_queue_sizes sizes = {};
	struct ib_async_channel *chan = NULL;
	struct ib_async_uobj *uobj;
	struct ib_cq *cq;
	int ret;

	if (arg->flags & ~IB_ASYNC_CREATE_CQ_CHANNEL || arg->handle)
		return -EINVAL;
	if (!(arg->flags & IB_ASYNC_CREATE_CQ_CHANNEL) && arg->comp_channel)
		return -EINVAL;
	if (!arg->cqe || arg->cqe > c->ib_dev->attrs.max_cqe ||
	    arg->comp_vector >= c->ib_dev->num_comp_vectors)
		return -EINVAL;

	if (arg->flags & IB_ASYNC_CREATE_CQ_CHANNEL) {
		chan = ib_async_channel_get_for_cq(c->file, arg->comp_channel);
		if (IS_ERR(chan))
			return PTR_ERR(chan);
	}
	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_CQ, arg->user_handle);
	if (IS_ERR(uobj)) {
		if (chan)
			ib_async_channel_put_cq(chan);
		return PTR_ERR(uobj);
	}
	/* Before the CQ exists, so its completion handler always sees it. */
	uobj->comp_chan = chan;
	sizes.cqe = arg->cqe;
	ret = ib_async_charge_asked(uobj, &sizes);
	if (ret)
		return ret;
	attr.cqe = arg->cqe;
	attr.comp_vector = arg->comp_vector;
	cq = ib_create_cq(c->ib_dev, ib_async_comp_handler,
			  ib_async_uobj_event, uobj, &attr);
	if (IS_ERR(cq)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(cq);
	}
	uobj->cq = cq;
	arg->cqe = cq->cqe;
	sizes.cqe = cq->cqe;
	return ib_async_put_charged(c, uobj, &sizes, &arg->handle);
}

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

	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_QP, arg->user_handle);
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

/* Translate an address vector; RoCE needs the GRH. */
static int ib_async_av_to_attr(struct ib_device *ib_dev,
			       const struct ib_async_av *av,
			       struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	if (av->reserved || av->is_global > 1 ||
	    !rdma_is_port_valid(ib_dev, av->port_num))
		return -EINVAL;
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(ib_dev, av->port_num);
	if (ah->type == RDMA_AH_ATTR_TYPE_ROCE && !av->is_global)
		return -EINVAL;
	rdma_ah_set_port_num(ah, av->port_num);
	rdma_ah_set_sl(ah, av->sl);
	if (av->is_global) {
		memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah, &dgid, av->flow_label, av->sgid_index,
				av->hop_limit, av->traffic_class);
	} else {
		rdma_ah_set_dlid(ah, av->dlid);
	}
	return 0;
}

static void ib_async_attr_to_av(const struct rdma_ah_attr *ah,
				struct ib_async_av *av)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	av->port_num = rdma_ah_get_port_num(ah);
	av->sl = rdma_ah_get_sl(ah);
	av->dlid = rdma_ah_get_dlid(ah);
	av->is_global = !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH);
	if (av->is_global) {
		memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
		av->flow_label = grh->flow_label;
		av->sgid_index = grh->sgid_index;
		av->hop_limit = grh->hop_limit;
		av->traffic_class = grh->traffic_class;
	}
}

/*
 * ib_modify_qp() expects kernel callers to bring a resolved RoCE
 * destination MAC, and the resolver itself is not exported. Creating an
 * address handle on the QP's PD runs the core's own resolution and writes
 * the MAC into @ah; the handle itself is not needed afterwards.
 */
static int ib_async_resolve_dmac(struct ib_pd *pd, struct rdma_ah_attr *ah)
{
	struct ib_ah *tmp;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE)
		return 0;
	tmp = rdma_create_user_ah(pd, ah, NULL);
	if (IS_ERR(tmp))
		return PTR_ERR(tmp);
	return rdma_destroy_ah_user(tmp, RDMA_DESTROY_AH_SLEEPABLE, NULL);
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
	int ret;

	if (arg->flags || arg->reserved || arg->reserved8 || arg->sq_draining ||
	    arg->av.reserved || !arg->attr_mask || arg->max_send_wr ||
	    arg->max_recv_wr || arg->max_send_sge || arg->max_recv_sge ||
	    arg->max_inline_data || arg->reserved2)
		return -EINVAL;
	if (arg->attr_mask & ~IB_ASYNC_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;
	if (arg->qp_state > IB_QPS_ERR || arg->cur_qp_state > IB_QPS_ERR ||
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

	/* The driver validates the transition and the fields it needs. */
	ret = ib_modify_qp(uobj->qp, &attr, arg->attr_mask);
	if (ret)
		return ret;
	if (arg->attr_mask & IB_ASYNC_QP_PORT)
		WRITE_ONCE(uobj->port, arg->port_num);
	if ((arg->attr_mask & IB_ASYNC_QP_STATE) &&
	    arg->qp_state == IB_QPS_RESET)
		ib_async_qp_reset(uobj);
	return 0;
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

int ib_async_cmd_create_srq(struct ib_async_ucmd *c)
{
	struct ib_srq_init_attr init = {};
	struct ib_async_create_srq *arg = c->cmd;
	struct ib_async_queue_sizes sizes = {};
	struct ib_async_uobj *uobj, *pd;
	struct ib_srq *srq;
	int ret;

	if (arg->flags || arg->reserved || arg->handle)
		return -EINVAL;
	pd = ib_async_uobj_get(c->file, arg->pd_handle, IB_ASYNC_OBJ_PD);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_SRQ, arg->user_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	sizes.max_recv_wr = arg->max_wr;
	sizes.max_recv_sge = arg->max_sge;
	ret = ib_async_charge_asked(uobj, &sizes);
	if (ret)
		return ret;
	init.event_handler = ib_async_uobj_event;
	init.srq_context = uobj;
	init.srq_type = IB_SRQT_BASIC;
	init.attr.max_wr = arg->max_wr;
	init.attr.max_sge = arg->max_sge;
	init.attr.srq_limit = arg->srq_limit;
	srq = ib_create_srq(pd->pd, &init);
	if (IS_ERR(srq)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(srq);
	}
	uobj->srq = srq;
	ib_async_uobj_use(uobj, pd);
	arg->max_wr = init.attr.max_wr;
	arg->max_sge = init.attr.max_sge;
	sizes.max_recv_wr = init.attr.max_wr;
	sizes.max_recv_sge = init.attr.max_sge;
	return ib_async_put_charged(c, uobj, &sizes, &arg->handle);
}

/* What an SRQ of @max_wr receives of @max_sge entries is charged. */
static u64 ib_async_srq_charge(u32 max_wr, u32 max_sge)
{
	const struct ib_async_queue_sizes sizes = {
		.max_recv_wr = max_wr,
		.max_recv_sge = max_sge,
	};

	return ib_async_queue_bytes(IB_ASYNC_OBJ_SRQ, &sizes);
}

/*
 * MODIFY_SRQ with IB_ASYNC_SRQ_MAX_WR resizes the SRQ's ring: charged as
 * RESIZE_CQ is, the new size beside the old until the driver is done.
 */
static int ib_async_resize_srq(struct ib_async_uobj *uobj,
			       const struct ib_async_srq_attr *arg)
{
	struct ib_srq_attr was, attr = {
		.max_wr = arg->max_wr,
		.srq_limit = arg->srq_limit,
	};
	u64 old = uobj->charged, new, granted;
	int ret;

	ret = ib_query_srq(uobj->srq, &was);
	if (ret)
		return ret;
	new = ib_async_srq_charge(arg->max_wr, was.max_sge);
	ret = ib_async_verbs_charge(uobj, new);
	if (ret)
		return ret;
	ret = ib_modify_srq(uobj->srq, &attr, arg->attr_mask);
	if (ret) {
		ib_async_verbs_uncharge(uobj, new);
		return ret;
	}
	granted = new;
	if (!ib_query_srq(uobj->srq, &attr))
		granted = ib_async_srq_charge(attr.max_wr, attr.max_sge);
	ret = ib_async_verbs_resized(uobj, old, new, granted);
	if (!ret)
		return 0;
	if (!ib_modify_srq(uobj->srq, &was, IB_SRQ_MAX_WR)) {
		ib_async_verbs_uncharge(uobj, new);
		return ret;
	}
	/* Stuck at what was granted: it keeps both charges. */
	pr_warn_ratelimited("ib_async: %s: an SRQ kept a size beyond its charge\n",
			    dev_name(&uobj->file->adev->dev));
	return 0;
}

static int ib_async_srq_attr(struct ib_async_ucmd *c, bool modify)
{
	struct ib_async_srq_attr *arg = c->cmd;
	struct ib_async_uobj *uobj;
	struct ib_srq_attr attr = {};
	int ret;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	if (modify && (!arg->attr_mask ||
		       arg->attr_mask & ~(IB_ASYNC_SRQ_MAX_WR | IB_ASYNC_SRQ_LIMIT)))
		return -EINVAL;
	uobj = ib_async_uobj_get(c->file, arg->handle, IB_ASYNC_OBJ_SRQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	if (modify && (arg->attr_mask & IB_ASYNC_SRQ_MAX_WR))
		return ib_async_resize_srq(uobj, arg);
	if (modify) {
		attr.srq_limit = arg->srq_limit;
		return ib_modify_srq(uobj->srq, &attr, arg->attr_mask);
	}
	ret = ib_query_srq(uobj->srq, &attr);
	if (ret)
		return ret;
	arg->argsz = sizeof(*arg);
	arg->attr_mask = 0;
	arg->max_wr = attr.max_wr;
	arg->max_sge = attr.max_sge;
	arg->srq_limit = attr.srq_limit;
	ib_async_ucmd_respond(c);
	return 0;
}

int ib_async_cmd_create_wq(struct ib_async_ucmd *c)
{
	struct ib_async_uobj *uobj, *pd, *cq;
	struct ib_wq_init_attr init = {};
	struct ib_async_create_wq *arg = c->cmd;
	struct ib_async_queue_sizes sizes = {};
	struct ib_wq *wq;
	int ret;

	if (arg->flags || arg->reserved || arg->handle)
		return -EINVAL;
	pd = ib_async_uobj_get(c->file, arg->pd_handle, IB_ASYNC_OBJ_PD);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	cq = ib_async_uobj_get(c->file, arg->cq_handle, IB_ASYNC_OBJ_CQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);

	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_WQ, arg->user_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	sizes.max_recv_wr = arg->max_wr;
	sizes.max_recv_sge = arg->max_sge;
	ret = ib_async_charge_asked(uobj, &sizes);
	if (ret)
		return ret;
	init.wq_context = uobj;
	init.event_handler = ib_async_uobj_event;
	init.wq_type = IB_WQT_RQ;
	init.max_wr = arg->max_wr;
	init.max_sge = arg->max_sge;
	init.cq = cq->cq;
	wq = ib_create_wq(pd->pd, &init);
	if (IS_ERR(wq)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(wq);
	}
	uobj->wq = wq;
	ib_async_uobj_use(uobj, pd);
	ib_async_uobj_use(uobj, cq);
	arg->max_wr = init.max_wr;
	arg->max_sge = init.max_sge;
	sizes.max_recv_wr = init.max_wr;
	sizes.max_recv_sge = init.max_sge;
	return ib_async_put_charged(c, uobj, &sizes, &arg->handle);
}

int ib_async_cmd_create_ah(struct ib_async_ucmd *c)
{
	struct ib_async_create_ah *arg = c->cmd;
	struct ib_async_uobj *uobj, *pd;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	if (arg->flags || arg->handle)
		return -EINVAL;
	ret = ib_async_av_to_attr(c->ib_dev, &arg->av, &attr);
	if (ret)
		return ret;
	pd = ib_async_uobj_get(c->file, arg->pd_handle, IB_ASYNC_OBJ_PD);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_AH, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	/* The core resolves the RoCE destination MAC, as for ib_uverbs. */
	ah = rdma_create_user_ah(pd->pd, &attr, NULL);
	if (IS_ERR(ah)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(ah);
	}
	uobj->ah = ah;
	uobj->port = arg->av.port_num;
	ib_async_uobj_use(uobj, pd);
	return ib_async_put_created(c, uobj, &arg->handle);
}

/*
 * The 6.1 core has no ib_modify_wq(); like ib_uverbs, call the driver,
 * filling in the states the caller left out.
 */
int ib_async_cmd_modify_wq(struct ib_async_ucmd *c)
{
	const u32 known = IB_WQ_STATE | IB_WQ_CUR_STATE | IB_WQ_FLAGS;
	struct ib_async_modify_wq *arg = c->cmd;
	struct ib_udata empty_udata = {};
	struct ib_wq_attr attr = {};
	struct ib_async_uobj *uobj;

	if (arg->flags || !arg->attr_mask || arg->attr_mask & ~known ||
	    arg->wq_state > IB_WQS_ERR || arg->curr_wq_state > IB_WQS_ERR)
		return -EINVAL;
	uobj = ib_async_uobj_get(c->file, arg->handle, IB_ASYNC_OBJ_WQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (!uobj->wq->device->ops.modify_wq)
		return -EOPNOTSUPP;

	if (arg->attr_mask & IB_WQ_FLAGS) {
		attr.flags = arg->wq_flags;
		attr.flags_mask = arg->wq_flags_mask;
	}
	attr.curr_wq_state = arg->attr_mask & IB_WQ_CUR_STATE ?
			     arg->curr_wq_state : uobj->wq->state;
	attr.wq_state = arg->attr_mask & IB_WQ_STATE ? arg->wq_state :
						      attr.curr_wq_state;
	/*
	 * Drivers' modify_wq (mlx4, mlx5) read a command from udata and
	 * dereference it: hand them an empty one, which they refuse cleanly
	 * if they need more, as they would a short command from ib_uverbs.
	 */
	return uobj->wq->device->ops.modify_wq(uobj->wq, &attr, arg->attr_mask,
					       &empty_udata);
}

/* DESTROY, once every lock is dropped: see ib_async_uobj_forget_end(). */
static void ib_async_cmd_destroyed(struct ib_async_ucmd *c)
{
	struct ib_async_destroy *d = c->cmd;

	d->events_reported = ib_async_uobj_forget_end(c->unlocked_arg,
						      &d->comp_events_reported);
}

int ib_async_cmd_destroy(struct ib_async_ucmd *c)
{
	struct ib_async_destroy *arg = c->cmd;
	struct ib_async_uobj *uobj;
	int ret;

	if (arg->flags || arg->events_reported || arg->comp_events_reported)
		return -EINVAL;
	uobj = ib_async_uobj_get(c->file, arg->handle, arg->obj_type);
	/* After device removal a destroy only forgets the handle. */
	if (IS_ERR(uobj) && PTR_ERR(uobj) == -ENODEV)
		uobj = xa_load(&c->file->verbs->objs, arg->handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ib_async_uobj_destroy_begin(uobj);
	if (ret)
		return ret;
	/* Its records are purged, events_reported filled, without locks. */
	c->unlocked = ib_async_cmd_destroyed;
	c->unlocked_arg = uobj;
	ib_async_ucmd_respond(c);
	return 0;
}

int ib_async_cmd_modify_srq(struct ib_async_ucmd *c)
{
	return ib_async_srq_attr(c, true);
}

int ib_async_cmd_query_srq(struct ib_async_ucmd *c)
{
	return ib_async_srq_attr(c, false);
}

/* The caller cannot learn, or may not keep, the new object: destroy it. */
void ib_async_cmd_uncreate(struct ib_async_ucmd *u)
{
	struct ib_async_file *file = u->file;
	struct ib_async_uobj *uobj;
	int ret = -ENOENT;
	u64 comp;

	down_read(&file->adev->disassoc_rwsem);
	mutex_lock(&file->obj_mutex);
	/* Handles are never reused: if it is still there, it is ours. */
	uobj = xa_load(&file->verbs->objs, u->created);
	if (uobj)
		ret = ib_async_uobj_destroy_begin(uobj);
	mutex_unlock(&file->obj_mutex);
	up_read(&file->adev->disassoc_rwsem);
	if (!ret)
		ib_async_uobj_forget_end(uobj, &comp);
}

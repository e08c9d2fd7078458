// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues: CREATE_SRQ, MODIFY_SRQ (with a resize charged
 * like a CQ's) and QUERY_SRQ.
 *
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held.
 */
#include "verbs.h"

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

	uobj = ib_async_uobj_new(c->file, &ib_async_srq_type,
				 arg->user_handle);
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
	uobj->max_recv_sge = init.attr.max_sge;
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

	return ib_async_rq_bytes(&sizes);
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

int ib_async_cmd_modify_srq(struct ib_async_ucmd *c)
{
	return ib_async_srq_attr(c, true);
}

int ib_async_cmd_query_srq(struct ib_async_ucmd *c)
{
	return ib_async_srq_attr(c, false);
}

static int ib_async_srq_destroy(struct ib_async_uobj *uobj)
{
	return ib_destroy_srq_user(uobj->srq, NULL);
}

/* The receives the device still owned. */
static void ib_async_srq_destroyed(struct ib_async_uobj *uobj)
{
	ib_async_free_wrs(uobj->file, uobj);
}

static void ib_async_srq_set_name(struct ib_async_uobj *uobj,
				  const char *name)
{
	rdma_restrack_set_name(&uobj->srq->res, name);
}

/* The uobj goes: it lets its submission ring go (mappings may keep it). */
static void ib_async_srq_free(struct ib_async_uobj *uobj)
{
	ib_async_wr_rings_drop(uobj);
}

const struct ib_async_uobj_type ib_async_srq_type = {
	.type		= IB_ASYNC_OBJ_SRQ,
	.destroy	= ib_async_srq_destroy,
	.destroyed	= ib_async_srq_destroyed,
	.set_name	= ib_async_srq_set_name,
	.let_go		= ib_async_wrs_let_go,
	.unlink		= ib_async_wr_rings_unpublish,
	.free		= ib_async_srq_free,
	.queue_bytes	= ib_async_rq_bytes,
	.events		= true,
};

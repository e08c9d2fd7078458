// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receive work queues: CREATE_WQ and MODIFY_WQ.
 *
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held.
 */
#include "verbs.h"

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

	uobj = ib_async_uobj_new(c->file, &ib_async_wq_type,
				 arg->user_handle);
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

static int ib_async_wq_destroy(struct ib_async_uobj *uobj)
{
	return ib_destroy_wq_user(uobj->wq, NULL);
}

/* No restrack entry of its own: nothing to name. */
const struct ib_async_uobj_type ib_async_wq_type = {
	.type		= IB_ASYNC_OBJ_WQ,
	.destroy	= ib_async_wq_destroy,
	.queue_bytes	= ib_async_rq_bytes,
	.events		= true,
};

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: CREATE_CQ and RESIZE_CQ (POLL_CQ is the data
 * path's, datapath.c), and their completion channels: a CQ made with a
 * channel counts in it and holds a reference (core/channel.c says why),
 * and its completion handler feeds the channel's queue once per arming.
 */
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "verbs.h"

/**
 * ib_async_channel_get_for_cq - the channel a new CQ will report to
 * @file: the file the CQ is made on
 * @fd: the caller's descriptor of the channel
 *
 * The channel must be a completion channel of @file with room for one
 * more CQ's record.
 *
 * Return: the channel, with a reference and the CQ counted, or the errors
 * of ib_async_channel_get() and -ENOSPC (its queue is as long as its CQs
 * are many).
 */
struct ib_async_channel *ib_async_channel_get_for_cq(struct ib_async_file *file,
						     int fd)
{
	struct ib_async_channel *chan;
	struct ib_async_evq_stat st;

	lockdep_assert_held(&file->obj_mutex);
	chan = ib_async_channel_get(file, fd, IB_ASYNC_CHANNEL_COMP);
	if (IS_ERR(chan))
		return chan;
	/* CQs of one file are made under its obj_mutex: no race. */
	ib_async_evq_stat(&chan->evq, &st);
	if (atomic_read(&chan->cqs) >= st.cap) {
		ib_async_channel_put(chan);
		return ERR_PTR(-ENOSPC);
	}
	atomic_inc(&chan->cqs);
	return chan;
}

/* A CQ is gone, and so are its records in the channel. */
void ib_async_channel_put_cq(struct ib_async_channel *chan)
{
	atomic_dec(&chan->cqs);
	ib_async_channel_put(chan);
}

/*
 * The completion handler of every CQ made for a file; drivers call it
 * from any context, hard irq included, once per arming.
 */
void ib_async_comp_handler(struct ib_cq *cq, void *context)
{
	struct ib_async_uobj *uobj = context;
	struct ib_async_event rec;

	/*
	 * A CQ without a channel fires when a program arms it all the same:
	 * not a completion event, and no clock read (a device access on some
	 * clocksources) for it. A CQ removal gave up on has no file and no
	 * channel soon: removal waits for a grace period after marking it
	 * (ib_async_uobj_abandon()), so the check and the uses are one RCU
	 * read-side section.
	 */
	rcu_read_lock();
	if (READ_ONCE(uobj->abandoned) || !uobj->comp_chan)
		goto out;
	rec = (struct ib_async_event){
		.element	= uobj->user_handle,
		.timestamp_ns	= ktime_get_ns(),
		.event_type	= IB_ASYNC_EV_COMP,
		.obj_type	= IB_ASYNC_OBJ_CQ,
		.obj_handle	= uobj->handle,
	};
	ib_async_stat_add(uobj->file->adev->stats, IB_ASYNC_STAT_COMP_EVENTS,
			  1);
	ib_async_evq_push_once(&uobj->comp_chan->evq, &rec, &uobj->comp);
out:
	rcu_read_unlock();
}

int ib_async_cmd_req_notify_cq(struct ib_async_ucmd *u)
{
	struct ib_async_req_notify_cq *arg = u->cmd;
	struct ib_async_uobj *uobj;
	int ret;

	if (arg->flags & ~IB_ASYNC_NOTIFY_SOLICITED || arg->reserved)
		return -EINVAL;
	uobj = ib_async_uobj_get(u->file, arg->handle, IB_ASYNC_OBJ_CQ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ib_async_dp_lock(uobj);
	ret = ib_req_notify_cq(uobj->cq,
			       arg->flags & IB_ASYNC_NOTIFY_SOLICITED ?
			       IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
	/*
	 * After arming: what came before is in the ring for the poll that
	 * follows an arm, and what comes after raises the event.
	 */
	if (ret >= 0)
		ib_async_cq_ring_fill(uobj);
	ib_async_dp_unlock(uobj);
	return min(ret, 0);
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
	uobj = ib_async_uobj_new(c->file, &ib_async_cq_type,
				 arg->user_handle);
	if (IS_ERR(uobj)) {
		if (chan)
			ib_async_channel_put_cq(chan);
		return PTR_ERR(uobj);
	}
	/* Before the CQ exists, so its completion handler always sees it. */
	uobj->comp_chan = chan;
	uobj->poll_wc = kmalloc_array(IB_ASYNC_POLL_BATCH,
				      sizeof(*uobj->poll_wc),
				      GFP_KERNEL_ACCOUNT);
	if (!uobj->poll_wc) {
		ib_async_uobj_abort(uobj);
		return -ENOMEM;
	}
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

/* What a CQ of @cqe entries is charged. */
static u64 ib_async_cq_charge(u32 cqe)
{
	const struct ib_async_queue_sizes sizes = { .cqe = cqe };

	return ib_async_cq_bytes(&sizes);
}

/*
 * The new size is charged beside the old one before the driver allocates
 * it: the old charge goes once the CQ is resized, the new one if it is
 * not. Should the budget refuse what the driver granted beyond the size
 * asked for, the CQ goes back to its old size.
 */
int ib_async_cmd_resize_cq(struct ib_async_ucmd *u)
{
	struct ib_async_resize_cq *arg = u->cmd;
	struct ib_async_uobj *cq;
	u64 old, new;
	int old_cqe;
	int ret;

	if (arg->flags || !arg->cqe || arg->cqe > INT_MAX)
		return -EINVAL;
	cq = ib_async_uobj_get(u->file, arg->handle, IB_ASYNC_OBJ_CQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	old = cq->charged;
	old_cqe = cq->cq->cqe;
	new = ib_async_cq_charge(arg->cqe);
	ret = ib_async_verbs_charge(cq, new);
	if (ret)
		return ret;
	ret = ib_resize_cq(cq->cq, arg->cqe);
	if (ret) {
		ib_async_verbs_uncharge(cq, new);
		return ret;
	}
	ret = ib_async_verbs_resized(cq, old, new,
				     ib_async_cq_charge(cq->cq->cqe));
	if (ret) {
		if (!ib_resize_cq(cq->cq, old_cqe)) {
			ib_async_verbs_uncharge(cq, new);
			return ret;
		}
		/* Stuck at what was granted: it keeps both charges. */
		pr_warn_ratelimited("ib_async: %s: a CQ kept a size beyond its charge\n",
				    dev_name(&u->adev->dev));
	}
	arg->cqe = cq->cq->cqe;
	ib_async_ucmd_respond(u);
	return 0;
}

static int ib_async_cq_destroy(struct ib_async_uobj *uobj)
{
	return ib_destroy_cq_user(uobj->cq, NULL);
}

/* The completions taken off the device and not yet polled. */
static void ib_async_cq_destroyed(struct ib_async_uobj *uobj)
{
	ib_async_free_wrs(uobj->file, uobj);
}

static void ib_async_cq_set_name(struct ib_async_uobj *uobj, const char *name)
{
	rdma_restrack_set_name(&uobj->cq->res, name);
}

/*
 * Its records are gone from its channel: the CQ leaves it, and lets its
 * ring go (the program's mappings may keep it a while).
 */
static void ib_async_cq_free(struct ib_async_uobj *uobj)
{
	ib_async_cq_ring_drop(uobj);
	if (uobj->comp_chan)
		ib_async_channel_put_cq(uobj->comp_chan);
	uobj->comp_chan = NULL;
	kfree(uobj->poll_wc);
	uobj->poll_wc = NULL;
}

const struct ib_async_uobj_type ib_async_cq_type = {
	.type		= IB_ASYNC_OBJ_CQ,
	.destroy	= ib_async_cq_destroy,
	.destroyed	= ib_async_cq_destroyed,
	.set_name	= ib_async_cq_set_name,
	.let_go		= ib_async_wrs_let_go,
	.unlink		= ib_async_cq_ring_unpublish,
	.free		= ib_async_cq_free,
	.queue_bytes	= ib_async_cq_bytes,
	.events		= true,
};

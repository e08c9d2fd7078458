// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * CQs and their completion channels: a CQ made with a channel counts in
 * it and holds a reference (core/channel.c says why), and its completion
 * handler feeds the channel's queue once per arming.
 */
#include <linux/ktime.h>
#include <linux/rcupdate.h>

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
	ret = ib_req_notify_cq(uobj->cq,
			       arg->flags & IB_ASYNC_NOTIFY_SOLICITED ?
			       IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
	return ret < 0 ? ret : 0;
}

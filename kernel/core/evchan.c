// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event channels: the async events of a context that a channel's
 * subscriptions match, each with the cookie of the subscription.
 *
 * Delivery runs in every context the event handlers run in, hard irq
 * included, so it takes no sleeping lock and allocates nothing: the
 * context's channels are an RCU list and each channel's subscriptions one
 * array, published with RCU and replaced whole by (un)subscribe, under
 * the device's chan_lock. The channel's queue does the rest (evq.c).
 *
 * A subscription names an object by handle and holds nothing of it:
 * destroying the object drops the subscriptions and the unread records
 * that name it (ib_async_evchans_forget()), and handles are never reused
 * within a context's life, so nothing stale can match a new object.
 */
#include <linux/file.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "core.h"

/* The event types a subscription may name: ib_core's, 0..20. */
#define IB_ASYNC_SUB_TYPE_BITS	GENMASK_ULL(IB_ASYNC_EV_DEVICE_SPEED_CHANGE, 0)

#define IB_ASYNC_SUB_FLAGS	(IB_ASYNC_SUB_TYPES | IB_ASYNC_SUB_PORT | \
				 IB_ASYNC_SUB_OBJECT)

static bool ib_async_sub_match(const struct ib_async_sub *sub,
			       const struct ib_async_event *ev)
{
	if (sub->flags & IB_ASYNC_SUB_TYPES &&
	    (ev->event_type > IB_ASYNC_EV_DEVICE_SPEED_CHANGE ||
	     !(sub->type_mask & BIT_ULL(ev->event_type))))
		return false;
	if (sub->flags & IB_ASYNC_SUB_PORT && ev->port_num != sub->port)
		return false;
	if (sub->flags & IB_ASYNC_SUB_OBJECT &&
	    (ev->obj_type != sub->obj_type || ev->obj_handle != sub->obj_handle))
		return false;
	return true;
}

/**
 * ib_async_evchans_deliver - offer an event to a context's event channels
 * @file: the context whose queue got it
 * @ev: the event
 *
 * Each channel queues it once, with the cookie of its earliest matching
 * subscription; a DEVICE_FATAL ends every channel's stream, matched or
 * not (cookie 0 then). Any context; the caller holds rcu_read_lock().
 */
void ib_async_evchans_deliver(struct ib_async_file *file,
			      const struct ib_async_event *ev)
{
	const struct ib_async_subset *set;
	struct ib_async_channel *chan;
	const struct ib_async_sub *sub;
	u32 i;

	list_for_each_entry_rcu(chan, &file->channels, list) {
		if (chan->type != IB_ASYNC_CHANNEL_EVENT)
			continue;
		set = rcu_dereference(chan->subs);
		for (i = 0, sub = NULL; set && i < set->n && !sub; i++)
			if (ib_async_sub_match(&set->subs[i], ev))
				sub = &set->subs[i];
		if (sub || ev->event_type == IB_ASYNC_EV_DEVICE_FATAL)
			ib_async_evq_push_chan(&chan->evq, ev,
					       sub ? sub->cookie : 0);
	}
}

static struct ib_async_subset *ib_async_subs(struct ib_async_channel *chan)
{
	return rcu_dereference_protected(chan->subs,
					 lockdep_is_held(&chan->adev->chan_lock));
}

/*
 * Publish a copy of @chan's set without the subscriptions @drop says,
 * plus @add if not NULL. Return: 0, or -ENOMEM with nothing changed.
 */
static int ib_async_subs_replace(struct ib_async_channel *chan,
				 bool (*drop)(const struct ib_async_sub *,
					      const void *),
				 const void *arg,
				 const struct ib_async_sub *add)
{
	struct ib_async_subset *old = ib_async_subs(chan), *set = NULL;
	u32 i, n = 0, max = (old ? old->n : 0) + !!add;

	if (max) {
		set = kmalloc(struct_size(set, subs, max), GFP_KERNEL_ACCOUNT);
		if (!set)
			return -ENOMEM;
		for (i = 0; old && i < old->n; i++)
			if (!drop || !drop(&old->subs[i], arg))
				set->subs[n++] = old->subs[i];
		if (add)
			set->subs[n++] = *add;
		set->n = n;
		if (!n) {
			kfree(set);
			set = NULL;
		}
	}
	rcu_assign_pointer(chan->subs, set);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

static bool ib_async_sub_is(const struct ib_async_sub *sub, const void *id)
{
	return sub->id == *(const u32 *)id;
}

static bool ib_async_sub_names(const struct ib_async_sub *sub,
			       const void *handle)
{
	return sub->flags & IB_ASYNC_SUB_OBJECT &&
	       sub->obj_handle == *(const u32 *)handle;
}

/* Check what a subscription asks for and fill @sub from it. */
static int ib_async_sub_parse(struct ib_async_ucmd *u,
			      const struct ib_async_subscribe *arg,
			      struct ib_async_sub *sub)
{
	int ret;

	if (arg->flags & ~IB_ASYNC_SUB_FLAGS || arg->sub_id)
		return -EINVAL;
	memset(sub, 0, sizeof(*sub));
	sub->flags = arg->flags;
	sub->cookie = arg->cookie;
	if (arg->flags & IB_ASYNC_SUB_TYPES) {
		if (!arg->type_mask || arg->type_mask & ~IB_ASYNC_SUB_TYPE_BITS)
			return -EINVAL;
		sub->type_mask = arg->type_mask;
	} else if (arg->type_mask) {
		return -EINVAL;
	}
	if (arg->flags & IB_ASYNC_SUB_PORT) {
		if (arg->port > rdma_end_port(u->ib_dev))
			return -EINVAL;
		sub->port = arg->port;
	} else if (arg->port) {
		return -EINVAL;
	}
	if (arg->flags & IB_ASYNC_SUB_OBJECT) {
		ret = ib_async_verbs->event_source(u->file, arg->obj_handle,
						   &sub->obj_type);
		if (ret)
			return ret;
		sub->obj_handle = arg->obj_handle;
	} else if (arg->obj_handle) {
		return -EINVAL;
	}
	return 0;
}

/*
 * End subscription @id of @chan: 0, -ENOENT (no such id) or -ENOMEM.
 *
 * A handler that matched the old set may still be about to queue: from
 * the return on, the uAPI says, nothing the subscription alone matched
 * is queued. Its RCU read-side section ends after the queue.
 */
static int ib_async_sub_end(struct ib_async_channel *chan, u32 id)
{
	struct ib_async_subset *set;
	int ret = -ENOENT;
	u32 i;

	mutex_lock(&chan->adev->chan_lock);
	set = ib_async_subs(chan);
	for (i = 0; set && i < set->n; i++) {
		if (set->subs[i].id == id) {
			ret = ib_async_subs_replace(chan, ib_async_sub_is,
						    &id, NULL);
			break;
		}
	}
	mutex_unlock(&chan->adev->chan_lock);
	if (!ret)
		synchronize_rcu();
	return ret;
}

/*
 * SUBSCRIBE's answer reached the caller (@ret 0) or not. A caller that
 * never learnt the id could not end the subscription, and would get
 * records with its cookie after a call that failed: end it. Records it
 * matched meanwhile stay queued (the uAPI says so).
 */
static int ib_async_sub_answered(struct ib_async_ucmd *u, int ret)
{
	const struct ib_async_subscribe *arg = u->cmd;
	struct ib_async_channel *chan = u->pending;

	if (ret)
		ib_async_sub_end(chan, arg->sub_id);
	ib_async_channel_put(chan);
	return ret;
}

int ib_async_cmd_subscribe(struct ib_async_ucmd *u)
{
	struct ib_async_subscribe *arg = u->cmd;
	struct ib_async_channel *chan;
	struct ib_async_subset *set;
	struct ib_async_sub sub;
	int ret;

	ret = ib_async_sub_parse(u, arg, &sub);
	if (ret)
		return ret;
	chan = ib_async_channel_get(u->file, arg->fd, IB_ASYNC_CHANNEL_EVENT);
	if (IS_ERR(chan))
		return PTR_ERR(chan);

	mutex_lock(&u->adev->chan_lock);
	set = ib_async_subs(chan);
	if (set && set->n >= IB_ASYNC_MAX_SUBSCRIPTIONS)
		ret = -ENOSPC;
	else if (chan->sub_next == U32_MAX)	/* ids are never reused */
		ret = -ENOSPC;
	else if (READ_ONCE(chan->evq.ended))
		ret = -EIO;
	if (!ret) {
		sub.id = chan->sub_next + 1;
		ret = ib_async_subs_replace(chan, NULL, NULL, &sub);
		if (!ret)
			chan->sub_next = sub.id;
	}
	mutex_unlock(&u->adev->chan_lock);
	if (ret) {
		ib_async_channel_put(chan);
		return ret;
	}

	/* kept until the answer is out */
	u->answered = ib_async_sub_answered;
	u->pending = chan;
	arg->sub_id = sub.id;
	ib_async_ucmd_respond(u);
	return 0;
}

int ib_async_cmd_unsubscribe(struct ib_async_ucmd *u)
{
	struct ib_async_unsubscribe *arg = u->cmd;
	struct ib_async_channel *chan;
	int ret;

	if (arg->flags || !arg->sub_id)
		return -EINVAL;
	chan = ib_async_channel_get(u->file, arg->fd, IB_ASYNC_CHANNEL_EVENT);
	if (IS_ERR(chan))
		return PTR_ERR(chan);
	ret = ib_async_sub_end(chan, arg->sub_id);
	ib_async_channel_put(chan);
	return ret;
}

/**
 * ib_async_evchans_forget - a destroyed object leaves every event channel
 * @file: its context
 * @obj_type: its type
 * @handle: its handle, erased: no new record can carry it
 *
 * Drops the subscriptions naming it and its unread records, those a
 * reader is copying to a slow user buffer included (the purge does not
 * wait for it). A purge walks a queue that may be long, so this runs with
 * no lock held that device removal or another file waits for; the
 * channels are walked from a list of references made under chan_lock.
 */
void ib_async_evchans_forget(struct ib_async_file *file, u32 obj_type,
			     u32 handle)
{
	struct ib_async_device *adev = file->adev;
	struct ib_async_channel *chan, *next;
	LIST_HEAD(walk);

	/*
	 * Most contexts have no channel: no lock to take. One listed after
	 * this check was made after the destroy, so it cannot name the
	 * object: subscribing checks the handle under the obj_mutex the
	 * destroy erased it under.
	 */
	if (list_empty(&file->channels))
		return;
	mutex_lock(&file->forget_mutex);
	mutex_lock(&adev->chan_lock);
	list_for_each_entry(chan, &file->channels, list) {
		if (chan->type != IB_ASYNC_CHANNEL_EVENT)
			continue;
		kref_get(&chan->ref);
		list_add_tail(&chan->forget, &walk);
		/*
		 * Without memory the subscriptions stay; they can never
		 * match again, and unsubscribe still ends them.
		 */
		ib_async_subs_replace(chan, ib_async_sub_names, &handle, NULL);
	}
	mutex_unlock(&adev->chan_lock);

	list_for_each_entry_safe(chan, next, &walk, forget) {
		list_del_init(&chan->forget);
		ib_async_evq_purge_obj(&chan->evq, obj_type, handle);
		ib_async_channel_put(chan);
	}
	mutex_unlock(&file->forget_mutex);
}

/* fdinfo: one line per subscription, in the order they were made. */
void ib_async_evchan_show_subs(struct seq_file *m,
			       struct ib_async_channel *chan)
{
	const struct ib_async_subset *set;
	const struct ib_async_sub *sub;
	u32 i;

	rcu_read_lock();
	set = rcu_dereference(chan->subs);
	seq_printf(m, "ib_async-subscriptions:\t%u\n", set ? set->n : 0);
	for (i = 0; set && i < set->n; i++) {
		sub = &set->subs[i];
		seq_printf(m, "ib_async-subscription:\tid=%u cookie=%#llx",
			   sub->id, sub->cookie);
		if (sub->flags & IB_ASYNC_SUB_TYPES)
			seq_printf(m, " types=%#llx", sub->type_mask);
		else
			seq_puts(m, " types=any");
		if (sub->flags & IB_ASYNC_SUB_PORT)
			seq_printf(m, " port=%u", sub->port);
		else
			seq_puts(m, " port=any");
		if (sub->flags & IB_ASYNC_SUB_OBJECT)
			seq_printf(m, " object=%u\n", sub->obj_handle);
		else
			seq_puts(m, " object=any\n");
	}
	rcu_read_unlock();
}

/* The channel is being freed: nobody reads its set any more. */
void ib_async_evchan_free_subs(struct ib_async_channel *chan)
{
	kfree(rcu_dereference_protected(chan->subs, 1));
}

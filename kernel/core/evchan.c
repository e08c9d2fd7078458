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
 *
 * A state channel's snapshot (IB_ASYNC_SUB_STATE, IB_ASYNC_CHANNEL_RESYNC)
 * has a point in the stream: under the channel queue's lock its records
 * take the next sequence numbers, and a subscription asking for it is
 * published. Events are matched under that same lock, so each one is
 * matched either before the point, by the old subscriptions, or after
 * it, by the new ones, and then queued behind the records: no event is
 * both in the snapshot's past and delivered after it, none is missed.
 * The ports are queried after the point, with the queue's move_mutex
 * held so that no reader sees the records before their state is in
 * (evq.c); a state read then shows every event before the point, and
 * may show one just after it, which follows it in the stream. Handlers
 * never wait for the query: ib_query_port() may take the RTNL, which the
 * GID cache holds while it raises GID_CHANGE.
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
				 IB_ASYNC_SUB_OBJECT | IB_ASYNC_SUB_STATE)

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
 * not (cookie 0 then). Matched under the channel queue's lock, where a
 * snapshot has its point (see the top). Any context; the caller holds
 * rcu_read_lock().
 */
void ib_async_evchans_deliver(struct ib_async_file *file,
			      const struct ib_async_event *ev)
{
	const struct ib_async_subset *set;
	struct ib_async_channel *chan;
	const struct ib_async_sub *sub;
	unsigned long flags;
	bool wake;
	u32 i;

	list_for_each_entry_rcu(chan, &file->channels, list) {
		if (chan->type != IB_ASYNC_CHANNEL_EVENT)
			continue;
		flags = ib_async_evq_lock(&chan->evq);
		set = rcu_dereference(chan->subs);
		for (i = 0, sub = NULL; set && i < set->n && !sub; i++)
			if (ib_async_sub_match(&set->subs[i], ev))
				sub = &set->subs[i];
		if (chan->gid_gen &&
		    ev->event_type == IB_ASYNC_EV_GID_CHANGE &&
		    ev->port_num <= chan->nports)
			chan->gid_gen[ev->port_num]++;
		wake = false;
		if (sub || ev->event_type == IB_ASYNC_EV_DEVICE_FATAL)
			wake = ib_async_evq_push_chan_locked(&chan->evq, ev,
							     sub ? sub->cookie :
								   0);
		ib_async_evq_unlock(&chan->evq, flags, wake);
	}
}

static struct ib_async_subset *ib_async_subs(struct ib_async_channel *chan)
{
	return rcu_dereference_protected(chan->subs,
					 lockdep_is_held(&chan->adev->chan_lock));
}

/*
 * A copy of @chan's set without the subscriptions @drop says, plus @add
 * if not NULL, in *@out (NULL for an empty set). Return: 0, or -ENOMEM.
 */
static int ib_async_subs_build(struct ib_async_channel *chan,
			       bool (*drop)(const struct ib_async_sub *,
					    const void *),
			       const void *arg,
			       const struct ib_async_sub *add,
			       struct ib_async_subset **out)
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
	*out = set;
	return 0;
}

/* Make @set @chan's; the one it replaces goes after its readers. */
static void ib_async_subs_publish(struct ib_async_channel *chan,
				  struct ib_async_subset *set)
{
	struct ib_async_subset *old = ib_async_subs(chan);

	rcu_assign_pointer(chan->subs, set);
	if (old)
		kfree_rcu(old, rcu);
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
	struct ib_async_subset *set;
	int ret;

	ret = ib_async_subs_build(chan, drop, arg, add, &set);
	if (!ret)
		ib_async_subs_publish(chan, set);
	return ret;
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
		/* an object has no port state to report */
		if (arg->flags & IB_ASYNC_SUB_STATE)
			return -EINVAL;
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

/* Whether @chan can take another subscription; chan_lock held. */
static int ib_async_sub_admit(struct ib_async_channel *chan)
{
	struct ib_async_subset *set = ib_async_subs(chan);

	if (set && set->n >= IB_ASYNC_MAX_SUBSCRIPTIONS)
		return -ENOSPC;
	if (chan->sub_next == U32_MAX)	/* ids are never reused */
		return -ENOSPC;
	if (READ_ONCE(chan->evq.ended))
		return -EIO;
	return 0;
}

/* Add @sub, which gets its id, to @chan. */
static int ib_async_sub_add(struct ib_async_channel *chan,
			    struct ib_async_sub *sub)
{
	int ret;

	mutex_lock(&chan->adev->chan_lock);
	ret = ib_async_sub_admit(chan);
	if (!ret) {
		sub->id = chan->sub_next + 1;
		ret = ib_async_subs_replace(chan, NULL, NULL, sub);
		if (!ret)
			chan->sub_next = sub->id;
	}
	mutex_unlock(&chan->adev->chan_lock);
	return ret;
}

/**
 * struct ib_async_snap - a snapshot being taken
 * @n: its records
 * @ports: each record's port, 0 for the device
 * @cookies: each record's cookie
 * @st: each record's state
 * @first_seq: the first record's sequence number
 */
struct ib_async_snap {
	u32 n;
	u32 *ports;
	u64 *cookies;
	struct ib_async_port_state *st;
	u64 first_seq;
};

static int ib_async_snap_alloc(struct ib_async_snap *snap, u32 max)
{
	snap->ports = kcalloc(max, sizeof(*snap->ports), GFP_KERNEL);
	snap->cookies = kcalloc(max, sizeof(*snap->cookies), GFP_KERNEL);
	snap->st = kcalloc(max, sizeof(*snap->st), GFP_KERNEL);
	if (snap->ports && snap->cookies && snap->st)
		return 0;
	kfree(snap->ports);
	kfree(snap->cookies);
	kfree(snap->st);
	return -ENOMEM;
}

static void ib_async_snap_free(struct ib_async_snap *snap)
{
	kfree(snap->ports);
	kfree(snap->cookies);
	kfree(snap->st);
}

/* Whether a snapshot for @sub has a record of @port (0: the device). */
static bool ib_async_sub_covers(const struct ib_async_sub *sub, u32 port)
{
	if (sub->flags & IB_ASYNC_SUB_OBJECT)
		return false;
	return !(sub->flags & IB_ASYNC_SUB_PORT) || sub->port == port;
}

/*
 * @snap's records: each port (0 for the device) one of the @n @subs
 * covers, in port order, with the cookie of the earliest that does.
 */
static void ib_async_snap_scope(struct ib_async_snap *snap, u32 nports,
				const struct ib_async_sub *subs, u32 n)
{
	u32 p, i;

	snap->n = 0;
	for (p = 0; p <= nports; p++) {
		for (i = 0; i < n && !ib_async_sub_covers(&subs[i], p); i++)
			;
		if (i < n) {
			snap->ports[snap->n] = p;
			snap->cookies[snap->n++] = subs[i].cookie;
		}
	}
}

/*
 * The snapshot's point: its records reserved and, for a subscription that
 * asked for it, @set published, under the queue's lock (see the top).
 * The GID generations are those of that instant. chan_lock and the
 * queue's move_mutex held.
 */
static int ib_async_snap_point(struct ib_async_channel *chan,
			       struct ib_async_snap *snap, u32 flags,
			       struct ib_async_subset *set)
{
	struct ib_async_evq *q = &chan->evq;
	unsigned long irq;
	int ret;
	u32 i;

	lockdep_assert_held(&chan->adev->chan_lock);
	irq = ib_async_evq_lock(q);
	ret = ib_async_evq_state_reserve(q, snap->ports, snap->cookies,
					 snap->n, flags, &snap->first_seq);
	if (!ret) {
		if (set)
			ib_async_subs_publish(chan, set);
		for (i = 0; i < snap->n; i++)
			snap->st[i].gid_gen = chan->gid_gen[snap->ports[i]];
	}
	ib_async_evq_unlock(q, irq, false);
	return ret;
}

/* After the point: query the ports, and let readers have the records. */
static void ib_async_snap_fill(struct ib_async_channel *chan,
			       struct ib_device *ib_dev,
			       struct ib_async_snap *snap)
{
	u32 i;

	for (i = 0; i < snap->n; i++)
		ib_async_port_state_query(ib_dev, snap->ports[i],
					  &snap->st[i]);
	ib_async_evq_state_fill(&chan->evq, snap->first_seq, snap->st,
				snap->n);
}

/* Add @sub to @chan behind a snapshot of its ports. */
static int ib_async_sub_add_state(struct ib_async_ucmd *u,
				  struct ib_async_channel *chan,
				  struct ib_async_sub *sub)
{
	struct ib_async_subset *set;
	struct ib_async_snap snap;
	int ret;

	if (!(chan->evq.flags & IB_ASYNC_EVQ_STATE))
		return -EINVAL;
	ret = ib_async_snap_alloc(&snap, chan->nports + 1);
	if (ret)
		return ret;
	ib_async_snap_scope(&snap, chan->nports, sub, 1);

	ib_async_evq_state_begin(&chan->evq);
	mutex_lock(&chan->adev->chan_lock);
	ret = ib_async_sub_admit(chan);
	if (!ret) {
		sub->id = chan->sub_next + 1;
		ret = ib_async_subs_build(chan, NULL, NULL, sub, &set);
	}
	if (!ret) {
		ret = ib_async_snap_point(chan, &snap, 0, set);
		if (ret)
			kfree(set);
		else
			chan->sub_next = sub->id;
	}
	mutex_unlock(&chan->adev->chan_lock);
	if (!ret)
		ib_async_snap_fill(chan, u->ib_dev, &snap);
	ib_async_evq_state_end(&chan->evq);

	ib_async_snap_free(&snap);
	return ret;
}

int ib_async_cmd_subscribe(struct ib_async_ucmd *u)
{
	struct ib_async_subscribe *arg = u->cmd;
	struct ib_async_channel *chan;
	struct ib_async_sub sub;
	int ret;

	ret = ib_async_sub_parse(u, arg, &sub);
	if (ret)
		return ret;
	chan = ib_async_channel_get(u->file, arg->fd, IB_ASYNC_CHANNEL_EVENT);
	if (IS_ERR(chan))
		return PTR_ERR(chan);

	if (sub.flags & IB_ASYNC_SUB_STATE)
		ret = ib_async_sub_add_state(u, chan, &sub);
	else
		ret = ib_async_sub_add(chan, &sub);
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

/*
 * The snapshot an overflow asked for (IB_ASYNC_CHANNEL_RESYNC): of every
 * port a subscription covers, each record with the cookie of the earliest
 * one that does. None while an earlier snapshot is unread: the last of
 * its records to leave the queue asks again.
 */
static void ib_async_evchan_resync(struct work_struct *work)
{
	struct ib_async_channel *chan =
		container_of(work, struct ib_async_channel, resync_work);
	struct ib_async_device *adev = chan->adev;
	const struct ib_async_subset *set;
	struct ib_async_snap snap;
	int ret;

	clear_bit(0, &chan->resync_queued);
	if (ib_async_snap_alloc(&snap, chan->nports + 1))
		goto out;
	down_read(&adev->disassoc_rwsem);
	if (!adev->ib_dev)
		goto unlock;
	ib_async_evq_state_begin(&chan->evq);
	mutex_lock(&adev->chan_lock);
	set = ib_async_subs(chan);
	ib_async_snap_scope(&snap, chan->nports, set ? set->subs : NULL,
			    set ? set->n : 0);
	ret = ib_async_snap_point(chan, &snap, IB_ASYNC_STATE_RESYNC, NULL);
	mutex_unlock(&adev->chan_lock);
	if (!ret)
		ib_async_snap_fill(chan, adev->ib_dev, &snap);
	ib_async_evq_state_end(&chan->evq);
unlock:
	up_read(&adev->disassoc_rwsem);
	ib_async_snap_free(&snap);
out:
	ib_async_channel_put(chan);
}

/**
 * ib_async_evchan_resync_kick - an overflow asks for a snapshot
 * @q: a resync channel's queue, locked, its stream not ended (its resync)
 *
 * Queued under the queue's lock, with a reference: closing the channel
 * ends the stream under that lock first, so it finds any work queued
 * (ib_async_evchan_stop_resync()). Any context.
 */
static void ib_async_evchan_resync_kick(struct ib_async_evq *q)
{
	struct ib_async_channel *chan =
		container_of(q, struct ib_async_channel, evq);

	lockdep_assert_held(&q->lock);
	if (test_and_set_bit(0, &chan->resync_queued))
		return;
	kref_get(&chan->ref);
	queue_work(system_wq, &chan->resync_work);
}

/**
 * ib_async_evchan_stop_resync - the channel's file is closed
 * @chan: the channel
 *
 * Ends its stream, so that no overflow asks for another snapshot, and
 * cancels or waits for the one asked for.
 */
static void ib_async_evchan_stop_resync(struct ib_async_channel *chan)
{
	if (!(chan->evq.flags & IB_ASYNC_EVQ_RESYNC))
		return;
	ib_async_evq_close(&chan->evq, -EIO);
	if (cancel_work_sync(&chan->resync_work))
		ib_async_channel_put(chan);
}

/**
 * ib_async_evchan_init_state - what a state channel has beyond its queue
 * @chan: the channel, not yet listed
 * @ib_dev: its device
 *
 * Return: 0, -ENOMEM, or -EOPNOTSUPP for a device with more ports than a
 * snapshot holds.
 */
static int ib_async_evchan_init_state(struct ib_async_channel *chan,
				      struct ib_device *ib_dev)
{
	chan->nports = rdma_end_port(ib_dev);
	if (chan->nports + 1 > IB_ASYNC_STATE_PORTS_MAX)
		return -EOPNOTSUPP;
	chan->gid_gen = kcalloc(chan->nports + 1, sizeof(*chan->gid_gen),
				GFP_KERNEL_ACCOUNT);
	if (!chan->gid_gen)
		return -ENOMEM;
	INIT_WORK(&chan->resync_work, ib_async_evchan_resync);
	chan->evq.resync = ib_async_evchan_resync_kick;
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

/* fdinfo: how it queues, then one line per subscription, in order. */
static void ib_async_evchan_show_fdinfo(struct seq_file *m,
					struct ib_async_channel *chan)
{
	const struct ib_async_subset *set;
	const struct ib_async_sub *sub;
	u32 i;

	seq_printf(m, "ib_async-coalescing:\t%s\n",
		   chan->evq.flags & IB_ASYNC_EVQ_COALESCE ? "yes" : "no");
	seq_printf(m, "ib_async-state:\t%s\n",
		   chan->evq.flags & IB_ASYNC_EVQ_RESYNC ? "resync" :
		   chan->evq.flags & IB_ASYNC_EVQ_STATE ? "yes" : "no");
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
static void ib_async_evchan_free(struct ib_async_channel *chan)
{
	kfree(rcu_dereference_protected(chan->subs, 1));
	kfree(chan->gid_gen);
}

/*
 * The queue an event channel's flags ask for: coalescing, and records
 * that carry state, with room for a snapshot of the device and each port.
 */
static int ib_async_evchan_queue(struct ib_device *ib_dev, u32 flags,
				 unsigned int *qflags, u32 *state_slots)
{
	/* a snapshot after an overflow needs records that carry state */
	if (flags & IB_ASYNC_CHANNEL_RESYNC &&
	    !(flags & IB_ASYNC_CHANNEL_STATE))
		return -EINVAL;
	*qflags = IB_ASYNC_EVQ_CHAN;
	if (flags & IB_ASYNC_CHANNEL_COALESCE)
		*qflags |= IB_ASYNC_EVQ_COALESCE;
	if (flags & IB_ASYNC_CHANNEL_STATE) {
		*qflags |= IB_ASYNC_EVQ_STATE;
		*state_slots = rdma_end_port(ib_dev) + 1;
		if (*state_slots > IB_ASYNC_STATE_PORTS_MAX)
			return -EOPNOTSUPP;
	}
	if (flags & IB_ASYNC_CHANNEL_RESYNC)
		*qflags |= IB_ASYNC_EVQ_RESYNC;
	return 0;
}

static int ib_async_evchan_init(struct ib_async_channel *chan,
				struct ib_device *ib_dev)
{
	if (!(chan->evq.flags & IB_ASYNC_EVQ_STATE))
		return 0;
	return ib_async_evchan_init_state(chan, ib_dev);
}

/* The event channel, a kind of channel (channel.c), registered at init. */
const struct ib_async_chan_ops ib_async_evchan_ops = {
	.name		= "[ib_async_event]",
	.kind		= "event",
	.flags		= IB_ASYNC_CHANNEL_COALESCE | IB_ASYNC_CHANNEL_STATE |
			  IB_ASYNC_CHANNEL_RESYNC,
	.queue		= ib_async_evchan_queue,
	.init		= ib_async_evchan_init,
	.release	= ib_async_evchan_stop_resync,
	.show_fdinfo	= ib_async_evchan_show_fdinfo,
	.free		= ib_async_evchan_free,
	.end_record	= true,
};

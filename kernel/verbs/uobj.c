// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel verbs objects made on behalf of a file: handles, dependencies,
 * destruction, and the handler through which their affiliated events
 * reach the file's queue.
 *
 * Handles come from a per-file xarray, so a handle means nothing outside
 * its file. Dependencies are counted here (users) rather than left to the
 * RDMA core, because ib_dealloc_pd() of a PD still in use WARNs instead of
 * failing: a destroy of a used object must fail with EBUSY and change
 * nothing.
 */
#include <linux/kmemleak.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "verbs.h"

/*
 * The rdma cgroup counts each verbs object made through ib_async as one
 * hca_object, as ib_uverbs counts its objects, so a cgroup's rdma.max
 * limits both alike (creation fails with EAGAIN). Charged before the verbs
 * object exists, uncharged once it is gone: at destroy, close or device
 * removal, always while the device, whose pool it is, still exists.
 */
#ifdef CONFIG_CGROUP_RDMA
/**
 * ib_async_cg_charge - one hca_object of the caller's rdma cgroup
 * @cg: where the charge is kept, until ib_async_cg_uncharge()
 * @ib_dev: the device whose pool it is charged to
 *
 * Return: 0, or -EAGAIN past the cgroup's rdma.max.
 */
int ib_async_cg_charge(struct ib_rdmacg_object *cg, struct ib_device *ib_dev)
{
	return rdmacg_try_charge(&cg->cg, &ib_dev->cg_device,
				 RDMACG_RESOURCE_HCA_OBJECT);
}

/* Give back what ib_async_cg_charge() took, while @ib_dev exists. */
void ib_async_cg_uncharge(struct ib_rdmacg_object *cg,
			  struct ib_device *ib_dev)
{
	rdmacg_uncharge(cg->cg, &ib_dev->cg_device,
			RDMACG_RESOURCE_HCA_OBJECT);
}
#else
int ib_async_cg_charge(struct ib_rdmacg_object *cg, struct ib_device *ib_dev)
{
	return 0;
}

void ib_async_cg_uncharge(struct ib_rdmacg_object *cg,
			  struct ib_device *ib_dev)
{
}
#endif

static int ib_async_uobj_charge(struct ib_async_uobj *uobj)
{
	return ib_async_cg_charge(&uobj->cg_obj, uobj->file->adev->ib_dev);
}

static void ib_async_uobj_uncharge(struct ib_async_uobj *uobj)
{
	ib_async_cg_uncharge(&uobj->cg_obj, uobj->file->adev->ib_dev);
}

void ib_async_file_objs_init(struct ib_async_file *file)
{
	xa_init_flags(&file->verbs->objs, XA_FLAGS_ALLOC1);
	xa_init(&file->verbs->mr_keys);
}

/*
 * Handles are allocated cyclically and never reused in a file's life, so
 * a stale handle can never name a newer object: once the 32-bit space is
 * used up, the file makes no more objects (ENOSPC).
 */
static int ib_async_handle_alloc(struct ib_async_file *file,
				 struct ib_async_uobj *uobj)
{
	int ret;

	if (file->verbs->objs_exhausted)
		return -ENOSPC;
	ret = xa_alloc_cyclic(&file->verbs->objs, &uobj->handle, uobj, xa_limit_32b,
			      &file->verbs->obj_next, GFP_KERNEL_ACCOUNT);
	if (ret == 1) {
		xa_erase(&file->verbs->objs, uobj->handle);
		file->verbs->objs_exhausted = true;
		return -ENOSPC;
	}
	return ret;
}

/*
 * With the device present; the handle and the cgroup charge exist before
 * the verbs object.
 */
struct ib_async_uobj *ib_async_uobj_new(struct ib_async_file *file,
					const struct ib_async_uobj_type *t,
					u64 user_handle)
{
	struct ib_async_uobj *uobj;
	int ret;

	lockdep_assert_held(&file->obj_mutex);
	uobj = kzalloc(sizeof(*uobj), GFP_KERNEL_ACCOUNT);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	uobj->file = file;
	mutex_init(&uobj->dp_lock);
	uobj->ops = t;
	uobj->type = t->type;
	uobj->user_handle = user_handle;
	INIT_LIST_HEAD(&uobj->wrs);
	INIT_LIST_HEAD(&uobj->sq_wrs);
	INIT_LIST_HEAD(&uobj->mcast);
	ret = ib_async_uobj_charge(uobj);
	if (ret)
		goto err_free;
	ret = ib_async_handle_alloc(file, uobj);
	if (ret)
		goto err_uncharge;
	return uobj;

err_uncharge:
	ib_async_uobj_uncharge(uobj);
err_free:
	kfree(uobj);
	return ERR_PTR(ret);
}

/*
 * The uobj's records are gone or orphaned: nothing can name it any more.
 * An abandoned one stays: it is the context the driver still holds for
 * its handlers, and it keeps what the device may write into reachable.
 */
static void ib_async_uobj_free(struct ib_async_uobj *uobj)
{
	if (uobj->ops->free)
		uobj->ops->free(uobj);
	if (uobj->abandoned) {
		kmemleak_not_leak(uobj);
		return;
	}
	kfree_rcu(uobj, rcu);
}

/**
 * ib_async_uobj_set_name - the owner "rdma resource show" prints for it
 * @uobj: the object, with its verbs object
 * @name: the owner; it must outlive the verbs object's restrack entry
 *
 * The core records objects made with kernel verbs as the module's own:
 * name the process they were made for, so "rdma resource show" tells
 * whose they are.
 */
void ib_async_uobj_set_name(struct ib_async_uobj *uobj, const char *name)
{
	if (uobj->ops->set_name)
		uobj->ops->set_name(uobj, name);
}

/*
 * Undo ib_async_uobj_new() when the verbs object could not be made, and
 * what its queues were charged before the driver was asked.
 */
void ib_async_uobj_abort(struct ib_async_uobj *uobj)
{
	/* creates take obj_mutex alone: see ib_async_uobj_find() */
	lockdep_assert_held(&uobj->file->obj_mutex);
	ib_async_verbs_uncharge(uobj, uobj->charged);
	ib_async_uobj_uncharge(uobj);
	xa_erase(&uobj->file->verbs->objs, uobj->handle);
	ib_async_uobj_free(uobj);
}

/*
 * Keep the object's queued records readable but stop counting them for it,
 * in the file's queue and its CQ's channel.
 */
static void ib_async_uobj_orphan(struct ib_async_uobj *uobj)
{
	ib_async_evq_orphan(&uobj->file->evq, &uobj->ev);
	if (uobj->comp_chan)
		ib_async_evq_orphan(&uobj->comp_chan->evq, &uobj->comp);
}

/* Record that @uobj uses @dep, so @dep cannot be destroyed first. */
void ib_async_uobj_use(struct ib_async_uobj *uobj, struct ib_async_uobj *dep)
{
	int i;

	if (!dep)
		return;
	for (i = 0; i < IB_ASYNC_UOBJ_MAX_USES; i++) {
		if (!uobj->uses[i]) {
			uobj->uses[i] = dep;
			dep->users++;
			return;
		}
	}
}

/**
 * ib_async_uobj_find - the object a handle names
 * @file: the file
 * @handle: its handle
 *
 * Walks of the file's objects (close, removal) see every one; a handle
 * names an object only once its create answered, so that no other
 * command can use or destroy what a create whose answer is lost must
 * take back (ib_async_cmd_created()).
 *
 * Either lock will do. A committed object goes only with both held
 * (ib_async_uobj_unlink()); an uncommitted one a failed create frees
 * with obj_mutex alone, so under dp_rwsem alone its flag is read inside
 * the grace period its free waits for (ib_async_uobj_free()).
 *
 * Return: the object, live or destroyed by removal, or NULL.
 */
struct ib_async_uobj *ib_async_uobj_find(struct ib_async_file *file,
					 u32 handle)
{
	lockdep_assert(lockdep_is_held(&file->obj_mutex) ||
		       lockdep_is_held(&file->dp_rwsem));
	return handle ? ib_async_uobj_load(&file->verbs->objs, handle) : NULL;
}

/**
 * ib_async_uobj_load - the committed object a table of the file holds
 * @table: the handle table, or the MR key table
 * @index: a handle, or a key
 *
 * The committed flag is read inside the grace period the free of an
 * uncommitted object waits for (see ib_async_uobj_find()).
 *
 * Return: the object, or NULL for none or one whose create has not
 * answered.
 */
struct ib_async_uobj *ib_async_uobj_load(struct xarray *table,
					 unsigned long index)
{
	struct ib_async_uobj *uobj;

	rcu_read_lock();
	uobj = xa_load(table, index);
	if (uobj && !READ_ONCE(uobj->committed))
		uobj = NULL;
	rcu_read_unlock();
	return uobj;
}

/**
 * ib_async_uobj_commit - a create answered: its handle names its object
 * @file: the file
 * @handle: the object's
 *
 * Device removal may have destroyed the verbs object meanwhile: the
 * handle then names a dead object, as any other after removal.
 */
void ib_async_uobj_commit(struct ib_async_file *file, u32 handle)
{
	struct ib_async_uobj *uobj;

	ib_async_file_lock(file);
	/* handles are never reused, and nothing else removes it */
	uobj = xa_load(&file->verbs->objs, handle);
	if (uobj)
		WRITE_ONCE(uobj->committed, true);
	ib_async_file_unlock(file);
}

/**
 * ib_async_uobj_get - look up a live object of the file
 * @file: the file
 * @handle: its handle
 * @type: the type the caller expects
 *
 * Return: the object, ERR_PTR(-ENOENT) for no such handle, -EINVAL for one
 * of another type, -ENODEV if device removal destroyed it.
 */
struct ib_async_uobj *ib_async_uobj_get(struct ib_async_file *file,
					u32 handle, u32 type)
{
	struct ib_async_uobj *uobj;

	uobj = ib_async_uobj_find(file, handle);
	if (!uobj)
		return ERR_PTR(-ENOENT);
	if (uobj->type != type)
		return ERR_PTR(-EINVAL);
	if (!uobj->obj)
		return ERR_PTR(-ENODEV);
	return uobj;
}

/**
 * ib_async_uobj_event_source - an object a subscription may name
 * @file: the file
 * @handle: its handle
 * @type: out: its type
 *
 * Return: 0 for a live object that raises events, -ENOENT for no such
 * handle, -EINVAL for an object that raises none, -ENODEV for one that
 * device removal destroyed.
 */
int ib_async_uobj_event_source(struct ib_async_file *file, u32 handle,
			       u32 *type)
{
	struct ib_async_uobj *uobj;

	uobj = ib_async_uobj_find(file, handle);
	if (!uobj)
		return -ENOENT;
	if (!uobj->ops->events)
		return -EINVAL;
	if (!uobj->obj)
		return -ENODEV;
	*type = uobj->type;
	return 0;
}

static int ib_async_uobj_destroy_hw(struct ib_async_uobj *uobj)
{
	return uobj->ops->destroy(uobj);
}

/*
 * The verbs object is gone: release what it held. Every destroy that
 * succeeds (DESTROY, a lost answer, close, device removal) ends here,
 * once; what removal gives up on ends in ib_async_uobj_abandon() instead.
 */
static void ib_async_uobj_drop_uses(struct ib_async_uobj *uobj)
{
	int i;

	if (uobj->ops->destroyed)
		uobj->ops->destroyed(uobj);
	for (i = 0; i < IB_ASYNC_UOBJ_MAX_USES && uobj->uses[i]; i++)
		uobj->uses[i]->users--;
	ib_async_verbs_uncharge(uobj, uobj->charged);
	ib_async_uobj_uncharge(uobj);
}

/*
 * Destroy the verbs object, if it still exists, and release what it held;
 * the uobj and its handle stay. -EBUSY while other objects use it.
 */
static int ib_async_uobj_destroy_obj(struct ib_async_uobj *uobj)
{
	int ret;

	lockdep_assert_held(&uobj->file->obj_mutex);
	ib_async_dp_assert_excl(uobj->file);
	if (uobj->users)
		return -EBUSY;
	if (!uobj->obj)
		return 0;
	ret = ib_async_uobj_destroy_hw(uobj);
	if (ret)
		return ret;
	ib_async_uobj_drop_uses(uobj);
	uobj->obj = NULL;
	return 0;
}

/*
 * The handle goes (DESTROY, or close). Of an object removal gave up on,
 * it is the last thing that reaches the requests the object held: their
 * charges go back now, once (its kind's let_go). Whatever names the
 * object by handle goes with it, under both locks (its kind's unlink):
 * what ib_async_uobj_free() releases later, without those locks, is then
 * out of reach of every walk or lookup made with either held.
 */
static void ib_async_uobj_unlink(struct ib_async_uobj *uobj)
{
	lockdep_assert_held(&uobj->file->obj_mutex);
	ib_async_dp_assert_excl(uobj->file);
	if (uobj->abandoned && uobj->ops->let_go)
		uobj->ops->let_go(uobj);
	if (uobj->ops->unlink)
		uobj->ops->unlink(uobj);
	xa_erase(&uobj->file->verbs->objs, uobj->handle);
}

/**
 * ib_async_uobj_remove - destroy an object's verbs object: the one path
 * @uobj: the object, from ib_async_uobj_get() or already dead
 * @why: who asks; at device removal the handle stays, a dead one
 *
 * The verbs object goes first: once it is destroyed the driver calls no
 * handler for it, so the purge that
 * ib_async_uobj_destroy_end() does cannot miss a record. Unless the
 * device is being removed, the handle is gone on success, so no other
 * command can find the object meanwhile.
 *
 * Return: 0, -EBUSY (in use, nothing changed) or the driver's error.
 */
int ib_async_uobj_remove(struct ib_async_uobj *uobj,
			 enum ib_async_remove_reason why)
{
	int ret;

	/* as ib_uverbs: the program detaches; close and removal do it */
	if (why == IB_ASYNC_REMOVE_DESTROY && !list_empty(&uobj->mcast))
		return -EBUSY;
	ret = ib_async_uobj_destroy_obj(uobj);

	if (!ret && why != IB_ASYNC_REMOVE_DEVICE)
		ib_async_uobj_unlink(uobj);
	return ret;
}

/**
 * ib_async_uobj_destroy_end - purge a destroyed object's records, free it
 * @uobj: the object, after ib_async_uobj_remove() succeeded
 * @comp_events_reported: out: how many of a CQ's completion events the
 *	readers of its channel got (0 without one)
 *
 * Never waits for a reader of the file's queue, or of the channel's, that
 * is copying to a slow user buffer: what such a reader had not consumed
 * is purged and not counted (see evq.c). The purge walks queues that may
 * be long, so the caller holds no lock that device removal or other files
 * wait for.
 *
 * Return: how many of the object's events the file's readers got.
 */
u64 ib_async_uobj_destroy_end(struct ib_async_uobj *uobj,
			      u64 *comp_events_reported)
{
	u64 reported = ib_async_evq_purge(&uobj->file->evq, &uobj->ev);

	*comp_events_reported = 0;
	if (uobj->comp_chan)
		*comp_events_reported =
			ib_async_evq_purge(&uobj->comp_chan->evq, &uobj->comp);
	ib_async_uobj_free(uobj);
	return reported;
}

/**
 * ib_async_uobj_forget_end - end a destroy a command made
 * @uobj: the object, after ib_async_uobj_remove() succeeded
 * @comp_events_reported: as for ib_async_uobj_destroy_end()
 *
 * DESTROY, and a create whose answer was lost: the object also leaves the
 * file's event channels first (the subscriptions naming it, its unread
 * records), whose records carry the user_handle of an object the caller
 * frees next. At close the channels' streams end instead.
 *
 * Return: how many of the object's events the file's readers got.
 */
u64 ib_async_uobj_forget_end(struct ib_async_uobj *uobj,
			     u64 *comp_events_reported)
{
	ib_async_evchans_forget(uobj->file, uobj->type, uobj->handle);
	return ib_async_uobj_destroy_end(uobj, comp_events_reported);
}

/**
 * ib_async_file_end_destroyed - purge and free objects destroyed at close
 * @ended: what ib_async_file_destroy_objs() destroyed; empty on return,
 *	so that the caller may pass it to that function again
 *
 * The file's own queue has no reader left at close, but a CQ's completion
 * channel is a file of its own, whose reader may be copying to a slow
 * user buffer: the purge does not wait for it, and the caller holds no
 * lock, as for DESTROY.
 */
void ib_async_file_end_destroyed(struct list_head *ended)
{
	struct ib_async_uobj *uobj, *next;
	u64 comp;

	list_for_each_entry_safe(uobj, next, ended, ended) {
		list_del(&uobj->ended);
		ib_async_uobj_destroy_end(uobj, &comp);
	}
}

/*
 * Dependents before what they use: QPs use SRQs, CQs and PDs; MRs go after
 * the QPs that may still have requests naming them.
 */
static const u32 ib_async_destroy_order[] = {
	IB_ASYNC_OBJ_QP, IB_ASYNC_OBJ_WQ, IB_ASYNC_OBJ_SRQ, IB_ASYNC_OBJ_AH,
	IB_ASYNC_OBJ_MR, IB_ASYNC_OBJ_CQ, IB_ASYNC_OBJ_PD,
};

/*
 * Destroy the verbs objects of one type. At close the uobjs go on @ended,
 * for ib_async_file_end_destroyed(). At device removal (@ended NULL) they
 * stay as dead handles, their queued records stay readable and still
 * count for them, and a later destroy of the handle purges what was not
 * read and reports what was: a program may still hold an event it read
 * after removal, and ibv_destroy_*() must not free what its ack will
 * touch. Return: whether any was destroyed.
 */
static bool ib_async_destroy_type(struct ib_async_file *file, u32 type,
				  struct list_head *ended)
{
	struct ib_async_uobj *uobj;
	unsigned long handle;
	bool progress = false;
	int ret;

	xa_for_each(&file->verbs->objs, handle, uobj) {
		if (uobj->type != type || !uobj->obj)
			continue;
		ret = ib_async_uobj_remove(uobj, ended ? IB_ASYNC_REMOVE_CLOSE :
						 IB_ASYNC_REMOVE_DEVICE);
		if (ret)
			continue;
		if (ended)
			list_add_tail(&uobj->ended, ended);
		progress = true;
	}
	return progress;
}

/*
 * The restrack owner of what removal gave up on: the file, whose name the
 * objects carried, is freed at close, and the entries stay until the
 * device is freed.
 */
static const char ib_async_abandoned_name[] = "ib_async(abandoned)";

/*
 * Removal could not destroy @uobj's verbs object: the driver refused and
 * retrying made no progress. As ib_uverbs does with such objects, give it
 * up and go on, so that removal never waits: the handle becomes a dead
 * one, which no later command, DESTROY included, takes to the driver or
 * to the device, gone by then. The rdma cgroup charge goes back while the
 * device's pool still exists, and so does the charge of its queues,
 * which the driver keeps: the file, whose budget they were on, is freed
 * at close. What the device may still write into (its requests' buffers,
 * an MR's pinned pages) and the uobj, the context the driver holds for
 * its handlers, are never freed; the handlers drop what such an object
 * raises. Its requests stay charged to the file while its handle lasts,
 * and leave the file with it (ib_async_uobj_unlink()).
 */
static void ib_async_uobj_abandon(struct ib_async_uobj *uobj)
{
	lockdep_assert_held(&uobj->file->obj_mutex);
	ib_async_dp_assert_excl(uobj->file);
	ib_async_uobj_set_name(uobj, ib_async_abandoned_name);
	if (uobj->ops->abandon)
		uobj->ops->abandon(uobj);
	ib_async_verbs_uncharge(uobj, uobj->charged);
	ib_async_uobj_uncharge(uobj);
	WRITE_ONCE(uobj->abandoned, uobj->obj);
	uobj->obj = NULL;
}

static u32 ib_async_live_objs(struct ib_async_file *file)
{
	struct ib_async_uobj *uobj;
	unsigned long handle;
	u32 n = 0;

	xa_for_each(&file->verbs->objs, handle, uobj)
		if (uobj->obj)
			n++;
	return n;
}

/**
 * ib_async_file_destroy_objs - destroy every object of a file
 * @file: the file
 * @removal: the device is going away (else: the file is being closed)
 * @ended: at close, where the destroyed objects go; the caller passes
 *	them to ib_async_file_end_destroyed() once it dropped the rwsem
 *
 * A driver may fail a destroy. As ib_uverbs does, the whole set is tried
 * again, in dependency order, for as long as that makes progress; what is
 * still alive then stays with its uobj (its handler may still run, and
 * its requests may still be the device's), to be tried again when the
 * device is removed. The file's locks must not be held: they are taken here.
 *
 * Return: how many verbs objects are still alive.
 */
u32 ib_async_file_destroy_objs(struct ib_async_file *file, bool removal,
			       struct list_head *ended)
{
	/* Closed after removal: nothing is alive, removal abandoned the rest. */
	bool retry = removal || file->adev->ib_dev;
	struct ib_async_uobj *uobj;
	bool progress, abandon;
	unsigned long handle;
	u32 left;
	int i;

	/* for writing at removal, for reading at close */
	lockdep_assert_held(&file->adev->disassoc_rwsem);
	/* a poller asleep returns: its next pass finds the device gone */
	if (removal)
		ib_async_poller_wake(file->verbs);

	ib_async_file_lock(file);
	left = ib_async_live_objs(file);
	while (retry && left) {
		progress = false;
		for (i = 0; i < ARRAY_SIZE(ib_async_destroy_order); i++)
			progress |= ib_async_destroy_type(file,
						ib_async_destroy_order[i],
						removal ? NULL : ended);
		left = ib_async_live_objs(file);
		retry = progress;
	}
	if (left && (removal || file->adev->ib_dev))
		pr_warn("ib_async: %s: %u objects left after the driver refused a destroy%s\n",
			dev_name(&file->adev->dev), left,
			removal ? "; abandoning them" : "; retrying at removal");
	abandon = left && removal;
	if (abandon) {
		xa_for_each(&file->verbs->objs, handle, uobj)
			if (uobj->obj)
				ib_async_uobj_abandon(uobj);
		/* the driver keeps our handlers: stay until it goes */
		ib_async_hold_for(file->adev->ib_dev);
		left = 0;
	}
	if (!removal) {
		/* What removal destroyed earlier leaves dead handles. */
		xa_for_each(&file->verbs->objs, handle, uobj) {
			if (uobj->obj)
				continue;
			ib_async_uobj_orphan(uobj);
			ib_async_uobj_unlink(uobj);
			ib_async_uobj_free(uobj);
		}
	}
	ib_async_file_unlock(file);
	/* A handler that saw the object alive is done with the file now. */
	if (abandon)
		synchronize_rcu();
	return left;
}

/*
 * The event handler of every CQ, QP, SRQ and WQ made for a file. Drivers
 * call it from process, softirq or hard-irq context, and for non-RC QPs
 * from inside ib_modify_qp(): it takes only the queue's irq-safe lock.
 */
void ib_async_uobj_event(struct ib_event *event, void *context)
{
	struct ib_async_uobj *uobj = context;
	struct ib_async_event rec;

	/*
	 * Removal gave the object up: its file is freed a grace period after
	 * close, so the check and every use of the file are in one RCU
	 * read-side section.
	 */
	rcu_read_lock();
	if (READ_ONCE(uobj->abandoned))
		goto out;
	rec = (struct ib_async_event){
		.element	= uobj->user_handle,
		.timestamp_ns	= ktime_get_ns(),
		.event_type	= event->event,
		.port_num	= READ_ONCE(uobj->port),
		.obj_type	= uobj->type,
		.obj_handle	= uobj->handle,
	};
	ib_async_stat_add(uobj->file->adev->stats, IB_ASYNC_STAT_EVENTS, 1);
	ib_async_evq_push(&uobj->file->evq, &rec, &uobj->ev);
	ib_async_evchans_deliver(uobj->file, &rec);
out:
	rcu_read_unlock();
}

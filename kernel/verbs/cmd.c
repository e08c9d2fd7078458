// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Object commands: marshal the uAPI structures into kernel verbs calls.
 * Each object kind's own are in its file (pd.c, cq.c, qp.c, srq.c, wq.c,
 * ah.c, mr.c); here is what they share: answering a create, charging
 * its queues, DESTROY, and undoing a create the caller never learnt.
 *
 * The dispatcher (core/uapi.c) hands each handler the caller's argument already
 * copied into kernel memory and copies the answer back after dropping
 * every lock. Handlers run with the device's disassoc_rwsem held for
 * reading (the ib_device cannot go away underneath) and the file's
 * obj_mutex (the file's handles and dependency counts stay still), then
 * its dp_rwsem for writing (no post or poll runs meanwhile).
 * Arguments are checked completely before anything is created, so bad
 * input changes nothing.
 */
#include "verbs.h"

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
	u->answered = ib_async_cmd_created;
	u->pending_handle = uobj->handle;
	ib_async_ucmd_respond(u);
	return 0;
}

/*
 * Before the driver is asked: charge the new object's queues, for the
 * sizes asked for, so that a create past the budget allocates nothing.
 */
/* What an object's queues cost; nothing for a kind without queues. */
static u64 ib_async_queue_bytes(const struct ib_async_uobj *uobj,
				const struct ib_async_queue_sizes *s)
{
	return uobj->ops->queue_bytes ? uobj->ops->queue_bytes(s) : 0;
}

int ib_async_charge_asked(struct ib_async_uobj *uobj,
			  const struct ib_async_queue_sizes *asked)
{
	int ret;

	ret = ib_async_verbs_charge(uobj, ib_async_queue_bytes(uobj,
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
int ib_async_put_charged(struct ib_async_ucmd *c, struct ib_async_uobj *uobj,
			 const struct ib_async_queue_sizes *granted, u32 *handle)
{
	int ret;

	ret = ib_async_verbs_charge_to(uobj, ib_async_queue_bytes(uobj,
								  granted));
	if (ret) {
		c->answered = ib_async_cmd_created;
		c->pending_handle = uobj->handle;
		return ret;
	}
	return ib_async_put_created(c, uobj, handle);
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
		uobj = ib_async_uobj_find(c->file, arg->handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ib_async_uobj_remove(uobj, IB_ASYNC_REMOVE_DESTROY);
	if (ret)
		return ret;
	/* Its records are purged, events_reported filled, without locks. */
	c->unlocked = ib_async_cmd_destroyed;
	c->unlocked_arg = uobj;
	ib_async_ucmd_respond(c);
	return 0;
}

/*
 * A command that made an object, once answered: if the caller cannot
 * learn it (the copy back failed) or may not keep it (the budget refused
 * what the driver granted), destroy it again.
 */
int ib_async_cmd_created(struct ib_async_ucmd *u, int result)
{
	struct ib_async_file *file = u->file;
	struct ib_async_uobj *uobj;
	int ret = -ENOENT;
	u64 comp;

	if (!result) {
		ib_async_uobj_commit(file, u->pending_handle);
		return 0;
	}

	down_read(&file->adev->disassoc_rwsem);
	ib_async_file_lock(file);
	/*
	 * Handles are never reused and no other command finds an object
	 * before its create answered: if it is there, it is ours.
	 */
	uobj = xa_load(&file->verbs->objs, u->pending_handle);
	if (uobj)
		ret = ib_async_uobj_remove(uobj, IB_ASYNC_REMOVE_DESTROY);
	ib_async_file_unlock(file);
	up_read(&file->adev->disassoc_rwsem);
	if (!ret)
		ib_async_uobj_forget_end(uobj, &comp);
	return result;
}

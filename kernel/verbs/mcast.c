// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast: ATTACH_MCAST and DETACH_MCAST, what librdmacm does after
 * rdma_join_multicast() (ibv_attach_mcast()), with ib_uverbs' rules: a
 * second attach to the same group is a no-op, a detach from a group the
 * QP is not attached to is EINVAL, DESTROY of an attached QP is EBUSY,
 * and close or device removal detach before the QP is destroyed (the core
 * counts each attachment as a use of the QP and refuses to destroy it
 * while one is left).
 *
 * The device is asked once per group and QP, whatever the LIDs: rxe
 * attaches a QP to a GID once (a second attach succeeds and changes
 * nothing) while the core counts every successful call as a use of the QP,
 * so a second LID for the same GID would leave a use no detach can take
 * back, and the QP could never be destroyed (the fuzzer found it). Each
 * (GID, LID) is still its own attachment for the program, as in ib_uverbs;
 * the device's attach comes with the first of a GID, its detach with the
 * last, under the LID the attach used.
 *
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held, which also guards each QP's list.
 */
#include <linux/slab.h>

#include "verbs.h"

struct ib_async_mcast_entry {
	struct list_head list;
	union ib_gid gid;
	u16 lid;
	u16 dev_lid;	/* the LID the device's attach of this GID used */
};

/* The QP's attachment to @gid under @lid, or to @gid at all (@any). */
static struct ib_async_mcast_entry *
ib_async_mcast_find(struct ib_async_uobj *uobj, const union ib_gid *gid,
		    u16 lid, bool any)
{
	struct ib_async_mcast_entry *m;

	list_for_each_entry(m, &uobj->mcast, list)
		if ((any || m->lid == lid) &&
		    !memcmp(&m->gid, gid, sizeof(*gid)))
			return m;
	return NULL;
}

/* Take @m off its QP, detaching the device if it was its GID's last. */
static int ib_async_mcast_drop(struct ib_async_uobj *uobj,
			       struct ib_async_mcast_entry *m)
{
	int ret = 0;

	list_del(&m->list);
	if (!ib_async_mcast_find(uobj, &m->gid, 0, true))
		ret = ib_detach_mcast(uobj->qp, &m->gid, m->dev_lid);
	return ret;
}

/* The QP of a well-formed argument, or an error pointer. */
static struct ib_async_uobj *ib_async_mcast_qp(struct ib_async_ucmd *c,
					       union ib_gid *gid)
{
	struct ib_async_mcast *arg = c->cmd;

	if (arg->flags || arg->reserved)
		return ERR_PTR(-EINVAL);
	memcpy(gid->raw, arg->gid, sizeof(gid->raw));
	return ib_async_uobj_get(c->file, arg->qp_handle, IB_ASYNC_OBJ_QP);
}

int ib_async_cmd_attach_mcast(struct ib_async_ucmd *c)
{
	struct ib_async_mcast *arg = c->cmd;
	struct ib_async_mcast_entry *m, *other;
	struct ib_async_uobj *uobj;
	union ib_gid gid;
	int ret;

	uobj = ib_async_mcast_qp(c, &gid);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (ib_async_mcast_find(uobj, &gid, arg->lid, false))
		return 0;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->gid = gid;
	m->lid = arg->lid;
	other = ib_async_mcast_find(uobj, &gid, 0, true);
	if (other) {
		m->dev_lid = other->dev_lid;
	} else {
		ret = ib_attach_mcast(uobj->qp, &gid, arg->lid);
		if (ret) {
			kfree(m);
			return ret;
		}
		m->dev_lid = arg->lid;
	}
	list_add_tail(&m->list, &uobj->mcast);
	return 0;
}

int ib_async_cmd_detach_mcast(struct ib_async_ucmd *c)
{
	struct ib_async_mcast *arg = c->cmd;
	struct ib_async_mcast_entry *m;
	struct ib_async_uobj *uobj;
	union ib_gid gid;
	int ret;

	uobj = ib_async_mcast_qp(c, &gid);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	m = ib_async_mcast_find(uobj, &gid, arg->lid, false);
	if (!m)
		return -EINVAL;
	ret = ib_async_mcast_drop(uobj, m);
	if (ret) {
		list_add_tail(&m->list, &uobj->mcast);
		return ret;
	}
	kfree(m);
	return 0;
}

/**
 * ib_async_qp_detach_all - detach a QP from every group before its destroy
 * @uobj: the QP, at close or device removal
 *
 * A failed detach is dropped with its entry, as ib_uverbs does: the
 * destroy that follows reports the QP still in use if the device kept it.
 */
void ib_async_qp_detach_all(struct ib_async_uobj *uobj)
{
	struct ib_async_mcast_entry *m, *tmp;

	list_for_each_entry_safe(m, tmp, &uobj->mcast, list) {
		ib_async_mcast_drop(uobj, m);
		kfree(m);
	}
}

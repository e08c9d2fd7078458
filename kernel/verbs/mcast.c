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
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held, which also guards each QP's list.
 */
#include <linux/slab.h>

#include "verbs.h"

struct ib_async_mcast_entry {
	struct list_head list;
	union ib_gid gid;
	u16 lid;
};

static struct ib_async_mcast_entry *
ib_async_mcast_find(struct ib_async_uobj *uobj, const union ib_gid *gid,
		    u16 lid)
{
	struct ib_async_mcast_entry *m;

	list_for_each_entry(m, &uobj->mcast, list)
		if (m->lid == lid && !memcmp(&m->gid, gid, sizeof(*gid)))
			return m;
	return NULL;
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
	struct ib_async_mcast_entry *m;
	struct ib_async_uobj *uobj;
	union ib_gid gid;
	int ret;

	uobj = ib_async_mcast_qp(c, &gid);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	if (ib_async_mcast_find(uobj, &gid, arg->lid))
		return 0;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->gid = gid;
	m->lid = arg->lid;
	ret = ib_attach_mcast(uobj->qp, &gid, arg->lid);
	if (ret) {
		kfree(m);
		return ret;
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
	m = ib_async_mcast_find(uobj, &gid, arg->lid);
	if (!m)
		return -EINVAL;
	ret = ib_detach_mcast(uobj->qp, &gid, arg->lid);
	if (ret)
		return ret;
	list_del(&m->list);
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
		ib_detach_mcast(uobj->qp, &m->gid, m->lid);
		list_del(&m->list);
		kfree(m);
	}
}

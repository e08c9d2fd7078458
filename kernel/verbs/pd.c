// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Protection domains: CREATE_PD; the MRs a PD registers are mr.c's.
 *
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held.
 */
#include "verbs.h"

int ib_async_cmd_create_pd(struct ib_async_ucmd *c)
{
	struct ib_async_create_pd *arg = c->cmd;
	struct ib_async_uobj *uobj;
	struct ib_pd *pd;

	if (arg->flags || arg->reserved || arg->handle)
		return -EINVAL;

	uobj = ib_async_uobj_new(c->file, IB_ASYNC_OBJ_PD, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = ib_alloc_pd(c->ib_dev, 0);
	if (IS_ERR(pd)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(pd);
	}
	uobj->pd = pd;
	return ib_async_put_created(c, uobj, &arg->handle);
}

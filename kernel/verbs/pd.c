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

	uobj = ib_async_uobj_new(c->file, &ib_async_pd_type, 0);
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

/* Its registration QP first: it uses the PD. */
static int ib_async_pd_destroy(struct ib_async_uobj *uobj)
{
	int ret;

	ret = ib_async_regq_destroy(uobj->regq);
	if (ret)
		return ret;
	uobj->regq = NULL;
	return ib_dealloc_pd_user(uobj->pd, NULL);
}

static void ib_async_pd_set_name(struct ib_async_uobj *uobj, const char *name)
{
	rdma_restrack_set_name(&uobj->pd->res, name);
	ib_async_regq_set_name(uobj->regq, name);
}

static void ib_async_pd_abandon(struct ib_async_uobj *uobj)
{
	ib_async_regq_abandon(uobj->regq);
}

const struct ib_async_uobj_type ib_async_pd_type = {
	.type		= IB_ASYNC_OBJ_PD,
	.destroy	= ib_async_pd_destroy,
	.set_name	= ib_async_pd_set_name,
	.abandon	= ib_async_pd_abandon,
};

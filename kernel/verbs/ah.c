// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address handles and what QPs share with them: CREATE_AH, the
 * conversions between struct ib_async_av and struct rdma_ah_attr, and
 * the Q_Key check of QPs and UD sends.
 *
 * Handlers run as verbs/cmd.c says, with the device pinned and the
 * file's obj_mutex held.
 */
#include <linux/capability.h>
#include <rdma/ib_mad.h>

#include "verbs.h"

/**
 * ib_async_check_qkey - may the caller use this Q_Key?
 * @qkey: a Q_Key for a QP or a UD send
 *
 * A Q_Key with the high bit set is a controlled one (IBA 10.2.4): like
 * ib_uverbs, allow it only with CAP_NET_RAW or the rdma netlink
 * "privileged-qkey" setting on.
 *
 * Return: 0 or -EPERM.
 */
int ib_async_check_qkey(u32 qkey)
{
	if ((qkey & IB_QP_SET_QKEY) && !rdma_nl_get_privileged_qkey() &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/* Translate an address vector; RoCE needs the GRH. */
int ib_async_av_to_attr(struct ib_device *ib_dev, const struct ib_async_av *av,
			struct rdma_ah_attr *ah)
{
	union ib_gid dgid;

	if (av->reserved || av->is_global > 1 ||
	    !rdma_is_port_valid(ib_dev, av->port_num))
		return -EINVAL;
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(ib_dev, av->port_num);
	if (ah->type == RDMA_AH_ATTR_TYPE_ROCE && !av->is_global)
		return -EINVAL;
	rdma_ah_set_port_num(ah, av->port_num);
	rdma_ah_set_sl(ah, av->sl);
	if (av->is_global) {
		memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah, &dgid, av->flow_label, av->sgid_index,
				av->hop_limit, av->traffic_class);
	} else {
		rdma_ah_set_dlid(ah, av->dlid);
	}
	return 0;
}

void ib_async_attr_to_av(const struct rdma_ah_attr *ah, struct ib_async_av *av)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);

	av->port_num = rdma_ah_get_port_num(ah);
	av->sl = rdma_ah_get_sl(ah);
	av->dlid = rdma_ah_get_dlid(ah);
	av->is_global = !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH);
	if (av->is_global) {
		memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
		av->flow_label = grh->flow_label;
		av->sgid_index = grh->sgid_index;
		av->hop_limit = grh->hop_limit;
		av->traffic_class = grh->traffic_class;
	}
}

/*
 * ib_modify_qp() expects kernel callers to bring a resolved RoCE
 * destination MAC, and the resolver itself is not exported. Creating an
 * address handle on the QP's PD runs the core's own resolution and writes
 * the MAC into @ah; the handle itself is not needed afterwards.
 */
int ib_async_resolve_dmac(struct ib_pd *pd, struct rdma_ah_attr *ah)
{
	struct ib_ah *tmp;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE)
		return 0;
	tmp = rdma_create_user_ah(pd, ah, NULL);
	if (IS_ERR(tmp))
		return PTR_ERR(tmp);
	return rdma_destroy_ah_user(tmp, RDMA_DESTROY_AH_SLEEPABLE, NULL);
}

int ib_async_cmd_create_ah(struct ib_async_ucmd *c)
{
	struct ib_async_create_ah *arg = c->cmd;
	struct ib_async_uobj *uobj, *pd;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	if (arg->flags || arg->handle)
		return -EINVAL;
	ret = ib_async_av_to_attr(c->ib_dev, &arg->av, &attr);
	if (ret)
		return ret;
	pd = ib_async_uobj_get(c->file, arg->pd_handle, IB_ASYNC_OBJ_PD);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	uobj = ib_async_uobj_new(c->file, &ib_async_ah_type, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	/* The core resolves the RoCE destination MAC, as for ib_uverbs. */
	ah = rdma_create_user_ah(pd->pd, &attr, NULL);
	if (IS_ERR(ah)) {
		ib_async_uobj_abort(uobj);
		return PTR_ERR(ah);
	}
	uobj->ah = ah;
	uobj->port = arg->av.port_num;
	ib_async_uobj_use(uobj, pd);
	return ib_async_put_created(c, uobj, &arg->handle);
}

static int ib_async_ah_destroy(struct ib_async_uobj *uobj)
{
	return rdma_destroy_ah_user(uobj->ah, RDMA_DESTROY_AH_SLEEPABLE, NULL);
}

const struct ib_async_uobj_type ib_async_ah_type = {
	.type		= IB_ASYNC_OBJ_AH,
	.destroy	= ib_async_ah_destroy,
};

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs layer as the event core sees it: struct ib_async_verbs_ops,
 * the one door through which the core reaches objects, the data path and
 * the queries (kernel/module.c hands it to ib_async_core_init()).
 */
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "verbs.h"

/* A node was opened: its objects, requests and memory regions. */
static int ib_async_verbs_open(struct ib_async_file *file)
{
	struct ib_async_vfile *vf;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL_ACCOUNT);
	if (!vf)
		return -ENOMEM;
	file->verbs = vf;
	ib_async_file_objs_init(file);
	spin_lock_init(&vf->wr_lock);
	INIT_LIST_HEAD(&vf->wr_pool);
	xa_init(&vf->cq_rings);
	xa_init(&vf->wr_rings);
	ib_async_poller_init(vf);
	snprintf(vf->owner_name, sizeof(vf->owner_name), "ib_async[%d]",
		 task_tgid_vnr(current));
	/* Only the opener's memory is used by the data path. */
	vf->mm = current->mm;
	if (vf->mm)
		mmgrab(vf->mm);
	return 0;
}

static void ib_async_verbs_free(struct ib_async_file *file)
{
	struct ib_async_vfile *vf = file->verbs;

	if (vf->mm)
		mmdrop(vf->mm);
	xa_destroy(&vf->objs);
	ib_async_wr_ids_free(vf);
	ib_async_wr_pool_drain(file);
	/* every CQ's uobj was freed, and dropped its ring */
	WARN_ON_ONCE(!xa_empty(&vf->cq_rings));
	xa_destroy(&vf->cq_rings);
	/* and every QP's and SRQ's theirs */
	WARN_ON_ONCE(!xa_empty(&vf->wr_rings));
	xa_destroy(&vf->wr_rings);
	kfree(vf);
	file->verbs = NULL;
}

/* GET_INFO: what the device does with kernel verbs. */
static void ib_async_verbs_info(struct ib_device *ib_dev,
				struct ib_async_info *info)
{
	if (ib_dev->kverbs_provider)
		info->features |= IB_ASYNC_FEATURE_VERBS |
				  IB_ASYNC_FEATURE_COMP_CHANNEL;
	if (ib_dev->kverbs_provider && ib_async_can_resize_cq(ib_dev))
		info->features |= IB_ASYNC_FEATURE_RESIZE_CQ;
	if (ib_async_user_mr_supported(ib_dev))
		info->features |= IB_ASYNC_FEATURE_USER_MR |
				  IB_ASYNC_FEATURE_CQ_RING |
				  IB_ASYNC_FEATURE_WR_RING |
				  IB_ASYNC_FEATURE_POLLER;
}

/* fdinfo: the data path's bookkeeping, one snapshot under both locks. */
static void ib_async_verbs_fdinfo(struct seq_file *m,
				  struct ib_async_file *file)
{
	struct ib_async_vfile *vf = file->verbs;
	u64 stale, bytes, verbs;
	u32 wrs, pooled;

	ib_async_file_lock(file);
	spin_lock(&vf->wr_lock);
	wrs = vf->wr_count;
	pooled = vf->wr_pooled;
	spin_unlock(&vf->wr_lock);
	spin_lock(&file->acct_lock);
	bytes = file->acct_bytes;
	spin_unlock(&file->acct_lock);
	verbs = vf->verbs_bytes;
	stale = vf->stale_wcs;
	ib_async_file_unlock(file);
	seq_printf(m, "ib_async-work-requests:\t%u\n", wrs);
	/* their tracking, kept for the next posts (charged-bytes has it) */
	seq_printf(m, "ib_async-pooled-requests:\t%u\n", pooled);
	/* the data path's and the objects' queues; of which the queues' */
	seq_printf(m, "ib_async-charged-bytes:\t%llu\n", bytes);
	seq_printf(m, "ib_async-verbs-charged-bytes:\t%llu\n", verbs);
	seq_printf(m, "ib_async-stale-completions:\t%llu\n", stale);
}

/*
 * The data path's commands: they copy user memory with no lock held and
 * take dp_rwsem alone, for reading (ib_async_ucmd_lock()), then their
 * object's lock.
 */
#define IB_ASYNC_CMD_DP	(IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_DATA_PATH)
/*
 * IB_ASYNC_CMD_OBJS_ONLY: the creates, REG_MR, the queries, MODIFY_QP
 * (which takes dp_rwsem for a move to RESET) and multicast attachment,
 * which free and change nothing the data path looks at, and make only
 * what no lookup finds before its answer, so that a program's posts and
 * polls run on while the device answers them (a firmware command of
 * milliseconds on some). Destroys, resizes, MODIFY_SRQ and MODIFY_WQ
 * and the rings' commands still take both locks.
 */

/* The verbs layer's commands, numbered among the core's (core/uapi.c). */
static const struct ib_async_ioctl_op ib_async_verbs_cmds[] = {
	IB_ASYNC_OP(CREATE_PD, ib_async_cmd_create_pd,
		    struct ib_async_create_pd, IB_ASYNC_CREATE_PD_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(CREATE_CQ, ib_async_cmd_create_cq,
		    struct ib_async_create_cq, IB_ASYNC_CREATE_CQ_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(RESIZE_CQ, ib_async_cmd_resize_cq,
		    struct ib_async_resize_cq, IB_ASYNC_RESIZE_CQ_SIZE_V1, 0),
	IB_ASYNC_OP(CREATE_QP, ib_async_cmd_create_qp,
		    struct ib_async_create_qp, IB_ASYNC_CREATE_QP_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(MODIFY_QP, ib_async_cmd_modify_qp,
		    struct ib_async_qp_attr, IB_ASYNC_QP_ATTR_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(QUERY_QP, ib_async_cmd_query_qp,
		    struct ib_async_qp_attr, IB_ASYNC_QP_ATTR_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(CREATE_SRQ, ib_async_cmd_create_srq,
		    struct ib_async_create_srq, IB_ASYNC_CREATE_SRQ_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(MODIFY_SRQ, ib_async_cmd_modify_srq,
		    struct ib_async_srq_attr, IB_ASYNC_SRQ_ATTR_SIZE_V1, 0),
	IB_ASYNC_OP(QUERY_SRQ, ib_async_cmd_query_srq,
		    struct ib_async_srq_attr, IB_ASYNC_SRQ_ATTR_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(CREATE_WQ, ib_async_cmd_create_wq,
		    struct ib_async_create_wq, IB_ASYNC_CREATE_WQ_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(MODIFY_WQ, ib_async_cmd_modify_wq,
		    struct ib_async_modify_wq, IB_ASYNC_MODIFY_WQ_SIZE_V1, 0),
	IB_ASYNC_OP(CREATE_AH, ib_async_cmd_create_ah,
		    struct ib_async_create_ah, IB_ASYNC_CREATE_AH_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(DESTROY, ib_async_cmd_destroy, struct ib_async_destroy,
		    IB_ASYNC_DESTROY_SIZE_V1, IB_ASYNC_CMD_AFTER_REMOVAL),
	IB_ASYNC_OP(QUERY_DEVICE, ib_async_cmd_query_device,
		    struct ib_async_device_attr, IB_ASYNC_DEVICE_ATTR_SIZE_V1,
		    IB_ASYNC_CMD_NO_KVERBS | IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(QUERY_PORT, ib_async_cmd_query_port,
		    struct ib_async_port_attr, IB_ASYNC_PORT_ATTR_SIZE_V1,
		    IB_ASYNC_CMD_NO_KVERBS | IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(QUERY_GID, ib_async_cmd_query_gid,
		    struct ib_async_query_gid, IB_ASYNC_QUERY_GID_SIZE_V1,
		    IB_ASYNC_CMD_NO_KVERBS | IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(QUERY_PKEY, ib_async_cmd_query_pkey,
		    struct ib_async_query_pkey, IB_ASYNC_QUERY_PKEY_SIZE_V1,
		    IB_ASYNC_CMD_NO_KVERBS | IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(POST_RECV, ib_async_cmd_post_recv,
		    struct ib_async_post_recv, IB_ASYNC_POST_RECV_SIZE_V1,
		    IB_ASYNC_CMD_DP),
	IB_ASYNC_OP(POST_SEND, ib_async_cmd_post_send,
		    struct ib_async_post_send, IB_ASYNC_POST_SEND_SIZE_V1,
		    IB_ASYNC_CMD_DP),
	IB_ASYNC_OP(POLL_CQ, ib_async_cmd_poll_cq, struct ib_async_poll_cq,
		    IB_ASYNC_POLL_CQ_SIZE_V1, IB_ASYNC_CMD_DP),
	IB_ASYNC_OP(REQ_NOTIFY_CQ, ib_async_cmd_req_notify_cq,
		    struct ib_async_req_notify_cq,
		    IB_ASYNC_REQ_NOTIFY_CQ_SIZE_V1, IB_ASYNC_CMD_DATA_PATH),
	IB_ASYNC_OP(REG_MR, ib_async_cmd_reg_mr, struct ib_async_reg_mr,
		    IB_ASYNC_REG_MR_SIZE_V1,
		    IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(POST_SEND_LIST, ib_async_cmd_post_send_list,
		    struct ib_async_post_list, IB_ASYNC_POST_LIST_SIZE_V1,
		    IB_ASYNC_CMD_DP),
	IB_ASYNC_OP(POST_RECV_LIST, ib_async_cmd_post_recv_list,
		    struct ib_async_post_list, IB_ASYNC_POST_LIST_SIZE_V1,
		    IB_ASYNC_CMD_DP),
	/* the second range, IB_ASYNC_CMD_BASE2 on */
	IB_ASYNC_OP(ATTACH_MCAST, ib_async_cmd_attach_mcast,
		    struct ib_async_mcast, IB_ASYNC_MCAST_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(DETACH_MCAST, ib_async_cmd_detach_mcast,
		    struct ib_async_mcast, IB_ASYNC_MCAST_SIZE_V1,
		    IB_ASYNC_CMD_OBJS_ONLY),
	IB_ASYNC_OP(MAP_CQ_RING, ib_async_cmd_map_cq_ring,
		    struct ib_async_map_cq_ring, IB_ASYNC_MAP_CQ_RING_SIZE_V1,
		    0),
	IB_ASYNC_OP(CQ_WAIT, ib_async_cmd_cq_wait, struct ib_async_cq_wait,
		    IB_ASYNC_CQ_WAIT_SIZE_V1, IB_ASYNC_CMD_DP),
	IB_ASYNC_OP(MAP_WR_RING, ib_async_cmd_map_wr_ring,
		    struct ib_async_map_wr_ring, IB_ASYNC_MAP_WR_RING_SIZE_V1,
		    0),
	IB_ASYNC_OP_NO_ARG(WR_DOORBELL, ib_async_cmd_wr_doorbell,
			   IB_ASYNC_CMD_DATA_PATH),
	IB_ASYNC_OP(POLLER, ib_async_cmd_poller, struct ib_async_poller,
		    IB_ASYNC_POLLER_SIZE_V1, IB_ASYNC_CMD_DP),
};

/*
 * Each uAPI structure has exactly the size its header names: a field added
 * without a new size (or a hole the compiler filled) fails the build.
 */
static_assert(sizeof(struct ib_async_create_pd) == IB_ASYNC_CREATE_PD_SIZE_V1);
static_assert(sizeof(struct ib_async_create_cq) == IB_ASYNC_CREATE_CQ_SIZE_V1);
static_assert(sizeof(struct ib_async_resize_cq) == IB_ASYNC_RESIZE_CQ_SIZE_V1);
static_assert(sizeof(struct ib_async_create_qp) == IB_ASYNC_CREATE_QP_SIZE_V1);
static_assert(sizeof(struct ib_async_av) == IB_ASYNC_AV_SIZE_V1);
static_assert(sizeof(struct ib_async_qp_attr) == IB_ASYNC_QP_ATTR_SIZE_V1);
static_assert(sizeof(struct ib_async_create_srq) ==
	      IB_ASYNC_CREATE_SRQ_SIZE_V1);
static_assert(sizeof(struct ib_async_srq_attr) == IB_ASYNC_SRQ_ATTR_SIZE_V1);
static_assert(sizeof(struct ib_async_create_wq) == IB_ASYNC_CREATE_WQ_SIZE_V1);
static_assert(sizeof(struct ib_async_modify_wq) == IB_ASYNC_MODIFY_WQ_SIZE_V1);
static_assert(sizeof(struct ib_async_create_ah) == IB_ASYNC_CREATE_AH_SIZE_V1);
static_assert(sizeof(struct ib_async_destroy) == IB_ASYNC_DESTROY_SIZE_V1);
static_assert(sizeof(struct ib_async_device_attr) ==
	      IB_ASYNC_DEVICE_ATTR_SIZE_V1);
static_assert(sizeof(struct ib_async_port_attr) == IB_ASYNC_PORT_ATTR_SIZE_V1);
static_assert(sizeof(struct ib_async_query_gid) == IB_ASYNC_QUERY_GID_SIZE_V1);
static_assert(sizeof(struct ib_async_query_pkey) ==
	      IB_ASYNC_QUERY_PKEY_SIZE_V1);
static_assert(sizeof(struct ib_async_post_recv) == IB_ASYNC_POST_RECV_SIZE_V1);
static_assert(sizeof(struct ib_async_post_send) == IB_ASYNC_POST_SEND_SIZE_V1);
static_assert(sizeof(struct ib_async_wc) == IB_ASYNC_WC_SIZE_V1);
static_assert(sizeof(struct ib_async_poll_cq) == IB_ASYNC_POLL_CQ_SIZE_V1);
static_assert(sizeof(struct ib_async_req_notify_cq) ==
	      IB_ASYNC_REQ_NOTIFY_CQ_SIZE_V1);
static_assert(sizeof(struct ib_async_reg_mr) == IB_ASYNC_REG_MR_SIZE_V1);
static_assert(sizeof(struct ib_async_post_list) == IB_ASYNC_POST_LIST_SIZE_V1);
static_assert(sizeof(struct ib_async_send_wr) == IB_ASYNC_SEND_WR_SIZE_V1);
static_assert(sizeof(struct ib_async_recv_wr) == IB_ASYNC_RECV_WR_SIZE_V1);
static_assert(sizeof(struct ib_async_mcast) == IB_ASYNC_MCAST_SIZE_V1);
static_assert(sizeof(struct ib_async_cq_ring_header) ==
	      IB_ASYNC_CQ_RING_HEADER_SIZE_V1);
static_assert(sizeof(struct ib_async_map_cq_ring) ==
	      IB_ASYNC_MAP_CQ_RING_SIZE_V1);
static_assert(sizeof(struct ib_async_cq_wait) == IB_ASYNC_CQ_WAIT_SIZE_V1);
static_assert(sizeof(struct ib_async_wr_ring_header) ==
	      IB_ASYNC_WR_RING_HEADER_SIZE_V1);
static_assert(sizeof(struct ib_async_wr_ring_producer) ==
	      IB_ASYNC_WR_RING_PRODUCER_SIZE_V1);
static_assert(sizeof(struct ib_async_map_wr_ring) ==
	      IB_ASYNC_MAP_WR_RING_SIZE_V1);
static_assert(sizeof(struct ib_async_poller) == IB_ASYNC_POLLER_SIZE_V1);
/*
 * The numbers fit the ranges the header reserves: the second continues
 * the first, which the core's dispatch (one table from
 * IB_ASYNC_CMD_BASE) relies on.
 */
static_assert(IB_ASYNC_CMD_LAST + 1 == IB_ASYNC_CMD_BASE2);
static_assert(IB_ASYNC_CMD_ATTACH_MCAST == IB_ASYNC_CMD_BASE2);
static_assert(IB_ASYNC_CMD_BASE + ARRAY_SIZE(ib_async_verbs_cmds) - 1 <=
	      IB_ASYNC_CMD_LAST2);

/*
 * What a node's offset other than 0 names: a submission ring's parts lie
 * above every completion ring's (wr_ring.c), so the offset alone says.
 */
static int ib_async_verbs_mmap(struct ib_async_file *file,
			       struct vm_area_struct *vma)
{
	if (ib_async_wr_ring_pgoff(vma->vm_pgoff))
		return ib_async_wr_ring_mmap(file, vma);
	return ib_async_cq_ring_mmap(file, vma);
}

const struct ib_async_verbs_ops ib_async_verbs_ops = {
	.open		= ib_async_verbs_open,
	.free		= ib_async_verbs_free,
	.destroy_all	= ib_async_file_destroy_objs,
	.end_destroyed	= ib_async_file_end_destroyed,
	.info		= ib_async_verbs_info,
	.fdinfo		= ib_async_verbs_fdinfo,
	.event_source	= ib_async_uobj_event_source,
	.mmap		= ib_async_verbs_mmap,
	.cmds		= ib_async_verbs_cmds,
	.n_cmds		= ARRAY_SIZE(ib_async_verbs_cmds),
};

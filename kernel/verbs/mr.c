// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions over the caller's own pages.
 *
 * IB_ASYNC_IOC_REG_MR pins the pages long-term, charged as ib_uverbs
 * charges its MRs, before it takes any lock (pin.c), then maps them for
 * DMA and registers them the way the kernel's storage initiators and
 * targets register memory: a fast-registration MR (ib_alloc_mr(), ib_map_mr_sg()) made
 * valid by an IB_WR_REG_MR work request. Drivers' reg_user_mr() would be
 * shorter, but several of them read the udata that a kernel caller cannot
 * give; fast registration is the one path every kernel-verbs driver has.
 *
 * The work request needs a QP of the MR's PD in RTS: a PD gets one on its
 * first registration, an RC QP connected to itself on the first port that
 * carries only registrations, on a CQ of its own polled right here. The
 * command returns once the registration completed, so the keys are valid
 * on every QP, and for every peer, when the caller learns them.
 *
 * Deregistration (IB_ASYNC_IOC_DESTROY, close, device removal) calls
 * ib_dereg_mr(), which returns once the device can no longer use the
 * keys; only then are the pages unmapped and unpinned. A registration
 * that never completes (a dead device) leaves its MR with the PD's QP,
 * pages and all, until that QP is destroyed and the device cannot touch
 * them any more.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "verbs.h"

/* How long a registration may take before the PD's QP is given up. */
#define IB_ASYNC_REG_TIMEOUT		(5 * HZ)
/*
 * Pages one MR may map on a device whose page lists are kernel memory
 * rather than device tables (rxe, siw): their max_fast_reg_page_list_len
 * is no hardware limit, and their alloc_mr refuses what it cannot hold.
 */
#define IB_ASYNC_SOFT_MR_PAGES		(SZ_1G >> PAGE_SHIFT)

/*
 * Access bits the registration passes to the device. MW_BIND is accepted
 * and dropped (no memory windows without userspace providers), as are the
 * hints ZERO_BASED (the caller gives the iova) and HUGETLB.
 */
#define IB_ASYNC_MR_DEVICE_ACCESS					\
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |		\
	 IB_ACCESS_RELAXED_ORDERING)

/**
 * struct ib_async_mr - a registered user memory region
 * @mr: the fast-registration MR, valid once registered
 * @pinned: its pages
 * @list: on its PD's registration QP while that QP may still register it
 * @access: the IB_ACCESS_* bits it was registered with
 */
struct ib_async_mr {
	struct ib_mr *mr;
	struct ib_async_pinned pinned;
	struct list_head list;
	int access;
};

/**
 * struct ib_async_regq - a PD's registration QP
 * @cq: its CQ, polled only by ib_async_regq_wait()
 * @qp: an RC QP in RTS, connected to itself
 * @next_id: wr_id of the next registration
 * @stuck: MRs whose registration never completed
 * @broken: a registration did not complete, or the QP could not be made
 *	ready again after one failed; the PD registers nothing more
 * @cg_cq: @cq's hca_object in the rdma cgroup of the PD's creator
 * @cg_qp: @qp's
 *
 * The CQ and QP are made for a user, as an ib_uverbs user's would be: the
 * rdma cgroup counts them and "rdma resource show" names their owner.
 */
struct ib_async_regq {
	struct ib_cq *cq;
	struct ib_qp *qp;
	u64 next_id;
	struct list_head stuck;
	bool broken;
	struct ib_rdmacg_object cg_cq;
	struct ib_rdmacg_object cg_qp;
};

/**
 * ib_async_user_mr_supported - can IB_ASYNC_IOC_REG_MR work on this device?
 * @ib_dev: the device
 *
 * Return: whether the kernel pins user memory for RDMA, and the device
 * has kernel verbs, fast registration (and says so), and RC QPs it can
 * connect without a connection manager (not iWARP).
 */
bool ib_async_user_mr_supported(struct ib_device *ib_dev)
{
	return IS_ENABLED(CONFIG_INFINIBAND_USER_MEM) &&
	       ib_dev->kverbs_provider && ib_dev->ops.alloc_mr &&
	       ib_dev->ops.map_mr_sg &&
	       (ib_dev->attrs.device_cap_flags &
		IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	       !rdma_protocol_iwarp(ib_dev, rdma_start_port(ib_dev));
}

/* Pages one MR may span on @ib_dev. */
static u64 ib_async_mr_max_pages(struct ib_device *ib_dev)
{
	u64 pages = ib_dev->attrs.max_fast_reg_page_list_len;

	if (ib_uses_virt_dma(ib_dev))
		pages = max_t(u64, pages, IB_ASYNC_SOFT_MR_PAGES);
	return pages;
}

/**
 * ib_async_max_user_mr_size - the largest region REG_MR takes
 * @ib_dev: the device
 *
 * Return: bytes; 0 where REG_MR is not supported.
 */
u64 ib_async_max_user_mr_size(struct ib_device *ib_dev)
{
	if (!ib_async_user_mr_supported(ib_dev))
		return 0;
	return min_t(u64, ib_dev->attrs.max_mr_size,
		     ib_async_mr_max_pages(ib_dev) << PAGE_SHIFT);
}

/*
 * RoCE: the port's default GID, as source and destination, and its own
 * MAC. Kernel callers of ib_modify_qp() bring the destination MAC; taking
 * the port's own needs no address resolution, which would wait for the
 * IPv6 link-local address to leave its tentative state after link-up.
 */
static int ib_async_self_roce_av(struct ib_device *ib_dev, u32 port,
				 struct rdma_ah_attr *ah)
{
	const struct ib_gid_attr *gattr;
	struct net_device *ndev;
	union ib_gid gid;
	int ret = 0;

	gattr = rdma_get_gid_attr(ib_dev, port, 0);
	if (IS_ERR(gattr))
		return PTR_ERR(gattr);
	gid = gattr->gid;
	rdma_ah_set_grh(ah, &gid, 0, 0, 1, 0);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gattr);
	if (IS_ERR(ndev))
		ret = PTR_ERR(ndev);
	else
		ether_addr_copy(ah->roce.dmac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(gattr);
	return ret;
}

/* INIT, then RTR and RTS towards the QP itself, on @port. */
static int ib_async_regq_connect(struct ib_pd *pd, struct ib_qp *qp, u32 port)
{
	struct ib_device *ib_dev = pd->device;
	struct ib_qp_attr attr = {};
	struct ib_port_attr pattr;
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = port;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_256;
	attr.dest_qp_num = qp->qp_num;
	attr.ah_attr.type = rdma_ah_find_type(ib_dev, port);
	rdma_ah_set_port_num(&attr.ah_attr, port);
	if (attr.ah_attr.type == RDMA_AH_ATTR_TYPE_ROCE) {
		ret = ib_async_self_roce_av(ib_dev, port, &attr.ah_attr);
	} else {
		ret = ib_query_port(ib_dev, port, &pattr);
		rdma_ah_set_dlid(&attr.ah_attr, pattr.lid);
	}
	if (ret)
		return ret;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/*
 * The registration CQ and QP: one registration at a time, and the CQ
 * holds its completion and a spare. What they cost is charged to the PD.
 */
static const struct ib_async_queue_sizes ib_async_regq_cq_sizes = {
	.cqe = 2,
};

static const struct ib_async_queue_sizes ib_async_regq_qp_sizes = {
	.max_send_wr = 1,
	.max_send_sge = 1,
	.max_recv_wr = 1,
	.max_recv_sge = 1,
};

static u64 ib_async_regq_bytes(const struct ib_async_queue_sizes *cq,
			       const struct ib_async_queue_sizes *qp)
{
	return ib_async_cq_bytes(cq) + ib_async_qp_bytes(qp);
}

/* Also says, in @granted, what the CQ and QP the driver made cost. */
static struct ib_async_regq *ib_async_regq_create(struct ib_pd *pd,
						  u64 *granted)
{
	struct ib_cq_init_attr cq_attr = {
		.cqe = ib_async_regq_cq_sizes.cqe,
	};
	struct ib_async_queue_sizes cq_sizes = {}, qp_sizes = {};
	struct ib_qp_init_attr init = {};
	struct ib_async_regq *rq;
	int ret;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL_ACCOUNT);
	if (!rq)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&rq->stuck);
	ret = ib_async_cg_charge(&rq->cg_cq, pd->device);
	if (ret)
		goto err_free;
	rq->cq = ib_create_cq(pd->device, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(rq->cq)) {
		ret = PTR_ERR(rq->cq);
		goto err_cg_cq;
	}
	ret = ib_async_cg_charge(&rq->cg_qp, pd->device);
	if (ret)
		goto err_cq;
	init.send_cq = rq->cq;
	init.recv_cq = rq->cq;
	init.qp_type = IB_QPT_RC;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = ib_async_regq_qp_sizes.max_send_wr;
	init.cap.max_recv_wr = ib_async_regq_qp_sizes.max_recv_wr;
	init.cap.max_send_sge = ib_async_regq_qp_sizes.max_send_sge;
	init.cap.max_recv_sge = ib_async_regq_qp_sizes.max_recv_sge;
	rq->qp = ib_create_qp(pd, &init);
	if (IS_ERR(rq->qp)) {
		ret = PTR_ERR(rq->qp);
		goto err_cg_qp;
	}
	ret = ib_async_regq_connect(pd, rq->qp, rdma_start_port(pd->device));
	if (ret)
		goto err_qp;
	cq_sizes.cqe = rq->cq->cqe;
	qp_sizes.max_send_wr = init.cap.max_send_wr;
	qp_sizes.max_send_sge = init.cap.max_send_sge;
	qp_sizes.max_inline_data = init.cap.max_inline_data;
	qp_sizes.max_recv_wr = init.cap.max_recv_wr;
	qp_sizes.max_recv_sge = init.cap.max_recv_sge;
	*granted = ib_async_regq_bytes(&cq_sizes, &qp_sizes);
	return rq;

err_qp:
	ib_destroy_qp(rq->qp);
err_cg_qp:
	ib_async_cg_uncharge(&rq->cg_qp, pd->device);
err_cq:
	ib_destroy_cq(rq->cq);
err_cg_cq:
	ib_async_cg_uncharge(&rq->cg_cq, pd->device);
err_free:
	kfree(rq);
	return ERR_PTR(ret);
}

static void ib_async_mr_free(struct ib_async_mr *amr)
{
	ib_async_unpin_user(&amr->pinned);
	kfree(amr);
}

/**
 * ib_async_regq_destroy - destroy a PD's registration QP, if it has one
 * @rq: the QP, or NULL
 *
 * Before the PD is deallocated. Once the QP is gone the device touches
 * none of the MRs it failed to register, so they are freed too.
 *
 * Return: 0, or the driver's error, with nothing destroyed.
 */
int ib_async_regq_destroy(struct ib_async_regq *rq)
{
	struct ib_async_mr *amr, *next;
	struct ib_device *ib_dev;
	int ret;

	if (!rq)
		return 0;
	ib_dev = rq->qp->device;
	ret = ib_destroy_qp(rq->qp);
	if (ret)
		return ret;
	ib_async_cg_uncharge(&rq->cg_qp, ib_dev);
	list_for_each_entry_safe(amr, next, &rq->stuck, list) {
		list_del(&amr->list);
		/* Nothing more to do if the driver refuses: it keeps them. */
		if (!ib_dereg_mr(amr->mr))
			ib_async_mr_free(amr);
	}
	ib_destroy_cq(rq->cq);
	ib_async_cg_uncharge(&rq->cg_cq, ib_dev);
	kfree(rq);
	return 0;
}

/**
 * ib_async_regq_set_name - name a registration QP's owner, as its PD's
 * @rq: the PD's registration QP, or NULL
 * @name: as for ib_async_uobj_set_name()
 */
void ib_async_regq_set_name(struct ib_async_regq *rq, const char *name)
{
	if (!rq)
		return;
	rdma_restrack_set_name(&rq->cq->res, name);
	rdma_restrack_set_name(&rq->qp->res, name);
}

/**
 * ib_async_regq_abandon - removal gave the PD of a registration QP up
 * @rq: the PD's registration QP, or NULL
 *
 * The QP and CQ stay with the PD, as the driver does; their cgroup
 * charges go back while the device's pool exists.
 */
void ib_async_regq_abandon(struct ib_async_regq *rq)
{
	if (!rq)
		return;
	ib_async_cg_uncharge(&rq->cg_qp, rq->qp->device);
	ib_async_cg_uncharge(&rq->cg_cq, rq->cq->device);
}

/*
 * Wait for the completion of registration @id. Registrations go one at a
 * time (obj_mutex), so anything else in the CQ is from one that timed out.
 */
static int ib_async_regq_wait(struct ib_async_regq *rq, u64 id)
{
	unsigned long deadline = jiffies + IB_ASYNC_REG_TIMEOUT;
	struct ib_wc wc;
	int n;

	for (;;) {
		n = ib_poll_cq(rq->cq, 1, &wc);
		if (n < 0)
			return n;
		if (n && wc.wr_id == id)
			return wc.status == IB_WC_SUCCESS ? 0 : -EIO;
		if (n)
			continue;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		if (fatal_signal_pending(current))
			return -EINTR;
		usleep_range(10, 100);
	}
}

/*
 * After a registration completed in error: the device is done with it,
 * but the error moved the QP to ERR, where every later registration would
 * be flushed. Through RESET back to RTS; nothing else was posted, so
 * nothing is lost.
 */
static int ib_async_regq_reset(struct ib_async_regq *rq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int ret;

	ret = ib_modify_qp(rq->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	return ib_async_regq_connect(rq->qp->pd, rq->qp,
				     rdma_start_port(rq->qp->device));
}

/*
 * Make @amr->mr valid for @access, through @rq. -ETIMEDOUT: the
 * registration did not complete (in time, or the CQ could not be polled),
 * so the device may still do it, and @rq keeps the MR.
 */
static int ib_async_regq_register(struct ib_async_regq *rq,
				  struct ib_async_mr *amr, int access)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.wr.send_flags = IB_SEND_SIGNALED,
		.wr.wr_id = ++rq->next_id,
		.mr = amr->mr,
		.key = amr->mr->rkey,
		.access = access,
	};
	int ret;

	if (rq->broken)
		return -EIO;
	ret = ib_async_post_send(rq->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	ret = ib_async_regq_wait(rq, wr.wr.wr_id);
	if (!ret)
		return 0;
	if (ret == -EIO) {
		if (ib_async_regq_reset(rq))
			rq->broken = true;
		return -EIO;
	}
	/*
	 * Timed out, interrupted, or the CQ failed: the request may still be
	 * queued, and the MR stays with the QP until the QP is destroyed.
	 */
	rq->broken = true;
	list_add_tail(&amr->list, &rq->stuck);
	return -ETIMEDOUT;
}

/*
 * Map @amr's pinned pages and register them with the device at @iova for
 * @amr->access, listing @uobj under the MR's lkey among its file's keys.
 * On -ETIMEDOUT @rq owns the MR; on any other error the pages are still
 * pinned, and the caller's.
 */
static int ib_async_mr_register(struct ib_async_regq *rq, struct ib_pd *pd,
				struct ib_async_mr *amr,
				struct ib_async_uobj *uobj, u64 addr,
				u64 length, u64 iova)
{
	struct xarray *keys = &uobj->file->verbs->mr_keys;
	struct ib_async_pinned *p = &amr->pinned;
	unsigned int sg_offset = addr & ~PAGE_MASK;
	int ret, n;

	ret = ib_async_pinned_map(p, pd->device,
				  amr->access & IB_ACCESS_RELAXED_ORDERING);
	if (ret)
		return ret;
	amr->mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, p->npages);
	if (IS_ERR(amr->mr)) {
		ret = PTR_ERR(amr->mr);
		goto err_unmap;
	}
	/*
	 * Data-path requests find the MR by its lkey. Live MRs of a device
	 * have distinct keys, so only memory can fail here.
	 */
	ret = xa_insert(keys, amr->mr->lkey, uobj, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_mr;
	n = ib_map_mr_sg(amr->mr, p->sgt.sgl, p->sgt.nents, &sg_offset,
			 PAGE_SIZE);
	if (n != p->sgt.nents) {
		ret = n < 0 ? n : -EINVAL;
		goto err_key;
	}
	/* Same offset within the page as the mapped address: checked. */
	amr->mr->iova = iova;
	amr->mr->length = length;
	ret = ib_async_regq_register(rq, amr, amr->access);
	if (!ret)
		return 0;
err_key:
	xa_erase(keys, amr->mr->lkey);
	if (ret == -ETIMEDOUT)
		return ret;
err_mr:
	ib_dereg_mr(amr->mr);
	amr->mr = NULL;
err_unmap:
	ib_dma_unmap_sgtable_attrs(p->dev, &p->sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(&p->sgt);
	p->dev = NULL;
	return ret;
}

/**
 * ib_async_mr_destroy - deregister an MR and unpin its pages
 * @amr: the MR
 *
 * Return: 0, or the driver's error with nothing changed.
 */
int ib_async_mr_destroy(struct ib_async_mr *amr)
{
	int ret = ib_dereg_mr(amr->mr);

	if (ret)
		return ret;
	ib_async_mr_free(amr);
	return 0;
}

/**
 * ib_async_mr_uobj_destroy - deregister an MR object's region
 * @uobj: the MR
 *
 * Return: 0, or the driver's error with nothing changed.
 */
static int ib_async_mr_uobj_destroy(struct ib_async_uobj *uobj)
{
	u32 lkey = uobj->mr->mr->lkey;
	int ret;

	/* no post of the file is in flight: none checked this key */
	ib_async_dp_assert_excl(uobj->file);
	xa_erase(&uobj->file->verbs->mr_keys, lkey);
	ret = ib_async_mr_destroy(uobj->mr);
	if (ret)
		xa_store(&uobj->file->verbs->mr_keys, lkey, uobj, GFP_KERNEL);
	return ret;
}

/**
 * ib_async_mr_set_name - the owner "rdma resource show" prints for an MR
 * @uobj: the MR
 * @name: as for ib_async_uobj_set_name()
 *
 * ib_alloc_mr() names it after its PD, with the PD's name: the same
 * string, which must outlive the entry as much.
 */
static void ib_async_mr_set_name(struct ib_async_uobj *uobj, const char *name)
{
	rdma_restrack_set_name(&uobj->mr->mr->res, name);
}

/**
 * ib_async_mr_uobj_abandon - removal gave an MR up
 * @uobj: the MR, still registered: its pages stay pinned
 *
 * Its lkey leaves the file's keys, which are never looked up again and
 * go with the file.
 */
static void ib_async_mr_uobj_abandon(struct ib_async_uobj *uobj)
{
	ib_async_dp_assert_excl(uobj->file);
	xa_erase(&uobj->file->verbs->mr_keys, uobj->mr->mr->lkey);
}

/**
 * ib_async_mr_check_sge - may a work request name this memory?
 * @file: the file posting
 * @pd: the PD of the QP or SRQ it goes to
 * @sge: the entry
 * @write: the device writes there (a receive, RDMA READ, an atomic)
 *
 * The lkey must be one of @file's own MRs: the device would take an lkey
 * of another file's MR on another PD as a protection error, but a
 * device's reserved lkey, which some devices honour on any PD, reaches
 * all of memory, so no lkey the file did not get from REG_MR is posted.
 *
 * Return: 0 or -EINVAL.
 */
int ib_async_mr_check_sge(struct ib_async_file *file, struct ib_async_uobj *pd,
			  const struct ib_sge *sge, bool write)
{
	struct ib_async_uobj *uobj;
	struct ib_mr *mr;

	lockdep_assert_held(&file->dp_rwsem);
	/* as a handle: not an MR whose REG_MR has not answered yet */
	uobj = ib_async_uobj_load(&file->verbs->mr_keys, sge->lkey);
	if (!uobj || !uobj->mr || uobj->uses[0] != pd)
		return -EINVAL;
	mr = uobj->mr->mr;
	if (sge->addr < mr->iova || sge->length > mr->length ||
	    sge->addr - mr->iova > mr->length - sge->length)
		return -EINVAL;
	if (write && !(uobj->mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/* What ib_uverbs' REG_MR checks before it pins anything. */
static int ib_async_reg_mr_check_args(struct ib_async_ucmd *u,
				      const struct ib_async_reg_mr *arg)
{
	if (arg->flags || arg->reserved || arg->handle || arg->lkey ||
	    arg->rkey)
		return -EINVAL;
	if (arg->access & IB_ACCESS_ON_DEMAND)
		return -EOPNOTSUPP;
	if (!arg->length || arg->addr + arg->length < arg->addr ||
	    PAGE_ALIGN(arg->addr + arg->length) < arg->addr + arg->length ||
	    (arg->addr ^ arg->iova) & ~PAGE_MASK)
		return -EINVAL;
	/* The pages pinned are current's: only the opener's may be. */
	if (current->mm != u->file->verbs->mm)
		return -EPERM;
	return 0;
}

/* What the device allows. */
static int ib_async_reg_mr_check_dev(struct ib_device *ib_dev,
				     const struct ib_async_reg_mr *arg)
{
	u64 pages = (PAGE_ALIGN(arg->addr + arg->length) -
		     (arg->addr & PAGE_MASK)) >> PAGE_SHIFT;
	int ret;

	if (!ib_async_user_mr_supported(ib_dev))
		return -EOPNOTSUPP;
	ret = ib_check_mr_access(ib_dev, arg->access);
	if (ret)
		return ret;
	if (arg->length > ib_dev->attrs.max_mr_size ||
	    pages > ib_async_mr_max_pages(ib_dev))
		return -EINVAL;
	return 0;
}

/*
 * A PD's first registration makes its registration QP, charged to the PD
 * like any object's queues: before the driver is asked, then what it
 * granted beyond. The charge goes when the PD does.
 */
static int ib_async_regq_make(struct ib_async_uobj *pd)
{
	u64 asked = ib_async_regq_bytes(&ib_async_regq_cq_sizes,
					&ib_async_regq_qp_sizes);
	struct ib_async_regq *rq;
	u64 granted;
	int ret;

	ret = ib_async_verbs_charge(pd, asked);
	if (ret)
		return ret;
	rq = ib_async_regq_create(pd->pd, &granted);
	if (IS_ERR(rq)) {
		ib_async_verbs_uncharge(pd, asked);
		return PTR_ERR(rq);
	}
	ret = ib_async_verbs_charge_to(pd, granted);
	if (ret && !ib_async_regq_destroy(rq)) {
		ib_async_verbs_uncharge(pd, asked);
		return ret;
	}
	/* What the driver would not destroy stays with the PD, as charged. */
	pd->regq = rq;
	ib_async_regq_set_name(rq, pd->file->verbs->owner_name);
	return 0;
}

/* With the device and the file locked: the MR and its handle. */
static int ib_async_reg_mr_locked(struct ib_async_ucmd *u,
				  struct ib_async_mr *amr)
{
	struct ib_async_reg_mr *arg = u->cmd;
	struct ib_async_uobj *pd, *uobj;
	int ret;

	ret = ib_async_reg_mr_check_dev(u->ib_dev, arg);
	if (ret)
		return ret;
	pd = ib_async_uobj_get(u->file, arg->pd_handle, IB_ASYNC_OBJ_PD);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	if (!pd->regq) {
		ret = ib_async_regq_make(pd);
		if (ret)
			return ret;
	}
	uobj = ib_async_uobj_new(u->file, &ib_async_mr_type, 0);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	amr->access = arg->access & IB_ASYNC_MR_DEVICE_ACCESS;
	ret = ib_async_mr_register(pd->regq, pd->pd, amr, uobj, arg->addr,
				   arg->length, arg->iova);
	if (ret) {
		ib_async_uobj_abort(uobj);
		return ret;
	}
	uobj->mr = amr;
	ib_async_uobj_use(uobj, pd);
	arg->lkey = amr->mr->lkey;
	arg->rkey = amr->mr->rkey;
	return ib_async_put_created(u, uobj, &arg->handle);
}

/*
 * IB_ASYNC_IOC_REG_MR takes its own locks: the device's limits are checked
 * first, then the pages are pinned with no lock held (their faults may
 * wait on the caller), then mapped and registered under the locks.
 */
int ib_async_cmd_reg_mr(struct ib_async_ucmd *u)
{
	struct ib_async_reg_mr *arg = u->cmd;
	struct ib_async_mr *amr;
	int ret;

	ret = ib_async_reg_mr_check_args(u, arg);
	if (ret)
		return ret;
	ret = ib_async_ucmd_lock(u);
	if (ret)
		return ret;
	ret = ib_async_reg_mr_check_dev(u->ib_dev, arg);
	ib_async_ucmd_unlock(u);
	if (ret)
		return ret;

	amr = kzalloc(sizeof(*amr), GFP_KERNEL_ACCOUNT);
	if (!amr)
		return -ENOMEM;
	INIT_LIST_HEAD(&amr->list);
	ret = ib_async_pin_user(&amr->pinned, arg->addr, arg->length,
				ib_access_writable(arg->access));
	if (ret)
		goto err_free;
	ret = ib_async_ucmd_lock(u);
	if (ret)
		goto err_unpin;
	ret = ib_async_reg_mr_locked(u, amr);
	ib_async_ucmd_unlock(u);
	/* On -ETIMEDOUT the PD's registration QP keeps it. */
	if (!ret || ret == -ETIMEDOUT)
		return ret;
err_unpin:
	ib_async_unpin_user(&amr->pinned);
err_free:
	kfree(amr);
	return ret;
}

const struct ib_async_uobj_type ib_async_mr_type = {
	.type		= IB_ASYNC_OBJ_MR,
	.destroy	= ib_async_mr_uobj_destroy,
	.set_name	= ib_async_mr_set_name,
	.abandon	= ib_async_mr_uobj_abandon,
};

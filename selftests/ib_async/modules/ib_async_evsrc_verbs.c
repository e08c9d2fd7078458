// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_evsrc: the objects. PDs, CQs, QPs, SRQs, WQs and AHs exist so a
 * kernel verbs consumer can create them and receive their affiliated
 * events; they move no data. Posting work requests fails with -EOPNOTSUPP
 * (a request that never completes would hang ib_drain_qp() and friends),
 * unless the hold_posts file says otherwise: then posts succeed and the
 * device holds the requests for ever, as one that stopped working does.
 * poll_cq() never finds a completion.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ib_async_evsrc.h"

static const char *const evsrc_kind_names[] = {
	[EVSRC_PORT] = "port",
	[EVSRC_CQ] = "cq",
	[EVSRC_QP] = "qp",
	[EVSRC_SRQ] = "srq",
	[EVSRC_WQ] = "wq",
};

const char *evsrc_kind_name(enum evsrc_kind kind)
{
	return kind < ARRAY_SIZE(evsrc_kind_names) ? evsrc_kind_names[kind] :
						     "none";
}

static int evsrc_obj_add(struct evsrc_dev *edev, struct evsrc_obj *obj,
			 enum evsrc_kind kind)
{
	int ret;

	obj->edev = edev;
	obj->kind = kind;
	obj->dead = false;
	refcount_set(&obj->users, 1);
	init_completion(&obj->released);
	/* cyclic: ids follow creation order, so tests know the newest one */
	ret = xa_alloc_cyclic(&edev->objs, &obj->id, obj,
			      XA_LIMIT(1, EVSRC_MAX_ID), &edev->next_id,
			      GFP_KERNEL);
	return ret < 0 ? ret : 0;
}

/* Called by destroy: afterwards no event is delivered on @obj. */
static void evsrc_obj_del(struct evsrc_obj *obj)
{
	xa_erase(&obj->edev->objs, obj->id);
	WRITE_ONCE(obj->dead, true);
	if (!refcount_dec_and_test(&obj->users))
		wait_for_completion(&obj->released);
}

struct evsrc_obj *evsrc_obj_get(struct evsrc_dev *edev, enum evsrc_kind kind,
				u32 id)
{
	struct evsrc_obj *obj;

	/* the xarray lock orders this against evsrc_obj_del()'s erase */
	xa_lock(&edev->objs);
	obj = xa_load(&edev->objs, id);
	if (obj && obj->kind == kind)
		refcount_inc(&obj->users);
	else
		obj = NULL;
	xa_unlock(&edev->objs);
	return obj;
}

/* May be called from any context, hard irq included. */
void evsrc_obj_put(struct evsrc_obj *obj)
{
	if (refcount_dec_and_test(&obj->users))
		complete(&obj->released);
}

/*
 * Deliver one affiliated event the way hardware drivers do: call the
 * object's own handler directly, in whatever context we are in. The caller
 * holds a reference, so the object cannot be destroyed underneath. ib_core
 * sets a WQ's handler only after create_wq() returned: an event raised in
 * that window finds no handler and is not delivered.
 */
void evsrc_obj_deliver(struct evsrc_obj *obj, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &obj->edev->ibdev,
		.event = type,
	};
	void (*handler)(struct ib_event *ev, void *ctx);
	struct evsrc_srq *srq;
	struct evsrc_cq *cq;
	struct evsrc_qp *qp;
	struct evsrc_wq *wq;
	unsigned long flags;

	switch (obj->kind) {
	case EVSRC_CQ:
		cq = container_of(obj, struct evsrc_cq, obj);
		ev.element.cq = &cq->ibcq;
		handler = READ_ONCE(cq->ibcq.event_handler);
		if (handler)
			handler(&ev, cq->ibcq.cq_context);
		break;
	case EVSRC_QP:
		qp = container_of(obj, struct evsrc_qp, obj);
		ev.element.qp = &qp->ibqp;
		handler = READ_ONCE(qp->ibqp.event_handler);
		if (handler)
			handler(&ev, qp->ibqp.qp_context);
		break;
	case EVSRC_SRQ:
		srq = container_of(obj, struct evsrc_srq, obj);
		/* the limit event is one-shot, as on hardware: disarm */
		if (type == IB_EVENT_SRQ_LIMIT_REACHED) {
			spin_lock_irqsave(&srq->lock, flags);
			srq->attr.srq_limit = 0;
			spin_unlock_irqrestore(&srq->lock, flags);
		}
		ev.element.srq = &srq->ibsrq;
		handler = READ_ONCE(srq->ibsrq.event_handler);
		if (handler)
			handler(&ev, srq->ibsrq.srq_context);
		break;
	case EVSRC_WQ:
		wq = container_of(obj, struct evsrc_wq, obj);
		ev.element.wq = &wq->ibwq;
		handler = READ_ONCE(wq->ibwq.event_handler);
		if (handler)
			handler(&ev, READ_ONCE(wq->ibwq.wq_context));
		break;
	default:
		break;
	}
}

/*
 * Report a completion on the CQ @obj the way hardware drivers do: call its
 * completion handler in whatever context we are in. The caller holds a
 * reference, so the CQ cannot be destroyed underneath; ib_core set the
 * handler before create_cq() and never changes it.
 */
void evsrc_obj_complete(struct evsrc_obj *obj)
{
	struct evsrc_cq *cq = container_of(obj, struct evsrc_cq, obj);

	if (obj->kind == EVSRC_CQ && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

int evsrc_objects_show(struct seq_file *m, void *unused)
{
	struct evsrc_dev *edev = m->private;
	struct evsrc_obj *obj;
	struct evsrc_qp *qp;
	struct evsrc_cq *cq;
	unsigned long id;

	xa_lock(&edev->objs);
	xa_for_each(&edev->objs, id, obj) {
		seq_printf(m, "%s %u", evsrc_kind_name(obj->kind), obj->id);
		switch (obj->kind) {
		case EVSRC_QP:
			qp = container_of(obj, struct evsrc_qp, obj);
			seq_printf(m, " qpn=%u type=%s",
				   obj->id + EVSRC_QPN_BASE,
				   qp->ibqp.qp_type == IB_QPT_RC ? "RC" :
				   qp->ibqp.qp_type == IB_QPT_UC ? "UC" : "UD");
			break;
		case EVSRC_CQ:
			cq = container_of(obj, struct evsrc_cq, obj);
			seq_printf(m, " cqe=%d", cq->ibcq.cqe);
			break;
		case EVSRC_WQ:
			/* state: so tests can see what a modify did */
			seq_printf(m, " wqn=%u state=%u", obj->id + EVSRC_QPN_BASE,
				   container_of(obj, struct evsrc_wq,
						obj)->ibwq.state);
			break;
		default:
			break;
		}
		seq_putc(m, '\n');
	}
	xa_unlock(&edev->objs);
	return 0;
}

/* After the fatal file was written the device creates nothing. */
static int evsrc_alive(struct ib_device *ibdev)
{
	return READ_ONCE(to_edev(ibdev)->fatal) ? -EIO : 0;
}

static int evsrc_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return evsrc_alive(ibpd->device);
}

static int evsrc_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return 0;
}

static int evsrc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	/* may be called in atomic context (no RDMA_CREATE_AH_SLEEPABLE) */
	return evsrc_alive(ibah->device);
}

static int evsrc_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

/*
 * Only reached for IB_PD_UNSAFE_GLOBAL_RKEY: the device advertises
 * IBK_LOCAL_DMA_LKEY, so ib_alloc_pd() needs no MR otherwise.
 */
static struct ib_mr *evsrc_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct ib_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	return mr ? mr : ERR_PTR(-ENOMEM);
}

/* Mandatory for a kernel verbs provider; there is no user access. */
static struct ib_mr *evsrc_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       EVSRC_REG_USER_MR_DMAH
				       struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int evsrc_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	kfree(mr);
	return 0;
}

static int evsrc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			   struct EVSRC_CREATE_CQ_ARG *unused)
{
	struct evsrc_cq *cq = container_of(ibcq, struct evsrc_cq, ibcq);
	int ret = evsrc_alive(ibcq->device);

	if (ret)
		return ret;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > EVSRC_MAX_CQE)
		return -EINVAL;
	ibcq->cqe = clamp_t(int, atomic_read(&to_edev(ibcq->device)->cqe_grant),
			    attr->cqe, EVSRC_MAX_CQE);
	return evsrc_obj_add(to_edev(ibcq->device), &cq->obj, EVSRC_CQ);
}

static int evsrc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	/* A driver whose destroy fails: the CQ stays, events and all. */
	if (atomic_add_unless(&to_edev(ibcq->device)->fail_destroy_cq, -1, 0))
		return -EIO;
	evsrc_obj_del(&container_of(ibcq, struct evsrc_cq, ibcq)->obj);
	return 0;
}

/*
 * Destroy a QP a client left, and its PD once nothing else uses it: the
 * client gave up the PD with the QP (it could not destroy a PD in use).
 */
static u32 evsrc_reclaim_qp(struct evsrc_qp *qp)
{
	struct ib_pd *pd = qp->ibqp.pd;

	if (ib_destroy_qp_user(&qp->ibqp, NULL))
		return 0;
	if (pd && !atomic_read(&pd->usecnt))
		ib_dealloc_pd_user(pd, NULL);
	return 1;
}

/**
 * evsrc_reclaim - destroy the QPs and CQs a client left behind
 * @edev: the device, unregistered: every client is gone
 *
 * A client whose destroys the fail_destroy or fail_destroy_cq file
 * refused at removal gives the objects up (ib_async abandons them, and
 * with a QP what it uses: its CQs and PD). Here, before ib_core frees the
 * device, the driver takes them back, QPs first, so that a test of a
 * refusing driver leaves nothing in the device's resource tracking,
 * which ib_core WARNs about. The client's handler is never called for
 * them again.
 */
void evsrc_reclaim(struct evsrc_dev *edev)
{
	struct evsrc_obj *obj;
	unsigned long id;
	u32 nqp = 0, n = 0;

	atomic_set(&edev->fail_destroy, 0);
	atomic_set(&edev->fail_destroy_cq, 0);
	atomic_set(&edev->hold_posts, 0);
	xa_for_each(&edev->objs, id, obj)
		if (obj->kind == EVSRC_QP)
			nqp += evsrc_reclaim_qp(container_of(obj,
							     struct evsrc_qp,
							     obj));
	xa_for_each(&edev->objs, id, obj) {
		if (obj->kind != EVSRC_CQ)
			continue;
		if (!ib_destroy_cq_user(&container_of(obj, struct evsrc_cq,
						      obj)->ibcq, NULL))
			n++;
	}
	if (nqp)
		dev_info(&edev->ibdev.dev, "reclaimed %u QPs a client left\n",
			 nqp);
	if (n)
		dev_info(&edev->ibdev.dev, "reclaimed %u CQs a client left\n",
			 n);
}

static int __maybe_unused evsrc_resize_cq(struct ib_cq *ibcq, int cqe,
					  struct ib_udata *udata)
{
	if (cqe < 1 || cqe > EVSRC_MAX_CQE)
		return -EINVAL;
	ibcq->cqe = cqe;
	return 0;
}

static int evsrc_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	return 0;
}

static int evsrc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags f)
{
	return 0;
}

static int evsrc_check_cap(const struct ib_qp_cap *cap)
{
	if (cap->max_send_wr > EVSRC_MAX_WR || cap->max_recv_wr > EVSRC_MAX_WR ||
	    cap->max_send_sge > EVSRC_MAX_SGE ||
	    cap->max_recv_sge > EVSRC_MAX_SGE)
		return -EINVAL;
	return 0;
}

static int evsrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct evsrc_qp *qp = container_of(ibqp, struct evsrc_qp, ibqp);
	int ret = evsrc_alive(ibqp->device);

	if (ret)
		return ret;
	/* no MADs: QP0/QP1 and the exotic types are not emulated */
	if (init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_RC &&
	    init->qp_type != IB_QPT_UC)
		return -EOPNOTSUPP;
	if (init->create_flags)
		return -EOPNOTSUPP;
	ret = evsrc_check_cap(&init->cap);
	if (ret)
		return ret;
	/* no inline data: a driver that takes none, as some do */
	init->cap.max_inline_data = 0;
	mutex_init(&qp->lock);
	qp->cap = init->cap;
	qp->sq_sig_type = init->sq_sig_type;
	qp->attr.qp_state = IB_QPS_RESET;
	ret = evsrc_obj_add(to_edev(ibqp->device), &qp->obj, EVSRC_QP);
	if (ret) {
		mutex_destroy(&qp->lock);
		return ret;
	}
	ibqp->qp_num = qp->obj.id + EVSRC_QPN_BASE;
	return 0;
}

static int evsrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct evsrc_qp *qp = container_of(ibqp, struct evsrc_qp, ibqp);

	/* A driver whose destroy fails: the QP stays, events and all. */
	if (atomic_add_unless(&to_edev(ibqp->device)->fail_destroy, -1, 0))
		return -EIO;

	evsrc_obj_del(&qp->obj);
	mutex_destroy(&qp->lock);
	return 0;
}

/*
 * Any transition ib_modify_qp_is_ok() accepts is taken; the scalar
 * attributes are stored for query_qp. Address vectors are not kept (they
 * hold GID attribute references).
 */
static int evsrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct evsrc_qp *qp = container_of(ibqp, struct evsrc_qp, ibqp);
	struct ib_qp_attr *a = &qp->attr;
	enum ib_qp_state cur, next;
	int ret = 0;

	mutex_lock(&qp->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : a->qp_state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask) ||
	    (mask & IB_QP_PORT && !rdma_is_port_valid(ibqp->device,
						      attr->port_num)) ||
	    (mask & IB_QP_PKEY_INDEX && attr->pkey_index)) {
		ret = -EINVAL;
		goto out;
	}
	if (mask & IB_QP_CAP) {
		ret = evsrc_check_cap(&attr->cap);
		if (ret)
			goto out;
		qp->cap = attr->cap;
	}
	a->qp_state = next;
	a->cur_qp_state = next;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
out:
	mutex_unlock(&qp->lock);
	return ret;
}

static int evsrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct evsrc_qp *qp = container_of(ibqp, struct evsrc_qp, ibqp);

	mutex_lock(&qp->lock);
	*attr = qp->attr;
	attr->cap = qp->cap;
	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->qp_type = ibqp->qp_type;
	init->port_num = qp->attr.port_num;
	mutex_unlock(&qp->lock);
	return 0;
}

/* A post: taken and held (the hold_posts file), or refused. */
static int evsrc_post(struct ib_device *ibdev, const void *wr,
		      const void **bad_wr)
{
	if (atomic_read(&to_edev(ibdev)->hold_posts))
		return 0;
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int evsrc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	return evsrc_post(ibqp->device, wr, (const void **)bad_wr);
}

static int evsrc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	return evsrc_post(ibqp->device, wr, (const void **)bad_wr);
}

static int evsrc_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	return evsrc_post(ibsrq->device, wr, (const void **)bad_wr);
}

static int evsrc_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct evsrc_srq *srq = container_of(ibsrq, struct evsrc_srq, ibsrq);
	int ret = evsrc_alive(ibsrq->device);

	if (ret)
		return ret;
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!init->attr.max_wr || init->attr.max_wr > EVSRC_MAX_WR ||
	    init->attr.max_sge > EVSRC_MAX_SGE ||
	    init->attr.srq_limit > init->attr.max_wr)
		return -EINVAL;
	spin_lock_init(&srq->lock);
	srq->attr = init->attr;
	return evsrc_obj_add(to_edev(ibsrq->device), &srq->obj, EVSRC_SRQ);
}

static int evsrc_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	evsrc_obj_del(&container_of(ibsrq, struct evsrc_srq, ibsrq)->obj);
	return 0;
}

/* IB_SRQ_LIMIT arms the (one-shot) limit event; IB_SRQ_MAX_WR resizes. */
static int evsrc_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct evsrc_srq *srq = container_of(ibsrq, struct evsrc_srq, ibsrq);
	unsigned long flags;
	int ret = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	if ((mask & IB_SRQ_MAX_WR &&
	     (!attr->max_wr || attr->max_wr > EVSRC_MAX_WR)) ||
	    (mask & IB_SRQ_LIMIT &&
	     attr->srq_limit > (mask & IB_SRQ_MAX_WR ? attr->max_wr :
						     srq->attr.max_wr)))
		ret = -EINVAL;
	if (!ret && mask & IB_SRQ_MAX_WR)
		srq->attr.max_wr = attr->max_wr;
	if (!ret && mask & IB_SRQ_LIMIT)
		srq->attr.srq_limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}

static int evsrc_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct evsrc_srq *srq = container_of(ibsrq, struct evsrc_srq, ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	*attr = srq->attr;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/* ib_core has no size_ib_wq in 6.1: the driver allocates WQs itself. */
static struct ib_wq *evsrc_create_wq(struct ib_pd *ibpd,
				     struct ib_wq_init_attr *init,
				     struct ib_udata *udata)
{
	struct evsrc_wq *wq;
	int ret = evsrc_alive(ibpd->device);

	if (ret)
		return ERR_PTR(ret);
	if (init->wq_type != IB_WQT_RQ)
		return ERR_PTR(-EOPNOTSUPP);
	if (init->max_wr > EVSRC_MAX_WR || init->max_sge > EVSRC_MAX_SGE)
		return ERR_PTR(-EINVAL);
	wq = kzalloc(sizeof(*wq), GFP_KERNEL);
	if (!wq)
		return ERR_PTR(-ENOMEM);
	wq->ibwq.state = IB_WQS_RESET;
	ret = evsrc_obj_add(to_edev(ibpd->device), &wq->obj, EVSRC_WQ);
	if (ret) {
		kfree(wq);
		return ERR_PTR(ret);
	}
	wq->ibwq.wq_num = wq->obj.id + EVSRC_QPN_BASE;
	return &wq->ibwq;
}

static int evsrc_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata)
{
	struct evsrc_wq *wq = container_of(ibwq, struct evsrc_wq, ibwq);

	evsrc_obj_del(&wq->obj);
	kfree(wq);
	return 0;
}

static int evsrc_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr,
			   u32 mask, struct ib_udata *udata)
{
	/*
	 * Like mlx4 and mlx5, read the command from udata, so that a caller
	 * handing a NULL one oopses here as it would there.
	 */
	if (udata->inlen)
		return -EOPNOTSUPP;
	if (mask & ~(IB_WQ_STATE | IB_WQ_CUR_STATE))
		return -EOPNOTSUPP;
	if (mask & IB_WQ_STATE) {
		if (attr->wq_state > IB_WQS_ERR)
			return -EINVAL;
		ibwq->state = attr->wq_state;
	}
	return 0;
}

const struct ib_device_ops evsrc_verbs_ops = {
	.alloc_pd = evsrc_alloc_pd,
	.dealloc_pd = evsrc_dealloc_pd,
	.create_ah = evsrc_create_ah,
	.destroy_ah = evsrc_destroy_ah,
	.get_dma_mr = evsrc_get_dma_mr,
	.reg_user_mr = evsrc_reg_user_mr,
	.dereg_mr = evsrc_dereg_mr,
	.create_cq = evsrc_create_cq,
	.destroy_cq = evsrc_destroy_cq,
	EVSRC_OPS_RESIZE_CQ(evsrc_resize_cq)
	.poll_cq = evsrc_poll_cq,
	.req_notify_cq = evsrc_req_notify_cq,
	.create_qp = evsrc_create_qp,
	.destroy_qp = evsrc_destroy_qp,
	.modify_qp = evsrc_modify_qp,
	.query_qp = evsrc_query_qp,
	.post_send = evsrc_post_send,
	.post_recv = evsrc_post_recv,
	.create_srq = evsrc_create_srq,
	.destroy_srq = evsrc_destroy_srq,
	.modify_srq = evsrc_modify_srq,
	.query_srq = evsrc_query_srq,
	.post_srq_recv = evsrc_post_srq_recv,
	.create_wq = evsrc_create_wq,
	.destroy_wq = evsrc_destroy_wq,
	.modify_wq = evsrc_modify_wq,

	INIT_RDMA_OBJ_SIZE(ib_ah, evsrc_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, evsrc_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, evsrc_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, evsrc_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, evsrc_srq, ibsrq),
};

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Verbs objects. Each is a kernel object ib_async created for the
 * context's file: its handle field holds the file's handle, and its own
 * address is the user_handle the kernel returns in the element of its event
 * records, so ibv_get_async_event() hands the program its own pointer.
 *
 * Handles only mean something within one file, so an object that names
 * another (a QP's CQs, an AH's PD...) must come from the same context:
 * EINVAL otherwise, before the kernel could mistake it for one of ours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "ibasync.h"

static void *fail_null(int err)
{
	errno = err;
	return NULL;
}

/* free() that leaves errno as the failure that led here set it */
static void free_keep_errno(void *p)
{
	int err = errno;

	free(p);
	errno = err;
}

/*
 * ibv_destroy_*()'s promise: every event of the object handed out by
 * ibv_get_async_event() has been acknowledged before destroy returns.
 * reported is what the kernel counted as handed out (only records really
 * copied to the program count). Once the device is gone, acks can no
 * longer matter and a program that never acks its last events must still
 * be able to clean up: stop waiting then, and return false so the caller
 * keeps the memory a late ack would still touch.
 */
static bool wait_acks(struct ibasync_context *c, pthread_mutex_t *mutex,
		      pthread_cond_t *cond, const uint32_t *completed,
		      uint64_t reported)
{
	bool all = true;

	pthread_mutex_lock(mutex);
	if (*completed != (uint32_t)reported && ibasync_disassociated(c))
		all = false;
	while (all && *completed != (uint32_t)reported) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (pthread_cond_timedwait(cond, mutex, &ts) == ETIMEDOUT &&
		    *completed != (uint32_t)reported &&
		    ibasync_disassociated(c))
			all = false;
	}
	pthread_mutex_unlock(mutex);
	return all;
}

/* Free a destroyed object, or park it until close if acks may follow. */
static void release(struct ibasync_context *c, void *obj, bool all_acked,
		    pthread_mutex_t *mutex, pthread_cond_t *cond)
{
	struct ibasync_dead *d;

	if (all_acked) {
		pthread_cond_destroy(cond);
		pthread_mutex_destroy(mutex);
		free(obj);
		return;
	}
	d = malloc(sizeof(*d));
	if (!d)
		return;	/* leaked: better than a late ack on freed memory */
	d->obj = obj;
	pthread_mutex_lock(&c->dead_lock);
	d->next = c->dead;
	c->dead = d;
	pthread_mutex_unlock(&c->dead_lock);
}

void ibasync_free_dead(struct ibasync_context *c)
{
	struct ibasync_dead *d, *next;

	for (d = c->dead; d; d = next) {
		next = d->next;
		free(d->obj);
		free(d);
	}
	c->dead = NULL;
}

static void init_sync(pthread_mutex_t *mutex, pthread_cond_t *cond)
{
	pthread_mutex_init(mutex, NULL);
	pthread_cond_init(cond, NULL);
}

/*
 * Destroy an object that raises events: the kernel object, then the wait
 * for the acks of what was delivered, then the memory (see release()).
 */
static int destroy_evobj(struct ibv_context *ctx, uint32_t obj_type,
			 uint32_t handle, void *obj, pthread_mutex_t *mutex,
			 pthread_cond_t *cond, const uint32_t *completed)
{
	struct ibasync_context *c = to_ibasync_ctx(ctx);
	uint64_t reported;
	int ret;

	ret = ibasync_destroy_handle(c, obj_type, handle, &reported, NULL);
	if (ret)
		return ret;
	release(c, obj, wait_acks(c, mutex, cond, completed, reported),
		mutex, cond);
	return 0;
}

/* ---- PD ------------------------------------------------------------------ */

IBASYNC_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibasync_pd *pd;

	if (!context)
		return fail_null(EINVAL);
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	if (ibasync_cmd_create_pd(context, &pd->pd.handle)) {
		free_keep_errno(pd);
		return NULL;
	}
	pd->pd.context = context;
	atomic_init(&pd->mrs, 0);
	return &pd->pd;
}

IBASYNC_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct ibasync_pd *p = to_ibasync_pd(pd);
	uint64_t reported;
	int ret;

	/* MRs are counted here, whether the kernel's or this library's. */
	if (atomic_load(&p->mrs))
		return ibasync_err(EBUSY);
	ret = ibasync_destroy_handle(to_ibasync_ctx(pd->context),
				     IB_ASYNC_OBJ_PD, pd->handle, &reported,
				     NULL);
	if (ret)
		return ret;
	free(p);
	return 0;
}

/* ---- CQ ------------------------------------------------------------------ */

struct ibasync_cq *ibasync_cq_new(struct ibv_context *context, int cqe,
				  void *cq_context,
				  struct ibv_comp_channel *channel,
				  uint32_t comp_vector)
{
	struct ibasync_cq *q;
	struct ibv_cq *cq;
	int err;

	if (!context || cqe < 1)
		return fail_null(EINVAL);
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	cq = ibv_cq_ex_to_cq(&q->ex);
	if (channel ? ibasync_channel_attach(channel, context, cq,
					     (uint32_t)cqe, comp_vector) :
		      ibasync_cmd_create_cq(context, cq, (uint32_t)cqe,
					    comp_vector, -1)) {
		free_keep_errno(q);
		return NULL;
	}
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	init_sync(&cq->mutex, &cq->cond);
	pthread_mutex_init(&q->poll_lock, NULL);
	err = ibasync_cq_ring_map(q);
	if (err) {
		/* its completions would go where they cannot be read */
		ibv_destroy_cq(cq);
		return fail_null(err);
	}
	return q;
}

IBASYNC_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context,
					    int cqe, void *cq_context,
					    struct ibv_comp_channel *channel,
					    int comp_vector)
{
	struct ibasync_cq *q;

	if (comp_vector < 0)
		return fail_null(EINVAL);
	q = ibasync_cq_new(context, cqe, cq_context, channel,
			   (uint32_t)comp_vector);
	return q ? ibv_cq_ex_to_cq(&q->ex) : NULL;
}

IBASYNC_EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (cqe < 1)
		return ibasync_err(EINVAL);
	return ibasync_cmd_resize_cq(cq, (uint32_t)cqe);
}

/*
 * As libibverbs: once the kernel CQ is gone, wait until every async event
 * and every completion event handed out for it was acknowledged.
 */
IBASYNC_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ibasync_context *c = to_ibasync_ctx(cq->context);
	struct ibv_comp_channel *channel = cq->channel;
	uint64_t reported, comp_reported;
	bool all;
	int ret;

	ret = ibasync_destroy_handle(c, IB_ASYNC_OBJ_CQ, cq->handle,
				     &reported, &comp_reported);
	if (ret)
		return ret;
	if (channel)
		ibasync_channel_detach(channel);
	ibasync_cq_ring_unmap(to_ibasync_cq(cq));
	pthread_mutex_destroy(&to_ibasync_cq(cq)->poll_lock);
	all = wait_acks(c, &cq->mutex, &cq->cond, &cq->comp_events_completed,
			comp_reported);
	all = wait_acks(c, &cq->mutex, &cq->cond, &cq->async_events_completed,
			reported) && all;
	release(c, cq, all, &cq->mutex, &cq->cond);
	return 0;
}

/* ---- address vectors ----------------------------------------------------- */

static int av_check(const struct ibv_ah_attr *a)
{
	/* ib_async resolves RoCE addresses itself and sets no rate limits */
	return a->static_rate || a->src_path_bits ? EOPNOTSUPP : 0;
}

/* ---- QP ------------------------------------------------------------------ */

static bool same_ctx(struct ibv_context *ctx, struct ibv_context *other)
{
	return ctx == other;
}

/*
 * UC is of use only with RDMA WRITE, which the copy path (datapath.c) cannot
 * post: it is offered where the node takes posted lists over the device's
 * own MRs (cmd_post.c).
 */
static bool uc_ok(struct ibv_context *ctx)
{
	return to_ibasync_ctx(ctx)->user_mr;
}

/*
 * The one way a QP is made: ibv_create_qp() and, once it has checked its
 * extensions, the create_qp_ex op (qp_ex.c). attr->cap is updated to what
 * the kernel granted.
 */
struct ibv_qp *ibasync_create_qp(struct ibv_pd *pd,
				 struct ibv_qp_init_attr *attr)
{
	struct ibasync_qp *q;
	struct ibv_qp *qp;

	if (!pd || !attr || !attr->send_cq || !attr->recv_cq ||
	    !same_ctx(pd->context, attr->send_cq->context) ||
	    !same_ctx(pd->context, attr->recv_cq->context) ||
	    (attr->srq && !same_ctx(pd->context, attr->srq->context)))
		return fail_null(EINVAL);
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD &&
	    !(attr->qp_type == IBV_QPT_UC && uc_ok(pd->context)))
		return fail_null(EOPNOTSUPP);
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	qp = &q->qp;
	/* attr->cap becomes what the kernel granted */
	if (ibasync_cmd_create_qp(pd, qp, attr)) {
		free_keep_errno(q);
		return NULL;
	}
	qp->context = pd->context;
	qp->qp_context = attr->qp_context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->state = IBV_QPS_RESET;
	qp->qp_type = attr->qp_type;
	init_sync(&qp->mutex, &qp->cond);
	q->cap = attr->cap;
	q->sq_sig_all = !!attr->sq_sig_all;
	ibasync_wr_ring_map(qp->context, IB_ASYNC_OBJ_QP, qp->handle,
			    IB_ASYNC_WR_RING_SEND, q->cap.max_send_wr,
			    &q->sq_ring);
	/* a QP on an SRQ receives through the SRQ's: no requests here */
	ibasync_wr_ring_map(qp->context, IB_ASYNC_OBJ_QP, qp->handle,
			    IB_ASYNC_WR_RING_RECV,
			    attr->srq ? 0 : q->cap.max_recv_wr, &q->rq_ring);
	return qp;
}

IBASYNC_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
					    struct ibv_qp_init_attr *attr)
{
	return ibasync_create_qp(pd, attr);
}

IBASYNC_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				 int attr_mask)
{
	int ret;

	if (attr_mask & IBV_QP_AV) {
		ret = av_check(&attr->ah_attr);
		if (ret)
			return ibasync_err(ret);
	}
	ret = ibasync_cmd_modify_qp(qp, attr, attr_mask);
	if (!ret && (attr_mask & IBV_QP_STATE))
		qp->state = attr->qp_state;
	return ret;
}

IBASYNC_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibasync_qp *q = to_ibasync_qp(qp);
	int ret;

	(void)attr_mask;	/* like the providers: everything is filled */
	ret = ibasync_cmd_query_qp(qp, attr);
	if (ret)
		return ret;
	if (init_attr) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = qp->qp_context;
		init_attr->send_cq = qp->send_cq;
		init_attr->recv_cq = qp->recv_cq;
		init_attr->srq = qp->srq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = qp->qp_type;
		init_attr->sq_sig_all = q->sq_sig_all;
	}
	qp->state = attr->qp_state;
	return 0;
}

IBASYNC_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	/* copied first: destroy_evobj() may free the QP */
	struct ibasync_wr_list wl = to_ibasync_qp(qp)->wl;
	bool is_ex = to_ibasync_qp(qp)->is_ex;
	int ret;

	/*
	 * Its rings first, which destroy_evobj() may free: a QP the kernel
	 * then refuses to destroy posts through the lists, as well.
	 */
	ibasync_wr_ring_unmap(&to_ibasync_qp(qp)->sq_ring);
	ibasync_wr_ring_unmap(&to_ibasync_qp(qp)->rq_ring);
	ret = destroy_evobj(qp->context, IB_ASYNC_OBJ_QP, qp->handle,
			    to_ibasync_qp(qp), &qp->mutex, &qp->cond,
			    &qp->events_completed);
	if (!ret && is_ex)
		ibasync_wr_fini(&wl);
	return ret;
}

/* ---- SRQ ----------------------------------------------------------------- */

IBASYNC_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					      struct ibv_srq_init_attr *attr)
{
	struct ibasync_srq *s;
	struct ibv_srq *srq;

	if (!pd || !attr)
		return fail_null(EINVAL);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	srq = &s->srq;
	/* attr->attr becomes what the kernel granted */
	if (ibasync_cmd_create_srq(pd, srq, attr)) {
		free_keep_errno(s);
		return NULL;
	}
	srq->context = pd->context;
	srq->srq_context = attr->srq_context;
	srq->pd = pd;
	init_sync(&srq->mutex, &srq->cond);
	ibasync_wr_ring_map(srq->context, IB_ASYNC_OBJ_SRQ, srq->handle,
			    IB_ASYNC_WR_RING_RECV, attr->attr.max_wr, &s->ring);
	return srq;
}

/*
 * struct verbs_context's create_srq_ex, behind the inline
 * ibv_create_srq_ex() for what it does not hand to ibv_create_srq()
 * itself: a basic SRQ whose comp_mask names a CQ too (ignored for a basic
 * SRQ, as ib_uverbs ignores it), checked as libibverbs' command layer
 * checks it (XRC without its XRCD and CQ, tag matching without its CQ
 * and tags: EINVAL). XRC SRQs need an XRC domain, which no device here
 * opens, and tag matching needs hardware that rxe lacks: EOPNOTSUPP.
 */
struct ibv_srq *ibasync_create_srq_ex(struct ibv_context *context,
				      struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	(void)context;
	if (attr->comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED)
		return fail_null(EOPNOTSUPP);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD))
		return fail_null(EINVAL);
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if ((type == IBV_SRQT_XRC &&
	     (~attr->comp_mask & (IBV_SRQ_INIT_ATTR_XRCD |
				  IBV_SRQ_INIT_ATTR_CQ))) ||
	    (type == IBV_SRQT_TM &&
	     ((~attr->comp_mask & (IBV_SRQ_INIT_ATTR_CQ |
				   IBV_SRQ_INIT_ATTR_TM)) ||
	      !attr->tm_cap.max_num_tags)))
		return fail_null(EINVAL);
	if (type != IBV_SRQT_BASIC)
		return fail_null(EOPNOTSUPP);
	return ibv_create_srq(attr->pd, (struct ibv_srq_init_attr *)attr);
}

IBASYNC_EXPORT int ibv_modify_srq(struct ibv_srq *srq,
				  struct ibv_srq_attr *attr, int attr_mask)
{
	return ibasync_cmd_modify_srq(srq, attr, attr_mask);
}

IBASYNC_EXPORT int ibv_query_srq(struct ibv_srq *srq,
				 struct ibv_srq_attr *attr)
{
	return ibasync_cmd_query_srq(srq, attr);
}

IBASYNC_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	/* its ring first, as for a QP */
	ibasync_wr_ring_unmap(&to_ibasync_srq(srq)->ring);
	return destroy_evobj(srq->context, IB_ASYNC_OBJ_SRQ, srq->handle, srq,
			     &srq->mutex, &srq->cond, &srq->events_completed);
}

/* ---- AH ------------------------------------------------------------------ */

IBASYNC_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
					    struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;
	int ret;

	if (!pd || !attr)
		return fail_null(EINVAL);
	ret = av_check(attr);
	if (ret)
		return fail_null(ret);
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	if (ibasync_cmd_create_ah(pd, attr, &ah->handle)) {
		free_keep_errno(ah);
		return NULL;
	}
	ah->context = pd->context;
	ah->pd = pd;
	return ah;
}

IBASYNC_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	uint64_t reported;
	int ret;

	ret = ibasync_destroy_handle(to_ibasync_ctx(ah->context),
				     IB_ASYNC_OBJ_AH, ah->handle, &reported,
				     NULL);
	if (!ret)
		free(ah);
	return ret;
}

/* ---- WQ, through struct verbs_context ------------------------------------ */

static int wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	(void)wq;
	*bad_wr = wr;	/* the kernel data path posts to QPs and SRQs only */
	return ibasync_err(EOPNOTSUPP);
}

struct ibv_wq *ibasync_create_wq(struct ibv_context *context,
				 struct ibv_wq_init_attr *attr)
{
	struct ibv_wq *wq;

	if (!attr->pd || !attr->cq || !same_ctx(context, attr->pd->context) ||
	    !same_ctx(context, attr->cq->context))
		return fail_null(EINVAL);
	if (attr->wq_type != IBV_WQT_RQ ||
	    ((attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) && attr->create_flags) ||
	    (attr->comp_mask & ~(uint32_t)IBV_WQ_INIT_ATTR_FLAGS))
		return fail_null(EOPNOTSUPP);
	wq = calloc(1, sizeof(*wq));
	if (!wq)
		return NULL;
	/* attr's max_wr and max_sge become what the kernel granted */
	if (ibasync_cmd_create_wq(context, wq, attr)) {
		free_keep_errno(wq);
		return NULL;
	}
	wq->context = context;
	wq->wq_context = attr->wq_context;
	wq->pd = attr->pd;
	wq->cq = attr->cq;
	wq->state = IBV_WQS_RESET;
	wq->wq_type = attr->wq_type;
	wq->post_recv = wq_post_recv;
	/* ibv_create_wq() (inline) initialises them again: harmless */
	init_sync(&wq->mutex, &wq->cond);
	return wq;
}

int ibasync_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr)
{
	int ret;

	ret = ibasync_cmd_modify_wq(wq, attr);
	if (!ret && (attr->attr_mask & IBV_WQ_ATTR_STATE))
		wq->state = attr->wq_state;
	return ret;
}

int ibasync_destroy_wq(struct ibv_wq *wq)
{
	return destroy_evobj(wq->context, IB_ASYNC_OBJ_WQ, wq->handle, wq,
			     &wq->mutex, &wq->cond, &wq->events_completed);
}

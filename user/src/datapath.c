// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path behind rdma-core's inline ibv_post_send(),
 * ibv_post_recv(), ibv_post_srq_recv() and ibv_poll_cq(). Where the node
 * registers user memory (IB_ASYNC_FEATURE_USER_MR) posts go through the
 * queue's submission ring (wr_ring.c) where it has one, else to
 * cmd_post.c, in lists over the kernel's MRs. Elsewhere: one command per
 * work request through ib_async's kernel buffers (see
 * Documentation/ib_async.rst, "Data path"), which exists so that real
 * events can be provoked and simple traffic runs, not for speed.
 *
 * Supported: SEND and SEND_WITH_IMM on RC and UD, signalled or not,
 * inline or not; gather lists on sends (copied into one message here);
 * receives into at most one scatter entry. Everything else fails the post
 * with EOPNOTSUPP, and *bad_wr names the first request not posted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ibasync.h"

#define SEND_FLAGS_OK	(IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_SOLICITED)
#define POLL_CHUNK	32

/* Sum the entries' lengths and check them against this context's MRs. */
static int gather_len(struct ibasync_context *c, const struct ibv_sge *sg,
		      int num_sge, bool check_mr, size_t *total)
{
	size_t len = 0;
	int i, err;

	for (i = 0; i < num_sge; i++) {
		if (check_mr) {
			err = ibasync_mr_check(c, &sg[i], 0);
			if (err)
				return err;
		}
		len += sg[i].length;
		if (len > IB_ASYNC_MAX_MSG)
			return EINVAL;
	}
	*total = len;
	return 0;
}

static int post_one_send(struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	struct ibasync_context *c = to_ibasync_ctx(qp->context);
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	char *bounce = NULL, *p;
	uint64_t addr = 0;
	size_t len = 0;
	int i, err;

	if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM)
		return EOPNOTSUPP;	/* RDMA READ/WRITE, atomics, ... */
	if (wr->send_flags & ~(unsigned int)SEND_FLAGS_OK)
		return EOPNOTSUPP;	/* fence, checksum offload */
	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return EINVAL;
	/* inline data needs no registration, as on a device */
	err = gather_len(c, wr->sg_list, wr->num_sge, !inl, &len);
	if (err)
		return err;
	if (inl && len > to_ibasync_qp(qp)->cap.max_inline_data)
		return EINVAL;
	if (qp->qp_type == IBV_QPT_UD &&
	    (!wr->wr.ud.ah || wr->wr.ud.ah->context != qp->context))
		return EINVAL;
	if (wr->num_sge == 1) {
		addr = wr->sg_list[0].addr;
	} else if (wr->num_sge > 1) {
		/* the kernel reads one message: gather it here */
		bounce = malloc(len ? len : 1);
		if (!bounce)
			return ENOMEM;
		for (i = 0, p = bounce; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		addr = (uintptr_t)bounce;
	}
	err = ibasync_cmd_post_send(qp, wr, addr, (uint32_t)len);
	free(bounce);
	return err;
}

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr)
{
	int err;

	/* rings come with user MRs, and only then is there one to look at */
	if (to_ibasync_ctx(qp->context)->user_mr)
		return ibasync_wr_ring_on(&to_ibasync_qp(qp)->sq_ring) ?
		       ibasync_wr_ring_post_send(qp, wr, bad_wr) :
		       ibasync_cmd_post_send_list(qp, wr, bad_wr);
	for (; wr; wr = wr->next) {
		err = post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			return ibasync_err(err);
		}
	}
	return 0;
}

static int post_one_recv(struct ibv_context *ctx, uint32_t obj_type,
			 uint32_t handle, const struct ibv_recv_wr *wr)
{
	uint64_t addr = 0;
	uint32_t length = 0;
	int err;

	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return EINVAL;
	/* the kernel writes one message to one place at poll time */
	if (wr->num_sge > 1)
		return EOPNOTSUPP;
	if (wr->num_sge == 1) {
		err = ibasync_mr_check(to_ibasync_ctx(ctx), wr->sg_list,
				       IBV_ACCESS_LOCAL_WRITE);
		if (err)
			return err;
		addr = wr->sg_list[0].addr;
		length = wr->sg_list[0].length;
	}
	return ibasync_cmd_post_recv(ctx, obj_type, handle, wr->wr_id, addr,
				     length);
}

static int post_recv_list(struct ibv_context *ctx, uint32_t obj_type,
			  uint32_t handle, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	int err;

	for (; wr; wr = wr->next) {
		err = post_one_recv(ctx, obj_type, handle, wr);
		if (err) {
			*bad_wr = wr;
			return ibasync_err(err);
		}
	}
	return 0;
}

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr)
{
	struct ibasync_wr_ring *r = &to_ibasync_qp(qp)->rq_ring;

	if (to_ibasync_ctx(qp->context)->user_mr)
		return ibasync_wr_ring_on(r) ?
		       ibasync_wr_ring_post_recv(qp->context, r, wr, bad_wr) :
		       ibasync_cmd_post_recv_list(qp, wr, bad_wr);
	return post_recv_list(qp->context, IB_ASYNC_OBJ_QP, qp->handle, wr,
			      bad_wr);
}

static int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr)
{
	struct ibasync_wr_ring *r = &to_ibasync_srq(srq)->ring;

	if (to_ibasync_ctx(srq->context)->user_mr)
		return ibasync_wr_ring_on(r) ?
		       ibasync_wr_ring_post_recv(srq->context, r, wr, bad_wr) :
		       ibasync_cmd_post_srq_recv_list(srq, wr, bad_wr);
	return post_recv_list(srq->context, IB_ASYNC_OBJ_SRQ, srq->handle, wr,
			      bad_wr);
}

static void wc_to_ibv(struct ibv_wc *wc, const struct ib_async_wc *k)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = k->wr_id;
	wc->status = (enum ibv_wc_status)k->status;
	wc->opcode = (enum ibv_wc_opcode)k->opcode;
	wc->vendor_err = k->vendor_err;
	wc->byte_len = k->byte_len;
	wc->imm_data = k->imm_data;
	wc->qp_num = k->qp_num;
	wc->src_qp = k->src_qp;
	wc->wc_flags = k->wc_flags;
	wc->pkey_index = k->pkey_index;
	wc->slid = k->slid;
	wc->sl = k->sl;
	wc->dlid_path_bits = k->dlid_path_bits;
}

/*
 * Up to @num completions from the kernel after the @done already in @wc:
 * the total, or a negative value (errno set) if there were none.
 */
static int poll_kernel(struct ibasync_cq *q, int num, struct ibv_wc *wc,
		       int done)
{
	struct ib_async_wc k[POLL_CHUNK];
	uint32_t count;
	int i, err;

	while (done < num) {
		count = (uint32_t)(num - done < POLL_CHUNK ?
				   num - done : POLL_CHUNK);
		err = ibasync_cq_fetch(q, k, &count);
		if (err)
			return done ? done : -err;
		for (i = 0; i < (int)count; i++)
			wc_to_ibv(&wc[done + i], &k[i]);
		done += (int)count;
		/* a ring's next look would be a system call: return these */
		if (count < POLL_CHUNK || ibasync_cq_ring_on(q))
			break;
	}
	return done;
}

/*
 * The completions an extended CQ fetched ahead and nobody consumed: into
 * @wc, up to @num of them. q->poll_lock is held.
 */
static int drain_fetched(struct ibasync_cq *q, int num, struct ibv_wc *wc)
{
	int done = 0;

	while (done < num && q->next < q->count)
		wc_to_ibv(&wc[done++], &q->buf[q->next++]);
	return done;
}

/* ibv_poll_cq(): entries polled, or a negative value (errno set) */
static int poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	struct ibasync_cq *q = to_ibasync_cq(cq);
	int ret;

	if (num < 0 || (num && !wc)) {
		errno = EINVAL;
		return -EINVAL;
	}
	/* the kernel serializes polls of a CQ without a ring */
	if (!q->is_ex && !ibasync_cq_ring_on(q))
		return poll_kernel(q, num, wc, 0);
	/* what the extended API fetched ahead comes first */
	pthread_mutex_lock(&q->poll_lock);
	ret = poll_kernel(q, num, wc, drain_fetched(q, num, wc));
	pthread_mutex_unlock(&q->poll_lock);
	return ret;
}

/* Arming is the driver's: the kernel passes it on (channel.c reads it). */
static int req_notify_cq(struct ibv_cq *cq, int solicited)
{
	return ibasync_cmd_req_notify_cq(cq, solicited);
}

/*
 * Memory windows have no kernel verbs a module can call: the three ops
 * fail as libibverbs' defaults do (default_ops.c). ibv_bind_mw() and
 * ibv_dealloc_mw() call theirs without looking, so none stays NULL.
 */
static struct ibv_mw *alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	(void)pd; (void)type;
	errno = EOPNOTSUPP;
	return NULL;
}

static int bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *bind)
{
	(void)qp; (void)mw; (void)bind;
	return EOPNOTSUPP;
}

static int dealloc_mw(struct ibv_mw *mw)
{
	(void)mw;
	return EOPNOTSUPP;
}

/*
 * The _compat_* slots were called by binaries built against libibverbs
 * before 1.1.8 (2014), whose inlines took these ops; none is served here
 * and they stay NULL.
 */
const struct ibv_context_ops ibasync_ops = {
	.alloc_mw	= alloc_mw,
	.poll_cq	= poll_cq,
	.req_notify_cq	= req_notify_cq,
	.post_send	= post_send,
	.post_recv	= post_recv,
	.post_srq_recv	= post_srq_recv,
	.bind_mw	= bind_mw,
	.dealloc_mw	= dealloc_mw,
};

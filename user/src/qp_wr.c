// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_wr_*() post API of a QP made by ibv_create_qp_ex() with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: ibv_wr_start(), one ibv_wr_<op>() per
 * request followed by its setters (SGEs, inline data, UD address), then
 * ibv_wr_complete() or ibv_wr_abort().
 *
 * The requests are built as a struct ibv_send_wr list and posted by the
 * same code as ibv_post_send() (datapath.c, cmd_post.c), so both APIs
 * check and post alike. What a setter is given is copied at once, as a
 * provider copies it into its send queue: the caller may reuse its
 * buffers before ibv_wr_complete(). The arrays grow to the largest list
 * a QP has built and are kept, so a steady workload allocates nothing per
 * request.
 *
 * Misuse (an op the QP was not created for, a setter without a request,
 * a UD address on a connected QP, anything before ibv_wr_start()) is
 * remembered and ibv_wr_complete() returns it, EINVAL, posting nothing;
 * ops no QP here can have (memory windows, invalidation, TSO, XRC, atomic
 * write) give EOPNOTSUPP the same way. If the kernel refuses the list,
 * ibv_wr_complete() returns its errno and the requests before the refused
 * one may have been posted, as with ibv_post_send().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibasync.h"

/* What the list path posts (cmd_post.c), and what the copy path posts. */
#define OPS_USER_MR	(IBV_QP_EX_WITH_RDMA_WRITE |			\
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			 IBV_QP_EX_WITH_SEND |				\
			 IBV_QP_EX_WITH_SEND_WITH_IMM |			\
			 IBV_QP_EX_WITH_RDMA_READ |			\
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |		\
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define OPS_COPY	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

uint64_t ibasync_wr_ops_offered(struct ibv_context *context)
{
	return to_ibasync_ctx(context)->user_mr ? OPS_USER_MR : OPS_COPY;
}

static struct ibasync_qp *from_qpx(struct ibv_qp_ex *qx)
{
	return to_ibasync_qp(&qx->qp_base);
}

static void fail(struct ibasync_wr_list *l, int err)
{
	if (!l->err)
		l->err = err;
}

/* Room for @more of @size-byte elements in *@arr of *@cap: 0 or ENOMEM. */
static int grow(void **arr, size_t *cap, size_t used, size_t more,
		size_t size)
{
	size_t want = *cap ? *cap : 8;
	void *p;

	if (more > SIZE_MAX / 2 - used)
		return ENOMEM;
	if (used + more <= *cap)
		return 0;
	while (want < used + more)
		want *= 2;
	if (want > SIZE_MAX / size)
		return ENOMEM;
	p = realloc(*arr, want * size);
	if (!p)
		return ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
}

/* A new request of @op, if the QP was made for @flag; NULL otherwise. */
static struct ibv_send_wr *new_wr(struct ibv_qp_ex *qx, enum ibv_wr_opcode op,
				  uint64_t flag)
{
	struct ibasync_qp *q = from_qpx(qx);
	struct ibasync_wr_list *l = &q->wl;
	struct ibasync_wr_rec *r;

	if (!l->started || !(q->send_ops & flag)) {
		fail(l, EINVAL);
		return NULL;
	}
	if (grow((void **)&l->rec, &l->rec_cap, l->n, 1, sizeof(*l->rec))) {
		fail(l, ENOMEM);
		return NULL;
	}
	r = &l->rec[l->n++];
	memset(&r->wr, 0, sizeof(r->wr));
	r->wr.wr_id = qx->wr_id;
	r->wr.send_flags = qx->wr_flags;
	r->wr.opcode = op;
	r->sge_at = l->nsge;
	r->inl_at = l->inl_len;
	return &r->wr;
}

/* A new RDMA request (WRITE, WRITE_WITH_IMM, READ) of @rkey at @raddr. */
static struct ibv_send_wr *rdma_wr(struct ibv_qp_ex *qx, enum ibv_wr_opcode op,
				   uint64_t flag, uint32_t rkey,
				   uint64_t raddr)
{
	struct ibv_send_wr *w = new_wr(qx, op, flag);

	if (w) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = raddr;
	}
	return w;
}

/* A new atomic request of @rkey at @raddr. */
static void atomic_wr(struct ibv_qp_ex *qx, enum ibv_wr_opcode op,
		      uint64_t flag, uint32_t rkey, uint64_t raddr,
		      uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *w = new_wr(qx, op, flag);

	if (w) {
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.remote_addr = raddr;
		w->wr.atomic.compare_add = compare_add;
		w->wr.atomic.swap = swap;
	}
}

/* The request the setters apply to: the last one built. */
static struct ibv_send_wr *cur_wr(struct ibasync_wr_list *l)
{
	if (!l->started || !l->n) {
		fail(l, EINVAL);
		return NULL;
	}
	return &l->rec[l->n - 1].wr;
}

/*
 * A setter of data replaces what an earlier one set on the same request:
 * its SGEs and inline bytes are the last in the arrays.
 */
static struct ibv_send_wr *data_wr(struct ibasync_wr_list *l)
{
	struct ibv_send_wr *w = cur_wr(l);

	if (!w)
		return NULL;
	l->nsge = l->rec[l->n - 1].sge_at;
	l->inl_len = l->rec[l->n - 1].inl_at;
	w->num_sge = 0;
	w->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
	return w;
}

static void wr_set_sge_list(struct ibv_qp_ex *qx, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct ibasync_wr_list *l = &from_qpx(qx)->wl;
	struct ibv_send_wr *w = data_wr(l);

	if (!w)
		return;
	if (num_sge > INT32_MAX || (num_sge && !sg_list)) {
		fail(l, EINVAL);
		return;
	}
	if (grow((void **)&l->sge, &l->sge_cap, l->nsge, num_sge,
		 sizeof(*l->sge))) {
		fail(l, ENOMEM);
		return;
	}
	if (num_sge)
		memcpy(&l->sge[l->nsge], sg_list, num_sge * sizeof(*sg_list));
	l->nsge += num_sge;
	w->num_sge = (int)num_sge;
}

static void wr_set_sge(struct ibv_qp_ex *qx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge s = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(qx, 1, &s);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qx, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct ibasync_wr_list *l = &from_qpx(qx)->wl;
	struct ibv_send_wr *w = data_wr(l);
	size_t i, len = 0;

	if (!w)
		return;
	if (num_buf > INT32_MAX || (num_buf && !buf_list)) {
		fail(l, EINVAL);
		return;
	}
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > UINT32_MAX ||
		    len > SIZE_MAX - buf_list[i].length) {
			fail(l, EINVAL);
			return;
		}
		len += buf_list[i].length;
	}
	if (grow((void **)&l->sge, &l->sge_cap, l->nsge, num_buf,
		 sizeof(*l->sge)) ||
	    grow((void **)&l->inl, &l->inl_cap, l->inl_len, len ? len : 1, 1)) {
		fail(l, ENOMEM);
		return;
	}
	for (i = 0; i < num_buf; i++) {
		/* addr: an offset into inl until the list is posted */
		l->sge[l->nsge + i] = (struct ibv_sge){
			.addr = l->inl_len,
			.length = (uint32_t)buf_list[i].length,
		};
		if (buf_list[i].length)
			memcpy(l->inl + l->inl_len, buf_list[i].addr,
			       buf_list[i].length);
		l->inl_len += buf_list[i].length;
	}
	l->nsge += num_buf;
	w->num_sge = (int)num_buf;
	w->send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *qx, void *addr,
			       size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	wr_set_inline_data_list(qx, 1, &b);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qx, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibasync_wr_list *l = &from_qpx(qx)->wl;
	struct ibv_send_wr *w = cur_wr(l);

	if (!w)
		return;
	if (qx->qp_base.qp_type != IBV_QPT_UD) {
		fail(l, EINVAL);
		return;
	}
	w->wr.ud.ah = ah;
	w->wr.ud.remote_qpn = remote_qpn;
	w->wr.ud.remote_qkey = remote_qkey;
}

static void wr_send(struct ibv_qp_ex *qx)
{
	new_wr(qx, IBV_WR_SEND, IBV_QP_EX_WITH_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qx, __be32 imm_data)
{
	struct ibv_send_wr *w = new_wr(qx, IBV_WR_SEND_WITH_IMM,
				       IBV_QP_EX_WITH_SEND_WITH_IMM);

	if (w)
		w->imm_data = imm_data;
}

static void wr_rdma_write(struct ibv_qp_ex *qx, uint32_t rkey,
			  uint64_t remote_addr)
{
	rdma_wr(qx, IBV_WR_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE, rkey,
		remote_addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qx, uint32_t rkey,
			      uint64_t remote_addr, __be32 imm_data)
{
	struct ibv_send_wr *w = rdma_wr(qx, IBV_WR_RDMA_WRITE_WITH_IMM,
					IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
					rkey, remote_addr);

	if (w)
		w->imm_data = imm_data;
}

static void wr_rdma_read(struct ibv_qp_ex *qx, uint32_t rkey,
			 uint64_t remote_addr)
{
	rdma_wr(qx, IBV_WR_RDMA_READ, IBV_QP_EX_WITH_RDMA_READ, rkey,
		remote_addr);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qx, uint32_t rkey,
			      uint64_t remote_addr, uint64_t compare,
			      uint64_t swap)
{
	atomic_wr(qx, IBV_WR_ATOMIC_CMP_AND_SWP,
		  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		  compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qx, uint32_t rkey,
				uint64_t remote_addr, uint64_t add)
{
	atomic_wr(qx, IBV_WR_ATOMIC_FETCH_AND_ADD,
		  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add,
		  0);
}

/* Ops no QP here is made for: ibv_wr_complete() says EOPNOTSUPP. */
static void unsupported(struct ibv_qp_ex *qx)
{
	fail(&from_qpx(qx)->wl, EOPNOTSUPP);
}

static void wr_bind_mw(struct ibv_qp_ex *qx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	(void)mw; (void)rkey; (void)bind_info;
	unsupported(qx);
}

static void wr_with_key(struct ibv_qp_ex *qx, uint32_t key)
{
	(void)key;
	unsupported(qx);
}

static void wr_send_tso(struct ibv_qp_ex *qx, void *hdr, uint16_t hdr_sz,
			uint16_t mss)
{
	(void)hdr; (void)hdr_sz; (void)mss;
	unsupported(qx);
}

static void wr_atomic_write(struct ibv_qp_ex *qx, uint32_t rkey,
			    uint64_t remote_addr, const void *atomic_wr)
{
	(void)rkey; (void)remote_addr; (void)atomic_wr;
	unsupported(qx);
}

static void reset(struct ibasync_wr_list *l)
{
	l->n = l->nsge = l->inl_len = 0;
	l->err = 0;
}

static void wr_start(struct ibv_qp_ex *qx)
{
	struct ibasync_wr_list *l = &from_qpx(qx)->wl;

	pthread_mutex_lock(&l->lock);
	reset(l);
	l->started = true;
}

/* End the caller's session: only a started one holds the lock. */
static void end(struct ibasync_wr_list *l)
{
	reset(l);
	l->started = false;
	pthread_mutex_unlock(&l->lock);
}

static int wr_complete(struct ibv_qp_ex *qx)
{
	struct ibasync_wr_list *l = &from_qpx(qx)->wl;
	struct ibv_qp *qp = &qx->qp_base;
	struct ibv_send_wr *w, *bad = NULL;
	size_t i;
	int j, err;

	if (!l->started)
		return EINVAL;
	err = l->err;
	for (i = 0; !err && i < l->n; i++) {
		w = &l->rec[i].wr;
		w->next = i + 1 < l->n ? &l->rec[i + 1].wr : NULL;
		w->sg_list = w->num_sge ? &l->sge[l->rec[i].sge_at] : NULL;
		if (!(w->send_flags & IBV_SEND_INLINE))
			continue;
		for (j = 0; j < w->num_sge; j++)
			w->sg_list[j].addr += (uintptr_t)l->inl;
	}
	if (!err && l->n)
		err = qp->context->ops.post_send(qp, &l->rec[0].wr, &bad);
	end(l);
	return err;
}

static void wr_abort(struct ibv_qp_ex *qx)
{
	struct ibasync_wr_list *l = &from_qpx(qx)->wl;

	if (l->started)
		end(l);
}

void ibasync_wr_init(struct ibasync_qp *q, uint64_t send_ops)
{
	struct ibv_qp_ex *qx = &q->qpx;

	pthread_mutex_init(&q->wl.lock, NULL);
	q->is_ex = true;
	q->send_ops = send_ops;
	qx->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	qx->wr_atomic_fetch_add = wr_atomic_fetch_add;
	qx->wr_bind_mw = wr_bind_mw;
	qx->wr_local_inv = wr_with_key;
	qx->wr_rdma_read = wr_rdma_read;
	qx->wr_rdma_write = wr_rdma_write;
	qx->wr_rdma_write_imm = wr_rdma_write_imm;
	qx->wr_send = wr_send;
	qx->wr_send_imm = wr_send_imm;
	qx->wr_send_inv = wr_with_key;
	qx->wr_send_tso = wr_send_tso;
	qx->wr_set_ud_addr = wr_set_ud_addr;
	qx->wr_set_xrc_srqn = wr_with_key;
	qx->wr_set_inline_data = wr_set_inline_data;
	qx->wr_set_inline_data_list = wr_set_inline_data_list;
	qx->wr_set_sge = wr_set_sge;
	qx->wr_set_sge_list = wr_set_sge_list;
	qx->wr_start = wr_start;
	qx->wr_complete = wr_complete;
	qx->wr_abort = wr_abort;
	qx->wr_atomic_write = wr_atomic_write;
}

/*
 * After the QP is destroyed, nobody can be building a list any more. @l
 * is a copy (the QP may be gone): its arrays are freed, its lock (which
 * glibc's mutexes need no destroy for) goes with the QP's memory.
 */
void ibasync_wr_fini(struct ibasync_wr_list *l)
{
	free(l->rec);
	free(l->sge);
	free(l->inl);
}

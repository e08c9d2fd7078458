// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Extended CQs: struct verbs_context's create_cq_ex, behind rdma-core's
 * inline ibv_create_cq_ex(), and the poll API of struct ibv_cq_ex
 * (ibv_start_poll(), ibv_next_poll(), ibv_end_poll(), ibv_wc_read_*()).
 *
 * The kernel's POLL_CQ hands out whole completions, so start_poll fetches
 * up to IBASYNC_CQ_EX_BATCH of them into the CQ and the read ops return
 * fields of the current one. What a poll session leaves unconsumed stays
 * in the CQ for the next session or for ibv_poll_cq() (datapath.c), in
 * order. The standard work-completion fields are offered, as on rxe;
 * timestamps, VLANs, flow tags and tag matching are not (EOPNOTSUPP).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cmd.h"
#include "ibasync.h"

/* A thread's token: the address of its own byte, unique among live threads. */
static _Thread_local char thread_token;

static struct ibasync_cq *from_ex(struct ibv_cq_ex *cq)
{
	return to_ibasync_cq(ibv_cq_ex_to_cq(cq));
}

static const struct ib_async_wc *cur(struct ibv_cq_ex *cq)
{
	struct ibasync_cq *q = from_ex(cq);

	return &q->buf[q->next];
}

/* A new batch from the kernel: 0, ENOENT if the CQ is empty, or errno. */
static int fetch(struct ibasync_cq *q)
{
	uint32_t count = IBASYNC_CQ_EX_BATCH;
	int err;

	q->next = q->count = 0;
	err = ibasync_cq_fetch(q, q->buf, &count);
	if (err)
		return err;
	q->count = count;
	return q->count ? 0 : ENOENT;
}

/* Make buf[next] the current completion, fetching if none is left. */
static int load(struct ibasync_cq *q)
{
	int err = q->next < q->count ? 0 : fetch(q);

	q->have_cur = !err;
	if (err)
		return err;
	q->ex.wr_id = q->buf[q->next].wr_id;
	q->ex.status = (enum ibv_wc_status)q->buf[q->next].status;
	return 0;
}

static int start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	struct ibasync_cq *q = from_ex(cq);
	int err;

	if (!attr || attr->comp_mask)
		return EINVAL;
	pthread_mutex_lock(&q->poll_lock);
	err = load(q);
	if (err) {
		pthread_mutex_unlock(&q->poll_lock);
		return err;
	}
	__atomic_store_n(&q->owner, (uintptr_t)&thread_token, __ATOMIC_RELAXED);
	return 0;
}

static int next_poll(struct ibv_cq_ex *cq)
{
	struct ibasync_cq *q = from_ex(cq);

	if (q->have_cur)
		q->next++;
	return load(q);
}

/*
 * Only the thread whose start_poll succeeded ends the session: programs
 * (pyverbs' poll_cq_ex() among them) call ibv_end_poll() after a failed
 * start too, which must not release another thread's session. That
 * check is made without the lock, while another thread may be starting
 * a session: hence an atomic owner, which a thread reads as its own
 * token only if it wrote it.
 */
static void end_poll(struct ibv_cq_ex *cq)
{
	struct ibasync_cq *q = from_ex(cq);

	if (__atomic_load_n(&q->owner, __ATOMIC_RELAXED) !=
	    (uintptr_t)&thread_token)
		return;
	if (q->have_cur)
		q->next++;
	q->have_cur = false;
	__atomic_store_n(&q->owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&q->poll_lock);
}

static enum ibv_wc_opcode read_opcode(struct ibv_cq_ex *cq)
{
	return (enum ibv_wc_opcode)cur(cq)->opcode;
}

static uint32_t read_vendor_err(struct ibv_cq_ex *cq)
{
	return cur(cq)->vendor_err;
}

static uint32_t read_byte_len(struct ibv_cq_ex *cq)
{
	return cur(cq)->byte_len;
}

static __be32 read_imm_data(struct ibv_cq_ex *cq)
{
	return cur(cq)->imm_data;
}

static uint32_t read_qp_num(struct ibv_cq_ex *cq)
{
	return cur(cq)->qp_num;
}

static uint32_t read_src_qp(struct ibv_cq_ex *cq)
{
	return cur(cq)->src_qp;
}

static unsigned int read_wc_flags(struct ibv_cq_ex *cq)
{
	return cur(cq)->wc_flags;
}

static uint32_t read_slid(struct ibv_cq_ex *cq)
{
	return cur(cq)->slid;
}

static uint8_t read_sl(struct ibv_cq_ex *cq)
{
	return cur(cq)->sl;
}

static uint8_t read_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return cur(cq)->dlid_path_bits;
}

/* What of struct ibv_cq_init_attr_ex this CQ can honour: 0 or errno. */
static int check_attr(const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD))
		return EINVAL;	/* its fields would go unread */
	/* no parent domains (their allocators) */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		return EOPNOTSUPP;
	/* a kernel CQ cannot be told to ignore its overrun */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;
	if (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS)
		return EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > INT_MAX)
		return EINVAL;
	return 0;
}

struct ibv_cq_ex *ibasync_create_cq_ex(struct ibv_context *context,
				       struct ibv_cq_init_attr_ex *attr)
{
	struct ibasync_cq *q;
	int err;

	if (!attr) {
		errno = EINVAL;
		return NULL;
	}
	err = check_attr(attr);
	if (err) {
		errno = err;
		return NULL;
	}
	q = ibasync_cq_new(context, (int)attr->cqe, attr->cq_context,
			   attr->channel, attr->comp_vector);
	if (!q)
		return NULL;
	q->is_ex = true;
	q->ex.start_poll = start_poll;
	q->ex.next_poll = next_poll;
	q->ex.end_poll = end_poll;
	q->ex.read_opcode = read_opcode;
	q->ex.read_vendor_err = read_vendor_err;
	q->ex.read_byte_len = read_byte_len;
	q->ex.read_imm_data = read_imm_data;
	q->ex.read_qp_num = read_qp_num;
	q->ex.read_src_qp = read_src_qp;
	q->ex.read_wc_flags = read_wc_flags;
	q->ex.read_slid = read_slid;
	q->ex.read_sl = read_sl;
	q->ex.read_dlid_path_bits = read_dlid_path_bits;
	return &q->ex;
}

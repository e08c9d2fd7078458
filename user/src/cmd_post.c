// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The list commands of the command layer (cmd.h): ibv_post_send(),
 * ibv_post_recv() and ibv_post_srq_recv() over the kernel's MRs
 * (IB_ASYNC_FEATURE_USER_MR), as rdma-core's ibv_cmd_post_send() marshals
 * them. The work requests are handed to the kernel as lists of its own
 * struct ib_async_send_wr or recv_wr and struct ib_async_sge, up to
 * LIST_WRS per ioctl, and the device reads and writes the program's
 * registered memory itself. The kernel checks every key against the
 * context's MRs; here only what the kernel cannot see is checked (the
 * AH's context, the QP's inline limit).
 *
 * As with rdma-core's providers, *bad_wr names the first work request
 * not posted; the ones before it were. A list the kernel refuses as a
 * whole (it checks a call's requests before posting any) fails at its
 * first request.
 *
 * The same requests also go into the slots of a submission ring (wr_ring.c
 * decides when), marshalled by the same code: a slot holds one request,
 * its entries and, for an inline send, its data, which is copied into the
 * slot here as a provider copies it into its queue.
 */
#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "ibasync.h"

#define LIST_WRS	32
#define LIST_SGES	256

#define SEND_FLAGS_OK	(IBV_SEND_FENCE | IBV_SEND_SIGNALED |		\
			 IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/* The same bits, as the uAPI promises. */
_Static_assert(IBV_SEND_FENCE == IB_ASYNC_SEND_FENCE &&
	       IBV_SEND_SIGNALED == IB_ASYNC_SEND_SIGNALED &&
	       IBV_SEND_SOLICITED == IB_ASYNC_SEND_SOLICITED &&
	       IBV_SEND_INLINE == IB_ASYNC_SEND_INLINE, "send flags");

static int fill_send(struct ibv_qp *qp, const struct ibv_send_wr *wr,
		     struct ib_async_send_wr *k)
{
	size_t inl = 0;
	int i;

	memset(k, 0, sizeof(*k));
	if (wr->num_sge < 0 || wr->num_sge > LIST_SGES ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	if (wr->send_flags & ~(unsigned int)SEND_FLAGS_OK)
		return EOPNOTSUPP;	/* checksum offload */
	k->wr_id = wr->wr_id;
	k->num_sge = (uint32_t)wr->num_sge;
	k->opcode = wr->opcode;
	k->send_flags = wr->send_flags;
	switch (wr->opcode) {
	case IBV_WR_SEND:
		break;
	case IBV_WR_SEND_WITH_IMM:
		k->imm_data = wr->imm_data;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		k->imm_data = wr->imm_data;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		k->remote_addr = wr->wr.rdma.remote_addr;
		k->rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		k->swap = wr->wr.atomic.swap;
		/* fall through */
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		/* the kernel takes only the fields an opcode uses */
		k->remote_addr = wr->wr.atomic.remote_addr;
		k->rkey = wr->wr.atomic.rkey;
		k->compare_add = wr->wr.atomic.compare_add;
		break;
	default:
		return EOPNOTSUPP;	/* invalidation, windows, TSO */
	}
	if (qp->qp_type == IBV_QPT_UD) {
		const struct ibv_ah *ah = wr->wr.ud.ah;

		if (!ah || ah->context != qp->context)
			return EINVAL;
		k->ah_handle = ah->handle;
		k->remote_qpn = wr->wr.ud.remote_qpn;
		k->remote_qkey = wr->wr.ud.remote_qkey;
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++)
			inl += wr->sg_list[i].length;
		if (inl > to_ibasync_qp(qp)->cap.max_inline_data)
			return EINVAL;
	}
	return 0;
}

static void fill_sges(const struct ibv_sge *sg, int n, struct ib_async_sge *k)
{
	int i;

	for (i = 0; i < n; i++) {
		k[i].addr = sg[i].addr;
		k[i].length = sg[i].length;
		k[i].lkey = sg[i].lkey;
	}
}

/*
 * @n requests of @wr_size bytes at @wrs, their @ns entries at @sges, to
 * the QP or SRQ: 0 if the kernel took all; else the errno, with *@posted
 * how many it took.
 */
static int post_list(struct ibv_context *ctx, bool send, uint32_t obj_type,
		     uint32_t handle, const void *wrs, uint32_t n,
		     uint32_t wr_size, const struct ib_async_sge *sges,
		     uint32_t ns, uint32_t *posted)
{
	struct ib_async_post_list arg = {
		.obj_type = obj_type, .handle = handle,
		.count = n, .wr_size = wr_size, .wrs = (uintptr_t)wrs,
		.sges = (uintptr_t)sges, .num_sges = ns,
	};
	int err;

	*posted = 0;
	err = send ? IBASYNC_CTX_CMD(ctx, POST_SEND_LIST, &arg) :
		     IBASYNC_CTX_CMD(ctx, POST_RECV_LIST, &arg);
	if (err)
		return err;
	*posted = arg.posted;
	return arg.posted < n ? (int)arg.error : 0;
}

int ibasync_cmd_post_send_list(struct ibv_qp *qp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr)
{
	struct ib_async_send_wr k[LIST_WRS];
	struct ib_async_sge s[LIST_SGES];
	struct ibv_send_wr *first;
	uint32_t n, ns, posted;
	int err = 0, perr;

	while (wr && !err) {
		first = wr;
		n = 0;
		ns = 0;
		for (; wr && n < LIST_WRS; wr = wr->next, n++) {
			err = fill_send(qp, wr, &k[n]);
			if (err || ns + k[n].num_sge > LIST_SGES)
				break;
			fill_sges(wr->sg_list, wr->num_sge, &s[ns]);
			ns += k[n].num_sge;
		}
		if (!n)
			break;
		perr = post_list(qp->context, true, IB_ASYNC_OBJ_QP,
					     qp->handle, k, n, sizeof(k[0]),
					     s, ns, &posted);
		if (perr) {
			for (wr = first; posted--; wr = wr->next)
				;
			err = perr;
		}
	}
	if (err) {
		*bad_wr = wr;
		return ibasync_err(err);
	}
	return 0;
}

static int post_recvs(struct ibv_context *ctx, uint32_t obj_type,
		      uint32_t handle, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct ib_async_recv_wr k[LIST_WRS];
	struct ib_async_sge s[LIST_SGES];
	struct ibv_recv_wr *first;
	uint32_t n, ns, posted;
	int err = 0, perr;

	while (wr && !err) {
		first = wr;
		n = 0;
		ns = 0;
		for (; wr && n < LIST_WRS; wr = wr->next, n++) {
			if (wr->num_sge < 0 || wr->num_sge > LIST_SGES ||
			    (wr->num_sge && !wr->sg_list)) {
				err = EINVAL;
				break;
			}
			if (ns + (uint32_t)wr->num_sge > LIST_SGES)
				break;
			k[n] = (struct ib_async_recv_wr){
				.wr_id = wr->wr_id,
				.num_sge = (uint32_t)wr->num_sge,
			};
			fill_sges(wr->sg_list, wr->num_sge, &s[ns]);
			ns += k[n].num_sge;
		}
		if (!n)
			break;
		perr = post_list(ctx, false, obj_type, handle, k, n,
					     sizeof(k[0]), s, ns, &posted);
		if (perr) {
			for (wr = first; posted--; wr = wr->next)
				;
			err = perr;
		}
	}
	if (err) {
		*bad_wr = wr;
		return ibasync_err(err);
	}
	return 0;
}

int ibasync_cmd_post_recv_list(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	return post_recvs(qp->context, IB_ASYNC_OBJ_QP, qp->handle, wr, bad_wr);
}

int ibasync_cmd_post_srq_recv_list(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	return post_recvs(srq->context, IB_ASYNC_OBJ_SRQ, srq->handle, wr,
			  bad_wr);
}

/*
 * Send @wr into slot @i of @r: its request, its entries, and for an inline
 * send its data in the slot, the entries' lengths saying how it is cut.
 * More entries than a slot holds is EINVAL, as providers refuse more than
 * max_send_sge.
 */
int ibasync_cmd_ring_send(struct ibv_qp *qp, const struct ibasync_wr_ring *r,
			  uint32_t i, const struct ibv_send_wr *wr)
{
	unsigned char *slot = ibasync_wr_slot(r, i);
	struct ib_async_sge *sg = (void *)(slot + sizeof(struct ib_async_send_wr));
	struct ib_async_send_wr k;
	size_t off = 0;
	int err, j;

	err = fill_send(qp, wr, &k);
	if (err)
		return ibasync_err(err);
	if (k.num_sge > r->max_sge)
		return ibasync_err(EINVAL);
	if (wr->send_flags & IBV_SEND_INLINE) {
		for (j = 0; j < wr->num_sge; j++) {
			if (wr->sg_list[j].length > r->max_inline - off)
				return ibasync_err(EINVAL);
			memcpy(slot + r->inline_offset + off,
			       (const void *)(uintptr_t)wr->sg_list[j].addr,
			       wr->sg_list[j].length);
			sg[j] = (struct ib_async_sge){
				.length = wr->sg_list[j].length,
			};
			off += wr->sg_list[j].length;
		}
	} else {
		fill_sges(wr->sg_list, wr->num_sge, sg);
	}
	memcpy(slot, &k, sizeof(k));
	return 0;
}

int ibasync_cmd_ring_recv(const struct ibasync_wr_ring *r, uint32_t i,
			  const struct ibv_recv_wr *wr)
{
	unsigned char *slot = ibasync_wr_slot(r, i);
	struct ib_async_recv_wr k = {
		.wr_id = wr->wr_id, .num_sge = (uint32_t)wr->num_sge,
	};

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > r->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return ibasync_err(EINVAL);
	fill_sges(wr->sg_list, wr->num_sge,
		  (void *)(slot + sizeof(struct ib_async_recv_wr)));
	memcpy(slot, &k, sizeof(k));
	return 0;
}

int ibasync_cmd_wr_doorbell(struct ibv_context *ctx, uint64_t doorbell)
{
	/* the value itself is the argument: nothing to copy either way */
	return ibasync_cmd_ioctl(ctx->cmd_fd, IB_ASYNC_IOC_WR_DOORBELL,
				 (void *)(uintptr_t)doorbell);
}

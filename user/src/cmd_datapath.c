// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path's commands (cmd.h): posts, one at a time through the
 * kernel's buffers or as lists over the kernel's MRs, polls, and the
 * poller that takes both into the kernel.
 */
#include <string.h>
#include <sys/mman.h>

#include "cmd.h"

int ibasync_cmd_post_send(struct ibv_qp *qp, const struct ibv_send_wr *wr,
			  uint64_t addr, uint32_t length)
{
	struct ib_async_post_send arg = {
		.handle = qp->handle, .opcode = IB_UVERBS_WR_SEND,
		.wr_id = wr->wr_id, .addr = addr, .length = length,
	};

	if (wr->opcode == IBV_WR_SEND_WITH_IMM) {
		arg.opcode = IB_UVERBS_WR_SEND_WITH_IMM;
		arg.imm_data = wr->imm_data;
	}
	if (wr->send_flags & IBV_SEND_SIGNALED)
		arg.send_flags = IB_ASYNC_SEND_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		arg.send_flags |= IB_ASYNC_SEND_SOLICITED;
	if (qp->qp_type == IBV_QPT_UD) {
		arg.ah_handle = wr->wr.ud.ah->handle;
		arg.remote_qpn = wr->wr.ud.remote_qpn;
		arg.remote_qkey = wr->wr.ud.remote_qkey;
	}
	return IBASYNC_CTX_CMD(qp->context, POST_SEND, &arg);
}

int ibasync_cmd_post_recv(struct ibv_context *ctx, uint32_t obj_type,
			  uint32_t handle, uint64_t wr_id, uint64_t addr,
			  uint32_t length)
{
	struct ib_async_post_recv arg = {
		.obj_type = obj_type, .handle = handle, .wr_id = wr_id,
		.addr = addr, .length = length,
	};

	return IBASYNC_CTX_CMD(ctx, POST_RECV, &arg);
}

int ibasync_cmd_poll_cq(struct ibv_context *ctx, uint32_t handle,
			struct ib_async_wc *wc, uint32_t *count)
{
	struct ib_async_poll_cq arg = {
		.handle = handle, .wc = (uintptr_t)wc, .count = *count,
	};
	int err;

	err = IBASYNC_CTX_CMD(ctx, POLL_CQ, &arg);
	if (!err)
		*count = arg.count;
	return err;
}

int ibasync_cmd_map_cq_ring(struct ibv_cq *cq, struct ib_async_map_cq_ring *m)
{
	memset(m, 0, sizeof(*m));
	m->handle = cq->handle;
	return IBASYNC_CTX_CMD(cq->context, MAP_CQ_RING, m);
}

void *ibasync_cmd_mmap_cq_ring(struct ibv_cq *cq, uint64_t offset,
			       size_t size, bool writable)
{
	void *p = mmap(NULL, size, writable ? PROT_READ | PROT_WRITE :
					      PROT_READ,
		       MAP_SHARED, cq->context->cmd_fd, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

int ibasync_cmd_map_wr_ring(struct ibv_context *ctx, uint32_t obj_type,
			    uint32_t handle, uint32_t kind, uint32_t entries,
			    struct ib_async_map_wr_ring *m)
{
	memset(m, 0, sizeof(*m));
	m->obj_type = obj_type;
	m->handle = handle;
	m->kind = kind;
	m->entries = entries;
	return IBASYNC_CTX_CMD(ctx, MAP_WR_RING, m);
}

void *ibasync_cmd_mmap_wr_ring(struct ibv_context *ctx, uint64_t offset,
			       size_t size, bool writable)
{
	void *p = mmap(NULL, size, writable ? PROT_READ | PROT_WRITE :
					      PROT_READ,
		       MAP_SHARED, ctx->cmd_fd, (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

int ibasync_cmd_cq_wait(struct ibv_cq *cq, uint32_t spin_us,
			uint32_t *ring_flags)
{
	struct ib_async_cq_wait arg = {
		.handle = cq->handle, .spin_us = spin_us,
	};
	int err;

	err = IBASYNC_CTX_CMD(cq->context, CQ_WAIT, &arg);
	*ring_flags = err ? 0 : arg.ring_flags;
	return err;
}

int ibasync_cmd_poller(struct ibv_context *ctx, uint32_t flags,
		       uint32_t idle_us)
{
	struct ib_async_poller arg = { .flags = flags, .idle_us = idle_us };

	return IBASYNC_CTX_CMD(ctx, POLLER, &arg);
}

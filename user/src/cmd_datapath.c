// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path's commands (cmd.h): posts, one at a time through the
 * kernel's buffers or as lists over the kernel's MRs, and polls.
 */
#include "cmd.h"

int ibasync_cmd_post_send(struct ibv_context *ctx,
			  struct ib_async_post_send *arg)
{
	return IBASYNC_CTX_CMD(ctx, POST_SEND, arg);
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

int ibasync_cmd_post_list(struct ibv_context *ctx, bool send,
			  uint32_t obj_type, uint32_t handle, const void *wrs,
			  uint32_t n, uint32_t wr_size,
			  const struct ib_async_sge *sges, uint32_t ns,
			  uint32_t *posted)
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

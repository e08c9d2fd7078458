// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs half of the command layer (cmd.h): objects, queries and the
 * data path, each on the node of the context the object belongs to.
 */
#include "cmd.h"

/* One command on the context's node, its argument's argsz filled in. */
#define CTX_CMD(ctx, nr, arg)						\
	((arg)->argsz = sizeof(*(arg)),					\
	 ibasync_cmd_ioctl((ctx)->cmd_fd, IB_ASYNC_IOC_##nr, (arg)))

int ibasync_cmd_create_pd(struct ibv_context *ctx,
			  struct ib_async_create_pd *arg)
{
	return CTX_CMD(ctx, CREATE_PD, arg);
}

int ibasync_cmd_create_cq(struct ibv_context *ctx,
			  struct ib_async_create_cq *arg)
{
	return CTX_CMD(ctx, CREATE_CQ, arg);
}

int ibasync_cmd_resize_cq(struct ibv_context *ctx,
			  struct ib_async_resize_cq *arg)
{
	return CTX_CMD(ctx, RESIZE_CQ, arg);
}

int ibasync_cmd_req_notify_cq(struct ibv_context *ctx,
			      struct ib_async_req_notify_cq *arg)
{
	return CTX_CMD(ctx, REQ_NOTIFY_CQ, arg);
}

int ibasync_cmd_create_qp(struct ibv_context *ctx,
			  struct ib_async_create_qp *arg)
{
	return CTX_CMD(ctx, CREATE_QP, arg);
}

int ibasync_cmd_modify_qp(struct ibv_context *ctx, struct ib_async_qp_attr *arg)
{
	return CTX_CMD(ctx, MODIFY_QP, arg);
}

int ibasync_cmd_query_qp(struct ibv_context *ctx, struct ib_async_qp_attr *arg)
{
	return CTX_CMD(ctx, QUERY_QP, arg);
}

int ibasync_cmd_create_srq(struct ibv_context *ctx,
			   struct ib_async_create_srq *arg)
{
	return CTX_CMD(ctx, CREATE_SRQ, arg);
}

int ibasync_cmd_modify_srq(struct ibv_context *ctx,
			   struct ib_async_srq_attr *arg)
{
	return CTX_CMD(ctx, MODIFY_SRQ, arg);
}

int ibasync_cmd_query_srq(struct ibv_context *ctx,
			  struct ib_async_srq_attr *arg)
{
	return CTX_CMD(ctx, QUERY_SRQ, arg);
}

int ibasync_cmd_create_wq(struct ibv_context *ctx,
			  struct ib_async_create_wq *arg)
{
	return CTX_CMD(ctx, CREATE_WQ, arg);
}

int ibasync_cmd_modify_wq(struct ibv_context *ctx,
			  struct ib_async_modify_wq *arg)
{
	return CTX_CMD(ctx, MODIFY_WQ, arg);
}

int ibasync_cmd_create_ah(struct ibv_context *ctx,
			  struct ib_async_create_ah *arg)
{
	return CTX_CMD(ctx, CREATE_AH, arg);
}

int ibasync_cmd_reg_mr(struct ibv_context *ctx, struct ib_async_reg_mr *arg)
{
	return CTX_CMD(ctx, REG_MR, arg);
}

int ibasync_cmd_destroy(int fd, struct ib_async_destroy *arg)
{
	arg->argsz = sizeof(*arg);
	return ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_DESTROY, arg);
}

int ibasync_cmd_query_device(int fd, struct ib_async_device_attr *arg)
{
	arg->argsz = sizeof(*arg);
	return ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_QUERY_DEVICE, arg);
}

int ibasync_cmd_query_port(struct ibv_context *ctx,
			   struct ib_async_port_attr *arg)
{
	return CTX_CMD(ctx, QUERY_PORT, arg);
}

int ibasync_cmd_query_gid(struct ibv_context *ctx,
			  struct ib_async_query_gid *arg)
{
	return CTX_CMD(ctx, QUERY_GID, arg);
}

int ibasync_cmd_query_pkey(struct ibv_context *ctx,
			   struct ib_async_query_pkey *arg)
{
	return CTX_CMD(ctx, QUERY_PKEY, arg);
}

int ibasync_cmd_post_send(struct ibv_context *ctx,
			  struct ib_async_post_send *arg)
{
	return CTX_CMD(ctx, POST_SEND, arg);
}

int ibasync_cmd_post_recv(struct ibv_context *ctx,
			  struct ib_async_post_recv *arg)
{
	return CTX_CMD(ctx, POST_RECV, arg);
}

int ibasync_cmd_poll_cq(struct ibv_context *ctx, struct ib_async_poll_cq *arg)
{
	return CTX_CMD(ctx, POLL_CQ, arg);
}

int ibasync_cmd_post_list(struct ibv_context *ctx, bool send,
			  struct ib_async_post_list *arg)
{
	return send ? CTX_CMD(ctx, POST_SEND_LIST, arg) :
		      CTX_CMD(ctx, POST_RECV_LIST, arg);
}

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The command layer: the only code of the library that speaks the kernel
 * ABI of <rdma/ib_async.h>. Each call issues one command, an ioctl() on
 * the device's node or on a channel, or the mmap() of a ring, and fills
 * in the argument's argsz, the one field whose value is the ABI's and
 * never the caller's. The rest of the library implements ibv_* and
 * ibasync_* on these calls, as rdma-core's verbs.c does on its cmd_*.c.
 *
 * The two halves follow the header's: cmd_event.c the event ABI (queues,
 * channels, subscriptions, rings), cmd_verbs.c the verbs ABI (objects,
 * queries, data path).
 *
 * Every int function returns 0 or, failing, the errno value, with errno
 * set to it as well: a caller tests for non-zero and uses either.
 */
#ifndef IBASYNC_CMD_H
#define IBASYNC_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ib_async.h>

/* ---- event ABI (cmd_event.c): @fd is the node or a channel -------------- */

int ibasync_cmd_get_info(int fd, struct ib_async_info *info);
int ibasync_cmd_set_queue_len(int fd, uint32_t queue_len);
/* @count: in, the records @buf holds; out, how many the kernel wrote */
int ibasync_cmd_read_batch(int fd, uint32_t flags, uint64_t consume_seq,
			   void *buf, uint32_t *count);
int ibasync_cmd_create_channel(int fd, uint32_t type, uint32_t flags,
			       int *chan_fd);
int ibasync_cmd_subscribe(int fd, struct ib_async_subscribe *arg);
int ibasync_cmd_unsubscribe(int fd, int chan_fd, uint32_t sub_id);
int ibasync_cmd_map_ring(int fd, uint32_t entries,
			 struct ib_async_map_ring *m);
/* The ring MAP_RING described: its address, or NULL (errno set). */
void *ibasync_cmd_mmap_ring(int fd, uint64_t offset, size_t size);
void ibasync_cmd_munmap_ring(void *p, size_t size);
int ibasync_cmd_ring_wait(int fd, uint32_t flags, uint32_t *available);

/* ---- verbs ABI (cmd_verbs.c): on the context's node --------------------- */

int ibasync_cmd_create_pd(struct ibv_context *ctx,
			  struct ib_async_create_pd *arg);
int ibasync_cmd_create_cq(struct ibv_context *ctx,
			  struct ib_async_create_cq *arg);
int ibasync_cmd_resize_cq(struct ibv_context *ctx,
			  struct ib_async_resize_cq *arg);
int ibasync_cmd_req_notify_cq(struct ibv_context *ctx,
			      struct ib_async_req_notify_cq *arg);
int ibasync_cmd_create_qp(struct ibv_context *ctx,
			  struct ib_async_create_qp *arg);
int ibasync_cmd_modify_qp(struct ibv_context *ctx,
			  struct ib_async_qp_attr *arg);
int ibasync_cmd_query_qp(struct ibv_context *ctx,
			 struct ib_async_qp_attr *arg);
int ibasync_cmd_create_srq(struct ibv_context *ctx,
			   struct ib_async_create_srq *arg);
int ibasync_cmd_modify_srq(struct ibv_context *ctx,
			   struct ib_async_srq_attr *arg);
int ibasync_cmd_query_srq(struct ibv_context *ctx,
			  struct ib_async_srq_attr *arg);
int ibasync_cmd_create_wq(struct ibv_context *ctx,
			  struct ib_async_create_wq *arg);
int ibasync_cmd_modify_wq(struct ibv_context *ctx,
			  struct ib_async_modify_wq *arg);
int ibasync_cmd_create_ah(struct ibv_context *ctx,
			  struct ib_async_create_ah *arg);
int ibasync_cmd_reg_mr(struct ibv_context *ctx, struct ib_async_reg_mr *arg);
/* @fd: the context's node (cmd_fd) */
int ibasync_cmd_destroy(int fd, struct ib_async_destroy *arg);

int ibasync_cmd_query_device(int fd, struct ib_async_device_attr *arg);
int ibasync_cmd_query_port(struct ibv_context *ctx,
			   struct ib_async_port_attr *arg);
int ibasync_cmd_query_gid(struct ibv_context *ctx,
			  struct ib_async_query_gid *arg);
int ibasync_cmd_query_pkey(struct ibv_context *ctx,
			   struct ib_async_query_pkey *arg);

int ibasync_cmd_post_send(struct ibv_context *ctx,
			  struct ib_async_post_send *arg);
int ibasync_cmd_post_recv(struct ibv_context *ctx,
			  struct ib_async_post_recv *arg);
/* IB_ASYNC_IOC_POST_SEND_LIST if @send, else IB_ASYNC_IOC_POST_RECV_LIST */
int ibasync_cmd_post_list(struct ibv_context *ctx, bool send,
			  struct ib_async_post_list *arg);
int ibasync_cmd_poll_cq(struct ibv_context *ctx,
			struct ib_async_poll_cq *arg);

/* The raw call the cmd_*.c files share, and nobody else issues. */
int ibasync_cmd_ioctl(int fd, unsigned long cmd, void *arg);

#endif /* IBASYNC_CMD_H */

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The command layer: the only code of the library that speaks the kernel
 * ABI of <rdma/ib_async.h>. Each call issues one command, an ioctl() on
 * the device's node or on a channel, or the mmap() of a ring, and fills
 * in the argument's argsz, the one field whose value is the ABI's and
 * never the caller's. The rest of the library implements ibv_* and
 * ibasync_* on these calls, as rdma-core's verbs.c does on its cmd_*.c.
 *
 * The files follow the header's two halves: cmd_event.c the event ABI
 * (queues, channels, subscriptions, rings); cmd_objects.c, cmd_query.c
 * and cmd_datapath.c the verbs ABI (objects, queries, data path).
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
#include <infiniband/ib_async.h>
#include <rdma/ib_async.h>

struct ibasync_wr_ring;

/* ---- event ABI (cmd_event.c): @fd is the node or a channel -------------- */

int ibasync_cmd_get_info(int fd, struct ib_async_info *info);
int ibasync_cmd_set_queue_len(int fd, uint32_t queue_len);
/* @count: in, the records @buf holds; out, how many the kernel wrote */
int ibasync_cmd_read_batch(int fd, uint32_t flags, uint64_t consume_seq,
			   void *buf, uint32_t *count);
/*
 * One read() of whole records of @rec_size bytes. @count: in, the
 * records @buf holds; out, how many the kernel wrote. A short or empty
 * read, which the ABI rules out, is EIO.
 */
int ibasync_cmd_read(int fd, void *buf, size_t rec_size, uint32_t *count);
int ibasync_cmd_create_channel(int fd, uint32_t type, uint32_t flags,
			       int *chan_fd);
/* @sub, checked, for channel @chan_fd; @obj_handle: its object's, or 0 */
int ibasync_cmd_subscribe(int fd, int chan_fd,
			  const struct ibasync_subscription *sub,
			  uint32_t obj_handle, uint32_t *sub_id);
int ibasync_cmd_unsubscribe(int fd, int chan_fd, uint32_t sub_id);
int ibasync_cmd_map_ring(int fd, uint32_t entries,
			 struct ib_async_map_ring *m);
/* The ring MAP_RING described: its address, or NULL (errno set). */
void *ibasync_cmd_mmap_ring(int fd, uint64_t offset, size_t size);
void ibasync_cmd_munmap_ring(void *p, size_t size);
int ibasync_cmd_ring_wait(int fd, uint32_t flags, uint32_t *available);

/*
 * ---- verbs ABI: objects (cmd_objects.c) ---------------------------------
 * Each takes the verbs call's own arguments, and on success writes the
 * kernel's answer into the object (handle, granted sizes, keys) and into
 * the caller's attributes, as rdma-core's ibv_cmd_*() do.
 */

int ibasync_cmd_create_pd(struct ibv_context *ctx, uint32_t *handle);
/* @comp_fd: the completion channel's descriptor, or -1 for none */
int ibasync_cmd_create_cq(struct ibv_context *ctx, struct ibv_cq *cq,
			  uint32_t cqe, uint32_t comp_vector, int comp_fd);
int ibasync_cmd_resize_cq(struct ibv_cq *cq, uint32_t cqe);
int ibasync_cmd_req_notify_cq(struct ibv_cq *cq, bool solicited);
int ibasync_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
			  struct ibv_qp_init_attr *attr);
int ibasync_cmd_modify_qp(struct ibv_qp *qp, const struct ibv_qp_attr *attr,
			  int attr_mask);
/* All of @attr but what the kernel does not keep (the init attributes). */
int ibasync_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr);
int ibasync_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
			   struct ibv_srq_init_attr *attr);
int ibasync_cmd_modify_srq(struct ibv_srq *srq,
			   const struct ibv_srq_attr *attr, int attr_mask);
int ibasync_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int ibasync_cmd_create_wq(struct ibv_context *ctx, struct ibv_wq *wq,
			  struct ibv_wq_init_attr *attr);
int ibasync_cmd_modify_wq(struct ibv_wq *wq, const struct ibv_wq_attr *attr);
int ibasync_cmd_create_ah(struct ibv_pd *pd, const struct ibv_ah_attr *attr,
			  uint32_t *handle);
int ibasync_cmd_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid, bool attach);
int ibasync_cmd_reg_mr(struct ibv_pd *pd, struct ibv_mr *mr, void *addr,
		       size_t length, uint64_t iova, unsigned int access);
/* @fd: the context's node; @comp_reported may be NULL (not a CQ) */
int ibasync_cmd_destroy(int fd, uint32_t obj_type, uint32_t handle,
			uint64_t *reported, uint64_t *comp_reported);

/* ---- verbs ABI: queries (cmd_query.c) ---------------------------------- */

/* Any of @attr, @cap_flags (all 64 bits), @num_comp_vectors may be NULL. */
int ibasync_cmd_query_device(int fd, struct ibv_device_attr *attr,
			     uint64_t *cap_flags, uint32_t *num_comp_vectors);
/* @speed: the port's speed in full, where ibv_port_attr has 8 bits */
int ibasync_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
			   struct ibv_port_attr *attr, uint32_t *speed);
int ibasync_cmd_query_gid(struct ibv_context *ctx, uint32_t port_num,
			  uint32_t index, union ibv_gid *gid,
			  uint32_t *gid_type);
int ibasync_cmd_query_pkey(struct ibv_context *ctx, uint32_t port_num,
			   uint32_t index, uint16_t *pkey);

/*
 * ---- verbs ABI: data path (cmd_datapath.c) ------------------------------
 * Work completions come back in the kernel's own records (struct
 * ib_async_wc), as events do, for the callers to read.
 */

/*
 * One SEND or SEND_WITH_IMM through the kernel's buffers (the callers
 * post no other opcode there, and have checked a UD request's AH): its
 * message is the @length bytes at @addr.
 */
int ibasync_cmd_post_send(struct ibv_qp *qp, const struct ibv_send_wr *wr,
			  uint64_t addr, uint32_t length);
int ibasync_cmd_post_recv(struct ibv_context *ctx, uint32_t obj_type,
			  uint32_t handle, uint64_t wr_id, uint64_t addr,
			  uint32_t length);
/*
 * Lists of work requests over the kernel's MRs (cmd_post.c, where the
 * node offers IB_ASYNC_FEATURE_USER_MR): as ibv_post_*(), *bad_wr names
 * the first request not posted.
 */
int ibasync_cmd_post_send_list(struct ibv_qp *qp, struct ibv_send_wr *wr,
			       struct ibv_send_wr **bad_wr);
int ibasync_cmd_post_recv_list(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr);
int ibasync_cmd_post_srq_recv_list(struct ibv_srq *srq,
				   struct ibv_recv_wr *wr,
				   struct ibv_recv_wr **bad_wr);
/*
 * Submission rings (cmd_post.c): one request written into a ring's slot
 * as the kernel reads it (0, or EINVAL/EOPNOTSUPP as a list is refused:
 * nothing is written then), and the doorbell, whose argument is the value
 * MAP_WR_RING returned.
 */
int ibasync_cmd_ring_send(struct ibv_qp *qp, const struct ibasync_wr_ring *r,
			  uint32_t i, const struct ibv_send_wr *wr);
int ibasync_cmd_ring_recv(const struct ibasync_wr_ring *r, uint32_t i,
			  const struct ibv_recv_wr *wr);
int ibasync_cmd_wr_doorbell(struct ibv_context *ctx, uint64_t doorbell);
/* @count: in, the records @wc holds; out, how many the kernel wrote */
int ibasync_cmd_poll_cq(struct ibv_context *ctx, uint32_t handle,
			struct ib_async_wc *wc, uint32_t *count);
/* A CQ's completion ring: where to map it, its two mappings, a refill. */
int ibasync_cmd_map_cq_ring(struct ibv_cq *cq, struct ib_async_map_cq_ring *m);
void *ibasync_cmd_mmap_cq_ring(struct ibv_cq *cq, uint64_t offset,
			       size_t size, bool writable);
/* A QP's or SRQ's submission ring: where to map it, its mappings. */
int ibasync_cmd_map_wr_ring(struct ibv_context *ctx, uint32_t obj_type,
			    uint32_t handle, uint32_t kind, uint32_t entries,
			    struct ib_async_map_wr_ring *m);
void *ibasync_cmd_mmap_wr_ring(struct ibv_context *ctx, uint64_t offset,
			       size_t size, bool writable);
/* @ring_flags: out, enum ib_async_cq_ring_flags */
int ibasync_cmd_cq_wait(struct ibv_cq *cq, uint32_t spin_us,
			uint32_t *ring_flags);

/*
 * IB_ASYNC_IOC_POLLER on the context's node: @flags 0 polls (returning
 * only when stopped, or failing), IB_ASYNC_POLLER_STOP stops the poller.
 */
int ibasync_cmd_poller(struct ibv_context *ctx, uint32_t flags,
		       uint32_t idle_us);

/* The raw call the cmd_*.c files share, and nobody else issues. */
int ibasync_cmd_ioctl(int fd, unsigned long cmd, void *arg);

/* One command on the context's node, its argument's argsz filled in. */
#define IBASYNC_CTX_CMD(ctx, nr, arg)					\
	((arg)->argsz = sizeof(*(arg)),					\
	 ibasync_cmd_ioctl((ctx)->cmd_fd, IB_ASYNC_IOC_##nr, (arg)))

#endif /* IBASYNC_CMD_H */

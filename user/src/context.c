// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Opening a device: the ib_async node becomes the context's async_fd and,
 * duplicated, its cmd_fd, through which objects are made.
 *
 * rdma-core's inline verbs call through ctx->ops (the data path, see
 * datapath.c) and, for extended verbs, through struct verbs_context in
 * front of the context. Its ops are set where libibasync implements them
 * (query_port, query_device_ex, create_qp_ex, create_cq_ex, create_srq_ex,
 * the WQ calls) and otherwise to ones that fail as libibverbs' defaults
 * (default_ops.c): never NULL, since some inlines call without looking.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/ib_async_shim.h>

#include "cmd.h"
#include "ibasync.h"

/*
 * IBASYNC_QUEUE_LEN: strict. An unparsable or zero value fails the open
 * with EINVAL instead of being ignored, so a typo cannot silently leave
 * the default queue length in place. The kernel checks the upper bound.
 */
static int apply_env_queue_len(int fd)
{
	const char *env = getenv(IBASYNC_QUEUE_LEN_ENV);
	unsigned long long len;

	if (!env)
		return 0;
	if (ibasync_parse_uint(env, UINT32_MAX, &len) || len == 0) {
		errno = EINVAL;
		return -1;
	}
	return ibasync_cmd_set_queue_len(fd, (uint32_t)len) ? -1 : 0;
}

/*
 * What the node offers (enum ib_async_feature) and its queue length. A
 * node that cannot say (the device is going away) is taken to offer
 * nothing beyond read().
 */
static void node_info(int fd, struct ib_async_info *info)
{
	if (ibasync_cmd_get_info(fd, info))
		info->features = 0;
}

/*
 * The device's completion vectors, the comp_vector range of its CQs, as
 * ib_uverbs tells libibverbs at context creation. Vector 0 exists on
 * every device: a kernel that does not report them (0), or a device that
 * cannot be asked, has that one.
 */
static int node_comp_vectors(int fd)
{
	uint32_t n;

	if (ibasync_cmd_query_device(fd, NULL, NULL, &n) || !n || n > INT_MAX)
		return 1;
	return (int)n;
}

/* The node, its IBASYNC_QUEUE_LEN applied: a descriptor or -1. */
static int open_node(const struct ibasync_device *dev)
{
	int fd = open(dev->node_path, O_RDWR | O_CLOEXEC), err;

	if (fd < 0 || !apply_env_queue_len(fd))
		return fd;
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/*
 * Give the node a ring as large as its queue, so that a queue's worth of
 * events waits in memory the program reads without system calls. Any
 * failure (ENOMEM past RLIMIT_MEMLOCK, a kernel without rings) leaves
 * READ_BATCH in place, except that a file whose MAP_RING succeeded
 * refuses read() and READ_BATCH: if mapping it fails, the node is opened
 * anew, which no program has seen yet. Returns the descriptor to use, or
 * -1 if that reopening failed.
 */
static int map_node_ring(const struct ibasync_device *dev, int fd,
			 struct ib_async_info *info, struct ibasync_ring *r)
{
	struct ib_async_map_ring m;

	if (!(info->features & IB_ASYNC_FEATURE_EVENT_RING) ||
	    !info->queue_len ||
	    ibasync_cmd_map_ring(fd, info->queue_len, &m))
		return fd;
	if (!ibasync_ring_mmap(fd, &m, sizeof(struct ib_async_event), r))
		return fd;
	close(fd);
	fd = open_node(dev);
	if (fd >= 0)
		node_info(fd, info);
	info->features &= ~(uint64_t)IB_ASYNC_FEATURE_EVENT_RING;
	return fd;
}

static void init_context(struct ibasync_context *c, struct ibasync_device *dev,
			 int fd, int cmd_fd, const struct ib_async_info *info)
{
	struct ibv_context *ctx = &c->vctx.context;
	uint64_t features = info->features;

	ctx->device = &dev->device;
	ctx->ops = ibasync_ops;
	ctx->async_fd = fd;
	ctx->cmd_fd = cmd_fd;
	/* programs take a CQ's comp_vector modulo this */
	ctx->num_comp_vectors = node_comp_vectors(fd);
	pthread_mutex_init(&ctx->mutex, NULL);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	/*
	 * Full size, as libibverbs sets it: verbs_get_ctx_op() then finds
	 * every op of the rdma-core a program was built against (one newer
	 * than ours would not find those it added, and fail cleanly).
	 */
	c->vctx.sz = sizeof(c->vctx);
	c->dev = dev;
	c->ev_no_batch = !(features & IB_ASYNC_FEATURE_READ_BATCH);
	/* batches are per process: see leave_batches() (events.c) */
	if (!c->ev_ring.hdr && !c->ev_no_batch)
		ibasync_watch_forks();
	c->user_mr = features & IB_ASYNC_FEATURE_USER_MR;
	c->evchan = features & IB_ASYNC_FEATURE_EVENT_CHANNEL;
	c->cq_ring = c->user_mr && (features & IB_ASYNC_FEATURE_CQ_RING);
	c->wr_ring = c->user_mr && (features & IB_ASYNC_FEATURE_WR_RING);
	c->state = c->evchan && (features & IB_ASYNC_FEATURE_STATE);
	c->ring_ok = features & IB_ASYNC_FEATURE_EVENT_RING;
	atomic_init(&c->lost_events, 0);
	pthread_mutex_init(&c->ev_lock, NULL);
	pthread_mutex_init(&c->dead_lock, NULL);
	ibasync_mr_init(c);
	c->vctx.query_port = ibasync_query_port_ex;
	c->vctx.query_device_ex = ibasync_query_device_ex;
	c->vctx.create_qp_ex = ibasync_create_qp_ex;
	c->vctx.create_cq_ex = ibasync_create_cq_ex;
	c->vctx.create_wq = ibasync_create_wq;
	c->vctx.modify_wq = ibasync_modify_wq;
	c->vctx.destroy_wq = ibasync_destroy_wq;
	c->vctx.create_srq_ex = ibasync_create_srq_ex;
	/* the rest fail as libibverbs' defaults do: see default_ops.c */
	ibasync_set_default_ops(&c->vctx);
}

/*
 * ibv_open_device() and ibasync_open_device(). Without rings (@flags'
 * IBASYNC_OPEN_NO_RING, or IBASYNC_NO_RING in the environment) the node
 * is taken to offer none: neither the context nor its channels map one.
 */
static struct ibv_context *open_device(struct ibv_device *device,
				       unsigned int flags)
{
	struct ibasync_device *dev = to_ibasync_dev(device);
	struct ibasync_chan_list *chans = NULL;
	struct ibasync_ring ring = { 0 };
	struct ib_async_info info;
	struct ibasync_context *c;
	int fd, cmd_fd = -1, err;

	fd = open_node(dev);
	if (fd < 0)
		return NULL;
	node_info(fd, &info);
	if (flags & IBASYNC_OPEN_NO_RING || ibasync_ring_disabled())
		info.features &= ~(uint64_t)IB_ASYNC_FEATURE_EVENT_RING;
	fd = map_node_ring(dev, fd, &info, &ring);
	if (fd < 0)
		return NULL;
	/*
	 * cmd_fd is a second descriptor of the same open file: code that
	 * closes, polls or fcntl()s either one keeps working.
	 */
	cmd_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (cmd_fd < 0)
		goto err;
	chans = ibasync_chan_list_new();
	if (!chans)
		goto err;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto err;
	ibasync_device_get(dev);
	c->ev_ring = ring;
	c->chans = chans;
	init_context(c, dev, fd, cmd_fd, &info);
	/* IBASYNC_POLLER: the context is whole before its thread sees it */
	err = ibasync_poller_start(c, info.features);
	if (err) {
		ibv_close_device(&c->vctx.context);
		errno = err;
		return NULL;
	}
	return &c->vctx.context;
err:
	err = errno;
	if (chans)
		ibasync_chan_list_put(chans);
	ibasync_ring_unmap(&ring);
	if (cmd_fd >= 0)
		close(cmd_fd);
	close(fd);
	errno = err;
	return NULL;
}

IBASYNC_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	return open_device(device, 0);
}

IBASYNC_EXPORT struct ibv_context *ibasync_open_device(struct ibv_device *device,
						       unsigned int flags)
{
	if (!device || flags & ~(unsigned int)IBASYNC_OPEN_NO_RING) {
		errno = EINVAL;
		return NULL;
	}
	return open_device(device, flags);
}

IBASYNC_EXPORT int ibv_close_device(struct ibv_context *context)
{
	struct ibasync_context *c = to_ibasync_ctx(context);

	/* its thread uses the node and the context until joined */
	ibasync_poller_stop(c);
	close(context->cmd_fd);
	close(context->async_fd);
	ibasync_ring_unmap(&c->ev_ring);
	/* channels may outlive the context: the list goes with the last */
	ibasync_chan_list_put(c->chans);
	pthread_mutex_destroy(&context->mutex);
	pthread_mutex_destroy(&c->ev_lock);
	ibasync_free_dead(c);
	pthread_mutex_destroy(&c->dead_lock);
	ibasync_mr_fini(c);
	ibasync_device_put(c->dev);
	free(c);
	return 0;
}

IBASYNC_EXPORT int ibasync_query(struct ibv_context *context,
				 struct ib_async_info *info)
{
	if (!context || !info)
		return ibasync_err(EINVAL);
	return ibasync_cmd_get_info(context->cmd_fd, info);
}

IBASYNC_EXPORT int ibasync_set_queue_len(struct ibv_context *context,
					 unsigned int len)
{
	if (!context || len == 0)
		return ibasync_err(EINVAL);
	return ibasync_cmd_set_queue_len(context->cmd_fd, len);
}

IBASYNC_EXPORT uint64_t ibasync_lost_events(struct ibv_context *context)
{
	return atomic_load(&to_ibasync_ctx(context)->lost_events);
}

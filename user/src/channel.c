// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion channels. Each is a file of its own that ib_async makes on
 * the context's file (IB_ASYNC_IOC_CREATE_CHANNEL); its descriptor is the
 * fd of struct ibv_comp_channel, so programs poll it, make it O_NONBLOCK
 * or hand it to epoll exactly as with libibverbs. A record read from it
 * names the CQ by the user_handle given at creation: the struct ibv_cq.
 *
 * refcnt counts the CQs using the channel, under the context's mutex, as
 * libibverbs keeps it; the kernel keeps its own count too (a channel
 * outlives its CQs there whatever the program does).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "ibasync.h"

IBASYNC_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *channel;
	int err;

	if (!context) {
		errno = EINVAL;
		return NULL;
	}
	channel = calloc(1, sizeof(*channel));
	if (!channel)
		return NULL;
	err = ibasync_cmd_create_channel(context->cmd_fd, IB_ASYNC_CHANNEL_COMP,
					 0, &channel->fd);
	if (err) {
		free(channel);
		errno = err;
		return NULL;
	}
	channel->context = context;
	channel->refcnt = 0;
	return channel;
}

IBASYNC_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context = channel->context;
	int busy;

	pthread_mutex_lock(&context->mutex);
	busy = channel->refcnt;
	pthread_mutex_unlock(&context->mutex);
	if (busy)
		return ibasync_err(EBUSY);
	close(channel->fd);
	free(channel);
	return 0;
}

/*
 * A channel's queue holds one record per CQ, so the kernel refuses a CQ
 * more than its length (ENOSPC): double the length, within the module's
 * ceiling, and let the caller try again.
 */
static int grow_channel(struct ibv_comp_channel *channel)
{
	struct ib_async_info info;
	int err;

	err = ibasync_cmd_get_info(channel->fd, &info);
	if (err)
		return err;
	if (info.queue_len >= info.max_queue_len)
		return ENOSPC;
	return ibasync_cmd_set_queue_len(channel->fd,
					 info.queue_len * 2 < info.max_queue_len ?
					 info.queue_len * 2 :
					 info.max_queue_len);
}

/* Create @cq with @channel; 0 or an errno value (errno set). */
int ibasync_channel_attach(struct ibv_comp_channel *channel,
			   struct ibv_context *context, struct ibv_cq *cq,
			   uint32_t cqe, uint32_t comp_vector)
{
	int err;

	/* a channel of another context: the kernel would say EINVAL too */
	if (channel->context != context)
		return ibasync_err(EINVAL);
	pthread_mutex_lock(&context->mutex);
	do {
		err = ibasync_cmd_create_cq(context, cq, cqe, comp_vector,
					    channel->fd);
	} while (err == ENOSPC && !grow_channel(channel));
	if (!err)
		channel->refcnt++;
	pthread_mutex_unlock(&context->mutex);
	return err ? ibasync_err(err) : 0;
}

void ibasync_channel_detach(struct ibv_comp_channel *channel)
{
	pthread_mutex_lock(&channel->context->mutex);
	channel->refcnt--;
	pthread_mutex_unlock(&channel->context->mutex);
}

/*
 * One record per call: read() consumes it, and only consumed records
 * count in the comp_events_reported that ibv_destroy_cq() waits for. The
 * descriptor's own O_NONBLOCK decides whether this blocks (EAGAIN). A
 * closed context or a removed device ends the stream: -1 with EIO or
 * ENODEV once what was queued has been read. An overflow record would
 * mean lost events, which a channel the library sized never has: EIO.
 */
IBASYNC_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
				    struct ibv_cq **cq, void **cq_context)
{
	struct ib_async_event rec;
	ssize_t n;

	n = read(channel->fd, &rec, sizeof(rec));
	if (n < 0)
		return -1;
	if (n != sizeof(rec) || rec.event_type != IB_ASYNC_EV_COMP) {
		errno = EIO;
		return -1;
	}
	*cq = (struct ibv_cq *)(uintptr_t)rec.element;
	*cq_context = (*cq)->cq_context;
	return 0;
}

IBASYNC_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event channels (<infiniband/ib_async.h>). Each is a file the kernel
 * makes on the context's file (IB_ASYNC_IOC_CREATE_CHANNEL of type
 * IB_ASYNC_CHANNEL_EVENT) and fills with the context's async events that
 * its subscriptions match. Subscriptions are requests to the context's
 * file naming the channel by descriptor, and objects by the handle the
 * kernel gave them, which the rdma-core object keeps in its handle field.
 *
 * Records are consumed as they are read, one READ_BATCH per call: unlike
 * the context's own queue, nothing waits for them to be acknowledged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <infiniband/ib_async.h>

#include "ibasync.h"

#define CHANNEL_FLAGS	(IBASYNC_CHANNEL_NONBLOCK | IBASYNC_CHANNEL_COALESCE)
#define SUB_FLAGS	(IBASYNC_SUB_TYPES | IBASYNC_SUB_PORT | \
			 IBASYNC_SUB_OBJECT)
#define SUB_TYPE_BITS	(IBASYNC_EVENT_TYPE_BIT(IBASYNC_EVENT_TYPE_MAX + 1) - 1)

/* The public names are the uAPI's, so that they can be passed on as is. */
_Static_assert(IBASYNC_EVENT_TYPE_MAX == IB_ASYNC_EV_DEVICE_SPEED_CHANGE,
	       "subscribable types are the kernel's");
_Static_assert((int)IBASYNC_SUB_TYPES == (int)IB_ASYNC_SUB_TYPES &&
	       (int)IBASYNC_SUB_PORT == (int)IB_ASYNC_SUB_PORT &&
	       (int)IBASYNC_SUB_OBJECT == (int)IB_ASYNC_SUB_OBJECT,
	       "subscription flags are the uAPI's");
/*
 * ibasync_get_events() has the kernel write its records into the
 * caller's array, then turns them into public ones in place, last first:
 * that needs a public record at least as large as the kernel's.
 */
_Static_assert(sizeof(struct ibasync_event) >=
	       sizeof(struct ib_async_chan_event),
	       "public records hold the kernel's in place");
_Static_assert(sizeof(((struct ibasync_event *)0)->element) ==
	       sizeof(((struct ibv_async_event *)0)->element),
	       "element as struct ibv_async_event has it");

IBASYNC_EXPORT struct ibasync_channel *
ibasync_create_channel(struct ibv_context *context, unsigned int flags)
{
	struct ib_async_create_channel arg = {
		.argsz = sizeof(arg), .type = IB_ASYNC_CHANNEL_EVENT,
	};
	struct ibasync_channel *ch;
	int err;

	if (!context || flags & ~CHANNEL_FLAGS) {
		errno = EINVAL;
		return NULL;
	}
	if (!to_ibasync_ctx(context)->evchan) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (flags & IBASYNC_CHANNEL_NONBLOCK)
		arg.flags |= IB_ASYNC_CHANNEL_NONBLOCK;
	if (flags & IBASYNC_CHANNEL_COALESCE)
		arg.flags |= IB_ASYNC_CHANNEL_COALESCE;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	err = ibasync_ioctl(context, IB_ASYNC_IOC_CREATE_CHANNEL, &arg);
	if (err) {
		free(ch);
		errno = err;
		return NULL;
	}
	ch->context = context;
	ch->fd = arg.fd;
	return ch;
}

/*
 * Closing the descriptor ends the channel and its subscriptions; records
 * not read are gone with it.
 */
IBASYNC_EXPORT int ibasync_destroy_channel(struct ibasync_channel *channel)
{
	if (!channel)
		return ibasync_err(EINVAL);
	close(channel->fd);
	free(channel);
	return 0;
}

IBASYNC_EXPORT int ibasync_channel_fd(const struct ibasync_channel *channel)
{
	if (!channel) {
		errno = EINVAL;
		return -1;
	}
	return channel->fd;
}

/*
 * The kernel handle of the object @sub names, which must belong to the
 * channel's context: 0 or an errno value.
 */
static int sub_object(const struct ibasync_channel *ch,
		      const struct ibasync_subscription *sub, uint32_t *handle)
{
	struct ibv_context *owner;

	switch (sub->object_type) {
	case IBASYNC_OBJECT_CQ:
		if (!sub->object.cq)
			return EINVAL;
		owner = sub->object.cq->context;
		*handle = sub->object.cq->handle;
		break;
	case IBASYNC_OBJECT_QP:
		if (!sub->object.qp)
			return EINVAL;
		owner = sub->object.qp->context;
		*handle = sub->object.qp->handle;
		break;
	case IBASYNC_OBJECT_SRQ:
		if (!sub->object.srq)
			return EINVAL;
		owner = sub->object.srq->context;
		*handle = sub->object.srq->handle;
		break;
	case IBASYNC_OBJECT_WQ:
		if (!sub->object.wq)
			return EINVAL;
		owner = sub->object.wq->context;
		*handle = sub->object.wq->handle;
		break;
	default:
		return EINVAL;
	}
	/* handles mean something only within their own file */
	return owner == ch->context ? 0 : EINVAL;
}

/* @sub as the kernel takes it, checked: 0 or an errno value. */
static int sub_to_kernel(const struct ibasync_channel *ch,
			 const struct ibasync_subscription *sub,
			 struct ib_async_subscribe *arg)
{
	uint32_t f = sub->flags;

	if (f & ~SUB_FLAGS)
		return EINVAL;
	/* a value without its flag is a mistake the kernel would refuse */
	if (f & IBASYNC_SUB_TYPES) {
		if (!sub->types || sub->types & ~SUB_TYPE_BITS)
			return EINVAL;
	} else if (sub->types) {
		return EINVAL;
	}
	if (!(f & IBASYNC_SUB_PORT) && sub->port_num)
		return EINVAL;
	if (!(f & IBASYNC_SUB_OBJECT) &&
	    (sub->object_type != IBASYNC_OBJECT_NONE || sub->object.cq))
		return EINVAL;
	memset(arg, 0, sizeof(*arg));
	arg->argsz = sizeof(*arg);
	arg->flags = f;
	arg->fd = ch->fd;
	arg->type_mask = sub->types;
	arg->port = sub->port_num;
	arg->cookie = sub->cookie;
	return f & IBASYNC_SUB_OBJECT ? sub_object(ch, sub, &arg->obj_handle) : 0;
}

IBASYNC_EXPORT int ibasync_subscribe(struct ibasync_channel *channel,
				     const struct ibasync_subscription *sub,
				     uint32_t *sub_id)
{
	struct ib_async_subscribe arg;
	int err;

	if (!channel || !sub)
		return ibasync_err(EINVAL);
	err = sub_to_kernel(channel, sub, &arg);
	if (err)
		return ibasync_err(err);
	err = ibasync_ioctl(channel->context, IB_ASYNC_IOC_SUBSCRIBE, &arg);
	if (err)
		return ibasync_err(err);
	if (sub_id)
		*sub_id = arg.sub_id;
	return 0;
}

IBASYNC_EXPORT int ibasync_unsubscribe(struct ibasync_channel *channel,
				       uint32_t sub_id)
{
	struct ib_async_unsubscribe arg = {
		.argsz = sizeof(arg), .sub_id = sub_id,
	};

	int err;

	if (!channel || !sub_id)
		return ibasync_err(EINVAL);
	arg.fd = channel->fd;
	err = ibasync_ioctl(channel->context, IB_ASYNC_IOC_UNSUBSCRIBE, &arg);
	return err ? ibasync_err(err) : 0;
}

/* A channel's record as the public structure says it. */
static void to_public(const struct ib_async_chan_event *k,
		      struct ibasync_event *e)
{
	struct ibv_async_event ev;

	memset(e, 0, sizeof(*e));
	e->seq = k->event.seq;
	e->timestamp_ns = k->event.timestamp_ns;
	if (k->event.event_type == IB_ASYNC_EV_OVERFLOW) {
		e->kind = IBASYNC_EVENT_OVERFLOW;
		e->lost = k->event.count;
		return;
	}
	e->kind = IBASYNC_EVENT_ASYNC;
	/*
	 * element exactly as ibv_get_async_event() gives it (zeroed first:
	 * a port number fills only part of it)
	 */
	memset(&ev, 0, sizeof(ev));
	ibasync_fill_event(&k->event, &ev);
	e->event_type = ev.event_type;
	memcpy(&e->element, &ev.element, sizeof(e->element));
	e->port_num = k->event.port_num;
	e->cookie = k->cookie;
	e->occurrences = k->occurrences;
	e->last_timestamp_ns = k->last_timestamp_ns;
}

IBASYNC_EXPORT int ibasync_get_events(struct ibasync_channel *channel,
				      struct ibasync_event *events, int n,
				      unsigned int flags)
{
	struct ib_async_read_batch b = { .argsz = sizeof(b) };
	struct ib_async_chan_event k;
	unsigned char *raw = (unsigned char *)events;
	uint32_t i;

	if (!channel || !events || n < 1 || flags & ~IBASYNC_GET_NONBLOCK) {
		errno = EINVAL;
		return -1;
	}
	if (flags & IBASYNC_GET_NONBLOCK)
		b.flags |= IB_ASYNC_READ_NONBLOCK;
	b.buf = (uintptr_t)events;
	b.count = (uint32_t)n;
	if (ioctl(channel->fd, IB_ASYNC_IOC_READ_BATCH, &b))
		return -1;
	if (b.count > (uint32_t)n) {	/* the kernel never does */
		errno = EIO;
		return -1;
	}
	/*
	 * Kernel record i sits at i * sizeof(k), public record i goes at
	 * i * sizeof(*events), never before it: converting the last first,
	 * each write covers only records converted already.
	 */
	for (i = b.count; i-- > 0;) {
		memcpy(&k, raw + (size_t)i * sizeof(k), sizeof(k));
		to_public(&k, &events[i]);
	}
	return (int)b.count;
}

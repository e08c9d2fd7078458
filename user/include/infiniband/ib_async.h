/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libibasync event channels: streams of the asynchronous events a program
 * subscribed to, by type, port or object, each record with the cookie of
 * the subscription that matched it and, in a coalescing channel, how many
 * events it stands for. Beside the context's own stream
 * (ibv_get_async_event()), which they leave as it is. They only accept
 * contexts opened by libibasync on a kernel that offers them
 * (IB_ASYNC_FEATURE_EVENT_CHANNEL). See ibasync_create_channel(3),
 * ibasync_subscribe(3) and ibasync_get_events(3).
 */
#ifndef INFINIBAND_IB_ASYNC_H
#define INFINIBAND_IB_ASYNC_H

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An event channel of one context; opaque. */
struct ibasync_channel;

/* Flags of ibasync_create_channel(). */
enum ibasync_channel_flags {
	/* ibasync_get_events() never blocks on this channel (O_NONBLOCK) */
	IBASYNC_CHANNEL_NONBLOCK	= 1 << 0,
	/*
	 * An event of the type and object (or, unaffiliated, port) of a
	 * record not read yet adds to its occurrences instead of taking
	 * a place in the queue.
	 */
	IBASYNC_CHANNEL_COALESCE	= 1 << 1,
};

/*
 * A new event channel of @context, with no subscription. Returns NULL with
 * errno set on failure: EOPNOTSUPP if the kernel has no event channels.
 */
struct ibasync_channel *ibasync_create_channel(struct ibv_context *context,
					       unsigned int flags);

/* Close the channel and free it. Returns 0, or an errno value (errno set). */
int ibasync_destroy_channel(struct ibasync_channel *channel);

/* The channel's file descriptor, for poll(2) and epoll(7); -1 if NULL. */
int ibasync_channel_fd(const struct ibasync_channel *channel);

/*
 * The highest enum ibv_event_type a subscription can name,
 * IBV_EVENT_DEVICE_SPEED_CHANGE (which older rdma-core headers lack).
 */
#define IBASYNC_EVENT_TYPE_MAX		20
/* The bit of an enum ibv_event_type in ibasync_subscription.types. */
#define IBASYNC_EVENT_TYPE_BIT(type)	(UINT64_C(1) << (type))

/* What a subscription matches on; with none of them, every event. */
enum ibasync_sub_flags {
	IBASYNC_SUB_TYPES	= 1 << 0,	/* a type in types */
	IBASYNC_SUB_PORT	= 1 << 1,	/* port_num (0: the device) */
	IBASYNC_SUB_OBJECT	= 1 << 2,	/* the object */
};

/* The kind of object a subscription names. */
enum ibasync_object_type {
	IBASYNC_OBJECT_NONE,
	IBASYNC_OBJECT_CQ,
	IBASYNC_OBJECT_QP,
	IBASYNC_OBJECT_SRQ,
	IBASYNC_OBJECT_WQ,
};

/*
 * A subscription: an event matches it if it has every property flags
 * names. Fields a flag does not name must be 0 (NULL).
 */
struct ibasync_subscription {
	uint32_t flags;			/* enum ibasync_sub_flags */
	uint32_t port_num;		/* IBASYNC_SUB_PORT */
	uint64_t types;			/* IBASYNC_SUB_TYPES: type bits */
	enum ibasync_object_type object_type;	/* IBASYNC_SUB_OBJECT */
	union {
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		struct ibv_srq *srq;
		struct ibv_wq *wq;
	} object;			/* of the channel's context */
	uint64_t cookie;		/* returned with each record it matches */
};

/*
 * Add a subscription to the channel; its id in *sub_id unless NULL.
 * Returns 0, or an errno value (errno is set too).
 */
int ibasync_subscribe(struct ibasync_channel *channel,
		      const struct ibasync_subscription *sub,
		      uint32_t *sub_id);

/* End a subscription. Returns 0, or an errno value (errno is set too). */
int ibasync_unsubscribe(struct ibasync_channel *channel, uint32_t sub_id);

/* What a record of ibasync_get_events() reports. */
enum ibasync_event_kind {
	IBASYNC_EVENT_ASYNC,		/* an asynchronous event */
	IBASYNC_EVENT_OVERFLOW,		/* lost events: seq, lost, timestamp_ns */
};

/* Flags of ibasync_get_events(). */
enum ibasync_get_flags {
	IBASYNC_GET_NONBLOCK	= 1 << 0,	/* EAGAIN rather than wait */
};

/*
 * One record of a channel. It needs no acknowledgment: never pass it to
 * ibv_ack_async_event(). Its size is part of the IBASYNC_1.1 ABI (arrays
 * of it are passed): a larger one would come with new symbol versions.
 */
struct ibasync_event {
	enum ibasync_event_kind kind;
	enum ibv_event_type event_type;	/* IBASYNC_EVENT_ASYNC only */
	union {
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		struct ibv_srq *srq;
		struct ibv_wq *wq;
		int port_num;
	} element;			/* as ibv_get_async_event() sets it */
	uint64_t cookie;		/* the matching subscription's; else 0 */
	uint64_t occurrences;		/* events it stands for; 0: overflow */
	uint64_t lost;			/* overflow: events lost; else 0 */
	uint64_t seq;			/* in the channel's stream */
	uint64_t timestamp_ns;		/* CLOCK_MONOTONIC, the first */
	uint64_t last_timestamp_ns;	/* CLOCK_MONOTONIC, the last */
	uint32_t port_num;		/* the port concerned, 0 if none known */
};

/*
 * Up to @n records of the channel, with one system call. Returns how many
 * (at least 1), or -1 with errno set: EAGAIN when none is ready and the
 * call may not block, EIO once the context was closed, ENODEV once the
 * device was removed (after the records queued before).
 */
int ibasync_get_events(struct ibasync_channel *channel,
		       struct ibasync_event *events, int n,
		       unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_IB_ASYNC_H */

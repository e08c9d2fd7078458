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
	/*
	 * State records (IBASYNC_1.2): subscriptions may ask for a snapshot
	 * of their ports (IBASYNC_SUB_STATE).
	 */
	IBASYNC_CHANNEL_STATE		= 1 << 2,
	/*
	 * With STATE only: after each overflow record the channel queues a
	 * fresh snapshot of the ports its subscriptions cover, its records
	 * flagged IBASYNC_STATE_RESYNC, so that a reader that fell behind
	 * learns the present without the lost history.
	 */
	IBASYNC_CHANNEL_RESYNC		= 1 << 3,
};

/*
 * A new event channel of @context, with no subscription. Returns NULL with
 * errno set on failure: EOPNOTSUPP if the kernel has no event channels, or
 * (IBASYNC_CHANNEL_STATE, IBASYNC_CHANNEL_RESYNC) no state records.
 */
struct ibasync_channel *ibasync_create_channel(struct ibv_context *context,
					       unsigned int flags);

/* Close the channel and free it. Returns 0, or an errno value (errno set). */
int ibasync_destroy_channel(struct ibasync_channel *channel);

/* The channel's file descriptor, for poll(2) and epoll(7); -1 if NULL. */
int ibasync_channel_fd(const struct ibasync_channel *channel);

/*
 * Resize the channel's queue to @len records (1..max_queue_len), queued
 * records kept in order (IBASYNC_1.3). The channel's ring, where it gets
 * one, is as long as the queue at its first ibasync_get_events(): resize
 * before. Returns 0, or an errno value (errno set too): EINVAL for 0,
 * above the module's max_queue_len or a NULL channel, EBUSY if more
 * records are queued than fit.
 */
int ibasync_channel_set_queue_len(struct ibasync_channel *channel,
				  unsigned int len);

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
	/*
	 * IBASYNC_CHANNEL_STATE channels, not with IBASYNC_SUB_OBJECT: first
	 * a snapshot, one IBASYNC_EVENT_STATE record for the device (port 0)
	 * and each port in the subscription's scope (IBASYNC_SUB_PORT: that
	 * port only; else the device and every port), in port order, the
	 * last flagged IBASYNC_STATE_LAST, whatever its types; then the
	 * events it matches, their sequence numbers following on. EBUSY
	 * while the channel holds too many unread state records.
	 */
	IBASYNC_SUB_STATE	= 1 << 3,
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
	/*
	 * A port's state (port_num; 0: the device) at this point of the
	 * stream, on IBASYNC_CHANNEL_STATE channels only: element.port_num,
	 * port_num, seq, timestamp_ns (also in last_timestamp_ns), cookie and
	 * occurrences (1) are set, event_type is 0. The state itself:
	 * ibasync_get_state().
	 */
	IBASYNC_EVENT_STATE,
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

/* What a state record says of itself (ibasync_port_state.flags). */
enum ibasync_state_flags {
	/* queued after an overflow record (IBASYNC_CHANNEL_RESYNC) */
	IBASYNC_STATE_RESYNC		= 1 << 0,
	/* the last record of its snapshot */
	IBASYNC_STATE_LAST		= 1 << 1,
	/* the port could not be queried: see error; other fields are 0 */
	IBASYNC_STATE_QUERY_FAILED	= 1 << 2,
};

/*
 * The state of a port, as a state record carries it: the fields of
 * struct ibv_port_attr of the same names, in its types where they are
 * rdma-core's enums, read by the kernel just after the record's point of
 * the stream (an event soon after it may already show). The device's
 * record (port_num 0) sets only flags and phys_port_cnt. Its size is part
 * of the IBASYNC_1.2 ABI; later fields take the reserved room, which is 0.
 */
struct ibasync_port_state {
	uint32_t flags;			/* enum ibasync_state_flags */
	int error;			/* QUERY_FAILED: a positive errno */
	enum ibv_port_state state;
	enum ibv_mtu max_mtu;
	enum ibv_mtu active_mtu;
	uint32_t lid;			/* as the kernel has it (32 bits) */
	uint32_t sm_lid;
	uint32_t port_cap_flags;
	uint32_t gid_valid;		/* valid entries of the GID table */
	/*
	 * GID_CHANGE events of the port the channel's context received
	 * since the channel was made, up to this record: two records of a
	 * channel with the same value saw the same GID table.
	 */
	uint32_t gid_gen;
	uint32_t gid_tbl_len;
	uint32_t active_speed;		/* as ibv_port_attr.active_speed_ex */
	uint16_t pkey_tbl_len;
	uint8_t phys_state;
	uint8_t active_width;
	uint8_t sm_sl;
	uint8_t lmc;
	uint8_t link_layer;		/* IBV_LINK_LAYER_* */
	uint8_t reserved0;
	uint32_t phys_port_cnt;		/* device's record: its ports */
	uint32_t reserved[8];
};

/*
 * How many of a channel's latest state records ibasync_get_state() still
 * answers for: at least this many.
 */
#define IBASYNC_STATE_KEPT		64

/*
 * The state a state record @event of @channel carries, into *@out. The
 * record stays readable through here after later ibasync_get_events()
 * calls, until IBASYNC_STATE_KEPT newer state records of the channel have
 * been returned. (State lives beside struct ibasync_event, whose size is
 * the IBASYNC_1.1 ABI, rather than in it.) Returns 0, or an errno value
 * (errno set too): ENOENT if @event is not a state record of @channel or
 * is no longer kept, EINVAL for a NULL argument. Thread-safe.
 */
int ibasync_get_state(struct ibasync_channel *channel,
		      const struct ibasync_event *event,
		      struct ibasync_port_state *out);

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_IB_ASYNC_H */

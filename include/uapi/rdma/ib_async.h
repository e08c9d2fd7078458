/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * ib_async: RDMA asynchronous events through a per-device character device.
 *
 * One node per RDMA device: /dev/infiniband/ib_asyncN. The RDMA device it
 * serves is named in /sys/class/ib_async/ib_asyncN/ibdev.
 *
 * Every open file owns a bounded event queue. read() returns as many whole
 * struct ib_async_event records as fit in the buffer. Memory for the queue
 * is allocated at open() and at IB_ASYNC_IOC_SET_QUEUE_LEN, never when an
 * event arrives, so no event is ever dropped silently: when the queue is
 * full, later events are counted and a single IB_ASYNC_EVENT_OVERFLOW record
 * stands in the stream where they were lost.
 *
 * All structures are fixed size, 64-bit aligned and carry no kernel
 * pointers. Ioctl arguments begin with argsz (the size of the structure the
 * caller knows) and flags; unknown flags and non-zero reserved fields are
 * rejected with EINVAL, and a caller's structure that is larger than the
 * kernel's must be zero past the kernel's end (else E2BIG).
 */
#ifndef _UAPI_RDMA_IB_ASYNC_H
#define _UAPI_RDMA_IB_ASYNC_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define IB_ASYNC_ABI_VERSION	1

/*
 * Event types. Values 0..19 are those of enum ib_event_type (kernel) and
 * enum ibv_event_type (rdma-core); records of types ib_async itself
 * generates start at 0x10000 so the two ranges can never collide.
 */
enum ib_async_event_type {
	IB_ASYNC_EV_CQ_ERR		= 0,
	IB_ASYNC_EV_QP_FATAL		= 1,
	IB_ASYNC_EV_QP_REQ_ERR		= 2,
	IB_ASYNC_EV_QP_ACCESS_ERR	= 3,
	IB_ASYNC_EV_COMM_EST		= 4,
	IB_ASYNC_EV_SQ_DRAINED		= 5,
	IB_ASYNC_EV_PATH_MIG		= 6,
	IB_ASYNC_EV_PATH_MIG_ERR	= 7,
	IB_ASYNC_EV_DEVICE_FATAL	= 8,
	IB_ASYNC_EV_PORT_ACTIVE		= 9,
	IB_ASYNC_EV_PORT_ERR		= 10,
	IB_ASYNC_EV_LID_CHANGE		= 11,
	IB_ASYNC_EV_PKEY_CHANGE		= 12,
	IB_ASYNC_EV_SM_CHANGE		= 13,
	IB_ASYNC_EV_SRQ_ERR		= 14,
	IB_ASYNC_EV_SRQ_LIMIT_REACHED	= 15,
	IB_ASYNC_EV_QP_LAST_WQE_REACHED	= 16,
	IB_ASYNC_EV_CLIENT_REREGISTER	= 17,
	IB_ASYNC_EV_GID_CHANGE		= 18,
	IB_ASYNC_EV_WQ_FATAL		= 19,

	/* count events were lost here because the queue was full */
	IB_ASYNC_EV_OVERFLOW		= 0x10000,
};

/* What element refers to. */
enum ib_async_obj_type {
	IB_ASYNC_OBJ_PORT	= 0,	/* unaffiliated: element is port_num */
	IB_ASYNC_OBJ_CQ		= 1,
	IB_ASYNC_OBJ_QP		= 2,
	IB_ASYNC_OBJ_SRQ	= 3,
	IB_ASYNC_OBJ_WQ		= 4,
	IB_ASYNC_OBJ_NONE	= 0xffff, /* IB_ASYNC_EV_OVERFLOW */
};

/*
 * One record, as read() returns it.
 *
 * @element:      unaffiliated events: the port number (0 for the whole
 *                device, as in ib_uverbs); affiliated events: the 64-bit
 *                cookie the file gave the object at creation.
 * @seq:          per-file sequence number. Every event offered to the file
 *                takes the next number, whether it is queued or lost; the
 *                first is 1. The record after this one has seq + count.
 * @timestamp_ns: CLOCK_MONOTONIC time at which ib_async received the event
 *                (for an overflow record: when the first one was lost).
 * @count:        1 for an event; for IB_ASYNC_EV_OVERFLOW the exact number
 *                of events lost at this point of the stream.
 * @event_type:   enum ib_async_event_type.
 * @port_num:     the port the event concerns, 0 when none is known.
 * @obj_type:     enum ib_async_obj_type.
 * @obj_handle:   the file's handle of the object, 0 for unaffiliated.
 */
struct ib_async_event {
	__aligned_u64 element;
	__aligned_u64 seq;
	__aligned_u64 timestamp_ns;
	__aligned_u64 count;
	__u32 event_type;
	__u32 port_num;
	__u32 obj_type;
	__u32 obj_handle;
};

/* Size of a record in ABI version 1; later versions only opt in. */
#define IB_ASYNC_EVENT_SIZE_V1	48

#define IB_ASYNC_DEVICE_NAME_MAX	64

/*
 * IB_ASYNC_IOC_GET_INFO: the device and this file's queue.
 * In: argsz, flags (must be 0), reserved (must be 0). Everything else out.
 */
struct ib_async_info {
	__u32 argsz;
	__u32 flags;
	__u32 abi_version;	/* IB_ASYNC_ABI_VERSION */
	__u32 record_size;	/* bytes per record read() returns */
	__u32 queue_len;	/* capacity of this file's queue, in events */
	__u32 max_queue_len;	/* ceiling for IB_ASYNC_IOC_SET_QUEUE_LEN */
	__u32 queued;		/* records ready to read, overflow included */
	__u32 phys_port_cnt;
	__aligned_u64 lost;	/* events lost on this file since open */
	__aligned_u64 next_seq;	/* seq the next event offered will take */
	__be64 node_guid;	/* network byte order, as ibv_get_device_guid */
	__u32 ibdev_index;	/* the RDMA device's index (rdma dev show) */
	__u32 reserved;
	char ibdev_name[IB_ASYNC_DEVICE_NAME_MAX];
};

#define IB_ASYNC_INFO_SIZE_V1	128

/*
 * IB_ASYNC_IOC_SET_QUEUE_LEN: resize this file's queue to queue_len events
 * (1 ..max_queue_len). Queued records are kept in order; EBUSY if more are
 * queued than the new length holds. ENOMEM leaves the old queue in place.
 */
struct ib_async_queue_len {
	__u32 argsz;
	__u32 flags;
	__u32 queue_len;
	__u32 reserved;
};

#define IB_ASYNC_QUEUE_LEN_SIZE_V1	16

/* 0x1b is the InfiniBand subsystem's ioctl magic; ib_async uses 0x90-0x9f. */
#define IB_ASYNC_IOC_MAGIC	0x1b
#define IB_ASYNC_IOC_GET_INFO	_IOWR(IB_ASYNC_IOC_MAGIC, 0x90, struct ib_async_info)
#define IB_ASYNC_IOC_SET_QUEUE_LEN \
	_IOW(IB_ASYNC_IOC_MAGIC, 0x91, struct ib_async_queue_len)

#endif /* _UAPI_RDMA_IB_ASYNC_H */

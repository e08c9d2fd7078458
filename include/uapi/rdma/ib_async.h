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
 * full, later events are counted and a single IB_ASYNC_EV_OVERFLOW record
 * stands in the stream where they were lost.
 *
 * uAPI 2. Command numbers carry no size: _IO(IB_ASYNC_IOC_MAGIC, nr). Every
 * argument structure begins with argsz (the size of the structure the
 * caller knows) and flags, has no implicit padding, and only ever grows.
 * The kernel reads argsz bytes: fewer than the structure's first version
 * is EINVAL; more than the kernel knows must be zero past the kernel's end
 * (else E2BIG); the answer is written back up to the smaller of the two
 * sizes. Unknown flag bits and non-zero reserved fields are EINVAL. No
 * kernel pointer ever reaches userspace.
 */
#ifndef _UAPI_RDMA_IB_ASYNC_H
#define _UAPI_RDMA_IB_ASYNC_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>

#define IB_ASYNC_ABI_VERSION	2

/*
 * 0x1b is the InfiniBand subsystem's ioctl type ("0x1b all" in
 * Documentation/userspace-api/ioctl/ioctl-number.rst of 6.1 and 6.12). In
 * it, ib_umad and ib_uverbs use numbers 0x01-0x04 and hfi1 0xe0-0xef;
 * ib_async takes 0x90-0xbf: 0x90-0xaf first, 0xb0-0xbf once that was
 * full. Numbers carry no direction and no size.
 */

#define IB_ASYNC_IOC_MAGIC	0x1b
#define IB_ASYNC_CMD_BASE	0x90
#define IB_ASYNC_CMD_LAST	0xaf
/* the second range, which continues the first */
#define IB_ASYNC_CMD_BASE2	0xb0
#define IB_ASYNC_CMD_LAST2	0xbf

/**
 * enum ib_async_cmd - ioctl numbers, _IO(IB_ASYNC_IOC_MAGIC, nr)
 * @IB_ASYNC_CMD_GET_INFO: &struct ib_async_info.
 * @IB_ASYNC_CMD_SET_QUEUE_LEN: &struct ib_async_queue_len.
 * @IB_ASYNC_CMD_READ_BATCH: &struct ib_async_read_batch.
 * @IB_ASYNC_CMD_CREATE_PD: &struct ib_async_create_pd.
 * @IB_ASYNC_CMD_CREATE_CQ: &struct ib_async_create_cq.
 * @IB_ASYNC_CMD_RESIZE_CQ: &struct ib_async_resize_cq.
 * @IB_ASYNC_CMD_CREATE_QP: &struct ib_async_create_qp.
 * @IB_ASYNC_CMD_MODIFY_QP: &struct ib_async_qp_attr.
 * @IB_ASYNC_CMD_QUERY_QP: &struct ib_async_qp_attr.
 * @IB_ASYNC_CMD_CREATE_SRQ: &struct ib_async_create_srq.
 * @IB_ASYNC_CMD_MODIFY_SRQ: &struct ib_async_srq_attr.
 * @IB_ASYNC_CMD_QUERY_SRQ: &struct ib_async_srq_attr.
 * @IB_ASYNC_CMD_CREATE_WQ: &struct ib_async_create_wq.
 * @IB_ASYNC_CMD_MODIFY_WQ: &struct ib_async_modify_wq.
 * @IB_ASYNC_CMD_CREATE_AH: &struct ib_async_create_ah.
 * @IB_ASYNC_CMD_DESTROY: &struct ib_async_destroy.
 * @IB_ASYNC_CMD_QUERY_DEVICE: &struct ib_async_device_attr.
 * @IB_ASYNC_CMD_QUERY_PORT: &struct ib_async_port_attr.
 * @IB_ASYNC_CMD_QUERY_GID: &struct ib_async_query_gid.
 * @IB_ASYNC_CMD_QUERY_PKEY: &struct ib_async_query_pkey.
 * @IB_ASYNC_CMD_POST_RECV: &struct ib_async_post_recv.
 * @IB_ASYNC_CMD_POST_SEND: &struct ib_async_post_send.
 * @IB_ASYNC_CMD_POLL_CQ: &struct ib_async_poll_cq.
 * @IB_ASYNC_CMD_CREATE_CHANNEL: &struct ib_async_create_channel.
 * @IB_ASYNC_CMD_REQ_NOTIFY_CQ: &struct ib_async_req_notify_cq.
 * @IB_ASYNC_CMD_REG_MR: &struct ib_async_reg_mr.
 * @IB_ASYNC_CMD_POST_SEND_LIST: &struct ib_async_post_list.
 * @IB_ASYNC_CMD_POST_RECV_LIST: &struct ib_async_post_list.
 * @IB_ASYNC_CMD_SUBSCRIBE: &struct ib_async_subscribe.
 * @IB_ASYNC_CMD_UNSUBSCRIBE: &struct ib_async_unsubscribe.
 * @IB_ASYNC_CMD_MAP_RING: &struct ib_async_map_ring.
 * @IB_ASYNC_CMD_RING_WAIT: &struct ib_async_ring_wait.
 * @IB_ASYNC_CMD_ATTACH_MCAST: &struct ib_async_mcast (first of the second
 *	range, IB_ASYNC_CMD_BASE2).
 * @IB_ASYNC_CMD_DETACH_MCAST: &struct ib_async_mcast.
 * @IB_ASYNC_CMD_MAP_CQ_RING: &struct ib_async_map_cq_ring.
 * @IB_ASYNC_CMD_CQ_WAIT: &struct ib_async_cq_wait.
 * @IB_ASYNC_CMD_MAP_WR_RING: &struct ib_async_map_wr_ring.
 * @IB_ASYNC_CMD_WR_DOORBELL: no structure: the argument is the value
 *	IB_ASYNC_IOC_MAP_WR_RING returned in &struct ib_async_map_wr_ring.doorbell.
 * @IB_ASYNC_CMD_POLLER: &struct ib_async_poller.
 */
enum ib_async_cmd {
	IB_ASYNC_CMD_GET_INFO = IB_ASYNC_CMD_BASE,
	IB_ASYNC_CMD_SET_QUEUE_LEN,
	IB_ASYNC_CMD_READ_BATCH,
	IB_ASYNC_CMD_CREATE_PD,
	IB_ASYNC_CMD_CREATE_CQ,
	IB_ASYNC_CMD_RESIZE_CQ,
	IB_ASYNC_CMD_CREATE_QP,
	IB_ASYNC_CMD_MODIFY_QP,
	IB_ASYNC_CMD_QUERY_QP,
	IB_ASYNC_CMD_CREATE_SRQ,
	IB_ASYNC_CMD_MODIFY_SRQ,
	IB_ASYNC_CMD_QUERY_SRQ,
	IB_ASYNC_CMD_CREATE_WQ,
	IB_ASYNC_CMD_MODIFY_WQ,
	IB_ASYNC_CMD_CREATE_AH,
	IB_ASYNC_CMD_DESTROY,
	IB_ASYNC_CMD_QUERY_DEVICE,
	IB_ASYNC_CMD_QUERY_PORT,
	IB_ASYNC_CMD_QUERY_GID,
	IB_ASYNC_CMD_QUERY_PKEY,
	IB_ASYNC_CMD_POST_RECV,
	IB_ASYNC_CMD_POST_SEND,
	IB_ASYNC_CMD_POLL_CQ,
	IB_ASYNC_CMD_CREATE_CHANNEL,
	IB_ASYNC_CMD_REQ_NOTIFY_CQ,
	IB_ASYNC_CMD_REG_MR,
	IB_ASYNC_CMD_POST_SEND_LIST,
	IB_ASYNC_CMD_POST_RECV_LIST,
	IB_ASYNC_CMD_SUBSCRIBE,
	IB_ASYNC_CMD_UNSUBSCRIBE,
	IB_ASYNC_CMD_MAP_RING,
	IB_ASYNC_CMD_RING_WAIT,
	IB_ASYNC_CMD_ATTACH_MCAST,
	IB_ASYNC_CMD_DETACH_MCAST,
	IB_ASYNC_CMD_MAP_CQ_RING,
	IB_ASYNC_CMD_CQ_WAIT,
	IB_ASYNC_CMD_MAP_WR_RING,
	IB_ASYNC_CMD_WR_DOORBELL,
	IB_ASYNC_CMD_POLLER,
};

/**
 * DOC: Event ABI
 *
 * The first half of the uAPI: the records (&struct ib_async_event) and
 * how they are read. Each file's queue (IB_ASYNC_IOC_GET_INFO,
 * IB_ASYNC_IOC_SET_QUEUE_LEN, IB_ASYNC_IOC_READ_BATCH), the channels a
 * file creates for completion events or for the events it subscribes to
 * (IB_ASYNC_IOC_CREATE_CHANNEL, IB_ASYNC_IOC_SUBSCRIBE,
 * IB_ASYNC_IOC_UNSUBSCRIBE), and the ring that delivers records into the
 * reader's memory (IB_ASYNC_IOC_MAP_RING, IB_ASYNC_IOC_RING_WAIT).
 */

/**
 * enum ib_async_event_type - what a record reports
 * @IB_ASYNC_EV_CQ_ERR: CQ overrun or error; element is the CQ's user_handle.
 * @IB_ASYNC_EV_QP_FATAL: the QP is in the error state.
 * @IB_ASYNC_EV_QP_REQ_ERR: invalid request on the QP.
 * @IB_ASYNC_EV_QP_ACCESS_ERR: local access violation on the QP.
 * @IB_ASYNC_EV_COMM_EST: first packet received on a QP in RTR.
 * @IB_ASYNC_EV_SQ_DRAINED: the QP's send queue drained in SQD.
 * @IB_ASYNC_EV_PATH_MIG: the QP migrated to its alternate path.
 * @IB_ASYNC_EV_PATH_MIG_ERR: path migration failed.
 * @IB_ASYNC_EV_DEVICE_FATAL: the device failed or is being removed; always
 *	the last record of a stream.
 * @IB_ASYNC_EV_PORT_ACTIVE: the port became active.
 * @IB_ASYNC_EV_PORT_ERR: the port left the active state.
 * @IB_ASYNC_EV_LID_CHANGE: the port's LID changed.
 * @IB_ASYNC_EV_PKEY_CHANGE: the port's P_Key table changed.
 * @IB_ASYNC_EV_SM_CHANGE: the port's subnet manager changed.
 * @IB_ASYNC_EV_SRQ_ERR: the SRQ is in error.
 * @IB_ASYNC_EV_SRQ_LIMIT_REACHED: the SRQ fell below its limit (which the
 *	device then disarms).
 * @IB_ASYNC_EV_QP_LAST_WQE_REACHED: last WQE of a QP on an SRQ consumed.
 * @IB_ASYNC_EV_CLIENT_REREGISTER: the SM asks clients to re-register.
 * @IB_ASYNC_EV_GID_CHANGE: the port's GID table changed.
 * @IB_ASYNC_EV_WQ_FATAL: the WQ is in the error state.
 * @IB_ASYNC_EV_DEVICE_SPEED_CHANGE: the port's effective bandwidth may
 *	have changed (a bonded link went up or down, say): query the port
 *	again. Only kernels whose enum ib_event_type has it (7.x) raise it.
 * @IB_ASYNC_EV_OVERFLOW: @count events were lost at this point of the
 *	stream because the queue was full.
 * @IB_ASYNC_EV_COMP: a completion event, read from a completion channel
 *	(never from the device's node): the CQ, armed with
 *	IB_ASYNC_IOC_REQ_NOTIFY_CQ, has a new completion. element is the
 *	CQ's user_handle, obj_handle its handle.
 * @IB_ASYNC_EV_STATE: a state record, only on an event channel made with
 *	IB_ASYNC_CHANNEL_STATE (&struct ib_async_chan_state_event): the
 *	state of port port_num (0: the device itself) at this point of the
 *	stream. element is port_num, obj_type IB_ASYNC_OBJ_PORT.
 *
 * Values 0..20 are those of the kernel's enum ib_event_type and rdma-core's
 * enum ibv_event_type, so ibv_event_type_str() names them (rdma-core
 * releases older than the kernel's type 20 call it unknown). Records that
 * ib_async itself generates start at 0x10000, where the two can never
 * collide.
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
	IB_ASYNC_EV_DEVICE_SPEED_CHANGE	= 20,
	IB_ASYNC_EV_OVERFLOW		= 0x10000,
	IB_ASYNC_EV_COMP		= 0x10001,
	IB_ASYNC_EV_STATE		= 0x10002,
};

/**
 * enum ib_async_obj_type - kinds of objects a file owns
 * @IB_ASYNC_OBJ_PORT: no object: an unaffiliated event of the device or
 *	one of its ports (UVERBS_OBJECT_DEVICE); element is the port number.
 * @IB_ASYNC_OBJ_PD: a protection domain; never raises events.
 * @IB_ASYNC_OBJ_CQ: a completion queue.
 * @IB_ASYNC_OBJ_QP: a queue pair.
 * @IB_ASYNC_OBJ_SRQ: a shared receive queue.
 * @IB_ASYNC_OBJ_AH: an address handle; never raises events.
 * @IB_ASYNC_OBJ_WQ: a receive work queue.
 * @IB_ASYNC_OBJ_MR: a memory region; never raises events.
 * @IB_ASYNC_OBJ_NONE: the record is about no object (IB_ASYNC_EV_OVERFLOW).
 *
 * The values are those of ib_uverbs' enum uverbs_default_objects.
 */
enum ib_async_obj_type {
	IB_ASYNC_OBJ_PORT	= UVERBS_OBJECT_DEVICE,
	IB_ASYNC_OBJ_PD		= UVERBS_OBJECT_PD,
	IB_ASYNC_OBJ_CQ		= UVERBS_OBJECT_CQ,
	IB_ASYNC_OBJ_QP		= UVERBS_OBJECT_QP,
	IB_ASYNC_OBJ_SRQ	= UVERBS_OBJECT_SRQ,
	IB_ASYNC_OBJ_AH		= UVERBS_OBJECT_AH,
	IB_ASYNC_OBJ_WQ		= UVERBS_OBJECT_WQ,
	IB_ASYNC_OBJ_MR		= UVERBS_OBJECT_MR,
	IB_ASYNC_OBJ_NONE	= 0xffff,
};

/**
 * struct ib_async_event - one record, as read() returns it
 * @element: unaffiliated events: the port number (0 for the whole device,
 *	as in ib_uverbs); affiliated events: the object's @user_handle.
 * @seq: per-file sequence number. Every event offered to the file takes
 *	the next number, whether it is queued or lost; the first is 1. The
 *	record after this one has @seq + @count.
 * @timestamp_ns: CLOCK_MONOTONIC time at which ib_async received the event
 *	(for an overflow record: when the first of them was lost).
 * @count: 1 for an event; for IB_ASYNC_EV_OVERFLOW the exact number of
 *	events lost at this point of the stream.
 * @event_type: enum ib_async_event_type.
 * @port_num: the port the event concerns, 0 when none is known.
 * @obj_type: enum ib_async_obj_type.
 * @obj_handle: the file's handle of the object, 0 for unaffiliated events.
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

#define IB_ASYNC_EVENT_SIZE_V1	48

#define IB_ASYNC_DEVICE_NAME_MAX	64

/**
 * enum ib_async_feature - what this module and device offer
 * @IB_ASYNC_FEATURE_READ_BATCH: IB_ASYNC_IOC_READ_BATCH is available.
 * @IB_ASYNC_FEATURE_VERBS: the device has the kernel verbs ib_async builds
 *	its objects with: the object, query-of-object and data-path commands
 *	work (without it they fail with EOPNOTSUPP).
 * @IB_ASYNC_FEATURE_RESIZE_CQ: IB_ASYNC_IOC_RESIZE_CQ can resize this
 *	device's CQs. Without it the command fails with EOPNOTSUPP: the
 *	driver cannot resize, or the kernel (7.1 on) lets only userspace
 *	providers resize CQs.
 * @IB_ASYNC_FEATURE_COMP_CHANNEL: completion channels
 *	(IB_ASYNC_IOC_CREATE_CHANNEL, IB_ASYNC_IOC_REQ_NOTIFY_CQ) are offered.
 * @IB_ASYNC_FEATURE_USER_MR: IB_ASYNC_IOC_REG_MR registers the caller's
 *	memory with the device. Without it (a kernel without user memory
 *	support, a device without fast registration or RC, iWARP) the
 *	command fails with EOPNOTSUPP.
 * @IB_ASYNC_FEATURE_EVENT_CHANNEL: event channels (IB_ASYNC_CHANNEL_EVENT,
 *	IB_ASYNC_IOC_SUBSCRIBE, IB_ASYNC_IOC_UNSUBSCRIBE) are offered, on
 *	every device, with or without kernel verbs.
 * @IB_ASYNC_FEATURE_EVENT_RING: IB_ASYNC_IOC_MAP_RING and
 *	IB_ASYNC_IOC_RING_WAIT: records delivered into memory the program
 *	maps, on the node and on event channels.
 * @IB_ASYNC_FEATURE_STATE: state records: IB_ASYNC_CHANNEL_STATE,
 *	IB_ASYNC_CHANNEL_RESYNC and IB_ASYNC_SUB_STATE.
 * @IB_ASYNC_FEATURE_CQ_RING: IB_ASYNC_IOC_MAP_CQ_RING and
 *	IB_ASYNC_IOC_CQ_WAIT: a CQ's completions delivered into memory the
 *	program maps (with IB_ASYNC_FEATURE_USER_MR).
 * @IB_ASYNC_FEATURE_WR_RING: IB_ASYNC_IOC_MAP_WR_RING and
 *	IB_ASYNC_IOC_WR_DOORBELL: work requests written into memory the
 *	program maps and posted by a doorbell (with IB_ASYNC_FEATURE_USER_MR).
 * @IB_ASYNC_FEATURE_POLLER: IB_ASYNC_IOC_POLLER: a thread of the program
 *	lends itself to the kernel to take its rings' work requests and
 *	fill its completion rings, so that its other threads post and poll
 *	without system calls (with IB_ASYNC_FEATURE_WR_RING).
 *
 * Reported in &struct ib_async_info.features; a program tests a bit rather
 * than trying a command and catching its error.
 */
enum ib_async_feature {
	IB_ASYNC_FEATURE_READ_BATCH	= 1 << 0,
	IB_ASYNC_FEATURE_VERBS		= 1 << 1,
	IB_ASYNC_FEATURE_RESIZE_CQ	= 1 << 2,
	IB_ASYNC_FEATURE_COMP_CHANNEL	= 1 << 3,
	IB_ASYNC_FEATURE_USER_MR	= 1 << 4,
	IB_ASYNC_FEATURE_EVENT_CHANNEL	= 1 << 5,
	IB_ASYNC_FEATURE_EVENT_RING	= 1 << 6,
	IB_ASYNC_FEATURE_STATE		= 1 << 7,
	IB_ASYNC_FEATURE_CQ_RING	= 1 << 8,
	IB_ASYNC_FEATURE_WR_RING	= 1 << 9,
	IB_ASYNC_FEATURE_POLLER		= 1 << 10,
};

/**
 * struct ib_async_info - argument of IB_ASYNC_IOC_GET_INFO
 * @argsz: in: the caller's size of the structure; out: the kernel's.
 * @flags: in: must be 0.
 * @abi_version: out: IB_ASYNC_ABI_VERSION.
 * @record_size: out: bytes per record read() returns.
 * @queue_len: out: capacity of this file's queue, in events.
 * @max_queue_len: out: ceiling for IB_ASYNC_IOC_SET_QUEUE_LEN.
 * @queued: out: records ready to read, overflow records included.
 * @phys_port_cnt: out: number of ports; port numbers start at 1.
 * @lost: out: events lost on this file since it was opened.
 * @next_seq: out: the sequence number the next event offered will take.
 * @node_guid: out: network byte order, as ibv_get_device_guid() returns it.
 * @features: out: enum ib_async_feature bits.
 * @ibdev_index: out: the RDMA device's index (``rdma dev show``).
 * @reserved: must be 0.
 * @ibdev_name: out: the RDMA device's name, NUL-terminated.
 */
struct ib_async_info {
	__u32 argsz;
	__u32 flags;
	__u32 abi_version;
	__u32 record_size;
	__u32 queue_len;
	__u32 max_queue_len;
	__u32 queued;
	__u32 phys_port_cnt;
	__aligned_u64 lost;
	__aligned_u64 next_seq;
	__aligned_be64 node_guid;
	__aligned_u64 features;
	__u32 ibdev_index;
	__u32 reserved;
	char ibdev_name[IB_ASYNC_DEVICE_NAME_MAX];
};

#define IB_ASYNC_INFO_SIZE_V1	136
#define IB_ASYNC_IOC_GET_INFO	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_GET_INFO)

/**
 * struct ib_async_queue_len - argument of IB_ASYNC_IOC_SET_QUEUE_LEN
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @queue_len: the new capacity in events, 1..max_queue_len. Queued records
 *	are kept in order; EBUSY if more are queued than the new length
 *	holds. ENOMEM leaves the old queue in place.
 * @reserved: must be 0.
 */
struct ib_async_queue_len {
	__u32 argsz;
	__u32 flags;
	__u32 queue_len;
	__u32 reserved;
};

#define IB_ASYNC_QUEUE_LEN_SIZE_V1	16
#define IB_ASYNC_IOC_SET_QUEUE_LEN \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_SET_QUEUE_LEN)

/**
 * enum ib_async_read_flags - flags of IB_ASYNC_IOC_READ_BATCH
 * @IB_ASYNC_READ_PEEK: copy records without consuming them. Not on a
 *	completion channel (EINVAL), where a CQ's next event merges into the
 *	record it has queued and would be lost with a peeked one.
 * @IB_ASYNC_READ_NONBLOCK: never block, whatever the file's O_NONBLOCK:
 *	for a library that shares the file with its program.
 */
enum ib_async_read_flags {
	IB_ASYNC_READ_PEEK	= 1 << 0,
	IB_ASYNC_READ_NONBLOCK	= 1 << 1,
};

/**
 * struct ib_async_read_batch - argument of IB_ASYNC_IOC_READ_BATCH
 * @argsz: size of the structure.
 * @flags: enum ib_async_read_flags.
 * @consume_seq: 0 to consume nothing.
 * @buf: user pointer to an array of records: &struct ib_async_event, or
 *	on an event channel &struct ib_async_chan_event (GET_INFO's
 *	record_size).
 * @count: in: records that fit at @buf; out: records copied.
 * @reserved: must be 0.
 *
 * Read without giving up poll()'s truth. First every leading record whose
 * sequence numbers end at or before @consume_seq is removed (an overflow
 * record straddling it is trimmed); then up to @count records are copied
 * to @buf. With IB_ASYNC_READ_PEEK they stay queued, so the file stays
 * readable until a later call consumes them: a library can hand records
 * out one at a time from one system call per batch while poll() on the
 * file keeps telling the truth. Consumed records count towards their
 * objects' events_reported. Blocks like read() unless the file is
 * O_NONBLOCK or IB_ASYNC_READ_NONBLOCK is set (then EAGAIN when nothing is
 * left).
 */
struct ib_async_read_batch {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 consume_seq;
	__aligned_u64 buf;
	__u32 count;
	__u32 reserved;
};

#define IB_ASYNC_READ_BATCH_SIZE_V1	32
#define IB_ASYNC_IOC_READ_BATCH \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_READ_BATCH)

/**
 * enum ib_async_channel_type - kinds of channel IB_ASYNC_IOC_CREATE_CHANNEL
 *	makes
 * @IB_ASYNC_CHANNEL_COMP: a completion channel: IB_ASYNC_EV_COMP records
 *	of the CQs created with it.
 * @IB_ASYNC_CHANNEL_EVENT: an event channel: the async events of its
 *	context that its subscriptions (IB_ASYNC_IOC_SUBSCRIBE) match, as
 *	&struct ib_async_chan_event records.
 */
enum ib_async_channel_type {
	IB_ASYNC_CHANNEL_COMP	= 1,
	IB_ASYNC_CHANNEL_EVENT	= 2,
};

/**
 * enum ib_async_create_channel_flags - flags of IB_ASYNC_IOC_CREATE_CHANNEL
 * @IB_ASYNC_CHANNEL_NONBLOCK: open the new file descriptor O_NONBLOCK.
 * @IB_ASYNC_CHANNEL_COALESCE: event channels only: an event whose type and
 *	object (or, unaffiliated, port) match a record still unread, of the
 *	same subscription's cookie, adds to that record's occurrences instead
 *	of taking a slot.
 * @IB_ASYNC_CHANNEL_STATE: event channels only: records are &struct
 *	ib_async_chan_state_event, which can carry a port's state, and
 *	subscriptions may ask for a snapshot (IB_ASYNC_SUB_STATE).
 * @IB_ASYNC_CHANNEL_RESYNC: with IB_ASYNC_CHANNEL_STATE only: after each
 *	overflow record, the channel queues a fresh snapshot of the ports
 *	its subscriptions cover (IB_ASYNC_STATE_RESYNC), so that a reader
 *	that fell behind learns the present without the lost history.
 */
enum ib_async_create_channel_flags {
	IB_ASYNC_CHANNEL_NONBLOCK	= 1 << 0,
	IB_ASYNC_CHANNEL_COALESCE	= 1 << 1,
	IB_ASYNC_CHANNEL_STATE		= 1 << 2,
	IB_ASYNC_CHANNEL_RESYNC		= 1 << 3,
};

/**
 * struct ib_async_create_channel - argument of IB_ASYNC_IOC_CREATE_CHANNEL
 * @argsz: size of the structure.
 * @flags: enum ib_async_create_channel_flags.
 * @type: enum ib_async_channel_type.
 * @fd: out: the channel's new file descriptor (close-on-exec).
 *
 * A channel is a file of its own, with the queue of the device's node:
 * read() and IB_ASYNC_IOC_READ_BATCH return whole records, poll/epoll and
 * O_ASYNC work, IB_ASYNC_IOC_GET_INFO reports its queue (and in
 * record_size the size of its records) and IB_ASYNC_IOC_SET_QUEUE_LEN
 * resizes it (the default is the module's default queue length); other
 * commands fail on it with ENOTTY. When the file it was made on is
 * closed, reads return what is queued, then fail with EIO, and poll
 * reports EPOLLHUP.
 *
 * A completion channel holds &struct ib_async_event records. A CQ that
 * already has an unread record in the channel gets no second one: its
 * events merge (counted as coalesced in fdinfo), as they mean the same
 * thing, "poll this CQ". When the device is removed its reads end with
 * ENODEV once the queued records are read.
 *
 * An event channel holds &struct ib_async_chan_event records: it starts
 * with no subscription, and receives each async event its context's queue
 * receives that one of its subscriptions matches, once, whatever the
 * number of subscriptions that match. A DEVICE_FATAL, the end of every
 * stream, reaches every event channel, subscribed or not. When the device
 * is removed the stream ends as the node's does: a DEVICE_FATAL record
 * (cookie 0) unless one ended it already, then ENODEV. Its records need
 * no acknowledgment: destroying an object discards its unread records in
 * every channel, and a record read is the reader's copy.
 */
struct ib_async_create_channel {
	__u32 argsz;
	__u32 flags;
	__u32 type;
	__s32 fd;
};

#define IB_ASYNC_CREATE_CHANNEL_SIZE_V1	16
#define IB_ASYNC_IOC_CREATE_CHANNEL \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_CHANNEL)

/**
 * struct ib_async_chan_event - one record of an event channel
 * @event: the event, as the context's own queue reports it, except that
 *	@event.seq numbers the channel's stream (an overflow record's count
 *	is, as there, the number of events the channel lost).
 * @cookie: the cookie of the earliest subscription that matched; 0 for an
 *	overflow record and for the DEVICE_FATAL of device removal.
 * @occurrences: how many events the record stands for: 1, or more in a
 *	coalescing channel (which does not give the merged ones sequence
 *	numbers of their own); 0 for an overflow record.
 * @last_timestamp_ns: CLOCK_MONOTONIC time of the last of them.
 */
struct ib_async_chan_event {
	struct ib_async_event event;
	__aligned_u64 cookie;
	__aligned_u64 occurrences;
	__aligned_u64 last_timestamp_ns;
};

#define IB_ASYNC_CHAN_EVENT_SIZE_V1	72

/**
 * enum ib_async_state_flags - what a state record says of itself
 * @IB_ASYNC_STATE_RESYNC: queued after an overflow record
 *	(IB_ASYNC_CHANNEL_RESYNC), not at a subscription's request.
 * @IB_ASYNC_STATE_LAST: the last record of its snapshot.
 * @IB_ASYNC_STATE_QUERY_FAILED: the port could not be queried (the
 *	driver's error is in &struct ib_async_port_state.error); the other
 *	fields are 0.
 */
enum ib_async_state_flags {
	IB_ASYNC_STATE_RESYNC		= 1 << 0,
	IB_ASYNC_STATE_LAST		= 1 << 1,
	IB_ASYNC_STATE_QUERY_FAILED	= 1 << 2,
};

/**
 * struct ib_async_port_state - a port's state in a state record
 * @flags: enum ib_async_state_flags.
 * @error: with IB_ASYNC_STATE_QUERY_FAILED, a positive errno; else 0.
 * @lid: the port's LID (ibv_port_attr.lid).
 * @sm_lid: its subnet manager's LID.
 * @gid_valid: the valid entries of the port's GID table.
 * @gid_gen: the generation of the GID table: how many GID_CHANGE events
 *	of the port the channel's context received, from the channel's
 *	creation up to this record's point of the stream. Two records of
 *	a channel with the same value saw the same table.
 * @gid_tbl_len: the GID table's length.
 * @port_cap_flags: ibv_port_attr.port_cap_flags.
 * @active_speed: the kernel's speed (IB_SPEED_*), as ibv_port_attr's
 *	active_speed_ex reports it (rdma-core 50 on).
 * @pkey_tbl_len: the P_Key table's length.
 * @state: enum ibv_port_state.
 * @phys_state: ibv_port_attr.phys_state.
 * @active_width: ibv_port_attr.active_width.
 * @sm_sl: the service level of the subnet manager.
 * @active_mtu: enum ibv_mtu.
 * @max_mtu: enum ibv_mtu.
 * @link_layer: IBV_LINK_LAYER_*.
 * @lmc: the LID mask control.
 * @phys_port_cnt: in the device's record (port_num 0), the number of
 *	ports; 0 in a port's.
 * @reserved: 0.
 *
 * The device's record (port_num 0) says the device is there and has not
 * failed (a DEVICE_FATAL ends the stream, after which no snapshot is
 * made): only @flags and @phys_port_cnt are set.
 *
 * The fields are read after the record's point of the stream: every event
 * before that point shows in them, and an event just after it may too (a
 * port's state changes before its event is raised). No event before the
 * point follows the record and every event after it does, each once: the
 * sequence numbers are contiguous across the seam.
 */
struct ib_async_port_state {
	__u32 flags;
	__u32 error;
	__u32 lid;
	__u32 sm_lid;
	__u32 gid_valid;
	__u32 gid_gen;
	__u32 gid_tbl_len;
	__u32 port_cap_flags;
	__u16 active_speed;
	__u16 pkey_tbl_len;
	__u8 state;
	__u8 phys_state;
	__u8 active_width;
	__u8 sm_sl;
	__u8 active_mtu;
	__u8 max_mtu;
	__u8 link_layer;
	__u8 lmc;
	__u32 phys_port_cnt;
	__u32 reserved[2];
};

#define IB_ASYNC_PORT_STATE_SIZE_V1	56

/**
 * struct ib_async_chan_state_event - a record of an IB_ASYNC_CHANNEL_STATE
 *	event channel
 * @rec: the record, as &struct ib_async_chan_event has it; for a state
 *	record (IB_ASYNC_EV_STATE) the cookie of the subscription that asked
 *	for it, or for a resynchronisation of the earliest subscription that
 *	covers the port, and occurrences 1.
 * @state: a state record's port state; all 0 in other records.
 */
struct ib_async_chan_state_event {
	struct ib_async_chan_event rec;
	struct ib_async_port_state state;
};

#define IB_ASYNC_CHAN_STATE_EVENT_SIZE_V1	128

/**
 * enum ib_async_subscribe_flags - what a subscription matches on
 * @IB_ASYNC_SUB_TYPES: only events whose type has its bit in type_mask.
 * @IB_ASYNC_SUB_PORT: only events whose port_num is port (0: events of
 *	the whole device).
 * @IB_ASYNC_SUB_OBJECT: only events of the object obj_handle.
 * @IB_ASYNC_SUB_STATE: on an IB_ASYNC_CHANNEL_STATE channel, not with
 *	IB_ASYNC_SUB_OBJECT: before the first event the subscription
 *	matches, queue one state record (IB_ASYNC_EV_STATE) for the device
 *	and for each port in its scope (with IB_ASYNC_SUB_PORT, that port
 *	only; else the device and every port), whatever its types.
 *
 * A subscription without any of the first three matches every event.
 */
enum ib_async_subscribe_flags {
	IB_ASYNC_SUB_TYPES	= 1 << 0,
	IB_ASYNC_SUB_PORT	= 1 << 1,
	IB_ASYNC_SUB_OBJECT	= 1 << 2,
	IB_ASYNC_SUB_STATE	= 1 << 3,
};

/* Most subscriptions one event channel holds at a time. */
#define IB_ASYNC_MAX_SUBSCRIPTIONS	64

/**
 * struct ib_async_subscribe - argument of IB_ASYNC_IOC_SUBSCRIBE
 * @argsz: size of the structure.
 * @flags: enum ib_async_subscribe_flags.
 * @fd: the event channel, made on this file.
 * @port: with IB_ASYNC_SUB_PORT, the port (0..phys_port_cnt); else 0.
 * @type_mask: with IB_ASYNC_SUB_TYPES, bit N for enum ib_async_event_type
 *	N (0..IB_ASYNC_EV_DEVICE_SPEED_CHANGE), at least one; else 0.
 * @cookie: returned in every record the subscription matches.
 * @obj_handle: with IB_ASYNC_SUB_OBJECT, a CQ, QP, SRQ or WQ of this file;
 *	else 0.
 * @sub_id: out: the subscription's id in the channel, never 0 and never
 *	reused while the channel exists.
 *
 * Sent to the context's node, naming the channel by its descriptor (as
 * IB_ASYNC_IOC_CREATE_CQ names a completion channel). A subscription to
 * an object ends when the object is destroyed; the channel holds no
 * reference on it. Errors: EBADF (no such descriptor), EINVAL (not an
 * event channel of this file, a bit or field out of range, an object
 * that raises no events, IB_ASYNC_SUB_STATE on a channel without
 * IB_ASYNC_CHANNEL_STATE or with IB_ASYNC_SUB_OBJECT), ENOENT (no such
 * object), ENOSPC (the channel has IB_ASYNC_MAX_SUBSCRIPTIONS), EIO (the
 * channel's stream ended), EBUSY (IB_ASYNC_SUB_STATE while the channel
 * holds too many unread state records: it keeps room for one record per
 * port and the device's, and a snapshot's records wait for readers in
 * that room, so read them first; or while its queue is full and a loss
 * waits for room to be recorded after the last snapshot: read first).
 *
 * With IB_ASYNC_SUB_STATE the snapshot's records take the next sequence
 * numbers at the subscription's start: an event its handler offered the
 * channel before then is not matched, one offered after is, and follows
 * them. The ports are queried after that point, so the call sleeps.
 */
struct ib_async_subscribe {
	__u32 argsz;
	__u32 flags;
	__s32 fd;
	__u32 port;
	__aligned_u64 type_mask;
	__aligned_u64 cookie;
	__u32 obj_handle;
	__u32 sub_id;
};

#define IB_ASYNC_SUBSCRIBE_SIZE_V1	40
#define IB_ASYNC_IOC_SUBSCRIBE	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_SUBSCRIBE)

/**
 * struct ib_async_unsubscribe - argument of IB_ASYNC_IOC_UNSUBSCRIBE
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @fd: the event channel, made on this file.
 * @sub_id: the subscription.
 *
 * From the command's return on, no event the subscription alone matches
 * is queued; records already queued stay. ENOENT for an id the channel
 * does not hold (never had, or already ended).
 */
struct ib_async_unsubscribe {
	__u32 argsz;
	__u32 flags;
	__s32 fd;
	__u32 sub_id;
};

#define IB_ASYNC_UNSUBSCRIBE_SIZE_V1	16
#define IB_ASYNC_IOC_UNSUBSCRIBE \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_UNSUBSCRIBE)

/**
 * struct ib_async_ring_header - the start of a mapped event ring
 * @producer: written by the kernel: records published so far, a count
 *	that wraps at 2^32. Record i is at index i & (entries - 1) of the
 *	array at @records_offset. Read it with acquire semantics: every
 *	record before it is then complete.
 * @entries: records the ring holds, a power of two.
 * @record_size: bytes per record: &struct ib_async_event on the node,
 *	&struct ib_async_chan_event on an event channel.
 * @records_offset: byte offset of the record array in the mapping.
 * @reserved: 0.
 * @consumer: written by the program, on a cache line of its own: the
 *	records it has finished with, the same wrapping count. Store it with
 *	release semantics once a record is read: the kernel may write record
 *	i + entries as soon as @consumer passes i. The kernel reads this
 *	value but never trusts it: one ahead of @producer, or more than
 *	@entries behind, makes the ring count as full, so records wait in
 *	the kernel queue (and are counted lost when that is full too), and
 *	no other file is affected.
 * @reserved2: 0.
 *
 * Only the kernel writes @producer and the records, only the program
 * writes @consumer; a program that writes anything else there confuses
 * only itself.
 */
struct ib_async_ring_header {
	__u32 producer;
	__u32 entries;
	__u32 record_size;
	__u32 records_offset;
	__u32 reserved[12];
	__u32 consumer;
	__u32 reserved2[15];
};

#define IB_ASYNC_RING_HEADER_SIZE_V1	128

/**
 * struct ib_async_map_ring - argument of IB_ASYNC_IOC_MAP_RING
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @entries: in: records the ring should hold, 1..max_queue_len, rounded
 *	up to a power of two; out: what it holds.
 * @reserved: must be 0.
 * @mmap_offset: in: 0; out: the offset to give mmap().
 * @mmap_size: in: 0; out: the length to give mmap().
 *
 * Sent to the node or to an event channel: from then on that queue
 * delivers its records into a ring the program maps with
 * mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
 * mmap_offset), laid out as &struct ib_async_ring_header describes,
 * instead of through read(). A record goes into the ring as soon as it is
 * queued while the ring has room and nothing older waits in the queue;
 * otherwise it waits in the file's bounded queue, with the same loss
 * accounting as before (an IB_ASYNC_EV_OVERFLOW record stands where
 * events were lost), until IB_ASYNC_IOC_RING_WAIT moves it. Order is kept
 * throughout: the ring holds a prefix of the stream, the queue the rest.
 *
 * A record is delivered once it is in the ring: it counts in
 * events_reported of its object and in the queue's delivered count, and
 * IB_ASYNC_IOC_DESTROY and device removal no longer take it back; a
 * program that destroys an object skips its records still in the ring
 * itself (handles are never reused while the file is open). GET_INFO's
 * queued counts only records still in the kernel queue.
 *
 * The ring's memory is charged to the caller's RLIMIT_MEMLOCK (unless it
 * has CAP_IPC_LOCK; ENOMEM past the limit) and to its memory cgroup, and
 * lives until the file is closed and unmapped. A queue has at most one
 * ring: EBUSY the second time. On a ring queue read() and
 * IB_ASYNC_IOC_READ_BATCH fail with EBUSY. EOPNOTSUPP on a completion
 * channel and on a coalescing event channel, whose records change while
 * queued. The mapping is not inherited across fork().
 */
struct ib_async_map_ring {
	__u32 argsz;
	__u32 flags;
	__u32 entries;
	__u32 reserved;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
};

#define IB_ASYNC_MAP_RING_SIZE_V1	32
#define IB_ASYNC_IOC_MAP_RING	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_MAP_RING)

/**
 * struct ib_async_ring_wait - argument of IB_ASYNC_IOC_RING_WAIT
 * @argsz: size of the structure.
 * @flags: IB_ASYNC_READ_NONBLOCK, or 0.
 * @available: in: 0; out: records in the ring the program has not
 *	consumed.
 * @reserved: must be 0.
 *
 * Moves the records waiting in the kernel queue into the ring, as many as
 * it has room for, then, if the ring holds nothing unconsumed, blocks
 * until a record arrives (EAGAIN instead if the file is O_NONBLOCK or
 * IB_ASYNC_READ_NONBLOCK is set). Once the stream is over and every
 * record was consumed it fails as read() would: ENODEV after device
 * removal, EIO on an event channel whose context was closed. poll() on
 * the file reports EPOLLIN while the ring holds an unconsumed record or
 * the queue holds one waiting. EINVAL on a queue without a ring.
 */
struct ib_async_ring_wait {
	__u32 argsz;
	__u32 flags;
	__u32 available;
	__u32 reserved;
};

#define IB_ASYNC_RING_WAIT_SIZE_V1	16
#define IB_ASYNC_IOC_RING_WAIT	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_RING_WAIT)

/**
 * DOC: Verbs ABI
 *
 * The second half of the uAPI: the kernel verbs objects a file creates,
 * so that their events are affiliated to it (PD, CQ, QP, SRQ, WQ, AH, MR,
 * and IB_ASYNC_IOC_DESTROY), the device and port queries, and the data
 * path over them. libibasync implements rdma-core's ibv_* calls on it.
 */

/*
 * Kernel verbs objects created on behalf of the file. Each has a per-file
 * handle (never 0, never reused while the file is open) and, for objects
 * that raise events, the caller's 64-bit user_handle, returned in the
 * element of the object's event records. Objects live until destroyed with
 * IB_ASYNC_IOC_DESTROY or until the file is closed.
 */

/**
 * struct ib_async_create_pd - argument of IB_ASYNC_IOC_CREATE_PD
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: out: the PD's handle.
 * @reserved: must be 0.
 */
struct ib_async_create_pd {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 reserved;
};

#define IB_ASYNC_CREATE_PD_SIZE_V1	16
#define IB_ASYNC_IOC_CREATE_PD	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_PD)

/**
 * enum ib_async_create_cq_flags - flags of IB_ASYNC_IOC_CREATE_CQ
 * @IB_ASYNC_CREATE_CQ_CHANNEL: deliver the CQ's completion events to the
 *	completion channel @comp_channel of &struct ib_async_create_cq.
 */
enum ib_async_create_cq_flags {
	IB_ASYNC_CREATE_CQ_CHANNEL	= 1 << 0,
};

/**
 * struct ib_async_create_cq - argument of IB_ASYNC_IOC_CREATE_CQ
 * @argsz: size of the structure.
 * @flags: enum ib_async_create_cq_flags.
 * @user_handle: returned as the element of the CQ's events.
 * @cqe: in: entries wanted; out: entries allocated.
 * @comp_vector: completion vector, below the device's num_comp_vectors.
 * @handle: out: the CQ's handle.
 * @comp_channel: with IB_ASYNC_CREATE_CQ_CHANNEL, the file descriptor of a
 *	completion channel made on this same file (else EINVAL); otherwise
 *	must be 0. The channel then cannot go away before the CQ. ENOSPC if
 *	the channel already serves as many CQs as its queue_len: its queue
 *	holds a record for every CQ, so no completion event is lost to a
 *	full queue (raise it with IB_ASYNC_IOC_SET_QUEUE_LEN on the channel).
 */
struct ib_async_create_cq {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 user_handle;
	__u32 cqe;
	__u32 comp_vector;
	__u32 handle;
	__s32 comp_channel;
};

#define IB_ASYNC_CREATE_CQ_SIZE_V1	32
#define IB_ASYNC_IOC_CREATE_CQ	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_CQ)

/**
 * struct ib_async_resize_cq - argument of IB_ASYNC_IOC_RESIZE_CQ
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the CQ.
 * @cqe: in: entries wanted; out: entries allocated.
 *
 * EOPNOTSUPP where the driver cannot resize.
 */
struct ib_async_resize_cq {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 cqe;
};

#define IB_ASYNC_RESIZE_CQ_SIZE_V1	16
#define IB_ASYNC_IOC_RESIZE_CQ	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_RESIZE_CQ)

/**
 * enum ib_async_notify_flags - flags of IB_ASYNC_IOC_REQ_NOTIFY_CQ
 * @IB_ASYNC_NOTIFY_SOLICITED: only for the next solicited completion (or
 *	one with an error); without it, for the next completion.
 */
enum ib_async_notify_flags {
	IB_ASYNC_NOTIFY_SOLICITED	= 1 << 0,
};

/**
 * struct ib_async_req_notify_cq - argument of IB_ASYNC_IOC_REQ_NOTIFY_CQ
 * @argsz: size of the structure.
 * @flags: enum ib_async_notify_flags.
 * @handle: the CQ.
 * @reserved: must be 0.
 *
 * Arms the CQ, as ibv_req_notify_cq() does: the driver raises one
 * completion event for the next (solicited) completion, which reaches the
 * CQ's completion channel, if it has one. Arming again before that event
 * changes nothing.
 */
struct ib_async_req_notify_cq {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 reserved;
};

#define IB_ASYNC_REQ_NOTIFY_CQ_SIZE_V1	16
#define IB_ASYNC_IOC_REQ_NOTIFY_CQ \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_REQ_NOTIFY_CQ)

/**
 * struct ib_async_create_qp - argument of IB_ASYNC_IOC_CREATE_QP
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @user_handle: returned as the element of the QP's events.
 * @pd_handle: the PD.
 * @send_cq_handle: the CQ of send completions.
 * @recv_cq_handle: the CQ of receive completions.
 * @srq_handle: the SRQ to receive from, 0 for none.
 * @qp_type: enum ib_uverbs_qp_type: IB_UVERBS_QPT_RC, IB_UVERBS_QPT_UC
 *	or IB_UVERBS_QPT_UD.
 * @sq_sig_all: 1 to signal every send, else 0.
 * @max_send_wr: in: wanted; out: granted.
 * @max_recv_wr: in: wanted; out: granted.
 * @max_send_sge: in: wanted; out: granted.
 * @max_recv_sge: in: wanted; out: granted.
 * @max_inline_data: in: wanted; out: granted.
 * @handle: out: the QP's handle.
 * @qp_num: out: the QP number.
 * @reserved: must be 0.
 */
struct ib_async_create_qp {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 send_cq_handle;
	__u32 recv_cq_handle;
	__u32 srq_handle;
	__u32 qp_type;
	__u32 sq_sig_all;
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 handle;
	__u32 qp_num;
	__u32 reserved;
};

#define IB_ASYNC_CREATE_QP_SIZE_V1	72
#define IB_ASYNC_IOC_CREATE_QP	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_QP)

/**
 * struct ib_async_av - an address vector
 * @dgid: destination GID.
 * @flow_label: GRH flow label.
 * @dlid: destination LID (InfiniBand).
 * @sgid_index: index of the source GID in the port's table.
 * @hop_limit: GRH hop limit.
 * @traffic_class: GRH traffic class.
 * @sl: service level.
 * @is_global: 1 if the GRH fields are valid.
 * @port_num: the port to send from.
 * @reserved: must be 0.
 *
 * Where a connected QP sends, or an AH points. RoCE needs the GRH
 * (@is_global = 1); the kernel resolves the destination MAC from @dgid and
 * the source GID at @sgid_index of @port_num.
 */
struct ib_async_av {
	__u8 dgid[16];
	__u32 flow_label;
	__u16 dlid;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u8 is_global;
	__u8 port_num;
	__u32 reserved;
};

#define IB_ASYNC_AV_SIZE_V1	32

/**
 * struct ib_async_qp_attr - argument of IB_ASYNC_IOC_MODIFY_QP (in) and
 *	IB_ASYNC_IOC_QUERY_QP (out)
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the QP.
 * @attr_mask: modify: the attributes to set; query: ignored.
 * @qp_state: the (new) state.
 * @cur_qp_state: the state the caller believes the QP is in.
 * @path_mtu: enum ibv_mtu.
 * @qkey: Q_Key (UD); one with the high bit set needs CAP_NET_RAW.
 * @rq_psn: receive PSN.
 * @sq_psn: send PSN.
 * @dest_qp_num: remote QP number (RC).
 * @qp_access_flags: enum ib_uverbs_access_flags.
 * @pkey_index: index in the port's P_Key table.
 * @port_num: the port.
 * @en_sqd_async_notify: 1 to raise IB_ASYNC_EV_SQ_DRAINED.
 * @sq_draining: out (query): 1 while the send queue drains.
 * @max_rd_atomic: outstanding RDMA reads/atomics as initiator.
 * @max_dest_rd_atomic: outstanding RDMA reads/atomics as target.
 * @min_rnr_timer: RNR NAK timer.
 * @timeout: local ACK timeout.
 * @retry_cnt: retry count.
 * @rnr_retry: RNR retry count.
 * @reserved8: must be 0.
 * @reserved: must be 0.
 * @av: the primary path (IB_ASYNC_QP_AV).
 * @max_send_wr: out (query): the send queue's capacity as the driver
 *	reports it now, which may exceed what create asked for; 0 for modify.
 * @max_recv_wr: out (query), as @max_send_wr.
 * @max_send_sge: out (query), as @max_send_wr.
 * @max_recv_sge: out (query), as @max_send_wr.
 * @max_inline_data: out (query), as @max_send_wr.
 * @reserved2: must be 0.
 *
 * The attribute mask uses the bits and values of enum ibv_qp_attr_mask /
 * enum ib_qp_attr_mask, states are those of enum ibv_qp_state. Supported
 * bits are IB_ASYNC_QP_ATTR_SUPPORTED; others fail with EOPNOTSUPP.
 */
struct ib_async_qp_attr {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 attr_mask;
	__u32 qp_state;
	__u32 cur_qp_state;
	__u32 path_mtu;
	__u32 qkey;
	__u32 rq_psn;
	__u32 sq_psn;
	__u32 dest_qp_num;
	__u32 qp_access_flags;
	__u16 pkey_index;
	__u8 port_num;
	__u8 en_sqd_async_notify;
	__u8 sq_draining;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 reserved8;
	__u32 reserved;
	struct ib_async_av av;
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 reserved2;
};

#define IB_ASYNC_QP_ATTR_SIZE_V1	120
#define IB_ASYNC_IOC_MODIFY_QP	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_MODIFY_QP)
#define IB_ASYNC_IOC_QUERY_QP	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_QUERY_QP)

#define IB_ASYNC_QP_STATE		(1U << 0)
#define IB_ASYNC_QP_CUR_STATE		(1U << 1)
#define IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY	(1U << 2)
#define IB_ASYNC_QP_ACCESS_FLAGS	(1U << 3)
#define IB_ASYNC_QP_PKEY_INDEX		(1U << 4)
#define IB_ASYNC_QP_PORT		(1U << 5)
#define IB_ASYNC_QP_QKEY		(1U << 6)
#define IB_ASYNC_QP_AV			(1U << 7)
#define IB_ASYNC_QP_PATH_MTU		(1U << 8)
#define IB_ASYNC_QP_TIMEOUT		(1U << 9)
#define IB_ASYNC_QP_RETRY_CNT		(1U << 10)
#define IB_ASYNC_QP_RNR_RETRY		(1U << 11)
#define IB_ASYNC_QP_RQ_PSN		(1U << 12)
#define IB_ASYNC_QP_MAX_QP_RD_ATOMIC	(1U << 13)
#define IB_ASYNC_QP_MIN_RNR_TIMER	(1U << 15)
#define IB_ASYNC_QP_SQ_PSN		(1U << 16)
#define IB_ASYNC_QP_MAX_DEST_RD_ATOMIC	(1U << 17)
#define IB_ASYNC_QP_DEST_QPN		(1U << 20)
#define IB_ASYNC_QP_ATTR_SUPPORTED	0x0013bfff

/**
 * struct ib_async_create_srq - argument of IB_ASYNC_IOC_CREATE_SRQ
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @user_handle: returned as the element of the SRQ's events.
 * @pd_handle: the PD.
 * @max_wr: in: wanted; out: granted.
 * @max_sge: in: wanted; out: granted.
 * @srq_limit: arm IB_ASYNC_EV_SRQ_LIMIT_REACHED at this level, 0 for not.
 * @handle: out: the SRQ's handle.
 * @reserved: must be 0.
 */
struct ib_async_create_srq {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
	__u32 handle;
	__u32 reserved;
};

#define IB_ASYNC_CREATE_SRQ_SIZE_V1	40
#define IB_ASYNC_IOC_CREATE_SRQ \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_SRQ)

/* attr_mask bits of IB_ASYNC_IOC_MODIFY_SRQ (enum ibv_srq_attr_mask) */
#define IB_ASYNC_SRQ_MAX_WR	(1U << 0)
#define IB_ASYNC_SRQ_LIMIT	(1U << 1)

/**
 * struct ib_async_srq_attr - argument of IB_ASYNC_IOC_MODIFY_SRQ (in) and
 *	IB_ASYNC_IOC_QUERY_SRQ (out)
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the SRQ.
 * @attr_mask: modify only: IB_ASYNC_SRQ_* bits.
 * @max_wr: the SRQ's capacity.
 * @max_sge: query only: scatter entries per request.
 * @srq_limit: the armed limit.
 * @reserved: must be 0.
 */
struct ib_async_srq_attr {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 attr_mask;
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
	__u32 reserved;
};

#define IB_ASYNC_SRQ_ATTR_SIZE_V1	32
#define IB_ASYNC_IOC_MODIFY_SRQ \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_MODIFY_SRQ)
#define IB_ASYNC_IOC_QUERY_SRQ	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_QUERY_SRQ)

/**
 * struct ib_async_create_wq - argument of IB_ASYNC_IOC_CREATE_WQ
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @user_handle: returned as the element of the WQ's events.
 * @pd_handle: the PD.
 * @cq_handle: the CQ of its completions.
 * @max_wr: in: wanted; out: granted.
 * @max_sge: in: wanted; out: granted.
 * @handle: out: the WQ's handle.
 * @reserved: must be 0.
 *
 * A receive WQ (IB_UVERBS_WQT_RQ); EOPNOTSUPP where the driver has none.
 */
struct ib_async_create_wq {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 cq_handle;
	__u32 max_wr;
	__u32 max_sge;
	__u32 handle;
	__u32 reserved;
};

#define IB_ASYNC_CREATE_WQ_SIZE_V1	40
#define IB_ASYNC_IOC_CREATE_WQ	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_WQ)

/* attr_mask bits of IB_ASYNC_IOC_MODIFY_WQ (enum ibv_wq_attr_mask) */
#define IB_ASYNC_WQ_STATE	(1U << 0)
#define IB_ASYNC_WQ_CUR_STATE	(1U << 1)
#define IB_ASYNC_WQ_FLAGS	(1U << 2)

/**
 * struct ib_async_modify_wq - argument of IB_ASYNC_IOC_MODIFY_WQ
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the WQ.
 * @attr_mask: IB_ASYNC_WQ_* bits.
 * @wq_state: the new state, enum ibv_wq_state (RESET, RDY, ERR).
 * @curr_wq_state: the state the caller believes the WQ is in.
 * @wq_flags: enum ib_uverbs_wq_flags values to set.
 * @wq_flags_mask: which of @wq_flags to change.
 */
struct ib_async_modify_wq {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 attr_mask;
	__u32 wq_state;
	__u32 curr_wq_state;
	__u32 wq_flags;
	__u32 wq_flags_mask;
};

#define IB_ASYNC_MODIFY_WQ_SIZE_V1	32
#define IB_ASYNC_IOC_MODIFY_WQ	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_MODIFY_WQ)

/**
 * struct ib_async_create_ah - argument of IB_ASYNC_IOC_CREATE_AH
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @pd_handle: the PD.
 * @handle: out: the AH's handle.
 * @av: where it points.
 *
 * An address handle for UD sends.
 */
struct ib_async_create_ah {
	__u32 argsz;
	__u32 flags;
	__u32 pd_handle;
	__u32 handle;
	struct ib_async_av av;
};

#define IB_ASYNC_CREATE_AH_SIZE_V1	48
#define IB_ASYNC_IOC_CREATE_AH	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CREATE_AH)

/**
 * struct ib_async_mcast - argument of IB_ASYNC_IOC_ATTACH_MCAST and
 *	IB_ASYNC_IOC_DETACH_MCAST
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @qp_handle: the UD QP that receives the group's messages.
 * @lid: the group's LID (what the join reported; ignored on RoCE).
 * @reserved: must be 0.
 * @gid: the group's multicast GID.
 *
 * As ib_uverbs: attaching a QP twice to a group is a no-op, detaching it
 * from a group it is not attached to is EINVAL, DESTROY of a QP still
 * attached is EBUSY, and closing the file or removing the device
 * detaches its QPs. The device refuses what is not a multicast GID or
 * not a UD QP (EINVAL).
 */
struct ib_async_mcast {
	__u32 argsz;
	__u32 flags;
	__u32 qp_handle;
	__u16 lid;
	__u16 reserved;
	__u8 gid[16];
};

#define IB_ASYNC_MCAST_SIZE_V1	32
#define IB_ASYNC_IOC_ATTACH_MCAST \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_ATTACH_MCAST)
#define IB_ASYNC_IOC_DETACH_MCAST \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_DETACH_MCAST)

/**
 * struct ib_async_destroy - argument of IB_ASYNC_IOC_DESTROY
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @obj_type: enum ib_async_obj_type; must be the handle's.
 * @handle: the object.
 * @events_reported: out: how many of its events this file's read() has
 *	returned, which is what an acknowledging consumer must wait for
 *	(ib_uverbs' events_reported).
 * @comp_events_reported: out: for a CQ, how many of its completion events
 *	the readers of its completion channel got (ib_uverbs'
 *	comp_events_reported): ibv_destroy_cq() waits until as many are
 *	acknowledged. Its unread completion events are discarded.
 *
 * EBUSY while other objects use it (a PD with QPs, a CQ or SRQ with QPs),
 * nothing changed. Unread events of the object are discarded.
 */
struct ib_async_destroy {
	__u32 argsz;
	__u32 flags;
	__u32 obj_type;
	__u32 handle;
	__aligned_u64 events_reported;
	__aligned_u64 comp_events_reported;
};

#define IB_ASYNC_DESTROY_SIZE_V1	32
#define IB_ASYNC_IOC_DESTROY	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_DESTROY)

/*
 * Device and port queries: the fields of struct ibv_device_attr,
 * ibv_port_attr, ibv_query_gid() and ibv_query_pkey(), with rdma-core's
 * values (enum ibv_port_state, ibv_mtu, link layer...).
 */

/**
 * struct ib_async_device_attr - argument of IB_ASYNC_IOC_QUERY_DEVICE
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @fw_ver: firmware version, as the driver encodes it.
 * @node_guid: network byte order.
 * @sys_image_guid: network byte order.
 * @max_mr_size: largest memory region.
 * @page_size_cap: supported page sizes, a bit per size.
 * @device_cap_flags: enum ib_uverbs_device_cap_flags.
 * @vendor_id: IEEE vendor id.
 * @vendor_part_id: the vendor's part id.
 * @hw_ver: hardware version.
 * @max_qp: QPs.
 * @max_qp_wr: work requests per queue.
 * @max_sge: scatter/gather entries per request.
 * @max_sge_rd: scatter/gather entries per RDMA read.
 * @max_cq: CQs.
 * @max_cqe: entries per CQ.
 * @max_mr: memory regions.
 * @max_pd: PDs.
 * @max_qp_rd_atom: outstanding reads/atomics per QP as target.
 * @max_qp_init_rd_atom: outstanding reads/atomics per QP as initiator.
 * @max_srq: SRQs.
 * @max_srq_wr: work requests per SRQ.
 * @max_srq_sge: scatter entries per SRQ request.
 * @max_ah: address handles.
 * @max_mw: memory windows.
 * @atomic_cap: enum ibv_atomic_cap.
 * @max_pkeys: P_Key table size.
 * @local_ca_ack_delay: local CA ACK delay.
 * @phys_port_cnt: number of ports, 255 for 255 or more (as ib_uverbs
 *	reports it); &struct ib_async_info has the exact count.
 * @max_res_rd_atom: outstanding reads/atomics the device holds as target,
 *	all QPs together. Must be 0 going in (the word was reserved before:
 *	a kernel without it leaves it 0).
 * @num_comp_vectors: completion vectors, the range of
 *	&struct ib_async_create_cq's comp_vector, as ib_uverbs reports it
 *	at context creation. Must be 0 going in (reserved before, as
 *	@max_res_rd_atom).
 *
 * In: @argsz and @flags; all else out, as struct ibv_device_attr.
 */
struct ib_async_device_attr {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 fw_ver;
	__aligned_be64 node_guid;
	__aligned_be64 sys_image_guid;
	__aligned_u64 max_mr_size;
	__aligned_u64 page_size_cap;
	__aligned_u64 device_cap_flags;
	__u32 vendor_id;
	__u32 vendor_part_id;
	__u32 hw_ver;
	__u32 max_qp;
	__u32 max_qp_wr;
	__u32 max_sge;
	__u32 max_sge_rd;
	__u32 max_cq;
	__u32 max_cqe;
	__u32 max_mr;
	__u32 max_pd;
	__u32 max_qp_rd_atom;
	__u32 max_qp_init_rd_atom;
	__u32 max_srq;
	__u32 max_srq_wr;
	__u32 max_srq_sge;
	__u32 max_ah;
	__u32 max_mw;
	__u32 atomic_cap;
	__u16 max_pkeys;
	__u8 local_ca_ack_delay;
	__u8 phys_port_cnt;
	__u32 max_res_rd_atom;
	__u32 num_comp_vectors;
};

#define IB_ASYNC_DEVICE_ATTR_SIZE_V1	144
#define IB_ASYNC_IOC_QUERY_DEVICE \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_QUERY_DEVICE)

/**
 * struct ib_async_port_attr - argument of IB_ASYNC_IOC_QUERY_PORT
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @port_num: the port, 1..phys_port_cnt.
 * @state: enum ibv_port_state.
 * @max_mtu: enum ibv_mtu.
 * @active_mtu: enum ibv_mtu.
 * @gid_tbl_len: GID table size.
 * @port_cap_flags: enum ibv_port_cap_flags.
 * @max_msg_sz: largest message.
 * @bad_pkey_cntr: bad P_Key counter.
 * @qkey_viol_cntr: Q_Key violation counter.
 * @lid: the port's LID.
 * @sm_lid: the subnet manager's LID.
 * @pkey_tbl_len: P_Key table size.
 * @active_speed: as ibv_port_attr.
 * @lmc: LID mask control.
 * @max_vl_num: virtual lanes.
 * @sm_sl: the subnet manager's service level.
 * @subnet_timeout: subnet propagation delay.
 * @init_type_reply: init type reply.
 * @active_width: as ibv_port_attr.
 * @phys_state: physical port state.
 * @link_layer: IBV_LINK_LAYER_*.
 * @port_cap_flags2: enum ibv_port_cap_flags2.
 * @reserved16: must be 0.
 * @reserved: must be 0.
 *
 * In: @argsz, @flags and @port_num; all else out, as struct ibv_port_attr.
 */
struct ib_async_port_attr {
	__u32 argsz;
	__u32 flags;
	__u32 port_num;
	__u32 state;
	__u32 max_mtu;
	__u32 active_mtu;
	__u32 gid_tbl_len;
	__u32 port_cap_flags;
	__u32 max_msg_sz;
	__u32 bad_pkey_cntr;
	__u32 qkey_viol_cntr;
	__u32 lid;
	__u32 sm_lid;
	__u16 pkey_tbl_len;
	__u16 active_speed;
	__u8 lmc;
	__u8 max_vl_num;
	__u8 sm_sl;
	__u8 subnet_timeout;
	__u8 init_type_reply;
	__u8 active_width;
	__u8 phys_state;
	__u8 link_layer;
	__u16 port_cap_flags2;
	__u16 reserved16;
	__u32 reserved;
};

#define IB_ASYNC_PORT_ATTR_SIZE_V1	72
#define IB_ASYNC_IOC_QUERY_PORT \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_QUERY_PORT)

/**
 * struct ib_async_query_gid - argument of IB_ASYNC_IOC_QUERY_GID
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @port_num: the port.
 * @index: the slot in its GID table.
 * @gid: out: the GID.
 * @gid_type: out: enum ib_uverbs_gid_type.
 * @reserved: must be 0.
 *
 * ENODATA for an empty slot.
 */
struct ib_async_query_gid {
	__u32 argsz;
	__u32 flags;
	__u32 port_num;
	__u32 index;
	__u8 gid[16];
	__u32 gid_type;
	__u32 reserved;
};

#define IB_ASYNC_QUERY_GID_SIZE_V1	40
#define IB_ASYNC_IOC_QUERY_GID	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_QUERY_GID)

/**
 * struct ib_async_query_pkey - argument of IB_ASYNC_IOC_QUERY_PKEY
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @port_num: the port.
 * @index: the slot in its P_Key table; EINVAL past the table's end.
 * @pkey: out: the P_Key, host byte order.
 * @reserved16: must be 0.
 * @reserved: must be 0.
 */
struct ib_async_query_pkey {
	__u32 argsz;
	__u32 flags;
	__u32 port_num;
	__u32 index;
	__u16 pkey;
	__u16 reserved16;
	__u32 reserved;
};

#define IB_ASYNC_QUERY_PKEY_SIZE_V1	24
#define IB_ASYNC_IOC_QUERY_PKEY \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_QUERY_PKEY)

/*
 * A minimal data path through kernel buffers: the kernel stages each
 * message in a buffer of its own; user memory is read at POST_SEND and
 * written at POLL_CQ, in the calling process. One work request per call;
 * messages up to IB_ASYNC_MAX_MSG bytes. Send opcodes are IB_UVERBS_WR_SEND
 * and IB_UVERBS_WR_SEND_WITH_IMM (enum ib_uverbs_wr_opcode); work
 * completions use the values of enum ibv_wc_status, enum ib_uverbs_wc_opcode
 * and enum ibv_wc_flags.
 */
#define IB_ASYNC_MAX_MSG		65536
/* send_flags: the values of IBV_SEND_SIGNALED and IBV_SEND_SOLICITED */
#define IB_ASYNC_SEND_SIGNALED		(1U << 1)
#define IB_ASYNC_SEND_SOLICITED		(1U << 2)

/**
 * struct ib_async_post_recv - argument of IB_ASYNC_IOC_POST_RECV
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @obj_type: IB_ASYNC_OBJ_QP or IB_ASYNC_OBJ_SRQ.
 * @handle: the QP or SRQ.
 * @wr_id: returned in the completion.
 * @addr: user pointer where the message lands, at IB_ASYNC_IOC_POLL_CQ.
 * @length: bytes at @addr, up to IB_ASYNC_MAX_MSG.
 * @reserved: must be 0.
 */
struct ib_async_post_recv {
	__u32 argsz;
	__u32 flags;
	__u32 obj_type;
	__u32 handle;
	__aligned_u64 wr_id;
	__aligned_u64 addr;
	__u32 length;
	__u32 reserved;
};

#define IB_ASYNC_POST_RECV_SIZE_V1	40
#define IB_ASYNC_IOC_POST_RECV	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_POST_RECV)

/**
 * struct ib_async_post_send - argument of IB_ASYNC_IOC_POST_SEND
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the QP.
 * @opcode: IB_UVERBS_WR_SEND or IB_UVERBS_WR_SEND_WITH_IMM.
 * @wr_id: returned in the completion.
 * @addr: user pointer to the message, read during the call.
 * @length: bytes at @addr, up to IB_ASYNC_MAX_MSG.
 * @send_flags: IB_ASYNC_SEND_SIGNALED, IB_ASYNC_SEND_SOLICITED (the
 *	receiver's CQ armed for solicited completions is notified), or 0.
 * @imm_data: immediate data, network byte order.
 * @ah_handle: UD only: the AH.
 * @remote_qpn: UD only: the destination QP number.
 * @remote_qkey: UD only: the destination Q_Key.
 */
struct ib_async_post_send {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 opcode;
	__aligned_u64 wr_id;
	__aligned_u64 addr;
	__u32 length;
	__u32 send_flags;
	__be32 imm_data;
	__u32 ah_handle;
	__u32 remote_qpn;
	__u32 remote_qkey;
};

#define IB_ASYNC_POST_SEND_SIZE_V1	56
#define IB_ASYNC_IOC_POST_SEND	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_POST_SEND)

/**
 * struct ib_async_wc - a work completion, as IB_ASYNC_IOC_POLL_CQ fills it
 * @wr_id: the work request's wr_id.
 * @status: enum ibv_wc_status.
 * @opcode: enum ib_uverbs_wc_opcode.
 * @vendor_err: the driver's error code.
 * @byte_len: bytes received.
 * @imm_data: immediate data, network byte order.
 * @qp_num: the local QP number.
 * @src_qp: the remote QP number (UD).
 * @wc_flags: enum ibv_wc_flags.
 * @pkey_index: P_Key index (GSI).
 * @slid: source LID.
 * @sl: service level.
 * @dlid_path_bits: destination LID path bits.
 * @reserved: 0.
 */
struct ib_async_wc {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__be32 imm_data;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u16 reserved;
};

#define IB_ASYNC_WC_SIZE_V1	48

/**
 * struct ib_async_poll_cq - argument of IB_ASYNC_IOC_POLL_CQ
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the CQ.
 * @count: in: entries at @wc (any count: no more are filled than the
 *	file has work requests); out: entries filled.
 * @wc: user pointer to an array of &struct ib_async_wc.
 */
struct ib_async_poll_cq {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 count;
	__aligned_u64 wc;
};

#define IB_ASYNC_POLL_CQ_SIZE_V1	24
#define IB_ASYNC_IOC_POLL_CQ	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_POLL_CQ)

/**
 * struct ib_async_reg_mr - argument of IB_ASYNC_IOC_REG_MR
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @pd_handle: the PD.
 * @handle: out: the MR's handle; IB_ASYNC_IOC_DESTROY deregisters it.
 * @addr: start of the caller's memory.
 * @length: its length in bytes, at least 1.
 * @iova: the address work requests and peers use for @addr; the same
 *	offset within a page as @addr (ibv_reg_mr() passes @addr itself).
 * @access: IB_UVERBS_ACCESS_* bits (enum ibv_access_flags): LOCAL_WRITE,
 *	REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND, ZERO_BASED,
 *	HUGETLB and RELAXED_ORDERING. Remote write and atomic need local
 *	write. ON_DEMAND is EOPNOTSUPP.
 * @lkey: out: the key local work requests name the memory with.
 * @rkey: out: the key peers name it with; what the device returns when
 *	no remote access was asked for.
 * @reserved: must be 0.
 *
 * The pages are pinned for as long as the MR lives (charged to the
 * caller's RLIMIT_MEMLOCK as pinned memory, as ib_uverbs charges its MRs:
 * ENOMEM past the limit unless CAP_IPC_LOCK) and registered with the
 * device by fast registration, so the device reads and writes them
 * directly. Only the process that opened the file may register its
 * memory (EPERM for any other, a forked child included); unmapped memory
 * is EFAULT, writable access to read-only memory EFAULT. A region larger
 * than the device can map in one registration (max_mr_size of
 * IB_ASYNC_IOC_QUERY_DEVICE) is EINVAL.
 */
struct ib_async_reg_mr {
	__u32 argsz;
	__u32 flags;
	__u32 pd_handle;
	__u32 handle;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 iova;
	__u32 access;
	__u32 lkey;
	__u32 rkey;
	__u32 reserved;
};

#define IB_ASYNC_REG_MR_SIZE_V1	56
#define IB_ASYNC_IOC_REG_MR	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_REG_MR)

/*
 * The data path over registered memory: work requests name memory by the
 * lkeys of the file's own MRs (IB_ASYNC_IOC_REG_MR) and the device reads
 * and writes it directly; a list of work requests goes in one call. Both
 * commands take &struct ib_async_post_list.
 */
/* more send_flags: the values of IBV_SEND_FENCE and IBV_SEND_INLINE */
#define IB_ASYNC_SEND_FENCE		(1U << 0)
#define IB_ASYNC_SEND_INLINE		(1U << 3)
/* Work requests and scatter/gather entries one call takes at most. */
#define IB_ASYNC_POST_MAX_WRS		1024
#define IB_ASYNC_POST_MAX_SGES		4096

/**
 * struct ib_async_sge - a scatter/gather entry, as struct ibv_sge
 * @addr: address in the MR's iova space.
 * @length: bytes.
 * @lkey: the lkey of one of the file's MRs on the QP's (or SRQ's) PD,
 *	covering [@addr, @addr + @length); with local write access where
 *	the device writes (receives, RDMA READ, atomics). EINVAL otherwise.
 *	Ignored for IB_ASYNC_SEND_INLINE sends, whose data is read from the
 *	caller's memory at @addr during the call; their entries may hold no
 *	more bytes in all than the QP's max_inline_data (EINVAL).
 */
struct ib_async_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * struct ib_async_send_wr - one send work request of
 *	IB_ASYNC_IOC_POST_SEND_LIST
 * @wr_id: returned in the completion.
 * @num_sge: entries it takes from the list's @sges, after those of the
 *	work requests before it.
 * @opcode: IB_UVERBS_WR_SEND, _SEND_WITH_IMM, _RDMA_WRITE,
 *	_RDMA_WRITE_WITH_IMM, _RDMA_READ, _ATOMIC_CMP_AND_SWP or
 *	_ATOMIC_FETCH_AND_ADD; others are EOPNOTSUPP.
 * @send_flags: IB_ASYNC_SEND_FENCE, _SIGNALED, _SOLICITED, _INLINE.
 * @imm_data: immediate data, network byte order.
 * @remote_addr: RDMA and atomics: the peer's address.
 * @rkey: RDMA and atomics: the peer's rkey.
 * @ah_handle: UD only: the AH.
 * @remote_qpn: UD only: the destination QP number.
 * @remote_qkey: UD only: the destination Q_Key.
 * @compare_add: atomics: the compare (CMP_AND_SWP) or add operand.
 * @swap: CMP_AND_SWP: the swap operand.
 */
struct ib_async_send_wr {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 opcode;
	__u32 send_flags;
	__be32 imm_data;
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 ah_handle;
	__u32 remote_qpn;
	__u32 remote_qkey;
	__aligned_u64 compare_add;
	__aligned_u64 swap;
};

#define IB_ASYNC_SEND_WR_SIZE_V1	64

/**
 * struct ib_async_recv_wr - one receive work request of
 *	IB_ASYNC_IOC_POST_RECV_LIST
 * @wr_id: returned in the completion.
 * @num_sge: entries it takes from the list's @sges.
 * @reserved: must be 0.
 */
struct ib_async_recv_wr {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

#define IB_ASYNC_RECV_WR_SIZE_V1	16

/**
 * struct ib_async_post_list - argument of IB_ASYNC_IOC_POST_SEND_LIST and
 *	IB_ASYNC_IOC_POST_RECV_LIST
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @obj_type: IB_ASYNC_OBJ_QP; receives: or IB_ASYNC_OBJ_SRQ.
 * @handle: the QP or SRQ.
 * @count: work requests at @wrs, 1..IB_ASYNC_POST_MAX_WRS.
 * @wr_size: the caller's size of one of them (&struct ib_async_send_wr or
 *	&struct ib_async_recv_wr), at least the first version's; a larger
 *	one must be zero past the kernel's (E2BIG).
 * @wrs: user pointer to the work requests.
 * @sges: user pointer to their scatter/gather entries, in order.
 * @num_sges: entries at @sges, up to IB_ASYNC_POST_MAX_SGES; the work
 *	requests must use exactly these.
 * @posted: out: how many work requests the device took, in order.
 * @error: out: 0, or the positive errno the device returned for work
 *	request @posted (ibv_post_send()'s bad_wr), which it did not take.
 * @reserved: must be 0.
 *
 * Every work request is checked before any is posted: a bad one fails
 * the call (nothing posted), and so does a device that takes none. When
 * the device takes some and refuses work request @posted, the call
 * returns 0 with @error set. A work request with more entries than the QP
 * (or SRQ) was granted at create (max_send_sge, max_recv_sge, max_sge)
 * is refused so too, as devices refuse it, but before any device sees
 * it: those before it are posted, @posted names it and @error is EINVAL
 * (the call fails with EINVAL if it is the first). Only the memory of the
 * process that opened the file is used (EPERM for any other).
 */
struct ib_async_post_list {
	__u32 argsz;
	__u32 flags;
	__u32 obj_type;
	__u32 handle;
	__u32 count;
	__u32 wr_size;
	__aligned_u64 wrs;
	__aligned_u64 sges;
	__u32 num_sges;
	__u32 posted;
	__u32 error;
	__u32 reserved;
};

#define IB_ASYNC_POST_LIST_SIZE_V1	56
#define IB_ASYNC_IOC_POST_SEND_LIST \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_POST_SEND_LIST)
#define IB_ASYNC_IOC_POST_RECV_LIST \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_POST_RECV_LIST)

/**
 * DOC: Completion rings
 *
 * A CQ's completions can be delivered into memory the program maps, so
 * that polling a CQ that has some takes no system call. The kernel moves
 * completions from the device's CQ into the ring when a command of the
 * file looks at the CQ: IB_ASYNC_IOC_POST_SEND_LIST and
 * IB_ASYNC_IOC_POST_RECV_LIST for the CQs of the QP they posted to,
 * IB_ASYNC_IOC_REQ_NOTIFY_CQ after arming, and IB_ASYNC_IOC_CQ_WAIT, which
 * a program calls when the ring is empty. None is lost: when the ring is
 * full, completions stay in the device's CQ (which overruns, raising
 * IB_ASYNC_EV_CQ_ERR, exactly as without a ring) until the program makes
 * room and asks again.
 */

/**
 * struct ib_async_cq_ring_header - the start of a mapped completion ring
 * @producer: written by the kernel: completions published so far, a count
 *	that wraps at 2^32. Completion i is &struct ib_async_wc number
 *	i & (entries - 1) of the array at @records_offset. Read it with
 *	acquire semantics: every completion before it is then complete.
 * @entries: completions the ring holds, a power of two.
 * @record_size: sizeof(&struct ib_async_wc).
 * @records_offset: byte offset of the array in the mapping.
 * @flags: written by the kernel, enum ib_async_cq_ring_flags, as of the
 *	last time it filled the ring.
 * @reserved: 0.
 *
 * The header and the array are mapped read-only. The program's consumer
 * index lives in a page of its own (&struct ib_async_cq_ring_consumer).
 */
struct ib_async_cq_ring_header {
	__u32 producer;
	__u32 entries;
	__u32 record_size;
	__u32 records_offset;
	__u32 flags;
	__u32 reserved[27];
};

#define IB_ASYNC_CQ_RING_HEADER_SIZE_V1	128

/**
 * enum ib_async_cq_ring_flags - &struct ib_async_cq_ring_header.flags
 * @IB_ASYNC_CQ_RING_FULL: the ring was full when the kernel last filled it:
 *	completions may wait in the device's CQ. Consume, then call
 *	IB_ASYNC_IOC_CQ_WAIT.
 * @IB_ASYNC_CQ_RING_POLL: the next completion is that of a receive posted
 *	with IB_ASYNC_IOC_POST_RECV, whose data is copied at
 *	IB_ASYNC_IOC_POLL_CQ: once the ring is empty, take it (and what
 *	follows) with IB_ASYNC_IOC_POLL_CQ.
 * @IB_ASYNC_CQ_RING_NEED_WAKEUP: no poller (IB_ASYNC_IOC_POLLER) is awake
 *	to fill the ring: an empty ring stays empty until the program calls
 *	IB_ASYNC_IOC_CQ_WAIT (which wakes a sleeping poller). Set from the
 *	ring's start; never reported in &struct ib_async_cq_wait.ring_flags.
 */
enum ib_async_cq_ring_flags {
	IB_ASYNC_CQ_RING_FULL		= 1 << 0,
	IB_ASYNC_CQ_RING_POLL		= 1 << 1,
	IB_ASYNC_CQ_RING_NEED_WAKEUP	= 1 << 2,
};

/**
 * struct ib_async_cq_ring_consumer - the program's side of a ring
 * @consumer: completions the program has finished with, the wrapping count
 *	of @producer. Store it with release semantics once a completion is
 *	read: the kernel may write completion i + entries as soon as
 *	@consumer passes i. The kernel reads it but never trusts it: a value
 *	ahead of the producer, or more than entries behind, makes the ring
 *	count as full, and only this ring's CQ is affected.
 * @reserved: 0.
 */
struct ib_async_cq_ring_consumer {
	__u32 consumer;
	__u32 reserved[15];
};

/**
 * struct ib_async_map_cq_ring - argument of IB_ASYNC_IOC_MAP_CQ_RING
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: the CQ.
 * @entries: in: completions the ring should hold, 0 for the CQ's size
 *	plus one, else at most 16384; rounded up to a power of two. Out:
 *	what it holds.
 * @mmap_offset: out: mmap() offset of the header and completions, to map
 *	with PROT_READ and MAP_SHARED (PROT_WRITE is refused).
 * @mmap_size: out: their length.
 * @consumer_offset: out: mmap() offset of the consumer's page, to map with
 *	PROT_READ | PROT_WRITE and MAP_SHARED.
 * @consumer_size: out: its length, one page.
 *
 * From the answer on, the CQ delivers its completions into the ring.
 * IB_ASYNC_IOC_POLL_CQ still returns completions not yet in the ring: a
 * program that uses both takes the ring's first. The ring's memory is
 * charged to the caller's RLIMIT_MEMLOCK (unless it has CAP_IPC_LOCK) and
 * memory cgroup until the CQ is destroyed and both mappings are gone.
 * EBUSY if the CQ has a ring; EOPNOTSUPP without IB_ASYNC_FEATURE_CQ_RING.
 * The mappings are not inherited across fork(), and only the process that
 * opened the file may map or fill a ring (EPERM), as only it may poll.
 */
struct ib_async_map_cq_ring {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 entries;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__aligned_u64 consumer_offset;
	__aligned_u64 consumer_size;
};

#define IB_ASYNC_MAP_CQ_RING_SIZE_V1	48
#define IB_ASYNC_IOC_MAP_CQ_RING \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_MAP_CQ_RING)

/**
 * struct ib_async_cq_wait - argument of IB_ASYNC_IOC_CQ_WAIT
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @handle: a CQ with a ring.
 * @spin_us: in: while the ring is empty, keep polling the device's CQ for
 *	up to this many microseconds (at most the module parameter
 *	max_cq_spin_us); 0 polls once.
 * @available: out: completions in the ring the program has not consumed.
 * @ring_flags: out: &struct ib_async_cq_ring_header.flags.
 *
 * Never sleeps waiting for a completion: a program that wants to sleep
 * arms the CQ with a completion channel. Returns early, with what the ring
 * holds, when a signal is pending. EINVAL on a CQ without a ring.
 */
struct ib_async_cq_wait {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 spin_us;
	__u32 available;
	__u32 ring_flags;
};

#define IB_ASYNC_CQ_WAIT_SIZE_V1	24
#define IB_ASYNC_IOC_CQ_WAIT	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_CQ_WAIT)

/**
 * DOC: Submission rings
 *
 * A QP's send or receive queue, or an SRQ, can take its work requests from
 * memory the program maps: the program writes each request into the next
 * slot of the ring, advances its producer count and rings the doorbell
 * (IB_ASYNC_IOC_WR_DOORBELL), one system call with no argument structure,
 * for any number of requests. The kernel reads the producer once, bounds
 * it against its own private consumer count, copies each pending slot
 * once into kernel memory and checks only that copy (the rules of
 * IB_ASYNC_IOC_POST_SEND_LIST and IB_ASYNC_IOC_POST_RECV_LIST, and the
 * QP's granted limits), posts them as one chain and publishes how far it
 * got: its consumer count and, where it stopped early, the error of the
 * first slot it did not post. A slot rewritten after the doorbell can
 * never change what was posted.
 *
 * Two mappings: the kernel's header (&struct ib_async_wr_ring_header),
 * read-only; and the program's producer (&struct
 * ib_async_wr_ring_producer) followed by the slots, read-write.
 */

/* Slots a ring holds at most: a doorbell posts no more than a list call. */
#define IB_ASYNC_WR_RING_MAX	IB_ASYNC_POST_MAX_WRS

/**
 * enum ib_async_wr_ring_kind - which of an object's queues a ring feeds
 * @IB_ASYNC_WR_RING_SEND: a QP's send queue: slots hold
 *	&struct ib_async_send_wr.
 * @IB_ASYNC_WR_RING_RECV: a QP's receive queue or an SRQ: slots hold
 *	&struct ib_async_recv_wr.
 */
enum ib_async_wr_ring_kind {
	IB_ASYNC_WR_RING_SEND	= 0,
	IB_ASYNC_WR_RING_RECV	= 1,
};

/**
 * struct ib_async_wr_ring_header - the kernel's side of a submission ring
 * @consumer: written by the kernel: slots it has taken, a count that
 *	wraps at 2^32 (slot i is number i & (entries - 1)). Read it with
 *	acquire semantics: @error is then the one that goes with it. Slots
 *	before it were posted (or refused by the device, see @error); the
 *	program may write them again.
 * @error: written by the kernel before @consumer: 0 when the last
 *	doorbell took every slot up to the producer it read, else the
 *	positive errno of slot @consumer, the first it did not post (the
 *	slots after it were not looked at). ibv_post_send()'s bad_wr.
 * @entries: slots, a power of two.
 * @slot_size: bytes per slot, a multiple of 64.
 * @max_sge: entries a slot holds after its work request: the QP's (or
 *	SRQ's) granted max_send_sge or max_recv_sge when the ring was made.
 * @max_inline: bytes of inline data a send slot holds at @inline_offset:
 *	the QP's granted max_inline_data (0 for a receive ring).
 * @inline_offset: where in a slot its inline data begins.
 * @kind: enum ib_async_wr_ring_kind.
 * @flags: written by the kernel, enum ib_async_wr_ring_flags.
 * @reserved: 0.
 *
 * Alone in a page mapped read-only. The kernel never reads it back.
 */
struct ib_async_wr_ring_header {
	__u32 consumer;
	__u32 error;
	__u32 entries;
	__u32 slot_size;
	__u32 max_sge;
	__u32 max_inline;
	__u32 inline_offset;
	__u32 kind;
	__u32 flags;
	__u32 reserved[7];
};

#define IB_ASYNC_WR_RING_HEADER_SIZE_V1	64

/**
 * enum ib_async_wr_ring_flags - &struct ib_async_wr_ring_header.flags
 * @IB_ASYNC_WR_RING_NEED_WAKEUP: no poller (IB_ASYNC_IOC_POLLER) is awake
 *	to take the ring's slots: ring the doorbell. Set from the ring's
 *	start. A program that counts on a poller stores its producer, then
 *	issues a full barrier, then reads this flag: the poller sets it,
 *	issues a full barrier and reads the producer once more before it
 *	sleeps, so one of the two always sees the other.
 */
enum ib_async_wr_ring_flags {
	IB_ASYNC_WR_RING_NEED_WAKEUP	= 1 << 0,
};

/**
 * struct ib_async_wr_ring_producer - the program's side of a ring
 * @producer: slots the program has written, the wrapping count of
 *	&struct ib_async_wr_ring_header.consumer. Store it with release
 *	semantics once the slots before it are written. The kernel reads it
 *	once per doorbell and never trusts it: more than entries ahead of
 *	its consumer is EINVAL, with nothing posted. Setting it back to the
 *	consumer drops slots the kernel refused.
 * @reserved: ignored.
 *
 * At offset 0 of the slots' mapping; the slots follow at slots_offset.
 * A slot is one work request (&struct ib_async_send_wr or &struct
 * ib_async_recv_wr, whose num_sge is at most max_sge), then max_sge
 * &struct ib_async_sge entries (the first num_sge used), then, in a send
 * ring, max_inline bytes: an IB_ASYNC_SEND_INLINE send carries its data
 * there, its entries' lengths in order (their addr and lkey unused).
 */
struct ib_async_wr_ring_producer {
	__u32 producer;
	__u32 reserved[15];
};

#define IB_ASYNC_WR_RING_PRODUCER_SIZE_V1	64

/**
 * struct ib_async_map_wr_ring - argument of IB_ASYNC_IOC_MAP_WR_RING
 * @argsz: size of the structure.
 * @flags: must be 0.
 * @obj_type: IB_ASYNC_OBJ_QP, or IB_ASYNC_OBJ_SRQ for a receive ring.
 * @handle: the QP or SRQ.
 * @kind: enum ib_async_wr_ring_kind. A QP on an SRQ has no receive ring.
 * @entries: in: slots, 0 for 256, else at most IB_ASYNC_WR_RING_MAX;
 *	rounded up to a power of two. Out: what the ring holds.
 * @slot_size: out: &struct ib_async_wr_ring_header.slot_size.
 * @slots_offset: out: where slot 0 begins in the slots' mapping.
 * @max_sge: out: &struct ib_async_wr_ring_header.max_sge.
 * @max_inline: out: &struct ib_async_wr_ring_header.max_inline.
 * @inline_offset: out: &struct ib_async_wr_ring_header.inline_offset.
 * @reserved: must be 0.
 * @doorbell: out: the argument of IB_ASYNC_IOC_WR_DOORBELL for this ring:
 *	@handle << 1 | @kind.
 * @mmap_offset: out: mmap() offset of the header, to map with PROT_READ
 *	and MAP_SHARED (PROT_WRITE is refused).
 * @mmap_size: out: its length, one page.
 * @slots_mmap_offset: out: mmap() offset of the producer and the slots, to
 *	map with PROT_READ | PROT_WRITE and MAP_SHARED.
 * @slots_mmap_size: out: their length.
 *
 * The ring's memory is charged to the caller's RLIMIT_MEMLOCK (unless it
 * has CAP_IPC_LOCK) and memory cgroup until the QP or SRQ is destroyed and
 * both mappings are gone. EBUSY if the queue has a ring; EOPNOTSUPP
 * without IB_ASYNC_FEATURE_WR_RING or for a 32-bit caller (the mmap()
 * offsets do not fit its calls). The mappings are not inherited across
 * fork(), and only the process that opened the file may map a ring or
 * ring its doorbell (EPERM), as only it may post. IB_ASYNC_IOC_POST_SEND_LIST
 * and IB_ASYNC_IOC_POST_RECV_LIST keep working on a queue with a ring.
 */
struct ib_async_map_wr_ring {
	__u32 argsz;
	__u32 flags;
	__u32 obj_type;
	__u32 handle;
	__u32 kind;
	__u32 entries;
	__u32 slot_size;
	__u32 slots_offset;
	__u32 max_sge;
	__u32 max_inline;
	__u32 inline_offset;
	__u32 reserved;
	__aligned_u64 doorbell;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__aligned_u64 slots_mmap_offset;
	__aligned_u64 slots_mmap_size;
};

#define IB_ASYNC_MAP_WR_RING_SIZE_V1	88
#define IB_ASYNC_IOC_MAP_WR_RING \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_MAP_WR_RING)

/*
 * IB_ASYNC_IOC_WR_DOORBELL: ioctl(fd, IB_ASYNC_IOC_WR_DOORBELL, doorbell),
 * the argument being &struct ib_async_map_wr_ring.doorbell itself, not a
 * pointer: nothing is copied in or out. Posts the ring's slots from the
 * kernel's consumer up to the producer it reads, and publishes the
 * consumer and error (&struct ib_async_wr_ring_header). Returns 0 when it
 * posted every pending slot, or some of them; fails with the error of the
 * first pending slot when it posted none (the header says so too), with
 * EINVAL and nothing posted or published when the producer is more than
 * entries ahead of the consumer, and with ENOENT (no such object), EINVAL
 * (no such ring) or EPERM (another process) as the other commands do.
 * The completions of a QP's CQs are moved into their completion rings
 * afterwards, as after IB_ASYNC_IOC_POST_SEND_LIST.
 */
#define IB_ASYNC_IOC_WR_DOORBELL \
	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_WR_DOORBELL)

/**
 * DOC: Poller
 *
 * A program that wants to post and poll without any system call lends
 * one of its threads to the kernel: that thread calls IB_ASYNC_IOC_POLLER
 * and stays inside it, taking the pending slots of every submission ring
 * of the file (as IB_ASYNC_IOC_WR_DOORBELL does) and filling every
 * completion ring from its CQ (as IB_ASYNC_IOC_CQ_WAIT does), over and
 * over. After @idle_us microseconds without anything to do it sleeps, and
 * says so in every ring (IB_ASYNC_WR_RING_NEED_WAKEUP,
 * IB_ASYNC_CQ_RING_NEED_WAKEUP): a doorbell or a CQ_WAIT wakes it. Once
 * it stopped at a slot it refused (the header's error), it leaves that
 * ring to the program's doorbell until it finds the ring empty: a program
 * that sees an error rings.
 *
 * The poller is the program's own thread, in its process, memory cgroup
 * and CPU cgroup: its CPU time is the program's, and a fatal signal ends
 * it. A file has at most one; a user at most the module parameter
 * max_pollers_per_user at once (EAGAIN beyond, as fork() at
 * RLIMIT_NPROC); 0 there turns the poller off.
 */

/**
 * enum ib_async_poller_flags - &struct ib_async_poller.flags
 * @IB_ASYNC_POLLER_STOP: do not poll: make the file's poller return (0,
 *	with its counts) and return at once. With no poller running, the
 *	next one returns at once instead, having polled nothing.
 */
enum ib_async_poller_flags {
	IB_ASYNC_POLLER_STOP	= 1 << 0,
};

/**
 * struct ib_async_poller - argument of IB_ASYNC_IOC_POLLER
 * @argsz: size of the structure.
 * @flags: 0 to poll, or enum ib_async_poller_flags.
 * @idle_us: in: microseconds without work before the poller sleeps, 0 for
 *	the module parameter poller_idle_us; at most 1000000.
 * @reserved: must be 0.
 * @passes: out: times the poller looked at every ring.
 * @posted: out: work requests it posted.
 * @completions: out: completions it moved into rings.
 * @sleeps: out: times it slept.
 *
 * Polls until IB_ASYNC_POLLER_STOP (0), a signal (EINTR, no counts), or
 * device removal (ENODEV). EBUSY when the file has a poller, EAGAIN at
 * the user's limit, EPERM from another process than the file's opener,
 * EOPNOTSUPP without IB_ASYNC_FEATURE_POLLER.
 */
struct ib_async_poller {
	__u32 argsz;
	__u32 flags;
	__u32 idle_us;
	__u32 reserved;
	__aligned_u64 passes;
	__aligned_u64 posted;
	__aligned_u64 completions;
	__aligned_u64 sleeps;
};

#define IB_ASYNC_POLLER_SIZE_V1	48
#define IB_ASYNC_IOC_POLLER	_IO(IB_ASYNC_IOC_MAGIC, IB_ASYNC_CMD_POLLER)

#endif /* _UAPI_RDMA_IB_ASYNC_H */

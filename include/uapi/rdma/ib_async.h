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
	IB_ASYNC_EV_DEVICE_FATAL	= 8,	/* always a stream's last record */
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
	IB_ASYNC_OBJ_PD		= 5,	/* has handles, never events */
	IB_ASYNC_OBJ_AH		= 6,	/* has handles, never events */
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

/*
 * IB_ASYNC_IOC_READ_BATCH: read without giving up poll()'s truth.
 *
 * First every leading record whose sequence numbers end at or before
 * consume_seq is removed (an overflow record straddling it is trimmed);
 * then up to count records are copied to buf. With IB_ASYNC_READ_PEEK
 * they stay queued, so the file stays readable until a later call
 * consumes them: a library can hand records out one at a time from one
 * system call per batch while poll() on the file keeps telling the truth.
 * Consumed records count towards their objects' events_reported. Blocks
 * like read() unless the file is O_NONBLOCK (EAGAIN when nothing is left).
 */
#define IB_ASYNC_READ_PEEK	(1U << 0)
/* Never block, whatever the file's O_NONBLOCK: for a library's own use. */
#define IB_ASYNC_READ_NONBLOCK	(1U << 1)

struct ib_async_read_batch {
	__u32 argsz;
	__u32 flags;		/* IB_ASYNC_READ_* */
	__aligned_u64 consume_seq;	/* 0: consume nothing */
	__aligned_u64 buf;	/* user pointer to struct ib_async_event[] */
	__u32 count;		/* in: room at buf; out: records copied */
	__u32 reserved;
};

#define IB_ASYNC_READ_BATCH_SIZE_V1	32

/*
 * Kernel verbs objects created on behalf of the file. Each has a per-file
 * handle (never 0) and, for objects that raise events, the caller's 64-bit
 * cookie, returned in @element of the object's event records. Objects live
 * until destroyed with IB_ASYNC_IOC_DESTROY or until the file is closed.
 */

/* IB_ASYNC_IOC_CREATE_PD */
struct ib_async_create_pd {
	__u32 argsz;
	__u32 flags;
	__u32 handle;		/* out */
	__u32 reserved;
};

#define IB_ASYNC_CREATE_PD_SIZE_V1	16

/* IB_ASYNC_IOC_CREATE_CQ */
struct ib_async_create_cq {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 cookie;
	__u32 cqe;		/* in: entries wanted; out: entries allocated */
	__u32 comp_vector;
	__u32 handle;		/* out */
	__u32 reserved;
};

#define IB_ASYNC_CREATE_CQ_SIZE_V1	32

/* Values of qp_type: those of enum ibv_qp_type / enum ib_qp_type. */
#define IB_ASYNC_QPT_RC		2
#define IB_ASYNC_QPT_UD		4

/* IB_ASYNC_IOC_CREATE_QP */
struct ib_async_create_qp {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 cookie;
	__u32 pd_handle;
	__u32 send_cq_handle;
	__u32 recv_cq_handle;
	__u32 srq_handle;	/* 0: no SRQ */
	__u32 qp_type;		/* IB_ASYNC_QPT_* */
	__u32 sq_sig_all;	/* 0 or 1 */
	/* capabilities: in, wanted; out, granted */
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 handle;		/* out */
	__u32 qp_num;		/* out */
	__u32 reserved;
};

#define IB_ASYNC_CREATE_QP_SIZE_V1	72

/*
 * An address vector: where a connected QP sends, or an AH points. RoCE
 * needs the GRH (is_global = 1); the kernel resolves the destination MAC
 * from dgid and the source GID at sgid_index of port_num.
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

/*
 * QP attributes, for IB_ASYNC_IOC_MODIFY_QP (in) and IB_ASYNC_IOC_QUERY_QP
 * (out). attr_mask uses the bits and values of enum ibv_qp_attr_mask /
 * enum ib_qp_attr_mask and states those of enum ibv_qp_state. Supported
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
	__u8 sq_draining;	/* out (query) */
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 min_rnr_timer;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 reserved8;
	__u32 reserved;
	struct ib_async_av av;	/* IB_ASYNC_QP_AV */
	/*
	 * Out (query): the QP's capacities as the driver reports them now,
	 * which may exceed what create asked for (rxe rounds queues up).
	 * Must be 0 for modify.
	 */
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u32 reserved2;
};

#define IB_ASYNC_QP_ATTR_SIZE_V1	96
#define IB_ASYNC_QP_ATTR_SIZE_V2	120

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

/* IB_ASYNC_IOC_CREATE_SRQ */
struct ib_async_create_srq {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 cookie;
	__u32 pd_handle;
	__u32 max_wr;		/* in/out */
	__u32 max_sge;		/* in/out */
	__u32 srq_limit;
	__u32 handle;		/* out */
	__u32 reserved;
};

#define IB_ASYNC_CREATE_SRQ_SIZE_V1	40

/* attr_mask bits of IB_ASYNC_IOC_MODIFY_SRQ (enum ibv_srq_attr_mask) */
#define IB_ASYNC_SRQ_MAX_WR	(1U << 0)
#define IB_ASYNC_SRQ_LIMIT	(1U << 1)

/* IB_ASYNC_IOC_MODIFY_SRQ (in) and IB_ASYNC_IOC_QUERY_SRQ (out) */
struct ib_async_srq_attr {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 attr_mask;	/* modify only */
	__u32 max_wr;
	__u32 max_sge;		/* query only */
	__u32 srq_limit;
	__u32 reserved;
};

#define IB_ASYNC_SRQ_ATTR_SIZE_V1	32

/* IB_ASYNC_IOC_CREATE_WQ: a receive WQ (IBV_WQT_RQ); EOPNOTSUPP without */
struct ib_async_create_wq {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 cookie;
	__u32 pd_handle;
	__u32 cq_handle;
	__u32 max_wr;		/* in/out */
	__u32 max_sge;		/* in/out */
	__u32 handle;		/* out */
	__u32 reserved;
};

#define IB_ASYNC_CREATE_WQ_SIZE_V1	40

/* IB_ASYNC_IOC_CREATE_AH: an address handle for UD sends */
struct ib_async_create_ah {
	__u32 argsz;
	__u32 flags;
	__u32 pd_handle;
	__u32 handle;		/* out */
	struct ib_async_av av;
};

#define IB_ASYNC_CREATE_AH_SIZE_V1	48

/*
 * Device and port queries: the fields of struct ibv_device_attr,
 * ibv_port_attr, ibv_query_gid() and ibv_query_pkey(), with rdma-core's
 * values (enum ibv_port_state, ibv_mtu, link layer, gid types...).
 */

/* IB_ASYNC_IOC_QUERY_DEVICE: in argsz, flags; everything else out */
struct ib_async_device_attr {
	__u32 argsz;
	__u32 flags;
	__aligned_u64 fw_ver;
	__be64 node_guid;
	__be64 sys_image_guid;
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
	__u32 reserved;
};

#define IB_ASYNC_DEVICE_ATTR_SIZE_V1	144

/* IB_ASYNC_IOC_QUERY_PORT: in argsz, flags, port_num */
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

/* IB_ASYNC_IOC_QUERY_GID: in port_num, index; ENODATA for an empty slot */
struct ib_async_query_gid {
	__u32 argsz;
	__u32 flags;
	__u32 port_num;
	__u32 index;
	__u8 gid[16];		/* out */
	__u32 gid_type;		/* out: 0 IB, 1 RoCE v1, 2 RoCE v2 */
	__u32 reserved;
};

#define IB_ASYNC_QUERY_GID_SIZE_V1	40

/* IB_ASYNC_IOC_QUERY_PKEY: in port_num, index */
struct ib_async_query_pkey {
	__u32 argsz;
	__u32 flags;
	__u32 port_num;
	__u32 index;
	__u16 pkey;		/* out, host byte order */
	__u16 reserved16;
	__u32 reserved;
};

#define IB_ASYNC_QUERY_PKEY_SIZE_V1	24

/* IB_ASYNC_IOC_RESIZE_CQ: EOPNOTSUPP where the driver cannot */
struct ib_async_resize_cq {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 cqe;		/* in: wanted; out: allocated */
};

#define IB_ASYNC_RESIZE_CQ_SIZE_V1	16

/*
 * A minimal data path through kernel buffers: the kernel stages each
 * message in a buffer of its own; user memory is read at POST_SEND and
 * written at POLL_CQ, in the calling process. One work request per call;
 * messages up to IB_ASYNC_MAX_MSG bytes. Send opcodes are
 * IBV_WR_SEND and IBV_WR_SEND_WITH_IMM; work completions use the values of
 * enum ibv_wc_status / ibv_wc_opcode / ibv_wc_flags.
 */
#define IB_ASYNC_MAX_MSG	65536
#define IB_ASYNC_WR_SEND		2
#define IB_ASYNC_WR_SEND_WITH_IMM	3
#define IB_ASYNC_SEND_SIGNALED		(1U << 1)

/* IB_ASYNC_IOC_POST_RECV: to a QP or an SRQ */
struct ib_async_post_recv {
	__u32 argsz;
	__u32 flags;
	__u32 obj_type;		/* IB_ASYNC_OBJ_QP or IB_ASYNC_OBJ_SRQ */
	__u32 handle;
	__aligned_u64 wr_id;
	__aligned_u64 addr;	/* where the message lands, at POLL_CQ */
	__u32 length;
	__u32 reserved;
};

#define IB_ASYNC_POST_RECV_SIZE_V1	40

/* IB_ASYNC_IOC_POST_SEND */
struct ib_async_post_send {
	__u32 argsz;
	__u32 flags;
	__u32 handle;		/* QP */
	__u32 opcode;		/* IB_ASYNC_WR_* */
	__aligned_u64 wr_id;
	__aligned_u64 addr;	/* the message, read now */
	__u32 length;
	__u32 send_flags;	/* IB_ASYNC_SEND_SIGNALED */
	__be32 imm_data;
	__u32 ah_handle;	/* UD only */
	__u32 remote_qpn;	/* UD only */
	__u32 remote_qkey;	/* UD only */
};

#define IB_ASYNC_POST_SEND_SIZE_V1	56

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

/* IB_ASYNC_IOC_POLL_CQ */
struct ib_async_poll_cq {
	__u32 argsz;
	__u32 flags;
	__u32 handle;
	__u32 count;		/* in: entries at wc; out: entries filled */
	__aligned_u64 wc;	/* user pointer to struct ib_async_wc[count] */
};

#define IB_ASYNC_POLL_CQ_SIZE_V1	24

/* attr_mask bits of IB_ASYNC_IOC_MODIFY_WQ (enum ibv_wq_attr_mask) */
#define IB_ASYNC_WQ_STATE	(1U << 0)
#define IB_ASYNC_WQ_CUR_STATE	(1U << 1)
#define IB_ASYNC_WQ_FLAGS	(1U << 2)

/* IB_ASYNC_IOC_MODIFY_WQ: states are enum ibv_wq_state (RESET, RDY, ERR) */
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

/*
 * IB_ASYNC_IOC_DESTROY: obj_type must be the handle's. EBUSY while other
 * objects use it (a PD with QPs, a CQ or SRQ with QPs), nothing changed.
 * Unread events of the object are discarded; @events_reported is how many
 * of its events this file's read() returned, which is what an
 * acknowledging consumer must wait for (ib_uverbs' events_reported).
 */
struct ib_async_destroy {
	__u32 argsz;
	__u32 flags;
	__u32 obj_type;		/* enum ib_async_obj_type */
	__u32 handle;
	__aligned_u64 events_reported;		/* out */
	__aligned_u64 comp_events_reported;	/* out: CQ, always 0 for now */
};

#define IB_ASYNC_DESTROY_SIZE_V1	32

/* 0x1b is the InfiniBand subsystem's ioctl magic; ib_async uses 0x90-0xbf. */
#define IB_ASYNC_IOC_MAGIC	0x1b
#define IB_ASYNC_IOC_GET_INFO	_IOWR(IB_ASYNC_IOC_MAGIC, 0x90, struct ib_async_info)
#define IB_ASYNC_IOC_SET_QUEUE_LEN \
	_IOW(IB_ASYNC_IOC_MAGIC, 0x91, struct ib_async_queue_len)
#define IB_ASYNC_IOC_CREATE_PD \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x92, struct ib_async_create_pd)
#define IB_ASYNC_IOC_CREATE_CQ \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x93, struct ib_async_create_cq)
#define IB_ASYNC_IOC_CREATE_QP \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x94, struct ib_async_create_qp)
#define IB_ASYNC_IOC_MODIFY_QP \
	_IOW(IB_ASYNC_IOC_MAGIC, 0x95, struct ib_async_qp_attr)
#define IB_ASYNC_IOC_QUERY_QP \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x96, struct ib_async_qp_attr)
#define IB_ASYNC_IOC_CREATE_SRQ \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x97, struct ib_async_create_srq)
#define IB_ASYNC_IOC_MODIFY_SRQ \
	_IOW(IB_ASYNC_IOC_MAGIC, 0x98, struct ib_async_srq_attr)
#define IB_ASYNC_IOC_QUERY_SRQ \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x99, struct ib_async_srq_attr)
#define IB_ASYNC_IOC_CREATE_WQ \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x9a, struct ib_async_create_wq)
#define IB_ASYNC_IOC_DESTROY \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x9b, struct ib_async_destroy)
#define IB_ASYNC_IOC_CREATE_AH \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x9c, struct ib_async_create_ah)
#define IB_ASYNC_IOC_POST_RECV \
	_IOW(IB_ASYNC_IOC_MAGIC, 0x9d, struct ib_async_post_recv)
#define IB_ASYNC_IOC_POST_SEND \
	_IOW(IB_ASYNC_IOC_MAGIC, 0x9e, struct ib_async_post_send)
#define IB_ASYNC_IOC_POLL_CQ \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0x9f, struct ib_async_poll_cq)
#define IB_ASYNC_IOC_QUERY_DEVICE \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0xa0, struct ib_async_device_attr)
#define IB_ASYNC_IOC_QUERY_PORT \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0xa1, struct ib_async_port_attr)
#define IB_ASYNC_IOC_QUERY_GID \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0xa2, struct ib_async_query_gid)
#define IB_ASYNC_IOC_QUERY_PKEY \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0xa3, struct ib_async_query_pkey)
#define IB_ASYNC_IOC_RESIZE_CQ \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0xa4, struct ib_async_resize_cq)
#define IB_ASYNC_IOC_MODIFY_WQ \
	_IOW(IB_ASYNC_IOC_MAGIC, 0xa5, struct ib_async_modify_wq)
#define IB_ASYNC_IOC_READ_BATCH \
	_IOWR(IB_ASYNC_IOC_MAGIC, 0xa6, struct ib_async_read_batch)

#endif /* _UAPI_RDMA_IB_ASYNC_H */

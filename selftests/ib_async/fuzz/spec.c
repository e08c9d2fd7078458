// SPDX-License-Identifier: GPL-2.0
/*
 * What include/uapi/rdma/ib_async.h says about every command: its number,
 * its structure's size and first size, and what each field of the
 * structure is (flags and their valid bits, reserved words, answers that
 * must be 0 going in, handles and of which type, user pointers, counts,
 * lengths...). The mutations in worker.c work from this table, the
 * builders in gen.c make the valid arguments. Every command of
 * FZ_COMMANDS needs its line here, and the table must end at the last
 * command of enum ib_async_cmd (see the asserts at the end): a command
 * inserted into the header fails the build.
 *
 * An answer is FK_OUT0 only where the kernel's handler refuses it
 * non-zero, so that setting it makes a call that must fail; an answer the
 * kernel overwrites whatever it holds (GET_INFO, the queries) is FK_OUT.
 */
#include "fuzz.h"

#define F(s, f, kind, arg)						\
	{ #f, offsetof(struct s, f), sizeof(((struct s *)0)->f), kind, arg }
#define HDR(s, valid)							\
	F(s, argsz, FK_VAL, 0), F(s, flags, FK_FLAGS, valid)
#define AV(s)								\
	F(s, av.dgid, FK_VAL, 0), F(s, av.flow_label, FK_VAL, 0),	\
	F(s, av.dlid, FK_VAL, 0), F(s, av.sgid_index, FK_VAL, 0),	\
	F(s, av.hop_limit, FK_VAL, 0), F(s, av.traffic_class, FK_VAL, 0), \
	F(s, av.sl, FK_VAL, 0), F(s, av.is_global, FK_VAL, 0),		\
	F(s, av.port_num, FK_PORT, 0), F(s, av.reserved, FK_RSV, 0)

static const struct fz_field f_info[] = {
	HDR(ib_async_info, 0),
	F(ib_async_info, abi_version, FK_OUT, 0),
	F(ib_async_info, record_size, FK_OUT, 0),
	F(ib_async_info, queue_len, FK_OUT, 0),
	F(ib_async_info, max_queue_len, FK_OUT, 0),
	F(ib_async_info, queued, FK_OUT, 0),
	F(ib_async_info, phys_port_cnt, FK_OUT, 0),
	F(ib_async_info, lost, FK_OUT, 0),
	F(ib_async_info, next_seq, FK_OUT, 0),
	F(ib_async_info, node_guid, FK_OUT, 0),
	F(ib_async_info, features, FK_OUT, 0),
	F(ib_async_info, ibdev_index, FK_OUT, 0),
	F(ib_async_info, reserved, FK_RSV, 0),
	F(ib_async_info, ibdev_name, FK_OUT, 0),
};

static const struct fz_field f_queue_len[] = {
	HDR(ib_async_queue_len, 0),
	F(ib_async_queue_len, queue_len, FK_COUNT, 0),
	F(ib_async_queue_len, reserved, FK_RSV, 0),
};

static const struct fz_field f_read_batch[] = {
	HDR(ib_async_read_batch, IB_ASYNC_READ_PEEK | IB_ASYNC_READ_NONBLOCK),
	F(ib_async_read_batch, consume_seq, FK_VAL, 0),
	F(ib_async_read_batch, buf, FK_UPTR, 0),
	F(ib_async_read_batch, count, FK_COUNT, 0),
	F(ib_async_read_batch, reserved, FK_RSV, 0),
};

static const struct fz_field f_create_pd[] = {
	HDR(ib_async_create_pd, 0),
	F(ib_async_create_pd, handle, FK_OUT0, 0),
	F(ib_async_create_pd, reserved, FK_RSV, 0),
};

static const struct fz_field f_create_cq[] = {
	HDR(ib_async_create_cq, IB_ASYNC_CREATE_CQ_CHANNEL),
	F(ib_async_create_cq, user_handle, FK_VAL, 0),
	F(ib_async_create_cq, cqe, FK_COUNT, 0),
	F(ib_async_create_cq, comp_vector, FK_VAL, 0),
	F(ib_async_create_cq, handle, FK_OUT0, 0),
	F(ib_async_create_cq, comp_channel, FK_VAL, 0),
};

static const struct fz_field f_resize_cq[] = {
	HDR(ib_async_resize_cq, 0),
	F(ib_async_resize_cq, handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_resize_cq, cqe, FK_COUNT, 0),
};

static const struct fz_field f_create_qp[] = {
	HDR(ib_async_create_qp, 0),
	F(ib_async_create_qp, user_handle, FK_VAL, 0),
	F(ib_async_create_qp, pd_handle, FK_HANDLE, IB_ASYNC_OBJ_PD),
	F(ib_async_create_qp, send_cq_handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_create_qp, recv_cq_handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_create_qp, srq_handle, FK_HANDLE, IB_ASYNC_OBJ_SRQ),
	F(ib_async_create_qp, qp_type, FK_VAL, 0),
	F(ib_async_create_qp, sq_sig_all, FK_VAL, 0),
	F(ib_async_create_qp, max_send_wr, FK_COUNT, 0),
	F(ib_async_create_qp, max_recv_wr, FK_COUNT, 0),
	F(ib_async_create_qp, max_send_sge, FK_COUNT, 0),
	F(ib_async_create_qp, max_recv_sge, FK_COUNT, 0),
	F(ib_async_create_qp, max_inline_data, FK_COUNT, 0),
	F(ib_async_create_qp, handle, FK_OUT0, 0),
	F(ib_async_create_qp, qp_num, FK_OUT0, 0),
	F(ib_async_create_qp, reserved, FK_RSV, 0),
};

/*
 * MODIFY_QP and QUERY_QP share the structure, not its rules: MODIFY_QP
 * refuses the answer fields set going in, QUERY_QP overwrites them.
 */
#define QP_ATTR(out)							\
	HDR(ib_async_qp_attr, 0),					\
	F(ib_async_qp_attr, handle, FK_HANDLE, IB_ASYNC_OBJ_QP),	\
	F(ib_async_qp_attr, attr_mask, FK_VAL, 0),			\
	F(ib_async_qp_attr, qp_state, FK_VAL, 0),			\
	F(ib_async_qp_attr, cur_qp_state, FK_VAL, 0),			\
	F(ib_async_qp_attr, path_mtu, FK_VAL, 0),			\
	F(ib_async_qp_attr, qkey, FK_VAL, 0),				\
	F(ib_async_qp_attr, rq_psn, FK_VAL, 0),				\
	F(ib_async_qp_attr, sq_psn, FK_VAL, 0),				\
	F(ib_async_qp_attr, dest_qp_num, FK_QPN, 0),			\
	F(ib_async_qp_attr, qp_access_flags, FK_VAL, 0),		\
	F(ib_async_qp_attr, pkey_index, FK_VAL, 0),			\
	F(ib_async_qp_attr, port_num, FK_PORT, 0),			\
	F(ib_async_qp_attr, en_sqd_async_notify, FK_VAL, 0),		\
	F(ib_async_qp_attr, sq_draining, out, 0),			\
	F(ib_async_qp_attr, max_rd_atomic, FK_VAL, 0),			\
	F(ib_async_qp_attr, max_dest_rd_atomic, FK_VAL, 0),		\
	F(ib_async_qp_attr, min_rnr_timer, FK_VAL, 0),			\
	F(ib_async_qp_attr, timeout, FK_VAL, 0),			\
	F(ib_async_qp_attr, retry_cnt, FK_VAL, 0),			\
	F(ib_async_qp_attr, rnr_retry, FK_VAL, 0),			\
	F(ib_async_qp_attr, reserved8, FK_RSV, 0),			\
	F(ib_async_qp_attr, reserved, FK_RSV, 0),			\
	AV(ib_async_qp_attr),						\
	F(ib_async_qp_attr, max_send_wr, out, 0),			\
	F(ib_async_qp_attr, max_recv_wr, out, 0),			\
	F(ib_async_qp_attr, max_send_sge, out, 0),			\
	F(ib_async_qp_attr, max_recv_sge, out, 0),			\
	F(ib_async_qp_attr, max_inline_data, out, 0),			\
	F(ib_async_qp_attr, reserved2, FK_RSV, 0)

static const struct fz_field f_modify_qp[] = {
	QP_ATTR(FK_OUT0),
};

static const struct fz_field f_query_qp[] = {
	QP_ATTR(FK_OUT),
};

static const struct fz_field f_create_srq[] = {
	HDR(ib_async_create_srq, 0),
	F(ib_async_create_srq, user_handle, FK_VAL, 0),
	F(ib_async_create_srq, pd_handle, FK_HANDLE, IB_ASYNC_OBJ_PD),
	F(ib_async_create_srq, max_wr, FK_COUNT, 0),
	F(ib_async_create_srq, max_sge, FK_COUNT, 0),
	F(ib_async_create_srq, srq_limit, FK_COUNT, 0),
	F(ib_async_create_srq, handle, FK_OUT0, 0),
	F(ib_async_create_srq, reserved, FK_RSV, 0),
};

static const struct fz_field f_srq_attr[] = {
	HDR(ib_async_srq_attr, 0),
	F(ib_async_srq_attr, handle, FK_HANDLE, IB_ASYNC_OBJ_SRQ),
	F(ib_async_srq_attr, attr_mask, FK_VAL, 0),
	F(ib_async_srq_attr, max_wr, FK_COUNT, 0),
	F(ib_async_srq_attr, max_sge, FK_COUNT, 0),
	F(ib_async_srq_attr, srq_limit, FK_COUNT, 0),
	F(ib_async_srq_attr, reserved, FK_RSV, 0),
};

static const struct fz_field f_create_wq[] = {
	HDR(ib_async_create_wq, 0),
	F(ib_async_create_wq, user_handle, FK_VAL, 0),
	F(ib_async_create_wq, pd_handle, FK_HANDLE, IB_ASYNC_OBJ_PD),
	F(ib_async_create_wq, cq_handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_create_wq, max_wr, FK_COUNT, 0),
	F(ib_async_create_wq, max_sge, FK_COUNT, 0),
	F(ib_async_create_wq, handle, FK_OUT0, 0),
	F(ib_async_create_wq, reserved, FK_RSV, 0),
};

static const struct fz_field f_modify_wq[] = {
	HDR(ib_async_modify_wq, 0),
	F(ib_async_modify_wq, handle, FK_HANDLE, IB_ASYNC_OBJ_WQ),
	F(ib_async_modify_wq, attr_mask, FK_VAL, 0),
	F(ib_async_modify_wq, wq_state, FK_VAL, 0),
	F(ib_async_modify_wq, curr_wq_state, FK_VAL, 0),
	F(ib_async_modify_wq, wq_flags, FK_VAL, 0),
	F(ib_async_modify_wq, wq_flags_mask, FK_VAL, 0),
};

static const struct fz_field f_create_ah[] = {
	HDR(ib_async_create_ah, 0),
	F(ib_async_create_ah, pd_handle, FK_HANDLE, IB_ASYNC_OBJ_PD),
	F(ib_async_create_ah, handle, FK_OUT0, 0),
	AV(ib_async_create_ah),
};

static const struct fz_field f_destroy[] = {
	HDR(ib_async_destroy, 0),
	F(ib_async_destroy, obj_type, FK_OBJTYPE, 0),
	F(ib_async_destroy, handle, FK_HANDLE, 0),
	F(ib_async_destroy, events_reported, FK_OUT0, 0),
	F(ib_async_destroy, comp_events_reported, FK_OUT0, 0),
};

static const struct fz_field f_device_attr[] = {
	HDR(ib_async_device_attr, 0),
	F(ib_async_device_attr, fw_ver, FK_OUT, 0),
	F(ib_async_device_attr, max_qp, FK_OUT, 0),
	F(ib_async_device_attr, phys_port_cnt, FK_OUT, 0),
	F(ib_async_device_attr, max_res_rd_atom, FK_OUT0, 0),
	F(ib_async_device_attr, num_comp_vectors, FK_OUT0, 0),
};

static const struct fz_field f_port_attr[] = {
	HDR(ib_async_port_attr, 0),
	F(ib_async_port_attr, port_num, FK_PORT, 0),
	F(ib_async_port_attr, state, FK_OUT, 0),
	F(ib_async_port_attr, gid_tbl_len, FK_OUT, 0),
	F(ib_async_port_attr, reserved16, FK_RSV, 0),
	F(ib_async_port_attr, reserved, FK_RSV, 0),
};

static const struct fz_field f_query_gid[] = {
	HDR(ib_async_query_gid, 0),
	F(ib_async_query_gid, port_num, FK_PORT, 0),
	F(ib_async_query_gid, index, FK_COUNT, 0),
	F(ib_async_query_gid, gid, FK_OUT, 0),
	F(ib_async_query_gid, gid_type, FK_OUT, 0),
	F(ib_async_query_gid, reserved, FK_RSV, 0),
};

static const struct fz_field f_query_pkey[] = {
	HDR(ib_async_query_pkey, 0),
	F(ib_async_query_pkey, port_num, FK_PORT, 0),
	F(ib_async_query_pkey, index, FK_COUNT, 0),
	F(ib_async_query_pkey, pkey, FK_OUT, 0),
	F(ib_async_query_pkey, reserved16, FK_RSV, 0),
	F(ib_async_query_pkey, reserved, FK_RSV, 0),
};

static const struct fz_field f_post_recv[] = {
	HDR(ib_async_post_recv, 0),
	F(ib_async_post_recv, obj_type, FK_OBJTYPE, 0),
	F(ib_async_post_recv, handle, FK_HANDLE, 0),
	F(ib_async_post_recv, wr_id, FK_VAL, 0),
	F(ib_async_post_recv, addr, FK_UPTR, 0),
	F(ib_async_post_recv, length, FK_LEN, 0),
	F(ib_async_post_recv, reserved, FK_RSV, 0),
};

static const struct fz_field f_post_send[] = {
	HDR(ib_async_post_send, 0),
	F(ib_async_post_send, handle, FK_HANDLE, IB_ASYNC_OBJ_QP),
	F(ib_async_post_send, opcode, FK_VAL, 0),
	F(ib_async_post_send, wr_id, FK_VAL, 0),
	F(ib_async_post_send, addr, FK_UPTR, 0),
	F(ib_async_post_send, length, FK_LEN, 0),
	F(ib_async_post_send, send_flags, FK_VAL, 0),
	F(ib_async_post_send, imm_data, FK_VAL, 0),
	F(ib_async_post_send, ah_handle, FK_HANDLE, IB_ASYNC_OBJ_AH),
	F(ib_async_post_send, remote_qpn, FK_QPN, 0),
	F(ib_async_post_send, remote_qkey, FK_VAL, 0),
};

static const struct fz_field f_poll_cq[] = {
	HDR(ib_async_poll_cq, 0),
	F(ib_async_poll_cq, handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_poll_cq, count, FK_COUNT, 0),
	F(ib_async_poll_cq, wc, FK_UPTR, 0),
};

static const struct fz_field f_create_channel[] = {
	HDR(ib_async_create_channel,
	    IB_ASYNC_CHANNEL_NONBLOCK | IB_ASYNC_CHANNEL_COALESCE |
	    IB_ASYNC_CHANNEL_STATE | IB_ASYNC_CHANNEL_RESYNC),
	F(ib_async_create_channel, type, FK_VAL, 0),
	F(ib_async_create_channel, fd, FK_OUT0, 0),
};

static const struct fz_field f_req_notify_cq[] = {
	HDR(ib_async_req_notify_cq, IB_ASYNC_NOTIFY_SOLICITED),
	F(ib_async_req_notify_cq, handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_req_notify_cq, reserved, FK_RSV, 0),
};

static const struct fz_field f_reg_mr[] = {
	HDR(ib_async_reg_mr, 0),
	F(ib_async_reg_mr, pd_handle, FK_HANDLE, IB_ASYNC_OBJ_PD),
	F(ib_async_reg_mr, handle, FK_OUT0, 0),
	F(ib_async_reg_mr, addr, FK_UPTR, 0),
	F(ib_async_reg_mr, length, FK_LEN, 0),
	F(ib_async_reg_mr, iova, FK_VAL, 0),
	F(ib_async_reg_mr, access, FK_FLAGS, FZ_MR_ACCESS),
	F(ib_async_reg_mr, lkey, FK_OUT0, 0),
	F(ib_async_reg_mr, rkey, FK_OUT0, 0),
	F(ib_async_reg_mr, reserved, FK_RSV, 0),
};

static const struct fz_field f_post_list[] = {
	HDR(ib_async_post_list, 0),
	F(ib_async_post_list, obj_type, FK_OBJTYPE, 0),
	F(ib_async_post_list, handle, FK_HANDLE, 0),
	F(ib_async_post_list, count, FK_COUNT, 0),
	F(ib_async_post_list, wr_size, FK_LEN, 0),
	F(ib_async_post_list, wrs, FK_UPTR, 0),
	F(ib_async_post_list, sges, FK_UPTR, 0),
	F(ib_async_post_list, num_sges, FK_COUNT, 0),
	F(ib_async_post_list, posted, FK_OUT0, 0),
	F(ib_async_post_list, error, FK_OUT0, 0),
	F(ib_async_post_list, reserved, FK_RSV, 0),
};

static const struct fz_field f_subscribe[] = {
	HDR(ib_async_subscribe, IB_ASYNC_SUB_TYPES | IB_ASYNC_SUB_PORT |
				IB_ASYNC_SUB_OBJECT | IB_ASYNC_SUB_STATE),
	F(ib_async_subscribe, fd, FK_VAL, 0),
	F(ib_async_subscribe, port, FK_PORT, 0),
	F(ib_async_subscribe, type_mask, FK_VAL, 0),
	F(ib_async_subscribe, cookie, FK_VAL, 0),
	F(ib_async_subscribe, obj_handle, FK_VAL, 0),
	F(ib_async_subscribe, sub_id, FK_OUT0, 0),
};

static const struct fz_field f_unsubscribe[] = {
	HDR(ib_async_unsubscribe, 0),
	F(ib_async_unsubscribe, fd, FK_VAL, 0),
	F(ib_async_unsubscribe, sub_id, FK_VAL, 0),
};

static const struct fz_field f_mcast[] = {
	HDR(ib_async_mcast, 0),
	F(ib_async_mcast, qp_handle, FK_HANDLE, IB_ASYNC_OBJ_QP),
	F(ib_async_mcast, lid, FK_VAL, 0),
	F(ib_async_mcast, reserved, FK_RSV, 0),
	F(ib_async_mcast, gid, FK_VAL, 0),
};

static const struct fz_field f_map_ring[] = {
	HDR(ib_async_map_ring, 0),
	F(ib_async_map_ring, entries, FK_COUNT, 0),
	F(ib_async_map_ring, reserved, FK_RSV, 0),
	F(ib_async_map_ring, mmap_offset, FK_OUT0, 0),
	F(ib_async_map_ring, mmap_size, FK_OUT0, 0),
};

static const struct fz_field f_ring_wait[] = {
	HDR(ib_async_ring_wait, IB_ASYNC_READ_NONBLOCK),
	F(ib_async_ring_wait, available, FK_OUT0, 0),
	F(ib_async_ring_wait, reserved, FK_RSV, 0),
};

/* The answers are refused going in: the kernel says where to map. */
static const struct fz_field f_map_cq_ring[] = {
	HDR(ib_async_map_cq_ring, 0),
	F(ib_async_map_cq_ring, handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_map_cq_ring, entries, FK_COUNT, 0),
	F(ib_async_map_cq_ring, mmap_offset, FK_OUT0, 0),
	F(ib_async_map_cq_ring, mmap_size, FK_OUT0, 0),
	F(ib_async_map_cq_ring, consumer_offset, FK_OUT0, 0),
	F(ib_async_map_cq_ring, consumer_size, FK_OUT0, 0),
};

static const struct fz_field f_cq_wait[] = {
	HDR(ib_async_cq_wait, 0),
	F(ib_async_cq_wait, handle, FK_HANDLE, IB_ASYNC_OBJ_CQ),
	F(ib_async_cq_wait, spin_us, FK_VAL, 0),
	F(ib_async_cq_wait, available, FK_OUT0, 0),
	F(ib_async_cq_wait, ring_flags, FK_OUT0, 0),
};

/* The answers again: the kernel says where to map and what to ring. */
static const struct fz_field f_map_wr_ring[] = {
	HDR(ib_async_map_wr_ring, 0),
	F(ib_async_map_wr_ring, obj_type, FK_OBJTYPE, 0),
	F(ib_async_map_wr_ring, handle, FK_HANDLE, 0),
	F(ib_async_map_wr_ring, kind, FK_VAL, 0),
	F(ib_async_map_wr_ring, entries, FK_COUNT, 0),
	F(ib_async_map_wr_ring, slot_size, FK_OUT0, 0),
	F(ib_async_map_wr_ring, slots_offset, FK_OUT0, 0),
	F(ib_async_map_wr_ring, max_sge, FK_OUT0, 0),
	F(ib_async_map_wr_ring, max_inline, FK_OUT0, 0),
	F(ib_async_map_wr_ring, inline_offset, FK_OUT0, 0),
	F(ib_async_map_wr_ring, reserved, FK_RSV, 0),
	F(ib_async_map_wr_ring, doorbell, FK_OUT0, 0),
	F(ib_async_map_wr_ring, mmap_offset, FK_OUT0, 0),
	F(ib_async_map_wr_ring, mmap_size, FK_OUT0, 0),
	F(ib_async_map_wr_ring, slots_mmap_offset, FK_OUT0, 0),
	F(ib_async_map_wr_ring, slots_mmap_size, FK_OUT0, 0),
};

/* No structure: the one value, handle << 1 | kind, or anything at all. */
static const struct fz_field f_wr_doorbell[] = {
	F(fz_doorbell, value, FK_VAL, 0),
};

/* Its counts come back only from a poller that was told to STOP. */
static const struct fz_field f_poller[] = {
	HDR(ib_async_poller, IB_ASYNC_POLLER_STOP),
	F(ib_async_poller, idle_us, FK_VAL, 0),
	F(ib_async_poller, reserved, FK_RSV, 0),
	F(ib_async_poller, passes, FK_OUT0, 0),
	F(ib_async_poller, posted, FK_OUT0, 0),
	F(ib_async_poller, completions, FK_OUT0, 0),
	F(ib_async_poller, sleeps, FK_OUT0, 0),
};

#define ARR(a) (sizeof(a) / sizeof((a)[0]))
#define CMD(NR, fn, s, sz, flds, w, dp)					\
	[IB_ASYNC_CMD_##NR - IB_ASYNC_CMD_BASE] = {			\
		.name = #NR, .nr = IB_ASYNC_CMD_##NR,			\
		.size = sizeof(struct s), .min_size = sz,		\
		.fields = flds, .nfields = ARR(flds),			\
		.build = fz_build_##fn, .done = fz_done_##fn,		\
		.weight = w, .datapath = dp,				\
	}

/* A command whose argument is a value: no size, no argsz. */
#define CMD_VALUE(NR, fn, flds, w, dp)					\
	[IB_ASYNC_CMD_##NR - IB_ASYNC_CMD_BASE] = {			\
		.name = #NR, .nr = IB_ASYNC_CMD_##NR,			\
		.size = sizeof(struct fz_doorbell),			\
		.fields = flds, .nfields = ARR(flds),			\
		.build = fz_build_##fn, .done = fz_done_##fn,		\
		.weight = w, .datapath = dp, .value = true,		\
	}

const struct fz_cmd fz_cmds[] = {
	CMD(GET_INFO, get_info, ib_async_info, IB_ASYNC_INFO_SIZE_V1,
	    f_info, 2, false),
	CMD(SET_QUEUE_LEN, set_queue_len, ib_async_queue_len,
	    IB_ASYNC_QUEUE_LEN_SIZE_V1, f_queue_len, 2, false),
	CMD(READ_BATCH, read_batch, ib_async_read_batch,
	    IB_ASYNC_READ_BATCH_SIZE_V1, f_read_batch, 5, false),
	CMD(CREATE_PD, create_pd, ib_async_create_pd,
	    IB_ASYNC_CREATE_PD_SIZE_V1, f_create_pd, 3, false),
	CMD(CREATE_CQ, create_cq, ib_async_create_cq,
	    IB_ASYNC_CREATE_CQ_SIZE_V1, f_create_cq, 4, false),
	CMD(RESIZE_CQ, resize_cq, ib_async_resize_cq,
	    IB_ASYNC_RESIZE_CQ_SIZE_V1, f_resize_cq, 2, false),
	CMD(CREATE_QP, create_qp, ib_async_create_qp,
	    IB_ASYNC_CREATE_QP_SIZE_V1, f_create_qp, 5, false),
	CMD(MODIFY_QP, modify_qp, ib_async_qp_attr, IB_ASYNC_QP_ATTR_SIZE_V1,
	    f_modify_qp, 12, false),
	CMD(QUERY_QP, query_qp, ib_async_qp_attr, IB_ASYNC_QP_ATTR_SIZE_V1,
	    f_query_qp, 3, false),
	CMD(CREATE_SRQ, create_srq, ib_async_create_srq,
	    IB_ASYNC_CREATE_SRQ_SIZE_V1, f_create_srq, 3, false),
	CMD(MODIFY_SRQ, modify_srq, ib_async_srq_attr,
	    IB_ASYNC_SRQ_ATTR_SIZE_V1, f_srq_attr, 3, false),
	CMD(QUERY_SRQ, query_srq, ib_async_srq_attr,
	    IB_ASYNC_SRQ_ATTR_SIZE_V1, f_srq_attr, 1, false),
	CMD(CREATE_WQ, create_wq, ib_async_create_wq,
	    IB_ASYNC_CREATE_WQ_SIZE_V1, f_create_wq, 2, false),
	CMD(MODIFY_WQ, modify_wq, ib_async_modify_wq,
	    IB_ASYNC_MODIFY_WQ_SIZE_V1, f_modify_wq, 2, false),
	CMD(CREATE_AH, create_ah, ib_async_create_ah,
	    IB_ASYNC_CREATE_AH_SIZE_V1, f_create_ah, 3, false),
	CMD(DESTROY, destroy, ib_async_destroy, IB_ASYNC_DESTROY_SIZE_V1,
	    f_destroy, 8, false),
	CMD(QUERY_DEVICE, query_device, ib_async_device_attr,
	    IB_ASYNC_DEVICE_ATTR_SIZE_V1, f_device_attr, 1, false),
	CMD(QUERY_PORT, query_port, ib_async_port_attr,
	    IB_ASYNC_PORT_ATTR_SIZE_V1, f_port_attr, 1, false),
	CMD(QUERY_GID, query_gid, ib_async_query_gid,
	    IB_ASYNC_QUERY_GID_SIZE_V1, f_query_gid, 1, false),
	CMD(QUERY_PKEY, query_pkey, ib_async_query_pkey,
	    IB_ASYNC_QUERY_PKEY_SIZE_V1, f_query_pkey, 1, false),
	CMD(POST_RECV, post_recv, ib_async_post_recv,
	    IB_ASYNC_POST_RECV_SIZE_V1, f_post_recv, 10, true),
	CMD(POST_SEND, post_send, ib_async_post_send,
	    IB_ASYNC_POST_SEND_SIZE_V1, f_post_send, 10, true),
	CMD(POLL_CQ, poll_cq, ib_async_poll_cq, IB_ASYNC_POLL_CQ_SIZE_V1,
	    f_poll_cq, 10, true),
	CMD(CREATE_CHANNEL, create_channel, ib_async_create_channel,
	    IB_ASYNC_CREATE_CHANNEL_SIZE_V1, f_create_channel, 2, false),
	CMD(REQ_NOTIFY_CQ, req_notify_cq, ib_async_req_notify_cq,
	    IB_ASYNC_REQ_NOTIFY_CQ_SIZE_V1, f_req_notify_cq, 4, false),
	CMD(REG_MR, reg_mr, ib_async_reg_mr, IB_ASYNC_REG_MR_SIZE_V1,
	    f_reg_mr, 3, true),
	CMD(POST_SEND_LIST, post_send_list, ib_async_post_list,
	    IB_ASYNC_POST_LIST_SIZE_V1, f_post_list, 8, true),
	CMD(POST_RECV_LIST, post_recv_list, ib_async_post_list,
	    IB_ASYNC_POST_LIST_SIZE_V1, f_post_list, 6, true),
	CMD(SUBSCRIBE, subscribe, ib_async_subscribe,
	    IB_ASYNC_SUBSCRIBE_SIZE_V1, f_subscribe, 3, false),
	CMD(UNSUBSCRIBE, unsubscribe, ib_async_unsubscribe,
	    IB_ASYNC_UNSUBSCRIBE_SIZE_V1, f_unsubscribe, 2, false),
	CMD(MAP_RING, map_ring, ib_async_map_ring, IB_ASYNC_MAP_RING_SIZE_V1,
	    f_map_ring, 1, false),
	CMD(RING_WAIT, ring_wait, ib_async_ring_wait,
	    IB_ASYNC_RING_WAIT_SIZE_V1, f_ring_wait, 2, false),
	CMD(ATTACH_MCAST, attach_mcast, ib_async_mcast, IB_ASYNC_MCAST_SIZE_V1,
	    f_mcast, 2, false),
	CMD(DETACH_MCAST, detach_mcast, ib_async_mcast, IB_ASYNC_MCAST_SIZE_V1,
	    f_mcast, 2, false),
	CMD(MAP_CQ_RING, map_cq_ring, ib_async_map_cq_ring,
	    IB_ASYNC_MAP_CQ_RING_SIZE_V1, f_map_cq_ring, 3, true),
	CMD(CQ_WAIT, cq_wait, ib_async_cq_wait, IB_ASYNC_CQ_WAIT_SIZE_V1,
	    f_cq_wait, 5, true),
	CMD(MAP_WR_RING, map_wr_ring, ib_async_map_wr_ring,
	    IB_ASYNC_MAP_WR_RING_SIZE_V1, f_map_wr_ring, 3, true),
	CMD_VALUE(WR_DOORBELL, wr_doorbell, f_wr_doorbell, 8, true),
	/*
	 * Polls until the watchdog's SIGUSR1 (UNSTICK_MS) or a STOP from
	 * another worker: rarely, as each call may take that long.
	 */
	CMD(POLLER, poller, ib_async_poller, IB_ASYNC_POLLER_SIZE_V1,
	    f_poller, 1, true),
};

const unsigned int fz_ncmds = ARR(fz_cmds);

/* The table covers enum ib_async_cmd, in order, and nothing beyond. */
#define FZ_COUNT_ONE(NR, name) +1
_Static_assert(ARR(fz_cmds) == 0 FZ_COMMANDS(FZ_COUNT_ONE),
	       "a command of FZ_COMMANDS has no line in fz_cmds");
_Static_assert(IB_ASYNC_CMD_BASE + ARR(fz_cmds) - 1 ==
	       IB_ASYNC_CMD_POLLER,
	       "enum ib_async_cmd grew: describe the new command here");
_Static_assert(ARR(fz_cmds) <= FZ_MAX_CMDS,
	       "the per-command counts have no room for every command");

const struct fz_cmd *fz_cmd_by_nr(unsigned int nr)
{
	if (nr < IB_ASYNC_CMD_BASE || nr - IB_ASYNC_CMD_BASE >= fz_ncmds)
		return NULL;
	return &fz_cmds[nr - IB_ASYNC_CMD_BASE];
}

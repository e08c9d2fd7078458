// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device, port, GID and P_Key queries, answered by the kernel from the
 * same ib_device attributes and caches ib_uverbs reports.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ibasync.h"

/* struct ibv_device_attr from the kernel's answer to QUERY_DEVICE */
static void device_attr_to_ibv(struct ibv_context *ctx,
			       struct ibv_device_attr *attr,
			       const struct ib_async_device_attr *a)
{
	memset(attr, 0, sizeof(*attr));
	/* the providers' rendering of the raw 64-bit firmware version */
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%u.%u.%u",
		 (unsigned int)(a->fw_ver >> 32) & 0xffff,
		 (unsigned int)(a->fw_ver >> 16) & 0xffff,
		 (unsigned int)a->fw_ver & 0xffff);
	attr->node_guid = a->node_guid;
	attr->sys_image_guid = a->sys_image_guid;
	attr->max_mr_size = a->max_mr_size;
	attr->page_size_cap = a->page_size_cap;
	attr->vendor_id = a->vendor_id;
	attr->vendor_part_id = a->vendor_part_id;
	attr->hw_ver = a->hw_ver;
	attr->max_qp = (int)a->max_qp;
	attr->max_qp_wr = (int)a->max_qp_wr;
	/* the kernel's flags are 64 bits; ibv_device_attr keeps the low 32 */
	attr->device_cap_flags = (unsigned int)a->device_cap_flags;
	attr->max_sge = (int)a->max_sge;
	attr->max_sge_rd = (int)a->max_sge_rd;
	attr->max_cq = (int)a->max_cq;
	attr->max_cqe = (int)a->max_cqe;
	attr->max_mr = (int)a->max_mr;
	attr->max_pd = (int)a->max_pd;
	attr->max_qp_rd_atom = (int)a->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = (int)a->max_qp_init_rd_atom;
	/* 0 from a kernel before the field: as a device that does not say */
	attr->max_res_rd_atom = (int)a->max_res_rd_atom;
	/*
	 * What the program can use through this library: the data path
	 * through kernel buffers (a node without USER_MR) posts no atomics,
	 * so it says so as a provider without them does, and programs
	 * (rdma-core's tests too) take the path for such a device instead
	 * of failing a post.
	 */
	attr->atomic_cap = to_ibasync_ctx(ctx)->user_mr ?
		(enum ibv_atomic_cap)a->atomic_cap : IBV_ATOMIC_NONE;
	attr->max_mw = (int)a->max_mw;
	attr->max_ah = (int)a->max_ah;
	attr->max_srq = (int)a->max_srq;
	attr->max_srq_wr = (int)a->max_srq_wr;
	attr->max_srq_sge = (int)a->max_srq_sge;
	attr->max_pkeys = a->max_pkeys;
	attr->local_ca_ack_delay = a->local_ca_ack_delay;
	attr->phys_port_cnt = a->phys_port_cnt;
}

IBASYNC_EXPORT int ibv_query_device(struct ibv_context *context,
				    struct ibv_device_attr *attr)
{
	struct ib_async_device_attr a = { 0 };
	int ret;

	if (!context || !attr)
		return ibasync_err(EINVAL);
	ret = ibasync_cmd_query_device(context->cmd_fd, &a);
	if (ret)
		return ret;
	device_attr_to_ibv(context, attr, &a);
	return 0;
}

/* Whether field of struct ibv_device_attr_ex ends within size bytes. */
#define DEV_EX_FITS(size, field)					\
	((size) >= offsetof(struct ibv_device_attr_ex, field) +		\
		   sizeof(((struct ibv_device_attr_ex *)0)->field))

/*
 * struct verbs_context's query_device_ex, behind rdma-core's inline
 * ibv_query_device_ex(). attr_size is the caller's sizeof(struct
 * ibv_device_attr_ex), which grew with rdma-core releases; as libibverbs
 * does, it must cover orig_attr (else EINVAL), all attr_size bytes are
 * zeroed, and an extended field is written only if it ends within them,
 * so a program built against an older rdma-core is served too.
 *
 * Of the extended fields, the kernel ABI carries the 64-bit capability
 * flags (QUERY_DEVICE) and the port count (GET_INFO, which unlike
 * ibv_device_attr.phys_port_cnt is not limited to 8 bits). Every other
 * one stays 0, as a provider without the capability reports it: ODP,
 * timestamps, TSO, RSS, WQ limits, packet pacing, tag matching, CQ
 * moderation and device memory are not in struct ib_async_device_attr,
 * and most are reached only through verbs this library refuses
 * (completion timestamps in ibv_create_cq_ex(), RSS QPs, ibv_alloc_dm()...).
 */
int ibasync_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_async_device_attr a = { 0 };
	struct ib_async_info info;
	int ret;

	/* the inline checks input too; a caller of the op may not */
	if (!context || !attr || (input && input->comp_mask) ||
	    attr_size < sizeof(attr->orig_attr))
		return ibasync_err(EINVAL);
	memset(attr, 0, attr_size);
	ret = ibasync_cmd_query_device(context->cmd_fd, &a);
	if (!ret && DEV_EX_FITS(attr_size, phys_port_cnt_ex))
		ret = ibasync_cmd_get_info(context->cmd_fd, &info);
	if (ret)
		return ret;
	device_attr_to_ibv(context, &attr->orig_attr, &a);
	if (DEV_EX_FITS(attr_size, device_cap_flags_ex))
		attr->device_cap_flags_ex = a.device_cap_flags;
	if (DEV_EX_FITS(attr_size, phys_port_cnt_ex))
		attr->phys_port_cnt_ex = info.phys_port_cnt;
	return 0;
}

/*
 * struct verbs_context's query_port, behind rdma-core's inline
 * ibv_query_port(): fills attr_size bytes of struct ibv_port_attr, so a
 * program built against an older, smaller structure is served too.
 */
int ibasync_query_port_ex(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr, size_t attr_size)
{
	struct ib_async_port_attr a = {
		.port_num = port_num,
	};
	struct ibv_port_attr p = { 0 };
	int ret;

	if (!context || !attr)
		return ibasync_err(EINVAL);
	ret = ibasync_cmd_query_port(context, &a);
	if (ret)
		return ret;
	p.state = (enum ibv_port_state)a.state;
	p.max_mtu = (enum ibv_mtu)a.max_mtu;
	p.active_mtu = (enum ibv_mtu)a.active_mtu;
	p.gid_tbl_len = (int)a.gid_tbl_len;
	p.port_cap_flags = a.port_cap_flags;
	p.max_msg_sz = a.max_msg_sz;
	p.bad_pkey_cntr = a.bad_pkey_cntr;
	p.qkey_viol_cntr = a.qkey_viol_cntr;
	p.pkey_tbl_len = a.pkey_tbl_len;
	p.lid = (uint16_t)a.lid;
	p.sm_lid = (uint16_t)a.sm_lid;
	p.lmc = a.lmc;
	p.max_vl_num = a.max_vl_num;
	p.sm_sl = a.sm_sl;
	p.subnet_timeout = a.subnet_timeout;
	p.init_type_reply = a.init_type_reply;
	p.active_width = a.active_width;
	/* speeds above 8 bits (XDR) have no ibv_port_attr encoding */
	p.active_speed = (uint8_t)a.active_speed;
	p.phys_state = a.phys_state;
	p.link_layer = a.link_layer;
	p.port_cap_flags2 = a.port_cap_flags2;
	memcpy(attr, &p, attr_size < sizeof(p) ? attr_size : sizeof(p));
	return 0;
}

/*
 * The library symbol, for binaries whose inline found no query_port op
 * and for those built before it existed: their structure ends before
 * port_cap_flags2.
 */
#undef ibv_query_port
IBASYNC_EXPORT int ibv_query_port(struct ibv_context *context,
				  uint8_t port_num,
				  struct _compat_ibv_port_attr *attr)
{
	return ibasync_query_port_ex(context, port_num,
				     (struct ibv_port_attr *)attr,
				     offsetof(struct ibv_port_attr,
					      port_cap_flags2));
}

/* 0 or -1, as libibverbs: an empty slot reads as the zero GID. */
IBASYNC_EXPORT int ibv_query_gid(struct ibv_context *context,
				 uint8_t port_num, int index,
				 union ibv_gid *gid)
{
	struct ib_async_query_gid a = {
		.port_num = port_num,
		.index = (uint32_t)index,
	};
	int ret;

	if (!context || !gid || index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = ibasync_cmd_query_gid(context, &a);
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (ret)
		return -1;
	memcpy(gid->raw, a.gid, sizeof(gid->raw));
	return 0;
}

/* 0 or -1, as libibverbs; the P_Key in network byte order */
IBASYNC_EXPORT int ibv_query_pkey(struct ibv_context *context,
				  uint8_t port_num, int index, __be16 *pkey)
{
	struct ib_async_query_pkey a = {
		.port_num = port_num,
		.index = (uint32_t)index,
	};

	if (!context || !pkey) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * rdma-core reads ports/PORT/pkeys/INDEX in sysfs: a slot or port
	 * that does not exist is ENOENT there, whatever the reason.
	 */
	if (index < 0 || ibasync_cmd_query_pkey(context, &a)) {
		if (index < 0 || errno == EINVAL)
			errno = ENOENT;
		return -1;
	}
	*pkey = htobe16(a.pkey);
	return 0;
}

/* The index of pkey (network byte order) in the port's table, or -1. */
IBASYNC_EXPORT int ibv_get_pkey_index(struct ibv_context *context,
				      uint8_t port_num, __be16 pkey)
{
	struct ibv_port_attr port;
	__be16 p;
	int i;

	if (ibasync_query_port_ex(context, port_num, &port, sizeof(port)))
		return -1;
	for (i = 0; i < port.pkey_tbl_len; i++) {
		if (ibv_query_pkey(context, port_num, i, &p))
			return -1;
		if (p == pkey)
			return i;
	}
	errno = ENOENT;
	return -1;
}

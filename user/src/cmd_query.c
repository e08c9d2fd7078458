// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device and port queries' commands (cmd.h): the kernel's answers as
 * rdma-core's structures, with rdma-core's values (enum ibv_port_state,
 * ibv_mtu, link layer...), which the uAPI keeps. What the library makes
 * of them (query.c: what it can offer over this node) is the callers'.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/* struct ibv_device_attr from the kernel's answer to QUERY_DEVICE */
static void device_attr_to_ibv(struct ibv_device_attr *attr,
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
	attr->atomic_cap = (enum ibv_atomic_cap)a->atomic_cap;
	attr->max_mw = (int)a->max_mw;
	attr->max_ah = (int)a->max_ah;
	attr->max_srq = (int)a->max_srq;
	attr->max_srq_wr = (int)a->max_srq_wr;
	attr->max_srq_sge = (int)a->max_srq_sge;
	attr->max_pkeys = a->max_pkeys;
	attr->local_ca_ack_delay = a->local_ca_ack_delay;
	attr->phys_port_cnt = a->phys_port_cnt;
}

int ibasync_cmd_query_device(int fd, struct ibv_device_attr *attr,
			     uint64_t *cap_flags, uint32_t *num_comp_vectors)
{
	struct ib_async_device_attr a = { .argsz = sizeof(a) };
	int err;

	err = ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_QUERY_DEVICE, &a);
	if (err)
		return err;
	if (attr)
		device_attr_to_ibv(attr, &a);
	if (cap_flags)
		*cap_flags = a.device_cap_flags;
	if (num_comp_vectors)
		*num_comp_vectors = a.num_comp_vectors;
	return 0;
}

int ibasync_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
			   struct ibv_port_attr *attr, uint32_t *speed)
{
	struct ib_async_port_attr a = { .port_num = port_num };
	int err;

	err = IBASYNC_CTX_CMD(ctx, QUERY_PORT, &a);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->state = (enum ibv_port_state)a.state;
	attr->max_mtu = (enum ibv_mtu)a.max_mtu;
	attr->active_mtu = (enum ibv_mtu)a.active_mtu;
	attr->gid_tbl_len = (int)a.gid_tbl_len;
	attr->port_cap_flags = a.port_cap_flags;
	attr->max_msg_sz = a.max_msg_sz;
	attr->bad_pkey_cntr = a.bad_pkey_cntr;
	attr->qkey_viol_cntr = a.qkey_viol_cntr;
	attr->pkey_tbl_len = a.pkey_tbl_len;
	attr->lid = (uint16_t)a.lid;
	attr->sm_lid = (uint16_t)a.sm_lid;
	attr->lmc = a.lmc;
	attr->max_vl_num = a.max_vl_num;
	attr->sm_sl = a.sm_sl;
	attr->subnet_timeout = a.subnet_timeout;
	attr->init_type_reply = a.init_type_reply;
	attr->active_width = a.active_width;
	/* speeds above 8 bits (XDR) have no ibv_port_attr encoding */
	attr->active_speed = (uint8_t)a.active_speed;
	attr->phys_state = a.phys_state;
	attr->link_layer = a.link_layer;
	attr->port_cap_flags2 = a.port_cap_flags2;
	*speed = a.active_speed;
	return 0;
}

int ibasync_cmd_query_gid(struct ibv_context *ctx, uint32_t port_num,
			  uint32_t index, union ibv_gid *gid,
			  uint32_t *gid_type)
{
	struct ib_async_query_gid a = { .port_num = port_num, .index = index };
	int err;

	err = IBASYNC_CTX_CMD(ctx, QUERY_GID, &a);
	if (err)
		return err;
	memcpy(gid->raw, a.gid, sizeof(gid->raw));
	if (gid_type)
		*gid_type = a.gid_type;
	return 0;
}

int ibasync_cmd_query_pkey(struct ibv_context *ctx, uint32_t port_num,
			   uint32_t index, uint16_t *pkey)
{
	struct ib_async_query_pkey a = { .port_num = port_num, .index = index };
	int err;

	err = IBASYNC_CTX_CMD(ctx, QUERY_PKEY, &a);
	if (!err)
		*pkey = a.pkey;
	return err;
}

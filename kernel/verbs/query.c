// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device, port, GID and P_Key queries: what rdma-core's ibv_query_*()
 * need, in rdma-core's value spaces (which the kernel's enums share).
 */
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>

#include "verbs.h"

int ib_async_cmd_query_device(struct ib_async_ucmd *u)
{
	struct ib_device *ib_dev = u->ib_dev;
	const struct ib_device_attr *a = &ib_dev->attrs;
	struct ib_async_device_attr *arg = u->cmd;

	/* the two words were reserved: still 0 going in */
	if (arg->flags || arg->max_res_rd_atom || arg->num_comp_vectors)
		return -EINVAL;
	memset(arg, 0, sizeof(*arg));
	arg->argsz = sizeof(*arg);
	arg->fw_ver = a->fw_ver;
	arg->node_guid = ib_dev->node_guid;
	arg->sys_image_guid = a->sys_image_guid;
	/* What REG_MR takes, which a device's own limit may exceed. */
	arg->max_mr_size = ib_async_max_user_mr_size(ib_dev);
	arg->page_size_cap = a->page_size_cap;
	arg->device_cap_flags = a->device_cap_flags;
	arg->vendor_id = a->vendor_id;
	arg->vendor_part_id = a->vendor_part_id;
	arg->hw_ver = a->hw_ver;
	arg->max_qp = a->max_qp;
	arg->max_qp_wr = a->max_qp_wr;
	/* One number for both directions, as ib_uverbs reports it. */
	arg->max_sge = min(a->max_send_sge, a->max_recv_sge);
	arg->max_sge_rd = a->max_sge_rd;
	arg->max_cq = a->max_cq;
	arg->max_cqe = a->max_cqe;
	arg->max_mr = a->max_mr;
	arg->max_pd = a->max_pd;
	arg->max_qp_rd_atom = a->max_qp_rd_atom;
	arg->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	arg->max_srq = a->max_srq;
	arg->max_srq_wr = a->max_srq_wr;
	arg->max_srq_sge = a->max_srq_sge;
	arg->max_ah = a->max_ah;
	arg->max_mw = a->max_mw;
	arg->atomic_cap = a->atomic_cap;
	arg->max_pkeys = a->max_pkeys;
	arg->local_ca_ack_delay = a->local_ca_ack_delay;
	/* 8 bits: saturate as ib_uverbs does; GET_INFO has the full count */
	arg->phys_port_cnt = min_t(u32, rdma_end_port(ib_dev), U8_MAX);
	arg->max_res_rd_atom = a->max_res_rd_atom;
	arg->num_comp_vectors = ib_dev->num_comp_vectors;
	ib_async_ucmd_respond(u);
	return 0;
}

int ib_async_cmd_query_port(struct ib_async_ucmd *u)
{
	struct ib_device *ib_dev = u->ib_dev;
	struct ib_async_port_attr *arg = u->cmd;
	struct ib_port_attr a;
	u32 port;
	int ret;

	if (arg->flags || arg->reserved || arg->reserved16)
		return -EINVAL;
	port = arg->port_num;
	if (!rdma_is_port_valid(ib_dev, port))
		return -EINVAL;
	ret = ib_query_port(ib_dev, port, &a);
	if (ret)
		return ret;
	memset(arg, 0, sizeof(*arg));
	arg->argsz = sizeof(*arg);
	arg->port_num = port;
	arg->state = a.state;
	arg->max_mtu = a.max_mtu;
	arg->active_mtu = a.active_mtu;
	arg->gid_tbl_len = a.gid_tbl_len;
	arg->port_cap_flags = a.port_cap_flags;
	arg->max_msg_sz = a.max_msg_sz;
	arg->bad_pkey_cntr = a.bad_pkey_cntr;
	arg->qkey_viol_cntr = a.qkey_viol_cntr;
	arg->lid = a.lid;
	arg->sm_lid = a.sm_lid;
	arg->pkey_tbl_len = a.pkey_tbl_len;
	arg->active_speed = a.active_speed;
	arg->lmc = a.lmc;
	arg->max_vl_num = a.max_vl_num;
	arg->sm_sl = a.sm_sl;
	arg->subnet_timeout = a.subnet_timeout;
	arg->init_type_reply = a.init_type_reply;
	arg->active_width = a.active_width;
	arg->phys_state = a.phys_state;
	arg->link_layer = rdma_port_get_link_layer(ib_dev, port);
	arg->port_cap_flags2 = a.port_cap_flags2;
	ib_async_ucmd_respond(u);
	return 0;
}

int ib_async_cmd_query_gid(struct ib_async_ucmd *u)
{
	struct ib_device *ib_dev = u->ib_dev;
	const struct ib_gid_attr *attr;
	struct ib_async_query_gid *arg = u->cmd;

	if (arg->flags || arg->reserved ||
	    !rdma_is_port_valid(ib_dev, arg->port_num))
		return -EINVAL;
	/* The GID cache answers for every link layer; ENODATA when empty. */
	attr = rdma_get_gid_attr(ib_dev, arg->port_num, arg->index);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	memcpy(arg->gid, attr->gid.raw, sizeof(arg->gid));
	arg->gid_type = attr->gid_type;
	rdma_put_gid_attr(attr);
	ib_async_ucmd_respond(u);
	return 0;
}

int ib_async_cmd_query_pkey(struct ib_async_ucmd *u)
{
	struct ib_device *ib_dev = u->ib_dev;
	struct ib_async_query_pkey *arg = u->cmd;
	u16 pkey;
	int ret;

	if (arg->flags || arg->reserved || arg->reserved16 ||
	    !rdma_is_port_valid(ib_dev, arg->port_num))
		return -EINVAL;
	/*
	 * Only indexes inside the port's table reach the driver, as sysfs
	 * (where rdma-core reads P_Keys) has files for those alone: some
	 * drivers read an index past it as "the whole table" and write
	 * that many entries into the one @pkey.
	 */
	if (arg->index >=
	    ib_port_immutable_read(ib_dev, arg->port_num)->pkey_tbl_len)
		return -EINVAL;
	ret = ib_query_pkey(ib_dev, arg->port_num, arg->index, &pkey);
	if (ret)
		return ret;
	arg->pkey = pkey;
	ib_async_ucmd_respond(u);
	return 0;
}

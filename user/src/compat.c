// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rest of libibverbs' ABI that takes a device, context or object.
 *
 * Under LD_PRELOAD, every ibv_* symbol libibasync leaves undefined binds
 * to libibverbs, whose code would read its private state from around our
 * structures (struct verbs_device, verbs_context private data...). So each
 * such call is defined here: implemented where ib_async can answer, else
 * a clear EOPNOTSUPP. Calls that touch no such state (ibv_fork_init(),
 * ibv_rate_to_mbps(), ibv_read_sysfs_file()...) stay libibverbs'.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <endian.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ibasync.h"

static void *null_eopnotsupp(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/*
 * As libibverbs over a provider without rereg_mr (rxe): arguments it
 * refuses itself are IBV_REREG_MR_ERR_INPUT with errno EINVAL; the rest
 * reach the provider's default op, whose failure (errno EOPNOTSUPP)
 * libibverbs reports as IBV_REREG_MR_ERR_CMD. Either way the MR is as it
 * was.
 */
IBASYNC_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
				void *addr, size_t length, int access)
{
	(void)mr; (void)pd;
	if ((flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && (!length || !addr)) ||
	    (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_CMD;
}

IBASYNC_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd,
						uint64_t offset, size_t length,
						uint64_t iova, int fd,
						int access)
{
	(void)pd; (void)offset; (void)length; (void)iova; (void)fd;
	(void)access;
	return null_eopnotsupp();
}

/*
 * Multicast as librdmacm uses it after rdma_join_multicast(): the kernel
 * attaches the UD QP with ib_uverbs' rules (ATTACH_MCAST). 0 or the error,
 * in errno too, as libibverbs; a module without the commands (ENOTTY) is
 * EOPNOTSUPP, as a device without multicast.
 */
static int mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid,
		 bool attach)
{
	int ret;

	if (!qp || !gid)
		return ibasync_err(EINVAL);
	ret = ibasync_cmd_mcast(qp, gid, lid, attach);
	if (ret == ENOTTY)
		ret = EOPNOTSUPP;
	return ret ? ibasync_err(ret) : 0;
}

IBASYNC_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				    uint16_t lid)
{
	return mcast(qp, gid, lid, true);
}

IBASYNC_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				    uint16_t lid)
{
	return mcast(qp, gid, lid, false);
}

IBASYNC_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
					       struct ibv_ah_attr *attr,
					       uint8_t eth_mac[ETHERNET_LL_SIZE],
					       uint16_t *vid)
{
	(void)context; (void)attr; (void)eth_mac; (void)vid;
	return ibasync_err(EOPNOTSUPP);
}

/*
 * As libibverbs: the struct ibv_qp_ex of a QP created with send_ops_flags
 * (qp_wr.c), NULL for any other.
 */
IBASYNC_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	if (!qp || !to_ibasync_qp(qp)->is_ex)
		return null_eopnotsupp();
	return &to_ibasync_qp(qp)->qpx;
}

IBASYNC_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp,
					      enum ibv_wr_opcode op,
					      uint32_t flags)
{
	(void)qp; (void)op; (void)flags;
	return 0;	/* "not guaranteed", the safe answer */
}

/*
 * ECE as libibverbs over a provider without it (rxe): EOPNOTSUPP, in
 * errno too only where libibverbs itself refuses a zero vendor_id before
 * the provider is asked.
 */
IBASYNC_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	if (!ece->vendor_id)
		return ibasync_err(EOPNOTSUPP);
	return EOPNOTSUPP;
}

IBASYNC_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp; (void)ece;
	return EOPNOTSUPP;
}

/* Sharing objects across processes needs ib_uverbs' handles. */
IBASYNC_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	return null_eopnotsupp();
}

IBASYNC_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *context,
					    uint32_t pd_handle)
{
	(void)context; (void)pd_handle;
	return null_eopnotsupp();
}

IBASYNC_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

IBASYNC_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd,
					    uint32_t mr_handle)
{
	(void)pd; (void)mr_handle;
	return null_eopnotsupp();
}

IBASYNC_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

IBASYNC_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *context,
					    uint32_t dm_handle)
{
	(void)context; (void)dm_handle;
	return null_eopnotsupp();
}

IBASYNC_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* The RDMA device's index, as `rdma dev show` prints it. */
IBASYNC_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	struct ib_async_info info;
	int fd, ret;

	fd = open(to_ibasync_dev(device)->node_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = ibasync_cmd_get_info(fd, &info);
	close(fd);
	return ret ? -1 : (int)info.ibdev_index;
}

/*
 * The interface index of the netdev a GID belongs to (RoCE), 0 if none
 * (InfiniBand) or if sysfs does not say: ib_uverbs reports the same
 * netdev, which the kernel also shows as the GID's gid_attrs/ndevs entry.
 * errno is left as it was: the GID query itself succeeded.
 */
static uint32_t gid_ndev_ifindex(const struct ibv_device *device,
				 uint32_t port_num, uint32_t index)
{
	char path[PATH_MAX], name[IF_NAMESIZE + 1];
	int err = errno;
	unsigned int ifindex = 0;

	if (*device->ibdev_path &&
	    snprintf(path, sizeof(path), "%s/ports/%u/gid_attrs/ndevs/%u",
		     device->ibdev_path, port_num, index) < (int)sizeof(path) &&
	    ibasync_read_attr(path, name, sizeof(name)) > 0)
		ifindex = if_nametoindex(name);
	errno = err;
	return ifindex;
}

static int fill_gid_entry(struct ibv_context *context, uint32_t port_num,
			  uint32_t index, struct ibv_gid_entry *entry)
{
	union ibv_gid gid;
	uint32_t type;
	int ret;

	ret = ibasync_cmd_query_gid(context, port_num, index, &gid, &type);
	if (ret)
		return ret;
	memset(entry, 0, sizeof(*entry));
	entry->gid = gid;
	entry->gid_index = index;
	entry->port_num = port_num;
	entry->gid_type = type;
	entry->ndev_ifindex = gid_ndev_ifindex(context->device, port_num,
					       index);
	return 0;
}

/* ibv_query_gid_ex(): ENODATA for an empty slot, as libibverbs. */
IBASYNC_EXPORT int _ibv_query_gid_ex(struct ibv_context *context,
				     uint32_t port_num, uint32_t gid_index,
				     struct ibv_gid_entry *entry,
				     uint32_t flags, size_t entry_size)
{
	if (!context || !entry || flags || entry_size < sizeof(*entry))
		return EINVAL;
	return fill_gid_entry(context, port_num, gid_index, entry);
}

/*
 * ibv_query_gid_type(), which rdma-core's own tools call (ibv_devinfo -v,
 * pyverbs) though libibverbs exports it only at its private node. Left to
 * libibverbs, it would run its ioctl path, which reads the private state
 * libibverbs keeps in front of a context of its own (verbs_context's
 * priv, NULL here) and faults. As there: an empty slot reads as
 * IB/RoCE v1, a failure is -1.
 */
IBASYNC_EXPORT int ibv_query_gid_type(struct ibv_context *context,
				      uint8_t port_num, unsigned int index,
				      enum ibv_gid_type_sysfs *type)
{
	struct ibv_gid_entry e;
	int ret;

	if (!context || !type) {
		errno = EINVAL;
		return -1;
	}
	ret = fill_gid_entry(context, port_num, index, &e);
	if (ret == ENODATA) {
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (ret)
		return -1;
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
		IBV_GID_TYPE_SYSFS_ROCE_V2 : IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}

/* ibv_query_gid_table(): every valid GID of every port, or -errno. */
IBASYNC_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
					    struct ibv_gid_entry *entries,
					    size_t max_entries, uint32_t flags,
					    size_t entry_size)
{
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	uint32_t p, i;
	size_t n = 0;
	int ret;

	if (!context || flags || entry_size < sizeof(*entries))
		return -EINVAL;
	ret = ibv_query_device(context, &dev);
	if (ret)
		return -ret;
	for (p = 1; p <= dev.phys_port_cnt; p++) {
		ret = ibasync_query_port_ex(context, (uint8_t)p, &port,
					    sizeof(port));
		if (ret)
			return -ret;
		for (i = 0; i < (uint32_t)port.gid_tbl_len; i++) {
			struct ibv_gid_entry e;

			ret = fill_gid_entry(context, p, i, &e);
			if (ret == ENODATA)
				continue;
			if (ret)
				return -ret;
			if (n == max_entries)
				return -EINVAL;	/* as libibverbs: too small */
			memcpy((char *)entries + n * entry_size, &e, sizeof(e));
			n++;
		}
	}
	return (ssize_t)n;
}

/*
 * The reply AH of a UD receive, as libibverbs' ibv_init_ah_from_wc()
 * (verbs.c) computes it, which librdmacm's UD programs (udaddy, rsockets'
 * udpong...) and every UD server rely on: the generic fields from the
 * completion, and with a GRH the peer's GID as destination and the
 * receiving GID's index as source, found in the context's GID table by
 * value and type. On RoCE v2 over IPv4 the device writes the IPv4 header
 * in the GRH's last 20 bytes (the first 20 are undefined): a header whose
 * IPv6 version nibble is not 6, or one with a valid IPv4 checksum, is
 * IPv4. Left to libibverbs, this would look the GID up through its own
 * context ops, which a context of ours does not have; until then it was
 * EOPNOTSUPP here and udaddy's server failed "to create reply AH".
 */
/* failure as libibverbs' calls here report it: -1, the reason in errno */
static int minus_one(int err)
{
	errno = err;
	return -1;
}

static int ipv4_hdr_csum_ok(const struct iphdr *h)
{
	struct iphdr c;
	const uint16_t *w = (const uint16_t *)&c;
	uint32_t sum = 0;
	unsigned int i;

	memcpy(&c, h, sizeof(c));
	c.check = 0;
	for (i = 0; i < sizeof(c) / 2; i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	return h->check == (uint16_t)~sum;
}

/* 4 or 6: which IP header the GRH buffer holds; -1 (EPROTONOSUPPORT) if none */
static int grh_ip_version(const struct ibv_grh *grh)
{
	const struct iphdr *ip4 = (const void *)((const char *)grh + 20);

	if (((be32toh(grh->version_tclass_flow) >> 28) & 0xf) != 6) {
		if (ip4->version == 4)
			return 4;
		errno = EPROTONOSUPPORT;
		return -1;
	}
	/* the version nibble may be 6 or 4: a valid IPv4 header decides */
	if (ip4->ihl != 5)
		return 6;
	return ipv4_hdr_csum_ok(ip4) ? 4 : 6;
}

static void ipv4_mapped_gid(uint32_t addr_be, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &addr_be, 4);
}

/*
 * The index of @gid of @type on @port in the context's table, or -1 with
 * errno (EINVAL: not there, as libibverbs' lookup running off the table).
 */
static int find_gid_index(struct ibv_context *context, uint8_t port_num,
			  const union ibv_gid *gid, uint32_t type)
{
	struct ibv_port_attr port;
	uint32_t i;
	int ret;

	ret = ibasync_query_port_ex(context, port_num, &port, sizeof(port));
	if (ret)
		return minus_one(ret);
	for (i = 0; i < (uint32_t)port.gid_tbl_len && i <= UINT8_MAX; i++) {
		struct ibv_gid_entry e;

		ret = fill_gid_entry(context, port_num, i, &e);
		if (ret == ENODATA)
			continue;
		if (ret)
			return minus_one(ret);
		if (!memcmp(&e.gid, gid, sizeof(*gid)) &&
		    (e.gid_type == IBV_GID_TYPE_ROCE_V2) ==
		    (type == IBV_GID_TYPE_ROCE_V2))
			return (int)i;
	}
	return minus_one(EINVAL);
}

static int ah_attr_by_ipv4(struct ibv_context *context, uint8_t port_num,
			   const struct iphdr *ip4, struct ibv_ah_attr *attr)
{
	union ibv_gid sgid;
	int idx;

	/* no multicast GID is in the table */
	if (IN_CLASSD(be32toh(ip4->daddr)))
		return minus_one(EINVAL);
	ipv4_mapped_gid(ip4->daddr, &sgid);
	idx = find_gid_index(context, port_num, &sgid, IBV_GID_TYPE_ROCE_V2);
	if (idx < 0)
		return -1;
	ipv4_mapped_gid(ip4->saddr, &attr->grh.dgid);
	attr->grh.sgid_index = (uint8_t)idx;
	attr->grh.hop_limit = ip4->ttl;
	attr->grh.traffic_class = ip4->tos;
	return 0;
}

#define IB_NEXT_HDR	0x1b	/* a GRH followed by the IB transport: RoCE v1 */

static int ah_attr_by_ipv6(struct ibv_context *context, uint8_t port_num,
			   const struct ibv_grh *grh, struct ibv_ah_attr *attr)
{
	uint32_t type;
	int idx;

	if (grh->dgid.raw[0] == 0xff)
		return minus_one(EINVAL);
	attr->grh.dgid = grh->sgid;
	if (grh->next_hdr == IPPROTO_UDP)
		type = IBV_GID_TYPE_ROCE_V2;
	else if (grh->next_hdr == IB_NEXT_HDR)
		type = IBV_GID_TYPE_ROCE_V1;
	else
		return minus_one(EPROTONOSUPPORT);
	idx = find_gid_index(context, port_num, &grh->dgid, type);
	if (idx < 0)
		return -1;
	attr->grh.sgid_index = (uint8_t)idx;
	attr->grh.hop_limit = grh->hop_limit;
	attr->grh.traffic_class =
		(be32toh(grh->version_tclass_flow) >> 20) & 0xff;
	return 0;
}

IBASYNC_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context,
				       uint8_t port_num, struct ibv_wc *wc,
				       struct ibv_grh *grh,
				       struct ibv_ah_attr *ah_attr)
{
	int version;

	memset(ah_attr, 0, sizeof(*ah_attr));
	/* as libibverbs, which reads the flow label even without a GRH */
	ah_attr->grh.flow_label = be32toh(grh->version_tclass_flow) & 0xfffff;
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	ah_attr->is_global = 1;
	version = grh_ip_version(grh);
	if (version == 4)
		return ah_attr_by_ipv4(context, port_num,
				       (const void *)((char *)grh + 20),
				       ah_attr);
	if (version == 6)
		return ah_attr_by_ipv6(context, port_num, grh, ah_attr);
	return -1;
}

IBASYNC_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
						    struct ibv_wc *wc,
						    struct ibv_grh *grh,
						    uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

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
#include <net/if.h>
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

IBASYNC_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				    uint16_t lid)
{
	(void)qp; (void)gid; (void)lid;
	return ibasync_err(EOPNOTSUPP);
}

IBASYNC_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
				    uint16_t lid)
{
	(void)qp; (void)gid; (void)lid;
	return ibasync_err(EOPNOTSUPP);
}

IBASYNC_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context,
				       uint8_t port_num, struct ibv_wc *wc,
				       struct ibv_grh *grh,
				       struct ibv_ah_attr *ah_attr)
{
	(void)context; (void)port_num; (void)wc; (void)grh; (void)ah_attr;
	return ibasync_err(EOPNOTSUPP);
}

IBASYNC_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
						    struct ibv_wc *wc,
						    struct ibv_grh *grh,
						    uint8_t port_num)
{
	(void)pd; (void)wc; (void)grh; (void)port_num;
	return null_eopnotsupp();
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

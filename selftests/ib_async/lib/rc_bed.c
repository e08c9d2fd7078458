// SPDX-License-Identifier: GPL-2.0
/* The bodies of iba_rc_bed.h's helpers. */
#include <sys/mman.h>

#define IBA_NO_HARNESS
#include "iba_rc_bed.h"

int iba_rc_bed_open(struct iba_rc_bed *bed, uint64_t features)
{
	bed->fd = -1;
	bed->mem = MAP_FAILED;
	if (iba_find_dev(&bed->dev) || strncmp(bed->dev.ibdev, "rxe", 3))
		return 1;
	bed->fd = open(bed->dev.node, O_RDWR | O_NONBLOCK);
	if (bed->fd < 0)
		return -errno;
	return (iba_features(bed->fd) & features) == features ? 0 : 1;
}

int iba_rc_bed_qp(struct iba_rc_bed *bed, uint64_t cookie,
		  const struct ib_async_create_qp *sizes,
		  struct ib_async_create_qp *q)
{
	*q = (struct ib_async_create_qp){
		.argsz = sizeof(*q), .user_handle = cookie,
		.pd_handle = bed->pd, .send_cq_handle = bed->cq,
		.recv_cq_handle = bed->cq, .qp_type = IB_UVERBS_QPT_RC,
		.max_send_wr = sizes->max_send_wr,
		.max_recv_wr = sizes->max_recv_wr,
		.max_send_sge = sizes->max_send_sge,
		.max_recv_sge = sizes->max_recv_sge,
		.max_inline_data = sizes->max_inline_data,
	};
	return iba_ioc(bed->fd, IB_ASYNC_IOC_CREATE_QP, q);
}

/* A and B as @qp says, each connected to the other. */
static int iba_rc_bed_pair(struct iba_rc_bed *bed,
			   const struct ib_async_create_qp *qp)
{
	if (!qp)
		return iba_rc_pair(bed->fd, bed->pd, bed->cq, bed->sgid,
				   bed->gid, &bed->a, &bed->b);
	return iba_rc_bed_qp(bed, 1, qp, &bed->a) ?:
	       iba_rc_bed_qp(bed, 2, qp, &bed->b) ?:
	       iba_rc_connect(bed->fd, bed->a.handle, bed->b.qp_num,
			      bed->sgid, bed->gid) ?:
	       iba_rc_connect(bed->fd, bed->b.handle, bed->a.qp_num,
			      bed->sgid, bed->gid);
}

int iba_rc_bed_up(struct iba_rc_bed *bed, uint32_t cqe,
		  const struct ib_async_create_qp *qp, size_t mem_len)
{
	int ret;

	if (!(iba_features(bed->fd) & IB_ASYNC_FEATURE_USER_MR))
		return -EOPNOTSUPP;
	bed->sgid = iba_roce_v2_gid(bed->dev.ibdev, bed->gid);
	if (bed->sgid < 0)
		return -ENOENT;
	ret = iba_create_pd(bed->fd, &bed->pd) ?:
	      iba_create_cq(bed->fd, 0xc0, cqe, &bed->cq) ?:
	      iba_rc_bed_pair(bed, qp);
	if (ret)
		return ret;
	bed->mem_len = mem_len;
	return iba_anon_mr(bed->fd, bed->pd, mem_len,
			   IB_UVERBS_ACCESS_LOCAL_WRITE, &bed->mem, &bed->mr);
}

void iba_rc_bed_close(struct iba_rc_bed *bed)
{
	if (bed->fd >= 0)
		close(bed->fd);
	if (bed->mem != MAP_FAILED)
		munmap(bed->mem, bed->mem_len);
	bed->fd = -1;
	bed->mem = MAP_FAILED;
}

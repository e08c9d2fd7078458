// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * struct verbs_context's create_qp_ex, behind rdma-core's inline
 * ibv_create_qp_ex(). The inline itself sends a comp_mask of exactly
 * IBV_QP_INIT_ATTR_PD to ibv_create_qp(); this op sees every other mask.
 * It only decides which extensions it can honour and then makes the QP
 * the way ibv_create_qp() does (ibasync_create_qp()), so both give the
 * same QP, on the same data path.
 *
 * Honoured: IBV_QP_INIT_ATTR_PD (required: every QP here has a PD) and
 * IBV_QP_INIT_ATTR_CREATE_FLAGS with no flag set, which is what
 * rdma-core's tests and most programs pass for "no special behaviour".
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS makes the QP an extended one with the
 * ibv_wr_*() post API (qp_wr.c), for the ops the data path can post:
 * SEND and SEND_WITH_IMM, and where the node takes posted lists over
 * registered memory RDMA WRITE (with immediate), READ and both atomics.
 * Refused with EOPNOTSUPP, as rxe's provider refuses what it lacks, so
 * callers can tell "not here" from "wrong": XRC domains, RSS (indirection
 * table, RX hash), TSO headers, any creation flag, and any other send op
 * (memory windows, invalidation, TSO, atomic write). Refused with EINVAL: no PD, a PD of another context, and
 * comp_mask bits this library does not know (their fields, past ours,
 * would go unread).
 */
#include <errno.h>
#include <string.h>

#include "ibasync.h"

/* comp_mask bits of rdma-core's enum ibv_qp_init_attr_mask known here */
#define QP_INIT_KNOWN	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |	\
			 IBV_QP_INIT_ATTR_CREATE_FLAGS |		\
			 IBV_QP_INIT_ATTR_MAX_TSO_HEADER |		\
			 IBV_QP_INIT_ATTR_IND_TABLE |			\
			 IBV_QP_INIT_ATTR_RX_HASH |			\
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
/* of those, what ibasync_create_qp() can honour */
#define QP_INIT_HONOURED (IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | \
			  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/* 0, or the errno refusing @attr */
static int check_init_attr_ex(struct ibv_context *context,
			      const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)QP_INIT_KNOWN)
		return EINVAL;
	if (attr->comp_mask & ~(uint32_t)QP_INIT_HONOURED)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~ibasync_wr_ops_offered(context)))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context)
		return EINVAL;
	return 0;
}

struct ibv_qp *ibasync_create_qp_ex(struct ibv_context *context,
				    struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr base;
	struct ibv_qp *qp;
	int err;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	err = check_init_attr_ex(context, attr);
	if (err) {
		errno = err;
		return NULL;
	}
	/* the leading fields of ibv_qp_init_attr_ex are ibv_qp_init_attr's */
	memset(&base, 0, sizeof(base));
	base.qp_context = attr->qp_context;
	base.send_cq = attr->send_cq;
	base.recv_cq = attr->recv_cq;
	base.srq = attr->srq;
	base.cap = attr->cap;
	base.qp_type = attr->qp_type;
	base.sq_sig_all = attr->sq_sig_all;
	qp = ibasync_create_qp(attr->pd, &base);
	if (!qp)
		return NULL;
	attr->cap = base.cap;	/* what the kernel granted */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		ibasync_wr_init(to_ibasync_qp(qp), attr->send_ops_flags);
	return qp;
}

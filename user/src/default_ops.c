// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The struct verbs_context ops libibasync does not implement.
 *
 * A program built against rdma-core reaches these through the inlines of
 * <infiniband/verbs.h>, which call the context's pointer directly. Some
 * inlines test it first (verbs_get_ctx_op()), some do not
 * (ibv_close_xrcd(), ibv_bind_mw()), so a NULL one may crash the caller.
 * libibverbs never leaves a
 * pointer NULL: before a provider's ops it installs defaults that fail
 * the same way whatever the inline, and a program on rxe, which lacks
 * most of these, sees those defaults. So does a program here: every op is
 * set, to the library's own where it has one, else to one of these,
 * which fail exactly as libibverbs' defaults (rdma-core 44): an int op
 * returns EOPNOTSUPP and leaves errno alone, an op that makes an object
 * sets errno to EOPNOTSUPP and returns NULL.
 */
#include <errno.h>

#include "ibasync.h"

static int no_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			uint32_t flags, struct ibv_sge *sg_list,
			uint32_t num_sges)
{
	(void)pd; (void)advice; (void)flags; (void)sg_list; (void)num_sges;
	return EOPNOTSUPP;
}

static struct ibv_mr *no_alloc_null_mr(struct ibv_pd *pd)
{
	(void)pd;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_read_counters(struct ibv_counters *counters, uint64_t *values,
			    uint32_t ncounters, uint32_t flags)
{
	(void)counters; (void)values; (void)ncounters; (void)flags;
	return EOPNOTSUPP;
}

static int no_attach_counters_point_flow(struct ibv_counters *counters,
					 struct ibv_counter_attach_attr *attr,
					 struct ibv_flow *flow)
{
	(void)counters; (void)attr; (void)flow;
	return EOPNOTSUPP;
}

static struct ibv_counters *
no_create_counters(struct ibv_context *context,
		   struct ibv_counters_init_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_destroy_counters(struct ibv_counters *counters)
{
	(void)counters;
	return EOPNOTSUPP;
}

static struct ibv_mr *no_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				   uint64_t dm_offset, size_t length,
				   unsigned int access)
{
	(void)pd; (void)dm; (void)dm_offset; (void)length; (void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_dm *no_alloc_dm(struct ibv_context *context,
				  struct ibv_alloc_dm_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_free_dm(struct ibv_dm *dm)
{
	(void)dm;
	return EOPNOTSUPP;
}

static int no_modify_flow_action_esp(struct ibv_flow_action *action,
				     struct ibv_flow_action_esp_attr *attr)
{
	(void)action; (void)attr;
	return EOPNOTSUPP;
}

static int no_destroy_flow_action(struct ibv_flow_action *action)
{
	(void)action;
	return EOPNOTSUPP;
}

static struct ibv_flow_action *
no_create_flow_action_esp(struct ibv_context *context,
			  struct ibv_flow_action_esp_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_modify_qp_rate_limit(struct ibv_qp *qp,
				   struct ibv_qp_rate_limit_attr *attr)
{
	(void)qp; (void)attr;
	return EOPNOTSUPP;
}

static struct ibv_pd *
no_alloc_parent_domain(struct ibv_context *context,
		       struct ibv_parent_domain_init_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_dealloc_td(struct ibv_td *td)
{
	(void)td;
	return EOPNOTSUPP;
}

static struct ibv_td *no_alloc_td(struct ibv_context *context,
				  struct ibv_td_init_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	(void)cq; (void)attr;
	return EOPNOTSUPP;
}

/* As libibverbs' default, *bad_op is left as it was. */
static int no_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
			   struct ibv_ops_wr **bad_op)
{
	(void)srq; (void)op; (void)bad_op;
	return EOPNOTSUPP;
}

static int no_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	(void)table;
	return EOPNOTSUPP;
}

static struct ibv_rwq_ind_table *
no_create_rwq_ind_table(struct ibv_context *context,
			struct ibv_rwq_ind_table_init_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_query_rt_values(struct ibv_context *context,
			      struct ibv_values_ex *values)
{
	(void)context; (void)values;
	return EOPNOTSUPP;
}

static int no_destroy_flow(struct ibv_flow *flow)
{
	(void)flow;
	return EOPNOTSUPP;
}

static struct ibv_flow *no_create_flow(struct ibv_qp *qp,
				       struct ibv_flow_attr *attr)
{
	(void)qp; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_qp *no_open_qp(struct ibv_context *context,
				 struct ibv_qp_open_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	(void)srq; (void)srq_num;
	return EOPNOTSUPP;
}

static struct ibv_xrcd *no_open_xrcd(struct ibv_context *context,
				     struct ibv_xrcd_init_attr *attr)
{
	(void)context; (void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}

static int no_close_xrcd(struct ibv_xrcd *xrcd)
{
	(void)xrcd;
	return EOPNOTSUPP;
}

/* Set each op the library left NULL; vctx->sz is already full size. */
void ibasync_set_default_ops(struct verbs_context *v)
{
#define DEFAULT_OP(op, fn)	do { if (!v->op) v->op = fn; } while (0)
	DEFAULT_OP(advise_mr, no_advise_mr);
	DEFAULT_OP(alloc_null_mr, no_alloc_null_mr);
	DEFAULT_OP(read_counters, no_read_counters);
	DEFAULT_OP(attach_counters_point_flow, no_attach_counters_point_flow);
	DEFAULT_OP(create_counters, no_create_counters);
	DEFAULT_OP(destroy_counters, no_destroy_counters);
	DEFAULT_OP(reg_dm_mr, no_reg_dm_mr);
	DEFAULT_OP(alloc_dm, no_alloc_dm);
	DEFAULT_OP(free_dm, no_free_dm);
	DEFAULT_OP(modify_flow_action_esp, no_modify_flow_action_esp);
	DEFAULT_OP(destroy_flow_action, no_destroy_flow_action);
	DEFAULT_OP(create_flow_action_esp, no_create_flow_action_esp);
	DEFAULT_OP(modify_qp_rate_limit, no_modify_qp_rate_limit);
	DEFAULT_OP(alloc_parent_domain, no_alloc_parent_domain);
	DEFAULT_OP(dealloc_td, no_dealloc_td);
	DEFAULT_OP(alloc_td, no_alloc_td);
	DEFAULT_OP(modify_cq, no_modify_cq);
	DEFAULT_OP(post_srq_ops, no_post_srq_ops);
	DEFAULT_OP(destroy_rwq_ind_table, no_destroy_rwq_ind_table);
	DEFAULT_OP(create_rwq_ind_table, no_create_rwq_ind_table);
	DEFAULT_OP(query_rt_values, no_query_rt_values);
	DEFAULT_OP(ibv_destroy_flow, no_destroy_flow);
	DEFAULT_OP(ibv_create_flow, no_create_flow);
	DEFAULT_OP(open_qp, no_open_qp);
	DEFAULT_OP(get_srq_num, no_get_srq_num);
	DEFAULT_OP(open_xrcd, no_open_xrcd);
	DEFAULT_OP(close_xrcd, no_close_xrcd);
#undef DEFAULT_OP
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The context's operation tables, as rdma-core's inline verbs reach them:
 * no op is NULL, and the verbs the library does not implement fail as
 * libibverbs' default ops make them fail on a provider without them
 * (an int op returns EOPNOTSUPP and leaves errno; one that makes an object
 * returns NULL with errno EOPNOTSUPP). Objects are stand-ins: none of these
 * calls may look at them.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fake_tree.h"
#include "ibasync.h"
#include "tap.h"

#define SENTINEL 12345

/* An int verb: EOPNOTSUPP returned, errno as it was. */
#define INT_FAILS(call, name) do {					\
	errno = SENTINEL;						\
	int r_ = (call);						\
	OK(r_ == EOPNOTSUPP && errno == SENTINEL,			\
	   "%s: EOPNOTSUPP, errno untouched (%d, %d)", name, r_, errno); \
} while (0)

/* A verb that makes an object: NULL, errno EOPNOTSUPP. */
#define NULL_FAILS(call, name) do {					\
	errno = 0;							\
	const void *p_ = (call);					\
	OK(!p_ && errno == EOPNOTSUPP, "%s: NULL, errno EOPNOTSUPP (%d)", \
	   name, errno);						\
} while (0)

/* Every pointer-sized slot from query_port to close_xrcd is set. */
static void test_no_null_op(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx(ctx);
	size_t off, end = offsetof(struct verbs_context, _ABI_placeholder3);
	unsigned int unset = 0;

	OK(v && v->sz == sizeof(*v), "full-size verbs_context");
	for (off = 0; v && off < end; off += sizeof(void *)) {
		void *slot;

		if (off == offsetof(struct verbs_context, priv) ||
		    off == offsetof(struct verbs_context, ABI_placeholder1) ||
		    off == offsetof(struct verbs_context, ABI_placeholder2))
			continue;
		memcpy(&slot, (char *)v + off, sizeof(slot));
		if (!slot) {
			printf("# verbs_context op at offset %zu is NULL\n", off);
			unset++;
		}
	}
	OK(unset == 0, "no verbs_context op is NULL (%u are)", unset);
	OK(ctx->ops.alloc_mw && ctx->ops.bind_mw && ctx->ops.dealloc_mw &&
	   ctx->ops.poll_cq && ctx->ops.req_notify_cq && ctx->ops.post_send &&
	   ctx->ops.post_recv && ctx->ops.post_srq_recv,
	   "every live ibv_context_ops entry is set");
}

static void test_defaults(struct ibv_context *ctx)
{
	struct ibv_pd pd = { .context = ctx };
	struct ibv_qp qp = { .context = ctx, .qp_type = IBV_QPT_RC };
	struct ibv_cq cq = { .context = ctx };
	struct ibv_srq srq = { .context = ctx };
	struct ibv_td td = { .context = ctx };
	struct ibv_dm dm = { .context = ctx };
	struct ibv_xrcd xrcd = { .context = ctx };
	struct ibv_flow flow = { .context = ctx };
	struct ibv_flow_action fa = { .context = ctx };
	struct ibv_counters cnt = { .context = ctx };
	struct ibv_rwq_ind_table rwq = { .context = ctx };
	struct ibv_mw mw = { .context = ctx, .type = IBV_MW_TYPE_1 };
	struct ibv_values_ex vals = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_modify_cq_attr mcq = { .attr_mask = IBV_CQ_ATTR_MODERATE };
	struct ibv_td_init_attr tda = { 0 };
	struct ibv_parent_domain_init_attr pda = { .pd = &pd };
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_OFLAGS };
	struct ibv_alloc_dm_attr dma = { .length = 64 };
	struct ibv_counters_init_attr ca = { 0 };
	struct ibv_rwq_ind_table_init_attr ria = { 0 };
	struct ibv_flow_attr fla = { .size = sizeof(fla) };
	struct ibv_flow_action_esp_attr esp = { 0 };
	struct ibv_qp_open_attr oa = { 0 };
	struct ibv_qp_rate_limit_attr rl = { 0 };
	struct ibv_ops_wr op = { 0 }, *bad_op = &op;
	struct ibv_counter_attach_attr caa = { 0 };
	struct ibv_srq_init_attr_ex sx = {
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
		.srq_type = IBV_SRQT_TM, .pd = &pd, .cq = &cq,
		.tm_cap = { .max_num_tags = 1, .max_ops = 1 },
	};
	struct ibv_mw_bind bind = { 0 };
	struct ibv_sge sge = { 0 };
	struct ibv_ece ece = { .vendor_id = 0x15b3 };
	uint64_t v64;
	uint32_t n;

	NULL_FAILS(ibv_alloc_td(ctx, &tda), "ibv_alloc_td");
	INT_FAILS(ibv_dealloc_td(&td), "ibv_dealloc_td");
	NULL_FAILS(ibv_alloc_parent_domain(ctx, &pda), "ibv_alloc_parent_domain");
	NULL_FAILS(ibv_open_xrcd(ctx, &xa), "ibv_open_xrcd");
	INT_FAILS(ibv_close_xrcd(&xrcd), "ibv_close_xrcd (no NULL check)");
	NULL_FAILS(ibv_alloc_dm(ctx, &dma), "ibv_alloc_dm");
	INT_FAILS(ibv_free_dm(&dm), "ibv_free_dm");
	NULL_FAILS(ibv_reg_dm_mr(&pd, &dm, 0, 64, IBV_ACCESS_ZERO_BASED),
		   "ibv_reg_dm_mr");
	NULL_FAILS(ibv_alloc_null_mr(&pd), "ibv_alloc_null_mr");
	INT_FAILS(ibv_advise_mr(&pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1),
		  "ibv_advise_mr");
	INT_FAILS(ibv_query_rt_values_ex(ctx, &vals), "ibv_query_rt_values_ex");
	INT_FAILS(ibv_modify_cq(&cq, &mcq), "ibv_modify_cq");
	NULL_FAILS(ibv_create_flow(&qp, &fla), "ibv_create_flow");
	INT_FAILS(ibv_destroy_flow(&flow), "ibv_destroy_flow");
	NULL_FAILS(ibv_create_flow_action_esp(ctx, &esp),
		   "ibv_create_flow_action_esp");
	INT_FAILS(ibv_modify_flow_action_esp(&fa, &esp),
		  "ibv_modify_flow_action_esp");
	INT_FAILS(ibv_destroy_flow_action(&fa), "ibv_destroy_flow_action");
	NULL_FAILS(ibv_create_counters(ctx, &ca), "ibv_create_counters");
	INT_FAILS(ibv_destroy_counters(&cnt), "ibv_destroy_counters");
	INT_FAILS(ibv_attach_counters_point_flow(&cnt, &caa, &flow),
		  "ibv_attach_counters_point_flow");
	INT_FAILS(ibv_read_counters(&cnt, &v64, 1, 0), "ibv_read_counters");
	NULL_FAILS(ibv_create_rwq_ind_table(ctx, &ria),
		   "ibv_create_rwq_ind_table");
	INT_FAILS(ibv_destroy_rwq_ind_table(&rwq), "ibv_destroy_rwq_ind_table");
	NULL_FAILS(ibv_open_qp(ctx, &oa), "ibv_open_qp");
	INT_FAILS(ibv_modify_qp_rate_limit(&qp, &rl), "ibv_modify_qp_rate_limit");
	INT_FAILS(ibv_get_srq_num(&srq, &n), "ibv_get_srq_num");
	INT_FAILS(ibv_post_srq_ops(&srq, &op, &bad_op), "ibv_post_srq_ops");
	OK(bad_op == &op, "ibv_post_srq_ops: *bad_op left as it was");
	NULL_FAILS(ibv_create_srq_ex(ctx, &sx), "ibv_create_srq_ex (TM)");
	sx.tm_cap.max_num_tags = 0;
	errno = 0;
	OK(!ibv_create_srq_ex(ctx, &sx) && errno == EINVAL,
	   "ibv_create_srq_ex (TM without tags): EINVAL, as libibverbs");
	NULL_FAILS(ibv_alloc_mw(&pd, IBV_MW_TYPE_1), "ibv_alloc_mw");
	INT_FAILS(ibv_bind_mw(&qp, &mw, &bind), "ibv_bind_mw");
	INT_FAILS(ibv_dealloc_mw(&mw), "ibv_dealloc_mw");
	INT_FAILS(ibv_set_ece(&qp, &ece), "ibv_set_ece (vendor_id set)");
	INT_FAILS(ibv_query_ece(&qp, &ece), "ibv_query_ece");
	ece.vendor_id = 0;
	errno = 0;
	OK(ibv_set_ece(&qp, &ece) == EOPNOTSUPP && errno == EOPNOTSUPP,
	   "ibv_set_ece (vendor_id 0): EOPNOTSUPP, errno too");
	errno = 0;
	OK(ibv_rereg_mr(NULL, IBV_REREG_MR_CHANGE_PD, &pd, NULL, 0, 0) ==
	   IBV_REREG_MR_ERR_CMD && errno == EOPNOTSUPP,
	   "ibv_rereg_mr: IBV_REREG_MR_ERR_CMD, errno EOPNOTSUPP");
	errno = 0;
	OK(ibv_rereg_mr(NULL, 1 << 5, &pd, NULL, 0, 0) ==
	   IBV_REREG_MR_ERR_INPUT && errno == EINVAL,
	   "ibv_rereg_mr (unknown flag): IBV_REREG_MR_ERR_INPUT, errno EINVAL");
}

int main(void)
{
	struct ft_fake0 ft;
	struct ibv_context *ctx;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx != NULL, "open fake0"))
		return tap_done();
	test_no_null_op(ctx);
	test_defaults(ctx);
	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}

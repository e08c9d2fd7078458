/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The entry points of the context's op tables (verbs.py's "inline" group),
 * for the programs gen.py writes; included by difftest_rt.h.
 *
 * Most of them meet, on rxe, the op libibverbs (and the shim) installs
 * where a provider has none: an int op returns EOPNOTSUPP and leaves errno
 * alone, an op that makes an object returns NULL with errno EOPNOTSUPP.
 * errno is cleared before each call and printed after it, so that
 * "errno untouched" is part of what the two stacks are compared on.
 * Objects no stack on rxe makes (thread domains, XRC domains, device
 * memory, flows, counters, RSS tables) are stand-ins when a call needs
 * one: only the default op, which never looks at it, receives them.
 * Every object made here is destroyed in the same call: the rest of the
 * program does not depend on these.
 */
#ifndef OPS_RT_H
#define OPS_RT_H

#include <unistd.h>

/*
 * An int op: its value (an errno name when positive) and, when it failed,
 * errno after it. A success says nothing of errno: libibverbs may leave
 * one there from a command path it tried first.
 */
static inline void tr_op(const char *call, int rc, int err)
{
	ncalls++;
	if (!rc)
		line("%s = 0", call);
	else if (rc > 0)
		line("%s = %s errno=%s", call, ename(rc), ename(err));
	else
		line("%s = %d errno=%s", call, rc, ename(err));
}

#define OP(call, expr)							\
	do {								\
		int rc_;						\
		errno = 0;						\
		rc_ = (expr);						\
		tr_op(call, rc_, errno);				\
	} while (0)

/* A constructor of the op tables: errno cleared, then as tr_ptr(). */
#define MAKE(call, p, expr)						\
	do {								\
		errno = 0;						\
		(p) = (expr);						\
		tr_ptr(call, "ok", (p));				\
	} while (0)

static inline void ops_query(void)
{
	struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_device_attr_ex a;
	int rc;

	memset(&a, 0, sizeof(a));
	errno = 0;
	rc = ibv_query_device_ex(ctx, NULL, &a);
	tr_op("ibv_query_device_ex()", rc, errno);
	/*
	 * max_mr_size and the multicast limits differ by design (see
	 * ib_async_devinfo.sh): only what both report the same
	 */
	if (!rc)
		line("  phys_port_cnt_ex=%u max_qp_wr=%d max_cqe=%d",
		     a.phys_port_cnt_ex, a.orig_attr.max_qp_wr,
		     a.orig_attr.max_cqe);
	OP("ibv_query_rt_values_ex()", ibv_query_rt_values_ex(ctx, &rt));
}

/* An RC QP of the extended create, with send ops: made and destroyed. */
static inline void ops_create_qp_ex(int p, int c)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq[c], .recv_cq = cq[c], .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd[p], .send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *q;
	char call[64];

	snprintf(call, sizeof(call), "ibv_create_qp_ex(tmp pd%d cq%d)", p, c);
	if (!pd[p] || !cq[c])
		return skip(call);
	MAKE(call, q, ibv_create_qp_ex(ctx, &a));
	if (!q)
		return;
	line("  qp_to_qp_ex %s", ibv_qp_to_qp_ex(q) ? "ok" : "NULL");
	tr_rc("ibv_destroy_qp(tmp)", ibv_destroy_qp(q));
}

/*
 * kind 0: PD only; 1: basic with a CQ; 2: XRC without a domain (EINVAL);
 * 3: tag matching (EOPNOTSUPP on rxe).
 */
static inline void ops_create_srq_ex(int p, int c, int kind)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD, .pd = pd[p],
	};
	static const char *const kinds[] = { "pd", "basic_cq", "xrc", "tm" };
	struct ibv_srq *s;
	char call[64];

	snprintf(call, sizeof(call), "ibv_create_srq_ex(tmp %s pd%d cq%d)",
		 kinds[kind], p, c);
	if (!pd[p] || !cq[c])
		return skip(call);
	if (kind) {
		a.comp_mask |= IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_CQ;
		a.srq_type = kind == 1 ? IBV_SRQT_BASIC :
			     kind == 2 ? IBV_SRQT_XRC : IBV_SRQT_TM;
		a.cq = cq[c];
	}
	if (kind == 3) {
		a.comp_mask |= IBV_SRQ_INIT_ATTR_TM;
		a.tm_cap.max_num_tags = 1;
		a.tm_cap.max_ops = 1;
	}
	MAKE(call, s, ibv_create_srq_ex(ctx, &a));
	if (s)
		tr_rc("ibv_destroy_srq(tmp)", ibv_destroy_srq(s));
}

/* The ops of a live SRQ: its number (XRC only) and tag operations. */
static inline void ops_srq(int s)
{
	struct ibv_ops_wr op = { .opcode = IBV_WR_TAG_SYNC };
	struct ibv_ops_wr *bad = NULL;
	uint32_t num;
	char call[64];

	snprintf(call, sizeof(call), "ibv_get_srq_num(srq%d)", s);
	if (!srq[s])
		return skip(call);
	OP(call, ibv_get_srq_num(srq[s], &num));
	snprintf(call, sizeof(call), "ibv_post_srq_ops(srq%d)", s);
	OP(call, ibv_post_srq_ops(srq[s], &op, &bad));
	line("  bad_op %s", bad == &op ? "op" : bad ? "other" : "untouched");
}

static inline void ops_modify_cq(int c)
{
	struct ibv_modify_cq_attr a = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = 1, .cq_period = 1 },
	};
	char call[64];

	snprintf(call, sizeof(call), "ibv_modify_cq(cq%d)", c);
	if (!cq[c])
		return skip(call);
	OP(call, ibv_modify_cq(cq[c], &a));
}

/* The ops of a live QP that change nothing on rxe. */
static inline void ops_qp(int q, int vendor)
{
	struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1000 };
	struct ibv_ece ece = { 0 };
	char call[64];

	snprintf(call, sizeof(call), "ibv_modify_qp_rate_limit(q%d)", q);
	if (!qp[q])
		return skip(call);
	OP(call, ibv_modify_qp_rate_limit(qp[q], &rl));
	snprintf(call, sizeof(call), "ibv_query_ece(q%d)", q);
	OP(call, ibv_query_ece(qp[q], &ece));
	/* vendor id 0 is refused by libibverbs itself, before the op */
	ece.vendor_id = vendor ? 0x15b3 : 0;
	snprintf(call, sizeof(call), "ibv_set_ece(q%d vendor=%d)", q, !!vendor);
	OP(call, ibv_set_ece(qp[q], &ece));
	snprintf(call, sizeof(call), "ibv_query_qp_data_in_order(q%d)", q);
	OP(call, ibv_query_qp_data_in_order(qp[q], IBV_WR_SEND, 0));
}

/*
 * ibv_open_qp() opens an XRC target QP by number; rxe has no XRC domain
 * to name, and the op refuses before looking at one.
 */
static inline void ops_open_qp(int q)
{
	struct ibv_qp_open_attr a = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp *o;
	char call[64];

	snprintf(call, sizeof(call), "ibv_open_qp(q%d)", q);
	if (!qp[q])
		return skip(call);
	a.qp_num = qp[q]->qp_num;
	MAKE(call, o, ibv_open_qp(ctx, &a));
	if (o)
		tr_rc("ibv_destroy_qp(opened)", ibv_destroy_qp(o));
}

/* Thread, parent and XRC domains. */
static inline void ops_domains(int p)
{
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_parent_domain_init_attr pa = { .pd = pd[p] };
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_td td_standin = { .context = ctx };
	struct ibv_xrcd xrcd_standin = { .context = ctx };
	struct ibv_td *td;
	struct ibv_pd *par;
	struct ibv_xrcd *x;
	char call[64];

	snprintf(call, sizeof(call), "ibv_alloc_parent_domain(pd%d)", p);
	if (!pd[p])
		return skip(call);
	MAKE("ibv_alloc_td()", td, ibv_alloc_td(ctx, &ta));
	OP("ibv_dealloc_td()", ibv_dealloc_td(td ? td : &td_standin));
	MAKE(call, par, ibv_alloc_parent_domain(ctx, &pa));
	if (par)
		tr_rc("ibv_dealloc_pd(parent)", ibv_dealloc_pd(par));
	MAKE("ibv_open_xrcd()", x, ibv_open_xrcd(ctx, &xa));
	OP("ibv_close_xrcd()", ibv_close_xrcd(x ? x : &xrcd_standin));
}

/* Device memory, null MRs, advice on MR m, dmabuf MRs. */
static inline void ops_memory(int p, int m)
{
	struct ibv_alloc_dm_attr da = { .length = 64 };
	struct ibv_dm dm_standin = { .context = ctx };
	struct ibv_sge sge = { 0 };
	struct ibv_dm *d;
	struct ibv_mr *r;
	char call[64];

	snprintf(call, sizeof(call), "ibv_advise_mr(pd%d mr%d)", p, m);
	if (!pd[p] || !mr[m])
		return skip(call);
	MAKE("ibv_alloc_dm()", d, ibv_alloc_dm(ctx, &da));
	MAKE("ibv_reg_dm_mr()", r, ibv_reg_dm_mr(pd[p], d ? d : &dm_standin,
						 0, 64, IBV_ACCESS_ZERO_BASED));
	if (r)
		tr_rc("ibv_dereg_mr(dm)", ibv_dereg_mr(r));
	OP("ibv_free_dm()", ibv_free_dm(d ? d : &dm_standin));
	MAKE("ibv_alloc_null_mr()", r, ibv_alloc_null_mr(pd[p]));
	if (r)
		tr_rc("ibv_dereg_mr(null)", ibv_dereg_mr(r));
	sge.addr = (uintptr_t)buf[m];
	sge.length = SEND_AREA;
	sge.lkey = mr[m]->lkey;
	OP(call, ibv_advise_mr(pd[p], IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
			       &sge, 1));
	MAKE("ibv_reg_dmabuf_mr(fd -1)", r,
	     ibv_reg_dmabuf_mr(pd[p], 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE));
	if (r)
		tr_rc("ibv_dereg_mr(dmabuf)", ibv_dereg_mr(r));
}

/* Steering on QP q: a flow, an ESP flow action, counters on a flow. */
static inline void ops_flows(int q)
{
	struct ibv_flow_attr fa = { .size = sizeof(fa), .port = 1 };
	struct ibv_flow_action_esp_attr esp = { 0 };
	struct ibv_counters_init_attr ca = { 0 };
	struct ibv_counter_attach_attr cat = { 0 };
	struct ibv_flow flow_standin = { .context = ctx };
	struct ibv_flow_action act_standin = { .context = ctx };
	struct ibv_counters cnt_standin = { .context = ctx };
	struct ibv_flow *f;
	struct ibv_flow_action *a;
	struct ibv_counters *c;
	uint64_t v;
	char call[64];

	snprintf(call, sizeof(call), "ibv_create_flow(q%d)", q);
	if (!qp[q])
		return skip(call);
	MAKE(call, f, ibv_create_flow(qp[q], &fa));
	OP("ibv_destroy_flow()", ibv_destroy_flow(f ? f : &flow_standin));
	MAKE("ibv_create_flow_action_esp()", a,
	     ibv_create_flow_action_esp(ctx, &esp));
	OP("ibv_modify_flow_action_esp()",
	   ibv_modify_flow_action_esp(a ? a : &act_standin, &esp));
	OP("ibv_destroy_flow_action()",
	   ibv_destroy_flow_action(a ? a : &act_standin));
	MAKE("ibv_create_counters()", c, ibv_create_counters(ctx, &ca));
	OP("ibv_attach_counters_point_flow()",
	   ibv_attach_counters_point_flow(c ? c : &cnt_standin, &cat,
					  &flow_standin));
	OP("ibv_read_counters()", ibv_read_counters(c ? c : &cnt_standin,
						    &v, 1, 0));
	OP("ibv_destroy_counters()",
	   ibv_destroy_counters(c ? c : &cnt_standin));
}

/* An RSS table: no WQ to put in it on rxe (ibv_create_wq fails). */
static inline void ops_rwq_ind_table(void)
{
	struct ibv_rwq_ind_table_init_attr a = { .log_ind_tbl_size = 0 };
	struct ibv_rwq_ind_table standin = { .context = ctx };
	struct ibv_rwq_ind_table *t;

	MAKE("ibv_create_rwq_ind_table()", t, ibv_create_rwq_ind_table(ctx, &a));
	OP("ibv_destroy_rwq_ind_table()",
	   ibv_destroy_rwq_ind_table(t ? t : &standin));
}

/* Importing the program's own PD and MR m (the shim imports nothing). */
static inline void ops_import(int p, int m)
{
	struct ibv_context *c;
	struct ibv_pd *ip;
	struct ibv_mr *im;
	struct ibv_dm *id;
	char call[64];
	int fd;

	snprintf(call, sizeof(call), "ibv_import_mr(pd%d mr%d)", p, m);
	if (!pd[p] || !mr[m])
		return skip(call);
	/* an imported context owns its descriptor: give it a copy */
	fd = fcntl(ctx->cmd_fd, F_DUPFD_CLOEXEC, 0);
	MAKE("ibv_import_device()", c, ibv_import_device(fd));
	if (c)
		tr_rc("ibv_close_device(imported)", ibv_close_device(c));
	else if (fd >= 0)
		close(fd);
	MAKE("ibv_import_pd()", ip, ibv_import_pd(ctx, pd[p]->handle));
	if (ip)
		ibv_unimport_pd(ip);
	MAKE(call, im, ibv_import_mr(pd[p], mr[m]->handle));
	if (im)
		ibv_unimport_mr(im);
	MAKE("ibv_import_dm()", id, ibv_import_dm(ctx, 0));
	if (id)
		ibv_unimport_dm(id);
}

/*
 * Memory windows: rxe through ib_uverbs makes one, the shim refuses
 * (no kernel verbs for them); intended.py filters both lines.
 */
static inline void ops_mw(int p)
{
	struct ibv_mw *w;
	char call[64];

	snprintf(call, sizeof(call), "ibv_alloc_mw(tmp pd%d)", p);
	if (!pd[p])
		return skip(call);
	MAKE(call, w, ibv_alloc_mw(pd[p], IBV_MW_TYPE_1));
	if (w)
		OP("ibv_dealloc_mw(tmp)", ibv_dealloc_mw(w));
}

/*
 * Multicast on a UD QP of its own: rxe through ib_uverbs attaches, the
 * node has no multicast command; intended.py filters the attach/detach.
 */
static inline void ops_mcast(int p, int c)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq[c], .recv_cq = cq[c], .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [15] = 1 } };
	struct ibv_qp *q;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_create_qp(tmp UD pd%d cq%d)", p, c);
	if (!pd[p] || !cq[c])
		return skip(call);
	MAKE(call, q, ibv_create_qp(pd[p], &a));
	if (!q)
		return;
	errno = 0;
	rc = ibv_attach_mcast(q, &mgid, 0);
	tr_op("ibv_attach_mcast(tmp)", rc, errno);
	if (!rc)
		OP("ibv_detach_mcast(tmp)", ibv_detach_mcast(q, &mgid, 0));
	tr_rc("ibv_destroy_qp(tmp)", ibv_destroy_qp(q));
}

#endif

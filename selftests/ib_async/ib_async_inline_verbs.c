// SPDX-License-Identifier: GPL-2.0
/*
 * The libibverbs entry points a program built against rdma-core reaches
 * through the context's operation tables (the static inlines of
 * <infiniband/verbs.h> over struct verbs_context and ibv_context_ops)
 * and the library calls beside them that only some providers implement:
 * each is called with valid objects of the device (stand-ins where no
 * stack can make the object, passed only to calls that cannot look at
 * it) and its outcome recorded.
 *
 * Linked against libibverbs alone, so that one binary runs on both stacks:
 * rdma-core's provider over ib_uverbs, and libibasync preloaded.
 * ib_async_devinfo.sh runs it on each and compares the records, one line
 * per call, in $IB_ASYNC_VERBS_RECORD: "name ok" or "name ret=R errno=E"
 * (an int verb), "name NULL errno=E" (one that makes an object), errno
 * set to a sentinel (-1 printed as "-") before each call. Here each test
 * only asserts what holds on both stacks; that every call returned at all
 * (a NULL op crashes the caller) is the harness's verdict.
 */
#include <fcntl.h>
#include <infiniband/verbs.h>

#include "lib/iba_ibv.h"

#define SENTINEL 987654

static int record_fd = -1;

static void record_line(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* One whole line per write(): the harness forks a process per test. */
static void record_line(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || record_fd < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(record_fd, line, (size_t)n) != n)
		return;
}

static const char *err_str(int err, char *buf, size_t len)
{
	if (err == SENTINEL)
		return "-";
	snprintf(buf, len, "%d", err);
	return buf;
}

/* An int verb: 0, or its value and errno after it. */
static int rec_int(const char *name, int ret)
{
	int err = errno;
	char b[16];

	if (!ret)
		record_line("%s ok", name);
	else
		record_line("%s ret=%d errno=%s", name, ret,
			    err_str(err, b, sizeof(b)));
	return ret;
}

/* A verb that makes an object: ok, or NULL and errno. */
static const void *rec_ptr(const char *name, const void *p)
{
	int err = errno;
	char b[16];

	if (p)
		record_line("%s ok", name);
	else
		record_line("%s NULL errno=%s", name,
			    err_str(err, b, sizeof(b)));
	return p;
}

#define CALL_INT(name, call)	(errno = SENTINEL, rec_int(name, (call)))
#define CALL_PTR(name, call)	(errno = SENTINEL, rec_ptr(name, (call)))

FIXTURE(verbs) {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	char buf[4096];
};

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

FIXTURE_SETUP(verbs)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	const char *rec = getenv("IB_ASYNC_VERBS_RECORD");
	const char *ibdev = getenv("IB_ASYNC_IBDEV");

	self->list = NULL;
	self->ctx = iba_ibv_open(ibdev ? ibdev : "rxe0", &self->list);
	if (!self->ctx)
		SKIP(return, "cannot open %s: %m", ibdev ? ibdev : "rxe0");
	if (rec && record_fd < 0)
		record_fd = open(rec, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				 0644);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->rc = make_qp(self->pd, self->cq, IBV_QPT_RC);
	ASSERT_NE(NULL, self->rc);
	self->ud = make_qp(self->pd, self->cq, IBV_QPT_UD);
	ASSERT_NE(NULL, self->ud);
	self->srq = ibv_create_srq(self->pd, &sa);
	ASSERT_NE(NULL, self->srq);
	self->mr = ibv_reg_mr(self->pd, self->buf, sizeof(self->buf),
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
}

FIXTURE_TEARDOWN(verbs)
{
	if (self->ctx) {
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
		EXPECT_EQ(0, ibv_destroy_srq(self->srq));
		EXPECT_EQ(0, ibv_destroy_qp(self->ud));
		EXPECT_EQ(0, ibv_destroy_qp(self->rc));
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
		ibv_close_device(self->ctx);
	}
	if (self->list)
		ibv_free_device_list(self->list);
}

/* Device, port and GID queries: served on both stacks. */
TEST_F(verbs, queries)
{
	struct ibv_device_attr_ex dx;
	struct ibv_device_attr d;
	struct ibv_port_attr p;
	struct ibv_values_ex rt = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_gid_entry e, table[64];
	ssize_t n;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(0, CALL_INT("ibv_query_device", ibv_query_device(self->ctx, &d)));
	EXPECT_EQ(0, CALL_INT("ibv_query_device_ex",
			      ibv_query_device_ex(self->ctx, NULL, &dx)));
	record_line("ibv_query_device_ex.phys_port_cnt_ex %u",
		    dx.phys_port_cnt_ex);
	EXPECT_EQ(0, CALL_INT("ibv_query_port", ibv_query_port(self->ctx, 1, &p)));
	CALL_INT("ibv_query_rt_values_ex",
		 ibv_query_rt_values_ex(self->ctx, &rt));
	EXPECT_EQ(0, CALL_INT("ibv_query_gid_ex",
			      ibv_query_gid_ex(self->ctx, 1, 0, &e, 0)));
	record_line("ibv_query_gid_ex.gid_type %u netdev %s", e.gid_type,
		    e.ndev_ifindex ? "yes" : "no");
	errno = SENTINEL;
	n = ibv_query_gid_table(self->ctx, table, 64, 0);
	record_line("ibv_query_gid_table ret=%zd", n);
	EXPECT_LT(0, n);
	/*
	 * 0, or EOPNOTSUPP over the shim where the kernel has no
	 * ib_resize_cq() (7.1 on): ib_async_devinfo.sh compares the stacks.
	 */
	n = CALL_INT("ibv_resize_cq", ibv_resize_cq(self->cq, 32));
	EXPECT_TRUE(n == 0 || n == EOPNOTSUPP);
}

/*
 * Port attributes as a program built against a later rdma-core asks for
 * them, through the context's op with its larger size: rdma-core 50 added
 * active_speed_ex after port_cap_flags2 (0, or the speed ib_uverbs reports
 * from 6.7 on), and whatever a later one adds reads 0, as libibverbs
 * zeroes it. Over the shim, built against Debian 12's rdma-core, both
 * bytes were left as the caller's stack had them.
 */
TEST_F(verbs, port_attr_of_a_later_rdma_core)
{
	const size_t speed_ex_off =
		(offsetof(struct ibv_port_attr, port_cap_flags2) +
		 sizeof(uint16_t) + 3) & ~(size_t)3;
	struct verbs_context *vctx;
	struct ibv_port_attr p;
	unsigned char buf[sizeof(struct ibv_port_attr) + 64];
	uint32_t speed_ex;
	bool zeroed = true;
	size_t i;

	IBA_SKIPPED_IN_SETUP();
	vctx = verbs_get_ctx_op(self->ctx, query_port);
	ASSERT_NE(NULL, vctx);
	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, CALL_INT("verbs_context.query_port(larger)",
			      vctx->query_port(self->ctx, 1,
					       (struct ibv_port_attr *)buf,
					       sizeof(buf))));
	memcpy(&p, buf, sizeof(p));
	memcpy(&speed_ex, buf + speed_ex_off, sizeof(speed_ex));
	for (i = speed_ex_off + sizeof(speed_ex); i < sizeof(buf); i++)
		zeroed &= !buf[i];
	record_line("query_port(larger) beyond_zeroed=%d speed_ex_0_or_speed=%d",
		    zeroed, !speed_ex || speed_ex == p.active_speed);
	EXPECT_TRUE(zeroed);
	EXPECT_TRUE(!speed_ex || speed_ex == p.active_speed);
}

/* Domains no rxe context offers: thread, parent and XRC domains. */
TEST_F(verbs, domains)
{
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_parent_domain_init_attr pa = { .pd = self->pd };
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_td td = { .context = self->ctx };
	struct ibv_xrcd xrcd = { .context = self->ctx };
	struct ibv_td *t;
	struct ibv_pd *p;
	struct ibv_xrcd *x;

	IBA_SKIPPED_IN_SETUP();
	t = (struct ibv_td *)CALL_PTR("ibv_alloc_td", ibv_alloc_td(self->ctx, &ta));
	if (t)
		ibv_dealloc_td(t);
	else
		CALL_INT("ibv_dealloc_td", ibv_dealloc_td(&td));
	p = (struct ibv_pd *)CALL_PTR("ibv_alloc_parent_domain",
				     ibv_alloc_parent_domain(self->ctx, &pa));
	if (p)
		ibv_dealloc_pd(p);
	x = (struct ibv_xrcd *)CALL_PTR("ibv_open_xrcd",
				       ibv_open_xrcd(self->ctx, &xa));
	CALL_INT("ibv_close_xrcd", ibv_close_xrcd(x ? x : &xrcd));
}

/* Memory: device memory, null MRs, advice, dmabuf, rereg, windows. */
TEST_F(verbs, memory)
{
	struct ibv_alloc_dm_attr da = { .length = 64 };
	struct ibv_dm dm = { .context = self->ctx };
	struct ibv_sge sge = { (uintptr_t)self->buf, sizeof(self->buf), 0 };
	struct ibv_dm *d;
	struct ibv_mr *m;
	struct ibv_mw *w;

	IBA_SKIPPED_IN_SETUP();
	sge.lkey = self->mr->lkey;
	d = (struct ibv_dm *)CALL_PTR("ibv_alloc_dm", ibv_alloc_dm(self->ctx, &da));
	m = (struct ibv_mr *)CALL_PTR("ibv_reg_dm_mr",
		ibv_reg_dm_mr(self->pd, d ? d : &dm, 0, 64,
			      IBV_ACCESS_ZERO_BASED));
	if (m)
		ibv_dereg_mr(m);
	CALL_INT("ibv_free_dm", ibv_free_dm(d ? d : &dm));
	m = (struct ibv_mr *)CALL_PTR("ibv_alloc_null_mr",
				     ibv_alloc_null_mr(self->pd));
	if (m)
		ibv_dereg_mr(m);
	CALL_INT("ibv_advise_mr",
		 ibv_advise_mr(self->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
			       &sge, 1));
	m = (struct ibv_mr *)CALL_PTR("ibv_reg_dmabuf_mr",
		ibv_reg_dmabuf_mr(self->pd, 0, 4096, 0, -1,
				  IBV_ACCESS_LOCAL_WRITE));
	if (m)
		ibv_dereg_mr(m);
	CALL_INT("ibv_rereg_mr",
		 ibv_rereg_mr(self->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
			      0, IBV_ACCESS_LOCAL_WRITE));
	w = (struct ibv_mw *)CALL_PTR("ibv_alloc_mw",
				     ibv_alloc_mw(self->pd, IBV_MW_TYPE_1));
	if (w)
		CALL_INT("ibv_dealloc_mw", ibv_dealloc_mw(w));
}

/* Steering: flows, flow actions, counters. */
TEST_F(verbs, flows_and_counters)
{
	struct ibv_flow_attr fa = { .size = sizeof(fa), .port = 1 };
	struct ibv_flow_action_esp_attr esp = { 0 };
	struct ibv_counters_init_attr ca = { 0 };
	struct ibv_counter_attach_attr cat = { 0 };
	struct ibv_flow flow = { .context = self->ctx };
	struct ibv_flow_action act = { .context = self->ctx };
	struct ibv_counters cnt = { .context = self->ctx };
	struct ibv_flow *f;
	struct ibv_flow_action *a;
	struct ibv_counters *c;
	uint64_t v;

	IBA_SKIPPED_IN_SETUP();
	f = (struct ibv_flow *)CALL_PTR("ibv_create_flow",
				       ibv_create_flow(self->ud, &fa));
	CALL_INT("ibv_destroy_flow", ibv_destroy_flow(f ? f : &flow));
	a = (struct ibv_flow_action *)CALL_PTR("ibv_create_flow_action_esp",
		ibv_create_flow_action_esp(self->ctx, &esp));
	CALL_INT("ibv_modify_flow_action_esp",
		 ibv_modify_flow_action_esp(a ? a : &act, &esp));
	CALL_INT("ibv_destroy_flow_action",
		 ibv_destroy_flow_action(a ? a : &act));
	c = (struct ibv_counters *)CALL_PTR("ibv_create_counters",
		ibv_create_counters(self->ctx, &ca));
	CALL_INT("ibv_attach_counters_point_flow",
		 ibv_attach_counters_point_flow(c ? c : &cnt, &cat, &flow));
	CALL_INT("ibv_read_counters", ibv_read_counters(c ? c : &cnt, &v, 1, 0));
	CALL_INT("ibv_destroy_counters", ibv_destroy_counters(c ? c : &cnt));
}

/* Work queues and RSS indirection tables. */
TEST_F(verbs, wqs)
{
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
		.pd = self->pd, .cq = self->cq,
	};
	struct ibv_rwq_ind_table_init_attr ra = { .log_ind_tbl_size = 0 };
	struct ibv_rwq_ind_table tbl = { .context = self->ctx };
	struct ibv_rwq_ind_table *t;
	struct ibv_wq *wq;

	IBA_SKIPPED_IN_SETUP();
	wq = (struct ibv_wq *)CALL_PTR("ibv_create_wq",
				      ibv_create_wq(self->ctx, &wa));
	if (wq) {
		struct ibv_wq_attr m = {
			.attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY,
		};

		CALL_INT("ibv_modify_wq", ibv_modify_wq(wq, &m));
		ra.ind_tbl = &wq;
	}
	t = (struct ibv_rwq_ind_table *)CALL_PTR("ibv_create_rwq_ind_table",
		ibv_create_rwq_ind_table(self->ctx, &ra));
	CALL_INT("ibv_destroy_rwq_ind_table",
		 ibv_destroy_rwq_ind_table(t ? t : &tbl));
	if (wq)
		CALL_INT("ibv_destroy_wq", ibv_destroy_wq(wq));
}

/* CQs: the extended create, moderation. */
TEST_F(verbs, cqs)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_modify_cq_attr mc = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = 1, .cq_period = 1 },
	};
	struct ibv_cq_ex *cq;

	IBA_SKIPPED_IN_SETUP();
	cq = (struct ibv_cq_ex *)CALL_PTR("ibv_create_cq_ex",
					 ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_NE(NULL, cq);
	if (cq)
		EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	ca.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	cq = (struct ibv_cq_ex *)CALL_PTR("ibv_create_cq_ex.timestamp",
					 ibv_create_cq_ex(self->ctx, &ca));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	CALL_INT("ibv_modify_cq", ibv_modify_cq(self->cq, &mc));
}

/* SRQs: the extended create, SRQ numbers, SRQ ops. */
TEST_F(verbs, srqs)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD, .pd = self->pd,
	};
	struct ibv_ops_wr op = { .opcode = IBV_WR_TAG_SYNC };
	struct ibv_ops_wr *bad = NULL;
	struct ibv_srq *s;
	uint32_t num;

	IBA_SKIPPED_IN_SETUP();
	s = (struct ibv_srq *)CALL_PTR("ibv_create_srq_ex.pd",
				      ibv_create_srq_ex(self->ctx, &sa));
	if (s)
		EXPECT_EQ(0, ibv_destroy_srq(s));
	sa.comp_mask |= IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_CQ;
	sa.srq_type = IBV_SRQT_BASIC;
	sa.cq = self->cq;
	s = (struct ibv_srq *)CALL_PTR("ibv_create_srq_ex.basic_cq",
				      ibv_create_srq_ex(self->ctx, &sa));
	if (s)
		EXPECT_EQ(0, ibv_destroy_srq(s));
	sa.srq_type = IBV_SRQT_XRC;
	s = (struct ibv_srq *)CALL_PTR("ibv_create_srq_ex.xrc_no_xrcd",
				      ibv_create_srq_ex(self->ctx, &sa));
	if (s)
		ibv_destroy_srq(s);
	sa.srq_type = IBV_SRQT_TM;
	sa.comp_mask |= IBV_SRQ_INIT_ATTR_TM;
	sa.tm_cap.max_num_tags = 1;
	sa.tm_cap.max_ops = 1;
	s = (struct ibv_srq *)CALL_PTR("ibv_create_srq_ex.tm",
				      ibv_create_srq_ex(self->ctx, &sa));
	if (s)
		ibv_destroy_srq(s);
	CALL_INT("ibv_get_srq_num", ibv_get_srq_num(self->srq, &num));
	CALL_INT("ibv_post_srq_ops", ibv_post_srq_ops(self->srq, &op, &bad));
	record_line("ibv_post_srq_ops.bad_op %s", bad == &op ? "op" :
		    bad ? "other" : "untouched");
}

/* QPs: the extended create, open, rate limits, ECE, ordering, mcast. */
TEST_F(verbs, qps)
{
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = self->cq, .recv_cq = self->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = self->pd, .send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1000 };
	struct ibv_ece ece = { 0 };
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [15] = 1 } };
	struct ibv_qp *q;

	IBA_SKIPPED_IN_SETUP();
	oa.qp_num = self->rc->qp_num;
	q = (struct ibv_qp *)CALL_PTR("ibv_create_qp_ex",
				     ibv_create_qp_ex(self->ctx, &qa));
	EXPECT_NE(NULL, q);
	if (q) {
		CALL_PTR("ibv_qp_to_qp_ex", ibv_qp_to_qp_ex(q));
		EXPECT_EQ(0, ibv_destroy_qp(q));
	}
	q = (struct ibv_qp *)CALL_PTR("ibv_open_qp", ibv_open_qp(self->ctx, &oa));
	if (q)
		ibv_destroy_qp(q);
	CALL_INT("ibv_modify_qp_rate_limit",
		 ibv_modify_qp_rate_limit(self->rc, &rl));
	CALL_INT("ibv_query_ece", ibv_query_ece(self->rc, &ece));
	ece.vendor_id = 0;
	CALL_INT("ibv_set_ece.vendor_0", ibv_set_ece(self->rc, &ece));
	ece.vendor_id = 0x15b3;
	CALL_INT("ibv_set_ece.vendor_set", ibv_set_ece(self->rc, &ece));
	CALL_INT("ibv_query_qp_data_in_order",
		 ibv_query_qp_data_in_order(self->rc, IBV_WR_SEND, 0));
	if (!CALL_INT("ibv_attach_mcast", ibv_attach_mcast(self->ud, &mgid, 0)))
		CALL_INT("ibv_detach_mcast", ibv_detach_mcast(self->ud, &mgid, 0));
}

/* Sharing objects across processes: import and unimport. */
TEST_F(verbs, import)
{
	struct ibv_context *c;
	struct ibv_pd *p;
	struct ibv_mr *m;
	struct ibv_dm *d;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	/* a context imported owns its descriptor: give it a copy */
	fd = fcntl(self->ctx->cmd_fd, F_DUPFD_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	c = (struct ibv_context *)CALL_PTR("ibv_import_device",
					  ibv_import_device(fd));
	if (c)
		ibv_close_device(c);
	else
		close(fd);
	p = (struct ibv_pd *)CALL_PTR("ibv_import_pd",
				     ibv_import_pd(self->ctx, self->pd->handle));
	if (p)
		ibv_unimport_pd(p);
	m = (struct ibv_mr *)CALL_PTR("ibv_import_mr",
				     ibv_import_mr(self->pd, self->mr->handle));
	if (m)
		ibv_unimport_mr(m);
	d = (struct ibv_dm *)CALL_PTR("ibv_import_dm",
				     ibv_import_dm(self->ctx, 0));
	if (d)
		ibv_unimport_dm(d);
}

TEST_HARNESS_MAIN

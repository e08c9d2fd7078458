// SPDX-License-Identifier: GPL-2.0
/*
 * libibasync's extended verbs on rxe, as rdma-core's inlines reach them:
 * ibv_query_device_ex() (phys_port_cnt_ex and the other fields compared
 * with ibv_query_device() and sysfs) and ibv_create_qp_ex() (QPs whose
 * numbers the kernel confirms in completions, carrying RC and UD traffic,
 * and refused comp_masks failing with the documented errno without
 * leaving a QP behind), and ibv_create_cq_ex() (completions read through
 * ibv_start_poll()/ibv_next_poll()/ibv_wc_read_*(), in order, and the
 * kernel's refusals).
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "lib/iba_ibv.h"
#include "lib/iba_verbs.h"

#define QKEY		0x11111111
/* what pyverbs' QPInitAttrEx passes for a plain QP */
#define PD_NO_FLAGS	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS)

FIXTURE(ex) {
	struct iba_dev dev;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
};

FIXTURE_SETUP(ex)
{
	int i, n = 0;

	self->list = NULL;
	self->ctx = NULL;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	self->list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, self->list);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(self->list[i]), self->dev.ibdev))
			break;
	ASSERT_GT(n, i);
	self->ctx = ibv_open_device(self->list[i]);
	ASSERT_NE(NULL, self->ctx) TH_LOG("open: %m");
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->gid_index = iba_roce_v2_gid(self->dev.ibdev, self->gid.raw);
	ASSERT_LE(0, self->gid_index);
}

FIXTURE_TEARDOWN(ex)
{
	if (self->ctx) {
		/* EBUSY here would mean a QP outlived its test */
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
		ibv_close_device(self->ctx);
	}
	if (self->list)
		ibv_free_device_list(self->list);
}

/* Entries of /sys/class/infiniband/DEV/ports: libibverbs' port count. */
static int sysfs_ports(const char *ibdev)
{
	char path[256];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", ibdev);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static struct ibv_qp *make_qp_ex(struct ibv_context *ctx, struct ibv_pd *pd,
				 struct ibv_cq *cq, enum ibv_qp_type type,
				 uint32_t comp_mask)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.comp_mask = comp_mask, .pd = pd,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp_ex(ctx, &a);
}

/* The receive among two completions, both successful; NULL otherwise. */
static struct ibv_wc *recv_of_two(struct ibv_wc *wc)
{
	if (wc[0].status != IBV_WC_SUCCESS || wc[1].status != IBV_WC_SUCCESS)
		return NULL;
	return wc[0].opcode == IBV_WC_RECV ? &wc[0] :
	       wc[1].opcode == IBV_WC_RECV ? &wc[1] : NULL;
}

static int post_one_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf,
			 uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

TEST_F(ex, phys_port_cnt_ex_is_the_port_count)
{
	struct ibv_device_attr_ex ex;
	struct ibv_device_attr d;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ibv_query_device(self->ctx, &d));
	memset(&ex, 0xa5, sizeof(ex));
	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &ex));
	EXPECT_EQ(d.phys_port_cnt, ex.phys_port_cnt_ex);
	EXPECT_EQ(sysfs_ports(self->dev.ibdev), (int)ex.phys_port_cnt_ex);
	EXPECT_EQ(1U, ex.phys_port_cnt_ex);
	/* orig_attr is ibv_query_device()'s answer, byte for byte */
	EXPECT_EQ(0, memcmp(&d, &ex.orig_attr, sizeof(d)));
	EXPECT_EQ(d.device_cap_flags, (uint32_t)ex.device_cap_flags_ex);
	/* rxe through ib_uverbs reports these as 0 too */
	EXPECT_EQ(0U, ex.comp_mask);
	EXPECT_EQ(0ULL, ex.odp_caps.general_caps);
	EXPECT_EQ(0U, ex.tso_caps.max_tso);
	EXPECT_EQ(0U, ex.rss_caps.supported_qpts);
	EXPECT_EQ(0ULL, ex.max_dm_size);
	EXPECT_EQ(0U, ex.xrc_odp_caps);
}

TEST_F(ex, query_device_ex_refuses_an_input_comp_mask)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct verbs_context *v;
	struct ibv_device_attr_ex ex;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(EINVAL, ibv_query_device_ex(self->ctx, &in, &ex));
	/* the op itself, as a caller that skips the inline would reach it */
	v = verbs_get_ctx_op(self->ctx, query_device_ex);
	ASSERT_NE(NULL, v);
	EXPECT_EQ(EINVAL, v->query_device_ex(self->ctx, &in, &ex, sizeof(ex)));
	EXPECT_EQ(EINVAL, v->query_device_ex(self->ctx, NULL, &ex,
					      sizeof(ex.orig_attr) - 1));
}

TEST_F(ex, ud_qp_ex_numbered_by_the_kernel_carries_traffic)
{
	static char rbuf[IBA_GRH_BYTES + 64];
	static char msg[] = "UD through a QP from ibv_create_qp_ex";
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = QKEY };
	struct ibv_qp_init_attr qi;
	struct ibv_send_wr swr, *sbad;
	struct ibv_mr *rmr, *smr;
	struct ibv_wc wc[2], *r;
	struct ibv_sge sge;
	struct ibv_qp *qp;
	struct ibv_ah *ah;

	IBA_SKIPPED_IN_SETUP();
	qp = make_qp_ex(self->ctx, self->pd, self->cq, IBV_QPT_UD, PD_NO_FLAGS);
	ASSERT_NE(NULL, qp) TH_LOG("ibv_create_qp_ex: %m");
	EXPECT_NE(0U, qp->qp_num);
	ASSERT_EQ(0, ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY));
	qa.qp_state = IBV_QPS_RTR;
	ASSERT_EQ(0, ibv_modify_qp(qp, &qa, IBV_QP_STATE));
	qa.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN));
	ASSERT_EQ(0, ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_QKEY, &qi));
	EXPECT_EQ(IBV_QPS_RTS, (int)qa.qp_state);
	EXPECT_EQ((uint32_t)QKEY, qa.qkey);
	EXPECT_EQ(IBV_QPT_UD, (int)qi.qp_type);
	EXPECT_LE(4U, qi.cap.max_send_wr);

	rmr = ibv_reg_mr(self->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = ibv_reg_mr(self->pd, msg, sizeof(msg), 0);
	ASSERT_TRUE(rmr && smr);
	ASSERT_EQ(0, post_one_recv(qp, rmr, rbuf, sizeof(rbuf)));
	aa.grh.dgid = self->gid;
	aa.grh.sgid_index = (uint8_t)self->gid_index;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(self->pd, &aa);
	ASSERT_NE(NULL, ah);
	sge = (struct ibv_sge){ (uintptr_t)msg, sizeof(msg), smr->lkey };
	swr = (struct ibv_send_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				    .opcode = IBV_WR_SEND,
				    .send_flags = IBV_SEND_SIGNALED };
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = QKEY;
	ASSERT_EQ(0, ibv_post_send(qp, &swr, &sbad));
	ASSERT_EQ(2, iba_ibv_poll_n(self->cq, 2, wc));
	r = recv_of_two(wc);
	ASSERT_NE(NULL, r);
	/* rxe delivered to the number the QP was given, and says so */
	EXPECT_EQ(qp->qp_num, r->qp_num);
	EXPECT_EQ(qp->qp_num, r->src_qp);
	EXPECT_EQ(sizeof(msg) + IBA_GRH_BYTES, r->byte_len);
	EXPECT_STREQ(msg, rbuf + IBA_GRH_BYTES);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_dereg_mr(smr));
}

TEST_F(ex, rc_qps_ex_connect_by_their_numbers)
{
	static char rbuf[64], msg[] = "RC between two ibv_create_qp_ex QPs";
	struct ibv_send_wr swr, *sbad;
	struct ibv_mr *rmr, *smr;
	struct ibv_qp_init_attr qi;
	struct ibv_wc wc[2], *r;
	struct ibv_qp_attr qa;
	struct ibv_qp *qp[2];
	struct ibv_sge sge;
	int i;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < 2; i++) {
		qp[i] = make_qp_ex(self->ctx, self->pd, self->cq, IBV_QPT_RC,
				   PD_NO_FLAGS);
		ASSERT_NE(NULL, qp[i]) TH_LOG("ibv_create_qp_ex: %m");
	}
	EXPECT_NE(qp[0]->qp_num, qp[1]->qp_num);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, iba_ibv_rc_to_rts(qp[i], qp[!i]->qp_num,
						&self->gid, self->gid_index,
						IBV_ACCESS_LOCAL_WRITE));
	ASSERT_EQ(0, ibv_query_qp(qp[0], &qa, IBV_QP_DEST_QPN, &qi));
	EXPECT_EQ(qp[1]->qp_num, qa.dest_qp_num);
	EXPECT_EQ(IBV_QPT_RC, (int)qi.qp_type);

	rmr = ibv_reg_mr(self->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = ibv_reg_mr(self->pd, msg, sizeof(msg), 0);
	ASSERT_TRUE(rmr && smr);
	ASSERT_EQ(0, post_one_recv(qp[1], rmr, rbuf, sizeof(rbuf)));
	sge = (struct ibv_sge){ (uintptr_t)msg, sizeof(msg), smr->lkey };
	swr = (struct ibv_send_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				    .opcode = IBV_WR_SEND,
				    .send_flags = IBV_SEND_SIGNALED };
	ASSERT_EQ(0, ibv_post_send(qp[0], &swr, &sbad));
	ASSERT_EQ(2, iba_ibv_poll_n(self->cq, 2, wc));
	r = recv_of_two(wc);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(qp[1]->qp_num, r->qp_num);
	EXPECT_EQ(sizeof(msg), r->byte_len);
	EXPECT_STREQ(msg, rbuf);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_dereg_mr(smr));
}

/*
 * Completions of real traffic through the extended poll API: each receive
 * once, in order, its fields as the device wrote them; a session left
 * early leaves the rest to ibv_poll_cq() on the same CQ.
 */
TEST_F(ex, rc_traffic_through_an_extended_cq)
{
	enum { MSGS = 6 };
	struct ibv_cq_init_attr_ex ca = { .cqe = 32,
					  .wc_flags = IBV_WC_STANDARD_FLAGS };
	static char rbuf[MSGS][32], msg[] = "through ibv_cq_ex";
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge, rsge;
	struct ibv_mr *rmr, *smr;
	struct ibv_qp *qp[2];
	struct ibv_cq_ex *cq;
	struct ibv_wc wc[MSGS];
	uint64_t want_recv = 100, want_send = 200;
	int i, n = 0, ret, sends = 0;

	IBA_SKIPPED_IN_SETUP();
	cq = ibv_create_cq_ex(self->ctx, &ca);
	ASSERT_NE(NULL, cq) TH_LOG("ibv_create_cq_ex: %m");
	for (i = 0; i < 2; i++) {
		qp[i] = make_qp_ex(self->ctx, self->pd, ibv_cq_ex_to_cq(cq),
				   IBV_QPT_RC, PD_NO_FLAGS);
		ASSERT_NE(NULL, qp[i]);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, iba_ibv_rc_to_rts(qp[i], qp[!i]->qp_num,
						&self->gid, self->gid_index,
						IBV_ACCESS_LOCAL_WRITE));
	rmr = ibv_reg_mr(self->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = ibv_reg_mr(self->pd, msg, sizeof(msg), 0);
	ASSERT_TRUE(rmr && smr);
	EXPECT_EQ(ENOENT, ibv_start_poll(cq, &pa));
	sge = (struct ibv_sge){ (uintptr_t)msg, sizeof(msg), smr->lkey };
	for (i = 0; i < MSGS; i++) {
		rsge = (struct ibv_sge){ (uintptr_t)rbuf[i], 32, rmr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + i,
					    .sg_list = &rsge, .num_sge = 1 };
		ASSERT_EQ(0, ibv_post_recv(qp[1], &rwr, &rbad));
	}
	for (i = 0; i < MSGS; i++) {
		swr = (struct ibv_send_wr){
			.wr_id = 200 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED,
			.imm_data = htonl(0x5000 + i),
		};
		ASSERT_EQ(0, ibv_post_send(qp[0], &swr, &sbad));
	}
	/* wait for every completion, then read four through the ex API */
	for (i = 0; i < 200 && want_recv < 100 + MSGS; i++) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT) {
			iba_sleep_ms(10);
			continue;
		}
		ASSERT_EQ(0, ret);
		do {
			ASSERT_EQ(IBV_WC_SUCCESS, (int)cq->status);
			if (ibv_wc_read_opcode(cq) == IBV_WC_SEND) {
				EXPECT_EQ(want_send++, cq->wr_id);
				sends++;
				continue;
			}
			EXPECT_EQ(IBV_WC_RECV, (int)ibv_wc_read_opcode(cq));
			EXPECT_EQ(want_recv, cq->wr_id);
			EXPECT_EQ(sizeof(msg), ibv_wc_read_byte_len(cq));
			EXPECT_EQ(qp[1]->qp_num, ibv_wc_read_qp_num(cq));
			EXPECT_NE(0U, ibv_wc_read_wc_flags(cq) &
				      IBV_WC_WITH_IMM);
			EXPECT_EQ(htonl(0x5000 + (uint32_t)(want_recv - 100)),
				  ibv_wc_read_imm_data(cq));
			want_recv++;
			if (want_recv == 100 + MSGS - 2)
				break;	/* leave two for ibv_poll_cq() */
		} while (ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
		if (want_recv == 100 + MSGS - 2)
			break;
	}
	ASSERT_EQ(100U + MSGS - 2, want_recv);
	/* the rest, fetched ahead or still in the kernel, by ibv_poll_cq() */
	ret = iba_ibv_poll_n(ibv_cq_ex_to_cq(cq), 2 + MSGS - sends, wc);
	ASSERT_EQ(2 + MSGS - sends, ret);
	for (i = 0; i < ret; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);
		if (wc[i].opcode != IBV_WC_RECV)
			continue;
		EXPECT_EQ(want_recv, wc[i].wr_id);
		EXPECT_STREQ(msg, rbuf[want_recv - 100]);
		want_recv++;
		n++;
	}
	EXPECT_EQ(2, n);
	EXPECT_EQ(0, ibv_poll_cq(ibv_cq_ex_to_cq(cq), MSGS, wc));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_dereg_mr(smr));
}

/* What rdma-core's test_create_cq_ex_bad_flow asks: the kernel refuses. */
TEST_F(ex, cq_ex_beyond_the_device_is_einval)
{
	struct ibv_device_attr da;
	struct ibv_cq_init_attr_ex ca = { .cqe = 8 };
	struct ibv_cq_ex *cq;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ibv_query_device(self->ctx, &da));
	ca.cqe = (uint32_t)da.max_cqe + 1;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_EQ(EINVAL, errno);
	ca.cqe = 8;
	ca.comp_vector = (uint32_t)self->ctx->num_comp_vectors + 1;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_EQ(EINVAL, errno);
	ca.comp_vector = 0;
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq_ex(self->ctx, &ca));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	cq = ibv_create_cq_ex(self->ctx, &ca);
	ASSERT_NE(NULL, cq);
	EXPECT_LE(8, cq->cqe);
	EXPECT_EQ(0, ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
}

TEST_F(ex, refused_comp_masks_give_their_errno)
{
	static const struct {
		const char *what;
		uint32_t mask, create_flags;
		enum ibv_qp_type type;
		int err;
	} cases[] = {
		{ "send op BIND_MW", IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0,
		  IBV_QPT_RC, EOPNOTSUPP },
		{ "XRCD", IBV_QP_INIT_ATTR_XRCD, 0, IBV_QPT_XRC_RECV,
		  EOPNOTSUPP },
		{ "RX_HASH", IBV_QP_INIT_ATTR_IND_TABLE |
		  IBV_QP_INIT_ATTR_RX_HASH, 0, IBV_QPT_RAW_PACKET, EOPNOTSUPP },
		{ "MAX_TSO_HEADER", IBV_QP_INIT_ATTR_MAX_TSO_HEADER, 0,
		  IBV_QPT_RC, EOPNOTSUPP },
		{ "create flag", IBV_QP_INIT_ATTR_CREATE_FLAGS,
		  IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, IBV_QPT_UD, EOPNOTSUPP },
		{ "XRC send", IBV_QP_INIT_ATTR_CREATE_FLAGS, 0,
		  IBV_QPT_XRC_SEND, EOPNOTSUPP },
		{ "unknown bit", 1U << 7, 0, IBV_QPT_RC, EINVAL },
	};
	struct ibv_qp_init_attr_ex a;
	struct ibv_pd *pd;
	size_t i;

	IBA_SKIPPED_IN_SETUP();
	/* a PD of its own: if any case left a QP behind, dealloc says EBUSY */
	pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, pd);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a = (struct ibv_qp_init_attr_ex){
			.send_cq = self->cq, .recv_cq = self->cq,
			.qp_type = cases[i].type, .pd = pd,
			.comp_mask = IBV_QP_INIT_ATTR_PD | cases[i].mask,
			.create_flags = cases[i].create_flags,
			/* memory windows: a send op no QP here has */
			.send_ops_flags = IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_BIND_MW,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		errno = 0;
		EXPECT_EQ(NULL, ibv_create_qp_ex(self->ctx, &a))
			TH_LOG("%s: created", cases[i].what);
		EXPECT_EQ(cases[i].err, errno) TH_LOG("%s", cases[i].what);
	}
	/* no PD named at all */
	a.qp_type = IBV_QPT_RC;
	a.comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS;
	a.create_flags = 0;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp_ex(self->ctx, &a));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

TEST_HARNESS_MAIN

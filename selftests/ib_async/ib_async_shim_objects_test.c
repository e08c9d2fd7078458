// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs objects through libibasync, the way an rdma-core program uses
 * them: ibv_alloc_pd(), ibv_create_*(), ibv_modify_*(), the data path
 * through ctx->ops, ibv_query_*(), and the ibv_get_async_event(3)
 * contract:
 *
 *  - element is the program's own struct ibv_cq/qp/srq/wq pointer, for
 *    events rxe raises for real (CQ_ERR, SQ_DRAINED, SRQ_LIMIT_REACHED)
 *    and for every affiliated type the test-only evsrc device raises from
 *    process, softirq and hard-irq context;
 *  - ibv_ack_async_event() counts on the object's own fields;
 *  - ibv_destroy_*() waits for every delivered event to be acknowledged
 *    (still blocked after 1 s, back promptly after the ack), and events of
 *    a destroyed object that were not delivered never are, including
 *    those the library had already fetched in a batch.
 *
 * Queries are compared with sysfs, payloads with what was sent.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <infiniband/verbs.h>

#include "lib/iba_ibv.h"
#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"

#define QKEY		0x11111111

struct so_ctx {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

/* Open @ibdev through libibasync; 0 or -1. */
static int so_open(struct so_ctx *s, const char *ibdev)
{
	int i, n = 0;

	s->list = ibv_get_device_list(&n);
	if (!s->list)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(s->list[i]), ibdev))
			break;
	if (i == n)
		return -1;
	s->ctx = ibv_open_device(s->list[i]);
	if (!s->ctx)
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	return s->pd ? 0 : -1;
}

static void so_close(struct so_ctx *s)
{
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	if (s->list)
		ibv_free_device_list(s->list);
}

/* The next event within @ms, without acknowledging it; 0 or -1. */
static int get_event(struct ibv_context *ctx, int ms, struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	uint64_t end = iba_now_ms() + ms;

	while (iba_now_ms() < end) {
		if (poll(&p, 1, (int)(end - iba_now_ms())) <= 0)
			continue;
		if (!ibv_get_async_event(ctx, ev))
			return 0;
		if (errno != EAGAIN)
			return -1;
	}
	return -1;
}

/* Skip port events (link, GID) until one of @type; not acknowledged. */
static int wait_event(struct ibv_context *ctx, enum ibv_event_type type,
		      struct ibv_async_event *ev)
{
	uint64_t end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS;

	while (iba_now_ms() < end) {
		if (get_event(ctx, (int)(end - iba_now_ms()), ev))
			return -1;
		if (ev->event_type == type)
			return 0;
		ibv_ack_async_event(ev);
	}
	return -1;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static struct ibv_qp *make_ud_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				 struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = srq ? 0 : 8,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

/* UD: RESET -> INIT -> RTR -> RTS (as ud_pingpong does). */
static int ud_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ? -1 : 0;
}

/* rxe raises SQ_DRAINED for a UD QP inside the RTS -> SQD modify. */
static int to_sqd(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD,
				 .en_sqd_async_notify = 1 };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE |
			     IBV_QP_EN_SQD_ASYNC_NOTIFY) ? -1 : 0;
}

/* ---- on rxe -------------------------------------------------------------- */

FIXTURE(so) {
	struct iba_dev dev;
	struct so_ctx s;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

FIXTURE_SETUP(so)
{
	memset(&self->s, 0, sizeof(self->s));
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	ASSERT_EQ(0, so_open(&self->s, self->dev.ibdev)) TH_LOG("open: %m");
	self->ctx = self->s.ctx;
	self->pd = self->s.pd;
	set_nonblock(self->ctx->async_fd);
}

FIXTURE_TEARDOWN(so)
{
	so_close(&self->s);
}

TEST_F(so, queries_agree_with_sysfs)
{
	struct ib_async_device_attr k = { .argsz = sizeof(k) };
	struct ibv_device_attr d;
	struct ibv_port_attr p;
	union ibv_gid gid;
	uint8_t want[16];
	char path[256], text[64];
	__be16 pkey;
	int g;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ibv_query_device(self->ctx, &d));
	EXPECT_EQ(1, d.phys_port_cnt);
	EXPECT_EQ(ibv_get_device_guid(self->ctx->device), d.node_guid);
	EXPECT_LT(0, d.max_qp);
	EXPECT_LT(0, d.max_cqe);
	/* rxe has atomics, and so has the data path over registered MRs */
	ASSERT_EQ(0, ioctl(self->ctx->cmd_fd, IB_ASYNC_IOC_QUERY_DEVICE, &k));
	EXPECT_NE(0U, k.atomic_cap);
	EXPECT_EQ((int)k.atomic_cap, (int)d.atomic_cap);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/fw_ver",
		 self->dev.ibdev);
	/* sysfs shows the driver's string if it has one (rxe: none) */
	if (iba_read_line(path, text, sizeof(text)) || !text[0])
		strcpy(text, "0.0.0");
	EXPECT_STREQ(text, d.fw_ver);

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &p));
	EXPECT_EQ(IBV_PORT_ACTIVE, (int)p.state);
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, (int)p.link_layer);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/gid_attrs/types", self->dev.ibdev);
	EXPECT_LT(1, p.gid_tbl_len);
	EXPECT_NE(0, ibv_query_port(self->ctx, 2, &p));
	EXPECT_EQ(EINVAL, errno);

	g = iba_roce_v2_gid(self->dev.ibdev, want);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, g, &gid));
	EXPECT_EQ(0, memcmp(want, gid.raw, 16));
	/* an empty slot reads as the zero GID, as in libibverbs */
	memset(&gid, 0xa5, sizeof(gid));
	EXPECT_EQ(0, ibv_query_gid(self->ctx, 1, p.gid_tbl_len - 1, &gid));
	ASSERT_EQ(0, ibv_query_pkey(self->ctx, 1, 0, &pkey));
	EXPECT_EQ(0xffff, ntohs(pkey));
	EXPECT_EQ(0, ibv_get_pkey_index(self->ctx, 1, htons(0xffff)));
}

TEST_F(so, cq_err_element_is_the_programs_cq)
{
	static char bufs[4][64];
	struct ibv_async_event ev;
	struct ibv_recv_wr wr, *bad;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i;

	IBA_SKIPPED_IN_SETUP();
	mr = ibv_reg_mr(self->pd, bufs, sizeof(bufs), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	cq = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qp = make_ud_qp(self->pd, cq, NULL);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY));
	for (i = 0; i < 4; i++) {
		sge = (struct ibv_sge){ (uintptr_t)bufs[i], sizeof(bufs[i]),
					mr->lkey };
		wr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge,
					   .num_sge = 1 };
		ASSERT_EQ(0, ibv_post_recv(qp, &wr, &bad));
	}
	a.qp_state = IBV_QPS_ERR;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_ERR, (int)qp->state);
	ASSERT_EQ(0, wait_event(self->ctx, IBV_EVENT_CQ_ERR, &ev));
	EXPECT_EQ(cq, ev.element.cq);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(1U, cq->async_events_completed);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
}

TEST_F(so, sq_drained_element_is_the_programs_qp)
{
	struct ibv_async_event ev;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	IBA_SKIPPED_IN_SETUP();
	cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_LE(8, cq->cqe);
	/* rxe resizes CQs where kernel verbs can; cqe is what it granted */
	if (iba_features(self->ctx->async_fd) & IB_ASYNC_FEATURE_RESIZE_CQ) {
		ASSERT_EQ(0, ibv_resize_cq(cq, 64));
		EXPECT_LE(64, cq->cqe);
	} else {
		EXPECT_EQ(EOPNOTSUPP, ibv_resize_cq(cq, 64));
		EXPECT_GT(64, cq->cqe);
	}
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, 0));
	qp = make_ud_qp(self->pd, cq, NULL);
	ASSERT_NE(NULL, qp);
	EXPECT_NE(0U, qp->qp_num);
	ASSERT_EQ(0, ud_rts(qp));
	ASSERT_EQ(0, to_sqd(qp));
	ASSERT_EQ(0, wait_event(self->ctx, IBV_EVENT_SQ_DRAINED, &ev));
	EXPECT_EQ(qp, ev.element.qp);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(1U, qp->events_completed);
	/* the kernel's state and the init attributes it granted */
	ASSERT_EQ(0, ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qi));
	EXPECT_EQ(IBV_QPS_SQD, (int)qa.qp_state);
	EXPECT_EQ((uint32_t)QKEY, qa.qkey);
	EXPECT_EQ(1, qa.port_num);
	EXPECT_LE(4U, qi.cap.max_send_wr);
	EXPECT_EQ(cq, qi.send_cq);
	EXPECT_EQ(IBV_QPT_UD, (int)qi.qp_type);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(so, srq_limit_element_is_the_programs_srq)
{
	static char rbuf[4][IBA_GRH_BYTES + 64];
	static char msg[] = "to the SRQ, through an AH";
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr sa = { .srq_limit = 4 };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_send_wr swr, *sbad;
	struct ibv_async_event ev;
	struct ibv_sge sge;
	struct ibv_mr *rmr, *smr;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_wc wc[2];
	int i, g;

	IBA_SKIPPED_IN_SETUP();
	g = iba_roce_v2_gid(self->dev.ibdev, aa.grh.dgid.raw);
	ASSERT_LE(0, g);
	aa.grh.sgid_index = (uint8_t)g;
	aa.grh.hop_limit = 64;
	rmr = ibv_reg_mr(self->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	smr = ibv_reg_mr(self->pd, msg, sizeof(msg), 0);
	ASSERT_NE(NULL, rmr);
	ASSERT_NE(NULL, smr);
	srq = ibv_create_srq(self->pd, &si);
	ASSERT_NE(NULL, srq);
	EXPECT_LE(16U, si.attr.max_wr);
	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qp = make_ud_qp(self->pd, cq, srq);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, ud_rts(qp));
	for (i = 0; i < 4; i++) {
		sge = (struct ibv_sge){ (uintptr_t)rbuf[i], sizeof(rbuf[i]),
					rmr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + i, .sg_list = &sge,
					    .num_sge = 1 };
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &rwr, &rbad));
	}
	ASSERT_EQ(0, ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &sa));
	EXPECT_EQ(4U, sa.srq_limit);
	ah = ibv_create_ah(self->pd, &aa);
	ASSERT_NE(NULL, ah);

	sge = (struct ibv_sge){ (uintptr_t)msg, sizeof(msg), smr->lkey };
	swr = (struct ibv_send_wr){ .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				    .opcode = IBV_WR_SEND,
				    .send_flags = IBV_SEND_SIGNALED };
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = QKEY;
	ASSERT_EQ(0, ibv_post_send(qp, &swr, &sbad));
	ASSERT_EQ(0, wait_event(self->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, &ev));
	EXPECT_EQ(srq, ev.element.srq);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(1U, srq->events_completed);

	/* both completions, the message after the GRH */
	ASSERT_EQ(2, iba_ibv_poll_n(cq, 2, wc));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);
		if (wc[i].opcode != IBV_WC_RECV)
			continue;
		EXPECT_EQ(sizeof(msg) + IBA_GRH_BYTES, wc[i].byte_len);
		EXPECT_TRUE(!!(wc[i].wc_flags & IBV_WC_GRH));
		EXPECT_EQ(qp->qp_num, wc[i].src_qp);
		EXPECT_STREQ(msg, rbuf[wc[i].wr_id - 100] + IBA_GRH_BYTES);
	}
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_dereg_mr(smr));
}

struct destroyer {
	struct ibv_qp *qp;
	atomic_int done;
	int ret;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;

	d->ret = ibv_destroy_qp(d->qp);
	atomic_store(&d->done, 1);
	return NULL;
}

TEST_F(so, destroy_waits_for_the_ack_of_every_delivered_event)
{
	struct destroyer d = { 0 };
	struct ibv_async_event ev;
	struct ibv_cq *cq;
	pthread_t t;
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	d.qp = make_ud_qp(self->pd, cq, NULL);
	ASSERT_NE(NULL, d.qp);
	ASSERT_EQ(0, ud_rts(d.qp));
	ASSERT_EQ(0, to_sqd(d.qp));
	ASSERT_EQ(0, wait_event(self->ctx, IBV_EVENT_SQ_DRAINED, &ev));
	ASSERT_EQ(d.qp, ev.element.qp);
	/* delivered, not acknowledged: destroy must wait */
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_thread, &d));
	iba_sleep_ms(1000);
	EXPECT_EQ(0, atomic_load(&d.done)) TH_LOG("destroy returned before the ack");
	EXPECT_EQ(0U, d.qp->events_completed);
	t0 = iba_now_ms();
	ibv_ack_async_event(&ev);
	while (!atomic_load(&d.done) && iba_now_ms() - t0 < 5000)
		iba_sleep_ms(5);
	EXPECT_EQ(1, atomic_load(&d.done)) TH_LOG("destroy still blocked after the ack");
	TH_LOG("destroy returned %llu ms after the ack",
	       (unsigned long long)(iba_now_ms() - t0));
	EXPECT_GT(500ULL, iba_now_ms() - t0);
	pthread_join(t, NULL);
	EXPECT_EQ(0, d.ret);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(so, undelivered_events_of_a_destroyed_qp_never_arrive)
{
	struct ibv_qp *a, *b, *c, *first, *other;
	struct ibv_async_event ev;
	struct ibv_cq *cq;
	long long base;
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	a = make_ud_qp(self->pd, cq, NULL);
	b = make_ud_qp(self->pd, cq, NULL);
	c = make_ud_qp(self->pd, cq, NULL);
	ASSERT_TRUE(a && b && c);
	ASSERT_EQ(0, ud_rts(a));
	ASSERT_EQ(0, ud_rts(b));
	ASSERT_EQ(0, ud_rts(c));
	/* leftover port events must not be fetched in the same batch */
	while (!ibv_get_async_event(self->ctx, &ev))
		ibv_ack_async_event(&ev);
	/* c's event: queued in the kernel, never fetched */
	ASSERT_EQ(0, to_sqd(c));
	t0 = iba_now_ms();
	EXPECT_EQ(0, ibv_destroy_qp(c));
	EXPECT_GT(500ULL, iba_now_ms() - t0);
	/*
	 * a's and b's: both queued, then fetched in one batch; the first
	 * handed out and acked. rxe raises SQ_DRAINED from its own workers
	 * (7.x), so either may come first.
	 */
	/*
	 * Both have reached the file: queued in the kernel or, where the
	 * library maps an event ring, delivered into it.
	 */
	base = iba_offered(self->ctx->async_fd);
	ASSERT_LE(0, base);
	ASSERT_EQ(0, to_sqd(a));
	ASSERT_EQ(0, to_sqd(b));
	ASSERT_EQ(0, iba_wait_offered(self->ctx->async_fd, base + 2,
				      IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(base + 2, iba_offered(self->ctx->async_fd));
	ASSERT_EQ(0, wait_event(self->ctx, IBV_EVENT_SQ_DRAINED, &ev));
	first = ev.element.qp;
	ASSERT_TRUE(first == a || first == b);
	other = first == a ? b : a;
	ibv_ack_async_event(&ev);
	/* the other's record sits in the library's batch: destroy drops it */
	t0 = iba_now_ms();
	EXPECT_EQ(0, ibv_destroy_qp(other));
	EXPECT_GT(500ULL, iba_now_ms() - t0);
	errno = 0;
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev))
		TH_LOG("got %s for %p after its QP was destroyed",
		       ibv_event_type_str(ev.event_type), ev.element.qp);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, ibv_destroy_qp(first));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* RC within one context: gather list, immediate data, payload checked. */
TEST_F(so, rc_send_with_imm_gathered_from_two_sges)
{
	static char sbuf[64];
	const char *part1 = sbuf, *part2 = sbuf + 32;
	static char rbuf[64];
	struct ibv_qp_init_attr qi = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a;
	struct ibv_sge s[2], r;
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_mr *smr, *rmr;
	struct ibv_qp *qp[2];
	struct ibv_cq *cq;
	struct ibv_wc wc[2];
	union ibv_gid gid;
	int i, g;

	IBA_SKIPPED_IN_SETUP();
	g = iba_roce_v2_gid(self->dev.ibdev, gid.raw);
	ASSERT_LE(0, g);
	cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qi.send_cq = qi.recv_cq = cq;
	for (i = 0; i < 2; i++) {
		qp[i] = ibv_create_qp(self->pd, &qi);
		ASSERT_NE(NULL, qp[i]);
	}
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
		ASSERT_EQ(0, ibv_modify_qp(qp[i], &a, IBV_QP_STATE |
					   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					   IBV_QP_ACCESS_FLAGS));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp[!i]->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)g;
		a.ah_attr.grh.hop_limit = 1;
		ASSERT_EQ(0, ibv_modify_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
					   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					   IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		ASSERT_EQ(0, ibv_modify_qp(qp[i], &a, IBV_QP_STATE |
					   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					   IBV_QP_MAX_QP_RD_ATOMIC));
	}
	ASSERT_EQ(0, ibv_query_qp(qp[0], &a, IBV_QP_AV, &qi));
	EXPECT_EQ(0, memcmp(gid.raw, a.ah_attr.grh.dgid.raw, 16));
	EXPECT_EQ(qp[1]->qp_num, a.dest_qp_num);

	/* two pieces apart in one MR, with bytes between that are not sent */
	memset(sbuf, 'x', sizeof(sbuf));
	memcpy(sbuf, "gathered ", 10);
	memcpy(sbuf + 32, "from two SGEs", 14);
	smr = ibv_reg_mr(self->pd, sbuf, sizeof(sbuf), 0);
	ASSERT_NE(NULL, smr);
	rmr = ibv_reg_mr(self->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, rmr);
	r = (struct ibv_sge){ (uintptr_t)rbuf, sizeof(rbuf), rmr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &r, .num_sge = 1 };
	ASSERT_EQ(0, ibv_post_recv(qp[1], &rwr, &rbad));
	s[0] = (struct ibv_sge){ (uintptr_t)part1, strlen(part1), smr->lkey };
	s[1] = (struct ibv_sge){ (uintptr_t)part2, strlen(part2) + 1, smr->lkey };
	swr = (struct ibv_send_wr){ .wr_id = 2, .sg_list = s, .num_sge = 2,
				    .opcode = IBV_WR_SEND_WITH_IMM,
				    .send_flags = IBV_SEND_SIGNALED,
				    .imm_data = htonl(0xfeedbeef) };
	ASSERT_EQ(0, ibv_post_send(qp[0], &swr, &sbad));
	ASSERT_EQ(2, iba_ibv_poll_n(cq, 2, wc));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);
		if (wc[i].opcode != IBV_WC_RECV)
			continue;
		EXPECT_EQ(1ULL, wc[i].wr_id);
		EXPECT_EQ(strlen(part1) + strlen(part2) + 1, wc[i].byte_len);
		EXPECT_TRUE(!!(wc[i].wc_flags & IBV_WC_WITH_IMM));
		EXPECT_EQ(0xfeedbeef, ntohl(wc[i].imm_data));
		EXPECT_EQ(qp[1]->qp_num, wc[i].qp_num);
		EXPECT_STREQ("gathered from two SGEs", rbuf);
	}
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dereg_mr(smr));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
}

TEST_F(so, bad_input_fails_clearly_and_changes_nothing)
{
	static char buf[256];
	struct ibv_qp_init_attr qi = { .qp_type = IBV_QPT_XRC_SEND,
				       .cap = { .max_send_wr = 1,
						.max_recv_wr = 1,
						.max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_send_wr swr, *sbad = NULL;
	struct ibv_wq_init_attr wi = { .wq_type = IBV_WQT_RQ, .max_wr = 1,
				       .max_sge = 1 };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };
	struct so_ctx other = { 0 };
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int g;

	IBA_SKIPPED_IN_SETUP();
	cq = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qi.send_cq = qi.recv_cq = cq;

	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &qi));
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("XRC QP");
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno) TH_LOG("CQ of 0 entries");
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, 1 << 30, NULL, NULL, 0));
	EXPECT_NE(0, errno) TH_LOG("CQ beyond max_cqe");
	wi.pd = self->pd;
	wi.cq = cq;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_wq(self->ctx, &wi));
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("rxe has no WQs");

	/* a CQ of another context: its handle means nothing in this file */
	ASSERT_EQ(0, so_open(&other, self->dev.ibdev));
	qi.qp_type = IBV_QPT_UD;
	qi.send_cq = ibv_create_cq(other.ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, qi.send_cq);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &qi));
	EXPECT_EQ(EINVAL, errno) TH_LOG("foreign CQ");
	EXPECT_EQ(0, ibv_destroy_cq(qi.send_cq));
	so_close(&other);
	qi.send_cq = cq;

	qp = ibv_create_qp(self->pd, &qi);
	ASSERT_NE(NULL, qp);
	/* objects in use: EBUSY, and they stay usable */
	EXPECT_EQ(EBUSY, ibv_destroy_cq(cq));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd));
	EXPECT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY));
	/* attributes ib_async does not support */
	a.qp_state = IBV_QPS_RTR;
	a.cap.max_send_wr = 2;
	EXPECT_EQ(EOPNOTSUPP, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP));
	EXPECT_EQ(IBV_QPS_INIT, (int)qp->state);
	a.ah_attr.static_rate = 3;
	EXPECT_EQ(EOPNOTSUPP, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV));
	EXPECT_EQ(0, ibv_query_qp(qp, &a, IBV_QP_STATE, &qi));
	EXPECT_EQ(IBV_QPS_INIT, (int)a.qp_state);

	/* memory registration rules */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, sizeof(buf),
				   IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EINVAL, errno) TH_LOG("remote write without local write");
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, 0, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno) TH_LOG("empty range");
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, sizeof(buf),
				   IBV_ACCESS_ON_DEMAND));
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("ODP");
	mr = ibv_reg_mr(self->pd, buf, 128, 0);
	ASSERT_NE(NULL, mr);
	EXPECT_NE(0U, mr->lkey);

	/* receives: lkey, range and access rights checked at post */
	sge = (struct ibv_sge){ (uintptr_t)buf, 64, mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, &rwr, &rbad)) TH_LOG("read-only MR");
	EXPECT_EQ(&rwr, rbad);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	mr = ibv_reg_mr(self->pd, buf, 128, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	sge.lkey = mr->lkey + 1;
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, &rwr, &rbad)) TH_LOG("wrong lkey");
	sge.lkey = mr->lkey;
	sge.length = 129;
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, &rwr, &rbad)) TH_LOG("past the MR");
	sge.length = 64;
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(self->pd)) TH_LOG("PD with an MR");

	/*
	 * sends: opcodes and flags without a kernel equivalent (local
	 * invalidation, checksum offload), inline beyond the cap
	 */
	swr = (struct ibv_send_wr){ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				    .opcode = IBV_WR_LOCAL_INV };
	EXPECT_EQ(EOPNOTSUPP, ibv_post_send(qp, &swr, &sbad));
	EXPECT_EQ(&swr, sbad);
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_IP_CSUM;
	EXPECT_EQ(EOPNOTSUPP, ibv_post_send(qp, &swr, &sbad));
	g = iba_roce_v2_gid(self->dev.ibdev, aa.grh.dgid.raw);
	ASSERT_LE(0, g);
	aa.grh.sgid_index = (uint8_t)g;
	ah = ibv_create_ah(self->pd, &aa);
	ASSERT_NE(NULL, ah);
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qp->qp_num;
	swr.wr.ud.remote_qkey = QKEY;
	swr.send_flags = IBV_SEND_INLINE;
	ASSERT_GT(128U, qi.cap.max_inline_data);
	sge.length = qi.cap.max_inline_data + 1;
	EXPECT_EQ(EINVAL, ibv_post_send(qp, &swr, &sbad))
		TH_LOG("inline beyond max_inline_data %u", qi.cap.max_inline_data);
	EXPECT_EQ(0, ibv_destroy_ah(ah));

	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* ---- on the test-only event source --------------------------------------- */

FIXTURE(sev) {
	struct so_ctx s;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_wq *wq;
	int ev_cq, ev_qp, ev_srq, ev_wq;
};

FIXTURE_SETUP(sev)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_wq_init_attr wi = { .wq_type = IBV_WQT_RQ, .max_wr = 4,
				       .max_sge = 1 };

	memset(&self->s, 0, sizeof(self->s));
	self->cq = NULL;
	if (!iba_evsrc_present())
		SKIP(return, "no evsrc0 test device (%s)", IBA_EVSRC_KO);
	ASSERT_EQ(0, so_open(&self->s, "evsrc0")) TH_LOG("open evsrc0: %m");
	set_nonblock(self->s.ctx->async_fd);
	self->cq = ibv_create_cq(self->s.ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->ev_cq = iba_evsrc_find("cq", 0);
	self->srq = ibv_create_srq(self->s.pd, &si);
	ASSERT_NE(NULL, self->srq);
	self->ev_srq = iba_evsrc_find("srq", 0);
	self->qp = make_ud_qp(self->s.pd, self->cq, self->srq);
	ASSERT_NE(NULL, self->qp);
	self->ev_qp = iba_evsrc_find("qp", self->qp->qp_num);
	wi.pd = self->s.pd;
	wi.cq = self->cq;
	self->wq = ibv_create_wq(self->s.ctx, &wi);
	ASSERT_NE(NULL, self->wq) TH_LOG("ibv_create_wq: %m");
	self->ev_wq = iba_evsrc_find("wq", 0);
	ASSERT_LE(0, self->ev_cq);
	ASSERT_LE(0, self->ev_qp);
	ASSERT_LE(0, self->ev_srq);
	ASSERT_LE(0, self->ev_wq);
}

FIXTURE_TEARDOWN(sev)
{
	if (self->cq) {
		if (self->wq)
			ibv_destroy_wq(self->wq);
		if (self->qp)
			ibv_destroy_qp(self->qp);
		if (self->srq)
			ibv_destroy_srq(self->srq);
		ibv_destroy_cq(self->cq);
	}
	so_close(&self->s);
}

static void *obj_of(FIXTURE_DATA(sev) *self, uint32_t obj, char *target)
{
	switch (obj) {
	case IB_ASYNC_OBJ_CQ:
		sprintf(target, "cq:%d", self->ev_cq);
		return self->cq;
	case IB_ASYNC_OBJ_QP:
		sprintf(target, "qp:%d", self->ev_qp);
		return self->qp;
	case IB_ASYNC_OBJ_SRQ:
		sprintf(target, "srq:%d", self->ev_srq);
		return self->srq;
	default:
		sprintf(target, "wq:%d", self->ev_wq);
		return self->wq;
	}
}

static void *element_of(const struct ibv_async_event *ev, uint32_t obj)
{
	switch (obj) {
	case IB_ASYNC_OBJ_CQ: return ev->element.cq;
	case IB_ASYNC_OBJ_QP: return ev->element.qp;
	case IB_ASYNC_OBJ_SRQ: return ev->element.srq;
	default: return ev->element.wq;
	}
}

static uint32_t acks_of(FIXTURE_DATA(sev) *self, uint32_t obj)
{
	switch (obj) {
	case IB_ASYNC_OBJ_CQ: return self->cq->async_events_completed;
	case IB_ASYNC_OBJ_QP: return self->qp->events_completed;
	case IB_ASYNC_OBJ_SRQ: return self->srq->events_completed;
	default: return self->wq->events_completed;
	}
}

TEST_F(sev, every_affiliated_type_from_every_context_names_the_programs_object)
{
	struct ibv_async_event ev;
	char target[32];
	unsigned int c, i;

	IBA_SKIPPED_IN_SETUP();
	for (c = 0; c < iba_evsrc_ncontexts(); c++) {
		for (i = 0; i < ARRAY_SIZE(iba_evsrc_affiliated); i++) {
			uint32_t obj = iba_evsrc_affiliated[i].obj;
			void *mine = obj_of(self, obj, target);
			uint32_t before = acks_of(self, obj);

			ASSERT_EQ(0, iba_evsrc_write("raise", "%u %s %s 1",
						 iba_evsrc_affiliated[i].type, target,
						 iba_evsrc_contexts[c]));
			ASSERT_EQ(0, get_event(self->s.ctx, IBA_EVENT_TIMEOUT_MS,
					       &ev))
				TH_LOG("%s from %s", iba_type_str(iba_evsrc_affiliated[i].type),
				       iba_evsrc_contexts[c]);
			EXPECT_EQ(iba_evsrc_affiliated[i].type, (uint32_t)ev.event_type);
			EXPECT_EQ(mine, element_of(&ev, obj))
				TH_LOG("%s from %s", iba_type_str(iba_evsrc_affiliated[i].type),
				       iba_evsrc_contexts[c]);
			ibv_ack_async_event(&ev);
			EXPECT_EQ(before + 1, acks_of(self, obj));
		}
	}
	EXPECT_EQ(-1, ibv_get_async_event(self->s.ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(sev, wq_modify_and_destroy_wait_through_verbs_context)
{
	struct ibv_wq_attr wa = { .attr_mask = IBV_WQ_ATTR_STATE,
				  .wq_state = IBV_WQS_RDY };
	struct ibv_async_event ev;
	char target[32];

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ibv_modify_wq(self->wq, &wa));
	EXPECT_EQ(IBV_WQS_RDY, (int)self->wq->state);
	/* what the driver holds, not what we asked for */
	EXPECT_EQ(IBV_WQS_RDY, iba_evsrc_wq_state(self->ev_wq));

	/* an acked WQ_FATAL: destroy returns at once */
	obj_of(self, IB_ASYNC_OBJ_WQ, target);
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u %s %s 1",
				 IB_ASYNC_EV_WQ_FATAL, target, iba_evsrc_hard()));
	ASSERT_EQ(0, get_event(self->s.ctx, IBA_EVENT_TIMEOUT_MS, &ev));
	EXPECT_EQ(self->wq, ev.element.wq);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(0, ibv_destroy_wq(self->wq));
	self->wq = NULL;
	EXPECT_EQ(-1, iba_evsrc_find("wq", 0));
}

TEST_HARNESS_MAIN

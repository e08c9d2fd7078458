// SPDX-License-Identifier: GPL-2.0
/*
 * Completion channels through libibasync, the way rdma-core programs use
 * them (ibv_create_comp_channel(3), ibv_get_cq_event(3)): arm with
 * ibv_req_notify_cq(), sleep in ibv_get_cq_event() or in poll/epoll on
 * channel->fd, acknowledge with ibv_ack_cq_events().
 *
 * Each "lane" is a UD QP on its own CQ that sends to itself through an AH
 * on rxe, so a send gives the CQ real completions. What is checked comes
 * back from the library and the kernel: the CQ and cq_context an event
 * names, errno, poll/epoll readiness, and whether ibv_destroy_cq() has
 * returned.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <infiniband/verbs.h>

#include "lib/iba_verbs.h"

#define QKEY		0x11111111
#define LANES		3

struct lane {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char buf[2][IBA_GRH_BYTES + 64];
};

FIXTURE(sch) {
	struct iba_dev dev;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_ah *ah;
	struct ibv_comp_channel *ch;
	struct lane lane[LANES];
};

static int open_dev(FIXTURE_DATA(sch) *self)
{
	int i, n = 0;

	self->list = ibv_get_device_list(&n);
	for (i = 0; self->list && i < n; i++)
		if (!strcmp(ibv_get_device_name(self->list[i]),
			    self->dev.ibdev))
			self->ctx = ibv_open_device(self->list[i]);
	return self->ctx ? 0 : -1;
}

static int make_ah(FIXTURE_DATA(sch) *self)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1 };
	int g = iba_roce_v2_gid(self->dev.ibdev, a.grh.dgid.raw);

	if (g < 0)
		return -1;
	a.grh.sgid_index = (uint8_t)g;
	a.grh.hop_limit = 1;
	self->ah = ibv_create_ah(self->pd, &a);
	return self->ah ? 0 : -1;
}

static int post_one_recv(struct lane *l, int i)
{
	struct ibv_sge s = { .addr = (uintptr_t)l->buf[i],
			     .length = sizeof(l->buf[i]), .lkey = l->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = 100 + i, .sg_list = &s,
				 .num_sge = 1 }, *bad;

	return ibv_post_recv(l->qp, &w, &bad);
}

/* A UD QP on its own CQ (on @ch), in RTS, with two receives posted. */
static int lane_init(FIXTURE_DATA(sch) *self, struct lane *l,
		     struct ibv_comp_channel *ch)
{
	struct ibv_qp_init_attr qi = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };

	l->cq = ibv_create_cq(self->ctx, 8, l, ch, 0);
	if (!l->cq)
		return -1;
	qi.send_cq = qi.recv_cq = l->cq;
	l->qp = ibv_create_qp(self->pd, &qi);
	l->mr = ibv_reg_mr(self->pd, l->buf, sizeof(l->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	if (!l->qp || !l->mr)
		return -1;
	if (ibv_modify_qp(l->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(l->qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(l->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	return post_one_recv(l, 0) || post_one_recv(l, 1) ? -1 : 0;
}

static void lane_fini(struct lane *l)
{
	if (l->qp)
		ibv_destroy_qp(l->qp);
	if (l->mr)
		ibv_dereg_mr(l->mr);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	memset(l, 0, sizeof(*l));
}

/* A signalled message from the lane's QP to itself. */
static int ping(FIXTURE_DATA(sch) *self, struct lane *l, unsigned int flags)
{
	static const char msg[] = "channel";
	struct ibv_sge s = { .addr = (uintptr_t)msg, .length = sizeof(msg) };
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE | flags,
	}, *bad;

	w.wr.ud.ah = self->ah;
	w.wr.ud.remote_qpn = l->qp->qp_num;
	w.wr.ud.remote_qkey = QKEY;
	return ibv_post_send(l->qp, &w, &bad);
}

/* Poll until @want completions arrived or a timeout: how many. */
static int poll_n(struct ibv_cq *cq, int want)
{
	uint64_t end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS;
	struct ibv_wc wc[4];
	int got = 0, n;

	while (got < want && iba_now_ms() < end) {
		n = ibv_poll_cq(cq, want - got > 4 ? 4 : want - got, wc);
		if (n < 0)
			return n;
		got += n;
	}
	return got;
}

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

FIXTURE_SETUP(sch)
{
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	ASSERT_EQ(0, open_dev(self)) TH_LOG("open: %m");
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	ASSERT_EQ(0, make_ah(self)) TH_LOG("no IPv4 RoCE v2 GID, or AH: %m");
	self->ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, self->ch) TH_LOG("ibv_create_comp_channel: %m");
	EXPECT_EQ(self->ctx, self->ch->context);
	EXPECT_LE(0, self->ch->fd);
}

FIXTURE_TEARDOWN(sch)
{
	for (int i = 0; i < LANES; i++)
		lane_fini(&self->lane[i]);
	if (self->ch)
		ibv_destroy_comp_channel(self->ch);
	if (self->ah)
		ibv_destroy_ah(self->ah);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
	if (self->list)
		ibv_free_device_list(self->list);
}

struct getter {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	void *cq_context;
	int ret;
	atomic_int done;
};

static void *get_blocking(void *arg)
{
	struct getter *g = arg;

	g->ret = ibv_get_cq_event(g->ch, &g->cq, &g->cq_context);
	atomic_store(&g->done, 1);
	return NULL;
}

TEST_F(sch, blocking_get_sleeps_until_the_armed_cq_completes)
{
	struct lane *l = &self->lane[0];
	struct getter g = { .ch = self->ch, .ret = -2 };
	pthread_t t;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, lane_init(self, l, self->ch));
	ASSERT_EQ(0, ibv_req_notify_cq(l->cq, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, get_blocking, &g));
	iba_sleep_ms(300);
	EXPECT_EQ(0, atomic_load(&g.done)) TH_LOG("returned without an event");
	ASSERT_EQ(0, ping(self, l, 0));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, g.ret);
	EXPECT_EQ(l->cq, g.cq);
	EXPECT_EQ(l, g.cq_context);
	ibv_ack_cq_events(g.cq, 1);
	EXPECT_EQ(1U, l->cq->comp_events_completed);
	EXPECT_EQ(2, poll_n(l->cq, 2));
}

TEST_F(sch, nonblocking_channel_says_eagain_then_polls_readable)
{
	struct lane *l = &self->lane[0];
	struct ibv_cq *cq;
	void *cq_ctx;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, lane_init(self, l, self->ch));
	ASSERT_EQ(0, fcntl(self->ch->fd, F_SETFL,
			   fcntl(self->ch->fd, F_GETFL) | O_NONBLOCK));
	EXPECT_EQ(-1, ibv_get_cq_event(self->ch, &cq, &cq_ctx));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_FALSE(readable(self->ch->fd, 0));

	ASSERT_EQ(0, ibv_req_notify_cq(l->cq, 0));
	ASSERT_EQ(0, ping(self, l, 0));
	ASSERT_TRUE(readable(self->ch->fd, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, ibv_get_cq_event(self->ch, &cq, &cq_ctx));
	EXPECT_EQ(l->cq, cq);
	ibv_ack_cq_events(cq, 1);
	EXPECT_EQ(2, poll_n(l->cq, 2));
	/* not armed again: more completions, no event */
	ASSERT_EQ(0, post_one_recv(l, 0));
	ASSERT_EQ(0, ping(self, l, 0));
	EXPECT_EQ(2, poll_n(l->cq, 2));
	EXPECT_FALSE(readable(self->ch->fd, 300));
}

TEST_F(sch, epoll_on_one_channel_reports_each_of_several_cqs_once)
{
	struct epoll_event ee = { .events = EPOLLIN }, out;
	int ep, i, seen = 0, events = 0;
	struct ibv_cq *cq;
	void *cq_ctx;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < LANES; i++)
		ASSERT_EQ(0, lane_init(self, &self->lane[i], self->ch));
	ASSERT_EQ(0, fcntl(self->ch->fd, F_SETFL,
			   fcntl(self->ch->fd, F_GETFL) | O_NONBLOCK));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->ch->fd, &ee));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	for (i = 0; i < LANES; i++) {
		ASSERT_EQ(0, ibv_req_notify_cq(self->lane[i].cq, 0));
		ASSERT_EQ(0, ping(self, &self->lane[i], 0));
	}
	while (seen != (1 << LANES) - 1 &&
	       epoll_wait(ep, &out, 1, IBA_EVENT_TIMEOUT_MS) == 1) {
		while (!ibv_get_cq_event(self->ch, &cq, &cq_ctx)) {
			struct lane *l = cq_ctx;

			events++;
			ASSERT_EQ(l->cq, cq);
			seen |= 1 << (l - self->lane);
			ibv_ack_cq_events(cq, 1);
		}
		EXPECT_EQ(EAGAIN, errno);
	}
	EXPECT_EQ((1 << LANES) - 1, seen);
	EXPECT_EQ(LANES, events) TH_LOG("one event per armed CQ");
	for (i = 0; i < LANES; i++)
		EXPECT_EQ(2, poll_n(self->lane[i].cq, 2));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 300));
	close(ep);
}

struct destroyer {
	struct ibv_cq *cq;
	int ret;
	atomic_int done;
};

static void *destroy_cq(void *arg)
{
	struct destroyer *d = arg;

	d->ret = ibv_destroy_cq(d->cq);
	atomic_store(&d->done, 1);
	return NULL;
}

TEST_F(sch, destroy_cq_waits_for_the_ack_and_frees_the_channel)
{
	struct lane *l = &self->lane[0];
	struct destroyer d = { .ret = -2 };
	struct ibv_cq *cq;
	void *cq_ctx;
	pthread_t t;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, lane_init(self, l, self->ch));
	EXPECT_EQ(1, self->ch->refcnt);
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(self->ch));
	ASSERT_EQ(0, ibv_req_notify_cq(l->cq, 0));
	ASSERT_EQ(0, ping(self, l, 0));
	ASSERT_EQ(0, ibv_get_cq_event(self->ch, &cq, &cq_ctx));
	ASSERT_EQ(l->cq, cq);
	EXPECT_EQ(2, poll_n(cq, 2));
	ASSERT_EQ(0, ibv_destroy_qp(l->qp));
	l->qp = NULL;

	d.cq = cq;
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_cq, &d));
	iba_sleep_ms(1000);
	EXPECT_EQ(0, atomic_load(&d.done)) TH_LOG("destroy did not wait");
	ibv_ack_cq_events(cq, 1);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, d.ret);
	l->cq = NULL;
	EXPECT_EQ(0, self->ch->refcnt);
	EXPECT_EQ(0, ibv_destroy_comp_channel(self->ch));
	self->ch = NULL;
}

TEST_F(sch, solicited_arming_waits_for_a_solicited_message)
{
	struct lane *l = &self->lane[0];
	struct ibv_cq *cq;
	void *cq_ctx;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, lane_init(self, l, self->ch));
	ASSERT_EQ(0, ibv_req_notify_cq(l->cq, 1));
	ASSERT_EQ(0, ping(self, l, 0));
	EXPECT_EQ(2, poll_n(l->cq, 2));
	EXPECT_FALSE(readable(self->ch->fd, 300)) TH_LOG("unsolicited");
	ASSERT_EQ(0, ping(self, l, IBV_SEND_SOLICITED));
	ASSERT_TRUE(readable(self->ch->fd, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, ibv_get_cq_event(self->ch, &cq, &cq_ctx));
	EXPECT_EQ(l->cq, cq);
	ibv_ack_cq_events(cq, 1);
	EXPECT_EQ(2, poll_n(l->cq, 2));
}

TEST_HARNESS_MAIN

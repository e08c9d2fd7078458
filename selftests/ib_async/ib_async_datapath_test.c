// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic through ib_async's kernel-buffer data path on rxe, and the two
 * affiliated events rxe raises only when work moves:
 *
 *  - CQ_ERR: a one-entry CQ as a QP's receive CQ, several receives posted,
 *    the QP moved to ERR: the flushed receives overrun the CQ.
 *  - SRQ_LIMIT_REACHED: a UD QP on an SRQ holding K receives with the
 *    limit armed at K; one UD message sent to it through an AH.
 *
 * Payloads and completions are checked as the kernel returned them.
 */
#include <arpa/inet.h>

#include "lib/iba_verbs.h"

#define CQ_COOKIE	0xc9000000000000e1ULL
#define SRQ_COOKIE	0x5e0000000000000aULL

/* A signalled SEND of @len bytes at @msg on @qp. */
static struct ib_async_post_send signalled_send(uint32_t qp, uint64_t wr_id,
						const void *msg, uint32_t len)
{
	return (struct ib_async_post_send){
		.handle = qp, .opcode = IB_UVERBS_WR_SEND, .wr_id = wr_id,
		.addr = (uintptr_t)msg, .length = len,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};
}

FIXTURE(dp) {
	struct iba_dev dev;
	int fd;
	uint32_t pd;
	int sgid;		/* the RoCE v2 GID of the test bed's address */
	uint8_t gid[16];
};

FIXTURE_SETUP(dp)
{
	self->fd = -1;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, iba_create_pd(self->fd, &self->pd));
	self->sgid = iba_roce_v2_gid(self->dev.ibdev, self->gid);
}

/* A CQ and an RC pair on it, connected through the fixture's GID. */
static int dp_rc_pair(FIXTURE_DATA(dp) *self, uint32_t *cq,
		      struct ib_async_create_qp *a,
		      struct ib_async_create_qp *b)
{
	int ret = iba_create_cq(self->fd, 1, 16, cq);

	return ret ? ret : iba_rc_pair(self->fd, self->pd, *cq, self->sgid,
				   self->gid, a, b);
}

FIXTURE_TEARDOWN(dp)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dp, flushed_receives_overrun_one_entry_cq_raise_cq_err)
{
	static char bufs[4][64];
	struct ib_async_create_qp qp;
	struct ib_async_event ev;
	uint32_t cq;
	int i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->fd, CQ_COOKIE, 1, &cq));
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, cq, IB_UVERBS_QPT_UD,
			       &qp));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
			       IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY,
			       &(struct ib_async_qp_attr){
					.port_num = 1, .qkey = IBA_UD_QKEY }));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, qp.handle, i,
				       bufs[i], sizeof(bufs[i])));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 6, 0, NULL));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_CQ_ERR,
				   IBA_EVENT_TIMEOUT_MS, &ev));
	EXPECT_EQ(CQ_COOKIE, ev.element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_CQ, ev.obj_type);
	EXPECT_EQ(cq, ev.obj_handle);
	/* The QP goes first; its flushed requests are freed with it. */
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq, NULL));
}

TEST_F(dp, ud_send_below_armed_limit_raises_srq_limit_reached)
{
	static char rbuf[4][IBA_GRH_BYTES + 64];
	static const char msg[] = "to the SRQ, through an AH";
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .user_handle = SRQ_COOKIE, .max_wr = 16,
		.max_sge = 1,
	};
	struct ib_async_srq_attr arm = {
		.argsz = sizeof(arm), .attr_mask = IB_ASYNC_SRQ_LIMIT,
		.srq_limit = 4,
	};
	struct ib_async_create_ah ah = { .argsz = sizeof(ah) };
	struct ib_async_post_send s = {};
	struct ib_async_create_qp qp;
	struct ib_async_event ev;
	struct ib_async_wc wc[2];
	uint32_t cq;
	int i, n, sgid;

	IBA_SKIPPED_IN_SETUP();
	sgid = iba_roce_v2_gid(self->dev.ibdev, ah.av.dgid);
	if (sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, iba_create_cq(self->fd, 1, 16, &cq));
	srq.pd_handle = self->pd;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	memset(&qp, 0, sizeof(qp));
	qp.argsz = sizeof(qp);
	qp.pd_handle = self->pd;
	qp.send_cq_handle = cq;
	qp.recv_cq_handle = cq;
	qp.srq_handle = srq.handle;
	qp.qp_type = IB_UVERBS_QPT_UD;
	qp.max_send_wr = 4;
	qp.max_send_sge = 1;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_QP, &qp));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, qp.handle));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_SRQ, srq.handle,
				       100 + i, rbuf[i], sizeof(rbuf[i])));
	arm.handle = srq.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_SRQ, &arm));

	ah.pd_handle = self->pd;
	ah.av.is_global = 1;
	ah.av.port_num = 1;
	ah.av.sgid_index = sgid;
	ah.av.hop_limit = 64;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_AH, &ah));
	s = signalled_send(qp.handle, 7, msg, sizeof(msg));
	s.ah_handle = ah.handle;
	s.remote_qpn = qp.qp_num;
	s.remote_qkey = IBA_UD_QKEY;
	ASSERT_EQ(0, iba_post_send(self->fd, &s));

	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_SRQ_LIMIT_REACHED,
				   IBA_EVENT_TIMEOUT_MS, &ev));
	EXPECT_EQ(SRQ_COOKIE, ev.element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_SRQ, ev.obj_type);
	EXPECT_EQ(srq.handle, ev.obj_handle);

	n = iba_poll_cq(self->fd, cq, wc, 2);
	ASSERT_EQ(2, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0U, wc[i].status);
		if (wc[i].opcode != 128)	/* IBV_WC_RECV */
			continue;
		/* UD receives start with the GRH. */
		EXPECT_EQ(IBA_GRH_BYTES + sizeof(msg), wc[i].byte_len);
		EXPECT_EQ(qp.qp_num, wc[i].src_qp);
		EXPECT_STREQ(msg, rbuf[wc[i].wr_id - 100] + IBA_GRH_BYTES);
	}
}

TEST_F(dp, rc_send_with_imm_delivers_payload_and_immediate)
{
	static char rbuf[256];
	static const char msg[] = "hello over RC through ib_async";
	struct ib_async_create_qp a, b;
	struct ib_async_post_send s = {};
	struct ib_async_wc wc[2];
	int i, seen = 0;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, dp_rc_pair(self, &cq, &a, &b));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 42, rbuf,
			       sizeof(rbuf)));
	s = signalled_send(a.handle, 41, msg, sizeof(msg));
	s.opcode = IB_UVERBS_WR_SEND_WITH_IMM;
	s.imm_data = htonl(0xfeedbeef);
	ASSERT_EQ(0, iba_post_send(self->fd, &s));

	ASSERT_EQ(2, iba_poll_cq(self->fd, cq, wc, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0U, wc[i].status);
		if (wc[i].wr_id == 41) {
			EXPECT_EQ(0U, wc[i].opcode);	/* IBV_WC_SEND */
			EXPECT_EQ(a.qp_num, wc[i].qp_num);
			seen |= 1;
		} else if (wc[i].wr_id == 42) {
			EXPECT_EQ(128U, wc[i].opcode);	/* IBV_WC_RECV */
			EXPECT_EQ(b.qp_num, wc[i].qp_num);
			EXPECT_EQ(sizeof(msg), wc[i].byte_len);
			EXPECT_NE(0U, wc[i].wc_flags & 2); /* IBV_WC_WITH_IMM */
			EXPECT_EQ(0xfeedbeefU, ntohl(wc[i].imm_data));
			EXPECT_STREQ(msg, rbuf);
			seen |= 2;
		}
	}
	EXPECT_EQ(3, seen);
}

TEST_F(dp, unsignalled_send_completes_silently)
{
	static const char msg[] = "quiet";
	struct ib_async_create_qp a, b;
	struct ib_async_post_send s = {};
	struct ib_async_wc wc[2];
	static char rbuf[64];
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, dp_rc_pair(self, &cq, &a, &b));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 2, rbuf,
			       sizeof(rbuf)));
	s.handle = a.handle;
	s.opcode = IB_UVERBS_WR_SEND;
	s.wr_id = 1;
	s.addr = (uintptr_t)msg;
	s.length = sizeof(msg);
	ASSERT_EQ(0, iba_post_send(self->fd, &s));
	/* Only the receive is reported; the send's completion is hidden. */
	ASSERT_EQ(1, iba_poll_cq(self->fd, cq, wc, 2));
	EXPECT_EQ(2ULL, wc[0].wr_id);
	EXPECT_STREQ(msg, rbuf);
}

/*
 * A count past INT_MAX is taken as ib_uverbs takes any ne: the completions
 * there are returned. It once reached the driver as a negative
 * num_entries, which rxe answers with nothing and other drivers take for
 * a very large one, writing past the module's array.
 */
TEST_F(dp, poll_with_a_count_past_int_max_returns_the_completions)
{
	static const char msg[] = "counted";
	static struct ib_async_wc wc[4];
	static char rbuf[64];
	static const uint32_t counts[] = { 0x80000000U, 0xffffffffU };
	struct ib_async_create_qp a, b;
	struct ib_async_post_send s = {};
	uint64_t t0;
	int i;
	uint32_t cq, got;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, dp_rc_pair(self, &cq, &a, &b));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle,
				       10 + i, rbuf, sizeof(rbuf)));
		s = signalled_send(a.handle, 20 + i, msg, sizeof(msg));
		ASSERT_EQ(0, iba_post_send(self->fd, &s));

		/* the send's and the receive's completions */
		got = 0;
		t0 = iba_now_ms();
		while (got < 2 && iba_now_ms() - t0 < IBA_EVENT_TIMEOUT_MS) {
			struct ib_async_poll_cq p = {
				.argsz = sizeof(p), .handle = cq,
				.count = counts[i], .wc = (uintptr_t)&wc[got],
			};

			ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_POLL_CQ, &p));
			ASSERT_GE(2 - got, p.count);
			got += p.count;
			if (got < 2)
				iba_sleep_ms(10);
		}
		ASSERT_EQ(2U, got) TH_LOG("count %#x", counts[i]);
		EXPECT_EQ(0U, wc[0].status);
		EXPECT_EQ(0U, wc[1].status);
		EXPECT_EQ(30ULL + 2 * i, wc[0].wr_id + wc[1].wr_id);
	}
}

/*
 * RESET empties a QP's queues without completions: the receives it held
 * are released at once (fdinfo's work-requests), not kept against the
 * file's limit until the QP is destroyed; brought up again, the QP
 * carries traffic with new ones.
 */
TEST_F(dp, reset_releases_what_the_qp_had_posted)
{
	static const char msg[] = "after reset";
	static char rbuf[4][64];
	struct ib_async_create_qp a, b;
	struct ib_async_post_send s = {};
	struct ib_async_wc wc[2];
	uint32_t cq;
	int i;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, dp_rc_pair(self, &cq, &a, &b));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, i,
				       rbuf[i], sizeof(rbuf[i])));
	EXPECT_EQ(3, iba_fdinfo(self->fd, "work-requests"));
	ASSERT_EQ(0, iba_modify_qp(self->fd, b.handle, 0, 0, NULL));
	EXPECT_EQ(0, iba_query_qp_state(self->fd, b.handle));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "work-requests"));

	ASSERT_EQ(0, iba_rc_connect(self->fd, b.handle, a.qp_num, self->sgid,
				self->gid));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 3,
			       rbuf[3], sizeof(rbuf[3])));
	s = signalled_send(a.handle, 4, msg, sizeof(msg));
	ASSERT_EQ(0, iba_post_send(self->fd, &s));
	ASSERT_EQ(2, iba_poll_cq(self->fd, cq, wc, 2));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(0U, wc[1].status);
	EXPECT_EQ(7ULL, wc[0].wr_id + wc[1].wr_id);
	EXPECT_STREQ(msg, rbuf[3]);
	EXPECT_EQ(0, iba_fdinfo(self->fd, "work-requests"));
}

TEST_F(dp, bad_work_requests_change_nothing)
{
	static char buf[64];
	struct ib_async_post_send s = {};
	struct ib_async_create_qp ud, rc;
	struct ib_async_poll_cq p = { .argsz = sizeof(p), .count = 4 };
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->fd, 1, 16, &cq));
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, cq, IB_UVERBS_QPT_UD, &ud));
	ASSERT_EQ(0, iba_create_qp(self->fd, 2, self->pd, cq, IB_UVERBS_QPT_RC, &rc));
	EXPECT_EQ(-EINVAL, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, ud.handle, 1,
				     buf, IB_ASYNC_MAX_MSG + 1));
	EXPECT_EQ(-EINVAL, iba_post_recv(self->fd, IB_ASYNC_OBJ_CQ, cq, 1, buf, 8));
	EXPECT_EQ(-ENOENT, iba_post_recv(self->fd, IB_ASYNC_OBJ_SRQ, 999, 1, buf, 8));
	s.handle = ud.handle;
	s.opcode = IB_UVERBS_WR_SEND;
	s.addr = (uintptr_t)buf;
	s.length = 8;
	/* UD needs an AH; RC must not name one. */
	EXPECT_EQ(-ENOENT, iba_post_send(self->fd, &s));
	s.handle = rc.handle;
	s.ah_handle = 5;
	EXPECT_EQ(-EINVAL, iba_post_send(self->fd, &s));
	s.ah_handle = 0;
	s.opcode = 0;			/* RDMA WRITE: not offered */
	EXPECT_EQ(-EINVAL, iba_post_send(self->fd, &s));
	s.opcode = IB_UVERBS_WR_SEND;
	s.addr = 8;			/* unmapped */
	EXPECT_EQ(-EFAULT, iba_post_send(self->fd, &s));
	p.handle = cq;
	p.wc = 0xffff888000000000ULL;	/* kernel half: never user memory */
	EXPECT_EQ(-EFAULT, iba_ioc(self->fd, IB_ASYNC_IOC_POLL_CQ, &p));
	p.wc = (uintptr_t)buf;
	p.count = 1;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_POLL_CQ, &p));
	EXPECT_EQ(0U, p.count);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Completion channels through the node's ioctls, on rxe: a channel is a
 * file of its own; a CQ armed with REQ_NOTIFY_CQ puts one IB_ASYNC_EV_COMP
 * record there for its next (solicited) completion; DESTROY reports how
 * many were read and purges the rest; the channel belongs to the file it
 * was made on, serves at most queue_len CQs, and its readers wake with
 * EIO when that file is closed.
 *
 * Every count is what the kernel answered (records read back, GET_INFO on
 * the channel, DESTROY's comp_events_reported, fdinfo).
 */
#include <pthread.h>

#include "lib/iba_verbs.h"

#define CQ_COOKIE	0xc0c0000000000001ULL

static int post_send(int fd, uint32_t qp, uint64_t wr_id, const void *buf,
		     uint32_t len, uint32_t send_flags)
{
	struct ib_async_post_send a = {
		.argsz = sizeof(a), .handle = qp,
		.opcode = IB_UVERBS_WR_SEND, .wr_id = wr_id,
		.addr = (uintptr_t)buf, .length = len,
		.send_flags = send_flags,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_POST_SEND, &a);
}

/* A completion channel of @fd: its descriptor or -errno. */
static int comp_channel(int fd, uint32_t flags)
{
	return iba_channel(fd, IB_ASYNC_CHANNEL_COMP, flags);
}

static int create_cq_on(int fd, int chan, uint64_t cookie, uint32_t *handle)
{
	struct ib_async_create_cq a = {
		.argsz = sizeof(a), .flags = IB_ASYNC_CREATE_CQ_CHANNEL,
		.user_handle = cookie, .cqe = 16, .comp_channel = chan,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_CQ, &a);

	*handle = a.handle;
	return ret;
}

static int req_notify(int fd, uint32_t cq, uint32_t flags)
{
	struct ib_async_req_notify_cq a = {
		.argsz = sizeof(a), .flags = flags, .handle = cq,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_REQ_NOTIFY_CQ, &a);
}

/* Records queued on a channel, as its GET_INFO says. */
static int chan_queued(int chan)
{
	struct ib_async_info info;

	return iba_get_info(chan, &info) ? -1 : (int)info.queued;
}

FIXTURE(chan) {
	struct iba_dev dev;
	int fd;
	uint32_t pd;
	int sgid;
	uint8_t gid[16];
};

FIXTURE_SETUP(chan)
{
	self->fd = -1;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_NE(0ULL, iba_features(self->fd) & IB_ASYNC_FEATURE_COMP_CHANNEL);
	ASSERT_EQ(0, iba_create_pd(self->fd, &self->pd));
	self->sgid = iba_roce_v2_gid(self->dev.ibdev, self->gid);
}

FIXTURE_TEARDOWN(chan)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(chan, channel_is_a_file_with_the_queue_commands_only)
{
	struct ib_async_read_batch b = { .argsz = sizeof(b) };
	struct ib_async_event ev;
	struct ib_async_info info;
	uint32_t pd;
	int ch;

	IBA_SKIPPED_IN_SETUP();
	ch = comp_channel(self->fd, IB_ASYNC_CHANNEL_NONBLOCK);
	ASSERT_LE(0, ch);
	EXPECT_NE(0, fcntl(ch, F_GETFD) & FD_CLOEXEC);
	EXPECT_NE(0, fcntl(ch, F_GETFL) & O_NONBLOCK);
	ASSERT_EQ(0, iba_get_info(ch, &info));
	EXPECT_EQ((uint32_t)IBA_REC, info.record_size);
	EXPECT_EQ(0U, info.queued);
	EXPECT_LT(0U, info.queue_len);
	EXPECT_EQ(0, iba_set_queue_len(ch, 8));
	ASSERT_EQ(0, iba_get_info(ch, &info));
	EXPECT_EQ(8U, info.queue_len);
	/* object commands belong to the node, not to its channels */
	EXPECT_EQ(-ENOTTY, iba_create_pd(ch, &pd));
	EXPECT_EQ(-ENOTTY, comp_channel(ch, 0));
	EXPECT_EQ(-1, read(ch, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, iba_fionread(ch));
	EXPECT_EQ(0, iba_fdinfo(ch, "cqs"));
	EXPECT_EQ(8, iba_fdinfo(ch, "capacity"));
	/*
	 * READ_BATCH, but no peeking: a CQ's next event merges into its
	 * queued record, and would be lost with one the reader has seen.
	 */
	b.buf = (uintptr_t)&ev;
	b.count = 1;
	b.flags = IB_ASYNC_READ_NONBLOCK;
	EXPECT_EQ(-EAGAIN, iba_ioc(ch, IB_ASYNC_IOC_READ_BATCH, &b));
	b.flags |= IB_ASYNC_READ_PEEK;
	EXPECT_EQ(-EINVAL, iba_ioc(ch, IB_ASYNC_IOC_READ_BATCH, &b));
	close(ch);

	/* bad arguments make nothing */
	{
		struct ib_async_create_channel a = {
			.argsz = sizeof(a), .type = 3,
		};

		EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL,
				       &a));
		a.type = IB_ASYNC_CHANNEL_COMP;
		a.flags = 2;
		EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL,
				       &a));
		a.flags = 0;
		a.fd = 3;
		EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL,
				       &a));
	}
}

TEST_F(chan, cq_takes_only_a_channel_of_its_own_file)
{
	struct ib_async_create_cq a = {
		.argsz = sizeof(a), .user_handle = 1, .cqe = 4,
	};
	int ch, other, ch2;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	ch = comp_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	other = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, other);
	ch2 = comp_channel(other, 0);
	ASSERT_LE(0, ch2);

	EXPECT_EQ(-EINVAL, create_cq_on(self->fd, ch2, 1, &cq));
	EXPECT_EQ(-EINVAL, create_cq_on(self->fd, other, 1, &cq))
		TH_LOG("the node itself is no channel");
	EXPECT_EQ(-EBADF, create_cq_on(self->fd, 1000, 1, &cq));
	a.comp_channel = ch;	/* without the flag */
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CQ, &a));
	EXPECT_EQ(0, iba_fdinfo(ch, "cqs"));
	EXPECT_EQ(0, iba_fdinfo(ch2, "cqs"));

	ASSERT_EQ(0, create_cq_on(self->fd, ch, 1, &cq));
	EXPECT_EQ(1, iba_fdinfo(ch, "cqs"));
	/* the program may close the channel first: the CQ keeps it */
	close(ch);
	EXPECT_EQ(0, req_notify(self->fd, cq, 0));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq, NULL));
	close(ch2);
	close(other);
}

TEST_F(chan, a_channel_serves_at_most_queue_len_cqs)
{
	uint32_t cq[3];
	int ch;

	IBA_SKIPPED_IN_SETUP();
	ch = comp_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, iba_set_queue_len(ch, 2));
	ASSERT_EQ(0, create_cq_on(self->fd, ch, 1, &cq[0]));
	ASSERT_EQ(0, create_cq_on(self->fd, ch, 2, &cq[1]));
	EXPECT_EQ(-ENOSPC, create_cq_on(self->fd, ch, 3, &cq[2]));
	EXPECT_EQ(2, iba_fdinfo(ch, "cqs"));
	ASSERT_EQ(0, iba_set_queue_len(ch, 3));
	ASSERT_EQ(0, create_cq_on(self->fd, ch, 3, &cq[2]));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq[i], NULL));
	EXPECT_EQ(0, iba_fdinfo(ch, "cqs"));
	close(ch);
}

/*
 * One RC pair on one CQ with a channel: armed once, the next completion
 * raises exactly one record naming the CQ; unarmed, traffic raises none.
 */
TEST_F(chan, arming_gives_one_event_for_the_next_completion)
{
	static char rbuf[4][64];
	static const char msg[] = "ping";
	struct ib_async_create_qp a, b;
	struct ib_async_event ev;
	struct ib_async_wc wc[4];
	int ch, i;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ch = comp_channel(self->fd, IB_ASYNC_CHANNEL_NONBLOCK);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, create_cq_on(self->fd, ch, CQ_COOKIE, &cq));
	ASSERT_EQ(0, iba_rc_pair(self->fd, self->pd, cq, self->sgid, self->gid,
			     &a, &b));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle,
				       100 + i, rbuf[i], sizeof(rbuf[i])));

	/* not armed: completions, no event */
	ASSERT_EQ(0, post_send(self->fd, a.handle, 1, msg, sizeof(msg),
			       IB_ASYNC_SEND_SIGNALED));
	ASSERT_EQ(2, iba_poll_cq(self->fd, cq, wc, 2));
	EXPECT_EQ(-1, iba_read_one(ch, &ev, 300));
	EXPECT_EQ(0, chan_queued(ch));

	/* armed: one record for the CQ, however many completions follow */
	ASSERT_EQ(0, req_notify(self->fd, cq, 0));
	ASSERT_EQ(0, req_notify(self->fd, cq, 0)) TH_LOG("arming twice");
	ASSERT_EQ(0, post_send(self->fd, a.handle, 2, msg, sizeof(msg),
			       IB_ASYNC_SEND_SIGNALED));
	ASSERT_EQ(0, iba_read_one(ch, &ev, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMP, ev.event_type);
	EXPECT_EQ(CQ_COOKIE, ev.element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_CQ, ev.obj_type);
	EXPECT_EQ(cq, ev.obj_handle);
	EXPECT_EQ(1ULL, ev.seq);
	EXPECT_EQ(1ULL, ev.count);
	ASSERT_EQ(2, iba_poll_cq(self->fd, cq, wc, 2));
	EXPECT_EQ(-1, iba_read_one(ch, &ev, 300)) TH_LOG("a second event");

	/* armed again, the event stays unread: DESTROY purges it */
	ASSERT_EQ(0, req_notify(self->fd, cq, 0));
	ASSERT_EQ(0, post_send(self->fd, a.handle, 3, msg, sizeof(msg),
			       IB_ASYNC_SEND_SIGNALED));
	ASSERT_EQ(0, iba_wait_queued(ch, 1, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(1, chan_queued(ch));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, a.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, b.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq, NULL));
	EXPECT_EQ(0, chan_queued(ch)) TH_LOG("the CQ's record was purged");
	close(ch);
}

/*
 * A CQ without a channel may be armed (ibv_req_notify_cq() allows it) and
 * then fires: no channel, no completion event, none counted.
 */
TEST_F(chan, armed_cq_without_a_channel_counts_no_completion_event)
{
	static const char msg[] = "nobody listens";
	struct ib_async_create_qp a, b;
	struct ib_async_wc wc[2];
	static char rbuf[64];
	long before;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, iba_create_cq(self->fd, CQ_COOKIE, 16, &cq));
	ASSERT_EQ(0, iba_rc_pair(self->fd, self->pd, cq, self->sgid, self->gid,
			     &a, &b));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 2, rbuf,
			       sizeof(rbuf)));
	ASSERT_EQ(0, req_notify(self->fd, cq, 0));
	before = iba_counter(&self->dev, "comp_events");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, post_send(self->fd, a.handle, 1, msg, sizeof(msg),
			       IB_ASYNC_SEND_SIGNALED));
	ASSERT_EQ(2, iba_poll_cq(self->fd, cq, wc, 2));
	iba_sleep_ms(100);	/* a handler rxe defers to a tasklet has run */
	EXPECT_EQ(before, iba_counter(&self->dev, "comp_events"));
}

/* DESTROY says how many completion events of the CQ were read. */
TEST_F(chan, destroy_reports_comp_events_read)
{
	static char rbuf[4][64];
	static const char msg[] = "count";
	struct ib_async_create_qp a, b;
	struct ib_async_destroy d = { .argsz = sizeof(d) };
	struct ib_async_event ev;
	struct ib_async_wc wc[2];
	int ch, i;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ch = comp_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, create_cq_on(self->fd, ch, CQ_COOKIE, &cq));
	ASSERT_EQ(0, iba_rc_pair(self->fd, self->pd, cq, self->sgid, self->gid,
			     &a, &b));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, i,
				       rbuf[i], sizeof(rbuf[i])));
		ASSERT_EQ(0, req_notify(self->fd, cq, 0));
		ASSERT_EQ(0, post_send(self->fd, a.handle, 10 + i, msg,
				       sizeof(msg), IB_ASYNC_SEND_SIGNALED));
		/* a blocking channel: read() waits for the record */
		ASSERT_EQ((ssize_t)sizeof(ev), read(ch, &ev, sizeof(ev)));
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMP, ev.event_type);
		EXPECT_EQ((uint64_t)i + 1, ev.seq);
		ASSERT_EQ(2, iba_poll_cq(self->fd, cq, wc, 2));
	}
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, a.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, b.handle, NULL));
	d.obj_type = IB_ASYNC_OBJ_CQ;
	d.handle = cq;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_DESTROY, &d));
	EXPECT_EQ(3ULL, d.comp_events_reported);
	EXPECT_EQ(0ULL, d.events_reported);
	close(ch);
}

/* Armed for solicited completions only, an unsolicited message is silent. */
TEST_F(chan, solicited_arming_ignores_unsolicited_messages)
{
	static char rbuf[2][64];
	static const char msg[] = "se";
	struct ib_async_create_qp a, b;
	struct ib_async_event ev;
	struct ib_async_wc wc[2];
	uint32_t scq, rcq;
	int ch;

	IBA_SKIPPED_IN_SETUP();
	if (self->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ch = comp_channel(self->fd, IB_ASYNC_CHANNEL_NONBLOCK);
	ASSERT_LE(0, ch);
	/* the receiver's CQ has the channel; sends complete elsewhere */
	ASSERT_EQ(0, iba_create_cq(self->fd, 1, 16, &scq));
	ASSERT_EQ(0, create_cq_on(self->fd, ch, CQ_COOKIE, &rcq));
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, scq, IB_UVERBS_QPT_RC,
			       &a));
	{
		struct ib_async_create_qp q = {
			.argsz = sizeof(q), .user_handle = 2,
			.pd_handle = self->pd, .send_cq_handle = scq,
			.recv_cq_handle = rcq, .qp_type = IB_UVERBS_QPT_RC,
			.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			.max_recv_sge = 1,
		};

		ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_QP, &q));
		b = q;
	}
	ASSERT_EQ(0, iba_rc_connect(self->fd, a.handle, b.qp_num, self->sgid,
				self->gid));
	ASSERT_EQ(0, iba_rc_connect(self->fd, b.handle, a.qp_num, self->sgid,
				self->gid));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 1, rbuf[0],
			       sizeof(rbuf[0])));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 2, rbuf[1],
			       sizeof(rbuf[1])));

	ASSERT_EQ(0, req_notify(self->fd, rcq, IB_ASYNC_NOTIFY_SOLICITED));
	ASSERT_EQ(0, post_send(self->fd, a.handle, 11, msg, sizeof(msg),
			       IB_ASYNC_SEND_SIGNALED));
	ASSERT_EQ(1, iba_poll_cq(self->fd, rcq, wc, 1));
	EXPECT_EQ(1ULL, wc[0].wr_id);
	EXPECT_EQ(-1, iba_read_one(ch, &ev, 300)) TH_LOG("unsolicited");

	ASSERT_EQ(0, post_send(self->fd, a.handle, 12, msg, sizeof(msg),
			       IB_ASYNC_SEND_SIGNALED |
			       IB_ASYNC_SEND_SOLICITED));
	ASSERT_EQ(0, iba_read_one(ch, &ev, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMP, ev.event_type);
	EXPECT_EQ(CQ_COOKIE, ev.element);
	ASSERT_EQ(1, iba_poll_cq(self->fd, rcq, wc, 1));
	EXPECT_EQ(2ULL, wc[0].wr_id);
	EXPECT_EQ(2, iba_poll_cq(self->fd, scq, wc, 2));
	close(ch);
}

/* Closing the node ends its channels' streams: a blocked reader wakes. */
TEST_F(chan, closing_the_node_wakes_a_blocked_reader_with_eio)
{
	struct iba_reader r = { .ret = 1 };
	struct pollfd p;
	pthread_t t;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	r.fd = comp_channel(self->fd, 0);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, create_cq_on(self->fd, r.fd, CQ_COOKIE, &cq));
	ASSERT_EQ(0, pthread_create(&t, NULL, iba_reader_run, &r));
	iba_sleep_ms(200);
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EIO, r.err);
	p = (struct pollfd){ .fd = r.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_NE(0, p.revents & POLLHUP);
	EXPECT_EQ(0, iba_fdinfo(r.fd, "cqs"))
		TH_LOG("the node's close destroyed the CQ");
	close(r.fd);
}

TEST_HARNESS_MAIN

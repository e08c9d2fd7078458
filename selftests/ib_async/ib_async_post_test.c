// SPDX-License-Identifier: GPL-2.0
/*
 * The data path over registered memory (POST_SEND_LIST, POST_RECV_LIST)
 * on rxe: the device writes received data, RDMA WRITEs and READs and
 * atomics straight into the caller's registered memory (seen there before
 * any POLL_CQ), completions carry their opcodes and fields, UC works,
 * inline data needs no MR, and the device takes part of a list when its
 * queue fills (posted, error). Every lkey is checked against the file's
 * own MRs: another file's, guessed and out-of-range keys never reach the
 * device, and a receive into a deregistered MR fails without writing.
 */
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "lib/iba_evsrc.h"
#include "lib/iba_uffd.h"
#include "lib/iba_verbs.h"
/* the kernel's own table of what each send opcode and QP type take */
#include "lib/iba_send_rules.h"

#define BUF_LEN		(64 * 1024)
#define ACC_ALL		(IB_UVERBS_ACCESS_LOCAL_WRITE |			\
			 IB_UVERBS_ACCESS_REMOTE_WRITE |		\
			 IB_UVERBS_ACCESS_REMOTE_READ |			\
			 IB_UVERBS_ACCESS_REMOTE_ATOMIC)
#define QP_ACCESS	ACC_ALL		/* same bits for QP access flags */

/* A QP whose send queue holds @depth requests. */
static int qp_new_depth(int fd, uint32_t pd, uint32_t cq, uint32_t type,
			uint32_t depth, struct ib_async_create_qp *out)
{
	struct ib_async_create_qp a = {
		.argsz = sizeof(a), .user_handle = 7, .pd_handle = pd,
		.send_cq_handle = cq, .recv_cq_handle = cq, .qp_type = type,
		.max_send_wr = depth, .max_recv_wr = 16, .max_send_sge = 2,
		.max_recv_sge = 2, .max_inline_data = 64,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_QP, &a);

	*out = a;
	return ret;
}

static int qp_new(int fd, uint32_t pd, uint32_t cq, uint32_t type,
		  struct ib_async_create_qp *out)
{
	return qp_new_depth(fd, pd, cq, type, 8, out);
}

/* RC or UC through INIT, RTR (to @dqpn) and RTS, remote access allowed. */
static int qp_connect(int fd, uint32_t qp, bool rc, uint32_t dqpn, int sgid,
		      const uint8_t gid[16])
{
	return iba_qp_connect(fd, qp, rc, rc ? QP_ACCESS :
			      IB_UVERBS_ACCESS_REMOTE_WRITE, 4, dqpn, sgid,
			      gid);
}

/* Completions there are now, without waiting. */
static int pending(int fd, uint32_t cq)
{
	struct ib_async_wc wc[16];

	return iba_poll_cq_once(fd, cq, wc, 16);
}

/* The completion with @wr_id among @n, or NULL. */
static const struct ib_async_wc *wc_of(const struct ib_async_wc *wc, int n,
				       uint64_t wr_id)
{
	for (int i = 0; i < n; i++)
		if (wc[i].wr_id == wr_id)
			return &wc[i];
	return NULL;
}

FIXTURE(post) {
	struct iba_dev dev;
	int fd, sgid;
	uint8_t gid[16];
	uint32_t pd, cq;
	struct ib_async_create_qp a, b;
	char *la, *rb;			/* A's and B's memory */
	struct ib_async_reg_mr ma, mb;
};

FIXTURE_SETUP(post)
{
	self->fd = -1;
	self->la = self->rb = MAP_FAILED;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_USER_MR))
		SKIP(return, "no IB_ASYNC_FEATURE_USER_MR");
	self->sgid = iba_roce_v2_gid(self->dev.ibdev, self->gid);
	ASSERT_LE(0, self->sgid);
	ASSERT_EQ(0, iba_create_pd(self->fd, &self->pd));
	ASSERT_EQ(0, iba_create_cq(self->fd, 0xc0, 128, &self->cq));
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_RC,
			    &self->a));
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_RC,
			    &self->b));
	ASSERT_EQ(0, qp_connect(self->fd, self->a.handle, true,
				self->b.qp_num, self->sgid, self->gid));
	ASSERT_EQ(0, qp_connect(self->fd, self->b.handle, true,
				self->a.qp_num, self->sgid, self->gid));
	ASSERT_EQ(0, iba_anon_mr(self->fd, self->pd, BUF_LEN, ACC_ALL,
				 &self->la, &self->ma));
	ASSERT_EQ(0, iba_anon_mr(self->fd, self->pd, BUF_LEN, ACC_ALL,
				 &self->rb, &self->mb));
	/* registered for local write: pinned writable, these are its pages */
	memset(self->la, 'a', BUF_LEN);
	memset(self->rb, 'b', BUF_LEN);
}

FIXTURE_TEARDOWN(post)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->la != MAP_FAILED)
		munmap(self->la, BUF_LEN);
	if (self->rb != MAP_FAILED)
		munmap(self->rb, BUF_LEN);
}

TEST_F(post, send_gathers_and_receive_scatters_in_place)
{
	struct ib_async_sge rs[2] = {
		{ (uintptr_t)self->rb + 100, 6, self->mb.lkey },
		{ (uintptr_t)self->rb + 200, 64, self->mb.lkey },
	};
	struct ib_async_sge ss[2] = {
		{ (uintptr_t)self->la, 5, self->ma.lkey },
		{ (uintptr_t)self->la + 1000, 5, self->ma.lkey },
	};
	struct ib_async_recv_wr rw = { .wr_id = 0xabc, .num_sge = 2 };
	struct ib_async_send_wr sw = {
		.wr_id = 0xdef, .num_sge = 2, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};
	const struct ib_async_wc *w;
	struct ib_async_wc wc[4];

	IBA_SKIPPED_IN_SETUP();
	memcpy(self->la, "hello", 5);
	memcpy(self->la + 1000, "world", 5);
	ASSERT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				&rw, 1, rs, 2));
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &sw, 1, ss, 2));
	/* In B's memory before anything is polled: the device wrote it. */
	ASSERT_EQ(0, iba_wait_byte(self->rb + 203, 'd'));
	EXPECT_EQ(0, memcmp(self->rb + 100, "hellow", 6));
	EXPECT_EQ(0, memcmp(self->rb + 200, "orld", 4));
	EXPECT_EQ('b', self->rb[204]);
	EXPECT_EQ('b', self->rb[106]);

	ASSERT_EQ(2, iba_poll_cq(self->fd, self->cq, wc, 2));
	w = wc_of(wc, 2, 0xabc);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0U, w->status);
	EXPECT_EQ(128U, w->opcode);	/* IBV_WC_RECV */
	EXPECT_EQ(10U, w->byte_len);
	EXPECT_EQ(self->b.qp_num, w->qp_num);
	w = wc_of(wc, 2, 0xdef);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0U, w->status);
	EXPECT_EQ(0U, w->opcode);	/* IBV_WC_SEND */
	EXPECT_EQ(self->a.qp_num, w->qp_num);
}

/*
 * A QP beside A and B, on their PD and CQ, in RESET; *@init is
 * MODIFY_QP's argument that moves it to INIT.
 */
static int third_qp(FIXTURE_DATA(post) *self, struct ib_async_create_qp *q,
		    struct ib_async_qp_attr *init)
{
	int ret = qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_RC, q);

	*init = (struct ib_async_qp_attr){
		.argsz = sizeof(*init), .handle = q->handle,
		.attr_mask = IB_ASYNC_QP_STATE | IB_ASYNC_QP_PKEY_INDEX |
			     IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS,
		.qp_state = 1, .port_num = 1,
	};
	return ret;
}

/* How long the driver takes over a held command below. */
#define DRIVER_HELD_MS	1500

/*
 * Run @cmd with @arg in a thread of its own while the driver takes
 * DRIVER_HELD_MS over it (evsrc's pause @delay, a kprobe on entry to the
 * kernel verbs call it makes), and meanwhile send a message from A to B
 * and poll both its completions: 0 once the message went through while
 * the command was still in the driver and the command then succeeded, 1
 * when this kernel cannot pause the call (the caller skips), else -1
 * with why in the log.
 */
static int message_beside_held(struct __test_metadata *_metadata,
			       FIXTURE_DATA(post) *self, const char *delay,
			       unsigned long cmd, void *arg)
{
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = cmd, .arg = arg, .ret = 1,
	};
	struct ib_async_sge rs = { (uintptr_t)self->rb, 64, self->mb.lkey };
	struct ib_async_sge ss = { (uintptr_t)self->la, 64, self->ma.lkey };
	struct ib_async_recv_wr rw = { .wr_id = 1, .num_sge = 1 };
	struct ib_async_send_wr sw = {
		.wr_id = 2, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};
	char path[128], ms[16];
	struct ib_async_wc wc[2];
	uint64_t t0, took;
	int polled, done;
	pthread_t th;

	/* the pause is evsrc's: loaded if need be (rxe0 stays the device) */
	iba_evsrc_present();
	snprintf(path, sizeof(path), IBA_EVSRC_DBG "/%s", delay);
	if (access(path, W_OK))
		return 1;
	snprintf(ms, sizeof(ms), "%d", DRIVER_HELD_MS);
	if (iba_write_file(path, ms, strlen(ms), 0) ||
	    pthread_create(&th, NULL, iba_stalled_run, &c))
		return -1;
	/* well inside the driver's pause */
	iba_sleep_ms(200);

	t0 = iba_now_ms();
	if (iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle, &rw, 1,
			   &rs, 1) ||
	    iba_post_sends(self->fd, self->a.handle, &sw, 1, &ss, 1))
		TH_LOG("post: %m");
	polled = iba_poll_cq(self->fd, self->cq, wc, 2);
	took = iba_now_ms() - t0;
	done = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE);
	pthread_join(th, NULL);
	if (polled != 2 || wc[0].status || wc[1].status)
		TH_LOG("the message did not complete: %d", polled);
	else if (done || took > DRIVER_HELD_MS / 2)
		TH_LOG("the message took %llu ms, %s the command",
		       (unsigned long long)took, done ? "after" : "beside");
	else if (c.ret)
		TH_LOG("the command failed: %d", c.ret);
	else
		return 0;
	return -1;
}

/*
 * A MODIFY_QP the driver takes its time over (a firmware command on some
 * devices) holds up no post or poll of the same file: a message goes
 * from A to B, and both its completions are polled, while a third QP's
 * move to INIT is still in the driver, as a user QP's posts run on
 * beside ib_uverbs' modify. The move itself then completes.
 */
TEST_F_TIMEOUT(post, a_modify_in_the_driver_holds_up_no_post_or_poll, 60)
{
	struct ib_async_create_qp q;
	struct ib_async_qp_attr init;
	int ret;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, third_qp(self, &q, &init));
	ret = message_beside_held(_metadata, self, "delay_modify_qp_ms",
				  IB_ASYNC_IOC_MODIFY_QP, &init);
	if (ret > 0)
		SKIP(return, "no evsrc delay_modify_qp_ms (kprobes?)");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(1, iba_query_qp_state(self->fd, q.handle));
}

/*
 * The same for a create: a CQ the driver takes its time to make holds up
 * no post or poll, and is the file's once made.
 */
TEST_F_TIMEOUT(post, a_create_in_the_driver_holds_up_no_post_or_poll, 60)
{
	struct ib_async_create_cq cq = {
		.argsz = sizeof(cq), .user_handle = 0xc1, .cqe = 4,
	};
	int ret;

	IBA_SKIPPED_IN_SETUP();
	ret = message_beside_held(_metadata, self, "delay_create_cq_ms",
				  IB_ASYNC_IOC_CREATE_CQ, &cq);
	if (ret > 0)
		SKIP(return, "no evsrc delay_create_cq_ms (kprobes?)");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq.handle, NULL));
}

/*
 * The data path's own commands run side by side when they name different
 * objects: a poll of a second CQ the driver holds for DRIVER_HELD_MS
 * holds up no post to A or B and no poll of their CQ, as two threads of
 * a program polling two CQs never wait for each other over ib_uverbs.
 * The held poll then returns, empty.
 */
TEST_F_TIMEOUT(post, a_poll_in_the_driver_holds_up_no_post_or_poll_of_another_cq,
	       60)
{
	struct ib_async_wc wc[4];
	struct ib_async_poll_cq poll = {
		.argsz = sizeof(poll), .count = 4, .wc = (uintptr_t)wc,
	};
	int ret;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->fd, 0xc2, 16, &poll.handle));
	ret = message_beside_held(_metadata, self, "delay_poll_cq_ms",
				  IB_ASYNC_IOC_POLL_CQ, &poll);
	if (ret > 0)
		SKIP(return, "no evsrc delay_poll_cq_ms (kprobes?)");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0U, poll.count);
}

/*
 * The same for a post: receives posted to a third QP, held in the driver,
 * hold up no post to A or B and no poll; the held post then took its
 * request.
 */
TEST_F_TIMEOUT(post, a_post_in_the_driver_holds_up_no_post_or_poll_of_another_qp,
	       60)
{
	struct ib_async_sge rs = { 0, 64, 0 };
	struct ib_async_recv_wr rw = { .wr_id = 3, .num_sge = 1 };
	struct ib_async_post_list list = {
		.argsz = sizeof(list), .obj_type = IB_ASYNC_OBJ_QP, .count = 1,
		.wr_size = sizeof(rw), .wrs = (uintptr_t)&rw,
		.sges = (uintptr_t)&rs, .num_sges = 1,
	};
	struct ib_async_create_qp q;
	struct ib_async_qp_attr init;
	int ret;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, third_qp(self, &q, &init));
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_QP, &init));
	rs.addr = (uintptr_t)self->rb + BUF_LEN / 2;
	rs.lkey = self->mb.lkey;
	list.handle = q.handle;
	ret = message_beside_held(_metadata, self, "delay_post_recv_ms",
				  IB_ASYNC_IOC_POST_RECV_LIST, &list);
	if (ret > 0)
		SKIP(return, "no evsrc delay_post_recv_ms (kprobes?)");
	ASSERT_EQ(0, ret);
	EXPECT_EQ(1U, list.posted);
	EXPECT_EQ(0U, list.error);
}

/* The data path's part of what the file holds of RLIMIT_MEMLOCK. */
static long long dp_charged(int fd)
{
	return iba_fdinfo(fd, "charged-bytes") -
	       iba_fdinfo(fd, "verbs-charged-bytes");
}

/*
 * @n receives posted to a new QP on @cq, in INIT; meanwhile *@charged
 * and *@pooled are read; then the QP moves to ERR, which flushes them,
 * and they are polled. 0, or the failed step.
 */
static int flushed_recvs(FIXTURE_DATA(post) *self, uint32_t cq, uint32_t n,
			 long long *charged, long long *pooled)
{
	struct ib_async_create_qp q = {
		.argsz = sizeof(q), .pd_handle = self->pd,
		.send_cq_handle = cq, .recv_cq_handle = cq,
		.qp_type = IB_UVERBS_QPT_RC, .max_send_wr = 1,
		.max_recv_wr = n, .max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ib_async_qp_attr init = {
		.argsz = sizeof(init),
		.attr_mask = IB_ASYNC_QP_STATE | IB_ASYNC_QP_PKEY_INDEX |
			     IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS,
		.qp_state = 1, .port_num = 1,
	};
	struct ib_async_recv_wr w[IB_ASYNC_POST_MAX_WRS];
	struct ib_async_sge s[IB_ASYNC_POST_MAX_WRS];
	struct ib_async_wc wc[64];
	uint32_t i, k, done;
	int ret = 1;

	if (iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_QP, &q))
		return 1;
	init.handle = q.handle;
	if (iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_QP, &init))
		goto out;
	ret = 2;
	for (done = 0; done < n; done += k) {
		k = n - done < IB_ASYNC_POST_MAX_WRS ? n - done :
						       IB_ASYNC_POST_MAX_WRS;
		for (i = 0; i < k; i++) {
			w[i] = (struct ib_async_recv_wr){
				.wr_id = done + i, .num_sge = 1 };
			s[i] = (struct ib_async_sge){
				(uintptr_t)self->la, 8, self->ma.lkey };
		}
		if (iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, q.handle, w, k,
				   s, k))
			goto out;
	}
	ret = 3;
	if (iba_fdinfo(self->fd, "work-requests") != n)
		goto out;
	*charged = dp_charged(self->fd);
	*pooled = iba_fdinfo(self->fd, "pooled-requests");
	ret = 4;
	if (iba_modify_qp(self->fd, q.handle, 6, 0, NULL))
		goto out;
	ret = 5;
	for (done = 0; done < n; done += k) {
		k = iba_poll_cq(self->fd, cq, wc, n - done < 64 ? n - done : 64);
		if (!k || wc[0].status != 5)	/* IBV_WC_WR_FLUSH_ERR */
			goto out;
	}
	ret = iba_fdinfo(self->fd, "work-requests") ? 6 : 0;
out:
	if (iba_destroy(self->fd, IB_ASYNC_OBJ_QP, q.handle, NULL) && !ret)
		ret = 7;
	return ret;
}

/*
 * A request's tracking is allocated and charged once, when the file first
 * needs it, and kept for its next posts: a file posting as many requests
 * as it did before allocates nothing and its charge stays the same. Past
 * the 1024 a file keeps, what comes back is freed and its charge given
 * back.
 */
TEST_F(post, requests_reuse_their_tracking_and_keep_at_most_1024)
{
	enum { N = 16, MANY = 1100, KEPT = 1024 };
	long long base, one, charged, pooled;
	uint32_t cq;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->fd, 0xc2, 2048, &cq));
	ASSERT_EQ(0, iba_fdinfo(self->fd, "pooled-requests"));
	base = dp_charged(self->fd);

	ASSERT_EQ(0, flushed_recvs(self, cq, N, &charged, &pooled));
	EXPECT_EQ(0, pooled);
	/* each request's tracking, as the kernel charged it */
	one = (charged - base) / N;
	ASSERT_LT(0, one);
	EXPECT_EQ(base + N * one, charged);
	EXPECT_EQ(N, iba_fdinfo(self->fd, "pooled-requests"));
	EXPECT_EQ(charged, dp_charged(self->fd));

	/* the same again: nothing new charged, the kept ones taken */
	ASSERT_EQ(0, flushed_recvs(self, cq, N, &charged, &pooled));
	EXPECT_EQ(0, pooled);
	EXPECT_EQ(base + N * one, charged);
	EXPECT_EQ(N, iba_fdinfo(self->fd, "pooled-requests"));

	/* more than are kept: the rest go, and their charge with them */
	ASSERT_EQ(0, flushed_recvs(self, cq, MANY, &charged, &pooled));
	EXPECT_EQ(0, pooled);
	EXPECT_EQ(base + MANY * one, charged);
	EXPECT_EQ(KEPT, iba_fdinfo(self->fd, "pooled-requests"));
	EXPECT_EQ(base + KEPT * one, dp_charged(self->fd));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq, NULL));
}

TEST_F(post, rdma_write_read_and_write_with_imm)
{
	struct ib_async_sge s = { (uintptr_t)self->la, 16, self->ma.lkey };
	struct ib_async_sge rs = { (uintptr_t)self->rb + 4096, 16,
				   self->mb.lkey };
	struct ib_async_recv_wr rw = { .wr_id = 0x11, .num_sge = 1 };
	struct ib_async_send_wr w = {
		.wr_id = 1, .num_sge = 1, .opcode = IB_UVERBS_WR_RDMA_WRITE,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
		.remote_addr = (uintptr_t)self->rb + 512, .rkey = self->mb.rkey,
	};
	const struct ib_async_wc *c;
	struct ib_async_wc wc[4];

	IBA_SKIPPED_IN_SETUP();
	memcpy(self->la, "0123456789abcdef", 16);
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	ASSERT_EQ(0, iba_wait_byte(self->rb + 512 + 15, 'f'));
	EXPECT_EQ(0, memcmp(self->rb + 512, "0123456789abcdef", 16));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(1U, wc[0].opcode);	/* IBV_WC_RDMA_WRITE */

	/* READ B's bytes back into another place of A's memory. */
	memcpy(self->rb + 8192, "read me, please!", 16);
	s.addr = (uintptr_t)self->la + 2048;
	w.wr_id = 2;
	w.opcode = IB_UVERBS_WR_RDMA_READ;
	w.remote_addr = (uintptr_t)self->rb + 8192;
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	ASSERT_EQ(0, iba_wait_byte(self->la + 2048 + 15, '!'));
	EXPECT_EQ(0, memcmp(self->la + 2048, "read me, please!", 16));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(2U, wc[0].opcode);	/* IBV_WC_RDMA_READ */
	EXPECT_EQ(16U, wc[0].byte_len);

	/* WRITE_WITH_IMM consumes a receive and brings the immediate. */
	ASSERT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				&rw, 1, &rs, 1));
	s.addr = (uintptr_t)self->la;
	w.wr_id = 3;
	w.opcode = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM;
	w.imm_data = htonl(0x12345678);
	w.remote_addr = (uintptr_t)self->rb + 16384;
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	ASSERT_EQ(2, iba_poll_cq(self->fd, self->cq, wc, 2));
	c = wc_of(wc, 2, 0x11);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(0U, c->status);
	EXPECT_EQ(129U, c->opcode);	/* IBV_WC_RECV_RDMA_WITH_IMM */
	EXPECT_EQ(htonl(0x12345678), c->imm_data);
	EXPECT_NE(0U, c->wc_flags & 2);	/* IBV_WC_WITH_IMM */
	EXPECT_EQ(16U, c->byte_len);
	EXPECT_EQ(0, memcmp(self->rb + 16384, "0123456789abcdef", 16));
	EXPECT_EQ('b', self->rb[4096]);	/* the receive's buffer untouched */
}

TEST_F(post, atomics_return_the_original_value)
{
	uint64_t *remote = (uint64_t *)(self->rb + 64);
	uint64_t *orig = (uint64_t *)(self->la + 128);
	struct ib_async_sge s = { (uintptr_t)orig, 8, self->ma.lkey };
	struct ib_async_send_wr w = {
		.wr_id = 5, .num_sge = 1,
		.opcode = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
		.remote_addr = (uintptr_t)remote, .rkey = self->mb.rkey,
		.compare_add = 5,
	};
	struct ib_async_wc wc[2];

	IBA_SKIPPED_IN_SETUP();
	*remote = 1000;
	*orig = 0;
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(4U, wc[0].opcode);	/* IBV_WC_FETCH_ADD */
	EXPECT_EQ(1000ULL, *orig);
	EXPECT_EQ(1005ULL, *remote);

	w.wr_id = 6;
	w.opcode = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP;
	w.compare_add = 1005;
	w.swap = 77;
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(3U, wc[0].opcode);	/* IBV_WC_COMP_SWAP */
	EXPECT_EQ(1005ULL, *orig);
	EXPECT_EQ(77ULL, *remote);

	/* An atomic's entry is exactly 8 bytes. */
	s.length = 4;
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
}

TEST_F(post, uc_write_and_inline_send)
{
	struct ib_async_create_qp ua, ub;
	struct ib_async_sge s = { (uintptr_t)self->la, 8, self->ma.lkey };
	struct ib_async_send_wr w = {
		.wr_id = 9, .num_sge = 1, .opcode = IB_UVERBS_WR_RDMA_WRITE,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
		.remote_addr = (uintptr_t)self->rb + 300, .rkey = self->mb.rkey,
	};
	char msg[] = "inline, no MR";
	struct ib_async_sge is = { (uintptr_t)msg, sizeof(msg), 0xdeadbeef };
	struct ib_async_sge rs = { (uintptr_t)self->rb + 700, 64,
				   self->mb.lkey };
	struct ib_async_recv_wr rw = { .wr_id = 0x77, .num_sge = 1 };
	struct ib_async_wc wc[4];

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_UC,
			    &ua));
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_UC,
			    &ub));
	ASSERT_EQ(0, qp_connect(self->fd, ua.handle, false, ub.qp_num,
				self->sgid, self->gid));
	ASSERT_EQ(0, qp_connect(self->fd, ub.handle, false, ua.qp_num,
				self->sgid, self->gid));
	memcpy(self->la, "uc-write", 8);
	ASSERT_EQ(0, iba_post_sends(self->fd, ua.handle, &w, 1, &s, 1));
	ASSERT_EQ(0, iba_wait_byte(self->rb + 307, 'e'));
	EXPECT_EQ(0, memcmp(self->rb + 300, "uc-write", 8));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0U, wc[0].status);

	/* Inline: read from the caller during the call, no lkey. */
	ASSERT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				&rw, 1, &rs, 1));
	w.wr_id = 10;
	w.opcode = IB_UVERBS_WR_SEND;
	w.send_flags = IB_ASYNC_SEND_SIGNALED | IB_ASYNC_SEND_INLINE;
	w.remote_addr = 0;
	w.rkey = 0;
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &is, 1));
	memset(msg, 0, sizeof(msg));	/* the call has read it already */
	ASSERT_EQ(2, iba_poll_cq(self->fd, self->cq, wc, 2));
	EXPECT_STREQ("inline, no MR", self->rb + 700);
	/* Inline from an address the caller cannot read is EFAULT. */
	is.addr = 0xffff888000000000ULL;
	EXPECT_EQ(-EFAULT, iba_post_sends(self->fd, self->a.handle, &w, 1, &is, 1));
}

/*
 * Unsignalled sends take no slot of the CQ, as with any provider: 40 RDMA
 * WRITEs without IB_SEND_SIGNALED and one with it, on a QP whose send CQ
 * holds a few entries. The device must be asked for the one completion
 * only (were all 41 signalled to it, the CQ would overflow: a CQ_ERR
 * event and lost completions); every write lands, the one completion
 * comes back, and the requests the file tracked are all released with it.
 */
TEST_F(post, unsignalled_sends_take_no_cq_slot)
{
	enum { N = 40 };
	struct ib_async_create_qp c, d;
	struct ib_async_send_wr w[N + 1];
	struct ib_async_sge s[N + 1];
	struct ib_async_event ev;
	struct ib_async_wc wc[4];
	uint32_t small;
	int i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->fd, 0xc1, 4, &small));
	ASSERT_EQ(0, qp_new_depth(self->fd, self->pd, small, IB_UVERBS_QPT_RC,
				  64, &c));
	ASSERT_EQ(0, qp_new_depth(self->fd, self->pd, small, IB_UVERBS_QPT_RC,
				  64, &d));
	ASSERT_EQ(0, qp_connect(self->fd, c.handle, true, d.qp_num,
				self->sgid, self->gid));
	ASSERT_EQ(0, qp_connect(self->fd, d.handle, true, c.qp_num,
				self->sgid, self->gid));
	iba_drain(self->fd);
	for (i = 0; i <= N; i++) {
		snprintf(self->la + 3000 + 8 * i, 8, "w%06d", i);
		s[i] = (struct ib_async_sge){ (uintptr_t)self->la + 3000 + 8 * i,
					      8, self->ma.lkey };
		w[i] = (struct ib_async_send_wr){
			.wr_id = 500 + i, .num_sge = 1,
			.opcode = IB_UVERBS_WR_RDMA_WRITE,
			.send_flags = i == N ? IB_ASYNC_SEND_SIGNALED : 0,
			.remote_addr = (uintptr_t)self->rb + 3000 + 8 * i,
			.rkey = self->mb.rkey,
		};
	}
	ASSERT_EQ(0, iba_post_sends(self->fd, c.handle, w, N + 1, s, N + 1));
	ASSERT_EQ(1, iba_poll_cq(self->fd, small, wc, 1));
	EXPECT_EQ(500U + N, wc[0].wr_id);
	EXPECT_EQ(0U, wc[0].status);
	for (i = 0; i <= N; i++)
		ASSERT_EQ(0, memcmp(self->la + 3000 + 8 * i,
				    self->rb + 3000 + 8 * i, 8));
	iba_sleep_ms(100);
	EXPECT_EQ(0, pending(self->fd, small));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "work-requests"));
	/* no CQ_ERR: the CQ never overflowed */
	while (read(self->fd, &ev, sizeof(ev)) == (ssize_t)sizeof(ev))
		EXPECT_NE((uint32_t)IB_ASYNC_EV_CQ_ERR, ev.event_type);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, c.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, d.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, small, NULL));
}

/*
 * Inline data of several requests in one call, more in all than one
 * request may carry (the call's buffer grows past its small form): each
 * request's entries arrive in order, each at its own receive.
 */
TEST_F(post, inline_data_of_several_requests_in_one_call)
{
	char m1[30], m2[30], m3[50];
	struct ib_async_sge is[3] = {
		{ (uintptr_t)m1, sizeof(m1), 0 },
		{ (uintptr_t)m2, sizeof(m2), 0 },
		{ (uintptr_t)m3, sizeof(m3), 0 },
	};
	struct ib_async_send_wr w[2];
	struct ib_async_sge rs[2] = {
		{ (uintptr_t)self->rb + 1000, 64, self->mb.lkey },
		{ (uintptr_t)self->rb + 1100, 64, self->mb.lkey },
	};
	struct ib_async_recv_wr rw[2] = {
		{ .wr_id = 0x81, .num_sge = 1 },
		{ .wr_id = 0x82, .num_sge = 1 },
	};
	struct ib_async_wc wc[4];
	int i;

	IBA_SKIPPED_IN_SETUP();
	memset(m1, '1', sizeof(m1));
	memset(m2, '2', sizeof(m2));
	memset(m3, '3', sizeof(m3));
	for (i = 0; i < 2; i++)
		w[i] = (struct ib_async_send_wr){
			.wr_id = 20 + i, .num_sge = i ? 1 : 2,
			.opcode = IB_UVERBS_WR_SEND,
			.send_flags = IB_ASYNC_SEND_SIGNALED |
				      IB_ASYNC_SEND_INLINE,
		};
	ASSERT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				rw, 2, rs, 2));
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, w, 2, is, 3));
	/* the call has read it all already */
	memset(m1, 0, sizeof(m1));
	memset(m3, 0, sizeof(m3));
	ASSERT_EQ(4, iba_poll_cq(self->fd, self->cq, wc, 4));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0U, wc[i].status);
		if (wc[i].wr_id == 0x81)
			EXPECT_EQ(60U, wc[i].byte_len);
		if (wc[i].wr_id == 0x82)
			EXPECT_EQ(50U, wc[i].byte_len);
	}
	for (i = 0; i < 60; i++)
		ASSERT_EQ(i < 30 ? '1' : '2', self->rb[1000 + i]);
	for (i = 0; i < 50; i++)
		ASSERT_EQ('3', self->rb[1100 + i]);
	/* beyond the message, the receive buffer is as it was */
	EXPECT_EQ('b', self->rb[1060]);
	EXPECT_EQ('b', self->rb[1150]);
}

/*
 * The device refuses a request in the middle of a list (rxe: more entries
 * than the QP's max_send_sge, which only the driver checks): the requests
 * before it are posted and complete, in order; the call says where the
 * device stopped (posted, error), and nothing after it completes.
 */
TEST_F(post, device_takes_what_fits_and_says_where_it_stopped)
{
	uint32_t i, nsge = 0, bad = self->a.max_send_sge + 1;
	struct ib_async_send_wr w[4];
	struct ib_async_sge s[40];
	struct ib_async_post_list out;
	struct ib_async_wc wc[8];
	int n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_GE(32U, bad);
	for (i = 0; i < 4; i++) {
		w[i] = (struct ib_async_send_wr){
			.wr_id = 100 + i, .num_sge = i == 2 ? bad : 1,
			.opcode = IB_UVERBS_WR_RDMA_WRITE,
			.send_flags = IB_ASYNC_SEND_SIGNALED,
			.remote_addr = (uintptr_t)self->rb + 64 * i,
			.rkey = self->mb.rkey,
		};
		for (uint32_t j = 0; j < w[i].num_sge; j++)
			s[nsge++] = (struct ib_async_sge){
				(uintptr_t)self->la + 1024 * i + 8 * j, 8,
				self->ma.lkey };
	}
	memcpy(self->la, "ABCDEFGH", 8);
	ASSERT_EQ(0, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
			       IB_ASYNC_OBJ_QP, self->a.handle, w, 4,
			       sizeof(w[0]), s, nsge, &out));
	EXPECT_EQ(2U, out.posted);
	EXPECT_EQ((uint32_t)EINVAL, out.error);
	n = iba_poll_cq(self->fd, self->cq, wc, 2);
	ASSERT_EQ(2, n);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(100U + i, wc[i].wr_id);
		EXPECT_EQ(0U, wc[i].status);
	}
	EXPECT_EQ(0, memcmp(self->rb, "ABCDEFGH", 8));
	iba_sleep_ms(200);
	EXPECT_EQ(0, pending(self->fd, self->cq));
	EXPECT_EQ('b', self->rb[64 * 3]);	/* the fourth was not posted */

	/* Refused at the first: the call fails, as nothing was posted. */
	EXPECT_EQ(-EINVAL, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
				     IB_ASYNC_OBJ_QP, self->a.handle, &w[2], 2,
				     sizeof(w[0]), &s[2], bad + 1, &out));
	iba_sleep_ms(100);
	EXPECT_EQ(0, pending(self->fd, self->cq));
}

/*
 * A list of @n receives of one 8-byte entry each into B's memory, but
 * request @bad carries @limit + 1 entries. Return: the call's result,
 * with the kernel's answer in *@out.
 */
static int recvs_one_too_many(FIXTURE_DATA(post) *self, uint32_t type,
			      uint32_t h, uint32_t n, uint32_t bad,
			      uint32_t limit, struct ib_async_post_list *out)
{
	struct ib_async_recv_wr w[4];
	struct ib_async_sge s[40];
	uint32_t i, j, ns = 0;

	for (i = 0; i < n; i++) {
		w[i] = (struct ib_async_recv_wr){
			.wr_id = 200 + i, .num_sge = i == bad ? limit + 1 : 1,
		};
		for (j = 0; j < w[i].num_sge; j++)
			s[ns++] = (struct ib_async_sge){
				(uintptr_t)self->rb + 1024 * i + 8 * j, 8,
				self->mb.lkey };
	}
	return iba_post_list(self->fd, IB_ASYNC_IOC_POST_RECV_LIST, type, h, w,
			     n, sizeof(w[0]), s, ns, out);
}

/* How many work requests reached rxe since @before, or -1 unknown. */
static long reached_rxe(long before)
{
	long now = iba_strict_counter("checked");

	return before < 0 || now < 0 ? -1 : now - before;
}

/*
 * A request with one entry more than its QP (or SRQ) was granted is
 * refused by ib_async itself, at its exact index: those before it are
 * posted, the call says where it stopped with EINVAL (ibv_post_*()'s
 * bad_wr, as rxe and the providers report it), and the driver never sees
 * it, nor the ones after it (the strict checker counts what rxe got).
 * Sends, receives and SRQ receives; one refused first fails the call.
 */
TEST_F(post, entries_beyond_the_granted_limit_never_reach_the_driver)
{
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .pd_handle = self->pd, .max_wr = 16,
		.max_sge = 1,
	};
	uint32_t i, nsge = 0, sbad = self->a.max_send_sge + 1;
	struct ib_async_send_wr w[4];
	struct ib_async_post_list out;
	struct ib_async_sge s[40];
	long before;

	IBA_SKIPPED_IN_SETUP();
	if (iba_strict_available())
		TH_LOG("no strict checker: what reaches rxe is not counted");
	ASSERT_GE(32U, sbad);
	ASSERT_GE(32U, self->b.max_recv_sge + 1);
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	ASSERT_GE(32U, srq.max_sge + 1);
	ASSERT_LE(1U, srq.max_sge);

	/* sends: the third of four has one entry too many */
	for (i = 0; i < 4; i++) {
		w[i] = (struct ib_async_send_wr){
			.wr_id = 100 + i, .num_sge = i == 2 ? sbad : 1,
			.opcode = IB_UVERBS_WR_RDMA_WRITE,
			.remote_addr = (uintptr_t)self->rb + 64 * i,
			.rkey = self->mb.rkey,
		};
		for (uint32_t j = 0; j < w[i].num_sge; j++)
			s[nsge++] = (struct ib_async_sge){
				(uintptr_t)self->la + 1024 * i + 8 * j, 8,
				self->ma.lkey };
	}
	before = iba_strict_counter("checked");
	ASSERT_EQ(0, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
				   IB_ASYNC_OBJ_QP, self->a.handle, w, 4,
				   sizeof(w[0]), s, nsge, &out));
	EXPECT_EQ(2U, out.posted);
	EXPECT_EQ((uint32_t)EINVAL, out.error);
	if (before >= 0)
		EXPECT_EQ(2, reached_rxe(before));
	/* the bad one first: nothing posted, the call fails */
	before = iba_strict_counter("checked");
	EXPECT_EQ(-EINVAL, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
					 IB_ASYNC_OBJ_QP, self->a.handle, &w[2],
					 2, sizeof(w[0]), &s[2], sbad + 1,
					 &out));
	if (before >= 0)
		EXPECT_EQ(0, reached_rxe(before));

	/* receives on a QP: the second of three */
	before = iba_strict_counter("checked");
	ASSERT_EQ(0, recvs_one_too_many(self, IB_ASYNC_OBJ_QP, self->b.handle,
					3, 1, self->b.max_recv_sge, &out));
	EXPECT_EQ(1U, out.posted);
	EXPECT_EQ((uint32_t)EINVAL, out.error);
	if (before >= 0)
		EXPECT_EQ(1, reached_rxe(before));
	EXPECT_EQ(-EINVAL, recvs_one_too_many(self, IB_ASYNC_OBJ_QP,
					      self->b.handle, 2, 0,
					      self->b.max_recv_sge, &out));
	if (before >= 0)
		EXPECT_EQ(1, reached_rxe(before));

	/* receives on an SRQ: the third of four */
	before = iba_strict_counter("checked");
	ASSERT_EQ(0, recvs_one_too_many(self, IB_ASYNC_OBJ_SRQ, srq.handle, 4,
					2, srq.max_sge, &out));
	EXPECT_EQ(2U, out.posted);
	EXPECT_EQ((uint32_t)EINVAL, out.error);
	if (before >= 0)
		EXPECT_EQ(2, reached_rxe(before));
	EXPECT_EQ(-EINVAL, recvs_one_too_many(self, IB_ASYNC_OBJ_SRQ,
					      srq.handle, 1, 0, srq.max_sge,
					      &out));
	if (before >= 0)
		EXPECT_EQ(2, reached_rxe(before));
}

/*
 * Keys: the file's own only. Another file's MR, every key near ours (the
 * PD's internal DMA MR, which reaches all kernel memory on rxe, among
 * them), ranges outside the MR, and writes into memory registered without
 * local write are refused before the device sees them.
 */
TEST_F(post, only_the_files_own_keys_reach_the_device)
{
	struct ib_async_recv_wr rw = { .wr_id = 1, .num_sge = 1 };
	struct ib_async_sge s = { (uintptr_t)self->rb, 16, 0 };
	struct ib_async_reg_mr other, ro, pd2mr;
	uint32_t opd, pd2, idx, first, key, refused = 0;
	int ofd;

	IBA_SKIPPED_IN_SETUP();
	ofd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, ofd);
	ASSERT_EQ(0, iba_create_pd(ofd, &opd));
	ASSERT_EQ(0, iba_reg_mr(ofd, opd, self->rb, BUF_LEN, ACC_ALL, &other));
	s.lkey = other.lkey;
	EXPECT_EQ(-EINVAL, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				      &rw, 1, &s, 1));
	first = self->ma.lkey >> 8;
	first = first > 8 ? first - 8 : 1;
	for (idx = first; idx <= (self->mb.lkey >> 8) + 8; idx++) {
		for (key = 0; key < 256; key++) {
			s.lkey = idx << 8 | key;
			if (s.lkey == self->ma.lkey || s.lkey == self->mb.lkey)
				continue;
			ASSERT_EQ(-EINVAL,
				  iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP,
					     self->b.handle, &rw, 1, &s, 1))
				TH_LOG("lkey 0x%x reached the device", s.lkey);
			refused++;
		}
	}
	EXPECT_LT(16U * 256, refused);

	/* Outside the MR, by a byte at either end. */
	s.lkey = self->mb.lkey;
	s.addr = (uintptr_t)self->rb - 1;
	EXPECT_EQ(-EINVAL, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				      &rw, 1, &s, 1));
	s.addr = (uintptr_t)self->rb + BUF_LEN - 15;
	EXPECT_EQ(-EINVAL, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				      &rw, 1, &s, 1));
	/* No local write: no receive, no READ into it. */
	ASSERT_EQ(0, iba_reg_mr(self->fd, self->pd, self->rb, 4096,
			 IB_UVERBS_ACCESS_REMOTE_READ, &ro));
	s = (struct ib_async_sge){ (uintptr_t)self->rb, 16, ro.lkey };
	EXPECT_EQ(-EINVAL, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				      &rw, 1, &s, 1));
	/* An MR of the file on another PD. */
	ASSERT_EQ(0, iba_create_pd(self->fd, &pd2));
	ASSERT_EQ(0, iba_reg_mr(self->fd, pd2, self->rb, 4096, ACC_ALL, &pd2mr));
	s.lkey = pd2mr.lkey;
	EXPECT_EQ(-EINVAL, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				      &rw, 1, &s, 1));
	/* Nothing of it was posted. */
	iba_sleep_ms(100);
	EXPECT_EQ(0, pending(self->fd, self->cq));
	close(ofd);
}

TEST_F(post, refuses_malformed_lists)
{
	struct ib_async_sge s[2] = {
		{ (uintptr_t)self->la, 8, self->ma.lkey },
		{ (uintptr_t)self->la + 8, 8, self->ma.lkey },
	};
	struct ib_async_send_wr w = {
		.wr_id = 1, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
	};
	struct ib_async_recv_wr rw = { .wr_id = 2, .num_sge = 1 };
	unsigned char big[sizeof(w) + 8] = { 0 };
	struct ib_async_post_list out;
	int st;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	/* entries unused, or too few */
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, s, 2));
	w.num_sge = 2;
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, s, 1));
	w.num_sge = 1;
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 0, s, 1));
	w.opcode = IB_UVERBS_WR_LOCAL_INV;
	EXPECT_EQ(-EOPNOTSUPP, iba_post_sends(self->fd, self->a.handle, &w, 1, s, 1));
	w.opcode = 99;
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, s, 1));
	w.opcode = IB_UVERBS_WR_SEND;
	w.send_flags = 1U << 7;
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, s, 1));
	w.send_flags = 0;
	w.rkey = 5;		/* an RDMA field on a send */
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, s, 1));
	w.rkey = 0;
	/* element sizes: too small; larger with a non-zero tail */
	EXPECT_EQ(-EINVAL, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
				     IB_ASYNC_OBJ_QP, self->a.handle, &w, 1,
				     sizeof(w) - 8, s, 1, &out));
	memcpy(big, &w, sizeof(w));
	big[sizeof(w) + 3] = 1;
	EXPECT_EQ(-E2BIG, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
				    IB_ASYNC_OBJ_QP, self->a.handle, big, 1,
				    sizeof(big), s, 1, &out));
	/* a send to an SRQ; a receive to a CQ's handle */
	EXPECT_EQ(-EINVAL, iba_post_list(self->fd, IB_ASYNC_IOC_POST_SEND_LIST,
				     IB_ASYNC_OBJ_SRQ, self->a.handle, &w, 1,
				     sizeof(w), s, 1, &out));
	EXPECT_EQ(-EINVAL, iba_post_list(self->fd, IB_ASYNC_IOC_POST_RECV_LIST,
				     IB_ASYNC_OBJ_QP, self->cq, &rw, 1,
				     sizeof(rw), s, 1, &out));
	/* the opener's memory only */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(iba_post_sends(self->fd, self->a.handle, &w, 1, s, 1) ==
		      -EPERM ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * A well-formed request of @op at @qp (of type @qpt): every field the
 * opcode uses set, signalled, one entry; its datagram fields on UD.
 */
static struct ib_async_send_wr send_rule_wr(uint32_t op, uint32_t qpt,
					    uint64_t raddr, uint32_t rkey,
					    const struct ib_async_create_ah *ah,
					    uint32_t dqpn)
{
	const struct iba_send_rule *r = iba_send_rule(op);
	struct ib_async_send_wr w = {
		.wr_id = 0x5e00 + op, .num_sge = 1, .opcode = op,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};

	if (r->fields & IB_ASYNC_SR_REMOTE) {
		w.remote_addr = raddr;
		w.rkey = rkey;
	}
	if (r->fields & IB_ASYNC_SR_IMM)
		w.imm_data = htonl(op);
	if (r->fields & IB_ASYNC_SR_COMPARE_ADD)
		w.compare_add = 1;
	if (r->fields & IB_ASYNC_SR_SWAP)
		w.swap = 2;
	if (qpt == IB_UVERBS_QPT_UD) {
		w.ah_handle = ah->handle;
		w.remote_qpn = dqpn;
		w.remote_qkey = IBA_UD_QKEY;
	}
	return w;
}

/* An AH on @pd to the test bed's own GID. */
static int ah_to_self(FIXTURE_DATA(post) *self, uint32_t pd,
		      struct ib_async_create_ah *ah)
{
	return iba_create_ah(self->fd, pd, self->sgid, self->gid, ah);
}

/*
 * Every opcode on every QP type the node creates, drawn from the kernel's
 * own rules: each one they refuse is EINVAL (EOPNOTSUPP for an opcode
 * with no kernel equivalent) and reaches no driver; each one they accept
 * is posted and completes. On a UD QP an RDMA or atomic request kept its
 * remote address where a hardware driver reads the AH pointer: rxe
 * refuses such a request itself, so only the test bed's strict checker
 * (counting what reaches rxe) shows whether one got through.
 */
TEST_F(post, every_opcode_on_every_qp_type_as_the_send_rules_say)
{
	static const uint32_t qpts[] = {
		IB_UVERBS_QPT_RC, IB_UVERBS_QPT_UC, IB_UVERBS_QPT_UD,
	};
	struct ib_async_create_ah ah = { .argsz = sizeof(ah) };
	struct ib_async_create_qp c, d, e;
	struct ib_async_recv_wr rw = { .num_sge = 1 };
	struct ib_async_sge s, rs;
	struct ib_async_wc wc[16];
	uint32_t dst[3], qp[3];
	long checked, before, viol;
	int accepted = 0, done = 0, i, tries;
	uint32_t t, op;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_UC, &c));
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_UC, &d));
	ASSERT_EQ(0, qp_connect(self->fd, c.handle, false, d.qp_num,
				self->sgid, self->gid));
	ASSERT_EQ(0, qp_connect(self->fd, d.handle, false, c.qp_num,
				self->sgid, self->gid));
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_UD, &e));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, e.handle));
	ASSERT_EQ(0, ah_to_self(self, self->pd, &ah));
	qp[0] = self->a.handle;
	dst[0] = self->b.handle;
	qp[1] = c.handle;
	dst[1] = d.handle;
	qp[2] = e.handle;
	dst[2] = e.handle;
	/* Receives for what consumes one: sends and WRITE_WITH_IMM. */
	for (t = 0; t < 3; t++)
		for (i = 0; i < 3; i++) {
			rs = (struct ib_async_sge){
				(uintptr_t)self->rb + 4096 * (t + 1) + 64 * i,
				64, self->mb.lkey };
			rw.wr_id = 0x7e00 + 16 * t + i;
			ASSERT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP,
						dst[t], &rw, 1, &rs, 1));
		}

	iba_strict_available();
	viol = iba_strict_counter("violations");
	if (viol < 0)
		TH_LOG("no strict checker: what reaches rxe is not counted");
	for (t = 0; t < 3; t++) {
		for (op = 0; op <= IB_ASYNC_SR_OPCODE_LAST + 2; op++) {
			struct ib_async_send_wr w;
			int want = iba_send_rule_expect(op, qpts[t]);

			w = send_rule_wr(op, qpts[t], (uintptr_t)self->rb,
					 self->mb.rkey, &ah, e.qp_num);
			s = (struct ib_async_sge){
				(uintptr_t)self->la + 8 * op, 8, self->ma.lkey };
			before = iba_strict_counter("checked");
			EXPECT_EQ(want, iba_post_sends(self->fd, qp[t], &w, 1, &s, 1))
				TH_LOG("opcode %u on QP type %u", op, qpts[t]);
			checked = iba_strict_counter("checked");
			/* a refused request never reaches the device */
			if (before >= 0 && want) {
				EXPECT_EQ(before, checked)
					TH_LOG("opcode %u on QP type %u reached rxe",
					       op, qpts[t]);
			} else if (before >= 0) {
				EXPECT_LT(before, checked);
			}
			accepted += !want;
		}
	}
	/* RC 7, UC 4 (sends, writes), UD 2 (sends) */
	EXPECT_EQ(13, accepted);
	/* Each one accepted completes, built as its opcode says. */
	for (tries = 0; done < accepted && tries < 500; tries++) {
		struct ib_async_poll_cq p = {
			.argsz = sizeof(p), .handle = self->cq, .count = 16,
			.wc = (uintptr_t)wc,
		};

		ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_POLL_CQ, &p));
		for (i = 0; i < (int)p.count; i++) {
			EXPECT_EQ(0U, wc[i].status)
				TH_LOG("wr_id %#llx",
				       (unsigned long long)wc[i].wr_id);
			done += (wc[i].wr_id & 0xff00) == 0x5e00;
		}
		if (!p.count)
			iba_sleep_ms(10);
	}
	EXPECT_EQ(accepted, done);
	if (viol >= 0)
		EXPECT_EQ(viol, iba_strict_counter("violations"));
}

/*
 * A UD send names an AH of its QP's PD: one of another PD of the same
 * file is refused before any driver sees it (rxe would fail it at
 * completion, mlx5 send it with the QP's PD), on both data paths.
 */
TEST_F(post, ud_send_through_an_ah_of_another_pd_is_refused)
{
	static char msg[8] = "other pd";
	struct ib_async_sge s = { (uintptr_t)self->la, 8, self->ma.lkey };
	struct ib_async_create_ah mine, other;
	struct ib_async_create_qp e;
	struct ib_async_send_wr w = {
		.num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
		.remote_qkey = IBA_UD_QKEY,
	};
	struct ib_async_post_send ps = {
		.argsz = sizeof(ps), .opcode = IB_UVERBS_WR_SEND,
		.addr = (uintptr_t)msg, .length = sizeof(msg),
		.remote_qkey = IBA_UD_QKEY,
	};
	long before;
	uint32_t pd2;

	IBA_SKIPPED_IN_SETUP();
	iba_strict_available();
	ASSERT_EQ(0, iba_create_pd(self->fd, &pd2));
	ASSERT_EQ(0, qp_new(self->fd, self->pd, self->cq, IB_UVERBS_QPT_UD, &e));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, e.handle));
	ASSERT_EQ(0, ah_to_self(self, self->pd, &mine));
	ASSERT_EQ(0, ah_to_self(self, pd2, &other));
	w.remote_qpn = e.qp_num;
	ps.handle = e.handle;
	ps.remote_qpn = e.qp_num;

	before = iba_strict_counter("checked");
	w.ah_handle = other.handle;
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, e.handle, &w, 1, &s, 1));
	ps.ah_handle = other.handle;
	EXPECT_EQ(-EINVAL, iba_post_send(self->fd, &ps));
	EXPECT_EQ(before, iba_strict_counter("checked"));
	/* the same sends through the QP's own PD's AH are taken */
	w.ah_handle = mine.handle;
	EXPECT_EQ(0, iba_post_sends(self->fd, e.handle, &w, 1, &s, 1));
	ps.ah_handle = mine.handle;
	EXPECT_EQ(0, iba_post_send(self->fd, &ps));
}

/* A request uses the fields of its opcode and QP type only: others are 0. */
TEST_F(post, send_fields_an_opcode_does_not_use_must_be_zero)
{
	struct ib_async_sge s = { (uintptr_t)self->la, 8, self->ma.lkey };
	struct ib_async_send_wr w;

	IBA_SKIPPED_IN_SETUP();
	w = (struct ib_async_send_wr){ .num_sge = 1,
				       .opcode = IB_UVERBS_WR_SEND,
				       .imm_data = htonl(1) };
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	w = (struct ib_async_send_wr){
		.num_sge = 1, .opcode = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
		.remote_addr = (uintptr_t)self->rb, .rkey = self->mb.rkey,
		.compare_add = 1, .swap = 2 };
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	w = (struct ib_async_send_wr){
		.num_sge = 1, .opcode = IB_UVERBS_WR_RDMA_WRITE,
		.remote_addr = (uintptr_t)self->rb, .rkey = self->mb.rkey,
		.compare_add = 1 };
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	/* datagram fields on an RC QP */
	w = (struct ib_async_send_wr){ .num_sge = 1,
				       .opcode = IB_UVERBS_WR_SEND,
				       .remote_qpn = 5 };
	EXPECT_EQ(-EINVAL, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	/* and the same request without them is taken */
	w.remote_qpn = 0;
	w.send_flags = IB_ASYNC_SEND_SIGNALED;
	EXPECT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
}

/*
 * Send @len bytes of @src (under @lkey) from A to B's memory at rb + 8192
 * and wait until they are there; 0 or the first failing step's errno.
 */
static int send_to_b(FIXTURE_DATA(post) *self, const void *src, uint32_t len,
		     uint32_t lkey)
{
	struct ib_async_sge rs = { (uintptr_t)self->rb + 8192, len,
				   self->mb.lkey };
	struct ib_async_sge ss = { (uintptr_t)src, len, lkey };
	struct ib_async_recv_wr rw = { .wr_id = 0x51, .num_sge = 1 };
	struct ib_async_send_wr sw = {
		.wr_id = 0x52, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};
	struct ib_async_wc wc[2];
	int ret;

	ret = iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle, &rw, 1,
			 &rs, 1);
	if (!ret)
		ret = iba_post_sends(self->fd, self->a.handle, &sw, 1, &ss, 1);
	if (!ret && iba_poll_cq(self->fd, self->cq, wc, 2) != 2)
		ret = -ETIMEDOUT;
	return ret;
}

/*
 * An MR without write access still follows the process's writes: memory
 * the process only read before registering (the shared zero page of an
 * anonymous mapping; a private file mapping's page cache page) and
 * writes after it reaches the device as written. On 6.1 a read-only
 * long-term pin may hold the old page, which the write then replaces;
 * ib_umem_get() there pins for writing, forced, and so does ib_async.
 */
TEST_F(post, read_only_mr_sends_what_the_process_wrote_after_registering)
{
	static const char old[] = "as the file was", msg[] = "written later";
	struct ib_async_reg_mr m;
	volatile char *anon;
	char *priv;
	int mfd;

	IBA_SKIPPED_IN_SETUP();
	anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)anon);
	EXPECT_EQ(0, anon[0]);		/* maps the zero page */
	ASSERT_EQ(0, iba_reg_mr(self->fd, self->pd, (void *)anon, 4096, 0, &m));
	memcpy((char *)anon, msg, sizeof(msg));
	ASSERT_EQ(0, send_to_b(self, (const void *)anon, sizeof(msg), m.lkey));
	EXPECT_EQ(0, memcmp(msg, self->rb + 8192, sizeof(msg)))
		TH_LOG("sent \"%.*s\"", (int)sizeof(msg), self->rb + 8192);

	mfd = memfd_create("ib_async_ro_mr", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ((ssize_t)sizeof(old), write(mfd, old, sizeof(old)));
	ASSERT_EQ(0, ftruncate(mfd, 4096));
	priv = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, mfd, 0);
	ASSERT_NE(MAP_FAILED, priv);
	EXPECT_EQ(0, memcmp(old, priv, sizeof(old)));	/* the page cache page */
	ASSERT_EQ(0, iba_reg_mr(self->fd, self->pd, priv, 4096, 0, &m));
	memcpy(priv, msg, sizeof(msg));
	ASSERT_EQ(0, send_to_b(self, priv, sizeof(msg), m.lkey));
	EXPECT_EQ(0, memcmp(msg, self->rb + 8192, sizeof(msg)))
		TH_LOG("sent \"%.*s\"", (int)sizeof(msg), self->rb + 8192);
	munmap(priv, 4096);
	close(mfd);
	munmap((void *)anon, 4096);
}

/*
 * fork() after registration (rdma-core's test_fork, at the memory level):
 * the pinned pages stay the parent's, and the child gets copies. The
 * child writes into its copies of both buffers; the device, reading A's
 * MR and writing B's, must see and change the parent's pages only, and
 * the child's copy of B must not change under it.
 */
TEST_F(post, registered_memory_stays_the_parents_across_fork)
{
	struct ib_async_sge s = { (uintptr_t)self->la + 5000, 8,
				  self->ma.lkey };
	struct ib_async_send_wr w = {
		.wr_id = 77, .num_sge = 1, .opcode = IB_UVERBS_WR_RDMA_WRITE,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
		.remote_addr = (uintptr_t)self->rb + 6000, .rkey = self->mb.rkey,
	};
	int wrote[2], go[2], status;
	struct ib_async_wc wc;
	char c = 0;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	memcpy(self->la + 5000, "parent!!", 8);
	ASSERT_EQ(0, pipe(wrote));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		memcpy(self->la + 5000, "child!!!", 8);
		memcpy(self->rb + 6000, "childsB!", 8);
		if (write(wrote[1], "w", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		/* the device wrote the parent's B, not this copy */
		_exit(memcmp(self->rb + 6000, "childsB!", 8) ? 1 : 0);
	}
	ASSERT_EQ(1, read(wrote[0], &c, 1));
	/* the child's writes went to its own copies */
	EXPECT_EQ(0, memcmp(self->la + 5000, "parent!!", 8));
	EXPECT_EQ('b', self->rb[6000]);
	/*
	 * Writes of the parent after the fork: had the pages been shared
	 * copy-on-write, these would move the parent to new pages and leave
	 * the registered ones to the child.
	 */
	memcpy(self->la + 5000, "parent2!", 8);
	self->rb[6008] = 'p';
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &w, 1, &s, 1));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, &wc, 1));
	EXPECT_EQ(0U, wc.status);
	EXPECT_EQ(0, memcmp(self->rb + 6000, "parent2!p", 9));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(wrote[0]);
	close(wrote[1]);
	close(go[0]);
	close(go[1]);
}

/*
 * A receive whose MR is deregistered before data arrives fails; the
 * memory, unpinned by then, is not written.
 */
TEST_F(post, receive_into_a_deregistered_mr_never_writes)
{
	struct ib_async_reg_mr tmp;
	struct ib_async_sge rs, ss = { (uintptr_t)self->la, 32, self->ma.lkey };
	struct ib_async_recv_wr rw = { .wr_id = 0x5a, .num_sge = 1 };
	struct ib_async_send_wr sw = {
		.wr_id = 0x5b, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};
	const struct ib_async_wc *c;
	struct ib_async_wc wc[4];
	int n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_reg_mr(self->fd, self->pd, self->rb + 8192, 4096, ACC_ALL,
			 &tmp));
	rs = (struct ib_async_sge){ (uintptr_t)self->rb + 8192, 64, tmp.lkey };
	ASSERT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, self->b.handle,
				&rw, 1, &rs, 1));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, tmp.handle, NULL));
	memset(self->la, 'x', 32);
	ASSERT_EQ(0, iba_post_sends(self->fd, self->a.handle, &sw, 1, &ss, 1));
	n = iba_poll_cq(self->fd, self->cq, wc, 2);
	ASSERT_LE(1, n);
	c = wc_of(wc, n, 0x5a);
	ASSERT_NE(NULL, c);
	EXPECT_NE(0U, c->status);
	iba_sleep_ms(100);
	for (int i = 0; i < 64; i++)
		ASSERT_EQ('b', self->rb[8192 + i]);
}

TEST_HARNESS_MAIN

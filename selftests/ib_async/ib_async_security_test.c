// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests for the holes a local user could reach through the
 * node (mode 0666), each checked against what the kernel answers:
 *
 *  - a stale completion of a destroyed QP is never matched to another
 *    QP's request (request ids are never reused), and POLL_CQ returns the
 *    destroyed QP's own wr_ids and number, as ib_uverbs does; for
 *    receives, sends and SRQ receives;
 *  - a controlled Q_Key (high bit) needs CAP_NET_RAW, on MODIFY_QP and on
 *    UD sends;
 *  - the kernel memory of event queues, of verbs objects' queues (CQ,
 *    QP, SRQ, RESIZE_CQ) and of the data path is bounded per user by
 *    RLIMIT_MEMLOCK, across files;
 *  - the data path serves only the process that opened the file;
 *  - an argument is copied in before any lock is taken: a caller stuck in
 *    a page fault holds up nobody else;
 *  - argsz is capped, object types and P_Key indexes are not truncated,
 *    handles are never reused;
 *  - rdma resource show names the process an object was made for.
 */
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <grp.h>
#include <sys/wait.h>

#include "lib/iba_verbs.h"
#include "lib/iba_uffd.h"

#define PRIV_QKEY	0x80000011u
#define WC_FLUSH_ERR	5
#define NOBODY		65534

static int post_send(int fd, uint32_t qp, uint64_t wr_id, const void *buf,
		     uint32_t len, uint32_t ah, uint32_t qpn, uint32_t qkey)
{
	struct ib_async_post_send a = {
		.argsz = sizeof(a), .handle = qp, .opcode = IB_UVERBS_WR_SEND,
		.wr_id = wr_id, .addr = (uintptr_t)buf, .length = len,
		.send_flags = IB_ASYNC_SEND_SIGNALED, .ah_handle = ah,
		.remote_qpn = qpn, .remote_qkey = qkey,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_POST_SEND, &a);
}

/* Nothing more arrives within @ms. */
static int cq_stays_empty(int fd, uint32_t cq, int ms)
{
	struct ib_async_wc wc;
	uint64_t t0 = iba_now_ms();

	while (iba_now_ms() - t0 < (uint64_t)ms) {
		struct ib_async_poll_cq p = {
			.argsz = sizeof(p), .handle = cq, .count = 1,
			.wc = (uintptr_t)&wc,
		};

		if (iba_ioc(fd, IB_ASYNC_IOC_POLL_CQ, &p) || p.count)
			return 0;
		iba_sleep_ms(10);
	}
	return 1;
}

static int ud_init(int fd, uint32_t qp)
{
	struct ib_async_qp_attr a = { .port_num = 1, .qkey = IBA_UD_QKEY };

	return iba_modify_qp(fd, qp, 1, IB_ASYNC_QP_PKEY_INDEX | IB_ASYNC_QP_PORT |
			 IB_ASYNC_QP_QKEY, &a);
}

/* An AH to this host's own RoCE v2 address, for UD loopback. */
static int own_ah(int fd, uint32_t pd, const char *ibdev, uint32_t *ah)
{
	struct ib_async_create_ah a;
	uint8_t gid[16];
	int sgid = iba_roce_v2_gid(ibdev, gid);
	int ret;

	if (sgid < 0)
		return -ENOENT;
	ret = iba_create_ah(fd, pd, sgid, gid, &a);
	*ah = a.handle;
	return ret;
}

/* Run @fn in a child that dropped every privilege; its exit code. */
static int as_nobody(int (*fn)(void *), void *arg, rlim_t memlock)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		struct rlimit rl = { memlock, memlock };

		if (memlock && setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(100);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(101);
		_exit(fn(arg));
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

FIXTURE(sec) {
	struct iba_dev dev;
	int fd;
	uint32_t pd, cq;
};

FIXTURE_SETUP(sec)
{
	self->fd = -1;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, iba_create_pd(self->fd, &self->pd));
	ASSERT_EQ(0, iba_create_cq(self->fd, 0xc0, 64, &self->cq));
}

FIXTURE_TEARDOWN(sec)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The sequence: QP A's receives flush into the CQ, A is destroyed
 * unpolled, QP B posts a receive. Polling must give A's four wr_ids with
 * A's number, never B's; B's receive flushes later, once, as B's.
 */
TEST_F(sec, flushed_receives_of_destroyed_qp_keep_their_wr_ids)
{
	static char abuf[4][64], bbuf[64];
	struct ib_async_create_qp a, b;
	struct ib_async_wc wc[8];
	int i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &a));
	ASSERT_EQ(0, ud_init(self->fd, a.handle));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, a.handle,
				       0xa0 + i, abuf[i], sizeof(abuf[i])));
	ASSERT_EQ(0, iba_modify_qp(self->fd, a.handle, 6, 0, NULL));
	iba_sleep_ms(200);	/* rxe flushes from its tasklet */
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, a.handle, NULL));

	ASSERT_EQ(0, iba_create_qp(self->fd, 2, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &b));
	ASSERT_EQ(0, ud_init(self->fd, b.handle));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 0xb0,
			       bbuf, sizeof(bbuf)));

	n = iba_poll_cq(self->fd, self->cq, wc, 4);
	ASSERT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0xa0u + i, wc[i].wr_id);
		EXPECT_EQ((uint32_t)WC_FLUSH_ERR, wc[i].status);
		EXPECT_EQ(a.qp_num, wc[i].qp_num);
	}
	EXPECT_TRUE(cq_stays_empty(self->fd, self->cq, 200));

	ASSERT_EQ(0, iba_modify_qp(self->fd, b.handle, 6, 0, NULL));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0xb0u, wc[0].wr_id);
	EXPECT_EQ((uint32_t)WC_FLUSH_ERR, wc[0].status);
	EXPECT_EQ(b.qp_num, wc[0].qp_num);
	EXPECT_TRUE(cq_stays_empty(self->fd, self->cq, 200));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "stale-completions"));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, b.handle, NULL));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "work-requests"));
}

/*
 * Sends stuck on RNR (the peer has no receive) flush when their QP goes
 * to ERR; after A is destroyed, a new QP's send must not be confused with
 * them.
 */
TEST_F(sec, flushed_sends_of_destroyed_qp_keep_their_wr_ids)
{
	static const char msg[] = "never received";
	struct ib_async_create_qp a, p, b;
	struct ib_async_wc wc[8];
	static char bbuf[64];
	uint8_t gid[16];
	int sgid, i, n;

	IBA_SKIPPED_IN_SETUP();
	sgid = iba_roce_v2_gid(self->dev.ibdev, gid);
	ASSERT_LE(0, sgid);
	ASSERT_EQ(0, iba_rc_pair(self->fd, self->pd, self->cq, sgid, gid, &a, &p));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, post_send(self->fd, a.handle, 0x5a0 + i, msg,
				       sizeof(msg), 0, 0, 0));
	iba_sleep_ms(100);
	ASSERT_EQ(0, iba_modify_qp(self->fd, a.handle, 6, 0, NULL));
	iba_sleep_ms(200);
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, a.handle, NULL));

	ASSERT_EQ(0, iba_create_qp(self->fd, 3, self->pd, self->cq,
			       IB_UVERBS_QPT_RC, &b));
	ASSERT_EQ(0, iba_modify_qp(self->fd, b.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
			       IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS,
			       &(struct ib_async_qp_attr){ .port_num = 1 }));
	ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, b.handle, 0xb1,
			       bbuf, sizeof(bbuf)));

	n = iba_poll_cq(self->fd, self->cq, wc, 3);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0x5a0u + i, wc[i].wr_id);
		EXPECT_NE(0u, wc[i].status);
		EXPECT_EQ(a.qp_num, wc[i].qp_num);
	}
	ASSERT_EQ(0, iba_modify_qp(self->fd, b.handle, 6, 0, NULL));
	ASSERT_EQ(1, iba_poll_cq(self->fd, self->cq, wc, 1));
	EXPECT_EQ(0xb1u, wc[0].wr_id);
	EXPECT_EQ(b.qp_num, wc[0].qp_num);
	EXPECT_TRUE(cq_stays_empty(self->fd, self->cq, 200));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "stale-completions"));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, b.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, p.handle, NULL));
}

/*
 * An SRQ receive completed for QP A, unpolled when A is destroyed, is
 * returned with A's number and A's data; the next one, for QP B on the
 * same SRQ, with B's.
 */
TEST_F(sec, srq_completion_of_destroyed_qp_names_it)
{
	static const char m1[] = "for A", m2[] = "for B";
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .user_handle = 5, .max_wr = 16, .max_sge = 1,
	};
	static char rbuf[4][IBA_GRH_BYTES + 64];
	struct ib_async_create_qp qa = {
		.argsz = sizeof(qa), .user_handle = 1, .qp_type = IB_UVERBS_QPT_UD,
		.max_send_wr = 4, .max_send_sge = 1,
	};
	struct ib_async_create_qp a, b, s;
	struct ib_async_wc wc[4];
	uint32_t ah;
	int i;

	IBA_SKIPPED_IN_SETUP();
	srq.pd_handle = self->pd;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	ASSERT_EQ(0, own_ah(self->fd, self->pd, self->dev.ibdev, &ah));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_SRQ, srq.handle,
				       0x5e0 + i, rbuf[i], sizeof(rbuf[i])));
	qa.pd_handle = self->pd;
	qa.send_cq_handle = self->cq;
	qa.recv_cq_handle = self->cq;
	qa.srq_handle = srq.handle;
	a = qa;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_QP, &a));
	b = qa;
	b.user_handle = 2;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_QP, &b));
	ASSERT_EQ(0, iba_create_qp(self->fd, 3, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &s));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, a.handle));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, b.handle));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, s.handle));

	ASSERT_EQ(0, post_send(self->fd, s.handle, 0x51, m1, sizeof(m1), ah,
			       a.qp_num, IBA_UD_QKEY));
	iba_sleep_ms(300);	/* both completions queued, none polled */
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, a.handle, NULL));
	ASSERT_EQ(2, iba_poll_cq(self->fd, self->cq, wc, 2));
	for (i = 0; i < 2; i++) {
		if (wc[i].wr_id == 0x51)
			continue;
		EXPECT_EQ(0x5e0u, wc[i].wr_id);
		EXPECT_EQ(0u, wc[i].status);
		EXPECT_EQ(a.qp_num, wc[i].qp_num);
	}
	EXPECT_EQ(0, memcmp(rbuf[0] + IBA_GRH_BYTES, m1, sizeof(m1)));

	ASSERT_EQ(0, post_send(self->fd, s.handle, 0x52, m2, sizeof(m2), ah,
			       b.qp_num, IBA_UD_QKEY));
	ASSERT_EQ(2, iba_poll_cq(self->fd, self->cq, wc, 2));
	for (i = 0; i < 2; i++) {
		if (wc[i].wr_id == 0x52)
			continue;
		EXPECT_EQ(0x5e1u, wc[i].wr_id);
		EXPECT_EQ(0u, wc[i].status);
		EXPECT_EQ(b.qp_num, wc[i].qp_num);
	}
	EXPECT_EQ(0, memcmp(rbuf[1] + IBA_GRH_BYTES, m2, sizeof(m2)));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "stale-completions"));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, b.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, s.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_SRQ, srq.handle, NULL));
	EXPECT_EQ(0, iba_fdinfo(self->fd, "work-requests"));
}

struct qkey_case {
	const char *node;
	const char *ibdev;
	uint32_t qkey;
};

/*
 * The rdma netlink "privileged-qkey" setting (bookworm's rdma tool cannot
 * set it): 0 or -errno from the kernel's acknowledgment.
 */
static int set_privileged_qkey(uint8_t on)
{
	struct {
		struct nlmsghdr nh;
		struct nlattr na;
		uint8_t val[4];
	} req = {
		.nh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						       RDMA_NLDEV_CMD_SYS_SET),
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
			.nlmsg_seq = 1,
		},
		.na = {
			.nla_len = NLA_HDRLEN + 1,
			.nla_type = RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE,
		},
		.val = { on },
	};
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
		char more[256];
	} ack;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) != sizeof(req)) {
		close(fd);
		return -EIO;
	}
	n = recv(fd, &ack, sizeof(ack), 0);
	close(fd);
	if (n < (ssize_t)(sizeof(ack.nh) + sizeof(ack.err)) ||
	    ack.nh.nlmsg_type != NLMSG_ERROR)
		return -EIO;
	return ack.err.error;
}

/* Exit 0 if a controlled Q_Key is accepted on a UD QP and a UD send. */
static int qkey_allowed(void *p)
{
	struct qkey_case *c = p;
	struct ib_async_qp_attr a = { .port_num = 1, .qkey = c->qkey };
	struct ib_async_qp_attr q = { .argsz = sizeof(q) };
	struct ib_async_create_qp qp, s;
	uint32_t pd, cq, ah;
	int fd = open(c->node, O_RDWR);

	if (fd < 0 || iba_create_pd(fd, &pd) || iba_create_cq(fd, 1, 8, &cq) ||
	    iba_create_qp(fd, 1, pd, cq, IB_UVERBS_QPT_UD, &qp) ||
	    iba_create_qp(fd, 2, pd, cq, IB_UVERBS_QPT_UD, &s))
		return 30;
	if (iba_modify_qp(fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
		      IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY, &a))
		return 31;
	q.handle = qp.handle;
	if (iba_ioc(fd, IB_ASYNC_IOC_QUERY_QP, &q) || q.qkey != c->qkey)
		return 32;
	if (iba_ud_to_rts(fd, s.handle) || own_ah(fd, pd, c->ibdev, &ah))
		return 33;
	if (post_send(fd, s.handle, 1, "x", 1, ah, qp.qp_num, c->qkey))
		return 34;
	return 0;
}

/* Exit 0 if setting @qkey on a UD QP gave EPERM and changed nothing. */
static int qkey_refused(void *p)
{
	struct qkey_case *c = p;
	struct ib_async_create_qp qp, s;
	struct ib_async_qp_attr a = { .port_num = 1, .qkey = c->qkey };
	struct ib_async_qp_attr q = { .argsz = sizeof(q) };
	uint32_t pd, cq, ah;
	int fd = open(c->node, O_RDWR);

	if (fd < 0 || iba_create_pd(fd, &pd) || iba_create_cq(fd, 1, 8, &cq) ||
	    iba_create_qp(fd, 1, pd, cq, IB_UVERBS_QPT_UD, &qp) ||
	    iba_create_qp(fd, 2, pd, cq, IB_UVERBS_QPT_UD, &s))
		return 10;
	if (iba_modify_qp(fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
		      IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY, &a) != -EPERM)
		return 11;
	q.handle = qp.handle;
	if (iba_ioc(fd, IB_ASYNC_IOC_QUERY_QP, &q) || q.qp_state != 0)
		return 12;
	/* A UD send naming a controlled Q_Key: refused the same way. */
	if (iba_ud_to_rts(fd, s.handle) || own_ah(fd, pd, c->ibdev, &ah))
		return 13;
	if (post_send(fd, s.handle, 1, "x", 1, ah, qp.qp_num,
		      c->qkey) != -EPERM)
		return 14;
	if (post_send(fd, s.handle, 2, "x", 1, ah, qp.qp_num, IBA_UD_QKEY))
		return 15;
	return 0;
}

TEST_F(sec, controlled_qkey_needs_cap_net_raw)
{
	struct qkey_case c = {
		.node = self->dev.node, .ibdev = self->dev.ibdev,
		.qkey = PRIV_QKEY,
	};
	struct ib_async_qp_attr q = { .argsz = sizeof(q) };
	struct ib_async_create_qp qp;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to drop to an unprivileged user");
	EXPECT_EQ(0, as_nobody(qkey_refused, &c, 0));
	/* With the rdma netlink setting on, anyone may, as for ib_uverbs. */
	ASSERT_EQ(0, set_privileged_qkey(1));
	EXPECT_EQ(0, as_nobody(qkey_allowed, &c, 0));
	ASSERT_EQ(0, set_privileged_qkey(0));
	EXPECT_EQ(0, as_nobody(qkey_refused, &c, 0));
	/* The privileged caller may. */
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
			       IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY,
			       &(struct ib_async_qp_attr){
					.port_num = 1, .qkey = PRIV_QKEY }));
	q.handle = qp.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	EXPECT_EQ(PRIV_QKEY, q.qkey);
}

#define MEMLOCK		(512 << 10)
#define MSG		(64 << 10)
#define NFILES		4

/* Bytes fdinfo says @fd's event queue (and ring) holds on the budget. */
static long long queue_locked(int fd)
{
	return iba_fdinfo(fd, "memlock-pages") * sysconf(_SC_PAGESIZE);
}

/*
 * As an unprivileged user with a 512 KiB RLIMIT_MEMLOCK, post 64 KiB
 * receives on four files until the kernel refuses: with the files' event
 * queues and their objects' queues, which spend the same budget, the
 * total must stay under the limit (the cost includes a little bookkeeping
 * per request), the refusal is ENOMEM, and closing a file gives its share
 * back.
 * Exit code: 0 or the failed step.
 */
static int memlock_bounded(void *p)
{
	static char buf[MSG];
	const char *node = p;
	int fd[NFILES], i, posted = 0, ret = 0;
	long long charged = 0, queues = 0;
	uint32_t qp[NFILES];

	/*
	 * The files and objects first: their queues spend the budget as
	 * they are made (a page a ring for these small ones).
	 */
	for (i = 0; i < NFILES; i++) {
		struct ib_async_create_qp a = {
			.argsz = sizeof(a), .qp_type = IB_UVERBS_QPT_UD,
			.max_send_wr = 1, .max_recv_wr = 8,
			.max_send_sge = 1, .max_recv_sge = 1,
		};
		uint32_t pd, cq;

		fd[i] = open(node, O_RDWR);
		if (fd[i] < 0 || iba_create_pd(fd[i], &pd) ||
		    iba_create_cq(fd[i], 1, 8, &cq))
			return 20;
		queues += queue_locked(fd[i]);
		a.pd_handle = pd;
		a.send_cq_handle = cq;
		a.recv_cq_handle = cq;
		if (iba_ioc(fd[i], IB_ASYNC_IOC_CREATE_QP, &a) ||
		    ud_init(fd[i], a.handle))
			return 21;
		qp[i] = a.handle;
	}
	for (i = 0; i < NFILES; i++) {
		for (int n = 0; n < 64; n++) {
			ret = iba_post_recv(fd[i], IB_ASYNC_OBJ_QP, qp[i], n, buf,
					MSG);
			if (ret)
				break;
			posted++;
		}
		if (ret != -ENOMEM)
			return 22;
		charged += iba_fdinfo(fd[i], "charged-bytes");
	}
	/*
	 * 3 of 4 messages of 64 KiB fit beside 4 queues of 1024 events and
	 * 4 x 3 pages of CQ and QP rings.
	 */
	if (posted < 3 || !queues ||
	    (long long)posted * MSG + queues > MEMLOCK ||
	    charged + queues > MEMLOCK || charged < (long long)posted * MSG)
		return 23;
	close(fd[0]);
	/* What the closed file held can be used again. */
	{
		struct ib_async_create_qp qp = {
			.argsz = sizeof(qp), .qp_type = IB_UVERBS_QPT_UD,
			.max_send_wr = 1, .max_recv_wr = 8,
			.max_send_sge = 1, .max_recv_sge = 1,
		};
		uint32_t pd, cq;

		if (iba_create_pd(fd[1], &pd) || iba_create_cq(fd[1], 2, 8, &cq))
			return 24;
		qp.pd_handle = pd;
		qp.send_cq_handle = cq;
		qp.recv_cq_handle = cq;
		if (iba_ioc(fd[1], IB_ASYNC_IOC_CREATE_QP, &qp) ||
		    ud_init(fd[1], qp.handle))
			return 25;
		if (iba_fdinfo(fd[1], "charged-bytes") >= MEMLOCK - MSG)
			return 26;
		if (iba_post_recv(fd[1], IB_ASYNC_OBJ_QP, qp.handle, 99, buf, MSG))
			return 27;
	}
	return 0;
}

#define QUEUE_BUDGET	(512 << 10)
#define MAX_FILES	64

/*
 * As an unprivileged user with a 512 KiB RLIMIT_MEMLOCK, open files until
 * the kernel refuses: each file's event queue charges the budget, their
 * sum stays within it and the refusal is ENOMEM. Closing a file gives
 * its share back; a larger queue or an event channel past the budget is
 * refused with ENOMEM and changes nothing; a smaller queue charges less.
 * Exit code: 0 or the failed step.
 */
static int queues_bounded(void *p)
{
	long long sum = 0, had;
	int fd[MAX_FILES], n, i, ch, err = 0;
	const char *node = p;

	for (n = 0; n < MAX_FILES; n++) {
		fd[n] = open(node, O_RDWR);
		if (fd[n] < 0) {
			err = errno;
			break;
		}
	}
	if (n < 3 || n == MAX_FILES || err != ENOMEM)
		return 31;
	for (i = 0; i < n; i++) {
		if (iba_fdinfo(fd[i], "memlock-pages") <= 0)
			return 30;
		sum += queue_locked(fd[i]);
	}
	if (sum > QUEUE_BUDGET || sum + queue_locked(fd[0]) <= QUEUE_BUDGET)
		return 32;

	/* a closed file's charge is back at once, ahead of its memory */
	close(fd[--n]);
	fd[n] = open(node, O_RDWR);
	if (fd[n] < 0)
		return 33;
	n++;

	had = iba_fdinfo(fd[0], "memlock-pages");
	if (!iba_set_queue_len(fd[0], 4096) || errno != ENOMEM ||
	    iba_fdinfo(fd[0], "capacity") != 1024 ||
	    iba_fdinfo(fd[0], "memlock-pages") != had)
		return 34;
	if (iba_channel(fd[0], IB_ASYNC_CHANNEL_EVENT, 0) != -ENOMEM)
		return 35;
	/* an event channel's queue (with extras) is the size of two */
	for (i = 0; i < 3; i++)
		if (iba_set_queue_len(fd[i], 16) ||
		    iba_fdinfo(fd[i], "memlock-pages") * 4 >= had)
			return 36;
	/* what the smaller queues gave back makes room for a channel */
	ch = iba_channel(fd[0], IB_ASYNC_CHANNEL_EVENT, 0);
	if (ch < 0 || iba_fdinfo(ch, "memlock-pages") <= 0)
		return 37;
	close(ch);
	for (i = 0; i < n; i++)
		close(fd[i]);
	return 0;
}

TEST_F(sec, event_queues_are_bounded_per_user)
{
	IBA_SKIPPED_IN_SETUP();
	/* CAP_IPC_LOCK lifts the limit: the fixture's file charges nothing */
	EXPECT_EQ(0, iba_fdinfo(self->fd, "memlock-pages"));
	if (geteuid())
		SKIP(return, "needs root to drop to an unprivileged user");
	EXPECT_EQ(0, as_nobody(queues_bounded, self->dev.node, QUEUE_BUDGET));
}

TEST_F(sec, data_path_memory_is_bounded_per_user)
{
	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to drop to an unprivileged user");
	EXPECT_EQ(0, as_nobody(memlock_bounded, self->dev.node, MEMLOCK));
}

#define VERBS_BUDGET	(64 << 10)
#define VMALLOC_SLACK_KB	(8 << 10)
#define BIG_QPS		4

struct verbs_limits {
	const char *node;
	uint32_t max_cqe;
	uint32_t max_qp_wr;
	uint32_t max_srq_wr;
};

/*
 * A file as an unprivileged user on a 64 KiB budget: its event queue
 * shrunk to 16 records first, so that small objects have room beside it.
 */
static int small_file(const char *node, uint32_t *pd)
{
	int fd = open(node, O_RDWR | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (iba_set_queue_len(fd, 16) || iba_create_pd(fd, pd)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The attack, one CQ at max_cqe and QPs with huge send queues on
 * a 64 KiB budget: each is refused with ENOMEM before the driver
 * allocates, so vmalloc does not grow by the queues' size, the file's
 * charge is unchanged, and small objects still fit afterwards.
 * Exit code: 0 or the failed step.
 */
static int verbs_queues_bounded(void *p)
{
	const struct verbs_limits *lim = p;
	long long before;
	long vm0, vm1;
	uint32_t pd, cq, big;
	int fd, i, ret;

	fd = small_file(lim->node, &pd);
	if (fd < 0)
		return 40;
	if (iba_create_cq(fd, 1, 8, &cq))
		return 41;
	before = iba_fdinfo(fd, "verbs-charged-bytes");
	vm0 = iba_meminfo_kb("VmallocUsed");
	if (vm0 < 0)
		return 43;

	/* Every attempt is made, so that the growth shows the whole attack. */
	ret = iba_create_cq(fd, 2, lim->max_cqe, &big) != -ENOMEM ? 44 : 0;
	for (i = 0; i < BIG_QPS; i++) {
		struct ib_async_create_qp a = {
			.argsz = sizeof(a), .user_handle = 3 + i,
			.pd_handle = pd, .send_cq_handle = cq,
			.recv_cq_handle = cq, .qp_type = IB_UVERBS_QPT_RC,
			.max_send_wr = lim->max_qp_wr, .max_recv_wr = 1,
			.max_send_sge = 1, .max_recv_sge = 1,
		};

		if (iba_ioc(fd, IB_ASYNC_IOC_CREATE_QP, &a) != -ENOMEM && !ret)
			ret = 45;
	}
	vm1 = iba_meminfo_kb("VmallocUsed");
	fprintf(stderr, "# VmallocUsed grew by %ld kB (%u cqe, %d x %u sends)\n",
		vm1 - vm0, lim->max_cqe, BIG_QPS, lim->max_qp_wr);
	if (ret)
		return ret;
	if (vm1 - vm0 >= VMALLOC_SLACK_KB)
		return 46;
	if (before <= 0)
		return 42;
	if (iba_fdinfo(fd, "verbs-charged-bytes") != before)
		return 47;

	/* What is small still fits. */
	for (i = 0; i < 2; i++) {
		struct ib_async_create_qp qp;

		if (iba_create_qp(fd, 10 + i, pd, cq, IB_UVERBS_QPT_UD, &qp))
			return 48;
	}
	if (iba_fdinfo(fd, "verbs-charged-bytes") <= before)
		return 49;
	close(fd);
	return 0;
}

static int resize_cq(int fd, uint32_t cq, uint32_t cqe, uint32_t *got)
{
	struct ib_async_resize_cq a = {
		.argsz = sizeof(a), .handle = cq, .cqe = cqe,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_RESIZE_CQ, &a);

	if (got)
		*got = a.cqe;
	return ret;
}

static int resize_srq(int fd, uint32_t srq, uint32_t max_wr)
{
	struct ib_async_srq_attr a = {
		.argsz = sizeof(a), .handle = srq,
		.attr_mask = IB_ASYNC_SRQ_MAX_WR, .max_wr = max_wr,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_MODIFY_SRQ, &a);
}

/*
 * RESIZE_CQ past a 64 KiB budget: ENOMEM, the charge unchanged, and the
 * CQ still works at its old size (four flushed receives land in it); a
 * resize within the budget still works. The same for an SRQ's MAX_WR.
 * Exit code: 0 or the failed step.
 */
static int resize_bounded(void *p)
{
	const struct verbs_limits *lim = p;
	static char buf[4][64];
	struct ib_async_create_qp qp;
	struct ib_async_wc wc[4];
	long long before;
	uint32_t pd, cq, got;
	int fd, i;

	fd = small_file(lim->node, &pd);
	if (fd < 0)
		return 50;
	if (iba_create_cq(fd, 1, 8, &cq))
		return 51;
	before = iba_fdinfo(fd, "verbs-charged-bytes");
	if (resize_cq(fd, cq, lim->max_cqe, NULL) != -ENOMEM)
		return 53;
	if (before <= 0)
		return 52;
	if (iba_fdinfo(fd, "verbs-charged-bytes") != before)
		return 54;

	if (iba_create_qp(fd, 2, pd, cq, IB_UVERBS_QPT_UD, &qp) ||
	    ud_init(fd, qp.handle))
		return 55;
	for (i = 0; i < 4; i++)
		if (iba_post_recv(fd, IB_ASYNC_OBJ_QP, qp.handle, 0x70 + i, buf[i],
			      sizeof(buf[i])))
			return 56;
	if (iba_modify_qp(fd, qp.handle, 6, 0, NULL))
		return 57;
	if (iba_poll_cq(fd, cq, wc, 4) != 4)
		return 58;
	for (i = 0; i < 4; i++)
		if (wc[i].wr_id != 0x70u + i || wc[i].status != WC_FLUSH_ERR)
			return 59;

	if (resize_cq(fd, cq, 16, &got) || got < 16)
		return 60;

	/* An SRQ's MAX_WR resizes its ring: bounded the same way. */
	{
		struct ib_async_create_srq srq = {
			.argsz = sizeof(srq), .pd_handle = pd, .max_wr = 8,
			.max_sge = 1,
		};

		if (iba_ioc(fd, IB_ASYNC_IOC_CREATE_SRQ, &srq))
			return 61;
		before = iba_fdinfo(fd, "verbs-charged-bytes");
		if (resize_srq(fd, srq.handle, lim->max_srq_wr) != -ENOMEM ||
		    iba_fdinfo(fd, "verbs-charged-bytes") != before)
			return 62;
		if (resize_srq(fd, srq.handle, 32) ||
		    iba_fdinfo(fd, "verbs-charged-bytes") <= before)
			return 63;
	}
	close(fd);
	return 0;
}

static void verbs_limits(struct __test_metadata *_metadata, int fd,
			 const char *node, struct verbs_limits *lim)
{
	struct ib_async_device_attr d = { .argsz = sizeof(d) };

	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_QUERY_DEVICE, &d));
	lim->node = node;
	lim->max_cqe = d.max_cqe;
	/* 64 Ki sends of 256 bytes (rxe): 32 MiB a QP before the fix */
	lim->max_qp_wr = d.max_qp_wr < 65536 ? d.max_qp_wr : 65536;
	lim->max_srq_wr = d.max_srq_wr;
}

TEST_F(sec, verbs_queues_are_bounded_per_user)
{
	struct verbs_limits lim;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to drop to an unprivileged user");
	verbs_limits(_metadata, self->fd, self->dev.node, &lim);
	EXPECT_EQ(0, as_nobody(verbs_queues_bounded, &lim, VERBS_BUDGET));
}

TEST_F(sec, resize_cq_is_bounded_per_user)
{
	struct verbs_limits lim;

	IBA_SKIPPED_IN_SETUP();
	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_RESIZE_CQ))
		SKIP(return, "the device cannot resize CQs");
	if (geteuid())
		SKIP(return, "needs root to drop to an unprivileged user");
	verbs_limits(_metadata, self->fd, self->dev.node, &lim);
	EXPECT_EQ(0, as_nobody(resize_bounded, &lim, VERBS_BUDGET));
}

/*
 * What fdinfo says the verbs objects hold rises with each create and
 * resize, and each destroy gives back exactly what its create took; the
 * PD's registration CQ and QP, made by its first REG_MR, count too. As
 * root (CAP_IPC_LOCK) nothing is limited, but the charge is still shown.
 */
TEST_F(sec, verbs_charge_returns_to_its_value_after_destroy)
{
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .user_handle = 5, .max_wr = 64,
		.max_sge = 2,
	};
	static char mem[4096] __attribute__((aligned(4096)));
	long long c0, c1, c2, c3, c4, c5, all0;
	struct ib_async_create_qp qp;
	struct ib_async_reg_mr mr;
	uint32_t cq, pd;

	IBA_SKIPPED_IN_SETUP();
	c0 = iba_fdinfo(self->fd, "verbs-charged-bytes");
	all0 = iba_fdinfo(self->fd, "charged-bytes");
	ASSERT_LT(0, c0);		/* the fixture's CQ */

	ASSERT_EQ(0, iba_create_cq(self->fd, 2, 1024, &cq));
	c1 = iba_fdinfo(self->fd, "verbs-charged-bytes");
	EXPECT_LT(c0, c1);
	ASSERT_EQ(0, iba_create_qp(self->fd, 3, self->pd, cq, IB_UVERBS_QPT_RC,
			       &qp));
	c2 = iba_fdinfo(self->fd, "verbs-charged-bytes");
	EXPECT_LT(c1, c2);
	srq.pd_handle = self->pd;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	c3 = iba_fdinfo(self->fd, "verbs-charged-bytes");
	EXPECT_LT(c2, c3);
	EXPECT_EQ(all0 + c3 - c0, iba_fdinfo(self->fd, "charged-bytes"));

	if (iba_features(self->fd) & IB_ASYNC_FEATURE_RESIZE_CQ) {
		ASSERT_EQ(0, resize_cq(self->fd, cq, 4096, NULL));
		c4 = iba_fdinfo(self->fd, "verbs-charged-bytes");
		EXPECT_LT(c3, c4);
		ASSERT_EQ(0, resize_cq(self->fd, cq, 1024, NULL));
		EXPECT_EQ(c3, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	}

	ASSERT_EQ(0, resize_srq(self->fd, srq.handle, 1024));
	EXPECT_LT(c3, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	ASSERT_EQ(0, resize_srq(self->fd, srq.handle, 64));
	EXPECT_EQ(c3, iba_fdinfo(self->fd, "verbs-charged-bytes"));

	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_SRQ, srq.handle, NULL));
	EXPECT_EQ(c2, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(c1, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq, NULL));
	EXPECT_EQ(c0, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	EXPECT_EQ(all0, iba_fdinfo(self->fd, "charged-bytes"));

	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_USER_MR))
		return;
	ASSERT_EQ(0, iba_create_pd(self->fd, &pd));
	EXPECT_EQ(c0, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	ASSERT_EQ(0, iba_reg_mr(self->fd, pd, mem, sizeof(mem),
			    IB_UVERBS_ACCESS_LOCAL_WRITE, &mr));
	c5 = iba_fdinfo(self->fd, "verbs-charged-bytes");
	EXPECT_LT(c0, c5);
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, mr.handle, NULL));
	EXPECT_EQ(c5, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, pd, NULL));
	EXPECT_EQ(c0, iba_fdinfo(self->fd, "verbs-charged-bytes"));
	EXPECT_EQ(all0, iba_fdinfo(self->fd, "charged-bytes"));
}

/* Another process holding the file (fork, SCM_RIGHTS) gets EPERM. */
TEST_F(sec, data_path_serves_only_the_opening_process)
{
	static char buf[64];
	struct ib_async_create_qp qp;
	pid_t pid;
	int st;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_EQ(0, ud_init(self->fd, qp.handle));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ib_async_wc wc;
		struct ib_async_poll_cq p = {
			.argsz = sizeof(p), .handle = self->cq, .count = 1,
			.wc = (uintptr_t)&wc,
		};

		if (iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, qp.handle, 1, buf,
			      sizeof(buf)) != -EPERM)
			_exit(1);
		if (iba_ioc(self->fd, IB_ASYNC_IOC_POLL_CQ, &p) != -EPERM)
			_exit(2);
		if (post_send(self->fd, qp.handle, 1, buf, 1, 0, 0, 0) !=
		    -EPERM)
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, iba_post_recv(self->fd, IB_ASYNC_OBJ_QP, qp.handle, 2, buf,
			       sizeof(buf)));
}

/*
 * A CREATE_PD whose argument sits on a page that userfaultfd never fills
 * blocks in the copy; on the same file, other commands must go on.
 */
TEST_F(sec, caller_stuck_in_a_fault_holds_up_no_other_command)
{
	struct iba_stalled_cmd call = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_CREATE_PD,
	};
	struct iba_stall st;
	uint64_t t0, t1;
	uint32_t h;
	pthread_t th;
	int err;

	IBA_SKIPPED_IN_SETUP();
	err = iba_stall_make(&st, sysconf(_SC_PAGESIZE));
	if (err)
		SKIP(return, "no userfaultfd: %s", strerror(-err));

	call.arg = st.area;
	ASSERT_EQ(0, pthread_create(&th, NULL, iba_stalled_run, &call));
	ASSERT_EQ(0, iba_stall_wait(&st, IBA_EVENT_TIMEOUT_MS));
	t0 = iba_now_ms();
	EXPECT_EQ(0, iba_create_pd(self->fd, &h));
	EXPECT_EQ(0, iba_create_cq(self->fd, 1, 8, &h));
	t1 = iba_now_ms();
	EXPECT_GT(1000u, t1 - t0) TH_LOG("commands waited %llu ms",
				      (unsigned long long)(t1 - t0));

	/* Let the stuck copy finish: a zero page reads as argsz 0. */
	ASSERT_EQ(0, iba_stall_serve(&st));
	pthread_join(th, NULL);
	EXPECT_EQ(-EINVAL, call.ret);
	iba_stall_free(&st);
}

TEST_F(sec, argsz_beyond_a_page_is_e2big)
{
	size_t size = 2 * sysconf(_SC_PAGESIZE);
	struct ib_async_create_pd *a = calloc(1, size);
	uint32_t h1, h2;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_NE(NULL, a);
	a->argsz = size;
	EXPECT_EQ(-E2BIG, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_PD, a));
	/* Up to a page with a zero tail is an extended struct: fine. */
	a->argsz = size / 2;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_PD, a));
	free(a);
	/* Handles are never reused, not even the one just freed. */
	ASSERT_EQ(0, iba_create_pd(self->fd, &h1));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, h1, NULL));
	ASSERT_EQ(0, iba_create_pd(self->fd, &h2));
	EXPECT_NE(h1, h2);
}

TEST_F(sec, object_type_and_pkey_index_are_not_truncated)
{
	struct ib_async_query_pkey k = {
		.argsz = sizeof(k), .port_num = 1, .index = 0x10000,
	};
	struct ib_async_destroy d = {
		.argsz = sizeof(d), .obj_type = 0x10000 | IB_ASYNC_OBJ_PD,
	};

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_PKEY, &k));
	d.handle = self->pd;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_DESTROY, &d));
	/* The PD is still there. */
	d.obj_type = IB_ASYNC_OBJ_PD;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_DESTROY, &d));
}

/* rdma resource show names the process a QP was made for. */
TEST_F(sec, rdma_resource_show_names_the_owner)
{
	struct ib_async_create_qp qp;
	char want[64], line[512];
	int found = 0;
	FILE *f;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	f = popen("rdma resource show qp 2>/dev/null", "r");
	ASSERT_NE(NULL, f);
	snprintf(want, sizeof(want), "lqpn %u ", qp.qp_num);
	while (fgets(line, sizeof(line), f)) {
		char owner[32];

		if (!strstr(line, want))
			continue;
		snprintf(owner, sizeof(owner), "[ib_async[%d]]", getpid());
		found = strstr(line, owner) ? 1 : -1;
		if (found < 0)
			TH_LOG("%s", line);
	}
	pclose(f);
	if (!found)
		SKIP(return, "rdma resource show listed no such QP");
	EXPECT_EQ(1, found);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel verbs objects made through ib_async on rxe: handles, validation,
 * dependencies, a real affiliated event (SQ_DRAINED on a UD QP moved from
 * RTS to SQD) carrying the caller's user_handle, destroy's events_reported and
 * purge of unread events, and cleanup at close checked against the RDMA
 * core's own resource counts (`rdma resource show`).
 */
#include <signal.h>

#include "lib/iba_uffd.h"
#include "lib/iba_verbs.h"

#define QP_COOKIE	0x5150c0de00000001ULL
#define CQ_COOKIE	0xc0c0c0c0c0c0c0c0ULL

/* The RDMA core's count of one resource kind on the device, or -1. */
static long rdma_res_count(const char *ibdev, const char *kind)
{
	char cmd[256], line[512], *p;
	long n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>/dev/null", ibdev);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		snprintf(cmd, sizeof(cmd), " %s ", kind);
		p = strstr(line, cmd);
		if (p)
			n = strtol(p + strlen(cmd), NULL, 10);
	}
	pclose(f);
	return n;
}

FIXTURE(obj) {
	struct iba_dev dev;
	int fd;
	uint32_t pd, cq;
};

FIXTURE_SETUP(obj)
{
	self->fd = -1;
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
	ASSERT_EQ(0, iba_create_pd(self->fd, &self->pd));
	ASSERT_EQ(0, iba_create_cq(self->fd, CQ_COOKIE, 16, &self->cq));
	ASSERT_NE(0U, self->pd);
	ASSERT_NE(0U, self->cq);
	ASSERT_NE(self->pd, self->cq);
}

FIXTURE_TEARDOWN(obj)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(obj, sq_drained_carries_user_handle_and_port)
{
	struct ib_async_qp_attr sqd = { .en_sqd_async_notify = 1 };
	struct ib_async_create_qp qp;
	struct ib_async_event ev;
	uint64_t reported = 99;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, QP_COOKIE, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_NE(0U, qp.qp_num);
	ASSERT_LE(4U, qp.max_send_wr);
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, qp.handle));
	ASSERT_EQ(3, iba_query_qp_state(self->fd, qp.handle));
	/* rxe raises SQ_DRAINED for UD QPs inside this very modify call. */
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 4,
			       IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY, &sqd));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_SQ_DRAINED,
				   IBA_EVENT_TIMEOUT_MS, &ev));
	EXPECT_EQ(QP_COOKIE, ev.element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_QP, ev.obj_type);
	EXPECT_EQ(qp.handle, ev.obj_handle);
	EXPECT_EQ(1U, ev.port_num);
	EXPECT_EQ(1ULL, ev.count);
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, &reported));
	EXPECT_EQ((uint64_t)1, reported);
}

TEST_F(obj, destroy_purges_unread_events_and_reports_none)
{
	struct ib_async_qp_attr sqd = { .en_sqd_async_notify = 1 };
	struct ib_async_create_qp qp;
	struct ib_async_event ev;
	uint64_t reported = 99;

	IBA_SKIPPED_IN_SETUP();
	iba_drain(self->fd);
	ASSERT_EQ(0, iba_create_qp(self->fd, QP_COOKIE, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, qp.handle));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 4,
			       IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY, &sqd));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, &reported));
	EXPECT_EQ((uint64_t)0, reported);
	/* The QP's event is gone with it; nothing else was queued. */
	EXPECT_EQ(0, iba_fionread(self->fd));
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(obj, destroy_of_used_object_is_ebusy_and_changes_nothing)
{
	struct ib_async_create_qp qp;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_RC, &qp));
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->cq, NULL));
	/* Everything still works: the QP moves, then all go in order. */
	EXPECT_EQ(0, iba_modify_qp(self->fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
			       IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS,
			       &(struct ib_async_qp_attr){ .port_num = 1 }));
	EXPECT_EQ(1, iba_query_qp_state(self->fd, qp.handle));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->cq, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
}

TEST_F(obj, bad_handles_give_clear_errors)
{
	struct ib_async_create_qp qp;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, 0, NULL));
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, 12345, NULL));
	/* A CQ's handle used as a PD's. */
	EXPECT_EQ(-EINVAL, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->cq, NULL));
	EXPECT_EQ(-EINVAL, iba_create_qp(self->fd, 1, self->cq, self->cq,
				     IB_UVERBS_QPT_UD, &qp));
	EXPECT_EQ(-ENOENT, iba_create_qp(self->fd, 1, self->pd, 777,
				     IB_UVERBS_QPT_UD, &qp));
	/* RC, UC and UD only: a raw packet or XRC type is refused. */
	EXPECT_EQ(-EINVAL, iba_create_qp(self->fd, 1, self->pd, self->cq,
				     IB_UVERBS_QPT_RAW_PACKET, &qp));
	EXPECT_EQ(-EINVAL, iba_create_qp(self->fd, 1, self->pd, self->cq,
				     IB_UVERBS_QPT_XRC_INI, &qp));
	/* Stale: destroyed once, then again. */
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(-ENOENT, iba_query_qp_state(self->fd, qp.handle));
}

TEST_F(obj, handles_belong_to_their_file)
{
	uint32_t pd2;
	int fd2;

	IBA_SKIPPED_IN_SETUP();
	fd2 = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd2);
	/* The other file has no objects: this file's handles mean nothing. */
	EXPECT_EQ(-ENOENT, iba_destroy(fd2, IB_ASYNC_OBJ_CQ, self->cq, NULL));
	ASSERT_EQ(0, iba_create_pd(fd2, &pd2));
	close(fd2);
	/* Closing the other file left ours untouched. */
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->cq, NULL));
}

TEST_F(obj, bad_arguments_change_nothing)
{
	struct ib_async_create_pd pd = { .argsz = sizeof(pd), .reserved = 1 };
	struct ib_async_create_cq cq = { .argsz = sizeof(cq), .cqe = 0 };
	struct ib_async_qp_attr av = { .port_num = 1 };
	struct ib_async_create_qp qp;
	long pds = rdma_res_count(self->dev.ibdev, "pd");

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_PD, &pd));
	pd.reserved = 0;
	pd.argsz = 8;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_PD, &pd));
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CQ, &cq));
	cq.cqe = 4;
	cq.comp_vector = 1000;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CQ, &cq));
	EXPECT_EQ(-EFAULT, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_PD, NULL));
	EXPECT_EQ(pds, rdma_res_count(self->dev.ibdev, "pd"));

	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	/* Alternate paths are not offered: a clear EOPNOTSUPP. */
	EXPECT_EQ(-EOPNOTSUPP, iba_modify_qp(self->fd, qp.handle, 1, 1U << 14, &av));
	EXPECT_EQ(-EINVAL, iba_modify_qp(self->fd, qp.handle, 9, 0, NULL));
	av.port_num = 200;
	EXPECT_EQ(-EINVAL, iba_modify_qp(self->fd, qp.handle, 1,
				     IB_ASYNC_QP_PORT, &av));
	/* RESET -> RTS is no legal transition: the driver says so. */
	EXPECT_EQ(-EINVAL, iba_modify_qp(self->fd, qp.handle, 3, 0, NULL));
	EXPECT_EQ(0, iba_query_qp_state(self->fd, qp.handle));
}

/*
 * As ib_uverbs: MODIFY_QP reads a field only under its mask bit.
 * librdmacm's rdma_disconnect() moves the QP to ERR through an ibv_qp_attr
 * left uninitialised but for qp_state (issue 44); ib_async refused the
 * stack's leftovers in cur_qp_state, the disconnect failed before its
 * DREQ and ucmatose's two sides waited for DISCONNECTED forever.
 */
TEST_F(obj, modify_qp_reads_only_the_fields_its_mask_names)
{
	enum { INIT = 1, ERR = 6 };	/* enum ib_qp_state */
	struct ib_async_qp_attr init = { .port_num = 1 };
	struct ib_async_qp_attr junk = {
		.cur_qp_state = 0xee, .path_mtu = 0x77, .port_num = 200,
		.qkey = 0x80000001, .timeout = 0xff,
	};
	struct ib_async_create_qp qp;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_RC, &qp));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, INIT,
			       IB_ASYNC_QP_PKEY_INDEX | IB_ASYNC_QP_PORT |
			       IB_ASYNC_QP_ACCESS_FLAGS, &init));
	/* with the bit, the same value is still refused */
	EXPECT_EQ(-EINVAL, iba_modify_qp(self->fd, qp.handle, ERR,
				     IB_ASYNC_QP_CUR_STATE, &junk));
	EXPECT_EQ(INIT, iba_query_qp_state(self->fd, qp.handle));
	/* without it, the leftovers are not looked at: INIT to ERR */
	EXPECT_EQ(0, iba_modify_qp(self->fd, qp.handle, ERR, 0, &junk));
	EXPECT_EQ(ERR, iba_query_qp_state(self->fd, qp.handle));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
}

/*
 * ATTACH_MCAST and DETACH_MCAST (what librdmacm's rdma_join_multicast()
 * is followed by, issue 44) with ib_uverbs' rules, read back through what
 * the kernel then allows: a second attach is a no-op (one detach
 * suffices), DESTROY of an attached QP is EBUSY and leaves it, a detach
 * from a group the QP is not in is EINVAL, the device refuses a unicast
 * GID and an RC QP, and one GID under two LIDs leaves the QP destroyable
 * once both are detached. The last attachments are left for close.
 */
TEST_F(obj, multicast_attach_and_detach_follow_uverbs_rules)
{
	struct ib_async_mcast m = { .argsz = sizeof(m) };
	static const __u8 mgid[16] = { 0xff, 0x0e, [10] = 0xff, [11] = 0xff,
				       239, 1, 1, 7 };
	struct ib_async_create_qp ud, rc;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &ud));
	m.qp_handle = ud.handle;
	memcpy(m.gid, mgid, sizeof(m.gid));
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_DETACH_MCAST, &m));
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, ud.handle, NULL));
	EXPECT_EQ(0, iba_query_qp_state(self->fd, ud.handle));	/* still RESET */
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_DETACH_MCAST, &m));
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_DETACH_MCAST, &m));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, ud.handle, NULL));

	ASSERT_EQ(0, iba_create_qp(self->fd, 2, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &ud));
	ASSERT_EQ(0, iba_create_qp(self->fd, 3, self->pd, self->cq,
			       IB_UVERBS_QPT_RC, &rc));
	m.qp_handle = ud.handle;
	m.reserved = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	m.reserved = 0;
	m.gid[0] = 0xfe;	/* fe0e::...: not a multicast GID */
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	m.gid[0] = 0xff;
	m.qp_handle = rc.handle;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, rc.handle, NULL));

	/*
	 * One GID under two LIDs: two attachments for the program, one for
	 * the device (rxe attaches a QP to a GID once, the core counts each
	 * call): after both detaches the QP can be destroyed.
	 */
	m.qp_handle = ud.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	m.lid = 0xc001;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	m.lid = 0;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_DETACH_MCAST, &m));
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, ud.handle, NULL));
	m.lid = 0xc001;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_DETACH_MCAST, &m));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, ud.handle, NULL));

	/* attached twice when the fixture closes the file: close detaches */
	ASSERT_EQ(0, iba_create_qp(self->fd, 4, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &ud));
	m.qp_handle = ud.handle;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
	m.lid = 0;
	EXPECT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_ATTACH_MCAST, &m));
}

/*
 * QUERY_QP's structure is in-out like any other: its reserved words (the
 * address vector's included) are input too, and non-zero is EINVAL, so
 * that a later uAPI can give them a meaning. Found by ib_async_fuzz.
 */
TEST_F(obj, query_qp_refuses_nonzero_reserved_fields)
{
	struct ib_async_qp_attr q;
	struct ib_async_create_qp qp;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	memset(&q, 0, sizeof(q));
	q.argsz = sizeof(q);
	q.handle = qp.handle;
	q.reserved2 = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	q.reserved2 = 0;
	q.av.reserved = 0x80000000;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	q.av.reserved = 0;
	q.reserved = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	q.reserved = 0;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	EXPECT_EQ(0U, q.qp_state);
}

TEST_F(obj, srq_limit_set_and_read_back)
{
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .user_handle = 7, .pd_handle = self->pd,
		.max_wr = 16, .max_sge = 1,
	};
	struct ib_async_srq_attr a = { .argsz = sizeof(a) };

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	ASSERT_LE(16U, srq.max_wr);
	a.handle = srq.handle;
	a.attr_mask = IB_ASYNC_SRQ_LIMIT;
	a.srq_limit = 5;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_SRQ, &a));
	memset(&a, 0, sizeof(a));
	a.argsz = sizeof(a);
	a.handle = srq.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_SRQ, &a));
	EXPECT_EQ(5U, a.srq_limit);
	EXPECT_LE(16U, a.max_wr);
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_SRQ, srq.handle, NULL));
}

/*
 * A QP on an SRQ has no receive queue of its own: QUERY_QP says 0 for its
 * receive caps. rxe leaves them unset in the attributes it fills, and they
 * once went out as whatever the kernel stack held (ib_async.ko built for
 * the debug kernel fills its stack with a pattern, so that shows).
 */
TEST_F(obj, query_of_an_srq_qp_says_no_receive_queue)
{
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .user_handle = 8, .pd_handle = self->pd,
		.max_wr = 16, .max_sge = 1,
	};
	struct ib_async_create_qp qp = {
		.argsz = sizeof(qp), .user_handle = 9, .pd_handle = self->pd,
		.send_cq_handle = self->cq, .recv_cq_handle = self->cq,
		.qp_type = IB_UVERBS_QPT_RC, .max_send_wr = 4,
		.max_send_sge = 1,
	};
	struct ib_async_qp_attr q = { .argsz = sizeof(q) };

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	qp.srq_handle = srq.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_QP, &qp));
	q.handle = qp.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	EXPECT_EQ(0U, q.max_recv_wr);
	EXPECT_EQ(0U, q.max_recv_sge);
	EXPECT_LE(4U, q.max_send_wr);
	EXPECT_LE(1U, q.max_send_sge);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_SRQ, srq.handle, NULL));
}

TEST_F(obj, wq_on_rxe_is_eopnotsupp)
{
	struct ib_async_create_wq wq = {
		.argsz = sizeof(wq), .pd_handle = self->pd,
		.cq_handle = self->cq, .max_wr = 4, .max_sge = 1,
	};

	IBA_SKIPPED_IN_SETUP();
	if (strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "%s is not rxe", self->dev.ibdev);
	EXPECT_EQ(-EOPNOTSUPP, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_WQ, &wq));
}

/* Counts taken with the fixture's own PD and CQ alive; a second file. */
TEST_F(obj, close_destroys_every_object)
{
	struct iba_dev dev = self->dev;
	long qp0, cq0, pd0, srq0;
	struct ib_async_create_qp qp;
	struct ib_async_create_srq srq;
	uint32_t pd, cq;
	int fd, i;

	IBA_SKIPPED_IN_SETUP();
	qp0 = rdma_res_count(dev.ibdev, "qp");
	cq0 = rdma_res_count(dev.ibdev, "cq");
	pd0 = rdma_res_count(dev.ibdev, "pd");
	srq0 = rdma_res_count(dev.ibdev, "srq");
	ASSERT_LE(0, qp0);

	fd = open(dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_create_pd(fd, &pd));
	ASSERT_EQ(0, iba_create_cq(fd, 1, 8, &cq));
	memset(&srq, 0, sizeof(srq));
	srq.argsz = sizeof(srq);
	srq.pd_handle = pd;
	srq.max_wr = 8;
	srq.max_sge = 1;
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, iba_create_qp(fd, i, pd, cq, IB_UVERBS_QPT_UD, &qp));
	EXPECT_EQ(qp0 + 3, rdma_res_count(dev.ibdev, "qp"));
	EXPECT_EQ(srq0 + 1, rdma_res_count(dev.ibdev, "srq"));
	close(fd);
	EXPECT_EQ(qp0, rdma_res_count(dev.ibdev, "qp"));
	EXPECT_EQ(cq0, rdma_res_count(dev.ibdev, "cq"));
	EXPECT_EQ(pd0, rdma_res_count(dev.ibdev, "pd"));
	EXPECT_EQ(srq0, rdma_res_count(dev.ibdev, "srq"));
}

/*
 * A CREATE_CQ run in a thread of its own (*@th), held as it writes its
 * answer to a write-protected page (@st->area): as iba_stall_answer().
 */
static int create_cq_held(int fd, struct iba_stalled_cmd *c,
			  struct iba_stall *st, pthread_t *th)
{
	struct ib_async_create_cq cq = {
		.argsz = sizeof(cq), .user_handle = CQ_COOKIE, .cqe = 4,
	};

	*c = (struct iba_stalled_cmd){
		.fd = fd, .cmd = IB_ASYNC_IOC_CREATE_CQ, .ret = 1,
	};
	return iba_stall_answer(c, st, &cq, sizeof(cq), th);
}

/*
 * As in ib_uverbs, a new object is named by its handle only once its
 * create has answered: until then no other command of the file finds it,
 * neither a DESTROY nor a create that would use it. Handles are handed
 * out in order, so the test knows the one the stalled create got. The
 * answer's copy is held on a write-protected page, then let through.
 */
TEST_F_TIMEOUT(obj, an_object_is_found_only_once_its_create_answered, 60)
{
	struct ib_async_create_cq cq;
	struct ib_async_create_qp qp;
	uint32_t next = self->cq + 1;
	struct iba_stalled_cmd c;
	struct iba_stall st;
	pthread_t th;
	int err;

	IBA_SKIPPED_IN_SETUP();
	err = create_cq_held(self->fd, &c, &st, &th);
	if (err > 0)
		SKIP(return, "no write-protecting userfaultfd");
	ASSERT_EQ(0, err);

	/* made, its answer on its way: nobody else finds it */
	EXPECT_EQ(-ENOENT, iba_create_qp(self->fd, 1, self->pd, next,
					 IB_UVERBS_QPT_UD, &qp));
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, next, NULL));

	ASSERT_EQ(0, iba_stall_unprotect(&st));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, c.ret);
	memcpy(&cq, st.area, sizeof(cq));
	EXPECT_EQ(next, cq.handle);
	/* answered: the file's like any other object */
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, cq.handle,
				   IB_UVERBS_QPT_UD, &qp));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, cq.handle, NULL));
	iba_stall_free(&st);
}

/*
 * A create whose answer is lost takes back what it made, even when
 * another thread of the program tried to use the object meanwhile: the
 * device has its CQ count of before, the call failed, and the handle
 * names nothing. (Were the object found before its answer, a QP made on
 * it would keep it, EBUSY, from a create that reported failure.)
 */
TEST_F_TIMEOUT(obj, a_create_whose_answer_is_lost_leaves_no_object, 60)
{
	struct ib_async_create_qp qp;
	uint32_t next = self->cq + 1;
	struct iba_stalled_cmd c;
	struct iba_stall st;
	pthread_t th;
	long cq0;
	int err;

	IBA_SKIPPED_IN_SETUP();
	cq0 = rdma_res_count(self->dev.ibdev, "cq");
	ASSERT_LE(0, cq0);
	err = create_cq_held(self->fd, &c, &st, &th);
	if (err > 0)
		SKIP(return, "no write-protecting userfaultfd");
	ASSERT_EQ(0, err);
	EXPECT_EQ(cq0 + 1, rdma_res_count(self->dev.ibdev, "cq"));
	EXPECT_EQ(-ENOENT, iba_create_qp(self->fd, 1, self->pd, next,
					 IB_UVERBS_QPT_UD, &qp));

	ASSERT_EQ(0, iba_stall_fail(&st));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EFAULT, c.ret);
	EXPECT_EQ(cq0, rdma_res_count(self->dev.ibdev, "cq"))
		TH_LOG("the CQ outlived its failed create");
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, next, NULL));
	iba_stall_free(&st);
}

TEST_F(obj, rc_qps_connect_through_kernel_resolved_roce_address)
{
	struct ib_async_qp_attr q = { .argsz = sizeof(q) };
	struct ib_async_create_qp a, b;
	uint8_t gid[16];
	int sgid;

	IBA_SKIPPED_IN_SETUP();
	sgid = iba_roce_v2_gid(self->dev.ibdev, gid);
	if (sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ASSERT_EQ(0, iba_rc_pair(self->fd, self->pd, self->cq, sgid, gid, &a, &b));

	q.handle = a.handle;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_QP, &q));
	EXPECT_EQ(3U, q.qp_state);
	EXPECT_EQ(b.qp_num, q.dest_qp_num);
	EXPECT_EQ(1, q.av.is_global);
	EXPECT_EQ(sgid, q.av.sgid_index);
	EXPECT_EQ(0, memcmp(gid, q.av.dgid, 16));
}

TEST_F(obj, address_handles_and_bad_address_vectors)
{
	struct ib_async_create_ah ah = { .argsz = sizeof(ah) };
	struct ib_async_qp_attr init = { .port_num = 1 };
	struct ib_async_qp_attr rtr = {};
	struct ib_async_create_qp qp;
	uint8_t gid[16];
	int sgid;

	IBA_SKIPPED_IN_SETUP();
	sgid = iba_roce_v2_gid(self->dev.ibdev, gid);
	if (sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", self->dev.ibdev);
	ah.pd_handle = self->pd;
	ah.av.port_num = 1;
	ah.av.sgid_index = sgid;
	ah.av.hop_limit = 64;
	memcpy(ah.av.dgid, gid, 16);
	/* RoCE has no LIDs: a vector without GRH is refused. */
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_AH, &ah));
	ah.av.is_global = 1;
	ah.av.reserved = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_AH, &ah));
	ah.av.reserved = 0;
	/* rxe's GID table has 1024 entries: 250 exists and is empty. */
	ah.av.sgid_index = 250;
	EXPECT_EQ(-ENODATA, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_AH, &ah));
	ah.av.sgid_index = sgid;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_AH, &ah));
	ASSERT_NE(0U, ah.handle);
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_AH, ah.handle, NULL));

	/* A QP left in INIT when its vector is refused. */
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, self->cq,
			       IB_UVERBS_QPT_RC, &qp));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
			       IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS,
			       &init));
	rtr.av.port_num = 1;
	rtr.av.is_global = 1;
	rtr.av.sgid_index = 250;
	EXPECT_EQ(-ENODATA, iba_modify_qp(self->fd, qp.handle, 2, IB_ASYNC_QP_AV,
				      &rtr));
	EXPECT_EQ(1, iba_query_qp_state(self->fd, qp.handle));
}

/* Every query answered as the RDMA core's own sysfs files say. */
TEST_F(obj, queries_match_the_rdma_core_sysfs)
{
	struct ib_async_device_attr d = { .argsz = sizeof(d) };
	struct ib_async_port_attr p = { .argsz = sizeof(p), .port_num = 1 };
	struct ib_async_query_gid g = { .argsz = sizeof(g), .port_num = 1 };
	struct ib_async_query_pkey k = { .argsz = sizeof(k), .port_num = 1 };
	struct ib_async_resize_cq r = { .argsz = sizeof(r) };
	char path[256], text[64], guid[32];
	const uint8_t *b;
	uint8_t gid[16];
	int sgid, resize, can_resize;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_DEVICE, &d));
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_guid",
		 self->dev.ibdev);
	ASSERT_EQ(0, iba_read_line(path, text, sizeof(text)));
	b = (const uint8_t *)&d.node_guid;
	snprintf(guid, sizeof(guid), "%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
	EXPECT_STREQ(text, guid);
	EXPECT_EQ(1, d.phys_port_cnt);
	EXPECT_LT(0U, d.max_qp);
	EXPECT_LT(0U, d.max_cqe);

	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_PORT, &p));
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/state",
		 self->dev.ibdev);
	ASSERT_EQ(0, iba_read_line(path, text, sizeof(text)));
	EXPECT_EQ((uint32_t)atoi(text), p.state);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/link_layer", self->dev.ibdev);
	ASSERT_EQ(0, iba_read_line(path, text, sizeof(text)));
	EXPECT_EQ(strcmp(text, "Ethernet") ? 1 : 2, p.link_layer);
	EXPECT_LT(0U, p.gid_tbl_len);
	p.port_num = 2;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_PORT, &p));

	sgid = iba_roce_v2_gid(self->dev.ibdev, gid);
	if (sgid >= 0) {
		g.index = sgid;
		ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_GID, &g));
		EXPECT_EQ(0, memcmp(gid, g.gid, 16));
		EXPECT_EQ(2U, g.gid_type);	/* RoCE v2 */
		g.index = 250;
		EXPECT_EQ(-ENODATA, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_GID, &g));
	}

	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_PKEY, &k));
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/pkeys/0",
		 self->dev.ibdev);
	ASSERT_EQ(0, iba_read_line(path, text, sizeof(text)));
	EXPECT_EQ(strtoul(text, NULL, 16), k.pkey);
	k.index = 60000;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_PKEY, &k));

	/* the kernel's own word: rxe resizes where kernel verbs can */
	can_resize = !!(iba_features(self->fd) & IB_ASYNC_FEATURE_RESIZE_CQ);
	resize = iba_btf_has("ib_core", "ib_resize_cq");
	if (resize >= 0)
		EXPECT_EQ(resize, can_resize);
	r.handle = self->cq;
	r.cqe = 64;
	if (can_resize) {
		ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_RESIZE_CQ, &r));
		EXPECT_LE(64U, r.cqe);
	} else {
		/* the kernel cannot (7.1 on) */
		EXPECT_EQ(-EOPNOTSUPP, iba_ioc(self->fd, IB_ASYNC_IOC_RESIZE_CQ, &r));
		EXPECT_EQ(64U, r.cqe);
	}
	r.cqe = 0;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_RESIZE_CQ, &r));
}

/*
 * A process killed with live objects and an unread affiliated event: the
 * kernel closes its file and every object goes, as the RDMA core counts.
 */
TEST_F(obj, sigkill_with_objects_and_unread_events_leaves_nothing)
{
	struct ib_async_qp_attr sqd = { .en_sqd_async_notify = 1 };
	long qp0 = rdma_res_count(self->dev.ibdev, "qp");
	long cq0 = rdma_res_count(self->dev.ibdev, "cq");
	long pd0 = rdma_res_count(self->dev.ibdev, "pd");
	int ready[2], status;
	char c;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_LE(0, qp0);
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ib_async_create_qp qp;
		uint32_t pd, cq;
		int fd = open(self->dev.node, O_RDWR), i;

		if (fd < 0 || iba_create_pd(fd, &pd) || iba_create_cq(fd, 1, 8, &cq))
			_exit(1);
		for (i = 0; i < 4; i++)
			if (iba_create_qp(fd, i, pd, cq, IB_UVERBS_QPT_UD, &qp))
				_exit(1);
		if (iba_ud_to_rts(fd, qp.handle) ||
		    iba_modify_qp(fd, qp.handle, 4,
			      IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY, &sqd) ||
		    iba_wait_queued(fd, 1, IBA_EVENT_TIMEOUT_MS))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	EXPECT_EQ(qp0 + 4, rdma_res_count(self->dev.ibdev, "qp"));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(qp0, rdma_res_count(self->dev.ibdev, "qp"));
	EXPECT_EQ(cq0, rdma_res_count(self->dev.ibdev, "cq"));
	EXPECT_EQ(pd0, rdma_res_count(self->dev.ibdev, "pd"));
}

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/ib_async_test"

/* The line of rdma.current for @ibdev, e.g. "hca_handle=0 hca_object=3". */
static int cg_current(const char *ibdev, char *buf, size_t len)
{
	char line[256];
	size_t n = strlen(ibdev);
	FILE *f = fopen(CG_DIR "/rdma.current", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, ibdev, n) || line[n] != ' ')
			continue;
		line[strcspn(line, "\n")] = 0;
		while (strlen(line) > n && line[strlen(line) - 1] == ' ')
			line[strlen(line) - 1] = 0;
		snprintf(buf, len, "%s", line + n + 1);
		ret = 0;
	}
	fclose(f);
	return ret;
}

/*
 * A test cgroup with the rdma controller, rdma.max at @objects hca_objects
 * of @ibdev: 0, or 1 when the kernel has no rdma controller.
 */
static int cg_make(const char *ibdev, const char *objects)
{
	if (access(CG_ROOT "/cgroup.controllers", F_OK))
		iba_sh("mount -t cgroup2 none " CG_ROOT " 2>/dev/null");
	if (iba_sh("grep -qw rdma " CG_ROOT "/cgroup.controllers"))
		return 1;
	iba_sh("echo +rdma > " CG_ROOT "/cgroup.subtree_control");
	rmdir(CG_DIR);
	if (mkdir(CG_DIR, 0755))
		return -1;
	return iba_sh("echo '%s hca_handle=10 hca_object=%s' > "
		      CG_DIR "/rdma.max", ibdev, objects) ? -1 : 0;
}

/*
 * Limits back to max before rmdir: 6.1's rdma cgroup keeps an idle pool
 * with custom limits past the cgroup's end, and unregistering the device
 * later walks it (KASAN use-after-free in rdmacg_unregister_device). A
 * kernel bug, not ours; avoided here.
 */
static int cg_remove(const char *ibdev)
{
	int ret = iba_sh("echo '%s hca_handle=max hca_object=max' > "
			 CG_DIR "/rdma.max", ibdev);

	return rmdir(CG_DIR) ? -1 : ret;
}

/*
 * A child process in the test cgroup, with a pipe each way: its pid, 0 in
 * the child, -1 on failure.
 */
static pid_t cg_fork(int to_child[2], int to_parent[2])
{
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent))
		return -1;
	pid = fork();
	if (!pid && iba_sh("echo %d > " CG_DIR "/cgroup.procs", getpid()))
		_exit(2);
	return pid;
}

/* In the child: hand @r to the parent, then wait for it to go on. */
static void cg_report(int to_child[2], int to_parent[2], const int *r,
		      size_t len)
{
	char c;

	if (write(to_parent[1], r, len) != (ssize_t)len ||
	    read(to_child[0], &c, 1) != 1)
		_exit(3);
}

/*
 * rdma cgroup: with rdma.max at hca_object=3, a process in the cgroup gets
 * three objects and then EAGAIN; rdma.current counts them; a destroy gives
 * one back; exit gives back all.
 */
TEST_F(obj, rdma_cgroup_max_limits_objects)
{
	int to_child[2], to_parent[2], status, made = 0, err = 0, res[3];
	char cur[128], c;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	err = cg_make(self->dev.ibdev, "3");
	if (err > 0)
		SKIP(return, "no cgroup2 rdma controller");
	ASSERT_EQ(0, err);
	pid = cg_fork(to_child, to_parent);
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t h[5];
		int fd, i, r[3] = { 0 };

		fd = open(self->dev.node, O_RDWR);
		for (i = 0; i < 5 && fd >= 0; i++) {
			r[1] = iba_create_pd(fd, &h[i]);
			if (r[1])
				break;
		}
		r[0] = i;
		r[1] = -r[1];
		cg_report(to_child, to_parent, r, sizeof(r));
		/* one destroy gives one back */
		r[2] = iba_destroy(fd, IB_ASYNC_OBJ_PD, h[0], NULL) ||
		       iba_create_pd(fd, &h[0]);
		cg_report(to_child, to_parent, r, sizeof(r));
		_exit(0);	/* closing the file destroys and uncharges */
	}
	ASSERT_EQ((ssize_t)sizeof(res), read(to_parent[0], res, sizeof(res)));
	made = res[0];
	err = res[1];
	EXPECT_EQ(3, made);
	EXPECT_EQ(EAGAIN, err);
	ASSERT_EQ(0, cg_current(self->dev.ibdev, cur, sizeof(cur)));
	EXPECT_STREQ("hca_handle=0 hca_object=3", cur);
	c = 1;
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ((ssize_t)sizeof(res), read(to_parent[0], res, sizeof(res)));
	EXPECT_EQ(0, res[2]) TH_LOG("destroy then create within the limit");
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, cg_current(self->dev.ibdev, cur, sizeof(cur)));
	EXPECT_STREQ("hca_handle=0 hca_object=0", cur);
	EXPECT_EQ(0, cg_remove(self->dev.ibdev));
}

/*
 * A PD's first REG_MR makes its registration CQ and QP for the user: the
 * rdma cgroup counts them as it counts every object made for the user
 * (ib_uverbs would count a user's own), and "rdma resource show" names
 * their owner. With room for the PD and one more, the registration fails
 * with EAGAIN and gives everything back; with room for four (PD, CQ, QP,
 * MR) it is made.
 */
TEST_F(obj, rdma_cgroup_counts_the_registration_queues)
{
	int to_child[2], to_parent[2], status, err, res[2];
	char cur[128], c = 1;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_USER_MR))
		SKIP(return, "no IB_ASYNC_FEATURE_USER_MR");
	err = cg_make(self->dev.ibdev, "2");
	if (err > 0)
		SKIP(return, "no cgroup2 rdma controller");
	ASSERT_EQ(0, err);
	pid = cg_fork(to_child, to_parent);
	ASSERT_LE(0, pid);
	if (!pid) {
		static char buf[4096] __attribute__((aligned(4096)));
		uint32_t pd;
		int fd;

		fd = open(self->dev.node, O_RDWR);
		if (fd < 0 || iba_create_pd(fd, &pd))
			_exit(3);
		res[0] = iba_reg_mr(fd, pd, buf, sizeof(buf),
				IB_UVERBS_ACCESS_LOCAL_WRITE, NULL);
		cg_report(to_child, to_parent, res, sizeof(res));
		res[1] = iba_reg_mr(fd, pd, buf, sizeof(buf),
				IB_UVERBS_ACCESS_LOCAL_WRITE, NULL);
		cg_report(to_child, to_parent, res, sizeof(res));
		_exit(0);
	}
	ASSERT_EQ((ssize_t)sizeof(res), read(to_parent[0], res, sizeof(res)));
	EXPECT_EQ(-EAGAIN, res[0]);
	ASSERT_EQ(0, cg_current(self->dev.ibdev, cur, sizeof(cur)));
	EXPECT_STREQ("hca_handle=0 hca_object=1", cur);
	ASSERT_EQ(0, iba_sh("echo '%s hca_handle=10 hca_object=4' > "
			    CG_DIR "/rdma.max", self->dev.ibdev));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ((ssize_t)sizeof(res), read(to_parent[0], res, sizeof(res)));
	EXPECT_EQ(0, res[1]);
	ASSERT_EQ(0, cg_current(self->dev.ibdev, cur, sizeof(cur)));
	EXPECT_STREQ("hca_handle=0 hca_object=4", cur);
	/* every QP the child's objects hold is named for it */
	EXPECT_EQ(0, iba_sh("rdma resource show qp | grep -q 'ib_async\\[%d\\]' && "
			    "! rdma resource show qp | grep -q '\\[ib_async\\] '",
			    pid));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, cg_current(self->dev.ibdev, cur, sizeof(cur)));
	EXPECT_STREQ("hca_handle=0 hca_object=0", cur);
	EXPECT_EQ(0, cg_remove(self->dev.ibdev));
}

/* A device renamed while a file is open: sysfs and GET_INFO follow. */
TEST_F(obj, rename_is_followed_by_sysfs_and_get_info)
{
	struct ib_async_info info;
	char path[PATH_MAX], name[64];
	const char *node = strrchr(self->dev.node, '/') + 1;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to rename");
	snprintf(path, sizeof(path), IBA_CLASS_DIR "/%s/ibdev", node);
	ASSERT_EQ(0, iba_sh("rdma dev set %s name iba_renamed",
			    self->dev.ibdev));
	EXPECT_EQ(0, iba_read_line(path, name, sizeof(name)));
	EXPECT_STREQ("iba_renamed", name);
	EXPECT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_STREQ("iba_renamed", info.ibdev_name);
	ASSERT_EQ(0, iba_sh("rdma dev set iba_renamed name %s",
			    self->dev.ibdev));
	EXPECT_EQ(0, iba_read_line(path, name, sizeof(name)));
	EXPECT_STREQ(self->dev.ibdev, name);
}

/*
 * Last, as it takes the device away: removal with live objects and an
 * unread affiliated event must not wait for this file. The file keeps the
 * queued record, gets DEVICE_FATAL as the last record, then ENODEV; its
 * objects are gone from the RDMA core; destroying a handle still works so
 * programs can clean up, and reports the records read; creating fails.
 * rxe0 is re-created afterwards.
 */
TEST_F_TIMEOUT(obj, removal_with_objects_ends_stream_without_waiting, 120)
{
	struct ib_async_qp_attr sqd = { .en_sqd_async_notify = 1 };
	struct ib_async_event ev[4];
	struct ib_async_create_qp qp;
	uint64_t t0, reported = 99;
	uint32_t pd2;
	ssize_t n;

	IBA_SKIPPED_IN_SETUP();
	if (strncmp(self->dev.ibdev, "rxe", 3) || geteuid())
		SKIP(return, "needs root and an rxe device to delete");
	ASSERT_EQ(0, iba_create_qp(self->fd, QP_COOKIE, self->pd, self->cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, qp.handle));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 4,
			       IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY, &sqd));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));

	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_sh("rdma link delete %s", self->dev.ibdev));
	TH_LOG("rdma link delete took %llu ms",
	       (unsigned long long)(iba_now_ms() - t0));
	EXPECT_GT((uint64_t)10000, iba_now_ms() - t0);
	EXPECT_NE(0, access(self->dev.node, F_OK));

	n = read(self->fd, ev, sizeof(ev));
	ASSERT_EQ((ssize_t)(2 * sizeof(ev[0])), n);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_SQ_DRAINED, ev[0].event_type);
	EXPECT_EQ(QP_COOKIE, ev[0].element);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_DEVICE_FATAL, ev[1].event_type);
	EXPECT_EQ(0ULL, ev[1].element);
	EXPECT_EQ(ev[0].seq + 1, ev[1].seq);
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(ENODEV, errno);

	EXPECT_EQ(-ENODEV, iba_create_pd(self->fd, &pd2));
	/*
	 * The record read after removal still counts for the QP: the
	 * program may hold it unacknowledged, and ibv_destroy_qp() must
	 * not free what its ack touches.
	 */
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, &reported));
	EXPECT_EQ((uint64_t)1, reported);
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle, NULL));

	ASSERT_EQ(0, iba_rxe_readd(&self->dev));
}

TEST_HARNESS_MAIN

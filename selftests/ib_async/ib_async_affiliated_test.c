// SPDX-License-Identifier: GPL-2.0
/*
 * Affiliated events of objects ib_async made on the test-only evsrc device
 * (modules/ib_async_evsrc.c), for the types rxe never raises. The source
 * calls each object's event handler from process, softirq (tasklet) or
 * hard-irq (hrtimer) context, as real drivers do.
 *
 * Checked against what the kernel returns: type, element (the user_handle this
 * file gave), obj_type and obj_handle of every record; events_reported of
 * destroy equals the records this test actually read for that object; no
 * record of a destroyed object is ever read after its destroy returned,
 * not even by a reader that was copying it out meanwhile; a reader stuck
 * in its copy (userfaultfd) holds up neither a destroy nor a resize.
 */
#include <pthread.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"
#include "lib/iba_uffd.h"

#define CQ_COOKIE	0x1000000000000c01ULL
#define QP_COOKIE	0x1000000000000a01ULL
#define SRQ_COOKIE	0x1000000000000501ULL
#define WQ_COOKIE	0x1000000000000701ULL

struct objs {
	uint32_t pd, cq, qp, srq, wq;		/* ib_async handles */
	int ev_cq, ev_qp, ev_srq, ev_wq;	/* evsrc ids */
};

static int make_objects(int fd, struct objs *o)
{
	struct ib_async_create_pd pd = { .argsz = sizeof(pd) };
	struct ib_async_create_cq cq = { .argsz = sizeof(cq),
					 .user_handle = CQ_COOKIE, .cqe = 8 };
	struct ib_async_create_srq srq = { .argsz = sizeof(srq),
					   .user_handle = SRQ_COOKIE, .max_wr = 8,
					   .max_sge = 1 };
	struct ib_async_create_qp qp = { .argsz = sizeof(qp),
					 .user_handle = QP_COOKIE,
					 .qp_type = IB_UVERBS_QPT_UD,
					 .max_send_wr = 4, .max_send_sge = 1 };
	struct ib_async_create_wq wq = { .argsz = sizeof(wq),
					 .user_handle = WQ_COOKIE, .max_wr = 4,
					 .max_sge = 1 };
	int ret;

	ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_PD, &pd);
	if (!ret)
		ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_CQ, &cq);
	o->ev_cq = iba_evsrc_find("cq", 0);
	srq.pd_handle = pd.handle;
	if (!ret)
		ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_SRQ, &srq);
	o->ev_srq = iba_evsrc_find("srq", 0);
	qp.pd_handle = pd.handle;
	qp.send_cq_handle = cq.handle;
	qp.recv_cq_handle = cq.handle;
	qp.srq_handle = srq.handle;
	if (!ret)
		ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_QP, &qp);
	o->ev_qp = iba_evsrc_find("qp", qp.qp_num);
	wq.pd_handle = pd.handle;
	wq.cq_handle = cq.handle;
	if (!ret)
		ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_WQ, &wq);
	o->ev_wq = iba_evsrc_find("wq", 0);
	o->pd = pd.handle;
	o->cq = cq.handle;
	o->srq = srq.handle;
	o->qp = qp.handle;
	o->wq = wq.handle;
	return ret;
}

FIXTURE(aff) {
	struct iba_dev dev;
	struct objs o;
	int fd;
};

FIXTURE_SETUP(aff)
{
	IBA_EVSRC_FIXTURE_OPEN(self, 0, NULL);
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 65536));
	ASSERT_EQ(0, make_objects(self->fd, &self->o));
	ASSERT_LE(0, self->o.ev_cq);
	ASSERT_LE(0, self->o.ev_qp);
	ASSERT_LE(0, self->o.ev_srq);
	ASSERT_LE(0, self->o.ev_wq);
}

FIXTURE_TEARDOWN(aff)
{
	if (self->fd >= 0)
		close(self->fd);
}

static uint64_t user_handle_of(uint32_t obj)
{
	switch (obj) {
	case IB_ASYNC_OBJ_CQ: return CQ_COOKIE;
	case IB_ASYNC_OBJ_QP: return QP_COOKIE;
	case IB_ASYNC_OBJ_SRQ: return SRQ_COOKIE;
	default: return WQ_COOKIE;
	}
}

static uint32_t handle_of(const struct objs *o, uint32_t obj)
{
	switch (obj) {
	case IB_ASYNC_OBJ_CQ: return o->cq;
	case IB_ASYNC_OBJ_QP: return o->qp;
	case IB_ASYNC_OBJ_SRQ: return o->srq;
	default: return o->wq;
	}
}

static const char *target_of(const struct objs *o, uint32_t obj, char *buf)
{
	switch (obj) {
	case IB_ASYNC_OBJ_CQ: sprintf(buf, "cq:%d", o->ev_cq); break;
	case IB_ASYNC_OBJ_QP: sprintf(buf, "qp:%d", o->ev_qp); break;
	case IB_ASYNC_OBJ_SRQ: sprintf(buf, "srq:%d", o->ev_srq); break;
	default: sprintf(buf, "wq:%d", o->ev_wq); break;
	}
	return buf;
}

TEST_F(aff, every_affiliated_type_from_every_context)
{
	struct ib_async_event ev;
	char target[32];
	unsigned int c, i;

	IBA_SKIPPED_IN_SETUP();
	for (c = 0; c < iba_evsrc_ncontexts(); c++) {
		for (i = 0; i < ARRAY_SIZE(iba_evsrc_affiliated); i++) {
			uint32_t obj = iba_evsrc_affiliated[i].obj;

			ASSERT_EQ(0, iba_evsrc_write("raise", "%u %s %s 1",
						 iba_evsrc_affiliated[i].type,
						 target_of(&self->o, obj, target),
						 iba_evsrc_contexts[c]));
			ASSERT_EQ(0, iba_wait_type(self->fd, iba_evsrc_affiliated[i].type,
						   IBA_EVENT_TIMEOUT_MS, &ev))
				TH_LOG("%s from %s", iba_type_str(iba_evsrc_affiliated[i].type),
				       iba_evsrc_contexts[c]);
			EXPECT_EQ(user_handle_of(obj), ev.element);
			EXPECT_EQ(obj, ev.obj_type);
			EXPECT_EQ(handle_of(&self->o, obj), ev.obj_handle);
			EXPECT_EQ(1ULL, ev.count);
		}
	}
	/* Nothing extra: exactly one record per raise. */
	EXPECT_EQ(0, iba_fionread(self->fd));
}

TEST_F(aff, destroy_reports_read_events_and_purges_the_rest)
{
	struct ib_async_event ev[8];
	uint64_t reported = 99;
	char target[32];

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u %s process 5",
				 IB_ASYNC_EV_QP_FATAL,
				 target_of(&self->o, IB_ASYNC_OBJ_QP, target)));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 5, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ((ssize_t)(3 * sizeof(ev[0])),
		  read(self->fd, ev, 3 * sizeof(ev[0])));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, self->o.qp, &reported));
	EXPECT_EQ((uint64_t)3, reported);
	EXPECT_EQ(0, iba_fionread(self->fd));
	/* Its SRQ and CQ are free now; the CQ still has the WQ. */
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->o.cq,
				  &reported));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_SRQ, self->o.srq,
			     &reported));
	EXPECT_EQ((uint64_t)0, reported);
}

/* Raise @n events of @type on @obj from process context: 0 or -errno. */
static int raise_on(const struct objs *o, uint32_t type, uint32_t obj, int n)
{
	char target[32];

	return iba_evsrc_write("raise", "%u %s process %d", type,
			   target_of(o, obj, target), n);
}

/*
 * The case: a reader is stuck copying records to memory that
 * stalls (userfaultfd), records of the QP among them, while another
 * thread destroys the QP. The destroy must return at once, with the
 * count of what reached the user (nothing of the QP's: the reader has
 * not finished). Once the fault is served, the reader returns only what
 * is still queued, the CQ's records in order, never the QP's.
 */
TEST_F_TIMEOUT(aff, destroy_behind_a_reader_stuck_in_its_copy_returns, 60)
{
	struct ib_async_destroy d = {
		.argsz = sizeof(d), .obj_type = IB_ASYNC_OBJ_QP,
		.handle = self->o.qp,
	};
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_DESTROY, .arg = &d,
		.ret = 1,
	};
	struct iba_stalled_read rd = {
		.fd = self->fd, .len = 8 * sizeof(struct ib_async_event),
	};
	const struct ib_async_event *ev;
	pthread_t rth, dth;
	struct iba_stall st;
	uint64_t took = 0, reported = 99;
	int err, i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, raise_on(&self->o, IB_ASYNC_EV_CQ_ERR, IB_ASYNC_OBJ_CQ, 2));
	ASSERT_EQ(0, raise_on(&self->o, IB_ASYNC_EV_QP_FATAL, IB_ASYNC_OBJ_QP,
			      3));
	ASSERT_EQ(0, raise_on(&self->o, IB_ASYNC_EV_CQ_ERR, IB_ASYNC_OBJ_CQ, 2));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 7, IBA_EVENT_TIMEOUT_MS));

	err = iba_stall_reader(&rd, &st, &rth);
	if (err > 0)
		SKIP(return, "no userfaultfd");
	ASSERT_EQ(0, err);
	err = iba_cmd_within(&c, &dth, 1000, &took);
	EXPECT_EQ(0, err) TH_LOG("DESTROY still waiting after %llu ms",
				 (unsigned long long)took);

	ASSERT_EQ(0, iba_stall_release(&st, rth, dth));
	EXPECT_EQ(0, c.ret);
	EXPECT_EQ(0ULL, d.events_reported);

	ASSERT_LT(0, rd.ret) TH_LOG("read: %s", strerror(rd.err));
	n = rd.ret / (int)sizeof(*ev);
	EXPECT_EQ(4, n);
	ev = st.area;
	for (i = 0; i < n; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev[i].event_type);
		EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_CQ, ev[i].obj_type);
		EXPECT_EQ(self->o.cq, ev[i].obj_handle);
		EXPECT_EQ(CQ_COOKIE, ev[i].element);
		if (i)
			EXPECT_LT(ev[i - 1].seq, ev[i].seq);
	}
	EXPECT_EQ(0, iba_fionread(self->fd));
	EXPECT_EQ(n, iba_fdinfo(self->fd, "delivered"));
	/* What the CQ's destroy reports is what the reader returned. */
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_WQ, self->o.wq, &reported));
	EXPECT_EQ(0ULL, reported);
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_SRQ, self->o.srq,
			     &reported));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->o.cq, &reported));
	EXPECT_EQ((uint64_t)n, reported);
	iba_stall_free(&st);
}

/*
 * SET_QUEUE_LEN while a reader is stuck in its copy: the resize goes on
 * at once; the reader then returns the records it was copying and the
 * ones that came after the resize, in order, each once.
 */
TEST_F_TIMEOUT(aff, resize_behind_a_reader_stuck_in_its_copy_returns, 60)
{
	struct ib_async_queue_len q = { .argsz = sizeof(q), .queue_len = 16 };
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_SET_QUEUE_LEN, .arg = &q,
		.ret = 1,
	};
	struct iba_stalled_read rd = {
		.fd = self->fd, .len = 8 * sizeof(struct ib_async_event),
	};
	const struct ib_async_event *ev;
	struct ib_async_info info;
	pthread_t rth, qth;
	struct iba_stall st;
	uint64_t took = 0, first, reported = 99;
	int err, i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	first = info.next_seq;
	ASSERT_EQ(0, raise_on(&self->o, IB_ASYNC_EV_CQ_ERR, IB_ASYNC_OBJ_CQ, 5));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 5, IBA_EVENT_TIMEOUT_MS));

	err = iba_stall_reader(&rd, &st, &rth);
	if (err > 0)
		SKIP(return, "no userfaultfd");
	ASSERT_EQ(0, err);
	err = iba_cmd_within(&c, &qth, 1000, &took);
	EXPECT_EQ(0, err) TH_LOG("SET_QUEUE_LEN still waiting after %llu ms",
				 (unsigned long long)took);
	if (!err) {
		/* the new length holds, the reader's records still queued */
		ASSERT_EQ(0, iba_get_info(self->fd, &info));
		EXPECT_EQ(16U, info.queue_len);
		EXPECT_EQ(5U, info.queued);
	}
	ASSERT_EQ(0, raise_on(&self->o, IB_ASYNC_EV_CQ_ERR, IB_ASYNC_OBJ_CQ, 2));

	ASSERT_EQ(0, iba_stall_release(&st, rth, qth));
	EXPECT_EQ(0, c.ret);

	ASSERT_LT(0, rd.ret) TH_LOG("read: %s", strerror(rd.err));
	n = rd.ret / (int)sizeof(*ev);
	ASSERT_EQ(7, n);
	ev = st.area;
	EXPECT_EQ(first, ev[0].seq);
	EXPECT_EQ(-1, iba_seq_continuous(ev, n));
	for (i = 0; i < n; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev[i].event_type);
		EXPECT_EQ(self->o.cq, ev[i].obj_handle);
	}
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(16U, info.queue_len);
	EXPECT_EQ(0U, info.queued);
	EXPECT_EQ(0ULL, info.lost);
	EXPECT_EQ(n, iba_fdinfo(self->fd, "delivered"));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_WQ, self->o.wq, &reported));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, self->o.qp, &reported));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->o.cq, &reported));
	EXPECT_EQ((uint64_t)n, reported);
	iba_stall_free(&st);
}

struct raiser {
	char cmd[64];
	int ret;
};

static void *raise_thread(void *arg)
{
	struct raiser *r = arg;

	r->ret = iba_evsrc_write("raise", "%s", r->cmd);
	return NULL;
}

/*
 * A hard-irq storm on the QP, raised from another thread, while this one
 * reads and destroys the QP in the middle of it: events_reported must
 * equal what was read for the QP, no QP record may be read after destroy
 * returned, and the storm stops with ENOENT (evsrc's word for "your
 * object went away").
 */
TEST_F_TIMEOUT(aff, hardirq_storm_with_destroy_keeps_counts_exact, 300)
{
	static struct ib_async_event ev[256];
	uint64_t qp_read = 0, reported = 0, t0;
	struct raiser r = { .ret = 1 };
	bool destroyed = false;
	char target[32];
	pthread_t thr;
	ssize_t n;
	int i, late = 0;

	IBA_SKIPPED_IN_SETUP();
	snprintf(r.cmd, sizeof(r.cmd), "%u %s %s 1000000",
		 IB_ASYNC_EV_QP_REQ_ERR,
		 target_of(&self->o, IB_ASYNC_OBJ_QP, target), iba_evsrc_hard());
	ASSERT_EQ(0, pthread_create(&thr, NULL, raise_thread, &r));
	t0 = iba_now_ms();
	while (iba_now_ms() - t0 < 120000) {
		n = read(self->fd, ev, sizeof(ev));
		if (n < 0) {
			ASSERT_EQ(EAGAIN, errno);
			if (destroyed && iba_now_ms() - t0 > 2000)
				break;
			iba_sleep_ms(5);
			continue;
		}
		for (i = 0; i < n / (int)sizeof(ev[0]); i++) {
			/* Lost events never count: they were never read. */
			if (ev[i].obj_type != IB_ASYNC_OBJ_QP)
				continue;
			EXPECT_EQ(QP_COOKIE, ev[i].element);
			if (destroyed)
				late++;
			else
				qp_read++;
		}
		if (!destroyed && qp_read >= 2000) {
			ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP,
					     self->o.qp, &reported));
			destroyed = true;
			t0 = iba_now_ms();
		}
	}
	pthread_join(thr, NULL);
	ASSERT_TRUE(destroyed);
	EXPECT_EQ(qp_read, reported);
	EXPECT_EQ(0, late);
	TH_LOG("read %llu QP events before destroy; raise returned %d",
	       (unsigned long long)qp_read, r.ret);
	EXPECT_EQ(-ENOENT, r.ret);
}

TEST_F(aff, modify_wq_reaches_the_driver)
{
	struct ib_async_modify_wq m = {
		.argsz = sizeof(m), .attr_mask = IB_ASYNC_WQ_STATE,
		.wq_state = 1,	/* IBV_WQS_RDY */
	};

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(0, iba_evsrc_wq_state(self->o.ev_wq));	/* RESET */
	m.handle = self->o.wq;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_WQ, &m));
	EXPECT_EQ(1, iba_evsrc_wq_state(self->o.ev_wq));
	m.wq_state = 7;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_WQ, &m));
	m.wq_state = 2;
	m.attr_mask = 1U << 5;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_WQ, &m));
	m.attr_mask = IB_ASYNC_WQ_STATE;
	m.handle = self->o.qp;		/* a QP's handle */
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MODIFY_WQ, &m));
	EXPECT_EQ(1, iba_evsrc_wq_state(self->o.ev_wq));
}

/*
 * A UD send through an AH of another port than the QP's is refused before
 * it reaches the driver (evsrc refuses every send with EOPNOTSUPP).
 */
TEST_F(aff, ud_send_through_another_ports_ah_is_refused)
{
	struct ib_async_create_ah ah = { .argsz = sizeof(ah) };
	struct ib_async_post_send s = {
		.argsz = sizeof(s), .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED, .remote_qpn = 1,
		.remote_qkey = IBA_UD_QKEY,
	};
	struct ib_async_create_qp qp;
	uint32_t port;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_qp(self->fd, 7, self->o.pd, self->o.cq,
			       IB_UVERBS_QPT_UD, &qp));
	ASSERT_EQ(0, iba_ud_to_rts(self->fd, qp.handle));	/* port 1 */
	ah.pd_handle = self->o.pd;
	s.handle = qp.handle;
	for (port = 1; port <= 2; port++) {
		ah.handle = 0;
		ah.av.port_num = port;
		ah.av.dlid = 1;
		ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_AH, &ah));
		s.ah_handle = ah.handle;
		EXPECT_EQ(port == 1 ? -EOPNOTSUPP : -EINVAL,
			  iba_ioc(self->fd, IB_ASYNC_IOC_POST_SEND, &s));
	}
}

#define STORM_QPS	4

struct churn {
	const char *node;
	int rounds;
	int errors;
	volatile int stop;
};

/* Open, make a QP, storm it from hard irq, close while it is delivering. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;

	while (!c->stop) {
		struct ib_async_create_qp qp;
		struct raiser r = { .ret = 1 };
		uint32_t pd, cq;
		pthread_t thr;
		int fd, id;

		fd = open(c->node, O_RDWR | O_NONBLOCK);
		if (fd < 0 || iba_create_pd(fd, &pd) || iba_create_cq(fd, 1, 8, &cq) ||
		    iba_create_qp(fd, 9, pd, cq, IB_UVERBS_QPT_UD, &qp)) {
			c->errors++;
			if (fd >= 0)
				close(fd);
			break;
		}
		id = iba_evsrc_find("qp", qp.qp_num);
		snprintf(r.cmd, sizeof(r.cmd), "%u qp:%d %s 100000",
			 IB_ASYNC_EV_COMM_EST, id, iba_evsrc_hard());
		if (pthread_create(&thr, NULL, raise_thread, &r)) {
			c->errors++;
			close(fd);
			break;
		}
		iba_sleep_ms(20);
		close(fd);	/* objects live, events unread, storm running */
		pthread_join(thr, NULL);
		if (r.ret && r.ret != -ENOENT)
			c->errors++;
		c->rounds++;
	}
	return NULL;
}

/*
 * Hard-irq storms on several QPs of this file while another thread keeps
 * opening files, storming their QPs and closing them mid-delivery, and
 * this thread destroys the QPs one by one: no crash, no hang, and for each
 * destroyed QP events_reported equals what this thread read for it.
 */
TEST_F_TIMEOUT(aff, storms_on_many_objects_with_destroys_and_closes, 600)
{
	static struct ib_async_event ev[256];
	struct ib_async_create_qp qp[STORM_QPS];
	struct raiser r[STORM_QPS];
	pthread_t thr[STORM_QPS], cthr;
	uint64_t got[STORM_QPS] = {}, reported, t0;
	struct churn c = { .node = self->dev.node };
	int i, j, k, destroyed = 0, late = 0;
	ssize_t n;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < STORM_QPS; i++) {
		ASSERT_EQ(0, iba_create_qp(self->fd, 100 + i, self->o.pd, self->o.cq,
				       IB_UVERBS_QPT_UD, &qp[i]));
		snprintf(r[i].cmd, sizeof(r[i].cmd), "%u qp:%d %s 1000000",
			 IB_ASYNC_EV_QP_FATAL, iba_evsrc_find("qp", qp[i].qp_num),
			 iba_evsrc_hard());
		r[i].ret = 1;
	}
	ASSERT_EQ(0, pthread_create(&cthr, NULL, churn_thread, &c));
	for (i = 0; i < STORM_QPS; i++)
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, raise_thread, &r[i]));

	t0 = iba_now_ms();
	while (destroyed < STORM_QPS && iba_now_ms() - t0 < 240000) {
		n = read(self->fd, ev, sizeof(ev));
		if (n < 0) {
			ASSERT_EQ(EAGAIN, errno);
			iba_sleep_ms(2);
			continue;
		}
		for (j = 0; j < n / (int)sizeof(ev[0]); j++) {
			if (ev[j].obj_type != IB_ASYNC_OBJ_QP)
				continue;
			for (k = 0; k < STORM_QPS; k++) {
				if (ev[j].obj_handle != qp[k].handle)
					continue;
				if (k < destroyed)
					late++;
				else
					got[k]++;
			}
		}
		if (got[destroyed] >= 500) {
			ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP,
					     qp[destroyed].handle, &reported));
			EXPECT_EQ(got[destroyed], reported)
				TH_LOG("QP %d", destroyed);
			destroyed++;
		}
	}
	c.stop = 1;
	for (i = 0; i < STORM_QPS; i++)
		pthread_join(thr[i], NULL);
	pthread_join(cthr, NULL);
	EXPECT_EQ(STORM_QPS, destroyed);
	EXPECT_EQ(0, late);
	EXPECT_EQ(0, c.errors);
	TH_LOG("%d files opened, stormed and closed meanwhile", c.rounds);
	EXPECT_LT(0, c.rounds);
	for (i = 0; i < STORM_QPS; i++)
		EXPECT_EQ(-ENOENT, r[i].ret);
}

TEST_HARNESS_MAIN

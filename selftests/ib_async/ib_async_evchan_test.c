// SPDX-License-Identifier: GPL-2.0
/*
 * Event channels: extra files of a context that get only the async events
 * their subscriptions (by type, port, object) match, each record carrying
 * the cookie of the subscription, optionally coalesced by type and object
 * or port with exact occurrence counts.
 *
 * Everything is checked on what the kernel hands back: records read from
 * the channels (type, port, object, cookie, sequence, occurrences) against
 * what the evsrc test device was told to raise, fdinfo's lines, and the
 * errors of bad requests. Events come from process context and from
 * evsrc's most atomic one (hard irq, softirq on PREEMPT_RT).
 */
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"
#include "lib/iba_uffd.h"

#define CH_REC		((int)sizeof(struct ib_async_chan_event))
#define MAX_RECS	256

static int sub_port(int fd, int ch, uint32_t port, uint64_t cookie)
{
	return iba_subscribe(fd, ch, IB_ASYNC_SUB_PORT, 0, port, 0, cookie);
}

static int sub_all(int fd, int ch, uint64_t cookie)
{
	return iba_subscribe(fd, ch, 0, 0, 0, 0, cookie);
}

static int unsubscribe(int fd, int ch, uint32_t id)
{
	struct ib_async_unsubscribe a = {
		.argsz = sizeof(a), .fd = ch, .sub_id = id,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_UNSUBSCRIBE, &a);
}

/* Read what the (nonblocking) channel holds: records read. */
static int drain(int ch, struct ib_async_chan_event *ev, int max)
{
	return iba_read_recs(ch, ev, sizeof(*ev), max);
}

/* Sequence numbers run on from 1 with no gap: nothing lost or reordered. */
static int seq_ok(const struct ib_async_chan_event *ev, int n, uint64_t first)
{
	return iba_seq_from(ev, sizeof(*ev), n, first);
}

FIXTURE(evc) {
	struct iba_dev dev;
	int fd;
	uint32_t pd, cq, qp;
	int ev_qp, ev_cq;
};

FIXTURE_SETUP(evc)
{
	IBA_EVSRC_FIXTURE_OPEN(self, IB_ASYNC_FEATURE_EVENT_CHANNEL,
			       "no event channels");
	ASSERT_EQ(0, iba_evsrc_ud_qp(self->fd, &self->pd, &self->cq, &self->qp,
				 &self->ev_qp));
	self->ev_cq = iba_evsrc_find("cq", 0);
	ASSERT_LE(0, self->ev_qp);
	ASSERT_LE(0, self->ev_cq);
}

FIXTURE_TEARDOWN(evc)
{
	if (self->fd >= 0)
		close(self->fd);
}

static const uint32_t port_evs[] = {
	IB_ASYNC_EV_LID_CHANGE, IB_ASYNC_EV_SM_CHANGE,
	IB_ASYNC_EV_PKEY_CHANGE, IB_ASYNC_EV_CLIENT_REREGISTER,
};

/*
 * The case the issue names: two readers (two iba_evsrc_contexts) on a two-port
 * device, each subscribed to one port, get exactly that port's events, in
 * the order raised, while each context's own queue still gets everything.
 */
TEST_F(evc, two_readers_get_only_their_ports_events_in_order)
{
	struct ib_async_chan_event ev[MAX_RECS];
	int fd2, ch[2], n, i, p, k;
	uint32_t want[2][32];
	int nwant[2] = { 0, 0 };

	IBA_SKIPPED_IN_SETUP();
	fd2 = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd2);
	ch[0] = iba_event_channel(self->fd, 0);
	ch[1] = iba_event_channel(fd2, 0);
	ASSERT_LE(0, ch[0]);
	ASSERT_LE(0, ch[1]);
	ASSERT_LT(0, sub_port(self->fd, ch[0], 1, 0xa1));
	ASSERT_LT(0, sub_port(fd2, ch[1], 2, 0xb2));
	iba_drain(self->fd);
	iba_drain(fd2);

	for (i = 0; i < 12; i++) {
		p = 1 + (i * 7 % 3 == 0);	/* an irregular interleaving */
		k = i % ARRAY_SIZE(port_evs);
		ASSERT_EQ(0, iba_evsrc_raise("%u port:%d %s", port_evs[k], p,
				      i % 2 ? iba_evsrc_hard() : "process"));
		want[p - 1][nwant[p - 1]++] = port_evs[k];
	}
	for (p = 0; p < 2; p++) {
		n = drain(ch[p], ev, MAX_RECS);
		ASSERT_EQ(nwant[p], n);
		EXPECT_TRUE(seq_ok(ev, n, 1));
		for (i = 0; i < n; i++) {
			EXPECT_EQ(want[p][i], ev[i].event.event_type);
			EXPECT_EQ((uint32_t)p + 1, ev[i].event.port_num);
			EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_PORT,
				  ev[i].event.obj_type);
			EXPECT_EQ(p ? 0xb2ULL : 0xa1ULL, ev[i].cookie);
			EXPECT_EQ(1ULL, ev[i].occurrences);
			EXPECT_EQ(ev[i].event.timestamp_ns,
				  ev[i].last_timestamp_ns);
		}
	}
	/* the contexts' own queues are unfiltered, as libibverbs expects */
	EXPECT_EQ(12, iba_drain(self->fd));
	EXPECT_EQ(12, iba_drain(fd2));
	close(ch[0]);
	close(ch[1]);
	close(fd2);
}

/* Type and port filters combine; each record names its subscription. */
TEST_F(evc, type_and_port_filters_with_cookies)
{
	struct ib_async_chan_event ev[8];
	char path[64], line[256];
	int ch, n, lines = 0;
	FILE *f;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_EQ(1, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_TYPES,
			       1ULL << IB_ASYNC_EV_SM_CHANGE, 0, 0, 0xc1));
	ASSERT_EQ(2, iba_subscribe(self->fd, ch,
			       IB_ASYNC_SUB_TYPES | IB_ASYNC_SUB_PORT,
			       1ULL << IB_ASYNC_EV_LID_CHANGE, 2, 0, 0xc2));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	ASSERT_EQ(0, iba_evsrc_raise("LID_CHANGE port:1"));
	ASSERT_EQ(0, iba_evsrc_raise("LID_CHANGE port:2"));
	ASSERT_EQ(0, iba_evsrc_raise("PKEY_CHANGE port:2"));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d", IB_ASYNC_EV_COMM_EST, self->ev_qp));
	n = drain(ch, ev, 8);
	ASSERT_EQ(2, n);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE, ev[0].event.event_type);
	EXPECT_EQ(1U, ev[0].event.port_num);
	EXPECT_EQ(0xc1ULL, ev[0].cookie);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_LID_CHANGE, ev[1].event.event_type);
	EXPECT_EQ(2U, ev[1].event.port_num);
	EXPECT_EQ(0xc2ULL, ev[1].cookie);

	EXPECT_EQ(2, iba_fdinfo(ch, "subscriptions"));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ch);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "ib_async-subscription:\tid=2 cookie=0xc2 "
				 "types=0x800 port=2 object=any"))
			lines++;
		if (strstr(line, "ib_async-channel:\tevent"))
			lines++;
	}
	fclose(f);
	EXPECT_EQ(2, lines);
	EXPECT_EQ(2, iba_fdinfo(ch, "delivered"));
	close(ch);
}

/*
 * An event several subscriptions match is queued once, with the earliest
 * one's cookie; unsubscribing takes effect at once.
 */
TEST_F(evc, earliest_subscription_names_the_record_until_it_ends)
{
	struct ib_async_chan_event ev[4];
	int ch, all, p1;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	all = sub_all(self->fd, ch, 1);
	p1 = sub_port(self->fd, ch, 1, 2);
	ASSERT_LT(0, all);
	ASSERT_LT(all, p1);
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	ASSERT_EQ(1, drain(ch, ev, 4));
	EXPECT_EQ(1ULL, ev[0].cookie);
	ASSERT_EQ(0, unsubscribe(self->fd, ch, all));
	EXPECT_EQ(-ENOENT, unsubscribe(self->fd, ch, all));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2"));
	ASSERT_EQ(1, drain(ch, ev, 4));
	EXPECT_EQ(2ULL, ev[0].cookie);
	EXPECT_EQ(2ULL, ev[0].event.seq);
	ASSERT_EQ(0, unsubscribe(self->fd, ch, p1));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	EXPECT_EQ(0, drain(ch, ev, 4));
	/* ids are never reused */
	EXPECT_LT(p1, sub_all(self->fd, ch, 3));
	EXPECT_EQ(1, iba_fdinfo(ch, "subscriptions"));
	close(ch);
}

/*
 * An object subscription gets that object's events only, with its
 * user_handle; destroying the object ends the subscription and discards
 * its unread records, and the channel holds nothing that stops the
 * destroy.
 */
TEST_F(evc, object_subscription_ends_with_the_object)
{
	struct ib_async_chan_event ev[8];
	int ch, id;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	id = iba_subscribe(self->fd, ch, IB_ASYNC_SUB_OBJECT, 0, 0, self->qp,
		       0x0b1);
	ASSERT_LT(0, id);
	ASSERT_LT(0, sub_port(self->fd, ch, 2, 0x9e));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d", IB_ASYNC_EV_QP_FATAL, self->ev_qp));
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d", IB_ASYNC_EV_CQ_ERR, self->ev_cq));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 3", IB_ASYNC_EV_COMM_EST,
			      self->ev_qp, iba_evsrc_hard()));
	ASSERT_EQ(4, drain(ch, ev, 8));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_QP_FATAL, ev[0].event.event_type);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_QP, ev[i].event.obj_type);
		EXPECT_EQ(self->qp, ev[i].event.obj_handle);
		EXPECT_EQ(0x9bULL, ev[i].event.element);
		EXPECT_EQ(0x0b1ULL, ev[i].cookie);
	}

	/* unread records of the QP go with it; a port's stay */
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 5", IB_ASYNC_EV_SQ_DRAINED,
			      self->ev_qp, iba_evsrc_hard()));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2"));
	EXPECT_EQ(6, iba_fdinfo(ch, "queued"));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, self->qp, NULL));
	EXPECT_EQ(1, iba_fdinfo(ch, "queued"));
	EXPECT_EQ(1, iba_fdinfo(ch, "subscriptions"));
	EXPECT_EQ(-ENOENT, unsubscribe(self->fd, ch, id));
	ASSERT_EQ(1, drain(ch, ev, 8));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE, ev[0].event.event_type);
	EXPECT_EQ(0x9eULL, ev[0].cookie);
	/* the handle names nothing now */
	EXPECT_EQ(-ENOENT, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_OBJECT, 0, 0,
				     self->qp, 1));
	close(ch);
}

/*
 * Coalescing: a storm of one type on one object from hard irq takes one
 * record, whose occurrences count every event; other keys get their own
 * records; first and last timestamps bracket the storm.
 */
TEST_F(evc, coalescing_counts_a_hard_irq_storm_exactly)
{
	struct ib_async_chan_event ev[8];
	const int storm = 20000;
	int ch, n;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_COALESCE);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, iba_fdinfo(ch, "subscriptions"));
	ASSERT_LT(0, sub_all(self->fd, ch, 7));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s %d", IB_ASYNC_EV_COMM_EST,
			      self->ev_qp, iba_evsrc_hard(), storm));
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d %s 3", IB_ASYNC_EV_CQ_ERR,
			      self->ev_cq, iba_evsrc_hard()));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2"));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	n = drain(ch, ev, 8);
	ASSERT_EQ(4, n);
	EXPECT_TRUE(seq_ok(ev, n, 1));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMM_EST, ev[0].event.event_type);
	EXPECT_EQ((uint64_t)storm, ev[0].occurrences);
	EXPECT_LT(ev[0].event.timestamp_ns, ev[0].last_timestamp_ns);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev[1].event.event_type);
	EXPECT_EQ(3ULL, ev[1].occurrences);
	EXPECT_EQ(1U, ev[2].event.port_num);
	EXPECT_EQ(2ULL, ev[2].occurrences);
	EXPECT_EQ(2U, ev[3].event.port_num);
	EXPECT_EQ(1ULL, ev[3].occurrences);
	EXPECT_EQ(storm - 1 + 2 + 1, iba_fdinfo(ch, "coalesced"));
	EXPECT_EQ(0, iba_fdinfo(ch, "lost"));
	EXPECT_LT(0, iba_fdinfo(ch, "capacity"));
	close(ch);
}

/*
 * A coalescing record stands for one subscription's events: once that
 * subscription ends, the same events matched by another take a record of
 * their own, with its cookie, rather than counting in the first one's.
 */
TEST_F(evc, coalescing_keeps_each_subscriptions_cookie)
{
	struct ib_async_chan_event ev[4];
	int ch, a, b;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_COALESCE);
	ASSERT_LE(0, ch);
	a = sub_port(self->fd, ch, 1, 0xa);
	ASSERT_LT(0, a);
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process 2"));
	ASSERT_EQ(0, unsubscribe(self->fd, ch, a));
	b = sub_port(self->fd, ch, 1, 0xb);
	ASSERT_LT(0, b);
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process 3"));
	ASSERT_EQ(2, drain(ch, ev, 4));
	EXPECT_TRUE(seq_ok(ev, 2, 1));
	EXPECT_EQ(0xaULL, ev[0].cookie);
	EXPECT_EQ(2ULL, ev[0].occurrences);
	EXPECT_EQ(0xbULL, ev[1].cookie);
	EXPECT_EQ(3ULL, ev[1].occurrences);
	EXPECT_EQ(3, iba_fdinfo(ch, "coalesced"));
	close(ch);
}

static void *raise_sm_change(void *arg)
{
	*(int *)arg = iba_evsrc_raise("SM_CHANGE port:1 process");
	return NULL;
}

/*
 * UNSUBSCRIBE returns once no event the subscription alone matched can
 * still be queued. An event whose delivery matched it is held (evsrc's
 * kprobe) between the match and the queueing while the subscription
 * ends: its record must be queued before the command returns, so below
 * the channel's next sequence number read right after the return.
 */
TEST_F_TIMEOUT(evc, unsubscribe_waits_for_a_delivery_that_matched_it, 60)
{
	struct ib_async_chan_event ev[4];
	struct ib_async_info info;
	int ch, id, raised = -1;
	pthread_t t;

	IBA_SKIPPED_IN_SETUP();
	if (access(IBA_EVSRC_DBG "/delay_chan_push_ms", W_OK))
		SKIP(return, "no kprobes in this kernel");
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	id = sub_port(self->fd, ch, 1, 0xd);
	ASSERT_LT(0, id);
	ASSERT_EQ(0, iba_write_file(IBA_EVSRC_DBG "/delay_chan_push_ms", "1000",
				    4, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, raise_sm_change, &raised));
	iba_sleep_ms(300);	/* the delivery is held in the probe */
	ASSERT_EQ(0, unsubscribe(self->fd, ch, id));
	ASSERT_EQ(0, iba_get_info(ch, &info));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, raised);
	ASSERT_EQ(1, drain(ch, ev, 4));
	EXPECT_EQ(0xdULL, ev[0].cookie);
	EXPECT_LT(ev[0].event.seq, info.next_seq)
		TH_LOG("queued after UNSUBSCRIBE returned");
	close(ch);
}

struct storm_reader {
	int ch;
	volatile int stop;
	uint64_t occurrences;
	uint64_t records;
	uint64_t next_seq;
	int bad;
};

static void *storm_read(void *arg)
{
	struct storm_reader *r = arg;
	struct ib_async_chan_event ev[32];
	struct pollfd p = { .fd = r->ch, .events = POLLIN };
	ssize_t n;
	int i;

	r->next_seq = 1;
	for (;;) {
		n = read(r->ch, ev, sizeof(ev));
		if (n <= 0) {
			if (r->stop)
				break;
			poll(&p, 1, 10);
			continue;
		}
		for (i = 0; i < n / CH_REC; i++) {
			if (ev[i].event.seq != r->next_seq ||
			    ev[i].event.event_type == IB_ASYNC_EV_OVERFLOW)
				r->bad++;
			r->next_seq = ev[i].event.seq + ev[i].event.count;
			r->occurrences += ev[i].occurrences;
			r->records++;
		}
	}
	return NULL;
}

/*
 * A reader taking records while the storm merges into them: a record
 * stops taking occurrences once read, so the sum over the records read is
 * the number raised, exactly, however the two interleave.
 */
TEST_F(evc, coalesced_counts_stay_exact_under_a_concurrent_reader)
{
	struct storm_reader r = {};
	const int chunk = 2000, chunks = 10;
	pthread_t t;

	IBA_SKIPPED_IN_SETUP();
	r.ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_COALESCE);
	ASSERT_LE(0, r.ch);
	ASSERT_LT(0, iba_subscribe(self->fd, r.ch, IB_ASYNC_SUB_OBJECT, 0, 0,
			       self->qp, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, storm_read, &r));
	for (int i = 0; i < chunks; i++)
		ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s %d", IB_ASYNC_EV_COMM_EST,
				      self->ev_qp, iba_evsrc_hard(), chunk));
	iba_sleep_ms(100);
	r.stop = 1;
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ((uint64_t)chunk * chunks, r.occurrences);
	EXPECT_LE(1ULL, r.records);
	EXPECT_EQ((long long)(chunk * chunks - r.records),
		  iba_fdinfo(r.ch, "coalesced"));
	close(r.ch);
}

/*
 * Subscriptions replaced while a hard-irq storm is delivered: nothing is
 * torn (every record carries a cookie the channel had, in sequence), and
 * a channel whose subscription never changes gets every event.
 */
TEST_F(evc, subscription_changes_race_a_storm)
{
	struct ib_async_chan_event ev[MAX_RECS];
	struct storm_reader r = {};
	int ch, n, id, churned = 0, overflows = 0;
	pthread_t t;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	r.ch = iba_event_channel(self->fd, 0);
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, r.ch);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, iba_set_queue_len(r.ch, 65536));
	ASSERT_LT(0, iba_subscribe(self->fd, r.ch, IB_ASYNC_SUB_OBJECT, 0, 0,
			       self->qp, 5));
	ASSERT_EQ(0, pthread_create(&t, NULL, storm_read, &r));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (int i = 0; i < 10; i++)
			if (iba_evsrc_raise("%u qp:%d %s 3000", IB_ASYNC_EV_COMM_EST,
				     self->ev_qp, iba_evsrc_hard()))
				_exit(1);
		_exit(0);
	}
	for (;;) {
		int status;

		id = iba_subscribe(self->fd, ch, IB_ASYNC_SUB_TYPES,
			       1ULL << IB_ASYNC_EV_COMM_EST, 0, 0,
			       0x50000000ULL + churned);
		ASSERT_LT(0, id);
		n = drain(ch, ev, MAX_RECS);
		for (int i = 0; i < n; i++) {
			/* between drains the storm may fill this queue */
			if (ev[i].event.event_type == IB_ASYNC_EV_OVERFLOW) {
				overflows++;
				continue;
			}
			ASSERT_EQ(5ULL, ev[i].cookie >> 28)
				TH_LOG("type %u seq %llu", ev[i].event.event_type,
				       (unsigned long long)ev[i].event.seq);
		}
		ASSERT_EQ(0, unsubscribe(self->fd, ch, id));
		churned++;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			ASSERT_TRUE(WIFEXITED(status));
			ASSERT_EQ(0, WEXITSTATUS(status));
			break;
		}
	}
	iba_sleep_ms(100);
	r.stop = 1;
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ(30000ULL, r.occurrences);
	EXPECT_EQ(30000ULL, r.records);
	EXPECT_EQ(0, iba_fdinfo(ch, "subscriptions"));
	EXPECT_LT(1, churned);
	while ((n = drain(ch, ev, MAX_RECS)) > 0)
		for (int i = 0; i < n; i++)
			overflows += ev[i].event.event_type ==
				     IB_ASYNC_EV_OVERFLOW;
	/* overflow records stand for losses the channel counted, no more */
	EXPECT_EQ(overflows > 0, iba_fdinfo(ch, "lost") > 0);
	close(ch);
	close(r.ch);
}

/*
 * Destroying an object while a storm is delivered to a channel subscribed
 * to it: no record of the object is left behind, whatever the timing.
 */
TEST_F(evc, destroy_races_delivery)
{
	struct ib_async_chan_event ev[MAX_RECS];
	struct ib_async_create_qp qp;
	int ch, n, evqp, left = 0;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, iba_set_queue_len(ch, 65536));
	for (int round = 0; round < 5; round++) {
		ASSERT_EQ(0, iba_create_qp(self->fd, 0x77, self->pd, self->cq,
				       IB_UVERBS_QPT_UD, &qp));
		evqp = iba_evsrc_find("qp", qp.qp_num);
		ASSERT_LE(0, evqp);
		ASSERT_LT(0, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_OBJECT, 0, 0,
				       qp.handle, round));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			/* fails once the QP is gone: that is the race */
			for (int i = 0; i < 50; i++)
				if (iba_evsrc_raise("%u qp:%d %s 500",
					     IB_ASYNC_EV_COMM_EST, evqp,
					     iba_evsrc_hard()))
					break;
			_exit(0);
		}
		iba_sleep_ms(5 * round);
		ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, qp.handle,
				     NULL));
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
		n = drain(ch, ev, MAX_RECS);
		for (int i = 0; i < n; i++)
			left += ev[i].event.obj_handle == qp.handle;
		EXPECT_EQ(0, iba_fdinfo(ch, "subscriptions"));
	}
	EXPECT_EQ(0, left);
	close(ch);
}

/*
 * DESTROY while a reader of a coalescing channel is stuck copying its
 * records to memory that stalls (userfaultfd): the destroy returns at
 * once and takes the QP's records, the one being copied included. Once
 * the fault is served the reader returns what is still queued, in order,
 * never the QP's; a QP event that came during the copy took a record of
 * its own (the copied one left the hash) and went with the QP too.
 */
TEST_F_TIMEOUT(evc, destroy_behind_a_reader_stuck_in_its_copy_returns, 60)
{
	struct ib_async_destroy d = {
		.argsz = sizeof(d), .obj_type = IB_ASYNC_OBJ_QP,
		.handle = self->qp,
	};
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_DESTROY, .arg = &d,
		.ret = 1,
	};
	struct iba_stalled_read rd = { .len = 8 * CH_REC };
	const struct ib_async_chan_event *ev;
	uint64_t took = 0;
	struct iba_stall st;
	pthread_t rth, dth;
	int ch, err, i, n;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_COALESCE);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, sub_all(self->fd, ch, 0x5e));
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d process", IB_ASYNC_EV_CQ_ERR,
				 self->ev_cq));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d process 3", IB_ASYNC_EV_QP_FATAL,
				 self->ev_qp));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process"));
	ASSERT_EQ(3, iba_fdinfo(ch, "queued"));

	rd.fd = ch;
	err = iba_stall_reader(&rd, &st, &rth);
	if (err > 0)
		SKIP(return, "no userfaultfd");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d process", IB_ASYNC_EV_QP_FATAL,
				 self->ev_qp));
	ASSERT_EQ(4, iba_fdinfo(ch, "queued"));
	err = iba_cmd_within(&c, &dth, 1000, &took);
	EXPECT_EQ(0, err) TH_LOG("DESTROY still waiting after %llu ms",
				 (unsigned long long)took);

	ASSERT_EQ(0, iba_stall_release(&st, rth, dth));
	EXPECT_EQ(0, c.ret);
	/* nothing of the QP was read from the context's own queue */
	EXPECT_EQ(0ULL, d.events_reported);

	ASSERT_LT(0, rd.ret) TH_LOG("read: %s", strerror(rd.err));
	n = rd.ret / CH_REC;
	ASSERT_EQ(2, n);
	ev = st.area;
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev[0].event.event_type);
	EXPECT_EQ(self->cq, ev[0].event.obj_handle);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE, ev[1].event.event_type);
	EXPECT_LT(ev[0].event.seq, ev[1].event.seq);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0x5eULL, ev[i].cookie);
		EXPECT_EQ(1ULL, ev[i].occurrences);
	}
	EXPECT_EQ(0, iba_fdinfo(ch, "queued"));
	EXPECT_EQ(n, iba_fdinfo(ch, "delivered"));
	EXPECT_EQ(2, iba_fdinfo(ch, "coalesced"));
	iba_stall_free(&st);
	close(ch);
}

/*
 * A create whose answer cannot be copied out destroys what it made: the
 * caller never learns the handle. A record of the new object that a
 * channel queued meanwhile carries a user_handle the caller frees on the
 * failure (the shim does), so it goes with the object, as at DESTROY. The
 * copy-out is held on a write-protected page while the test raises the
 * event, then made to fail.
 */
TEST_F_TIMEOUT(evc, a_create_whose_answer_is_lost_leaves_no_record, 60)
{
	struct ib_async_create_cq cq = {
		.argsz = sizeof(cq), .user_handle = 0x105, .cqe = 4,
	};
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_CREATE_CQ, .ret = 1,
	};
	struct ib_async_info info;
	struct iba_stall st;
	pthread_t th;
	int ch, id, err;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, sub_all(self->fd, ch, 0xc0c));
	err = iba_stall_answer(&c, &st, &cq, sizeof(cq), &th);
	if (err > 0)
		SKIP(return, "no write-protecting userfaultfd");
	ASSERT_EQ(0, err);

	/* made, its answer not out yet: an event of it is queued */
	id = iba_evsrc_find("cq", 0);
	ASSERT_LT(self->ev_cq, id);
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d", IB_ASYNC_EV_CQ_ERR, id));
	EXPECT_EQ(1, iba_fdinfo(ch, "queued"));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(1U, info.queued);

	ASSERT_EQ(0, iba_stall_fail(&st));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EFAULT, c.ret);
	/* the CQ is gone, and neither queue holds its record */
	EXPECT_EQ(self->ev_cq, iba_evsrc_find("cq", 0));
	EXPECT_EQ(0, iba_fdinfo(ch, "queued")) TH_LOG("the record stayed");
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(0U, info.queued);
	close(ch);
	iba_stall_free(&st);
}

/*
 * A SUBSCRIBE whose answer cannot be copied out ends the subscription
 * again: the caller never learnt its id, so could never end it, and its
 * cookie must not come back from a call that failed. Ids are still never
 * reused.
 */
TEST_F_TIMEOUT(evc, a_subscription_whose_id_is_lost_is_ended, 60)
{
	struct ib_async_subscribe sub = {
		.argsz = sizeof(sub), .flags = IB_ASYNC_SUB_PORT, .port = 2,
		.cookie = 0x1057,
	};
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_SUBSCRIBE, .ret = 1,
	};
	struct iba_stall st;
	pthread_t th;
	int ch, err;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	sub.fd = ch;
	err = iba_stall_answer(&c, &st, &sub, sizeof(sub), &th);
	if (err > 0)
		SKIP(return, "no write-protecting userfaultfd");
	ASSERT_EQ(0, err);
	EXPECT_EQ(1, iba_fdinfo(ch, "subscriptions"));

	ASSERT_EQ(0, iba_stall_fail(&st));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EFAULT, c.ret);
	EXPECT_EQ(0, iba_fdinfo(ch, "subscriptions"));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2"));
	EXPECT_EQ(0, iba_fdinfo(ch, "queued")) TH_LOG("the cookie came back");
	EXPECT_EQ(2, sub_port(self->fd, ch, 2, 1));
	close(ch);
	iba_stall_free(&st);
}

/*
 * A full channel loses exactly: one overflow record (no cookie, no
 * occurrences) counts what it had no room for, and the sequence runs on.
 */
TEST_F(evc, a_full_channel_counts_its_losses)
{
	struct ib_async_chan_event ev[16];
	struct ib_async_info info = { .argsz = sizeof(info) };
	int ch, n;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, ioctl(ch, IB_ASYNC_IOC_GET_INFO, &info));
	EXPECT_EQ((uint32_t)CH_REC, info.record_size);
	ASSERT_EQ(0, iba_set_queue_len(ch, 4));
	ASSERT_LT(0, sub_all(self->fd, ch, 9));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 10", IB_ASYNC_EV_COMM_EST,
			      self->ev_qp, iba_evsrc_hard()));
	EXPECT_EQ(5 * CH_REC, iba_fionread(ch));
	n = drain(ch, ev, 16);
	ASSERT_EQ(5, n);
	EXPECT_TRUE(seq_ok(ev, n, 1));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, ev[4].event.event_type);
	EXPECT_EQ(6ULL, ev[4].event.count);
	EXPECT_EQ(0ULL, ev[4].cookie);
	EXPECT_EQ(0ULL, ev[4].occurrences);
	EXPECT_EQ(9ULL, ev[3].cookie);
	EXPECT_EQ(6, iba_fdinfo(ch, "lost"));
	close(ch);
}

/*
 * A peeked record is the reader's: later events of its key take a new
 * record, and a resize keeps what coalesces with what.
 */
TEST_F(evc, peek_and_resize_keep_coalesced_counts_exact)
{
	struct ib_async_chan_event ev[8];
	struct ib_async_read_batch rb = {
		.argsz = sizeof(rb), .flags = IB_ASYNC_READ_PEEK,
		.buf = (uintptr_t)ev, .count = 8,
	};
	int ch;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_COALESCE);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, sub_all(self->fd, ch, 4));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process 3"));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2 process 2"));
	ASSERT_EQ(0, ioctl(ch, IB_ASYNC_IOC_READ_BATCH, &rb));
	ASSERT_EQ(2U, rb.count);
	EXPECT_EQ(3ULL, ev[0].occurrences);
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process 4"));
	ASSERT_EQ(0, iba_set_queue_len(ch, 100));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process 1"));
	ASSERT_EQ(0, iba_set_queue_len(ch, 3));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 process 2"));
	ASSERT_EQ(3, drain(ch, ev, 8));
	EXPECT_TRUE(seq_ok(ev, 3, 1));
	EXPECT_EQ(1U, ev[0].event.port_num);
	EXPECT_EQ(3ULL, ev[0].occurrences);
	EXPECT_EQ(2U, ev[1].event.port_num);
	EXPECT_EQ(2ULL, ev[1].occurrences);
	EXPECT_EQ(1U, ev[2].event.port_num);
	EXPECT_EQ(7ULL, ev[2].occurrences);
	close(ch);
}

/* What a subscription request may name, and what it is refused with. */
TEST_F(evc, bad_requests_are_refused)
{
	struct ib_async_create_channel cc = {
		.argsz = sizeof(cc), .type = IB_ASYNC_CHANNEL_COMP,
		.flags = IB_ASYNC_CHANNEL_COALESCE,
	};
	struct ib_async_subscribe s = { .argsz = sizeof(s) };
	int ch, other, och, i;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL, &cc));
	cc.type = 3;
	cc.flags = 0;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL, &cc));
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, 1 << 3, 0, 0, 0, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_TYPES, 0, 0,
				     0, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_TYPES,
				     1ULL << 21, 0, 0, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, 0, 1, 0, 0, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_PORT, 0, 3,
				     0, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, 0, 0, 1, 0, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_OBJECT, 0, 0,
				     self->pd, 0));
	EXPECT_EQ(-ENOENT, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_OBJECT, 0, 0,
				     0x7fffffff, 0));
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch, 0, 0, 0, self->qp, 0));
	s.fd = ch;
	s.sub_id = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_SUBSCRIBE, &s));
	EXPECT_EQ(-EBADF, sub_all(self->fd, 1000000, 0));
	EXPECT_EQ(-EINVAL, sub_all(self->fd, self->fd, 0));
	EXPECT_EQ(-EINVAL, unsubscribe(self->fd, ch, 0));
	/* a completion channel takes no subscription */
	cc.type = IB_ASYNC_CHANNEL_COMP;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL, &cc));
	EXPECT_EQ(-EINVAL, sub_all(self->fd, cc.fd, 0));
	close(cc.fd);
	/* nor another context's channel, nor a channel's own fd */
	other = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, other);
	och = iba_event_channel(other, 0);
	ASSERT_LE(0, och);
	EXPECT_EQ(-EINVAL, sub_all(self->fd, och, 0));
	EXPECT_EQ(-ENOTTY, sub_all(ch, ch, 0));
	/* an object of another context is not there */
	EXPECT_EQ(-ENOENT, iba_subscribe(other, och, IB_ASYNC_SUB_OBJECT, 0, 0,
				     self->qp, 0));
	close(och);
	close(other);
	for (i = 0; i < IB_ASYNC_MAX_SUBSCRIPTIONS; i++)
		ASSERT_LT(0, sub_port(self->fd, ch, 1, i));
	EXPECT_EQ(-ENOSPC, sub_port(self->fd, ch, 1, i));
	close(ch);
}

/* Closing the context ends its channels: what is queued, then EIO. */
TEST_F(evc, closing_the_context_ends_the_channel)
{
	struct ib_async_chan_event ev[4];
	struct pollfd p;
	int fd, ch;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ch = iba_event_channel(fd, 0);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, sub_port(fd, ch, 2, 1));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2"));
	close(fd);
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:2"));
	EXPECT_EQ(CH_REC, read(ch, ev, sizeof(ev)));
	EXPECT_EQ(-1, read(ch, ev, sizeof(ev)));
	EXPECT_EQ(EIO, errno);
	p = (struct pollfd){ .fd = ch, .events = POLLIN };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_NE(0, p.revents & POLLHUP);
	close(ch);
}

static void *chan_reader(void *arg)
{
	struct iba_reader *r = arg;
	struct ib_async_chan_event ev;

	r->ret = read(r->fd, &ev, sizeof(ev));
	r->err = errno;
	if (r->ret == CH_REC)
		r->err = (int)ev.event.event_type;
	return NULL;
}

/*
 * Hot-unplug ends a channel as it ends the node's stream: a reader
 * blocked on a channel subscribed to something else entirely wakes with
 * the DEVICE_FATAL record (cookie 0), then reads fail with ENODEV, and
 * removal does not wait for it.
 */
TEST_F_TIMEOUT(evc, unplug_ends_the_channel_with_device_fatal, 60)
{
	struct ib_async_create_channel ca = {
		.argsz = sizeof(ca), .type = IB_ASYNC_CHANNEL_EVENT,
	};
	struct iba_reader r = { .ret = 1 };
	struct ib_async_chan_event ev;
	struct iba_dev dev;
	pthread_t t;
	uint64_t t0;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_evsrc_add_dev("evsrc9", &dev));
	fd = open(dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_CREATE_CHANNEL, &ca));
	ASSERT_LT(0, iba_subscribe(fd, ca.fd, IB_ASYNC_SUB_TYPES,
			       1ULL << IB_ASYNC_EV_GID_CHANGE, 0, 0, 3));
	r.fd = ca.fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, chan_reader, &r));
	iba_sleep_ms(200);

	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_write_file(IBA_EVSRC_DBG "/evsrc9/unregister", "1", 1,
				    0));
	EXPECT_GT(5000ULL, iba_now_ms() - t0);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(CH_REC, r.ret);
	EXPECT_EQ(IB_ASYNC_EV_DEVICE_FATAL, r.err);
	EXPECT_EQ(-1, read(ca.fd, &ev, sizeof(ev)));
	EXPECT_EQ(ENODEV, errno);
	close(ca.fd);
	close(fd);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * Completion events under pressure, on CQs ib_async made on the test-only
 * evsrc device: evsrc calls each CQ's completion handler (ib_async's own)
 * as a driver does, from process, softirq or hard-irq context, as many
 * times as asked ("COMP cq:ID <context> <count>" on its raise file).
 *
 * What must hold, checked against what the kernel answers (records read
 * back, GET_INFO on the channel, its fdinfo, DESTROY's
 * comp_events_reported):
 *  - one IB_ASYNC_EV_COMP record per CQ while it is unread, whatever the
 *    context and however many completions, element the CQ's user_handle;
 *  - a storm on M CQs with nobody reading queues at most M records; every
 *    other call is counted in ib_async-coalesced, none is lost;
 *  - with the channel's queue_len lowered below its CQ count, the loss is
 *    counted exactly and reported by one IB_ASYNC_EV_OVERFLOW record;
 *  - a CQ destroyed while another thread storms it from hard irq leaves no
 *    record behind, and its count of records read is exact.
 */
#include <pthread.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"

#define COOKIE(i)	(0xc0c0000000000000ULL + (i))
#define MAX_CQS		32

/* A CQ on @chan; its evsrc id in *@ev_id. 0 or -errno. */
static int create_cq_on(int fd, int chan, uint64_t cookie, uint32_t *handle,
			int *ev_id)
{
	struct ib_async_create_cq a = {
		.argsz = sizeof(a), .flags = IB_ASYNC_CREATE_CQ_CHANNEL,
		.user_handle = cookie, .cqe = 4, .comp_channel = chan,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_CQ, &a);

	*handle = a.handle;
	*ev_id = iba_evsrc_find("cq", 0);
	return ret;
}

static int destroy_cq(int fd, uint32_t cq, uint64_t *comp_reported)
{
	struct ib_async_destroy a = {
		.argsz = sizeof(a), .obj_type = IB_ASYNC_OBJ_CQ, .handle = cq,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_DESTROY, &a);

	*comp_reported = a.comp_events_reported;
	return ret;
}

/* @count calls of evsrc CQ @id's completion handler from @ctx. */
static int fire(int id, const char *ctx, unsigned int count)
{
	return iba_evsrc_write("raise", "COMP cq:%d %s %u", id, ctx, count);
}

static int chan_queued(int chan)
{
	struct ib_async_info info;

	return iba_get_info(chan, &info) ? -1 : (int)info.queued;
}

FIXTURE(storm) {
	struct iba_dev dev;
	int fd, ch, ncq;
	uint32_t cq[MAX_CQS];
	int ev[MAX_CQS];
};

FIXTURE_SETUP(storm)
{
	self->ch = -1;
	self->ncq = 0;
	IBA_EVSRC_FIXTURE_OPEN(self, IB_ASYNC_FEATURE_COMP_CHANNEL,
			       "no completion channels on evsrc0");
	self->ch = iba_channel(self->fd, IB_ASYNC_CHANNEL_COMP,
			       IB_ASYNC_CHANNEL_NONBLOCK);
	ASSERT_LE(0, self->ch);
}

FIXTURE_TEARDOWN(storm)
{
	if (self->ch >= 0)
		close(self->ch);
	if (self->fd >= 0)
		close(self->fd);
}

/* @n CQs on the fixture's channel, CQ i with user_handle COOKIE(i). */
static int make_cqs(FIXTURE_DATA(storm) *self, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = create_cq_on(self->fd, self->ch, COOKIE(i), &self->cq[i],
				   &self->ev[i]);
		if (ret || self->ev[i] < 0)
			return ret ? ret : -ENOENT;
		self->ncq++;
	}
	return 0;
}

/* Index of the CQ a record names, checking handle against user_handle. */
static int cq_of(FIXTURE_DATA(storm) *self, const struct ib_async_event *ev)
{
	int i;

	for (i = 0; i < self->ncq; i++)
		if (ev->element == COOKIE(i))
			return ev->obj_handle == self->cq[i] ? i : -1;
	return -1;
}

TEST_F(storm, one_record_per_unread_cq_from_every_context)
{
	const int m = 4, calls = 3;
	struct ib_async_event ev[8];
	long long coalesced = 0;
	unsigned int c;
	int i, seen;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, make_cqs(self, m));
	for (c = 0; c < iba_evsrc_ncontexts(); c++) {
		for (i = 0; i < m; i++)
			ASSERT_EQ(0, fire(self->ev[i], iba_evsrc_contexts[c], calls))
				TH_LOG("COMP on cq %d from %s", i, iba_evsrc_contexts[c]);
		/* the raise returns once the handler ran: no waiting */
		EXPECT_EQ(m, chan_queued(self->ch)) TH_LOG("%s", iba_evsrc_contexts[c]);
		coalesced += m * (calls - 1);
		EXPECT_EQ(coalesced, iba_fdinfo(self->ch, "coalesced"));
		EXPECT_EQ(0, iba_fdinfo(self->ch, "lost"));

		ASSERT_EQ((ssize_t)(m * sizeof(ev[0])),
			  read(self->ch, ev, sizeof(ev)));
		seen = 0;
		for (i = 0; i < m; i++) {
			int k = cq_of(self, &ev[i]);

			EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMP, ev[i].event_type);
			EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_CQ, ev[i].obj_type);
			EXPECT_EQ(1ULL, ev[i].count);
			/* fired in order: queued in order */
			EXPECT_EQ(i, k) TH_LOG("%s: record %d element %#llx",
					       iba_evsrc_contexts[c], i,
					       (unsigned long long)ev[i].element);
			if (k >= 0)
				seen |= 1 << k;
		}
		EXPECT_EQ((1 << m) - 1, seen);
		EXPECT_EQ(-1, iba_seq_continuous(ev, m));
		EXPECT_EQ(0, chan_queued(self->ch));
	}
}

struct stormer {
	const int *ev;
	int ncq, rounds;
	unsigned int per_round;
	const char *ctx;
	volatile int done;
	int ret;
};

/* Every CQ per_round times, round after round, interleaving the CQs. */
static void *storm_thread(void *arg)
{
	struct stormer *s = arg;
	int r, i;

	s->ret = 0;
	for (r = 0; r < s->rounds && !s->ret; r++)
		for (i = 0; i < s->ncq && !s->ret; i++)
			s->ret = fire(s->ev[i], s->ctx, s->per_round);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * K completion calls on each of M CQs while nobody reads: the channel
 * never holds more than M records (sampled throughout the storm), the
 * other K*M - M calls are merged, nothing is lost, and once read, a CQ
 * queues again.
 */
TEST_F_TIMEOUT(storm, stalled_reader_storm_is_bounded_and_counted, 400)
{
	const int m = 16, rounds = 5;
	const unsigned int per_round = 100;
	const long long k = (long long)rounds * per_round;
	struct stormer s = {
		.ev = self->ev, .ncq = m, .rounds = rounds,
		.per_round = per_round, .ctx = iba_evsrc_hard(),
	};
	struct ib_async_event ev[MAX_CQS];
	struct ib_async_info info;
	int i, q, max_q = 0, samples = 0, seen = 0;
	uint64_t reported;
	pthread_t thr;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, make_cqs(self, m));
	ASSERT_EQ(0, iba_get_info(self->ch, &info));
	ASSERT_LT((uint32_t)m, info.queue_len);

	ASSERT_EQ(0, pthread_create(&thr, NULL, storm_thread, &s));
	while (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE)) {
		q = chan_queued(self->ch);
		ASSERT_LE(0, q);
		if (q > max_q)
			max_q = q;
		samples++;
		usleep(200);
	}
	pthread_join(thr, NULL);
	ASSERT_EQ(0, s.ret) TH_LOG("raise: %s", strerror(-s.ret));
	TH_LOG("%d samples of queued during the storm, at most %d", samples,
	       max_q);
	EXPECT_GE(m, max_q);

	EXPECT_EQ(m, chan_queued(self->ch));
	EXPECT_EQ(k * m - m, iba_fdinfo(self->ch, "coalesced"));
	EXPECT_EQ(0, iba_fdinfo(self->ch, "lost"));
	EXPECT_EQ(m, iba_fdinfo(self->ch, "queued"));
	ASSERT_EQ(0, iba_get_info(self->ch, &info));
	EXPECT_EQ(0ULL, info.lost);
	/* every call took a sequence number only if it was queued */
	EXPECT_EQ((uint64_t)m + 1, info.next_seq);

	ASSERT_EQ((ssize_t)(m * sizeof(ev[0])),
		  read(self->ch, ev, sizeof(ev)));
	for (i = 0; i < m; i++) {
		int c = cq_of(self, &ev[i]);

		EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMP, ev[i].event_type);
		ASSERT_LE(0, c) TH_LOG("record %d names no CQ of ours", i);
		EXPECT_EQ(0, seen & (1 << c)) TH_LOG("two records of cq %d", c);
		seen |= 1 << c;
	}
	EXPECT_EQ(0, chan_queued(self->ch));

	/* read: the next call queues again, and only it */
	ASSERT_EQ(0, fire(self->ev[3], iba_evsrc_hard(), 1));
	EXPECT_EQ(1, chan_queued(self->ch));
	EXPECT_EQ(k * m - m, iba_fdinfo(self->ch, "coalesced"));
	ASSERT_EQ((ssize_t)sizeof(ev[0]), read(self->ch, ev, sizeof(ev)));
	EXPECT_EQ(COOKIE(3), ev[0].element);

	for (i = 0; i < m; i++) {
		ASSERT_EQ(0, destroy_cq(self->fd, self->cq[i], &reported));
		EXPECT_EQ(i == 3 ? 2ULL : 1ULL, reported) TH_LOG("cq %d", i);
	}
	self->ncq = 0;
}

/*
 * queue_len lowered below the channel's CQ count (allowed: CREATE_CQ
 * refuses only the CQ that does not fit at its creation): firing every
 * CQ queues queue_len records and one overflow record whose count is the
 * exact loss, which fdinfo and GET_INFO report too.
 */
TEST_F(storm, loss_is_counted_when_queue_len_is_below_the_cq_count)
{
	const int m = 8, len = 3, lost = m - len;
	struct ib_async_event ev[MAX_CQS];
	struct ib_async_info info;
	int i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, make_cqs(self, m));
	ASSERT_EQ(0, iba_set_queue_len(self->ch, len));
	ASSERT_EQ(len, iba_fdinfo(self->ch, "capacity"));
	EXPECT_EQ(m, iba_fdinfo(self->ch, "cqs"));

	for (i = 0; i < m; i++)
		ASSERT_EQ(0, fire(self->ev[i], iba_evsrc_hard(), 1));
	/* queue_len records and the overflow record */
	EXPECT_EQ(len + 1, chan_queued(self->ch));
	EXPECT_EQ(lost, iba_fdinfo(self->ch, "lost"));
	EXPECT_EQ(0, iba_fdinfo(self->ch, "coalesced"));
	ASSERT_EQ(0, iba_get_info(self->ch, &info));
	EXPECT_EQ((uint64_t)lost, info.lost);
	EXPECT_EQ((uint64_t)m + 1, info.next_seq);

	/* a queued CQ merges; a lost one is lost again */
	ASSERT_EQ(0, fire(self->ev[0], iba_evsrc_hard(), 1));
	ASSERT_EQ(0, fire(self->ev[m - 1], iba_evsrc_hard(), 1));
	EXPECT_EQ(1, iba_fdinfo(self->ch, "coalesced"));
	EXPECT_EQ(lost + 1, iba_fdinfo(self->ch, "lost"));
	EXPECT_EQ(len + 1, chan_queued(self->ch));

	ASSERT_EQ((ssize_t)((len + 1) * sizeof(ev[0])),
		  read(self->ch, ev, sizeof(ev)));
	for (i = 0; i < len; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMP, ev[i].event_type);
		EXPECT_EQ(COOKIE(i), ev[i].element);
		EXPECT_EQ(self->cq[i], ev[i].obj_handle);
	}
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, ev[len].event_type);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_NONE, ev[len].obj_type);
	EXPECT_EQ((uint64_t)lost + 1, ev[len].count);
	EXPECT_EQ(-1, iba_seq_continuous(ev, len + 1));
	EXPECT_EQ(0, chan_queued(self->ch));

	/* room again: a lost CQ's next call is queued */
	ASSERT_EQ(0, fire(self->ev[m - 1], iba_evsrc_hard(), 1));
	ASSERT_EQ((ssize_t)sizeof(ev[0]), read(self->ch, ev, sizeof(ev)));
	EXPECT_EQ(COOKIE(m - 1), ev[0].element);
	EXPECT_EQ(lost + 1, iba_fdinfo(self->ch, "lost"));
}

struct raiser {
	int id;
	const char *ctx;
	int ret;
};

static void *raise_thread(void *arg)
{
	struct raiser *r = arg;

	r->ret = fire(r->id, r->ctx, 1000000);
	return NULL;
}

/*
 * Another thread storms CQ 0 from hard irq while this one reads the
 * channel and then destroys CQ 0 in the middle of the storm. The storm
 * stops with ENOENT (evsrc: the object went away), DESTROY's
 * comp_events_reported equals the records of CQ 0 read before it, none is
 * read after it, and CQ 1 on the same channel still works. The guest's
 * runner fails the run on any WARNING, BUG, KASAN or lockdep report.
 */
TEST_F_TIMEOUT(storm, destroy_during_hardirq_storm_purges_its_records, 300)
{
	static struct ib_async_event ev[64];
	struct raiser r = { .ret = 1 };
	uint64_t cq0_read = 0, reported = ~0ULL, t0;
	long long before, after;
	int i, n, late = 0;
	pthread_t thr;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, make_cqs(self, 2));
	r.id = self->ev[0];
	r.ctx = iba_evsrc_hard();
	ASSERT_EQ(0, pthread_create(&thr, NULL, raise_thread, &r));

	/* read while it storms, so records come and go under the destroy */
	t0 = iba_now_ms();
	while (cq0_read < 50 && iba_now_ms() - t0 < 120000) {
		n = read(self->ch, ev, sizeof(ev));
		if (n < 0) {
			ASSERT_EQ(EAGAIN, errno);
			usleep(500);
			continue;
		}
		for (i = 0; i < n / (int)sizeof(ev[0]); i++) {
			ASSERT_EQ(0, cq_of(self, &ev[i]));
			cq0_read++;
		}
	}
	/* one read() may take several of its records, one after the other */
	ASSERT_LE(50ULL, cq0_read) TH_LOG("the storm never got going");
	/* leave a record of CQ 0 queued, for the purge to find */
	for (t0 = iba_now_ms(); !chan_queued(self->ch) &&
	     iba_now_ms() - t0 < 10000;)
		usleep(200);
	EXPECT_LT(0, iba_fdinfo(self->ch, "coalesced"));

	ASSERT_EQ(0, destroy_cq(self->fd, self->cq[0], &reported));
	EXPECT_EQ(cq0_read, reported);
	EXPECT_EQ(0, chan_queued(self->ch)) TH_LOG("a record outlived its CQ");
	before = iba_fdinfo(self->ch, "coalesced");
	pthread_join(thr, NULL);
	EXPECT_EQ(-ENOENT, r.ret);

	/* nothing more comes for it */
	usleep(200000);
	after = iba_fdinfo(self->ch, "coalesced");
	EXPECT_EQ(before, after);
	while ((n = read(self->ch, ev, sizeof(ev))) > 0)
		late += n / (int)sizeof(ev[0]);
	EXPECT_EQ(0, late);
	EXPECT_EQ(1, iba_fdinfo(self->ch, "cqs"));
	EXPECT_EQ(0, iba_fdinfo(self->ch, "lost"));

	/* the channel still serves CQ 1 */
	ASSERT_EQ(0, fire(self->ev[1], iba_evsrc_hard(), 1));
	ASSERT_EQ((ssize_t)sizeof(ev[0]), read(self->ch, ev, sizeof(ev)));
	EXPECT_EQ(COOKIE(1), ev[0].element);
	EXPECT_EQ(self->cq[1], ev[0].obj_handle);
}

TEST_HARNESS_MAIN

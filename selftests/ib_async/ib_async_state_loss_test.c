// SPDX-License-Identifier: GPL-2.0
/*
 * Losses around snapshots on a state channel (issue #43): a queue of
 * length cap holds at most cap events, events and overflow records
 * together at most cap + 1, state records (one snapshot: the device and
 * every port) have room of their own and the end record its own slot. A
 * loss that finds a snapshot's state record at the tail of a full queue
 * is kept aside, counted in GET_INFO's lost at once, and becomes an
 * overflow record at that point of the stream as soon as a record is
 * read; later losses merge into it. While it waits, a snapshot
 * (IB_ASYNC_SUB_STATE) is refused with EBUSY and a resync waits.
 *
 * The issue's recipe first, on rxe's one port (losses from a one-entry
 * CQ's overrun, CQ_ERR) and on the evsrc test device's two ports, then
 * variations on evsrc: queue lengths 1 to 3, losses before and after a
 * whole snapshot, reads between the losses, a resync channel losing
 * bursts over and over. Each is checked on what the kernel hands back:
 * every record read, once, with sequence numbers that run on without a
 * gap; the overflow records' counts add up to GET_INFO's lost and, with
 * the events read, to the events raised; GET_INFO never shows more
 * queued than the queue may hold; a refused snapshot is refused with
 * EBUSY; and where the recipe says which records come, exactly those.
 */
#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"

#define MAX_RECS	512
#define COOKIE		0x43ULL
#define QKEY		0x11111111

typedef struct ib_async_chan_state_event srec_t;

/* What raises one event every channel of the node is offered. */
struct source {
	int fd;			/* the node */
	uint32_t nports;
	uint32_t type;		/* the event's type */
	int (*raise)(struct source *src, int count);
	uint32_t pd;		/* rxe: where the overrun CQs go */
	int ev_qp;		/* evsrc: the QP whose events are raised */
};

/* A state channel under test and everything read from it. */
struct chan {
	int fd;
	uint32_t cap;
	uint32_t nports;
	bool resync;
	uint64_t sub_cookie;	/* the next snapshot subscription's cookie */
	int raised;		/* events the source raised for it */
	int granted;		/* state records of the snapshots it got */
	uint64_t lost;		/* GET_INFO's lost when last asked */
	struct iba_stream st;
	int n;
	srec_t r[MAX_RECS];
};

/* The most records the queue may hold, the end record's slot included. */
static uint32_t most_queued(const struct chan *c)
{
	return c->cap + 1 + (c->nports + 1) + 1;
}

/* GET_INFO of the channel, checked against what it may ever say. */
static void chan_info(struct __test_metadata *_metadata, struct chan *c,
		      struct ib_async_info *info)
{
	ASSERT_EQ(0, iba_get_info(c->fd, info));
	EXPECT_EQ((uint32_t)sizeof(srec_t), info->record_size);
	EXPECT_EQ(c->cap, info->queue_len);
	EXPECT_GE(most_queued(c), info->queued)
		TH_LOG("%u queued in a queue of %u", info->queued, c->cap);
	EXPECT_LE(c->lost, info->lost) TH_LOG("lost went down");
	c->lost = info->lost;
}

static struct chan *chan_open(struct __test_metadata *_metadata,
			      struct source *src, uint32_t cap, bool resync)
{
	struct chan *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cap = cap;
	c->nports = src->nports;
	c->resync = resync;
	c->sub_cookie = COOKIE + 1;
	iba_stream_init(&c->st, 1);
	c->fd = iba_event_channel(src->fd, IB_ASYNC_CHANNEL_STATE |
			      (resync ? IB_ASYNC_CHANNEL_RESYNC : 0));
	if (c->fd < 0) {
		TH_LOG("event channel: %s", strerror(-c->fd));
		free(c);
		return NULL;
	}
	EXPECT_EQ(0, iba_set_queue_len(c->fd, cap));
	EXPECT_LT(0, iba_subscribe(src->fd, c->fd, 0, 0, 0, 0, COOKIE));
	return c;
}

static void chan_close(struct chan *c)
{
	if (c) {
		close(c->fd);
		free(c);
	}
}

/*
 * @count events, and wait until the channel was offered them. Each takes
 * a sequence number, queued or lost; a resync channel's snapshots take
 * some too, whenever its work runs.
 */
static void chan_events(struct __test_metadata *_metadata,
			struct source *src, struct chan *c, int count)
{
	struct ib_async_info info;
	long long before = iba_offered(c->fd);

	ASSERT_LE(0, before);
	ASSERT_EQ(0, src->raise(src, count));
	c->raised += count;
	ASSERT_EQ(0, iba_wait_offered(c->fd, before + count,
				      IBA_EVENT_TIMEOUT_MS))
		TH_LOG("the channel was offered %lld of %d events",
		       iba_offered(c->fd) - before, count);
	chan_info(_metadata, c, &info);
	if (!c->resync)
		EXPECT_EQ((uint64_t)(c->raised + c->granted) + 1,
			  info.next_seq);
}

/*
 * A snapshot of @port (or, with @all, of the device and every port):
 * the subscription's id, or -EBUSY; any other answer fails the test.
 */
static int chan_snapshot(struct __test_metadata *_metadata,
			 struct source *src, struct chan *c, bool all,
			 uint32_t port)
{
	struct ib_async_info info;
	int ret;

	ret = iba_subscribe(src->fd, c->fd, IB_ASYNC_SUB_STATE |
			(all ? 0 : IB_ASYNC_SUB_PORT), 0, all ? 0 : port, 0,
			c->sub_cookie++);
	EXPECT_TRUE(ret > 0 || ret == -EBUSY)
		TH_LOG("a snapshot refused with %s, not EBUSY", strerror(-ret));
	if (ret > 0)
		c->granted += all ? (int)c->nports + 1 : 1;
	chan_info(_metadata, c, &info);
	return ret;
}

/* One read() of up to @max records: how many came. */
static int chan_read(struct __test_metadata *_metadata, struct chan *c,
		     int max)
{
	ssize_t got;
	int n;

	if (max > MAX_RECS - c->n)
		max = MAX_RECS - c->n;
	got = read(c->fd, &c->r[c->n], (size_t)max * sizeof(srec_t));
	if (got < 0) {
		EXPECT_EQ(EAGAIN, errno);
		return 0;
	}
	EXPECT_EQ(0, got % (ssize_t)sizeof(srec_t));
	n = (int)(got / (ssize_t)sizeof(srec_t));
	EXPECT_EQ(0, iba_stream_add(&c->st, &c->r[c->n], sizeof(srec_t), n))
		TH_LOG("record %d: %s", c->st.bad, c->st.why);
	c->n += n;
	return n;
}

/*
 * Each state record read is part of a whole snapshot: the device's
 * record, then every port in order, or one port's record alone; the last
 * record of each has IB_ASYNC_STATE_LAST, a resync's all have
 * IB_ASYNC_STATE_RESYNC, and a resync's snapshot follows an overflow
 * record that no resync followed yet (a snapshot a subscription asked
 * for answers no loss). Returns whether an overflow record is still
 * waiting for its resync at the end.
 */
static bool check_snapshots(struct __test_metadata *_metadata,
			    const struct chan *c)
{
	bool pending = false;
	int i = 0;

	while (i < c->n) {
		const srec_t *r = &c->r[i];
		uint32_t flags, first, last, p;

		if (r->rec.event.event_type == IB_ASYNC_EV_OVERFLOW)
			pending = true;
		if (r->rec.event.event_type != IB_ASYNC_EV_STATE) {
			i++;
			continue;
		}
		flags = r->state.flags & IB_ASYNC_STATE_RESYNC;
		first = r->rec.event.port_num;
		last = first ? first : c->nports;
		if (flags) {
			EXPECT_TRUE(pending)
				TH_LOG("record %d: a resync after no loss", i);
			EXPECT_EQ(0U, first);
			pending = false;
		}
		for (p = first; p <= last; p++, i++) {
			ASSERT_LT(i, c->n) TH_LOG("a snapshot cut short");
			r = &c->r[i];
			EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE,
				  r->rec.event.event_type)
				TH_LOG("record %d: no state of port %u", i, p);
			EXPECT_EQ(p, r->rec.event.port_num);
			EXPECT_EQ(flags | (p == last ? IB_ASYNC_STATE_LAST : 0),
				  r->state.flags & ~IB_ASYNC_STATE_QUERY_FAILED)
				TH_LOG("record %d (port %u): flags %#x", i, p,
				       r->state.flags);
		}
	}
	return pending;
}

/*
 * Read until the channel is empty (a resync channel: until nothing more
 * came for a while, its snapshots being made by a work item), then check
 * the whole stream against what was done to the channel.
 */
static void chan_drain(struct __test_metadata *_metadata, struct chan *c)
{
	struct ib_async_info info;
	srec_t extra;
	int quiet = 0;

	while (c->n < MAX_RECS) {
		if (chan_read(_metadata, c, 3)) {
			quiet = 0;
			continue;
		}
		if (!c->resync || ++quiet > 15)
			break;
		iba_sleep_ms(100);
	}
	ASSERT_GT(MAX_RECS, c->n) TH_LOG("more records than the test made");
	EXPECT_EQ(-1, read(c->fd, &extra, sizeof(extra)));
	EXPECT_EQ(EAGAIN, errno);
	chan_info(_metadata, c, &info);
	EXPECT_EQ(0U, info.queued);
	EXPECT_EQ(NULL, c->st.why) TH_LOG("record %d: %s", c->st.bad, c->st.why);
	/* every loss is in an overflow record, every event read or lost */
	EXPECT_EQ(info.lost, c->st.lost);
	EXPECT_EQ(c->st.next, info.next_seq);
	EXPECT_EQ(c->raised, c->st.events + (int)c->st.lost);
	if (!c->resync)
		EXPECT_EQ(c->granted, c->st.states);
	if (check_snapshots(_metadata, c))
		EXPECT_FALSE(c->resync)
			TH_LOG("the last overflow record got no resync");
	TH_LOG("cap %u: %d records (%d events, %d overflow of %llu lost, %d state), %d raised",
	       c->cap, c->n, c->st.events, c->st.overflows,
	       (unsigned long long)c->st.lost, c->st.states, c->raised);
}

/* Record @i is an event of the source, sequence number @seq. */
static void expect_event(struct __test_metadata *_metadata,
			 const struct source *src, const struct chan *c,
			 int i, uint64_t seq)
{
	ASSERT_LT(i, c->n);
	EXPECT_EQ(src->type, c->r[i].rec.event.event_type)
		TH_LOG("record %d: type %s", i,
		       iba_type_str(c->r[i].rec.event.event_type));
	EXPECT_EQ(seq, c->r[i].rec.event.seq);
	EXPECT_EQ(COOKIE, c->r[i].rec.cookie);
}

/* Record @i says @count events were lost there, from @seq on. */
static void expect_overflow(struct __test_metadata *_metadata,
			    const struct chan *c, int i, uint64_t seq,
			    uint64_t count)
{
	ASSERT_LT(i, c->n);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, c->r[i].rec.event.event_type)
		TH_LOG("record %d: type %s", i,
		       iba_type_str(c->r[i].rec.event.event_type));
	EXPECT_EQ(seq, c->r[i].rec.event.seq);
	EXPECT_EQ(count, c->r[i].rec.event.count);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_NONE, c->r[i].rec.event.obj_type);
	EXPECT_EQ(0ULL, c->r[i].rec.cookie);
	EXPECT_EQ(0ULL, c->r[i].rec.occurrences);
}

/* Record @i is the state of @port (0: the device), at @seq. */
static void expect_state(struct __test_metadata *_metadata,
			 const struct chan *c, int i, uint64_t seq,
			 uint32_t port, uint32_t flags, uint64_t cookie)
{
	ASSERT_LT(i, c->n);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE, c->r[i].rec.event.event_type)
		TH_LOG("record %d: type %s", i,
		       iba_type_str(c->r[i].rec.event.event_type));
	EXPECT_EQ(seq, c->r[i].rec.event.seq);
	EXPECT_EQ(port, c->r[i].rec.event.port_num);
	EXPECT_EQ(flags, c->r[i].state.flags);
	EXPECT_EQ(cookie, c->r[i].rec.cookie);
}

/*
 * The issue's recipe with a queue of @cap: @cap events queued, then three
 * rounds of a loss and a snapshot of port 1. The first loss makes an
 * overflow record and the snapshot follows it; the second finds the
 * snapshot at the tail, waits aside and the snapshot is refused; the
 * third merges into it, and the snapshot is refused again. Read: the
 * events, O1 (1), the port's state, O2 (2), and nothing more.
 */
static void recipe(struct __test_metadata *_metadata, struct source *src,
		   uint32_t cap)
{
	struct chan *c = chan_open(_metadata, src, cap, false);
	struct ib_async_info info;
	uint64_t state_cookie;
	uint32_t i;

	ASSERT_NE(NULL, c);
	for (i = 0; i < cap; i++)
		chan_events(_metadata, src, c, 1);
	chan_info(_metadata, c, &info);
	EXPECT_EQ(cap, info.queued);
	EXPECT_EQ(0ULL, info.lost);

	chan_events(_metadata, src, c, 1);
	chan_info(_metadata, c, &info);
	EXPECT_EQ(1ULL, info.lost);
	EXPECT_EQ(cap + 1, info.queued);
	state_cookie = c->sub_cookie;
	EXPECT_LT(0, chan_snapshot(_metadata, src, c, false, 1));
	for (i = 2; i <= 3; i++) {
		chan_events(_metadata, src, c, 1);
		chan_info(_metadata, c, &info);
		EXPECT_EQ((uint64_t)i, info.lost);
		EXPECT_EQ(-EBUSY, chan_snapshot(_metadata, src, c, false, 1));
	}
	chan_info(_metadata, c, &info);
	EXPECT_EQ(3ULL, info.lost);
	EXPECT_EQ(cap + 5, info.next_seq);

	chan_drain(_metadata, c);
	ASSERT_EQ((int)cap + 3, c->n);
	for (i = 0; i < cap; i++)
		expect_event(_metadata, src, c, i, i + 1);
	expect_overflow(_metadata, c, cap, cap + 1, 1);
	expect_state(_metadata, c, cap + 1, cap + 2, 1, IB_ASYNC_STATE_LAST,
		     state_cookie);
	expect_overflow(_metadata, c, cap + 2, cap + 3, 2);
	chan_close(c);
}

/* ---- soft-RoCE: one port, losses from CQ overruns ---- */

/*
 * A UD QP in INIT with two receives on a one-entry CQ, moved to ERR: the
 * second flushed receive overruns the CQ, one CQ_ERR. The objects stay
 * (destroying the CQ would take its records out of the channels) until
 * the node is closed.
 */
static int rxe_cq_overrun(struct source *src, int count)
{
	static char bufs[2][64];
	struct ib_async_create_qp qp;
	uint32_t cq;
	int ret, i;

	while (count--) {
		ret = iba_create_cq(src->fd, 0xc0e, 1, &cq);
		if (!ret)
			ret = iba_create_qp(src->fd, 0x9b, src->pd, cq,
					IB_UVERBS_QPT_UD, &qp);
		if (!ret)
			ret = iba_modify_qp(src->fd, qp.handle, 1,
					IB_ASYNC_QP_PKEY_INDEX |
					IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY,
					&(struct ib_async_qp_attr){
						.port_num = 1, .qkey = QKEY });
		for (i = 0; !ret && i < 2; i++)
			ret = iba_post_recv(src->fd, IB_ASYNC_OBJ_QP, qp.handle, i,
					bufs[i], sizeof(bufs[i]));
		if (!ret)
			ret = iba_modify_qp(src->fd, qp.handle, 6, 0, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

FIXTURE(rxe) {
	struct iba_dev dev;
	struct source src;
};

FIXTURE_SETUP(rxe)
{
	struct ib_async_info info;

	self->src.fd = -1;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	self->src.fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->src.fd);
	if (!(iba_features(self->src.fd) & IB_ASYNC_FEATURE_STATE))
		SKIP(return, "no state records");
	ASSERT_EQ(0, iba_get_info(self->src.fd, &info));
	self->src.nports = info.phys_port_cnt;
	self->src.type = IB_ASYNC_EV_CQ_ERR;
	self->src.raise = rxe_cq_overrun;
	ASSERT_EQ(0, iba_create_pd(self->src.fd, &self->src.pd));
	/* earlier tests' link and GID events would be counted as ours */
	iba_quiesce(&self->dev, 1500, 15000);
}

FIXTURE_TEARDOWN(rxe)
{
	if (self->src.fd >= 0)
		close(self->src.fd);
}

TEST_F_TIMEOUT(rxe, issue_43_recipe, 120)
{
	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(1U, self->src.nports);
	recipe(_metadata, &self->src, 1);
}

/* ---- evsrc: two ports, losses raised at will ---- */

static int evsrc_comm_est(struct source *src, int count)
{
	return iba_evsrc_raise("%u qp:%d %s %d", IB_ASYNC_EV_COMM_EST, src->ev_qp,
			   count > 1 ? iba_evsrc_hard() : "process", count);
}

FIXTURE(ev) {
	struct iba_dev dev;
	struct source src;
	uint32_t cq, qp;
};

FIXTURE_VARIANT(ev) {
	uint32_t cap;
};

FIXTURE_VARIANT_ADD(ev, cap1) { .cap = 1 };
FIXTURE_VARIANT_ADD(ev, cap2) { .cap = 2 };
FIXTURE_VARIANT_ADD(ev, cap3) { .cap = 3 };

FIXTURE_SETUP(ev)
{
	struct ib_async_info info;
	const char *why;

	self->src.fd = iba_evsrc_open(&self->dev, &why);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_LE(0, self->src.fd);
	if (!(iba_features(self->src.fd) & IB_ASYNC_FEATURE_STATE))
		SKIP(return, "no state records");
	ASSERT_EQ(0, iba_get_info(self->src.fd, &info));
	self->src.nports = info.phys_port_cnt;
	self->src.type = IB_ASYNC_EV_COMM_EST;
	self->src.raise = evsrc_comm_est;
	ASSERT_EQ(0, iba_evsrc_ud_qp(self->src.fd, &self->src.pd, &self->cq,
				 &self->qp, &self->src.ev_qp));
}

FIXTURE_TEARDOWN(ev)
{
	if (self->src.fd >= 0)
		close(self->src.fd);
}

/* The recipe, then a snapshot of everything fits again once it is read. */
TEST_F_TIMEOUT(ev, issue_43_recipe, 120)
{
	struct chan *c;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_LE(2U, self->src.nports);
	recipe(_metadata, &self->src, variant->cap);
	c = chan_open(_metadata, &self->src, variant->cap, false);
	ASSERT_NE(NULL, c);
	EXPECT_LT(0, chan_snapshot(_metadata, &self->src, c, true, 0));
	chan_drain(_metadata, c);
	EXPECT_EQ((int)self->src.nports + 1, c->n);
	chan_close(c);
}

/*
 * A whole snapshot first, then the queue filled and three losses: the
 * tail is an event, so the first loss makes an overflow record there and
 * the others merge into it; no second snapshot while the first is unread.
 */
TEST_F_TIMEOUT(ev, losses_after_a_whole_snapshot, 120)
{
	uint32_t cap = variant->cap, np = self->src.nports, i;
	struct chan *c;
	uint64_t seq = 1;

	IBA_SKIPPED_IN_SETUP();
	c = chan_open(_metadata, &self->src, cap, false);
	ASSERT_NE(NULL, c);
	EXPECT_LT(0, chan_snapshot(_metadata, &self->src, c, true, 0));
	for (i = 0; i < cap + 3; i++)
		chan_events(_metadata, &self->src, c, 1);
	EXPECT_EQ(-EBUSY, chan_snapshot(_metadata, &self->src, c, false, 1));
	EXPECT_EQ(3ULL, c->lost);
	chan_drain(_metadata, c);
	ASSERT_EQ((int)(np + 1 + cap + 1), c->n);
	for (i = 0; i <= np; i++, seq++)
		expect_state(_metadata, c, i, seq, i,
			     i == np ? IB_ASYNC_STATE_LAST : 0, COOKIE + 1);
	for (i = 0; i < cap; i++, seq++)
		expect_event(_metadata, &self->src, c, np + 1 + i, seq);
	expect_overflow(_metadata, c, np + 1 + cap, seq, 3);
	chan_close(c);
}

/*
 * A loss, a whole snapshot, two losses kept aside behind it: reading one
 * record puts them in the stream after the snapshot, and the next loss,
 * finding no room for an event, merges into that record.
 */
TEST_F_TIMEOUT(ev, losses_before_and_after_a_whole_snapshot, 120)
{
	uint32_t cap = variant->cap, np = self->src.nports, i;
	struct chan *c;
	uint64_t seq;
	int at;

	IBA_SKIPPED_IN_SETUP();
	c = chan_open(_metadata, &self->src, cap, false);
	ASSERT_NE(NULL, c);
	for (i = 0; i < cap + 1; i++)
		chan_events(_metadata, &self->src, c, 1);
	EXPECT_LT(0, chan_snapshot(_metadata, &self->src, c, true, 0));
	chan_events(_metadata, &self->src, c, 2);
	EXPECT_EQ(3ULL, c->lost);
	EXPECT_EQ(-EBUSY, chan_snapshot(_metadata, &self->src, c, false, 2));
	ASSERT_EQ(1, chan_read(_metadata, c, 1));
	/* the state records still fill their room */
	EXPECT_EQ(-EBUSY, chan_snapshot(_metadata, &self->src, c, false, 2));
	chan_events(_metadata, &self->src, c, 1);
	EXPECT_EQ(4ULL, c->lost);
	chan_drain(_metadata, c);
	/* E1..Ecap, O1 (1), the snapshot, O2 (3) */
	ASSERT_EQ((int)(cap + 1 + np + 1 + 1), c->n);
	for (i = 0; i < cap; i++)
		expect_event(_metadata, &self->src, c, i, i + 1);
	expect_overflow(_metadata, c, cap, cap + 1, 1);
	seq = cap + 2;
	for (i = 0, at = cap + 1; i <= np; i++, at++, seq++)
		expect_state(_metadata, c, at, seq, i,
			     i == np ? IB_ASYNC_STATE_LAST : 0, COOKIE + 1);
	expect_overflow(_metadata, c, at, seq, 3);
	chan_close(c);
}

/*
 * The recipe with reads between the rounds: a read ends each wait aside,
 * after which a snapshot fits again, and the next loss behind that one
 * waits aside in its turn.
 */
TEST_F_TIMEOUT(ev, reads_between_the_losses, 120)
{
	uint32_t cap = variant->cap, i;
	uint64_t s1, s2;
	struct chan *c;
	int at;

	IBA_SKIPPED_IN_SETUP();
	c = chan_open(_metadata, &self->src, cap, false);
	ASSERT_NE(NULL, c);
	for (i = 0; i < cap + 1; i++)
		chan_events(_metadata, &self->src, c, 1);
	s1 = c->sub_cookie;
	EXPECT_LT(0, chan_snapshot(_metadata, &self->src, c, false, 1));
	chan_events(_metadata, &self->src, c, 1);
	EXPECT_EQ(-EBUSY, chan_snapshot(_metadata, &self->src, c, false, 2));
	ASSERT_EQ(1, chan_read(_metadata, c, 1));
	s2 = c->sub_cookie;
	EXPECT_LT(0, chan_snapshot(_metadata, &self->src, c, false, 2));
	chan_events(_metadata, &self->src, c, 1);
	EXPECT_EQ(-EBUSY, chan_snapshot(_metadata, &self->src, c, false, 1));
	ASSERT_EQ(1, chan_read(_metadata, c, 1));
	EXPECT_EQ(3ULL, c->lost);
	chan_drain(_metadata, c);
	/* E1..Ecap, O1 (1), S(1), O2 (1), S(2), O3 (1) */
	ASSERT_EQ((int)cap + 5, c->n);
	for (i = 0; i < cap; i++)
		expect_event(_metadata, &self->src, c, i, i + 1);
	at = cap;
	expect_overflow(_metadata, c, at, cap + 1, 1);
	expect_state(_metadata, c, at + 1, cap + 2, 1, IB_ASYNC_STATE_LAST, s1);
	expect_overflow(_metadata, c, at + 2, cap + 3, 1);
	expect_state(_metadata, c, at + 3, cap + 4, 2, IB_ASYNC_STATE_LAST, s2);
	expect_overflow(_metadata, c, at + 4, cap + 5, 1);
	chan_close(c);
}

/*
 * Snapshots asked for and records read in an order of every kind, the
 * channel losing all along: whatever comes, the stream stays whole.
 */
TEST_F_TIMEOUT(ev, snapshots_and_reads_in_any_order, 300)
{
	/* e: an event; 2: a burst; p/P: a snapshot of port 1 / of all; r: a read */
	static const char *const plans[] = {
		"eePeeperee", "PeeeeeppreeP", "e2p2P2r2pr2", "rePpPe2rrpe2",
		"ee2rr2pp2PP2rrrr2P", "eeepepepep", "eeeperpepre2p",
		"e2pe2pre2prp", "eeeepppePepr",
	};
	uint32_t cap = variant->cap;

	IBA_SKIPPED_IN_SETUP();
	for (size_t k = 0; k < sizeof(plans) / sizeof(plans[0]); k++) {
		struct chan *c = chan_open(_metadata, &self->src, cap, false);

		ASSERT_NE(NULL, c);
		for (const char *op = plans[k]; *op; op++) {
			switch (*op) {
			case 'e':
				chan_events(_metadata, &self->src, c, 1);
				break;
			case '2':
				chan_events(_metadata, &self->src, c, 5);
				break;
			case 'p':
				chan_snapshot(_metadata, &self->src, c, false,
					      1 + (uint32_t)(op - plans[k]) %
						  self->src.nports);
				break;
			case 'P':
				chan_snapshot(_metadata, &self->src, c, true, 0);
				break;
			default:
				chan_read(_metadata, c, 1);
				break;
			}
		}
		TH_LOG("plan %s", plans[k]);
		chan_drain(_metadata, c);
		chan_close(c);
	}
}

/*
 * A resync channel losing bursts round after round, with a read now and
 * then and snapshots asked for besides: each overflow record is followed
 * by a resync snapshot in time, and the last one after every loss.
 */
TEST_F_TIMEOUT(ev, resync_with_repeated_losses, 300)
{
	uint32_t cap = variant->cap;
	struct chan *c;

	IBA_SKIPPED_IN_SETUP();
	c = chan_open(_metadata, &self->src, cap, true);
	ASSERT_NE(NULL, c);
	for (int round = 0; round < 6; round++) {
		chan_events(_metadata, &self->src, c, (int)(4 * cap + 3));
		if (round % 2)
			chan_read(_metadata, c, 1 + round % 3);
		if (round % 3 == 1)
			chan_snapshot(_metadata, &self->src, c, round == 4, 2);
		chan_events(_metadata, &self->src, c, 1);
	}
	chan_drain(_metadata, c);
	EXPECT_LE(1, c->st.overflows);
	EXPECT_LE((int)self->src.nports + 1, c->st.states);
	chan_close(c);
}

TEST_HARNESS_MAIN

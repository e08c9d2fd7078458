// SPDX-License-Identifier: GPL-2.0
/*
 * Event channels through libibasync (<infiniband/ib_async.h>): the calls
 * ibasync_create_channel(), ibasync_subscribe(), ibasync_unsubscribe()
 * and ibasync_get_events() against the module, on the test-only evsrc
 * device (two ports), whose debugfs raise file makes the events:
 *
 *  - two channels subscribed to one port each get that port's events
 *    only, in order, with their own cookies and sequence numbers, while
 *    the context's own stream still gets every event;
 *  - a type subscription, the cookie of the earliest match, unsubscribe;
 *  - an object subscription given as the program's struct ibv_qp, whose
 *    records name that pointer; destroying the QP drops its unread
 *    records and its subscriptions;
 *  - a coalescing channel counts every occurrence of a hard-irq burst in
 *    one record, beside a plain channel read in batches of 64;
 *  - a full channel reports what it lost in an overflow record;
 *  - blocking and non-blocking reads, fdinfo, and requests refused;
 *  - a state channel's snapshot (IBASYNC_SUB_STATE): the device's record
 *    and each port's, as ibv_query_port() on the same context reports
 *    the port, then the events with the next sequence numbers; after an
 *    overflow, a resynchronisation (IBASYNC_CHANNEL_RESYNC).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <infiniband/verbs.h>
#include <infiniband/ib_async.h>

#include "lib/iba_evsrc.h"

#define BIT(t)		IBASYNC_EVENT_TYPE_BIT(t)
#define MAX_RECS	128

FIXTURE(ech) {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ev_cq, ev_qp;		/* evsrc's ids of the CQ and QP */
	struct ibasync_channel *ch[3];
};

static struct ibv_context *open_evsrc(struct ibv_device ***list)
{
	int i, n = 0;

	*list = ibv_get_device_list(&n);
	for (i = 0; *list && i < n; i++)
		if (!strcmp(ibv_get_device_name((*list)[i]), "evsrc0"))
			return ibv_open_device((*list)[i]);
	return NULL;
}

static struct ibv_qp *make_ud_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

FIXTURE_SETUP(ech)
{
	if (!iba_evsrc_present())
		SKIP(return, "no evsrc0 test device (%s)", IBA_EVSRC_KO);
	self->ctx = open_evsrc(&self->list);
	ASSERT_NE(NULL, self->ctx) TH_LOG("open evsrc0 through libibasync: %m");
	self->ch[0] = ibasync_create_channel(self->ctx, 0);
	if (!self->ch[0] && errno == EOPNOTSUPP)
		SKIP(return, "this ib_async has no event channels");
	ASSERT_NE(NULL, self->ch[0]) TH_LOG("ibasync_create_channel: %m");
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->ev_cq = iba_evsrc_find("cq", 0);
	self->qp = make_ud_qp(self->pd, self->cq);
	ASSERT_NE(NULL, self->qp) TH_LOG("ibv_create_qp: %m");
	self->ev_qp = iba_evsrc_find("qp", self->qp->qp_num);
	ASSERT_LE(0, self->ev_cq);
	ASSERT_LE(0, self->ev_qp);
	fcntl(self->ctx->async_fd, F_SETFL,
	      fcntl(self->ctx->async_fd, F_GETFL) | O_NONBLOCK);
}

FIXTURE_TEARDOWN(ech)
{
	for (int i = 0; i < 3; i++)
		if (self->ch[i])
			ibasync_destroy_channel(self->ch[i]);
	if (self->qp)
		ibv_destroy_qp(self->qp);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
	if (self->list)
		ibv_free_device_list(self->list);
}

/*
 * Records of @ch until @want arrived or IBA_EVENT_TIMEOUT_MS passed, at
 * most @max: how many, or -1 (errno) on an error but EAGAIN.
 */
static int get_n(struct ibasync_channel *ch, struct ibasync_event *ev,
		 int want, int max)
{
	struct pollfd p = { .fd = ibasync_channel_fd(ch), .events = POLLIN };
	uint64_t end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS, now;
	int got = 0, n;

	while (got < want && (now = iba_now_ms()) < end) {
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		n = ibasync_get_events(ch, ev + got, max - got,
				       IBASYNC_GET_NONBLOCK);
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (n > 0)
			got += n;
	}
	return got;
}

/* Nothing is queued in @ch (every raise is over when its write returns). */
static bool empty(struct ibasync_channel *ch)
{
	struct ibasync_event ev;

	return ibasync_get_events(ch, &ev, 1, IBASYNC_GET_NONBLOCK) == -1 &&
	       errno == EAGAIN;
}

static int sub_port(struct ibasync_channel *ch, uint32_t port,
		    uint64_t types, uint64_t cookie, uint32_t *id)
{
	struct ibasync_subscription s = {
		.flags = IBASYNC_SUB_PORT | (types ? IBASYNC_SUB_TYPES : 0),
		.port_num = port, .types = types, .cookie = cookie,
	};

	return ibasync_subscribe(ch, &s, id);
}

static int sub_qp(struct ibasync_channel *ch, struct ibv_qp *qp,
		  uint64_t types, uint64_t cookie, uint32_t *id)
{
	struct ibasync_subscription s = {
		.flags = IBASYNC_SUB_OBJECT | (types ? IBASYNC_SUB_TYPES : 0),
		.types = types, .object_type = IBASYNC_OBJECT_QP,
		.object.qp = qp, .cookie = cookie,
	};

	return ibasync_subscribe(ch, &s, id);
}

static int set_queue_len(struct ibasync_channel *ch, unsigned int len)
{
	return iba_set_queue_len(ibasync_channel_fd(ch), len);
}

/* Whether @fd's fdinfo has the line @want (without its newline). */
static bool fdinfo_has(int fd, const char *want)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		found = !strcmp(line, want);
	}
	fclose(f);
	return found;
}

static const struct {
	uint32_t type, port;
} port_events[] = {
	{ IB_ASYNC_EV_PORT_ERR, 1 }, { IB_ASYNC_EV_PORT_ACTIVE, 2 },
	{ IB_ASYNC_EV_LID_CHANGE, 1 }, { IB_ASYNC_EV_PKEY_CHANGE, 2 },
	{ IB_ASYNC_EV_SM_CHANGE, 2 }, { IB_ASYNC_EV_CLIENT_REREGISTER, 1 },
};

#define PORT_COOKIE(p)	(0x90f7000000000000ULL | (p))

TEST_F(ech, two_channels_each_get_the_events_of_their_port)
{
	struct ibasync_event ev[8];
	struct ibv_async_event aev;
	uint32_t port, id[2] = { 0, 0 };
	unsigned int i, k, nodes = 0;
	int n;

	IBA_SKIPPED_IN_SETUP();
	self->ch[1] = ibasync_create_channel(self->ctx, 0);
	ASSERT_NE(NULL, self->ch[1]);
	for (port = 1; port <= 2; port++)
		ASSERT_EQ(0, sub_port(self->ch[port - 1], port, 0,
				      PORT_COOKIE(port), &id[port - 1]));
	EXPECT_NE(0U, id[0]);
	EXPECT_NE(0U, id[1]);
	for (i = 0; i < ARRAY_SIZE(port_events); i++)
		ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:%u",
					 port_events[i].type,
					 port_events[i].port));

	for (port = 1; port <= 2; port++) {
		struct ibasync_channel *ch = self->ch[port - 1];

		n = get_n(ch, ev, 3, ARRAY_SIZE(ev));
		ASSERT_EQ(3, n) TH_LOG("port %u: %d records", port, n);
		for (i = 0, k = 0; i < ARRAY_SIZE(port_events); i++) {
			if (port_events[i].port != port)
				continue;
			EXPECT_EQ(IBASYNC_EVENT_ASYNC, (int)ev[k].kind);
			EXPECT_EQ(port_events[i].type, (uint32_t)ev[k].event_type)
				TH_LOG("port %u record %u: %s", port, k,
				       iba_type_str(ev[k].event_type));
			EXPECT_EQ((int)port, ev[k].element.port_num);
			EXPECT_EQ(port, ev[k].port_num);
			EXPECT_EQ(PORT_COOKIE(port), ev[k].cookie);
			EXPECT_EQ(1ULL, ev[k].occurrences);
			EXPECT_EQ(0ULL, ev[k].lost);
			/* the channel's own numbering */
			EXPECT_EQ(k + 1ULL, ev[k].seq);
			EXPECT_EQ(ev[k].timestamp_ns, ev[k].last_timestamp_ns);
			if (k)
				EXPECT_LE(ev[k - 1].timestamp_ns,
					  ev[k].timestamp_ns);
			k++;
		}
		EXPECT_TRUE(empty(ch)) TH_LOG("port %u: more records", port);
	}
	/* the context's own stream is left as it was: every event */
	while (!ibv_get_async_event(self->ctx, &aev)) {
		if (nodes < ARRAY_SIZE(port_events))
			EXPECT_EQ(port_events[nodes].type,
				  (uint32_t)aev.event_type);
		nodes++;
		ibv_ack_async_event(&aev);
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(ARRAY_SIZE(port_events), nodes);
}

TEST_F(ech, types_cookies_of_the_earliest_match_and_unsubscribe)
{
	struct ibasync_subscription any = { .cookie = 0xb };
	struct ibasync_channel *ch;
	struct ibasync_event ev[4];
	uint32_t a = 0, b = 0;

	IBA_SKIPPED_IN_SETUP();
	ch = self->ch[0];
	ASSERT_EQ(0, sub_port(ch, 1, BIT(IBV_EVENT_PORT_ERR), 0xa, &a));
	ASSERT_EQ(0, ibasync_subscribe(ch, &any, &b));
	EXPECT_NE(a, b);
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1", IB_ASYNC_EV_PORT_ERR));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1",
				 IB_ASYNC_EV_PORT_ACTIVE));
	/* both match the first: one record, the earliest's cookie */
	ASSERT_EQ(2, get_n(ch, ev, 2, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBV_EVENT_PORT_ERR, (int)ev[0].event_type);
	EXPECT_EQ(0xaULL, ev[0].cookie);
	EXPECT_EQ(IBV_EVENT_PORT_ACTIVE, (int)ev[1].event_type);
	EXPECT_EQ(0xbULL, ev[1].cookie);
	EXPECT_TRUE(empty(ch));

	EXPECT_EQ(0, ibasync_unsubscribe(ch, a));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:2", IB_ASYNC_EV_PORT_ERR));
	ASSERT_EQ(1, get_n(ch, ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBV_EVENT_PORT_ERR, (int)ev[0].event_type);
	EXPECT_EQ(0xbULL, ev[0].cookie);
	EXPECT_EQ(3ULL, ev[0].seq);

	EXPECT_EQ(0, ibasync_unsubscribe(ch, b));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1", IB_ASYNC_EV_PORT_ERR));
	EXPECT_TRUE(empty(ch)) TH_LOG("a record with no subscription left");
	EXPECT_EQ(ENOENT, ibasync_unsubscribe(ch, b));
	EXPECT_EQ(ENOENT, errno);
}

TEST_F(ech, object_subscription_names_the_programs_qp)
{
	struct ibasync_event ev[4];

	IBA_SKIPPED_IN_SETUP();
	self->ch[1] = ibasync_create_channel(self->ctx, 0);
	ASSERT_NE(NULL, self->ch[1]);
	ASSERT_EQ(0, sub_qp(self->ch[0], self->qp, 0, 0x9, NULL));
	ASSERT_EQ(0, sub_qp(self->ch[1], self->qp, BIT(IBV_EVENT_QP_FATAL),
			    0x10, NULL));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u qp:%d", IB_ASYNC_EV_QP_FATAL,
				 self->ev_qp));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u qp:%d %s",
				 IB_ASYNC_EV_COMM_EST, self->ev_qp,
				 iba_evsrc_hard()));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u cq:%d", IB_ASYNC_EV_CQ_ERR,
				 self->ev_cq));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1", IB_ASYNC_EV_PORT_ERR));

	ASSERT_EQ(2, get_n(self->ch[0], ev, 2, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBV_EVENT_QP_FATAL, (int)ev[0].event_type);
	EXPECT_EQ(IBV_EVENT_COMM_EST, (int)ev[1].event_type);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(IBASYNC_EVENT_ASYNC, (int)ev[i].kind);
		EXPECT_EQ(self->qp, ev[i].element.qp);
		EXPECT_EQ(0x9ULL, ev[i].cookie);
	}
	EXPECT_TRUE(empty(self->ch[0])) TH_LOG("the CQ's or port's event");

	ASSERT_EQ(1, get_n(self->ch[1], ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBV_EVENT_QP_FATAL, (int)ev[0].event_type);
	EXPECT_EQ(self->qp, ev[0].element.qp);
	EXPECT_EQ(0x10ULL, ev[0].cookie);
	EXPECT_TRUE(empty(self->ch[1])) TH_LOG("COMM_EST passed the type");
}

TEST_F(ech, destroying_the_qp_drops_its_records_and_subscriptions)
{
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = ibasync_channel_fd(self->ch[0]);
	ASSERT_EQ(0, sub_qp(self->ch[0], self->qp, 0, 0x5, NULL));
	ASSERT_EQ(0, sub_port(self->ch[0], 2, 0, 0x6, NULL));
	EXPECT_EQ(2, iba_fdinfo(fd, "subscriptions"));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u qp:%d", IB_ASYNC_EV_QP_FATAL,
				 self->ev_qp));
	EXPECT_EQ(1, iba_fdinfo(fd, "queued"));
	/* not handed out by ibv_get_async_event(): destroy waits for none */
	ASSERT_EQ(0, ibv_destroy_qp(self->qp));
	self->qp = NULL;
	EXPECT_TRUE(empty(self->ch[0])) TH_LOG("a destroyed QP's record");
	EXPECT_EQ(1, iba_fdinfo(fd, "subscriptions"))
		TH_LOG("the QP's subscription outlived it");
}

TEST_F(ech, coalescing_counts_every_occurrence_beside_a_plain_channel)
{
	const uint64_t types = BIT(IBV_EVENT_PORT_ERR) |
			       BIT(IBV_EVENT_PORT_ACTIVE);
	struct ibasync_event ev[MAX_RECS];
	struct ibasync_channel *cch;
	uint64_t total = 0;
	bool in_order = true;
	int n, i;

	IBA_SKIPPED_IN_SETUP();
	cch = ibasync_create_channel(self->ctx, IBASYNC_CHANNEL_COALESCE);
	self->ch[1] = cch;
	ASSERT_NE(NULL, cch);
	EXPECT_TRUE(fdinfo_has(ibasync_channel_fd(cch),
			       "ib_async-coalescing:\tyes"));
	ASSERT_EQ(0, sub_port(cch, 2, types, 0xc, NULL));
	ASSERT_EQ(0, sub_port(self->ch[0], 2, types, 0xd, NULL));
	ASSERT_EQ(0, set_queue_len(self->ch[0], 256));

	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:2 %s 100",
				 IB_ASYNC_EV_PORT_ERR, iba_evsrc_hard()));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:2 process 5",
				 IB_ASYNC_EV_PORT_ACTIVE));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1 process 3",
				 IB_ASYNC_EV_PORT_ERR));

	/* one record per type and port, every occurrence counted */
	ASSERT_EQ(2, get_n(cch, ev, 2, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBV_EVENT_PORT_ERR, (int)ev[0].event_type);
	EXPECT_EQ(100ULL, ev[0].occurrences);
	EXPECT_EQ(1ULL, ev[0].seq);
	EXPECT_EQ(IBV_EVENT_PORT_ACTIVE, (int)ev[1].event_type);
	EXPECT_EQ(5ULL, ev[1].occurrences);
	EXPECT_EQ(2ULL, ev[1].seq) TH_LOG("merged events take no seq");
	/* a raise is over before the next: its last came before them */
	EXPECT_LE(ev[0].last_timestamp_ns, ev[1].timestamp_ns);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0xcULL, ev[i].cookie);
		EXPECT_EQ(2U, ev[i].port_num);
	}
	EXPECT_TRUE(empty(cch));
	EXPECT_EQ(103, iba_fdinfo(ibasync_channel_fd(cch), "coalesced"));

	/* the plain channel: 105 records, read 64 at a time */
	n = ibasync_get_events(self->ch[0], ev, 64, IBASYNC_GET_NONBLOCK);
	ASSERT_EQ(64, n) TH_LOG("first batch: %d (%m)", n);
	n = ibasync_get_events(self->ch[0], ev + 64, 64, IBASYNC_GET_NONBLOCK);
	ASSERT_EQ(41, n) TH_LOG("second batch: %d (%m)", n);
	for (i = 0; i < 105; i++) {
		total += ev[i].occurrences;
		in_order = in_order && ev[i].seq == i + 1ULL &&
			   ev[i].cookie == 0xd &&
			   ev[i].event_type == (i < 100 ? IBV_EVENT_PORT_ERR :
						IBV_EVENT_PORT_ACTIVE);
	}
	EXPECT_TRUE(in_order) TH_LOG("seq 1..105, cookie 0xd, 100 PORT_ERR "
				     "then 5 PORT_ACTIVE");
	EXPECT_EQ(105ULL, total);
	EXPECT_TRUE(empty(self->ch[0]));

	/* a record once read takes no more: the next repeat is a new one */
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:2 process 10",
				 IB_ASYNC_EV_PORT_ERR));
	ASSERT_EQ(1, get_n(cch, ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(10ULL, ev[0].occurrences);
	EXPECT_EQ(3ULL, ev[0].seq);
}

TEST_F(ech, a_full_channel_says_how_many_it_lost)
{
	struct ibasync_event ev[MAX_RECS];
	int i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, set_queue_len(self->ch[0], 8));
	ASSERT_EQ(0, sub_port(self->ch[0], 1, BIT(IBV_EVENT_PORT_ERR), 0x1,
			      NULL));
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1 process 20",
				 IB_ASYNC_EV_PORT_ERR));
	ASSERT_EQ(9, ibasync_get_events(self->ch[0], ev, ARRAY_SIZE(ev),
					IBASYNC_GET_NONBLOCK));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(IBASYNC_EVENT_ASYNC, (int)ev[i].kind);
		EXPECT_EQ(i + 1ULL, ev[i].seq);
	}
	EXPECT_EQ(IBASYNC_EVENT_OVERFLOW, (int)ev[8].kind);
	EXPECT_EQ(12ULL, ev[8].lost);
	EXPECT_EQ(9ULL, ev[8].seq);
	EXPECT_EQ(0ULL, ev[8].cookie);
	EXPECT_EQ(0ULL, ev[8].occurrences);
	EXPECT_LE(ev[7].timestamp_ns, ev[8].timestamp_ns);
	EXPECT_EQ(12, iba_fdinfo(ibasync_channel_fd(self->ch[0]), "lost"));

	/* room again: the stream goes on after the lost ones */
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:1", IB_ASYNC_EV_PORT_ERR));
	ASSERT_EQ(1, get_n(self->ch[0], ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(21ULL, ev[0].seq);
}

struct getter {
	struct ibasync_channel *ch;
	struct ibasync_event ev[4];
	int ret, err;
	atomic_int done;
};

static void *get_blocking(void *arg)
{
	struct getter *g = arg;

	g->ret = ibasync_get_events(g->ch, g->ev, 4, 0);
	g->err = errno;
	atomic_store(&g->done, 1);
	return NULL;
}

TEST_F(ech, blocking_and_nonblocking_reads)
{
	struct getter g = { .ch = NULL, .ret = -2 };
	struct ibasync_subscription any = { .cookie = 0x77 };
	struct ibasync_event ev;
	pthread_t t;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	g.ch = self->ch[0];
	ASSERT_EQ(0, ibasync_subscribe(g.ch, &any, NULL));
	fd = ibasync_channel_fd(g.ch);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	EXPECT_FALSE(fcntl(fd, F_GETFL) & O_NONBLOCK);
	EXPECT_EQ(-1, ibasync_get_events(g.ch, &ev, 1, IBASYNC_GET_NONBLOCK));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(0, pthread_create(&t, NULL, get_blocking, &g));
	iba_sleep_ms(300);
	EXPECT_EQ(0, atomic_load(&g.done)) TH_LOG("returned with no event");
	ASSERT_EQ(0, iba_evsrc_write("raise", "%u port:2",
				 IB_ASYNC_EV_CLIENT_REREGISTER));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(1, g.ret) TH_LOG("errno %d", g.err);
	EXPECT_EQ(IBV_EVENT_CLIENT_REREGISTER, (int)g.ev[0].event_type);
	EXPECT_EQ(0x77ULL, g.ev[0].cookie);

	/* IBASYNC_CHANNEL_NONBLOCK: the descriptor itself never blocks */
	self->ch[1] = ibasync_create_channel(self->ctx,
					     IBASYNC_CHANNEL_NONBLOCK);
	ASSERT_NE(NULL, self->ch[1]);
	EXPECT_TRUE(fcntl(ibasync_channel_fd(self->ch[1]), F_GETFL) &
		    O_NONBLOCK);
	EXPECT_EQ(-1, ibasync_get_events(self->ch[1], &ev, 1, 0));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(ech, fdinfo_lists_the_subscriptions)
{
	char want[160];
	uint32_t a = 0, b = 0;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = ibasync_channel_fd(self->ch[0]);
	ASSERT_EQ(0, sub_port(self->ch[0], 2, BIT(IBV_EVENT_PORT_ERR) |
			      BIT(IBV_EVENT_PORT_ACTIVE), 0x11, &a));
	ASSERT_EQ(0, sub_qp(self->ch[0], self->qp, 0, 0x22, &b));
	EXPECT_TRUE(fdinfo_has(fd, "ib_async-channel:\tevent"));
	EXPECT_TRUE(fdinfo_has(fd, "ib_async-coalescing:\tno"));
	EXPECT_TRUE(fdinfo_has(fd, "ib_async-subscriptions:\t2"));
	snprintf(want, sizeof(want), "ib_async-subscription:\tid=%u "
		 "cookie=0x11 types=0x600 port=2 object=any", a);
	EXPECT_TRUE(fdinfo_has(fd, want)) TH_LOG("no line '%s'", want);
	snprintf(want, sizeof(want), "ib_async-subscription:\tid=%u "
		 "cookie=0x22 types=any port=any object=%u", b,
		 self->qp->handle);
	EXPECT_TRUE(fdinfo_has(fd, want)) TH_LOG("no line '%s'", want);
	EXPECT_EQ(0, ibasync_unsubscribe(self->ch[0], a));
	EXPECT_TRUE(fdinfo_has(fd, "ib_async-subscriptions:\t1"));
}

TEST_F(ech, bad_requests_are_refused)
{
	struct ibasync_subscription s = { .cookie = 1 };
	struct ibv_context *other;
	struct ibv_device **list;
	struct ibv_cq *their_cq;
	struct ibasync_event ev;
	uint32_t id;
	int i;

	IBA_SKIPPED_IN_SETUP();
	/* a port the device does not have: the kernel says */
	EXPECT_EQ(EINVAL, sub_port(self->ch[0], 3, 0, 1, NULL));
	/* types beyond what a subscription can name, unknown flags */
	EXPECT_EQ(EINVAL, sub_port(self->ch[0], 1,
				   BIT(IBASYNC_EVENT_TYPE_MAX + 1), 1, NULL));
	s.flags = 1U << 7;
	EXPECT_EQ(EINVAL, ibasync_subscribe(self->ch[0], &s, NULL));
	EXPECT_EQ(NULL, ibasync_create_channel(self->ctx, 1U << 7));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ibasync_get_events(self->ch[0], &ev, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(ENOENT, ibasync_unsubscribe(self->ch[0], 12345));

	/* an object of another context */
	other = open_evsrc(&list);
	ASSERT_NE(NULL, other);
	their_cq = ibv_create_cq(other, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, their_cq);
	s = (struct ibasync_subscription){
		.flags = IBASYNC_SUB_OBJECT, .object_type = IBASYNC_OBJECT_CQ,
		.object.cq = their_cq,
	};
	EXPECT_EQ(EINVAL, ibasync_subscribe(self->ch[0], &s, NULL));
	s.object.cq = self->cq;
	EXPECT_EQ(0, ibasync_subscribe(self->ch[0], &s, NULL))
		TH_LOG("its own CQ: %m");
	EXPECT_EQ(0, ibv_destroy_cq(their_cq));
	EXPECT_EQ(0, ibv_close_device(other));
	ibv_free_device_list(list);

	/* IB_ASYNC_MAX_SUBSCRIPTIONS per channel */
	s = (struct ibasync_subscription){ .flags = IBASYNC_SUB_PORT };
	for (i = 1; i < IB_ASYNC_MAX_SUBSCRIPTIONS; i++) {
		s.port_num = 1 + i % 2;
		s.cookie = i;
		ASSERT_EQ(0, ibasync_subscribe(self->ch[0], &s, &id))
			TH_LOG("subscription %d: %m", i + 1);
	}
	EXPECT_EQ(ENOSPC, ibasync_subscribe(self->ch[0], &s, &id));
	EXPECT_EQ(0, ibasync_unsubscribe(self->ch[0], id));
	EXPECT_EQ(0, ibasync_subscribe(self->ch[0], &s, NULL));
}

/* ---- state channels -------------------------------------------------- */

/*
 * A state channel of the context, or NULL with errno; the caller skips on
 * EOPNOTSUPP (a module without state records).
 */
static struct ibasync_channel *state_channel(struct ibv_context *ctx)
{
	return ibasync_create_channel(ctx, IBASYNC_CHANNEL_STATE |
					   IBASYNC_CHANNEL_RESYNC);
}

/* @st says what ibv_query_port() says of @port now: 0, or which differs. */
static const char *state_differs(struct ibv_context *ctx, unsigned int port,
				 const struct ibasync_port_state *st)
{
	struct ibv_port_attr a;

	memset(&a, 0, sizeof(a));
	if (ibv_query_port(ctx, (uint8_t)port, &a))
		return "ibv_query_port failed";
	if (st->state != a.state)
		return "state";
	if (st->phys_state != a.phys_state)
		return "phys_state";
	if (st->lid != a.lid)
		return "lid";
	if (st->sm_lid != a.sm_lid)
		return "sm_lid";
	if (st->sm_sl != a.sm_sl)
		return "sm_sl";
	if (st->lmc != a.lmc)
		return "lmc";
	if (st->active_width != a.active_width)
		return "active_width";
	/* ibv_port_attr's 8 bits hold every speed up to NDR */
	if (st->active_speed <= UINT8_MAX && st->active_speed != a.active_speed)
		return "active_speed";
	if (st->active_mtu != a.active_mtu)
		return "active_mtu";
	if (st->max_mtu != a.max_mtu)
		return "max_mtu";
	if (st->gid_tbl_len != (uint32_t)a.gid_tbl_len)
		return "gid_tbl_len";
	if (st->pkey_tbl_len != a.pkey_tbl_len)
		return "pkey_tbl_len";
	if (st->link_layer != a.link_layer)
		return "link_layer";
	if (st->port_cap_flags != a.port_cap_flags)
		return "port_cap_flags";
	return NULL;
}

TEST_F(ech, a_snapshot_of_the_ports_then_the_events_that_follow)
{
	struct ibasync_subscription s = {
		.flags = IBASYNC_SUB_STATE | IBASYNC_SUB_TYPES,
		.types = BIT(IBV_EVENT_PORT_ERR) | BIT(IBV_EVENT_PORT_ACTIVE),
		.cookie = 0x57a7e,
	};
	struct ibasync_event ev[8], snap[3];
	struct ibv_device_attr dattr;
	struct ibasync_port_state st;
	struct ibasync_channel *ch;
	const char *differs;
	uint32_t id;
	int i, n;

	IBA_SKIPPED_IN_SETUP();
	ch = self->ch[1] = state_channel(self->ctx);
	if (!ch && errno == EOPNOTSUPP)
		SKIP(return, "this ib_async has no state records");
	ASSERT_NE(NULL, ch) TH_LOG("state channel: %m");
	ASSERT_EQ(0, ibv_query_device(self->ctx, &dattr));
	ASSERT_EQ(2, dattr.phys_port_cnt);
	/* no snapshot on a channel without STATE */
	EXPECT_EQ(EINVAL, ibasync_subscribe(self->ch[0], &s, NULL));
	ASSERT_EQ(0, ibasync_subscribe(ch, &s, &id)) TH_LOG("%m");

	/* the device, then each port, in order, the last flagged LAST */
	n = get_n(ch, snap, 3, ARRAY_SIZE(snap));
	ASSERT_EQ(3, n);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(IBASYNC_EVENT_STATE, (int)snap[i].kind);
		EXPECT_EQ((uint32_t)i, snap[i].port_num);
		EXPECT_EQ(i, snap[i].element.port_num);
		EXPECT_EQ(i + 1ULL, snap[i].seq);
		EXPECT_EQ(0x57a7eULL, snap[i].cookie);
		EXPECT_EQ(1ULL, snap[i].occurrences);
		ASSERT_EQ(0, ibasync_get_state(ch, &snap[i], &st))
			TH_LOG("record %d: %m", i);
		EXPECT_EQ(i == 2 ? (uint32_t)IBASYNC_STATE_LAST : 0U, st.flags);
		EXPECT_EQ(0, st.error);
		if (!i) {
			EXPECT_EQ(2U, st.phys_port_cnt);
			continue;
		}
		EXPECT_EQ(0U, st.phys_port_cnt);
		differs = state_differs(self->ctx, (unsigned int)i, &st);
		EXPECT_EQ(NULL, differs)
			TH_LOG("port %d: %s differs from ibv_query_port()", i,
			       differs);
	}
	EXPECT_TRUE(empty(ch));

	/* the events after the snapshot: the next sequence numbers */
	ASSERT_EQ(0, iba_evsrc_raise("%u port:1", IB_ASYNC_EV_PORT_ERR));
	ASSERT_EQ(1, get_n(ch, ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBASYNC_EVENT_ASYNC, (int)ev[0].kind);
	EXPECT_EQ((uint32_t)IBV_EVENT_PORT_ERR, (uint32_t)ev[0].event_type);
	EXPECT_EQ(1U, ev[0].port_num);
	EXPECT_EQ(4ULL, ev[0].seq);
	EXPECT_EQ(0x57a7eULL, ev[0].cookie);
	EXPECT_EQ(ENOENT, ibasync_get_state(ch, &ev[0], &st));
	ASSERT_EQ(0, iba_evsrc_raise("%u port:1", IB_ASYNC_EV_PORT_ACTIVE));
	ASSERT_EQ(1, get_n(ch, ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ((uint32_t)IBV_EVENT_PORT_ACTIVE, (uint32_t)ev[0].event_type);
	EXPECT_EQ(5ULL, ev[0].seq);

	/* another subscription's snapshot of port 1 alone: ACTIVE again */
	s = (struct ibasync_subscription){
		.flags = IBASYNC_SUB_STATE | IBASYNC_SUB_PORT, .port_num = 1,
		.cookie = 0x1,
	};
	ASSERT_EQ(0, ibasync_subscribe(ch, &s, NULL)) TH_LOG("%m");
	ASSERT_EQ(1, get_n(ch, ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBASYNC_EVENT_STATE, (int)ev[0].kind);
	EXPECT_EQ(1U, ev[0].port_num);
	EXPECT_EQ(6ULL, ev[0].seq);
	EXPECT_EQ(0x1ULL, ev[0].cookie);
	ASSERT_EQ(0, ibasync_get_state(ch, &ev[0], &st));
	EXPECT_EQ((uint32_t)IBASYNC_STATE_LAST, st.flags);
	EXPECT_EQ((uint32_t)IBV_PORT_ACTIVE, (uint32_t)st.state);
	EXPECT_EQ(NULL, state_differs(self->ctx, 1, &st));
	/* the first snapshot's states are still kept */
	ASSERT_EQ(0, ibasync_get_state(ch, &snap[0], &st));
	EXPECT_EQ(2U, st.phys_port_cnt);
	EXPECT_TRUE(empty(ch));
}

/*
 * Records of @ch until none has come for a while (a resync's snapshot is
 * taken by a work item, and reading one lets the next in), at most
 * @max: how many, or -1 (errno).
 */
static int get_quiet(struct ibasync_channel *ch, struct ibasync_event *ev,
		     int max)
{
	struct pollfd p = { .fd = ibasync_channel_fd(ch), .events = POLLIN };
	int got = 0, n;

	while (got < max && poll(&p, 1, 500) > 0) {
		n = ibasync_get_events(ch, ev + got, max - got,
				       IBASYNC_GET_NONBLOCK);
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (n > 0)
			got += n;
	}
	return got;
}

/*
 * A resync channel overflows: every overflow record is answered by one
 * snapshot after it, no snapshot comes without one, the counts add up,
 * and the last snapshot says what ibv_query_port() says now. How many
 * overflows there are depends on when the resync's work item runs: the
 * events raised after its snapshot's point overflow the queue again.
 */
TEST_F(ech, after_an_overflow_a_resync_says_the_present)
{
	struct ibasync_subscription s = {
		.flags = IBASYNC_SUB_STATE | IBASYNC_SUB_PORT |
			 IBASYNC_SUB_TYPES,
		.port_num = 1, .types = BIT(IBV_EVENT_PORT_ERR), .cookie = 0xc,
	};
	struct ibasync_event ev[MAX_RECS];
	struct ibasync_port_state st;
	struct ibasync_channel *ch;
	uint64_t seq = 2, lost = 0, events = 0;
	bool pending = false;
	int i, n, snaps = 0;

	IBA_SKIPPED_IN_SETUP();
	ch = self->ch[1] = state_channel(self->ctx);
	if (!ch && errno == EOPNOTSUPP)
		SKIP(return, "this ib_async has no state records");
	ASSERT_NE(NULL, ch) TH_LOG("state channel: %m");
	ASSERT_EQ(0, set_queue_len(ch, 8));
	ASSERT_EQ(0, ibasync_subscribe(ch, &s, NULL)) TH_LOG("%m");
	ASSERT_EQ(1, get_n(ch, ev, 1, ARRAY_SIZE(ev)));
	EXPECT_EQ(IBASYNC_EVENT_STATE, (int)ev[0].kind);
	EXPECT_EQ(1ULL, ev[0].seq);

	/*
	 * 20 for a queue of 8 (and, where the library mapped the channel's
	 * ring at the read above, a ring of 8 before it): the events that
	 * fit, then overflow records, each answered by a resync's record.
	 */
	ASSERT_EQ(0, iba_evsrc_raise("%u port:1 process 20",
				 IB_ASYNC_EV_PORT_ERR));
	n = get_quiet(ch, ev, ARRAY_SIZE(ev));
	ASSERT_LE(3, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(seq, ev[i].seq) TH_LOG("record %d", i);
		switch (ev[i].kind) {
		case IBASYNC_EVENT_ASYNC:
			events++;
			seq++;
			break;
		case IBASYNC_EVENT_OVERFLOW:
			lost += ev[i].lost;
			seq += ev[i].lost;
			pending = true;
			break;
		case IBASYNC_EVENT_STATE:
			EXPECT_TRUE(pending) TH_LOG("snapshot %d unasked", i);
			pending = false;
			snaps++;
			seq++;
			EXPECT_EQ(1U, ev[i].port_num);
			EXPECT_EQ(0xcULL, ev[i].cookie);
			ASSERT_EQ(0, ibasync_get_state(ch, &ev[i], &st));
			EXPECT_EQ((uint32_t)(IBASYNC_STATE_RESYNC |
					     IBASYNC_STATE_LAST), st.flags);
			EXPECT_EQ((uint32_t)IBV_PORT_DOWN, (uint32_t)st.state);
			break;
		default:
			EXPECT_EQ(IBASYNC_EVENT_ASYNC, (int)ev[i].kind)
				TH_LOG("record %d of another kind", i);
		}
	}
	EXPECT_FALSE(pending) TH_LOG("an overflow got no snapshot");
	EXPECT_LE(1, snaps);
	EXPECT_EQ(20ULL, events + lost);
	/* the stream ends with a snapshot that says the present */
	ASSERT_EQ(IBASYNC_EVENT_STATE, (int)ev[n - 1].kind);
	ASSERT_EQ(0, ibasync_get_state(ch, &ev[n - 1], &st));
	EXPECT_EQ(NULL, state_differs(self->ctx, 1, &st));
	TH_LOG("%d records: %llu events, %llu lost, %d snapshots", n,
	       (unsigned long long)events, (unsigned long long)lost, snaps);
	ASSERT_EQ(0, iba_evsrc_raise("%u port:1", IB_ASYNC_EV_PORT_ACTIVE));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * State records on soft-RoCE: what a state channel's snapshot says of
 * rxe's port 1 is what rdma-core's own libibverbs, through ib_uverbs, and
 * the node's IB_ASYNC_IOC_QUERY_PORT say of it, after an overflow (the
 * resync snapshot), after GID changes (the GID table's generation counts
 * the channel's GID_CHANGE records exactly) and across a link flap.
 *
 * The events are real: GID_CHANGE from IPv6 addresses added to and
 * deleted from rxe's netdev (nodad, so each takes effect at once), PORT_ERR
 * and PORT_ACTIVE from taking that netdev down and up. Every comparison is
 * made once the device is quiet, since a snapshot is a point of the stream
 * and the queries come later: only then are they of the same state.
 *
 * The comparison must reach ib_uverbs, so the test refuses to run with
 * libibasync loaded (LD_PRELOAD), which answers ibv_query_port() through
 * ib_async itself.
 */
#include <infiniband/verbs.h>

#include "lib/iba_verbs.h"
#include "lib/iba_ibv.h"

#define ST_REC		((int)sizeof(struct ib_async_chan_state_event))
#define MAX_RECS	4096
#define NADDR		4
#define QUIET_MS	2000
#define COOKIE		0x5a7eULL
/* IPv6 addresses of a unique local prefix, added and deleted by the tests */
#define ADDR_FMT	"fd5e:a5:1::%d/128"

struct stream {
	struct ib_async_chan_state_event *r;
	int n;
};

/*
 * Append to @s what the channel gives until it has been quiet for
 * @quiet_ms, or @limit_ms passed, or @s is full: records read.
 */
static int read_quiet(int ch, struct stream *s, int quiet_ms, int limit_ms)
{
	uint64_t end = iba_now_ms() + limit_ms;
	struct pollfd p = { .fd = ch, .events = POLLIN };
	int got = 0;
	ssize_t n;

	while (s->n < MAX_RECS && iba_now_ms() < end) {
		if (poll(&p, 1, quiet_ms) <= 0)
			break;
		n = read(ch, s->r + s->n, (size_t)(MAX_RECS - s->n) * ST_REC);
		if (n <= 0)
			break;
		s->n += (int)(n / ST_REC);
		got += (int)(n / ST_REC);
	}
	return got;
}

/*
 * The node's events until it has been quiet for @quiet_ms (at most
 * @limit_ms): how many, and in *@gid those that were port 1's
 * GID_CHANGE.
 */
static long node_quiet(int fd, int quiet_ms, int limit_ms, long *gid)
{
	uint64_t end = iba_now_ms() + limit_ms, last = iba_now_ms();
	struct ib_async_event ev[64];
	long total = 0;
	ssize_t n;
	int i;

	*gid = 0;
	while (iba_now_ms() < end && iba_now_ms() - last < (uint64_t)quiet_ms) {
		n = read(fd, ev, sizeof(ev));
		if (n <= 0) {
			iba_sleep_ms(50);
			continue;
		}
		last = iba_now_ms();
		for (i = 0; i < n / IBA_REC; i++) {
			total++;
			*gid += ev[i].event_type == IB_ASYNC_EV_GID_CHANGE &&
				ev[i].port_num == 1;
		}
	}
	return total;
}

static int is_state(const struct ib_async_chan_state_event *r)
{
	return r->rec.event.event_type == IB_ASYNC_EV_STATE;
}

static int is_overflow(const struct ib_async_chan_state_event *r)
{
	return r->rec.event.event_type == IB_ASYNC_EV_OVERFLOW;
}

/* Port 1's valid GID entries as rdma-core lists them, or -1. */
static int ibv_port1_gids(struct ibv_context *ctx, uint32_t tbl_len)
{
	struct ibv_gid_entry *e, one;
	ssize_t n, i;
	int count = 0;

	e = calloc(tbl_len, sizeof(*e));
	if (!e)
		return -1;
	n = ibv_query_gid_table(ctx, e, tbl_len, 0);
	if (n >= 0) {
		for (i = 0; i < n; i++)
			count += e[i].port_num == 1;
		free(e);
		return count;
	}
	free(e);
	/* without the table query: every entry on its own */
	for (i = 0; i < (ssize_t)tbl_len; i++)
		count += !ibv_query_gid_ex(ctx, 1, (uint32_t)i, &one, 0);
	return count;
}

static unsigned int ibv_speed(const struct ibv_port_attr *pa)
{
#ifdef IBA_HAVE_ACTIVE_SPEED_EX
	if (pa->active_speed_ex)
		return pa->active_speed_ex;
#endif
	return pa->active_speed;
}

FIXTURE(st) {
	struct iba_dev dev;
	char netdev[64];
	int fd;
	struct ibv_context *ctx;
	struct ibv_device **list;
	struct stream s;
	int flapped;
};

/* The first line of /proc/self/maps naming libibasync, if any: 1 or 0. */
static int shim_loaded(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !!strstr(line, "libibasync");
	fclose(f);
	return found;
}

FIXTURE_SETUP(st)
{
	char path[PATH_MAX];
	uint64_t feat;

	self->fd = -1;
	self->s.r = calloc(MAX_RECS, ST_REC);
	ASSERT_NE(NULL, self->s.r);
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	if (strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "%s is not soft-RoCE: its link is not ours to flap",
		     self->dev.ibdev);
	if (geteuid())
		SKIP(return, "needs root to change addresses and links");
	if (shim_loaded())
		SKIP(return, "libibasync is loaded: ibv_query_port() would ask ib_async, not ib_uverbs");
	/* the netdev of the port's default GID is rxe's own */
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
		 self->dev.ibdev);
	ASSERT_EQ(0, iba_read_line(path, self->netdev, sizeof(self->netdev)))
		TH_LOG("no netdev for %s port 1", self->dev.ibdev);
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
	feat = iba_features(self->fd);
	if (!(feat & IB_ASYNC_FEATURE_EVENT_CHANNEL) ||
	    !(feat & IB_ASYNC_FEATURE_STATE))
		SKIP(return, "no state records");
	self->ctx = iba_ibv_open(self->dev.ibdev, &self->list);
	ASSERT_NE(NULL, self->ctx)
		TH_LOG("rdma-core cannot open %s: %m", self->dev.ibdev);
	/* Leave earlier tests' link and GID events behind. */
	iba_quiesce(&self->dev, 1500, 15000);
	iba_drain(self->fd);
}

FIXTURE_TEARDOWN(st)
{
	uint8_t gid[16];
	uint64_t end;
	int i;

	if (self->netdev[0]) {
		for (i = 1; i <= NADDR; i++)
			iba_sh("ip -6 addr del " ADDR_FMT " dev %s 2>/dev/null",
			       i, self->netdev);
		iba_sh("ip link set %s up 2>/dev/null", self->netdev);
	}
	/* a flapped netdev: the next test wants its IPv4 GID back */
	end = iba_now_ms() + 20000;
	while (self->flapped && iba_roce_v2_gid(self->dev.ibdev, gid) < 0 &&
	       iba_now_ms() < end)
		iba_sleep_ms(100);
	if (self->ctx)
		ibv_close_device(self->ctx);
	if (self->list)
		ibv_free_device_list(self->list);
	if (self->fd >= 0)
		close(self->fd);
	free(self->s.r);
	if (self->netdev[0])
		iba_quiesce(&self->dev, 1500, 15000);
}

/*
 * A port record against what ib_uverbs (rdma-core) and the node's own
 * QUERY_PORT say now; @gids < 0: the GID table is not compared (a record
 * taken while addresses still came and went).
 */
static void expect_port_now(struct __test_metadata *_metadata,
			    FIXTURE_DATA(st) *self,
			    const struct ib_async_port_state *st, int gids)
{
	struct ib_async_port_attr na;
	struct ibv_port_attr pa;

	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &pa));
	ASSERT_EQ(0, iba_query_port(self->fd, 1, &na));
	EXPECT_EQ(0U, st->flags & IB_ASYNC_STATE_QUERY_FAILED);
	EXPECT_EQ(0U, st->error);
	EXPECT_EQ(0U, st->phys_port_cnt);
	EXPECT_EQ(0U, st->reserved[0]);
	EXPECT_EQ(0U, st->reserved[1]);

	EXPECT_EQ((unsigned int)pa.state, st->state);
	EXPECT_EQ(pa.phys_state, st->phys_state);
	EXPECT_EQ(pa.lid, st->lid);
	EXPECT_EQ(pa.sm_lid, st->sm_lid);
	EXPECT_EQ(pa.sm_sl, st->sm_sl);
	EXPECT_EQ(pa.lmc, st->lmc);
	EXPECT_EQ(pa.active_width, st->active_width);
	EXPECT_EQ(ibv_speed(&pa), st->active_speed);
	EXPECT_EQ((unsigned int)pa.active_mtu, st->active_mtu);
	EXPECT_EQ((unsigned int)pa.max_mtu, st->max_mtu);
	EXPECT_EQ((uint32_t)pa.gid_tbl_len, st->gid_tbl_len);
	EXPECT_EQ(pa.pkey_tbl_len, st->pkey_tbl_len);
	EXPECT_EQ(pa.port_cap_flags, st->port_cap_flags);
	EXPECT_EQ(pa.link_layer, st->link_layer);
	if (gids >= 0)
		EXPECT_EQ((uint32_t)gids, st->gid_valid);

	EXPECT_EQ(NULL, iba_port_state_differs(st, &na))
		TH_LOG("QUERY_PORT: %s", iba_port_state_differs(st, &na));
}

/* Port 1's valid GIDs as rdma-core has them now. */
static int gids_now(struct __test_metadata *_metadata, FIXTURE_DATA(st) *self)
{
	struct ibv_port_attr pa;
	int n;

	EXPECT_EQ(0, ibv_query_port(self->ctx, 1, &pa));
	n = ibv_port1_gids(self->ctx, (uint32_t)pa.gid_tbl_len);
	EXPECT_LT(0, n);
	return n;
}

/*
 * The snapshot's records at @at: the device's then port 1's (rxe has one
 * port), with @flags (besides LAST) and @cookie. Its end, or -1.
 */
static int expect_snapshot(struct __test_metadata *_metadata,
			   const struct stream *s, int at, uint32_t flags,
			   uint64_t cookie)
{
	const struct ib_async_chan_state_event *d = &s->r[at], *p;

	if (at + 1 >= s->n) {
		TH_LOG("snapshot at %d cut short (%d records)", at, s->n);
		return -1;
	}
	p = &s->r[at + 1];
	EXPECT_TRUE(is_state(d) && is_state(p));
	EXPECT_EQ(0U, d->rec.event.port_num);
	EXPECT_EQ(0ULL, d->rec.event.element);
	EXPECT_EQ(flags, d->state.flags);
	EXPECT_EQ(1U, d->state.phys_port_cnt);
	EXPECT_EQ(0U, d->state.state);
	EXPECT_EQ(1U, p->rec.event.port_num);
	EXPECT_EQ(1ULL, p->rec.event.element);
	EXPECT_EQ(flags | IB_ASYNC_STATE_LAST, p->state.flags);
	for (; d <= p; d++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_PORT, d->rec.event.obj_type);
		EXPECT_EQ(0U, d->rec.event.obj_handle);
		EXPECT_EQ(1ULL, d->rec.event.count);
		EXPECT_EQ(1ULL, d->rec.occurrences);
		EXPECT_EQ(cookie, d->rec.cookie);
	}
	return at + 2;
}

/* What an overflowed channel's stream says, record by record. */
struct resync_walk {
	int nev;	/* event records */
	int novf;	/* overflow records */
	uint64_t lost;	/* the events they say were lost */
	int nsnap;	/* snapshots */
	int bad_snap;	/* the first snapshot after no overflow, or -1 */
	int pending;	/* an overflow record has no snapshot yet */
	int done;	/* index of the record after the first snapshot
			 * that follows every overflow the channel had, or 0
			 */
	uint64_t lost_total;	/* the channel's own count (GET_INFO) */
	long node;	/* the context's events of the burst */
	long node_gid;	/* port 1's GID_CHANGEs among them */
};

/*
 * Walk self->s, checking each record: events, overflow records and the
 * resync snapshots each overflow asks for. @w->lost_total, the channel's
 * own count of its losses, tells which snapshot follows them all.
 */
static void walk_resync(struct __test_metadata *_metadata,
			FIXTURE_DATA(st) *self, struct resync_walk *w)
{
	const struct ib_async_chan_state_event *r;
	uint32_t gen = 0;
	int i = 0;

	w->nev = 0;
	w->novf = 0;
	w->lost = 0;
	w->nsnap = 0;
	w->bad_snap = -1;
	w->pending = 0;
	w->done = 0;
	while (i < self->s.n) {
		r = &self->s.r[i];
		if (is_overflow(r)) {
			w->novf++;
			w->pending = 1;
			w->lost += r->rec.event.count;
			EXPECT_EQ(0ULL, r->rec.occurrences);
			EXPECT_EQ(0ULL, r->rec.cookie);
			EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_NONE,
				  r->rec.event.obj_type);
			i++;
			continue;
		}
		if (!is_state(r)) {
			w->nev++;
			EXPECT_EQ(1ULL, r->rec.event.count);
			EXPECT_EQ(COOKIE, r->rec.cookie);
			i++;
			continue;
		}
		if (!w->pending && w->bad_snap < 0)
			w->bad_snap = i;
		w->pending = 0;
		w->nsnap++;
		i = expect_snapshot(_metadata, &self->s, i,
				    IB_ASYNC_STATE_RESYNC, COOKIE);
		if (i < 0)
			return;
		/* the same port, whatever GIDs came and went */
		expect_port_now(_metadata, self, &self->s.r[i - 1].state, -1);
		EXPECT_LE(gen, self->s.r[i - 1].state.gid_gen);
		gen = self->s.r[i - 1].state.gid_gen;
		if (!w->done && w->lost == w->lost_total)
			w->done = i;
	}
}

/*
 * A STATE|RESYNC channel of the smallest queue there is (one event),
 * subscribed to everything, then a burst of GID changes it cannot hold;
 * once the burst is over, the channel read into self->s and walked into
 * @w: the channel, or a negative errno.
 */
static int overflowed_channel(struct __test_metadata *_metadata,
			      FIXTURE_DATA(st) *self, struct resync_walk *w)
{
	struct ib_async_info info;
	int ch, i;

	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE |
			   IB_ASYNC_CHANNEL_RESYNC);
	if (ch < 0)
		return ch;
	EXPECT_EQ(0, iba_get_info(ch, &info));
	EXPECT_EQ((uint32_t)ST_REC, info.record_size);
	EXPECT_EQ(-1, iba_set_queue_len(ch, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, iba_set_queue_len(ch, 1));
	EXPECT_EQ(0, iba_get_info(ch, &info));
	EXPECT_EQ(1U, info.queue_len);
	EXPECT_LT(0, iba_subscribe(self->fd, ch, 0, 0, 0, 0, COOKIE));
	for (i = 1; i <= NADDR; i++)
		EXPECT_EQ(0, iba_sh("ip -6 addr add " ADDR_FMT " dev %s nodad",
				    i, self->netdev));
	w->node = node_quiet(self->fd, QUIET_MS, 60000, &w->node_gid);
	/* one event fits: two or more make an overflow */
	EXPECT_LE(NADDR, w->node) TH_LOG("only %ld events for %d addresses",
					 w->node, NADDR);
	/* the burst is over: the channel's losses are all counted */
	EXPECT_EQ(0, iba_get_info(ch, &info));
	read_quiet(ch, &self->s, QUIET_MS, 10000);
	EXPECT_TRUE(iba_seq_from(self->s.r, ST_REC, self->s.n, 1));
	w->lost_total = info.lost;
	walk_resync(_metadata, self, w);
	TH_LOG("%ld events: %d records, %d overflow records (%llu lost), %d snapshots in %d records",
	       w->node, w->nev, w->novf, (unsigned long long)w->lost,
	       w->nsnap, self->s.n);
	return ch;
}

/*
 * The case: a channel too small for a burst of GID changes loses
 * some, says how many in its overflow records, and then gives a snapshot
 * whose port record is what ibv_query_port() says.
 */
TEST_F_TIMEOUT(st, overflow_resync_snapshot_matches_ibv_query_port, 180)
{
	const struct ib_async_port_state *p;
	struct resync_walk w;
	int ch;

	IBA_SKIPPED_IN_SETUP();
	ch = overflowed_channel(_metadata, self, &w);
	ASSERT_LE(0, ch) TH_LOG("create: %s", strerror(-ch));
	ASSERT_LT(0, w.done) TH_LOG("no snapshot after the last overflow");
	ASSERT_LE(1, w.novf);
	/* the channel lost exactly what its overflow records say */
	EXPECT_EQ(w.lost, w.lost_total);
	EXPECT_EQ(w.node, (long)(w.nev + w.lost));
	/*
	 * That snapshot was taken after every event (the burst was over
	 * when the channel was read), so it has the table as it is now,
	 * and its generation counts every GID_CHANGE the context had.
	 */
	p = &self->s.r[w.done - 1].state;
	expect_port_now(_metadata, self, p, gids_now(_metadata, self));
	EXPECT_EQ((uint32_t)w.node_gid, p->gid_gen);
	close(ch);
}

/*
 * A resync snapshot answers an overflow: once the one after the last
 * overflow is read, the channel is quiet until it loses events again.
 */
TEST_F_TIMEOUT(st, resync_gives_one_snapshot_per_overflow, 180)
{
	struct resync_walk w;
	int ch;

	IBA_SKIPPED_IN_SETUP();
	ch = overflowed_channel(_metadata, self, &w);
	ASSERT_LE(0, ch) TH_LOG("create: %s", strerror(-ch));
	ASSERT_LT(0, w.done);
	EXPECT_EQ(-1, w.bad_snap)
		TH_LOG("the snapshot at record %d follows no overflow record",
		       w.bad_snap);
	EXPECT_GE(w.novf, w.nsnap);
	EXPECT_EQ(self->s.n, w.done) TH_LOG("records after the last snapshot");
	close(ch);
}

/* Port 1's GID_CHANGE records in @s between @from and @to. */
static int gid_changes(const struct stream *s, int from, int to)
{
	int i, n = 0;

	for (i = from; i < to; i++)
		n += s->r[i].rec.event.event_type == IB_ASYNC_EV_GID_CHANGE &&
		     s->r[i].rec.event.port_num == 1;
	return n;
}

/*
 * A snapshot a subscription asks for (@cookie) once the device is quiet:
 * read it, check it against the queries of now, and return where its
 * port record is in @s (or -1).
 */
static int quiet_snapshot(struct __test_metadata *_metadata,
			  FIXTURE_DATA(st) *self, int ch, uint64_t cookie)
{
	int before = self->s.n, at, gids;
	long gid;

	node_quiet(self->fd, QUIET_MS, 60000, &gid);
	EXPECT_LT(0, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_STATE, 0, 0, 0,
			       cookie));
	/* the events since the last snapshot, then this one's two records */
	read_quiet(ch, &self->s, QUIET_MS, 10000);
	at = self->s.n - 2;
	if (at < before) {
		TH_LOG("%d records for a snapshot of 2", self->s.n - before);
		return -1;
	}
	if (expect_snapshot(_metadata, &self->s, at, 0, cookie) < 0)
		return -1;
	gids = gids_now(_metadata, self);
	expect_port_now(_metadata, self, &self->s.r[at + 1].state, gids);
	return at + 1;
}

/*
 * The GID table's generation, between two snapshots of one channel,
 * moves by exactly the GID_CHANGE records the channel received between
 * them: addresses added, then the same deleted.
 */
TEST_F_TIMEOUT(st, gid_gen_moves_by_the_gid_change_records_received, 180)
{
	const struct ib_async_port_state *a, *m, *b;
	int ch, i, pa, pm, pb, c1, c2;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch) TH_LOG("create: %s", strerror(-ch));
	pa = quiet_snapshot(_metadata, self, ch, COOKIE);
	ASSERT_LE(0, pa);
	/* a quiet device raised no GID_CHANGE since the channel was made */
	EXPECT_EQ(0U, self->s.r[pa].state.gid_gen);

	for (i = 1; i <= NADDR; i++)
		ASSERT_EQ(0, iba_sh("ip -6 addr add " ADDR_FMT " dev %s nodad",
				    i, self->netdev));
	pm = quiet_snapshot(_metadata, self, ch, COOKIE + 1);
	ASSERT_LE(0, pm);
	for (i = 1; i <= NADDR; i++)
		ASSERT_EQ(0, iba_sh("ip -6 addr del " ADDR_FMT " dev %s",
				    i, self->netdev));
	pb = quiet_snapshot(_metadata, self, ch, COOKIE + 2);
	ASSERT_LE(0, pb);
	EXPECT_TRUE(iba_seq_from(self->s.r, ST_REC, self->s.n, 1));

	a = &self->s.r[pa].state;
	m = &self->s.r[pm].state;
	b = &self->s.r[pb].state;
	c1 = gid_changes(&self->s, pa + 1, pm - 1);
	c2 = gid_changes(&self->s, pm + 1, pb - 1);
	TH_LOG("gid_gen %u, %u, %u; GID_CHANGE records %d, %d; gid_valid %u, %u, %u",
	       a->gid_gen, m->gid_gen, b->gid_gen, c1, c2, a->gid_valid,
	       m->gid_valid, b->gid_valid);
	EXPECT_LE(NADDR, c1);
	EXPECT_LE(NADDR, c2);
	EXPECT_EQ(a->gid_gen + (uint32_t)c1, m->gid_gen);
	EXPECT_EQ(m->gid_gen + (uint32_t)c2, b->gid_gen);
	/* the addresses' GIDs came and went */
	EXPECT_LT(a->gid_valid, m->gid_valid);
	EXPECT_EQ(a->gid_valid, b->gid_valid);
	/* everything between the snapshots came to the first subscription */
	for (i = pa + 1; i < pb - 1; i++)
		if (!is_state(&self->s.r[i]))
			EXPECT_EQ(COOKIE, self->s.r[i].rec.cookie);
	close(ch);
}

/* Poll rdma-core's view of port 1 until it is in @state: 0, or -1. */
static int wait_port_state(struct ibv_context *ctx, enum ibv_port_state state)
{
	uint64_t end = iba_now_ms() + 30000;
	struct ibv_port_attr pa;

	while (iba_now_ms() < end) {
		if (ibv_query_port(ctx, 1, &pa))
			return -1;
		if (pa.state == state)
			return 0;
		iba_sleep_ms(100);
	}
	return -1;
}

/*
 * After the link comes up, IPv6 gives the netdev a link-local address
 * once duplicate address detection is over, and its GIDs then: wait for
 * it, so that the GID table is settled when the snapshot is compared.
 */
static void wait_link_local(const char *netdev)
{
	uint64_t end = iba_now_ms() + 15000;

	while (iba_now_ms() < end &&
	       (iba_sh("ip -6 addr show dev %s scope link | grep -q inet6",
		       netdev) ||
		!iba_sh("ip -6 addr show dev %s tentative | grep -q inet6",
			netdev)))
		iba_sleep_ms(200);
}

/*
 * The port's one record, of a subscription to port 1 alone, once the
 * device is quiet after a state change: read and checked against now,
 * its index in @s, or -1.
 */
static int port_snapshot(struct __test_metadata *_metadata,
			 FIXTURE_DATA(st) *self, int ch, uint64_t cookie)
{
	const struct ib_async_chan_state_event *r;
	struct ibv_port_attr before;
	int at, g1, g2;
	long gid;

	node_quiet(self->fd, QUIET_MS, 60000, &gid);
	EXPECT_EQ(0, ibv_query_port(self->ctx, 1, &before));
	g1 = gids_now(_metadata, self);
	EXPECT_LT(0, iba_subscribe(self->fd, ch,
			       IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_PORT, 0, 1, 0,
			       cookie));
	read_quiet(ch, &self->s, QUIET_MS, 10000);
	/* the events since the last snapshot, then this one's record */
	at = self->s.n - 1;
	if (at < 0 || !is_state(&self->s.r[at])) {
		TH_LOG("no state record at the end of %d", self->s.n);
		return -1;
	}
	r = &self->s.r[at];
	EXPECT_EQ(1U, r->rec.event.port_num);
	EXPECT_EQ(cookie, r->rec.cookie);
	EXPECT_EQ((uint32_t)IB_ASYNC_STATE_LAST, r->state.flags);
	EXPECT_EQ((unsigned int)before.state, r->state.state);
	g2 = gids_now(_metadata, self);
	/* quiescent only: a table that moved under us compares to nothing */
	if (g1 != g2)
		TH_LOG("port 1's GIDs went from %d to %d: not compared", g1,
		       g2);
	expect_port_now(_metadata, self, &r->state, g1 == g2 ? g1 : -1);
	return at;
}

/*
 * A subscription to port 1 alone, across a link flap of rxe's netdev:
 * its snapshot says DOWN, then ACTIVE, as ibv_query_port() does, and the
 * stream between them has the port's return.
 */
TEST_F_TIMEOUT(st, link_flap_snapshot_state_matches_ibv_query_port, 180)
{
	int ch, down, up, i, active = 0;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch) TH_LOG("create: %s", strerror(-ch));
	self->flapped = 1;
	ASSERT_EQ(0, iba_sh("ip link set %s down", self->netdev));
	ASSERT_EQ(0, wait_port_state(self->ctx, IBV_PORT_DOWN));
	down = port_snapshot(_metadata, self, ch, COOKIE);
	ASSERT_EQ(0, down) TH_LOG("the first record is the snapshot's");
	EXPECT_EQ((uint8_t)IBV_PORT_DOWN, self->s.r[down].state.state);

	ASSERT_EQ(0, iba_sh("ip link set %s up", self->netdev));
	ASSERT_EQ(0, wait_port_state(self->ctx, IBV_PORT_ACTIVE));
	wait_link_local(self->netdev);
	up = port_snapshot(_metadata, self, ch, COOKIE + 1);
	ASSERT_LT(down, up);
	EXPECT_EQ((uint8_t)IBV_PORT_ACTIVE, self->s.r[up].state.state);
	EXPECT_TRUE(iba_seq_from(self->s.r, ST_REC, self->s.n, 1));
	for (i = down + 1; i < up; i++) {
		EXPECT_EQ(1U, self->s.r[i].rec.event.port_num);
		EXPECT_EQ(COOKIE, self->s.r[i].rec.cookie);
		active += self->s.r[i].rec.event.event_type ==
			  IB_ASYNC_EV_PORT_ACTIVE;
	}
	EXPECT_LE(1, active) TH_LOG("no PORT_ACTIVE between the snapshots");
	close(ch);
}

TEST_HARNESS_MAIN

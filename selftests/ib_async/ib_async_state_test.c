// SPDX-License-Identifier: GPL-2.0
/*
 * State records (IB_ASYNC_CHANNEL_STATE): a subscription that asks for a
 * snapshot first gets one record for the device and each port in its
 * scope, then every event it matches, with one sequence across the seam;
 * a resync channel gets a fresh snapshot after each overflow record.
 *
 * Everything is checked on what the kernel hands back: the records read
 * (type, port, cookie, sequence, flags, state) against the node's own
 * QUERY_PORT and against the node's queue, which got every event the evsrc
 * test device raised, with the same kernel timestamps. Storms race the
 * snapshot from process, softirq and hard-irq context: no event before a
 * snapshot's point reaches its channel after it, and every event after
 * the point does, exactly once.
 */
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"

#define ST_REC		((int)sizeof(struct ib_async_chan_state_event))
#define MAX_RECS	65536
#define STORM		30000
#define SNAPSHOTS	4

typedef struct ib_async_chan_state_event srec_t;

/* Read what the (nonblocking) channel holds: records read. */
static int drain(int ch, srec_t *rec, int max)
{
	return iba_read_recs(ch, rec, sizeof(*rec), max);
}

/* Sequence numbers run on from @first with no gap. */
static int seq_ok(const srec_t *rec, int n, uint64_t first)
{
	return iba_seq_from(rec, sizeof(*rec), n, first);
}

static int all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

FIXTURE(st) {
	struct iba_dev dev;
	struct ib_async_info info;
	int fd;
	uint32_t pd, cq, qp;
	int ev_qp;
};

FIXTURE_SETUP(st)
{
	IBA_EVSRC_FIXTURE_OPEN(self, IB_ASYNC_FEATURE_STATE, "no state records");
	ASSERT_EQ(0, iba_get_info(self->fd, &self->info));
	ASSERT_EQ(0, iba_evsrc_ud_qp(self->fd, &self->pd, &self->cq, &self->qp,
				 &self->ev_qp));
	ASSERT_LE(0, self->ev_qp);
}

FIXTURE_TEARDOWN(st)
{
	/* leave every port as the other tests expect it */
	iba_evsrc_raise("PORT_ACTIVE port:1");
	iba_evsrc_raise("PORT_ACTIVE port:2");
	if (self->fd >= 0)
		close(self->fd);
}

/* A port's state record says what QUERY_PORT says now. */
static void expect_port(struct __test_metadata *_metadata, int fd,
			const srec_t *r, uint32_t port)
{
	struct ib_async_port_attr a;

	ASSERT_EQ(0, iba_query_port(fd, port, &a));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE, r->rec.event.event_type);
	EXPECT_EQ(port, r->rec.event.port_num);
	EXPECT_EQ((uint64_t)port, r->rec.event.element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_PORT, r->rec.event.obj_type);
	EXPECT_EQ(0U, r->rec.event.obj_handle);
	EXPECT_EQ(1ULL, r->rec.event.count);
	EXPECT_EQ(1ULL, r->rec.occurrences);
	EXPECT_EQ(0U, r->state.flags & IB_ASYNC_STATE_QUERY_FAILED);
	EXPECT_EQ(0U, r->state.error);
	EXPECT_EQ(NULL, iba_port_state_differs(&r->state, &a))
		TH_LOG("port %u: %s", port, iba_port_state_differs(&r->state, &a));
	EXPECT_GE(r->state.gid_tbl_len, r->state.gid_valid);
	EXPECT_EQ(0U, r->state.phys_port_cnt);
	EXPECT_TRUE(all_zero(r->state.reserved, sizeof(r->state.reserved)));
}

/* The device's record: there, with its port count, nothing else set. */
static void expect_device(struct __test_metadata *_metadata,
			  const struct ib_async_info *info, const srec_t *r)
{
	struct ib_async_port_state want = {
		.flags = r->state.flags & (IB_ASYNC_STATE_RESYNC |
					   IB_ASYNC_STATE_LAST),
		.phys_port_cnt = info->phys_port_cnt,
	};

	EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE, r->rec.event.event_type);
	EXPECT_EQ(0U, r->rec.event.port_num);
	EXPECT_EQ(0, memcmp(&want, &r->state, sizeof(want)));
}

/*
 * The records of one whole snapshot from @r on: the device, then each
 * port in order, @flags on each, LAST on the last, @cookie on all; with
 * @now, each port's as QUERY_PORT says it now.
 */
static void expect_snapshot_of(struct __test_metadata *_metadata, int fd,
			       const struct ib_async_info *info,
			       const srec_t *r, uint32_t flags,
			       uint64_t cookie, bool now)
{
	uint32_t last = info->phys_port_cnt;

	expect_device(_metadata, info, &r[0]);
	for (uint32_t p = 0; p <= last; p++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE,
			  r[p].rec.event.event_type);
		EXPECT_EQ(p, r[p].rec.event.port_num);
		if (p && now)
			expect_port(_metadata, fd, &r[p], p);
		EXPECT_EQ(cookie, r[p].rec.cookie);
		EXPECT_EQ(flags | (p == last ? IB_ASYNC_STATE_LAST : 0),
			  r[p].state.flags & ~IB_ASYNC_STATE_QUERY_FAILED);
	}
}

/* A whole snapshot that says what the ports are now. */
static void expect_snapshot(struct __test_metadata *_metadata, int fd,
			    const struct ib_async_info *info, const srec_t *r,
			    uint32_t flags, uint64_t cookie)
{
	expect_snapshot_of(_metadata, fd, info, r, flags, cookie, true);
}

TEST_F(st, snapshot_first_then_the_events_in_one_sequence)
{
	struct ib_async_info ci = { .argsz = sizeof(ci) };
	uint32_t nports = self->info.phys_port_cnt;
	srec_t r[16];
	int ch, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_LE(1U, nports);
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, ioctl(ch, IB_ASYNC_IOC_GET_INFO, &ci));
	EXPECT_EQ((uint32_t)ST_REC, ci.record_size);
	ASSERT_LT(0, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_STATE, 0, 0, 0,
			       0x77));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:%u", nports));
	EXPECT_EQ((int)(nports + 2) * ST_REC, iba_fionread(ch));
	n = drain(ch, r, 16);
	ASSERT_EQ((int)nports + 2, n);
	EXPECT_TRUE(seq_ok(r, n, 1));
	expect_snapshot(_metadata, self->fd, &self->info, r, 0, 0x77);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE,
		  r[nports + 1].rec.event.event_type);
	EXPECT_EQ(nports, r[nports + 1].rec.event.port_num);
	EXPECT_EQ(0x77ULL, r[nports + 1].rec.cookie);
	EXPECT_TRUE(all_zero(&r[nports + 1].state, sizeof(r[0].state)));
	/* the snapshot's point is before the event: its time too */
	EXPECT_LE(r[0].rec.event.timestamp_ns,
		  r[nports + 1].rec.event.timestamp_ns);
	close(ch);
}

/* A port's subscription gets that port's record only, as it is now. */
TEST_F(st, a_ports_snapshot_says_its_state_now)
{
	struct ib_async_port_attr a;
	srec_t r[4];
	int ch, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_evsrc_raise("PORT_ERR port:1"));
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, iba_subscribe(self->fd, ch,
			       IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_PORT, 0, 1,
			       0, 5));
	ASSERT_EQ(0, iba_evsrc_raise("PORT_ACTIVE port:1"));
	ASSERT_EQ(0, iba_evsrc_raise("PORT_ERR port:2"));
	n = drain(ch, r, 4);
	ASSERT_EQ(2, n);
	EXPECT_TRUE(seq_ok(r, n, 1));
	EXPECT_EQ(1U, r[0].rec.event.port_num);
	EXPECT_EQ((uint32_t)IB_ASYNC_STATE_LAST, r[0].state.flags);
	EXPECT_EQ(1U, r[0].state.state);	/* IBV_PORT_DOWN */
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_PORT_ACTIVE, r[1].rec.event.event_type);
	ASSERT_EQ(0, iba_query_port(self->fd, 1, &a));
	EXPECT_EQ(4U, a.state);			/* IBV_PORT_ACTIVE */
	close(ch);

	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, iba_subscribe(self->fd, ch,
			       IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_PORT, 0, 1,
			       0, 6));
	ASSERT_EQ(1, drain(ch, r, 4));
	expect_port(_metadata, self->fd, &r[0], 1);
	EXPECT_EQ(4U, r[0].state.state);
	close(ch);
}

TEST_F(st, bad_requests_are_refused)
{
	struct ib_async_create_channel comp = {
		.argsz = sizeof(comp), .type = IB_ASYNC_CHANNEL_COMP,
		.flags = IB_ASYNC_CHANNEL_STATE,
	};
	srec_t r[16];
	int ch, plain;

	IBA_SKIPPED_IN_SETUP();
	plain = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, plain);
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, plain, IB_ASYNC_SUB_STATE, 0,
				     0, 0, 1));
	EXPECT_EQ(-EINVAL, iba_event_channel(self->fd, IB_ASYNC_CHANNEL_RESYNC));
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL, &comp));
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch);
	EXPECT_EQ(-EINVAL, iba_subscribe(self->fd, ch,
				     IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_OBJECT,
				     0, 0, self->qp, 1));
	/* one snapshot of every port fills the room state records have */
	ASSERT_LT(0, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_STATE, 0, 0, 0, 1));
	EXPECT_EQ(-EBUSY, iba_subscribe(self->fd, ch,
				    IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_PORT, 0,
				    1, 0, 2));
	/* and a refused one leaves no subscription behind */
	EXPECT_EQ(1, iba_fdinfo(ch, "subscriptions"));
	EXPECT_EQ((int)self->info.phys_port_cnt + 1, drain(ch, r, 16));
	EXPECT_LT(0, iba_subscribe(self->fd, ch,
			       IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_PORT, 0, 1,
			       0, 2));
	EXPECT_EQ(1, drain(ch, r, 16));
	EXPECT_EQ(2ULL, r[0].rec.cookie);
	close(ch);
	close(plain);
}

/* The node's records, all of them: how many, or -1 on a loss. */
static int node_all(int fd, struct ib_async_event *ev, int max)
{
	int n = 0;
	ssize_t got;

	while (n < max) {
		got = read(fd, ev + n, (size_t)(max - n) * sizeof(*ev));
		if (got <= 0)
			break;
		n += (int)(got / (ssize_t)sizeof(*ev));
	}
	for (int i = 0; i < n; i++)
		if (ev[i].event_type == IB_ASYNC_EV_OVERFLOW)
			return -1;
	return n;
}

/* The node's records sorted by what tells one event from another. */
struct node_key {
	uint64_t ts;
	uint32_t type, port, handle;
	int idx;
};

static int key_cmp(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static void node_sort(const struct ib_async_event *ev, int n,
		      struct node_key *keys)
{
	for (int i = 0; i < n; i++)
		keys[i] = (struct node_key){
			.ts = ev[i].timestamp_ns, .type = ev[i].event_type,
			.port = ev[i].port_num, .handle = ev[i].obj_handle,
			.idx = i,
		};
	qsort(keys, (size_t)n, sizeof(*keys), key_cmp);
}

/*
 * Index of the node's record of the channel's @r (same event), or -1.
 * Two events may share a key (concurrent handlers, a coarse clock under
 * emulation): the first of them not @seen yet, so that each of the
 * node's records stands for one of the channel's at most.
 */
static int node_index(const struct node_key *keys, int n, const srec_t *r,
		      const char *seen)
{
	struct node_key want = {
		.ts = r->rec.event.timestamp_ns,
		.type = r->rec.event.event_type,
		.port = r->rec.event.port_num,
		.handle = r->rec.event.obj_handle,
	};
	const struct node_key *k = bsearch(&want, keys, (size_t)n,
					   sizeof(*keys), key_cmp);

	if (!k)
		return -1;
	while (k > keys && !key_cmp(k - 1, &want))
		k--;
	while (k + 1 < keys + n && !key_cmp(k + 1, &want) && seen[k->idx])
		k++;
	return k->idx;
}

/*
 * One channel's stream after a storm: its snapshot first, then events
 * with one sequence; each of them one of the node's, none twice; every
 * event the node got after the snapshot's point in it; its QP events the
 * node's last ones, in their order (one source raised them).
 */
static void check_seam(struct __test_metadata *_metadata,
		       const struct ib_async_info *info,
		       const struct ib_async_event *ev,
		       const struct node_key *keys, int nev,
		       const srec_t *r, int n, char *seen)
{
	uint32_t snap = info->phys_port_cnt + 1;
	uint64_t point = r[0].rec.event.timestamp_ns;
	int i, k, first_qp = -1, qps = 0, node_qps = 0, after = 0;

	ASSERT_LE((int)snap, n);
	EXPECT_TRUE(seq_ok(r, n, 1));
	for (i = 0; i < (int)snap; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE, r[i].rec.event.event_type);
		EXPECT_EQ((uint32_t)i, r[i].rec.event.port_num);
	}
	EXPECT_EQ((uint32_t)IB_ASYNC_STATE_LAST, r[snap - 1].state.flags);
	memset(seen, 0, (size_t)nev);
	for (i = snap; i < n; i++) {
		ASSERT_NE((uint32_t)IB_ASYNC_EV_STATE, r[i].rec.event.event_type);
		k = node_index(keys, nev, &r[i], seen);
		ASSERT_LE(0, k) TH_LOG("record %d (seq %llu) is no event", i,
				       (unsigned long long)r[i].rec.event.seq);
		ASSERT_EQ(0, seen[k])
			TH_LOG("event %d (type %u at %llu ns) delivered twice", k,
			       ev[k].event_type,
			       (unsigned long long)ev[k].timestamp_ns);
		seen[k] = 1;
		if (r[i].rec.event.event_type == IB_ASYNC_EV_COMM_EST) {
			if (first_qp < 0)
				first_qp = k;
			qps++;
		}
	}
	/* every event the node got after the point is in the channel */
	for (k = 0; k < nev; k++) {
		if (ev[k].timestamp_ns <= point)
			continue;
		after++;
		EXPECT_TRUE(seen[k]) TH_LOG("event %d after the point missed", k);
	}
	EXPECT_LE(after, n - (int)snap);
	/* the QP's events: a suffix of the node's, no gap */
	for (k = 0; k < nev; k++)
		if (ev[k].event_type == IB_ASYNC_EV_COMM_EST)
			node_qps += k >= first_qp && first_qp >= 0;
	EXPECT_EQ(node_qps, qps);
}

/* Spin until the node was offered @total events, or 30 s passed. */
static void wait_offered(int fd, long long total)
{
	uint64_t end = iba_now_ms() + 30000;

	while (iba_offered(fd) < total && iba_now_ms() < end)
		sched_yield();
}

/*
 * Snapshots taken while a storm of QP events (one source, in order) and
 * of port events (ib_core's workqueue, any order) goes on, in each
 * context evsrc raises from, at points spread over the storm.
 */
TEST_F_TIMEOUT(st, the_seam_is_exact_under_a_storm, 600)
{
	struct ib_async_event *ev = calloc(MAX_RECS, sizeof(*ev));
	struct node_key *keys = calloc(MAX_RECS, sizeof(*keys));
	srec_t *r = calloc(MAX_RECS, sizeof(*r));
	char *seen = calloc(MAX_RECS, 1);
	int ch[SNAPSHOTS], nev, n, status, raced = 0;
	long long base;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_TRUE(ev && keys && r && seen);
	ASSERT_EQ(0, iba_set_queue_len(self->fd, MAX_RECS));
	for (unsigned int c = 0; c < iba_evsrc_ncontexts(); c++) {
		iba_drain(self->fd);
		for (int s = 0; s < SNAPSHOTS; s++) {
			ch[s] = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
			ASSERT_LE(0, ch[s]);
			ASSERT_EQ(0, iba_set_queue_len(ch[s], MAX_RECS));
		}
		base = iba_offered(self->fd);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (iba_evsrc_raise("%u qp:%d %s %d", IB_ASYNC_EV_COMM_EST,
					self->ev_qp, iba_evsrc_contexts[c], STORM) ||
			    iba_evsrc_raise("LID_CHANGE port:1 %s 300",
					iba_evsrc_contexts[c]))
				_exit(1);
			_exit(0);
		}
		/* snapshots at points spread over the storm */
		for (int s = 0; s < SNAPSHOTS; s++) {
			wait_offered(self->fd, base + (long long)(s + 1) *
					       STORM / (SNAPSHOTS + 1));
			ASSERT_LT(0, iba_subscribe(self->fd, ch[s],
					       IB_ASYNC_SUB_STATE, 0, 0, 0,
					       100 + s));
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		/* the last word, after every snapshot: each channel has it */
		ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
		nev = node_all(self->fd, ev, MAX_RECS);
		ASSERT_LT(STORM, nev) TH_LOG("the node lost events");
		node_sort(ev, nev, keys);
		for (int s = 0; s < SNAPSHOTS; s++) {
			n = drain(ch[s], r, MAX_RECS);
			EXPECT_EQ(0, iba_fdinfo(ch[s], "lost"));
			check_seam(_metadata, &self->info, ev, keys, nev, r, n,
				   seen);
			EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE,
				  r[n - 1].rec.event.event_type);
			n -= (int)self->info.phys_port_cnt + 1;
			raced += n > 1 && n < nev;
			TH_LOG("%s: snapshot %d: %d of %d events after it",
			       iba_evsrc_contexts[c], s, n, nev);
			close(ch[s]);
		}
	}
	/* the storm was on for at least one snapshot */
	EXPECT_LT(0, raced);
	free(ev);
	free(keys);
	free(r);
	free(seen);
}

/*
 * Read until nothing more comes for a while (a resync's snapshot is taken
 * by a work item, and reading a snapshot lets the next one in): records
 * read.
 */
static int drain_quiet(int ch, srec_t *rec, int max)
{
	uint64_t end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS;
	int n = 0, got, quiet = 0;

	while (n < max && quiet < 6 && iba_now_ms() < end) {
		got = drain(ch, rec + n, max - n);
		n += got;
		quiet = got ? 0 : quiet + 1;
		iba_sleep_ms(50);
	}
	return n;
}

/*
 * A resync channel that overflows gets a fresh snapshot after each
 * overflow record, one at a time: a second overflow while a snapshot is
 * unread gets its own once that one is read. The last says the state
 * after every event, those lost included.
 */
TEST_F(st, an_overflow_is_followed_by_a_fresh_snapshot)
{
	uint32_t nports = self->info.phys_port_cnt;
	uint64_t lost = 0, events = 0;
	bool pending = false;
	int ch, n, snaps = 0;
	srec_t r[256];

	IBA_SKIPPED_IN_SETUP();
	ASSERT_LE(2U, nports);
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE |
					      IB_ASYNC_CHANNEL_RESYNC);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, iba_set_queue_len(ch, 4));
	ASSERT_LT(0, iba_subscribe(self->fd, ch, 0, 0, 0, 0, 9));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 50", IB_ASYNC_EV_COMM_EST,
				 self->ev_qp, iba_evsrc_hard()));
	ASSERT_EQ(0, iba_evsrc_raise("PORT_ERR port:2"));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 50", IB_ASYNC_EV_COMM_EST,
				 self->ev_qp, iba_evsrc_hard()));
	n = drain_quiet(ch, r, 256);
	ASSERT_LT((int)nports + 1, n);
	EXPECT_TRUE(seq_ok(r, n, 1));
	for (int i = 0; i < n; i++) {
		uint32_t type = r[i].rec.event.event_type;

		if (type == IB_ASYNC_EV_OVERFLOW) {
			lost += r[i].rec.event.count;
			pending = true;
		} else if (type != IB_ASYNC_EV_STATE) {
			events++;
		} else if (!r[i].rec.event.port_num) {
			/* a snapshot only ever answers an overflow */
			EXPECT_TRUE(pending) TH_LOG("snapshot at %d", i);
			ASSERT_LE(i + (int)nports + 1, n);
			/* the last one must say what the ports are now */
			expect_snapshot_of(_metadata, self->fd, &self->info,
					   &r[i], IB_ASYNC_STATE_RESYNC, 9,
					   i + (int)nports + 1 == n);
			pending = false;
			snaps++;
		}
	}
	EXPECT_FALSE(pending) TH_LOG("an overflow got no snapshot");
	EXPECT_LE(1, snaps);
	EXPECT_EQ(101ULL, lost + events);
	EXPECT_EQ((long long)lost, iba_fdinfo(ch, "lost"));
	/* the stream ends with a snapshot that saw the port go down */
	EXPECT_EQ(0U, r[n - (int)nports - 1].rec.event.port_num);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_STATE,
		  r[n - (int)nports - 1].rec.event.event_type);
	EXPECT_EQ(1U, r[n - (int)nports + 1].state.state); /* port 2 DOWN */
	TH_LOG("%d records: %llu events, %llu lost, %d snapshots", n,
	       (unsigned long long)events, (unsigned long long)lost, snaps);
	close(ch);
}

/*
 * Closing a resync channel with its snapshot asked for and not yet taken,
 * over and over: the work is cancelled or waited for, and the node goes
 * on (the debug kernel's kmemleak and lockdep watch the rest).
 */
TEST_F(st, closing_with_a_snapshot_pending)
{
	srec_t r[16];
	int ch;

	IBA_SKIPPED_IN_SETUP();
	for (int i = 0; i < 50; i++) {
		ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE |
						      IB_ASYNC_CHANNEL_RESYNC);
		ASSERT_LE(0, ch);
		ASSERT_EQ(0, iba_set_queue_len(ch, 2));
		ASSERT_LT(0, iba_subscribe(self->fd, ch, 0, 0, 0, 0, 1));
		ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 8", IB_ASYNC_EV_COMM_EST,
					 self->ev_qp, iba_evsrc_hard()));
		close(ch);
	}
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch);
	ASSERT_LT(0, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_STATE, 0, 0, 0, 2));
	EXPECT_EQ((int)self->info.phys_port_cnt + 1, drain(ch, r, 16));
	close(ch);
}

/* A state channel's ring has records of its size, state included. */
TEST_F(st, a_ring_carries_the_state)
{
	struct ib_async_map_ring a = { .argsz = sizeof(a), .entries = 16 };
	struct ib_async_ring_wait w = {
		.argsz = sizeof(w), .flags = IB_ASYNC_READ_NONBLOCK,
	};
	struct ib_async_ring_header *hdr;
	uint32_t nports = self->info.phys_port_cnt;
	const srec_t *recs;
	void *p;
	int ch;

	IBA_SKIPPED_IN_SETUP();
	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_EVENT_RING))
		SKIP(return, "no rings");
	ch = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_STATE);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, iba_ioc(ch, IB_ASYNC_IOC_MAP_RING, &a));
	p = mmap(NULL, a.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, ch,
		 (off_t)a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	hdr = p;
	EXPECT_EQ((uint32_t)ST_REC, hdr->record_size);
	recs = (const srec_t *)((char *)p + hdr->records_offset);
	ASSERT_LT(0, iba_subscribe(self->fd, ch, IB_ASYNC_SUB_STATE, 0, 0, 0, 3));
	ASSERT_EQ(0, iba_evsrc_raise("LID_CHANGE port:1"));
	ASSERT_EQ(0, iba_ioc(ch, IB_ASYNC_IOC_RING_WAIT, &w));
	EXPECT_EQ(nports + 2, w.available);
	EXPECT_EQ(nports + 2, __atomic_load_n(&hdr->producer,
					      __ATOMIC_ACQUIRE));
	expect_snapshot(_metadata, self->fd, &self->info, recs, 0, 3);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_LID_CHANGE,
		  recs[nports + 1].rec.event.event_type);
	EXPECT_TRUE(all_zero(&recs[nports + 1].state, sizeof(recs[0].state)));
	munmap(p, a.mmap_size);
	close(ch);
}

TEST_HARNESS_MAIN

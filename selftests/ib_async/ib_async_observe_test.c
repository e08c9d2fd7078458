// SPDX-License-Identifier: GPL-2.0
/*
 * Watching queues from outside: fdinfo's queue ids, the per-device counters
 * in sysfs (counters/) and the tracepoints (events/ib_async/ in tracefs).
 *
 * The counters: every event the driver raised counts once in events, each
 * queue that took it in queued, each loss in lost, each record a reader
 * got in read, each record a destroy dropped in purged, checked as
 * differences around what this test raised and read.
 *
 * The tracepoints: every record
 * a queue takes is traced once as ib_async_enqueue, every record a reader
 * gets once as ib_async_dequeue, with the sequence number, type and object
 * of the record read() returned; a loss is traced with its run and total,
 * a merged completion event with the queue's coalesced count, a destroy's
 * purge with what it dropped. The queue is the one fdinfo names
 * (ib_async-queue-id). Events come from the evsrc test device, from
 * process and from its most atomic context.
 */
#include <sys/mount.h>

#include "../../include/ib_async_counters.h"
#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"

#define CQ_COOKIE	0x7ace00000000c001ULL
#define MAX_LINES	64

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* The tracefs holding our events, mounting it if need be; NULL if none. */
static const char *tracefs(void)
{
	static char events[128];
	unsigned int i;

	for (int tries = 0; tries < 2; tries++) {
		for (i = 0; i < ARRAY_SIZE(tracefs_dirs); i++) {
			snprintf(events, sizeof(events), "%s/events/ib_async",
				 tracefs_dirs[i]);
			if (!access(events, F_OK))
				return tracefs_dirs[i];
		}
		if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
			break;
	}
	return NULL;
}

static int tr_write(const char *dir, const char *file, const char *s,
		    int flags)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return iba_write_file(path, s, strlen(s), flags);
}

/*
 * The fields after "<event>: queue=<qid> " of every line of that event for
 * that queue, in trace order. Returns how many.
 */
static int trace_lines(const char *dir, const char *event, long long qid,
		       char lines[][256], int max)
{
	char path[256], buf[1024], key[96];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", dir);
	snprintf(key, sizeof(key), " %s: queue=%lld ", event, qid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f) && n < max) {
		char *p = strstr(buf, key);

		if (!p)
			continue;
		snprintf(lines[n], 256, "%s", p + strlen(key));
		lines[n][strcspn(lines[n], "\n")] = 0;
		n++;
	}
	fclose(f);
	return n;
}

/* What the record line of @ev must say (ib_async_record's format). */
static void expect_line(char *out, size_t len, const struct ib_async_event *ev)
{
	snprintf(out, len, "seq=%llu %s port=%u obj_type=%u obj=%u count=%llu",
		 (unsigned long long)ev->seq, iba_type_str(ev->event_type),
		 ev->port_num, ev->obj_type, ev->obj_handle,
		 (unsigned long long)ev->count);
}

FIXTURE(obs) {
	const char *dir;
	struct iba_dev dev;
	int fd;
	long long qid;
	uint32_t pd, cq;
	int ev_cq;
	long record_cmd;
};

FIXTURE_SETUP(obs)
{
	struct ib_async_create_pd pd = { .argsz = sizeof(pd) };
	struct ib_async_create_cq cq = { .argsz = sizeof(cq),
					 .user_handle = CQ_COOKIE, .cqe = 4 };
	const char *why;
	char opt[256];

	self->fd = -1;
	self->record_cmd = -1;
	why = iba_evsrc_dev(&self->dev);
	if (why)
		SKIP(return, "%s", why);
	self->dir = tracefs();
	if (!self->dir)
		SKIP(return, "no tracefs with events/ib_async");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	self->qid = iba_fdinfo(self->fd, "queue-id");
	ASSERT_LT(0, self->qid);
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_PD, &pd));
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CQ, &cq));
	self->pd = pd.handle;
	self->cq = cq.handle;
	self->ev_cq = iba_evsrc_find("cq", 0);
	ASSERT_LE(0, self->ev_cq);
	ASSERT_EQ(0, tr_write(self->dir, "trace", "", O_TRUNC));
	ASSERT_EQ(0, tr_write(self->dir, "tracing_on", "1", 0));
	/*
	 * No recording of task names: enabling an event would otherwise hook
	 * sched_switch, patching a jump label in __schedule() while both
	 * CPUs run it. Under QEMU's TCG a vCPU once kept hitting that site's
	 * transient int3 (6.1-rt) and the guest hung. Our events' own sites
	 * run only when the test raises events, after the patching is done.
	 */
	snprintf(opt, sizeof(opt), "%s/options/record-cmd", self->dir);
	self->record_cmd = iba_read_long(opt);
	if (self->record_cmd > 0)
		ASSERT_EQ(0, tr_write(self->dir, "options/record-cmd", "0", 0));
	ASSERT_EQ(0, tr_write(self->dir, "events/ib_async/enable", "1", 0));
}

FIXTURE_TEARDOWN(obs)
{
	if (self->dir)
		tr_write(self->dir, "events/ib_async/enable", "0", 0);
	/* after the events: with none enabled, nothing is hooked again */
	if (self->record_cmd > 0)
		tr_write(self->dir, "options/record-cmd", "1", 0);
	if (self->fd >= 0)
		close(self->fd);
}

static int raise_cq(FIXTURE_DATA(obs) *self, const char *ctx, int n)
{
	return iba_evsrc_write("raise", "%u cq:%d %s %d", IB_ASYNC_EV_CQ_ERR,
			   self->ev_cq, ctx, n);
}

TEST_F(obs, queue_ids_differ_between_files)
{
	int other;

	IBA_SKIPPED_IN_SETUP();
	other = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, other);
	EXPECT_LT(self->qid, iba_fdinfo(other, "queue-id"));
	close(other);
}

TEST_F(obs, every_record_is_traced_in_and_out_as_read_returned_it)
{
	char lines[MAX_LINES][256], want[256];
	struct ib_async_event ev[8];
	int i, n, got;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, raise_cq(self, "process", 2));
	ASSERT_EQ(0, raise_cq(self, iba_evsrc_hard(), 2));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 4, IBA_EVENT_TIMEOUT_MS));
	/* nothing is dequeued before a read */
	EXPECT_EQ(0, trace_lines(self->dir, "ib_async_dequeue", self->qid,
				 lines, MAX_LINES));
	n = read(self->fd, ev, sizeof(ev));
	ASSERT_EQ(4 * (int)sizeof(ev[0]), n);
	n /= sizeof(ev[0]);

	got = trace_lines(self->dir, "ib_async_enqueue", self->qid, lines,
			  MAX_LINES);
	ASSERT_EQ(n, got);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev[i].event_type);
		EXPECT_EQ(self->cq, ev[i].obj_handle);
		expect_line(want, sizeof(want), &ev[i]);
		EXPECT_STREQ(want, lines[i]);
	}
	got = trace_lines(self->dir, "ib_async_dequeue", self->qid, lines,
			  MAX_LINES);
	ASSERT_EQ(n, got);
	for (i = 0; i < n; i++) {
		expect_line(want, sizeof(want), &ev[i]);
		EXPECT_STREQ(want, lines[i]);
	}
}

TEST_F(obs, each_loss_is_traced_with_its_run_and_the_total)
{
	char lines[MAX_LINES][256], want[256];
	struct ib_async_event ev[8];
	const int len = 2, lost = 3;
	int i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_set_queue_len(self->fd, len));
	ASSERT_EQ(0, raise_cq(self, iba_evsrc_hard(), len + lost));
	ASSERT_EQ(lost, iba_fdinfo(self->fd, "lost"));
	n = read(self->fd, ev, sizeof(ev));
	ASSERT_EQ((len + 1) * (int)sizeof(ev[0]), n);
	ASSERT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, ev[len].event_type);
	ASSERT_EQ((uint64_t)lost, ev[len].count);

	ASSERT_EQ(len, trace_lines(self->dir, "ib_async_enqueue", self->qid,
				   lines, MAX_LINES));
	ASSERT_EQ(lost, trace_lines(self->dir, "ib_async_overflow", self->qid,
				    lines, MAX_LINES));
	for (i = 0; i < lost; i++) {
		snprintf(want, sizeof(want), "seq=%llu CQ_ERR run=%d lost=%d",
			 (unsigned long long)ev[len].seq + i, i + 1, i + 1);
		EXPECT_STREQ(want, lines[i]);
	}
	/* the overflow record leaves as the reader got it: one record */
	ASSERT_EQ(len + 1, trace_lines(self->dir, "ib_async_dequeue",
				       self->qid, lines, MAX_LINES));
	expect_line(want, sizeof(want), &ev[len]);
	EXPECT_STREQ(want, lines[len]);
}

TEST_F(obs, destroy_traces_the_purge_of_unread_records)
{
	char lines[MAX_LINES][256], want[256];
	struct ib_async_event ev;
	uint64_t reported = 99;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, raise_cq(self, "process", 4));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 4, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ((ssize_t)sizeof(ev), read(self->fd, &ev, sizeof(ev)));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->cq, &reported));
	ASSERT_EQ(1ULL, reported);
	EXPECT_EQ(0, iba_fionread(self->fd));
	ASSERT_EQ(1, trace_lines(self->dir, "ib_async_purge", self->qid,
				 lines, MAX_LINES));
	snprintf(want, sizeof(want), "dropped=3 reported=%llu",
		 (unsigned long long)reported);
	EXPECT_STREQ(want, lines[0]);
}

TEST_F(obs, a_merged_completion_event_is_traced_on_the_channels_queue)
{
	struct ib_async_create_channel ch = {
		.argsz = sizeof(ch), .flags = IB_ASYNC_CHANNEL_NONBLOCK,
		.type = IB_ASYNC_CHANNEL_COMP,
	};
	struct ib_async_create_cq cq = {
		.argsz = sizeof(cq), .flags = IB_ASYNC_CREATE_CQ_CHANNEL,
		.user_handle = CQ_COOKIE + 1, .cqe = 4,
	};
	char lines[MAX_LINES][256], want[256];
	long long chq;
	int ev_id;

	IBA_SKIPPED_IN_SETUP();
	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_COMP_CHANNEL))
		SKIP(return, "no completion channels on evsrc0");
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CHANNEL, &ch));
	chq = iba_fdinfo(ch.fd, "queue-id");
	ASSERT_LT(self->qid, chq);
	cq.comp_channel = ch.fd;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_CREATE_CQ, &cq));
	ev_id = iba_evsrc_find("cq", 0);
	ASSERT_LE(0, ev_id);
	ASSERT_EQ(0, iba_evsrc_write("raise", "COMP cq:%d %s 3", ev_id,
				 iba_evsrc_hard()));
	ASSERT_EQ(2, iba_fdinfo(ch.fd, "coalesced"));
	ASSERT_EQ(1, trace_lines(self->dir, "ib_async_enqueue", chq, lines,
				 MAX_LINES));
	ASSERT_EQ(2, trace_lines(self->dir, "ib_async_coalesce", chq, lines,
				 MAX_LINES));
	snprintf(want, sizeof(want), "COMP obj_type=%u obj=%u coalesced=2",
		 IB_ASYNC_OBJ_CQ, cq.handle);
	EXPECT_STREQ(want, lines[1]);
	/* the file's own queue saw none of it */
	EXPECT_EQ(0, trace_lines(self->dir, "ib_async_enqueue", self->qid,
				 lines, MAX_LINES));
	close(ch.fd);
}

/* The counters, as ib_async_counters.h lists them: C_<ID>, their names */
#define C_ID(id, name)		C_##id,
enum { IB_ASYNC_COUNTERS(C_ID) C_N };
#define C_NAME(id, name)	#name,
static const char *const counter_names[C_N] = {
	IB_ASYNC_COUNTERS(C_NAME)
};

/* Every counter of @dev's node, from sysfs. 0 or -1. */
static int counters(const struct iba_dev *dev, long long *c)
{
	int i;

	for (i = 0; i < C_N; i++) {
		c[i] = iba_counter(dev, counter_names[i]);
		if (c[i] < 0)
			return -1;
	}
	return 0;
}

/* The counters moved by exactly @want since @before. */
static void expect_counts(struct __test_metadata *_metadata,
			  const struct iba_dev *dev, const long long *before,
			  const long long *want)
{
	long long now[C_N];
	int i;

	ASSERT_EQ(0, counters(dev, now));
	for (i = 0; i < C_N; i++) {
		const char *name = counter_names[i];
		long long d = now[i] - before[i];

		if (d != want[i])
			TH_LOG("counters/%s: %lld -> %lld, want +%lld", name,
			       before[i], now[i], want[i]);
		EXPECT_EQ(want[i], d);
	}
}

TEST_F(obs, counters_count_queued_lost_read_and_purged_records)
{
	struct ib_async_event ev[8];
	long long before[C_N], want[C_N] = { 0 };
	uint64_t reported;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, counters(&self->dev, before));
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 2));
	/* affiliated: only the CQ's file queues them; 2 fit, 3 are lost */
	ASSERT_EQ(0, raise_cq(self, iba_evsrc_hard(), 5));
	want[C_EVENTS] = 5;
	want[C_QUEUED] = 2;
	want[C_LOST] = 3;
	expect_counts(_metadata, &self->dev, before, want);

	/* two records and the overflow record reach the reader */
	ASSERT_EQ(3 * (ssize_t)sizeof(ev[0]), read(self->fd, ev, sizeof(ev)));
	want[C_READ] = 3;
	expect_counts(_metadata, &self->dev, before, want);

	/* two more, unread when the CQ goes */
	ASSERT_EQ(0, raise_cq(self, "process", 2));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_CQ, self->cq, &reported));
	EXPECT_EQ(2ULL, reported);
	want[C_EVENTS] += 2;
	want[C_QUEUED] += 2;
	want[C_PURGED] = 2;
	expect_counts(_metadata, &self->dev, before, want);
}

TEST_F(obs, a_port_event_counts_once_and_is_queued_by_every_file)
{
	long long before[C_N], want[C_N] = { 0 };
	int other;

	IBA_SKIPPED_IN_SETUP();
	other = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, counters(&self->dev, before));
	ASSERT_EQ(0, iba_evsrc_write("raise", "SM_CHANGE port:1 %s 3",
				 iba_evsrc_hard()));
	want[C_EVENTS] = 3;
	want[C_QUEUED] = 6;
	expect_counts(_metadata, &self->dev, before, want);
	EXPECT_EQ(3, iba_drain(other));
	want[C_READ] = 3;
	expect_counts(_metadata, &self->dev, before, want);
	close(other);
}

TEST_F(obs, counters_outlive_the_files_that_saw_the_events)
{
	long long before[C_N], after[C_N];
	int other;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, counters(&self->dev, before));
	other = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, iba_set_queue_len(other, 1));
	ASSERT_EQ(0, iba_evsrc_write("raise", "SM_CHANGE port:1 process 4"));
	close(other);
	ASSERT_EQ(0, counters(&self->dev, after));
	EXPECT_EQ(4, after[C_EVENTS] - before[C_EVENTS]);
	/* this fixture's file took all 4, the closed one 1 */
	EXPECT_EQ(5, after[C_QUEUED] - before[C_QUEUED]);
	EXPECT_EQ(3, after[C_LOST] - before[C_LOST]);
}

TEST_HARNESS_MAIN

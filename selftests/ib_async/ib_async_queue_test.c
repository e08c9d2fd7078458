// SPDX-License-Identifier: GPL-2.0
/*
 * Queue semantics of one ib_async file: read, poll, epoll, SIGIO, FIONREAD,
 * fan-out to every open file, many readers on one file. Events come from
 * the ib_async_storm test module (SM_CHANGE, which rxe never raises).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/mman.h>

#include "lib/iba_util.h"

#define STORM_TYPE	IB_ASYNC_EV_SM_CHANGE
#define NFILES		3
#define NTHREADS	8
#define THREAD_EVENTS	5000

FIXTURE(storm) {
	struct iba_dev dev;
	int fd;
};

FIXTURE_SETUP(storm)
{
	self->fd = -1;
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	if (iba_storm_available())
		SKIP(return, "no %s (ib_async_storm.ko not loaded?)",
		     IBA_STORM_FILE);
	self->fd = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
}

FIXTURE_TEARDOWN(storm)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int storm(struct __test_metadata *_metadata, const char *ibdev,
		 unsigned long n)
{
	int ret = iba_storm(ibdev, STORM_TYPE, 1, n);

	EXPECT_EQ(0, ret) TH_LOG("storm write: %s", strerror(-ret));
	return ret;
}

/* Fork a child that dispatches one event after @delay_ms. */
static pid_t storm_later(const char *ibdev, unsigned int delay_ms)
{
	pid_t pid = fork();

	if (pid == 0) {
		iba_sleep_ms(delay_ms);
		_exit(iba_storm(ibdev, STORM_TYPE, 1, 1) ? 1 : 0);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(storm, empty_nonblocking_read_returns_eagain)
{
	struct ib_async_event ev;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(storm, empty_file_polls_not_readable)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(0, poll(&p, 1, 0));
	EXPECT_EQ(0, iba_fionread(self->fd));
}

TEST_F(storm, event_record_fields)
{
	struct ib_async_event ev;
	uint64_t t0 = iba_now_ms();

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	ASSERT_EQ(0, iba_wait_type(self->fd, STORM_TYPE, IBA_EVENT_TIMEOUT_MS,
				   &ev));
	EXPECT_EQ(1ULL, ev.element);
	EXPECT_EQ(1U, ev.port_num);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_PORT, ev.obj_type);
	EXPECT_EQ(0U, ev.obj_handle);
	EXPECT_EQ(1ULL, ev.count);
	EXPECT_LE(t0 * 1000000ULL, ev.timestamp_ns);
	EXPECT_GE(iba_now_ms() * 1000000ULL + 1000000ULL, ev.timestamp_ns);
}

TEST_F(storm, first_record_has_seq_one)
{
	struct ib_async_event ev;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(IBA_REC, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(1ULL, ev.seq);
}

TEST_F_TIMEOUT(storm, poll_wakes_on_event, 60)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN | POLLRDNORM };
	pid_t child;

	IBA_SKIPPED_IN_SETUP();
	child = storm_later(self->dev.ibdev, 300);
	ASSERT_LT(0, child);
	EXPECT_EQ(1, poll(&p, 1, 3 * IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(POLLIN | POLLRDNORM, p.revents & (POLLIN | POLLRDNORM));
	EXPECT_EQ(0, p.revents & (POLLERR | POLLHUP | POLLNVAL));
	EXPECT_EQ(0, reap(child));
}

TEST_F_TIMEOUT(storm, blocking_read_wakes_on_event, 60)
{
	struct ib_async_event ev;
	pid_t child;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_fionread(fd));
	child = storm_later(self->dev.ibdev, 300);
	ASSERT_LT(0, child);
	/* the harness' timeout catches a read that never wakes */
	EXPECT_EQ(IBA_REC, read(fd, &ev, sizeof(ev)));
	EXPECT_EQ(0, reap(child));
	close(fd);
}

static void on_signal(int sig)
{
	(void)sig;
}

TEST_F_TIMEOUT(storm, blocking_read_is_interruptible, 60)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct ib_async_event ev;
	pid_t child, parent = getpid();
	ssize_t n;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	fd = open(self->dev.node, O_RDONLY);
	ASSERT_LE(0, fd);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		iba_sleep_ms(500);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	n = read(fd, &ev, sizeof(ev));
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EINTR, errno);
	reap(child);
	close(fd);
}

TEST_F(storm, short_buffer_returns_einval_and_keeps_event)
{
	struct ib_async_event ev;
	char small[IBA_REC - 1];

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(IBA_REC, iba_fionread(self->fd));
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(IBA_REC, iba_fionread(self->fd));
	EXPECT_EQ(-1, read(self->fd, small, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(IBA_REC, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ((uint32_t)STORM_TYPE, ev.event_type);
	EXPECT_EQ(1ULL, ev.seq);
}

TEST_F(storm, short_buffer_on_empty_file_returns_einval)
{
	char small[IBA_REC - 1];

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, read(self->fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(storm, bad_buffer_returns_efault_and_keeps_event)
{
	void *bad;

	IBA_SKIPPED_IN_SETUP();
	bad = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bad);
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(-1, read(self->fd, bad, IBA_REC));
	EXPECT_EQ(EFAULT, errno);
	/* an event that did not reach the user is still there */
	EXPECT_EQ(IBA_REC, iba_fionread(self->fd));
	munmap(bad, 4096);
}

TEST_F_TIMEOUT(storm, one_read_returns_several_records, 60)
{
	struct ib_async_event ev[16];
	ssize_t n;
	int nrec, bad;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 5));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 5, IBA_EVENT_TIMEOUT_MS));
	n = read(self->fd, ev, sizeof(ev));
	ASSERT_LE(5 * IBA_REC, n);
	ASSERT_EQ(0, n % IBA_REC);
	nrec = (int)(n / IBA_REC);
	EXPECT_EQ(1ULL, ev[0].seq);
	bad = iba_seq_continuous(ev, nrec);
	EXPECT_EQ(-1, bad) TH_LOG("seq gap after record %d", bad);
}

TEST_F_TIMEOUT(storm, read_returns_whole_records_only, 60)
{
	char buf[3 * IBA_REC];

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 3));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 3, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(2 * IBA_REC, read(self->fd, buf, 3 * IBA_REC - 1));
	EXPECT_LE(IBA_REC, iba_fionread(self->fd));
}

TEST_F_TIMEOUT(storm, fionread_counts_queued_bytes, 60)
{
	struct ib_async_event ev[32];
	struct ib_async_info info;
	int bytes;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 7));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 7, IBA_EVENT_TIMEOUT_MS));
	bytes = iba_fionread(self->fd);
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ((int)info.queued * IBA_REC, bytes);
	EXPECT_LE(7 * IBA_REC, bytes);
	EXPECT_EQ(bytes, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(0, iba_fionread(self->fd));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(0U, info.queued);
}

static int cmp_ts(const void *a, const void *b)
{
	const struct ib_async_event *x = a, *y = b;

	if (x->timestamp_ns != y->timestamp_ns)
		return x->timestamp_ns < y->timestamp_ns ? -1 : 1;
	return (int)x->event_type - (int)y->event_type;
}

TEST_F_TIMEOUT(storm, every_open_file_gets_every_event, 120)
{
	static struct ib_async_event ev[NFILES][256];
	int fds[NFILES], n[NFILES], i, j, reordered = 0;
	const unsigned long nev = 100;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < NFILES; i++) {
		fds[i] = open(self->dev.node, O_RDONLY | O_NONBLOCK);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, nev));
	for (i = 0; i < NFILES; i++) {
		ssize_t got;

		ASSERT_EQ(0, iba_wait_offered(fds[i], nev,
					      3 * IBA_EVENT_TIMEOUT_MS));
		got = read(fds[i], ev[i], sizeof(ev[i]));
		ASSERT_LT(0, got);
		n[i] = (int)(got / IBA_REC);
		EXPECT_LE((int)nev, n[i]);
		EXPECT_EQ(1ULL, ev[i][0].seq);
		EXPECT_EQ(-1, iba_seq_continuous(ev[i], n[i]));
	}
	/* Same events (type, port, timestamp) in every file. */
	for (i = 1; i < NFILES; i++) {
		ASSERT_EQ(n[0], n[i]);
		for (j = 0; j < n[0]; j++)
			if (ev[0][j].timestamp_ns != ev[i][j].timestamp_ns)
				reordered++;
	}
	if (reordered)
		TH_LOG("%d records in a different order across files",
		       reordered);
	for (i = 0; i < NFILES; i++)
		qsort(ev[i], n[i], sizeof(ev[i][0]), cmp_ts);
	for (i = 1; i < NFILES; i++) {
		for (j = 0; j < n[0]; j++) {
			EXPECT_EQ(ev[0][j].timestamp_ns, ev[i][j].timestamp_ns);
			EXPECT_EQ(ev[0][j].event_type, ev[i][j].event_type);
			EXPECT_EQ(ev[0][j].port_num, ev[i][j].port_num);
			EXPECT_EQ(ev[0][j].element, ev[i][j].element);
		}
	}
	for (i = 0; i < NFILES; i++)
		close(fds[i]);
}

struct reader {
	pthread_t thread;
	int fd;
	size_t bufrec;		/* records per read() */
	atomic_int *done;
	uint64_t *seqs;		/* seqs[k] = seq of the k-th record read */
	size_t nseq, cap;
	int overflow;
	int error;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct ib_async_event *buf;

	buf = calloc(r->bufrec, sizeof(*buf));
	if (!buf) {
		r->error = ENOMEM;
		return NULL;
	}
	for (;;) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		ssize_t n;
		size_t i;

		n = read(r->fd, buf, r->bufrec * sizeof(*buf));
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				r->error = errno;
				break;
			}
			if (atomic_load(r->done))
				break;
			poll(&p, 1, 50);
			continue;
		}
		if (n % IBA_REC) {
			r->error = EPROTO;
			break;
		}
		for (i = 0; i < (size_t)n / IBA_REC; i++) {
			if (buf[i].event_type == IB_ASYNC_EV_OVERFLOW)
				r->overflow++;
			if (r->nseq == r->cap) {
				r->error = E2BIG;
				goto out;
			}
			r->seqs[r->nseq++] = buf[i].seq;
		}
	}
out:
	free(buf);
	return NULL;
}

TEST_F_TIMEOUT(storm, threads_reading_one_file_get_each_event_once, 300)
{
	struct reader r[NTHREADS];
	struct ib_async_info info;
	atomic_int done = 0;
	long long total;
	uint8_t *seen;
	size_t i, k, nread = 0;
	int dup = 0, missing = 0;

	IBA_SKIPPED_IN_SETUP();
	/* room for all: this test is about readers, not overflow */
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 2 * THREAD_EVENTS));
	for (i = 0; i < NTHREADS; i++) {
		r[i] = (struct reader){
			.fd = self->fd,
			.bufrec = (i % 2) ? 64 : 1,
			.done = &done,
			.cap = 2 * THREAD_EVENTS,
		};
		r[i].seqs = calloc(r[i].cap, sizeof(uint64_t));
		ASSERT_NE(NULL, r[i].seqs);
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, reader_main,
					    &r[i]));
	}
	EXPECT_EQ(0, storm(_metadata, self->dev.ibdev, THREAD_EVENTS));
	EXPECT_EQ(0, iba_wait_offered(self->fd, THREAD_EVENTS, 120000));
	/* wait until the readers emptied the queue */
	for (k = 0; k < 6000; k++) {
		ASSERT_EQ(0, iba_get_info(self->fd, &info));
		if (!info.queued)
			break;
		iba_sleep_ms(10);
	}
	atomic_store(&done, 1);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(r[i].thread, NULL);

	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(0ULL, info.lost);
	EXPECT_EQ(0U, info.queued);
	total = (long long)info.next_seq - 1;
	EXPECT_LE(THREAD_EVENTS, total);
	seen = calloc(total + 1, 1);
	ASSERT_NE(NULL, seen);
	for (i = 0; i < NTHREADS; i++) {
		EXPECT_EQ(0, r[i].error) TH_LOG("reader %zu: %s", i,
						 strerror(r[i].error));
		EXPECT_EQ(0, r[i].overflow);
		nread += r[i].nseq;
		for (k = 0; k < r[i].nseq; k++) {
			uint64_t s = r[i].seqs[k];

			if (s < 1 || s > (uint64_t)total)
				missing++;
			else if (seen[s]++)
				dup++;
		}
		free(r[i].seqs);
	}
	for (k = 1; k <= (size_t)total; k++)
		if (!seen[k])
			missing++;
	free(seen);
	EXPECT_EQ((size_t)total, nread);
	EXPECT_EQ(0, dup) TH_LOG("%d records read twice", dup);
	EXPECT_EQ(0, missing) TH_LOG("%d seqs missing or out of range",
				     missing);
}

static volatile sig_atomic_t sigio_count;

static void on_sigio(int sig)
{
	(void)sig;
	sigio_count++;
}

TEST_F_TIMEOUT(storm, sigio_delivered_with_o_async, 60)
{
	struct sigaction sa = { .sa_handler = on_sigio };
	uint64_t end;
	int fl;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	ASSERT_EQ(0, fcntl(self->fd, F_SETOWN, getpid()));
	fl = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, fl | O_ASYNC));
	sigio_count = 0;
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS;
	while (!sigio_count && iba_now_ms() < end)
		iba_sleep_ms(10);
	EXPECT_LT(0, sigio_count);
	EXPECT_EQ(0, fcntl(self->fd, F_SETFL, fl));
}

TEST_F_TIMEOUT(storm, no_sigio_without_o_async, 60)
{
	struct sigaction sa = { .sa_handler = on_sigio };

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, sigaction(SIGIO, &sa, NULL));
	ASSERT_EQ(0, fcntl(self->fd, F_SETOWN, getpid()));
	sigio_count = 0;
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));
	iba_sleep_ms(200);
	EXPECT_EQ(0, sigio_count);
}

TEST_F_TIMEOUT(storm, epoll_edge_triggered_wakes_once_and_drains, 60)
{
	struct epoll_event ee = { .events = EPOLLIN | EPOLLET }, out;
	struct ib_async_event ev;
	int ep, nread = 0;

	IBA_SKIPPED_IN_SETUP();
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ee));
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 10));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 10, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, IBA_EVENT_TIMEOUT_MS));
	EXPECT_NE(0U, out.events & EPOLLIN);
	/* edge-triggered: no second wakeup for the same data */
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 100));
	/* one record per read, until EAGAIN */
	while (read(self->fd, &ev, sizeof(ev)) == IBA_REC)
		nread++;
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(10, nread);
	EXPECT_EQ(0, iba_fionread(self->fd));
	/* a new event is a new edge */
	ASSERT_EQ(0, storm(_metadata, self->dev.ibdev, 1));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, IBA_EVENT_TIMEOUT_MS));
	close(ep);
}

/* The test module's own contract: only events that reach clients. */
TEST_F(storm, storm_module_rejects_bad_input)
{
	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-EINVAL, iba_storm(self->dev.ibdev,
				     IB_ASYNC_EV_GID_CHANGE, 1, 1));
	EXPECT_EQ(-EINVAL, iba_storm(self->dev.ibdev,
				     IB_ASYNC_EV_QP_FATAL, 1, 1));
	EXPECT_EQ(-EINVAL, iba_storm(self->dev.ibdev, STORM_TYPE, 1, 0));
	EXPECT_EQ(-EINVAL, iba_storm(self->dev.ibdev, STORM_TYPE, 1,
				     10000001));
	EXPECT_EQ(-EINVAL, iba_storm(self->dev.ibdev, STORM_TYPE, 99, 1));
	EXPECT_EQ(-ENODEV, iba_storm("nosuchdev0", STORM_TYPE, 1, 1));
	iba_sleep_ms(200);
	EXPECT_EQ(0, iba_fionread(self->fd));
}

TEST_HARNESS_MAIN

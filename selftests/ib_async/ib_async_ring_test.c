// SPDX-License-Identifier: GPL-2.0
/*
 * Event rings mapped to user space (IB_ASYNC_IOC_MAP_RING): records
 * delivered into shared memory without a system call per record, in
 * order, with the queue behind the ring and its loss accounting intact.
 *
 * Everything is checked on what the kernel wrote: the ring's producer
 * index and records (type, port, sequence, cookie), GET_INFO and fdinfo
 * counts, destroy's events_reported, errors. The consumer index the test
 * writes is the only thing it writes, including nonsense ones.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"
#include "lib/iba_uffd.h"


struct ring {
	struct ib_async_ring_header *hdr;
	unsigned char *recs;
	size_t size;
	uint32_t entries;
};

/* mmap the ring MAP_RING answered with @a: 0 or -errno. */
static int ring_mmap(int fd, const struct ib_async_map_ring *a, struct ring *r)
{
	void *p = mmap(NULL, a->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, (off_t)a->mmap_offset);

	if (p == MAP_FAILED)
		return -errno;
	r->hdr = p;
	r->recs = (unsigned char *)p + r->hdr->records_offset;
	r->size = a->mmap_size;
	r->entries = a->entries;
	return 0;
}

/* MAP_RING and mmap: 0 or -errno. */
static int ring_map(int fd, uint32_t entries, struct ring *r)
{
	struct ib_async_map_ring a = { .argsz = sizeof(a), .entries = entries };
	int ret = iba_ioc(fd, IB_ASYNC_IOC_MAP_RING, &a);

	return ret ? ret : ring_mmap(fd, &a, r);
}

static void ring_unmap(struct ring *r)
{
	munmap(r->hdr, r->size);
}

static uint32_t ring_producer(const struct ring *r)
{
	return __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
}

/* Take up to @max records of @size bytes each into @out: how many. */
static int ring_take(struct ring *r, void *out, size_t size, int max)
{
	uint32_t cons = r->hdr->consumer, prod = ring_producer(r);
	int n = 0;

	while (cons != prod && n < max) {
		memcpy((unsigned char *)out + (size_t)n * size,
		       r->recs + (size_t)(cons & (r->entries - 1)) * size,
		       size);
		cons++;
		n++;
	}
	__atomic_store_n(&r->hdr->consumer, cons, __ATOMIC_RELEASE);
	return n;
}

/* RING_WAIT: records available (> 0) or -errno. */
static int ring_wait(int fd, uint32_t flags)
{
	struct ib_async_ring_wait a = { .argsz = sizeof(a), .flags = flags };
	int ret = iba_ioc(fd, IB_ASYNC_IOC_RING_WAIT, &a);

	return ret ? ret : (int)a.available;
}

FIXTURE(ring) {
	struct iba_dev dev;
	int fd;
	uint32_t pd, cq, qp;
	int ev_qp;
};

FIXTURE_SETUP(ring)
{
	IBA_EVSRC_FIXTURE_OPEN(self, IB_ASYNC_FEATURE_EVENT_RING, "no event rings");
	ASSERT_EQ(0, iba_evsrc_ud_qp(self->fd, &self->pd, &self->cq, &self->qp,
				 &self->ev_qp));
	ASSERT_LE(0, self->ev_qp);
	iba_drain(self->fd);
}

FIXTURE_TEARDOWN(ring)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Events go straight into the ring, from process and hard-irq context, in
 * order, each counted delivered; read() would reorder them, so it is
 * refused, and the kernel queue holds nothing.
 */
TEST_F(ring, records_go_straight_into_the_ring_in_order)
{
	struct ib_async_read_batch b = { .argsz = sizeof(b), .count = 1 };
	struct ib_async_event ev[16];
	struct ib_async_info info;
	struct ring r;
	int i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ring_map(self->fd, 50, &r));
	EXPECT_EQ(64U, r.entries);
	EXPECT_EQ(64U, r.hdr->entries);
	EXPECT_EQ((uint32_t)IBA_REC, r.hdr->record_size);
	EXPECT_EQ(0U, r.hdr->producer);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:%d %s", 1 + i % 2,
				      i % 3 ? iba_evsrc_hard() : "process"));
	EXPECT_EQ(10U, ring_producer(&r));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(0U, info.queued);
	EXPECT_EQ(10, iba_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(10, iba_fdinfo(self->fd, "ring-produced"));
	EXPECT_EQ(64, iba_fdinfo(self->fd, "ring-entries"));

	n = ring_take(&r, ev, sizeof(ev[0]), 16);
	ASSERT_EQ(10, n);
	EXPECT_TRUE(iba_seq_continuous(ev, n));
	for (i = 0; i < n; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE, ev[i].event_type);
		EXPECT_EQ((uint32_t)(1 + i % 2), ev[i].port_num);
		EXPECT_EQ(1ULL, ev[i].count);
	}
	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(EBUSY, errno);
	b.buf = (uintptr_t)ev;
	EXPECT_EQ(-EBUSY, iba_ioc(self->fd, IB_ASYNC_IOC_READ_BATCH, &b));
	EXPECT_EQ(-EAGAIN, ring_wait(self->fd, IB_ASYNC_READ_NONBLOCK));
	ring_unmap(&r);
}

/*
 * A full ring leaves records in the bounded queue, which loses what does
 * not fit with an exact count; RING_WAIT moves the rest on in order, the
 * overflow record last, and nothing is delivered twice or lost twice.
 */
TEST_F(ring, a_full_ring_backs_up_into_the_queue_with_exact_loss)
{
	struct ib_async_event ev[64], all[64];
	struct ib_async_info info;
	int n, got = 0, k;
	struct ring r;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 16));
	ASSERT_EQ(0, ring_map(self->fd, 8, &r));
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 %s 30", iba_evsrc_hard()));
	EXPECT_EQ(8U, ring_producer(&r));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(17U, info.queued);	/* 16 events and the overflow record */
	EXPECT_EQ(6ULL, info.lost);

	for (k = 0; k < 8; k++) {
		n = ring_take(&r, ev, sizeof(ev[0]), 64);
		memcpy(all + got, ev, (size_t)n * sizeof(ev[0]));
		got += n;
		n = ring_wait(self->fd, IB_ASYNC_READ_NONBLOCK);
		if (n == -EAGAIN)
			break;
		ASSERT_LT(0, n);
	}
	ASSERT_EQ(25, got);
	EXPECT_TRUE(iba_seq_continuous(all, got));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, all[24].event_type);
	EXPECT_EQ(25ULL, all[24].seq);
	EXPECT_EQ(6ULL, all[24].count);
	EXPECT_EQ(25, iba_fdinfo(self->fd, "delivered"));
	EXPECT_EQ(6, iba_fdinfo(self->fd, "lost"));
	EXPECT_EQ(0, iba_fionread(self->fd));
	ring_unmap(&r);
}

/*
 * The kernel never trusts the consumer index: one ahead of the producer
 * or far behind it makes the ring full, so events wait in the queue; a
 * sane value again lets them through, in order.
 */
TEST_F(ring, a_nonsense_consumer_index_only_stalls_its_own_ring)
{
	struct ib_async_event ev[8];
	struct ib_async_info info;
	uint32_t bad[] = { 5, 0x80000000u, 0xffffff00u };
	struct ring r;
	unsigned int i;
	int n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ring_map(self->fd, 8, &r));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r.hdr->consumer = bad[i];
		ASSERT_EQ(0, iba_evsrc_raise("LID_CHANGE port:2"));
		EXPECT_EQ(0U, ring_producer(&r));
	}
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(3U, info.queued);
	EXPECT_EQ(0ULL, info.lost);
	r.hdr->consumer = 0;
	EXPECT_EQ(3, ring_wait(self->fd, IB_ASYNC_READ_NONBLOCK));
	n = ring_take(&r, ev, sizeof(ev[0]), 8);
	ASSERT_EQ(3, n);
	EXPECT_EQ(1ULL, ev[0].seq);
	EXPECT_TRUE(iba_seq_continuous(ev, n));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_LID_CHANGE, ev[2].event_type);
	ring_unmap(&r);
}

/*
 * A record in the ring is delivered: destroy counts it in events_reported
 * and cannot take it back; the object's records still in the queue are
 * purged and never reach the ring.
 */
TEST_F(ring, destroy_counts_ring_records_and_purges_the_queue)
{
	struct ib_async_event ev[8];
	uint64_t reported = 0;
	struct ring r;
	int n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ring_map(self->fd, 2, &r));
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d %s 5", IB_ASYNC_EV_COMM_EST,
			      self->ev_qp, iba_evsrc_hard()));
	EXPECT_EQ(2U, ring_producer(&r));
	EXPECT_EQ(3, iba_fionread(self->fd) / IBA_REC);
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, self->qp, &reported));
	EXPECT_EQ(2ULL, reported);
	EXPECT_EQ(0, iba_fionread(self->fd));
	n = ring_take(&r, ev, sizeof(ev[0]), 8);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0x9bULL, ev[0].element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_QP, ev[1].obj_type);
	EXPECT_EQ(self->qp, ev[1].obj_handle);
	EXPECT_EQ(-EAGAIN, ring_wait(self->fd, IB_ASYNC_READ_NONBLOCK));
	ring_unmap(&r);
}

static void *wait_thread(void *arg)
{
	struct iba_reader *rd = arg;

	rd->ret = ring_wait(rd->fd, 0);
	return NULL;
}

/*
 * poll() tells the truth about the ring, and a blocked RING_WAIT wakes
 * when an event arrives from hard irq.
 */
TEST_F(ring, poll_and_a_blocked_wait_see_the_ring)
{
	struct pollfd p = { .events = POLLIN };
	struct iba_reader rd = { .ret = 99 };
	struct ib_async_event ev;
	struct ring r;
	pthread_t t;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_map(fd, 4, &r));
	p.fd = fd;
	EXPECT_EQ(0, poll(&p, 1, 0));
	rd.fd = fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_thread, &rd));
	iba_sleep_ms(200);
	EXPECT_EQ(99, rd.ret);	/* still blocked */
	ASSERT_EQ(0, iba_evsrc_raise("PKEY_CHANGE port:1 %s", iba_evsrc_hard()));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(1, rd.ret);
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLIN, p.revents);
	ASSERT_EQ(1, ring_take(&r, &ev, sizeof(ev), 1));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_PKEY_CHANGE, ev.event_type);
	EXPECT_EQ(0, poll(&p, 1, 0));
	ring_unmap(&r);
	close(fd);
}

/*
 * A reader asleep in read() when the ring is mapped returns EBUSY, as a
 * read() after MAP_RING does: from then on the events go to the ring, and
 * the queue it slept on would stay empty. (Before, it slept on until the
 * ring filled: the test then fills it, so that the reader returns.)
 */
TEST_F(ring, a_reader_asleep_when_the_ring_is_mapped_returns_ebusy)
{
	struct iba_reader rd = { .ret = 99 };
	struct ib_async_event ev;
	struct timespec until;
	struct ring r;
	pthread_t t;
	int fd, joined;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	rd.fd = fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, iba_reader_run, &rd));
	iba_sleep_ms(200);
	EXPECT_EQ(99, rd.ret);	/* asleep */
	ASSERT_EQ(0, ring_map(fd, 4, &r));
	ASSERT_EQ(0, iba_evsrc_raise("PKEY_CHANGE port:1 process"));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	joined = pthread_timedjoin_np(t, NULL, &until);
	EXPECT_EQ(0, joined) TH_LOG("the reader slept on after MAP_RING");
	if (joined) {
		ASSERT_EQ(0, iba_evsrc_raise("PKEY_CHANGE port:1 process 8"));
		ASSERT_EQ(0, pthread_join(t, NULL));
	} else {
		EXPECT_EQ(-1, rd.ret);
		EXPECT_EQ(EBUSY, rd.err);
		ASSERT_EQ(1, ring_take(&r, &ev, sizeof(ev), 1));
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_PKEY_CHANGE, ev.event_type);
	}
	ring_unmap(&r);
	close(fd);
}

/*
 * An event channel's ring holds what its subscriptions match, with the
 * cookie; coalescing and completion channels, whose records change while
 * queued, refuse a ring.
 */
TEST_F(ring, an_event_channel_ring_gets_its_subscriptions_records)
{
	struct ib_async_subscribe s = {
		.argsz = sizeof(s), .flags = IB_ASYNC_SUB_PORT, .port = 2,
		.cookie = 0x77,
	};
	struct ib_async_map_ring m = { .argsz = sizeof(m), .entries = 8 };
	struct ib_async_chan_event ev[8];
	int ch, co, cc, n, i;
	struct ring r;

	IBA_SKIPPED_IN_SETUP();
	ch = iba_event_channel(self->fd, 0);
	ASSERT_LE(0, ch);
	s.fd = ch;
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_SUBSCRIBE, &s));
	ASSERT_EQ(0, ring_map(ch, 8, &r));
	EXPECT_EQ((uint32_t)sizeof(ev[0]), r.hdr->record_size);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:%d %s", 1 + i % 2,
				      iba_evsrc_hard()));
	n = ring_take(&r, ev, sizeof(ev[0]), 8);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((uint64_t)i + 1, ev[i].event.seq);
		EXPECT_EQ(2U, ev[i].event.port_num);
		EXPECT_EQ(0x77ULL, ev[i].cookie);
		EXPECT_EQ(1ULL, ev[i].occurrences);
		EXPECT_EQ(ev[i].event.timestamp_ns, ev[i].last_timestamp_ns);
	}
	EXPECT_EQ(8, iba_fdinfo(ch, "ring-entries"));
	EXPECT_EQ(-EBUSY, iba_ioc(ch, IB_ASYNC_IOC_MAP_RING, &m));
	co = iba_event_channel(self->fd, IB_ASYNC_CHANNEL_COALESCE);
	ASSERT_LE(0, co);
	m.entries = 8;
	EXPECT_EQ(-EOPNOTSUPP, iba_ioc(co, IB_ASYNC_IOC_MAP_RING, &m));
	cc = iba_channel(self->fd, IB_ASYNC_CHANNEL_COMP,
			 IB_ASYNC_CHANNEL_NONBLOCK);
	ASSERT_LE(0, cc);
	m.entries = 8;
	EXPECT_EQ(-EOPNOTSUPP, iba_ioc(cc, IB_ASYNC_IOC_MAP_RING, &m));
	ring_unmap(&r);
	close(cc);
	close(co);
	close(ch);
}

/* Every malformed request is refused before anything changes. */
TEST_F(ring, malformed_requests_are_refused)
{
	struct ib_async_map_ring m = { .argsz = sizeof(m) };
	struct ib_async_ring_wait w = { .argsz = sizeof(w) };
	struct ib_async_info info;
	struct ring r;
	void *p;
	int fd2;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	m.entries = 0;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MAP_RING, &m));
	m.entries = info.max_queue_len + 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MAP_RING, &m));
	m.entries = 8;
	m.flags = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MAP_RING, &m));
	m.flags = 0;
	m.reserved = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MAP_RING, &m));
	m.reserved = 0;
	m.mmap_size = 4096;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_MAP_RING, &m));
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_RING_WAIT, &w));
	/* no ring yet: nothing to map */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ring_map(self->fd, 8, &r));
	EXPECT_EQ(4096U, r.size);
	w.flags = 4;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_RING_WAIT, &w));
	w.flags = 0;
	w.reserved = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->fd, IB_ASYNC_IOC_RING_WAIT, &w));
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 4096);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	/* a second ring on the same queue; the other file is separate */
	m.mmap_size = 0;
	EXPECT_EQ(-EBUSY, iba_ioc(self->fd, IB_ASYNC_IOC_MAP_RING, &m));
	fd2 = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EINVAL, iba_ioc(fd2, IB_ASYNC_IOC_RING_WAIT, &w));
	close(fd2);
	ring_unmap(&r);
}

/*
 * A MAP_RING whose answer cannot be copied out attaches no ring: a queue
 * with a ring refuses read(), and the caller never learnt the ring's
 * size, so it would be left with neither. read() still works, and a later
 * MAP_RING maps.
 */
TEST_F_TIMEOUT(ring, a_ring_whose_answer_is_lost_is_not_attached, 60)
{
	struct ib_async_map_ring a = { .argsz = sizeof(a), .entries = 64 };
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_MAP_RING, .ret = 1,
	};
	struct ib_async_event ev;
	struct iba_stall st;
	struct ring r;
	pthread_t th;
	int err;

	IBA_SKIPPED_IN_SETUP();
	err = iba_stall_answer(&c, &st, &a, sizeof(a), &th);
	if (err > 0)
		SKIP(return, "no write-protecting userfaultfd");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, iba_stall_fail(&st));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EFAULT, c.ret);
	EXPECT_EQ(-1, iba_fdinfo(self->fd, "ring-entries"));

	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1"));
	EXPECT_EQ(IBA_REC, read(self->fd, &ev, sizeof(ev)))
		TH_LOG("read: %m");
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_SM_CHANGE, ev.event_type);
	ASSERT_EQ(0, ring_map(self->fd, 64, &r));
	EXPECT_EQ(64, iba_fdinfo(self->fd, "ring-entries"));
	ring_unmap(&r);
	iba_stall_free(&st);
}

/*
 * MAP_RING while a reader is stuck copying records to memory that stalls
 * (userfaultfd): the ring is attached at once, and RING_WAIT moves every
 * queued record into it, the reader's among them, in order. Once the
 * fault is served the reader finds its records gone and returns EBUSY:
 * each record reached the program once, in the ring, and counts once for
 * its QP.
 */
TEST_F_TIMEOUT(ring, map_behind_a_reader_stuck_in_its_copy_returns, 60)
{
	struct ib_async_map_ring a = { .argsz = sizeof(a), .entries = 16 };
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_MAP_RING, .arg = &a,
		.ret = 1,
	};
	struct iba_stalled_read rd = { .fd = self->fd, .len = 8 * IBA_REC };
	struct ib_async_event ev[16];
	struct ib_async_info info;
	uint64_t took = 0, first, reported = 99;
	struct iba_stall st;
	pthread_t rth, mth;
	struct ring r;
	int err, i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	first = info.next_seq;
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d process 5", IB_ASYNC_EV_COMM_EST,
				 self->ev_qp));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 5, IBA_EVENT_TIMEOUT_MS));

	err = iba_stall_reader(&rd, &st, &rth);
	if (err > 0)
		SKIP(return, "no userfaultfd");
	ASSERT_EQ(0, err);
	err = iba_cmd_within(&c, &mth, 1000, &took);
	EXPECT_EQ(0, err) TH_LOG("MAP_RING still waiting after %llu ms",
				 (unsigned long long)took);
	if (err) {
		/* held up behind the reader: let both go before failing */
		iba_stall_release(&st, rth, mth);
		iba_stall_free(&st);
		return;
	}
	ASSERT_EQ(0, pthread_join(mth, NULL));
	ASSERT_EQ(0, c.ret);
	ASSERT_EQ(0, ring_mmap(self->fd, &a, &r));
	/* queued behind the reader's records, not ahead of them in the ring */
	ASSERT_EQ(0, iba_evsrc_raise("%u qp:%d process 2", IB_ASYNC_EV_COMM_EST,
				 self->ev_qp));
	EXPECT_EQ(0U, ring_producer(&r));
	EXPECT_EQ(7, ring_wait(self->fd, IB_ASYNC_READ_NONBLOCK));

	ASSERT_EQ(0, iba_stall_serve(&st));
	ASSERT_EQ(0, pthread_join(rth, NULL));
	EXPECT_EQ(-1, rd.ret);
	EXPECT_EQ(EBUSY, rd.err);

	n = ring_take(&r, ev, sizeof(ev[0]), 16);
	ASSERT_EQ(7, n);
	EXPECT_EQ(first, ev[0].seq);
	EXPECT_EQ(-1, iba_seq_continuous(ev, n));
	for (i = 0; i < n; i++) {
		EXPECT_EQ((uint32_t)IB_ASYNC_EV_COMM_EST, ev[i].event_type);
		EXPECT_EQ(self->qp, ev[i].obj_handle);
	}
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(0U, info.queued);
	EXPECT_EQ(0ULL, info.lost);
	EXPECT_EQ(n, iba_fdinfo(self->fd, "delivered"));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_QP, self->qp, &reported));
	EXPECT_EQ((uint64_t)n, reported);
	ring_unmap(&r);
	iba_stall_free(&st);
}

/*
 * Without CAP_IPC_LOCK the ring counts against RLIMIT_MEMLOCK, beside the
 * files' event queues; closing and unmapping gives the charge back.
 */
TEST_F(ring, memlock_bounds_rings_without_cap_ipc_lock)
{
	int status;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 1 << 20, 1 << 20 };
		struct ring r1, r2 = {};
		int f1, f2, f3;

		if (iba_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(10);
		f1 = open(self->dev.node, O_RDWR);
		f2 = open(self->dev.node, O_RDWR);
		f3 = open(self->dev.node, O_RDWR);
		if (f1 < 0 || f2 < 0 || f3 < 0)
			_exit(11);
		/* 64 KiB for rings beyond what the three queues hold */
		rl.rlim_cur = 64 * 1024 + sysconf(_SC_PAGESIZE) *
			(iba_fdinfo(f1, "memlock-pages") +
			 iba_fdinfo(f2, "memlock-pages") +
			 iba_fdinfo(f3, "memlock-pages"));
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(16);
		/* 4096 x 48 bytes is past 64 KiB... */
		if (ring_map(f1, 4096, &r1) != -ENOMEM)
			_exit(12);
		/* ...512 (7 pages) fits, and a second 1024 (13) does not */
		if (ring_map(f1, 512, &r1))
			_exit(13);
		if (ring_map(f2, 1024, &r2) != -ENOMEM)
			_exit(14);
		/*
		 * The charge goes back when the file is freed, once its last
		 * reference (the mapping) is gone: not a grace period later
		 * with its memory.
		 */
		ring_unmap(&r1);
		close(f1);
		if (ring_map(f3, 1024, &r2) ||
		    iba_fdinfo(f3, "ring-entries") != 1024)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Whether /proc/self/maps has a mapping starting at @p. */
static bool mapped_here(const void *p)
{
	char line[256], want[32];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)p);
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, want, strlen(want));
	fclose(f);
	return found;
}

/* A child does not inherit the mapping: it would share the consumer. */
TEST_F(ring, fork_does_not_copy_the_ring)
{
	struct ring r;
	int status;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ring_map(self->fd, 8, &r));
	ASSERT_TRUE(mapped_here(r.hdr));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(mapped_here(r.hdr) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ring_unmap(&r);
	EXPECT_FALSE(mapped_here(r.hdr));
}

/*
 * Hot-unplug: a RING_WAIT blocked on the ring wakes, the DEVICE_FATAL
 * record is in the ring, then the wait reports ENODEV; the mapping stays
 * readable after removal and after the file is closed.
 */
TEST_F_TIMEOUT(ring, unplug_ends_the_ring_with_device_fatal, 60)
{
	struct iba_reader rd = { .ret = 99 };
	struct ib_async_event ev[4];
	struct iba_dev dev;
	struct ring r;
	pthread_t t;
	uint64_t t0;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_evsrc_add_dev("evsrc9", &dev));
	/* what registering the device raised, then block as a reader would */
	fd = open(dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	iba_drain(fd);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, 0));
	ASSERT_EQ(0, ring_map(fd, 4, &r));
	rd.fd = fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_thread, &rd));
	iba_sleep_ms(200);

	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_write_file(IBA_EVSRC_DBG "/evsrc9/unregister", "1", 1,
				    0));
	EXPECT_GT(5000ULL, iba_now_ms() - t0);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(1, rd.ret);
	ASSERT_EQ(1, ring_take(&r, ev, sizeof(ev[0]), 4));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_DEVICE_FATAL, ev[0].event_type);
	EXPECT_EQ(-ENODEV, ring_wait(fd, 0));
	close(fd);
	EXPECT_EQ(1U, ring_producer(&r));
	ring_unmap(&r);
}

TEST_HARNESS_MAIN

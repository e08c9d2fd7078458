// SPDX-License-Identifier: GPL-2.0
/*
 * IB_ASYNC_IOC_READ_BATCH: consume what was seen, then copy (and with
 * IB_ASYNC_READ_PEEK keep) up to count records. What a library needs to
 * hand out records one at a time from one system call per batch without
 * making poll() on the file lie. Events come from the storm module.
 */
#include "lib/iba_util.h"

static int batch(int fd, uint64_t consume_seq, bool peek,
		 struct ib_async_event *ev, uint32_t *count)
{
	struct ib_async_read_batch b = {
		.argsz = sizeof(b), .flags = peek ? IB_ASYNC_READ_PEEK : 0,
		.consume_seq = consume_seq, .buf = (uintptr_t)ev,
		.count = *count,
	};
	int ret = ioctl(fd, IB_ASYNC_IOC_READ_BATCH, &b) ? -errno : 0;

	*count = b.count;
	return ret;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

FIXTURE(batch) {
	struct iba_dev dev;
	int fd;
};

FIXTURE_SETUP(batch)
{
	self->fd = -1;
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	if (iba_storm_available())
		SKIP(return, "no storm module");
	self->fd = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(batch)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(batch, peek_keeps_records_queued_and_file_readable)
{
	struct ib_async_event ev[16];
	uint32_t n = 4;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 10));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 10, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, batch(self->fd, 0, true, ev, &n));
	ASSERT_EQ(4U, n);
	EXPECT_EQ(1ULL, ev[0].seq);
	EXPECT_EQ(-1, iba_seq_continuous(ev, n));
	EXPECT_EQ(10 * IBA_REC, iba_fionread(self->fd));
	EXPECT_TRUE(readable(self->fd));
	/* A second peek sees the same records again. */
	n = 16;
	ASSERT_EQ(0, batch(self->fd, 0, true, ev, &n));
	EXPECT_EQ(10U, n);
	EXPECT_EQ(1ULL, ev[0].seq);
}

TEST_F(batch, consume_through_removes_exactly_what_was_seen)
{
	struct ib_async_event ev[16];
	uint32_t n = 4;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 10));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 10, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, batch(self->fd, 0, true, ev, &n));
	n = 16;
	ASSERT_EQ(0, batch(self->fd, ev[3].seq, true, ev, &n));
	ASSERT_EQ(6U, n);
	EXPECT_EQ(5ULL, ev[0].seq);
	EXPECT_EQ(6 * IBA_REC, iba_fionread(self->fd));
	/* count 0: consume only. */
	n = 0;
	ASSERT_EQ(0, batch(self->fd, ev[5].seq, true, ev, &n));
	EXPECT_EQ(0U, n);
	EXPECT_EQ(0, iba_fionread(self->fd));
	EXPECT_FALSE(readable(self->fd));
	n = 16;
	EXPECT_EQ(-EAGAIN, batch(self->fd, 0, true, ev, &n));
}

TEST_F(batch, without_peek_it_consumes_like_read)
{
	struct ib_async_event ev[16];
	uint32_t n = 16;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 5));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 5, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, batch(self->fd, 0, false, ev, &n));
	EXPECT_EQ(5U, n);
	EXPECT_EQ(0, iba_fionread(self->fd));
}

TEST_F(batch, consume_trims_an_overflow_record_seen_in_part)
{
	struct ib_async_event ev[8];
	uint32_t n = 8;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 4));
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 10));
	ASSERT_EQ(0, iba_wait_offered(self->fd, 10, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, batch(self->fd, 0, true, ev, &n));
	ASSERT_EQ(5U, n);
	ASSERT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, ev[4].event_type);
	ASSERT_EQ(5ULL, ev[4].seq);
	ASSERT_EQ(6ULL, ev[4].count);
	/* Consume through seq 7: the overflow keeps losses 8..10. */
	n = 8;
	ASSERT_EQ(0, batch(self->fd, 7, true, ev, &n));
	ASSERT_EQ(1U, n);
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_OVERFLOW, ev[0].event_type);
	EXPECT_EQ(8ULL, ev[0].seq);
	EXPECT_EQ(3ULL, ev[0].count);
}

TEST_F(batch, bad_arguments_are_rejected_and_consume_nothing)
{
	struct ib_async_read_batch b = { .argsz = sizeof(b), .count = 1 };
	struct ib_async_event ev;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 1));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 1, IBA_EVENT_TIMEOUT_MS));
	b.buf = (uintptr_t)&ev;
	b.flags = 4;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_READ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.flags = 0;
	b.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_READ_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.reserved = 0;
	b.buf = 0xffff888000000000ULL;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_READ_BATCH, &b));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(IBA_REC, iba_fionread(self->fd));
}

/* A blocking file, and a call that must not block: EAGAIN at once. */
TEST_F(batch, nonblock_flag_overrides_a_blocking_file)
{
	struct ib_async_read_batch b = {
		.argsz = sizeof(b), .flags = IB_ASYNC_READ_NONBLOCK, .count = 1,
	};
	struct ib_async_event ev;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDONLY);
	ASSERT_LE(0, fd);
	b.buf = (uintptr_t)&ev;
	EXPECT_EQ(-1, ioctl(fd, IB_ASYNC_IOC_READ_BATCH, &b));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

TEST_HARNESS_MAIN

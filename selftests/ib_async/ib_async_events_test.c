// SPDX-License-Identifier: GPL-2.0
/*
 * Real events on the rxe test bed: link down/up on the veth peer gives
 * PORT_ERR/PORT_ACTIVE on port 1, adding and removing an address on the
 * rxe netdev gives GID_CHANGE. linkwatch may delay and repeat events, so
 * every test waits for the type it wants and tolerates others.
 *
 * Environment: IB_ASYNC_IBDEV (rxe0), IB_ASYNC_NETDEV (veth0),
 * IB_ASYNC_PEER (veth1).
 */
#include "lib/iba_util.h"

#define NFILES 3

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v ? v : def;
}

FIXTURE(events) {
	struct iba_dev dev;
	const char *netdev;
	const char *peer;
	int fd;
};

FIXTURE_SETUP(events)
{
	self->fd = -1;
	self->netdev = env_or("IB_ASYNC_NETDEV", "veth0");
	self->peer = env_or("IB_ASYNC_PEER", "veth1");
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	if (geteuid())
		SKIP(return, "needs root to change links");
	if (iba_sh("ip link show %s >/dev/null 2>&1", self->peer) ||
	    iba_sh("ip link show %s >/dev/null 2>&1", self->netdev))
		SKIP(return, "test bed links %s/%s missing", self->netdev,
		     self->peer);
	/* Leave the previous test's link and GID events behind. */
	iba_quiesce(&self->dev, 1500, 10000);
	self->fd = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
}

FIXTURE_TEARDOWN(events)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->peer)
		iba_sh("ip link set %s up >/dev/null 2>&1", self->peer);
}

static void check_port_event(struct __test_metadata *_metadata,
			     const struct ib_async_event *ev, uint32_t type,
			     uint64_t t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	EXPECT_EQ(type, ev->event_type);
	EXPECT_EQ(1ULL, ev->element);
	EXPECT_EQ(1U, ev->port_num);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_PORT, ev->obj_type);
	EXPECT_EQ(0U, ev->obj_handle);
	EXPECT_EQ(1ULL, ev->count);
	EXPECT_LE(1ULL, ev->seq);
	/* CLOCK_MONOTONIC, taken after the command started. */
	EXPECT_LE(t0 * 1000000ULL, ev->timestamp_ns);
	EXPECT_GE((uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec,
		  ev->timestamp_ns);
}

TEST_F_TIMEOUT(events, link_down_raises_port_err, 60)
{
	struct ib_async_event ev;
	uint64_t t0 = iba_now_ms();

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_sh("ip link set %s down", self->peer));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_PORT_ERR,
				   IBA_EVENT_TIMEOUT_MS, &ev))
		TH_LOG("no PORT_ERR after link down");
	check_port_event(_metadata, &ev, IB_ASYNC_EV_PORT_ERR, t0);
}

TEST_F_TIMEOUT(events, link_up_raises_port_active, 60)
{
	struct ib_async_event ev;
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_sh("ip link set %s down", self->peer));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_PORT_ERR,
				   IBA_EVENT_TIMEOUT_MS, NULL));
	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_sh("ip link set %s up", self->peer));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_PORT_ACTIVE,
				   IBA_EVENT_TIMEOUT_MS, &ev))
		TH_LOG("no PORT_ACTIVE after link up");
	check_port_event(_metadata, &ev, IB_ASYNC_EV_PORT_ACTIVE, t0);
}

TEST_F_TIMEOUT(events, addr_add_raises_gid_change, 60)
{
	struct ib_async_event ev;
	uint64_t t0 = iba_now_ms();

	IBA_SKIPPED_IN_SETUP();
	iba_sh("ip addr del 10.11.1.21/32 dev %s 2>/dev/null", self->netdev);
	iba_drain(self->fd);
	ASSERT_EQ(0, iba_sh("ip addr add 10.11.1.21/32 dev %s",
			    self->netdev));
	EXPECT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_GID_CHANGE,
				   IBA_EVENT_TIMEOUT_MS, &ev))
		TH_LOG("no GID_CHANGE after ip addr add");
	iba_sh("ip addr del 10.11.1.21/32 dev %s", self->netdev);
	if (_metadata->passed)
		check_port_event(_metadata, &ev, IB_ASYNC_EV_GID_CHANGE, t0);
}

TEST_F_TIMEOUT(events, addr_del_raises_gid_change, 60)
{
	struct ib_async_event ev;
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_sh("ip addr add 10.11.1.22/32 dev %s",
			    self->netdev));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_GID_CHANGE,
				   IBA_EVENT_TIMEOUT_MS, NULL));
	/* one address may give several GID_CHANGEs: let them pass */
	iba_sleep_ms(1000);
	iba_drain(self->fd);
	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_sh("ip addr del 10.11.1.22/32 dev %s",
			    self->netdev));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_GID_CHANGE,
				   IBA_EVENT_TIMEOUT_MS, &ev))
		TH_LOG("no GID_CHANGE after ip addr del");
	check_port_event(_metadata, &ev, IB_ASYNC_EV_GID_CHANGE, t0);
}

/* Every open file of the device sees the same real event, once each. */
TEST_F_TIMEOUT(events, every_open_file_gets_link_events, 90)
{
	struct ib_async_event err[NFILES], act[NFILES];
	int fds[NFILES], i;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < NFILES; i++) {
		fds[i] = open(self->dev.node, O_RDONLY | O_NONBLOCK);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, iba_sh("ip link set %s down", self->peer));
	for (i = 0; i < NFILES; i++)
		ASSERT_EQ(0, iba_wait_type(fds[i], IB_ASYNC_EV_PORT_ERR,
					   IBA_EVENT_TIMEOUT_MS, &err[i]))
			TH_LOG("file %d: no PORT_ERR", i);
	ASSERT_EQ(0, iba_sh("ip link set %s up", self->peer));
	for (i = 0; i < NFILES; i++)
		ASSERT_EQ(0, iba_wait_type(fds[i], IB_ASYNC_EV_PORT_ACTIVE,
					   IBA_EVENT_TIMEOUT_MS, &act[i]))
			TH_LOG("file %d: no PORT_ACTIVE", i);
	/* One event, one timestamp, whichever file it is read from. */
	for (i = 1; i < NFILES; i++) {
		EXPECT_EQ(err[0].timestamp_ns, err[i].timestamp_ns);
		EXPECT_EQ(act[0].timestamp_ns, act[i].timestamp_ns);
		EXPECT_EQ(err[0].port_num, err[i].port_num);
		EXPECT_EQ(act[0].element, act[i].element);
	}
	for (i = 0; i < NFILES; i++) {
		EXPECT_LT(err[i].seq, act[i].seq);
		EXPECT_LT(err[i].timestamp_ns, act[i].timestamp_ns);
		close(fds[i]);
	}
}

/* A file opened after an event does not see it. */
TEST_F_TIMEOUT(events, new_file_sees_no_earlier_events, 60)
{
	struct ib_async_info info;
	int fd2;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_sh("ip link set %s down", self->peer));
	ASSERT_EQ(0, iba_wait_type(self->fd, IB_ASYNC_EV_PORT_ERR,
				   IBA_EVENT_TIMEOUT_MS, NULL));
	fd2 = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, iba_get_info(fd2, &info));
	EXPECT_EQ(1ULL, info.next_seq);
	EXPECT_EQ(0U, info.queued);
	close(fd2);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * libibasync, the libibverbs-compatible shim over ib_async: device list,
 * open, the async-event recipe of ibv_get_async_event(3), nonblocking
 * behaviour, several threads sharing one context and a child of fork()
 * using its parent's.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <stdatomic.h>
#include <infiniband/verbs.h>

#include "lib/iba_util.h"

#define NTHREADS	4
#define STORM_EVENTS	1000	/* below the default queue length */

FIXTURE(shim) {
	struct iba_dev dev;
	struct ibv_device **list;
	struct ibv_context *ctx;
	const char *peer;
};

FIXTURE_SETUP(shim)
{
	int i, n = 0;

	self->peer = getenv("IB_ASYNC_PEER") ? : "veth1";
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	self->list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, self->list) TH_LOG("ibv_get_device_list: %m");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(self->list[i]),
			    self->dev.ibdev))
			break;
	ASSERT_GT(n, i) TH_LOG("%s not in the device list", self->dev.ibdev);
	self->ctx = ibv_open_device(self->list[i]);
	ASSERT_NE(NULL, self->ctx) TH_LOG("ibv_open_device: %m");
}

FIXTURE_TEARDOWN(shim)
{
	if (self->ctx)
		ibv_close_device(self->ctx);
	if (self->list)
		ibv_free_device_list(self->list);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The recipe of ibv_get_async_event(3): poll, get, ack. */
static int wait_async(struct ibv_context *ctx, enum ibv_event_type type,
		      int timeout_ms, struct ibv_async_event *out)
{
	uint64_t end = iba_now_ms() + timeout_ms;
	struct ibv_async_event ev;

	while (iba_now_ms() < end) {
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

		if (poll(&p, 1, (int)(end - iba_now_ms())) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		if (ev.event_type == type) {
			*out = ev;
			return 0;
		}
	}
	return -1;
}

TEST_F(shim, async_fd_is_an_ib_async_node)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_LE(0, self->ctx->async_fd);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", self->ctx->async_fd);
	n = readlink(link, target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = '\0';
	EXPECT_EQ(0, strncmp(target, "/dev/infiniband/ib_async", 24))
		TH_LOG("async_fd is %s", target);
}

TEST_F(shim, empty_nonblocking_get_async_event_returns_eagain)
{
	struct ibv_async_event ev;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, set_nonblock(self->ctx->async_fd));
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F_TIMEOUT(shim, link_down_gives_port_err_by_man_page_recipe, 90)
{
	struct ibv_async_event ev;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid() || iba_sh("ip link show %s >/dev/null 2>&1", self->peer))
		SKIP(return, "needs root and link %s", self->peer);
	ASSERT_EQ(0, set_nonblock(self->ctx->async_fd));
	ASSERT_EQ(0, iba_sh("ip link set %s down", self->peer));
	EXPECT_EQ(0, wait_async(self->ctx, IBV_EVENT_PORT_ERR,
				IBA_EVENT_TIMEOUT_MS, &ev))
		TH_LOG("no IBV_EVENT_PORT_ERR");
	iba_sh("ip link set %s up", self->peer);
	if (_metadata->passed)
		EXPECT_EQ(1, ev.element.port_num);
	EXPECT_EQ(0, wait_async(self->ctx, IBV_EVENT_PORT_ACTIVE,
				IBA_EVENT_TIMEOUT_MS, &ev))
		TH_LOG("no IBV_EVENT_PORT_ACTIVE");
}

struct getter {
	pthread_t thread;
	struct ibv_context *ctx;
	atomic_int *done;
	int counts[32];
	int other;
	int bad_port;
};

static void *getter_main(void *arg)
{
	struct getter *g = arg;
	struct ibv_async_event ev;

	for (;;) {
		struct pollfd p = { .fd = g->ctx->async_fd, .events = POLLIN };

		if (ibv_get_async_event(g->ctx, &ev)) {
			if (atomic_load(g->done))
				break;
			poll(&p, 1, 50);
			continue;
		}
		if ((unsigned int)ev.event_type < 32)
			g->counts[ev.event_type]++;
		else
			g->other++;
		if (ev.event_type == IBV_EVENT_SM_CHANGE &&
		    ev.element.port_num != 1)
			g->bad_port++;
		ibv_ack_async_event(&ev);
	}
	return NULL;
}

TEST_F_TIMEOUT(shim, threads_get_each_event_once, 300)
{
	struct getter g[NTHREADS];
	atomic_int done = 0;
	int i, t, total[32] = { 0 }, probe, sum = 0;
	struct ib_async_info info;
	uint64_t end;

	IBA_SKIPPED_IN_SETUP();
	if (iba_storm_available())
		SKIP(return, "no %s", IBA_STORM_FILE);
	/* a second plain file tells when every event has been offered */
	probe = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, probe);
	ASSERT_EQ(0, iba_set_queue_len(probe, 2 * STORM_EVENTS));
	ASSERT_EQ(0, set_nonblock(self->ctx->async_fd));
	for (i = 0; i < NTHREADS; i++) {
		memset(&g[i], 0, sizeof(g[i]));
		g[i].ctx = self->ctx;
		g[i].done = &done;
		ASSERT_EQ(0, pthread_create(&g[i].thread, NULL, getter_main,
					    &g[i]));
	}
	EXPECT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1,
			       STORM_EVENTS));
	EXPECT_EQ(0, iba_wait_offered(probe, STORM_EVENTS, 120000));
	/* let the getters empty the shim's file */
	end = iba_now_ms() + 60000;
	while (iba_now_ms() < end) {
		struct pollfd p = { .fd = self->ctx->async_fd,
				    .events = POLLIN };

		if (poll(&p, 1, 0) == 0)
			break;
		iba_sleep_ms(20);
	}
	iba_sleep_ms(200);
	atomic_store(&done, 1);
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(g[i].thread, NULL);
		for (t = 0; t < 32; t++)
			total[t] += g[i].counts[t];
		EXPECT_EQ(0, g[i].other);
		EXPECT_EQ(0, g[i].bad_port);
		TH_LOG("thread %d: %d SM_CHANGE", i,
		       g[i].counts[IBV_EVENT_SM_CHANGE]);
	}
	EXPECT_EQ(STORM_EVENTS, total[IBV_EVENT_SM_CHANGE]);
	/* everything the probe saw, the shim's threads saw once */
	ASSERT_EQ(0, iba_get_info(probe, &info));
	EXPECT_EQ(0ULL, info.lost);
	for (t = 0; t < 32; t++)
		sum += total[t];
	EXPECT_EQ((int)info.next_seq - 1, sum);
	close(probe);
}

static bool async_fd_readable(struct ibv_context *ctx)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/*
 * The shim fetches records a batch at a time; while it still holds some,
 * poll() on async_fd must say readable (else a poll/get loop would stall
 * with events in hand), and once they are all handed out and the batch
 * consumed, not readable. Far fewer read-family syscalls than events.
 */
TEST_F_TIMEOUT(shim, batched_records_keep_poll_truthful, 120)
{
	struct ibv_async_event ev;
	int probe, i, got = 0;

	IBA_SKIPPED_IN_SETUP();
	if (iba_storm_available())
		SKIP(return, "no %s", IBA_STORM_FILE);
	probe = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, probe);
	ASSERT_EQ(0, set_nonblock(self->ctx->async_fd));
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 100));
	ASSERT_EQ(0, iba_wait_offered(probe, 100, IBA_EVENT_TIMEOUT_MS));
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	ibv_ack_async_event(&ev);
	/* 99 left, at most 63 of them in the shim's hands: readable. */
	EXPECT_TRUE(async_fd_readable(self->ctx));
	for (i = 0; i < 200; i++) {
		if (ibv_get_async_event(self->ctx, &ev))
			break;
		EXPECT_EQ((int)IBV_EVENT_SM_CHANGE, (int)ev.event_type);
		ibv_ack_async_event(&ev);
		got++;
	}
	EXPECT_EQ(99, got);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_FALSE(async_fd_readable(self->ctx));
	close(probe);
}

/* The mappings of this process that are of the device node. */
static int node_mappings(const char *node)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, node) != NULL;
	fclose(f);
	return n;
}

/*
 * A child of fork() taking events from its parent's context, as it could
 * from an inherited ib_uverbs async descriptor. The kernel leaves the
 * context's event ring out of the child (VM_DONTCOPY): the shim maps it
 * again at the child's first call instead of touching the parent's
 * address. Parent and child share the ring: what the child took, the
 * parent does not get again.
 */
TEST_F_TIMEOUT(shim, child_of_fork_takes_events_of_parents_context, 120)
{
	struct ibv_async_event ev;
	int probe, st;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	if (iba_storm_available())
		SKIP(return, "no %s", IBA_STORM_FILE);
	if (node_mappings(self->dev.node) != 1)
		SKIP(return, "no mapped event ring (IBASYNC_NO_RING?)");
	probe = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, probe);
	ASSERT_EQ(0, set_nonblock(self->ctx->async_fd));
	ASSERT_EQ(0, iba_storm(self->dev.ibdev, IB_ASYNC_EV_SM_CHANGE, 1, 2));
	ASSERT_EQ(0, iba_wait_offered(probe, 2, IBA_EVENT_TIMEOUT_MS));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* exit status: which step failed; a fault kills the child */
		if (node_mappings(self->dev.node) != 0)
			_exit(10);
		if (ibv_get_async_event(self->ctx, &ev))
			_exit(11);
		if (ev.event_type != IBV_EVENT_SM_CHANGE)
			_exit(12);
		ibv_ack_async_event(&ev);
		_exit(node_mappings(self->dev.node) == 1 ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("child killed by signal %d",
					  WTERMSIG(st));
	EXPECT_EQ(0, WEXITSTATUS(st))
		TH_LOG("10: ring inherited, 11: no event, 12: wrong event, "
		       "13: ring not mapped in the child");
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ((int)IBV_EVENT_SM_CHANGE, (int)ev.event_type);
	ibv_ack_async_event(&ev);
	EXPECT_EQ(-1, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
	close(probe);
}

/*
 * Parent and child taking from the context's one ring at once, each with
 * a lock of its own: every event reaches exactly one of them, as each
 * read() of a shared ib_uverbs descriptor returns a different event. A
 * third process storms SHARED_CHUNK events at a time, each chunk once
 * the one before was taken (so the ring never overflows); parent and
 * child, each on a CPU of its own where there are two, count in shared
 * memory: [0] all, [1] the parent's, [2] the child's.
 */
#define SHARED_CHUNK	256
#define SHARED_CHUNKS	40
#define SHARED_EVENTS	(SHARED_CHUNK * SHARED_CHUNKS)

static void take_until(struct ibv_context *ctx, unsigned int *taken,
		       int who, uint64_t deadline)
{
	struct ibv_async_event ev;

	while (__atomic_load_n(&taken[0], __ATOMIC_ACQUIRE) < SHARED_EVENTS &&
	       iba_now_ms() < deadline) {
		if (ibv_get_async_event(ctx, &ev))
			continue;	/* EAGAIN: the next storm or the other */
		if (ev.event_type == IBV_EVENT_SM_CHANGE) {
			__atomic_add_fetch(&taken[who], 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&taken[0], 1, __ATOMIC_RELEASE);
		}
		ibv_ack_async_event(&ev);
	}
}

/* Run on @cpu alone when the machine has it; else as before. */
static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu >= sysconf(_SC_NPROCESSORS_ONLN))
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int storm_chunks(const char *ibdev, unsigned int *taken,
			uint64_t deadline)
{
	unsigned int i;

	for (i = 1; i <= SHARED_CHUNKS; i++) {
		if (iba_storm(ibdev, IB_ASYNC_EV_SM_CHANGE, 1, SHARED_CHUNK))
			return 1;
		/* sleeping: the two CPUs are the takers' */
		while (__atomic_load_n(&taken[0], __ATOMIC_ACQUIRE) <
		       i * SHARED_CHUNK) {
			if (iba_now_ms() > deadline)
				return 2;
			usleep(200);
		}
	}
	return 0;
}

static int child_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * Parent and child of fork() take @ctx's events while a third process
 * storms: together exactly the storm, and nothing left.
 */
static void take_shared(struct __test_metadata *_metadata,
			FIXTURE_DATA(shim) *self, struct ibv_context *ctx)
{
	uint64_t deadline = iba_now_ms() + 120000;
	struct ibv_async_event ev;
	pid_t child, storm;
	unsigned int *taken;

	taken = mmap(NULL, 3 * sizeof(*taken), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, taken);
	ASSERT_EQ(0, set_nonblock(ctx->async_fd));

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pin_to_cpu(1);
		take_until(ctx, taken, 2, deadline);
		_exit(0);
	}
	storm = fork();
	ASSERT_LE(0, storm);
	if (!storm)
		_exit(storm_chunks(self->dev.ibdev, taken, deadline));
	pin_to_cpu(0);	/* a CPU each, so that both take while they can */
	take_until(ctx, taken, 1, deadline);
	EXPECT_EQ(0, child_status(child));
	EXPECT_EQ(0, child_status(storm)) TH_LOG("1: storm failed, 2: timeout");
	/* how often the two raced is the scheduler's: only counted */
	TH_LOG("taken: parent %u, child %u", taken[1], taken[2]);
	EXPECT_EQ((unsigned int)SHARED_EVENTS, taken[0]);
	EXPECT_EQ(-1, ibv_get_async_event(ctx, &ev));
	EXPECT_EQ(EAGAIN, errno);
	munmap(taken, 3 * sizeof(*taken));
}

TEST_F_TIMEOUT(shim, parent_and_child_take_each_event_once, 180)
{
	IBA_SKIPPED_IN_SETUP();
	if (iba_storm_available())
		SKIP(return, "no %s", IBA_STORM_FILE);
	if (node_mappings(self->dev.node) != 1)
		SKIP(return, "no mapped event ring (IBASYNC_NO_RING?)");
	take_shared(_metadata, self, self->ctx);
}

/*
 * The same without a ring (IBASYNC_NO_RING): records are peeked in
 * batches per process, so after the fork both would hand out the same
 * ones unless they go over to read().
 */
TEST_F_TIMEOUT(shim, without_a_ring_parent_and_child_take_each_event_once,
	       180)
{
	struct ibv_context *ctx;
	const char *was;

	IBA_SKIPPED_IN_SETUP();
	if (iba_storm_available())
		SKIP(return, "no %s", IBA_STORM_FILE);
	was = getenv("IBASYNC_NO_RING");
	setenv("IBASYNC_NO_RING", "1", 1);
	ctx = ibv_open_device(self->ctx->device);
	if (!was)
		unsetenv("IBASYNC_NO_RING");
	ASSERT_NE(NULL, ctx) TH_LOG("ibv_open_device: %m");
	take_shared(_metadata, self, ctx);
	ibv_close_device(ctx);
}

/*
 * The device list comes from rdma netlink, as libibverbs' does: with the
 * node's sysfs directory hidden (a private mount namespace), the device
 * is still listed, under the name netlink gives, and opens.
 */
TEST_F(shim, device_list_comes_from_rdma_netlink)
{
	char dir[PATH_MAX];
	pid_t pid;
	int status;

	IBA_SKIPPED_IN_SETUP();
	snprintf(dir, sizeof(dir), "/sys/class/ib_async/%s",
		 strrchr(self->dev.node, '/') + 1);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ibv_device **l;
		struct ibv_context *ctx;
		int n = 0, i, found = -1;

		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("none", dir, "tmpfs", 0, NULL))
			_exit(2);	/* no namespaces: cannot tell */
		if (!access("/sys/class/ib_async/abi_version", R_OK) &&
		    access(strcat(dir, "/ibdev"), F_OK) == 0)
			_exit(3);
		l = ibv_get_device_list(&n);
		for (i = 0; l && i < n; i++)
			if (!strcmp(ibv_get_device_name(l[i]), self->dev.ibdev))
				found = i;
		if (found < 0)
			_exit(1);
		ctx = ibv_open_device(l[found]);
		_exit(ctx && !ibv_close_device(ctx) ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		SKIP(return, "no mount namespace");
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("1: not listed, 3: sysfs not hidden, 4: open failed");
}

TEST_HARNESS_MAIN

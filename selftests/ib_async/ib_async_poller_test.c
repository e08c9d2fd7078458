// SPDX-License-Identifier: GPL-2.0
/*
 * The poller (IB_ASYNC_IOC_POLLER) on rxe: a thread inside the command
 * posts what the submission rings hold and fills the completion ring
 * with no doorbell and no CQ_WAIT; every ring says NEED_WAKEUP whenever
 * no poller is awake (before it starts, while it sleeps, after it
 * returns); a doorbell wakes it; STOP, a signal and device removal end
 * it; a file has one, a user max_pollers_per_user; its counts are the
 * kernel's. Everything asserted is read back from the rings' kernel-written
 * headers or the command's answer.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "lib/iba_cq_ring.h"
#include "lib/iba_rc_bed.h"
#include "lib/iba_wr_ring.h"

#define MEM_LEN		8192
#define RECV_AT		4096
#define MSG		8
#define CQE		64
#define WAIT_MS		10000
/*
 * The idle time of most tests: long enough for a test to see the poller
 * awake before it sleeps, whatever the guest's scheduler does meanwhile.
 */
#define IDLE_US		200000
#define BAD_LKEY	0xbad0bad0U
#define LIMIT_PARAM	"/sys/module/ib_async/parameters/max_pollers_per_user"

/* One poller thread: its argument, answer and result. */
struct poller {
	int fd;
	struct ib_async_poller arg;
	int ret;
	atomic_int done;
	pthread_t t;
};

static void *poller_run(void *p)
{
	struct poller *pl = p;

	pl->ret = iba_ioc(pl->fd, IB_ASYNC_IOC_POLLER, &pl->arg);
	atomic_store(&pl->done, 1);
	return NULL;
}

static int poller_start(struct poller *pl, int fd, uint32_t idle_us)
{
	memset(pl, 0, sizeof(*pl));
	pl->fd = fd;
	pl->arg.argsz = sizeof(pl->arg);
	pl->arg.idle_us = idle_us;
	return pthread_create(&pl->t, NULL, poller_run, pl);
}

static int poller_stop_cmd(int fd)
{
	struct ib_async_poller s = {
		.argsz = sizeof(s), .flags = IB_ASYNC_POLLER_STOP,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_POLLER, &s);
}

/* STOP, then the poller's result. */
static int poller_end(struct poller *pl)
{
	poller_stop_cmd(pl->fd);
	pthread_join(pl->t, NULL);
	return pl->ret;
}

static int wr_flags(const struct iba_wr_ring *r)
{
	return __atomic_load_n(&r->h->flags, __ATOMIC_ACQUIRE);
}

static int cq_flags(const struct iba_cq_ring *r)
{
	return __atomic_load_n(&r->h->flags, __ATOMIC_ACQUIRE);
}

/* Wait until the ring's NEED_WAKEUP is @set: 0, or -ETIMEDOUT. */
static int wait_wake_flag(const struct iba_wr_ring *r, bool set)
{
	return IBA_SPIN_UNTIL(!!(wr_flags(r) & IB_ASYNC_WR_RING_NEED_WAKEUP) ==
			      set, WAIT_MS);
}

/* Wait until the CQ ring's producer reaches @want: 0, or -ETIMEDOUT. */
static int wait_produced(const struct iba_cq_ring *r, uint32_t want)
{
	return IBA_SPIN_UNTIL(__atomic_load_n(&r->h->producer,
					      __ATOMIC_ACQUIRE) >= want,
			      WAIT_MS);
}

/* Wait until the kernel has consumed @want slots: 0, or -ETIMEDOUT. */
static int wait_consumed(const struct iba_wr_ring *r, uint32_t want)
{
	return IBA_SPIN_UNTIL(iba_wr_consumed(r) == want, WAIT_MS);
}

/* Wait until the ring's header publishes an error: 0, or -ETIMEDOUT. */
static int wait_error(const struct iba_wr_ring *r)
{
	return IBA_SPIN_UNTIL(iba_wr_error(r), WAIT_MS);
}

FIXTURE(pl) {
	struct iba_rc_bed bed;
	struct iba_wr_ring send, recv;
	struct iba_cq_ring cq;
};

FIXTURE_SETUP(pl)
{
	int ret = iba_rc_bed_open(&self->bed, IB_ASYNC_FEATURE_POLLER);

	if (ret > 0)
		SKIP(return, "no rxe node with IB_ASYNC_FEATURE_POLLER");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, iba_rc_bed_up(&self->bed, CQE, NULL, MEM_LEN));
	ASSERT_EQ(0, iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_QP,
				self->bed.a.handle, IB_ASYNC_WR_RING_SEND, 8,
				&self->send));
	ASSERT_EQ(0, iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_QP,
				self->bed.b.handle, IB_ASYNC_WR_RING_RECV, 8,
				&self->recv));
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 0, &self->cq));
}

FIXTURE_TEARDOWN(pl)
{
	iba_cq_unmap(&self->cq);
	iba_wr_unmap(&self->recv);
	iba_wr_unmap(&self->send);
	iba_rc_bed_close(&self->bed);
}

/* Receive @i on b, written but not rung. */
static void write_recv(FIXTURE_DATA(pl) *self, uint32_t i)
{
	iba_wr_put_recv(&self->recv, i, 0x200 + i,
			(uintptr_t)self->bed.mem + RECV_AT, MSG,
			self->bed.mr.lkey);
	iba_wr_produce(&self->recv, i + 1);
}

/* SEND @i from a, written but not rung. */
static void write_send(FIXTURE_DATA(pl) *self, uint32_t i)
{
	iba_wr_put_send(&self->send, i, 0x100 + i, (uintptr_t)self->bed.mem,
			MSG, self->bed.mr.lkey);
	iba_wr_produce(&self->send, i + 1);
}

/* Message @i, a receive on b and a SEND from a, written but not rung. */
static void write_message(FIXTURE_DATA(pl) *self, uint32_t i)
{
	write_recv(self, i);
	write_send(self, i);
}

/* Without a poller every ring asks for the doorbell, from its start. */
TEST_F(pl, rings_ask_for_the_doorbell_without_a_poller)
{
	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(IB_ASYNC_WR_RING_NEED_WAKEUP, wr_flags(&self->send));
	EXPECT_EQ(IB_ASYNC_WR_RING_NEED_WAKEUP, wr_flags(&self->recv));
	EXPECT_EQ(IB_ASYNC_CQ_RING_NEED_WAKEUP, cq_flags(&self->cq));
}

/*
 * Awake, the poller posts both rings and fills the CQ ring: the test
 * makes no doorbell and no CQ_WAIT, yet both messages complete, in the
 * ring, each once and without error; STOP answers with the kernel's
 * counts and leaves every ring asking for the doorbell again.
 */
TEST_F(pl, posts_and_fills_with_no_system_call)
{
	struct poller pl;
	uint32_t i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, 1000000));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	EXPECT_EQ(0, wait_wake_flag(&self->recv, false));
	EXPECT_EQ(0, cq_flags(&self->cq) & IB_ASYNC_CQ_RING_NEED_WAKEUP);

	for (i = 0; i < 2; i++)
		write_message(self, i);
	EXPECT_EQ(0, wait_consumed(&self->recv, 2));
	EXPECT_EQ(0, wait_consumed(&self->send, 2));
	EXPECT_EQ(0U, iba_wr_error(&self->send));
	/* two SENDs and two receives complete on the one CQ */
	ASSERT_EQ(0, wait_produced(&self->cq, 4));
	n = __atomic_load_n(&self->cq.h->producer, __ATOMIC_ACQUIRE);
	EXPECT_EQ(4U, n);
	for (i = 0; i < n; i++) {
		const struct ib_async_wc *wc = &self->cq.recs[i];

		EXPECT_EQ(0U, wc->status);
		EXPECT_TRUE((wc->wr_id & ~1ULL) == 0x100 ||
			    (wc->wr_id & ~1ULL) == 0x200);
	}
	__atomic_store_n(&self->cq.c->consumer, n, __ATOMIC_RELEASE);

	ASSERT_EQ(0, poller_end(&pl));
	EXPECT_EQ(4ULL, pl.arg.posted);
	EXPECT_EQ(4ULL, pl.arg.completions);
	EXPECT_LT(0ULL, pl.arg.passes);
	EXPECT_EQ(IB_ASYNC_WR_RING_NEED_WAKEUP, wr_flags(&self->send));
	EXPECT_EQ(IB_ASYNC_WR_RING_NEED_WAKEUP, wr_flags(&self->recv));
	EXPECT_EQ(IB_ASYNC_CQ_RING_NEED_WAKEUP,
		  cq_flags(&self->cq) & IB_ASYNC_CQ_RING_NEED_WAKEUP);
}

/*
 * Idle, it sleeps and the rings say so; a doorbell posts (as without a
 * poller) and wakes it, and the rings say it is awake until it sleeps
 * again. Each doorbell rings while the poller sleeps, so the doorbell,
 * not the poller it woke, is what posts: a slot written while the poller
 * is awake would be the poller's to take.
 */
TEST_F(pl, sleeps_when_idle_and_a_doorbell_wakes_it)
{
	struct poller pl;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, IDLE_US));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	ASSERT_EQ(0, wait_wake_flag(&self->send, true));
	EXPECT_NE(0, cq_flags(&self->cq) & IB_ASYNC_CQ_RING_NEED_WAKEUP);

	write_recv(self, 0);
	EXPECT_EQ(0, iba_wr_doorbell(&self->recv));
	EXPECT_EQ(1U, iba_wr_consumed(&self->recv));
	EXPECT_EQ(0, wait_wake_flag(&self->recv, false));
	ASSERT_EQ(0, wait_wake_flag(&self->send, true));

	write_send(self, 0);
	EXPECT_EQ(0, iba_wr_doorbell(&self->send));
	EXPECT_EQ(1U, iba_wr_consumed(&self->send));
	EXPECT_EQ(0, wait_wake_flag(&self->send, false));
	EXPECT_EQ(0, wait_produced(&self->cq, 2));
	EXPECT_EQ(0, wait_wake_flag(&self->send, true));

	ASSERT_EQ(0, poller_end(&pl));
	EXPECT_LE(3ULL, pl.arg.sleeps);
	EXPECT_EQ(0ULL, pl.arg.posted);	/* the doorbells posted both */
}

/*
 * A slot the kernel refuses stops its ring where it stands, with the
 * error, as a doorbell would; the poller then leaves the ring to the
 * program's doorbell, even with the slot rewritten under the same
 * producer, and does not stay awake for it. The doorbell posts it and
 * gives the ring back to the poller.
 */
TEST_F(pl, a_refused_slot_leaves_the_ring_to_the_doorbell)
{
	struct poller pl;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, IDLE_US));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	iba_wr_put_send(&self->send, 0, 0x100, (uintptr_t)self->bed.mem, MSG,
			BAD_LKEY);
	iba_wr_produce(&self->send, 1);
	ASSERT_EQ(0, wait_error(&self->send));
	EXPECT_EQ(0U, iba_wr_consumed(&self->send));
	EXPECT_EQ((uint32_t)EINVAL, iba_wr_error(&self->send));

	/* rewritten, the same producer: the poller does not take it */
	write_message(self, 0);
	ASSERT_EQ(0, wait_consumed(&self->recv, 1));
	ASSERT_EQ(0, wait_wake_flag(&self->send, true));
	EXPECT_EQ(0U, iba_wr_consumed(&self->send));

	/* the program rings, as the error says to: posted, ring given back */
	EXPECT_EQ(0, iba_wr_doorbell(&self->send));
	EXPECT_EQ(1U, iba_wr_consumed(&self->send));
	EXPECT_EQ(0U, iba_wr_error(&self->send));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	write_message(self, 1);
	EXPECT_EQ(0, wait_consumed(&self->send, 2));
	EXPECT_EQ(0, wait_produced(&self->cq, 4));
	ASSERT_EQ(0, poller_end(&pl));
	/* both receives and the second SEND */
	EXPECT_EQ(3ULL, pl.arg.posted);
}

/* One per file; a STOP before it starts makes it return at once. */
TEST_F(pl, one_per_file_and_a_stop_that_comes_first)
{
	struct ib_async_poller a = { .argsz = sizeof(a) };
	struct poller pl;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, IDLE_US));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	EXPECT_EQ(-EBUSY, iba_ioc(self->bed.fd, IB_ASYNC_IOC_POLLER, &a));
	ASSERT_EQ(0, poller_end(&pl));

	ASSERT_EQ(0, poller_stop_cmd(self->bed.fd));
	memset(&a, 0, sizeof(a));
	a.argsz = sizeof(a);
	EXPECT_EQ(0, iba_ioc(self->bed.fd, IB_ASYNC_IOC_POLLER, &a));
	EXPECT_EQ(0ULL, a.passes);
	EXPECT_EQ(IB_ASYNC_WR_RING_NEED_WAKEUP, wr_flags(&self->send));
}

/* What the command refuses, before it polls anything. */
TEST_F(pl, argument_rules)
{
	struct ib_async_poller a;
	pid_t pid;
	int st;

	IBA_SKIPPED_IN_SETUP();
#define TRY(field, v)							\
	do {								\
		memset(&a, 0, sizeof(a));				\
		a.argsz = sizeof(a);					\
		a.field = v;						\
		EXPECT_EQ(-EINVAL,					\
			  iba_ioc(self->bed.fd, IB_ASYNC_IOC_POLLER, &a)); \
	} while (0)
	TRY(flags, 2);
	TRY(reserved, 1);
	TRY(idle_us, 1000001);
	TRY(passes, 1);
	TRY(posted, 1);
	TRY(completions, 1);
	TRY(sleeps, 1);
#undef TRY
	/* only the opener's process polls its rings */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		memset(&a, 0, sizeof(a));
		a.argsz = sizeof(a);
		_exit(iba_ioc(self->bed.fd, IB_ASYNC_IOC_POLLER, &a) ==
		      -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
}

/* A user runs max_pollers_per_user at once, beyond that EAGAIN. */
TEST_F(pl, per_user_limit)
{
	struct ib_async_poller a = { .argsz = sizeof(a) };
	struct poller pl;
	char old[16];
	int fd2;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to set max_pollers_per_user");
	ASSERT_EQ(0, iba_read_line(LIMIT_PARAM, old, sizeof(old)));
	fd2 = open(self->bed.dev.node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);

	ASSERT_EQ(0, iba_write_file(LIMIT_PARAM, "0", 1, 0));
	EXPECT_EQ(-EAGAIN, iba_ioc(fd2, IB_ASYNC_IOC_POLLER, &a));
	ASSERT_EQ(0, iba_write_file(LIMIT_PARAM, "1", 1, 0));
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, IDLE_US));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	EXPECT_EQ(-EAGAIN, iba_ioc(fd2, IB_ASYNC_IOC_POLLER, &a));
	EXPECT_EQ(0, poller_end(&pl));
	/* its place is free again once it returned */
	ASSERT_EQ(0, poller_stop_cmd(fd2));
	EXPECT_EQ(0, iba_ioc(fd2, IB_ASYNC_IOC_POLLER, &a));

	iba_write_file(LIMIT_PARAM, old, strlen(old), 0);
	close(fd2);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A signal ends it with EINTR, and the rings ask for the doorbell. */
TEST_F(pl, a_signal_ends_it)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct poller pl;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, IDLE_US));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	ASSERT_EQ(0, wait_wake_flag(&self->send, true));	/* asleep */
	ASSERT_EQ(0, pthread_kill(pl.t, SIGUSR1));
	pthread_join(pl.t, NULL);
	EXPECT_EQ(-EINTR, pl.ret);
	EXPECT_EQ(IB_ASYNC_WR_RING_NEED_WAKEUP, wr_flags(&self->send));
	poller_stop_cmd(self->bed.fd);	/* not to leave a STOP behind */
}

/* Ring the doorbell of an empty ring until told to stop: 0, or -errno. */
struct ringer {
	const struct iba_wr_ring *r;
	atomic_int stop;
	long rung;
	int err;
};

static void *ringer_run(void *p)
{
	struct ringer *rg = p;

	while (!atomic_load(&rg->stop) && !rg->err) {
		rg->err = iba_wr_doorbell(rg->r);
		rg->rung++;
	}
	return NULL;
}

/* A CQ and a QP on it, each with rings asked for and never mapped. */
static int ring_objects_round(FIXTURE_DATA(pl) *self, uint32_t i)
{
	struct ib_async_create_qp qp;
	struct iba_wr_ring send, recv;
	struct iba_cq_ring cqr;
	int fd = self->bed.fd;
	uint32_t cq;
	int ret;

	ret = iba_create_cq(fd, 0x5000 + i, 4, &cq);
	if (ret)
		return ret;
	ret = iba_cq_ask(fd, cq, 0, &cqr) ?:
	      iba_create_qp(fd, 0x6000 + i, self->bed.pd, cq,
			    IB_UVERBS_QPT_RC, &qp);
	if (!ret) {
		ret = iba_wr_ask(fd, IB_ASYNC_OBJ_QP, qp.handle,
				 IB_ASYNC_WR_RING_SEND, 8, &send) ?:
		      iba_wr_ask(fd, IB_ASYNC_OBJ_QP, qp.handle,
				 IB_ASYNC_WR_RING_RECV, 8, &recv);
		ret = iba_destroy(fd, IB_ASYNC_OBJ_QP, qp.handle, NULL) ?: ret;
	}
	return iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq, NULL) ?: ret;
}

/*
 * DESTROY while the poller walks the file's rings. A ring nobody maps is
 * freed by DESTROY itself, in the part that runs without obj_mutex; the
 * poller walks the rings with obj_mutex held, so the object's rings must
 * leave its reach with the handle, before that. A poller that still
 * found one would read and write freed memory (KASAN on the debug
 * kernel), and ib_async_mapped_ring_drop() warns on any kernel if a ring
 * is still findable when its owner lets it go. Another thread rings an
 * empty ring's doorbell all along, so the poller keeps waking and going
 * back to sleep, writing every ring's flags each time.
 */
TEST_F_TIMEOUT(pl, destroy_while_the_poller_walks, 180)
{
	struct ringer rg = { .r = &self->send };
	uint64_t end;
	struct poller pl;
	uint32_t i = 0;
	pthread_t t;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, ringer_run, &rg));
	end = iba_now_ms() + 4000;
	while (i < 2000 && iba_now_ms() < end) {
		ASSERT_EQ(0, ring_objects_round(self, i));
		i++;
	}
	atomic_store(&rg.stop, 1);
	pthread_join(t, NULL);
	EXPECT_EQ(0, rg.err);
	EXPECT_EQ(0, poller_end(&pl));
	TH_LOG("%u rounds, %ld doorbells; the poller made %llu passes, slept %llu times",
	       i, rg.rung, (unsigned long long)pl.arg.passes,
	       (unsigned long long)pl.arg.sleeps);
	/* it went to sleep and was woken while the objects came and went */
	EXPECT_LT(10ULL, pl.arg.sleeps);
	EXPECT_LT(10U, i);
}

/*
 * Last, as it takes the device away: removal wakes a sleeping poller,
 * which returns ENODEV, and waits for it for no time to speak of. rxe0
 * is re-created afterwards.
 */
TEST_F_TIMEOUT(pl, device_removal_ends_it, 120)
{
	struct poller pl;
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to delete the rxe device");
	ASSERT_EQ(0, poller_start(&pl, self->bed.fd, IDLE_US));
	ASSERT_EQ(0, wait_wake_flag(&self->send, false));
	ASSERT_EQ(0, wait_wake_flag(&self->send, true));
	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_sh("rdma link delete %s", self->bed.dev.ibdev));
	EXPECT_GT((uint64_t)10000, iba_now_ms() - t0);
	while (!atomic_load(&pl.done) && iba_now_ms() - t0 < WAIT_MS)
		iba_sleep_ms(1);
	EXPECT_EQ(1, atomic_load(&pl.done));
	pthread_join(pl.t, NULL);
	EXPECT_EQ(-ENODEV, pl.ret);
	ASSERT_EQ(0, iba_rxe_readd(&self->bed.dev));
}

TEST_HARNESS_MAIN

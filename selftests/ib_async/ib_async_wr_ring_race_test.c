// SPDX-License-Identifier: GPL-2.0
/*
 * Doorbells racing what takes their QP, their memory, their AH or their
 * device away from another thread. A racer thread keeps SENDs flowing
 * through a submission ring (each with a receive posted for it, each
 * waited for) while the main thread destroys the QP, resets it,
 * deregisters the memory the SENDs read, destroys their AH (UD), or
 * removes the device. Whatever the interleaving, a doorbell that began
 * after the main thread's command returned posts nothing and says why
 * (ENOENT, EINVAL, ENODEV), the consumer never passes what was posted,
 * and nothing hangs. The debug kernel's KASAN and lockdep watch the rest:
 * a doorbell using a QP, an MR or an AH as it goes is exactly what they
 * would catch.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "lib/iba_rc_bed.h"
#include "lib/iba_wr_ring.h"

#define MEM_LEN		8192
#define RECV_AT		4096
#define MSG		8
#define CQE		1024
/* Doorbells that must have posted before the main thread strikes. */
#define WARM		16
/* How long a racer runs at most, and waits for one message. */
#define RACE_MS		20000
#define MSG_MS		5000
/* Rounds of each race, each on new objects. */
#define ROUNDS		4
#define QPS_RESET	0

/* One racer: what it uses, and what it saw. */
struct racer {
	struct iba_rc_bed *bed;
	struct iba_wr_ring ring;	/* the sender's */
	uint32_t receiver;		/* its peer QP's handle */
	uint64_t addr;			/* what the SENDs read */
	uint32_t lkey;
	uint32_t recv_len;		/* what a receive takes */
	uint32_t ah;			/* UD: the SENDs' AH, else 0 */
	uint32_t dqpn;			/* UD: their destination */
	atomic_int striking;		/* the main thread's command began */
	atomic_int struck;		/* and returned */
	atomic_uint posted;		/* doorbells that posted their SEND */
	/* what it saw */
	int last_err;			/* the first doorbell after it */
	unsigned int after;		/* doorbells begun after the strike */
	unsigned int posted_after;	/* of those, how many posted */
	unsigned int lost;		/* messages never completed, unstruck */
	unsigned int bad_status;	/* completions in error, unstruck */
};

/*
 * Both completions of the last message. Before the main thread strikes
 * everything is alive: every message completes, and without error.
 */
static void wait_message(struct racer *rc)
{
	struct ib_async_wc wc[4];
	uint64_t end = iba_now_ms() + MSG_MS;
	int got = 0, n, j;

	while (got < 2 && iba_now_ms() < end) {
		n = iba_poll_cq_once(rc->bed->fd, rc->bed->cq, wc, 4);
		if (n < 0)
			break;
		for (j = 0; j < n; j++)
			if (wc[j].status && !atomic_load(&rc->striking))
				rc->bad_status++;
		got += n;
	}
	if (got < 2 && !atomic_load(&rc->striking))
		rc->lost++;
}

static int post_recv(struct racer *rc, uint32_t i)
{
	struct ib_async_recv_wr w = { .wr_id = 0x9000 + i, .num_sge = 1 };
	struct ib_async_sge s = {
		(uintptr_t)rc->bed->mem + RECV_AT, rc->recv_len,
		rc->bed->mr.lkey,
	};

	return iba_post_recvs(rc->bed->fd, IB_ASYNC_OBJ_QP, rc->receiver, &w,
			      1, &s, 1);
}

/*
 * Message after message, each with its receive, until one doorbell that
 * surely began after the main thread's command returned: that one must
 * post nothing. One refused earlier (the command is under way) waits for
 * the strike to be known and rings again.
 */
static void *racer_run(void *arg)
{
	struct racer *rc = arg;
	uint64_t end = iba_now_ms() + RACE_MS;
	bool need_recv = true;
	int struck, ret;
	uint32_t i = 0;

	rc->last_err = -ETIMEDOUT;
	while (iba_now_ms() < end) {
		struck = atomic_load(&rc->struck);
		ret = need_recv ? post_recv(rc, i) : 0;
		if (!ret)
			need_recv = false;
		if (!ret || struck) {
			iba_wr_put_ud_send(&rc->ring, i, 0x10000 + i,
					   rc->addr, MSG, rc->lkey, rc->ah,
					   rc->dqpn, rc->ah ? IBA_UD_QKEY : 0);
			iba_wr_produce(&rc->ring, i + 1);
			ret = iba_wr_doorbell(&rc->ring);
		}
		if (struck) {
			rc->after++;
			if (iba_wr_consumed(&rc->ring) != i)
				rc->posted_after++;
			rc->last_err = ret;
			break;
		}
		if (ret) {
			while (!atomic_load(&rc->struck) && iba_now_ms() < end)
				iba_sleep_ms(1);
			continue;
		}
		if (iba_wr_consumed(&rc->ring) != i + 1) {
			rc->last_err = -EPROTO;
			break;
		}
		i++;
		need_recv = true;
		atomic_fetch_add(&rc->posted, 1);
		wait_message(rc);
	}
	return NULL;
}

/* Whatever completions are left, before the next round. */
static void drain_cq(struct iba_rc_bed *bed)
{
	struct ib_async_wc wc[16];

	while (iba_poll_cq_once(bed->fd, bed->cq, wc, 16) > 0)
		;
}

/* A round ends: both its QPs go, and what they left in the CQ. */
static void round_end(struct __test_metadata *_metadata,
		      struct iba_rc_bed *bed, uint32_t a, uint32_t b)
{
	EXPECT_EQ(0, iba_destroy(bed->fd, IB_ASYNC_OBJ_QP, a, NULL));
	EXPECT_EQ(0, iba_destroy(bed->fd, IB_ASYNC_OBJ_QP, b, NULL));
	drain_cq(bed);
}

FIXTURE(race) {
	struct iba_rc_bed bed;
};

FIXTURE_SETUP(race)
{
	int ret = iba_rc_bed_open(&self->bed, IB_ASYNC_FEATURE_WR_RING);

	if (ret > 0)
		SKIP(return, "no rxe node with IB_ASYNC_FEATURE_WR_RING");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, iba_rc_bed_up(&self->bed, CQE, NULL, MEM_LEN));
}

FIXTURE_TEARDOWN(race)
{
	iba_rc_bed_close(&self->bed);
}

/* A new connected pair for one round: the racer sends from the first. */
static int new_pair(struct iba_rc_bed *bed, struct ib_async_create_qp *a,
		    struct ib_async_create_qp *b)
{
	struct ib_async_create_qp sizes = {
		.max_send_wr = 16, .max_recv_wr = 64, .max_send_sge = 1,
		.max_recv_sge = 1,
	};

	return iba_rc_bed_qp(bed, 0xa, &sizes, a) ?:
	       iba_rc_bed_qp(bed, 0xb, &sizes, b) ?:
	       iba_rc_connect(bed->fd, a->handle, b->qp_num, bed->sgid,
			      bed->gid) ?:
	       iba_rc_connect(bed->fd, b->handle, a->qp_num, bed->sgid,
			      bed->gid);
}

/* @rc, to send from one QP to @b: RC unless the test then names an AH. */
static void racer_init(struct racer *rc, struct iba_rc_bed *bed, uint32_t b,
		       uint64_t addr, uint32_t lkey)
{
	memset(rc, 0, sizeof(*rc));
	rc->bed = bed;
	rc->receiver = b;
	rc->addr = addr;
	rc->lkey = lkey;
	rc->recv_len = MSG;
}

/* Start @rc sending from @a; wait until WARM SENDs went through. */
static int racer_go(struct racer *rc, uint32_t a, pthread_t *t)
{
	uint64_t end = iba_now_ms() + RACE_MS;
	int ret;

	ret = iba_wr_map(rc->bed->fd, IB_ASYNC_OBJ_QP, a,
			 IB_ASYNC_WR_RING_SEND, 8, &rc->ring);
	if (ret)
		return ret;
	ret = pthread_create(t, NULL, racer_run, rc);
	if (ret)
		return -ret;
	while (atomic_load(&rc->posted) < WARM && iba_now_ms() < end)
		iba_sleep_ms(1);
	return atomic_load(&rc->posted) < WARM ? -ETIMEDOUT : 0;
}

/* Start @rc sending from @a to @b over RC (racer_init(), racer_go()). */
static int racer_start(struct racer *rc, struct iba_rc_bed *bed,
		       uint32_t a, uint32_t b, uint64_t addr, uint32_t lkey,
		       pthread_t *t)
{
	racer_init(rc, bed, b, addr, lkey);
	return racer_go(rc, a, t);
}

/*
 * Round @round's strike is about to come, a little later than the round
 * before's, so that the rounds meet the racer at different points.
 */
static void racer_aim(struct racer *rc, int round)
{
	iba_sleep_ms(round * 3);
	atomic_store(&rc->striking, 1);
}

/*
 * Round @round of a race on a new RC pair, the SENDs reading the bed's
 * memory: started, warm and aimed (racer_aim()).
 */
static int pair_race(struct racer *rc, struct iba_rc_bed *bed, int round,
		     struct ib_async_create_qp *a,
		     struct ib_async_create_qp *b, pthread_t *t)
{
	int ret = new_pair(bed, a, b) ?:
		  racer_start(rc, bed, a->handle, b->handle,
			      (uintptr_t)bed->mem, bed->mr.lkey, t);

	if (!ret)
		racer_aim(rc, round);
	return ret;
}

/* The main thread's command returned: so does the racer, soon. */
static void racer_struck(struct racer *rc, pthread_t t)
{
	atomic_store(&rc->struck, 1);
	pthread_join(t, NULL);
}

/*
 * What every race must show: one doorbell at least began after the
 * command returned, posted nothing and failed with @err; every message
 * before the strike completed without error; the ring's consumer says
 * exactly what the racer saw posted.
 */
static void racer_check(struct __test_metadata *_metadata,
			struct racer *rc, const char *what, int err)
{
	TH_LOG("%u posted, %u doorbells after the %s, last %d",
	       atomic_load(&rc->posted), rc->after, what, rc->last_err);
	EXPECT_EQ(err, rc->last_err);
	EXPECT_LE(1U, rc->after);
	EXPECT_EQ(0U, rc->posted_after);
	EXPECT_EQ(0U, rc->lost);
	EXPECT_EQ(0U, rc->bad_status);
	EXPECT_EQ(atomic_load(&rc->posted), iba_wr_consumed(&rc->ring));
}

/* racer_check(), and the race is over: its ring is unmapped. */
static void racer_verdict(struct __test_metadata *_metadata,
			  struct racer *rc, const char *what, int err)
{
	racer_check(_metadata, rc, what, err);
	iba_wr_unmap(&rc->ring);
}

/*
 * The QP goes while its ring's doorbells run: the destroy waits for none
 * that is posting and no later one finds the QP.
 */
TEST_F_TIMEOUT(race, qp_destroyed_under_doorbells, 240)
{
	struct ib_async_create_qp a, b;
	struct racer rc;
	pthread_t t;
	int round;

	IBA_SKIPPED_IN_SETUP();
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, pair_race(&rc, &self->bed, round, &a, &b, &t));
		EXPECT_EQ(0, iba_destroy(self->bed.fd, IB_ASYNC_OBJ_QP,
					 a.handle, NULL));
		racer_struck(&rc, t);
		racer_verdict(_metadata, &rc, "destroy", -ENOENT);
		EXPECT_EQ(0, iba_destroy(self->bed.fd, IB_ASYNC_OBJ_QP,
					 b.handle, NULL));
		drain_cq(&self->bed);
	}
}

/*
 * The memory the SENDs read is deregistered while doorbells run: once
 * DESTROY returned, no doorbell posts a SEND naming its lkey (EINVAL,
 * the ring's error saying so), so the device is never handed memory
 * whose registration is gone. (A SEND posted before may still meet the
 * dead MR in the device and complete in error, as on ib_uverbs.)
 */
TEST_F_TIMEOUT(race, mr_deregistered_under_doorbells, 240)
{
	struct ib_async_create_qp a, b;
	struct ib_async_reg_mr mr2;
	struct racer rc;
	pthread_t t;
	int round;

	IBA_SKIPPED_IN_SETUP();
	memcpy(self->bed.mem, "racing", 7);
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, new_pair(&self->bed, &a, &b));
		/* the SENDs' source: the first page, registered again */
		ASSERT_EQ(0, iba_reg_mr(self->bed.fd, self->bed.pd,
					self->bed.mem, 4096,
					IB_UVERBS_ACCESS_LOCAL_WRITE, &mr2));
		ASSERT_EQ(0, racer_start(&rc, &self->bed, a.handle, b.handle,
					 (uintptr_t)self->bed.mem, mr2.lkey,
					 &t));
		racer_aim(&rc, round);
		EXPECT_EQ(0, iba_destroy(self->bed.fd, IB_ASYNC_OBJ_MR,
					 mr2.handle, NULL));
		racer_struck(&rc, t);
		EXPECT_EQ((uint32_t)EINVAL, iba_wr_error(&rc.ring));
		racer_verdict(_metadata, &rc, "dereg", -EINVAL);
		round_end(_metadata, &self->bed, a.handle, b.handle);
	}
}

/*
 * The QP is reset while its ring's doorbells run: once MODIFY_QP returned,
 * no doorbell posts (the driver refuses a QP in RESET: EINVAL, the ring's
 * error saying so), and the requests the reset took from the device leave
 * nothing behind. Connected again, the program rings the same ring: the
 * refused slot is posted, and that message and its receive complete
 * without error, and no completion of before the reset shows up with them.
 */
TEST_F_TIMEOUT(race, qp_reset_under_doorbells, 240)
{
	struct ib_async_create_qp a, b;
	struct ib_async_wc wc[4];
	struct racer rc;
	uint32_t next;
	pthread_t t;
	int round, j;

	IBA_SKIPPED_IN_SETUP();
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, pair_race(&rc, &self->bed, round, &a, &b, &t));
		EXPECT_EQ(0, iba_modify_qp(self->bed.fd, a.handle, QPS_RESET,
					   0, NULL));
		racer_struck(&rc, t);
		EXPECT_EQ((uint32_t)EINVAL, iba_wr_error(&rc.ring));
		racer_check(_metadata, &rc, "reset", -EINVAL);
		next = iba_wr_consumed(&rc.ring);

		/* both ends again from RESET, so that the PSNs agree */
		ASSERT_EQ(0, iba_modify_qp(self->bed.fd, b.handle, QPS_RESET,
					   0, NULL));
		ASSERT_EQ(0, iba_rc_connect(self->bed.fd, a.handle, b.qp_num,
					    self->bed.sgid, self->bed.gid));
		ASSERT_EQ(0, iba_rc_connect(self->bed.fd, b.handle, a.qp_num,
					    self->bed.sgid, self->bed.gid));
		drain_cq(&self->bed);
		ASSERT_EQ(0, post_recv(&rc, next));
		EXPECT_EQ(0, iba_wr_doorbell(&rc.ring));
		EXPECT_EQ(next + 1, iba_wr_consumed(&rc.ring));
		EXPECT_EQ(0U, iba_wr_error(&rc.ring));
		ASSERT_EQ(2, iba_poll_cq(self->bed.fd, self->bed.cq, wc, 2));
		for (j = 0; j < 2; j++) {
			EXPECT_EQ(0U, wc[j].status);
			EXPECT_TRUE(wc[j].wr_id == 0x10000 + next ||
				    wc[j].wr_id == 0x9000 + next);
		}
		EXPECT_NE(wc[0].wr_id, wc[1].wr_id);
		EXPECT_EQ(0, iba_poll_cq_once(self->bed.fd, self->bed.cq, wc,
					      4));

		iba_wr_unmap(&rc.ring);
		round_end(_metadata, &self->bed, a.handle, b.handle);
	}
}

/*
 * The AH of UD SENDs is destroyed while their ring's doorbells run: once
 * DESTROY returned, no doorbell posts a SEND naming it (ENOENT, the
 * ring's error saying so), so the driver is never handed an AH that is
 * gone. The racer sends from one UD QP to another, each receive with
 * room for the GRH.
 */
TEST_F_TIMEOUT(race, ah_destroyed_under_ud_doorbells, 240)
{
	struct ib_async_create_qp a, b;
	struct ib_async_create_ah ah;
	struct racer rc;
	pthread_t t;
	int round;

	IBA_SKIPPED_IN_SETUP();
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, iba_create_qp(self->bed.fd, 0xa, self->bed.pd,
					   self->bed.cq, IB_UVERBS_QPT_UD,
					   &a));
		ASSERT_EQ(0, iba_create_qp(self->bed.fd, 0xb, self->bed.pd,
					   self->bed.cq, IB_UVERBS_QPT_UD,
					   &b));
		ASSERT_EQ(0, iba_ud_to_rts(self->bed.fd, a.handle));
		ASSERT_EQ(0, iba_ud_to_rts(self->bed.fd, b.handle));
		ASSERT_EQ(0, iba_create_ah(self->bed.fd, self->bed.pd,
					   self->bed.sgid, self->bed.gid,
					   &ah));
		racer_init(&rc, &self->bed, b.handle,
			   (uintptr_t)self->bed.mem, self->bed.mr.lkey);
		rc.recv_len = IBA_GRH_BYTES + MSG;
		rc.ah = ah.handle;
		rc.dqpn = b.qp_num;
		ASSERT_EQ(0, racer_go(&rc, a.handle, &t));
		racer_aim(&rc, round);
		EXPECT_EQ(0, iba_destroy(self->bed.fd, IB_ASYNC_OBJ_AH,
					 ah.handle, NULL));
		racer_struck(&rc, t);
		EXPECT_EQ((uint32_t)ENOENT, iba_wr_error(&rc.ring));
		racer_verdict(_metadata, &rc, "AH destroy", -ENOENT);
		round_end(_metadata, &self->bed, a.handle, b.handle);
	}
}

/*
 * Last, as it takes the device away: removal while doorbells run waits
 * for none of them for long, and every doorbell after it says ENODEV.
 * rxe0 is re-created afterwards.
 */
TEST_F_TIMEOUT(race, device_removed_under_doorbells, 240)
{
	struct ib_async_create_qp a, b;
	struct racer rc;
	pthread_t t;
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to delete the rxe device");
	ASSERT_EQ(0, new_pair(&self->bed, &a, &b));
	ASSERT_EQ(0, racer_start(&rc, &self->bed, a.handle, b.handle,
				 (uintptr_t)self->bed.mem, self->bed.mr.lkey,
				 &t));
	t0 = iba_now_ms();
	atomic_store(&rc.striking, 1);
	ASSERT_EQ(0, iba_sh("rdma link delete %s", self->bed.dev.ibdev));
	EXPECT_GT((uint64_t)10000, iba_now_ms() - t0);
	racer_struck(&rc, t);
	racer_verdict(_metadata, &rc, "removal", -ENODEV);

	ASSERT_EQ(0, iba_rxe_readd(&self->bed.dev));
}

TEST_HARNESS_MAIN

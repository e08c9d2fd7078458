// SPDX-License-Identifier: GPL-2.0
/*
 * Submission rings (IB_ASYNC_IOC_MAP_WR_RING, IB_ASYNC_IOC_WR_DOORBELL) on
 * rxe: requests written into a mapped ring are posted by one doorbell and
 * complete as the list path's do, inline data included; a producer more
 * than the ring's size ahead posts nothing; a refused slot stops the
 * batch there, the ones before it posted, the consumer and the error
 * saying where and why; slots rewritten while doorbells run can never
 * change what was posted; the header cannot be mapped writable, a child
 * of fork() has no mapping and may not ring; the ring outlives its QP
 * while mapped, and device removal leaves it readable; it is charged to
 * RLIMIT_MEMLOCK.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "lib/iba_rc_bed.h"
#include "lib/iba_wr_ring.h"

#define MEM_LEN		4096
#define RECV_AT		2048
#define MSG		8
#define INLINE_MAX	64
#define CQE		1024
#define BAD_LKEY	0xbad0bad0U
/* The scribbling test: how long, and how many posts at most. */
#define SCRIBBLE_MS	15000
#define SCRIBBLE_POSTS	300

FIXTURE(wr_ring) {
	struct iba_rc_bed bed;
	struct iba_wr_ring s, r;
};

/* RC QPs with room for inline data and more receives than the lib's. */
static const struct ib_async_create_qp qp_sizes = {
	.max_send_wr = 16, .max_recv_wr = 128, .max_send_sge = 2,
	.max_recv_sge = 2, .max_inline_data = INLINE_MAX,
};

FIXTURE_SETUP(wr_ring)
{
	int ret = iba_rc_bed_open(&self->bed, IB_ASYNC_FEATURE_WR_RING);

	if (ret > 0)
		SKIP(return, "no rxe node with IB_ASYNC_FEATURE_WR_RING");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, iba_rc_bed_up(&self->bed, CQE, &qp_sizes, MEM_LEN));
	ASSERT_LE((uint32_t)MSG, self->bed.a.max_inline_data);
}

FIXTURE_TEARDOWN(wr_ring)
{
	iba_wr_unmap(&self->s);
	iba_wr_unmap(&self->r);
	iba_rc_bed_close(&self->bed);
}

/* A's send ring and B's receive ring, of @entries slots each. */
static int map_both(FIXTURE_DATA(wr_ring) *self, uint32_t entries)
{
	return iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_QP, self->bed.a.handle,
			  IB_ASYNC_WR_RING_SEND, entries, &self->s) ?:
	       iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_QP, self->bed.b.handle,
			  IB_ASYNC_WR_RING_RECV, entries, &self->r);
}

static uintptr_t at(FIXTURE_DATA(wr_ring) *self, size_t off)
{
	return (uintptr_t)self->bed.mem + off;
}

TEST_F(wr_ring, posts_through_the_ring_complete)
{
	struct ib_async_send_wr *w;
	struct ib_async_wc wc[8];
	int recvs = 0, sends = 0, i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, map_both(self, 0));
	/* the default size, the geometry the answer and the header give */
	EXPECT_EQ(256U, self->s.m.entries);
	EXPECT_EQ(256U, self->s.h->entries);
	EXPECT_EQ(self->s.m.slot_size, self->s.h->slot_size);
	EXPECT_EQ(0U, self->s.m.slot_size % 64);
	EXPECT_EQ(self->bed.a.max_send_sge, self->s.h->max_sge);
	EXPECT_EQ(self->bed.a.max_inline_data, self->s.h->max_inline);
	EXPECT_EQ((uint32_t)IB_ASYNC_WR_RING_RECV, self->r.h->kind);
	EXPECT_EQ(0U, self->r.h->max_inline);
	EXPECT_EQ(((uint64_t)self->bed.a.handle << 1) | IB_ASYNC_WR_RING_SEND,
		  self->s.m.doorbell);
	EXPECT_EQ(0U, iba_wr_consumed(&self->s));

	for (i = 0; i < 4; i++)
		iba_wr_put_recv(&self->r, i, 0x100 + i,
				at(self, RECV_AT + i * 16),
				16, self->bed.mr.lkey);
	iba_wr_produce(&self->r, 4);
	ASSERT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(4U, iba_wr_consumed(&self->r));
	EXPECT_EQ(0U, self->r.h->error);
	EXPECT_EQ(4, iba_fdinfo(self->bed.fd, "work-requests"));

	/* three from registered memory, one inline from the slot itself */
	memcpy(self->bed.mem, "ringring", MSG);
	for (i = 0; i < 3; i++)
		iba_wr_put_send(&self->s, i, 0x200 + i, at(self, 0), MSG,
				self->bed.mr.lkey);
	iba_wr_put_send(&self->s, 3, 0x203, 0, MSG, 0);
	w = (struct ib_async_send_wr *)iba_wr_slot(&self->s, 3);
	w->send_flags |= IB_ASYNC_SEND_INLINE;
	memcpy(iba_wr_slot(&self->s, 3) + self->s.m.inline_offset, "inlined!",
	       MSG);
	iba_wr_produce(&self->s, 4);
	ASSERT_EQ(0, iba_wr_doorbell(&self->s));
	EXPECT_EQ(4U, iba_wr_consumed(&self->s));
	EXPECT_EQ(0U, self->s.h->error);

	ASSERT_EQ(8, iba_poll_cq(self->bed.fd, self->bed.cq, wc, 8));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0U, wc[i].status);
		if ((wc[i].wr_id & ~0xffULL) == 0x100) {
			recvs++;
			EXPECT_EQ((uint32_t)MSG, wc[i].byte_len);
		} else {
			sends++;
			EXPECT_EQ(0x200ULL, wc[i].wr_id & ~3ULL);
		}
	}
	EXPECT_EQ(4, recvs);
	EXPECT_EQ(4, sends);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, memcmp(self->bed.mem + RECV_AT + i * 16,
				    "ringring", MSG));
	EXPECT_EQ(0, memcmp(self->bed.mem + RECV_AT + 3 * 16, "inlined!", MSG));
	/* nothing pending: a doorbell posts nothing */
	EXPECT_EQ(0, iba_wr_doorbell(&self->s));
	EXPECT_EQ(4U, iba_wr_consumed(&self->s));
	EXPECT_EQ(0, iba_fdinfo(self->bed.fd, "work-requests"));
}

TEST_F(wr_ring, a_producer_beyond_the_ring_posts_nothing)
{
	int i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, map_both(self, 4));
	ASSERT_EQ(4U, self->r.h->entries);
	for (i = 0; i < 4; i++)
		iba_wr_put_recv(&self->r, i, 0x100 + i, at(self, RECV_AT), 8,
				self->bed.mr.lkey);
	iba_wr_produce(&self->r, 5);
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&self->r));
	EXPECT_EQ(0U, iba_wr_consumed(&self->r));
	EXPECT_EQ(0, iba_fdinfo(self->bed.fd, "work-requests"));
	/* behind the consumer reads as far ahead: refused too */
	iba_wr_produce(&self->r, (uint32_t)-1);
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&self->r));
	EXPECT_EQ(0U, iba_wr_consumed(&self->r));
	EXPECT_EQ(0, iba_fdinfo(self->bed.fd, "work-requests"));
	/* exactly the ring's size is a full ring, and is posted */
	iba_wr_produce(&self->r, 4);
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(4U, iba_wr_consumed(&self->r));
	EXPECT_EQ(4, iba_fdinfo(self->bed.fd, "work-requests"));
}

TEST_F(wr_ring, a_refused_slot_stops_the_batch_there)
{
	struct ib_async_recv_wr *rw;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, map_both(self, 8));
	iba_wr_put_recv(&self->r, 0, 0x100, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_put_recv(&self->r, 1, 0x101, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_put_recv(&self->r, 2, 0x102, at(self, RECV_AT), 8, BAD_LKEY);
	iba_wr_put_recv(&self->r, 3, 0x103, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_produce(&self->r, 4);
	/* some posted: the call succeeds, the header says the rest */
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(2U, iba_wr_consumed(&self->r));
	EXPECT_EQ((uint32_t)EINVAL, self->r.h->error);
	EXPECT_EQ(2, iba_fdinfo(self->bed.fd, "work-requests"));
	/* rung again as it is: the same slot, the same refusal */
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&self->r));
	EXPECT_EQ(2U, iba_wr_consumed(&self->r));
	EXPECT_EQ((uint32_t)EINVAL, self->r.h->error);
	/* the program drops what was refused */
	iba_wr_produce(&self->r, 2);
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(2U, iba_wr_consumed(&self->r));
	EXPECT_EQ(0U, self->r.h->error);
	/* more entries than a slot holds; a reserved field */
	iba_wr_put_recv(&self->r, 2, 0x104, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	rw = (struct ib_async_recv_wr *)iba_wr_slot(&self->r, 3);
	iba_wr_put_recv(&self->r, 3, 0x105, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	rw->num_sge = self->r.m.max_sge + 1;
	iba_wr_produce(&self->r, 4);
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(3U, iba_wr_consumed(&self->r));
	EXPECT_EQ((uint32_t)EINVAL, self->r.h->error);
	rw->num_sge = 1;
	rw->reserved = 1;
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&self->r));
	EXPECT_EQ(3U, iba_wr_consumed(&self->r));
	rw->reserved = 0;
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(4U, iba_wr_consumed(&self->r));
	EXPECT_EQ(0U, self->r.h->error);
	EXPECT_EQ(4, iba_fdinfo(self->bed.fd, "work-requests"));

	/* a send the rules refuse first: the call fails, nothing posted */
	iba_wr_put_send(&self->s, 0, 0x200, at(self, 0), 8, self->bed.mr.lkey);
	((struct ib_async_send_wr *)iba_wr_slot(&self->s, 0))->opcode = 0xee;
	iba_wr_produce(&self->s, 1);
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&self->s));
	EXPECT_EQ(0U, iba_wr_consumed(&self->s));
	EXPECT_EQ((uint32_t)EINVAL, self->s.h->error);
	/* inline data beyond what the slot holds */
	iba_wr_put_send(&self->s, 0, 0x200, 0, self->s.m.max_inline + 1, 0);
	((struct ib_async_send_wr *)iba_wr_slot(&self->s, 0))->send_flags |=
		IB_ASYNC_SEND_INLINE;
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&self->s));
	EXPECT_EQ(0U, iba_wr_consumed(&self->s));
	EXPECT_EQ(4, iba_fdinfo(self->bed.fd, "work-requests"));
}

/* What the scribbler thread writes over a send ring while it runs. */
struct scribble {
	struct iba_wr_ring *ring;
	uint32_t good_lkey;
	volatile int stop;
	unsigned long writes;
};

/*
 * Every field a send's validity hangs on, over every slot: in turn a value
 * the checks refuse whatever the other fields hold, and the value the main
 * thread writes. A request posted with any of the former would complete
 * with an error (or not at all), so only a kernel that posted something
 * other than what it checked could make one fail. Never wr_id:
 * completions must name what the main thread posted.
 */
static void *scribble_run(void *arg)
{
	struct scribble *sc = arg;
	struct iba_wr_ring *r = sc->ring;
	unsigned int k = 0;
	uint32_t i;

	while (!sc->stop) {
		for (i = 0; i < r->m.entries; i++) {
			struct ib_async_send_wr *w = (void *)iba_wr_slot(r, i);
			struct ib_async_sge *sg = iba_wr_sges(r, i);
			bool bad = k & 1;

			switch ((k >> 1) & 3) {
			case 0:
				sg->lkey = bad ? BAD_LKEY : sc->good_lkey;
				break;
			case 1:
				/* past the MR wherever it starts */
				sg->length = bad ? MEM_LEN + MSG : MSG;
				break;
			case 2:
				w->num_sge = bad ? r->m.max_sge + 1 : 1;
				break;
			default:
				/* no opcode at all */
				w->opcode = bad ? 0xee : IB_UVERBS_WR_SEND;
				break;
			}
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		}
		k++;
		sc->writes++;
	}
	return NULL;
}

/* Receives for the scribbling test, through the list path. */
static int more_recvs(FIXTURE_DATA(wr_ring) *self, uint32_t n)
{
	struct ib_async_recv_wr w[16];
	struct ib_async_sge s[16];
	uint32_t i;

	for (i = 0; i < n; i++) {
		w[i] = (struct ib_async_recv_wr){ .wr_id = 0x9000 + i,
						  .num_sge = 1 };
		s[i] = (struct ib_async_sge){ at(self, RECV_AT), MSG,
					      self->bed.mr.lkey };
	}
	return iba_post_recvs(self->bed.fd, IB_ASYNC_OBJ_QP,
			      self->bed.b.handle, w, n, s, n);
}

TEST_F_TIMEOUT(wr_ring, slots_rewritten_during_doorbells_change_nothing, 120)
{
	struct scribble sc = { 0 };
	struct ib_async_wc wc[16];
	uint64_t end = iba_now_ms() + SCRIBBLE_MS;
	uint32_t prod = 0, posted = 0, refused = 0, sent_ok = 0, recvd = 0;
	pthread_t t;
	int n, i, ret;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, map_both(self, 4));
	memcpy(self->bed.mem, "scribble", MSG);
	ASSERT_EQ(0, more_recvs(self, 16));
	ASSERT_EQ(0, more_recvs(self, 16));
	sc.ring = &self->s;
	sc.good_lkey = self->bed.mr.lkey;
	ASSERT_EQ(0, pthread_create(&t, NULL, scribble_run, &sc));
	while (posted < SCRIBBLE_POSTS && iba_now_ms() < end) {
		iba_wr_put_send(&self->s, prod, 0x10000 + prod, at(self, 0),
				MSG, self->bed.mr.lkey);
		iba_wr_produce(&self->s, prod + 1);
		ret = iba_wr_doorbell(&self->s);
		if (iba_wr_consumed(&self->s) == prod + 1) {
			EXPECT_EQ(0, ret);
			EXPECT_EQ(0U, self->s.h->error);
			prod++;
			posted++;
			if (more_recvs(self, 1))
				break;
		} else {
			/* refused whole: the one slot is dropped, and again */
			EXPECT_NE(0, ret);
			EXPECT_NE(0U, self->s.h->error);
			EXPECT_EQ(prod, iba_wr_consumed(&self->s));
			iba_wr_produce(&self->s, prod);
			refused++;
		}
		n = iba_poll_cq_once(self->bed.fd, self->bed.cq, wc, 16);
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			/* a request posted after its copy was checked */
			EXPECT_EQ(0U, wc[i].status);
			if (wc[i].wr_id >= 0x10000) {
				EXPECT_GT(0x10000ULL + prod, wc[i].wr_id);
				sent_ok++;
			} else {
				EXPECT_EQ((uint32_t)MSG, wc[i].byte_len);
				recvd++;
			}
		}
	}
	sc.stop = 1;
	pthread_join(t, NULL);
	while (sent_ok < posted || recvd < posted) {
		n = iba_poll_cq(self->bed.fd, self->bed.cq, wc, 1);
		if (n <= 0)
			break;
		EXPECT_EQ(0U, wc[0].status);
		if (wc[0].wr_id >= 0x10000)
			sent_ok++;
		else
			recvd++;
	}
	TH_LOG("%u posted, %u refused, %lu scribbles", posted, refused,
	       sc.writes);
	EXPECT_LT(0U, posted);
	EXPECT_EQ(posted, sent_ok);
	EXPECT_EQ(posted, recvd);
	/* B's QP is still fine: nothing malformed ever reached it */
	EXPECT_EQ(3, iba_query_qp_state(self->bed.fd, self->bed.b.handle));
	EXPECT_EQ(3, iba_query_qp_state(self->bed.fd, self->bed.a.handle));
}

TEST_F(wr_ring, mapping_and_argument_rules)
{
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .max_wr = 8, .max_sge = 1,
	};
	struct ib_async_create_qp q;
	struct iba_wr_ring r2;
	void *p;
	int ch;

	IBA_SKIPPED_IN_SETUP();
	/* no ring yet: nothing to ring */
	memset(&r2, 0, sizeof(r2));
	r2.fd = self->bed.fd;
	r2.m.doorbell = (uint64_t)self->bed.a.handle << 1;
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&r2));
	r2.m.doorbell = 0x7777ULL << 1;
	EXPECT_EQ(-ENOENT, iba_wr_doorbell(&r2));
	r2.m.doorbell = (uint64_t)self->bed.pd << 1;
	EXPECT_EQ(-EINVAL, iba_wr_doorbell(&r2));
	EXPECT_EQ(-EINVAL, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_QP,
				      self->bed.a.handle, 0,
				      IB_ASYNC_WR_RING_MAX + 1, &r2));
	EXPECT_EQ(-EINVAL, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_QP,
				      self->bed.a.handle, 2, 0, &r2));
	EXPECT_EQ(-EINVAL, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_CQ,
				      self->bed.cq, 0, 0, &r2));
	EXPECT_EQ(-ENOENT, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_QP, 0x7777, 0,
				      0, &r2));
	memset(&r2, 0, sizeof(r2));
	r2.m.argsz = sizeof(r2.m);
	r2.m.obj_type = IB_ASYNC_OBJ_QP;
	r2.m.handle = self->bed.a.handle;
	r2.m.slot_size = 64;
	EXPECT_EQ(-EINVAL,
		  iba_ioc(self->bed.fd, IB_ASYNC_IOC_MAP_WR_RING, &r2.m));
	r2.m.slot_size = 0;
	r2.m.flags = 1;
	EXPECT_EQ(-EINVAL,
		  iba_ioc(self->bed.fd, IB_ASYNC_IOC_MAP_WR_RING, &r2.m));
	r2.m.flags = 0;
	r2.m.reserved = 1;
	EXPECT_EQ(-EINVAL,
		  iba_ioc(self->bed.fd, IB_ASYNC_IOC_MAP_WR_RING, &r2.m));

	/* an SRQ has a receive ring only; a QP on it, a send ring only */
	srq.pd_handle = self->bed.pd;
	ASSERT_EQ(0, iba_ioc(self->bed.fd, IB_ASYNC_IOC_CREATE_SRQ, &srq));
	EXPECT_EQ(-EINVAL, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_SRQ,
				      srq.handle, IB_ASYNC_WR_RING_SEND, 4,
				      &r2));
	q = (struct ib_async_create_qp){
		.argsz = sizeof(q), .pd_handle = self->bed.pd,
		.send_cq_handle = self->bed.cq, .recv_cq_handle = self->bed.cq,
		.srq_handle = srq.handle, .qp_type = IB_UVERBS_QPT_RC,
		.max_send_wr = 4, .max_send_sge = 1,
	};
	ASSERT_EQ(0, iba_ioc(self->bed.fd, IB_ASYNC_IOC_CREATE_QP, &q));
	EXPECT_EQ(-EINVAL, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_QP, q.handle,
				      IB_ASYNC_WR_RING_RECV, 4, &r2));
	EXPECT_EQ(0, iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_SRQ, srq.handle,
				IB_ASYNC_WR_RING_RECV, 4, &r2));
	EXPECT_EQ(((uint64_t)srq.handle << 1) | 1, r2.m.doorbell);
	EXPECT_EQ(0, iba_wr_doorbell(&r2));
	iba_wr_unmap(&r2);

	ASSERT_EQ(0, map_both(self, 8));
	EXPECT_EQ(-EBUSY, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_QP,
				     self->bed.a.handle, IB_ASYNC_WR_RING_SEND,
				     8, &r2));
	/* the header is the kernel's to write */
	p = mmap(NULL, self->s.m.mmap_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->bed.fd, (off_t)self->s.m.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	EXPECT_NE(0, mprotect((void *)self->s.h, self->s.m.mmap_size,
			      PROT_READ | PROT_WRITE));
	/* private, another size, another offset */
	p = mmap(NULL, self->s.m.slots_mmap_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE, self->bed.fd, (off_t)self->s.m.slots_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->s.m.slots_mmap_size * 2, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->bed.fd, (off_t)self->s.m.slots_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->s.m.mmap_size, PROT_READ, MAP_SHARED, self->bed.fd,
		 (off_t)self->s.m.mmap_offset + (8 << 12));
	EXPECT_EQ(MAP_FAILED, p);
	/* a doorbell is no command of a channel's file */
	ch = iba_channel(self->bed.fd, IB_ASYNC_CHANNEL_COMP, 0);
	ASSERT_LE(0, ch);
	EXPECT_NE(0, ioctl(ch, IB_ASYNC_IOC_WR_DOORBELL,
			   (unsigned long)self->s.m.doorbell));
	EXPECT_EQ(ENOTTY, errno);
	close(ch);
}

TEST_F(wr_ring, the_ring_outlives_its_qp_while_mapped)
{
	struct ib_async_create_qp q;
	struct iba_wr_ring r2;
	void *p;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_rc_bed_qp(&self->bed, 3, &qp_sizes, &q));
	/* receives are taken from INIT on: any peer will do */
	ASSERT_EQ(0, iba_rc_connect(self->bed.fd, q.handle, self->bed.b.qp_num,
				    self->bed.sgid, self->bed.gid));
	ASSERT_EQ(0, iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_QP, q.handle,
				IB_ASYNC_WR_RING_RECV, 4, &r2));
	iba_wr_put_recv(&r2, 0, 0x100, at(self, RECV_AT), 8, self->bed.mr.lkey);
	iba_wr_produce(&r2, 1);
	ASSERT_EQ(0, iba_wr_doorbell(&r2));
	ASSERT_EQ(0,
		  iba_destroy(self->bed.fd, IB_ASYNC_OBJ_QP, q.handle, NULL));
	/* still there to read and write, never looked at again */
	EXPECT_EQ(4U, r2.h->entries);
	EXPECT_EQ(1U, iba_wr_consumed(&r2));
	iba_wr_produce(&r2, 2);
	EXPECT_EQ(-ENOENT, iba_wr_doorbell(&r2));
	EXPECT_EQ(1U, iba_wr_consumed(&r2));
	/* no new mapping finds it */
	p = mmap(NULL, r2.m.mmap_size, PROT_READ, MAP_SHARED, self->bed.fd,
		 (off_t)r2.m.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	iba_wr_unmap(&r2);
	EXPECT_EQ(0, iba_fdinfo(self->bed.fd, "work-requests"));
	/* the file's other QPs and their rings go on */
	ASSERT_EQ(0, map_both(self, 4));
	iba_wr_put_recv(&self->r, 0, 0x100, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_produce(&self->r, 1);
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(1U, iba_wr_consumed(&self->r));
}

TEST_F(wr_ring, a_child_of_fork_has_no_mapping_and_no_doorbell)
{
	unsigned char vec[1];
	pid_t pid;
	int status;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, map_both(self, 4));
	iba_wr_put_recv(&self->r, 0, 0x100, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_produce(&self->r, 1);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct iba_wr_ring r2;
		void *p;

		/* not the opener's memory: the kernel refuses to post */
		if (iba_wr_doorbell(&self->r) != -EPERM)
			_exit(10);
		/* the parent's mappings did not come along */
		if (mincore((void *)self->r.h, 4096, vec) != -1 ||
		    errno != ENOMEM)
			_exit(11);
		if (mincore(self->r.p, 4096, vec) != -1 || errno != ENOMEM)
			_exit(12);
		/* nor may it map them, or ask for a ring of its own */
		p = mmap(NULL, self->r.m.slots_mmap_size,
			 PROT_READ | PROT_WRITE, MAP_SHARED, self->bed.fd,
			 (off_t)self->r.m.slots_mmap_offset);
		if (p != MAP_FAILED || errno != EPERM)
			_exit(13);
		if (iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_SRQ, 0x7777,
			       IB_ASYNC_WR_RING_RECV, 4, &r2) != -EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the parent's ring still works, and the child posted nothing */
	EXPECT_EQ(0U, iba_wr_consumed(&self->r));
	EXPECT_EQ(0, iba_wr_doorbell(&self->r));
	EXPECT_EQ(1U, iba_wr_consumed(&self->r));
	EXPECT_EQ(1, iba_fdinfo(self->bed.fd, "work-requests"));
}

TEST_F(wr_ring, charged_to_rlimit_memlock)
{
	struct rlimit rl = { 0, 0 };
	struct iba_wr_ring r2;

	IBA_SKIPPED_IN_SETUP();
	/* this test's own process: the harness forks one per test */
	ASSERT_EQ(0, iba_drop_ipc_lock());
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(-ENOMEM, iba_wr_ask(self->bed.fd, IB_ASYNC_OBJ_QP,
				      self->bed.a.handle, IB_ASYNC_WR_RING_SEND,
				      4, &r2));
	/* refused, nothing attached: it may be asked again */
	rl.rlim_cur = rl.rlim_max = 1 << 20;
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(0, iba_wr_map(self->bed.fd, IB_ASYNC_OBJ_QP,
				self->bed.a.handle, IB_ASYNC_WR_RING_SEND, 4,
				&r2));
	iba_wr_unmap(&r2);
}

/*
 * Last, as it takes the device away: removal with a ring mapped waits for
 * nothing of this file; the ring stays mapped and readable, its doorbell
 * fails with ENODEV, and destroying the QP afterwards lets it go. rxe0 is
 * re-created afterwards.
 */
TEST_F_TIMEOUT(wr_ring, removal_with_a_ring_mapped, 120)
{
	uint64_t t0;

	IBA_SKIPPED_IN_SETUP();
	if (geteuid())
		SKIP(return, "needs root to delete the rxe device");
	ASSERT_EQ(0, map_both(self, 4));
	iba_wr_put_recv(&self->r, 0, 0x100, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_produce(&self->r, 1);
	ASSERT_EQ(0, iba_wr_doorbell(&self->r));
	iba_wr_put_recv(&self->r, 1, 0x101, at(self, RECV_AT), 8,
			self->bed.mr.lkey);
	iba_wr_produce(&self->r, 2);

	t0 = iba_now_ms();
	ASSERT_EQ(0, iba_sh("rdma link delete %s", self->bed.dev.ibdev));
	EXPECT_GT((uint64_t)10000, iba_now_ms() - t0);
	EXPECT_EQ(-ENODEV, iba_wr_doorbell(&self->r));
	EXPECT_EQ(1U, iba_wr_consumed(&self->r));
	EXPECT_EQ(4U, self->r.h->entries);
	self->r.p->producer = 3;
	/* destroying the dead QP lets the ring go once it is unmapped */
	EXPECT_EQ(0, iba_destroy(self->bed.fd, IB_ASYNC_OBJ_QP,
				 self->bed.b.handle, NULL));
	EXPECT_EQ(-ENODEV, iba_wr_doorbell(&self->r));
	EXPECT_EQ(1U, iba_wr_consumed(&self->r));
	iba_wr_unmap(&self->r);

	ASSERT_EQ(0, iba_rxe_readd(&self->bed.dev));
}

TEST_HARNESS_MAIN

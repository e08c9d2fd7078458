// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Submission rings against a fake kernel: ibv_post_send(),
 * ibv_post_recv() and ibv_post_srq_recv() write slots and ring one
 * doorbell per ring's worth; *bad_wr names the very request the kernel
 * (or the library) refused, and the slots after it are dropped; inline
 * data travels in the slot; threads posting to one QP never mix their
 * slots; a child of fork() and IBASYNC_NO_WR_RING post in lists.
 *
 * And the kernel's poller (IBASYNC_POLLER): off unless asked for; its
 * thread started at open, blocking every signal, and stopped and joined
 * at close; while it is awake (NEED_WAKEUP clear) posts ring no doorbell
 * and empty polls of a completion ring make no system call, with
 * *bad_wr as exact; asleep, or refused, everything as without one.
 *
 * The node of the fake tree is made a regular file, which the library
 * maps at the offsets MAP_WR_RING and MAP_CQ_RING answer and this program
 * maps too, to read the slots and write the consumer as the kernel does.
 * The fake doorbell, and the fake poller, refuse a request whose wr_id
 * has REFUSE set. The fake poller runs in the library's own thread, inside
 * its IB_ASYNC_IOC_POLLER, as the kernel's does.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "ibasync.h"
#include "tap.h"

#define ENTRIES		8
#define MAX_SGE		2
#define MAX_INLINE	32
#define SPAN		(64 * 1024)	/* each ring's part in the node file */
#define RINGS		16
#define CQS		8
#define CQ_ENTRIES	8
#define WAITS		8
#define REFUSE		(1ULL << 62)
#define LOG_MAX		4096
#define THREADS		4
#define PER_THREAD	300

struct fake_ring {
	struct ib_async_map_wr_ring m;
	struct ib_async_wr_ring_header *h;	/* this program's mappings */
	unsigned char *s;
	int fd;				/* the file it belongs to */
	/*
	 * The poller refused a slot with this producer: no retry until it
	 * changes, the ring empties or a doorbell rings (the producer alone
	 * could come back to the same value).
	 */
	bool refused;
	uint32_t refused_prod;
};

struct fake_cq {
	uint32_t handle;
	int fd;
	struct ib_async_cq_ring_header *h;
	struct ib_async_cq_ring_consumer *c;
};

/* What the fake poller does in each pass over its file's rings. */
enum poller_mode {
	POLLER_TAKE,	/* awake: takes pending slots */
	POLLER_HOLD,	/* awake, and takes nothing */
	POLLER_DOZE,	/* awake until it sees pending slots, then sleeps */
	POLLER_ASLEEP,	/* NEED_WAKEUP everywhere */
};

/*
 * Under lock: the rings, the log and what the poller shares with the
 * program's threads. The counters of ioctls are atomic.
 */
static struct {
	bool on;
	int fd;
	uint64_t features;
	uint32_t handles;
	struct fake_ring ring[RINGS];
	unsigned int nrings;
	struct fake_cq cq[CQS];
	unsigned int ncqs;
	int maps, doorbells, lists;
	/* every ioctl but IB_ASYNC_IOC_POLLER's, and some by name */
	int calls, cq_waits, poll_cqs, pollers, stops;
	/* CQ_WAIT: the spin_us asked, and what ring_flags adds */
	uint32_t wait_spin[WAITS];
	unsigned int nwaits;
	uint32_t wait_flags;
	/* the poller: its answer, mode, file (-1: none) and what it saw */
	int poller_err;
	enum poller_mode mode;
	int polling, stop_latched;
	bool stop;
	uint32_t idle_us;
	bool all_blocked;
	cpu_set_t cpus;		/* the poller thread's, from the kernel */
	/* what the doorbells posted, in order, and a send's inline bytes */
	pthread_mutex_t lock;
	uint64_t log[LOG_MAX];
	unsigned int nlog;
	char inl[MAX_INLINE + 1];
	int bad_slots;		/* slots whose entries did not match their id */
} fake = {
	.lock = PTHREAD_MUTEX_INITIALIZER, .polling = -1, .stop_latched = -1,
	.features = IB_ASYNC_FEATURE_VERBS | IB_ASYNC_FEATURE_USER_MR |
		    IB_ASYNC_FEATURE_WR_RING | IB_ASYNC_FEATURE_CQ_RING |
		    IB_ASYNC_FEATURE_POLLER,
};

static int count(int *counter)
{
	return __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST) + 1;
}

static int counted(int *counter)
{
	return __atomic_load_n(counter, __ATOMIC_SEQ_CST);
}

/*
 * Whether the library mapped a ring for @r (the library's own
 * ibasync_wr_ring_on() is not exported; the fork generation aside).
 */
static bool mapped(const struct ibasync_wr_ring *r)
{
	return r->hdr != NULL;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* The node file at least @end bytes long: rings mapped earlier stay whole. */
static int fake_room(off_t end)
{
	struct stat st;

	if (fstat(fake.fd, &st))
		return -1;
	return st.st_size >= end ? 0 : ftruncate(fake.fd, end);
}

static int fake_map(int fd, struct ib_async_map_wr_ring *m)
{
	struct fake_ring *r;
	size_t wr = m->kind == IB_ASYNC_WR_RING_SEND ?
		    sizeof(struct ib_async_send_wr) :
		    sizeof(struct ib_async_recv_wr);
	off_t base;

	fake.maps++;
	if (fake.nrings == RINGS || m->entries != ENTRIES)
		return fail(EINVAL);	/* the test sizes every queue so */
	r = &fake.ring[fake.nrings];
	base = (off_t)(1 + 2 * fake.nrings) * SPAN;
	m->slots_offset = sizeof(struct ib_async_wr_ring_producer);
	m->max_sge = MAX_SGE;
	m->max_inline = m->kind == IB_ASYNC_WR_RING_SEND ? MAX_INLINE : 0;
	m->inline_offset = (uint32_t)(wr + MAX_SGE * sizeof(struct ib_async_sge));
	m->slot_size = (m->inline_offset + m->max_inline + 63) & ~63U;
	m->doorbell = (uint64_t)m->handle << 1 | m->kind;
	m->mmap_offset = (uint64_t)base;
	m->mmap_size = 4096;
	m->slots_mmap_offset = (uint64_t)base + SPAN;
	m->slots_mmap_size = SPAN;
	if (fake_room(base + 2 * SPAN))
		return -1;
	r->h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fake.fd,
		    base);
	r->s = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_SHARED, fake.fd,
		    base + SPAN);
	if (r->h == MAP_FAILED || r->s == MAP_FAILED)
		return -1;
	memset(r->h, 0, 4096);
	memset(r->s, 0, SPAN);
	r->h->entries = ENTRIES;
	r->h->slot_size = m->slot_size;
	r->h->max_sge = m->max_sge;
	r->h->max_inline = m->max_inline;
	r->h->inline_offset = m->inline_offset;
	r->h->kind = m->kind;
	/* no poller awake from the ring's start on */
	r->h->flags = IB_ASYNC_WR_RING_NEED_WAKEUP;
	r->m = *m;
	r->fd = fd;
	pthread_mutex_lock(&fake.lock);
	fake.nrings++;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

/*
 * One slot, as the kernel takes it: refused with EINVAL if its wr_id says
 * so; a send's entries must say its id's length (id & 7, then 8), and an
 * inline send's data is kept.
 */
static int fake_take(const struct fake_ring *r, const unsigned char *slot)
{
	struct ib_async_send_wr w;
	const struct ib_async_sge *sg;

	memcpy(&w, slot, sizeof(w));
	if (w.wr_id & REFUSE)
		return EINVAL;
	if (r->m.kind == IB_ASYNC_WR_RING_SEND) {
		sg = (const void *)(slot + sizeof(w));
		if (w.send_flags & IBV_SEND_INLINE) {
			memset(fake.inl, 0, sizeof(fake.inl));
			memcpy(fake.inl, slot + r->m.inline_offset,
			       sg[0].length < MAX_INLINE ? sg[0].length :
							   MAX_INLINE);
		} else if (w.num_sge != 1 || sg[0].length != (w.wr_id & 7) + 8) {
			fake.bad_slots++;
		}
	}
	if (fake.nlog < LOG_MAX)
		fake.log[fake.nlog++] = w.wr_id;
	return 0;
}

static uint32_t producer_of(const struct fake_ring *r)
{
	return __atomic_load_n((uint32_t *)r->s, __ATOMIC_ACQUIRE);
}

/*
 * The slots from the consumer up to @prod, as a doorbell or a pass of the
 * poller takes them, fake.lock held: how many were posted, *@err the
 * refusal of the next. The error is published before the consumer.
 */
static uint32_t fake_post(struct fake_ring *r, uint32_t prod, int *err)
{
	uint32_t cons = r->h->consumer, posted = 0;

	*err = 0;
	while (cons + posted != prod && !*err) {
		*err = fake_take(r, r->s + r->m.slots_offset +
				 (size_t)((cons + posted) & (ENTRIES - 1)) *
				 r->m.slot_size);
		if (!*err)
			posted++;
	}
	__atomic_store_n(&r->h->error, (uint32_t)*err, __ATOMIC_RELAXED);
	__atomic_store_n(&r->h->consumer, cons + posted, __ATOMIC_RELEASE);
	return posted;
}

static int fake_doorbell(uint64_t value)
{
	struct fake_ring *r = NULL;
	uint32_t prod, posted;
	unsigned int i;
	int err = 0;

	fake.doorbells++;
	pthread_mutex_lock(&fake.lock);
	for (i = 0; i < fake.nrings; i++)
		if (fake.ring[i].m.doorbell == value)
			r = &fake.ring[i];
	prod = r ? producer_of(r) : 0;
	if (!r || prod - r->h->consumer > ENTRIES) {
		pthread_mutex_unlock(&fake.lock);
		return fail(EINVAL);
	}
	posted = fake_post(r, prod, &err);
	r->refused = false;
	pthread_mutex_unlock(&fake.lock);
	return posted || !err ? 0 : fail(err);
}

/* MAP_CQ_RING: a ring of CQ_ENTRIES after the submission rings' spans. */
static int fake_map_cq(int fd, struct ib_async_map_cq_ring *m)
{
	struct fake_cq *q;
	off_t base;

	if (fake.ncqs == CQS)
		return fail(ENOMEM);
	q = &fake.cq[fake.ncqs];
	base = (off_t)(1 + 2 * RINGS + 2 * fake.ncqs) * SPAN;
	if (fake_room(base + 2 * SPAN))
		return -1;
	q->h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fake.fd,
		    base);
	q->c = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fake.fd,
		    base + SPAN);
	if (q->h == MAP_FAILED || q->c == MAP_FAILED)
		return -1;
	memset(q->h, 0, 4096);
	memset(q->c, 0, 4096);
	q->h->entries = CQ_ENTRIES;
	q->h->record_size = sizeof(struct ib_async_wc);
	q->h->records_offset = sizeof(*q->h);
	q->h->flags = IB_ASYNC_CQ_RING_NEED_WAKEUP;
	q->handle = m->handle;
	q->fd = fd;
	m->entries = CQ_ENTRIES;
	m->mmap_offset = (uint64_t)base;
	m->mmap_size = 4096;
	m->consumer_offset = (uint64_t)base + SPAN;
	m->consumer_size = 4096;
	pthread_mutex_lock(&fake.lock);
	fake.ncqs++;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

static struct fake_cq *fake_cq_of(uint32_t handle)
{
	for (unsigned int i = 0; i < fake.ncqs; i++)
		if (fake.cq[i].handle == handle)
			return &fake.cq[i];
	return NULL;
}

/*
 * CQ_WAIT: fills nothing; its ring_flags are the header's FULL and POLL
 * (as the uAPI says, never NEED_WAKEUP) plus fake.wait_flags.
 */
static int fake_cq_wait(struct ib_async_cq_wait *w)
{
	struct fake_cq *q = fake_cq_of(w->handle);

	count(&fake.cq_waits);
	if (!q)
		return fail(EINVAL);
	if (fake.nwaits < WAITS)
		fake.wait_spin[fake.nwaits++] = w->spin_us;
	w->ring_flags = (__atomic_load_n(&q->h->flags, __ATOMIC_RELAXED) &
			 (IB_ASYNC_CQ_RING_FULL | IB_ASYNC_CQ_RING_POLL)) |
			fake.wait_flags;
	w->available = 0;
	return 0;
}

static void set_flag(uint32_t *flags, uint32_t flag, bool on)
{
	if (on)
		__atomic_fetch_or(flags, flag, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(flags, ~flag, __ATOMIC_SEQ_CST);
}

/*
 * One pass of the poller over the rings of file @fd, fake.lock held. A
 * slot it refused is not tried again (see struct fake_ring): the program
 * sets the producer back to the consumer when it sees the error.
 */
static void fake_pass(int fd)
{
	enum poller_mode mode = fake.mode;
	unsigned int i;
	uint32_t prod;
	int err;

	for (i = 0; i < fake.nrings; i++) {
		struct fake_ring *r = &fake.ring[i];
		bool pending;

		if (r->fd != fd)
			continue;
		prod = producer_of(r);
		pending = prod != r->h->consumer;
		if (!pending)
			r->refused = false;
		set_flag(&r->h->flags, IB_ASYNC_WR_RING_NEED_WAKEUP,
			 mode == POLLER_ASLEEP ||
			 (mode == POLLER_DOZE && pending));
		if (mode != POLLER_TAKE || !pending ||
		    (r->refused && r->refused_prod == prod) ||
		    prod - r->h->consumer > ENTRIES)
			continue;
		fake_post(r, prod, &err);
		r->refused = err;
		r->refused_prod = prod;
	}
	for (i = 0; i < fake.ncqs; i++)
		if (fake.cq[i].fd == fd)
			set_flag(&fake.cq[i].h->flags,
				 IB_ASYNC_CQ_RING_NEED_WAKEUP,
				 mode == POLLER_ASLEEP);
}

/* Whether the calling thread blocks every signal that can be blocked. */
static bool all_signals_blocked(void)
{
	sigset_t set;

	pthread_sigmask(SIG_BLOCK, NULL, &set);
	return sigismember(&set, SIGINT) == 1 &&
	       sigismember(&set, SIGTERM) == 1 &&
	       sigismember(&set, SIGUSR1) == 1 &&
	       sigismember(&set, SIGALRM) == 1 &&
	       sigismember(&set, SIGRTMIN) == 1;
}

/*
 * IB_ASYNC_IOC_POLLER in the library's thread: passes over the file's
 * rings until STOP; a STOP that came first makes it return at once.
 */
static int fake_poll(int fd, const struct ib_async_poller *p)
{
	pthread_mutex_lock(&fake.lock);
	fake.idle_us = p->idle_us;
	fake.all_blocked = all_signals_blocked();
	CPU_ZERO(&fake.cpus);
	sched_getaffinity(0, sizeof(fake.cpus), &fake.cpus);
	/* counted once what it saw is there to read */
	count(&fake.pollers);
	if (fake.poller_err || fake.stop_latched == fd) {
		fake.stop_latched = -1;
		pthread_mutex_unlock(&fake.lock);
		return fake.poller_err ? fail(fake.poller_err) : 0;
	}
	fake.polling = fd;
	fake.stop = false;
	while (!fake.stop) {
		fake_pass(fd);
		pthread_mutex_unlock(&fake.lock);
		usleep(100);
		pthread_mutex_lock(&fake.lock);
	}
	fake.polling = -1;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

static int fake_poller(int fd, const struct ib_async_poller *p)
{
	if (p->argsz != sizeof(*p) || (p->flags & ~IB_ASYNC_POLLER_STOP))
		return fail(EINVAL);
	if (!(p->flags & IB_ASYNC_POLLER_STOP))
		return fake_poll(fd, p);
	count(&fake.stops);
	pthread_mutex_lock(&fake.lock);
	if (fake.polling == fd)
		fake.stop = true;
	else
		fake.stop_latched = fd;
	pthread_mutex_unlock(&fake.lock);
	return 0;
}

static int fake_answer(int fd, unsigned long req, void *arg)
{
	if (req == IB_ASYNC_IOC_POLLER)
		return fake_poller(fd, arg);
	count(&fake.calls);
	switch (req) {
	case IB_ASYNC_IOC_GET_INFO:
		fake_info(arg, fake.features);
		return 0;
	case IB_ASYNC_IOC_CREATE_PD:
		((struct ib_async_create_pd *)arg)->handle = ++fake.handles;
		return 0;
	case IB_ASYNC_IOC_CREATE_CQ:
		((struct ib_async_create_cq *)arg)->handle = ++fake.handles;
		return 0;
	case IB_ASYNC_IOC_CREATE_QP:
		((struct ib_async_create_qp *)arg)->handle = ++fake.handles;
		((struct ib_async_create_qp *)arg)->max_inline_data = MAX_INLINE;
		return 0;
	case IB_ASYNC_IOC_CREATE_SRQ:
		((struct ib_async_create_srq *)arg)->handle = ++fake.handles;
		return 0;
	case IB_ASYNC_IOC_MAP_WR_RING:
		return fake_map(fd, arg);
	case IB_ASYNC_IOC_MAP_CQ_RING:
		return fake_map_cq(fd, arg);
	case IB_ASYNC_IOC_CQ_WAIT:
		return fake_cq_wait(arg);
	case IB_ASYNC_IOC_POLL_CQ:
		count(&fake.poll_cqs);
		((struct ib_async_poll_cq *)arg)->count = 0;
		return 0;
	case IB_ASYNC_IOC_WR_DOORBELL:
		return fake_doorbell((uint64_t)(uintptr_t)arg);
	case IB_ASYNC_IOC_POST_SEND_LIST:
	case IB_ASYNC_IOC_POST_RECV_LIST:
		fake.lists++;
		((struct ib_async_post_list *)arg)->posted =
			((struct ib_async_post_list *)arg)->count;
		return 0;
	case IB_ASYNC_IOC_DESTROY:
		((struct ib_async_destroy *)arg)->events_reported = 0;
		return 0;
	}
	return FAKE_IOCTL_PASS;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	return fake.on ? fake_answer(fd, req, arg) : FAKE_IOCTL_PASS;
}

struct objs {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char buf[256];
};

static int make(struct ibv_context *ctx, struct objs *o)
{
	struct ibv_qp_init_attr qi = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = ENTRIES, .max_recv_wr = ENTRIES,
			 .max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE },
	};

	o->pd = ibv_alloc_pd(ctx);
	o->cq = o->pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	qi.send_cq = qi.recv_cq = o->cq;
	o->qp = o->cq ? ibv_create_qp(o->pd, &qi) : NULL;
	return o->qp ? 0 : -1;
}

static void unmake(struct objs *o)
{
	ibv_destroy_qp(o->qp);
	ibv_destroy_cq(o->cq);
	ibv_dealloc_pd(o->pd);
}

/* @n sends of ids @id0 on, linked, each (id & 7) + 8 bytes of @buf. */
static void chain(struct ibv_send_wr *w, struct ibv_sge *s, int n,
		  uint64_t id0, char *buf)
{
	for (int i = 0; i < n; i++) {
		uint64_t id = id0 + (uint64_t)i;

		s[i] = (struct ibv_sge){ (uintptr_t)buf, (uint32_t)(id & 7) + 8,
					 1 };
		w[i] = (struct ibv_send_wr){
			.wr_id = id, .sg_list = &s[i], .num_sge = 1,
			.opcode = IBV_WR_SEND, .next = i + 1 < n ? &w[i + 1] : NULL,
		};
	}
}

/* The poller thread logs too: read under its lock. */
static bool logged(unsigned int from, uint64_t id0, unsigned int n)
{
	bool same = true;

	pthread_mutex_lock(&fake.lock);
	if (fake.nlog - from != n)
		same = false;
	for (unsigned int i = 0; same && i < n; i++)
		if (fake.log[from + i] != id0 + i)
			same = false;
	pthread_mutex_unlock(&fake.lock);
	return same;
}

static unsigned int log_end(void)
{
	unsigned int n;

	pthread_mutex_lock(&fake.lock);
	n = fake.nlog;
	pthread_mutex_unlock(&fake.lock);
	return n;
}

static void test_sends(struct objs *o)
{
	struct ibasync_wr_ring *r = &to_ibasync_qp(o->qp)->sq_ring;
	struct ibv_send_wr w[24], *bad = NULL;
	struct ibv_sge s[24];
	unsigned int from = fake.nlog;
	int db = fake.doorbells;

	OK(mapped(r) && r->mask == ENTRIES - 1,
	   "a QP made where the node offers rings has a send ring");
	chain(w, s, 3, 100, o->buf);
	OK(!ibv_post_send(o->qp, w, &bad) && fake.doorbells == db + 1 &&
	   logged(from, 100, 3) && !fake.bad_slots,
	   "three sends: one doorbell, posted in order");
	from = fake.nlog;
	db = fake.doorbells;
	chain(w, s, 20, 200, o->buf);
	OK(!ibv_post_send(o->qp, w, &bad) && fake.doorbells == db + 3 &&
	   logged(from, 200, 20) && !fake.bad_slots,
	   "twenty sends on a ring of eight: three doorbells, in order");

	from = fake.nlog;
	chain(w, s, 7, 300, o->buf);
	w[5].wr_id |= REFUSE;
	OK(ibv_post_send(o->qp, w, &bad) == EINVAL && bad == &w[5] &&
	   logged(from, 300, 5), "refused at 5 of 7: bad_wr is the fifth");
	OK(*r->producer == r->hdr->consumer && r->prod == r->hdr->consumer,
	   "the refused slots are dropped: producer back at the consumer");
	from = fake.nlog;
	chain(w, s, 12, 400, o->buf);
	w[10].wr_id |= REFUSE;
	OK(ibv_post_send(o->qp, w, &bad) == EINVAL && bad == &w[10] &&
	   logged(from, 400, 10), "refused in the second batch: bad_wr exact");
	from = fake.nlog;
	chain(w, s, 4, 500, o->buf);
	w[0].wr_id |= REFUSE;
	OK(ibv_post_send(o->qp, w, &bad) == EINVAL && bad == &w[0] &&
	   logged(from, 0, 0), "refused first: nothing posted, bad_wr first");

	from = fake.nlog;
	chain(w, s, 4, 600, o->buf);
	w[2].num_sge = MAX_SGE + 1;
	w[2].sg_list = s;
	OK(ibv_post_send(o->qp, w, &bad) == EINVAL && bad == &w[2] &&
	   logged(from, 600, 2),
	   "more entries than a slot holds: those before posted, bad_wr exact");
	from = fake.nlog;
	memcpy(o->buf, "in-slot!", 8);
	chain(w, s, 1, 700, o->buf);
	w[0].send_flags = IBV_SEND_INLINE;
	s[0].length = 8;
	OK(!ibv_post_send(o->qp, w, &bad) && logged(from, 700, 1) &&
	   !strcmp(fake.inl, "in-slot!"), "inline data travels in the slot");
	s[0].length = MAX_INLINE + 1;
	OK(ibv_post_send(o->qp, w, &bad) == EINVAL && bad == &w[0],
	   "more inline data than the QP takes: EINVAL, nothing written");
}

static void test_recvs(struct ibv_context *ctx, struct objs *o)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = ENTRIES,
						  .max_sge = MAX_SGE } };
	struct ibv_recv_wr w[3], *bad = NULL;
	struct ibv_sge s = { (uintptr_t)o->buf, 8, 1 };
	unsigned int from = fake.nlog;
	struct ibv_srq *srq;
	int i;

	(void)ctx;
	for (i = 0; i < 3; i++)
		w[i] = (struct ibv_recv_wr){ .wr_id = 800 + i, .sg_list = &s,
					     .num_sge = 1,
					     .next = i < 2 ? &w[i + 1] : NULL };
	OK(!ibv_post_recv(o->qp, w, &bad) && logged(from, 800, 3),
	   "ibv_post_recv through the QP's receive ring");
	srq = ibv_create_srq(o->pd, &si);
	if (!OK(srq && mapped(&to_ibasync_srq(srq)->ring),
		"an SRQ gets a receive ring"))
		return;
	from = fake.nlog;
	w[1].wr_id |= REFUSE;
	OK(ibv_post_srq_recv(srq, w, &bad) == EINVAL && bad == &w[1] &&
	   logged(from, 800, 1), "ibv_post_srq_recv: bad_wr exact");
	OK(!ibv_destroy_srq(srq), "the SRQ and its ring go");
}

struct poster {
	pthread_t tid;
	struct ibv_qp *qp;
	char *buf;
	int id, errors;
};

/* Chains of 1 to 3 sends whose ids say thread, number and length. */
static void *poster_run(void *arg)
{
	struct poster *p = arg;
	struct ibv_send_wr w[3], *bad;
	struct ibv_sge s[3];

	for (int i = 0; i < PER_THREAD; i += 3) {
		chain(w, s, 3, ((uint64_t)p->id << 32) | (uint64_t)i, p->buf);
		if (ibv_post_send(p->qp, w, &bad))
			p->errors++;
	}
	return NULL;
}

static void test_threads(struct objs *o)
{
	struct poster p[THREADS];
	unsigned int from = fake.nlog, seen[THREADS] = { 0 };
	int errors = 0, order = 0, i;

	for (i = 0; i < THREADS; i++) {
		p[i] = (struct poster){ .qp = o->qp, .buf = o->buf, .id = i + 1 };
		pthread_create(&p[i].tid, NULL, poster_run, &p[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(p[i].tid, NULL);
		errors += p[i].errors;
	}
	for (unsigned int k = from; k < fake.nlog; k++) {
		unsigned int t = (unsigned int)(fake.log[k] >> 32) - 1;

		/* each thread's requests in its own order, none lost */
		if (t >= THREADS || (fake.log[k] & 0xffffffff) != seen[t]++)
			order++;
	}
	OK(!errors && !order && !fake.bad_slots &&
	   fake.nlog - from == THREADS * PER_THREAD,
	   "%d threads on one QP: every request once, each thread's in order",
	   THREADS);
}

static void test_fork(struct objs *o)
{
	struct ibv_send_wr w[2], *bad;
	struct ibv_sge s[2];
	int lists = fake.lists, status = -1;
	pid_t pid;

	chain(w, s, 2, 900, o->buf);
	pid = fork();
	if (!pid) {
		/* no mapping here: the list, which the kernel would refuse */
		_exit(!ibv_post_send(o->qp, w, &bad) && fake.lists == lists + 1 ?
		      0 : 1);
	}
	waitpid(pid, &status, 0);
	OK(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	   "a child of fork() posts in a list");
	OK(!ibv_post_send(o->qp, w, &bad) && fake.lists == lists,
	   "the parent still posts through its ring");
}

static void test_no_ring(struct ibv_context *ctx)
{
	struct ibv_send_wr w[2], *bad;
	struct ibv_sge s[2];
	struct objs o;
	int maps = fake.maps, lists = fake.lists;

	setenv(IBASYNC_NO_WR_RING_ENV, "1", 1);
	if (!OK(!make(ctx, &o), "objects with IBASYNC_NO_WR_RING"))
		goto out;
	chain(w, s, 2, 1000, o.buf);
	OK(fake.maps == maps && !mapped(&to_ibasync_qp(o.qp)->sq_ring) &&
	   !ibv_post_send(o.qp, w, &bad) && fake.lists == lists + 1,
	   "IBASYNC_NO_WR_RING: no ring asked for, posts in a list");
	unmake(&o);
out:
	unsetenv(IBASYNC_NO_WR_RING_ENV);
}

/* ---- the poller ---------------------------------------------------------- */

static void set_mode(enum poller_mode mode)
{
	pthread_mutex_lock(&fake.lock);
	fake.mode = mode;
	pthread_mutex_unlock(&fake.lock);
}

/* Wait, 5 s at most, for @flag of *@flags to be @on (the poller's passes). */
static bool flag_is(uint32_t *flags, uint32_t flag, bool on)
{
	for (int i = 0; i < 50000; i++) {
		if (!!(__atomic_load_n(flags, __ATOMIC_SEQ_CST) & flag) == on)
			return true;
		usleep(100);
	}
	return false;
}

/* Wait, 5 s at most, for the library's poller to have entered @n times. */
static bool pollers_entered(int n)
{
	for (int i = 0; i < 50000 && counted(&fake.pollers) < n; i++)
		usleep(100);
	return counted(&fake.pollers) >= n;
}

static struct fake_ring *fake_ring_of(const struct ibasync_wr_ring *r)
{
	for (unsigned int i = 0; i < fake.nrings; i++)
		if (fake.ring[i].m.doorbell == r->doorbell)
			return &fake.ring[i];
	return NULL;
}

static void set_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

/* A context opened with IBASYNC_POLLER=@on, IBASYNC_POLLER_IDLE_US=@idle. */
static struct ibv_context *open_with(const struct ft_fake0 *ft, const char *on,
				     const char *idle)
{
	struct ibv_context *ctx;

	set_env(IBASYNC_POLLER_ENV, on);
	set_env(IBASYNC_POLLER_IDLE_US_ENV, idle);
	ctx = ft_fake0_open(ft);
	unsetenv(IBASYNC_POLLER_ENV);
	unsetenv(IBASYNC_POLLER_IDLE_US_ENV);
	return ctx;
}

/* Closed, and whether its poller had left the kernel by then. */
static bool close_ctx(struct ibv_context *ctx)
{
	bool out;

	ibv_close_device(ctx);
	pthread_mutex_lock(&fake.lock);
	out = fake.polling == -1;
	fake.stop_latched = -1;		/* the file is gone */
	pthread_mutex_unlock(&fake.lock);
	return out;
}

/* IBASYNC_POLLER=@on: open and close make no poller. */
static void expect_no_poller(const struct ft_fake0 *ft, const char *on,
			     const char *why)
{
	struct ibv_context *ctx;
	int pollers = counted(&fake.pollers), stops = counted(&fake.stops);

	ctx = open_with(ft, on, NULL);
	OK(ctx && close_ctx(ctx) && counted(&fake.pollers) == pollers &&
	   counted(&fake.stops) == stops, "%s: no poller", why);
}

/* IBASYNC_POLLER=1 and @idle: the poller's idle_us is @want. */
static void expect_idle(const struct ft_fake0 *ft, const char *idle,
			uint32_t want)
{
	struct ibv_context *ctx;
	int pollers = counted(&fake.pollers), stops = counted(&fake.stops);
	uint32_t got;
	bool blocked;

	ctx = open_with(ft, "1", idle);
	if (!OK(ctx && pollers_entered(pollers + 1),
		"IBASYNC_POLLER=1, IDLE_US=%s: the poller enters the kernel",
		idle ? idle : "(unset)"))
		return;
	pthread_mutex_lock(&fake.lock);
	got = fake.idle_us;
	blocked = fake.all_blocked;
	pthread_mutex_unlock(&fake.lock);
	OK(got == want, "IBASYNC_POLLER_IDLE_US=%s: idle_us %u (got %u)",
	   idle ? idle : "(unset)", want, got);
	OK(blocked, "the poller's thread blocks every signal");
	OK(close_ctx(ctx) && counted(&fake.stops) == stops + 1,
	   "close stops the poller and joins its thread");
}

static void test_poller_env(const struct ft_fake0 *ft)
{
	expect_no_poller(ft, NULL, "IBASYNC_POLLER unset");
	expect_no_poller(ft, "0", "IBASYNC_POLLER=0");
	expect_no_poller(ft, "yes", "IBASYNC_POLLER=yes (not 1)");
	fake.features &= ~(uint64_t)IB_ASYNC_FEATURE_POLLER;
	expect_no_poller(ft, "1", "IBASYNC_POLLER=1 without FEATURE_POLLER");
	fake.features |= IB_ASYNC_FEATURE_POLLER;
	expect_idle(ft, NULL, 0);
	expect_idle(ft, "250", 250);
	expect_idle(ft, "25x", 0);
	expect_idle(ft, "2000000", 0);
}

/* open_with(@on, no idle time) and IBASYNC_POLLER_CPU=@cpu; errno kept. */
static struct ibv_context *open_with_cpu(const struct ft_fake0 *ft,
					 const char *on, const char *cpu)
{
	struct ibv_context *ctx;
	int err;

	set_env(IBASYNC_POLLER_CPU_ENV, cpu);
	errno = 0;
	ctx = open_with(ft, on, NULL);
	err = errno;
	unsetenv(IBASYNC_POLLER_CPU_ENV);
	errno = err;
	return ctx;
}

/*
 * IBASYNC_POLLER=1, IBASYNC_POLLER_CPU=@cpu: the poller's thread runs
 * where the kernel says it may, @want (NULL: the test's own CPUs).
 */
static void expect_cpus(const struct ft_fake0 *ft, const char *cpu,
			const cpu_set_t *want)
{
	int pollers = counted(&fake.pollers);
	struct ibv_context *ctx;
	cpu_set_t got;

	ctx = open_with_cpu(ft, "1", cpu);
	if (!OK(ctx && pollers_entered(pollers + 1),
		"IBASYNC_POLLER_CPU=%s: the poller enters the kernel",
		cpu ? cpu : "(unset)"))
		return;
	pthread_mutex_lock(&fake.lock);
	got = fake.cpus;
	pthread_mutex_unlock(&fake.lock);
	OK(CPU_EQUAL(&got, want),
	   "IBASYNC_POLLER_CPU=%s: the poller's thread may run on %d CPU(s) as asked (got %d)",
	   cpu ? cpu : "(unset)", CPU_COUNT(want), CPU_COUNT(&got));
	OK(close_ctx(ctx), "IBASYNC_POLLER_CPU=%s: close stops the poller",
	   cpu ? cpu : "(unset)");
}

/* IBASYNC_POLLER=@on, IBASYNC_POLLER_CPU=@cpu: the open fails, EINVAL. */
static void expect_bad_cpu(const struct ft_fake0 *ft, const char *on,
			   const char *cpu, const char *why)
{
	int pollers = counted(&fake.pollers);
	struct ibv_context *ctx;
	int err;

	ctx = open_with_cpu(ft, on, cpu);
	err = errno;
	if (ctx)
		close_ctx(ctx);
	OK(!ctx && err == EINVAL && counted(&fake.pollers) == pollers,
	   "IBASYNC_POLLER_CPU=%s (%s): the open fails with EINVAL (errno %d)",
	   cpu, why, err);
}

static void test_poller_cpu(const struct ft_fake0 *ft)
{
	/* past every CPU the machine has: none may run there */
	long off = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t mine, one, first_only;
	int first = -1, last = -1;
	char name[24];

	if (!OK(!sched_getaffinity(0, sizeof(mine), &mine),
		"the test's own CPUs"))
		return;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &mine))
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	expect_cpus(ft, NULL, &mine);
	expect_cpus(ft, "", &mine);
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	snprintf(name, sizeof(name), "%d", last);
	expect_cpus(ft, name, &one);
	/* as sched_setaffinity(): the opener's own affinity is no limit */
	if (first != last) {
		CPU_ZERO(&first_only);
		CPU_SET(first, &first_only);
		if (OK(!sched_setaffinity(0, sizeof(first_only), &first_only),
		       "the test runs on CPU %d alone", first))
			expect_cpus(ft, name, &one);
		sched_setaffinity(0, sizeof(mine), &mine);
	}
	snprintf(name, sizeof(name), "%ld", off);
	if (off > 0 && off <= IBASYNC_POLLER_CPU_MAX)
		expect_bad_cpu(ft, "1", name, "a CPU the machine has not");
	expect_bad_cpu(ft, "1", "8192", "past the largest NR_CPUS");
	expect_bad_cpu(ft, "1", "1x", "not a number");
	expect_bad_cpu(ft, "1", "-1", "not a number");
	fake.features &= ~(uint64_t)IB_ASYNC_FEATURE_POLLER;
	expect_bad_cpu(ft, "1", "1x", "a node without the poller");
	fake.features |= IB_ASYNC_FEATURE_POLLER;
	/* without IBASYNC_POLLER=1 it is not read */
	set_env(IBASYNC_POLLER_CPU_ENV, "1x");
	expect_no_poller(ft, NULL, "IBASYNC_POLLER unset, IBASYNC_POLLER_CPU=1x");
	unsetenv(IBASYNC_POLLER_CPU_ENV);
}

/* Empty polls: true if @cq gave none and made @calls ioctls. */
static bool empty_polls(struct ibv_cq *cq, int polls, int calls)
{
	struct ibv_wc wc;
	int before = counted(&fake.calls), n = 0;

	for (int i = 0; i < polls; i++)
		n += ibv_poll_cq(cq, 1, &wc) != 0;
	return !n && counted(&fake.calls) - before == calls;
}

/* The poller refused (EAGAIN): its thread ends, rings ring the doorbell. */
static void test_poller_refused(const struct ft_fake0 *ft)
{
	struct ibv_send_wr w[3], *bad;
	struct ibv_sge s[3];
	struct ibv_context *ctx;
	struct objs o;
	int pollers = counted(&fake.pollers), db, waits;
	unsigned int from;

	fake.poller_err = EAGAIN;
	ctx = open_with(ft, "1", NULL);
	if (!OK(ctx && pollers_entered(pollers + 1) && !make(ctx, &o),
		"a context whose poller the kernel refuses (EAGAIN)"))
		goto out;
	from = log_end();
	db = fake.doorbells;
	chain(w, s, 3, 1100, o.buf);
	OK(!ibv_post_send(o.qp, w, &bad) && fake.doorbells == db + 1 &&
	   logged(from, 1100, 3), "poller refused: a post rings the doorbell");
	waits = counted(&fake.cq_waits);
	OK(empty_polls(o.cq, 1, 1) && counted(&fake.cq_waits) == waits + 1,
	   "poller refused: an empty poll calls CQ_WAIT");
	unmake(&o);
out:
	OK(!ctx || close_ctx(ctx), "its context closes");
	fake.poller_err = 0;
}

/*
 * Posts through a poller awake: @n sends from @id0, *@w[@refuse] refused
 * (-1: none); true if the post returned @err, bad_wr exact, @logged
 * posted, and @doorbells rung.
 */
static bool post_sends(struct objs *o, int n, uint64_t id0, int refuse,
		       int err, unsigned int logged_n, int doorbells)
{
	struct ibv_send_wr w[24], *bad = NULL;
	struct ibv_sge s[24];
	unsigned int from = log_end();
	int db = fake.doorbells, ret;

	chain(w, s, n, id0, o->buf);
	if (refuse >= 0)
		w[refuse].wr_id |= REFUSE;
	ret = ibv_post_send(o->qp, w, &bad);
	if (ret == err && (!err || bad == &w[refuse]) &&
	    logged(from, id0, logged_n) && fake.doorbells == db + doorbells)
		return true;
	printf("# posted %d: returned %d, bad_wr %td, %u logged, %d doorbells\n",
	       n, ret, bad ? bad - w : -1, log_end() - from, fake.doorbells - db);
	return false;
}

static void test_poller_sends(struct objs *o)
{
	struct ibasync_wr_ring *r = &to_ibasync_qp(o->qp)->sq_ring;
	struct fake_ring *fr = fake_ring_of(r);
	uint32_t *flags = &fr->h->flags, cons;

	set_mode(POLLER_TAKE);
	if (!OK(flag_is(flags, IB_ASYNC_WR_RING_NEED_WAKEUP, false),
		"a poller awake clears the ring's NEED_WAKEUP"))
		return;
	OK(post_sends(o, 3, 1200, -1, 0, 3, 0),
	   "poller awake: three sends posted, no doorbell");
	OK(post_sends(o, 20, 1300, -1, 0, 20, 0),
	   "poller awake: twenty sends on a ring of eight, no doorbell");
	set_mode(POLLER_DOZE);
	OK(flag_is(flags, IB_ASYNC_WR_RING_NEED_WAKEUP, false) &&
	   post_sends(o, 3, 1400, -1, 0, 3, 1),
	   "the poller falls asleep while a post waits: one doorbell");
	set_mode(POLLER_TAKE);
	OK(flag_is(flags, IB_ASYNC_WR_RING_NEED_WAKEUP, false) &&
	   post_sends(o, 5, 1500, 3, EINVAL, 3, 1),
	   "poller awake, refused at 4 of 5: the doorbell answers, bad_wr exact");
	cons = __atomic_load_n(&fr->h->consumer, __ATOMIC_ACQUIRE);
	OK(*r->producer == cons && r->prod == cons,
	   "the refused slots are dropped: producer back at the consumer");
	set_mode(POLLER_HOLD);
	OK(post_sends(o, 2, 1600, -1, 0, 2, 1),
	   "the error the last post left is not the next one's: its doorbell answers");
	set_mode(POLLER_TAKE);
	OK(post_sends(o, 4, 1700, 0, EINVAL, 0, 1),
	   "poller awake, refused at the first: bad_wr the first");
	OK(post_sends(o, 2, 1750, -1, 0, 2, 1),
	   "the post after a refusal: the error left asks the doorbell once");
	OK(post_sends(o, 2, 1760, -1, 0, 2, 0),
	   "and the next one rings none");
	set_mode(POLLER_ASLEEP);
	OK(flag_is(flags, IB_ASYNC_WR_RING_NEED_WAKEUP, true) &&
	   post_sends(o, 2, 1800, -1, 0, 2, 1),
	   "poller asleep (NEED_WAKEUP): the doorbell rings");
}

static void test_poller_recvs(struct objs *o)
{
	struct ibasync_wr_ring *r = &to_ibasync_qp(o->qp)->rq_ring;
	struct ibv_recv_wr w[3], *bad = NULL;
	struct ibv_sge s = { (uintptr_t)o->buf, 8, 1 };
	unsigned int from;
	int db;

	set_mode(POLLER_TAKE);
	if (!OK(flag_is(&fake_ring_of(r)->h->flags,
			IB_ASYNC_WR_RING_NEED_WAKEUP, false),
		"the receive ring's NEED_WAKEUP clear too"))
		return;
	for (int i = 0; i < 3; i++)
		w[i] = (struct ibv_recv_wr){ .wr_id = 1900 + i, .sg_list = &s,
					     .num_sge = 1,
					     .next = i < 2 ? &w[i + 1] : NULL };
	from = log_end();
	db = fake.doorbells;
	OK(!ibv_post_recv(o->qp, w, &bad) && fake.doorbells == db &&
	   logged(from, 1900, 3), "poller awake: receives posted, no doorbell");
}

/* One completion into @q's ring, as the poller moves it there. */
static void fake_complete(struct fake_cq *q, uint64_t wr_id)
{
	uint32_t prod = q->h->producer;
	struct ib_async_wc wc = { .wr_id = wr_id };

	memcpy((unsigned char *)q->h + q->h->records_offset +
	       (size_t)(prod & (CQ_ENTRIES - 1)) * sizeof(wc), &wc, sizeof(wc));
	__atomic_store_n(&q->h->producer, prod + 1, __ATOMIC_RELEASE);
}

static void test_poller_cq(struct objs *o)
{
	struct fake_cq *q = fake_cq_of(o->cq->handle);
	struct ibv_wc wc;
	int waits, polls, before;

	if (!OK(q, "the CQ has a ring"))
		return;
	set_mode(POLLER_ASLEEP);
	waits = counted(&fake.cq_waits);
	OK(flag_is(&q->h->flags, IB_ASYNC_CQ_RING_NEED_WAKEUP, true) &&
	   empty_polls(o->cq, 1, 1) && counted(&fake.cq_waits) == waits + 1,
	   "poller asleep (NEED_WAKEUP): an empty poll calls CQ_WAIT");
	set_mode(POLLER_TAKE);
	OK(flag_is(&q->h->flags, IB_ASYNC_CQ_RING_NEED_WAKEUP, false) &&
	   empty_polls(o->cq, 3, 0),
	   "poller awake: empty polls return 0 with no system call");
	before = counted(&fake.calls);
	fake_complete(q, 2000);
	OK(ibv_poll_cq(o->cq, 1, &wc) == 1 && wc.wr_id == 2000 &&
	   counted(&fake.calls) == before,
	   "poller awake: a completion it moved in, with no system call");
	waits = counted(&fake.cq_waits);
	polls = counted(&fake.poll_cqs);
	set_flag(&q->h->flags, IB_ASYNC_CQ_RING_POLL, true);
	OK(empty_polls(o->cq, 1, 2) && counted(&fake.cq_waits) == waits + 1 &&
	   counted(&fake.poll_cqs) == polls + 1,
	   "poller awake, the next completion POLL_CQ's: CQ_WAIT, then POLL_CQ");
	set_flag(&q->h->flags, IB_ASYNC_CQ_RING_POLL, false);
}

static void test_poller(const struct ft_fake0 *ft)
{
	struct ibv_context *ctx;
	struct objs o;
	int pollers = counted(&fake.pollers), stops = counted(&fake.stops);

	ctx = open_with(ft, "1", NULL);
	if (!OK(ctx && pollers_entered(pollers + 1) && !make(ctx, &o),
		"a context with a poller, a PD, a CQ and a QP"))
		goto out;
	test_poller_sends(&o);
	test_poller_recvs(&o);
	test_poller_cq(&o);
	unmake(&o);
out:
	OK(!ctx || (close_ctx(ctx) && counted(&fake.stops) == stops + 1),
	   "close stops the poller first and joins its thread");
}

/*
 * A kernel older than the poller leaves the flags 0: without a poller
 * they are not read, posts ring the doorbell and empty polls CQ_WAIT.
 */
static void test_flags_unread(struct objs *o)
{
	struct fake_ring *fr = fake_ring_of(&to_ibasync_qp(o->qp)->sq_ring);
	struct fake_cq *q = fake_cq_of(o->cq->handle);
	int waits = counted(&fake.cq_waits);

	if (!OK(fr && q, "the QP's send ring and the CQ's ring"))
		return;
	__atomic_store_n(&fr->h->flags, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&q->h->flags, 0, __ATOMIC_SEQ_CST);
	OK(post_sends(o, 2, 2100, -1, 0, 2, 1),
	   "no poller, flags 0 (an older kernel): the doorbell rings");
	OK(empty_polls(o->cq, 1, 1) && counted(&fake.cq_waits) == waits + 1,
	   "no poller, flags 0: an empty poll calls CQ_WAIT");
	__atomic_store_n(&fr->h->flags, IB_ASYNC_WR_RING_NEED_WAKEUP,
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&q->h->flags, IB_ASYNC_CQ_RING_NEED_WAKEUP,
			 __ATOMIC_SEQ_CST);
}

/*
 * CQ_WAIT's ring_flags with NEED_WAKEUP in them (which the uAPI says the
 * kernel never reports) count for nothing: a spin that found nothing
 * still backs off ("auto": 0 for a first empty poll, 50 for the second,
 * then 0 again), where counting the flag as news would spin again.
 */
static void test_wait_flag_masked(struct ibv_context *ctx)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	bool ok;

	if (!OK(cq, "a fresh CQ"))
		return;
	fake.nwaits = 0;
	fake.wait_flags = IB_ASYNC_CQ_RING_NEED_WAKEUP;
	ok = empty_polls(cq, 3, 3);
	fake.wait_flags = 0;
	OK(ok && fake.nwaits == 3 && fake.wait_spin[0] == 0 &&
	   fake.wait_spin[1] == IBASYNC_CQ_SPIN_AUTO_US &&
	   fake.wait_spin[2] == 0,
	   "NEED_WAKEUP in CQ_WAIT's ring_flags changes no spin (%u %u %u)",
	   fake.wait_spin[0], fake.wait_spin[1], fake.wait_spin[2]);
	ibv_destroy_cq(cq);
}

int main(void)
{
	struct ibv_context *ctx;
	struct ft_fake0 ft;
	struct objs o;

	alarm(60);
	/* the spins test_wait_flag_masked() expects are the default's */
	unsetenv(IBASYNC_CQ_SPIN_US_ENV);
	unsetenv(IBASYNC_POLLER_ENV);
	if (ft_fake0_setup(&ft) || (fake.fd = ft_fake0_node_as_file(&ft)) < 0)
		return OK(0, "fake tree"), tap_done();
	fake.on = true;
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx, "open fake0"))
		return tap_done();
	OK(!counted(&fake.pollers), "IBASYNC_POLLER unset: no poller");
	if (OK(!make(ctx, &o), "a PD, a CQ and a QP")) {
		test_sends(&o);
		test_recvs(ctx, &o);
		test_threads(&o);
		test_fork(&o);
		test_flags_unread(&o);
		unmake(&o);
	}
	test_no_ring(ctx);
	test_wait_flag_masked(ctx);
	ibv_close_device(ctx);
	test_poller_env(&ft);
	test_poller_cpu(&ft);
	test_poller_refused(&ft);
	test_poller(&ft);
	fake.on = false;
	close(fake.fd);
	ft_fake0_teardown(&ft);
	return tap_done();
}

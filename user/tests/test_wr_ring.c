// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Submission rings against a fake kernel: ibv_post_send(),
 * ibv_post_recv() and ibv_post_srq_recv() write slots and ring one
 * doorbell per ring's worth; *bad_wr names the very request the kernel
 * (or the library) refused, and the slots after it are dropped; inline
 * data travels in the slot; threads posting to one QP never mix their
 * slots; a child of fork() and IBASYNC_NO_WR_RING post in lists.
 *
 * The node of the fake tree is made a regular file, which the library
 * maps at the offsets MAP_WR_RING answers and this program maps too, to
 * read the slots and write the consumer as the kernel does. The fake
 * doorbell refuses a request whose wr_id has REFUSE set.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
#define RINGS		8
#define REFUSE		(1ULL << 62)
#define LOG_MAX		4096
#define THREADS		4
#define PER_THREAD	300

struct fake_ring {
	struct ib_async_map_wr_ring m;
	struct ib_async_wr_ring_header *h;	/* this program's mappings */
	unsigned char *s;
};

static struct {
	bool on;
	int fd;
	uint32_t handles;
	struct fake_ring ring[RINGS];
	unsigned int nrings;
	int maps, doorbells, lists;
	/* what the doorbells posted, in order, and a send's inline bytes */
	pthread_mutex_t lock;
	uint64_t log[LOG_MAX];
	unsigned int nlog;
	char inl[MAX_INLINE + 1];
	int bad_slots;		/* slots whose entries did not match their id */
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

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

static int fake_map(struct ib_async_map_wr_ring *m)
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
	if (ftruncate(fake.fd, base + 2 * SPAN))
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
	r->m = *m;
	fake.nrings++;
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

static int fake_doorbell(uint64_t value)
{
	struct fake_ring *r = NULL;
	uint32_t cons, prod, posted = 0;
	unsigned int i;
	int err = 0;

	fake.doorbells++;
	for (i = 0; i < fake.nrings; i++)
		if (fake.ring[i].m.doorbell == value)
			r = &fake.ring[i];
	if (!r)
		return fail(EINVAL);
	cons = r->h->consumer;
	prod = __atomic_load_n((uint32_t *)r->s, __ATOMIC_ACQUIRE);
	if (prod - cons > ENTRIES)
		return fail(EINVAL);
	pthread_mutex_lock(&fake.lock);
	while (cons + posted != prod && !err) {
		err = fake_take(r, r->s + r->m.slots_offset +
				(size_t)((cons + posted) & (ENTRIES - 1)) *
				r->m.slot_size);
		if (!err)
			posted++;
	}
	pthread_mutex_unlock(&fake.lock);
	r->h->error = (uint32_t)err;
	__atomic_store_n(&r->h->consumer, cons + posted, __ATOMIC_RELEASE);
	return posted || !err ? 0 : fail(err);
}

static int fake_answer(unsigned long req, void *arg)
{
	switch (req) {
	case IB_ASYNC_IOC_GET_INFO:
		fake_info(arg, IB_ASYNC_FEATURE_VERBS |
			       IB_ASYNC_FEATURE_USER_MR |
			       IB_ASYNC_FEATURE_WR_RING);
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
		return fake_map(arg);
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
	(void)fd;
	return fake.on ? fake_answer(req, arg) : FAKE_IOCTL_PASS;
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

static bool logged(unsigned int from, uint64_t id0, unsigned int n)
{
	if (fake.nlog - from != n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		if (fake.log[from + i] != id0 + i)
			return false;
	return true;
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

int main(void)
{
	struct ibv_context *ctx;
	struct ft_fake0 ft;
	struct objs o;

	alarm(60);
	if (ft_fake0_setup(&ft) || (fake.fd = ft_fake0_node_as_file(&ft)) < 0)
		return OK(0, "fake tree"), tap_done();
	fake.on = true;
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx, "open fake0"))
		return tap_done();
	if (OK(!make(ctx, &o), "a PD, a CQ and a QP")) {
		test_sends(&o);
		test_recvs(ctx, &o);
		test_threads(&o);
		test_fork(&o);
		unmake(&o);
	}
	test_no_ring(ctx);
	ibv_close_device(ctx);
	fake.on = false;
	close(fake.fd);
	ft_fake0_teardown(&ft);
	return tap_done();
}

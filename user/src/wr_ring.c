// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Submission rings (IB_ASYNC_IOC_MAP_WR_RING, IB_ASYNC_IOC_WR_DOORBELL):
 * ibv_post_send(), ibv_post_recv() and ibv_post_srq_recv() write their
 * work requests into the slots of a ring the queue maps and ring one
 * doorbell, a system call with no argument structure, as rdma-core's rxe
 * provider writes its queue and rings its doorbell.
 *
 * The kernel posts the slots in order and stops at the first it refuses;
 * its consumer count then names that slot, and its error word says why:
 * *bad_wr is that request, exact as with the list commands, and the
 * slots from it on are dropped (the producer is set back to the
 * consumer), so the ring is empty whenever its post lock is free. A chain
 * longer than the ring is posted in ring-sized batches, one doorbell each.
 *
 * Mapped when a QP or SRQ is made, where the node offers
 * IB_ASYNC_FEATURE_WR_RING and IBASYNC_NO_WR_RING is not set, with as many
 * slots as the queue was granted requests (the kernel's bound aside). A
 * kernel that refuses (RLIMIT_MEMLOCK) leaves the queue on the list
 * commands, which keep working on a queue with a ring too. A child of
 * fork() has no mapping (the kernel marks it VM_DONTCOPY) and goes to the
 * list commands, which the kernel refuses to a process other than the
 * opener's, as it always did.
 *
 * With a poller (IBASYNC_POLLER, poller.c) awake, the ring's NEED_WAKEUP
 * flag is clear and a post rings no doorbell: it waits, spinning, for the
 * poller to take its slots. One the kernel refuses still gets the
 * doorbell's answer, so that *bad_wr stays exact (poller_took()). Without
 * a poller (the default) the flag is not even read: a kernel older than
 * the poller leaves that word 0.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cmd.h"
#include "ibasync.h"

static bool wr_ring_disabled(void)
{
	const char *off = getenv(IBASYNC_NO_WR_RING_ENV);

	return off && *off;
}

/* The ring the kernel describes, checked against what was mapped. */
static int ring_check(const struct ib_async_map_wr_ring *m,
		      const struct ib_async_wr_ring_header *h)
{
	uint32_t n = h->entries;
	size_t wr = m->kind == IB_ASYNC_WR_RING_SEND ?
		    sizeof(struct ib_async_send_wr) :
		    sizeof(struct ib_async_recv_wr);

	if (n != m->entries || !n || (n & (n - 1)) ||
	    h->slot_size != m->slot_size || h->max_sge != m->max_sge ||
	    h->max_inline != m->max_inline ||
	    h->inline_offset != m->inline_offset ||
	    m->inline_offset < wr + (uint64_t)m->max_sge *
				    sizeof(struct ib_async_sge) ||
	    (uint64_t)m->inline_offset + m->max_inline > m->slot_size ||
	    m->slots_offset < sizeof(struct ib_async_wr_ring_producer) ||
	    m->slots_offset + (uint64_t)n * m->slot_size > m->slots_mmap_size)
		return EPROTO;
	return 0;
}

/* Requests a ring of @max_wr should hold: the queue's, within the bound. */
static uint32_t ring_entries(uint32_t max_wr)
{
	uint32_t n = 1;

	while (n < max_wr && n < IB_ASYNC_WR_RING_MAX)
		n <<= 1;
	return n;
}

/*
 * Give queue @kind of the QP or SRQ @handle a ring where the node offers
 * one; else @r stays without (hdr NULL) and its posts take the lists. A
 * queue granted no requests (@max_wr 0: a QP's receive queue on an SRQ)
 * gets none. @r's post lock is made either way, and
 * ibasync_wr_ring_unmap() ends it.
 */
void ibasync_wr_ring_map(struct ibv_context *ctx, uint32_t obj_type,
			 uint32_t handle, uint32_t kind, uint32_t max_wr,
			 struct ibasync_wr_ring *r)
{
	struct ib_async_map_wr_ring m;
	void *hdr, *slots;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	if (!max_wr || !to_ibasync_ctx(ctx)->wr_ring || wr_ring_disabled() ||
	    ibasync_cmd_map_wr_ring(ctx, obj_type, handle, kind,
				    ring_entries(max_wr), &m))
		return;
	ibasync_watch_forks();
	hdr = ibasync_cmd_mmap_wr_ring(ctx, m.mmap_offset, m.mmap_size, false);
	slots = ibasync_cmd_mmap_wr_ring(ctx, m.slots_mmap_offset,
					 m.slots_mmap_size, true);
	if (!hdr || !slots || ring_check(&m, hdr)) {
		/* the kernel's ring stays unused: the lists still work */
		if (hdr)
			ibasync_cmd_munmap_ring(hdr, m.mmap_size);
		if (slots)
			ibasync_cmd_munmap_ring(slots, m.slots_mmap_size);
		return;
	}
	r->producer = slots;
	r->slots = (unsigned char *)slots + m.slots_offset;
	r->map_size = m.mmap_size;
	r->slots_map_size = m.slots_mmap_size;
	r->doorbell = m.doorbell;
	r->mask = m.entries - 1;
	r->slot_size = m.slot_size;
	r->max_sge = m.max_sge;
	r->max_inline = m.max_inline;
	r->inline_offset = m.inline_offset;
	r->prod = 0;
	r->gen = __atomic_load_n(&ibasync_fork_gen, __ATOMIC_RELAXED);
	r->poller = to_ibasync_ctx(ctx)->poller_on;
	r->hdr = hdr;
}

/*
 * The queue goes: so do this process's mappings of its ring (the kernel's
 * goes with the queue) and its post lock.
 */
void ibasync_wr_ring_unmap(struct ibasync_wr_ring *r)
{
	if (r->hdr && r->gen == __atomic_load_n(&ibasync_fork_gen,
						 __ATOMIC_RELAXED)) {
		ibasync_cmd_munmap_ring((void *)r->hdr, r->map_size);
		ibasync_cmd_munmap_ring(r->producer, r->slots_map_size);
	}
	r->hdr = NULL;
	pthread_mutex_destroy(&r->lock);
}

/* Mapped, in the process that mapped it. */
bool ibasync_wr_ring_on(const struct ibasync_wr_ring *r)
{
	return r->hdr &&
	       r->gen == __atomic_load_n(&ibasync_fork_gen, __ATOMIC_RELAXED);
}

/*
 * The kernel's answer for the @n slots from r->prod on, @ret the
 * doorbell's own failure (0 if it rang none or succeeded). Return: how
 * many it posted; *@err the error of the first it did not. r->prod moves
 * past those posted, and the producer with it: the others are dropped.
 */
static uint32_t ring_answer(struct ibasync_wr_ring *r, uint32_t n, int ret,
			    int *err)
{
	uint32_t posted;

	/* the consumer, then the error that goes with it */
	posted = __atomic_load_n(&r->hdr->consumer, __ATOMIC_ACQUIRE) - r->prod;
	if (posted > n)		/* no answer of this doorbell's */
		posted = 0;
	*err = 0;
	if (posted < n) {
		/* a failed call published nothing of its own but its errno */
		*err = ret ? ret : (int)r->hdr->error;
		if (!*err)
			*err = EIO;
	}
	r->prod += posted;
	if (posted < n)
		__atomic_store_n(r->producer, r->prod, __ATOMIC_RELEASE);
	return posted;
}

/* A round of a spin: let the core's other thread run, where it has one. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/*
 * A full barrier after the producer's store. GCC refuses a fence under
 * -fsanitize=thread, which does not model them: there a sequentially
 * consistent read-modify-write of the producer, which orders the same.
 */
static inline void full_barrier(uint32_t *producer)
{
#ifdef __SANITIZE_THREAD__
	__atomic_fetch_add(producer, 0, __ATOMIC_SEQ_CST);
#else
	(void)producer;
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/*
 * The producer of the @n slots from r->prod on is stored, and the context
 * has a poller: while it is awake, wait for it to take them all (true).
 * False when the doorbell must ring instead: no poller awake (NEED_WAKEUP,
 * read again each round: it may fall asleep meanwhile), a consumer that
 * answers nothing of ours, or an error. The poller publishes an error,
 * then the consumer that goes with it, while this thread reads: an error
 * seen may be newer than the consumer seen, or older than our slots (the
 * last post's refusal), and nothing in the header tells which. A
 * doorbell's answer is made while the post waits, hence exact: a refused
 * post pays one system call, and so does the next one, while the error
 * stays in the header.
 */
static bool poller_took(const struct ibasync_wr_ring *r, uint32_t n)
{
	const struct ib_async_wr_ring_header *h = r->hdr;
	uint32_t done;

	/*
	 * The producer's store before the flag's load: the poller sets the
	 * flag, then reads the producer once more before it sleeps, so one
	 * of the two sees the other (IB_ASYNC_WR_RING_NEED_WAKEUP).
	 */
	full_barrier(r->producer);
	while (!(__atomic_load_n(&h->flags, __ATOMIC_RELAXED) &
		 IB_ASYNC_WR_RING_NEED_WAKEUP)) {
		done = __atomic_load_n(&h->consumer, __ATOMIC_ACQUIRE) - r->prod;
		if (done == n)
			return true;
		if (done > n || __atomic_load_n(&h->error, __ATOMIC_RELAXED))
			return false;
		cpu_relax();
	}
	return false;
}

/*
 * The @n slots from r->prod on are written: hand them to the kernel, by
 * its poller or the doorbell. Return: as ring_answer().
 */
static uint32_t ring_submit(struct ibv_context *ctx, struct ibasync_wr_ring *r,
			    uint32_t n, int *err)
{
	int ret = 0;

	/* the slots, then the count that makes them the kernel's */
	__atomic_store_n(r->producer, r->prod + n, __ATOMIC_RELEASE);
	if (!r->poller || !poller_took(r, n))
		ret = ibasync_cmd_wr_doorbell(ctx, r->doorbell);
	return ring_answer(r, n, ret, err);
}

/*
 * The requests of a chain into the ring, in ring-sized batches, one
 * doorbell each, under the queue's post lock. @put writes one request
 * into a slot; @next is the chain's link. Return: 0, or the error of the
 * request *@bad, the first not posted.
 */
struct ring_chain {
	int (*put)(const struct ring_chain *c, uint32_t i, const void *wr);
	const void *(*next)(const void *wr);
	struct ibv_qp *qp;
	struct ibasync_wr_ring *r;
};

static int ring_post(struct ibv_context *ctx, const struct ring_chain *c,
		     const void *wr, const void **bad)
{
	struct ibasync_wr_ring *r = c->r;
	const void *first;
	uint32_t n, posted;
	int err = 0, put_err = 0;

	pthread_mutex_lock(&r->lock);
	while (wr && !err && !put_err) {
		first = wr;
		for (n = 0; wr && n <= r->mask; n++, wr = c->next(wr)) {
			put_err = c->put(c, r->prod + n, wr);
			if (put_err)
				break;
		}
		if (!n)
			break;
		posted = ring_submit(ctx, r, n, &err);
		if (posted < n) {
			/* the kernel's refusal comes before the next put's */
			for (wr = first; posted--; wr = c->next(wr))
				;
		}
	}
	pthread_mutex_unlock(&r->lock);
	*bad = wr;
	return err ? err : put_err;
}

static int put_send(const struct ring_chain *c, uint32_t i, const void *wr)
{
	return ibasync_cmd_ring_send(c->qp, c->r, i, wr);
}

static const void *next_send(const void *wr)
{
	return ((const struct ibv_send_wr *)wr)->next;
}

static int put_recv(const struct ring_chain *c, uint32_t i, const void *wr)
{
	return ibasync_cmd_ring_recv(c->r, i, wr);
}

static const void *next_recv(const void *wr)
{
	return ((const struct ibv_recv_wr *)wr)->next;
}

/* ibv_post_send() through the QP's send ring, which is on. */
int ibasync_wr_ring_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr)
{
	const struct ring_chain c = {
		.put = put_send, .next = next_send, .qp = qp,
		.r = &to_ibasync_qp(qp)->sq_ring,
	};
	const void *bad;
	int err;

	err = ring_post(qp->context, &c, wr, &bad);
	if (!err)
		return 0;
	*bad_wr = (struct ibv_send_wr *)bad;
	return ibasync_err(err);
}

/* ibv_post_recv() or ibv_post_srq_recv() through @r, which is on. */
int ibasync_wr_ring_post_recv(struct ibv_context *ctx,
			      struct ibasync_wr_ring *r, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	const struct ring_chain c = {
		.put = put_recv, .next = next_recv, .r = r,
	};
	const void *bad;
	int err;

	err = ring_post(ctx, &c, wr, &bad);
	if (!err)
		return 0;
	*bad_wr = (struct ibv_recv_wr *)bad;
	return ibasync_err(err);
}

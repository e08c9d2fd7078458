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
 */
#include <errno.h>
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
 * The @n slots from r->prod on are written: ring the doorbell. Return:
 * how many the kernel posted; *@err the error of the first it did not.
 * r->prod moves past those posted, and the producer with it: the others
 * are dropped.
 */
static uint32_t ring_doorbell(struct ibv_context *ctx,
			      struct ibasync_wr_ring *r, uint32_t n, int *err)
{
	uint32_t posted;
	int ret;

	/* the slots, then the count that makes them the kernel's */
	__atomic_store_n(r->producer, r->prod + n, __ATOMIC_RELEASE);
	ret = ibasync_cmd_wr_doorbell(ctx, r->doorbell);
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
		posted = ring_doorbell(ctx, r, n, &err);
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

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion rings (IB_ASYNC_IOC_MAP_CQ_RING): a poll that finds
 * completions takes them from memory the kernel fills, with no system
 * call, as rdma-core's providers read their CQs. The kernel fills the
 * ring when a post of sends to one of the CQ's QPs returns, when the CQ is
 * armed, and at IB_ASYNC_IOC_CQ_WAIT, which a poll calls when the ring is
 * empty.
 *
 * A poll that follows an empty one lets CQ_WAIT spin in the kernel,
 * polling the device: a program that busy-polls one CQ makes one system
 * call per wait rather than one per empty poll, while one that drains its
 * CQ after a completion event pays nothing more for its last, empty poll.
 * A fixed spin (IBASYNC_CQ_SPIN_US=N microseconds) would make a program
 * that polls several CQs in turn wait the whole time on each idle one
 * (measured with 50 us: an idle CQ's empty poll took 62-71 us instead of
 * 2-4 us). So by default ("auto") a spin lasts up to
 * IBASYNC_CQ_SPIN_AUTO_US, and one that found nothing lets the next 1, 2,
 * 4... IBASYNC_CQ_SPIN_BACKOFF_MAX empty polls of that CQ return at once,
 * until one finds a completion: an idle CQ polled in turn with others
 * waits once per that many polls. IBASYNC_CQ_SPIN_US=0 never spins.
 *
 * With a poller (IBASYNC_POLLER, poller.c) awake, the kernel fills the
 * ring by itself and says so by clearing IB_ASYNC_CQ_RING_NEED_WAKEUP: an
 * empty poll then returns at once, with no system call. Once it sleeps
 * (the flag set, as it always is without one), or stops at a completion
 * only IB_ASYNC_IOC_POLL_CQ hands out, the poll asks the kernel as above;
 * CQ_WAIT wakes it. Without a poller the flag is not read: a kernel older
 * than the poller leaves it 0.
 *
 * Mapped when a CQ is made, where the node offers it and
 * IBASYNC_NO_CQ_RING is not set; a kernel that refuses (RLIMIT_MEMLOCK)
 * leaves the CQ on IB_ASYNC_IOC_POLL_CQ. A child of fork() has no mapping
 * (the kernel marks it VM_DONTCOPY) and goes to the kernel, which refuses
 * a process other than the opener's, as it always did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ibasync.h"

/* IBASYNC_CQ_SPIN_US: microseconds; unset, "auto" or unparsable: auto. */
static uint32_t spin_us(bool *automatic)
{
	const char *env = getenv(IBASYNC_CQ_SPIN_US_ENV);
	unsigned long long v;

	*automatic = !env || ibasync_parse_uint(env, UINT32_MAX, &v);
	return *automatic ? IBASYNC_CQ_SPIN_AUTO_US : (uint32_t)v;
}

/* The ring the kernel describes, checked against what was mapped. */
static int ring_check(const struct ib_async_map_cq_ring *m,
		      const struct ib_async_cq_ring_header *h)
{
	uint32_t n = h->entries;

	if (h->entries != m->entries || !n || (n & (n - 1)) ||
	    h->record_size < sizeof(struct ib_async_wc) ||
	    h->records_offset < sizeof(*h) ||
	    h->records_offset + (uint64_t)n * h->record_size > m->mmap_size)
		return EPROTO;
	return 0;
}

/*
 * After MAP_CQ_RING succeeded the CQ delivers into the ring: if it cannot
 * be mapped, its completions would be out of reach, so the caller fails
 * the create and destroys the CQ.
 */
int ibasync_cq_ring_map(struct ibasync_cq *q)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(&q->ex);
	struct ibasync_context *c = to_ibasync_ctx(cq->context);
	struct ibasync_cq_ring *r = &q->ring;
	struct ib_async_map_cq_ring m;
	const char *off = getenv(IBASYNC_NO_CQ_RING_ENV);
	void *hdr, *cons;
	int err;

	if (!c->cq_ring || (off && *off) || ibasync_cmd_map_cq_ring(cq, &m))
		return 0;
	ibasync_watch_forks();
	hdr = ibasync_cmd_mmap_cq_ring(cq, m.mmap_offset, m.mmap_size, false);
	if (!hdr)
		return errno;
	cons = ibasync_cmd_mmap_cq_ring(cq, m.consumer_offset, m.consumer_size,
					true);
	if (!cons) {
		err = errno;
		ibasync_cmd_munmap_ring(hdr, m.mmap_size);
		return err;
	}
	err = ring_check(&m, hdr);
	if (err) {
		ibasync_cmd_munmap_ring(cons, m.consumer_size);
		ibasync_cmd_munmap_ring(hdr, m.mmap_size);
		return err;
	}
	r->records = (const unsigned char *)hdr +
		     ((const struct ib_async_cq_ring_header *)hdr)->records_offset;
	r->record_size = ((const struct ib_async_cq_ring_header *)hdr)->record_size;
	r->mask = m.entries - 1;
	r->consumer = cons;
	r->map_size = m.mmap_size;
	r->consumer_size = m.consumer_size;
	r->cons = 0;
	r->gen = __atomic_load_n(&ibasync_fork_gen, __ATOMIC_RELAXED);
	r->spin_us = spin_us(&r->spin_auto);
	r->spin_skip = 0;
	r->spin_backoff = 1;
	r->poller = c->poller_on;
	r->hdr = hdr;
	return 0;
}

void ibasync_cq_ring_unmap(struct ibasync_cq *q)
{
	struct ibasync_cq_ring *r = &q->ring;

	if (!r->hdr)
		return;
	ibasync_cmd_munmap_ring(r->consumer, r->consumer_size);
	ibasync_cmd_munmap_ring((void *)r->hdr, r->map_size);
	r->hdr = NULL;
}

/* Mapped, in the process that mapped it. */
bool ibasync_cq_ring_on(const struct ibasync_cq *q)
{
	return q->ring.hdr &&
	       q->ring.gen == __atomic_load_n(&ibasync_fork_gen,
					      __ATOMIC_RELAXED);
}

/* Up to @max completions from the ring into @k. */
static uint32_t ring_take(struct ibasync_cq_ring *r, struct ib_async_wc *k,
			  uint32_t max)
{
	/* the kernel's records before it, then the count */
	uint32_t prod = __atomic_load_n(&r->hdr->producer, __ATOMIC_ACQUIRE);
	uint32_t n = 0;

	while (n < max && r->cons != prod) {
		memcpy(&k[n++], r->records + (size_t)(r->cons & r->mask) *
						     r->record_size,
		       sizeof(*k));
		r->cons++;
	}
	/* our reads of them before the kernel may write over them */
	if (n)
		__atomic_store_n(r->consumer, r->cons, __ATOMIC_RELEASE);
	return n;
}

/* How long an empty poll lets the kernel wait: only after another one. */
static uint32_t spin_budget(struct ibasync_cq_ring *r)
{
	if (!r->empty || !r->spin_us)
		return 0;
	if (r->spin_auto && r->spin_skip) {
		r->spin_skip--;
		return 0;
	}
	return r->spin_us;
}

/*
 * "auto": a poll that found completions makes the next empty one spin; a
 * spin that found none skips twice as many as the last one did.
 */
static void spin_learn(struct ibasync_cq_ring *r, uint32_t spun, bool found)
{
	if (!r->spin_auto)
		return;
	if (found) {
		r->spin_skip = 0;
		r->spin_backoff = 1;
	} else if (spun) {
		r->spin_skip = r->spin_backoff;
		if (r->spin_backoff < IBASYNC_CQ_SPIN_BACKOFF_MAX)
			r->spin_backoff *= 2;
	}
}

/*
 * The ring is empty and a poller awake fills it: nothing to ask the
 * kernel. Not while it sleeps (NEED_WAKEUP), nor when the next completion
 * is one only POLL_CQ hands out (POLL), which no ring ever receives.
 */
static bool poller_fills(const struct ibasync_cq_ring *r)
{
	return r->poller &&
	       !(__atomic_load_n(&r->hdr->flags, __ATOMIC_RELAXED) &
		 (IB_ASYNC_CQ_RING_NEED_WAKEUP | IB_ASYNC_CQ_RING_POLL));
}

/*
 * The ring is empty: CQ_WAIT fills it, spinning by the policy above, then
 * take up to *@count into @k. q->poll_lock is held.
 */
static int wait_and_take(struct ibasync_cq *q, struct ib_async_wc *k,
			 uint32_t *count)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(&q->ex);
	struct ibasync_cq_ring *r = &q->ring;
	uint32_t n, flags, spin = spin_budget(r);
	int err;

	err = ibasync_cmd_cq_wait(cq, spin, &flags);
	if (err)
		return err;
	/* what the ring holds, not whether a poller is awake */
	flags &= ~(uint32_t)IB_ASYNC_CQ_RING_NEED_WAKEUP;
	n = ring_take(r, k, *count);
	spin_learn(r, spin, n || flags);
	/* a kernel-buffer receive, whose data POLL_CQ copies out */
	if (!n && (flags & IB_ASYNC_CQ_RING_POLL))
		return ibasync_cmd_poll_cq(cq->context, cq->handle, k, count);
	r->empty = !n;
	*count = n;
	return 0;
}

/*
 * Up to *@count completions into @k, from the ring where the CQ has one,
 * else from the kernel; q->poll_lock is held. Return: 0 with *@count set,
 * or errno.
 */
int ibasync_cq_fetch(struct ibasync_cq *q, struct ib_async_wc *k,
		     uint32_t *count)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(&q->ex);
	struct ibasync_cq_ring *r = &q->ring;
	uint32_t n;

	if (!ibasync_cq_ring_on(q))
		return ibasync_cmd_poll_cq(cq->context, cq->handle, k, count);
	n = ring_take(r, k, *count);
	if (n)
		spin_learn(r, 0, true);
	else if (!poller_fills(r))
		return wait_and_take(q, k, count);
	r->empty = !n;
	*count = n;
	return 0;
}

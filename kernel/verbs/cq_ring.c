// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion rings (IB_ASYNC_IOC_MAP_CQ_RING, IB_ASYNC_IOC_CQ_WAIT): a
 * CQ's completions delivered into memory the program maps, so that a poll
 * that finds some makes no system call.
 *
 * The kernel fills a ring whenever a command of the file looks at its CQ
 * anyway: a post of sends to a QP completing there (on rxe the completions
 * of a loopback exist before the post returns), arming, and CQ_WAIT, which a
 * program calls when the ring is empty and which may poll the device for
 * a bounded time, as the NVMe-oF host reaps its polled queues in the
 * waiting task's own system call. A fill moves only as many completions
 * as the ring has room for: the rest stay in the device's CQ, which
 * overruns exactly as it would without a ring, so none is lost and
 * CQ_ERR means what it meant.
 *
 * Two mappings: the header and the completions, read-only (the kernel
 * writes them through its own address), and one page for the program's
 * consumer index, which the kernel reads once per fill and bounds against
 * its private producer count, never trusting it.
 *
 * Lifetime, mapping and charge are mapped_ring.c's: the ring holds one
 * reference for its CQ, dropped when the CQ's uobj is freed, and one per
 * mapping; mmap() finds it through the file's cq_rings.
 */
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "mapped_ring.h"
#include "wr.h"

/* More completions than a file may have requests could never be used. */
#define IB_ASYNC_CQ_RING_MAX	IB_ASYNC_MAX_WRS

static unsigned int max_cq_spin_us = 1000;
module_param(max_cq_spin_us, uint, 0644);
MODULE_PARM_DESC(max_cq_spin_us,
		 "Longest a CQ_WAIT may poll an empty CQ, in microseconds (default 1000; 0: never spins)");

/**
 * struct ib_async_cq_ring - a CQ's completions, mapped by its program
 * @m: its memory: @hdr and @recs, read-only; @cons's page, read-write
 * @hdr: at @m.mem
 * @recs: after it
 * @cons: in @m.page
 * @mask: entries - 1
 * @producer: the kernel's own count of what it published
 * @flags: what it last told the program (enum ib_async_cq_ring_flags),
 *	IB_ASYNC_CQ_RING_NEED_WAKEUP aside
 * @wake: IB_ASYNC_CQ_RING_NEED_WAKEUP while no poller of the file is
 *	awake to fill the ring (poller.c), else 0
 */
struct ib_async_cq_ring {
	struct ib_async_mapped_ring m;
	struct ib_async_cq_ring_header *hdr;
	struct ib_async_wc *recs;
	struct ib_async_cq_ring_consumer *cons;
	u32 mask;
	u32 producer;
	u32 flags;
	u32 wake;
};

/* freeing @m frees the ring */
static_assert(offsetof(struct ib_async_cq_ring, m) == 0);

static struct ib_async_cq_ring *ib_async_cq_ring_alloc(u32 entries)
{
	struct ib_async_cq_ring *r;
	size_t bytes;
	int ret;

	bytes = PAGE_ALIGN(size_add(sizeof(struct ib_async_cq_ring_header),
				    size_mul(entries,
					     sizeof(struct ib_async_wc))));
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	ret = ib_async_mapped_ring_init(&r->m, bytes, IB_ASYNC_MAPPED_PAGE);
	if (ret) {
		kfree(r);
		return ERR_PTR(ret);
	}
	r->hdr = r->m.mem;
	r->recs = r->m.mem + sizeof(*r->hdr);
	r->cons = page_address(r->m.page);
	r->mask = entries - 1;
	r->hdr->entries = entries;
	r->hdr->record_size = sizeof(struct ib_async_wc);
	r->hdr->records_offset = sizeof(*r->hdr);
	r->wake = IB_ASYNC_CQ_RING_NEED_WAKEUP;
	r->hdr->flags = r->wake;
	return r;
}

/* The mmap() offsets of a CQ's two mappings, in pages. */
static unsigned long ib_async_cq_ring_pgoff(u32 handle, bool consumer)
{
	return (unsigned long)handle << 1 | consumer;
}

/**
 * ib_async_cq_ring_mmap - map one of a CQ ring's two parts
 * @file: the node's file
 * @vma: at an offset MAP_CQ_RING gave, shared, of the size it gave
 *
 * Return: 0, -EINVAL (no such ring, another size, a private mapping),
 * -EPERM (the records mapped writable, another process), or
 * vm_insert_page()'s error.
 */
int ib_async_cq_ring_mmap(struct ib_async_file *file,
			  struct vm_area_struct *vma)
{
	enum ib_async_mapped_part part = vma->vm_pgoff & 1 ?
					 IB_ASYNC_MAPPED_PAGE :
					 IB_ASYNC_MAPPED_MEM;

	if (vma->vm_pgoff > U32_MAX * 2UL + 1)
		return -EINVAL;
	return ib_async_mapped_ring_mmap(file, &file->verbs->cq_rings,
					 vma->vm_pgoff >> 1, part, vma);
}

/**
 * ib_async_cq_ring_unpublish - a CQ's handle goes: no mapping, and no
 * poller, finds its ring any more
 * @cq: the CQ's uobj, the file's dp_rwsem held for writing
 */
void ib_async_cq_ring_unpublish(struct ib_async_uobj *cq)
{
	ib_async_dp_assert_excl(cq->file);
	if (cq->ring)
		ib_async_mapped_ring_unpublish(&cq->file->verbs->cq_rings,
					       cq->handle);
}

/**
 * ib_async_cq_ring_drop - a CQ's uobj goes: so does its hold on the ring
 * @cq: the CQ's uobj, its ring unpublished
 *
 * Mappings that exist keep the ring until unmapped.
 */
void ib_async_cq_ring_drop(struct ib_async_uobj *cq)
{
	if (!cq->ring)
		return;
	ib_async_mapped_ring_drop(&cq->file->verbs->cq_rings, cq->handle,
				  &cq->ring->m);
	cq->ring = NULL;
}

/* Completions the program has not consumed; more than fit means full. */
static u32 ib_async_cq_ring_used(const struct ib_async_cq_ring *r)
{
	/* the program's reads of the records are done before it stored it */
	u32 used = r->producer - smp_load_acquire(&r->cons->consumer);

	return min(used, r->mask + 1);
}

/*
 * Move completions the kernel took off the device into the ring while it
 * has room. False if the head of the backlog is a kernel-buffer receive,
 * whose data POLL_CQ copies out: it and what follows wait for POLL_CQ.
 */
static bool ib_async_cq_ring_take(struct ib_async_uobj *cq,
				  struct ib_async_cq_ring *r, u32 *room)
{
	struct ib_async_wr *w;

	while (*room && !list_empty(&cq->wrs)) {
		w = list_first_entry(&cq->wrs, struct ib_async_wr, list);
		if (w->recv && w->buf)
			return false;
		r->recs[r->producer & r->mask] = w->wc;
		r->producer++;
		(*room)--;
		ib_async_wr_release(cq->file, w);
	}
	return true;
}

/**
 * ib_async_cq_ring_fill - move a CQ's completions into its ring
 * @cq: a live CQ
 *
 * First those already taken off the device, then the device's, no more
 * than the ring has room for, and publishes them.
 *
 * Return: completions in the ring the program has not consumed; 0 if the
 * CQ has no ring.
 */
u32 ib_async_cq_ring_fill(struct ib_async_uobj *cq)
{
	struct ib_async_cq_ring *r = cq->ring;
	u32 room, flags = 0;

	if (!r)
		return 0;
	ib_async_dp_assert(cq);
	room = r->mask + 1 - ib_async_cq_ring_used(r);
	for (;;) {
		if (!ib_async_cq_ring_take(cq, r, &room)) {
			flags |= IB_ASYNC_CQ_RING_POLL;
			break;
		}
		if (!room) {
			flags |= IB_ASYNC_CQ_RING_FULL;
			break;
		}
		if (ib_async_cq_fetch(cq->file, cq, room) <= 0)
			break;
	}
	r->flags = flags;
	WRITE_ONCE(r->hdr->flags, flags | r->wake);
	/* the records, then the count that makes them the program's */
	smp_store_release(&r->hdr->producer, r->producer);
	return ib_async_cq_ring_used(r);
}

/*
 * Fill the ring of a CQ that has one, under the CQ's lock. Return: the
 * completions it published.
 */
static u32 ib_async_cq_ring_fill_locked(struct ib_async_uobj *cq)
{
	u32 published;

	if (!READ_ONCE(cq->ring))
		return 0;
	ib_async_dp_lock(cq);
	published = cq->ring->producer;
	ib_async_cq_ring_fill(cq);
	published = cq->ring->producer - published;
	ib_async_dp_unlock(cq);
	return published;
}

/**
 * ib_async_qp_fill_rings - a post of sends to @qp returned: fill its CQs'
 * rings
 * @qp: a live QP, whose lock the caller dropped
 *
 * On rxe the completions of a loopback, and often of a send, exist by
 * now: the program finds them without another system call. (A post of
 * receives completes nothing by itself: its CQs are left to the next
 * look, which spares a receive's doorbell two polls of the device.)
 *
 * Return: the completions published.
 */
u32 ib_async_qp_fill_rings(struct ib_async_uobj *qp)
{
	u32 n = ib_async_cq_ring_fill_locked(qp->send_cq);

	if (qp->recv_cq != qp->send_cq)
		n += ib_async_cq_ring_fill_locked(qp->recv_cq);
	return n;
}

/* Say in @r whether a poller is awake to fill it. */
static void ib_async_cq_ring_wake(struct ib_async_cq_ring *r, bool awake)
{
	r->wake = awake ? 0 : IB_ASYNC_CQ_RING_NEED_WAKEUP;
	WRITE_ONCE(r->hdr->flags, r->flags | r->wake);
}

/**
 * ib_async_cq_rings_wake - say in every completion ring of @file whether
 * its poller is awake
 * @file: the file
 * @awake: it is
 */
void ib_async_cq_rings_wake(struct ib_async_file *file, bool awake)
{
	struct ib_async_mapped_ring *m;
	struct ib_async_uobj *cq;
	unsigned long handle;

	lockdep_assert_held_read(&file->dp_rwsem);
	xa_for_each(&file->verbs->cq_rings, handle, m) {
		/* a published ring's CQ has a handle, live or dead */
		cq = ib_async_uobj_find(file, handle);
		ib_async_dp_lock(cq);
		ib_async_cq_ring_wake(container_of(m, struct ib_async_cq_ring,
						   m), awake);
		ib_async_dp_unlock(cq);
	}
}

/**
 * ib_async_cq_rings_fill - fill every completion ring of @file (the poller)
 * @file: the file, its device pinned
 *
 * Return: the completions published.
 */
u32 ib_async_cq_rings_fill(struct ib_async_file *file)
{
	struct ib_async_uobj *cq;
	unsigned long handle;
	u32 n = 0;
	void *m;

	lockdep_assert_held_read(&file->dp_rwsem);
	xa_for_each(&file->verbs->cq_rings, handle, m) {
		/* a CQ removal destroyed keeps its ring until freed */
		cq = ib_async_uobj_get(file, handle, IB_ASYNC_OBJ_CQ);
		if (!IS_ERR(cq))
			n += ib_async_cq_ring_fill_locked(cq);
	}
	return n;
}

/*
 * MAP_CQ_RING's answer reached the caller: only then does the CQ deliver
 * into the ring, which a caller that never learnt where it is could not
 * read, while its completions went there all the same.
 */
static int ib_async_cq_ring_answered(struct ib_async_ucmd *u, int ret)
{
	struct ib_async_map_cq_ring *arg = u->cmd;
	struct ib_async_file *file = u->file;
	struct ib_async_cq_ring *r = u->pending;
	struct ib_async_uobj *cq;

	if (!ret) {
		ret = ib_async_ucmd_lock(u);
		if (ret)
			goto out;
		cq = ib_async_uobj_get(file, arg->handle, IB_ASYNC_OBJ_CQ);
		ret = PTR_ERR_OR_ZERO(cq);
		if (!ret && cq->ring)
			ret = -EBUSY;
		if (!ret)
			ret = ib_async_mapped_ring_publish(&file->verbs->cq_rings,
							   cq->handle, &r->m);
		if (!ret) {
			WRITE_ONCE(cq->ring, r);
			ib_async_cq_ring_wake(r,
					      READ_ONCE(file->verbs->poller_awake));
		}
		ib_async_ucmd_unlock(u);
	}
out:
	if (ret)
		ib_async_mapped_ring_put(&r->m);
	return ret;
}

int ib_async_cmd_map_cq_ring(struct ib_async_ucmd *u)
{
	struct ib_async_map_cq_ring *arg = u->cmd;
	struct ib_async_cq_ring *r;
	struct ib_async_uobj *cq;
	u32 entries;

	if (arg->flags || arg->mmap_offset || arg->mmap_size ||
	    arg->consumer_offset || arg->consumer_size ||
	    arg->entries > IB_ASYNC_CQ_RING_MAX)
		return -EINVAL;
	if (!ib_async_user_mr_supported(u->ib_dev))
		return -EOPNOTSUPP;
	if (current->mm != u->file->verbs->mm)
		return -EPERM;
	cq = ib_async_uobj_get(u->file, arg->handle, IB_ASYNC_OBJ_CQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	if (cq->ring)
		return -EBUSY;
	entries = arg->entries ?: min_t(u32, cq->cq->cqe + 1,
					IB_ASYNC_CQ_RING_MAX);
	entries = roundup_pow_of_two(entries);
	r = ib_async_cq_ring_alloc(entries);
	if (IS_ERR(r))
		return PTR_ERR(r);
	u->answered = ib_async_cq_ring_answered;
	u->pending = r;
	arg->entries = entries;
	arg->mmap_offset = (u64)ib_async_cq_ring_pgoff(cq->handle, false)
			   << PAGE_SHIFT;
	arg->mmap_size = r->m.size;
	arg->consumer_offset = (u64)ib_async_cq_ring_pgoff(cq->handle, true)
			       << PAGE_SHIFT;
	arg->consumer_size = PAGE_SIZE;
	ib_async_ucmd_respond(u);
	return 0;
}

/* One look at the CQ: fill its ring. */
static int ib_async_cq_wait_once(struct ib_async_ucmd *u, u32 *avail,
				 u32 *flags)
{
	struct ib_async_cq_wait *arg = u->cmd;
	struct ib_async_uobj *cq;
	int ret;

	ret = ib_async_ucmd_lock(u);
	if (ret)
		return ret;
	cq = ib_async_uobj_get(u->file, arg->handle, IB_ASYNC_OBJ_CQ);
	ret = PTR_ERR_OR_ZERO(cq);
	if (!ret && !cq->ring)
		ret = -EINVAL;
	if (!ret) {
		ib_async_dp_lock(cq);
		*avail = ib_async_cq_ring_fill(cq);
		*flags = cq->ring->flags;
		ib_async_dp_unlock(cq);
		ib_async_poller_kick(u->file);
	}
	ib_async_ucmd_unlock(u);
	return ret;
}

/*
 * The locks are taken anew for each look, so that another thread of the
 * program posts, and device removal proceeds, while this one spins. The
 * budget is kept with local_clock(), this CPU's cycle counter (a bound,
 * not a timestamp: what a migration may skew is a few microseconds), not
 * with ktime_get_ns(), whose clocksource may be a device read at every
 * look (the test guest's HPET: an exit to the hypervisor, under a lock
 * the CPU completing the work needs too).
 */
int ib_async_cmd_cq_wait(struct ib_async_ucmd *u)
{
	struct ib_async_cq_wait *arg = u->cmd;
	u32 avail = 0, flags = 0;
	u64 spin_ns, end = 0;
	int ret;

	if (arg->flags || arg->available || arg->ring_flags)
		return -EINVAL;
	if (current->mm != u->file->verbs->mm)
		return -EPERM;
	spin_ns = (u64)min(arg->spin_us, READ_ONCE(max_cq_spin_us)) *
		  NSEC_PER_USEC;
	if (spin_ns)
		end = local_clock() + spin_ns;
	for (;;) {
		ret = ib_async_cq_wait_once(u, &avail, &flags);
		if (ret)
			return ret;
		if (avail || flags || !spin_ns || local_clock() >= end ||
		    signal_pending(current))
			break;
		cond_resched();
	}
	arg->available = avail;
	arg->ring_flags = flags;
	ib_async_ucmd_respond(u);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event rings mapped to user space (IB_ASYNC_IOC_MAP_RING): the memory,
 * its mapping, the two commands, and how records waiting in the queue
 * move into the ring (a producer puts an event straight in when it can:
 * evq.c).
 *
 * The memory is one vmalloc() area, charged to the memory cgroup
 * (__GFP_ACCOUNT) and to the caller's RLIMIT_MEMLOCK, as io_uring charges
 * its rings: the pages stay resident for as long as the file lives. It is
 * mapped page by page with vm_insert_page(), which takes a reference on
 * each page, and freed with the queue, after the file's last reference is
 * gone; a mapping holds the file, so no page is freed while mapped.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "core.h"
#include "evq_priv.h"

static struct ib_async_uring *ib_async_uring_alloc(u32 entries, u32 rec_size)
{
	struct ib_async_uring *r;
	size_t bytes;
	long pages;

	bytes = PAGE_ALIGN(size_add(sizeof(struct ib_async_ring_header),
				    size_mul(entries, rec_size)));
	pages = bytes >> PAGE_SHIFT;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	if (ib_async_charge_user_pages(pages, &r->user)) {
		kfree(r);
		return ERR_PTR(-ENOMEM);
	}
	r->size = bytes;
	r->mem = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!r->mem) {
		ib_async_uring_free(r);
		return ERR_PTR(-ENOMEM);
	}
	r->hdr = r->mem;
	r->recs = r->mem + sizeof(struct ib_async_ring_header);
	r->mask = entries - 1;
	r->rec_size = rec_size;
	r->hdr->entries = entries;
	r->hdr->record_size = rec_size;
	r->hdr->records_offset = sizeof(struct ib_async_ring_header);
	return r;
}

/**
 * ib_async_evq_mmap - map a queue's ring
 * @q: the queue
 * @vma: the whole ring, from offset 0, shared
 *
 * Takes no queue lock: the ring, once attached, stays until the queue is
 * destroyed, which the mapping's file reference rules out; and mmap_lock
 * is held here, which readers take (faulting) under read_mutex.
 *
 * Return: 0, or -EINVAL (no ring, or another offset, size or a private
 * mapping), or what vm_insert_page() fails with.
 */
int ib_async_evq_mmap(struct ib_async_evq *q, struct vm_area_struct *vma)
{
	struct ib_async_uring *r = READ_ONCE(q->uring);
	unsigned long off;
	int ret;

	if (!r || vma->vm_pgoff || !(vma->vm_flags & VM_SHARED) ||
	    vma->vm_end - vma->vm_start != r->size)
		return -EINVAL;
	/* A child's copy would share the parent's consumer index. */
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND);
	for (off = 0; off < r->size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(r->mem + off));
		if (ret)
			return ret;
	}
	return 0;
}

/* fdinfo: the ring's size and how many records went into it so far. */
void ib_async_show_ring(struct seq_file *m, const struct ib_async_evq_stat *st)
{
	if (!st->ring_entries)
		return;
	seq_printf(m, "ib_async-ring-entries:\t%u\n", st->ring_entries);
	seq_printf(m, "ib_async-ring-produced:\t%u\n", st->ring_produced);
}

/*
 * MAP_RING's answer reached the caller (@ret 0), or not: attach the ring
 * only then. A queue with a ring refuses read(), so a caller that never
 * learnt the ring's size would be left with neither.
 */
static int ib_async_ring_answered(struct ib_async_ucmd *u, int ret)
{
	struct ib_async_uring *r = u->pending;

	if (!ret)
		ret = ib_async_evq_attach_ring(u->evq, r);
	if (ret)
		ib_async_uring_free(r);
	return ret;
}

int ib_async_cmd_map_ring(struct ib_async_ucmd *u)
{
	struct ib_async_map_ring *arg = u->cmd;
	struct ib_async_uring *r;
	u32 entries;

	if (arg->flags || arg->reserved || arg->mmap_offset || arg->mmap_size)
		return -EINVAL;
	if (!arg->entries || arg->entries > ib_async_max_queue_len())
		return -EINVAL;
	if (u->evq->flags & (IB_ASYNC_EVQ_COMP | IB_ASYNC_EVQ_COALESCE))
		return -EOPNOTSUPP;
	/* before allocating; attaching checks again, under the queue's lock */
	if (READ_ONCE(u->evq->uring))
		return -EBUSY;
	entries = roundup_pow_of_two(arg->entries);

	r = ib_async_uring_alloc(entries, u->evq->rec_size);
	if (IS_ERR(r))
		return PTR_ERR(r);
	u->answered = ib_async_ring_answered;
	u->pending = r;
	arg->entries = entries;
	arg->mmap_offset = 0;
	arg->mmap_size = r->size;
	ib_async_ucmd_respond(u);
	return 0;
}

int ib_async_cmd_ring_wait(struct ib_async_ucmd *u)
{
	struct ib_async_ring_wait *arg = u->cmd;
	int ret;

	if (arg->flags & ~IB_ASYNC_READ_NONBLOCK || arg->reserved ||
	    arg->available)
		return -EINVAL;
	ret = ib_async_evq_ring_wait(u->evq,
				     (u->filp->f_flags & O_NONBLOCK) ||
				     (arg->flags & IB_ASYNC_READ_NONBLOCK),
				     &arg->available);
	if (ret)
		return ret;
	ib_async_ucmd_respond(u);
	return 0;
}

/**
 * ib_async_evq_attach_ring - deliver the queue's records into a ring
 * @q: the queue
 * @r: the ring, empty; the queue owns it from now on
 *
 * The caller has refused queues whose records change while queued
 * (completion and coalescing channels), before allocating @r.
 *
 * Return: 0, or -EBUSY if the queue has a ring already (@r is not taken).
 */
int ib_async_evq_attach_ring(struct ib_async_evq *q, struct ib_async_uring *r)
{
	unsigned long flags;
	int ret = 0;

	if (WARN_ON_ONCE(r->rec_size != q->rec_size))
		return -EINVAL;
	/*
	 * No purge, resize or ring fill is moving records meanwhile, and a
	 * reader sees the ring before its next snapshot. A reader copying
	 * records out now keeps those it consumes before a ring fill takes
	 * them: all older than what the ring gets, so order holds.
	 */
	mutex_lock(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	if (q->uring)
		ret = -EBUSY;
	else
		WRITE_ONCE(q->uring, r);
	spin_unlock_irqrestore(&q->lock, flags);
	mutex_unlock(&q->move_mutex);
	/* A reader asleep in read() returns: the ring has the events now. */
	if (!ret)
		wake_up_interruptible(&q->wait);
	return ret;
}

/* Records one lock hold moves into the ring: irq-off time stays bounded. */
#define IB_ASYNC_RING_FILL_CHUNK	256

/* Move what waits here into the ring, as much as it has room for. */
static void evq_ring_fill(struct ib_async_evq *q)
{
	struct ib_async_uring *r = q->uring;
	struct ib_async_slot *slot;
	unsigned long flags;
	u32 i, n;

	/* A purge's holes never sit among the records moved. */
	lockdep_assert_held(&q->move_mutex);
	do {
		spin_lock_irqsave(&q->lock, flags);
		n = min3(q->len, evq_ring_room(r),
			 (u32)IB_ASYNC_RING_FILL_CHUNK);
		for (i = 0; i < n; i++) {
			slot = evq_slot(q, 0);
			evq_copy_out(q, evq_ring_next(r), slot);
			/* traced from the queue's copy, not the shared one */
			evq_dequeued(q, &slot->rec);
			evq_pop(q);
			evq_ring_publish(r);
		}
		spin_unlock_irqrestore(&q->lock, flags);
		cond_resched();
	} while (n == IB_ASYNC_RING_FILL_CHUNK);
}

static bool evq_ring_ready(struct ib_async_evq *q)
{
	return evq_ring_used(q->uring) || evq_readable(q);
}

/**
 * ib_async_evq_ring_wait - fill the ring, wait for a record in it
 * @q: a queue with a ring
 * @nonblock: fail with -EAGAIN rather than wait
 * @avail: records in the ring the program has not consumed
 *
 * Return: 0 with @avail non-zero, or -EINVAL (no ring), -EAGAIN,
 * -ERESTARTSYS, or the stream's end as read() reports it (-ENODEV,
 * -EIO) once nothing is left here or in the ring.
 */
int ib_async_evq_ring_wait(struct ib_async_evq *q, bool nonblock, u32 *avail)
{
	bool over;
	u32 n;

	if (!READ_ONCE(q->uring))
		return -EINVAL;
	for (;;) {
		/* Not read_mutex: a reader stuck in its copy holds that. */
		if (mutex_lock_interruptible(&q->move_mutex))
			return -ERESTARTSYS;
		evq_ring_fill(q);
		n = evq_ring_used(q->uring);
		over = READ_ONCE(q->dead) && !READ_ONCE(q->len);
		mutex_unlock(&q->move_mutex);
		if (n) {
			*avail = n;
			return 0;
		}
		if (over)
			return READ_ONCE(q->dead_err);
		if (nonblock)
			return -EAGAIN;
		if (wait_event_interruptible(q->wait, evq_ring_ready(q)))
			return -ERESTARTSYS;
	}
}

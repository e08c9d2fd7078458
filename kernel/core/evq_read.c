// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The queue's reader: records are copied out through a bounce buffer and
 * consumed only once they reached the user, so a faulting copy loses
 * nothing and an object's events_reported counts only what was read.
 * read_mutex serialises readers across their copy, which may stall as
 * long as the program likes; move_mutex, which purge, resize and a ring
 * fill take, is held only for the short steps around it, and the reader
 * finds its records again by sequence number (evq_settle()).
 */
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "evq_priv.h"

/*
 * The record of @slot as a reader gets it, at @to. An event channel's
 * record leaves the coalescing hash here: once the reader may have it,
 * its occurrences must not change.
 */
void evq_copy_out(struct ib_async_evq *q, void *to,
		  struct ib_async_slot *slot)
{
	struct ib_async_chan_state_event *se = to;
	struct ib_async_chan_event *ce = to;
	struct ib_async_evx *e = NULL;

	lockdep_assert_held(&q->lock);
	/* a copied overflow record takes no more losses */
	if (slot->rec.event_type == IB_ASYNC_EV_OVERFLOW)
		q->sealed_seq = max(q->sealed_seq, slot->rec.seq);
	if (!q->xs) {
		*(struct ib_async_event *)to = slot->rec;
		return;
	}
	ce->event = slot->rec;
	if (!slot->x) {
		/* an overflow record: its count is the events lost */
		ce->cookie = 0;
		ce->occurrences = 0;
		ce->last_timestamp_ns = slot->rec.timestamp_ns;
	} else {
		e = evq_x(q, slot->x);
		if (e->hashed)
			evq_x_unhash(q, slot->x);
		ce->cookie = e->cookie;
		ce->occurrences = e->occurrences;
		ce->last_timestamp_ns = e->last_ns;
	}
	if (!q->states)
		return;
	if (e && e->state)
		se->state = q->states[e->state - 1].st;
	else
		memset(&se->state, 0, sizeof(se->state));
}

/*
 * The index of the first record whose sequence number is above @seq, or
 * q->len. Sequence numbers grow along the queue (an overflow record's
 * range included), and under move_mutex no purge has left holes in it.
 */
u32 evq_index_after(struct ib_async_evq *q, u64 seq)
{
	u32 lo = 0, hi = q->len, mid;

	lockdep_assert_held(&q->move_mutex);
	lockdep_assert_held(&q->lock);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (evq_at(q, mid)->seq > seq)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Copy up to @max records, from the first one after sequence number
 * @after on, into the bounce buffer.
 */
static u32 evq_snapshot(struct ib_async_evq *q, u64 after, u32 max)
{
	unsigned long flags;
	u32 i, n, off;

	lockdep_assert_held(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	off = evq_index_after(q, after);
	n = min(q->len - off, max);
	for (i = 0; i < n; i++)
		evq_copy_out(q, evq_bounce(q, i), evq_slot(q, off + i));
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}

/*
 * Remove the leading records whose sequence numbers end at or before @seq:
 * what a peeking reader has finished with.
 */
static void evq_consume_through(struct ib_async_evq *q, u64 seq)
{
	struct ib_async_slot *slot;
	unsigned long flags;

	lockdep_assert_held(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	while (q->len) {
		slot = evq_slot(q, 0);
		if (slot->rec.seq + slot->rec.count - 1 > seq) {
			/* An overflow record the reader saw only in part. */
			if (slot->rec.seq <= seq) {
				struct ib_async_event seen = slot->rec;

				seen.count = seq - slot->rec.seq + 1;
				evq_dequeued(q, &seen);
				slot->rec.count -= seen.count;
				slot->rec.seq = seq + 1;
			}
			break;
		}
		evq_dequeued(q, &slot->rec);
		evq_pop(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/*
 * The @n records of the bounce buffer reached the user: of those, the
 * leading ones still queued are the reader's to return; unless it only
 * peeks (!@consume) it removes them, which counts them towards their
 * objects' events_reported. A record a purge dropped or a ring took
 * during the copy ends them: the reader never returns it, and copies the
 * records after it again. The last one returned may be an overflow record
 * that grew during the copy: what the user did not see stays queued as a
 * smaller overflow record that continues the sequence (a peeking reader's
 * next call trims it so, consuming through the end of what it saw).
 *
 * Return: how many of the @n records the reader returns.
 */
static u32 evq_settle(struct ib_async_evq *q, u32 n, bool consume)
{
	const struct ib_async_event *seen;
	struct ib_async_event *rec;
	unsigned long flags;
	u32 i, at;

	lockdep_assert_held(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	/* A consuming reader's records start at the head, if still there. */
	at = consume ? 0 : evq_index_after(q, evq_bounce(q, 0)->seq - 1);
	for (i = 0; i < n && at < q->len; i++) {
		seen = evq_bounce(q, i);
		rec = evq_at(q, at);
		if (rec->seq != seen->seq)
			break;
		/*
		 * An overflow record that grew during the copy ends what the
		 * reader returns, peeking too: the records after it are
		 * younger than the part it did not see, and a peeking reader
		 * consumes through the last sequence number it returns.
		 */
		if (rec->count != seen->count) {
			if (consume) {
				evq_dequeued(q, seen);
				rec->count -= seen->count;
				rec->seq += seen->count;
			}
			i++;
			break;
		}
		if (!consume) {
			at++;
			continue;
		}
		evq_dequeued(q, seen);
		evq_pop(q);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return i;
}

/*
 * Before a copy: none if a ring takes the records (-EBUSY), else remove
 * what a peeking reader finished with (@consume_seq, 0 for nothing) and
 * snapshot up to @max records after sequence number @after (*@n).
 */
static int evq_begin_copy(struct ib_async_evq *q, u64 consume_seq, u64 after,
			  u32 max, u32 *n)
{
	int ret = 0;

	mutex_lock(&q->move_mutex);
	/*
	 * The ring holds the older records: read() would reorder them. A
	 * ring is attached under move_mutex, so one mapped since the last
	 * snapshot is seen here, and takes every record from then on.
	 */
	if (q->uring) {
		ret = -EBUSY;
	} else {
		if (consume_seq)
			evq_consume_through(q, consume_seq);
		*n = evq_snapshot(q, after, max);
	}
	mutex_unlock(&q->move_mutex);
	return ret;
}

/* After a copy of @n records: those the reader returns (evq_settle()). */
static u32 evq_end_copy(struct ib_async_evq *q, u32 n, bool consume)
{
	u32 k;

	mutex_lock(&q->move_mutex);
	k = evq_settle(q, n, consume);
	mutex_unlock(&q->move_mutex);
	return k;
}

bool evq_readable(struct ib_async_evq *q)
{
	return READ_ONCE(q->len) || READ_ONCE(q->dead);
}

/**
 * ib_async_evq_read_batch - consume what was seen, then copy records out
 * @q: the queue
 * @consume_seq: first remove the records ending at or before it (0: none)
 * @buf: user buffer
 * @want: records it has room for; 0 only consumes
 * @nonblock: O_NONBLOCK
 * @peek: leave the copied records queued
 *
 * Only readers wait for each other here; a destroy, close, resize or
 * MAP_RING goes on while a reader's copy stalls, and the reader returns
 * only the records still queued once its copy ended (see the comment at
 * the top): @buf may hold more bytes than it returns.
 *
 * Return: records copied, or -EAGAIN, -ERESTARTSYS, -EFAULT (nothing
 * consumed by the copy), -EBUSY (the queue delivers into a ring),
 * -ENODEV (the device is gone and every record, the final DEVICE_FATAL
 * included, was consumed), -EIO (a channel whose file was closed,
 * emptied).
 */
ssize_t ib_async_evq_read_batch(struct ib_async_evq *q, u64 consume_seq,
				char __user *buf, size_t want, bool nonblock,
				bool peek)
{
	size_t done = 0;
	ssize_t ret = 0;
	u64 after = 0;
	u32 n, k;

	/* Readers only: held across the copy, which may stall. */
	if (mutex_lock_interruptible(&q->read_mutex))
		return -ERESTARTSYS;
	/* Once at least: @want 0 only consumes. */
	do {
		ret = evq_begin_copy(q, consume_seq, after,
				     min_t(size_t, want - done,
					   IB_ASYNC_BOUNCE_RECS), &n);
		consume_seq = 0;
		if (ret || !want)
			break;
		if (!n) {
			if (done)
				break;
			if (READ_ONCE(q->dead)) {
				ret = READ_ONCE(q->dead_err);
				break;
			}
			if (nonblock) {
				ret = -EAGAIN;
				break;
			}
			mutex_unlock(&q->read_mutex);
			if (wait_event_interruptible(q->wait, evq_readable(q) ||
						     READ_ONCE(q->uring)))
				return -ERESTARTSYS;
			if (mutex_lock_interruptible(&q->read_mutex))
				return -ERESTARTSYS;
			continue;
		}
		if (copy_to_user(buf + done * q->rec_size, q->bounce,
				 n * q->rec_size)) {
			ret = -EFAULT;
			break;
		}
		k = evq_end_copy(q, n, !peek);
		if (k)
			after = evq_bounce(q, k - 1)->seq;
		done += k;
		cond_resched();
	} while (done < want);
	mutex_unlock(&q->read_mutex);

	return done ? done : ret;
}

/**
 * ib_async_evq_read - copy whole records to userspace
 * @q: the queue
 * @buf: user buffer
 * @count: its size; at least one record
 * @nonblock: O_NONBLOCK
 *
 * Return: bytes copied, or -EINVAL (buffer smaller than a record) and the
 * errors of ib_async_evq_read_batch().
 */
ssize_t ib_async_evq_read(struct ib_async_evq *q, char __user *buf,
			  size_t count, bool nonblock)
{
	size_t want = count / q->rec_size;
	ssize_t n;

	if (!want)
		return -EINVAL;
	n = ib_async_evq_read_batch(q, 0, buf, want, nonblock, false);
	return n > 0 ? n * q->rec_size : n;
}

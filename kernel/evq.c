// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The per-file event queue: a ring of records sized when the file is
 * opened or resized, never when an event arrives.
 *
 * Producers (event handlers, any context) append under an irq-safe
 * spinlock. When the queue is full the event is counted and represented
 * by one IB_ASYNC_EV_OVERFLOW record at the point of loss; consecutive
 * losses merge into that record, so loss is reported exactly and costs
 * one slot whatever its size.
 *
 * Readers are serialised by read_mutex. A reader snapshots records under
 * the spinlock, copies them to userspace without it, and only then removes
 * them, so an event is consumed only once it has reached the user and a
 * faulting copy loses nothing. While the copy runs, producers can only
 * append or grow the count of a trailing overflow record; consume() takes
 * that into account.
 *
 * A record of an affiliated event remembers its object's counters (the
 * slot's owner: a CQ has one set for its async events and one for its
 * completion events) so that consuming it counts towards the object's
 * events_reported and destroying the object can purge what was not read. Destroy runs after
 * the verbs object is gone, so no new record can name it by then.
 */
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ib_async.h"

#define CREATE_TRACE_POINTS
#include "ib_async_trace.h"

/* Records one read() snapshots at a time. */
#define IB_ASYNC_BOUNCE_RECS	32

/* Queue ids for tracing and fdinfo: never reused while the module lives. */
static atomic64_t ib_async_evq_ids = ATOMIC64_INIT(0);

static u32 evq_slots(u32 cap)
{
	return cap + 2;
}

static struct ib_async_slot *evq_slot(struct ib_async_evq *q, u32 i)
{
	return &q->ring[(q->head + i) % evq_slots(q->cap)];
}

static struct ib_async_event *evq_at(struct ib_async_evq *q, u32 i)
{
	return &evq_slot(q, i)->rec;
}

static struct ib_async_slot *evq_alloc_ring(u32 cap)
{
	return kvcalloc(evq_slots(cap), sizeof(struct ib_async_slot),
			GFP_KERNEL_ACCOUNT);
}

int ib_async_evq_init(struct ib_async_evq *q, u32 cap,
		      struct ib_async_stats __percpu *stats)
{
	spin_lock_init(&q->lock);
	mutex_init(&q->read_mutex);
	init_waitqueue_head(&q->wait);
	q->fasync = NULL;
	q->id = atomic64_inc_return(&ib_async_evq_ids);
	q->stats = stats;
	q->cap = cap;
	q->head = 0;
	q->len = 0;
	q->hole_at = 0;
	q->holes = 0;
	q->next_seq = 1;
	q->lost = 0;
	q->coalesced = 0;
	q->ended = false;
	q->dead = false;
	q->dead_err = 0;

	q->bounce = kcalloc(IB_ASYNC_BOUNCE_RECS, IB_ASYNC_REC_SIZE,
			    GFP_KERNEL_ACCOUNT);
	q->ring = evq_alloc_ring(cap);
	if (!q->bounce || !q->ring) {
		ib_async_evq_destroy(q);
		return -ENOMEM;
	}
	return 0;
}

void ib_async_evq_destroy(struct ib_async_evq *q)
{
	kvfree(q->ring);
	q->ring = NULL;
	kfree(q->bounce);
	q->bounce = NULL;
	mutex_destroy(&q->read_mutex);
}

static void evq_wake(struct ib_async_evq *q)
{
	wake_up_interruptible_poll(&q->wait, EPOLLIN | EPOLLRDNORM);
	kill_fasync(&q->fasync, SIGIO, POLL_IN);
}

/* A record entered the queue: the device's count and the trace see it. */
static void evq_queued(struct ib_async_evq *q, const struct ib_async_event *rec)
{
	lockdep_assert_held(&q->lock);
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_QUEUED, 1);
	trace_ib_async_enqueue(q->id, rec);
}

/* A record, as the reader got it, left the queue for user space. */
static void evq_dequeued(struct ib_async_evq *q,
			 const struct ib_async_event *rec)
{
	lockdep_assert_held(&q->lock);
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_READ, 1);
	trace_ib_async_dequeue(q->id, rec);
}

/* The queue is full: count the event lost. */
static void evq_note_loss(struct ib_async_evq *q, u64 seq, u64 timestamp_ns,
			  u32 event_type)
{
	struct ib_async_event *rec;

	lockdep_assert_held(&q->lock);
	q->lost++;
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_LOST, 1);
	if (q->len) {
		rec = evq_at(q, q->len - 1);
		if (rec->event_type == IB_ASYNC_EV_OVERFLOW) {
			rec->count++;
			goto out;
		}
	}
	/*
	 * A full queue whose tail is not an overflow record holds exactly
	 * cap records, so the first spare slot is free.
	 */
	evq_slot(q, q->len)->owner = NULL;
	rec = evq_at(q, q->len++);
	memset(rec, 0, sizeof(*rec));
	rec->seq = seq;
	rec->timestamp_ns = timestamp_ns;
	rec->count = 1;
	rec->event_type = IB_ASYNC_EV_OVERFLOW;
	rec->obj_type = IB_ASYNC_OBJ_NONE;
out:
	trace_ib_async_overflow(q->id, seq, event_type, rec->count, q->lost);
}

/*
 * Queue the record that ends the stream (not ended yet). It goes in the
 * last reserved slot, so it always fits, even after an overflow record.
 */
static void evq_end(struct ib_async_evq *q, const struct ib_async_event *ev)
{
	struct ib_async_slot *slot;

	lockdep_assert_held(&q->lock);
	slot = evq_slot(q, q->len++);
	slot->rec = *ev;
	slot->rec.seq = q->next_seq++;
	slot->rec.count = 1;
	slot->owner = NULL;
	q->ended = true;
	evq_queued(q, &slot->rec);
}

/* Queue @ev or count its loss. Return: whether readers need waking. */
static bool evq_add(struct ib_async_evq *q, const struct ib_async_event *ev,
		    struct ib_async_evcount *owner)
{
	struct ib_async_slot *slot;
	u64 seq;

	lockdep_assert_held(&q->lock);
	if (q->ended)
		return false;
	if (ev->event_type == IB_ASYNC_EV_DEVICE_FATAL) {
		evq_end(q, ev);
		return true;
	}
	seq = q->next_seq++;
	if (q->len < q->cap) {
		slot = evq_slot(q, q->len++);
		slot->rec = *ev;
		slot->rec.seq = seq;
		slot->rec.count = 1;
		slot->owner = owner;
		if (owner)
			owner->queued++;
		evq_queued(q, &slot->rec);
	} else {
		evq_note_loss(q, seq, ev->timestamp_ns, ev->event_type);
	}
	return true;
}

/**
 * ib_async_evq_push - queue one event, or account for its loss
 * @q: the queue
 * @ev: the record; seq and count are filled in here
 * @owner: the counters of an affiliated event's object, else NULL
 *
 * A DEVICE_FATAL is the last record a stream ever gets: the device has
 * declared itself unusable, so a consumer may treat it as end of file,
 * and device removal does not add a second one. It is never lost to a
 * full queue. Events after it are not queued (nor counted as lost).
 *
 * Safe from any context, including hard irq.
 */
void ib_async_evq_push(struct ib_async_evq *q, const struct ib_async_event *ev,
		       struct ib_async_evcount *owner)
{
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&q->lock, flags);
	wake = evq_add(q, ev, owner);
	spin_unlock_irqrestore(&q->lock, flags);

	if (wake)
		evq_wake(q);
}

/**
 * ib_async_evq_push_once - queue an event unless its object has one queued
 * @q: the queue
 * @ev: the record
 * @owner: the object's counters
 *
 * For events that only say "look at this object" (completion events): a
 * second one while the first is unread tells the reader nothing new, so
 * it is merged into the first and counted in @q's coalesced. A queue with
 * a slot for each such object then never loses one.
 *
 * Safe from any context, including hard irq.
 */
void ib_async_evq_push_once(struct ib_async_evq *q,
			    const struct ib_async_event *ev,
			    struct ib_async_evcount *owner)
{
	unsigned long flags;
	bool wake = false;

	spin_lock_irqsave(&q->lock, flags);
	if (owner->queued) {
		q->coalesced++;
		ib_async_stat_add(q->stats, IB_ASYNC_STAT_COALESCED, 1);
		trace_ib_async_coalesce(q->id, ev, q->coalesced);
	} else {
		wake = evq_add(q, ev, owner);
	}
	spin_unlock_irqrestore(&q->lock, flags);

	if (wake)
		evq_wake(q);
}

/**
 * ib_async_evq_shutdown - the device is gone: end the stream
 * @q: the queue
 * @timestamp_ns: when the device went away
 *
 * Records already queued stay readable, followed by one DEVICE_FATAL
 * (element 0) unless the driver's own DEVICE_FATAL already ended the
 * stream; after them read() reports ENODEV.
 */
void ib_async_evq_shutdown(struct ib_async_evq *q, u64 timestamp_ns)
{
	struct ib_async_event rec = {
		.timestamp_ns = timestamp_ns,
		.event_type = IB_ASYNC_EV_DEVICE_FATAL,
		.obj_type = IB_ASYNC_OBJ_PORT,
	};
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (!q->ended)
		evq_end(q, &rec);
	q->dead = true;
	q->dead_err = -ENODEV;
	spin_unlock_irqrestore(&q->lock, flags);

	wake_up_interruptible_poll(&q->wait, EPOLLIN | EPOLLRDNORM | EPOLLHUP);
	kill_fasync(&q->fasync, SIGIO, POLL_HUP);
}

/**
 * ib_async_evq_close - end a stream without a record
 * @q: the queue
 * @err: what read() reports once the queued records are consumed
 *
 * For channels, whose readers expect only their own records: what is
 * queued stays readable, then read() fails with @err and poll() reports
 * EPOLLHUP. Nothing is queued afterwards.
 */
void ib_async_evq_close(struct ib_async_evq *q, int err)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (!q->dead) {
		q->ended = true;
		q->dead = true;
		q->dead_err = err;
	}
	spin_unlock_irqrestore(&q->lock, flags);

	wake_up_interruptible_poll(&q->wait, EPOLLIN | EPOLLRDNORM | EPOLLHUP);
	kill_fasync(&q->fasync, SIGIO, POLL_HUP);
}

static bool evq_resize_fits(struct ib_async_evq *q, u32 cap)
{
	if (q->len <= cap)
		return true;
	/* A trailing overflow record may use the new queue's spare slot. */
	return q->len == cap + 1 &&
	       evq_at(q, q->len - 1)->event_type == IB_ASYNC_EV_OVERFLOW;
}

/**
 * ib_async_evq_resize - change the capacity, keeping queued records in order
 * @q: the queue
 * @cap: new capacity in events
 *
 * Return: 0, -ENOMEM (old queue intact), -EBUSY if the queued records do
 * not fit or a DEVICE_FATAL ended the stream, -ENODEV once the device is
 * gone.
 */
int ib_async_evq_resize(struct ib_async_evq *q, u32 cap)
{
	struct ib_async_slot *ring, *old;
	unsigned long flags;
	int ret = 0;
	u32 i;

	ring = evq_alloc_ring(cap);
	if (!ring)
		return -ENOMEM;

	mutex_lock(&q->read_mutex);
	spin_lock_irqsave(&q->lock, flags);
	if (q->dead) {
		ret = -ENODEV;
	} else if (q->ended || !evq_resize_fits(q, cap)) {
		ret = -EBUSY;
	} else {
		for (i = 0; i < q->len; i++)
			ring[i] = *evq_slot(q, i);
		old = q->ring;
		q->ring = ring;
		q->head = 0;
		q->cap = cap;
		ring = old;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	mutex_unlock(&q->read_mutex);

	kvfree(ring);
	return ret;
}

/* Copy up to @max records, from the @off'th on, into the bounce buffer. */
static u32 evq_snapshot(struct ib_async_evq *q, u32 off, u32 max)
{
	unsigned long flags;
	u32 i, n;

	spin_lock_irqsave(&q->lock, flags);
	n = q->len > off ? min(q->len - off, max) : 0;
	for (i = 0; i < n; i++)
		q->bounce[i] = *evq_at(q, off + i);
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

	lockdep_assert_held(&q->read_mutex);
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
		if (slot->owner) {
			slot->owner->reported++;
			slot->owner->queued--;
		}
		q->head = (q->head + 1) % evq_slots(q->cap);
		q->len--;
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/*
 * Remove the @n records the user now has. The last one may be an overflow
 * record that grew during the copy: what the user did not see stays queued
 * as a smaller overflow record that continues the sequence.
 */
static void evq_consume(struct ib_async_evq *q, u32 n)
{
	const struct ib_async_event *seen = &q->bounce[n - 1];
	struct ib_async_event *last;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < n; i++)
		evq_dequeued(q, &q->bounce[i]);
	last = evq_at(q, n - 1);
	if (last->count != seen->count) {
		last->count -= seen->count;
		last->seq += seen->count;
		n--;
	}
	/* Only what reached the user counts towards events_reported. */
	for (i = 0; i < n; i++) {
		struct ib_async_evcount *owner = evq_slot(q, i)->owner;

		if (owner) {
			owner->reported++;
			owner->queued--;
		}
	}
	q->head = (q->head + n) % evq_slots(q->cap);
	q->len -= n;
	spin_unlock_irqrestore(&q->lock, flags);
}

static bool evq_readable(struct ib_async_evq *q)
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
 * Return: records copied, or -EAGAIN, -ERESTARTSYS, -EFAULT (nothing
 * consumed by the copy), -ENODEV (the device is gone and every record,
 * the final DEVICE_FATAL included, was consumed), -EIO (a channel whose
 * file was closed, emptied).
 */
ssize_t ib_async_evq_read_batch(struct ib_async_evq *q, u64 consume_seq,
				char __user *buf, size_t want, bool nonblock,
				bool peek)
{
	size_t done = 0;
	ssize_t ret = 0;
	u32 n;

	if (mutex_lock_interruptible(&q->read_mutex))
		return -ERESTARTSYS;
	if (consume_seq)
		evq_consume_through(q, consume_seq);
	while (done < want) {
		n = evq_snapshot(q, peek ? done : 0,
				 min_t(size_t, want - done,
				       IB_ASYNC_BOUNCE_RECS));
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
			if (wait_event_interruptible(q->wait, evq_readable(q)))
				return -ERESTARTSYS;
			if (mutex_lock_interruptible(&q->read_mutex))
				return -ERESTARTSYS;
			continue;
		}
		if (copy_to_user(buf + done * IB_ASYNC_REC_SIZE, q->bounce,
				 n * IB_ASYNC_REC_SIZE)) {
			ret = -EFAULT;
			break;
		}
		if (!peek)
			evq_consume(q, n);
		done += n;
		cond_resched();
	}
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
	size_t want = count / IB_ASYNC_REC_SIZE;
	ssize_t n;

	if (!want)
		return -EINVAL;
	n = ib_async_evq_read_batch(q, 0, buf, want, nonblock, false);
	return n > 0 ? n * IB_ASYNC_REC_SIZE : n;
}

/*
 * Slots a purge moves or drops per lock hold: interrupts stay off for a
 * bounded time, however long the queue.
 */
#define IB_ASYNC_PURGE_CHUNK	256

/**
 * ib_async_evq_purge - drop the unread records of a destroyed object
 * @q: the queue
 * @owner: the counters of an object whose verbs object no longer exists
 *
 * The ring is compacted in chunks with the lock dropped in between: the
 * slots emptied so far form one run of holes that moves towards the tail.
 * Producers keep appending behind it meanwhile (their full-queue check
 * counts the holes, so an event may be counted lost a little early while
 * a purge runs); readers and resizes wait on read_mutex. Called with no
 * lock that device removal or another file waits for.
 *
 * Return: how many of the object's events reached the user.
 */
u64 ib_async_evq_purge(struct ib_async_evq *q, struct ib_async_evcount *owner)
{
	struct ib_async_slot *slot;
	unsigned long flags;
	u32 r = 0, w = 0, end;
	u64 reported;

	/*
	 * Most objects have nothing queued (PDs and AHs never do): then
	 * there is nothing to walk, and no reader to wait for, since none
	 * can be about to consume a record of this object.
	 */
	spin_lock_irqsave(&q->lock, flags);
	reported = owner->reported;
	if (!owner->queued) {
		spin_unlock_irqrestore(&q->lock, flags);
		return reported;
	}
	spin_unlock_irqrestore(&q->lock, flags);

	/* A reader between snapshot and consume relies on the head. */
	mutex_lock(&q->read_mutex);
	spin_lock_irqsave(&q->lock, flags);
	for (;;) {
		end = min(q->len, r + IB_ASYNC_PURGE_CHUNK);
		for (; r < end; r++) {
			slot = evq_slot(q, r);
			if (slot->owner == owner) {
				owner->queued--;
				continue;
			}
			if (w != r)
				*evq_slot(q, w) = *slot;
			w++;
		}
		/* Done: all dropped, and nothing behind a hole to move. */
		if (r == q->len || (!owner->queued && r == w))
			break;
		q->hole_at = w;
		q->holes = r - w;
		spin_unlock_irqrestore(&q->lock, flags);
		cond_resched();
		spin_lock_irqsave(&q->lock, flags);
	}
	q->len -= r - w;
	q->holes = 0;
	reported = owner->reported;
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_PURGED, r - w);
	trace_ib_async_purge(q->id, r - w, reported);
	spin_unlock_irqrestore(&q->lock, flags);
	mutex_unlock(&q->read_mutex);
	return reported;
}

/**
 * ib_async_evq_orphan - keep an object's records but forget the object
 * @q: the queue
 * @owner: the counters of an object about to be freed
 *
 * At device removal the records stay readable but nobody waits for their
 * acknowledgment any more.
 */
void ib_async_evq_orphan(struct ib_async_evq *q, struct ib_async_evcount *owner)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; owner->queued && i < q->len; i++) {
		/* A purge in progress elsewhere: its holes hold stale copies. */
		if (i == q->hole_at && q->holes) {
			i += q->holes - 1;
			continue;
		}
		if (evq_slot(q, i)->owner == owner) {
			evq_slot(q, i)->owner = NULL;
			owner->queued--;
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

__poll_t ib_async_evq_poll(struct ib_async_evq *q, struct file *filp,
			   poll_table *wait)
{
	__poll_t mask = 0;
	unsigned long flags;

	poll_wait(filp, &q->wait, wait);

	spin_lock_irqsave(&q->lock, flags);
	if (q->len - q->holes)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (q->dead)
		mask |= q->len - q->holes ? EPOLLHUP : EPOLLHUP | EPOLLERR;
	spin_unlock_irqrestore(&q->lock, flags);

	return mask;
}

void ib_async_evq_stat(struct ib_async_evq *q, struct ib_async_evq_stat *st)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	st->id = q->id;
	st->cap = q->cap;
	st->queued = q->len - q->holes;
	st->lost = q->lost;
	st->coalesced = q->coalesced;
	st->next_seq = q->next_seq;
	spin_unlock_irqrestore(&q->lock, flags);
}

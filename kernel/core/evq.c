// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The per-file event queue: a ring of records sized when the file is
 * opened or resized, never when an event arrives. This file keeps its
 * storage: the producers, which append from any context under an
 * irq-safe spinlock and account for every loss, resize, purge and the
 * memory, the mapped ring's included. The reader's protocol is in
 * evq_read.c, an event channel's extras in evq_x.c, state records in
 * evq_state.c, and how a mapped ring is filled and waited on in ring.c.
 * Documentation/ib_async.rst ("The queue's design") has the whole story.
 */
#include <linux/fs.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "evq_priv.h"

#define CREATE_TRACE_POINTS
#include "ib_async_trace.h"

/* What an event channel's extras cost lives beside the ring, not in it. */
static_assert(sizeof(struct ib_async_slot) ==
	      sizeof(struct ib_async_event) + sizeof(void *));

/* Queue ids for tracing and fdinfo: never reused while the module lives. */
static atomic64_t ib_async_evq_ids = ATOMIC64_INIT(0);

static struct ib_async_slot *evq_alloc_ring(u32 cap, u32 state_slots)
{
	return kvcalloc(evq_slots(cap, state_slots),
			sizeof(struct ib_async_slot), GFP_KERNEL_ACCOUNT);
}

/*
 * Pages a queue of @cap events charges its user: ring, extras, hash and
 * bounce buffer, as one running total (see account.c).
 */
static long evq_pages(u32 cap, u32 state_slots, unsigned int flags,
		      u32 rec_size)
{
	size_t b = size_mul(evq_slots(cap, state_slots),
			    sizeof(struct ib_async_slot));

	b = size_add(b, size_mul(IB_ASYNC_BOUNCE_RECS, rec_size));
	if (flags & IB_ASYNC_EVQ_CHAN)
		b = size_add(b, size_mul(evq_nx(cap, state_slots),
					 sizeof(struct ib_async_evx)));
	b = size_add(b, size_mul(state_slots, sizeof(struct ib_async_evstate)));
	if (flags & IB_ASYNC_EVQ_COALESCE)
		b = size_add(b, size_mul(1U << evq_bucket_bits(cap),
					 sizeof(u32)));
	return DIV_ROUND_UP(b, PAGE_SIZE);
}

/* 0, or -ENOMEM past the user's RLIMIT_MEMLOCK (nothing charged). */
static int evq_charge(struct ib_async_evq *q, long pages)
{
	return q->user ? ib_async_account_pages(q->user, pages) : 0;
}

static void evq_uncharge(struct ib_async_evq *q, long pages)
{
	if (q->user)
		ib_async_unaccount_pages(q->user, pages);
}

/**
 * ib_async_evq_init - make an empty queue
 * @q: the queue
 * @cap: its capacity in events
 * @stats: its device's counters
 * @flags: IB_ASYNC_EVQ_CHAN, IB_ASYNC_EVQ_COALESCE, IB_ASYNC_EVQ_STATE...
 * @state_slots: with IB_ASYNC_EVQ_STATE, the state records a snapshot
 *	may have (the ports and the device), kept beside the cap events
 * @user: whose RLIMIT_MEMLOCK budget its memory is charged to, from
 *	ib_async_account_user(); NULL charges none
 *
 * The queue holds its memory, which no one can swap, for as long as the
 * file lives, and a user may open any number of files: the budget is
 * what bounds it per user, as for the data path's buffers and rings.
 *
 * Return: 0, or -ENOMEM (out of memory or past the limit).
 */
int ib_async_evq_init(struct ib_async_evq *q, u32 cap,
		      struct ib_async_stats __percpu *stats, unsigned int flags,
		      u32 state_slots, struct user_struct *user)
{
	struct evq_xtab t;
	long pages;

	spin_lock_init(&q->lock);
	mutex_init(&q->read_mutex);
	mutex_init(&q->move_mutex);
	init_waitqueue_head(&q->wait);
	q->fasync = NULL;
	q->id = atomic64_inc_return(&ib_async_evq_ids);
	q->stats = stats;
	q->cap = cap;
	q->head = 0;
	q->len = 0;
	q->nroom = 0;
	q->nover = 0;
	q->pend_seq = 0;
	q->pend_ns = 0;
	q->pend_count = 0;
	q->sealed_seq = 0;
	q->hole_at = 0;
	q->holes = 0;
	q->next_seq = 1;
	q->lost = 0;
	q->coalesced = 0;
	q->delivered = 0;
	q->ended = false;
	q->dead = false;
	q->dead_err = 0;
	if (flags & IB_ASYNC_EVQ_STATE)
		q->rec_size = IB_ASYNC_STATE_REC_SIZE;
	else if (flags & IB_ASYNC_EVQ_CHAN)
		q->rec_size = IB_ASYNC_CHAN_REC_SIZE;
	else
		q->rec_size = IB_ASYNC_REC_SIZE;
	q->flags = flags;
	q->state_slots = flags & IB_ASYNC_EVQ_STATE ? state_slots : 0;
	q->nstate = 0;
	q->resync_wanted = false;
	q->resync = NULL;
	q->states = NULL;
	q->uring = NULL;
	q->user = user ? get_uid(user) : NULL;
	q->charged = 0;

	pages = evq_pages(cap, q->state_slots, flags, q->rec_size);
	q->bounce = kcalloc(IB_ASYNC_BOUNCE_RECS, q->rec_size,
			    GFP_KERNEL_ACCOUNT);
	q->ring = evq_alloc_ring(cap, q->state_slots);
	if (q->state_slots)
		q->states = kvcalloc(q->state_slots, sizeof(*q->states),
				     GFP_KERNEL_ACCOUNT);
	if (evq_alloc_x(cap, q->state_slots, flags, &t))
		memset(&t, 0, sizeof(t));
	q->xs = t.xs;
	q->x_used = 0;
	q->buckets = t.buckets;
	q->bucket_bits = t.bits;
	if (!q->bounce || !q->ring || (flags & IB_ASYNC_EVQ_CHAN && !q->xs) ||
	    (q->state_slots && !q->states) || evq_charge(q, pages)) {
		ib_async_evq_destroy(q);
		return -ENOMEM;
	}
	q->charged = pages;
	if (q->xs)
		evq_x_free_from(q, 0);
	return 0;
}

/**
 * ib_async_evq_uncharge - give back what a queue and its ring are charged
 * @q: a queue that no command can reach any more
 *
 * Its file or channel is freed a grace period later, after the event
 * handlers that may be walking past it: the charge goes back now, so
 * that a user who closed a file at the limit can open another at once.
 */
void ib_async_evq_uncharge(struct ib_async_evq *q)
{
	evq_uncharge(q, q->charged);
	q->charged = 0;
	if (q->user)
		free_uid(q->user);
	q->user = NULL;
	if (q->uring)
		ib_async_uring_uncharge(q->uring);
}

void ib_async_evq_destroy(struct ib_async_evq *q)
{
	ib_async_evq_uncharge(q);
	kvfree(q->ring);
	q->ring = NULL;
	kvfree(q->xs);
	q->xs = NULL;
	kvfree(q->buckets);
	q->buckets = NULL;
	kvfree(q->states);
	q->states = NULL;
	kfree(q->bounce);
	q->bounce = NULL;
	if (q->uring)
		ib_async_uring_free(q->uring);
	q->uring = NULL;
	mutex_destroy(&q->move_mutex);
	mutex_destroy(&q->read_mutex);
}

void evq_wake(struct ib_async_evq *q)
{
	wake_up_interruptible_poll(&q->wait, EPOLLIN | EPOLLRDNORM);
	kill_fasync(&q->fasync, SIGIO, POLL_IN);
}

/* A record entered the queue: the device's count and the trace see it. */
void evq_queued(struct ib_async_evq *q, const struct ib_async_event *rec)
{
	lockdep_assert_held(&q->lock);
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_QUEUED, 1);
	trace_ib_async_enqueue(q->id, rec);
}

/* A record, as the reader got it, left the queue for user space. */
void evq_dequeued(struct ib_async_evq *q,
		  const struct ib_async_event *rec)
{
	lockdep_assert_held(&q->lock);
	q->delivered++;
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_READ, 1);
	trace_ib_async_dequeue(q->id, rec);
}

/*
 * The slot for one more record at the tail, or NULL, with a WARN, if the
 * ring has none: the bound of evq_slots() rules that out, and a broken
 * bound must cost a record, never a live record written over.
 */
struct ib_async_slot *evq_append(struct ib_async_evq *q)
{
	lockdep_assert_held(&q->lock);
	if (WARN_ON_ONCE(q->len >= evq_slots(q->cap, q->state_slots)))
		return NULL;
	return evq_slot(q, q->len++);
}

/*
 * The overflow record at the tail, if a loss may still join it: not once
 * a reader copied it (evq_copy_out()), as coalescing never adds to a
 * record a reader has. A peeking reader consumes through the end of what
 * it saw, so a loss added after its copy would go unseen.
 */
static struct ib_async_event *evq_open_overflow(struct ib_async_evq *q)
{
	struct ib_async_event *rec;

	if (!evq_tail_is_overflow(q))
		return NULL;
	rec = evq_at(q, q->len - 1);
	return rec->seq > q->sealed_seq ? rec : NULL;
}

/*
 * Turn the loss kept aside into an overflow record at the tail: when the
 * room has a slot, or at the end of the stream (@end), which has a slot
 * for it. Nothing was appended since the loss, so the tail is its point.
 */
static void evq_flush_loss(struct ib_async_evq *q, bool end)
{
	struct ib_async_slot *slot;
	struct ib_async_event *rec;

	lockdep_assert_held(&q->lock);
	if (!q->pend_count || (!end && q->nroom > q->cap))
		return;
	slot = evq_append(q);
	if (!slot)
		return;
	/* no owner, and in an event channel no extras (x is 0 too) */
	slot->owner = NULL;
	rec = &slot->rec;
	memset(rec, 0, sizeof(*rec));
	rec->seq = q->pend_seq;
	rec->timestamp_ns = q->pend_ns;
	rec->count = q->pend_count;
	rec->event_type = IB_ASYNC_EV_OVERFLOW;
	rec->obj_type = IB_ASYNC_OBJ_NONE;
	q->nroom++;
	q->nover++;
	q->pend_count = 0;
	/* a reader that meets it learns the present from a fresh snapshot */
	evq_resync_check(q);
}

/*
 * The queue is full: count the event lost, in the overflow record at the
 * tail, or in the loss kept aside, or as a new loss at this point.
 */
static void evq_note_loss(struct ib_async_evq *q, u64 seq, u64 timestamp_ns,
			  u32 event_type)
{
	struct ib_async_event *over;
	u64 count;

	lockdep_assert_held(&q->lock);
	q->lost++;
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_LOST, 1);
	over = evq_open_overflow(q);
	if (q->pend_count) {
		count = ++q->pend_count;
	} else if (over) {
		count = ++over->count;
	} else {
		q->pend_seq = seq;
		q->pend_ns = timestamp_ns;
		q->pend_count = 1;
		count = 1;
		if (q->flags & IB_ASYNC_EVQ_RESYNC)
			q->resync_wanted = true;
		evq_flush_loss(q, false);
	}
	trace_ib_async_overflow(q->id, seq, event_type, count, q->lost);
}

/*
 * Deliver @ev (sequence number @seq) straight into the ring, if the ring
 * has room and nothing older is waiting here: the record is then the
 * program's, as if a reader had taken it at once. The record is built
 * here and copied out whole: the program can write to the ring at any
 * time, so nothing is ever read back from it.
 */
static bool evq_ring_put(struct ib_async_evq *q, const struct ib_async_event *ev,
			 u64 seq, struct ib_async_evcount *owner, u64 cookie)
{
	struct ib_async_uring *r = q->uring;
	struct ib_async_chan_state_event se;
	struct ib_async_chan_event *ce = &se.rec;

	lockdep_assert_held(&q->lock);
	if (!r || q->len || q->pend_count || !evq_ring_room(r))
		return false;
	ce->event = *ev;
	ce->event.seq = seq;
	ce->event.count = 1;
	ce->cookie = cookie;
	ce->occurrences = 1;
	ce->last_timestamp_ns = ev->timestamp_ns;
	/* state records never come this way: they wait for their state */
	if (r->rec_size > sizeof(*ce))
		memset(&se.state, 0, sizeof(se.state));
	memcpy(evq_ring_next(r), &se, r->rec_size);
	if (owner)
		owner->reported++;
	evq_queued(q, &ce->event);
	evq_dequeued(q, &ce->event);
	evq_ring_publish(r);
	return true;
}

/*
 * Queue the record that ends the stream (not ended yet), behind a loss
 * kept aside: both have slots of their own, so it always fits.
 */
static void evq_end(struct ib_async_evq *q, const struct ib_async_event *ev,
		    u64 cookie)
{
	struct ib_async_slot *slot;

	lockdep_assert_held(&q->lock);
	q->ended = true;
	if (evq_ring_put(q, ev, q->next_seq, NULL, cookie)) {
		q->next_seq++;
		return;
	}
	evq_flush_loss(q, true);
	slot = evq_append(q);
	if (!slot)
		return;
	slot->owner = NULL;
	if (q->xs) {
		slot->x = evq_x_get(q, ev, cookie);
		if (!slot->x) {
			q->len--;
			return;
		}
	}
	slot->rec = *ev;
	slot->rec.seq = q->next_seq++;
	slot->rec.count = 1;
	evq_queued(q, &slot->rec);
}

/*
 * Queue @ev as sequence number @seq in the room, or return false: the
 * room is full (or, were the bound broken, the ring or the extras).
 */
static bool evq_add_event(struct ib_async_evq *q,
			  const struct ib_async_event *ev, u64 seq,
			  struct ib_async_evcount *owner, u64 cookie)
{
	struct ib_async_slot *slot;

	lockdep_assert_held(&q->lock);
	if (q->nroom >= q->cap || q->pend_count)
		return false;
	slot = evq_append(q);
	if (!slot)
		return false;
	slot->owner = owner;
	if (q->xs) {	/* event channels have no owners */
		slot->x = evq_x_get(q, ev, cookie);
		if (!slot->x) {
			q->len--;
			return false;
		}
	} else if (owner) {
		owner->queued++;
	}
	slot->rec = *ev;
	slot->rec.seq = seq;
	slot->rec.count = 1;
	q->nroom++;
	evq_queued(q, &slot->rec);
	return true;
}

/*
 * Queue @ev (with @cookie in an event channel) or count its loss.
 * Return: whether readers need waking.
 */
static bool evq_add(struct ib_async_evq *q, const struct ib_async_event *ev,
		    struct ib_async_evcount *owner, u64 cookie)
{
	u64 seq;

	lockdep_assert_held(&q->lock);
	if (q->ended)
		return false;
	/* the queue's own record types never come from a producer */
	if (WARN_ON_ONCE(ev->event_type == IB_ASYNC_EV_OVERFLOW ||
			 ev->event_type == IB_ASYNC_EV_STATE))
		return false;
	if (ev->event_type == IB_ASYNC_EV_DEVICE_FATAL) {
		evq_end(q, ev, cookie);
		return true;
	}
	seq = q->next_seq++;
	if (evq_ring_put(q, ev, seq, owner, cookie))
		return true;
	if (!evq_add_event(q, ev, seq, owner, cookie))
		evq_note_loss(q, seq, ev->timestamp_ns, ev->event_type);
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
	wake = evq_add(q, ev, owner, 0);
	spin_unlock_irqrestore(&q->lock, flags);

	if (wake)
		evq_wake(q);
}

/* An event merged into an unread record: counted, traced, no slot used. */
static void evq_coalesced(struct ib_async_evq *q,
			  const struct ib_async_event *ev)
{
	lockdep_assert_held(&q->lock);
	q->coalesced++;
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_COALESCED, 1);
	trace_ib_async_coalesce(q->id, ev, q->coalesced);
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
	/* after the end of the stream nothing is queued, merged or lost */
	if (!q->ended && owner->queued)
		evq_coalesced(q, ev);
	else
		wake = evq_add(q, ev, owner, 0);
	spin_unlock_irqrestore(&q->lock, flags);

	if (wake)
		evq_wake(q);
}

/**
 * ib_async_evq_lock - hold a queue's lock, for a producer that decides
 *	under it what to queue (an event channel matching its subscriptions)
 * @q: the queue
 *
 * Return: the interrupt state, for ib_async_evq_unlock().
 */
unsigned long ib_async_evq_lock(struct ib_async_evq *q)
	__acquires(&q->lock)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	return flags;
}

/**
 * ib_async_evq_unlock - drop ib_async_evq_lock()'s lock
 * @q: the queue
 * @flags: what ib_async_evq_lock() returned
 * @wake: wake the readers (something was queued)
 */
void ib_async_evq_unlock(struct ib_async_evq *q, unsigned long flags,
			 bool wake)
	__releases(&q->lock)
{
	spin_unlock_irqrestore(&q->lock, flags);
	if (wake)
		evq_wake(q);
}

/**
 * ib_async_evq_push_chan_locked - queue an event in an event channel
 * @q: the channel's queue, locked with ib_async_evq_lock()
 * @ev: the record; seq and count are filled in here
 * @cookie: the matching subscription's
 *
 * In a coalescing channel an event with the key and cookie of a record no
 * reader has copied yet adds to that record's occurrences and last
 * timestamp instead. Safe from any context, including hard irq.
 *
 * Return: whether readers need waking.
 */
bool ib_async_evq_push_chan_locked(struct ib_async_evq *q,
				   const struct ib_async_event *ev,
				   u64 cookie)
{
	struct ib_async_evx *e;
	u32 x = 0;

	lockdep_assert_held(&q->lock);
	if (q->buckets && !q->ended &&
	    ev->event_type != IB_ASYNC_EV_DEVICE_FATAL)
		x = evq_x_find(q, evq_key(ev), cookie);
	if (!x)
		return evq_add(q, ev, NULL, cookie);
	e = evq_x(q, x);
	e->occurrences++;
	e->last_ns = ev->timestamp_ns;
	evq_coalesced(q, ev);
	return false;
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
		evq_end(q, &rec, 0);
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

/*
 * Whether the queued records keep the bound of evq_slots() in a queue of
 * @cap events. State records keep their own room.
 */
static bool evq_resize_fits(struct ib_async_evq *q, u32 cap)
{
	if (q->nroom <= cap)
		return true;
	/* A trailing overflow record may use the new queue's spare slot. */
	return q->nroom == cap + 1 && evq_tail_is_overflow(q);
}

/**
 * ib_async_evq_resize - change the capacity, keeping queued records in order
 * @q: the queue
 * @cap: new capacity in events
 *
 * The new memory is charged before it is allocated, the old given back
 * once freed: while both exist, both count.
 *
 * Return: 0, -ENOMEM (old queue intact; out of memory or past the user's
 * RLIMIT_MEMLOCK), -EBUSY if the queued records do not fit or a
 * DEVICE_FATAL ended the stream, -ENODEV once the device is gone.
 */
int ib_async_evq_resize(struct ib_async_evq *q, u32 cap)
{
	/* the queue's kind and record size never change */
	long pages = evq_pages(cap, q->state_slots, q->flags, q->rec_size);
	struct ib_async_slot *ring, *old;
	struct ib_async_evx *e;
	struct evq_xtab t;
	unsigned long flags;
	int ret = 0;
	u32 i, k;

	if (evq_charge(q, pages))
		return -ENOMEM;
	ring = evq_alloc_ring(cap, q->state_slots);
	if (!ring) {
		evq_uncharge(q, pages);
		return -ENOMEM;
	}
	if (evq_alloc_x(cap, q->state_slots, q->flags, &t)) {
		kvfree(ring);
		evq_uncharge(q, pages);
		return -ENOMEM;
	}

	/* A reader copying records out finds them again by their seq. */
	mutex_lock(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	if (q->dead) {
		ret = -ENODEV;
	} else if (q->ended || !evq_resize_fits(q, cap)) {
		ret = -EBUSY;
	} else {
		/* Extras are renumbered in queue order, hashed ones rehashed. */
		for (i = 0, k = 0; i < q->len; i++) {
			ring[i] = *evq_slot(q, i);
			if (!q->xs || !ring[i].x)
				continue;
			e = &t.xs[k];
			*e = *evq_x(q, ring[i].x);
			ring[i].x = ++k;
			if (e->hashed)
				evq_x_hash(t.buckets, t.bits, e, k);
		}
		old = q->ring;
		q->ring = ring;
		q->head = 0;
		q->cap = cap;
		ring = old;
		swap(q->xs, t.xs);
		swap(q->buckets, t.buckets);
		q->bucket_bits = t.bits;
		if (q->xs)
			evq_x_free_from(q, k);
		swap(q->charged, pages);
		/* a larger room takes the loss kept aside */
		evq_flush_loss(q, false);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	mutex_unlock(&q->move_mutex);

	/* the old memory on success, the new on failure */
	kvfree(ring);
	kvfree(t.xs);
	kvfree(t.buckets);
	evq_uncharge(q, pages);
	return ret;
}

/* The head record was consumed: release what it held. */
void evq_pop(struct ib_async_evq *q)
{
	struct ib_async_slot *slot = evq_slot(q, 0);

	lockdep_assert_held(&q->lock);
	if (q->xs) {
		if (slot->x)
			evq_x_put(q, slot->x);
	} else if (slot->owner) {
		slot->owner->reported++;
		slot->owner->queued--;
	}
	if (evq_in_room(&slot->rec)) {
		q->nroom--;
		if (slot->rec.event_type == IB_ASYNC_EV_OVERFLOW)
			q->nover--;
	}
	q->head = (q->head + 1) % evq_slots(q->cap, q->state_slots);
	q->len--;
	evq_flush_loss(q, false);
}

/*
 * Slots a purge moves or drops per lock hold: interrupts stay off for a
 * bounded time, however long the queue.
 */
#define IB_ASYNC_PURGE_CHUNK	256

/* Whose records a purge drops: an object's counters, or its handle. */
struct evq_victim {
	struct ib_async_evcount *owner;
	u32 obj_type;
	u32 handle;
};

static bool evq_is_victim(const struct ib_async_evq *q,
			  const struct ib_async_slot *slot,
			  const struct evq_victim *v)
{
	/* only events name objects: the queue's own records stay */
	if (!evq_in_room(&slot->rec) ||
	    slot->rec.event_type == IB_ASYNC_EV_OVERFLOW)
		return false;
	if (v->owner)
		return !q->xs && slot->owner == v->owner;
	return slot->rec.obj_handle == v->handle &&
	       slot->rec.obj_type == v->obj_type;
}

/*
 * The ring is compacted in chunks with the lock dropped in between: the
 * slots emptied so far form one run of holes that moves towards the tail.
 * Producers keep appending behind it meanwhile (their full-queue check
 * counts the holes, so an event may be counted lost a little early while
 * a purge runs); readers' snapshots and consumes, resizes and ring fills
 * wait on move_mutex, which nothing holds across a copy to user memory.
 * A record a reader is copying out may be dropped: the reader finds it
 * gone when it consumes (evq_settle()).
 */
static void evq_purge(struct ib_async_evq *q, const struct evq_victim *v)
{
	struct ib_async_slot *slot;
	unsigned long flags;
	u32 r = 0, w = 0, end;

	/* Positions stay valid while the lock is dropped between chunks. */
	mutex_lock(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	for (;;) {
		end = min(q->len, r + IB_ASYNC_PURGE_CHUNK);
		for (; r < end; r++) {
			slot = evq_slot(q, r);
			if (evq_is_victim(q, slot, v)) {
				if (q->xs) {
					if (slot->x)
						evq_x_put(q, slot->x);
				} else if (slot->owner) {
					slot->owner->queued--;
				}
				continue;
			}
			if (w != r)
				*evq_slot(q, w) = *slot;
			w++;
		}
		/* Done: all dropped, and nothing behind a hole to move. */
		if (r == q->len || (v->owner && !v->owner->queued && r == w))
			break;
		q->hole_at = w;
		q->holes = r - w;
		spin_unlock_irqrestore(&q->lock, flags);
		cond_resched();
		spin_lock_irqsave(&q->lock, flags);
	}
	q->len -= r - w;
	q->nroom -= r - w;
	q->holes = 0;
	evq_flush_loss(q, false);
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_PURGED, r - w);
	trace_ib_async_purge(q->id, r - w, v->owner ? v->owner->reported : 0);
	spin_unlock_irqrestore(&q->lock, flags);
	mutex_unlock(&q->move_mutex);
}

/**
 * ib_async_evq_purge - drop the unread records of a destroyed object
 * @q: the queue
 * @owner: the counters of an object whose verbs object no longer exists
 *
 * Never waits for a reader's copy to user memory, however slow: a record
 * the reader is copying out is dropped all the same and not counted, and
 * the reader does not return it (see the comment at the top). It may wait
 * for another purge, a resize or a ring fill of the queue.
 *
 * Return: how many of the object's events reached the user: the records
 * of the object that read() returned or a ring took, each once.
 */
u64 ib_async_evq_purge(struct ib_async_evq *q, struct ib_async_evcount *owner)
{
	struct evq_victim v = { .owner = owner };
	unsigned long flags;
	u64 reported;
	u32 queued;

	/*
	 * Most objects have nothing queued (PDs and AHs never do): then
	 * there is nothing to walk, and no reader can be about to consume a
	 * record of this object.
	 */
	spin_lock_irqsave(&q->lock, flags);
	queued = owner->queued;
	reported = owner->reported;
	spin_unlock_irqrestore(&q->lock, flags);
	if (!queued)
		return reported;

	evq_purge(q, &v);
	/* Nothing of the object is left to read: the count is final. */
	spin_lock_irqsave(&q->lock, flags);
	reported = owner->reported;
	spin_unlock_irqrestore(&q->lock, flags);
	return reported;
}

/**
 * ib_async_evq_purge_obj - drop an event channel's records of an object
 * @q: the channel's queue
 * @obj_type: the object's type
 * @handle: its handle, which no new record can carry any more
 *
 * As ib_async_evq_purge(), for a queue that keeps no per-object counters.
 */
void ib_async_evq_purge_obj(struct ib_async_evq *q, u32 obj_type, u32 handle)
{
	struct evq_victim v = { .obj_type = obj_type, .handle = handle };

	if (READ_ONCE(q->len))
		evq_purge(q, &v);
}

/**
 * ib_async_evq_orphan - keep an object's records but forget the object
 * @q: the queue: the node's or a completion channel's (event channels
 *	keep no owners)
 * @owner: the counters of an object about to be freed
 *
 * When a file that device removal left with dead handles is closed: a
 * CQ's completion channel, a file of its own, keeps its records readable,
 * but nobody can wait for their acknowledgment any more.
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
	u32 left;

	poll_wait(filp, &q->wait, wait);

	spin_lock_irqsave(&q->lock, flags);
	left = q->len - q->holes + !!q->pend_count;
	if (q->uring)
		left += evq_ring_used(q->uring);
	if (left)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (q->dead)
		mask |= left ? EPOLLHUP : EPOLLHUP | EPOLLERR;
	spin_unlock_irqrestore(&q->lock, flags);

	return mask;
}

void ib_async_evq_stat(struct ib_async_evq *q, struct ib_async_evq_stat *st)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	st->id = q->id;
	st->cap = q->cap;
	/* a loss kept aside is a record to come, at its point */
	st->queued = q->len - q->holes + !!q->pend_count;
	st->lost = q->lost;
	st->coalesced = q->coalesced;
	st->delivered = q->delivered;
	st->next_seq = q->next_seq;
	st->rec_size = q->rec_size;
	st->ring_entries = q->uring ? q->uring->mask + 1 : 0;
	st->ring_produced = q->uring ? q->uring->prod : 0;
	st->memlock_pages = q->user ? q->charged : 0;
	if (q->uring && q->uring->user)
		st->memlock_pages += q->uring->size >> PAGE_SHIFT;
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * ib_async_uring_free - free a ring and give back its charge
 * @r: the ring, mapped nowhere any more
 *
 * Safe from an RCU callback: vfree() defers itself there.
 */
void ib_async_uring_free(struct ib_async_uring *r)
{
	vfree(r->mem);
	ib_async_uring_uncharge(r);
	kfree(r);
}

/* Give back the ring's charge ahead of its memory (see the queue's). */
void ib_async_uring_uncharge(struct ib_async_uring *r)
{
	if (r->user) {
		ib_async_unaccount_pages(r->user, r->size >> PAGE_SHIFT);
		free_uid(r->user);
	}
	r->user = NULL;
}

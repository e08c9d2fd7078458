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
 * Readers are serialised by read_mutex, which only readers take: it is
 * held across the copy to user memory, and that copy may stall for as
 * long as the reader's own program likes (userfaultfd, FUSE). Whatever
 * moves or drops queued records (a destroy's or close's purge, a resize,
 * filling a ring) takes move_mutex instead, and so does a reader for its
 * two short steps around the copy; move_mutex is never held across a
 * copy to user memory, so DESTROY, close, SET_QUEUE_LEN and MAP_RING never
 * wait for a reader's fault, only for bounded work in the kernel.
 *
 * A reader snapshots records into its bounce buffer (under move_mutex and
 * the spinlock), copies them out holding neither, and then consumes those
 * of them still queued (under both again): an event is consumed, and
 * counts towards its object's events_reported, only once it has reached
 * the user, and a faulting copy loses nothing. While the copy runs the
 * queue may change under it: producers append or grow a trailing overflow
 * record (the part of it the user did not see stays queued), a resize
 * moves the records, a purge drops those of a destroyed object, a ring
 * takes them. The reader finds its records again by sequence number: no
 * two records of a queue share one, and they grow along the queue. It
 * returns the records it copied up to the first one no longer queued and
 * copies again from there.
 *
 * So a record copied out while a destroy purges it goes to exactly one
 * side, decided under the spinlock: if the reader consumed it first, it
 * counts in the events_reported the destroy returns and read() returns
 * it; if the purge dropped it first, it was never delivered (read() does
 * not return it, whatever bytes of it the copy left in the buffer past
 * what read() returns) and never counted. Either way each record leaves
 * its object's queued count once, so the count a destroy returns is
 * exactly the object's records that read() returned, and no record of the
 * object is returned by a read() that consumed after the destroy's purge.
 *
 * A record of an affiliated event remembers its object's counters (the
 * slot's owner: a CQ has one set for its async events and one for its
 * completion events) so that consuming it counts towards the object's
 * events_reported and destroying the object can purge what was not read.
 * Destroy runs after the verbs object is gone, so no new record can name
 * it by then.
 *
 * An event channel's queue gives each record extras (cookie, occurrences,
 * last timestamp) from a pool sized with the ring. In a coalescing one
 * the extras of unread records are also hashed by key (type, object or
 * port), so an event finds the record to merge into in constant time
 * from any context. A record leaves the hash once a reader has copied it,
 * so no occurrence can be added to a record the reader already has: a
 * later event then takes a new record, and the counts stay exact.
 *
 * A queue with a ring mapped to user space (ring.c) delivers without
 * read(): an event goes straight into the ring while it has room and no
 * older record waits here; otherwise it waits here as for a reader, and
 * ib_async_evq_ring_wait() moves it on. The ring always holds a prefix of
 * the stream, so order is kept, and loss is accounted here as before. The
 * program's consumer index is read, never trusted: a value that makes no
 * sense only makes the ring look full.
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "evq.h"

#define CREATE_TRACE_POINTS
#include "ib_async_trace.h"

/* What an event channel's extras cost lives beside the ring, not in it. */
static_assert(sizeof(struct ib_async_slot) ==
	      sizeof(struct ib_async_event) + sizeof(void *));

/* Records one read() snapshots at a time. */
#define IB_ASYNC_BOUNCE_RECS	32

/* Queue ids for tracing and fdinfo: never reused while the module lives. */
static atomic64_t ib_async_evq_ids = ATOMIC64_INIT(0);

/*
 * The ring's slots, and why no record ever needs more (the rst's "The
 * queue's bound" says the same):
 *
 *  - the room, cap + 1 slots, holds events and overflow records (nroom):
 *    an event is queued only while nroom < cap, so one slot is always
 *    left for the overflow record at the point where a full queue first
 *    loses one, and an overflow record opens only while nroom <= cap;
 *  - state records have state_slots of their own (nstate), a snapshot
 *    being reserved only if all its records fit;
 *  - a loss that finds the room full and the tail no overflow record
 *    (a snapshot's record is the tail) opens none: it is kept aside and
 *    becomes an overflow record at the tail once the room has a slot.
 *    While it waits nothing else is appended (events are lost into it,
 *    snapshots are refused), so the tail is still its point;
 *  - at the end of the stream, that loss (if still kept aside) and the
 *    end record have one slot each.
 *
 * Every append checks the bound all the same (evq_append()).
 */
static u32 evq_slots(u32 cap, u32 state_slots)
{
	return cap + 1 + state_slots + 2;
}

static struct ib_async_slot *evq_slot(struct ib_async_evq *q, u32 i)
{
	return &q->ring[(q->head + i) % evq_slots(q->cap, q->state_slots)];
}

static struct ib_async_event *evq_at(struct ib_async_evq *q, u32 i)
{
	return &evq_slot(q, i)->rec;
}

static struct ib_async_slot *evq_alloc_ring(u32 cap, u32 state_slots)
{
	return kvcalloc(evq_slots(cap, state_slots),
			sizeof(struct ib_async_slot), GFP_KERNEL_ACCOUNT);
}

/*
 * Extras for every record but an overflow one: at most cap events (the
 * room's spare slot takes only an overflow record), the end and the
 * state records.
 */
static u32 evq_nx(u32 cap, u32 state_slots)
{
	return cap + 1 + state_slots;
}

/* Hash chains of a coalescing queue: about one record per chain if full. */
static u32 evq_bucket_bits(u32 cap)
{
	return max(1, ilog2(roundup_pow_of_two(evq_nx(cap, 0))));
}

/* An event channel's extras, and for coalescing their hash chains. */
struct evq_xtab {
	struct ib_async_evx *xs;
	u32 *buckets;
	u32 bits;
};

static int evq_alloc_x(u32 cap, u32 state_slots, unsigned int flags,
		       struct evq_xtab *t)
{
	memset(t, 0, sizeof(*t));
	if (!(flags & IB_ASYNC_EVQ_CHAN))
		return 0;
	t->xs = kvcalloc(evq_nx(cap, state_slots), sizeof(*t->xs),
			 GFP_KERNEL_ACCOUNT);
	if (!t->xs)
		return -ENOMEM;
	if (flags & IB_ASYNC_EVQ_COALESCE) {
		t->bits = evq_bucket_bits(cap);
		t->buckets = kvcalloc(1U << t->bits, sizeof(*t->buckets),
				      GFP_KERNEL_ACCOUNT);
		if (!t->buckets) {
			kvfree(t->xs);
			t->xs = NULL;
			return -ENOMEM;
		}
	}
	return 0;
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

/* Put extras [from, nx) on the free list. */
static void evq_x_free_from(struct ib_async_evq *q, u32 from)
{
	u32 nx = evq_nx(q->cap, q->state_slots), i;

	q->x_free = from < nx ? from + 1 : 0;
	q->x_used = from;
	for (i = from; i < nx; i++)
		q->xs[i].next = i + 1 < nx ? i + 2 : 0;
}

/* @x: 1 + an index; only records that have extras (x != 0) come here. */
static struct ib_async_evx *evq_x(struct ib_async_evq *q, u32 x)
{
	return &q->xs[x - 1];
}

/* What coalescing compares: the event's type and object, or port. */
static u64 evq_key(const struct ib_async_event *ev)
{
	u32 id = ev->obj_type == IB_ASYNC_OBJ_PORT ? ev->port_num :
						    ev->obj_handle;

	return (u64)(u16)ev->event_type << 48 | (u64)(u16)ev->obj_type << 32 |
	       id;
}

static u32 *evq_chain(u32 *buckets, u32 bits, u64 key)
{
	return &buckets[hash_64(key, bits)];
}

/*
 * The unread, uncopied record of @key in a coalescing queue that carries
 * @cookie: 1 + index. Only a record of the same subscription takes the
 * event, as each record says which subscription it matched: after a
 * subscription ends, another's events of the same key take a record of
 * their own.
 */
static u32 evq_x_find(struct ib_async_evq *q, u64 key, u64 cookie)
{
	struct ib_async_evx *e;
	u32 x;

	lockdep_assert_held(&q->lock);
	for (x = *evq_chain(q->buckets, q->bucket_bits, key); x; x = e->next) {
		e = evq_x(q, x);
		if (e->key == key && e->cookie == cookie)
			return x;
	}
	return 0;
}

static void evq_x_hash(u32 *buckets, u32 bits, struct ib_async_evx *e, u32 x)
{
	u32 *chain = evq_chain(buckets, bits, e->key);

	e->next = *chain;
	e->hashed = true;
	*chain = x;
}

static void evq_x_unhash(struct ib_async_evq *q, u32 x)
{
	struct ib_async_evx *e = evq_x(q, x);
	u32 *p = evq_chain(q->buckets, q->bucket_bits, e->key);

	while (*p != x)
		p = &evq_x(q, *p)->next;
	*p = e->next;
	e->hashed = false;
}

/*
 * Extras for a record of @ev entering an event channel: 1 + index, or 0
 * (with a WARN) if the pool is empty, which the bound of evq_slots()
 * rules out: the caller then does not queue the record.
 */
static u32 evq_x_get(struct ib_async_evq *q, const struct ib_async_event *ev,
		     u64 cookie)
{
	struct ib_async_evx *e;
	u32 x = q->x_free;

	lockdep_assert_held(&q->lock);
	if (WARN_ON_ONCE(!x))
		return 0;
	e = evq_x(q, x);
	q->x_free = e->next;
	q->x_used++;
	e->cookie = cookie;
	e->occurrences = 1;
	e->last_ns = ev->timestamp_ns;
	e->key = evq_key(ev);
	e->next = 0;
	e->hashed = false;
	e->state = 0;
	/* A stream's end, and a snapshot's record, merge with nothing. */
	if (q->buckets && ev->event_type != IB_ASYNC_EV_DEVICE_FATAL &&
	    ev->event_type != IB_ASYNC_EV_STATE)
		evq_x_hash(q->buckets, q->bucket_bits, e, x);
	return x;
}

/*
 * A resync queue whose overflow asks for a snapshot, with room for one:
 * have the channel take it (in process context: the ports are queried).
 */
static void evq_resync_check(struct ib_async_evq *q)
{
	lockdep_assert_held(&q->lock);
	if (q->flags & IB_ASYNC_EVQ_RESYNC && q->resync_wanted &&
	    !q->nstate && !q->pend_count && !q->ended && q->resync)
		q->resync(q);
}

/* A record left the queue: its extras, and port state, are free again. */
static void evq_x_put(struct ib_async_evq *q, u32 x)
{
	struct ib_async_evx *e = evq_x(q, x);

	lockdep_assert_held(&q->lock);
	if (e->hashed)
		evq_x_unhash(q, x);
	e->next = q->x_free;
	q->x_free = x;
	q->x_used--;
	if (e->state) {
		q->states[e->state - 1].used = false;
		e->state = 0;
		q->nstate--;
		evq_resync_check(q);
	}
}

/* Bytes of one record, as the reader gets it, in the bounce buffer. */
static struct ib_async_event *evq_bounce(struct ib_async_evq *q, u32 i)
{
	return q->bounce + (size_t)i * q->rec_size;
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
	q->delivered++;
	ib_async_stat_add(q->stats, IB_ASYNC_STAT_READ, 1);
	trace_ib_async_dequeue(q->id, rec);
}

/*
 * Which part of the ring a record counts against (see evq_slots()). Only
 * the queue makes overflow and state records, and a DEVICE_FATAL always
 * ends the stream (evq_add()), so the type tells.
 */
static bool evq_in_room(const struct ib_async_event *rec)
{
	return rec->event_type != IB_ASYNC_EV_STATE &&
	       rec->event_type != IB_ASYNC_EV_DEVICE_FATAL;
}

/*
 * The slot for one more record at the tail, or NULL, with a WARN, if the
 * ring has none: the bound of evq_slots() rules that out, and a broken
 * bound must cost a record, never a live record written over.
 */
static struct ib_async_slot *evq_append(struct ib_async_evq *q)
{
	lockdep_assert_held(&q->lock);
	if (WARN_ON_ONCE(q->len >= evq_slots(q->cap, q->state_slots)))
		return NULL;
	return evq_slot(q, q->len++);
}

static bool evq_tail_is_overflow(struct ib_async_evq *q)
{
	return q->len &&
	       evq_at(q, q->len - 1)->event_type == IB_ASYNC_EV_OVERFLOW;
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
 * Records in the ring the program has not consumed, as far as the kernel
 * can tell: a consumer index ahead of the producer or more than the ring
 * behind it makes no sense, and counts as a full ring. The acquire orders
 * the program's reads of the records it consumed before any overwrite.
 */
static u32 evq_ring_used(const struct ib_async_uring *r)
{
	/* pairs with the program's release store of the consumer index */
	u32 used = r->prod - smp_load_acquire(&r->hdr->consumer);

	return min(used, r->mask + 1);
}

static u32 evq_ring_room(const struct ib_async_uring *r)
{
	return r->mask + 1 - evq_ring_used(r);
}

/* Where the next record goes. */
static void *evq_ring_next(const struct ib_async_uring *r)
{
	return r->recs + (size_t)(r->prod & r->mask) * r->rec_size;
}

/* The record at evq_ring_next() is complete: let the program see it. */
static void evq_ring_publish(struct ib_async_uring *r)
{
	r->prod++;
	/* pairs with the program's acquire load: the record comes first */
	smp_store_release(&r->hdr->producer, r->prod);
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

/*
 * The record of @slot as a reader gets it, at @to. An event channel's
 * record leaves the coalescing hash here: once the reader may have it,
 * its occurrences must not change.
 */
static void evq_copy_out(struct ib_async_evq *q, void *to,
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
static u32 evq_index_after(struct ib_async_evq *q, u64 seq)
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

/* The head record was consumed: release what it held. */
static void evq_pop(struct ib_async_evq *q)
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

/**
 * ib_async_evq_state_begin - start a snapshot of a state queue
 * @q: the queue
 *
 * Holds move_mutex until ib_async_evq_state_end(): no reader, ring fill,
 * purge or resize moves records meanwhile, so the records reserved stay
 * where they are, unseen, until their state is filled in. The time is
 * bounded (the ports are queried), and no copy to user memory waits for
 * it.
 */
void ib_async_evq_state_begin(struct ib_async_evq *q)
{
	mutex_lock(&q->move_mutex);
}

/**
 * ib_async_evq_state_reserve - a snapshot's records, at this point
 * @q: a state queue, between ib_async_evq_state_begin() and _end(), locked
 *	with ib_async_evq_lock()
 * @ports: the ports the records are of, 0 for the device
 * @cookies: each record's cookie
 * @n: how many
 * @flags: IB_ASYNC_STATE_RESYNC or 0
 * @first_seq: out: the first record's sequence number; the others follow
 *
 * The records take the next sequence numbers and the room state records
 * have beside the events, so they are never lost to a full queue; their
 * state comes from ib_async_evq_state_fill().
 *
 * Return: 0, -EIO once the stream ended, -EBUSY if the room holds the
 * records of an earlier snapshot that are still unread, or a loss waits
 * for room in a full queue (a reader makes it); for a resync
 * (@flags), -EALREADY if no overflow awaits one, -ENOENT if @n is 0 (no
 * subscription covers a port: the overflow needs none).
 */
int ib_async_evq_state_reserve(struct ib_async_evq *q, const u32 *ports,
			       const u64 *cookies, u32 n, u32 flags,
			       u64 *first_seq)
{
	struct ib_async_event rec = {
		.timestamp_ns = ktime_get_ns(),
		.count = 1,
		.event_type = IB_ASYNC_EV_STATE,
		.obj_type = IB_ASYNC_OBJ_PORT,
	};
	struct ib_async_slot *slot;
	struct ib_async_evx *e;
	u32 i, k = 0;

	lockdep_assert_held(&q->move_mutex);
	lockdep_assert_held(&q->lock);
	if (q->ended)
		return -EIO;
	if (flags & IB_ASYNC_STATE_RESYNC) {
		/* one snapshot answers every overflow before it */
		if (!q->resync_wanted)
			return -EALREADY;
		if (!n) {
			q->resync_wanted = false;
			return -ENOENT;
		}
	}
	/*
	 * A loss kept aside must take its place in the stream first: the
	 * snapshot waits until a reader has made room for it (a resync is
	 * asked for again then).
	 */
	if (!n || q->nstate + n > q->state_slots || q->pend_count)
		return -EBUSY;
	/* the bound of evq_slots() and the extras pool have room for them */
	if (WARN_ON_ONCE(q->len + n > evq_slots(q->cap, q->state_slots) ||
			 q->x_used + n > evq_nx(q->cap, q->state_slots)))
		return -EBUSY;
	if (flags & IB_ASYNC_STATE_RESYNC)
		q->resync_wanted = false;
	*first_seq = q->next_seq;
	for (i = 0; i < n; i++) {
		rec.element = ports[i];
		rec.port_num = ports[i];
		rec.seq = q->next_seq++;
		slot = evq_append(q);
		slot->rec = rec;
		slot->x = evq_x_get(q, &rec, cookies[i]);
		e = evq_x(q, slot->x);
		while (q->states[k].used)
			k++;
		q->states[k].used = true;
		memset(&q->states[k].st, 0, sizeof(q->states[k].st));
		q->states[k].st.flags = flags |
					(i == n - 1 ? IB_ASYNC_STATE_LAST : 0);
		e->state = k + 1;
		q->nstate++;
		evq_queued(q, &slot->rec);
	}
	return 0;
}

/**
 * ib_async_evq_state_fill - the state of the records reserved
 * @q: the queue, between ib_async_evq_state_begin() and _end()
 * @first_seq: what ib_async_evq_state_reserve() gave
 * @st: the records' states, in their order; flags are added to the
 *	record's own
 * @n: how many
 */
void ib_async_evq_state_fill(struct ib_async_evq *q, u64 first_seq,
			     const struct ib_async_port_state *st, u32 n)
{
	struct ib_async_port_state *to;
	struct ib_async_slot *slot;
	unsigned long flags;
	u32 i, at, f;

	lockdep_assert_held(&q->move_mutex);
	spin_lock_irqsave(&q->lock, flags);
	at = evq_index_after(q, first_seq - 1);
	for (i = 0; i < n && at + i < q->len; i++) {
		slot = evq_slot(q, at + i);
		/* nothing moves them: under move_mutex they are still here */
		if (WARN_ON_ONCE(slot->rec.seq != first_seq + i ||
				 slot->rec.event_type != IB_ASYNC_EV_STATE))
			break;
		to = &q->states[evq_x(q, slot->x)->state - 1].st;
		f = to->flags;
		*to = st[i];
		to->flags |= f;
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * ib_async_evq_state_end - the snapshot's records are complete
 * @q: the queue
 */
void ib_async_evq_state_end(struct ib_async_evq *q)
{
	mutex_unlock(&q->move_mutex);
	evq_wake(q);
}

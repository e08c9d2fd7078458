/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the event queue's files share (evq.c, evq_x.c, evq_read.c,
 * evq_state.c, and ring.c's fill and wait): the ring's geometry, its
 * records' extras and the steps each file takes for the others. The rest
 * of the core sees only evq.h. Documentation/ib_async.rst ("The queue's
 * design") says how the parts fit together.
 */
#ifndef IB_ASYNC_EVQ_PRIV_H
#define IB_ASYNC_EVQ_PRIV_H

#include "evq.h"

/* Records one read() snapshots at a time. */
#define IB_ASYNC_BOUNCE_RECS	32

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
static inline u32 evq_slots(u32 cap, u32 state_slots)
{
	return cap + 1 + state_slots + 2;
}

static inline struct ib_async_slot *evq_slot(struct ib_async_evq *q, u32 i)
{
	return &q->ring[(q->head + i) % evq_slots(q->cap, q->state_slots)];
}

static inline struct ib_async_event *evq_at(struct ib_async_evq *q, u32 i)
{
	return &evq_slot(q, i)->rec;
}

/*
 * Extras for every record but an overflow one: at most cap events (the
 * room's spare slot takes only an overflow record), the end and the
 * state records.
 */
static inline u32 evq_nx(u32 cap, u32 state_slots)
{
	return cap + 1 + state_slots;
}

/* @x: 1 + an index; only records that have extras (x != 0) come here. */
static inline struct ib_async_evx *evq_x(struct ib_async_evq *q, u32 x)
{
	return &q->xs[x - 1];
}

/* Bytes of one record, as the reader gets it, in the bounce buffer. */
static inline struct ib_async_event *evq_bounce(struct ib_async_evq *q, u32 i)
{
	return q->bounce + (size_t)i * q->rec_size;
}

/*
 * Which part of the ring a record counts against (see evq_slots()). Only
 * the queue makes overflow and state records, and a DEVICE_FATAL always
 * ends the stream (evq_add()), so the type tells.
 */
static inline bool evq_in_room(const struct ib_async_event *rec)
{
	return rec->event_type != IB_ASYNC_EV_STATE &&
	       rec->event_type != IB_ASYNC_EV_DEVICE_FATAL;
}

static inline bool evq_tail_is_overflow(struct ib_async_evq *q)
{
	return q->len &&
	       evq_at(q, q->len - 1)->event_type == IB_ASYNC_EV_OVERFLOW;
}

/*
 * Records in the ring the program has not consumed, as far as the kernel
 * can tell: a consumer index ahead of the producer or more than the ring
 * behind it makes no sense, and counts as a full ring. The acquire orders
 * the program's reads of the records it consumed before any overwrite.
 */
static inline u32 evq_ring_used(const struct ib_async_uring *r)
{
	/* pairs with the program's release store of the consumer index */
	u32 used = r->prod - smp_load_acquire(&r->hdr->consumer);

	return min(used, r->mask + 1);
}

static inline u32 evq_ring_room(const struct ib_async_uring *r)
{
	return r->mask + 1 - evq_ring_used(r);
}

/* Where the next record goes. */
static inline void *evq_ring_next(const struct ib_async_uring *r)
{
	return r->recs + (size_t)(r->prod & r->mask) * r->rec_size;
}

/* The record at evq_ring_next() is complete: let the program see it. */
static inline void evq_ring_publish(struct ib_async_uring *r)
{
	r->prod++;
	/* pairs with the program's acquire load: the record comes first */
	smp_store_release(&r->hdr->producer, r->prod);
}

/* An event channel's extras, and for coalescing their hash chains. */
struct evq_xtab {
	struct ib_async_evx *xs;
	u32 *buckets;
	u32 bits;
};

/* evq_x.c: an event channel's extras, their hash, the resync's trigger */
u32 evq_bucket_bits(u32 cap);
int evq_alloc_x(u32 cap, u32 state_slots, unsigned int flags,
		struct evq_xtab *t);
void evq_x_free_from(struct ib_async_evq *q, u32 from);
u64 evq_key(const struct ib_async_event *ev);
u32 evq_x_find(struct ib_async_evq *q, u64 key, u64 cookie);
void evq_x_hash(u32 *buckets, u32 bits, struct ib_async_evx *e, u32 x);
void evq_x_unhash(struct ib_async_evq *q, u32 x);
u32 evq_x_get(struct ib_async_evq *q, const struct ib_async_event *ev,
	      u64 cookie);
void evq_resync_check(struct ib_async_evq *q);
void evq_x_put(struct ib_async_evq *q, u32 x);

/* evq.c: the queue's storage, its producers, resize and purge */
void evq_wake(struct ib_async_evq *q);
void evq_queued(struct ib_async_evq *q, const struct ib_async_event *rec);
void evq_dequeued(struct ib_async_evq *q,
		  const struct ib_async_event *rec);
struct ib_async_slot *evq_append(struct ib_async_evq *q);
void evq_pop(struct ib_async_evq *q);

/* evq_read.c: the reader's protocol */
void evq_copy_out(struct ib_async_evq *q, void *to,
		  struct ib_async_slot *slot);
u32 evq_index_after(struct ib_async_evq *q, u64 seq);
bool evq_readable(struct ib_async_evq *q);

#endif /* IB_ASYNC_EVQ_PRIV_H */

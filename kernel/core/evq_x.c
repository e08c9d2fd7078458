// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * An event channel's extras: what a record has beyond the event (cookie,
 * occurrences, last timestamp, a state record's port state), from a pool
 * sized with the ring, and in a coalescing channel the hash of the unread
 * records' keys that an event merges through in constant time, from any
 * context. A record leaves the hash once a reader has copied it, so no
 * occurrence is ever added to what a reader has.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "evq_priv.h"

/* Hash chains of a coalescing queue: about one record per chain if full. */
u32 evq_bucket_bits(u32 cap)
{
	return max(1, ilog2(roundup_pow_of_two(evq_nx(cap, 0))));
}

int evq_alloc_x(u32 cap, u32 state_slots, unsigned int flags,
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

/* Put extras [from, nx) on the free list. */
void evq_x_free_from(struct ib_async_evq *q, u32 from)
{
	u32 nx = evq_nx(q->cap, q->state_slots), i;

	q->x_free = from < nx ? from + 1 : 0;
	q->x_used = from;
	for (i = from; i < nx; i++)
		q->xs[i].next = i + 1 < nx ? i + 2 : 0;
}

/* What coalescing compares: the event's type and object, or port. */
u64 evq_key(const struct ib_async_event *ev)
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
u32 evq_x_find(struct ib_async_evq *q, u64 key, u64 cookie)
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

void evq_x_hash(u32 *buckets, u32 bits, struct ib_async_evx *e, u32 x)
{
	u32 *chain = evq_chain(buckets, bits, e->key);

	e->next = *chain;
	e->hashed = true;
	*chain = x;
}

void evq_x_unhash(struct ib_async_evq *q, u32 x)
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
u32 evq_x_get(struct ib_async_evq *q, const struct ib_async_event *ev,
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
void evq_resync_check(struct ib_async_evq *q)
{
	lockdep_assert_held(&q->lock);
	if (q->flags & IB_ASYNC_EVQ_RESYNC && q->resync_wanted &&
	    !q->nstate && !q->pend_count && !q->ended && q->resync)
		q->resync(q);
}

/* A record left the queue: its extras, and port state, are free again. */
void evq_x_put(struct ib_async_evq *q, u32 x)
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

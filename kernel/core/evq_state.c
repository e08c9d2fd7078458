// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A state queue's snapshots: records reserved at one point of the stream,
 * in the room state records have beside the events, and filled in with
 * their ports' state before any reader sees them (the snapshot holds
 * move_mutex meanwhile). evchan.c decides what a snapshot covers and
 * state.c queries the ports.
 */
#include <linux/ktime.h>

#include "evq_priv.h"

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
		/* checked above: were the bound broken, a shorter snapshot */
		slot = evq_append(q);
		if (!slot)
			break;
		slot->rec = rec;
		slot->x = evq_x_get(q, &rec, cookies[i]);
		if (!slot->x) {
			q->len--;
			break;
		}
		e = evq_x(q, slot->x);
		while (k < q->state_slots && q->states[k].used)
			k++;
		if (WARN_ON_ONCE(k == q->state_slots)) {
			evq_x_put(q, slot->x);
			q->len--;
			break;
		}
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

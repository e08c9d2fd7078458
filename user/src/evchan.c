// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event channels (<infiniband/ib_async.h>). Each is a file the kernel
 * makes on the context's file (IB_ASYNC_IOC_CREATE_CHANNEL of type
 * IB_ASYNC_CHANNEL_EVENT) and fills with the context's async events that
 * its subscriptions match. Subscriptions are requests to the context's
 * file naming the channel by descriptor, and objects by the handle the
 * kernel gave them, which the rdma-core object keeps in its handle field.
 *
 * Records are consumed as they are read: unlike the context's own queue,
 * nothing waits for them to be acknowledged. Where the node offers rings,
 * a channel's is mapped at its first ibasync_get_events() (after the
 * program had the chance to size the queue, which the ring takes as its
 * size) and records are taken from it without system calls; otherwise
 * each call is one READ_BATCH. A coalescing channel gets no ring: its
 * records change while queued, and the kernel refuses. A state channel's
 * records are larger, read here too; what they carry is kept by
 * evchan_state.c, which calls nothing of this file.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/ib_async.h>
#include <infiniband/ib_async_shim.h>

#include "cmd.h"
#include "ibasync.h"

#define CHANNEL_FLAGS	(IBASYNC_CHANNEL_NONBLOCK | IBASYNC_CHANNEL_COALESCE | \
			 IBASYNC_CHANNEL_STATE | IBASYNC_CHANNEL_RESYNC)
#define STATE_FLAGS	(IBASYNC_CHANNEL_STATE | IBASYNC_CHANNEL_RESYNC)
#define SUB_FLAGS	(IBASYNC_SUB_TYPES | IBASYNC_SUB_PORT | \
			 IBASYNC_SUB_OBJECT | IBASYNC_SUB_STATE)
#define SUB_TYPE_BITS	(IBASYNC_EVENT_TYPE_BIT(IBASYNC_EVENT_TYPE_MAX + 1) - 1)

/* The public names are the uAPI's, so that they can be passed on as is. */
_Static_assert(IBASYNC_EVENT_TYPE_MAX == IB_ASYNC_EV_DEVICE_SPEED_CHANGE,
	       "subscribable types are the kernel's");
_Static_assert((int)IBASYNC_SUB_TYPES == (int)IB_ASYNC_SUB_TYPES &&
	       (int)IBASYNC_SUB_PORT == (int)IB_ASYNC_SUB_PORT &&
	       (int)IBASYNC_SUB_OBJECT == (int)IB_ASYNC_SUB_OBJECT,
	       "subscription flags are the uAPI's");
/*
 * ibasync_get_events() has the kernel write its records into the
 * caller's array, then turns them into public ones in place, last first:
 * that needs a public record at least as large as the kernel's.
 */
_Static_assert(sizeof(struct ibasync_event) >=
	       sizeof(struct ib_async_chan_event),
	       "public records hold the kernel's in place");
_Static_assert(sizeof(((struct ibasync_event *)0)->element) ==
	       sizeof(((struct ibv_async_event *)0)->element),
	       "element as struct ibv_async_event has it");

struct ibasync_chan_list *ibasync_chan_list_new(void)
{
	struct ibasync_chan_list *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	l->refs = 1;	/* the context's */
	return l;
}

void ibasync_chan_list_put(struct ibasync_chan_list *l)
{
	bool last;

	pthread_mutex_lock(&l->lock);
	last = !--l->refs;
	pthread_mutex_unlock(&l->lock);
	if (!last)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static void chan_list_add(struct ibasync_chan_list *l,
			  struct ibasync_channel *ch)
{
	pthread_mutex_lock(&l->lock);
	l->refs++;
	ch->list = l;
	ch->next = l->head;
	if (l->head)
		l->head->pprev = &ch->next;
	ch->pprev = &l->head;
	l->head = ch;
	pthread_mutex_unlock(&l->lock);
}

static void chan_list_del(struct ibasync_channel *ch)
{
	struct ibasync_chan_list *l = ch->list;

	pthread_mutex_lock(&l->lock);
	*ch->pprev = ch->next;
	if (ch->next)
		ch->next->pprev = ch->pprev;
	pthread_mutex_unlock(&l->lock);
	ibasync_chan_list_put(l);
}

/*
 * After the kernel destroyed an object of the list's context: its records
 * in the channels' rings must not be handed out any more (the kernel
 * purged only those still in its queues). Called with the context's
 * ev_lock held; each channel's lock keeps its consumer still meanwhile.
 */
void ibasync_chan_list_mark(struct ibasync_chan_list *l, uint32_t obj_type,
			    uint32_t handle)
{
	struct ibasync_channel *ch;

	pthread_mutex_lock(&l->lock);
	for (ch = l->head; ch; ch = ch->next) {
		pthread_mutex_lock(&ch->lock);
		/* a ring this process cannot map hands out nothing */
		if (ch->ring.hdr && !ibasync_ring_check(&ch->ring))
			ibasync_ring_mark(&ch->ring, obj_type, handle);
		pthread_mutex_unlock(&ch->lock);
	}
	pthread_mutex_unlock(&l->lock);
}

IBASYNC_EXPORT struct ibasync_channel *
ibasync_create_channel(struct ibv_context *context, unsigned int flags)
{
	uint32_t kflags = 0;
	struct ibasync_channel *ch;
	int err;

	if (!context || flags & ~CHANNEL_FLAGS ||
	    (flags & STATE_FLAGS) == IBASYNC_CHANNEL_RESYNC) {
		errno = EINVAL;
		return NULL;
	}
	if (!to_ibasync_ctx(context)->evchan ||
	    (flags & STATE_FLAGS && !to_ibasync_ctx(context)->state)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (flags & IBASYNC_CHANNEL_NONBLOCK)
		kflags |= IB_ASYNC_CHANNEL_NONBLOCK;
	if (flags & IBASYNC_CHANNEL_COALESCE)
		kflags |= IB_ASYNC_CHANNEL_COALESCE;
	if (flags & IBASYNC_CHANNEL_STATE)
		kflags |= IB_ASYNC_CHANNEL_STATE;
	if (flags & IBASYNC_CHANNEL_RESYNC)
		kflags |= IB_ASYNC_CHANNEL_RESYNC;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	if (flags & IBASYNC_CHANNEL_STATE) {
		ch->keep = ibasync_state_keep_new();
		if (!ch->keep) {
			free(ch);
			return NULL;
		}
	}
	err = ibasync_cmd_create_channel(context->cmd_fd, IB_ASYNC_CHANNEL_EVENT,
					 kflags, &ch->fd);
	if (err) {
		ibasync_state_keep_free(ch->keep);
		free(ch);
		errno = err;
		return NULL;
	}
	ch->context = context;
	pthread_mutex_init(&ch->lock, NULL);
	ch->ring_ok = to_ibasync_ctx(context)->ring_ok &&
		      !(flags & IBASYNC_CHANNEL_COALESCE);
	chan_list_add(to_ibasync_ctx(context)->chans, ch);
	return ch;
}

/*
 * Closing the descriptor ends the channel and its subscriptions; records
 * not read are gone with it. Off the list first, so that no destroy is
 * marking its ring when it goes.
 */
IBASYNC_EXPORT int ibasync_destroy_channel(struct ibasync_channel *channel)
{
	if (!channel)
		return ibasync_err(EINVAL);
	chan_list_del(channel);
	ibasync_ring_unmap(&channel->ring);
	close(channel->fd);
	pthread_mutex_destroy(&channel->lock);
	ibasync_state_keep_free(channel->keep);
	free(channel);
	return 0;
}

IBASYNC_EXPORT int ibasync_channel_fd(const struct ibasync_channel *channel)
{
	if (!channel) {
		errno = EINVAL;
		return -1;
	}
	return channel->fd;
}

IBASYNC_EXPORT int ibasync_channel_set_queue_len(struct ibasync_channel *channel,
						 unsigned int len)
{
	if (!channel || !len)
		return ibasync_err(EINVAL);
	return ibasync_cmd_set_queue_len(channel->fd, len);
}

/*
 * The kernel handle of the object @sub names, which must belong to the
 * channel's context: 0 or an errno value.
 */
static int sub_object(const struct ibasync_channel *ch,
		      const struct ibasync_subscription *sub, uint32_t *handle)
{
	struct ibv_context *owner;

	switch (sub->object_type) {
	case IBASYNC_OBJECT_CQ:
		if (!sub->object.cq)
			return EINVAL;
		owner = sub->object.cq->context;
		*handle = sub->object.cq->handle;
		break;
	case IBASYNC_OBJECT_QP:
		if (!sub->object.qp)
			return EINVAL;
		owner = sub->object.qp->context;
		*handle = sub->object.qp->handle;
		break;
	case IBASYNC_OBJECT_SRQ:
		if (!sub->object.srq)
			return EINVAL;
		owner = sub->object.srq->context;
		*handle = sub->object.srq->handle;
		break;
	case IBASYNC_OBJECT_WQ:
		if (!sub->object.wq)
			return EINVAL;
		owner = sub->object.wq->context;
		*handle = sub->object.wq->handle;
		break;
	default:
		return EINVAL;
	}
	/* handles mean something only within their own file */
	return owner == ch->context ? 0 : EINVAL;
}

/* @sub checked, and the handle of its object if any: 0 or an errno value */
static int sub_check(const struct ibasync_channel *ch,
		     const struct ibasync_subscription *sub,
		     uint32_t *obj_handle)
{
	uint32_t f = sub->flags;

	if (f & ~SUB_FLAGS)
		return EINVAL;
	/* a value without its flag is a mistake the kernel would refuse */
	if (f & IBASYNC_SUB_TYPES) {
		if (!sub->types || sub->types & ~SUB_TYPE_BITS)
			return EINVAL;
	} else if (sub->types) {
		return EINVAL;
	}
	if (!(f & IBASYNC_SUB_PORT) && sub->port_num)
		return EINVAL;
	if (!(f & IBASYNC_SUB_OBJECT) &&
	    (sub->object_type != IBASYNC_OBJECT_NONE || sub->object.cq))
		return EINVAL;
	/* a snapshot is of ports, on a channel whose records carry one */
	if (f & IBASYNC_SUB_STATE &&
	    (!ch->keep || f & IBASYNC_SUB_OBJECT))
		return EINVAL;
	*obj_handle = 0;
	return f & IBASYNC_SUB_OBJECT ? sub_object(ch, sub, obj_handle) : 0;
}

IBASYNC_EXPORT int ibasync_subscribe(struct ibasync_channel *channel,
				     const struct ibasync_subscription *sub,
				     uint32_t *sub_id)
{
	uint32_t obj_handle, id;
	int err;

	if (!channel || !sub)
		return ibasync_err(EINVAL);
	err = sub_check(channel, sub, &obj_handle);
	if (err)
		return ibasync_err(err);
	err = ibasync_cmd_subscribe(channel->context->cmd_fd, channel->fd, sub,
				    obj_handle, &id);
	if (err)
		return ibasync_err(err);
	if (sub_id)
		*sub_id = id;
	return 0;
}

IBASYNC_EXPORT int ibasync_unsubscribe(struct ibasync_channel *channel,
				       uint32_t sub_id)
{
	int err;

	if (!channel || !sub_id)
		return ibasync_err(EINVAL);
	err = ibasync_cmd_unsubscribe(channel->context->cmd_fd, channel->fd,
				      sub_id);
	return err ? ibasync_err(err) : 0;
}

/*
 * The record's event_type (low half) and port_num (high half), which sit
 * side by side: one load for the two, and the type tested in a register.
 */
static inline uint64_t rec_type_port(const struct ib_async_chan_event *k)
{
	uint64_t v;

	memcpy(&v, &k->event.event_type, sizeof(v));
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = v << 32 | v >> 32;
#endif
	return v;
}

_Static_assert(offsetof(struct ib_async_event, port_num) ==
	       offsetof(struct ib_async_event, event_type) + 4,
	       "rec_type_port() loads event_type and port_num at once");

/*
 * A channel's record as the public structure says it, every field written
 * once (no zeroing first, no copy of the record): a batch converts many of
 * them, and in an emulated guest each load and store costs a softmmu
 * lookup, so kind and event_type, side by side, are one store.
 * @type_port: rec_type_port(@k).
 */
static inline void to_public_async(const struct ib_async_chan_event *k,
				   uint64_t type_port,
				   struct ibasync_event *e)
{
	uint32_t type = (uint32_t)type_port;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t head = (uint64_t)type << 32 | IBASYNC_EVENT_ASYNC;

	memcpy(e, &head, sizeof(head));
#else
	e->kind = IBASYNC_EVENT_ASYNC;
	e->event_type = (enum ibv_event_type)type;
#endif
	ibasync_set_element(&e->element, type, k->event.element);
	e->cookie = k->cookie;
	e->occurrences = k->occurrences;
	e->lost = 0;
	e->seq = k->event.seq;
	e->timestamp_ns = k->event.timestamp_ns;
	e->last_timestamp_ns = k->last_timestamp_ns;
	e->port_num = (uint32_t)(type_port >> 32);
}

_Static_assert(offsetof(struct ibasync_event, kind) == 0 &&
	       offsetof(struct ibasync_event, event_type) == 4 &&
	       sizeof(((struct ibasync_event *)0)->event_type) == 4,
	       "to_public_async() stores kind and event_type at once");

_Static_assert(sizeof(((struct ibasync_event *)0)->element) ==
	       sizeof(((struct ibv_async_event *)0)->element),
	       "ibasync_set_element() fills both element unions");

/*
 * One test for the common case, an event: ib_async's own records are
 * from IB_ASYNC_EV_OVERFLOW on. A state record's state is not kept here.
 */
static void to_public(const struct ib_async_chan_event *k,
		      struct ibasync_event *e)
{
	uint64_t type_port = rec_type_port(k);
	uint32_t type = (uint32_t)type_port;

	if (__builtin_expect(type < IB_ASYNC_EV_OVERFLOW, 1) ||
	    (type != IB_ASYNC_EV_OVERFLOW && type != IB_ASYNC_EV_STATE)) {
		to_public_async(k, type_port, e);
		return;
	}
	if (type == IB_ASYNC_EV_STATE) {
		ibasync_state_to_public(k, e);
		return;
	}
	*e = (struct ibasync_event){
		.kind = IBASYNC_EVENT_OVERFLOW,
		.lost = k->event.count,
		.seq = k->event.seq,
		.timestamp_ns = k->event.timestamp_ns,
	};
}

/* Kernel records read per READ_BATCH on a state channel: 2 KiB of stack */
#define STATE_BATCH	16

/*
 * ibasync_get_events() on a state channel without a ring: its records
 * (struct ib_async_chan_state_event, 128 bytes) do not fit in place in
 * the caller's array as an ordinary channel's do, so one READ_BATCH of up
 * to min(@n, STATE_BATCH) of them goes into the stack (no lock: each call
 * has its own), each converted into @events, state records kept first
 * (evchan_state.c).
 */
static int state_read(struct ibasync_channel *ch, uint32_t bflags,
		      struct ibasync_event *events, int n)
{
	struct ib_async_chan_state_event buf[STATE_BATCH];
	uint32_t count = n < STATE_BATCH ? (uint32_t)n : STATE_BATCH;
	uint32_t i;

	if (ibasync_cmd_read_batch(ch->fd, bflags, 0, buf, &count))
		return -1;
	if (count > STATE_BATCH || count > (uint32_t)n) { /* never */
		errno = EIO;
		return -1;
	}
	for (i = 0; i < count; i++) {
		if (buf[i].rec.event.event_type == IB_ASYNC_EV_STATE)
			ibasync_state_keep_add(ch->keep, &buf[i]);
		to_public(&buf[i].rec, &events[i]);
	}
	return (int)count;
}

/*
 * Give the channel its ring, with its lock held: as many records as its
 * queue holds now. 1: mapped; 0: no ring (MAP_RING refused: READ_BATCH
 * stays, for good); -1 with errno: MAP_RING succeeded, so READ_BATCH is
 * refused from now on, but the mapping failed; the next call tries the
 * mmap() again.
 */
static int chan_map_ring(struct ibasync_channel *ch)
{
	struct ib_async_info info;

	if (!ch->ring_requested) {
		if (ibasync_cmd_get_info(ch->fd, &info) || !info.queue_len ||
		    ibasync_cmd_map_ring(ch->fd, info.queue_len, &ch->map)) {
			ch->ring_ok = false;
			return 0;
		}
		ch->ring_requested = true;
	}
	return ibasync_ring_mmap(ch->fd, &ch->map,
				 ch->keep ?
				 sizeof(struct ib_async_chan_state_event) :
				 sizeof(struct ib_async_chan_event),
				 &ch->ring) ? -1 : 1;
}

/*
 * Convert @count records from @k on, contiguous in the ring (no wrap),
 * into @e, skipping records of destroyed objects: @count entries of @e
 * may be written. Returns the end of what was converted. A record's
 * address moves by the stride, the output by one: no index arithmetic
 * per record.
 *
 * Every record is first converted as an event, with no branch per record
 * but the loop's: in an emulated guest each branch ends a translation
 * block, and that shows at this rate. The types are ORed meanwhile: no
 * event type reaches IB_ASYNC_EV_OVERFLOW, while an overflow record and a
 * skipped one (IBASYNC_RING_SKIP) both do, so one test afterwards tells
 * whether the run, rarely, has to be converted again one by one; that
 * is also where a state record's state is kept (@keep: a state channel's,
 * whose records are struct ib_async_chan_state_event; else NULL).
 */
static struct ibasync_event *
ring_convert(const unsigned char *k, size_t stride, uint32_t count,
	     struct ibasync_event *e, struct ibasync_state_keep *keep)
{
	const unsigned char *end = k + (size_t)count * stride, *p;
	struct ibasync_event *out = e;
	uint32_t types = 0;

	for (p = k; p != end; p += stride) {
		const struct ib_async_chan_event *rec = (const void *)p;
		uint64_t type_port = rec_type_port(rec);

		types |= (uint32_t)type_port;
		to_public_async(rec, type_port, out++);
	}
	if (__builtin_expect(types < IB_ASYNC_EV_OVERFLOW, 1))
		return out;
	/* to_public() tells an event from an overflow record itself */
	for (p = k; p != end; p += stride) {
		const struct ib_async_chan_event *rec = (const void *)p;

		if (rec->event.event_type == IBASYNC_RING_SKIP)
			continue;
		if (keep && rec->event.event_type == IB_ASYNC_EV_STATE)
			ibasync_state_keep_add(keep, (const void *)rec);
		to_public(rec, e++);
	}
	return e;
}

/*
 * Up to @n records of the ring, converted into @events, the consumer
 * moved once for all of them; records of destroyed objects are skipped.
 * *@full: the ring was full, so records may be waiting in the kernel
 * queue behind it.
 */
static int ring_take_events(struct ibasync_ring *r,
			    struct ibasync_state_keep *keep,
			    struct ibasync_event *events, int n, bool *full)
{
	/* copies: the stores into @events could alias them */
	const struct ibasync_ring ring = *r;
	uint32_t from, cons, avail, run, idx;
	struct ibasync_event *e;

	/*
	 * Converted in place: the kernel does not write a published record
	 * until it is consumed, and the library marks records only under the
	 * channel's lock, which is held. Converted again if another process
	 * sharing the ring (fork()) claimed them first.
	 */
	do {
		avail = ibasync_ring_avail(r, &from);
		*full = avail > ring.mask;
		if (!avail)
			return 0;	/* no store: the line stays shared */
		e = events;
		/*
		 * In runs that neither wrap nor can overfill @events (each
		 * record gives one entry at most); skipped records leave
		 * room, so another run follows while records remain.
		 */
		for (cons = from; avail && e < events + n;
		     cons += run, avail -= run) {
			idx = cons & ring.mask;
			run = ring.mask + 1 - idx;
			if (run > avail)
				run = avail;
			if (run > (uint32_t)(events + n - e))
				run = (uint32_t)(events + n - e);
			e = ring_convert(ring.records +
					 (size_t)idx * ring.record_size,
					 ring.record_size, run, e, keep);
		}
	} while (!ibasync_ring_claim(r, from, cons));
	return (int)(e - events);
}

/*
 * ibasync_get_events() through the ring, the channel's lock held on entry
 * if @locked (ibasync_mt_lock(): a process of one thread takes none) and
 * dropped here. An empty ring costs a RING_WAIT that does not block, so
 * that a destroy marking this ring never waits behind a sleeping reader;
 * a blocking call sleeps in poll(), unlocked, then looks again. A ring
 * that was full and did not fill the caller's array costs one too: the
 * kernel queue behind it may hold more (an overflow record, say), which
 * READ_BATCH would have returned in the same call.
 */
static int ring_get_events(struct ibasync_channel *ch,
			   struct ibasync_event *events, int n,
			   unsigned int flags, bool locked)
{
	uint32_t available;
	int got = 0, err;
	bool full;

	if (ibasync_ring_check(&ch->ring))
		return ibasync_mt_unlock_fail(&ch->lock, locked);
	for (;;) {
		got += ring_take_events(&ch->ring, ch->keep, events + got,
					n - got, &full);
		if (got == n || (got && !full))
			break;
		err = ibasync_cmd_ring_wait(ch->fd, IB_ASYNC_READ_NONBLOCK,
					    &available);
		if (!err && available)
			continue;
		if (got)	/* an error shows at the next call */
			break;
		ibasync_mt_unlock(&ch->lock, locked);
		if (ibasync_ring_wait_more(ch->fd, err,
					   flags & IBASYNC_GET_NONBLOCK))
			return -1;
		locked = ibasync_mt_lock(&ch->lock);
	}
	ibasync_mt_unlock(&ch->lock, locked);
	return got;
}

IBASYNC_EXPORT int ibasync_get_events(struct ibasync_channel *channel,
				      struct ibasync_event *events, int n,
				      unsigned int flags)
{
	uint32_t bflags = 0, count;
	struct ib_async_chan_event k;
	unsigned char *raw = (unsigned char *)events;
	uint32_t i;
	bool locked;

	if (!channel || !events || n < 1 || flags & ~IBASYNC_GET_NONBLOCK) {
		errno = EINVAL;
		return -1;
	}
	locked = ibasync_mt_lock(&channel->lock);
	if (channel->ring_ok && !channel->ring.hdr &&
	    chan_map_ring(channel) < 0)
		return ibasync_mt_unlock_fail(&channel->lock, locked);
	if (channel->ring.hdr)
		return ring_get_events(channel, events, n, flags, locked);
	ibasync_mt_unlock(&channel->lock, locked);
	if (flags & IBASYNC_GET_NONBLOCK)
		bflags |= IB_ASYNC_READ_NONBLOCK;
	if (channel->keep)
		return state_read(channel, bflags, events, n);
	count = (uint32_t)n;
	if (ibasync_cmd_read_batch(channel->fd, bflags, 0, events, &count))
		return -1;
	if (count > (uint32_t)n) {	/* the kernel never does */
		errno = EIO;
		return -1;
	}
	/*
	 * Kernel record i sits at i * sizeof(k), public record i goes at
	 * i * sizeof(*events), never before it: converting the last first,
	 * each write covers only records converted already.
	 */
	for (i = count; i-- > 0;) {
		memcpy(&k, raw + (size_t)i * sizeof(k), sizeof(k));
		to_public(&k, &events[i]);
	}
	return (int)count;
}

/*
 * Up to @n records of a mapped ring, as they are, the channel's lock held
 * if @locked and dropped here; as ring_get_events() waits.
 */
static int ring_read_records(struct ibasync_channel *ch, unsigned char *out,
			     size_t size, int n, bool nonblock, bool locked)
{
	uint32_t available;
	int got, err;

	for (;;) {
		if (ibasync_ring_check(&ch->ring))
			return ibasync_mt_unlock_fail(&ch->lock, locked);
		for (got = 0; got < n &&
		     ibasync_ring_take(&ch->ring, out + (size_t)got * size,
				       size);
		     got++)
			;
		if (got)
			break;
		err = ibasync_cmd_ring_wait(ch->fd, IB_ASYNC_READ_NONBLOCK,
					    &available);
		if (!err && available)
			continue;
		ibasync_mt_unlock(&ch->lock, locked);
		if (ibasync_ring_wait_more(ch->fd, err, nonblock))
			return -1;
		locked = ibasync_mt_lock(&ch->lock);
	}
	ibasync_mt_unlock(&ch->lock, locked);
	return got;
}

/*
 * The channel's records as the kernel writes them: from its ring where
 * ibasync_get_events() mapped one, else one read() of whole records
 * (which maps none, so a program reading only here never has a ring).
 */
IBASYNC_EXPORT int ibasync_channel_read_records(struct ibasync_channel *channel,
						void *records,
						size_t record_size, int n,
						unsigned int flags)
{
	bool nonblock = flags & IBASYNC_READ_NONBLOCK;
	uint32_t count;
	bool locked;

	if (!channel || !records || n < 1 ||
	    flags & ~IBASYNC_READ_NONBLOCK ||
	    record_size != (channel->keep ?
			    sizeof(struct ib_async_chan_state_event) :
			    sizeof(struct ib_async_chan_event))) {
		errno = EINVAL;
		return -1;
	}
	locked = ibasync_mt_lock(&channel->lock);
	if (channel->ring.hdr)
		return ring_read_records(channel, records, record_size, n,
					 nonblock, locked);
	ibasync_mt_unlock(&channel->lock, locked);
	if (nonblock && ibasync_readable_now(channel->fd))
		return -1;
	count = (uint32_t)n;
	return ibasync_cmd_read(channel->fd, records, record_size, &count) ?
	       -1 : (int)count;
}

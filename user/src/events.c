// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Reading, acknowledging and naming asynchronous events. */
#include <errno.h>
#include <unistd.h>

#include <infiniband/ib_async_shim.h>

#include "cmd.h"
#include "ibasync.h"

/*
 * One record per read(): where the node does not offer
 * IB_ASYNC_FEATURE_READ_BATCH. The kernel hands each record to exactly one
 * reader, so no lock is needed.
 *
 * Returns 0 with *rec filled, or -1 with errno from read() (EAGAIN on an
 * empty O_NONBLOCK fd, EINTR, ENODEV once the device is gone); a short or
 * empty read, which the ABI rules out, is EIO.
 */
static int read_record(int fd, struct ib_async_event *rec)
{
	ssize_t n = read(fd, rec, sizeof(*rec));

	if (n == (ssize_t)sizeof(*rec))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

/*
 * Consume what was handed out, peek the next batch. Called with ev_lock
 * held; never blocks (the caller waits in poll() without the lock, so a
 * thread destroying objects can always take it).
 */
static int fetch_batch(struct ibasync_context *c, int fd)
{
	uint32_t count = IBASYNC_BATCH;

	if (ibasync_cmd_read_batch(fd,
				   IB_ASYNC_READ_PEEK | IB_ASYNC_READ_NONBLOCK,
				   c->ev_handed, c->ev_buf, &count))
		return -1;
	c->ev_next = 0;
	c->ev_count = count;
	return 0;
}

/*
 * Up to @n records from the node's ring: taken under ev_lock, so each
 * goes to one caller and a destroy's marking (ibasync_destroy_handle())
 * sees a stable consumer; in a process of one thread neither can run
 * meanwhile, and the lock is skipped (ibasync_mt_lock()). An empty ring
 * costs one RING_WAIT, which moves what waits in the kernel queue
 * (records that came while the ring was full) and never blocks there:
 * the wait happens in poll() without the lock, unless @nonblock. Returns
 * how many (at least 1), or -1 with errno.
 */
static int ring_records(struct ibasync_context *c, int fd,
			struct ib_async_event *rec, int n, bool nonblock)
{
	uint32_t available;
	bool locked;
	int got, err;

	for (;;) {
		locked = ibasync_mt_lock(&c->ev_lock);
		if (ibasync_ring_check(&c->ev_ring))
			return ibasync_mt_unlock_fail(&c->ev_lock, locked);
		for (got = 0; got < n && ibasync_ring_take(&c->ev_ring,
							   &rec[got],
							   sizeof(*rec));
		     got++)
			;
		if (got) {
			ibasync_mt_unlock(&c->ev_lock, locked);
			return got;
		}
		err = ibasync_cmd_ring_wait(fd, IB_ASYNC_READ_NONBLOCK,
					    &available);
		ibasync_mt_unlock(&c->ev_lock, locked);
		if (!err && available)
			continue;
		if (ibasync_ring_wait_more(fd, err, nonblock))
			return -1;
	}
}

/*
 * Consume what this process handed out of its batches: a READ_BATCH of
 * count 0 only consumes. 0, or the errno; ENODEV is 0: the stream is over
 * and all of it was consumed already. ev_lock held.
 */
static int consume_handed(struct ibasync_context *c, int fd)
{
	uint32_t count = 0;

	if (!c->ev_handed ||
	    !ibasync_cmd_read_batch(fd, IB_ASYNC_READ_NONBLOCK, c->ev_handed,
				    NULL, &count))
		return 0;
	return errno == ENODEV ? 0 : errno;
}

/*
 * A fork() came: the file now has a reader in another process, and a
 * batch is peeked per process, so both would hand out its records.
 * Consume what this process handed out (the child inherited the same
 * count: consuming twice is harmless), forget the rest of the batch, which
 * is still queued in the kernel, and read() one record per call from now
 * on: the kernel gives each to one reader. ev_lock held.
 */
static void leave_batches(struct ibasync_context *c, int fd)
{
	/* failing, the queue is gone: the next read() says so */
	(void)consume_handed(c, fd);
	c->ev_next = c->ev_count = 0;
	c->ev_no_batch = true;
}

/*
 * The next record for this context: from the ring if there is one; else
 * from the batch buffer, else from a new batch, else after waiting (as a
 * blocking read would). Each record is handed to exactly one caller.
 */
static int next_record(struct ibasync_context *c, int fd,
		       struct ib_async_event *rec)
{
	int err;

	if (c->ev_ring.hdr)
		return ring_records(c, fd, rec, 1, false) < 0 ? -1 : 0;
	for (;;) {
		pthread_mutex_lock(&c->ev_lock);
		if (!c->ev_no_batch &&
		    __atomic_load_n(&ibasync_forked, __ATOMIC_RELAXED))
			leave_batches(c, fd);
		if (c->ev_next == c->ev_count && !c->ev_no_batch &&
		    fetch_batch(c, fd)) {
			err = errno;
			pthread_mutex_unlock(&c->ev_lock);
			if (err != EAGAIN) {
				errno = err;
				return -1;
			}
			if (ibasync_wait_readable(fd))
				return -1;
			continue;
		}
		if (c->ev_no_batch) {
			pthread_mutex_unlock(&c->ev_lock);
			return read_record(fd, rec);
		}
		if (c->ev_next == c->ev_count) {	/* an empty batch */
			pthread_mutex_unlock(&c->ev_lock);
			if (ibasync_wait_readable(fd))
				return -1;
			continue;
		}
		*rec = c->ev_buf[c->ev_next++];
		c->ev_handed = rec->seq + rec->count - 1;
		pthread_mutex_unlock(&c->ev_lock);
		return 0;
	}
}

/*
 * ibv_get_async_event() where the common case does not answer: another
 * thread, a fork(), no ring, an empty ring, an overflow or skipped record.
 * Out of line, so that the common case sets up no frame of its own.
 */
static __attribute__((noinline)) int get_async_event(struct ibasync_context *c,
						     int fd,
						     struct ibv_async_event *event)
{
	struct ib_async_event rec;

	for (;;) {
		if (next_record(c, fd, &rec))
			return -1;
		if (rec.event_type != IB_ASYNC_EV_OVERFLOW)
			break;
		/*
		 * struct ibv_async_event cannot say "N events lost": count
		 * them for ibasync_lost_events() and go on to the next record.
		 */
		atomic_fetch_add(&c->lost_events, rec.count);
	}
	ibasync_fill_event(&rec, event);
	return 0;
}

/*
 * The common case: a process of one thread that never forked, taking an
 * event from its context's mapped ring. Nothing can move the ring but this
 * call and the kernel (the reasons of ibasync_mt_lock(); a fork() would
 * have set ibasync_forked, which also covers ibasync_ring_check()), so the
 * record is read where it lies, only the two fields the caller gets, and
 * consumed with one store: the same result as ring_records() and
 * ibasync_fill_event() with a fraction of the memory accesses, which are
 * what an emulated guest pays for. Anything else is get_async_event()'s.
 */
static inline bool get_from_ring(struct ibasync_context *c,
				 struct ibv_async_event *event)
{
	const struct ibasync_ring *r = &c->ev_ring;
	struct ib_async_ring_header *hdr = r->hdr;
	const struct ib_async_event *rec;
	uint32_t cons;

	if (!__libc_single_threaded || !hdr ||
	    __atomic_load_n(&ibasync_forked, __ATOMIC_RELAXED) ||
	    !ibasync_ring_avail(r, &cons))
		return false;
	rec = ibasync_ring_rec(r, cons);
	/* one test for an overflow and a skipped record, as in evchan.c */
	if (rec->event_type >= IB_ASYNC_EV_OVERFLOW)
		return false;
	ibasync_fill_event(rec, event);
	__atomic_store_n(&hdr->consumer, cons + 1, __ATOMIC_RELEASE);
	return true;
}

IBASYNC_EXPORT int ibv_get_async_event(struct ibv_context *context,
				       struct ibv_async_event *event)
{
	struct ibasync_context *c = to_ibasync_ctx(context);

	if (__builtin_expect(get_from_ring(c, event), 1))
		return 0;
	return get_async_event(c, context->async_fd, event);
}

/*
 * The node's records as they are, for ibasync_read_records(): from the
 * ring if there is one, else one read() of whole records. What a batch
 * of ibv_get_async_event() handed out is consumed first and the rest of
 * it forgotten (it is still queued): a program that turns from one call
 * to the other sees each record once.
 */
IBASYNC_EXPORT int ibasync_read_records(struct ibv_context *context,
					struct ib_async_event *records, int n,
					unsigned int flags)
{
	bool nonblock = flags & IBASYNC_READ_NONBLOCK;
	struct ibasync_context *c;
	uint32_t count;
	int fd;

	if (!context || !records || n < 1 || flags & ~IBASYNC_READ_NONBLOCK) {
		errno = EINVAL;
		return -1;
	}
	c = to_ibasync_ctx(context);
	fd = context->async_fd;
	if (c->ev_ring.hdr)
		return ring_records(c, fd, records, n, nonblock);
	pthread_mutex_lock(&c->ev_lock);
	if (c->ev_handed || c->ev_count) {
		(void)consume_handed(c, fd);	/* failing, read() says why */
		c->ev_handed = 0;
		c->ev_next = c->ev_count = 0;
	}
	pthread_mutex_unlock(&c->ev_lock);
	if (nonblock && ibasync_readable_now(fd))
		return -1;
	count = (uint32_t)n;
	return ibasync_cmd_read(fd, records, sizeof(*records), &count) ?
	       -1 : (int)count;
}

/*
 * rdma-core's contract: the object's mutex, its events_completed counter
 * (async_events_completed for a CQ) and its cond, which a destroy waits on.
 * In a process of one thread no destroy can be waiting.
 */
static void ack_one(pthread_mutex_t *mutex, pthread_cond_t *cond,
		    uint32_t *completed)
{
	bool locked = ibasync_mt_lock(mutex);

	++*completed;
	if (locked)
		pthread_cond_signal(cond);
	ibasync_mt_unlock(mutex, locked);
}

IBASYNC_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	struct ibv_cq *cq = event->element.cq;
	struct ibv_qp *qp = event->element.qp;
	struct ibv_srq *srq = event->element.srq;
	struct ibv_wq *wq = event->element.wq;

	switch (ibasync_element_kind(event->event_type)) {
	case IBASYNC_ELEMENT_CQ:
		ack_one(&cq->mutex, &cq->cond, &cq->async_events_completed);
		return;
	case IBASYNC_ELEMENT_QP:
		ack_one(&qp->mutex, &qp->cond, &qp->events_completed);
		return;
	case IBASYNC_ELEMENT_SRQ:
		ack_one(&srq->mutex, &srq->cond, &srq->events_completed);
		return;
	case IBASYNC_ELEMENT_WQ:
		ack_one(&wq->mutex, &wq->cond, &wq->events_completed);
		return;
	case IBASYNC_ELEMENT_PORT:
		return;	/* nothing waits on unaffiliated events */
	}
}

/* Drop buffered, not yet handed-out records of a destroyed object. */
static void forget_buffered(struct ibasync_context *c, uint32_t obj_type,
			    uint32_t handle)
{
	unsigned int i, n = c->ev_next;

	for (i = c->ev_next; i < c->ev_count; i++) {
		const struct ib_async_event *r = &c->ev_buf[i];

		if (r->obj_type == obj_type && r->obj_handle == handle)
			continue;
		c->ev_buf[n++] = *r;
	}
	c->ev_count = n;
}

/*
 * ibasync_destroy_handle() on a context with a ring, ev_lock held (and
 * dropped here). A record in the ring already counts in events_reported
 * but must not be handed out once the object is gone: mark it skipped,
 * and leave it out of the acks to wait for. DESTROY first: after it, no
 * record of the object can enter any ring, so the scan misses none. The
 * context's channels are purged too, while ev_lock still keeps the
 * object's handle from being handed out anywhere.
 */
static int destroy_ring_locked(struct ibasync_context *c, uint32_t obj_type,
			       uint32_t handle, uint64_t *reported,
			       uint64_t *comp_reported)
{
	uint64_t events_reported;
	uint32_t marked;

	/* no destroy that could not then mark the object's records */
	if (ibasync_ring_check(&c->ev_ring) ||
	    ibasync_cmd_destroy(c->vctx.context.cmd_fd, obj_type, handle,
				&events_reported, comp_reported)) {
		int err = errno;

		pthread_mutex_unlock(&c->ev_lock);
		return ibasync_err(err);
	}
	/*
	 * events_reported counts every record of the object that reached
	 * the ring: with none, there is nothing to look for, and most
	 * objects (PDs, MRs, quiet QPs) cost no walk of a long ring.
	 */
	marked = events_reported ?
		 ibasync_ring_mark(&c->ev_ring, obj_type, handle) : 0;
	ibasync_chan_list_mark(c->chans, obj_type, handle);
	pthread_mutex_unlock(&c->ev_lock);
	/* the kernel counted each marked record: fewer would be a bug there */
	*reported = events_reported >= marked ? events_reported - marked : 0;
	return 0;
}

/*
 * Destroy a kernel object and learn how many of its events (and, for a
 * CQ, of its completion events, if @comp_reported) reached the program.
 * With batching, a record handed out by ibv_get_async_event() is still
 * queued (peeked) until the next fetch consumes it, and only a
 * consumed record counts in events_reported: so first consume everything
 * handed out, then destroy, then forget the buffered records the kernel
 * has just purged, all under ev_lock so that no record of the object can
 * be handed out in between and acknowledged after the object is freed;
 * the channels' rings are purged under it too (the kernel does not take
 * back what it put there).
 */
int ibasync_destroy_handle(struct ibasync_context *c, uint32_t obj_type,
			   uint32_t handle, uint64_t *reported,
			   uint64_t *comp_reported)
{
	int fd = c->vctx.context.cmd_fd, err = 0;

	pthread_mutex_lock(&c->ev_lock);
	if (c->ev_ring.hdr)
		return destroy_ring_locked(c, obj_type, handle, reported,
					   comp_reported);
	/* a failure is worth reporting rather than a destroy's wrong count */
	if (!c->ev_no_batch)
		err = consume_handed(c, fd);
	if (!err)
		err = ibasync_cmd_destroy(fd, obj_type, handle, reported,
					  comp_reported);
	if (!err && !c->ev_no_batch)
		forget_buffered(c, obj_type, handle);
	if (!err)
		ibasync_chan_list_mark(c->chans, obj_type, handle);
	pthread_mutex_unlock(&c->ev_lock);
	return err ? ibasync_err(err) : 0;
}

/* The device behind the context is gone (ib_async answers ENODEV). */
int ibasync_disassociated(struct ibasync_context *c)
{
	struct ib_async_info info;
	int saved = errno, ret;

	ret = ibasync_cmd_get_info(c->vctx.context.cmd_fd, &info) == ENODEV;
	errno = saved;
	return ret;
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Reading, acknowledging and naming asynchronous events. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ibasync.h"

/* libibverbs' mapping of event types onto ibv_async_event.element. */
enum ibasync_element_kind ibasync_element_kind(uint32_t event_type)
{
	switch (event_type) {
	case IBV_EVENT_CQ_ERR:
		return IBASYNC_ELEMENT_CQ;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return IBASYNC_ELEMENT_QP;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return IBASYNC_ELEMENT_SRQ;
	case IBV_EVENT_WQ_FATAL:
		return IBASYNC_ELEMENT_WQ;
	default:
		/* also types newer than this library: the port, as libibverbs */
		return IBASYNC_ELEMENT_PORT;
	}
}

/*
 * For affiliated events the kernel returns the user_handle the object was
 * created with; libibasync will use the object's address as user_handle, so
 * the cast gives back the pointer.
 */
void ibasync_fill_event(const struct ib_async_event *rec,
			struct ibv_async_event *event)
{
	void *obj = (void *)(uintptr_t)rec->element;

	event->event_type = (enum ibv_event_type)rec->event_type;
	switch (ibasync_element_kind(rec->event_type)) {
	case IBASYNC_ELEMENT_CQ:
		event->element.cq = obj;
		break;
	case IBASYNC_ELEMENT_QP:
		event->element.qp = obj;
		break;
	case IBASYNC_ELEMENT_SRQ:
		event->element.srq = obj;
		break;
	case IBASYNC_ELEMENT_WQ:
		event->element.wq = obj;
		break;
	case IBASYNC_ELEMENT_PORT:
		event->element.port_num = (int)rec->element;
		break;
	}
}

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
	struct ib_async_read_batch b = {
		.argsz = sizeof(b),
		.flags = IB_ASYNC_READ_PEEK | IB_ASYNC_READ_NONBLOCK,
		.consume_seq = c->ev_handed,
		.buf = (uintptr_t)c->ev_buf,
		.count = IBASYNC_BATCH,
	};

	if (ioctl(fd, IB_ASYNC_IOC_READ_BATCH, &b))
		return -1;
	c->ev_next = 0;
	c->ev_count = b.count;
	return 0;
}

/* Wait for the fd to become readable, unless it is non-blocking. */
static int wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	if (fl & O_NONBLOCK) {
		errno = EAGAIN;
		return -1;
	}
	return poll(&p, 1, -1) < 0 ? -1 : 0;
}

/*
 * The next record for this context: from the batch buffer, else from a
 * new batch, else after waiting (as a blocking read would). Each record
 * is handed to exactly one caller.
 */
static int next_record(struct ibasync_context *c, int fd,
		       struct ib_async_event *rec)
{
	int err;

	for (;;) {
		pthread_mutex_lock(&c->ev_lock);
		if (c->ev_next == c->ev_count && !c->ev_no_batch &&
		    fetch_batch(c, fd)) {
			err = errno;
			pthread_mutex_unlock(&c->ev_lock);
			if (err != EAGAIN) {
				errno = err;
				return -1;
			}
			if (wait_readable(fd))
				return -1;
			continue;
		}
		if (c->ev_no_batch) {
			pthread_mutex_unlock(&c->ev_lock);
			return read_record(fd, rec);
		}
		if (c->ev_next == c->ev_count) {	/* an empty batch */
			pthread_mutex_unlock(&c->ev_lock);
			if (wait_readable(fd))
				return -1;
			continue;
		}
		*rec = c->ev_buf[c->ev_next++];
		c->ev_handed = rec->seq + rec->count - 1;
		pthread_mutex_unlock(&c->ev_lock);
		return 0;
	}
}

IBASYNC_EXPORT int ibv_get_async_event(struct ibv_context *context,
				       struct ibv_async_event *event)
{
	struct ibasync_context *c = to_ibasync_ctx(context);
	struct ib_async_event rec;

	for (;;) {
		if (next_record(c, context->async_fd, &rec))
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
 * rdma-core's contract: the object's mutex, its events_completed counter
 * (async_events_completed for a CQ) and its cond, which a destroy waits on.
 */
static void ack_one(pthread_mutex_t *mutex, pthread_cond_t *cond,
		    uint32_t *completed)
{
	pthread_mutex_lock(mutex);
	++*completed;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(mutex);
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
 * Destroy a kernel object and learn how many of its events (and, for a
 * CQ, of its completion events, if @comp_reported) reached the program. With batching, a record handed out by ibv_get_async_event()
 * is still queued (peeked) until the next fetch consumes it, and only a
 * consumed record counts in events_reported: so first consume everything
 * handed out, then destroy, then forget the buffered records the kernel
 * has just purged, all under ev_lock so that no record of the object can
 * be handed out in between and acknowledged after the object is freed.
 */
int ibasync_destroy_handle(struct ibasync_context *c, uint32_t obj_type,
			   uint32_t handle, uint64_t *reported,
			   uint64_t *comp_reported)
{
	struct ib_async_destroy d = {
		.argsz = sizeof(d), .obj_type = obj_type, .handle = handle,
	};
	struct ib_async_read_batch b = {
		.argsz = sizeof(b), .flags = IB_ASYNC_READ_NONBLOCK,
	};
	int fd = c->vctx.context.cmd_fd, err = 0;

	pthread_mutex_lock(&c->ev_lock);
	if (!c->ev_no_batch && c->ev_handed) {
		b.consume_seq = c->ev_handed;
		/*
		 * count 0 only consumes. ENODEV: the stream is over and all
		 * of it was consumed already; anything else is a failure
		 * worth reporting rather than a destroy with a wrong count.
		 */
		if (ioctl(fd, IB_ASYNC_IOC_READ_BATCH, &b) && errno != ENODEV)
			err = errno;
	}
	if (!err && ioctl(fd, IB_ASYNC_IOC_DESTROY, &d))
		err = errno;
	if (!err && !c->ev_no_batch)
		forget_buffered(c, obj_type, handle);
	pthread_mutex_unlock(&c->ev_lock);
	if (err)
		return ibasync_err(err);
	*reported = d.events_reported;
	if (comp_reported)
		*comp_reported = d.comp_events_reported;
	return 0;
}

/* The device behind the context is gone (ib_async answers ENODEV). */
int ibasync_disassociated(struct ibasync_context *c)
{
	struct ib_async_info info = { .argsz = sizeof(info) };
	int saved = errno, ret;

	ret = ioctl(c->vctx.context.cmd_fd, IB_ASYNC_IOC_GET_INFO, &info) &&
	      errno == ENODEV;
	errno = saved;
	return ret;
}

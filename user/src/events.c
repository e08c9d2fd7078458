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
 * For affiliated events the kernel returns the cookie the object was
 * created with; libibasync will use the object's address as cookie, so
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
 * One record per read(): the fallback where the kernel has no
 * IB_ASYNC_IOC_READ_BATCH (or the fd is not an ib_async node). The kernel
 * hands each record to exactly one reader, so no lock is needed.
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
			if (err == ENOTTY)
				c->ev_no_batch = true;	/* old module */
			pthread_mutex_unlock(&c->ev_lock);
			if (err == ENOTTY)
				continue;
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

IBASYNC_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (ibasync_element_kind(event->event_type)) {
	case IBASYNC_ELEMENT_CQ:
	case IBASYNC_ELEMENT_QP:
	case IBASYNC_ELEMENT_SRQ:
	case IBASYNC_ELEMENT_WQ:
		/*
		 * No CQ/QP/SRQ/WQ can be created through libibasync yet, so
		 * no affiliated event can have been returned. Once objects
		 * exist, this is where the object's mutex is taken, its
		 * events_completed (async_events_completed for a CQ)
		 * incremented and its cond signalled, for destroy to wait on.
		 */
		return;
	case IBASYNC_ELEMENT_PORT:
		return;	/* nothing waits on unaffiliated events */
	}
}

/* rdma-core's strings, verbatim: programs compare and log them. */
static const char *const event_type_str[] = {
	[IBV_EVENT_CQ_ERR]		= "CQ error",
	[IBV_EVENT_QP_FATAL]		= "local work queue catastrophic error",
	[IBV_EVENT_QP_REQ_ERR]		= "invalid request local work queue error",
	[IBV_EVENT_QP_ACCESS_ERR]	= "local access violation work queue error",
	[IBV_EVENT_COMM_EST]		= "communication established",
	[IBV_EVENT_SQ_DRAINED]		= "send queue drained",
	[IBV_EVENT_PATH_MIG]		= "path migrated",
	[IBV_EVENT_PATH_MIG_ERR]	= "path migration request error",
	[IBV_EVENT_DEVICE_FATAL]	= "local catastrophic error",
	[IBV_EVENT_PORT_ACTIVE]		= "port active",
	[IBV_EVENT_PORT_ERR]		= "port error",
	[IBV_EVENT_LID_CHANGE]		= "LID change",
	[IBV_EVENT_PKEY_CHANGE]		= "P_Key change",
	[IBV_EVENT_SM_CHANGE]		= "SM change",
	[IBV_EVENT_SRQ_ERR]		= "SRQ catastrophic error",
	[IBV_EVENT_SRQ_LIMIT_REACHED]	= "SRQ limit reached",
	[IBV_EVENT_QP_LAST_WQE_REACHED]	= "last WQE reached",
	[IBV_EVENT_CLIENT_REREGISTER]	= "client reregistration",
	[IBV_EVENT_GID_CHANGE]		= "GID table change",
	[IBV_EVENT_WQ_FATAL]		= "WQ fatal",
};

IBASYNC_EXPORT const char *ibv_event_type_str(enum ibv_event_type event)
{
	/* unsigned: negative values are out of range too */
	unsigned int i = (unsigned int)event;

	if (i >= sizeof(event_type_str) / sizeof(event_type_str[0]) ||
	    !event_type_str[i])
		return "unknown";
	return event_type_str[i];
}

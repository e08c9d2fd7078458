/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libibasync extensions to the rdma-core verbs API.
 *
 * libibasync implements libibverbs' asynchronous events and the verbs
 * objects that raise them (ibv_get_device_list(), ibv_open_device(),
 * ibv_create_qp(), ibv_get_async_event(), ...) on top of the ib_async
 * character devices. These calls reach the ib_async features libibverbs
 * has no words for. They only accept
 * contexts opened by libibasync. See libibasync(7).
 */
#ifndef INFINIBAND_IB_ASYNC_SHIM_H
#define INFINIBAND_IB_ASYNC_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/ib_async.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fill *info with the device's and this context's queue state
 * (IB_ASYNC_IOC_GET_INFO). Returns 0, or an errno value (errno is set too).
 */
int ibasync_query(struct ibv_context *context, struct ib_async_info *info);

/*
 * Resize this context's event queue to len events (1..max_queue_len).
 * Returns 0, or an errno value (errno is set too): EINVAL for 0 or above
 * the module's max_queue_len, EBUSY if more events are queued than fit.
 */
int ibasync_set_queue_len(struct ibv_context *context, unsigned int len);

/*
 * Events ibv_get_async_event() passed over on this context because the
 * kernel queue was full (IB_ASYNC_EV_OVERFLOW records), since open.
 */
uint64_t ibasync_lost_events(struct ibv_context *context);

/* IBASYNC_1.3: what a program needs to read ib_async's own records. */

/* The sysfs class of the ib_async module, below ibasync_root_dir(). */
#define IBASYNC_CLASS_DIR	"/sys/class/ib_async"

/*
 * The directory below which libibasync looks up every sysfs and /dev
 * path: "" (the root), or the value of IBASYNC_TEST_ROOT where the
 * process may be steered by it (libibasync(7)). A program that looks at
 * ib_async's files itself prefixes their paths with it, so that it sees
 * what the library sees. Never NULL.
 */
const char *ibasync_root_dir(void);

/* Flags of ibasync_open_device(). */
enum ibasync_open_flags {
	/*
	 * No mapped event ring for the context or its channels, as
	 * IBASYNC_NO_RING does for the whole process (libibasync(7)).
	 */
	IBASYNC_OPEN_NO_RING	= 1 << 0,
};

/*
 * ibv_open_device(), with @flags. Returns NULL with errno set on failure
 * (EINVAL for an unknown flag).
 */
struct ibv_context *ibasync_open_device(struct ibv_device *device,
					unsigned int flags);

/* Flags of ibasync_read_records() and ibasync_channel_read_records(). */
enum ibasync_read_flags {
	IBASYNC_READ_NONBLOCK	= 1 << 0,	/* EAGAIN rather than wait */
};

/*
 * Up to @n of the context's records as the kernel writes them (struct
 * ib_async_event: sequence number, timestamp, object, and the overflow
 * records, IB_ASYNC_EV_OVERFLOW, with the count lost), consumed, with one
 * system call at most. Returns how many (at least 1), or -1 with errno
 * set: EAGAIN when none is ready and the call may not block (the flag,
 * or async_fd's O_NONBLOCK), EIO once the context is closed, ENODEV once
 * the device was removed, after the records queued before. Records read
 * here need no ibv_ack_async_event(), and ibv_get_async_event() does not
 * see them: a context is read one way.
 */
int ibasync_read_records(struct ibv_context *context,
			 struct ib_async_event *records, int n,
			 unsigned int flags);

struct ibasync_channel;

/*
 * The same for an event channel (<infiniband/ib_async.h>): its records
 * as the kernel writes them, struct ib_async_chan_event, or struct
 * ib_async_chan_state_event on an IBASYNC_CHANNEL_STATE channel, whose
 * size @record_size must be (else EINVAL). A state record read here is
 * not kept for ibasync_get_state(): it carries its state itself.
 */
int ibasync_channel_read_records(struct ibasync_channel *channel,
				 void *records, size_t record_size, int n,
				 unsigned int flags);

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_IB_ASYNC_SHIM_H */

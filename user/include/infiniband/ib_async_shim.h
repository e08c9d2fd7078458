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

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_IB_ASYNC_SHIM_H */

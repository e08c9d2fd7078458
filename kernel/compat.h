/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Kernel interfaces ib_async relies on that no public header declares.
 */
#ifndef IB_ASYNC_COMPAT_H
#define IB_ASYNC_COMPAT_H

#include <linux/types.h>
#include <rdma/restrack.h>

/*
 * Exported by ib_core (nldev.c) for ib_uverbs but declared only in the
 * core's private header: true when the rdma netlink "privileged-qkey"
 * setting is on or the caller has CAP_NET_RAW.
 */
bool rdma_nl_get_privileged_qkey(void);

/*
 * Exported by ib_core (restrack.c), declared in its private header: names
 * the owner that "rdma resource show" prints for a kernel-made object.
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);

#endif /* IB_ASYNC_COMPAT_H */

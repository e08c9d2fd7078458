/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What differs between the kernels ib_async builds for, decided by
 * compiling (kernel/conftest.sh, never by version numbers), and kernel
 * interfaces ib_async relies on that no public header declares. The rest
 * of the module reads as in-tree code.
 */
#ifndef IB_ASYNC_COMPAT_H
#define IB_ASYNC_COMPAT_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rdma/ib_async.h>

/* HAVE_* of the target kernel, from kernel/conftest.sh's probes */
#include "conftest.h"

/* 6.2 made struct class's devnode() take a const device. */
#ifdef HAVE_CLASS_DEVNODE_CONST
#define IB_ASYNC_DEVNODE_CONST const
#else
#define IB_ASYNC_DEVNODE_CONST
#endif

/* 6.4 made a class attribute's show() take a const class and attribute. */
#ifdef HAVE_CLASS_ATTR_CONST
#define IB_ASYNC_CLASS_ATTR_CONST const
#else
#define IB_ASYNC_CLASS_ATTR_CONST
#endif

/* 6.3 made a VMA's flags change only through helpers. */
#ifndef HAVE_VM_FLAGS_SET
#include <linux/mm.h>

static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * The GUP flags of a long-term pin for reading only, as ib_umem_get() of
 * the same kernel pins: until 6.1 a read-only pin unshares anonymous pages
 * only, so it may pin the shared zero page or a private mapping's page
 * cache page, and a later write by the process lands in a new page the
 * device never sees. ib_umem_get() there pins for writing, forced
 * (FOLL_WRITE | FOLL_FORCE), which breaks COW first. 6.2 made read-only
 * long-term pins reliable and ib_umem_get() dropped both flags.
 */
#ifdef HAVE_GUP_UNSHARE_ANON_ONLY
#define IB_ASYNC_PIN_READ_FLAGS		(FOLL_WRITE | FOLL_FORCE)
#else
#define IB_ASYNC_PIN_READ_FLAGS		0
#endif

/*
 * 7.1 removed ib_resize_cq(), which had no in-tree caller left, and
 * renamed the driver op: kernel verbs cannot resize a CQ there, and
 * IB_ASYNC_IOC_RESIZE_CQ fails with EOPNOTSUPP, as it does for a driver
 * without resize_cq. GET_INFO says which (IB_ASYNC_FEATURE_RESIZE_CQ).
 */
#ifdef HAVE_IB_RESIZE_CQ
static inline bool ib_async_can_resize_cq(struct ib_device *ib_dev)
{
	return ib_dev->ops.resize_cq;
}
#else
static inline bool ib_async_can_resize_cq(struct ib_device *ib_dev)
{
	return false;
}

static inline int ib_resize_cq(struct ib_cq *cq, int cqe)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * IB_EVENT_DEVICE_SPEED_CHANGE (7.x) has the uAPI's number; before it
 * existed no driver could raise it.
 */
static inline void ib_async_check_speed_change(void)
{
#ifdef HAVE_IB_EVENT_DEVICE_SPEED_CHANGE
	BUILD_BUG_ON((int)IB_EVENT_DEVICE_SPEED_CHANGE !=
		     (int)IB_ASYNC_EV_DEVICE_SPEED_CHANGE);
#endif
}

/*
 * Exported by ib_core (nldev.c) for ib_uverbs but declared only in the
 * core's private header: true when the rdma netlink "privileged-qkey"
 * setting is on. Until 7.x it also said true when the caller had
 * CAP_NET_RAW; since then callers ask for the capability themselves
 * (ib_uverbs in the device's network namespace, ib_async in the initial
 * one, which is as strict or stricter).
 */
bool rdma_nl_get_privileged_qkey(void);

/*
 * Exported by ib_core (restrack.c), declared in its private header: names
 * the owner that "rdma resource show" prints for a kernel-made object.
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);

/*
 * What a client's get_nl_info() fills in for rdma netlink's GET_CHARDEV.
 * ib_core declares it only in its private core_priv.h; this is its layout
 * since the callback appeared (5.4), unchanged in 6.1 and mainline, and
 * ib_async writes only @cdev and @abi, as ib_uverbs does. @port is the
 * port asked about, or U32_MAX for the whole device.
 */
struct ib_client_nl_info {
	struct sk_buff *nl_msg;
	struct device *cdev;
	u32 port;
	u64 abi;
};

#endif /* IB_ASYNC_COMPAT_H */

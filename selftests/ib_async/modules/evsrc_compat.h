/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels the test modules build for, decided by
 * compiling (kernel/conftest.sh with the probes of conftest/), never by
 * version numbers.
 */
#ifndef IB_ASYNC_EVSRC_COMPAT_H
#define IB_ASYNC_EVSRC_COMPAT_H

#include <linux/hrtimer.h>
#include <rdma/ib_verbs.h>

#include "conftest.h"

/* 6.11: a driver's create_cq() gets the attribute bundle, not the udata. */
#ifdef HAVE_CREATE_CQ_ATTRS
#define EVSRC_CREATE_CQ_ARG	uverbs_attr_bundle
#else
#define EVSRC_CREATE_CQ_ARG	ib_udata
#endif

/* 6.17: reg_user_mr() gets a DMA handle before the udata. */
#ifdef HAVE_REG_USER_MR_DMAH
#define EVSRC_REG_USER_MR_DMAH	struct ib_dmah *dmah,
#else
#define EVSRC_REG_USER_MR_DMAH
#endif

/*
 * 7.1 renamed resize_cq() to resize_user_cq() when ib_resize_cq() went:
 * only userspace can resize a CQ there, and the event source has no
 * userspace provider, so it offers no resize at all.
 */
#ifdef HAVE_OPS_RESIZE_CQ
#define EVSRC_OPS_RESIZE_CQ(fn)	.resize_cq = (fn),
#else
#define EVSRC_OPS_RESIZE_CQ(fn)
#endif

/*
 * 7.x: IB_EVENT_DEVICE_SPEED_CHANGE, an event about a port. Before, its
 * value names no kind, so a raise of it is refused.
 */
#ifdef HAVE_IB_EVENT_DEVICE_SPEED_CHANGE
#define EVSRC_SPEED_CHANGE_KIND		EVSRC_PORT
#else
#define IB_EVENT_DEVICE_SPEED_CHANGE	(IB_EVENT_WQ_FATAL + 1)
#define EVSRC_SPEED_CHANGE_KIND		EVSRC_NONE
#endif

/* 6.13 added hrtimer_setup(); 6.16 removed hrtimer_init(). */
#ifndef HAVE_HRTIMER_SETUP
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#endif /* IB_ASYNC_EVSRC_COMPAT_H */

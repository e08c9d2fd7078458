/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels the test modules build for, decided by
 * compiling (kernel/conftest.sh with the probes of conftest/), never by
 * version numbers.
 */
#ifndef IB_ASYNC_EVSRC_COMPAT_H
#define IB_ASYNC_EVSRC_COMPAT_H

#include "conftest.h"

/* 6.11: a driver's create_cq() gets the attribute bundle, not the udata. */
#ifdef HAVE_CREATE_CQ_ATTRS
#define EVSRC_CREATE_CQ_ARG	uverbs_attr_bundle
#else
#define EVSRC_CREATE_CQ_ARG	ib_udata
#endif

#endif /* IB_ASYNC_EVSRC_COMPAT_H */

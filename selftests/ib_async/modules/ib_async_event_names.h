/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the RDMA event types, indexed by their value, which is the
 * same in the kernel's enum ib_event_type, rdma-core's enum ibv_event_type
 * and the uAPI's enum ib_async_event_type: one table for the test modules,
 * which parse names written to debugfs, and the tests, which print them.
 */
#ifndef IB_ASYNC_EVENT_NAMES_H
#define IB_ASYNC_EVENT_NAMES_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#define IBA_EV(name)	IB_EVENT_##name
#else
#include <string.h>
#include <rdma/ib_async.h>
#define IBA_EV(name)	IB_ASYNC_EV_##name
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#endif

/* The name of event type @type ("PORT_ERR"), or NULL */
static inline const char *ib_async_event_name(unsigned int type)
{
	static const char *const names[] = {
		[IBA_EV(CQ_ERR)] = "CQ_ERR",
		[IBA_EV(QP_FATAL)] = "QP_FATAL",
		[IBA_EV(QP_REQ_ERR)] = "QP_REQ_ERR",
		[IBA_EV(QP_ACCESS_ERR)] = "QP_ACCESS_ERR",
		[IBA_EV(COMM_EST)] = "COMM_EST",
		[IBA_EV(SQ_DRAINED)] = "SQ_DRAINED",
		[IBA_EV(PATH_MIG)] = "PATH_MIG",
		[IBA_EV(PATH_MIG_ERR)] = "PATH_MIG_ERR",
		[IBA_EV(DEVICE_FATAL)] = "DEVICE_FATAL",
		[IBA_EV(PORT_ACTIVE)] = "PORT_ACTIVE",
		[IBA_EV(PORT_ERR)] = "PORT_ERR",
		[IBA_EV(LID_CHANGE)] = "LID_CHANGE",
		[IBA_EV(PKEY_CHANGE)] = "PKEY_CHANGE",
		[IBA_EV(SM_CHANGE)] = "SM_CHANGE",
		[IBA_EV(SRQ_ERR)] = "SRQ_ERR",
		[IBA_EV(SRQ_LIMIT_REACHED)] = "SRQ_LIMIT_REACHED",
		[IBA_EV(QP_LAST_WQE_REACHED)] = "QP_LAST_WQE_REACHED",
		[IBA_EV(CLIENT_REREGISTER)] = "CLIENT_REREGISTER",
		[IBA_EV(GID_CHANGE)] = "GID_CHANGE",
		[IBA_EV(WQ_FATAL)] = "WQ_FATAL",
		/* 20: only the uAPI and 7.x kernels have a name for it */
		[IBA_EV(WQ_FATAL) + 1] = "DEVICE_SPEED_CHANGE",
	};

	return type < ARRAY_SIZE(names) ? names[type] : NULL;
}

/* The type named @name, with or without "IB_EVENT_"; -1 for none */
static inline int ib_async_event_by_name(const char *name)
{
	const char *n;
	unsigned int t;

	if (!strncmp(name, "IB_EVENT_", 9))
		name += 9;
	for (t = 0; (n = ib_async_event_name(t)); t++)
		if (!strcmp(name, n))
			return t;
	return -1;
}

#endif /* IB_ASYNC_EVENT_NAMES_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of the RDMA event types, indexed by their value, which is the
 * same in the kernel's enum ib_event_type, rdma-core's enum ibv_event_type
 * and the uAPI's enum ib_async_event_type: for the test modules, which
 * parse names written to debugfs, and the tests, which print them. The
 * names are ib_async_event_types.h's, whose rows are in value order.
 */
#ifndef IB_ASYNC_EVENT_NAMES_H
#define IB_ASYNC_EVENT_NAMES_H

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#endif

/* relative: the test modules, the tests and the fuzzer include this */
#include "ib_async_event_types.h"

/* Each type's row in the list: its value */
#define IBA_EV_ROW(name, element)	IBA_EV_ROW_##name,
enum iba_ev_row { IB_ASYNC_EVENT_TYPES(IBA_EV_ROW) };
#undef IBA_EV_ROW

/* The name of event type @type ("PORT_ERR"), or NULL */
static inline const char *ib_async_event_name(unsigned int type)
{
#define IBA_EV_NAME(name, element)					\
	[IBA_EV_ROW_##name] = #name,
	static const char *const names[] = {
		IB_ASYNC_EVENT_TYPES(IBA_EV_NAME)
	};
#undef IBA_EV_NAME

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

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The per-device counters, the one list: the module's enum ib_async_stat
 * and its sysfs files (/sys/class/ib_async/ib_asyncN/counters/), and the
 * selftests that read them, expand it. Not uAPI: sysfs names each file.
 *
 * Each row is type(ID, name), type being the macro the user makes of a
 * row (as in ib_async_event_types.h): IB_ASYNC_STAT_<ID> in the module,
 * name the file's. What each counts, since the device appeared:
 *   events       async events the driver reported to ib_async, each once
 *                whatever the number of files it reached
 *   comp_events  completion events of CQs bound to a completion channel
 *   queued       records queues took (an event counts once per queue)
 *   read         records that reached user space and left their queue
 *   lost         events a full queue had no slot for
 *   coalesced    completion events merged into their CQ's unread record
 *   purged       unread records dropped because their object was destroyed
 */
#ifndef IB_ASYNC_COUNTERS_H
#define IB_ASYNC_COUNTERS_H

#ifndef IB_ASYNC_ROWS
/* The rows as they are (see ib_async_event_types.h) */
#define IB_ASYNC_ROWS(...)	__VA_ARGS__
#endif

#define IB_ASYNC_COUNTERS(type)						\
	IB_ASYNC_ROWS(type(EVENTS, events)				\
		      type(COMP_EVENTS, comp_events)			\
		      type(QUEUED, queued)				\
		      type(READ, read)					\
		      type(LOST, lost)					\
		      type(COALESCED, coalesced)			\
		      type(PURGED, purged))

#endif /* IB_ASYNC_COUNTERS_H */

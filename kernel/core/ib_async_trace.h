/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Tracepoints of the event queues (evq.c): a record's way through a queue,
 * for perf trace, trace-cmd or tracefs (events/ib_async/). A queue is named
 * by its id, which /proc/PID/fdinfo/FD of the fd that reads it shows as
 * "ib_async-queue-id"; ids are never reused while the module is loaded.
 * Everything recorded is a number the queue's reader may see anyway: no
 * kernel pointer reaches the trace.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_async

#if !defined(IB_ASYNC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define IB_ASYNC_TRACE_H

#include <linux/tracepoint.h>

#include "evq.h"
#include "ib_async_event_types.h"

/*
 * The event types, by their uAPI names, for the printed form: the RDMA
 * core's (ib_async_event_types.h), then ib_async's own.
 */
#define iba_ev_type(x, element)	iba_ev(x)
#define IB_ASYNC_TRACE_EVENTS					\
	IB_ASYNC_EVENT_TYPES(iba_ev_type)			\
	iba_ev(OVERFLOW)					\
	iba_ev_end(COMP)

/* First pass: tell user space tools what each enumerator is worth. */
#undef iba_ev
#undef iba_ev_end
#define iba_ev(x)	TRACE_DEFINE_ENUM(IB_ASYNC_EV_##x);
#define iba_ev_end(x)	TRACE_DEFINE_ENUM(IB_ASYNC_EV_##x);

IB_ASYNC_TRACE_EVENTS

/* Second pass: the { value, name } pairs of __print_symbolic(). */
#undef iba_ev
#undef iba_ev_end
#define iba_ev(x)	{ IB_ASYNC_EV_##x, #x },
#define iba_ev_end(x)	{ IB_ASYNC_EV_##x, #x }

#define iba_show_event(type)					\
	__print_symbolic(type, IB_ASYNC_TRACE_EVENTS)

/*
 * One record entering a queue, or leaving it for user space. obj is the
 * object's handle in its file (0 for the device or a port, as in the
 * record).
 */
DECLARE_EVENT_CLASS(ib_async_record,
	TP_PROTO(u64 qid, const struct ib_async_event *rec),
	TP_ARGS(qid, rec),

	TP_STRUCT__entry(
		__field(u64, qid)
		__field(u64, seq)
		__field(u64, count)
		__field(u32, event_type)
		__field(u32, port_num)
		__field(u32, obj_type)
		__field(u32, obj_handle)
	),

	TP_fast_assign(
		__entry->qid = qid;
		__entry->seq = rec->seq;
		__entry->count = rec->count;
		__entry->event_type = rec->event_type;
		__entry->port_num = rec->port_num;
		__entry->obj_type = rec->obj_type;
		__entry->obj_handle = rec->obj_handle;
	),

	TP_printk("queue=%llu seq=%llu %s port=%u obj_type=%u obj=%u count=%llu",
		  __entry->qid, __entry->seq, iba_show_event(__entry->event_type),
		  __entry->port_num, __entry->obj_type, __entry->obj_handle,
		  __entry->count)
);

DEFINE_EVENT(ib_async_record, ib_async_enqueue,
	TP_PROTO(u64 qid, const struct ib_async_event *rec),
	TP_ARGS(qid, rec));

DEFINE_EVENT(ib_async_record, ib_async_dequeue,
	TP_PROTO(u64 qid, const struct ib_async_event *rec),
	TP_ARGS(qid, rec));

/*
 * An event the full queue had no slot for: seq is its own sequence number,
 * run how many the overflow record that stands for it now counts, lost the
 * queue's total.
 */
TRACE_EVENT(ib_async_overflow,
	TP_PROTO(u64 qid, u64 seq, u32 event_type, u64 run, u64 lost),
	TP_ARGS(qid, seq, event_type, run, lost),

	TP_STRUCT__entry(
		__field(u64, qid)
		__field(u64, seq)
		__field(u64, run)
		__field(u64, lost)
		__field(u32, event_type)
	),

	TP_fast_assign(
		__entry->qid = qid;
		__entry->seq = seq;
		__entry->run = run;
		__entry->lost = lost;
		__entry->event_type = event_type;
	),

	TP_printk("queue=%llu seq=%llu %s run=%llu lost=%llu", __entry->qid,
		  __entry->seq, iba_show_event(__entry->event_type),
		  __entry->run, __entry->lost)
);

/*
 * An event merged into its object's unread record instead of taking a
 * slot; coalesced is the queue's total.
 */
TRACE_EVENT(ib_async_coalesce,
	TP_PROTO(u64 qid, const struct ib_async_event *rec, u64 coalesced),
	TP_ARGS(qid, rec, coalesced),

	TP_STRUCT__entry(
		__field(u64, qid)
		__field(u64, coalesced)
		__field(u32, event_type)
		__field(u32, obj_type)
		__field(u32, obj_handle)
	),

	TP_fast_assign(
		__entry->qid = qid;
		__entry->coalesced = coalesced;
		__entry->event_type = rec->event_type;
		__entry->obj_type = rec->obj_type;
		__entry->obj_handle = rec->obj_handle;
	),

	TP_printk("queue=%llu %s obj_type=%u obj=%u coalesced=%llu",
		  __entry->qid, iba_show_event(__entry->event_type),
		  __entry->obj_type, __entry->obj_handle, __entry->coalesced)
);

/*
 * A destroyed object's unread records dropped from a queue: dropped of
 * them, reported how many of its events reached user space in all.
 */
TRACE_EVENT(ib_async_purge,
	TP_PROTO(u64 qid, u32 dropped, u64 reported),
	TP_ARGS(qid, dropped, reported),

	TP_STRUCT__entry(
		__field(u64, qid)
		__field(u64, reported)
		__field(u32, dropped)
	),

	TP_fast_assign(
		__entry->qid = qid;
		__entry->reported = reported;
		__entry->dropped = dropped;
	),

	TP_printk("queue=%llu dropped=%u reported=%llu", __entry->qid,
		  __entry->dropped, __entry->reported)
);

#endif /* IB_ASYNC_TRACE_H */

/* Outside the guard: define_trace.h reads this file again. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ib_async_trace
#include <trace/define_trace.h>

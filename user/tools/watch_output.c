// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ib_async_watch output lines, text and JSON. */
#include <stdarg.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "watch.h"
#include "watch_follow.h"

#define NSEC_PER_SEC 1000000000LL

/* __u64 is unsigned long long on every Linux ABI; say so for printf */
#define ULL(x) ((unsigned long long)(x))

struct out {
	char *buf;
	size_t len, pos;
	bool overflow;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos)
		o->overflow = true;
	else
		o->pos += (size_t)n;
}

/* JSON string body: device names come from sysfs, escape anyway. */
static void put_json_str(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20)
			put(o, "\\u%04x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static long long ts_ns(const struct timespec *t)
{
	return t->tv_sec * NSEC_PER_SEC + t->tv_nsec;
}

/*
 * UTC wall-clock time of a CLOCK_MONOTONIC instant: the record was stamped
 * (mono_now - stamp) ago. Suspend and clock steps since then make this an
 * estimate; the monotonic value printed next to it is exact.
 */
static void put_wall(struct out *o, uint64_t stamp_ns,
		     const struct watch_clock *now)
{
	long long wall = ts_ns(&now->real) - (ts_ns(&now->mono) -
					      (long long)stamp_ns);
	time_t sec = (time_t)(wall / NSEC_PER_SEC);
	long usec = (long)(wall % NSEC_PER_SEC) / 1000;
	struct tm tm;
	char date[32];

	if (wall < 0 || !gmtime_r(&sec, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
		put(o, "?");
		return;
	}
	put(o, "%s.%06ldZ", date, usec);
}

const char *watch_obj_name(uint32_t obj_type)
{
	switch (obj_type) {
	case IB_ASYNC_OBJ_PORT:	return "port";
	case IB_ASYNC_OBJ_CQ:	return "cq";
	case IB_ASYNC_OBJ_QP:	return "qp";
	case IB_ASYNC_OBJ_SRQ:	return "srq";
	case IB_ASYNC_OBJ_WQ:	return "wq";
	case IB_ASYNC_OBJ_NONE:	return "none";
	default:		return "unknown";
	}
}

static void put_type_text(struct out *o, uint32_t type)
{
	const char *name = watch_type_name(type);

	if (name)
		put(o, "%s", name);
	else
		put(o, "IBV_EVENT_%u", type);
	put(o, " (%s)", ibv_event_type_str((enum ibv_event_type)type));
}

/*
 * What an event channel adds to a record (NULL: a record of the node):
 * the subscription that matched, and the events a coalesced record
 * stands for, up to the last one's time.
 */
static void put_chan_text(struct out *o, const struct ib_async_chan_event *x)
{
	if (!x)
		return;
	put(o, " cookie %llu", ULL(x->cookie));
	if (x->occurrences > 1)
		put(o, " occurrences %llu last %llu.%09llu",
		    ULL(x->occurrences),
		    ULL(x->last_timestamp_ns / NSEC_PER_SEC),
		    ULL(x->last_timestamp_ns % NSEC_PER_SEC));
}

static void format_text(struct out *o, const char *dev,
			const struct ib_async_event *r,
			const struct ib_async_chan_event *x,
			const struct watch_clock *now)
{
	put(o, "%llu.%09llu ", ULL(r->timestamp_ns / NSEC_PER_SEC),
	    ULL(r->timestamp_ns % NSEC_PER_SEC));
	put_wall(o, r->timestamp_ns, now);
	put(o, " %s ", dev);
	if (r->event_type == IB_ASYNC_EV_OVERFLOW) {
		put(o, "%s %llu events lost seq %llu-%llu\n",
		    watch_type_name(r->event_type), ULL(r->count), ULL(r->seq),
		    ULL(r->seq + r->count - 1));
		return;
	}
	if (r->obj_type == IB_ASYNC_OBJ_PORT)
		put(o, "port %u ", r->port_num);
	else
		put(o, "%s handle %u user_handle 0x%llx ",
		    watch_obj_name(r->obj_type), r->obj_handle, ULL(r->element));
	put_type_text(o, r->event_type);
	put(o, " seq %llu", ULL(r->seq));
	put_chan_text(o, x);
	put(o, "\n");
}

static void format_json(struct out *o, const char *dev,
			const struct ib_async_event *r,
			const struct ib_async_chan_event *x,
			const struct watch_clock *now)
{
	const char *name = watch_type_name(r->event_type);
	bool ovf = r->event_type == IB_ASYNC_EV_OVERFLOW;

	put(o, "{\"timestamp_ns\":%llu,\"time\":\"", ULL(r->timestamp_ns));
	put_wall(o, r->timestamp_ns, now);
	put(o, "\",\"device\":");
	put_json_str(o, dev);
	put(o, ",\"seq\":%llu,\"type\":", ULL(r->seq));
	if (name)
		put(o, "\"%s\"", name);
	else
		put(o, "null");
	put(o, ",\"type_num\":%u", r->event_type);
	if (!ovf)
		put(o, ",\"desc\":\"%s\"",
		    ibv_event_type_str((enum ibv_event_type)r->event_type));
	put(o, ",\"obj\":\"%s\",\"port\":%u,\"handle\":%u"
	    ",\"element\":%llu,\"count\":%llu",
	    watch_obj_name(r->obj_type), r->port_num, r->obj_handle,
	    ULL(r->element), ULL(r->count));
	if (x)
		put(o, ",\"cookie\":%llu,\"occurrences\":%llu"
		    ",\"last_timestamp_ns\":%llu", ULL(x->cookie),
		    ULL(x->occurrences), ULL(x->last_timestamp_ns));
	put(o, "}\n");
}

static int format(char *buf, size_t len, const char *dev,
		  const struct ib_async_event *rec,
		  const struct ib_async_chan_event *x,
		  const struct watch_clock *now, bool json)
{
	struct out o = { .buf = buf, .len = len };

	if (!len)
		return -1;
	if (json)
		format_json(&o, dev, rec, x, now);
	else
		format_text(&o, dev, rec, x, now);
	return o.overflow ? -1 : (int)o.pos;
}

int watch_format(char *buf, size_t len, const char *dev,
		 const struct ib_async_event *rec,
		 const struct watch_clock *now, bool json)
{
	return format(buf, len, dev, rec, NULL, now, json);
}

int watch_format_chan(char *buf, size_t len, const char *dev,
		      const struct ib_async_chan_event *rec,
		      const struct watch_clock *now, bool json)
{
	return format(buf, len, dev, &rec->event, rec, now, json);
}

/* ---- state records ------------------------------------------------------ */

const char *watch_phys_state_name(unsigned int phys_state)
{
	static const char *const names[] = {
		[1] = "SLEEP", [2] = "POLLING", [3] = "DISABLED",
		[4] = "PORT_CONFIGURATION_TRAINING", [5] = "LINK_UP",
		[6] = "LINK_ERROR_RECOVERY", [7] = "PHY_TEST",
	};

	return phys_state < sizeof(names) / sizeof(names[0]) ?
	       names[phys_state] : NULL;
}

/* The kernel's IB_SPEED_* bits, which active_speed_ex reports. */
const char *watch_speed_name(unsigned int active_speed)
{
	switch (active_speed) {
	case 1:		return "SDR";
	case 2:		return "DDR";
	case 4:		return "QDR";
	case 8:		return "FDR10";
	case 16:	return "FDR";
	case 32:	return "EDR";
	case 64:	return "HDR";
	case 128:	return "NDR";
	case 256:	return "XDR";
	default:	return NULL;
	}
}

const char *watch_width_name(unsigned int active_width)
{
	switch (active_width) {
	case 1:		return "1X";
	case 2:		return "4X";
	case 4:		return "8X";
	case 8:		return "12X";
	case 16:	return "2X";
	default:	return NULL;
	}
}

static unsigned int mtu_bytes(unsigned int mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128U << mtu : 0;
}

static const char *link_layer_name(unsigned int ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:	return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:	return "Ethernet";
	default:			return "Unspecified";
	}
}

/* A name, or the number where there is none. */
static void put_name(struct out *o, const char *name, unsigned int v)
{
	if (name)
		put(o, "%s", name);
	else
		put(o, "%u", v);
}

static void put_json_name(struct out *o, const char *name)
{
	if (name)
		put(o, "\"%s\"", name);
	else
		put(o, "null");
}

static void state_text(struct out *o, const char *dev,
		       const struct ib_async_chan_state_event *s,
		       const struct watch_clock *now)
{
	const struct ib_async_event *r = &s->rec.event;
	const struct ib_async_port_state *st = &s->state;

	put(o, "%llu.%09llu ", ULL(r->timestamp_ns / NSEC_PER_SEC),
	    ULL(r->timestamp_ns % NSEC_PER_SEC));
	put_wall(o, r->timestamp_ns, now);
	put(o, " %s ", dev);
	if (!r->port_num)
		put(o, "device STATE ports %u", st->phys_port_cnt);
	else if (st->flags & IB_ASYNC_STATE_QUERY_FAILED)
		put(o, "port %u STATE query failed: %s", r->port_num,
		    strerror((int)st->error));
	else {
		put(o, "port %u STATE %s phys ", r->port_num,
		    ibv_port_state_str((enum ibv_port_state)st->state));
		put_name(o, watch_phys_state_name(st->phys_state),
			 st->phys_state);
		put(o, " speed ");
		put_name(o, watch_speed_name(st->active_speed),
			 st->active_speed);
		put(o, " width ");
		put_name(o, watch_width_name(st->active_width),
			 st->active_width);
		put(o, " lid %u sm_lid %u gid_valid %u gid_gen %u mtu %u/%u"
		    " link %s", st->lid, st->sm_lid, st->gid_valid,
		    st->gid_gen, mtu_bytes(st->active_mtu),
		    mtu_bytes(st->max_mtu), link_layer_name(st->link_layer));
	}
	put(o, " seq %llu cookie %llu%s%s\n", ULL(r->seq),
	    ULL(s->rec.cookie),
	    st->flags & IB_ASYNC_STATE_RESYNC ? " resync" : "",
	    st->flags & IB_ASYNC_STATE_LAST ? " last" : "");
}

static void state_json(struct out *o, const char *dev,
		       const struct ib_async_chan_state_event *s,
		       const struct watch_clock *now)
{
	const struct ib_async_event *r = &s->rec.event;
	const struct ib_async_port_state *st = &s->state;

	put(o, "{\"timestamp_ns\":%llu,\"time\":\"", ULL(r->timestamp_ns));
	put_wall(o, r->timestamp_ns, now);
	put(o, "\",\"kind\":\"state\",\"device\":");
	put_json_str(o, dev);
	put(o, ",\"seq\":%llu,\"type\":\"STATE\",\"port\":%u,\"cookie\":%llu"
	    ",\"resync\":%s,\"last\":%s", ULL(r->seq), r->port_num,
	    ULL(s->rec.cookie),
	    st->flags & IB_ASYNC_STATE_RESYNC ? "true" : "false",
	    st->flags & IB_ASYNC_STATE_LAST ? "true" : "false");
	if (!r->port_num) {
		put(o, ",\"phys_port_cnt\":%u}\n", st->phys_port_cnt);
		return;
	}
	if (st->flags & IB_ASYNC_STATE_QUERY_FAILED) {
		put(o, ",\"error\":");
		put_json_str(o, strerror((int)st->error));
		put(o, ",\"errno\":%u}\n", st->error);
		return;
	}
	put(o, ",\"state\":\"%s\",\"state_num\":%u,\"phys_state\":",
	    ibv_port_state_str((enum ibv_port_state)st->state), st->state);
	put_json_name(o, watch_phys_state_name(st->phys_state));
	put(o, ",\"phys_state_num\":%u,\"speed\":", st->phys_state);
	put_json_name(o, watch_speed_name(st->active_speed));
	put(o, ",\"active_speed\":%u,\"width\":", st->active_speed);
	put_json_name(o, watch_width_name(st->active_width));
	put(o, ",\"active_width\":%u,\"lid\":%u,\"sm_lid\":%u,\"sm_sl\":%u"
	    ",\"lmc\":%u,\"gid_valid\":%u,\"gid_gen\":%u,\"gid_tbl_len\":%u"
	    ",\"pkey_tbl_len\":%u,\"port_cap_flags\":%u,\"active_mtu\":%u"
	    ",\"max_mtu\":%u,\"link_layer\":\"%s\"}\n", st->active_width,
	    st->lid, st->sm_lid, st->sm_sl, st->lmc, st->gid_valid,
	    st->gid_gen, st->gid_tbl_len, st->pkey_tbl_len,
	    st->port_cap_flags, mtu_bytes(st->active_mtu),
	    mtu_bytes(st->max_mtu), link_layer_name(st->link_layer));
}

int watch_format_state(char *buf, size_t len, const char *dev,
		       const struct ib_async_chan_state_event *rec,
		       const struct watch_clock *now, bool json)
{
	struct out o = { .buf = buf, .len = len };

	if (!len)
		return -1;
	if (json)
		state_json(&o, dev, rec, now);
	else
		state_text(&o, dev, rec, now);
	return o.overflow ? -1 : (int)o.pos;
}

const char *watch_dev_change_name(enum watch_dev_change c)
{
	switch (c) {
	case WATCH_DEV_ADDED:	return "DEVICE_ADDED";
	case WATCH_DEV_REMOVED:	return "DEVICE_REMOVED";
	case WATCH_DEV_NETDEV_ATTACHED:	return "NETDEV_ATTACHED";
	case WATCH_DEV_NETDEV_DETACHED:	return "NETDEV_DETACHED";
	default:		return "DEVICE_RENAMED";
	}
}

/* The word before a device line's argument, and its JSON key. */
static const char *dev_change_arg(enum watch_dev_change c)
{
	switch (c) {
	case WATCH_DEV_ADDED:	return "node";
	case WATCH_DEV_RENAMED:	return "from";
	case WATCH_DEV_NETDEV_ATTACHED:
	case WATCH_DEV_NETDEV_DETACHED:
		return "netdev";
	default:		return NULL;
	}
}

/*
 * A device line has no record: its time is when the watcher learnt of
 * the change, on the clocks an event line shows.
 */
int watch_format_device(char *buf, size_t len, const char *dev,
			enum watch_dev_change c, const char *arg,
			unsigned int port, const struct watch_clock *now,
			bool json)
{
	bool netdev = c == WATCH_DEV_NETDEV_ATTACHED ||
		      c == WATCH_DEV_NETDEV_DETACHED;
	uint64_t stamp = (uint64_t)ts_ns(&now->mono);
	const char *key = dev_change_arg(c);
	struct out o = { .buf = buf, .len = len };

	if (!len)
		return -1;
	if (json) {
		put(&o, "{\"timestamp_ns\":%llu,\"time\":\"", ULL(stamp));
		put_wall(&o, stamp, now);
		put(&o, "\",\"kind\":\"device\",\"device\":");
		put_json_str(&o, dev);
		put(&o, ",\"type\":\"%s\"", watch_dev_change_name(c));
		if (key && arg) {
			put(&o, ",\"%s\":", key);
			put_json_str(&o, arg);
		}
		if (netdev)
			put(&o, ",\"port\":%u", port);
		put(&o, "}\n");
	} else {
		put(&o, "%llu.%09llu ", ULL(stamp / NSEC_PER_SEC),
		    ULL(stamp % NSEC_PER_SEC));
		put_wall(&o, stamp, now);
		put(&o, " %s %s", dev, watch_dev_change_name(c));
		/* "rxe0 NETDEV_ATTACHED veth0 port 1", as rdma monitor */
		if (netdev && arg)
			put(&o, " %s port %u", arg, port);
		else if (key && arg)
			put(&o, " %s %s", key, arg);
		put(&o, "\n");
	}
	return o.overflow ? -1 : (int)o.pos;
}

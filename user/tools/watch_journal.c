// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async_watch --journal: each record as one journal entry, its fields
 * named IB_ASYNC_* so that journalctl can select them
 * (journalctl IB_ASYNC_DEVICE=rxe0) and systemd-journal-remote carries
 * them to a collecting host unchanged.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>

/* CODE_FILE and its kin would name this file, not what happened */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include <infiniband/verbs.h>

#include "watch_export.h"

/* where sd_journal_sendv() writes: journald's native protocol socket */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define MAX_FIELDS 40
#define FIELD_LEN 256

/*
 * One MESSAGE_ID for events and one for losses, so that a catalog entry
 * or a query (journalctl MESSAGE_ID=...) can find either kind.
 */
#define MSGID_EVENT "1fbe00cfb36c48cabbe8b3e25a01a798"
#define MSGID_LOST  "dc737a5fcff44675b8216145830ab8ad"
/* --follow's device lines: a device added, removed or renamed */
#define MSGID_DEVICE "9ce62032b7684f95b32b9b387f72f273"
/* --state's state records: what a port is, not what happened to it */
#define MSGID_STATE "c034a33948d542e8b720279401ed1f5b"

struct fields {
	char buf[MAX_FIELDS][FIELD_LEN];
	struct iovec iov[MAX_FIELDS];
	int n;
	bool truncated;
};

static void field(struct fields *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void field(struct fields *f, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (f->n == MAX_FIELDS) {
		f->truncated = true;
		return;
	}
	va_start(ap, fmt);
	len = vsnprintf(f->buf[f->n], FIELD_LEN, fmt, ap);
	va_end(ap);
	if (len < 0 || len >= FIELD_LEN) {
		f->truncated = true;
		return;
	}
	f->iov[f->n] = (struct iovec){ .iov_base = f->buf[f->n],
				       .iov_len = (size_t)len };
	f->n++;
}

/*
 * Errors end a stream or lose work; a port going down or events lost
 * is worth a look; the rest is the fabric's news.
 */
static int priority(uint32_t type)
{
	switch (type) {
	case IB_ASYNC_EV_DEVICE_FATAL:
	case IB_ASYNC_EV_QP_FATAL:
	case IB_ASYNC_EV_QP_REQ_ERR:
	case IB_ASYNC_EV_QP_ACCESS_ERR:
	case IB_ASYNC_EV_CQ_ERR:
	case IB_ASYNC_EV_SRQ_ERR:
	case IB_ASYNC_EV_WQ_FATAL:
	case IB_ASYNC_EV_PATH_MIG_ERR:
		return LOG_ERR;
	case IB_ASYNC_EV_PORT_ERR:
	case IB_ASYNC_EV_OVERFLOW:
		return LOG_WARNING;
	default:
		return LOG_INFO;
	}
}

/* A text line as MESSAGE=, without its two times and newline. */
static void message_line(struct fields *f, char *line, int len)
{
	char *p;

	if (len <= 0) {
		f->truncated = true;
		return;
	}
	line[len - 1] = '\0';
	p = strchr(line, ' ');
	p = p ? strchr(p + 1, ' ') : NULL;
	field(f, "MESSAGE=%s", p ? p + 1 : line);
}

/*
 * The text line without its two times and newline: the journal stamps
 * the entry itself, and IB_ASYNC_TIMESTAMP_NS keeps the kernel's time.
 */
static void message(struct fields *f, const char *dev,
		    const struct ib_async_event *r,
		    const struct ib_async_chan_event *x,
		    const struct watch_clock *now)
{
	char line[FIELD_LEN];

	message_line(f, line,
		     x ? watch_format_chan(line, sizeof(line), dev, x, now,
					   false) :
			 watch_format(line, sizeof(line), dev, r, now, false));
}

/*
 * libsystemd drops entries silently where no journal listens: an
 * operator asking for --journal there is told at once instead.
 */
int watch_journal_check(void)
{
	struct stat st;

	if (stat(JOURNAL_SOCKET, &st))
		return -errno;
	return S_ISSOCK(st.st_mode) ? 0 : -ENOTSOCK;
}

int watch_journal_send(const char *dev, const struct ib_async_event *r,
		       const struct ib_async_chan_event *x,
		       const struct watch_clock *now)
{
	bool lost = r->event_type == IB_ASYNC_EV_OVERFLOW;
	const char *name = watch_type_name(r->event_type);
	struct fields f = { .n = 0 };

	message(&f, dev, r, x, now);
	field(&f, "MESSAGE_ID=%s", lost ? MSGID_LOST : MSGID_EVENT);
	field(&f, "PRIORITY=%d", priority(r->event_type));
	field(&f, "SYSLOG_IDENTIFIER=ib_async_watch");
	field(&f, "IB_ASYNC_DEVICE=%s", dev);
	field(&f, "IB_ASYNC_PORT=%u", r->port_num);
	if (name)
		field(&f, "IB_ASYNC_EVENT=%s", name);
	else
		field(&f, "IB_ASYNC_EVENT=IBV_EVENT_%u", r->event_type);
	field(&f, "IB_ASYNC_EVENT_NUM=%u", r->event_type);
	field(&f, "IB_ASYNC_OBJECT=%s", watch_obj_name(r->obj_type));
	field(&f, "IB_ASYNC_OBJECT_HANDLE=%u", r->obj_handle);
	field(&f, "IB_ASYNC_ELEMENT=%llu", (unsigned long long)r->element);
	field(&f, "IB_ASYNC_SEQ=%llu", (unsigned long long)r->seq);
	field(&f, "IB_ASYNC_LOST=%llu", lost ? (unsigned long long)r->count : 0ULL);
	field(&f, "IB_ASYNC_TIMESTAMP_NS=%llu",
	      (unsigned long long)r->timestamp_ns);
	if (x) {
		field(&f, "IB_ASYNC_COOKIE=%llu", (unsigned long long)x->cookie);
		field(&f, "IB_ASYNC_OCCURRENCES=%llu",
		      (unsigned long long)x->occurrences);
		field(&f, "IB_ASYNC_LAST_TIMESTAMP_NS=%llu",
		      (unsigned long long)x->last_timestamp_ns);
	}
	/* names come from sysfs: one that long is not a device of ours */
	if (f.truncated)
		return -ENAMETOOLONG;
	return sd_journal_sendv(f.iov, f.n);
}

/*
 * A state record: the text line, and each of the port's fields as one of
 * the journal's, so that journalctl IB_ASYNC_PORT_STATE=PORT_DOWN finds
 * the ports found down. A port that could not be queried is a warning.
 */
int watch_journal_state(const char *dev,
			const struct ib_async_chan_state_event *s,
			const struct watch_clock *now)
{
	const struct ib_async_port_state *st = &s->state;
	bool failed = st->flags & IB_ASYNC_STATE_QUERY_FAILED;
	const char *name;
	struct fields f = { .n = 0 };
	char line[FIELD_LEN];

	message_line(&f, line, watch_format_state(line, sizeof(line), dev, s,
						  now, false));
	field(&f, "MESSAGE_ID=%s", MSGID_STATE);
	field(&f, "PRIORITY=%d", failed ? LOG_WARNING : LOG_INFO);
	field(&f, "SYSLOG_IDENTIFIER=ib_async_watch");
	field(&f, "IB_ASYNC_DEVICE=%s", dev);
	field(&f, "IB_ASYNC_PORT=%u", s->rec.event.port_num);
	field(&f, "IB_ASYNC_EVENT=STATE");
	field(&f, "IB_ASYNC_EVENT_NUM=%u", s->rec.event.event_type);
	field(&f, "IB_ASYNC_SEQ=%llu", (unsigned long long)s->rec.event.seq);
	field(&f, "IB_ASYNC_TIMESTAMP_NS=%llu",
	      (unsigned long long)s->rec.event.timestamp_ns);
	field(&f, "IB_ASYNC_COOKIE=%llu", (unsigned long long)s->rec.cookie);
	field(&f, "IB_ASYNC_STATE_RESYNC=%d",
	      !!(st->flags & IB_ASYNC_STATE_RESYNC));
	field(&f, "IB_ASYNC_STATE_LAST=%d", !!(st->flags & IB_ASYNC_STATE_LAST));
	if (!s->rec.event.port_num) {
		field(&f, "IB_ASYNC_PHYS_PORT_CNT=%u", st->phys_port_cnt);
	} else if (failed) {
		field(&f, "IB_ASYNC_STATE_ERRNO=%u", st->error);
	} else {
		field(&f, "IB_ASYNC_PORT_STATE=%s",
		      ibv_port_state_str((enum ibv_port_state)st->state));
		field(&f, "IB_ASYNC_PORT_STATE_NUM=%u", st->state);
		name = watch_phys_state_name(st->phys_state);
		if (name)
			field(&f, "IB_ASYNC_PHYS_STATE=%s", name);
		field(&f, "IB_ASYNC_PHYS_STATE_NUM=%u", st->phys_state);
		field(&f, "IB_ASYNC_ACTIVE_SPEED=%u", st->active_speed);
		field(&f, "IB_ASYNC_ACTIVE_WIDTH=%u", st->active_width);
		field(&f, "IB_ASYNC_LID=%u", st->lid);
		field(&f, "IB_ASYNC_SM_LID=%u", st->sm_lid);
		field(&f, "IB_ASYNC_GID_VALID=%u", st->gid_valid);
		field(&f, "IB_ASYNC_GID_GEN=%u", st->gid_gen);
		field(&f, "IB_ASYNC_ACTIVE_MTU=%u", st->active_mtu);
		field(&f, "IB_ASYNC_MAX_MTU=%u", st->max_mtu);
		field(&f, "IB_ASYNC_LINK_LAYER=%u", st->link_layer);
	}
	if (f.truncated)
		return -ENAMETOOLONG;
	return sd_journal_sendv(f.iov, f.n);
}

int watch_journal_device(const char *dev, enum watch_dev_change c,
			 const char *arg, unsigned int port,
			 const struct watch_clock *now)
{
	struct fields f = { .n = 0 };
	char line[FIELD_LEN];

	/* the text line, again without its two times */
	message_line(&f, line, watch_format_device(line, sizeof(line), dev, c,
						   arg, port, now, false));
	if (f.truncated)
		return -ENAMETOOLONG;
	field(&f, "MESSAGE_ID=%s", MSGID_DEVICE);
	/* a device leaving is worth a look, as a port going down is */
	field(&f, "PRIORITY=%d", c == WATCH_DEV_REMOVED ? LOG_WARNING : LOG_INFO);
	field(&f, "SYSLOG_IDENTIFIER=ib_async_watch");
	field(&f, "IB_ASYNC_DEVICE=%s", dev);
	field(&f, "IB_ASYNC_EVENT=%s", watch_dev_change_name(c));
	if (c == WATCH_DEV_ADDED && arg)
		field(&f, "IB_ASYNC_NODE=%s", arg);
	if (c == WATCH_DEV_RENAMED && arg)
		field(&f, "IB_ASYNC_DEVICE_OLD=%s", arg);
	if ((c == WATCH_DEV_NETDEV_ATTACHED || c == WATCH_DEV_NETDEV_DETACHED) &&
	    arg) {
		field(&f, "IB_ASYNC_NETDEV=%s", arg);
		field(&f, "IB_ASYNC_PORT=%u", port);
	}
	field(&f, "IB_ASYNC_TIMESTAMP_NS=%llu",
	      (unsigned long long)now->mono.tv_sec * 1000000000ULL +
	      (unsigned long long)now->mono.tv_nsec);
	if (f.truncated)
		return -ENAMETOOLONG;
	return sd_journal_sendv(f.iov, f.n);
}

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

#include "watch_export.h"

/* where sd_journal_sendv() writes: journald's native protocol socket */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"
#define MAX_FIELDS 20
#define FIELD_LEN 256

/*
 * One MESSAGE_ID for events and one for losses, so that a catalog entry
 * or a query (journalctl MESSAGE_ID=...) can find either kind.
 */
#define MSGID_EVENT "1fbe00cfb36c48cabbe8b3e25a01a798"
#define MSGID_LOST  "dc737a5fcff44675b8216145830ab8ad"
/* --follow's device lines: a device added, removed or renamed */
#define MSGID_DEVICE "9ce62032b7684f95b32b9b387f72f273"

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
	char *p;
	int len;

	len = x ? watch_format_chan(line, sizeof(line), dev, x, now, false) :
		  watch_format(line, sizeof(line), dev, r, now, false);
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

int watch_journal_device(const char *dev, enum watch_dev_change c,
			 const char *arg, unsigned int port,
			 const struct watch_clock *now)
{
	struct fields f = { .n = 0 };
	char line[FIELD_LEN];
	char *p;
	int len;

	/* the text line, again without its two times */
	len = watch_format_device(line, sizeof(line), dev, c, arg, port, now,
				  false);
	if (len <= 0)
		return -ENAMETOOLONG;
	line[len - 1] = '\0';
	p = strchr(line, ' ');
	p = p ? strchr(p + 1, ' ') : NULL;
	field(&f, "MESSAGE=%s", p ? p + 1 : line);
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

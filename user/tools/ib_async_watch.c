// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async_watch: print RDMA asynchronous events as ib_async delivers
 * them. A client of libibasync's public API alone: devices are found and
 * opened through it, and records read with ibasync_read_records(), which
 * hands them out as the kernel writes them, since struct ibv_async_event
 * has no room for the sequence number, timestamp or overflow count worth
 * showing.
 *
 * With --port, --coalesce or -t, the kernel does the choosing: the tool
 * reads an event channel (libibasync's ibasync_create_channel()) with one
 * subscription per port, each of the -t types, instead of the node. Its
 * records come as the kernel writes them too
 * (ibasync_channel_read_records()).
 *
 * With --state the channel is a state channel (IBASYNC_CHANNEL_STATE |
 * IBASYNC_CHANNEL_RESYNC) and each subscription asks for a snapshot:
 * a line with the state of the device and of each port it covers comes
 * first, and again after each overflow; its 128-byte records are read
 * at their own size.
 *
 * Each record goes to stdout, or with --journal to systemd's journal
 * (watch_journal.c); --metrics counts it too (watch_metrics.c), and this
 * file reads the port states those counters show through the library.
 *
 * With --follow, the kernel's uevents (watch_follow.c) say when a node
 * appears, goes or its RDMA device is renamed: the device is opened,
 * closed or renamed here, and a device line says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/ib_async.h>
#include <infiniband/ib_async_shim.h>

#include "watch.h"
#include "watch_export.h"
#include "watch_follow.h"

#define BATCH 64		/* records per read */

/* one subscription per --port fits in one channel */
_Static_assert(WATCH_MAX_FILTERS <= IB_ASYNC_MAX_SUBSCRIPTIONS,
	       "a channel holds a subscription per port");

struct watched {
	struct ibv_context *ctx;
	char name[WATCH_NAME_MAX];	/* the RDMA device's, as renamed */
	char node[WATCH_NAME_MAX];	/* ib_asyncN */
	/* the stream read, if the kernel filters; else the node is */
	struct ibasync_channel *chan;
	int metrics_dev;	/* index in w->metrics */
	unsigned int nports;
	bool node_done, chan_done;	/* its stream ended (ENODEV) */
	bool state;	/* chan is a state channel: 128-byte records */
};

struct watch {
	struct watch_opts opts;
	struct ibv_device **list;
	struct watched *devs;
	size_t ndevs, cap;
	size_t live;			/* devices whose stream goes on */
	int uevent_fd;			/* --follow; else -1 */
	int rdmamon_fd;			/* --follow where netdev changes are told */
	unsigned long long seen;	/* events printed, overflow excluded */
	bool port_found[WATCH_MAX_FILTERS]; /* --port i exists somewhere */
	struct watch_metrics *metrics;	/* --metrics; else NULL */
	const char *prog;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void error(const struct watch *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void error(const struct watch *w, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", w->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static struct ibv_device *find_device(struct watch *w, const char *name)
{
	for (size_t i = 0; w->list[i]; i++)
		if (!strcmp(ibv_get_device_name(w->list[i]), name))
			return w->list[i];
	return NULL;
}

/* A subscription, said if the kernel refuses it. */
static int add_subscription(struct watch *w, struct watched *d,
			    const struct ibasync_subscription *s)
{
	if (!ibasync_subscribe(d->chan, s, NULL))
		return 0;
	if (s->flags & IBASYNC_SUB_PORT)
		error(w, "%s: cannot subscribe to port %u: %s", d->name,
		      s->port_num, strerror(errno));
	else
		error(w, "%s: cannot subscribe: %s", d->name, strerror(errno));
	return -1;
}

/*
 * The subscriptions of the options: each of the -t types (all without
 * -t), on each --port the device has, cookie N for the Nth --port (1
 * without --port). -t naming only OVERFLOW, which every channel reports
 * unasked, makes none.
 */
static int subscribe_all(struct watch *w, struct watched *d, uint64_t mask)
{
	struct ibasync_subscription s = {
		.flags = (mask ? IBASYNC_SUB_TYPES : 0) |
			 (d->state ? IBASYNC_SUB_STATE : 0),
		.types = mask, .cookie = 1,
	};
	struct ib_async_info info;

	if (w->opts.ntypes && !mask)
		return 0;
	if (!w->opts.nports)
		return add_subscription(w, d, &s);
	if (ibasync_query(d->ctx, &info)) {
		error(w, "%s: cannot query: %s", d->name, strerror(errno));
		return -1;
	}
	s.flags |= IBASYNC_SUB_PORT;
	for (size_t i = 0; i < w->opts.nports; i++) {
		/* watching several devices, a port some of them lack */
		if (w->opts.ports[i] > info.phys_port_cnt)
			continue;
		w->port_found[i] = true;
		s.port_num = w->opts.ports[i];
		s.cookie = i + 1;
		if (add_subscription(w, d, &s))
			return -1;
	}
	return 0;
}

/*
 * Read the device through an event channel if the options ask for one.
 * Returns 0 (d->chan set if so), or -1 after saying why. -t alone, where
 * a channel would not serve it as the node does (a type above 20, only
 * OVERFLOW, which means the node's losses, or a kernel without event
 * channels), leaves the node to be read and filtered here.
 */
static int open_channel(struct watch *w, struct watched *d)
{
	bool needed = watch_needs_channel(&w->opts);
	unsigned int flags = IBASYNC_CHANNEL_NONBLOCK;
	uint64_t mask;
	uint32_t bad;

	if (!needed && !w->opts.ntypes)
		return 0;
	if (watch_type_mask(&w->opts, &mask, &bad)) {
		if (!needed)
			return 0;
		error(w, "event type %u cannot be subscribed to (0-%u only)",
		      bad, IB_ASYNC_EV_DEVICE_SPEED_CHANGE);
		return -1;
	}
	if (!needed && !mask)
		return 0;
	if (w->opts.coalesce)
		flags |= IBASYNC_CHANNEL_COALESCE;
	if (w->opts.state)
		flags |= IBASYNC_CHANNEL_STATE | IBASYNC_CHANNEL_RESYNC;
	d->chan = ibasync_create_channel(d->ctx, flags);
	if (!d->chan) {
		if (errno == EOPNOTSUPP && !needed)
			return 0;
		error(w, "%s: cannot create an event channel: %s", d->name,
		      errno != EOPNOTSUPP ? strerror(errno) :
		      w->opts.state ? "the ib_async module has no state records" :
		      "the ib_async module has none");
		return -1;
	}
	d->state = w->opts.state;
	if (w->opts.queue_len &&
	    ibasync_channel_set_queue_len(d->chan, w->opts.queue_len)) {
		error(w, "%s: cannot set the channel's queue length %u: %s",
		      d->name, w->opts.queue_len, strerror(errno));
		return -1;
	}
	return subscribe_all(w, d, mask);
}

/* A port's state for the gauge; -1 if the device does not say. */
static int port_state(struct watched *d, unsigned int port)
{
	struct ibv_port_attr attr;

	if (ibv_query_port(d->ctx, (uint8_t)port, &attr))
		return -1;
	return (int)attr.state;
}

/* The device's counters, and its ports' states as they are now. */
static int metrics_add(struct watch *w, struct watched *d)
{
	struct ib_async_info info;

	/* a device that cannot say its ports (no ioctls) has no gauges */
	if (!ibasync_query(d->ctx, &info) && info.phys_port_cnt <= UINT8_MAX)
		d->nports = info.phys_port_cnt;
	d->metrics_dev = watch_metrics_add_device(w->metrics, d->name,
						  d->nports);
	if (d->metrics_dev < 0) {
		error(w, "out of memory");
		return -1;
	}
	for (unsigned int p = 1; p <= d->nports; p++)
		watch_metrics_port_state(w->metrics, d->metrics_dev, p,
					 port_state(d, p));
	return 0;
}

/* Room for one more device; -1 (said) if out of memory. */
static int grow(struct watch *w)
{
	size_t cap = w->cap ? 2 * w->cap : 4;
	struct watched *devs;

	if (w->ndevs < w->cap)
		return 0;
	devs = realloc(w->devs, cap * sizeof(*devs));
	if (!devs) {
		error(w, "out of memory");
		return -1;
	}
	w->devs = devs;
	w->cap = cap;
	return 0;
}

/*
 * Open dev and read it as the options ask. Returns 0, 1 if it could not
 * be opened but --follow goes on (it vanished as it came, or is not for
 * this user), -1 after saying why.
 */
static int open_one(struct watch *w, struct ibv_device *dev)
{
	struct watched *d;
	int fl;

	if (grow(w))
		return -1;
	d = &w->devs[w->ndevs];
	*d = (struct watched){ .metrics_dev = -1 };
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	snprintf(d->node, sizeof(d->node), "%s", dev->dev_name);
	/*
	 * No ring: -q sizes the queue after the open, which a ring mapped
	 * at open would not follow, and every record is read whole anyway.
	 */
	d->ctx = ibasync_open_device(dev, IBASYNC_OPEN_NO_RING);
	if (!d->ctx) {
		error(w, "cannot open %s for %s: %s", dev->dev_name, d->name,
		      strerror(errno));
		return w->opts.follow ? 1 : -1;
	}
	w->ndevs++;
	if (w->opts.queue_len &&
	    ibasync_set_queue_len(d->ctx, w->opts.queue_len)) {
		error(w, "%s: cannot set queue length %u: %s", d->name,
		      w->opts.queue_len, strerror(errno));
		return -1;
	}
	fl = fcntl(d->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(d->ctx->async_fd, F_SETFL, fl | O_NONBLOCK)) {
		error(w, "%s: fcntl: %s", d->name, strerror(errno));
		return -1;
	}
	if (w->metrics && metrics_add(w, d))
		return -1;
	return open_channel(w, d);
}

static int select_devices(struct watch *w)
{
	size_t n = 0;

	while (w->list[n])
		n++;
	if (!w->opts.ndevices && !n && !w->opts.follow) {
		error(w, "no RDMA devices with an ib_async node");
		return -1;
	}
	for (size_t i = 0; i < w->opts.ndevices; i++) {
		struct ibv_device *dev = find_device(w, w->opts.devices[i]);

		if (!dev) {
			error(w, "no such RDMA device: %s", w->opts.devices[i]);
			return -1;
		}
		if (open_one(w, dev))
			return -1;
	}
	for (size_t i = 0; !w->opts.ndevices && i < n; i++)
		if (open_one(w, w->list[i]) < 0)
			return -1;
	/* followed, a device with the port may come later */
	for (size_t i = 0; !w->opts.follow && i < w->opts.nports; i++) {
		if (!w->port_found[i]) {
			error(w, "no watched device has port %u",
			      w->opts.ports[i]);
			return -1;
		}
	}
	return 0;
}

/* The first write: the file exists, or the option is wrong, from the start. */
static int metrics_start(struct watch *w)
{
	if (!watch_metrics_flush(w->metrics, true))
		return 0;
	error(w, "cannot write %s: %s", w->opts.metrics, strerror(errno));
	return -1;
}

/* The module's sysfs class is there, below the library's root. */
static bool module_loaded(struct watch *w)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", ibasync_root_dir(),
		 IBASYNC_CLASS_DIR);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return true;
	error(w, "ib_async module not loaded: %s missing", path);
	return false;
}

static int setup(struct watch *w)
{
	int n, err;

	if (!module_loaded(w))
		return -1;
	/* before the list: a device added meanwhile is heard of, not lost */
	if (w->opts.follow) {
		w->uevent_fd = watch_uevent_open();
		if (w->uevent_fd < 0) {
			error(w, "cannot listen for device uevents: %s",
			      strerror(errno));
			return -1;
		}
		/* where it fails (no CAP_NET_ADMIN), netdevs are not told */
		w->rdmamon_fd = *ibasync_root_dir() ? -1 :
				watch_rdmamon_open();
	}
	w->list = ibv_get_device_list(&n);
	if (!w->list) {
		error(w, "cannot list devices: %s", strerror(errno));
		return -1;
	}
	if (w->opts.journal && (err = -watch_journal_check())) {
		error(w, "no journal to send to: /run/systemd/journal/socket: %s",
		      strerror(err));
		return -1;
	}
	if (w->opts.metrics) {
		w->metrics = watch_metrics_new(w->opts.metrics);
		if (!w->metrics) {
			error(w, "out of memory");
			return -1;
		}
	}
	if (select_devices(w))
		return -1;
	return w->metrics ? metrics_start(w) : 0;
}

static void close_one(struct watched *d)
{
	if (d->chan)
		ibasync_destroy_channel(d->chan);
	if (d->ctx)
		ibv_close_device(d->ctx);
}

static void teardown(struct watch *w)
{
	for (size_t i = 0; i < w->ndevs; i++)
		close_one(&w->devs[i]);
	if (w->uevent_fd >= 0)
		close(w->uevent_fd);
	if (w->rdmamon_fd >= 0)
		close(w->rdmamon_fd);
	free(w->devs);
	watch_metrics_free(w->metrics);
	if (w->list)
		ibv_free_device_list(w->list);
	watch_opts_free(&w->opts);
}

/* A formatted line (len < 0: it did not fit) to stdout. */
static int write_line(struct watch *w, const char *line, int len)
{
	if (len < 0)
		return 0;	/* cannot happen with sane names; skip */
	/* one write per line and a flush: readers sit behind a pipe */
	if (fwrite(line, 1, (size_t)len, stdout) != (size_t)len ||
	    fflush(stdout)) {
		error(w, "write error: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* One line for @rec, or for @xrec (a channel's) if not NULL. */
static int print_record(struct watch *w, const char *dev,
			const struct ib_async_event *rec,
			const struct ib_async_chan_event *xrec,
			const struct watch_clock *now)
{
	char line[1024];
	int len;

	len = xrec ? watch_format_chan(line, sizeof(line), dev, xrec, now,
				       w->opts.json) :
		     watch_format(line, sizeof(line), dev, rec, now,
				  w->opts.json);
	return write_line(w, line, len);
}

/* A device line of --follow, to the journal or stdout. */
static int emit_device(struct watch *w, const char *dev,
		       enum watch_dev_change c, const char *arg,
		       unsigned int port)
{
	struct watch_clock now;
	char line[512];
	int r;

	clock_gettime(CLOCK_MONOTONIC, &now.mono);
	clock_gettime(CLOCK_REALTIME, &now.real);
	if (!w->opts.journal)
		return write_line(w, line,
				  watch_format_device(line, sizeof(line), dev,
						      c, arg, port, &now,
						      w->opts.json));
	r = watch_journal_device(dev, c, arg, port, &now);
	if (r < 0) {
		error(w, "cannot send to the journal: %s", strerror(-r));
		return -1;
	}
	return 0;
}

/* Counted, and the state of the port it concerns read again. */
static int count_record(struct watch *w, struct watched *d,
			const struct ib_async_event *rec,
			const struct ib_async_chan_event *xrec,
			const struct watch_clock *now)
{
	unsigned long long n = xrec && xrec->occurrences ? xrec->occurrences : 1;

	if (watch_metrics_record(w->metrics, d->metrics_dev, rec, n, now)) {
		error(w, "out of memory");
		return -1;
	}
	if (rec->obj_type == IB_ASYNC_OBJ_PORT && rec->port_num >= 1 &&
	    rec->port_num <= d->nports)
		watch_metrics_port_state(w->metrics, d->metrics_dev,
					 rec->port_num,
					 port_state(d, rec->port_num));
	return 0;
}

/* @rec (or @xrec, a channel's) to the journal or stdout, and counted. */
static int emit_record(struct watch *w, struct watched *d,
		       const struct ib_async_event *rec,
		       const struct ib_async_chan_event *xrec)
{
	struct watch_clock now;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &now.mono);
	clock_gettime(CLOCK_REALTIME, &now.real);
	if (w->metrics && count_record(w, d, rec, xrec, &now))
		return -1;
	if (!w->opts.journal)
		return print_record(w, d->name, rec, xrec, &now);
	r = watch_journal_send(d->name, rec, xrec, &now);
	if (r < 0) {
		error(w, "cannot send to the journal: %s", strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * A state record to the journal or stdout; with --metrics the port's
 * state gauge takes its value. Not an event: not counted.
 */
static int emit_state(struct watch *w, struct watched *d,
		      const struct ib_async_chan_state_event *s)
{
	uint32_t port = s->rec.event.port_num;
	struct watch_clock now;
	char line[1024];
	int r;

	clock_gettime(CLOCK_MONOTONIC, &now.mono);
	clock_gettime(CLOCK_REALTIME, &now.real);
	if (w->metrics && port >= 1 && port <= d->nports)
		watch_metrics_port_state(w->metrics, d->metrics_dev, port,
					 s->state.flags &
					 IB_ASYNC_STATE_QUERY_FAILED ? -1 :
					 (int)s->state.state);
	if (!w->opts.journal)
		return write_line(w, line,
				  watch_format_state(line, sizeof(line),
						     d->name, s, &now,
						     w->opts.json));
	r = watch_journal_state(d->name, s, &now);
	if (r < 0) {
		error(w, "cannot send to the journal: %s", strerror(-r));
		return -1;
	}
	return 0;
}

static bool count_reached(const struct watch *w)
{
	return w->opts.count && w->seen >= w->opts.count;
}

/*
 * What a read of records returned: @n records (n > 0) as they are; 0 when
 * there is nothing (EAGAIN, EINTR); -1 once the stream ended with ENODEV
 * (device removed), -2 on another error, said.
 */
static int read_result(struct watch *w, const struct watched *d, int n)
{
	if (n > 0)
		return n;
	if (errno == EAGAIN || errno == EINTR)
		return 0;
	if (errno == ENODEV)
		return -1;
	error(w, "%s: read: %s", d->name, strerror(errno));
	return -2;
}

/* The device's own records, n of them; as read_result(). */
static int read_node(struct watch *w, const struct watched *d,
		     struct ib_async_event *recs, int n)
{
	return read_result(w, d, ibasync_read_records(d->ctx, recs, n,
						      IBASYNC_READ_NONBLOCK));
}

/*
 * Drain what one device has ready. Returns 0 to go on, 1 once the device
 * is gone (end of stream), -1 on error.
 */
static int drain(struct watch *w, struct watched *d)
{
	struct ib_async_event recs[BATCH];
	int n;

	while (!count_reached(w)) {
		n = read_node(w, d, recs, BATCH);
		if (n == 0)
			return 0;
		if (n == -1) {
			/* followed, a device line says it */
			if (!w->opts.follow)
				error(w, "%s: device removed", d->name);
			return 1;
		}
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			const struct ib_async_event *r = &recs[i];

			if (!watch_type_selected(&w->opts, r->event_type))
				continue;
			if (emit_record(w, d, r, NULL))
				return -1;
			if (r->event_type != IB_ASYNC_EV_OVERFLOW)
				w->seen++;
			/* stop mid-batch: -n N means exactly N lines */
			if (count_reached(w))
				return 0;
		}
	}
	return 0;
}

/*
 * Drain what a device's event channel has ready, as drain() the node.
 * Records no subscription matched (cookie 0: overflow, and the
 * DEVICE_FATAL that ends every stream) are printed, not counted; nor
 * are state records. A state channel's records are larger, each
 * beginning with the record an ordinary channel has.
 */
static int drain_chan(struct watch *w, struct watched *d)
{
	struct ib_async_chan_state_event recs[BATCH];
	size_t size = d->state ? sizeof(recs[0]) :
		      sizeof(struct ib_async_chan_event);
	int n;

	while (!count_reached(w)) {
		n = read_result(w, d, ibasync_channel_read_records(d->chan,
				recs, size, BATCH, IBASYNC_READ_NONBLOCK));
		if (n == 0)
			return 0;
		if (n == -1) {
			if (!w->opts.follow)
				error(w, "%s: device removed", d->name);
			return 1;
		}
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			const struct ib_async_chan_event *x = (const void *)
				((const unsigned char *)recs + (size_t)i * size);

			if (d->state && x->event.event_type == IB_ASYNC_EV_STATE) {
				if (emit_state(w, d, (const void *)x))
					return -1;
				continue;
			}
			if (emit_record(w, d, &x->event, x))
				return -1;
			if (x->cookie &&
			    x->event.event_type != IB_ASYNC_EV_OVERFLOW)
				w->seen++;
			if (count_reached(w))
				return 0;
		}
	}
	return 0;
}

/*
 * With a channel, the context's own queue still takes every event: read
 * and drop them, lest it overflow and count losses in the device's
 * counters. Returns 1 once the device is gone, -1 on error.
 */
static int discard_node(struct watch *w, struct watched *d)
{
	struct ib_async_event recs[BATCH];
	int n;

	do {
		n = read_node(w, d, recs, BATCH);
	} while (n > 0);
	if (n == -1)
		return 1;
	return n < 0 ? -1 : 0;
}

/*
 * What a readable descriptor has, @chan: the device's channel, or its
 * node. As drain().
 */
static int service(struct watch *w, struct watched *d, bool chan)
{
	if (chan)
		return drain_chan(w, d);
	return d->chan ? discard_node(w, d) : drain(w, d);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static int poll_timeout(long long deadline)
{
	long long left;

	if (deadline < 0)
		return -1;
	left = deadline - now_ms();
	if (left <= 0)
		return 0;
	return left > 60000 ? 60000 : (int)left;
}

/* The wait, shortened to the metrics file's next write if one is due. */
static int wait_ms(const struct watch *w, int timeout)
{
	long long due = w->metrics ? watch_metrics_due(w->metrics) : -1;

	if (due < 0 || (timeout >= 0 && timeout <= due))
		return timeout;
	return (int)due;
}

/* Said, not fatal: the events are still printed or sent. */
static void metrics_flush(struct watch *w, bool force)
{
	if (w->metrics && watch_metrics_flush(w->metrics, force))
		error(w, "cannot write %s: %s", w->opts.metrics,
		      strerror(errno));
}

/* Whether the stream read from d (its channel, else its node) ended. */
static bool gone(const struct watched *d)
{
	return d->chan ? d->chan_done : d->node_done;
}

/* --follow: d is gone; said, closed, and its slot given to the last. */
static int drop_device(struct watch *w, size_t i)
{
	struct watched *d = &w->devs[i];
	int r = emit_device(w, d->name, WATCH_DEV_REMOVED, NULL, 0);

	if (w->metrics && d->metrics_dev >= 0)
		watch_metrics_remove_device(w->metrics, d->metrics_dev);
	close_one(d);
	w->devs[i] = w->devs[--w->ndevs];
	return r;
}

static struct watched *find_watched(struct watch *w, const char *node,
				    const char *name)
{
	for (size_t i = 0; i < w->ndevs; i++)
		if ((node && !strcmp(w->devs[i].node, node)) ||
		    (name && !strcmp(w->devs[i].name, name)))
			return &w->devs[i];
	return NULL;
}

/*
 * Open what the list has that is not watched yet (node: only that one),
 * each said with a device line. Returns 0 or -1 (said).
 */
static int add_new(struct watch *w, const char *node)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int ret = 0;

	if (!list) {
		error(w, "cannot list devices: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; !ret && list[i]; i++) {
		const char *n = list[i]->dev_name;

		if ((node && strcmp(n, node)) || find_watched(w, n, NULL))
			continue;
		ret = open_one(w, list[i]);
		if (!ret)
			ret = emit_device(w, w->devs[w->ndevs - 1].name,
					  WATCH_DEV_ADDED, n, 0);
		else if (ret > 0)
			ret = 0;	/* said; it may be gone already */
	}
	/* each context holds its device: the list can go */
	ibv_free_device_list(list);
	return ret;
}

static int rename_device(struct watch *w, struct watched *d, const char *name)
{
	char old[WATCH_NAME_MAX];

	memcpy(old, d->name, sizeof(old));
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (w->metrics && d->metrics_dev >= 0 &&
	    watch_metrics_rename_device(w->metrics, d->metrics_dev, name)) {
		error(w, "out of memory");
		return -1;
	}
	return emit_device(w, d->name, WATCH_DEV_RENAMED, old, 0);
}

/*
 * Uevents were lost: what was added, or renamed, is found again (a
 * removal is seen anyway, as the end of the device's stream).
 */
static int rescan(struct watch *w)
{
	struct ibv_device **list;
	int ret = 0;

	error(w, "device uevents lost: looking at the devices again");
	list = ibv_get_device_list(NULL);
	if (!list) {
		error(w, "cannot list devices: %s", strerror(errno));
		return -1;
	}
	/* each node's device now, by the name the library lists it under */
	for (size_t i = 0; !ret && i < w->ndevs; i++) {
		struct watched *d = &w->devs[i];

		for (size_t j = 0; list[j]; j++) {
			const char *name = ibv_get_device_name(list[j]);

			if (strcmp(list[j]->dev_name, d->node) ||
			    !strcmp(name, d->name))
				continue;
			ret = rename_device(w, d, name);
			break;
		}
	}
	ibv_free_device_list(list);
	return ret ? -1 : add_new(w, NULL);
}

/* Act on the uevents ready. Returns 0, or -1 (said). */
static int follow(struct watch *w)
{
	struct watch_uevent ev;
	struct watched *d;
	int r;

	while ((r = watch_uevent_read(w->uevent_fd, &ev)) > 0) {
		switch (ev.kind) {
		case WATCH_UEVENT_NODE_ADD:
			r = add_new(w, ev.name);
			break;
		case WATCH_UEVENT_NODE_REMOVE:
			d = find_watched(w, ev.name, NULL);
			/* its stream ended first; read what it still had */
			r = d ? service(w, d, d->chan != NULL) : 0;
			if (d && r >= 0)
				r = drop_device(w, (size_t)(d - w->devs));
			break;
		case WATCH_UEVENT_RENAME:
			d = find_watched(w, NULL, ev.old);
			r = d ? rename_device(w, d, ev.name) : 0;
			break;
		default:
			r = 0;
		}
		if (r < 0)
			return -1;
	}
	if (r < 0 && errno == ENOBUFS)
		return rescan(w);
	if (r < 0)
		error(w, "device uevents: %s", strerror(errno));
	return r;
}

static int netdev_line(const struct watch_netdev_ev *ev, void *arg)
{
	return emit_device(arg, ev->dev, ev->change, ev->netdev, ev->port);
}

/*
 * The netdev changes the RDMA monitor has ready, each a device line,
 * for any device (the attach of a new one comes before its node).
 */
static int follow_netdevs(struct watch *w)
{
	int r = watch_rdmamon_read(w->rdmamon_fd, netdev_line, w);

	if (r == -1 && errno == ENOBUFS) {
		error(w, "netdev changes lost: the RDMA monitor overflowed");
		return 0;
	}
	if (r == -1)
		error(w, "RDMA monitor: %s", strerror(errno));
	return r ? -1 : 0;
}

/*
 * The descriptors to wait on: each device's node, then its channel (fd
 * -1 if none or ended), then the uevent socket and the RDMA monitor
 * (-1 if not following, or the latter cannot be read).
 * Returns their number, or 0 (said) if out of memory.
 */
static size_t fill_pollfds(struct watch *w, struct pollfd **pfd)
{
	size_t nfds = 2 * w->ndevs + 2;
	struct pollfd *p = realloc(*pfd, nfds * sizeof(*p));

	if (!p) {
		error(w, "out of memory");
		return 0;
	}
	*pfd = p;
	for (size_t i = 0; i < w->ndevs; i++) {
		const struct watched *d = &w->devs[i];

		p[2 * i] = (struct pollfd){
			.fd = d->node_done ? -1 : d->ctx->async_fd,
			.events = POLLIN };
		p[2 * i + 1] = (struct pollfd){
			.fd = d->chan && !d->chan_done ?
			      ibasync_channel_fd(d->chan) : -1,
			.events = POLLIN,
		};
	}
	p[nfds - 2] = (struct pollfd){ .fd = w->uevent_fd, .events = POLLIN };
	p[nfds - 1] = (struct pollfd){ .fd = w->rdmamon_fd, .events = POLLIN };
	return nfds;
}

/*
 * Service the devices poll() found ready. Returns 0, or -1 on error.
 * Without --follow, the last device gone is an error; with it, a gone
 * device is said and dropped, after every descriptor was serviced.
 */
static int service_ready(struct watch *w, const struct pollfd *pfd,
			 size_t nfds)
{
	for (size_t i = 0; i + 2 < nfds; i++) {
		struct watched *d = &w->devs[i / 2];
		bool chan = i % 2, was = gone(d);
		int r;

		if (!pfd[i].revents || count_reached(w))
			continue;
		r = service(w, d, chan);
		if (r < 0)
			return -1;
		if (r > 0) {
			*(chan ? &d->chan_done : &d->node_done) = true;
			if (!w->opts.follow && !was && gone(d) &&
			    !--w->live) {
				error(w, "no devices left");
				return -1;
			}
		}
	}
	for (size_t i = w->ndevs; w->opts.follow && i-- > 0;)
		if (gone(&w->devs[i]) && drop_device(w, i))
			return -1;
	if (pfd[nfds - 2].revents && follow(w))
		return -1;
	if (pfd[nfds - 1].revents && follow_netdevs(w))
		return -1;
	return 0;
}

/* The event wait: a status for exit(). */
static int run(struct watch *w)
{
	long long deadline = w->opts.timeout_ms < 0 ? -1 :
			     now_ms() + w->opts.timeout_ms;
	struct pollfd *pfd = NULL;
	int ret = WATCH_EXIT_OK;

	w->live = w->ndevs;
	/* followed, every device watched is said, those of the start too */
	for (size_t i = 0; w->opts.follow && i < w->ndevs; i++)
		if (emit_device(w, w->devs[i].name, WATCH_DEV_ADDED,
				w->devs[i].node, 0))
			return WATCH_EXIT_ERROR;
	while (!stop && !count_reached(w)) {
		int timeout = poll_timeout(deadline), n;
		size_t nfds = fill_pollfds(w, &pfd);

		if (!nfds) {
			ret = WATCH_EXIT_ERROR;
			break;
		}
		if (deadline >= 0 && timeout == 0) {
			/* satisfied: -n not given and something was seen */
			if (w->opts.count || !w->seen)
				ret = WATCH_EXIT_TIMEOUT;
			break;
		}
		n = poll(pfd, nfds, wait_ms(w, timeout));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error(w, "poll: %s", strerror(errno));
			ret = WATCH_EXIT_ERROR;
			break;
		}
		metrics_flush(w, false);
		if (n > 0 && service_ready(w, pfd, nfds)) {
			ret = WATCH_EXIT_ERROR;
			break;
		}
	}
	free(pfd);
	metrics_flush(w, true);	/* the last events, however recent */
	return ret;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: poll() must return to see the flag */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct watch w = { .prog = "ib_async_watch", .uevent_fd = -1,
			   .rdmamon_fd = -1 };
	int ret;

	if (watch_parse_args(argc, argv, &w.opts, stderr)) {
		watch_usage_hint(stderr);
		watch_opts_free(&w.opts);
		return WATCH_EXIT_USAGE;
	}
	if (w.opts.help) {
		watch_usage(stdout, w.prog);
		watch_opts_free(&w.opts);
		return WATCH_EXIT_OK;
	}
	install_signals();
	ret = setup(&w) ? WATCH_EXIT_ERROR : run(&w);
	teardown(&w);
	return ret;
}

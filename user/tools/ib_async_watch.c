// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async_watch: print RDMA asynchronous events as ib_async delivers
 * them. Devices are found and opened through libibasync; records are then
 * read straight from the node, since struct ibv_async_event has no room
 * for the sequence number, timestamp or overflow count worth showing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/ib_async_shim.h>

#include "ibasync.h"
#include "watch.h"

#define BATCH 64		/* records per read() */

struct watched {
	struct ibv_context *ctx;
	const char *name;
};

struct watch {
	struct watch_opts opts;
	struct ibv_device **list;
	struct watched *devs;
	size_t ndevs;
	unsigned long long seen;	/* events printed, overflow excluded */
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

static int open_one(struct watch *w, struct ibv_device *dev)
{
	struct watched *d = &w->devs[w->ndevs];
	int fl;

	d->name = ibv_get_device_name(dev);
	d->ctx = ibv_open_device(dev);
	if (!d->ctx) {
		error(w, "cannot open %s for %s: %s", dev->dev_name, d->name,
		      strerror(errno));
		return -1;
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
	return 0;
}

static int select_devices(struct watch *w)
{
	size_t n = 0;

	while (w->list[n])
		n++;
	if (!w->opts.ndevices && !n) {
		error(w, "no RDMA devices with an ib_async node");
		return -1;
	}
	w->devs = calloc(n ? n : 1, sizeof(*w->devs));
	if (!w->devs) {
		error(w, "out of memory");
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
		if (open_one(w, w->list[i]))
			return -1;
	return 0;
}

static int setup(struct watch *w)
{
	char path[4096];
	int n;

	if (!ibasync_module_loaded()) {
		if (ibasync_path(path, sizeof(path), "%s", IBASYNC_CLASS_DIR))
			strcpy(path, IBASYNC_CLASS_DIR);
		error(w, "ib_async module not loaded: %s missing", path);
		return -1;
	}
	w->list = ibv_get_device_list(&n);
	if (!w->list) {
		error(w, "cannot list devices: %s", strerror(errno));
		return -1;
	}
	return select_devices(w);
}

static void teardown(struct watch *w)
{
	for (size_t i = 0; i < w->ndevs; i++)
		if (w->devs[i].ctx)
			ibv_close_device(w->devs[i].ctx);
	free(w->devs);
	if (w->list)
		ibv_free_device_list(w->list);
	watch_opts_free(&w->opts);
}

static int print_record(struct watch *w, const char *dev,
			const struct ib_async_event *rec)
{
	struct watch_clock now;
	char line[1024];
	int len;

	clock_gettime(CLOCK_MONOTONIC, &now.mono);
	clock_gettime(CLOCK_REALTIME, &now.real);
	len = watch_format(line, sizeof(line), dev, rec, &now, w->opts.json);
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

static bool count_reached(const struct watch *w)
{
	return w->opts.count && w->seen >= w->opts.count;
}

/*
 * Drain what one device has ready. Returns 0 to go on, 1 once the device
 * is gone (end of stream), -1 on error.
 */
static int drain(struct watch *w, struct watched *d)
{
	struct ib_async_event recs[BATCH];
	ssize_t n;

	while (!count_reached(w)) {
		n = read(d->ctx->async_fd, recs, sizeof(recs));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0 && errno == ENODEV) {
			error(w, "%s: device removed", d->name);
			return 1;
		}
		if (n <= 0 || n % (ssize_t)sizeof(recs[0])) {
			error(w, "%s: read: %s", d->name,
			      n < 0 ? strerror(errno) : "short record");
			return -1;
		}
		for (size_t i = 0; i < (size_t)n / sizeof(recs[0]); i++) {
			const struct ib_async_event *r = &recs[i];

			if (!watch_type_selected(&w->opts, r->event_type))
				continue;
			if (print_record(w, d->name, r))
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

/* The event wait: a status for exit(). */
static int run(struct watch *w)
{
	long long deadline = w->opts.timeout_ms < 0 ? -1 :
			     now_ms() + w->opts.timeout_ms;
	struct pollfd *pfd;
	size_t live = w->ndevs;
	int ret = WATCH_EXIT_OK;

	pfd = calloc(w->ndevs, sizeof(*pfd));
	if (!pfd)
		return error(w, "out of memory"), WATCH_EXIT_ERROR;
	for (size_t i = 0; i < w->ndevs; i++)
		pfd[i] = (struct pollfd){ .fd = w->devs[i].ctx->async_fd,
					  .events = POLLIN };
	while (!stop && !count_reached(w)) {
		int timeout = poll_timeout(deadline), n;

		if (deadline >= 0 && timeout == 0) {
			/* satisfied: -n not given and something was seen */
			if (w->opts.count || !w->seen)
				ret = WATCH_EXIT_TIMEOUT;
			break;
		}
		n = poll(pfd, w->ndevs, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error(w, "poll: %s", strerror(errno));
			ret = WATCH_EXIT_ERROR;
			break;
		}
		for (size_t i = 0; n > 0 && i < w->ndevs; i++) {
			int r;

			if (!pfd[i].revents)
				continue;
			r = drain(w, &w->devs[i]);
			if (r < 0) {
				ret = WATCH_EXIT_ERROR;
				goto out;
			}
			if (r > 0) {
				pfd[i].fd = -1;	/* poll() skips it */
				if (!--live) {
					error(w, "no devices left");
					ret = WATCH_EXIT_ERROR;
					goto out;
				}
			}
		}
	}
out:
	free(pfd);
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
	struct watch w = { .prog = "ib_async_watch" };
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

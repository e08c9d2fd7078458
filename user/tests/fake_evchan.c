// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * LD_PRELOAD helper of test_watch_cli.sh: ioctl() as a kernel with event
 * channels would answer it, over the fake tree (whose nodes are FIFOs,
 * which have no ioctls of their own).
 *
 *   GET_INFO        features READ_BATCH | EVENT_CHANNEL (and STATE if
 *                   $IBASYNC_FAKE_STATE is set), and
 *                   $IBASYNC_FAKE_PORTS ports (default 2)
 *   CREATE_CHANNEL  opens the FIFO $IBASYNC_FAKE_CHAN, into which the
 *                   test writes the channel's records
 *   SUBSCRIBE, SET_QUEUE_LEN   succeed
 *   QUERY_PORT      state $IBASYNC_FAKE_PORT_STATE (default 4, ACTIVE),
 *                   the same for every port; not logged
 *
 * Each of these requests is logged as a line in $IBASYNC_FAKE_LOG; every
 * other one goes to the system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/ib_async.h>

#include "fake_ioctl.h"

static int chan_fd = -1;
static unsigned int next_sub_id;

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void log_line(const char *fmt, ...)
{
	const char *path = getenv("IBASYNC_FAKE_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	const char *ports = getenv("IBASYNC_FAKE_PORTS");
	const char *fifo = getenv("IBASYNC_FAKE_CHAN");
	struct ib_async_create_channel *cc = arg;
	struct ib_async_queue_len *q = arg;
	struct ib_async_subscribe *s = arg;
	struct ib_async_port_attr *pa = arg;
	const char *state = getenv("IBASYNC_FAKE_PORT_STATE");
	struct ib_async_info *info;

	switch (req) {
	case IB_ASYNC_IOC_GET_INFO:
		info = fake_info(arg, IB_ASYNC_FEATURE_READ_BATCH |
				      IB_ASYNC_FEATURE_EVENT_CHANNEL |
				      (getenv("IBASYNC_FAKE_STATE") ?
				       IB_ASYNC_FEATURE_STATE : 0));
		info->phys_port_cnt = ports ? (unsigned int)atoi(ports) : 2;
		return 0;
	case IB_ASYNC_IOC_CREATE_CHANNEL:
		log_line("create type=%u flags=%u", cc->type, cc->flags);
		if (!fifo) {
			errno = EOPNOTSUPP;
			return -1;
		}
		/* O_RDWR: never an end of file, as the channel has none */
		chan_fd = open(fifo, O_RDWR | O_CLOEXEC |
			       (cc->flags & IB_ASYNC_CHANNEL_NONBLOCK ?
				O_NONBLOCK : 0));
		cc->fd = chan_fd;
		return chan_fd < 0 ? -1 : 0;
	case IB_ASYNC_IOC_SUBSCRIBE:
		log_line("subscribe fd=%s flags=%u port=%u types=%#llx cookie=%llu",
			 s->fd == chan_fd ? "chan" : "other", s->flags, s->port,
			 (unsigned long long)s->type_mask,
			 (unsigned long long)s->cookie);
		s->sub_id = ++next_sub_id;
		return 0;
	case IB_ASYNC_IOC_QUERY_PORT:
		pa->state = state ? (unsigned int)atoi(state) : 4;
		return 0;
	case IB_ASYNC_IOC_SET_QUEUE_LEN:
		log_line("queue_len fd=%s len=%u",
			 fd == chan_fd ? "chan" : "node", q->queue_len);
		return 0;
	}
	return FAKE_IOCTL_PASS;
}


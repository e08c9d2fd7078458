// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async_watch --follow: uevents, read straight from the kernel's
 * NETLINK_KOBJECT_UEVENT socket. No udevd is needed (test guests have
 * none) and nothing is polled: the kernel sends one message when an
 * ib_async node is added or removed (class ib_async) and one, "move"
 * with DEVPATH_OLD, when an RDMA device is renamed (class infiniband;
 * the node keeps its name, its ibdev attribute follows).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <infiniband/ib_async_shim.h>

#include "watch_follow.h"

#define UEVENT_GROUP_KERNEL 1	/* group 2 is udevd's re-broadcast */
#define UEVENT_BUF 8192		/* UEVENT_BUFFER_SIZE is 2048 */
#define RCVBUF (1 << 20)	/* a burst of link adds fits */

/* The last path component of a DEVPATH; "" if it would not fit. */
static void basename_to(char *dst, const char *devpath)
{
	const char *s = strrchr(devpath, '/');

	s = s ? s + 1 : devpath;
	if (snprintf(dst, WATCH_NAME_MAX, "%s", s) >= WATCH_NAME_MAX)
		dst[0] = '\0';
}

void watch_uevent_parse(const char *msg, size_t len, struct watch_uevent *ev)
{
	const char *action = "", *subsystem = "", *devpath = "", *old = "";
	const char *end = msg + len;

	memset(ev, 0, sizeof(*ev));
	/* fields are NUL-terminated; the header "ACTION@DEVPATH" is one */
	for (const char *p = msg; p < end; p += strnlen(p, end - p) + 1) {
		if (!memchr(p, '\0', end - p))
			break;	/* an unterminated tail: not a field */
		if (!strncmp(p, "ACTION=", 7))
			action = p + 7;
		else if (!strncmp(p, "SUBSYSTEM=", 10))
			subsystem = p + 10;
		else if (!strncmp(p, "DEVPATH=", 8))
			devpath = p + 8;
		else if (!strncmp(p, "DEVPATH_OLD=", 12))
			old = p + 12;
	}
	if (!*devpath)
		return;
	basename_to(ev->name, devpath);
	if (!ev->name[0])
		return;
	if (!strcmp(subsystem, "ib_async") && !strcmp(action, "add"))
		ev->kind = WATCH_UEVENT_NODE_ADD;
	else if (!strcmp(subsystem, "ib_async") && !strcmp(action, "remove"))
		ev->kind = WATCH_UEVENT_NODE_REMOVE;
	else if (!strcmp(subsystem, "infiniband") && !strcmp(action, "move") &&
		 *old) {
		basename_to(ev->old, old);
		if (ev->old[0])
			ev->kind = WATCH_UEVENT_RENAME;
	}
}

/*
 * Tests: a datagram socket in the fake tree (@root, libibasync's
 * ibasync_root_dir()) stands in for the kernel's.
 */
static int open_test_socket(const char *root)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/uevent", root) >=
	    (int)sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	unlink(a.sun_path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

int watch_uevent_open(void)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK,
				 .nl_groups = UEVENT_GROUP_KERNEL };
	int fd, sz = RCVBUF;

	if (*ibasync_root_dir())
		return open_test_socket(ibasync_root_dir());
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	/* best effort: a loss is seen (ENOBUFS) and repaired by a rescan */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

int watch_uevent_read(int fd, struct watch_uevent *ev)
{
	char buf[UEVENT_BUF];
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		mh.msg_namelen = sizeof(from);
		n = recvmsg(fd, &mh, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -1;
		/* on netlink, only the kernel (port 0) is believed */
		if (from.ss_family == AF_NETLINK &&
		    ((struct sockaddr_nl *)&from)->nl_pid)
			continue;
		watch_uevent_parse(buf, (size_t)n, ev);
		return 1;
	}
}

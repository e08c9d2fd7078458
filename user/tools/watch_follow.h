/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ib_async_watch --follow: the kernel's device notifications (uevents)
 * that say an ib_async node appeared or went, or an RDMA device was
 * renamed, and the device lines that report them.
 */
#ifndef IB_ASYNC_WATCH_FOLLOW_H
#define IB_ASYNC_WATCH_FOLLOW_H

#include "watch.h"

#define WATCH_NAME_MAX 64	/* IB_DEVICE_NAME_MAX, and a class name */

enum watch_uevent_kind {
	WATCH_UEVENT_OTHER,	/* not one the watcher acts on */
	WATCH_UEVENT_NODE_ADD,	/* an ib_async node appeared: name */
	WATCH_UEVENT_NODE_REMOVE, /* an ib_async node went: name */
	WATCH_UEVENT_RENAME,	/* an RDMA device old is now name */
};

struct watch_uevent {
	enum watch_uevent_kind kind;
	char name[WATCH_NAME_MAX];
	char old[WATCH_NAME_MAX];
};

/*
 * What one uevent message ("ACTION@DEVPATH\0KEY=VALUE\0...", len bytes)
 * says to the watcher. Always fills *ev (kind OTHER if nothing).
 */
void watch_uevent_parse(const char *msg, size_t len, struct watch_uevent *ev);

/*
 * A descriptor that receives the kernel's uevents (netlink, group 1),
 * or, under IBASYNC_TEST_ROOT, a datagram socket bound at ROOT/uevent
 * that tests send to. Non-blocking. Returns it, or -1 with errno.
 */
int watch_uevent_open(void);

/*
 * One uevent from fd into *ev: 1 if one was read, 0 if none is ready,
 * -1 with errno (ENOBUFS: some were lost, the caller rescans).
 */
int watch_uevent_read(int fd, struct watch_uevent *ev);

/* The changes a device line reports. */
enum watch_dev_change {
	WATCH_DEV_ADDED,	/* arg: the ib_async node's name */
	WATCH_DEV_REMOVED,	/* arg: unused */
	WATCH_DEV_RENAMED,	/* arg: the former name */
	WATCH_DEV_NETDEV_ATTACHED, /* arg: the netdev; port: its port */
	WATCH_DEV_NETDEV_DETACHED,
};

/* "DEVICE_ADDED"... */
const char *watch_dev_change_name(enum watch_dev_change c);

/*
 * One line (with '\n') saying device dev changed, at now: text or JSON
 * (an object with "kind":"device"); port only for a netdev change.
 * Returns the length, or -1 if buf is too small.
 */
int watch_format_device(char *buf, size_t len, const char *dev,
			enum watch_dev_change c, const char *arg,
			unsigned int port, const struct watch_clock *now,
			bool json);

/* A netdev change, as RDMA netlink's monitor reports it. */
struct watch_netdev_ev {
	enum watch_dev_change change;	/* NETDEV_ATTACHED or _DETACHED */
	char dev[WATCH_NAME_MAX];
	char netdev[WATCH_NAME_MAX];	/* "ifindexN" if it came unnamed */
	unsigned int port, ifindex;
};

/*
 * A descriptor on RDMA netlink's monitor group, non-blocking; -1 with
 * errno (EPERM without CAP_NET_ADMIN: then not reported).
 */
int watch_rdmamon_open(void);

typedef int (*watch_netdev_fn)(const struct watch_netdev_ev *ev, void *arg);

/*
 * Hand each netdev change ready on fd to fn. Returns 0 once none is
 * left, -2 if fn failed, -1 with errno (ENOBUFS: some were lost).
 */
int watch_rdmamon_read(int fd, watch_netdev_fn fn, void *arg);

#endif /* IB_ASYNC_WATCH_FOLLOW_H */

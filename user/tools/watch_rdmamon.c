// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async_watch --follow: a netdev attached to or detached from an RDMA
 * device, from RDMA netlink's monitor group (RDMA_NLDEV_CMD_MONITOR
 * messages, Linux 6.13 and later; what `rdma monitor` reads). Nothing
 * else tells it without polling: ib_async has no callback for it and
 * sysfs sends no uevent. Older kernels accept the subscription and never
 * send: their netdev changes are not reported.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watch_follow.h"

/*
 * The uAPI's values (include/uapi/rdma/rdma_netlink.h of 6.13), spelt
 * here: the rdma-core headers this builds against may predate them.
 */
#define NL_RDMA_NLDEV		5	/* RDMA_NL_NLDEV */
#define NL_GROUP_NOTIFY		4	/* RDMA_NL_GROUP_NOTIFY */
#define NLDEV_CMD_MONITOR	28	/* RDMA_NLDEV_CMD_MONITOR */
#define ATTR_DEV_NAME		2	/* string */
#define ATTR_PORT_INDEX		3	/* u32 */
#define ATTR_NDEV_INDEX		50	/* u32 */
#define ATTR_NDEV_NAME		51	/* string */
#define ATTR_EVENT_TYPE		102	/* u8 */
#define EV_NETDEV_ATTACH	2	/* enum rdma_nl_notify_event_type */
#define EV_NETDEV_DETACH	3

#define MON_BUF 8192

int watch_rdmamon_open(void)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK,
				 .nl_groups = 1U << (NL_GROUP_NOTIFY - 1) };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_RDMA);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void attr_str(const struct nlattr *a, char *buf)
{
	size_t n = a->nla_len - NLA_HDRLEN;

	if (n >= WATCH_NAME_MAX)
		n = WATCH_NAME_MAX - 1;
	memcpy(buf, (const char *)a + NLA_HDRLEN, n);
	buf[n] = '\0';
}

static uint32_t attr_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

/* One monitor message into *ev; false if it is not a netdev change. */
static bool parse(const struct nlmsghdr *h, struct watch_netdev_ev *ev)
{
	const struct nlattr *a = NLMSG_DATA(h);
	int len = (int)NLMSG_PAYLOAD(h, 0), type = -1;

	if (h->nlmsg_type != ((NL_RDMA_NLDEV << 10) + NLDEV_CMD_MONITOR))
		return false;
	memset(ev, 0, sizeof(*ev));
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case ATTR_DEV_NAME:	attr_str(a, ev->dev); break;
		case ATTR_NDEV_NAME:	attr_str(a, ev->netdev); break;
		case ATTR_PORT_INDEX:	ev->port = attr_u32(a); break;
		case ATTR_NDEV_INDEX:	ev->ifindex = attr_u32(a); break;
		case ATTR_EVENT_TYPE:
			if (a->nla_len > NLA_HDRLEN)
				type = *((const unsigned char *)a + NLA_HDRLEN);
			break;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a +
					    NLA_ALIGN(a->nla_len));
	}
	if (!ev->dev[0])
		return false;
	if (type == EV_NETDEV_ATTACH)
		ev->change = WATCH_DEV_NETDEV_ATTACHED;
	else if (type == EV_NETDEV_DETACH)
		ev->change = WATCH_DEV_NETDEV_DETACHED;
	else
		return false;	/* the rest, uevents tell */
	if (!ev->netdev[0] && ev->ifindex)
		snprintf(ev->netdev, sizeof(ev->netdev), "ifindex%u",
			 ev->ifindex);
	return true;
}

int watch_rdmamon_read(int fd, watch_netdev_fn fn, void *arg)
{
	char buf[MON_BUF];
	struct sockaddr_nl from;
	socklen_t fl;
	ssize_t n;

	for (;;) {
		struct watch_netdev_ev ev;
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		int len;

		fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &fl);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (from.nl_pid)	/* only the kernel's */
			continue;
		len = (int)n;
		for (; NLMSG_OK(h, (unsigned int)len); h = NLMSG_NEXT(h, len))
			if (parse(h, &ev) && fn(&ev, arg))
				return -2;
	}
}

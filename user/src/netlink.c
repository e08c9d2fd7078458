// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Finding the nodes through rdma netlink, as libibverbs finds uverbsN: a
 * dump of RDMA_NLDEV_CMD_GET lists the RDMA devices (index and name), and
 * RDMA_NLDEV_CMD_GET_CHARDEV with type "ib_async" names each one's node
 * and the uAPI version it speaks. Devices without a node are left out.
 * device.c falls back to the sysfs class when netlink cannot answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "ibasync.h"

#define NL_BUF	8192

struct nl_sock {
	int fd;
	uint32_t seq;
};

static void put_attr(struct nlmsghdr *h, size_t room, uint16_t type,
		     const void *data, uint16_t len)
{
	struct nlattr *a;

	if (NLMSG_ALIGN(h->nlmsg_len) + NLA_HDRLEN + NLA_ALIGN(len) > room)
		return;		/* our requests are far smaller */
	a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Call fn on each attribute of a message; stops at a malformed one. */
static void for_each_attr(const struct nlmsghdr *h,
			  void (*fn)(const struct nlattr *a, void *arg),
			  void *arg)
{
	const struct nlattr *a = NLMSG_DATA(h);
	int len = (int)NLMSG_PAYLOAD(h, 0);

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		fn(a, arg);
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a +
					    NLA_ALIGN(a->nla_len));
	}
}

static const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static void attr_str(const struct nlattr *a, char *buf, size_t len)
{
	size_t n = a->nla_len - NLA_HDRLEN;

	if (n >= len)
		n = len - 1;
	memcpy(buf, attr_data(a), n);
	buf[n] = '\0';
}

/*
 * Send one request and hand each answer message to fn until the kernel
 * says it is done. Returns 0, or -1 with errno (the kernel's error).
 */
static int nl_call(struct nl_sock *s, struct nlmsghdr *req,
		   void (*fn)(const struct nlmsghdr *h, void *arg), void *arg)
{
	char *buf = malloc(NL_BUF);
	int ret = -1;

	if (!buf)
		return -1;
	req->nlmsg_seq = ++s->seq;
	if (send(s->fd, req, req->nlmsg_len, 0) < 0)
		goto out;
	for (;;) {
		ssize_t len = recv(s->fd, buf, NL_BUF, 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		int n = (int)len;

		if (len < 0)
			goto out;
		for (; NLMSG_OK(h, (unsigned int)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != s->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				ret = 0;
				goto out;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				int err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;

				if (!err) {	/* the ACK after the answer */
					ret = 0;
					goto out;
				}
				errno = -err;
				goto out;
			}
			fn(h, arg);
		}
	}
out:
	free(buf);
	return ret;
}

struct dev_list {
	struct ibasync_nl_dev *devs;
	size_t n, cap;
	bool nomem;
};

static void dev_attr(const struct nlattr *a, void *arg)
{
	struct ibasync_nl_dev *d = arg;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
		memcpy(&d->index, attr_data(a), sizeof(d->index));
		break;
	case RDMA_NLDEV_ATTR_DEV_NAME:
		attr_str(a, d->ibdev, sizeof(d->ibdev));
		break;
	}
}

static void add_dev(const struct nlmsghdr *h, void *arg)
{
	struct dev_list *l = arg;
	struct ibasync_nl_dev d = { 0 };

	for_each_attr(h, dev_attr, &d);
	if (!d.ibdev[0])
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct ibasync_nl_dev *p = realloc(l->devs, cap * sizeof(*p));

		if (!p) {
			l->nomem = true;
			return;
		}
		l->devs = p;
		l->cap = cap;
	}
	l->devs[l->n++] = d;
}

static void chardev_attr(const struct nlattr *a, void *arg)
{
	struct ibasync_nl_dev *d = arg;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case RDMA_NLDEV_ATTR_CHARDEV_NAME:
		attr_str(a, d->node, sizeof(d->node));
		break;
	case RDMA_NLDEV_ATTR_CHARDEV_ABI:
		memcpy(&d->abi, attr_data(a), sizeof(d->abi));
		break;
	}
}

static void set_chardev(const struct nlmsghdr *h, void *arg)
{
	for_each_attr(h, chardev_attr, arg);
}

static int get_chardev(struct nl_sock *s, struct ibasync_nl_dev *d)
{
	union {
		struct nlmsghdr h;
		char buf[256];
	} req = { 0 };
	static const char type[] = "ib_async";

	req.h.nlmsg_len = NLMSG_HDRLEN;
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					    RDMA_NLDEV_CMD_GET_CHARDEV);
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	put_attr(&req.h, sizeof(req), RDMA_NLDEV_ATTR_DEV_INDEX, &d->index,
		 sizeof(d->index));
	put_attr(&req.h, sizeof(req), RDMA_NLDEV_ATTR_CHARDEV_TYPE, type,
		 sizeof(type));
	return nl_call(s, &req.h, set_chardev, d);
}

/*
 * The RDMA devices with an ib_async node, in *devs (free() it). Returns 0,
 * or -1 with errno when netlink cannot tell (no NETLINK_RDMA, an old
 * kernel): the caller then reads sysfs.
 */
int ibasync_nl_devices(struct ibasync_nl_dev **devs, size_t *num)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_HDRLEN,
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					       RDMA_NLDEV_CMD_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
	};
	struct timeval tv = { .tv_sec = 5 };
	struct dev_list l = { 0 };
	struct nl_sock s = { 0 };
	size_t n = 0;
	int err;

	s.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (s.fd < 0)
		return -1;
	/* a kernel that never answers must not hang device enumeration */
	setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (nl_call(&s, &req, add_dev, &l) || l.nomem) {
		err = l.nomem ? ENOMEM : errno;
		goto fail;
	}
	for (size_t i = 0; i < l.n; i++) {
		/* no node for it (being removed): leave it out */
		if (get_chardev(&s, &l.devs[i]) || !l.devs[i].node[0])
			continue;
		l.devs[n++] = l.devs[i];
	}
	close(s.fd);
	*devs = l.devs;
	*num = n;
	return 0;
fail:
	close(s.fd);
	free(l.devs);
	errno = err;
	return -1;
}

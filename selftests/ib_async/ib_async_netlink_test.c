// SPDX-License-Identifier: GPL-2.0
/*
 * rdma netlink reports the node: RDMA_NLDEV_CMD_GET_CHARDEV with chardev
 * type "ib_async" answers, for a device index, the node's dev_t, name and
 * uAPI version, as it does "uverbs" for ib_uverbs. Checked against what
 * the node itself (stat, GET_INFO) and sysfs say.
 */
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "lib/iba_util.h"

struct chardev {
	uint64_t devt;
	uint64_t abi;
	char name[64];
};

static void put_attr(struct nlmsghdr *h, uint16_t type, const void *data,
		     uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/*
 * Ask for the chardev @type of device @index (and @port, unless it is
 * ~0U). Returns 0, or the negative errno the kernel answered.
 */
static int get_chardev(uint32_t index, uint32_t port, const char *type,
		       struct chardev *out)
{
	union {
		struct nlmsghdr h;
		char buf[8192];
	} msg = { 0 };
	struct nlattr *a;
	struct nlmsghdr *h;
	int fd, len, ret = -EPROTO;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return -errno;
	msg.h.nlmsg_len = NLMSG_HDRLEN;
	msg.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					    RDMA_NLDEV_CMD_GET_CHARDEV);
	msg.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	msg.h.nlmsg_seq = 1;
	put_attr(&msg.h, RDMA_NLDEV_ATTR_DEV_INDEX, &index, sizeof(index));
	if (port != ~0U)
		put_attr(&msg.h, RDMA_NLDEV_ATTR_PORT_INDEX, &port, sizeof(port));
	put_attr(&msg.h, RDMA_NLDEV_ATTR_CHARDEV_TYPE, type, strlen(type) + 1);
	if (send(fd, &msg, msg.h.nlmsg_len, 0) < 0) {
		ret = -errno;
		goto out;
	}
	memset(out, 0, sizeof(*out));
	len = recv(fd, &msg, sizeof(msg), 0);
	for (h = &msg.h; len > 0 && NLMSG_OK(h, (unsigned int)len);
	     h = NLMSG_NEXT(h, len)) {
		int alen;

		if (h->nlmsg_type == NLMSG_ERROR) {
			ret = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			break;
		}
		alen = NLMSG_PAYLOAD(h, 0);
		for (a = NLMSG_DATA(h); alen >= NLA_HDRLEN &&
		     a->nla_len >= NLA_HDRLEN && a->nla_len <= alen;
		     alen -= NLA_ALIGN(a->nla_len),
		     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
			void *p = (char *)a + NLA_HDRLEN;

			switch (a->nla_type & NLA_TYPE_MASK) {
			case RDMA_NLDEV_ATTR_CHARDEV:
				memcpy(&out->devt, p, sizeof(out->devt));
				break;
			case RDMA_NLDEV_ATTR_CHARDEV_ABI:
				memcpy(&out->abi, p, sizeof(out->abi));
				break;
			case RDMA_NLDEV_ATTR_CHARDEV_NAME:
				snprintf(out->name, sizeof(out->name), "%s",
					 (char *)p);
				break;
			}
		}
		ret = 0;
	}
out:
	close(fd);
	return ret;
}

FIXTURE(nl) {
	struct iba_dev dev;
	struct ib_async_info info;
};

FIXTURE_SETUP(nl)
{
	int fd;

	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_get_info(fd, &self->info));
	close(fd);
}

FIXTURE_TEARDOWN(nl)
{
}

TEST_F(nl, get_chardev_names_the_node_of_the_device)
{
	struct chardev c;
	struct stat st;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, get_chardev(self->info.ibdev_index, ~0U, "ib_async", &c));
	ASSERT_EQ(0, stat(self->dev.node, &st));
	EXPECT_EQ((uint64_t)st.st_rdev, c.devt);
	EXPECT_EQ((uint64_t)IB_ASYNC_ABI_VERSION, c.abi);
	EXPECT_STREQ(strrchr(self->dev.node, '/') + 1, c.name);
}

/* One node per device, as for uverbs: a port-specific query is refused. */
TEST_F(nl, get_chardev_of_a_port_is_einval)
{
	struct chardev c;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-EINVAL, get_chardev(self->info.ibdev_index, 1, "ib_async",
				       &c));
}

/* Another device index does not answer with this node. */
TEST_F(nl, get_chardev_of_a_missing_device_fails)
{
	struct chardev c;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_NE(0, get_chardev(0x7ffffff0, ~0U, "ib_async", &c));
}

TEST_HARNESS_MAIN

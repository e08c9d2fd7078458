// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI and the calls ib_async does not support: GET_INFO contents,
 * argsz/flags/reserved checks, E2BIG for non-zero tails, EFAULT, ENOTTY,
 * write() and lseek(). Every rejected call must leave the file unchanged.
 */
#include <endian.h>
#include <sys/mman.h>

#include "lib/iba_util.h"

FIXTURE(ioc) {
	struct iba_dev dev;
	int fd;
	unsigned int queue_len;
};

FIXTURE_SETUP(ioc)
{
	struct ib_async_info info;

	self->fd = -1;
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	self->queue_len = info.queue_len;
}

FIXTURE_TEARDOWN(ioc)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* After a rejected call: queue length and queue as before. */
static void unchanged(struct __test_metadata *_metadata,
		      FIXTURE_DATA(ioc) *self)
{
	struct ib_async_info info;

	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(self->queue_len, info.queue_len);
	EXPECT_EQ(0ULL, info.lost);
}

TEST_F(ioc, get_info_describes_fresh_file)
{
	struct ib_async_info info;
	char path[PATH_MAX], guid[64];
	unsigned int g[4];
	long dql, mql;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ((uint32_t)IB_ASYNC_ABI_VERSION, info.abi_version);
	EXPECT_EQ((uint32_t)IB_ASYNC_EVENT_SIZE_V1, info.record_size);
	EXPECT_EQ(0U, info.queued);
	EXPECT_EQ(0ULL, info.lost);
	EXPECT_EQ(1ULL, info.next_seq);
	EXPECT_LE(1U, info.phys_port_cnt);
	EXPECT_EQ(0U, info.flags);
	EXPECT_EQ(0U, info.reserved);
	EXPECT_STREQ(self->dev.ibdev, info.ibdev_name);
	EXPECT_LE(info.queue_len, info.max_queue_len);
	dql = iba_read_long(IBA_PARAM_DIR "/default_queue_len");
	mql = iba_read_long(IBA_PARAM_DIR "/max_queue_len");
	if (dql > 0)
		EXPECT_EQ((uint32_t)dql, info.queue_len);
	if (mql > 0)
		EXPECT_EQ((uint32_t)mql, info.max_queue_len);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_guid",
		 self->dev.ibdev);
	if (!iba_read_line(path, guid, sizeof(guid)) &&
	    sscanf(guid, "%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3]) == 4) {
		uint64_t want = ((uint64_t)g[0] << 48) | ((uint64_t)g[1] << 32) |
				((uint64_t)g[2] << 16) | g[3];

		EXPECT_EQ(want, be64toh(info.node_guid));
	}
}

TEST_F(ioc, defaults_match_module_parameters)
{
	IBA_SKIPPED_IN_SETUP();
	if (access(IBA_PARAM_DIR "/default_queue_len", R_OK))
		SKIP(return, "no %s", IBA_PARAM_DIR);
	EXPECT_EQ(1024, iba_read_long(IBA_PARAM_DIR "/default_queue_len"));
	EXPECT_EQ(65536, iba_read_long(IBA_PARAM_DIR "/max_queue_len"));
}

TEST_F(ioc, unknown_ioctl_returns_enotty)
{
	char buf[256] = { 0 };

	IBA_SKIPPED_IN_SETUP();
	/* past the last command (of the second range), and below the first */
	EXPECT_EQ(-1, ioctl(self->fd, _IO(IB_ASYNC_IOC_MAGIC,
					  IB_ASYNC_CMD_POLLER + 1), buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(IB_ASYNC_IOC_MAGIC, 0xff), buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(IB_ASYNC_IOC_MAGIC,
					  IB_ASYNC_CMD_BASE - 1), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* a command's number under another type */
	EXPECT_EQ(-1, ioctl(self->fd, _IO(IB_ASYNC_IOC_MAGIC + 1,
					  IB_ASYNC_CMD_GET_INFO), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* the right number with a direction or size: uAPI 1's GET_INFO */
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR(IB_ASYNC_IOC_MAGIC,
					    IB_ASYNC_CMD_GET_INFO,
					    struct ib_async_info), buf));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(IB_ASYNC_IOC_MAGIC,
					   IB_ASYNC_CMD_GET_INFO,
					   struct ib_async_info), buf));
	EXPECT_EQ(ENOTTY, errno);
	unchanged(_metadata, self);
}

/*
 * Every command, its first size and its current size, from the header; a
 * doorbell takes a value, not a structure (value).
 */
static const struct {
	unsigned int nr;
	unsigned int min_size, size;
	bool value;
} every_cmd[] = {
#define CMD(name, st, min) { IB_ASYNC_CMD_##name, min, sizeof(struct st), false }
#define CMD_VALUE(name) { IB_ASYNC_CMD_##name, 0, 0, true }
	CMD(GET_INFO, ib_async_info, IB_ASYNC_INFO_SIZE_V1),
	CMD(SET_QUEUE_LEN, ib_async_queue_len, IB_ASYNC_QUEUE_LEN_SIZE_V1),
	CMD(READ_BATCH, ib_async_read_batch, IB_ASYNC_READ_BATCH_SIZE_V1),
	CMD(CREATE_PD, ib_async_create_pd, IB_ASYNC_CREATE_PD_SIZE_V1),
	CMD(CREATE_CQ, ib_async_create_cq, IB_ASYNC_CREATE_CQ_SIZE_V1),
	CMD(RESIZE_CQ, ib_async_resize_cq, IB_ASYNC_RESIZE_CQ_SIZE_V1),
	CMD(CREATE_QP, ib_async_create_qp, IB_ASYNC_CREATE_QP_SIZE_V1),
	CMD(MODIFY_QP, ib_async_qp_attr, IB_ASYNC_QP_ATTR_SIZE_V1),
	CMD(QUERY_QP, ib_async_qp_attr, IB_ASYNC_QP_ATTR_SIZE_V1),
	CMD(CREATE_SRQ, ib_async_create_srq, IB_ASYNC_CREATE_SRQ_SIZE_V1),
	CMD(MODIFY_SRQ, ib_async_srq_attr, IB_ASYNC_SRQ_ATTR_SIZE_V1),
	CMD(QUERY_SRQ, ib_async_srq_attr, IB_ASYNC_SRQ_ATTR_SIZE_V1),
	CMD(CREATE_WQ, ib_async_create_wq, IB_ASYNC_CREATE_WQ_SIZE_V1),
	CMD(MODIFY_WQ, ib_async_modify_wq, IB_ASYNC_MODIFY_WQ_SIZE_V1),
	CMD(CREATE_AH, ib_async_create_ah, IB_ASYNC_CREATE_AH_SIZE_V1),
	CMD(DESTROY, ib_async_destroy, IB_ASYNC_DESTROY_SIZE_V1),
	CMD(QUERY_DEVICE, ib_async_device_attr, IB_ASYNC_DEVICE_ATTR_SIZE_V1),
	CMD(QUERY_PORT, ib_async_port_attr, IB_ASYNC_PORT_ATTR_SIZE_V1),
	CMD(QUERY_GID, ib_async_query_gid, IB_ASYNC_QUERY_GID_SIZE_V1),
	CMD(QUERY_PKEY, ib_async_query_pkey, IB_ASYNC_QUERY_PKEY_SIZE_V1),
	CMD(POST_RECV, ib_async_post_recv, IB_ASYNC_POST_RECV_SIZE_V1),
	CMD(POST_SEND, ib_async_post_send, IB_ASYNC_POST_SEND_SIZE_V1),
	CMD(POLL_CQ, ib_async_poll_cq, IB_ASYNC_POLL_CQ_SIZE_V1),
	CMD(CREATE_CHANNEL, ib_async_create_channel,
	    IB_ASYNC_CREATE_CHANNEL_SIZE_V1),
	CMD(REQ_NOTIFY_CQ, ib_async_req_notify_cq,
	    IB_ASYNC_REQ_NOTIFY_CQ_SIZE_V1),
	CMD(REG_MR, ib_async_reg_mr, IB_ASYNC_REG_MR_SIZE_V1),
	CMD(POST_SEND_LIST, ib_async_post_list, IB_ASYNC_POST_LIST_SIZE_V1),
	CMD(POST_RECV_LIST, ib_async_post_list, IB_ASYNC_POST_LIST_SIZE_V1),
	CMD(SUBSCRIBE, ib_async_subscribe, IB_ASYNC_SUBSCRIBE_SIZE_V1),
	CMD(UNSUBSCRIBE, ib_async_unsubscribe, IB_ASYNC_UNSUBSCRIBE_SIZE_V1),
	CMD(MAP_RING, ib_async_map_ring, IB_ASYNC_MAP_RING_SIZE_V1),
	CMD(RING_WAIT, ib_async_ring_wait, IB_ASYNC_RING_WAIT_SIZE_V1),
	CMD(ATTACH_MCAST, ib_async_mcast, IB_ASYNC_MCAST_SIZE_V1),
	CMD(DETACH_MCAST, ib_async_mcast, IB_ASYNC_MCAST_SIZE_V1),
	CMD(MAP_CQ_RING, ib_async_map_cq_ring, IB_ASYNC_MAP_CQ_RING_SIZE_V1),
	CMD(CQ_WAIT, ib_async_cq_wait, IB_ASYNC_CQ_WAIT_SIZE_V1),
	CMD(MAP_WR_RING, ib_async_map_wr_ring, IB_ASYNC_MAP_WR_RING_SIZE_V1),
	CMD_VALUE(WR_DOORBELL),
	CMD(POLLER, ib_async_poller, IB_ASYNC_POLLER_SIZE_V1),
#undef CMD_VALUE
#undef CMD
};

/* argsz + flags: the head every argument structure starts with */
struct cmd_head {
	uint32_t argsz;
	uint32_t flags;
};

static int run_cmd(int fd, unsigned int nr, void *arg)
{
	return ioctl(fd, _IO(IB_ASYNC_IOC_MAGIC, nr), arg) ? errno : 0;
}

/*
 * The dispatcher's rules hold for every command in the table, before the
 * command looks at its own fields: argsz below the first version is
 * EINVAL; a larger structure with a non-zero byte past the kernel's end is
 * E2BIG; an unknown flag bit is EINVAL. Nothing is created or consumed.
 */
TEST_F(ioc, every_command_checks_argsz_tail_and_flags)
{
	unsigned char buf[512];
	struct cmd_head *h = (struct cmd_head *)buf;

	IBA_SKIPPED_IN_SETUP();
	/* the last command: one added later must join the table */
	ASSERT_EQ(IB_ASYNC_CMD_POLLER - IB_ASYNC_CMD_BASE + 1,
		  (int)ARRAY_SIZE(every_cmd));
	for (size_t i = 0; i < ARRAY_SIZE(every_cmd); i++) {
		unsigned int nr = every_cmd[i].nr;
		int ret;

		ASSERT_EQ(IB_ASYNC_CMD_BASE + (unsigned int)i, nr);
		if (every_cmd[i].value) {
			/*
			 * Nothing is read behind the value: 1 would fault
			 * as a pointer; as a doorbell it names handle 0.
			 */
			ret = run_cmd(self->fd, nr, (void *)1);
			EXPECT_TRUE(ret == ENOENT || ret == EOPNOTSUPP)
				TH_LOG("command 0x%x: %d", nr, ret);
			continue;
		}
		ASSERT_LE(every_cmd[i].min_size, every_cmd[i].size);
		memset(buf, 0, sizeof(buf));
		h->argsz = every_cmd[i].min_size - 1;
		EXPECT_EQ(EINVAL, run_cmd(self->fd, nr, buf))
			TH_LOG("command 0x%x, argsz %u", nr, h->argsz);
		h->argsz = 0;
		EXPECT_EQ(EINVAL, run_cmd(self->fd, nr, buf))
			TH_LOG("command 0x%x, argsz 0", nr);

		memset(buf, 0, sizeof(buf));
		h->argsz = every_cmd[i].size + 8;
		buf[every_cmd[i].size + 7] = 1;
		EXPECT_EQ(E2BIG, run_cmd(self->fd, nr, buf))
			TH_LOG("command 0x%x, non-zero tail", nr);

		memset(buf, 0, sizeof(buf));
		h->argsz = every_cmd[i].size;
		h->flags = 1U << 31;
		EXPECT_EQ(EINVAL, run_cmd(self->fd, nr, buf))
			TH_LOG("command 0x%x, unknown flag", nr);
	}
	unchanged(_metadata, self);
}

/* A caller built against a larger uAPI, with zeros past our end, works. */
TEST_F(ioc, larger_zero_tail_works_for_object_and_query_commands)
{
	struct {
		struct ib_async_create_pd pd;
		uint64_t future[4];
	} big = { .pd = { .argsz = sizeof(big) } };
	struct {
		struct ib_async_device_attr attr;
		uint64_t future[4];
	} dev = { .attr = { .argsz = sizeof(dev) } };

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, ioctl(self->fd, IB_ASYNC_IOC_QUERY_DEVICE, &dev));
	EXPECT_LE(1, dev.attr.phys_port_cnt);
	/* the kernel reports its own size and writes nothing past it */
	EXPECT_EQ((uint32_t)IB_ASYNC_DEVICE_ATTR_SIZE_V1, dev.attr.argsz);
	EXPECT_EQ(0ULL, dev.future[0] | dev.future[3]);
	if (ioctl(self->fd, IB_ASYNC_IOC_CREATE_PD, &big) && errno == EOPNOTSUPP)
		SKIP(return, "device without kernel verbs");
	EXPECT_NE(0U, big.pd.handle);
	EXPECT_EQ(0ULL, big.future[0] | big.future[3]);
}

/* The info command says what the module offers; nobody has to probe. */
TEST_F(ioc, get_info_reports_features)
{
	struct ib_async_create_pd pd = { .argsz = sizeof(pd) };
	struct ib_async_info info;
	int ret;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_NE(0ULL, info.features & IB_ASYNC_FEATURE_READ_BATCH);
	EXPECT_EQ(0ULL, info.features & ~(uint64_t)(IB_ASYNC_FEATURE_READ_BATCH |
						    IB_ASYNC_FEATURE_VERBS |
						    IB_ASYNC_FEATURE_RESIZE_CQ |
						    IB_ASYNC_FEATURE_COMP_CHANNEL |
						    IB_ASYNC_FEATURE_USER_MR |
						    IB_ASYNC_FEATURE_EVENT_CHANNEL |
						    IB_ASYNC_FEATURE_EVENT_RING |
						    IB_ASYNC_FEATURE_STATE |
						    IB_ASYNC_FEATURE_CQ_RING |
						    IB_ASYNC_FEATURE_WR_RING |
						    IB_ASYNC_FEATURE_POLLER));
	/* rings, event channels and states need no kernel verbs: every device */
	EXPECT_NE(0ULL, info.features & IB_ASYNC_FEATURE_EVENT_RING);
	EXPECT_NE(0ULL, info.features & IB_ASYNC_FEATURE_STATE);
	ret = ioctl(self->fd, IB_ASYNC_IOC_CREATE_PD, &pd) ? errno : 0;
	EXPECT_EQ(info.features & IB_ASYNC_FEATURE_VERBS ? 0 : EOPNOTSUPP, ret);
	/*
	 * Resizing, completion channels and user MRs need kernel verbs, which
	 * have them.
	 */
	if (!(info.features & IB_ASYNC_FEATURE_VERBS)) {
		EXPECT_EQ(0ULL, info.features & (IB_ASYNC_FEATURE_RESIZE_CQ |
						 IB_ASYNC_FEATURE_COMP_CHANNEL |
						 IB_ASYNC_FEATURE_USER_MR));
	} else {
		/* completion rings come with user memory */
		EXPECT_EQ(!!(info.features & IB_ASYNC_FEATURE_USER_MR),
			  !!(info.features & IB_ASYNC_FEATURE_CQ_RING));
		/* and submission rings too */
		EXPECT_EQ(!!(info.features & IB_ASYNC_FEATURE_USER_MR),
			  !!(info.features & IB_ASYNC_FEATURE_WR_RING));
		/* and the poller, which polls them */
		EXPECT_EQ(!!(info.features & IB_ASYNC_FEATURE_WR_RING),
			  !!(info.features & IB_ASYNC_FEATURE_POLLER));
		EXPECT_NE(0ULL, info.features & IB_ASYNC_FEATURE_COMP_CHANNEL);
	}
}

TEST_F(ioc, get_info_short_argsz_returns_einval)
{
	struct ib_async_info info = { .argsz = IB_ASYNC_INFO_SIZE_V1 - 1 };

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	info.argsz = 0;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, get_info_flags_returns_einval)
{
	struct ib_async_info info = { .argsz = sizeof(info), .flags = 1 };

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	info.flags = 0x80000000;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, get_info_reserved_returns_einval)
{
	struct ib_async_info info = { .argsz = sizeof(info), .reserved = 1 };

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &info));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

struct big_info {
	struct ib_async_info info;
	unsigned char tail[64];
};

TEST_F(ioc, get_info_larger_argsz_zero_tail_succeeds)
{
	struct big_info b;

	IBA_SKIPPED_IN_SETUP();
	memset(&b, 0, sizeof(b));
	b.info.argsz = sizeof(b);
	EXPECT_EQ(0, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &b));
	EXPECT_EQ(self->queue_len, b.info.queue_len);
	EXPECT_EQ((uint32_t)IB_ASYNC_ABI_VERSION, b.info.abi_version);
}

TEST_F(ioc, get_info_larger_argsz_garbage_tail_returns_e2big)
{
	struct big_info b;

	IBA_SKIPPED_IN_SETUP();
	memset(&b, 0, sizeof(b));
	b.info.argsz = sizeof(b);
	b.tail[sizeof(b.tail) - 1] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &b));
	EXPECT_EQ(E2BIG, errno);
	memset(&b, 0, sizeof(b));
	b.info.argsz = sizeof(b);
	b.tail[0] = 0xff;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, &b));
	EXPECT_EQ(E2BIG, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, get_info_bad_pointer_returns_efault)
{
	void *ro;

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	/* readable but not writable: the answer cannot be copied out */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	((struct ib_async_info *)ro)->argsz = sizeof(struct ib_async_info);
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_GET_INFO, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, 4096);
	unchanged(_metadata, self);
}

static int set_qlen_raw(int fd, struct ib_async_queue_len *q)
{
	return ioctl(fd, IB_ASYNC_IOC_SET_QUEUE_LEN, q);
}

TEST_F(ioc, set_queue_len_zero_returns_einval)
{
	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, iba_set_queue_len(self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, set_queue_len_above_max_returns_einval)
{
	struct ib_async_info info;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(-1, iba_set_queue_len(self->fd, info.max_queue_len + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, iba_set_queue_len(self->fd, 0xffffffffU));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, set_queue_len_flags_returns_einval)
{
	struct ib_async_queue_len q = {
		.argsz = sizeof(q), .flags = 1, .queue_len = 8,
	};

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, set_qlen_raw(self->fd, &q));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, set_queue_len_reserved_returns_einval)
{
	struct ib_async_queue_len q = {
		.argsz = sizeof(q), .queue_len = 8, .reserved = 1,
	};

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, set_qlen_raw(self->fd, &q));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, set_queue_len_short_argsz_returns_einval)
{
	struct ib_async_queue_len q = {
		.argsz = IB_ASYNC_QUEUE_LEN_SIZE_V1 - 1, .queue_len = 8,
	};

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, set_qlen_raw(self->fd, &q));
	EXPECT_EQ(EINVAL, errno);
	q.argsz = 0;
	EXPECT_EQ(-1, set_qlen_raw(self->fd, &q));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

struct big_qlen {
	struct ib_async_queue_len q;
	unsigned char tail[16];
};

TEST_F(ioc, set_queue_len_larger_argsz_garbage_tail_returns_e2big)
{
	struct big_qlen b;

	IBA_SKIPPED_IN_SETUP();
	memset(&b, 0, sizeof(b));
	b.q.argsz = sizeof(b);
	b.q.queue_len = 8;
	b.tail[3] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &b));
	EXPECT_EQ(E2BIG, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, set_queue_len_larger_argsz_zero_tail_succeeds)
{
	struct ib_async_info info;
	struct big_qlen b;

	IBA_SKIPPED_IN_SETUP();
	memset(&b, 0, sizeof(b));
	b.q.argsz = sizeof(b);
	b.q.queue_len = 8;
	EXPECT_EQ(0, ioctl(self->fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &b));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(8U, info.queue_len);
}

TEST_F(ioc, set_queue_len_bad_pointer_returns_efault)
{
	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_SET_QUEUE_LEN, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, IB_ASYNC_IOC_SET_QUEUE_LEN,
			    (void *)8));
	EXPECT_EQ(EFAULT, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, set_queue_len_accepts_one_and_max)
{
	struct ib_async_info info;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 1));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(1U, info.queue_len);
	ASSERT_EQ(0, iba_set_queue_len(self->fd, info.max_queue_len));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(info.max_queue_len, info.queue_len);
}

TEST_F(ioc, queue_len_is_per_file)
{
	struct ib_async_info info;
	int fd2;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 7));
	fd2 = open(self->dev.node, O_RDONLY);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, iba_get_info(fd2, &info));
	EXPECT_EQ(self->queue_len, info.queue_len);
	close(fd2);
}

TEST_F(ioc, fionread_bad_pointer_returns_efault)
{
	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, ioctl(self->fd, FIONREAD, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(ioc, write_is_not_supported)
{
	char buf[IBA_REC] = { 0 };

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	unchanged(_metadata, self);
}

TEST_F(ioc, lseek_returns_espipe)
{
	char buf[IBA_REC];

	IBA_SKIPPED_IN_SETUP();
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(-1, pread(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_F(ioc, sysfs_names_rdma_device)
{
	char path[PATH_MAX];
	struct stat st;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, stat(self->dev.node, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666U, st.st_mode & 0777);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s",
		 self->dev.ibdev);
	EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s names no RDMA device",
					       self->dev.ibdev);
}

TEST_HARNESS_MAIN

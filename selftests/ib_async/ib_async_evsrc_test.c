// SPDX-License-Identifier: GPL-2.0
/*
 * Events from the test-only software RDMA device ib_async_evsrc: every
 * unaffiliated type from process, softirq and hard-irq context on both
 * ports, a 10,000-event hard-irq burst, the raise file's input checks,
 * DEVICE_FATAL, and hot-unplug with a file open (ib_async's end-of-stream
 * semantics), then a new device.
 *
 * The tests run in order; the destructive ones (fatal, unregister) come
 * last, and the last unloads the module: at exit the program puts
 * ib_async_evsrc and evsrc0 back if it found them loaded (restore_test_bed).
 * Environment: IB_ASYNC_EVSRC_KO (the module to insmod).
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"
#include "lib/iba_uffd.h"

#define EVSRC_DEV	"evsrc0"

static const uint32_t port_types[] = {
	IB_ASYNC_EV_PORT_ACTIVE, IB_ASYNC_EV_PORT_ERR,
	IB_ASYNC_EV_LID_CHANGE, IB_ASYNC_EV_PKEY_CHANGE,
	IB_ASYNC_EV_SM_CHANGE, IB_ASYNC_EV_CLIENT_REREGISTER,
};

/* Write @s to a debugfs file of the module: 0 or -errno. */
static int evsrc_put(const char *file, const char *s)
{
	return iba_write_file(file, s, strlen(s), 0);
}

static int evsrc_wait_node(const char *ibdev, struct iba_dev *dev, int present,
			   int timeout_ms)
{
	uint64_t end = iba_now_ms() + timeout_ms;
	struct iba_dev tmp;

	for (;;) {
		int found = !iba_dev_of(ibdev, dev ? dev : &tmp);

		if (found == present &&
		    (!present || !access((dev ? dev : &tmp)->node, F_OK)))
			return 0;
		if (iba_now_ms() > end)
			return -1;
		iba_sleep_ms(20);
	}
}

/*
 * Add evsrc0 again after its unregister. That runs queued, and its name
 * stays taken (ENFILE) until the last of it is gone, a while after its
 * ib_async node: 0 once the new node is there, or -errno.
 */
static int evsrc_readd(void)
{
	uint64_t end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS;
	int ret;

	while ((ret = evsrc_put(IBA_EVSRC_DBG "/add", EVSRC_DEV)) == -ENFILE &&
	       iba_now_ms() < end)
		iba_sleep_ms(20);
	if (ret)
		return ret;
	return evsrc_wait_node(EVSRC_DEV, NULL, 1, IBA_EVENT_TIMEOUT_MS) ?
	       -ETIMEDOUT : 0;
}

/* Load the module if needed and make sure evsrc0 exists. */
static int evsrc_available(void)
{
	if (access(IBA_EVSRC_DBG, F_OK))
		iba_sh("mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null");
	if (iba_load_module("ib_async_evsrc"))
		return -1;
	if (access(IBA_EVSRC_DIR, F_OK) && evsrc_put(IBA_EVSRC_DBG "/add", EVSRC_DEV))
		return -1;
	return access(IBA_EVSRC_DIR "/raise", W_OK) ? -1 : 0;
}

/* ib_async's module reference count, as the kernel reports it; -1 if none. */
static long ib_async_refcnt(void)
{
	char buf[32];

	if (iba_read_line("/sys/module/ib_async/refcnt", buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/* The test bed as this program found it, and the process that found it. */
static pid_t main_pid;
static bool had_evsrc;

static void __attribute__((constructor)) note_test_bed(void)
{
	main_pid = getpid();
	had_evsrc = access("/sys/module/ib_async_evsrc", F_OK) == 0;
}

/*
 * At the harness's exit, in the parent only (tests run in children):
 * ib_async_evsrc and evsrc0 back if they were there, so that the programs
 * after this one, in any order, find the test bed as it was. What removal
 * gave up on in the tests holds ib_async only until the module goes.
 */
static void __attribute__((destructor)) restore_test_bed(void)
{
	if (getpid() != main_pid)
		return;
	if (had_evsrc) {
		if (evsrc_available())
			fprintf(stderr, "# could not load ib_async_evsrc and add %s again\n",
				EVSRC_DEV);
	} else if (!access("/sys/module/ib_async_evsrc", F_OK)) {
		iba_sh("rmmod ib_async_evsrc");
	}
}

FIXTURE(evsrc) {
	struct iba_dev dev;
	int fd;
};

FIXTURE_SETUP(evsrc)
{
	self->fd = -1;
	if (access(IBA_CLASS_DIR, F_OK))
		SKIP(return, "ib_async not loaded");
	if (geteuid())
		SKIP(return, "needs root for debugfs");
	if (evsrc_available())
		SKIP(return, "ib_async_evsrc.ko not available");
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, &self->dev, 1,
				     IBA_EVENT_TIMEOUT_MS))
		TH_LOG("no ib_async node for " EVSRC_DEV);
	self->fd = open(self->dev.node, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
}

FIXTURE_TEARDOWN(evsrc)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void check_port_rec(struct __test_metadata *_metadata,
			   const struct ib_async_event *ev, uint32_t type,
			   uint32_t port)
{
	EXPECT_EQ(type, ev->event_type)
		TH_LOG("got %s, want %s", iba_type_str(ev->event_type),
		       iba_type_str(type));
	EXPECT_EQ(port, ev->port_num);
	EXPECT_EQ((uint64_t)port, ev->element);
	EXPECT_EQ((uint32_t)IB_ASYNC_OBJ_PORT, ev->obj_type);
	EXPECT_EQ(0U, ev->obj_handle);
	EXPECT_EQ(1ULL, ev->count);
}

TEST_F_TIMEOUT(evsrc, unaffiliated_every_context, 300)
{
	struct ib_async_event ev;
	uint64_t seq = 0;
	size_t t, c;
	uint32_t port;

	IBA_SKIPPED_IN_SETUP();
	for (t = 0; t < sizeof(port_types) / sizeof(port_types[0]); t++)
		for (c = 0; c < iba_evsrc_ncontexts(); c++)
			for (port = 1; port <= 2; port++) {
				ASSERT_EQ(0, iba_evsrc_raise("%u port:%u %s",
							 port_types[t], port,
							 iba_evsrc_contexts[c]));
				ASSERT_EQ(0, iba_read_one(self->fd, &ev,
							  IBA_EVENT_TIMEOUT_MS))
					TH_LOG("%s port %u %s: nothing arrived",
					       iba_type_str(port_types[t]),
					       port, iba_evsrc_contexts[c]);
				check_port_rec(_metadata, &ev, port_types[t],
					       port);
				if (seq)
					EXPECT_EQ(seq + 1, ev.seq);
				seq = ev.seq;
			}
	/* names work as well as numbers, with the IB_EVENT_ prefix too */
	ASSERT_EQ(0, iba_evsrc_raise("IB_EVENT_SM_CHANGE port:2"));
	ASSERT_EQ(0, iba_read_one(self->fd, &ev, IBA_EVENT_TIMEOUT_MS));
	check_port_rec(_metadata, &ev, IB_ASYNC_EV_SM_CHANGE, 2);
	/* each raise waited for ib_wq: nothing else is in flight */
	EXPECT_EQ(0, iba_fionread(self->fd));
}

TEST_F_TIMEOUT(evsrc, device_speed_change_where_the_kernel_has_it, 120)
{
	int has = iba_btf_has("ib_core", "IB_EVENT_DEVICE_SPEED_CHANGE");
	struct ib_async_event ev;
	uint32_t port;
	size_t c;
	int ret;

	IBA_SKIPPED_IN_SETUP();
	ret = iba_evsrc_raise("DEVICE_SPEED_CHANGE port:1");
	if (has == 0 || (has < 0 && ret == -EINVAL)) {
		/* no driver can raise it here: the event source agrees */
		EXPECT_EQ(-EINVAL, ret);
		TH_LOG("this kernel has no DEVICE_SPEED_CHANGE%s",
		       has < 0 ? " (no BTF: the event source's word)" : "");
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("the kernel has the type, the event source not");
	ASSERT_EQ(0, iba_read_one(self->fd, &ev, IBA_EVENT_TIMEOUT_MS));
	check_port_rec(_metadata, &ev, IB_ASYNC_EV_DEVICE_SPEED_CHANGE, 1);
	for (c = 0; c < iba_evsrc_ncontexts(); c++)
		for (port = 1; port <= 2; port++) {
			ASSERT_EQ(0, iba_evsrc_raise("%u port:%u %s",
						 IB_ASYNC_EV_DEVICE_SPEED_CHANGE,
						 port, iba_evsrc_contexts[c]));
			ASSERT_EQ(0, iba_read_one(self->fd, &ev,
						  IBA_EVENT_TIMEOUT_MS))
				TH_LOG("port %u %s: nothing arrived", port,
				       iba_evsrc_contexts[c]);
			check_port_rec(_metadata, &ev,
				       IB_ASYNC_EV_DEVICE_SPEED_CHANGE, port);
		}
	EXPECT_EQ(0, iba_fionread(self->fd));
}

TEST_F_TIMEOUT(evsrc, hardirq_burst_10000, 300)
{
	const int total = 10000;
	struct ib_async_event *ev;
	int n = 0, i, bad = 0;
	ssize_t r;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_set_queue_len(self->fd, 16384));
	ev = calloc(total + 1, sizeof(*ev));
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, iba_evsrc_raise("LID_CHANGE port:2 %s %d", iba_evsrc_hard(), total));
	ASSERT_EQ(0, iba_wait_offered(self->fd, total, 60000));
	while (n <= total && (r = read(self->fd, ev + n,
				       (total + 1 - n) * sizeof(*ev))) > 0)
		n += (int)(r / IBA_REC);
	EXPECT_EQ(total, n);
	EXPECT_EQ(-1, iba_seq_continuous(ev, n));
	for (i = 0; i < n; i++)
		if (ev[i].event_type != IB_ASYNC_EV_LID_CHANGE ||
		    ev[i].port_num != 2 || ev[i].element != 2 ||
		    ev[i].count != 1)
			bad++;
	EXPECT_EQ(0, bad);
	free(ev);
}

static void check_raise_fails(struct __test_metadata *_metadata,
			      const char *cmd, int err)
{
	EXPECT_EQ(err, evsrc_put(IBA_EVSRC_DIR "/raise", cmd))
		TH_LOG("'%s'", cmd);
}

TEST_F(evsrc, raise_rejects_bad_input)
{
	static const char *const einval[] = {
		"\n", "SM_CHANGE", "SM_CHANGE port", "SM_CHANGE port:",
		"SM_CHANGE port:x", "SM_CHANGE port:0", "SM_CHANGE port:3",
		"SM_CHANGE port:-1", "NO_SUCH port:1", "21 port:1",
		"99 port:1", "-1 port:1", "SM_CHANGE port:1 bogus",
		"SM_CHANGE port:1 hardirq 0", "SM_CHANGE port:1 1000001",
		"SM_CHANGE port:1 process 1 extra",
		"SM_CHANGE port:1 5 hardirq",
		/* GID_CHANGE: 6.1's GID cache swallows a dispatched one */
		"GID_CHANGE port:1", "18 port:1",
		/* the type decides the target kind */
		"QP_FATAL port:1", "SM_CHANGE qp:1", "CQ_ERR qp:1",
		"SRQ_ERR cq:1", "WQ_FATAL srq:1", "QP_FATAL wq:1",
		"QP_FATAL mr:1", "QP_FATAL qp:x",
		/* completions (COMP) only ever target a CQ */
		"COMP port:1", "COMP qp:1", "COMP srq:1", "COMP wq:1",
		"COMP cq:1 hardirq 0", "COMPX cq:1",
	};
	static const char *const enoent[] = {
		"QP_FATAL qp:9999999", "CQ_ERR cq:9999999",
		"SRQ_LIMIT_REACHED srq:9999999", "WQ_FATAL wq:9999999",
		"COMM_EST qp:0 softirq 5", "COMP cq:9999999 softirq 5",
	};
	char line[256];
	size_t i;
	FILE *f;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < sizeof(einval) / sizeof(einval[0]); i++)
		check_raise_fails(_metadata, einval[i], -EINVAL);
	for (i = 0; i < sizeof(enoent) / sizeof(enoent[0]); i++)
		check_raise_fails(_metadata, enoent[i], -ENOENT);
	if (iba_evsrc_rt())
		check_raise_fails(_metadata, "SM_CHANGE port:1 hardirq",
				  -EOPNOTSUPP);
	EXPECT_EQ(-EINVAL, evsrc_put(IBA_EVSRC_DIR "/fatal", "0"));
	EXPECT_EQ(-EINVAL, evsrc_put(IBA_EVSRC_DIR "/unregister", "x"));
	EXPECT_EQ(-EINVAL, evsrc_put(IBA_EVSRC_DBG "/add", "bad/name"));
	/* nothing was delivered by any of those */
	iba_sleep_ms(100);
	EXPECT_EQ(0, iba_fionread(self->fd));

	/* the object list is readable; every line is "<kind> <id> ..." */
	f = fopen(IBA_EVSRC_DIR "/objects", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char kind[8];
		unsigned int id;

		EXPECT_EQ(2, sscanf(line, "%7s %u", kind, &id)) TH_LOG("%s", line);
	}
	fclose(f);
}

/*
 * A device without the kernel verbs ib_core requires of kernel clients
 * (evsrc added with "nokverbs": no MR verbs) still gets a node and its
 * events; queries work, object commands are EOPNOTSUPP.
 */
TEST_F_TIMEOUT(evsrc, device_without_kernel_verbs_gets_events, 60)
{
	struct ib_async_port_attr port = { .argsz = sizeof(port),
					   .port_num = 1 };
	struct ib_async_event ev;
	struct ib_async_info info;
	struct iba_dev dev;
	uint32_t pd;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DBG "/add", "evsrc7 nokverbs"));
	ASSERT_EQ(0, evsrc_wait_node("evsrc7", &dev, 1, IBA_EVENT_TIMEOUT_MS));
	fd = open(dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_get_info(fd, &info));
	EXPECT_STREQ("evsrc7", info.ibdev_name);
	EXPECT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_QUERY_PORT, &port));
	EXPECT_EQ(-EOPNOTSUPP, iba_create_pd(fd, &pd));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DBG "/evsrc7/raise", "PORT_ERR port:1"));
	ASSERT_EQ(0, iba_read_one(fd, &ev, IBA_EVENT_TIMEOUT_MS));
	check_port_rec(_metadata, &ev, IB_ASYNC_EV_PORT_ERR, 1);
	close(fd);
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DBG "/evsrc7/unregister", "1"));
	EXPECT_EQ(0, evsrc_wait_node("evsrc7", NULL, 0, IBA_EVENT_TIMEOUT_MS));
}

/* A PD, a CQ and a QP of @type on @fd: 0 or -errno. */
static int evsrc_make_qp(int fd, uint32_t type, struct ib_async_create_qp *qp)
{
	uint32_t pd, cq;
	int ret;

	memset(qp, 0, sizeof(*qp));
	ret = iba_create_pd(fd, &pd);
	if (!ret)
		ret = iba_create_cq(fd, 1, 8, &cq);
	if (!ret)
		ret = iba_create_qp(fd, 2, pd, cq, type, qp);
	return ret;
}

/*
 * The primary path's port is checked as ib_uverbs checks it, on evsrc0's
 * two ports: INIT to RTR must name, in the address vector, the port the
 * QP was given at RESET to INIT; SQD to SQD takes a port and an address
 * vector only together, and an address vector alone moves the QP to its
 * port (QUERY_QP reads the driver's port back).
 */
TEST_F(evsrc, primary_path_port_checked_as_uverbs_does)
{
	struct ib_async_qp_attr a = { .port_num = 1 }, q;
	struct ib_async_create_qp qp;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, evsrc_make_qp(fd, IB_UVERBS_QPT_RC, &qp));
	ASSERT_EQ(0, iba_modify_qp(fd, qp.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
			       IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS, &a));

	memset(&a, 0, sizeof(a));
	a.path_mtu = 3;
	a.dest_qp_num = qp.qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.av.dlid = 1;
	a.av.port_num = 2;
	EXPECT_EQ(-EINVAL, iba_modify_qp(fd, qp.handle, 2, IB_ASYNC_QP_AV |
				     IB_ASYNC_QP_PATH_MTU |
				     IB_ASYNC_QP_DEST_QPN |
				     IB_ASYNC_QP_RQ_PSN |
				     IB_ASYNC_QP_MAX_DEST_RD_ATOMIC |
				     IB_ASYNC_QP_MIN_RNR_TIMER, &a))
		TH_LOG("RTR through port 2 for a QP of port 1");
	EXPECT_EQ(1, iba_query_qp_state(fd, qp.handle));	/* still INIT */
	a.av.port_num = 1;
	ASSERT_EQ(0, iba_modify_qp(fd, qp.handle, 2, IB_ASYNC_QP_AV |
			       IB_ASYNC_QP_PATH_MTU | IB_ASYNC_QP_DEST_QPN |
			       IB_ASYNC_QP_RQ_PSN |
			       IB_ASYNC_QP_MAX_DEST_RD_ATOMIC |
			       IB_ASYNC_QP_MIN_RNR_TIMER, &a));
	memset(&a, 0, sizeof(a));
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ASSERT_EQ(0, iba_modify_qp(fd, qp.handle, 3, IB_ASYNC_QP_TIMEOUT |
			       IB_ASYNC_QP_RETRY_CNT | IB_ASYNC_QP_RNR_RETRY |
			       IB_ASYNC_QP_SQ_PSN |
			       IB_ASYNC_QP_MAX_QP_RD_ATOMIC, &a));
	ASSERT_EQ(0, iba_modify_qp(fd, qp.handle, 4, 0, NULL));	/* SQD */

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.av.dlid = 2;
	a.av.port_num = 2;
	EXPECT_EQ(-EINVAL, iba_modify_qp(fd, qp.handle, 4, IB_ASYNC_QP_PORT |
				     IB_ASYNC_QP_AV, &a))
		TH_LOG("SQD to SQD: port 1 with a path through port 2");
	ASSERT_EQ(0, iba_modify_qp(fd, qp.handle, 4, IB_ASYNC_QP_AV, &a));
	q = (struct ib_async_qp_attr){ .argsz = sizeof(q),
				       .handle = qp.handle };
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_QUERY_QP, &q));
	EXPECT_EQ(4U, q.qp_state);
	EXPECT_EQ(2U, q.port_num) TH_LOG("the path's port is the QP's now");
	close(fd);
}

/*
 * An inline send carries no more than the QP was granted: evsrc0 grants
 * none, and its post (which refuses everything with EOPNOTSUPP) must not
 * even be asked. A driver that takes no inline data may ignore the flag
 * and read the entries, which point into the call's kernel buffer, after
 * the call.
 */
TEST_F(evsrc, inline_send_beyond_the_granted_size_is_refused)
{
	static const char msg[8] = "inline";
	struct ib_async_sge sge = { .addr = (uintptr_t)msg,
				    .length = sizeof(msg) };
	struct ib_async_send_wr w = {
		.num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_INLINE,
	};
	struct ib_async_create_qp qp;
	struct ib_async_post_list a = {
		.argsz = sizeof(a), .obj_type = IB_ASYNC_OBJ_QP, .count = 1,
		.wr_size = sizeof(w), .wrs = (uintptr_t)&w,
		.sges = (uintptr_t)&sge, .num_sges = 1,
	};
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, evsrc_make_qp(fd, IB_UVERBS_QPT_RC, &qp));
	EXPECT_EQ(0U, qp.max_inline_data);
	a.handle = qp.handle;
	EXPECT_EQ(-EINVAL, iba_ioc(fd, IB_ASYNC_IOC_POST_SEND_LIST, &a));
	EXPECT_EQ(0U, a.posted);
	close(fd);
}

/*
 * QUERY_PKEY passes the driver only indexes inside the port's P_Key table
 * (evsrc0 has one entry, and counts any query past it): mlx5 reads an
 * index past its table as "the whole table", which it wrote into the one
 * u16 the module gives it.
 */
TEST_F(evsrc, pkey_query_outside_the_table_never_reaches_the_driver)
{
	static const uint32_t bad[] = { 1, 2, 0xffff, 0x10000, 0xffffffff };
	struct ib_async_query_pkey k = { .argsz = sizeof(k), .port_num = 1 };
	char before[32], after[32];
	unsigned int i;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_read_line(IBA_EVSRC_DIR "/pkey_beyond_table", before,
				   sizeof(before)));
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_QUERY_PKEY, &k));
	EXPECT_EQ(0xffff, k.pkey);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		k.index = bad[i];
		EXPECT_EQ(-EINVAL, iba_ioc(fd, IB_ASYNC_IOC_QUERY_PKEY, &k))
			TH_LOG("index %#x", bad[i]);
	}
	ASSERT_EQ(0, iba_read_line(IBA_EVSRC_DIR "/pkey_beyond_table", after,
				   sizeof(after)));
	EXPECT_STREQ(before, after);
	close(fd);
}

/*
 * Hot-unplug of a device whose file has a completion channel, a CQ on it
 * and a reader blocked in read(): removal must not wait for the reader,
 * which wakes with ENODEV; the dead CQ's handle can still be destroyed.
 */
TEST_F_TIMEOUT(evsrc, unregister_wakes_a_blocked_channel_reader, 60)
{
	struct ib_async_create_channel ca = {
		.argsz = sizeof(ca), .type = IB_ASYNC_CHANNEL_COMP,
	};
	struct ib_async_create_cq cq = {
		.argsz = sizeof(cq), .flags = IB_ASYNC_CREATE_CQ_CHANNEL,
		.user_handle = 7, .cqe = 4,
	};
	struct iba_reader r = { .ret = 1 };
	struct pollfd p;
	struct iba_dev dev;
	pthread_t t;
	uint64_t t0;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DBG "/add", "evsrc8"));
	ASSERT_EQ(0, evsrc_wait_node("evsrc8", &dev, 1, IBA_EVENT_TIMEOUT_MS));
	fd = open(dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_CREATE_CHANNEL, &ca));
	r.fd = ca.fd;
	cq.comp_channel = ca.fd;
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_CREATE_CQ, &cq));
	ASSERT_EQ(0, pthread_create(&t, NULL, iba_reader_run, &r));
	iba_sleep_ms(200);

	t0 = iba_now_ms();
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DBG "/evsrc8/unregister", "1"));
	EXPECT_GT(5000ULL, iba_now_ms() - t0);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(ENODEV, r.err);
	p = (struct pollfd){ .fd = ca.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_NE(0, p.revents & POLLHUP);
	/* after removal a destroy only forgets the handle */
	EXPECT_EQ(0, iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq.handle, NULL));
	close(ca.fd);
	close(fd);
	EXPECT_EQ(0, evsrc_wait_node("evsrc8", NULL, 0, IBA_EVENT_TIMEOUT_MS));
}

struct closer {
	int fd;
	bool done;
};

static void *closer_run(void *arg)
{
	struct closer *c = arg;

	close(c->fd);
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Closing a context purges its CQs' completion events from their channel,
 * while a reader of that channel copies one out: here into a page whose
 * fault the test does not serve yet. The close once waited for that copy,
 * at first holding the device's disassociation lock, so that removal and
 * every command queued behind it waited for the user's page fault too.
 * Now nothing waits: the close purges the record from under the reader
 * and returns, and removal ends the other files' streams. Once its fault
 * is served the reader finds its record gone with its CQ and returns the
 * end of the channel's stream instead (EIO: its context was closed).
 */
TEST_F_TIMEOUT(evsrc, close_behind_a_stalled_channel_reader_lets_removal_run,
	       60)
{
	struct ib_async_create_channel ca = {
		.argsz = sizeof(ca), .type = IB_ASYNC_CHANNEL_COMP,
	};
	struct ib_async_create_cq cq = {
		.argsz = sizeof(cq), .flags = IB_ASYNC_CREATE_CQ_CHANNEL,
		.user_handle = 0xc10, .cqe = 4,
	};
	struct ib_async_req_notify_cq arm = { .argsz = sizeof(arm) };
	struct iba_stalled_read r = { .len = sizeof(struct ib_async_event) };
	struct closer c = { .fd = -1 };
	struct iba_stall sp;
	struct ib_async_info info;
	struct pollfd p;
	pthread_t rt, ct;
	uint64_t t0;
	int fd, id, hup, err;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_CREATE_CHANNEL, &ca));
	cq.comp_channel = ca.fd;
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_CREATE_CQ, &cq));
	id = iba_evsrc_find("cq", 0);
	ASSERT_LE(0, id);
	arm.handle = cq.handle;
	ASSERT_EQ(0, iba_ioc(fd, IB_ASYNC_IOC_REQ_NOTIFY_CQ, &arm));
	ASSERT_EQ(0, iba_evsrc_write("raise", "COMP cq:%d process 1", id));
	ASSERT_EQ(0, iba_get_info(ca.fd, &info));
	ASSERT_EQ(1U, info.queued);

	r.fd = ca.fd;
	err = iba_stall_reader(&r, &sp, &rt);
	if (err > 0)
		SKIP(return, "no userfaultfd");
	ASSERT_EQ(0, err);
	c.fd = fd;
	ASSERT_EQ(0, pthread_create(&ct, NULL, closer_run, &c));
	t0 = iba_now_ms();
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) &&
	       iba_now_ms() - t0 < 1000)
		iba_sleep_ms(5);
	EXPECT_TRUE(__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
		TH_LOG("close waited for the stalled reader");
	ASSERT_EQ(0, iba_get_info(ca.fd, &info));
	EXPECT_EQ(0U, info.queued);

	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/unregister", "1"));
	/* removal's last step ends the stream of the fixture's file */
	p = (struct pollfd){ .fd = self->fd, .events = POLLIN };
	hup = poll(&p, 1, 10000) == 1 && (p.revents & POLLHUP);
	EXPECT_TRUE(hup) TH_LOG("removal waited for the stalled reader");

	ASSERT_EQ(0, iba_stall_serve(&sp));
	ASSERT_EQ(0, pthread_join(rt, NULL));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EIO, r.err);
	EXPECT_EQ(0, iba_fdinfo(ca.fd, "delivered"));
	ASSERT_EQ(0, pthread_join(ct, NULL));
	close(ca.fd);
	iba_stall_free(&sp);
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, NULL, 0, IBA_EVENT_TIMEOUT_MS));
	/* The tests after this one want evsrc0 back. */
	ASSERT_EQ(0, evsrc_readd());
}

/*
 * A driver that grants a CQ more entries than asked: what the grant costs
 * beyond the estimate is charged once the CQ exists, and past the budget
 * the create fails with ENOMEM and the CQ is destroyed again, leaving the
 * driver nothing and the charge as it was.
 */
TEST_F(evsrc, cq_granted_beyond_the_budget_is_destroyed_again)
{
	int st, last = iba_evsrc_find("cq", 0);
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	/* 4 entries asked cost a page; 65536 granted, 16 MiB */
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/cqe_grant", "65536"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 256 << 10, 256 << 10 };
		long long before;
		uint32_t cq;
		int fd;

		if (iba_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(10);
		fd = open(self->dev.node, O_RDWR);
		if (fd < 0)
			_exit(11);
		before = iba_fdinfo(fd, "verbs-charged-bytes");
		if (iba_create_cq(fd, 1, 4, &cq) != -ENOMEM)
			_exit(12);
		if (iba_evsrc_find("cq", 0) != last)
			_exit(13);
		if (iba_fdinfo(fd, "verbs-charged-bytes") != before)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/cqe_grant", "0"));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * Removal destroys every object, but their records stay readable and
 * still count for them: the destroy that forgets a dead handle reports
 * the records read, and drops those not read. libibasync frees a CQ
 * only once that many events were acknowledged, so an event read after
 * removal and not yet acknowledged keeps the CQ's memory, which its ack
 * writes. Removal once stopped counting them: the destroy reported 0.
 */
TEST_F_TIMEOUT(evsrc, destroy_after_removal_reports_the_events_read, 60)
{
	struct ib_async_event ev;
	uint32_t cq1, cq2;
	uint64_t reported = 99;
	int fd, id1, id2;
	ssize_t n;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_create_cq(fd, 0xc1, 4, &cq1));
	id1 = iba_evsrc_find("cq", 0);
	ASSERT_EQ(0, iba_create_cq(fd, 0xc2, 4, &cq2));
	id2 = iba_evsrc_find("cq", 0);
	ASSERT_LT(id1, id2);
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d", IB_ASYNC_EV_CQ_ERR, id1));
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d", IB_ASYNC_EV_CQ_ERR, id2));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/unregister", "1"));
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, NULL, 0, IBA_EVENT_TIMEOUT_MS));

	/* removal may still be running: the records raised before it stay */
	n = read(fd, &ev, sizeof(ev));
	ASSERT_EQ(IBA_REC, n) TH_LOG("read right after removal: %zd (%s)", n,
				     n < 0 ? strerror(errno) : "short");
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev.event_type);
	EXPECT_EQ(cq1, ev.obj_handle);
	EXPECT_EQ(0, iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq1, &reported));
	EXPECT_EQ(1U, reported) TH_LOG("a record read after removal");
	/*
	 * cq2's record was not read: it goes, the end of the stream stays.
	 * Removal queues that end last, after it let commands in again (the
	 * destroys above): wait for it rather than read once.
	 */
	EXPECT_EQ(0, iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq2, &reported));
	EXPECT_EQ(0U, reported);
	ASSERT_EQ(0, iba_read_one(fd, &ev, IBA_EVENT_TIMEOUT_MS))
		TH_LOG("no record after the destroys: %s", strerror(errno));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_DEVICE_FATAL, ev.event_type);
	EXPECT_EQ(-1, read(fd, &ev, sizeof(ev)));
	EXPECT_EQ(ENODEV, errno);
	close(fd);
	/* The tests after this one want evsrc0 back. */
	ASSERT_EQ(0, evsrc_readd());
}

/* A PD, CQ and UD QP on @fd; the QP's number in *@qpn. */
static int evsrc_qp(int fd, uint32_t *qp, uint32_t *qpn)
{
	struct ib_async_create_qp a;
	int ret = evsrc_make_qp(fd, IB_UVERBS_QPT_UD, &a);

	*qp = a.handle;
	*qpn = a.qp_num;
	return ret;
}

/*
 * evsrc's fail_destroy file makes its next QP destroys fail with EIO. A
 * failed DESTROY changes nothing; close tries again, as ib_uverbs does,
 * so a driver that fails once leaves nothing behind.
 */
TEST_F(evsrc, driver_failing_destroy_changes_nothing_and_close_retries)
{
	uint32_t qp, qpn;
	int fd;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, evsrc_qp(fd, &qp, &qpn));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/fail_destroy", "1"));
	EXPECT_EQ(-EIO, iba_destroy(fd, IB_ASYNC_OBJ_QP, qp, NULL));
	EXPECT_LE(0, iba_query_qp_state(fd, qp));
	EXPECT_LE(0, iba_evsrc_find("qp", qpn));
	EXPECT_EQ(0, iba_destroy(fd, IB_ASYNC_OBJ_QP, qp, NULL));
	EXPECT_EQ(-1, iba_evsrc_find("qp", qpn));

	ASSERT_EQ(0, evsrc_qp(fd, &qp, &qpn));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/fail_destroy", "1"));
	close(fd);
	EXPECT_EQ(-1, iba_evsrc_find("qp", qpn));
}

/*
 * A driver that refuses every destroy at close: the file's objects (and
 * the queue their handlers push to) stay until removal tries again, so an
 * event on the QP after close touches nothing freed; removal destroys it.
 */
TEST_F_TIMEOUT(evsrc, driver_refusing_at_close_is_retried_at_removal, 120)
{
	uint32_t qp, qpn;
	int fd, id;
	long refs;

	IBA_SKIPPED_IN_SETUP();
	/* an open file holds the module (twice: its cdev and its fops) */
	refs = ib_async_refcnt();
	ASSERT_LT(0, refs);
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, evsrc_qp(fd, &qp, &qpn));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/fail_destroy", "1000000"));
	iba_sh("dmesg -c >/dev/null");
	close(fd);
	/* the QP's handlers are ib_async's: the closed file keeps the module */
	EXPECT_EQ(refs + 1, ib_async_refcnt());
	id = iba_evsrc_find("qp", qpn);
	ASSERT_LE(0, id);
	EXPECT_EQ(0, iba_evsrc_raise("QP_FATAL qp:%d", id));
	EXPECT_EQ(0, iba_evsrc_raise("COMM_EST qp:%d %s 100", id, iba_evsrc_hard()));
	EXPECT_EQ(0, iba_sh("dmesg | grep -q 'retrying at removal'"));

	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/fail_destroy", "0"));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/unregister", "1"));
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, NULL, 0,
				     IBA_EVENT_TIMEOUT_MS));
	EXPECT_NE(0, iba_sh("dmesg | grep -q 'abandoning them'"));
	/* removal destroyed the QP: the module is free to go again */
	EXPECT_EQ(refs, ib_async_refcnt());
	/* The tests after this one want evsrc0 back. */
	ASSERT_EQ(0, evsrc_readd());
}

/*
 * A driver refusing a destroy at removal (fail_destroy_cq): ib_async gives
 * the CQ up, as ib_uverbs does, and its handle is dead to every later
 * command. evsrc takes the CQ back and frees it as ib_core frees the
 * device (evsrc_reclaim()), so a DESTROY that still called the driver, or
 * touched the gone device's cgroup pool, would use freed memory: it only
 * forgets the handle, with the record read before counted for it.
 */
TEST_F_TIMEOUT(evsrc, object_removal_gives_up_is_dead_to_later_commands, 120)
{
	struct ib_async_event ev;
	uint64_t reported = 99;
	uint32_t cq;
	int fd, id;
	long refs;

	IBA_SKIPPED_IN_SETUP();
	fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, iba_create_cq(fd, 0xab, 4, &cq));
	id = iba_evsrc_find("cq", 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, iba_evsrc_raise("%u cq:%d", IB_ASYNC_EV_CQ_ERR, id));
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/fail_destroy_cq", "1000"));
	iba_sh("dmesg -c >/dev/null");
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/unregister", "1"));
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, NULL, 0, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(0, iba_sh("dmesg | grep -q 'abandoning them'"));
	EXPECT_EQ(0, iba_sh("dmesg | grep -q 'reclaimed 1 CQs'"));

	ASSERT_EQ(IBA_REC, read(fd, &ev, sizeof(ev)));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_CQ_ERR, ev.event_type);
	EXPECT_EQ(0xabU, ev.element);
	EXPECT_EQ(-ENODEV, iba_ioc(fd, IB_ASYNC_IOC_RESIZE_CQ,
			       &(struct ib_async_resize_cq){
				.argsz = sizeof(struct ib_async_resize_cq),
				.handle = cq, .cqe = 8 }));
	EXPECT_EQ(0, iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq, &reported));
	EXPECT_EQ(1U, reported);
	EXPECT_EQ(-ENOENT, iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq, NULL));
	ASSERT_EQ(IBA_REC, read(fd, &ev, sizeof(ev)));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_DEVICE_FATAL, ev.event_type);
	close(fd);

	/*
	 * evsrc kept the CQ, with ib_async's handlers: ib_async must not
	 * unload before evsrc does. The hold (one, however many objects)
	 * goes with evsrc's module and no sooner.
	 */
	refs = ib_async_refcnt();
	ASSERT_LT(0, refs);
	ASSERT_EQ(0, iba_sh("rmmod ib_async_evsrc"));
	EXPECT_EQ(refs - 1, ib_async_refcnt())
		TH_LOG("the abandoned CQ did not hold ib_async until its driver went");
	/* The tests after this one want evsrc and evsrc0 back. */
	ASSERT_EQ(0, evsrc_available());
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, NULL, 1, IBA_EVENT_TIMEOUT_MS));
}

/*
 * What is left of the caller's RLIMIT_MEMLOCK budget, as the kernel
 * grants it: the pages (read back from fdinfo) of the largest queue a
 * new file on @node can be resized to, beside its own queue of one event.
 * A page the budget lost anywhere makes it one page smaller.
 */
static long memlock_left(const char *node)
{
	struct ib_async_info info;
	uint32_t lo = 1, hi, mid;
	long pages;
	int fd = open(node, O_RDWR);

	if (fd < 0)
		return -1;
	if (iba_get_info(fd, &info) || iba_set_queue_len(fd, 1)) {
		close(fd);
		return -1;
	}
	hi = info.max_queue_len;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (iba_set_queue_len(fd, mid)) {
			hi = mid - 1;
			continue;
		}
		lo = mid;
		if (iba_set_queue_len(fd, 1))
			break;
	}
	pages = iba_set_queue_len(fd, lo) ? -1 :
		iba_fdinfo(fd, "memlock-pages");
	close(fd);
	return pages;
}

#define HELD_RECVS	4
#define HELD_LEN	(16 << 10)

/*
 * As a user without CAP_IPC_LOCK on a 1 MiB budget: post receives that a
 * device holds (hold_posts), have it refuse the QP's destroy
 * (fail_destroy) and remove it under the open file, so removal abandons
 * the QP with its requests; then close. Exit code: 0 or the failed step.
 */
static int abandoned_requests_charge(const char *node)
{
	static char buf[HELD_RECVS][HELD_LEN];
	struct ib_async_create_qp qp;
	struct iba_dev dev;
	long before, after;
	int fd, i;

	before = memlock_left(node);
	if (before <= 0)
		return 10;
	fd = open(node, O_RDWR);
	if (fd < 0 || evsrc_make_qp(fd, IB_UVERBS_QPT_UD, &qp))
		return 11;
	if (evsrc_put(IBA_EVSRC_DIR "/hold_posts", "1"))
		return 12;
	for (i = 0; i < HELD_RECVS; i++)
		if (iba_post_recv(fd, IB_ASYNC_OBJ_QP, qp.handle, i, buf[i],
			      HELD_LEN))
			return 13;
	if (iba_fdinfo(fd, "work-requests") != HELD_RECVS ||
	    iba_fdinfo(fd, "charged-bytes") < HELD_RECVS * HELD_LEN)
		return 14;
	if (memlock_left(node) > before - HELD_RECVS * HELD_LEN / 4096)
		return 15;

	if (evsrc_put(IBA_EVSRC_DIR "/fail_destroy", "1") ||
	    evsrc_put(IBA_EVSRC_DIR "/unregister", "1") ||
	    evsrc_wait_node(EVSRC_DEV, NULL, 0, IBA_EVENT_TIMEOUT_MS))
		return 16;
	/* the file still holds them, while the QP's handle lasts */
	if (iba_fdinfo(fd, "work-requests") != HELD_RECVS)
		return 17;
	close(fd);

	if (evsrc_readd() ||
	    evsrc_wait_node(EVSRC_DEV, &dev, 1, IBA_EVENT_TIMEOUT_MS))
		return 18;
	after = memlock_left(dev.node);
	printf("# memlock budget left: %ld pages before, %ld after\n",
	       before, after);
	return after == before ? 0 : 19;
}

/*
 * A driver refusing a QP's destroy at removal: ib_async abandons the QP
 * with the receives the device holds, as it must not free what the
 * device may still write into. Their charges go back when the file lets
 * the QP's handle go, once: the user's RLIMIT_MEMLOCK budget, read back
 * through the queue the kernel grants, is whole again, and the file ends
 * with nothing charged (ib_async_account_exit() WARNed and the budget
 * kept the pages before).
 */
TEST_F_TIMEOUT(evsrc, abandoned_requests_give_their_charge_back, 120)
{
	int st;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	iba_sh("dmesg -c >/dev/null");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 1 << 20, 1 << 20 };

		if (iba_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(1);
		_exit(abandoned_requests_charge(self->dev.node));
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	evsrc_put(IBA_EVSRC_DIR "/hold_posts", "0");
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, iba_sh("dmesg | grep -q 'abandoning them'"));
	EXPECT_EQ(0, iba_sh("dmesg | grep -q 'reclaimed 1 QPs'"));
	EXPECT_NE(0, iba_sh("dmesg | grep -q WARNING"));
	/* The tests after this one want evsrc0 back. */
	ASSERT_EQ(0, evsrc_wait_node(EVSRC_DEV, NULL, 1, IBA_EVENT_TIMEOUT_MS));
}

/*
 * Destructive from here on: evsrc0 creates nothing after fatal. The
 * driver's DEVICE_FATAL is the last record the file ever gets.
 */
TEST_F(evsrc, device_fatal_ends_the_stream)
{
	struct ib_async_event ev;
	struct ib_async_info info;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/fatal", "1"));
	ASSERT_EQ(0, iba_read_one(self->fd, &ev, IBA_EVENT_TIMEOUT_MS));
	/* dispatched on port 1, as mlx5's health handler does */
	check_port_rec(_metadata, &ev, IB_ASYNC_EV_DEVICE_FATAL, 1);
	/* nothing after it: not a port event, not a second fatal */
	ASSERT_EQ(0, iba_evsrc_raise("SM_CHANGE port:1 softirq"));
	ASSERT_EQ(0, iba_evsrc_raise("DEVICE_FATAL port:0 %s", iba_evsrc_hard()));
	iba_sleep_ms(100);
	EXPECT_EQ(0, iba_fionread(self->fd));
	ASSERT_EQ(0, iba_get_info(self->fd, &info));
	EXPECT_EQ(ev.seq + 1, info.next_seq) TH_LOG("events offered after the end");
	EXPECT_EQ(0ULL, info.lost);
	/* the device is still there: the stream is over, not the file */
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(-1, iba_set_queue_len(self->fd, 16));
	EXPECT_EQ(EBUSY, errno);
}

TEST_F_TIMEOUT(evsrc, unregister_ends_stream, 120)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	struct ib_async_event ev[8];
	struct iba_dev gone;
	uint64_t t0;
	ssize_t n;
	int i, fd2;

	IBA_SKIPPED_IN_SETUP();
	/* three records left unread when the device goes */
	ASSERT_EQ(0, iba_evsrc_raise("PKEY_CHANGE port:1 %s 3", iba_evsrc_hard()));
	ASSERT_EQ(0, iba_wait_queued(self->fd, 3, IBA_EVENT_TIMEOUT_MS));
	/* a second file, whose stream the driver's DEVICE_FATAL ended */
	fd2 = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, iba_evsrc_raise("DEVICE_FATAL port:1 process"));
	ASSERT_EQ(0, iba_wait_queued(fd2, 1, IBA_EVENT_TIMEOUT_MS));

	t0 = iba_now_ms();
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DIR "/unregister", "1"));
	/* queued: it must not wait for the open file */
	EXPECT_GT(5000ULL, iba_now_ms() - t0);
	/*
	 * The removal runs in the core's workqueue and ends the files' streams
	 * one after the other: wait for the hangup of both.
	 */
	p.events = 0;
	ASSERT_EQ(1, poll(&p, 1, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(POLLHUP, p.revents & POLLHUP);
	p.fd = fd2;
	ASSERT_EQ(1, poll(&p, 1, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ(POLLHUP, p.revents & POLLHUP);
	p.fd = self->fd;
	p.events = POLLIN;

	/* first file: 3 events, the driver's fatal, no second one */
	n = read(self->fd, ev, sizeof(ev));
	ASSERT_EQ(4 * IBA_REC, n);
	for (i = 0; i < 3; i++)
		check_port_rec(_metadata, &ev[i], IB_ASYNC_EV_PKEY_CHANGE, 1);
	check_port_rec(_metadata, &ev[3], IB_ASYNC_EV_DEVICE_FATAL, 1);
	EXPECT_EQ(-1, iba_seq_continuous(ev, 4));
	/* second file: exactly one DEVICE_FATAL, then the end */
	EXPECT_EQ(IBA_REC, read(fd2, ev, sizeof(ev)));
	check_port_rec(_metadata, &ev[0], IB_ASYNC_EV_DEVICE_FATAL, 1);
	EXPECT_EQ(-1, read(fd2, ev, sizeof(ev)));
	EXPECT_EQ(ENODEV, errno);
	close(fd2);

	EXPECT_EQ(-1, read(self->fd, ev, sizeof(ev)));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLHUP | POLLERR, p.revents & (POLLHUP | POLLERR));

	EXPECT_EQ(0, evsrc_wait_node(EVSRC_DEV, &gone, 0, IBA_EVENT_TIMEOUT_MS))
		TH_LOG("the ib_async node of " EVSRC_DEV " stayed");
	EXPECT_NE(0, access(self->dev.node, F_OK));
	/* the debugfs directory goes with the device (dealloc_driver) */
	t0 = iba_now_ms();
	while (!access(IBA_EVSRC_DIR, F_OK) && iba_now_ms() - t0 < IBA_EVENT_TIMEOUT_MS)
		iba_sleep_ms(20);
	EXPECT_NE(0, access(IBA_EVSRC_DIR, F_OK));
}

/*
 * Runs after unregister: setup adds evsrc0 again through the add file.
 * Then unloading the module with the file still open must not wait for it.
 */
TEST_F_TIMEOUT(evsrc, readd_then_unload, 120)
{
	struct ib_async_event ev;
	struct iba_dev gone;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_evsrc_raise("CLIENT_REREGISTER port:2"));
	ASSERT_EQ(0, iba_read_one(self->fd, &ev, IBA_EVENT_TIMEOUT_MS));
	check_port_rec(_metadata, &ev, IB_ASYNC_EV_CLIENT_REREGISTER, 2);
	EXPECT_EQ(1ULL, ev.seq);
	/* a second device with a generated name */
	ASSERT_EQ(0, evsrc_put(IBA_EVSRC_DBG "/add", ""));
	EXPECT_EQ(-ENFILE, evsrc_put(IBA_EVSRC_DBG "/add", EVSRC_DEV));

	ASSERT_EQ(0, iba_sh("rmmod ib_async_evsrc"));
	ASSERT_EQ(0, iba_read_one(self->fd, &ev, IBA_EVENT_TIMEOUT_MS));
	EXPECT_EQ((uint32_t)IB_ASYNC_EV_DEVICE_FATAL, ev.event_type);
	EXPECT_EQ(0ULL, ev.element);
	EXPECT_EQ(-1, read(self->fd, &ev, sizeof(ev)));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, evsrc_wait_node(EVSRC_DEV, &gone, 0, IBA_EVENT_TIMEOUT_MS));
	EXPECT_NE(0, access(IBA_EVSRC_DBG, F_OK));
}

TEST_HARNESS_MAIN

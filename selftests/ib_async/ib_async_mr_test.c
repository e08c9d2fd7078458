// SPDX-License-Identifier: GPL-2.0
/*
 * User memory regions (IB_ASYNC_IOC_REG_MR) on rxe: pages pinned and
 * charged as the kernel counts them (VmPin), the MR known to the RDMA core
 * with the keys and length REG_MR returned (`rdma resource show mr`),
 * RLIMIT_MEMLOCK enforced without CAP_IPC_LOCK, ib_uverbs' argument
 * checks, the opener-only rule, release at deregistration and close,
 * pinning that waits on the caller's page faults holding no lock, and
 * registrations the device fails (evsrc's rxe fault files).
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lib/iba_evsrc.h"
#include "lib/iba_verbs.h"
#include "lib/iba_uffd.h"

#define BUF_LEN		(256 * 1024)

/* Pages [addr, addr + len) spans, in kB. */
static long span_kb(uintptr_t addr, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t first = addr & ~(uintptr_t)(pg - 1);
	uintptr_t end = (addr + len + pg - 1) & ~(uintptr_t)(pg - 1);

	return (long)(end - first) / 1024;
}

static int reg_mr_raw(int fd, struct ib_async_reg_mr *a)
{
	a->argsz = sizeof(*a);
	return iba_ioc(fd, IB_ASYNC_IOC_REG_MR, a);
}

#define RW	(IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE | \
		 IB_UVERBS_ACCESS_REMOTE_READ)

FIXTURE(mr) {
	struct iba_dev dev;
	int fd;
	uint32_t pd;
	char *buf;
};

FIXTURE_SETUP(mr)
{
	self->fd = -1;
	self->buf = MAP_FAILED;
	if (iba_find_dev(&self->dev))
		SKIP(return, "no ib_async device (module not loaded?)");
	self->fd = open(self->dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", self->dev.node);
	if (!(iba_features(self->fd) & IB_ASYNC_FEATURE_USER_MR))
		SKIP(return, "%s: no IB_ASYNC_FEATURE_USER_MR",
		     self->dev.ibdev);
	ASSERT_EQ(0, iba_create_pd(self->fd, &self->pd));
	self->buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	memset(self->buf, 0x5a, BUF_LEN);
}

FIXTURE_TEARDOWN(mr)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, BUF_LEN);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(mr, pins_registers_and_releases)
{
	char *addr = self->buf + 100;
	size_t len = 40000;
	struct ib_async_reg_mr mr;
	long pin0, pin1;
	uint32_t rkey = 0;

	IBA_SKIPPED_IN_SETUP();
	pin0 = iba_vm_pin_kb();
	ASSERT_LE(0, pin0);
	ASSERT_EQ(0, iba_reg_mr(self->fd, self->pd, addr, len, RW, &mr));
	ASSERT_NE(0U, mr.handle);
	ASSERT_NE(0U, mr.lkey);
	pin1 = iba_vm_pin_kb();
	EXPECT_EQ(span_kb((uintptr_t)addr, len), pin1 - pin0);
	/* The core's own record: the length and keys REG_MR returned. */
	EXPECT_EQ((long)len, iba_core_mr_len(self->dev.ibdev, mr.lkey, &rkey));
	EXPECT_EQ(mr.rkey, rkey);

	/* The PD is in use; deregistration releases the pages. */
	EXPECT_EQ(-EBUSY, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
	EXPECT_EQ(-EINVAL, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, mr.handle, NULL));
	ASSERT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, mr.handle, NULL));
	EXPECT_EQ(pin0, iba_vm_pin_kb());
	EXPECT_EQ(-1, iba_core_mr_len(self->dev.ibdev, mr.lkey, NULL));
	EXPECT_EQ(-ENOENT, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, mr.handle, NULL));
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
}

TEST_F(mr, keys_are_distinct_and_close_unpins)
{
	struct ib_async_reg_mr a, b;
	uint32_t pd2;
	long pin0;
	int fd2;

	IBA_SKIPPED_IN_SETUP();
	pin0 = iba_vm_pin_kb();
	fd2 = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, iba_create_pd(fd2, &pd2));
	ASSERT_EQ(0, iba_reg_mr(fd2, pd2, self->buf, BUF_LEN, RW, &a));
	ASSERT_EQ(0, iba_reg_mr(fd2, pd2, self->buf, 4096,
			    IB_UVERBS_ACCESS_LOCAL_WRITE, &b));
	EXPECT_NE(a.lkey, b.lkey);
	EXPECT_NE(a.handle, b.handle);
	EXPECT_EQ(span_kb((uintptr_t)self->buf, BUF_LEN) + 4, iba_vm_pin_kb() - pin0);
	/* Closing the file deregisters both and unpins every page. */
	close(fd2);
	EXPECT_EQ(pin0, iba_vm_pin_kb());
	EXPECT_EQ(-1, iba_core_mr_len(self->dev.ibdev, a.lkey, NULL));
	EXPECT_EQ(-1, iba_core_mr_len(self->dev.ibdev, b.lkey, NULL));
}

TEST_F(mr, refuses_what_uverbs_refuses)
{
	struct ib_async_device_attr attr = { .argsz = sizeof(attr) };
	struct ib_async_reg_mr a;
	uint32_t cq;
	long pin0;

	IBA_SKIPPED_IN_SETUP();
	pin0 = iba_vm_pin_kb();
#define BASE(_a) do {							\
		memset(&(_a), 0, sizeof(_a));				\
		(_a).pd_handle = self->pd;				\
		(_a).addr = (_a).iova = (uintptr_t)self->buf;		\
		(_a).length = 4096;					\
		(_a).access = IB_UVERBS_ACCESS_LOCAL_WRITE;		\
	} while (0)
	BASE(a);
	a.iova += 8;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("iova offset");
	BASE(a);
	a.length = 0;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("length 0");
	BASE(a);
	a.length = ~0ULL;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("wraps");
	BASE(a);
	a.access = IB_UVERBS_ACCESS_REMOTE_WRITE;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("no local write");
	BASE(a);
	a.access = IB_UVERBS_ACCESS_REMOTE_ATOMIC;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("atomic, no lw");
	BASE(a);
	a.access |= 1U << 12;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("unknown bit");
	BASE(a);
	a.access |= IB_UVERBS_ACCESS_ON_DEMAND;
	EXPECT_EQ(-EOPNOTSUPP, reg_mr_raw(self->fd, &a)) TH_LOG("ODP");
	BASE(a);
	a.flags = 1;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("flags");
	BASE(a);
	a.reserved = 1;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("reserved");
	BASE(a);
	a.lkey = 1;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("lkey in");
	BASE(a);
	a.pd_handle = 0x7fffffff;
	EXPECT_EQ(-ENOENT, reg_mr_raw(self->fd, &a)) TH_LOG("no such pd");
	ASSERT_EQ(0, iba_create_cq(self->fd, 1, 4, &cq));
	BASE(a);
	a.pd_handle = cq;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("cq as pd");
	ASSERT_EQ(0, iba_ioc(self->fd, IB_ASYNC_IOC_QUERY_DEVICE, &attr));
	ASSERT_NE(0ULL, attr.max_mr_size);
	BASE(a);
	a.length = attr.max_mr_size + 1;
	EXPECT_EQ(-EINVAL, reg_mr_raw(self->fd, &a)) TH_LOG("over max_mr_size");
#undef BASE
	/* Nothing was pinned by any of them. */
	EXPECT_EQ(pin0, iba_vm_pin_kb());
}

TEST_F(mr, faults_on_unmapped_and_read_only_memory)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct ib_async_reg_mr mr;
	char *hole, *ro;
	long pin0;

	IBA_SKIPPED_IN_SETUP();
	pin0 = iba_vm_pin_kb();
	hole = mmap(NULL, 4 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, hole);
	ASSERT_EQ(0, munmap(hole, 4 * pg));
	EXPECT_EQ(-EFAULT, iba_reg_mr(self->fd, self->pd, hole, 4 * pg,
				  IB_UVERBS_ACCESS_LOCAL_WRITE, NULL));

	ro = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, iba_reg_mr(self->fd, self->pd, ro, 4 * pg,
				  IB_UVERBS_ACCESS_LOCAL_WRITE, NULL));
	/* Read-only access to read-only memory is fine, as with uverbs. */
	EXPECT_EQ(0, iba_reg_mr(self->fd, self->pd, ro, 4 * pg,
			    IB_UVERBS_ACCESS_REMOTE_READ, &mr));
	EXPECT_EQ(4 * pg / 1024, iba_vm_pin_kb() - pin0);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, mr.handle, NULL));
	munmap(ro, 4 * pg);
	EXPECT_EQ(pin0, iba_vm_pin_kb());
}

/*
 * A file mapped PROT_READ, MAP_SHARED: an MR without write access pins it
 * for reading, as ib_uverbs of 6.2 and later does. Pinned with FOLL_WRITE
 * and FOLL_FORCE (as ib_uverbs of 6.1 and ib_async before did), it is
 * EFAULT: a shared mapping cannot be written by force.
 */
TEST_F(mr, read_only_shared_file_mapping_registers_for_reading)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct ib_async_reg_mr mr;
	uint32_t rkey = 0;
	long pin0;
	char *ro;
	int mfd;

	IBA_SKIPPED_IN_SETUP();
	mfd = memfd_create("ib_async_mr_ro", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, 4 * pg));
	ro = mmap(NULL, 4 * pg, PROT_READ, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, ro);
	pin0 = iba_vm_pin_kb();
	ASSERT_LE(0, pin0);

	EXPECT_EQ(-EFAULT, iba_reg_mr(self->fd, self->pd, ro, 4 * pg,
				  IB_UVERBS_ACCESS_LOCAL_WRITE, NULL));
	EXPECT_EQ(pin0, iba_vm_pin_kb());
	ASSERT_EQ(0, iba_reg_mr(self->fd, self->pd, ro, 4 * pg,
			    IB_UVERBS_ACCESS_REMOTE_READ, &mr));
	EXPECT_EQ(4 * pg / 1024, iba_vm_pin_kb() - pin0);
	EXPECT_EQ(4 * pg, iba_core_mr_len(self->dev.ibdev, mr.lkey, &rkey));
	EXPECT_EQ(mr.rkey, rkey);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, mr.handle, NULL));
	EXPECT_EQ(pin0, iba_vm_pin_kb());
	munmap(ro, 4 * pg);
	close(mfd);
}

/*
 * evsrc's rxe fault files (ib_async_evsrc_rxefault.c), evsrc loaded for
 * the test if it was not: 0, *@loaded if the test loaded it; -1 without
 * kretprobes or evsrc, evsrc then unloaded again if the test loaded it.
 */
static int rxefault_ready(bool *loaded)
{
	*loaded = access("/sys/module/ib_async_evsrc", F_OK) != 0;
	if (iba_load_module("ib_async_evsrc"))
		return -1;
	if (!access(IBA_EVSRC_DBG "/fail_rxe_reg_mr", W_OK))
		return 0;
	/* a kernel without kretprobes: leave things as they were */
	if (*loaded)
		iba_sh("rmmod ib_async_evsrc");
	return -1;
}

/* Cancel what did not fail, and unload evsrc if the test loaded it. */
static void rxefault_done(bool loaded)
{
	iba_write_file(IBA_EVSRC_DBG "/fail_rxe_reg_mr", "0", 1, 0);
	iba_write_file(IBA_EVSRC_DBG "/fail_rxe_poll_cq", "0", 1, 0);
	if (loaded)
		iba_sh("rmmod ib_async_evsrc");
}

/*
 * The device completes a registration in error: EIO, the pages unpinned
 * at once, and the PD's registration QP, left in ERR, made ready again:
 * the next REG_MR on the PD registers.
 */
TEST_F(mr, registration_failed_by_the_device_leaves_the_pd_registering)
{
	struct ib_async_reg_mr mr;
	uint32_t rkey = 0;
	bool loaded;
	long pin0;

	IBA_SKIPPED_IN_SETUP();
	if (rxefault_ready(&loaded))
		SKIP(return, "no kretprobes or no evsrc: no rxe fault files");
	pin0 = iba_vm_pin_kb();
	ASSERT_LE(0, pin0);
	ASSERT_EQ(0, iba_write_file(IBA_EVSRC_DBG "/fail_rxe_reg_mr", "1", 1, 0));
	EXPECT_EQ(-EIO, iba_reg_mr(self->fd, self->pd, self->buf, BUF_LEN, RW,
			       NULL));
	EXPECT_EQ(pin0, iba_vm_pin_kb());

	EXPECT_EQ(0, iba_reg_mr(self->fd, self->pd, self->buf, BUF_LEN, RW, &mr))
		TH_LOG("the PD's registration QP stayed in ERR");
	EXPECT_EQ(span_kb((uintptr_t)self->buf, BUF_LEN),
		  iba_vm_pin_kb() - pin0);
	EXPECT_EQ(BUF_LEN, iba_core_mr_len(self->dev.ibdev, mr.lkey, &rkey));
	EXPECT_EQ(mr.rkey, rkey);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_MR, mr.handle, NULL));
	EXPECT_EQ(pin0, iba_vm_pin_kb());
	rxefault_done(loaded);
}

/*
 * Polling the registration's CQ fails: the request may still be queued,
 * so REG_MR says ETIMEDOUT and the pages stay pinned for the device until
 * the PD, and its QP, are destroyed; the PD registers nothing more.
 */
TEST_F(mr, registration_whose_completion_cannot_be_read_stays_pinned)
{
	long span = span_kb((uintptr_t)self->buf, BUF_LEN), pin0;
	bool loaded;

	IBA_SKIPPED_IN_SETUP();
	if (rxefault_ready(&loaded))
		SKIP(return, "no kretprobes or no evsrc: no rxe fault files");
	pin0 = iba_vm_pin_kb();
	ASSERT_LE(0, pin0);
	ASSERT_EQ(0, iba_write_file(IBA_EVSRC_DBG "/fail_rxe_poll_cq", "1", 1,
				    0));
	EXPECT_EQ(-ETIMEDOUT, iba_reg_mr(self->fd, self->pd, self->buf, BUF_LEN,
				     RW, NULL));
	EXPECT_EQ(span, iba_vm_pin_kb() - pin0)
		TH_LOG("unpinned while the device may still register them");
	EXPECT_EQ(-EIO, iba_reg_mr(self->fd, self->pd, self->buf, 4096, RW, NULL));
	EXPECT_EQ(span, iba_vm_pin_kb() - pin0);
	EXPECT_EQ(0, iba_destroy(self->fd, IB_ASYNC_OBJ_PD, self->pd, NULL));
	EXPECT_EQ(pin0, iba_vm_pin_kb());
	rxefault_done(loaded);
}

TEST_F(mr, memlock_limit_without_cap_ipc_lock)
{
	int status;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		struct ib_async_reg_mr mr;
		int fd = open(self->dev.node, O_RDWR);
		uint32_t pd;

		if (fd < 0 || iba_create_pd(fd, &pd) || iba_drop_ipc_lock() ||
		    setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(10);
		/* 256 KiB is past the 64 KiB limit... */
		if (iba_reg_mr(fd, pd, self->buf, BUF_LEN, RW, NULL) != -ENOMEM)
			_exit(11);
		if (iba_vm_pin_kb() != 0)
			_exit(12);
		/* ...32 KiB is within it, and a second 32 KiB is not. */
		if (iba_reg_mr(fd, pd, self->buf, 32 * 1024, RW, &mr))
			_exit(13);
		if (iba_reg_mr(fd, pd, self->buf + 32 * 1024, 36 * 1024, RW,
			   NULL) != -ENOMEM)
			_exit(14);
		if (iba_vm_pin_kb() != 32)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(mr, only_the_opener_registers)
{
	int status;
	pid_t pid;

	IBA_SKIPPED_IN_SETUP();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The parent's file, the child's memory. */
		if (iba_reg_mr(self->fd, self->pd, self->buf, 4096, RW, NULL) !=
		    -EPERM)
			_exit(1);
		_exit(iba_vm_pin_kb() == 0 ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

struct stuck_reg {
	int fd;
	uint32_t pd;
	void *addr;
	size_t len;
	int ret;
	struct ib_async_reg_mr mr;
};

static void *stuck_reg_mr(void *p)
{
	struct stuck_reg *c = p;

	c->ret = iba_reg_mr(c->fd, c->pd, c->addr, c->len, RW, &c->mr);
	return NULL;
}

/*
 * A registration of memory that userfaultfd has not filled waits in the
 * pin until the fault is answered. Pinning holds none of ib_async's
 * locks, so other commands on the same file, and other files, go on;
 * once the fault is answered the registration completes.
 */
TEST_F(mr, pinning_stuck_in_a_fault_holds_up_no_other_command)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stuck_reg call = { .fd = self->fd, .pd = self->pd,
				  .len = 2 * page, .ret = 1 };
	struct iba_stall st;
	uint32_t h, pd2;
	uint64_t t0, t1;
	pthread_t th;
	int err, fd2;

	IBA_SKIPPED_IN_SETUP();
	err = iba_stall_make(&st, 2 * page);
	if (err)
		SKIP(return, "no userfaultfd: %s", strerror(-err));

	call.addr = st.area;
	ASSERT_EQ(0, pthread_create(&th, NULL, stuck_reg_mr, &call));
	iba_sleep_ms(300);
	if (call.ret == -EFAULT) {
		/* 6.1's long-term pins fail on userfaultfd instead of waiting. */
		pthread_join(th, NULL);
		iba_stall_free(&st);
		SKIP(return, "long-term pins of this kernel do not wait for userfaultfd");
	}
	EXPECT_EQ(1, call.ret) TH_LOG("REG_MR did not wait for the fault");
	t0 = iba_now_ms();
	EXPECT_EQ(0, iba_create_pd(self->fd, &h));
	EXPECT_EQ(0, iba_create_cq(self->fd, 1, 8, &h));
	EXPECT_EQ(0, iba_reg_mr(self->fd, self->pd, self->buf, 4096, RW, NULL));
	fd2 = open(self->dev.node, O_RDWR);
	EXPECT_LE(0, fd2);
	EXPECT_EQ(0, iba_create_pd(fd2, &pd2));
	close(fd2);
	t1 = iba_now_ms();
	EXPECT_GT(1000u, t1 - t0) TH_LOG("commands waited %llu ms",
				      (unsigned long long)(t1 - t0));

	/* Answer the faults: the registration completes. */
	ASSERT_EQ(0, iba_stall_serve(&st));
	pthread_join(th, NULL);
	EXPECT_EQ(0, call.ret);
	EXPECT_NE(0U, call.mr.lkey);
	EXPECT_EQ(2 * page,
		  iba_core_mr_len(self->dev.ibdev, call.mr.lkey, NULL));
	iba_stall_free(&st);
}

/*
 * An MR whose REG_MR has not answered is not the file's yet: its key,
 * which the device already knows, is refused in a post as any key the
 * file did not get is, as its handle is by every other command. The key
 * is read from the core's record (rdma resource show, by a length no
 * other MR has) while the answer is held on a write-protected page.
 */
TEST_F_TIMEOUT(mr, a_key_is_posted_only_once_its_reg_mr_answered, 60)
{
	const uint32_t len = 5 * 4096;
	struct ib_async_reg_mr a = {
		.argsz = sizeof(a), .pd_handle = self->pd,
		.addr = (uintptr_t)self->buf, .iova = (uintptr_t)self->buf,
		.length = len, .access = IB_UVERBS_ACCESS_LOCAL_WRITE,
	};
	struct iba_stalled_cmd c = {
		.fd = self->fd, .cmd = IB_ASYNC_IOC_REG_MR, .ret = 1,
	};
	struct ib_async_recv_wr w = { .wr_id = 1, .num_sge = 1 };
	struct ib_async_sge s = { .addr = (uintptr_t)self->buf, .length = 64 };
	struct ib_async_create_qp qp;
	struct iba_stall st;
	pthread_t th;
	uint32_t cq;
	int err;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->fd, 1, 8, &cq));
	ASSERT_EQ(0, iba_create_qp(self->fd, 1, self->pd, cq,
				   IB_UVERBS_QPT_RC, &qp));
	ASSERT_EQ(0, iba_modify_qp(self->fd, qp.handle, 1,
				   IB_ASYNC_QP_PKEY_INDEX | IB_ASYNC_QP_PORT |
				   IB_ASYNC_QP_ACCESS_FLAGS,
				   &(struct ib_async_qp_attr){ .port_num = 1 }));
	err = iba_stall_answer(&c, &st, &a, sizeof(a), &th);
	if (err > 0)
		SKIP(return, "no write-protecting userfaultfd");
	ASSERT_EQ(0, err);

	/* registered, its answer on its way: the key is not the file's */
	ASSERT_EQ(0, iba_core_mr_lkey(self->dev.ibdev, len, &s.lkey));
	EXPECT_EQ(-EINVAL, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP,
					  qp.handle, &w, 1, &s, 1));

	ASSERT_EQ(0, iba_stall_unprotect(&st));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, c.ret);
	memcpy(&a, st.area, sizeof(a));
	EXPECT_EQ(s.lkey, a.lkey);
	/* answered: the same post is taken */
	EXPECT_EQ(0, iba_post_recvs(self->fd, IB_ASYNC_OBJ_QP, qp.handle,
				    &w, 1, &s, 1));
	iba_stall_free(&st);
}

TEST_HARNESS_MAIN

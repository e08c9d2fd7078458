// SPDX-License-Identifier: GPL-2.0
/*
 * Completion rings (IB_ASYNC_IOC_MAP_CQ_RING, IB_ASYNC_IOC_CQ_WAIT) on
 * rxe: completions reach the mapped ring with no POLL_CQ, in order and
 * each once; a full ring leaves the rest in the device, where POLL_CQ
 * still finds them; a consumer index the program makes up only stops its
 * own ring; the records cannot be mapped writable; a kernel-buffer
 * receive waits for POLL_CQ; the ring outlives its CQ while mapped and is
 * charged to RLIMIT_MEMLOCK; a child of fork() has no mapping and may not
 * fill the ring.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "lib/iba_rc_bed.h"
#include "lib/iba_cq_ring.h"

#define MEM_LEN		4096
#define SPIN_US		1000
/* How long a completion may take: rxe >= 6.4 completes on a workqueue. */
#define WAIT_MS		10000

/* CQ_WAIT: the ring's unconsumed completions, or -errno. */
static int cq_wait(int fd, uint32_t cq, uint32_t spin_us, uint32_t *flags)
{
	struct ib_async_cq_wait w = {
		.argsz = sizeof(w), .handle = cq, .spin_us = spin_us,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CQ_WAIT, &w);

	if (flags)
		*flags = w.ring_flags;
	return ret ?: (int)w.available;
}

/* Until the ring holds @n unconsumed (rxe >= 6.4 completes later). */
static int cq_wait_for(int fd, uint32_t cq, int n, uint32_t *flags)
{
	uint64_t end = iba_now_ms() + WAIT_MS;
	int avail = 0;

	while (avail >= 0 && avail < n && iba_now_ms() < end)
		avail = cq_wait(fd, cq, SPIN_US, flags);
	return avail;
}

static uint32_t produced(const struct iba_cq_ring *r)
{
	return __atomic_load_n(&r->h->producer, __ATOMIC_ACQUIRE);
}

/* Take the next completion from the ring, as a program does. */
static struct ib_async_wc take(struct iba_cq_ring *r)
{
	uint32_t i = r->c->consumer;
	struct ib_async_wc wc = r->recs[i & (r->h->entries - 1)];

	__atomic_store_n(&r->c->consumer, i + 1, __ATOMIC_RELEASE);
	return wc;
}

FIXTURE(cq_ring) {
	struct iba_rc_bed bed;
	struct iba_cq_ring r;
};

FIXTURE_SETUP(cq_ring)
{
	int ret = iba_rc_bed_open(&self->bed, IB_ASYNC_FEATURE_CQ_RING);

	if (ret > 0)
		SKIP(return, "no rxe node with IB_ASYNC_FEATURE_CQ_RING");
	ASSERT_EQ(0, ret);
	/* the library's QPs on a CQ of 16 */
	ASSERT_EQ(0, iba_rc_bed_up(&self->bed, 16, NULL, MEM_LEN));
}

FIXTURE_TEARDOWN(cq_ring)
{
	iba_cq_unmap(&self->r);
	iba_rc_bed_close(&self->bed);
}

/* @n receives on B, then @n signalled sends from A, 8 bytes each. */
static int exchange(FIXTURE_DATA(cq_ring) *self, uint32_t n)
{
	struct ib_async_recv_wr rw[4];
	struct ib_async_send_wr sw[4];
	struct ib_async_sge rs[4], ss[4];
	uint32_t i;
	int ret;

	for (i = 0; i < n; i++) {
		rw[i] = (struct ib_async_recv_wr){ .wr_id = 0x100 + i,
						   .num_sge = 1 };
		sw[i] = (struct ib_async_send_wr){
			.wr_id = 0x200 + i, .num_sge = 1,
			.opcode = IB_UVERBS_WR_SEND,
			.send_flags = IB_ASYNC_SEND_SIGNALED,
		};
		rs[i] = (struct ib_async_sge){ (uintptr_t)self->bed.mem + 2048 +
					       i * 8, 8, self->bed.mr.lkey };
		ss[i] = (struct ib_async_sge){ (uintptr_t)self->bed.mem +
					       i * 8, 8, self->bed.mr.lkey };
	}
	ret = iba_post_recvs(self->bed.fd, IB_ASYNC_OBJ_QP, self->bed.b.handle,
			     rw, n, rs, n);
	return ret ?: iba_post_sends(self->bed.fd, self->bed.a.handle, sw, n,
				     ss, n);
}

TEST_F(cq_ring, completions_reach_the_ring_with_no_poll)
{
	struct ib_async_wc wc[4], k;
	int seen_recv = 0, seen_send = 0, i;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 0, &self->r));
	/* the CQ's size plus one, rounded up: 16 asked, rxe grants more */
	EXPECT_LE(17U, self->r.h->entries);
	EXPECT_EQ(0U, self->r.h->entries & (self->r.h->entries - 1));
	EXPECT_EQ(sizeof(struct ib_async_wc), self->r.h->record_size);
	EXPECT_EQ(0U, produced(&self->r));
	memcpy(self->bed.mem, "ringring", 8);
	ASSERT_EQ(0, exchange(self, 1));
	ASSERT_EQ(2, cq_wait_for(self->bed.fd, self->bed.cq, 2, NULL));
	ASSERT_EQ(2U, produced(&self->r));
	for (i = 0; i < 2; i++) {
		k = take(&self->r);
		EXPECT_EQ(0U, k.status);
		if (k.wr_id == 0x100) {
			seen_recv++;
			EXPECT_EQ(128U, k.opcode);	/* IBV_WC_RECV */
			EXPECT_EQ(8U, k.byte_len);
			EXPECT_EQ(self->bed.b.qp_num, k.qp_num);
		} else {
			seen_send++;
			EXPECT_EQ(0x200U, k.wr_id);
			EXPECT_EQ(0U, k.opcode);	/* IBV_WC_SEND */
			EXPECT_EQ(self->bed.a.qp_num, k.qp_num);
		}
	}
	EXPECT_EQ(1, seen_recv);
	EXPECT_EQ(1, seen_send);
	EXPECT_EQ(0, memcmp(self->bed.mem + 2048, "ringring", 8));
	/* delivered once: nothing is left for POLL_CQ or the ring */
	EXPECT_EQ(0, iba_poll_cq_once(self->bed.fd, self->bed.cq, wc, 4));
	EXPECT_EQ(0, cq_wait(self->bed.fd, self->bed.cq, 0, NULL));
	EXPECT_EQ(2U, produced(&self->r));
	EXPECT_EQ(0, iba_fdinfo(self->bed.fd, "work-requests"));
}

TEST_F(cq_ring, a_full_ring_leaves_the_rest_in_the_device)
{
	uint64_t ids[8];
	struct ib_async_wc wc[8];
	uint32_t flags = 0;
	int got = 0, n, i, j;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 2, &self->r));
	ASSERT_EQ(2U, self->r.h->entries);
	ASSERT_EQ(0, exchange(self, 4));
	/* 8 completions: the ring takes 2 and says it was full */
	ASSERT_EQ(2, cq_wait_for(self->bed.fd, self->bed.cq, 2, &flags));
	EXPECT_EQ((uint32_t)IB_ASYNC_CQ_RING_FULL, flags);
	EXPECT_EQ(2U, produced(&self->r));
	/* consumed: the next CQ_WAIT moves the next two */
	ids[got++] = take(&self->r).wr_id;
	ids[got++] = take(&self->r).wr_id;
	ASSERT_EQ(2, cq_wait_for(self->bed.fd, self->bed.cq, 2, &flags));
	EXPECT_EQ(4U, produced(&self->r));
	ids[got++] = take(&self->r).wr_id;
	ids[got++] = take(&self->r).wr_id;
	/* the rest, still in the device, through POLL_CQ (after a while) */
	n = iba_poll_cq(self->bed.fd, self->bed.cq, wc, 8 - got);
	ASSERT_EQ(8 - got, n);
	for (j = 0; j < n; j++) {
		EXPECT_EQ(0U, wc[j].status);
		ids[got++] = wc[j].wr_id;
	}
	/* each of the eight exactly once */
	for (i = 0; i < 8; i++)
		for (j = i + 1; j < 8; j++)
			EXPECT_NE(ids[i], ids[j]);
	for (i = 0; i < 8; i++)
		EXPECT_TRUE((ids[i] & ~3ULL) == 0x100 || (ids[i] & ~3ULL) == 0x200);
	EXPECT_EQ(4U, produced(&self->r));
}

TEST_F(cq_ring, a_made_up_consumer_only_stops_its_own_ring)
{
	struct ib_async_wc wc[4];
	uint32_t flags;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 4, &self->r));
	/* ahead of the producer: the ring counts as full */
	self->r.c->consumer = 1000;
	ASSERT_EQ(0, exchange(self, 1));
	EXPECT_EQ(4, cq_wait(self->bed.fd, self->bed.cq, 0, &flags));
	EXPECT_EQ((uint32_t)IB_ASYNC_CQ_RING_FULL, flags);
	EXPECT_EQ(0U, produced(&self->r));
	/* far behind it: full as well */
	self->r.c->consumer = (uint32_t)-100;
	EXPECT_EQ(4, cq_wait(self->bed.fd, self->bed.cq, 0, &flags));
	EXPECT_EQ(0U, produced(&self->r));
	/* the completions wait in the device, where POLL_CQ finds them */
	EXPECT_EQ(2, iba_poll_cq(self->bed.fd, self->bed.cq, wc, 2));
	/* and a sane consumer again makes the ring work */
	self->r.c->consumer = 0;
	ASSERT_EQ(0, exchange(self, 1));
	EXPECT_EQ(2, cq_wait_for(self->bed.fd, self->bed.cq, 2, NULL));
	EXPECT_EQ(2U, produced(&self->r));
}

TEST_F(cq_ring, mapping_and_argument_rules)
{
	struct ib_async_cq_wait w = { .argsz = sizeof(w) };
	struct iba_cq_ring r2;
	uint32_t cq2;
	void *p;

	IBA_SKIPPED_IN_SETUP();
	/* no ring yet: CQ_WAIT has nothing to fill */
	EXPECT_EQ(-EINVAL, cq_wait(self->bed.fd, self->bed.cq, 0, NULL));
	EXPECT_EQ(-EINVAL, iba_cq_ask(self->bed.fd, self->bed.cq, 16385, &r2));
	EXPECT_EQ(-ENOENT, iba_cq_ask(self->bed.fd, 0x7777, 0, &r2));
	EXPECT_NE(0, iba_cq_ask(self->bed.fd, self->bed.pd, 0, &r2));
	memset(&r2, 0, sizeof(r2));
	r2.m.argsz = sizeof(r2.m);
	r2.m.handle = self->bed.cq;
	r2.m.flags = 1;
	EXPECT_EQ(-EINVAL,
		  iba_ioc(self->bed.fd, IB_ASYNC_IOC_MAP_CQ_RING, &r2.m));
	r2.m.flags = 0;
	r2.m.mmap_size = 1;
	EXPECT_EQ(-EINVAL,
		  iba_ioc(self->bed.fd, IB_ASYNC_IOC_MAP_CQ_RING, &r2.m));

	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 8, &self->r));
	EXPECT_EQ(-EBUSY, iba_cq_ask(self->bed.fd, self->bed.cq, 8, &r2));
	/* the records are the kernel's to write */
	p = mmap(NULL, self->r.m.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->bed.fd, (off_t)self->r.m.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	EXPECT_NE(0, mprotect((void *)self->r.h, self->r.m.mmap_size,
			      PROT_READ | PROT_WRITE));
	/* private, another size, another offset */
	p = mmap(NULL, self->r.m.mmap_size, PROT_READ, MAP_PRIVATE,
		 self->bed.fd, (off_t)self->r.m.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->r.m.mmap_size * 2, PROT_READ, MAP_SHARED,
		 self->bed.fd, (off_t)self->r.m.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->r.m.consumer_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->bed.fd,
		 (off_t)self->r.m.consumer_offset + 2 * sysconf(_SC_PAGESIZE));
	EXPECT_EQ(MAP_FAILED, p);
	/* CQ_WAIT's out fields and flags are 0 in */
	w.handle = self->bed.cq;
	w.available = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->bed.fd, IB_ASYNC_IOC_CQ_WAIT, &w));
	w.available = 0;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, iba_ioc(self->bed.fd, IB_ASYNC_IOC_CQ_WAIT, &w));
	/* a CQ of the file without a ring */
	ASSERT_EQ(0, iba_create_cq(self->bed.fd, 0xc1, 4, &cq2));
	EXPECT_EQ(-EINVAL, cq_wait(self->bed.fd, cq2, 0, NULL));
}

TEST_F(cq_ring, the_ring_outlives_its_cq_while_mapped)
{
	struct iba_cq_ring r2;
	uint32_t cq2;
	void *p;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->bed.fd, 0xc1, 4, &cq2));
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, cq2, 4, &r2));
	ASSERT_EQ(0, iba_destroy(self->bed.fd, IB_ASYNC_OBJ_CQ, cq2, NULL));
	/* still readable, never written again */
	EXPECT_EQ(4U, r2.h->entries);
	EXPECT_EQ(0U, produced(&r2));
	r2.c->consumer = 0;
	/* no new mapping finds it */
	p = mmap(NULL, r2.m.mmap_size, PROT_READ, MAP_SHARED, self->bed.fd,
		 (off_t)r2.m.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(-ENOENT, cq_wait(self->bed.fd, cq2, 0, NULL));
	iba_cq_unmap(&r2);
	/* the file's other CQ and its ring go on */
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 4, &self->r));
	ASSERT_EQ(0, exchange(self, 1));
	EXPECT_EQ(2, cq_wait_for(self->bed.fd, self->bed.cq, 2, NULL));
}

TEST_F(cq_ring, a_kernel_buffer_receive_waits_for_poll_cq)
{
	struct ib_async_post_recv pr = {
		.argsz = sizeof(pr), .obj_type = IB_ASYNC_OBJ_QP,
		.wr_id = 0x400, .addr = (uintptr_t)self->bed.mem + 1024,
		.length = 8,
	};
	struct ib_async_post_send ps = {
		.opcode = IB_UVERBS_WR_SEND, .wr_id = 0x500,
		.addr = (uintptr_t)self->bed.mem, .length = 8,
		.send_flags = IB_ASYNC_SEND_SIGNALED,
	};
	struct ib_async_wc wc[4], k;
	uint64_t end = iba_now_ms() + WAIT_MS;
	uint32_t flags = 0;
	int got = 0, in_ring = 0, n;
	bool recv_seen = false;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 8, &self->r));
	memcpy(self->bed.mem, "kbuf-rcv", 8);
	pr.handle = self->bed.b.handle;
	ps.handle = self->bed.a.handle;
	ASSERT_EQ(0, iba_ioc(self->bed.fd, IB_ASYNC_IOC_POST_RECV, &pr));
	ASSERT_EQ(0, iba_post_send(self->bed.fd, &ps));
	while (got < 2 && iba_now_ms() < end) {
		n = cq_wait(self->bed.fd, self->bed.cq, SPIN_US, &flags);
		ASSERT_LE(0, n);
		while (n-- > 0) {
			k = take(&self->r);
			/* the send's completion may go to the ring... */
			EXPECT_EQ(0x500U, k.wr_id);
			in_ring++;
			got++;
		}
		if (!(flags & IB_ASYNC_CQ_RING_POLL))
			continue;
		/* ...the receive's only through POLL_CQ, its data copied */
		n = iba_poll_cq_once(self->bed.fd, self->bed.cq, wc, 4);
		ASSERT_LE(1, n);
		EXPECT_EQ(0x400U, wc[0].wr_id);
		recv_seen = true;
		got += n;
	}
	EXPECT_EQ(2, got);
	EXPECT_TRUE(recv_seen);
	EXPECT_GE(1, in_ring);
	EXPECT_EQ(0, memcmp(self->bed.mem + 1024, "kbuf-rcv", 8));
}

TEST_F(cq_ring, a_child_of_fork_has_no_mapping_and_no_ring)
{
	unsigned char vec[1];
	pid_t pid;
	int status;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_cq_map(self->bed.fd, self->bed.cq, 8, &self->r));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct iba_cq_ring r2;
		uint32_t cq2;
		void *p;

		/* not the opener's memory: the kernel refuses to fill */
		if (cq_wait(self->bed.fd, self->bed.cq, 0, NULL) != -EPERM)
			_exit(10);
		/* the parent's mappings did not come along */
		if (mincore((void *)self->r.h, 4096, vec) != -1 ||
		    errno != ENOMEM)
			_exit(11);
		/* nor may it map them, or ask for a ring of its own */
		p = mmap(NULL, self->r.m.mmap_size, PROT_READ, MAP_SHARED,
			 self->bed.fd, (off_t)self->r.m.mmap_offset);
		if (p != MAP_FAILED || errno != EPERM)
			_exit(12);
		if (iba_create_cq(self->bed.fd, 0xc2, 4, &cq2))
			_exit(13);
		if (iba_cq_ask(self->bed.fd, cq2, 4, &r2) != -EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the parent's ring still works */
	ASSERT_EQ(0, exchange(self, 1));
	EXPECT_EQ(2, cq_wait_for(self->bed.fd, self->bed.cq, 2, NULL));
}

TEST_F(cq_ring, charged_to_rlimit_memlock)
{
	struct rlimit rl = { 0, 0 };
	struct iba_cq_ring r2;
	uint32_t cq2;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, iba_create_cq(self->bed.fd, 0xc2, 4, &cq2));
	/* this test's own process: the harness forks one per test */
	ASSERT_EQ(0, iba_drop_ipc_lock());
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(-ENOMEM, iba_cq_ask(self->bed.fd, cq2, 4, &r2));
	/* refused, nothing attached: it may be asked again */
	rl.rlim_cur = rl.rlim_max = 1 << 20;
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(0, iba_cq_map(self->bed.fd, cq2, 4, &r2));
	iba_cq_unmap(&r2);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * One-sided RDMA through libibasync, as an rdma-core program does it:
 * ibv_reg_mr() gives the kernel's MR (the RDMA core knows it by the same
 * lkey and length), and ibv_post_send() with RDMA WRITE, WRITE_WITH_IMM,
 * READ and both atomics moves data the device itself puts in the
 * program's memory (seen there before ibv_poll_cq()). Lists longer than
 * one kernel call are posted in order and *bad_wr says where posting
 * stopped. A receive whose MR was deregistered fails, as on ib_uverbs,
 * instead of being written at poll time. UC QPs, which only this path
 * makes useful, connect and write; the ibv_wr_*() API posts a session.
 * A poll that finds completions in the CQ's ring makes no system call;
 * empty polls wait in the kernel, backing off on an idle CQ. Every test
 * runs twice: as it is, and with the kernel's poller (IBASYNC_POLLER=1),
 * with which posts and polls make no system call at all.
 */
#include <arpa/inet.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "lib/iba_ibv.h"
#include "lib/iba_ioctls.h"
#include "lib/iba_verbs.h"

#define BUF_LEN		(64 * 1024)
#define ACC_ALL		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

FIXTURE(rd) {
	struct iba_dev dev;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	char *buf[2];
	struct ibv_mr *mr[2];
};

FIXTURE_VARIANT(rd) {
	bool poller;		/* the context lends a thread to the poller */
};

FIXTURE_VARIANT_ADD(rd, plain) {
	.poller = false,
};

/* awake for a second after its last work: through each whole test */
FIXTURE_VARIANT_ADD(rd, poller) {
	.poller = true,
};

FIXTURE_SETUP(rd)
{
	struct ibv_qp_init_attr qi = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	union ibv_gid gid;
	int i, n = 0, g, fd;

	self->list = NULL;
	self->ctx = NULL;
	if (iba_find_dev(&self->dev) || strncmp(self->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	fd = open(self->dev.node, O_RDWR);
	ASSERT_LE(0, fd);
	if (!(iba_features(fd) & IB_ASYNC_FEATURE_USER_MR)) {
		close(fd);
		SKIP(return, "no IB_ASYNC_FEATURE_USER_MR");
	}
	if (variant->poller && !(iba_features(fd) & IB_ASYNC_FEATURE_POLLER)) {
		close(fd);
		SKIP(return, "no IB_ASYNC_FEATURE_POLLER");
	}
	close(fd);
	self->list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, self->list);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(self->list[i]),
			    self->dev.ibdev))
			break;
	ASSERT_GT(n, i);
	if (variant->poller) {
		ASSERT_EQ(0, setenv("IBASYNC_POLLER", "1", 1));
		ASSERT_EQ(0, setenv("IBASYNC_POLLER_IDLE_US", "1000000", 1));
	}
	self->ctx = ibv_open_device(self->list[i]);
	unsetenv("IBASYNC_POLLER");
	unsetenv("IBASYNC_POLLER_IDLE_US");
	ASSERT_NE(NULL, self->ctx);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 256, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	qi.send_cq = qi.recv_cq = self->cq;
	g = iba_roce_v2_gid(self->dev.ibdev, gid.raw);
	ASSERT_LE(0, g);
	for (i = 0; i < 2; i++) {
		self->qp[i] = ibv_create_qp(self->pd, &qi);
		ASSERT_NE(NULL, self->qp[i]);
		self->buf[i] = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, self->buf[i]);
		memset(self->buf[i], 'a' + i, BUF_LEN);
		self->mr[i] = ibv_reg_mr(self->pd, self->buf[i], BUF_LEN,
					 ACC_ALL);
		ASSERT_NE(NULL, self->mr[i]);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, iba_ibv_rc_to_rts(self->qp[i],
						self->qp[!i]->qp_num, &gid, g,
						ACC_ALL));
}

FIXTURE_TEARDOWN(rd)
{
	int i;

	if (!self->ctx)
		goto out;
	for (i = 0; i < 2; i++) {
		ibv_destroy_qp(self->qp[i]);
		ibv_dereg_mr(self->mr[i]);
		munmap(self->buf[i], BUF_LEN);
	}
	ibv_destroy_cq(self->cq);
	ibv_dealloc_pd(self->pd);
	ibv_close_device(self->ctx);
out:
	if (self->list)
		ibv_free_device_list(self->list);
}

TEST_F(rd, write_read_atomics_land_in_program_memory)
{
	char *a = self->buf[0], *b = self->buf[1];
	struct ibv_sge s = { (uintptr_t)a, 16, self->mr[0]->lkey };
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	uint64_t *remote = (uint64_t *)(b + 4096);
	struct ibv_wc wc[2];

	IBA_SKIPPED_IN_SETUP();
	/* The MR is the kernel's: the core knows its lkey and length. */
	EXPECT_EQ(BUF_LEN, iba_core_mr_len(self->dev.ibdev, self->mr[0]->lkey,
					   NULL));

	memcpy(a, "written by rdma!", 16);
	w.wr.rdma.remote_addr = (uintptr_t)b + 100;
	w.wr.rdma.rkey = self->mr[1]->rkey;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	ASSERT_EQ(0, iba_wait_byte(b + 115, '!'));
	EXPECT_EQ(0, memcmp(b + 100, "written by rdma!", 16));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, wc));
	EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ((unsigned int)IBV_WC_RDMA_WRITE, wc[0].opcode);

	memcpy(b + 200, "read from peer..", 16);
	s.addr = (uintptr_t)a + 300;
	w.wr_id = 2;
	w.opcode = IBV_WR_RDMA_READ;
	w.wr.rdma.remote_addr = (uintptr_t)b + 200;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, wc));
	EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ((unsigned int)IBV_WC_RDMA_READ, wc[0].opcode);
	EXPECT_EQ(16U, wc[0].byte_len);
	EXPECT_EQ(0, memcmp(a + 300, "read from peer..", 16));

	*remote = 40;
	s = (struct ibv_sge){ (uintptr_t)a + 512, 8, self->mr[0]->lkey };
	w.wr_id = 3;
	w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = (uintptr_t)remote;
	w.wr.atomic.rkey = self->mr[1]->rkey;
	w.wr.atomic.compare_add = 2;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, wc));
	EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ((unsigned int)IBV_WC_FETCH_ADD, wc[0].opcode);
	EXPECT_EQ(40ULL, *(uint64_t *)(a + 512));
	EXPECT_EQ(42ULL, *remote);
	w.wr_id = 4;
	w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 42;
	w.wr.atomic.swap = 7;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, wc));
	EXPECT_EQ((unsigned int)IBV_WC_COMP_SWAP, wc[0].opcode);
	EXPECT_EQ(7ULL, *remote);
}

TEST_F(rd, write_with_imm_into_a_scattered_receive)
{
	char *a = self->buf[0], *b = self->buf[1];
	struct ibv_sge rs[2] = {
		{ (uintptr_t)b + 1000, 4, self->mr[1]->lkey },
		{ (uintptr_t)b + 2000, 4, self->mr[1]->lkey },
	};
	struct ibv_recv_wr r = { .wr_id = 0x77, .sg_list = rs, .num_sge = 2 },
			   *rbad = NULL;
	struct ibv_sge s = { (uintptr_t)a, 8, self->mr[0]->lkey };
	struct ibv_send_wr w = {
		.wr_id = 0x78, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(0xfeed),
	}, *bad = NULL;
	struct ibv_wc wc[2];
	int i;

	IBA_SKIPPED_IN_SETUP();
	memcpy(a, "abcdefgh", 8);
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &r, &rbad));
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	ASSERT_EQ(0, iba_wait_byte(b + 2003, 'h'));
	EXPECT_EQ(0, memcmp(b + 1000, "abcd", 4));
	EXPECT_EQ(0, memcmp(b + 2000, "efgh", 4));
	ASSERT_EQ(2, iba_ibv_poll_n(self->cq, 2, wc));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[i].status);
		if (wc[i].wr_id != 0x77)
			continue;
		EXPECT_EQ((unsigned int)IBV_WC_RECV, wc[i].opcode);
		EXPECT_NE(0U, wc[i].wc_flags & IBV_WC_WITH_IMM);
		EXPECT_EQ(htonl(0xfeed), wc[i].imm_data);
		EXPECT_EQ(8U, wc[i].byte_len);
		EXPECT_EQ(self->qp[1]->qp_num, wc[i].qp_num);
	}
}

/*
 * 40 writes in one chain, more than one kernel call takes: the first
 * call's 32 are posted; the 35th has a key that is not the program's, so
 * the kernel refuses the second call whole and *bad_wr is its first.
 */
TEST_F(rd, long_chains_post_in_order_and_bad_wr_says_where_it_stopped)
{
	struct ibv_send_wr w[40], *bad = NULL;
	struct ibv_sge s[40];
	struct ibv_wc wc[64];
	int i, n, posted;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < 40; i++) {
		s[i] = (struct ibv_sge){ (uintptr_t)self->buf[0] + 16 * i, 16,
					 self->mr[0]->lkey };
		w[i] = (struct ibv_send_wr){
			.wr_id = 500 + i, .sg_list = &s[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i < 39 ? &w[i + 1] : NULL,
		};
		w[i].wr.rdma.remote_addr = (uintptr_t)self->buf[1] + 16 * i;
		w[i].wr.rdma.rkey = self->mr[1]->rkey;
	}
	s[34].lkey ^= 0x55;
	EXPECT_EQ(EINVAL, ibv_post_send(self->qp[0], &w[0], &bad));
	/*
	 * Through the send ring the kernel stops at the very request; the
	 * list path refuses the list of 32 it is in as a whole.
	 */
	posted = getenv("IBASYNC_NO_WR_RING") ? 32 : 34;
	EXPECT_EQ(&w[posted], bad);
	n = iba_ibv_poll_n(self->cq, posted, wc);
	ASSERT_EQ(posted, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(500U + i, wc[i].wr_id);
		EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[i].status);
	}
	iba_sleep_ms(200);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 64, wc));
	EXPECT_EQ('b', self->buf[1][16 * posted]);
}

/*
 * gen/regress/recv_after_dereg_mr, the difftest's divergence: over
 * ib_uverbs a receive whose MR was deregistered completes in error and
 * its memory is not written; over the kernel-buffer path the shim wrote
 * it at poll time. Now the device finds the key gone.
 */
TEST_F(rd, receive_after_its_mr_is_deregistered_fails_unwritten)
{
	char *rbuf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *tmp;
	struct ibv_sge rs, s = { (uintptr_t)self->buf[0], 32,
				 self->mr[0]->lkey };
	struct ibv_recv_wr r = { .wr_id = 9, .sg_list = &rs, .num_sge = 1 },
			   *rbad = NULL;
	struct ibv_send_wr w = {
		.wr_id = 10, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc[2];
	int i, n;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_NE(MAP_FAILED, rbuf);
	memset(rbuf, 'z', 4096);
	tmp = ibv_reg_mr(self->pd, rbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, tmp);
	rs = (struct ibv_sge){ (uintptr_t)rbuf, 64, tmp->lkey };
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], &r, &rbad));
	ASSERT_EQ(0, ibv_dereg_mr(tmp));
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	n = iba_ibv_poll_n(self->cq, 2, wc);
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++)
		if (wc[i].wr_id == 9)
			EXPECT_NE((unsigned int)IBV_WC_SUCCESS, wc[i].status);
	for (i = 0; i < 64; i++)
		ASSERT_EQ('z', rbuf[i]);
	munmap(rbuf, 4096);
}

/* @qp to RTS as a UC QP of @dqpn: UC's RTR and RTS take fewer attributes. */
static int uc_connect(struct ibv_qp *qp, uint32_t dqpn, const char *ibdev)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	union ibv_gid gid;
	int g = iba_roce_v2_gid(ibdev, gid.raw);

	if (g < 0)
		return -1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = (uint8_t)g;
	a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/*
 * UC where the node takes posted lists: created, connected with UC's own
 * attribute masks, reported back as UC by the kernel, and RDMA WRITE and
 * WRITE_WITH_IMM move data between the two QPs.
 */
TEST_F(rd, uc_qps_connect_and_write)
{
	struct ibv_qp_init_attr qi = {
		.send_cq = self->cq, .recv_cq = self->cq,
		.qp_type = IBV_QPT_UC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	}, got;
	char *a = self->buf[0], *b = self->buf[1];
	struct ibv_sge s = { (uintptr_t)a, 8, self->mr[0]->lkey };
	struct ibv_send_wr w = {
		.wr_id = 21, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_recv_wr r = { .wr_id = 23 }, *rbad = NULL;
	struct ibv_qp *uc[2];
	struct ibv_qp_attr qa;
	struct ibv_wc wc[2];
	int i, n;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < 2; i++) {
		uc[i] = ibv_create_qp(self->pd, &qi);
		ASSERT_NE(NULL, uc[i]) TH_LOG("UC QP: %s", strerror(errno));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, uc_connect(uc[i], uc[!i]->qp_num,
					self->dev.ibdev));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, ibv_query_qp(uc[0], &qa, IBV_QP_STATE, &got));
	EXPECT_EQ((unsigned int)IBV_QPS_RTS, qa.qp_state);
	EXPECT_EQ((unsigned int)IBV_QPT_UC, got.qp_type);

	memcpy(a, "uc write", 8);
	w.wr.rdma.remote_addr = (uintptr_t)b + 3000;
	w.wr.rdma.rkey = self->mr[1]->rkey;
	ASSERT_EQ(0, ibv_post_send(uc[0], &w, &bad));
	ASSERT_EQ(0, iba_wait_byte(b + 3007, 'e'));
	EXPECT_EQ(0, memcmp(b + 3000, "uc write", 8));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, wc));
	EXPECT_EQ(21U, wc[0].wr_id);
	EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[0].status);

	/* WRITE_WITH_IMM consumes a receive (no SGE) and carries its imm. */
	ASSERT_EQ(0, ibv_post_recv(uc[1], &r, &rbad));
	memcpy(a, "with imm", 8);
	w.wr_id = 22;
	w.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w.imm_data = htonl(0xc0de);
	w.wr.rdma.remote_addr = (uintptr_t)b + 3100;
	ASSERT_EQ(0, ibv_post_send(uc[0], &w, &bad));
	n = iba_ibv_poll_n(self->cq, 2, wc);
	ASSERT_EQ(2, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[i].status);
		if (wc[i].wr_id != 23)
			continue;
		EXPECT_EQ((unsigned int)IBV_WC_RECV_RDMA_WITH_IMM,
			  wc[i].opcode);
		EXPECT_EQ(htonl(0xc0de), wc[i].imm_data);
		EXPECT_EQ(uc[1]->qp_num, wc[i].qp_num);
	}
	EXPECT_EQ(0, memcmp(b + 3100, "with imm", 8));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ibv_destroy_qp(uc[i]));
}

/*
 * The ibv_wr_*() API of a QP from ibv_create_qp_ex() with send ops: one
 * session posts an RDMA WRITE, a FETCH_AND_ADD and a SEND_WITH_IMM of
 * inline data the caller overwrote before ibv_wr_complete(); the device's
 * results are read back from program memory and completions.
 */
TEST_F(rd, wr_api_posts_a_session_of_mixed_requests)
{
	struct ibv_qp_init_attr_ex qi = {
		.send_cq = self->cq, .recv_cq = self->cq,
		.qp_type = IBV_QPT_RC, .pd = self->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 32 },
	};
	char *a = self->buf[0], *b = self->buf[1];
	uint64_t *counter = (uint64_t *)(b + 8192);
	struct ibv_sge rs = { (uintptr_t)b + 5000, 64, self->mr[1]->lkey };
	struct ibv_recv_wr r = { .wr_id = 40, .sg_list = &rs, .num_sge = 1 },
			   *rbad = NULL;
	char msg[] = "inline via wr api";
	struct ibv_qp_ex *qx;
	struct ibv_qp *ex[2];
	struct ibv_wc wc[4];
	union ibv_gid gid;
	int i, n, g;

	IBA_SKIPPED_IN_SETUP();
	g = iba_roce_v2_gid(self->dev.ibdev, gid.raw);
	ASSERT_LE(0, g);
	for (i = 0; i < 2; i++) {
		ex[i] = ibv_create_qp_ex(self->ctx, &qi);
		ASSERT_NE(NULL, ex[i]) TH_LOG("create_qp_ex: %s",
					      strerror(errno));
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, iba_ibv_rc_to_rts(ex[i], ex[!i]->qp_num, &gid,
						g, ACC_ALL));
	qx = ibv_qp_to_qp_ex(ex[0]);
	ASSERT_NE(NULL, qx);
	ASSERT_EQ(0, ibv_post_recv(ex[1], &r, &rbad));

	memcpy(a, "by wr_rdma_write", 16);
	*counter = 1000;
	ibv_wr_start(qx);
	qx->wr_id = 41;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, self->mr[1]->rkey, (uintptr_t)b + 4000);
	ibv_wr_set_sge(qx, self->mr[0]->lkey, (uintptr_t)a, 16);
	qx->wr_id = 42;
	ibv_wr_atomic_fetch_add(qx, self->mr[1]->rkey, (uintptr_t)counter, 5);
	ibv_wr_set_sge(qx, self->mr[0]->lkey, (uintptr_t)a + 64, 8);
	qx->wr_id = 43;
	ibv_wr_send_imm(qx, htonl(0x1234));
	ibv_wr_set_inline_data(qx, msg, sizeof(msg));
	memset(msg, 0, sizeof(msg));
	ASSERT_EQ(0, ibv_wr_complete(qx));

	n = iba_ibv_poll_n(self->cq, 4, wc);
	ASSERT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[i].status)
			TH_LOG("wr_id %llu", (unsigned long long)wc[i].wr_id);
		if (wc[i].wr_id == 40) {
			EXPECT_EQ(htonl(0x1234), wc[i].imm_data);
			EXPECT_EQ(sizeof(msg), wc[i].byte_len);
		}
	}
	EXPECT_EQ(0, memcmp(b + 4000, "by wr_rdma_write", 16));
	EXPECT_EQ(1000ULL, *(uint64_t *)(a + 64));
	EXPECT_EQ(1005ULL, *counter);
	EXPECT_STREQ("inline via wr api", b + 5000);

	/* an op the QP was not made for posts nothing */
	ibv_wr_start(qx);
	ibv_wr_rdma_read(qx, self->mr[1]->rkey, (uintptr_t)b);
	ibv_wr_set_sge(qx, self->mr[0]->lkey, (uintptr_t)a, 8);
	EXPECT_EQ(EINVAL, ibv_wr_complete(qx));
	iba_sleep_ms(100);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 4, wc));
	/* a plain QP has no ibv_qp_ex */
	errno = 0;
	EXPECT_EQ(NULL, ibv_qp_to_qp_ex(self->qp[0]));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ibv_destroy_qp(ex[i]));
}

TEST_F(rd, a_poll_that_finds_completions_makes_no_system_call)
{
	struct ibv_sge s[4];
	struct ibv_send_wr w[4], *bad = NULL;
	struct ibv_wc wc;
	unsigned long before;
	int got = 0, calls = 0, i, n;

	IBA_SKIPPED_IN_SETUP();
	if (getenv("IBASYNC_NO_CQ_RING"))
		SKIP(return, "IBASYNC_NO_CQ_RING is set");
	for (i = 0; i < 4; i++) {
		s[i] = (struct ibv_sge){ (uintptr_t)self->buf[0] + i * 8, 8,
					 self->mr[0]->lkey };
		w[i] = (struct ibv_send_wr){
			.wr_id = 10 + i, .sg_list = &s[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i < 3 ? &w[i + 1] : NULL,
		};
		w[i].wr.rdma.remote_addr = (uintptr_t)self->buf[1] + i * 8;
		w[i].wr.rdma.rkey = self->mr[1]->rkey;
	}
	memcpy(self->buf[0] + 24, "lastone!", 8);
	ASSERT_EQ(0, ibv_post_send(self->qp[0], w, &bad));
	/*
	 * The device wrote all four. Their completions follow the
	 * responder's ACKs, which no byte shows: where rxe carries them in
	 * a worker (6.12 on), the last may not be queued yet when the data
	 * is, and a first poll would find three. Give them time.
	 */
	ASSERT_EQ(0, iba_wait_byte(self->buf[1] + 31, '!'));
	iba_sleep_ms(100);
	for (i = 0; i < 10000 && got < 4; i++) {
		before = iba_ioctls();
		n = ibv_poll_cq(self->cq, 1, &wc);
		ASSERT_LE(0, n);
		if (!n)
			continue;
		EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc.status);
		EXPECT_EQ(10U + got, wc.wr_id);
		got++;
		/* at most the first found the ring empty and asked the kernel */
		if (iba_ioctls() != before)
			calls++;
	}
	ASSERT_EQ(4, got);
	EXPECT_GE(1, calls);
	TH_LOG("%d of the 4 polls that found a completion made a system call",
	       calls);
}

/* The CQ_WAITs that asked the kernel to spin, over @polls empty polls. */
static unsigned long idle_spins(struct ibv_cq *cq, int polls)
{
	unsigned long before = iba_cq_wait_spins();
	struct ibv_wc wc;
	int i;

	for (i = 0; i < polls; i++)
		if (ibv_poll_cq(cq, 1, &wc))
			return (unsigned long)-1;
	return iba_cq_wait_spins() - before;
}

/*
 * IBASYNC_CQ_SPIN_US=auto, the default: an empty poll that follows
 * another lets the kernel spin, but one that found nothing makes the next
 * 1, 2, 4... empty polls of that CQ return at once, so an idle CQ asks for
 * a spin at polls 2, 4, 7, 12, 21, 38, 71 and 136 of 200; a completion
 * found makes the next empty poll but one spin again. 0 never spins. The
 * fixture's CQ was made with the default.
 */
TEST_F(rd, spin_backs_off_on_an_idle_cq_and_resumes_after_a_completion)
{
	struct ibv_send_wr w = { .wr_id = 77, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_sge sge = { (uintptr_t)self->buf[0], 8, self->mr[0]->lkey };
	struct ibv_cq *cq[2];
	struct ibv_wc wc;
	int i;

	IBA_SKIPPED_IN_SETUP();
	if (getenv("IBASYNC_NO_CQ_RING"))
		SKIP(return, "IBASYNC_NO_CQ_RING is set");
	if (getenv("IBASYNC_CQ_SPIN_US"))
		SKIP(return, "IBASYNC_CQ_SPIN_US is set: not the default");
	if (variant->poller)
		SKIP(return, "an awake poller's empty polls ask nothing");
	/* read when a CQ's ring is mapped */
	ASSERT_EQ(0, setenv("IBASYNC_CQ_SPIN_US", "auto", 1));
	cq[0] = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_EQ(0, setenv("IBASYNC_CQ_SPIN_US", "0", 1));
	cq[1] = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	unsetenv("IBASYNC_CQ_SPIN_US");
	ASSERT_NE(NULL, cq[0]);
	ASSERT_NE(NULL, cq[1]);
	EXPECT_EQ(2UL, idle_spins(cq[0], 5));
	EXPECT_EQ(0UL, idle_spins(cq[1], 5));
	EXPECT_EQ(8UL, idle_spins(self->cq, 200));

	w.sg_list = &sge;
	w.wr.rdma.remote_addr = (uintptr_t)self->buf[1];
	w.wr.rdma.rkey = self->mr[1]->rkey;
	ASSERT_EQ(0, ibv_post_send(self->qp[0], &w, &bad));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, &wc));
	EXPECT_EQ(77U, wc.wr_id);
	EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc.status);
	/* polls 2 and 4 after it ask again */
	EXPECT_EQ(2UL, idle_spins(self->cq, 5));

	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, ibv_destroy_cq(cq[i]));
}

/*
 * Through the queues' submission rings a post is one system call, the
 * doorbell, however long its chain (up to the ring's size: the QP's
 * max_send_wr), where the list path makes one per 32 requests.
 */
TEST_F(rd, a_post_is_one_system_call)
{
	struct ibv_send_wr w[40], *bad = NULL;
	struct ibv_recv_wr rw[4], *rbad = NULL;
	struct ibv_sge s[40], rs[4];
	struct ibv_wc wc[64];
	unsigned long before;
	int i;

	IBA_SKIPPED_IN_SETUP();
	if (getenv("IBASYNC_NO_WR_RING"))
		SKIP(return, "IBASYNC_NO_WR_RING is set");
	if (variant->poller)
		SKIP(return, "an awake poller's posts ring no doorbell");
	for (i = 0; i < 4; i++) {
		rs[i] = (struct ibv_sge){ (uintptr_t)self->buf[1] + 4096 + i * 8,
					  8, self->mr[1]->lkey };
		rw[i] = (struct ibv_recv_wr){
			.wr_id = 900 + i, .sg_list = &rs[i], .num_sge = 1,
			.next = i < 3 ? &rw[i + 1] : NULL,
		};
	}
	before = iba_ioctls();
	ASSERT_EQ(0, ibv_post_recv(self->qp[1], rw, &rbad));
	EXPECT_EQ(1UL, iba_ioctls() - before);
	for (i = 0; i < 40; i++) {
		s[i] = (struct ibv_sge){ (uintptr_t)self->buf[0] + 16 * i, 16,
					 self->mr[0]->lkey };
		w[i] = (struct ibv_send_wr){
			.wr_id = 700 + i, .sg_list = &s[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.next = i < 39 ? &w[i + 1] : NULL,
		};
		w[i].wr.rdma.remote_addr = (uintptr_t)self->buf[1] + 16 * i;
		w[i].wr.rdma.rkey = self->mr[1]->rkey;
	}
	/* the last signalled, inline, from the ring's slot itself */
	memcpy(self->buf[0] + 16 * 39, "ringdone", 8);
	s[39].length = 8;
	w[39].send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	before = iba_ioctls();
	ASSERT_EQ(0, ibv_post_send(self->qp[0], w, &bad));
	EXPECT_EQ(1UL, iba_ioctls() - before);
	ASSERT_EQ(0, iba_wait_byte(self->buf[1] + 16 * 39 + 7, 'e'));
	EXPECT_EQ(0, memcmp(self->buf[1] + 16 * 39, "ringdone", 8));
	ASSERT_EQ(1, iba_ibv_poll_n(self->cq, 1, wc));
	EXPECT_EQ(739U, wc[0].wr_id);
	EXPECT_EQ((unsigned int)IBV_WC_SUCCESS, wc[0].status);
}

/* One WRITE and the polls until its completion: 0, or -1. */
static int write_round(FIXTURE_DATA(rd) *self, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)self->buf[0], 8, self->mr[0]->lkey };
	struct ibv_send_wr w = {
		.wr_id = id, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc;

	w.wr.rdma.remote_addr = (uintptr_t)self->buf[1];
	w.wr.rdma.rkey = self->mr[1]->rkey;
	if (ibv_post_send(self->qp[0], &w, &bad) ||
	    iba_ibv_poll_n(self->cq, 1, &wc) != 1 || wc.wr_id != id ||
	    wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/*
 * With the poller awake, a round of a WRITE and polls until its
 * completion makes no system call at all: the poller takes the post's
 * slot and fills the ring, the empty polls return at once. Rounds that
 * find it not yet in the kernel (its thread not scheduled yet) ring and
 * wait as without it; once one makes no call, 50 more make none.
 */
TEST_F(rd, with_the_poller_posts_and_polls_make_no_system_call)
{
	uint64_t end = iba_now_ms() + 10000, id = 2000;
	unsigned long before;
	int i;

	IBA_SKIPPED_IN_SETUP();
	if (!variant->poller)
		SKIP(return, "the poller variant's");
	if (getenv("IBASYNC_NO_WR_RING") || getenv("IBASYNC_NO_CQ_RING"))
		SKIP(return, "IBASYNC_NO_WR_RING or IBASYNC_NO_CQ_RING is set");
	do {
		ASSERT_GT(end, iba_now_ms());
		before = iba_ioctls();
		ASSERT_EQ(0, write_round(self, id++));
	} while (iba_ioctls() != before);
	before = iba_ioctls();
	for (i = 0; i < 50; i++)
		ASSERT_EQ(0, write_round(self, id++));
	EXPECT_EQ(0UL, iba_ioctls() - before);
}

TEST_HARNESS_MAIN

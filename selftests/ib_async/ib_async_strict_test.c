// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_strict.ko, the checker in front of rxe that WARNs about every
 * kernel work request a hardware driver would misuse (README.rst): its
 * probes are on rxe's post verbs, its checks catch the bad requests of its
 * own selftest, and valid posts through ib_async on rxe0, over registered
 * memory (RC) and through an AH (UD), are examined and found valid.
 */
#include "lib/iba_verbs.h"

#define BUF_LEN		4096
/* the bad requests of the module's selftest */
#define SELFTEST_BAD	4

FIXTURE(strict) {
	long violations;	/* before the test */
};

FIXTURE_SETUP(strict)
{
	if (iba_strict_available())
		SKIP(return, "no ib_async_strict module");
	self->violations = iba_strict_counter("violations");
	ASSERT_LE(0, self->violations);
}

FIXTURE_TEARDOWN(strict)
{
}

/* Whether @sym's line in the probes file says it is armed. */
static bool probe_armed(const char *sym)
{
	char line[128], want[96];
	bool armed = false;
	FILE *f;

	f = fopen(IBA_STRICT_DIR "/probes", "r");
	if (!f)
		return false;
	snprintf(want, sizeof(want), "%s armed ", sym);
	while (!armed && fgets(line, sizeof(line), f))
		armed = !strncmp(line, want, strlen(want));
	fclose(f);
	return armed;
}

TEST_F(strict, probes_on_rxe_are_armed)
{
	static const char *const syms[] = {
		"rxe_post_send", "rxe_post_recv", "rxe_post_srq_recv",
		"rxe_alloc_pd", "rxe_dealloc_pd", "rxe_create_ah",
		"rxe_destroy_ah", "rxe_alloc_mr", "rxe_get_dma_mr",
		"rxe_dereg_mr",
	};
	unsigned int i, unarmed = 0;

	IBA_SKIPPED_IN_SETUP();
	if (access("/sys/class/infiniband/rxe0", F_OK))
		SKIP(return, "no rxe0");
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (probe_armed(syms[i]))
			continue;
		ksft_print_msg("%s is not armed\n", syms[i]);
		unarmed++;
	}
	EXPECT_EQ(0U, unarmed);
}

TEST_F(strict, selftest_catches_every_bad_request)
{
	long caught = iba_strict_counter("selftest_caught");

	IBA_SKIPPED_IN_SETUP();
	ASSERT_LE(0, caught);
	ASSERT_EQ(0, iba_write_file(IBA_STRICT_DIR "/selftest", "1\n", 2, 0));
	EXPECT_EQ(caught + SELFTEST_BAD, iba_strict_counter("selftest_caught"));
	/* expected violations are not real ones */
	EXPECT_EQ(self->violations, iba_strict_counter("violations"));
	EXPECT_EQ(-EINVAL, iba_write_file(IBA_STRICT_DIR "/selftest", "0\n",
					  2, 0));
}

/*
 * RC loopback over registered memory (ib_async registers it with a
 * REG_MR the checker follows) and UD through an AH with ib_async's kernel
 * buffers (the PD's local_dma_lkey): every request examined, none bad.
 */
TEST_F(strict, valid_posts_are_checked_and_pass)
{
	static char ud_rbuf[IBA_GRH_BYTES + 64];
	static const char msg[] = "strict but fair";
	struct ib_async_create_ah ah;
	struct ib_async_create_qp a, b, ud;
	struct ib_async_reg_mr mr;
	struct ib_async_post_send us = {};
	struct ib_async_wc wc[4];
	struct iba_dev dev;
	long checked, unchecked;
	uint32_t pd, cq;
	uint8_t gid[16];
	char *buf;
	int fd, sgid;

	IBA_SKIPPED_IN_SETUP();
	if (iba_find_dev(&dev) || strncmp(dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	fd = open(dev.node, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	if (!(iba_features(fd) & IB_ASYNC_FEATURE_USER_MR))
		SKIP(close(fd); return, "no IB_ASYNC_FEATURE_USER_MR");
	sgid = iba_roce_v2_gid(dev.ibdev, gid);
	ASSERT_LE(0, sgid);
	buf = aligned_alloc(BUF_LEN, BUF_LEN);
	ASSERT_NE(NULL, buf);
	memset(buf, 0, BUF_LEN);
	checked = iba_strict_counter("checked");
	unchecked = iba_strict_counter("unchecked");

	ASSERT_EQ(0, iba_create_pd(fd, &pd));
	ASSERT_EQ(0, iba_create_cq(fd, 1, 16, &cq));
	ASSERT_EQ(0, iba_rc_pair(fd, pd, cq, sgid, gid, &a, &b));
	ASSERT_EQ(0, iba_reg_mr(fd, pd, buf, BUF_LEN,
				IB_UVERBS_ACCESS_LOCAL_WRITE, &mr));
	{
		struct ib_async_sge rs = { (uintptr_t)buf + 1024, 64, mr.lkey };
		struct ib_async_sge ss = { (uintptr_t)buf, sizeof(msg),
					   mr.lkey };
		struct ib_async_recv_wr rw = { .wr_id = 1, .num_sge = 1 };
		struct ib_async_send_wr sw = {
			.wr_id = 2, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
			.send_flags = IB_ASYNC_SEND_SIGNALED,
		};

		memcpy(buf, msg, sizeof(msg));
		ASSERT_EQ(0, iba_post_recvs(fd, IB_ASYNC_OBJ_QP, b.handle,
					    &rw, 1, &rs, 1));
		ASSERT_EQ(0, iba_post_sends(fd, a.handle, &sw, 1, &ss, 1));
	}
	ASSERT_EQ(2, iba_poll_cq(fd, cq, wc, 2));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(0U, wc[1].status);
	EXPECT_STREQ(msg, buf + 1024);

	ASSERT_EQ(0, iba_create_qp(fd, 3, pd, cq, IB_UVERBS_QPT_UD, &ud));
	ASSERT_EQ(0, iba_ud_to_rts(fd, ud.handle));
	ASSERT_EQ(0, iba_post_recv(fd, IB_ASYNC_OBJ_QP, ud.handle, 3, ud_rbuf,
			       sizeof(ud_rbuf)));
	ASSERT_EQ(0, iba_create_ah(fd, pd, sgid, gid, &ah));
	us.handle = ud.handle;
	us.opcode = IB_UVERBS_WR_SEND;
	us.wr_id = 4;
	us.addr = (uintptr_t)msg;
	us.length = sizeof(msg);
	us.send_flags = IB_ASYNC_SEND_SIGNALED;
	us.ah_handle = ah.handle;
	us.remote_qpn = ud.qp_num;
	us.remote_qkey = IBA_UD_QKEY;
	ASSERT_EQ(0, iba_post_send(fd, &us));
	ASSERT_EQ(2, iba_poll_cq(fd, cq, wc, 2));
	EXPECT_EQ(0U, wc[0].status);
	EXPECT_EQ(0U, wc[1].status);
	EXPECT_STREQ(msg, ud_rbuf + IBA_GRH_BYTES);

	/* 2 RC and 2 UD requests at least, and ib_async's REG_MR */
	EXPECT_LE(checked + 5, iba_strict_counter("checked"));
	EXPECT_EQ(self->violations, iba_strict_counter("violations"));
	/* nor did anything else the suite posted before */
	EXPECT_EQ(0, iba_strict_counter("violations"));
	TH_LOG("checked %ld, unchecked %ld more",
	       iba_strict_counter("checked") - checked,
	       iba_strict_counter("unchecked") - unchecked);
	close(fd);
	free(buf);
}

TEST_HARNESS_MAIN

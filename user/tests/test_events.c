// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Context setup and ibv_get_async_event() over a FIFO standing in for the node. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/ib_async_shim.h>
#include <infiniband/verbs.h>

#include "expect_element.h"
#include "fake_tree.h"
#include "ibasync.h"
#include "tap.h"

static struct ft_fake0 ft;

static void test_fds(struct ibv_context *ctx)
{
	struct stat a, b;

	OK(fcntl(ctx->async_fd, F_GETFD) & FD_CLOEXEC, "async_fd is O_CLOEXEC");
	OK(ctx->cmd_fd != ctx->async_fd &&
	   (fcntl(ctx->cmd_fd, F_GETFD) & FD_CLOEXEC) &&
	   !fstat(ctx->cmd_fd, &a) && !fstat(ctx->async_fd, &b) &&
	   a.st_ino == b.st_ino, "cmd_fd: a CLOEXEC duplicate of async_fd");
	OK((fcntl(ctx->async_fd, F_GETFL) & O_ACCMODE) == O_RDWR,
	   "node opened O_RDWR");
}

/*
 * What rdma-core's inline verbs do with this context. The fake node is a
 * FIFO, which has no ioctls: ENOTTY proves a call went to the kernel;
 * EOPNOTSUPP, that the library refused it itself.
 */
static void test_ops(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx(ctx);
	/* the library's own CQ layout: ibv_poll_cq() looks beyond ibv_cq */
	struct ibasync_cq cq_mem = { .ex.context = ctx };
	struct ibv_cq *cq = ibv_cq_ex_to_cq(&cq_mem.ex);
	struct ibv_qp qp = { .context = ctx, .qp_type = IBV_QPT_RC };
	struct ibv_srq srq = { .context = ctx };
	struct ibv_pd pd = { .context = ctx };
	struct ibv_send_wr swr = { .opcode = IBV_WR_RDMA_WRITE }, *bad_s = NULL;
	struct ibv_send_wr ok_wr = { .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { 0 }, *bad_r = NULL;
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 1 };
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	struct ibv_comp_channel busy = { .context = ctx, .fd = -1, .refcnt = 1 };
	struct ibv_wc wc;

	OK(v && v->sz == sizeof(*v), "verbs_get_ctx() finds a full-size verbs_context");
	errno = 0;
	OK(!ibv_create_cq_ex(ctx, &cq_attr) && errno == ENOTTY,
	   "ibv_create_cq_ex: through verbs_context to the kernel");
	OK(ibv_query_port(ctx, 1, &pattr) == ENOTTY,
	   "ibv_query_port: through verbs_context to the kernel");
	OK(ibv_query_device_ex(ctx, NULL, &dattr) == ENOTTY,
	   "ibv_query_device_ex: through verbs_context to the kernel");
	errno = 0;
	OK(!ibv_alloc_mw(&pd, IBV_MW_TYPE_1) && errno == EOPNOTSUPP,
	   "ibv_alloc_mw: EOPNOTSUPP");
	OK(ibv_poll_cq(cq, 1, &wc) == -ENOTTY, "ibv_poll_cq: -errno from the kernel");
	OK(ibv_poll_cq(cq, -1, &wc) == -EINVAL, "ibv_poll_cq(num < 0): -EINVAL");
	OK(ibv_req_notify_cq(cq, 0) == ENOTTY,
	   "ibv_req_notify_cq: to the kernel, its errno returned");
	errno = 0;
	OK(!ibv_create_comp_channel(ctx) && errno == ENOTTY,
	   "ibv_create_comp_channel: to the kernel");
	OK(ibv_destroy_comp_channel(&busy) == EBUSY && busy.refcnt == 1,
	   "ibv_destroy_comp_channel of a channel with a CQ: EBUSY");
	OK(ibv_post_send(&qp, &swr, &bad_s) == EOPNOTSUPP && bad_s == &swr,
	   "ibv_post_send(RDMA WRITE): EOPNOTSUPP, bad_wr set");
	ok_wr.next = &swr;
	bad_s = NULL;
	OK(ibv_post_send(&qp, &ok_wr, &bad_s) == ENOTTY && bad_s == &ok_wr,
	   "ibv_post_send(SEND): to the kernel, bad_wr is the first not posted");
	ok_wr.send_flags = IBV_SEND_FENCE;
	ok_wr.next = NULL;
	OK(ibv_post_send(&qp, &ok_wr, &bad_s) == EOPNOTSUPP,
	   "ibv_post_send(FENCE): EOPNOTSUPP");
	ok_wr.send_flags = IBV_SEND_SOLICITED;
	OK(ibv_post_send(&qp, &ok_wr, &bad_s) == ENOTTY,
	   "ibv_post_send(SOLICITED): to the kernel");
	OK(ibv_post_recv(&qp, &rwr, &bad_r) == ENOTTY && bad_r == &rwr,
	   "ibv_post_recv: to the kernel, bad_wr set");
	bad_r = NULL;
	OK(ibv_post_srq_recv(&srq, &rwr, &bad_r) == ENOTTY && bad_r == &rwr,
	   "ibv_post_srq_recv: to the kernel, bad_wr set");
}

static int element_ok(const struct ibv_async_event *ev, int t, uint64_t val)
{
	switch (expected_kind((uint32_t)t)) {
	case 'c': return ev->element.cq == (void *)(uintptr_t)val;
	case 'q': return ev->element.qp == (void *)(uintptr_t)val;
	case 's': return ev->element.srq == (void *)(uintptr_t)val;
	case 'w': return ev->element.wq == (void *)(uintptr_t)val;
	default:  return ev->element.port_num == (int)val;
	}
}

/* Objects whose addresses the fake records carry as user_handles. */
static struct expect_objects objs;

static void test_element_mapping(struct ibv_context *ctx, int w)
{
	struct ibv_async_event ev;

	expect_objects_init(&objs);
	for (int t = 0; t <= 20; t++) {
		void *obj = expected_object(&objs, (uint32_t)t);
		uint64_t val = obj ? (uint64_t)(uintptr_t)obj :
				     (uint64_t)(t % 3);
		uint32_t *acks = expected_acks(&objs, (uint32_t)t);
		uint32_t before = acks ? *acks : 0;

		ft_write_event(w, (uint32_t)t, val, (uint64_t)t + 1, 1, 0, 0);
		memset(&ev, 0xa5, sizeof(ev));
		OK(ibv_get_async_event(ctx, &ev) == 0 &&
		   ev.event_type == (enum ibv_event_type)t && element_ok(&ev, t, val),
		   "type %d: element mapped as libibverbs (%c)", t,
		   expected_kind((uint32_t)t));
		ibv_ack_async_event(&ev);
		if (acks)
			OK(*acks == before + 1,
			   "type %d: ack counted on the object's own field", t);
	}
	OK(objs.cq.comp_events_completed == 0,
	   "CQ_ERR acks count as async, not completion, events");
}

static void test_overflow(struct ibv_context *ctx, int w)
{
	struct ibv_async_event ev;
	uint64_t before = ibasync_lost_events(ctx);

	ft_write_event(w, IBV_EVENT_PORT_ERR, 1, 30, 1, 1, IB_ASYNC_OBJ_PORT);
	ft_write_event(w, IB_ASYNC_EV_OVERFLOW, 0, 31, 5, 0, IB_ASYNC_OBJ_NONE);
	ft_write_event(w, IB_ASYNC_EV_OVERFLOW, 0, 36, 2, 0, IB_ASYNC_OBJ_NONE);
	ft_write_event(w, IBV_EVENT_PORT_ACTIVE, 2, 38, 1, 2, IB_ASYNC_OBJ_PORT);
	OK(!ibv_get_async_event(ctx, &ev) && ev.event_type == IBV_EVENT_PORT_ERR &&
	   ibasync_lost_events(ctx) == before, "event before the overflow");
	OK(!ibv_get_async_event(ctx, &ev) && ev.event_type == IBV_EVENT_PORT_ACTIVE &&
	   ev.element.port_num == 2, "overflow records skipped, next event returned");
	OK(ibasync_lost_events(ctx) - before == 7, "lost counter adds the counts (7)");

	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	ft_write_event(w, IB_ASYNC_EV_OVERFLOW, 0, 39, 4, 0, IB_ASYNC_OBJ_NONE);
	errno = 0;
	OK(ibv_get_async_event(ctx, &ev) == -1 && errno == EAGAIN &&
	   ibasync_lost_events(ctx) - before == 11,
	   "O_NONBLOCK: overflow alone -> counted, then -1/EAGAIN");
}

/* The recipe of ibv_get_async_event(3), unchanged. */
static void test_poll_recipe(struct ibv_context *ctx, int w)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	errno = 0;
	OK(ibv_get_async_event(ctx, &ev) == -1 && errno == EAGAIN,
	   "empty O_NONBLOCK fd: -1, errno EAGAIN");
	OK(poll(&p, 1, 0) == 0, "poll: nothing ready");
	ft_write_event(w, IBV_EVENT_GID_CHANGE, 1, 50, 1, 1, IB_ASYNC_OBJ_PORT);
	ft_write_event(w, IBV_EVENT_LID_CHANGE, 1, 51, 1, 1, IB_ASYNC_OBJ_PORT);
	OK(poll(&p, 1, 1000) == 1 && (p.revents & POLLIN), "poll: POLLIN");
	OK(!ibv_get_async_event(ctx, &ev) && ev.event_type == IBV_EVENT_GID_CHANGE,
	   "first event");
	ibv_ack_async_event(&ev);
	OK(poll(&p, 1, 0) == 1, "one record per call: the second stays pollable");
	OK(!ibv_get_async_event(ctx, &ev) && ev.event_type == IBV_EVENT_LID_CHANGE,
	   "second event");
	ibv_ack_async_event(&ev);
	OK(write(w, "short", 5) == 5 && ibv_get_async_event(ctx, &ev) == -1 &&
	   errno == EIO, "short record: -1, EIO");
}

static void test_queue_len_env(void)
{
	static const char *const bad[] = { "", "abc", "0", "-1", " 5", "5x",
					   "4294967296", "99999999999999999999" };
	struct ibv_context *ctx;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("IBASYNC_QUEUE_LEN", bad[i], 1);
		errno = 0;
		ctx = ft_fake0_open(&ft);
		OK(!ctx && errno == EINVAL, "IBASYNC_QUEUE_LEN=\"%s\": EINVAL", bad[i]);
		if (ctx)
			ibv_close_device(ctx);
	}
	/* a FIFO has no ioctls: ENOTTY proves the ioctl was issued */
	setenv("IBASYNC_QUEUE_LEN", "4096", 1);
	errno = 0;
	ctx = ft_fake0_open(&ft);
	OK(!ctx && errno == ENOTTY, "valid IBASYNC_QUEUE_LEN applied by ioctl");
	if (ctx)
		ibv_close_device(ctx);
	unsetenv("IBASYNC_QUEUE_LEN");
}

static void test_extensions(struct ibv_context *ctx)
{
	struct ib_async_info info;

	OK(ibasync_set_queue_len(ctx, 0) == EINVAL && errno == EINVAL,
	   "ibasync_set_queue_len(0): EINVAL");
	OK(ibasync_set_queue_len(ctx, 8) == ENOTTY,
	   "ibasync_set_queue_len: ioctl error returned");
	OK(ibasync_query(ctx, &info) == ENOTTY && errno == ENOTTY,
	   "ibasync_query: ioctl error returned and in errno");
}

/*
 * IBASYNC_1.3 over the FIFO, which has no ring: ibasync_read_records()
 * is one read() of whole records, as the kernel wrote them.
 */
static void test_read_records(int w)
{
	struct ibv_context *ctx = ibasync_open_device(ft.dev,
						      IBASYNC_OPEN_NO_RING);
	struct ib_async_event out[8];

	OK(!strcmp(ibasync_root_dir(), ft.root),
	   "ibasync_root_dir: IBASYNC_TEST_ROOT's tree");
	if (!OK(ctx, "ibasync_open_device(IBASYNC_OPEN_NO_RING)"))
		return;
	errno = 0;
	OK(ibasync_read_records(ctx, out, 8, IBASYNC_READ_NONBLOCK) == -1 &&
	   errno == EAGAIN,
	   "read_records NONBLOCK, empty and a blocking fd: EAGAIN");
	ft_write_event(w, IBV_EVENT_PORT_ERR, 1, 60, 1, 1, IB_ASYNC_OBJ_PORT);
	ft_write_event(w, IB_ASYNC_EV_OVERFLOW, 0, 61, 5, 0, IB_ASYNC_OBJ_NONE);
	ft_write_event(w, IBV_EVENT_PORT_ACTIVE, 2, 66, 1, 2, IB_ASYNC_OBJ_PORT);
	OK(ibasync_read_records(ctx, out, 2, 0) == 2 && out[0].seq == 60 &&
	   out[0].port_num == 1 && out[1].event_type == IB_ASYNC_EV_OVERFLOW &&
	   out[1].seq == 61 && out[1].count == 5,
	   "read_records n 2: two records as written, the overflow's count");
	OK(ibasync_read_records(ctx, out, 8, IBASYNC_READ_NONBLOCK) == 1 &&
	   out[0].seq == 66 && out[0].event_type == IBV_EVENT_PORT_ACTIVE &&
	   ibasync_lost_events(ctx) == 0,
	   "read_records n 8: the one left; nothing counted lost");
	errno = 0;
	OK(write(w, "short", 5) == 5 &&
	   ibasync_read_records(ctx, out, 8, 0) == -1 && errno == EIO,
	   "read_records: a short record, EIO");
	ibv_close_device(ctx);
}

int main(void)
{
	struct ibv_context *ctx;
	int w;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	w = ft_open_writer(ft.root, 0);
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx && w >= 0, "open fake0"))
		return tap_done();
	test_fds(ctx);
	test_ops(ctx);
	test_element_mapping(ctx, w);
	test_overflow(ctx, w);
	test_poll_recipe(ctx, w);
	test_extensions(ctx);
	ibv_close_device(ctx);
	test_read_records(w);
	test_queue_len_env();
	close(w);
	ft_fake0_teardown(&ft);
	return tap_done();
}

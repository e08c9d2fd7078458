// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The extended verbs behind rdma-core's inline ibv_query_device_ex(),
 * ibv_create_qp_ex() with the ibv_wr_*() API and ibv_create_cq_ex() with
 * its poll API, against a fake node (which offers no USER_MR: the copy
 * path, one POST_SEND per request).
 *
 * The node is a FIFO (fake_tree), which has no ioctls; so this program
 * defines ioctl() itself and, while `fake.on`, answers ib_async's device
 * query, info and QP commands as a kernel would, recording what the
 * library asked. Every other request, and all of them while off, goes to
 * the real system call. The shared object binds its ioctl() calls to this
 * definition because the executable exports it (the sanitizer builds link
 * the archive, where the linker resolves them here directly).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "ibasync.h"
#include "tap.h"

#define FAKE_QPN	0x1234
#define FAKE_QP_HANDLE	7
#define FAKE_CQ_HANDLE	9
#define FAKE_WCS	40

static struct {
	bool on;
	struct ib_async_device_attr dev;
	uint32_t ports;			/* GET_INFO's phys_port_cnt */
	struct ib_async_create_qp qp;	/* the last CREATE_QP asked */
	int create_qp_calls, info_calls;
	/* the CQ: completions wr_id 1..FAKE_WCS, [wc_next, wc_avail) */
	int create_cq_calls, poll_calls;
	uint32_t wc_next, wc_avail, poll_max;
	/* one POLL_CQ in three finds a completion (test_cq_ex_threads) */
	bool alternate;
	/* POST_SEND: what each call asked, and the message it carried */
	int sends;
	struct ib_async_post_send send[4];
	char send_data[4][32];
} fake;

/* Completion @i of the fake CQ: every field derived from it. */
static void fake_wc(struct ib_async_wc *wc, uint32_t i)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = i;
	wc->status = i % 7 ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR;
	wc->opcode = IBV_WC_RECV;
	wc->vendor_err = i + 1000;
	wc->byte_len = i * 3;
	wc->imm_data = i * 5;
	wc->qp_num = FAKE_QPN;
	wc->src_qp = i + 7;
	wc->wc_flags = IBV_WC_WITH_IMM;
	wc->slid = i + 11;
	wc->sl = (uint8_t)(i % 16);
	wc->dlid_path_bits = (uint8_t)(i % 3);
}

static int fake_poll_cq(struct ib_async_poll_cq *p)
{
	struct ib_async_wc *wc = (struct ib_async_wc *)(uintptr_t)p->wc;
	uint32_t n = 0;

	fake.poll_calls++;
	if (p->count > fake.poll_max)
		fake.poll_max = p->count;
	if (p->handle != FAKE_CQ_HANDLE)
		return errno = ENOENT, -1;
	if (fake.alternate) {	/* under the CQ's poll_lock: serialized */
		if (p->count && !(fake.poll_calls % 3))
			fake_wc(&wc[n++], 1);
		p->count = n;
		return 0;
	}
	while (n < p->count && fake.wc_next < fake.wc_avail)
		fake_wc(&wc[n++], ++fake.wc_next);
	p->count = n;
	return 0;
}

static int fake_answer(unsigned long req, void *arg)
{
	struct ib_async_create_qp *qp = arg;
	struct ib_async_info *info;
	struct ib_async_destroy *d = arg;
	struct ib_async_create_cq *cq = arg;

	switch (req) {
	case IB_ASYNC_IOC_CREATE_CQ:
		fake.create_cq_calls++;
		cq->handle = FAKE_CQ_HANDLE;
		return 0;
	case IB_ASYNC_IOC_POLL_CQ:
		return fake_poll_cq(arg);
	case IB_ASYNC_IOC_POST_SEND: {
		struct ib_async_post_send *ps = arg;

		if (fake.sends >= 4 || ps->length > 32)
			return errno = ENOMEM, -1;
		fake.send[fake.sends] = *ps;
		memcpy(fake.send_data[fake.sends],
		       (void *)(uintptr_t)ps->addr, ps->length);
		fake.sends++;
		return 0;
	}
	case IB_ASYNC_IOC_QUERY_DEVICE:
		memcpy(arg, &fake.dev, sizeof(fake.dev));
		return 0;
	case IB_ASYNC_IOC_GET_INFO:
		fake.info_calls++;
		info = fake_info(arg, 0);
		info->phys_port_cnt = fake.ports;
		return 0;
	case IB_ASYNC_IOC_CREATE_QP:
		fake.create_qp_calls++;
		fake.qp = *qp;
		qp->handle = FAKE_QP_HANDLE;
		qp->qp_num = FAKE_QPN;
		qp->max_send_wr *= 2;	/* the device rounds up */
		qp->max_inline_data = 64;
		return 0;
	case IB_ASYNC_IOC_DESTROY:
		d->events_reported = 0;
		return d->handle == FAKE_QP_HANDLE ||
		       d->handle == FAKE_CQ_HANDLE ? 0 : (errno = EINVAL, -1);
	}
	return FAKE_IOCTL_PASS;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	return fake.on ? fake_answer(req, arg) : FAKE_IOCTL_PASS;
}


static void fake_device(void)
{
	memset(&fake.dev, 0, sizeof(fake.dev));
	fake.dev.argsz = sizeof(fake.dev);
	fake.dev.vendor_id = 0xffffff;
	fake.dev.max_qp = 100;
	/* a bit above 32 (IBV_DEVICE_RAW_SCATTER_FCS) and one below */
	fake.dev.device_cap_flags = (1ULL << 34) | (1ULL << 21);
	fake.dev.phys_port_cnt = 1;
	fake.ports = 1;
}

/* ---- query_device_ex ----------------------------------------------------- */

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

static void test_query_device_ex(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx(ctx);
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_device_attr_ex ex, rest;
	size_t old;

	OK(v->query_device_ex, "query_device_ex op set");
	fake_device();
	memset(&ex, 0xa5, sizeof(ex));
	OK(ibv_query_device_ex(ctx, NULL, &ex) == 0,
	   "ibv_query_device_ex: 0");
	OK(ex.orig_attr.max_qp == 100 && ex.orig_attr.vendor_id == 0xffffff,
	   "orig_attr from QUERY_DEVICE");
	OK(ex.phys_port_cnt_ex == 1 && ex.orig_attr.phys_port_cnt == 1,
	   "phys_port_cnt_ex == phys_port_cnt == 1");
	OK(ex.device_cap_flags_ex == ((1ULL << 34) | (1ULL << 21)) &&
	   ex.orig_attr.device_cap_flags == 1U << 21,
	   "device_cap_flags_ex: all 64 bits; orig_attr: the low 32");
	rest = ex;
	memset(&rest.orig_attr, 0, sizeof(rest.orig_attr));
	rest.device_cap_flags_ex = 0;
	rest.phys_port_cnt_ex = 0;
	OK(all_zero(&rest, sizeof(rest)),
	   "every other extended field 0, as a provider without them");

	fake.ports = 300;
	fake.dev.phys_port_cnt = 255;
	OK(!ibv_query_device_ex(ctx, NULL, &ex) && ex.phys_port_cnt_ex == 300 &&
	   ex.orig_attr.phys_port_cnt == 255,
	   "phys_port_cnt_ex from GET_INFO, beyond 8 bits (300)");
	fake_device();

	/* a program built before phys_port_cnt_ex existed */
	old = offsetof(struct ibv_device_attr_ex, phys_port_cnt_ex);
	memset(&ex, 0xa5, sizeof(ex));
	fake.info_calls = 0;
	OK(v->query_device_ex(ctx, NULL, &ex, old) == 0 &&
	   ex.device_cap_flags_ex == ((1ULL << 34) | (1ULL << 21)) &&
	   ex.xrc_odp_caps == 0 && ex.phys_port_cnt_ex == 0xa5a5a5a5 &&
	   fake.info_calls == 0,
	   "attr_size without phys_port_cnt_ex: zeroed, filled, nothing past it");
	/* the smallest: orig_attr alone */
	memset(&ex, 0xa5, sizeof(ex));
	OK(v->query_device_ex(ctx, NULL, &ex, sizeof(ex.orig_attr)) == 0 &&
	   ex.orig_attr.max_qp == 100 && ex.comp_mask == 0xa5a5a5a5,
	   "attr_size == sizeof(orig_attr): orig_attr only");
	errno = 0;
	OK(v->query_device_ex(ctx, NULL, &ex, sizeof(ex.orig_attr) - 1) == EINVAL &&
	   errno == EINVAL, "attr_size below orig_attr: EINVAL");
	OK(v->query_device_ex(ctx, &in, &ex, sizeof(ex)) == EINVAL,
	   "input->comp_mask != 0: EINVAL (op called directly)");
	OK(ibv_query_device_ex(ctx, &in, &ex) == EINVAL,
	   "input->comp_mask != 0: EINVAL (inline)");
	fake.on = false;
	OK(ibv_query_device_ex(ctx, NULL, &ex) == ENOTTY,
	   "the kernel's error is returned (no legacy fallback)");
	fake.on = true;
}

/* ---- create_qp_ex -------------------------------------------------------- */

struct objs {
	struct ibv_pd pd;
	struct ibv_cq cq;
};

static void objs_init(struct objs *o, struct ibv_context *ctx)
{
	memset(o, 0, sizeof(*o));
	o->pd.context = ctx;
	o->pd.handle = 3;
	o->cq.context = ctx;
	o->cq.handle = 5;
}

static struct ibv_qp_init_attr_ex qp_attr_ex(struct objs *o, uint32_t mask)
{
	return (struct ibv_qp_init_attr_ex){
		.send_cq = &o->cq, .recv_cq = &o->cq, .qp_type = IBV_QPT_RC,
		.sq_sig_all = 1, .comp_mask = mask, .pd = &o->pd,
		.cap = { .max_send_wr = 4, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
}

static void test_create_qp_ex_shares_create_qp(struct ibv_context *ctx)
{
	struct ibv_qp_init_attr base;
	struct ibv_qp_init_attr_ex ex;
	struct ib_async_create_qp via_base, via_ex;
	struct ibv_qp *qp;
	struct objs o;

	objs_init(&o, ctx);
	OK(verbs_get_ctx(ctx)->create_qp_ex, "create_qp_ex op set");
	ex = qp_attr_ex(&o, IBV_QP_INIT_ATTR_PD);
	memcpy(&base, &ex, sizeof(base));
	qp = ibv_create_qp(&o.pd, &base);
	via_base = fake.qp;
	OK(qp && !ibv_destroy_qp(qp), "ibv_create_qp on the fake kernel");

	ex = qp_attr_ex(&o, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS);
	fake.create_qp_calls = 0;
	qp = ibv_create_qp_ex(ctx, &ex);
	via_ex = fake.qp;
	if (!OK(qp && fake.create_qp_calls == 1,
		"PD | CREATE_FLAGS (no flag): one CREATE_QP"))
		return;
	OK(qp->qp_num == FAKE_QPN && qp->handle == FAKE_QP_HANDLE &&
	   qp->pd == &o.pd && qp->send_cq == &o.cq && qp->context == ctx &&
	   qp->qp_type == IBV_QPT_RC && qp->state == IBV_QPS_RESET,
	   "the QP carries the kernel's qp_num and handle, its PD and CQs");
	OK(ex.cap.max_send_wr == 8 && ex.cap.max_inline_data == 64 &&
	   ex.cap.max_recv_wr == 8, "attr->cap: what the kernel granted");
	via_base.user_handle = via_ex.user_handle = 0;
	OK(!memcmp(&via_base, &via_ex, sizeof(via_ex)),
	   "the kernel was asked exactly what ibv_create_qp() asks");
	OK(via_ex.sq_sig_all == 1 && via_ex.pd_handle == 3 &&
	   via_ex.send_cq_handle == 5 && via_ex.max_recv_wr == 8,
	   "request: sq_sig_all, PD, CQ and caps from the ex attributes");
	errno = 0;
	OK(!ibv_qp_to_qp_ex(qp) && errno == EOPNOTSUPP,
	   "ibv_qp_to_qp_ex: NULL, no ibv_wr_*() API");
	OK(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp of an ex QP");

	/* what the inline passes straight to ibv_create_qp() */
	ex = qp_attr_ex(&o, IBV_QP_INIT_ATTR_PD);
	ex.qp_type = IBV_QPT_UD;
	qp = ibv_create_qp_ex(ctx, &ex);
	OK(qp && qp->qp_type == IBV_QPT_UD && fake.qp.qp_type == IBV_QPT_UD,
	   "PD alone (the inline's ibv_create_qp() path): UD QP");
	if (qp)
		ibv_destroy_qp(qp);
}

static void test_create_qp_ex_refusals(struct ibv_context *ctx,
				       struct ibv_context *other)
{
	const uint32_t pd = IBV_QP_INIT_ATTR_PD;
	const uint32_t cf = IBV_QP_INIT_ATTR_CREATE_FLAGS;
	static const struct {
		const char *what;
		uint32_t mask, create_flags;
		enum ibv_qp_type type;
		int err;
	} cases[] = {
		{ "SEND_OPS_FLAGS RDMA_WRITE (copy path)",
		  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0, IBV_QPT_RC, EOPNOTSUPP },
		{ "XRCD", IBV_QP_INIT_ATTR_XRCD, 0, IBV_QPT_XRC_RECV, EOPNOTSUPP },
		{ "IND_TABLE | RX_HASH",
		  IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH,
		  0, IBV_QPT_RAW_PACKET, EOPNOTSUPP },
		{ "MAX_TSO_HEADER", IBV_QP_INIT_ATTR_MAX_TSO_HEADER,
		  0, IBV_QPT_RC, EOPNOTSUPP },
		{ "BLOCK_SELF_MCAST_LB", cf, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
		  IBV_QPT_UD, EOPNOTSUPP },
		{ "SOURCE_QPN", cf, IBV_QP_CREATE_SOURCE_QPN, IBV_QPT_UD,
		  EOPNOTSUPP },
		{ "UC", cf, 0, IBV_QPT_UC, EOPNOTSUPP },
		{ "RAW_PACKET", cf, 0, IBV_QPT_RAW_PACKET, EOPNOTSUPP },
		{ "XRC_SEND", cf, 0, IBV_QPT_XRC_SEND, EOPNOTSUPP },
		{ "unknown comp_mask bit 7", 1U << 7, 0, IBV_QPT_RC, EINVAL },
	};
	struct ibv_qp_init_attr_ex ex;
	struct objs o, theirs;
	size_t i;

	objs_init(&o, ctx);
	objs_init(&theirs, other);
	fake.create_qp_calls = 0;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ex = qp_attr_ex(&o, pd | cases[i].mask);
		ex.create_flags = cases[i].create_flags;
		ex.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
		ex.qp_type = cases[i].type;
		errno = 0;
		OK(!ibv_create_qp_ex(ctx, &ex) && errno == cases[i].err,
		   "%s: %s", cases[i].what, strerror(cases[i].err));
	}
	ex = qp_attr_ex(&o, cf);
	errno = 0;
	OK(!ibv_create_qp_ex(ctx, &ex) && errno == EINVAL,
	   "no IBV_QP_INIT_ATTR_PD: EINVAL");
	ex = qp_attr_ex(&o, pd | cf);
	ex.pd = NULL;
	errno = 0;
	OK(!ibv_create_qp_ex(ctx, &ex) && errno == EINVAL, "pd NULL: EINVAL");
	ex = qp_attr_ex(&o, pd | cf);
	ex.pd = &theirs.pd;
	errno = 0;
	OK(!ibv_create_qp_ex(ctx, &ex) && errno == EINVAL,
	   "PD of another context: EINVAL");
	OK(fake.create_qp_calls == 0, "no refused request reached the kernel");
}

/* ---- the ibv_wr_*() API ---------------------------------------------- */

static void test_wr_api(struct ibv_context *ctx)
{
	struct ibv_qp_init_attr_ex ex;
	char msg[] = "inline, copied";
	struct ibv_data_buf parts[2] = { { msg, 7 }, { msg + 7, 8 } };
	struct ibv_qp_ex *qx;
	struct ibv_qp *qp;
	struct objs o;

	objs_init(&o, ctx);
	ex = qp_attr_ex(&o, IBV_QP_INIT_ATTR_PD |
			    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	ex.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	qp = ibv_create_qp_ex(ctx, &ex);
	if (!OK(qp, "create_qp_ex with send ops SEND | SEND_WITH_IMM"))
		return;
	qx = ibv_qp_to_qp_ex(qp);
	if (!OK(qx && &qx->qp_base == qp, "ibv_qp_to_qp_ex: the same QP"))
		goto out;

	/* two requests; the caller's buffer is changed before complete */
	fake.sends = 0;
	ibv_wr_start(qx);
	qx->wr_id = 11;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, msg, sizeof(msg));
	qx->wr_id = 12;
	qx->wr_flags = 0;
	ibv_wr_send_imm(qx, htobe32(0xabc));
	ibv_wr_set_inline_data_list(qx, 2, parts);
	memset(msg, 'x', sizeof(msg));
	OK(fake.sends == 0, "nothing posted before ibv_wr_complete");
	OK(ibv_wr_complete(qx) == 0 && fake.sends == 2,
	   "ibv_wr_complete: both requests posted, in one complete");
	OK(fake.send[0].wr_id == 11 && fake.send[0].opcode == IB_UVERBS_WR_SEND &&
	   fake.send[0].send_flags == IB_ASYNC_SEND_SIGNALED &&
	   fake.send[0].length == 15 &&
	   !strcmp(fake.send_data[0], "inline, copied"),
	   "first: wr_id, SEND, signalled, the bytes as they were when set");
	OK(fake.send[1].wr_id == 12 &&
	   fake.send[1].opcode == IB_UVERBS_WR_SEND_WITH_IMM &&
	   fake.send[1].imm_data == htobe32(0xabc) &&
	   fake.send[1].send_flags == 0 && fake.send[1].length == 15 &&
	   !memcmp(fake.send_data[1], "inline, copied", 15),
	   "second: SEND_WITH_IMM, unsignalled, gathered from two buffers");

	/* misuse is remembered and returned; nothing is posted */
	fake.sends = 0;
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, "a", 1);
	ibv_wr_rdma_write(qx, 1, 0x1000);
	OK(ibv_wr_complete(qx) == EINVAL && fake.sends == 0,
	   "an op the QP was not made for: EINVAL, nothing posted");
	ibv_wr_start(qx);
	ibv_wr_set_sge(qx, 1, 0x1000, 4);
	OK(ibv_wr_complete(qx) == EINVAL, "a setter before any op: EINVAL");
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_ud_addr(qx, NULL, 1, 2);
	OK(ibv_wr_complete(qx) == EINVAL, "a UD address on an RC QP: EINVAL");
	ibv_wr_start(qx);
	ibv_wr_local_inv(qx, 7);
	OK(ibv_wr_complete(qx) == EOPNOTSUPP, "local invalidate: EOPNOTSUPP");
	ibv_wr_start(qx);
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, "abc", 3);
	ibv_wr_abort(qx);
	OK(ibv_wr_complete(qx) == EINVAL && fake.sends == 0,
	   "abort: nothing posted, and no session left to complete");
	ibv_wr_start(qx);
	OK(ibv_wr_complete(qx) == 0 && fake.sends == 0,
	   "an empty session completes with nothing posted");
out:
	OK(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp of an extended QP");
}

/* ---- create_cq_ex and its poll API ------------------------------------- */

static void test_create_cq_ex_refusals(struct ibv_context *ctx)
{
	static const struct {
		const char *what;
		uint64_t wc_flags;
		uint32_t comp_mask, flags, cqe;
		int err;
	} cases[] = {
		{ "COMPLETION_TIMESTAMP", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
		  0, 0, 4, EOPNOTSUPP },
		{ "CVLAN", IBV_WC_EX_WITH_CVLAN, 0, 0, 4, EOPNOTSUPP },
		{ "TM_INFO", IBV_WC_EX_WITH_TM_INFO, 0, 0, 4, EOPNOTSUPP },
		{ "parent domain", 0, IBV_CQ_INIT_ATTR_MASK_PD, 0, 4,
		  EOPNOTSUPP },
		{ "IGNORE_OVERRUN", 0, IBV_CQ_INIT_ATTR_MASK_FLAGS,
		  IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN, 4, EOPNOTSUPP },
		{ "unknown comp_mask bit 5", 0, 1U << 5, 0, 4, EINVAL },
		{ "cqe 0", 0, 0, 0, 0, EINVAL },
		{ "cqe beyond INT_MAX", 0, 0, 0, 0x80000000U, EINVAL },
	};
	struct ibv_cq_init_attr_ex a;
	size_t i;

	OK(verbs_get_ctx(ctx)->create_cq_ex, "create_cq_ex op set");
	fake.create_cq_calls = 0;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.cqe = cases[i].cqe;
		a.wc_flags = cases[i].wc_flags;
		a.comp_mask = cases[i].comp_mask;
		a.flags = cases[i].flags;
		errno = 0;
		OK(!ibv_create_cq_ex(ctx, &a) && errno == cases[i].err,
		   "cq_ex %s: %s", cases[i].what, strerror(cases[i].err));
	}
	OK(fake.create_cq_calls == 0, "no refused CQ reached the kernel");
}

/* The current completion is fake_wc(@i), read through every op. */
static bool cur_is(struct ibv_cq_ex *cq, uint32_t i)
{
	struct ib_async_wc w;

	fake_wc(&w, i);
	return cq->wr_id == i && cq->status == (enum ibv_wc_status)w.status &&
	       ibv_wc_read_opcode(cq) == IBV_WC_RECV &&
	       ibv_wc_read_vendor_err(cq) == w.vendor_err &&
	       ibv_wc_read_byte_len(cq) == w.byte_len &&
	       ibv_wc_read_imm_data(cq) == w.imm_data &&
	       ibv_wc_read_qp_num(cq) == FAKE_QPN &&
	       ibv_wc_read_src_qp(cq) == w.src_qp &&
	       ibv_wc_read_wc_flags(cq) == IBV_WC_WITH_IMM &&
	       ibv_wc_read_slid(cq) == w.slid && ibv_wc_read_sl(cq) == w.sl &&
	       ibv_wc_read_dlid_path_bits(cq) == w.dlid_path_bits;
}

/*
 * Sessions fetch ahead; whatever one leaves unconsumed comes next, to the
 * next session or to ibv_poll_cq(), each completion exactly once, in order.
 */
static void test_cq_ex_poll(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_wc wc[16];
	struct ibv_cq_ex *cq;
	uint32_t want = 1;
	bool in_order = true;
	int i, n, ret;

	fake.wc_next = fake.wc_avail = 0;
	cq = ibv_create_cq_ex(ctx, &a);
	if (!OK(cq && fake.create_cq_calls == 1, "ibv_create_cq_ex: one CREATE_CQ"))
		return;
	OK(ibv_start_poll(cq, &pa) == ENOENT, "empty CQ: start_poll ENOENT");
	ibv_end_poll(cq);	/* after a failed start, as pyverbs does: a no-op */
	pa.comp_mask = 1;
	OK(ibv_start_poll(cq, &pa) == EINVAL, "poll attr comp_mask: EINVAL");
	pa.comp_mask = 0;

	fake.wc_avail = 30;
	OK(ibv_start_poll(cq, &pa) == 0 && cur_is(cq, 1),
	   "start_poll: the first completion, every field");
	for (i = 2; i <= 5; i++)
		in_order = in_order && ibv_next_poll(cq) == 0 && cur_is(cq, i);
	OK(in_order, "next_poll: 2..5");
	ibv_end_poll(cq);
	OK(fake.poll_max <= IBASYNC_CQ_EX_BATCH,
	   "no fetch asks for more than the batch");

	/* ibv_poll_cq() first returns what the session fetched ahead */
	n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 16, wc);
	for (i = 0, want = 6; i < n; i++)
		in_order = in_order && wc[i].wr_id == want++ &&
			   wc[i].byte_len == wc[i].wr_id * 3;
	OK(n == 16 && in_order, "ibv_poll_cq: 6..21, fetched ahead first");

	OK(ibv_start_poll(cq, &pa) == 0 && cur_is(cq, 22), "next session: 22");
	want = 22;
	while ((ret = ibv_next_poll(cq)) == 0)
		in_order = in_order && cur_is(cq, ++want);
	OK(ret == ENOENT && want == 30 && in_order,
	   "next_poll to ENOENT: 23..30, nothing twice");
	ibv_end_poll(cq);
	fake.wc_avail = FAKE_WCS;
	n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 16, wc);
	OK(n == 10 && wc[0].wr_id == 31 && wc[9].wr_id == FAKE_WCS,
	   "ibv_poll_cq after the session: 31..40");
	OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0, "ibv_destroy_cq of an ex CQ");
}

#define EX_THREADS	4
#define EX_ROUNDS	2000

static void *cq_ex_poller(void *arg)
{
	struct ibv_cq_ex *cq = arg;
	struct ibv_poll_cq_attr pa = { 0 };
	uintptr_t got = 0;
	int i;

	for (i = 0; i < EX_ROUNDS; i++) {
		if (!ibv_start_poll(cq, &pa)) {
			got++;
			while (!ibv_next_poll(cq))
				got++;
		}
		/* after a failed start too, as pyverbs does */
		ibv_end_poll(cq);
	}
	return (void *)got;
}

/*
 * Threads polling one extended CQ, each ending its sessions the way
 * pyverbs does (ibv_end_poll() after a failed start as well): a session
 * belongs to the thread that started it, and the check of that is not a
 * data race with another thread's session (TSan build).
 */
static void test_cq_ex_threads(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	pthread_t t[EX_THREADS];
	struct ibv_cq_ex *cq;
	uintptr_t got = 0;
	void *ret;
	int i, made = 0;

	cq = ibv_create_cq_ex(ctx, &a);
	if (!OK(cq, "ibv_create_cq_ex for threads"))
		return;
	fake.alternate = true;
	fake.poll_calls = 0;
	for (i = 0; i < EX_THREADS; i++)
		made += !pthread_create(&t[i], NULL, cq_ex_poller, cq);
	for (i = 0; i < made; i++) {
		pthread_join(t[i], &ret);
		got += (uintptr_t)ret;
	}
	fake.alternate = false;
	OK(made == EX_THREADS && got == (uintptr_t)(fake.poll_calls / 3),
	   "%d threads: every completion the fake gave taken once (%lu)",
	   EX_THREADS, (unsigned long)got);
	OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0, "destroyed");
}

int main(void)
{
	struct ibv_context *ctx, *other;
	struct ft_fake0 ft;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	ctx = ft_fake0_open(&ft);
	other = ft_fake0_open(&ft);
	if (!OK(ctx && other, "open fake0 twice"))
		return tap_done();
	fake.on = true;
	test_query_device_ex(ctx);
	test_create_qp_ex_shares_create_qp(ctx);
	test_create_qp_ex_refusals(ctx, other);
	test_wr_api(ctx);
	test_create_cq_ex_refusals(ctx);
	test_cq_ex_poll(ctx);
	test_cq_ex_threads(ctx);
	fake.on = false;
	ibv_close_device(other);
	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}

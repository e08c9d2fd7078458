// SPDX-License-Identifier: GPL-2.0
/*
 * Recipes: short call sequences that a random walk reaches only rarely,
 * played straight so that the states behind them get fuzzed: UD and RC
 * traffic between the workers' own QPs on rxe's loopback, a CQ overrun
 * (CQ_ERR), an SRQ limit (SRQ_LIMIT_REACHED), a send queue drained in SQD
 * (SQ_DRAINED), a long queue of one object's records purged while events
 * keep coming (evsrc), a mapped completion ring scribbled on while
 * traffic fills it, and submission rings posted through while the same
 * thread scribbles on their slots. Every step is one call of the worker's budget, goes
 * through the same checks as any other and records its objects in the
 * shared table, where later calls use, break and destroy them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "fuzz.h"
#include "lib/iba_ring_map.h"

#define QKEY	0x11111111u

/* One step; stop the recipe when the budget is spent or the step fails. */
#define STEP(ctx, slot, NR, arg)					\
	do {								\
		if ((ctx)->call >= (ctx)->budget ||			\
		    fz_ioc(ctx, slot, IB_ASYNC_CMD_##NR, arg))		\
			return false;					\
	} while (0)

static bool make_pd(struct fz_ctx *ctx, uint32_t slot, uint32_t *pd)
{
	struct ib_async_create_pd a = { .argsz = sizeof(a) };

	STEP(ctx, slot, CREATE_PD, &a);
	*pd = a.handle;
	return true;
}

static bool make_cq(struct fz_ctx *ctx, uint32_t slot, uint32_t cqe,
		    uint32_t *cq)
{
	struct ib_async_create_cq a = {
		.argsz = sizeof(a), .cqe = cqe, .user_handle = fz_next(&ctx->rng),
	};

	STEP(ctx, slot, CREATE_CQ, &a);
	*cq = a.handle;
	return true;
}

static bool make_qp(struct fz_ctx *ctx, uint32_t slot, uint32_t type,
		    uint32_t pd, uint32_t cq, uint32_t srq,
		    struct ib_async_create_qp *a)
{
	memset(a, 0, sizeof(*a));
	a->argsz = sizeof(*a);
	a->user_handle = fz_next(&ctx->rng);
	a->pd_handle = pd;
	a->send_cq_handle = cq;
	a->recv_cq_handle = cq;
	a->srq_handle = srq;
	a->qp_type = type;
	a->sq_sig_all = fz_chance(&ctx->rng, 50);
	a->max_send_wr = 16;
	a->max_recv_wr = 16;
	a->max_send_sge = 1;
	a->max_recv_sge = 1;
	STEP(ctx, slot, CREATE_QP, a);
	return true;
}

static bool modify(struct fz_ctx *ctx, uint32_t slot,
		   struct ib_async_qp_attr *a, uint32_t qp, uint32_t state,
		   uint32_t mask)
{
	a->argsz = sizeof(*a);
	a->handle = qp;
	a->qp_state = state;
	a->attr_mask = mask | IB_ASYNC_QP_STATE;
	STEP(ctx, slot, MODIFY_QP, a);
	return true;
}

/* A UD QP through INIT, RTR and RTS. */
static bool ud_up(struct fz_ctx *ctx, uint32_t slot, uint32_t qp)
{
	struct ib_async_qp_attr a = { .port_num = 1, .qkey = QKEY };

	if (!modify(ctx, slot, &a, qp, 1, IB_ASYNC_QP_PKEY_INDEX |
		    IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY))
		return false;
	memset(&a, 0, sizeof(a));
	if (!modify(ctx, slot, &a, qp, 2, 0))
		return false;
	memset(&a, 0, sizeof(a));
	return modify(ctx, slot, &a, qp, 3, IB_ASYNC_QP_SQ_PSN);
}

/* An RC QP through INIT, RTR (to @dqpn) and RTS. */
static bool rc_up(struct fz_ctx *ctx, uint32_t slot, uint32_t qp,
		  uint32_t dqpn)
{
	struct ib_async_qp_attr a = { .port_num = 1, .qp_access_flags = 7 };

	if (!modify(ctx, slot, &a, qp, 1, IB_ASYNC_QP_PKEY_INDEX |
		    IB_ASYNC_QP_PORT | IB_ASYNC_QP_ACCESS_FLAGS))
		return false;
	memset(&a, 0, sizeof(a));
	a.path_mtu = 3;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	fz_build_av(ctx, slot, &a.av);
	a.av.port_num = 1;
	if (!modify(ctx, slot, &a, qp, 2, IB_ASYNC_QP_AV |
		    IB_ASYNC_QP_PATH_MTU | IB_ASYNC_QP_DEST_QPN |
		    IB_ASYNC_QP_RQ_PSN | IB_ASYNC_QP_MAX_DEST_RD_ATOMIC |
		    IB_ASYNC_QP_MIN_RNR_TIMER))
		return false;
	memset(&a, 0, sizeof(a));
	a.timeout = 10;
	a.retry_cnt = 2;
	a.rnr_retry = 2;
	a.max_rd_atomic = 1;
	return modify(ctx, slot, &a, qp, 3, IB_ASYNC_QP_TIMEOUT |
		      IB_ASYNC_QP_RETRY_CNT | IB_ASYNC_QP_RNR_RETRY |
		      IB_ASYNC_QP_SQ_PSN | IB_ASYNC_QP_MAX_QP_RD_ATOMIC);
}

static bool post_recv(struct fz_ctx *ctx, uint32_t slot, uint32_t type,
		      uint32_t handle, uint32_t len)
{
	struct ib_async_post_recv a = {
		.argsz = sizeof(a), .obj_type = type, .handle = handle,
		.wr_id = fz_next(&ctx->rng), .length = len,
		.addr = fz_recv_uptr(ctx, len),
	};

	STEP(ctx, slot, POST_RECV, &a);
	return true;
}

static bool post_send(struct fz_ctx *ctx, uint32_t slot, uint32_t qp,
		      uint32_t ah, uint32_t dqpn, uint32_t len)
{
	struct ib_async_post_send a = {
		.argsz = sizeof(a), .handle = qp,
		.opcode = fz_chance(&ctx->rng, 50) ? IB_UVERBS_WR_SEND :
			  IB_UVERBS_WR_SEND_WITH_IMM,
		.wr_id = fz_next(&ctx->rng), .length = len,
		.addr = (uintptr_t)fz_mem.send,
		.send_flags = fz_chance(&ctx->rng, 70) ?
			      IB_ASYNC_SEND_SIGNALED : 0,
		.ah_handle = ah, .remote_qpn = ah ? dqpn : 0,
		.remote_qkey = ah ? QKEY : 0,
	};

	STEP(ctx, slot, POST_SEND, &a);
	return true;
}

static bool poll_some(struct fz_ctx *ctx, uint32_t slot, uint32_t cq,
		      uint32_t rounds)
{
	struct ib_async_poll_cq a;

	while (rounds--) {
		memset(&a, 0, sizeof(a));
		a.argsz = sizeof(a);
		a.handle = cq;
		a.count = 16;
		a.wc = fz_valid_uptr(ctx, 16 * sizeof(struct ib_async_wc));
		STEP(ctx, slot, POLL_CQ, &a);
	}
	return true;
}

static bool make_ah(struct fz_ctx *ctx, uint32_t slot, uint32_t pd,
		    uint32_t *ah)
{
	struct ib_async_create_ah a = { .argsz = sizeof(a), .pd_handle = pd };

	fz_build_av(ctx, slot, &a.av);
	a.av.port_num = 1;
	STEP(ctx, slot, CREATE_AH, &a);
	*ah = a.handle;
	return true;
}

/* Two UD QPs (one perhaps on an SRQ) and messages between them. */
static bool ud_traffic(struct fz_ctx *ctx, uint32_t slot)
{
	struct ib_async_create_qp q1, q2;
	uint32_t pd, cq, ah, i, n = fz_range(&ctx->rng, 1, 6);

	if (!make_pd(ctx, slot, &pd) ||
	    !make_cq(ctx, slot, fz_chance(&ctx->rng, 30) ? 2 : 64, &cq) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_UD, pd, cq, 0, &q1) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_UD, pd, cq, 0, &q2) ||
	    !ud_up(ctx, slot, q1.handle) || !ud_up(ctx, slot, q2.handle) ||
	    !make_ah(ctx, slot, pd, &ah))
		return false;
	for (i = 0; i < n; i++)
		if (!post_recv(ctx, slot, IB_ASYNC_OBJ_QP, q2.handle, 40 + 512))
			return false;
	for (i = 0; i < n; i++)
		if (!post_send(ctx, slot, q1.handle, ah, q2.qp_num,
			       fz_below(&ctx->rng, 513)))
			return false;
	return poll_some(ctx, slot, cq, 3);
}

/* Two RC QPs connected to each other and a message each way. */
static bool rc_traffic(struct fz_ctx *ctx, uint32_t slot)
{
	struct ib_async_create_qp q1, q2;
	uint32_t pd, cq;

	if (!make_pd(ctx, slot, &pd) || !make_cq(ctx, slot, 64, &cq) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_RC, pd, cq, 0, &q1) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_RC, pd, cq, 0, &q2) ||
	    !rc_up(ctx, slot, q1.handle, q2.qp_num) ||
	    !rc_up(ctx, slot, q2.handle, q1.qp_num) ||
	    !post_recv(ctx, slot, IB_ASYNC_OBJ_QP, q1.handle, 4096) ||
	    !post_recv(ctx, slot, IB_ASYNC_OBJ_QP, q2.handle, 4096) ||
	    !post_send(ctx, slot, q1.handle, 0, 0, fz_below(&ctx->rng, 4097)) ||
	    !post_send(ctx, slot, q2.handle, 0, 0, fz_below(&ctx->rng, 4097)))
		return false;
	return poll_some(ctx, slot, cq, 3);
}

/* Receives flushed by a move to ERR overrun a one-entry CQ: CQ_ERR. */
static bool cq_overrun(struct fz_ctx *ctx, uint32_t slot)
{
	struct ib_async_create_qp q;
	struct ib_async_qp_attr a = { .port_num = 1, .qkey = QKEY };
	uint32_t pd, cq, i, n = fz_range(&ctx->rng, 2, 5);

	if (!make_pd(ctx, slot, &pd) || !make_cq(ctx, slot, 1, &cq) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_UD, pd, cq, 0, &q) ||
	    !modify(ctx, slot, &a, q.handle, 1, IB_ASYNC_QP_PKEY_INDEX |
		    IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY))
		return false;
	for (i = 0; i < n; i++)
		if (!post_recv(ctx, slot, IB_ASYNC_OBJ_QP, q.handle, 64))
			return false;
	memset(&a, 0, sizeof(a));
	return modify(ctx, slot, &a, q.handle, 6, 0);
}

/* An SRQ armed at K receives, one message to it: SRQ_LIMIT_REACHED. */
static bool srq_limit(struct fz_ctx *ctx, uint32_t slot)
{
	struct ib_async_create_srq s = { .argsz = sizeof(s), .max_wr = 16,
					 .max_sge = 1 };
	struct ib_async_srq_attr arm = { .argsz = sizeof(arm),
					 .attr_mask = IB_ASYNC_SRQ_LIMIT };
	struct ib_async_create_qp rq, sq;
	uint32_t pd, cq, ah, i, k = fz_range(&ctx->rng, 1, 4);

	if (!make_pd(ctx, slot, &pd) || !make_cq(ctx, slot, 64, &cq))
		return false;
	s.pd_handle = pd;
	s.user_handle = fz_next(&ctx->rng);
	STEP(ctx, slot, CREATE_SRQ, &s);
	if (!make_qp(ctx, slot, IB_UVERBS_QPT_UD, pd, cq, s.handle, &rq) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_UD, pd, cq, 0, &sq) ||
	    !ud_up(ctx, slot, rq.handle) || !ud_up(ctx, slot, sq.handle) ||
	    !make_ah(ctx, slot, pd, &ah))
		return false;
	for (i = 0; i < k; i++)
		if (!post_recv(ctx, slot, IB_ASYNC_OBJ_SRQ, s.handle, 40 + 256))
			return false;
	arm.handle = s.handle;
	arm.srq_limit = k;
	STEP(ctx, slot, MODIFY_SRQ, &arm);
	if (!post_send(ctx, slot, sq.handle, ah, rq.qp_num, 64))
		return false;
	return poll_some(ctx, slot, cq, 2);
}

/* A UD QP to RTS, then SQD: SQ_DRAINED. */
static bool sq_drain(struct fz_ctx *ctx, uint32_t slot)
{
	struct ib_async_create_qp q;
	struct ib_async_qp_attr a = { .en_sqd_async_notify = 1 };
	uint32_t pd, cq;

	if (!make_pd(ctx, slot, &pd) || !make_cq(ctx, slot, 16, &cq) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_UD, pd, cq, 0, &q) ||
	    !ud_up(ctx, slot, q.handle))
		return false;
	return modify(ctx, slot, &a, q.handle, 4,
		      IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY);
}

/* The id evsrc gave the newest CQ (ours, unless another worker was quicker). */
static int evsrc_newest_cq(struct fz_ctx *ctx, uint32_t slot)
{
	char path[128], line[128], kind[16];
	unsigned int id;
	int best = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/ib_async_evsrc/%s/objects",
		 ctx->sh->dev[fz_dev_of(ctx, slot)].ibdev);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%15s %u", kind, &id) == 2 &&
		    !strcmp(kind, "cq") && (int)id > best)
			best = id;
	fclose(f);
	return best;
}

struct flood {
	char raise[128], cmd[96];	/* evsrc's raise file, what to write */
	char storm[96];			/* port events for every file, or "" */
};

/* Refused once the object or the device is gone: nothing to do then. */
static void write_to(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = write(fd, s, strlen(s));
	(void)n;
	close(fd);
}

static void *flood_thread(void *arg)
{
	struct flood *fl = arg;

	write_to(fl->raise, fl->cmd);
	if (fl->storm[0])
		write_to("/sys/kernel/debug/ib_async_storm/dispatch", fl->storm);
	return NULL;
}

/*
 * A long queue of one object's records, and the object destroyed while a
 * burst on it and port events for every file keep coming: the purge
 * compacts the ring in chunks with the lock dropped in between, producers
 * appending behind it (evsrc's destroy stops the burst first).
 */
static bool flood_and_destroy(struct fz_ctx *ctx, uint32_t slot)
{
	const struct fz_dev *dev = &ctx->sh->dev[fz_dev_of(ctx, slot)];
	struct ib_async_queue_len ql = {
		.argsz = sizeof(ql), .queue_len = fz_range(&ctx->rng, 300, 4096),
	};
	struct ib_async_destroy d = { .argsz = sizeof(d),
				      .obj_type = IB_ASYNC_OBJ_CQ };
	struct flood fl = { .storm = "" };
	pthread_t t;
	uint32_t cq;
	int id;

	if (dev->kind != FZ_DEV_EVSRC)
		return false;
	STEP(ctx, slot, SET_QUEUE_LEN, &ql);
	if (!make_cq(ctx, slot, 8, &cq))
		return false;
	id = evsrc_newest_cq(ctx, slot);
	if (id < 0)
		return false;
	snprintf(fl.raise, sizeof(fl.raise),
		 "/sys/kernel/debug/ib_async_evsrc/%s/raise", dev->ibdev);
	snprintf(fl.cmd, sizeof(fl.cmd), "CQ_ERR cq:%d %s %u\n", id,
		 ctx->sh->rt ? "softirq" : "hardirq", 4 * ql.queue_len);
	if (ctx->sh->storm)
		snprintf(fl.storm, sizeof(fl.storm), "%s SM_CHANGE 1 %u\n",
			 dev->ibdev, fz_range(&ctx->rng, 100, 1000));
	if (pthread_create(&t, NULL, flood_thread, &fl))
		return false;
	d.handle = cq;
	if (ctx->call < ctx->budget)
		fz_ioc(ctx, slot, IB_ASYNC_CMD_DESTROY, &d);
	pthread_join(t, NULL);
	return true;
}

/*
 * Events every file of the slot's device gets, at least @n of them and
 * quickly: port events from evsrc (from any context it offers) or the
 * storm module; on rxe, now and then, a CQ overrun's CQ_ERR instead.
 */
static void lose_events(struct fz_ctx *ctx, uint32_t slot, uint32_t n)
{
	static const char *const types[] = {
		"SM_CHANGE", "LID_CHANGE", "PKEY_CHANGE", "CLIENT_REREGISTER",
	};
	static const char *const ctxs[] = { "process", "softirq", "hardirq" };
	const struct fz_dev *dev = &ctx->sh->dev[fz_dev_of(ctx, slot)];
	const char *type = types[fz_below(&ctx->rng, 4)];
	uint32_t port = fz_range(&ctx->rng, 1, dev->ports);
	char path[128], line[128];

	if (dev->kind == FZ_DEV_RXE && fz_chance(&ctx->rng, 40)) {
		cq_overrun(ctx, slot);
		return;
	}
	if (dev->kind == FZ_DEV_EVSRC && fz_chance(&ctx->rng, 70)) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/debug/ib_async_evsrc/%s/raise", dev->ibdev);
		snprintf(line, sizeof(line), "%s port:%u %s %u\n", type, port,
			 ctxs[fz_below(&ctx->rng, ctx->sh->rt ? 2 : 3)], n);
	} else if (ctx->sh->storm) {
		snprintf(path, sizeof(path), "%s",
			 "/sys/kernel/debug/ib_async_storm/dispatch");
		snprintf(line, sizeof(line), "%s %s %u %u\n", dev->ibdev, type,
			 port, n);
	} else {
		return;
	}
	snprintf(ctx->desc, sizeof(ctx->desc), "state recipe: %.100s", line);
	write_to(path, line);
}

/*
 * The shapes of issue #43: a state channel (a resync one now and then)
 * with a queue of 1 to 3 events, subscribed to everything, and rounds of
 * losses, each followed by a snapshot of a port or of every port and now
 * and then by a read. A loss that finds a snapshot at the tail of the
 * full queue waits aside, and a snapshot (or a resync) must wait for a
 * read: refused with EBUSY, never anything else. The channel's records
 * go through fz_chan_read(), whose verdict is the sequence and the count
 * of losses against GET_INFO's lost; the last drain reads it empty.
 */
static bool state_losses(struct fz_ctx *ctx, uint32_t slot)
{
	const struct fz_dev *dev = &ctx->sh->dev[fz_dev_of(ctx, slot)];
	struct ib_async_create_channel ch = {
		.argsz = sizeof(ch), .type = IB_ASYNC_CHANNEL_EVENT,
		.flags = IB_ASYNC_CHANNEL_NONBLOCK | IB_ASYNC_CHANNEL_STATE,
	};
	struct ib_async_queue_len ql = {
		.argsz = sizeof(ql), .queue_len = fz_range(&ctx->rng, 1, 3),
	};
	struct ib_async_subscribe sub = { .argsz = sizeof(sub) };
	uint32_t i, round, rounds = fz_range(&ctx->rng, 2, 6), gen;
	int ret;

	if (fz_chance(&ctx->rng, 40))
		ch.flags |= IB_ASYNC_CHANNEL_RESYNC;
	if (fz_chance(&ctx->rng, 15))
		ch.flags |= IB_ASYNC_CHANNEL_COALESCE;
	STEP(ctx, slot, CREATE_CHANNEL, &ch);
	/* the file the channel was made on (0: an older one, through a dup) */
	gen = ctx->gen;
	for (i = 0; i < ctx->nchan && ctx->chan_fd[i] != ch.fd; i++)
		;
	if (i == ctx->nchan)
		return false;
	if (ctx->call >= ctx->budget ||
	    fz_ioc_on(ctx, slot, ch.fd, IB_ASYNC_CMD_SET_QUEUE_LEN, &ql))
		return false;
	sub.fd = ch.fd;
	sub.cookie = fz_next(&ctx->rng);
	STEP(ctx, slot, SUBSCRIBE, &sub);
	for (round = 0; round < rounds; round++) {
		lose_events(ctx, slot, fz_chance(&ctx->rng, 50) ? 1 :
				       fz_range(&ctx->rng, 2, 3 * ql.queue_len + 4));
		memset(&sub, 0, sizeof(sub));
		sub.argsz = sizeof(sub);
		sub.fd = ch.fd;
		sub.cookie = fz_next(&ctx->rng);
		sub.flags = IB_ASYNC_SUB_STATE;
		if (fz_chance(&ctx->rng, 70)) {
			sub.flags |= IB_ASYNC_SUB_PORT;
			sub.port = fz_range(&ctx->rng, 1, dev->ports);
		}
		if (ctx->call >= ctx->budget)
			return false;
		ret = fz_ioc(ctx, slot, IB_ASYNC_CMD_SUBSCRIBE, &sub);
		atomic_fetch_add(&ctx->sh->stats.snap_calls, 1);
		atomic_fetch_add(&ctx->sh->stats.snap_busy, ret == -EBUSY);
		/*
		 * EBUSY: read first. The stream may have ended (EIO), the
		 * device gone (ENODEV), the channel be full of subscriptions
		 * (ENOSPC), or the call have gone to a file other than the
		 * channel's (EINVAL: a dup of an older file, or a new file in
		 * the slot since): only a call to the channel's own file,
		 * still the slot's, is judged.
		 */
		if (ret && ret != -EBUSY && ret != -EIO && ret != -ENODEV &&
		    ret != -ENOSPC && ret != -EINTR && gen &&
		    ctx->gen == gen && fz_same_file(ctx, slot))
			fz_report(ctx, "state-snapshot-errno",
				  "SUB_STATE on a state channel refused with %s, not EBUSY",
				  strerror(-ret));
		if (fz_chance(&ctx->rng, 40))
			fz_chan_read(ctx, i, false);
	}
	fz_chan_read(ctx, i, true);
	return true;
}

/*
 * Issue #45's shapes: a CQ with a mapped completion ring, an RC pair
 * looped back on it with an MR over receive memory, lists posted both
 * ways (or, where the pair got submission rings, slots written and
 * doorbells rung) and CQ_WAIT called, now and then arming and POLL_CQ,
 * while a thread of the recipe's own scribbles on the ring's consumer
 * page and reads its records (cq_ring.c), and writes over the submission
 * rings' slots and now and then their producers; then, the scribbler
 * still going, the pair and the CQ destroyed and the ring unmapped, in
 * either order, or left to later calls.
 */
#define RING_MR_LEN	(64 * 1024)
#define RING_MSG	512
#define SCRIBBLE_US	200

/* A submission ring the recipe posts through, mapped as a program maps it. */
struct wr_map {
	struct ib_async_map_wr_ring m;
	struct iba_ring_map map;
	const struct ib_async_wr_ring_header *h;
	uint8_t *p;		/* the producer, then the slots */
};

struct ring_pair {
	uint32_t pd, cq;
	struct ib_async_create_qp a, b;
	struct ib_async_reg_mr mr;
	struct wr_map sq, rq;	/* A's send ring, B's receive ring */
};

struct scribbler {
	struct fz_ctx ctx;	/* the worker's, with a generator of its own */
	uint32_t slot, cq;
	struct wr_map *wr[2];
	atomic_bool stop;
};

/* Random bytes somewhere in a submission ring's slots, or its producer. */
static uint32_t wr_ring_poke(struct fz_rng *r, const struct wr_map *w)
{
	uint64_t span = (uint64_t)w->m.entries * w->m.slot_size;
	uint32_t *prod = (uint32_t *)w->p;

	if (!w->p)
		return 0;
	if (fz_chance(r, 2)) {
		__atomic_store_n(prod, fz_chance(r, 50) ? (uint32_t)fz_next(r) :
				 *prod + fz_below(r, 3), __ATOMIC_RELEASE);
		return 1;
	}
	w->p[w->m.slots_offset + fz_next(r) % span] = (uint8_t)fz_next(r);
	return 1;
}

static void *scribble(void *arg)
{
	struct scribbler *s = arg;
	struct fz_rng *r = &s->ctx.rng;
	uint32_t n;

	/*
	 * Scribbling for a while each time it has a CPU, then yielding: on
	 * two CPUs busy with the workers, a thread that sleeps or yields
	 * after each write gets a turn every few milliseconds.
	 */
	while (!atomic_load(&s->stop)) {
		uint64_t end = fz_now_us() + SCRIBBLE_US;

		do {
			n = fz_cq_ring_poke(&s->ctx, s->slot,
					    fz_chance(r, 90) ? s->cq : 0, 4);
			n += wr_ring_poke(r, s->wr[fz_below(r, 2)]);
			atomic_fetch_add(&s->ctx.sh->stats.ring_scribbles, n);
		} while (fz_now_us() < end && !atomic_load(&s->stop));
		sched_yield();
	}
	return NULL;
}

/*
 * MAP_WR_RING for queue @kind of @qp, then both mappings. What the
 * answer's handler (gen.c) left pending there is dropped: the producer is
 * set back to the consumer. False, with @w unmapped, when the node gives
 * no ring or it cannot be mapped: the recipe then posts lists.
 */
static bool wr_map(struct fz_ctx *ctx, uint32_t slot, uint32_t qp,
		   uint32_t kind, struct wr_map *w)
{
	int fd = ctx->sh->file[slot].fd;

	memset(w, 0, sizeof(*w));
	w->m.argsz = sizeof(w->m);
	w->m.obj_type = IB_ASYNC_OBJ_QP;
	w->m.handle = qp;
	w->m.kind = kind;
	w->m.entries = fz_range(&ctx->rng, 1, 16);
	if (ctx->call >= ctx->budget ||
	    fz_ioc(ctx, slot, IB_ASYNC_CMD_MAP_WR_RING, &w->m) ||
	    iba_ring_map(fd, w->m.mmap_offset, w->m.mmap_size,
			 w->m.slots_mmap_offset, w->m.slots_mmap_size, &w->map))
		return false;
	w->h = w->map.ro;
	w->p = w->map.rw;
	__atomic_store_n((uint32_t *)w->p,
			 __atomic_load_n(&w->h->consumer, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	return true;
}

static void wr_unmap(struct wr_map *w)
{
	iba_ring_unmap(&w->map);
	w->h = NULL;
	w->p = NULL;
}

/* The CQ and its ring (mapped by MAP_CQ_RING's handler), the MR, the pair. */
static bool ring_setup(struct fz_ctx *ctx, uint32_t slot, struct ring_pair *t)
{
	struct ib_async_map_cq_ring m = { .argsz = sizeof(m) };
	struct fz_rng *r = &ctx->rng;
	uint32_t pages = (FZ_RECV_LEN - RING_MR_LEN) / FZ_PAGE + 1;

	/* no submission ring unless one is made below */
	memset(&t->sq, 0, sizeof(t->sq));
	memset(&t->rq, 0, sizeof(t->rq));
	/* a small CQ overruns while a scribbled index keeps the ring full */
	if (!make_pd(ctx, slot, &t->pd) ||
	    !make_cq(ctx, slot, fz_chance(r, 30) ? fz_range(r, 2, 4) :
			       fz_range(r, 16, 64), &t->cq))
		return false;
	m.handle = t->cq;
	m.entries = fz_chance(r, 50) ? 0 : fz_range(r, 1, 64);
	STEP(ctx, slot, MAP_CQ_RING, &m);
	memset(&t->mr, 0, sizeof(t->mr));
	t->mr.argsz = sizeof(t->mr);
	t->mr.pd_handle = t->pd;
	t->mr.addr = (uintptr_t)fz_mem.recv + fz_below(r, pages) * FZ_PAGE;
	t->mr.iova = t->mr.addr;
	t->mr.length = RING_MR_LEN;
	t->mr.access = IB_UVERBS_ACCESS_LOCAL_WRITE;
	STEP(ctx, slot, REG_MR, &t->mr);
	if (!make_qp(ctx, slot, IB_UVERBS_QPT_RC, t->pd, t->cq, 0, &t->a) ||
	    !make_qp(ctx, slot, IB_UVERBS_QPT_RC, t->pd, t->cq, 0, &t->b) ||
	    !rc_up(ctx, slot, t->a.handle, t->b.qp_num) ||
	    !rc_up(ctx, slot, t->b.handle, t->a.qp_num))
		return false;
	/* submission rings half the time; posts without one take lists */
	if (fz_chance(r, 50)) {
		wr_map(ctx, slot, t->a.handle, IB_ASYNC_WR_RING_SEND, &t->sq);
		wr_map(ctx, slot, t->b.handle, IB_ASYNC_WR_RING_RECV, &t->rq);
	}
	return true;
}

/*
 * POLLER calls made to @slot so far, or ~0 while one may be polling: two
 * equal snapshots say that no poller ran between them (see
 * fz_file.polls).
 */
static uint64_t pollers_seen(struct fz_ctx *ctx, uint32_t slot)
{
	const struct fz_file *f = &ctx->sh->file[slot];
	uint64_t polls;

	fz_lock(ctx->sh);
	polls = f->polling ? ~0ULL : f->polls;
	fz_unlock(ctx->sh);
	return polls;
}

/*
 * Ring @w's doorbell for the @n slots written from its consumer @cons on
 * (read when @polls was taken); then, as a program does, drop what the
 * kernel refused. The consumer never moves further than a ring's size
 * (the producer is the scribbler's too) in one doorbell; a poller of the
 * file, which takes the slots the scribbler makes up as they come, may
 * move it further.
 */
static void wr_doorbell(struct fz_ctx *ctx, uint32_t slot,
			const struct wr_map *w, uint32_t cons, uint32_t n,
			uint64_t polls)
{
	struct fz_doorbell db = { .value = w->m.doorbell };
	uint32_t after;
	bool alone;

	__atomic_store_n((uint32_t *)w->p, cons + n, __ATOMIC_RELEASE);
	if (ctx->call >= ctx->budget)
		return;
	fz_ioc(ctx, slot, IB_ASYNC_CMD_WR_DOORBELL, &db);
	after = __atomic_load_n(&w->h->consumer, __ATOMIC_ACQUIRE);
	alone = polls != ~0ULL && pollers_seen(ctx, slot) == polls;
	if (alone && after - cons > w->m.entries)
		fz_report(ctx, "wr-ring-consumer",
			  "WR_DOORBELL moved the consumer %u slots in a ring of %u",
			  after - cons, w->m.entries);
	__atomic_store_n((uint32_t *)w->p, after, __ATOMIC_RELEASE);
}

/*
 * @n receives, or signalled sends (no longer than a receive), on @qp,
 * each one SGE in the MR; through @w's slots and its doorbell where the
 * queue has a ring, else as a list.
 */
static bool ring_post(struct fz_ctx *ctx, uint32_t slot,
		      const struct ring_pair *t, uint32_t qp, bool send,
		      uint32_t n)
{
	const struct wr_map *w = qp == t->a.handle && send ? &t->sq :
				 qp == t->b.handle && !send ? &t->rq : NULL;
	struct ib_async_post_list a = {
		.argsz = sizeof(a), .obj_type = IB_ASYNC_OBJ_QP, .handle = qp,
		.count = n, .num_sges = n,
	};
	struct ib_async_send_wr *sw = (void *)ctx->lists;
	struct ib_async_recv_wr *rw = (void *)ctx->lists;
	struct fz_rng *r = &ctx->rng;
	struct ib_async_sge *s;
	uint32_t i;

	if (send) {
		s = (void *)(sw + n);
		memset(sw, 0, n * sizeof(*sw));
		a.wr_size = sizeof(*sw);
	} else {
		s = (void *)(rw + n);
		memset(rw, 0, n * sizeof(*rw));
		a.wr_size = sizeof(*rw);
	}
	for (i = 0; i < n; i++) {
		if (send) {
			sw[i].wr_id = fz_next(r);
			sw[i].num_sge = 1;
			sw[i].opcode = fz_chance(r, 80) ? IB_UVERBS_WR_SEND :
				       IB_UVERBS_WR_SEND_WITH_IMM;
			if (sw[i].opcode != IB_UVERBS_WR_SEND)
				sw[i].imm_data = (uint32_t)fz_next(r);
			sw[i].send_flags = fz_chance(r, 85) ?
					   IB_ASYNC_SEND_SIGNALED : 0;
		} else {
			rw[i].wr_id = fz_next(r);
			rw[i].num_sge = 1;
		}
		s[i].addr = t->mr.addr +
			    fz_below(r, RING_MR_LEN / RING_MSG) * RING_MSG;
		s[i].length = send ? fz_below(r, RING_MSG + 1) : RING_MSG;
		s[i].lkey = t->mr.lkey;
	}
	if (w && w->p && n <= w->m.entries && fz_chance(r, 80)) {
		size_t wr = send ? sizeof(*sw) : sizeof(*rw);
		uint64_t polls = pollers_seen(ctx, slot);
		uint32_t cons = __atomic_load_n(&w->h->consumer,
						__ATOMIC_ACQUIRE);
		uint8_t *at;

		for (i = 0; i < n; i++) {
			at = w->p + w->m.slots_offset +
			     (size_t)((cons + i) & (w->m.entries - 1)) *
			     w->m.slot_size;
			memcpy(at, send ? (void *)&sw[i] : (void *)&rw[i], wr);
			memcpy(at + wr, &s[i], sizeof(s[i]));
		}
		wr_doorbell(ctx, slot, w, cons, n, polls);
		return true;
	}
	a.wrs = (uintptr_t)ctx->lists;
	a.sges = (uintptr_t)s;
	if (send)
		STEP(ctx, slot, POST_SEND_LIST, &a);
	else
		STEP(ctx, slot, POST_RECV_LIST, &a);
	return true;
}

/* Rounds of traffic and waits; the worker consumes from the ring too. */
static bool ring_rounds(struct fz_ctx *ctx, uint32_t slot,
			const struct ring_pair *t)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t round, rounds = fz_range(r, 2, 8), n;
	struct ib_async_cq_wait w;
	struct ib_async_req_notify_cq arm;

	for (round = 0; round < rounds; round++) {
		n = fz_range(r, 1, 4);
		if (!ring_post(ctx, slot, t, t->b.handle, false, n) ||
		    !ring_post(ctx, slot, t, t->a.handle, true, n))
			return false;
		if (fz_chance(r, 30) &&
		    (!ring_post(ctx, slot, t, t->a.handle, false, 1) ||
		     !ring_post(ctx, slot, t, t->b.handle, true, 1)))
			return false;
		memset(&w, 0, sizeof(w));
		w.argsz = sizeof(w);
		w.handle = t->cq;
		w.spin_us = fz_chance(r, 40) ? 0 : fz_range(r, 1, 1000);
		STEP(ctx, slot, CQ_WAIT, &w);
		if (fz_chance(r, 20)) {
			memset(&arm, 0, sizeof(arm));
			arm.argsz = sizeof(arm);
			arm.handle = t->cq;
			STEP(ctx, slot, REQ_NOTIFY_CQ, &arm);
		}
		if (fz_chance(r, 20) && !poll_some(ctx, slot, t->cq, 1))
			return false;
		if (fz_chance(r, 50))
			fz_cq_ring_poke(ctx, slot, t->cq, fz_range(r, 1, 4));
	}
	return true;
}

static void destroy(struct fz_ctx *ctx, uint32_t slot, uint32_t type,
		    uint32_t handle)
{
	struct ib_async_destroy d = { .argsz = sizeof(d), .obj_type = type,
				      .handle = handle };

	if (ctx->call < ctx->budget)
		fz_ioc(ctx, slot, IB_ASYNC_CMD_DESTROY, &d);
}

/*
 * The ring unmapped before the CQ's destroy, or after it, or the CQ
 * destroyed and its ring left mapped, or everything left to later calls.
 * Once the CQ is destroyed its ring stands still: a look checks it.
 */
static void ring_teardown(struct fz_ctx *ctx, uint32_t slot,
			  const struct ring_pair *t)
{
	uint32_t p = fz_below(&ctx->rng, 100);

	if (p < 25)
		fz_cq_ring_unmap(ctx, slot, t->cq);
	if (p < 70) {
		destroy(ctx, slot, IB_ASYNC_OBJ_QP, t->a.handle);
		destroy(ctx, slot, IB_ASYNC_OBJ_QP, t->b.handle);
		destroy(ctx, slot, IB_ASYNC_OBJ_CQ, t->cq);
		fz_cq_ring_poke(ctx, slot, t->cq, 4);
	}
	if (p >= 25 && p < 45)
		fz_cq_ring_unmap(ctx, slot, t->cq);
}

static bool cq_ring_traffic(struct fz_ctx *ctx, uint32_t slot)
{
	struct scribbler s = { .slot = slot };
	struct ring_pair t;
	pthread_t thread;

	/* the data path is the opener's, on rxe: file 0 is on rxe0 */
	if (!ctx->opener)
		return false;
	if (ctx->sh->dev[fz_dev_of(ctx, slot)].kind != FZ_DEV_RXE)
		slot = 0;
	if (ctx->sh->dev[fz_dev_of(ctx, slot)].kind != FZ_DEV_RXE ||
	    !ring_setup(ctx, slot, &t))
		return false;
	s.ctx = *ctx;
	fz_seed(&s.ctx.rng, fz_next(&ctx->rng));
	snprintf(s.ctx.desc, sizeof(s.ctx.desc),
		 "the ring recipe's scribbler, slot %u CQ %u", slot, t.cq);
	s.slot = slot;
	s.cq = t.cq;
	s.wr[0] = &t.sq;
	s.wr[1] = &t.rq;
	atomic_init(&s.stop, false);
	if (pthread_create(&thread, NULL, scribble, &s)) {
		wr_unmap(&t.sq);
		wr_unmap(&t.rq);
		return false;
	}
	atomic_fetch_add(&ctx->sh->stats.ring_recipes, 1);
	ring_rounds(ctx, slot, &t);
	ring_teardown(ctx, slot, &t);
	atomic_store(&s.stop, true);
	pthread_join(thread, NULL);
	/* the scribbler is done with them: mapped until now, QP or not */
	wr_unmap(&t.sq);
	wr_unmap(&t.rq);
	return true;
}

void fz_recipe(struct fz_ctx *ctx, uint32_t slot)
{
	if (fz_chance(&ctx->rng, 20) && flood_and_destroy(ctx, slot))
		return;
	if (fz_chance(&ctx->rng, 20) && state_losses(ctx, slot))
		return;
	if (fz_chance(&ctx->rng, 35) && cq_ring_traffic(ctx, slot))
		return;
	switch (fz_below(&ctx->rng, 5)) {
	case 0:
		ud_traffic(ctx, slot);
		break;
	case 1:
		rc_traffic(ctx, slot);
		break;
	case 2:
		cq_overrun(ctx, slot);
		break;
	case 3:
		srq_limit(ctx, slot);
		break;
	default:
		sq_drain(ctx, slot);
		break;
	}
}

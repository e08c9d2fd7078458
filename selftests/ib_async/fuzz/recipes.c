// SPDX-License-Identifier: GPL-2.0
/*
 * Recipes: short call sequences that a random walk reaches only rarely,
 * played straight so that the states behind them get fuzzed: UD and RC
 * traffic between the workers' own QPs on rxe's loopback, a CQ overrun
 * (CQ_ERR), an SRQ limit (SRQ_LIMIT_REACHED), a send queue drained in SQD
 * (SQ_DRAINED), a long queue of one object's records purged while events
 * keep coming (evsrc). Every step is one call of the worker's budget, goes
 * through the same checks as any other and records its objects in the
 * shared table, where later calls use, break and destroy them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "fuzz.h"

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

void fz_recipe(struct fz_ctx *ctx, uint32_t slot)
{
	if (fz_chance(&ctx->rng, 20) && flood_and_destroy(ctx, slot))
		return;
	if (fz_chance(&ctx->rng, 20) && state_losses(ctx, slot))
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

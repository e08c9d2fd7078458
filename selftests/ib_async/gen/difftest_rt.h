/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Runtime of the programs gen.py writes: object tables, one wrapper per
 * verb call that prints a canonical trace line, and the waits for
 * completions and async events.
 *
 * The trace must read the same on ib_uverbs (rdma-core) and on ib_async
 * (libibasync preloaded): objects are named by the program's own numbers
 * (q3, cq1...), QP numbers are mapped back to them, errno values are
 * printed by name, and completions and events collected in one wait are
 * sorted, because their interleaving across queues is timing, not
 * semantics.
 */
#ifndef DIFFTEST_RT_H
#define DIFFTEST_RT_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "lib/iba_testbed.h"

#define MAXO 32			/* objects of each kind per program */
#define SEND_AREA 4096		/* first part of each MR buffer: sends */
#define RECV_SLOT 512		/* then one slot per receive, never reused */
#define RECV_SLOTS 128
#define RECV_AREA (RECV_SLOT * RECV_SLOTS)
/* then one slot per one-sided operation (a WRITE's target, a READ's or an
 * atomic's result, an atomic's target), never reused: what a completion
 * prints of it cannot depend on when later requests ran */
#define RDMA_SLOT 256
#define RDMA_SLOTS 64
#define RDMA_AREA (SEND_AREA + RECV_AREA)
/* last, a pattern nothing writes: what RDMA READs read */
#define READ_SRC (RDMA_AREA + RDMA_SLOT * RDMA_SLOTS)
#define READ_LEN 4096
#define BUF_LEN (READ_SRC + READ_LEN)
#define QKEY 0x11111111u
#define GRH 40

static struct ibv_context *ctx;
static struct ibv_pd *pd[MAXO];
static struct ibv_mr *mr[MAXO];
static unsigned char *buf[MAXO];
static int mr_slot[MAXO];
static int rdma_slot[MAXO];
static struct ibv_cq *cq[MAXO];
static struct ibv_qp *qp[MAXO];
static int qp_ud[MAXO];
static struct ibv_srq *srq[MAXO];
static struct ibv_ah *ah[MAXO];
static union ibv_gid gid;
static int gidx = -1;
static long ncalls;

/* Receives in flight: wr_id -> where the payload lands, for its checksum. */
static struct { uint64_t wr_id; unsigned char *at; } rx[4096];
static int nrx;

/* One-sided requests: wr_id -> what their completion shows of memory. */
static struct {
	uint64_t wr_id;
	int op;
	int len;
	unsigned char *local;	/* READ and atomics: where the result lands */
	unsigned char *remote;	/* WRITE and atomics: the target */
} tx[4096];
static int ntx;

static inline const char *ename(int e)
{
	const char *s = e ? strerrorname_np(e) : "0";

	return s ? s : "E?";
}

static inline void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A call returning 0 or an errno value (ibv_destroy_*, ibv_post_*...). */
static inline void tr_rc(const char *call, int rc)
{
	ncalls++;
	if (rc == 0)
		line("%s = 0", call);
	else
		line("%s = %s", call, rc > 0 ? ename(rc) : "negative");
}

/* A call returning 0 or -1 with errno (ibv_query_gid...). */
static void tr_m1(const char *call, int rc)
{
	ncalls++;
	if (rc == 0)
		line("%s = 0", call);
	else
		line("%s = %d %s", call, rc, ename(errno));
}

/* A constructor: the object's own name, or NULL and errno. */
static inline void tr_ptr(const char *call, const char *name, const void *p)
{
	ncalls++;
	if (p)
		line("%s = %s", call, name);
	else
		line("%s = NULL %s", call, ename(errno));
}

static inline void skip(const char *call)
{
	line("%s skipped", call);
}

static inline double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static inline const char *qpname(uint32_t num)
{
	static char s[16];

	for (int i = 0; i < MAXO; i++)
		if (qp[i] && qp[i]->qp_num == num) {
			snprintf(s, sizeof(s), "q%d", i);
			return s;
		}
	return "q?";
}

static inline int find(void *const *tab, const void *p)
{
	for (int i = 0; i < MAXO; i++)
		if (p && tab[i] == p)
			return i;
	return -1;
}

/* The RoCE v2 IPv4-mapped GID of the test bed, read from sysfs so that
 * both stacks start from the same index whatever their query calls do
 * (the selftests' iba_roce_v2_gid(), linked from their test library). */
static inline void find_gid(const char *dev)
{
	uint8_t raw[16];

	gidx = iba_roce_v2_gid(dev, raw);
}

static inline void setup(void)
{
	const char *dev = getenv("DIFFTEST_DEV") ? getenv("DIFFTEST_DEV") : "rxe0";
	struct ibv_device **list;
	int n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	if (!list) {
		line("setup: no device list: %s", ename(errno));
		exit(2);
	}
	for (int i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		line("setup: cannot open %s", dev);
		exit(2);
	}
	/* The recipe of ibv_get_async_event(3): a nonblocking async_fd. */
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	find_gid(dev);
	if (gidx < 0 || ibv_query_gid(ctx, 1, gidx, &gid)) {
		line("setup: no RoCE v2 IPv4 GID on %s", dev);
		exit(2);
	}
	for (int i = 0; i < MAXO; i++) {
		buf[i] = aligned_alloc(4096, BUF_LEN);
		memset(buf[i], 0, BUF_LEN);
		for (int j = 0; j < READ_LEN; j++)
			buf[i][READ_SRC + j] = (unsigned char)(i * 31 + j * 13);
	}
	line("setup ok");
}

static inline uint32_t crc(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* ---- completions ------------------------------------------------------ */

static inline int wc_cmp(const void *a, const void *b)
{
	const struct ibv_wc *x = a, *y = b;

	/* Across QPs and between a QP's two queues the order is timing; within
	 * one queue it is the order of posting (kept: wr_id grows). */
	if (x->qp_num != y->qp_num)
		return strcmp(qpname(x->qp_num), qpname(y->qp_num)) < 0 ? -1 : 1;
	if ((x->opcode & IBV_WC_RECV) != (y->opcode & IBV_WC_RECV))
		return (x->opcode & IBV_WC_RECV) ? 1 : -1;
	return x->wr_id < y->wr_id ? -1 : x->wr_id > y->wr_id;
}

/* What a finished one-sided request did to memory: a WRITE's target, a
 * READ's result, an atomic's returned value and its target afterwards. */
static inline void tx_memory(uint64_t wr_id, char *out, size_t n)
{
	for (int i = 0; i < ntx; i++) {
		uint64_t got, now_;

		if (tx[i].wr_id != wr_id)
			continue;
		switch (tx[i].op) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			snprintf(out, n, " target=%08x", crc(tx[i].remote, tx[i].len));
			break;
		case IBV_WR_RDMA_READ:
			snprintf(out, n, " read=%08x", crc(tx[i].local, tx[i].len));
			break;
		default:
			memcpy(&got, tx[i].local, 8);
			memcpy(&now_, tx[i].remote, 8);
			snprintf(out, n, " old=%llx now=%llx",
				 (unsigned long long)got, (unsigned long long)now_);
		}
	}
}

/* What a receive brought: the crc of its payload (past a UD GRH). */
static inline void rx_memory(const struct ibv_wc *w, char *out, size_t n)
{
	for (int i = 0; i < nrx; i++)
		if (rx[i].wr_id == w->wr_id) {
			uint32_t len = w->byte_len, off;

			off = (len >= GRH && w->wc_flags & IBV_WC_GRH) ? GRH : 0;
			if (len - off <= RECV_SLOT - GRH)
				snprintf(out, n, " crc=%08x",
					 crc(rx[i].at + off, len - off));
		}
}

static inline void print_wc(int c, const struct ibv_wc *w)
{
	int ok = w->status == IBV_WC_SUCCESS;
	char extra[64] = "";

	if (ok && !(w->opcode & IBV_WC_RECV))
		tx_memory(w->wr_id, extra, sizeof(extra));
	/* A receive consumed by RDMA WRITE WITH IMM holds no data. */
	if (ok && w->opcode == IBV_WC_RECV)
		rx_memory(w, extra, sizeof(extra));
	if (ok && (w->opcode & IBV_WC_RECV) && w->wc_flags & IBV_WC_WITH_IMM)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 " imm=%08x", w->imm_data);
	line("  wc cq%d %s wr=%llu %s op=%d len=%u%s", c, qpname(w->qp_num),
	     (unsigned long long)w->wr_id, ibv_wc_status_str(w->status),
	     ok ? (int)w->opcode : -1, ok ? w->byte_len : 0, extra);
}

/* Poll until `expect` completions came or 1.5 s passed, then until the CQ
 * stayed empty for 30 ms; print them sorted. */
static inline void poll_cq(int c, int expect)
{
	static struct ibv_wc wc[1024];
	int got = 0, err = 0;
	double end, quiet;

	if (!cq[c]) {
		skip("ibv_poll_cq");
		return;
	}
	end = now() + 1.5;
	quiet = now() + 0.03;
	while (got < 1024) {
		int n = ibv_poll_cq(cq[c], 16 < 1024 - got ? 16 : 1024 - got,
				    wc + got);

		if (n < 0) {
			err = n;
			break;
		}
		got += n;
		if (n)
			quiet = now() + 0.03;
		if (got >= expect ? now() > quiet : now() > end)
			break;
	}
	ncalls++;	/* one call in the trace, however many loops */
	qsort(wc, got, sizeof(wc[0]), wc_cmp);
	line("ibv_poll_cq(cq%d) = %d entries%s", c, got, err ? " then error" : "");
	for (int i = 0; i < got; i++)
		print_wc(c, &wc[i]);
}

/* ---- async events ----------------------------------------------------- */

static inline int str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Fetch events until `expect` came or 1.5 s passed, then until none came
 * for 100 ms; ack each at once (destroy waits for acks); print sorted. */
static inline void events(int expect)
{
	static char ev[256][64];
	int got = 0;
	double end = now() + 1.5, quiet = now() + 0.1;

	for (;;) {
		struct ibv_async_event e;
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
		int i;

		if (got >= expect ? now() > quiet : now() > end)
			break;
		if (poll(&p, 1, 10) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &e)) {
			if (errno != EAGAIN && got < 256)
				snprintf(ev[got++], 64, "get error %s", ename(errno));
			continue;
		}
		quiet = now() + 0.1;
		if (got >= 256) {
			ibv_ack_async_event(&e);
			continue;
		}
		switch (e.event_type) {
		case IBV_EVENT_CQ_ERR:
			i = find((void *const *)cq, e.element.cq);
			snprintf(ev[got], 64, "%s cq%d", ibv_event_type_str(e.event_type), i);
			break;
		case IBV_EVENT_SRQ_ERR:
		case IBV_EVENT_SRQ_LIMIT_REACHED:
			i = find((void *const *)srq, e.element.srq);
			snprintf(ev[got], 64, "%s srq%d", ibv_event_type_str(e.event_type), i);
			break;
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_SQ_DRAINED:
		case IBV_EVENT_PATH_MIG:
		case IBV_EVENT_PATH_MIG_ERR:
		case IBV_EVENT_QP_LAST_WQE_REACHED:
			i = find((void *const *)qp, e.element.qp);
			snprintf(ev[got], 64, "%s q%d", ibv_event_type_str(e.event_type), i);
			break;
		default:
			snprintf(ev[got], 64, "%s port%d", ibv_event_type_str(e.event_type),
				 e.element.port_num);
		}
		got++;
		ibv_ack_async_event(&e);
	}
	ncalls += got + 1;	/* the gets that returned an event (acked), one EAGAIN */
	qsort(ev, got, sizeof(ev[0]), str_cmp);
	line("events: %d", got);
	for (int i = 0; i < got; i++)
		line("  event %s", ev[i]);
}

/* ---- wrappers for calls that need attribute structures ------------------ */

static inline void create_qp(int q, int p, enum ibv_qp_type type, int sc, int rc,
		      int s, int max_wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq[sc], .recv_cq = cq[rc],
		.srq = s >= 0 ? srq[s] : NULL, .qp_type = type,
		.cap = { .max_send_wr = max_wr, .max_recv_wr = s >= 0 ? 0 : max_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	char call[96];

	snprintf(call, sizeof(call), "ibv_create_qp(q%d %s pd%d cq%d cq%d srq%d %d)",
		 q, type == IBV_QPT_RC ? "RC" : type == IBV_QPT_UD ? "UD" : "UC",
		 p, sc, rc, s, max_wr);
	if (!pd[p] || !cq[sc] || !cq[rc] || (s >= 0 && !srq[s]))
		return skip(call);
	qp[q] = ibv_create_qp(pd[p], &a);
	qp_ud[q] = type == IBV_QPT_UD;
	tr_ptr(call, "ok", qp[q]);
}

static inline void av(struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->is_global = 1;
	a->grh.dgid = gid;
	a->grh.sgid_index = gidx;
	a->grh.hop_limit = 64;
	a->port_num = 1;
}

/* Modify to `state` with the attribute mask the transition needs (or a
 * deliberately wrong `mask` when not -1). `peer`: the RC destination. */
static inline void modify_qp(int q, enum ibv_qp_state state, int peer, int mask)
{
	static const char *names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	struct ibv_qp_attr a = { .qp_state = state };
	int m = IBV_QP_STATE;
	char call[96];

	snprintf(call, sizeof(call), "ibv_modify_qp(q%d %s%s)", q, names[state],
		 mask != -1 ? " odd-mask" : "");
	if (!qp[q] || (peer >= 0 && !qp[peer]))
		return skip(call);
	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qkey = QKEY;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		m |= IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		     (qp_ud[q] ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
		break;
	case IBV_QPS_RTR:
		if (qp_ud[q])
			break;
		av(&a.ah_attr);
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = peer >= 0 ? qp[peer]->qp_num : 0xffffff;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		     IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		m |= IBV_QP_SQ_PSN |
		     (qp_ud[q] ? 0 : IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
		break;
	case IBV_QPS_SQD:
		a.en_sqd_async_notify = 1;
		m |= IBV_QP_EN_SQD_ASYNC_NOTIFY;
		break;
	default:
		break;
	}
	tr_rc(call, ibv_modify_qp(qp[q], &a, mask != -1 ? mask : m));
}

static inline void query_qp(int q)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_query_qp(q%d)", q);
	if (!qp[q])
		return skip(call);
	rc = ibv_query_qp(qp[q], &a, IBV_QP_STATE | IBV_QP_CAP | IBV_QP_QKEY, &i);
	tr_rc(call, rc);
	if (!rc)
		/* No caps: their divergence is regress/query_qp_cap.c. */
		line("  state=%d type=%d qkey=%x sq_sig_all=%d", a.qp_state,
		     i.qp_type, qp_ud[q] ? a.qkey : 0, i.sq_sig_all);
}

static inline void post_recv(int q, int s, int m, uint64_t wr_id, int len, uint32_t bad_lkey)
{
	struct ibv_sge sge = { .length = len };
	struct ibv_recv_wr w = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	char call[96];
	int rc;

	snprintf(call, sizeof(call), "ibv_post_%srecv(%s%d mr%d wr=%llu len=%d%s)",
		 s >= 0 ? "srq_" : "", s >= 0 ? "srq" : "q", s >= 0 ? s : q, m,
		 (unsigned long long)wr_id, len, bad_lkey ? " bad-lkey" : "");
	if ((s >= 0 ? !srq[s] : !qp[q]) || !mr[m] || mr_slot[m] >= RECV_SLOTS)
		return skip(call);
	sge.addr = (uintptr_t)(buf[m] + SEND_AREA + RECV_SLOT * mr_slot[m]++);
	sge.lkey = bad_lkey ? bad_lkey : mr[m]->lkey;
	rc = s >= 0 ? ibv_post_srq_recv(srq[s], &w, &bad) : ibv_post_recv(qp[q], &w, &bad);
	tr_rc(call, rc);
	if (!rc && nrx < 4096) {
		rx[nrx].wr_id = wr_id;
		rx[nrx++].at = (unsigned char *)(uintptr_t)sge.addr;
	}
}

/* A SEND (imm != 0: SEND_WITH_IMM) of len bytes; UD through ah[a] to
 * dst's QP number, RC to the connected peer. */
static inline void post_send(int q, int m, uint64_t wr_id, int len, uint32_t imm,
		      int signaled, int a, int dst, uint32_t qkey, int opcode)
{
	struct ibv_sge sge = { .length = len };
	struct ibv_send_wr w = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = opcode >= 0 ? (enum ibv_wr_opcode)opcode :
			imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.imm_data = imm,
	}, *bad;
	char call[128];

	snprintf(call, sizeof(call), "ibv_post_send(q%d mr%d wr=%llu len=%d%s%s ah%d q%d%s%s)",
		 q, m, (unsigned long long)wr_id, len, imm ? " imm" : "",
		 signaled ? " sig" : "", a, dst, qkey != QKEY ? " bad-qkey" : "",
		 opcode >= 0 ? " odd-opcode" : "");
	if (!qp[q] || !mr[m] || (a >= 0 && (!ah[a] || !qp[dst])))
		return skip(call);
	sge.addr = (uintptr_t)buf[m] + (wr_id * 64) % (SEND_AREA - len);
	sge.lkey = mr[m]->lkey;
	for (int i = 0; i < len; i++)
		((unsigned char *)(uintptr_t)sge.addr)[i] = (unsigned char)(wr_id * 7 + i);
	if (a >= 0) {
		w.wr.ud.ah = ah[a];
		w.wr.ud.remote_qpn = qp[dst]->qp_num;
		w.wr.ud.remote_qkey = qkey;
	}
	tr_rc(call, ibv_post_send(qp[q], &w, &bad));
}

/*
 * A one-sided request on an RC QP from mr[m] to mr[rm] (the peer's):
 * RDMA WRITE (imm != 0: WITH_IMM) of len bytes, RDMA READ of len bytes,
 * or an 8-byte atomic (CMP_AND_SWP swaps in wr_id when the target holds
 * `cmp`; FETCH_AND_ADD adds wr_id). Each takes fresh slots, so its
 * completion can print what it did.
 */
static inline void post_rdma(int q, int m, int rm, uint64_t wr_id, int op,
			     int len, uint32_t imm, int signaled, uint64_t cmp)
{
	static const char *ops[] = { "write", "write-imm", "send", "send-imm",
				     "read", "cas", "faa" };
	struct ibv_sge sge = { .length = len };
	struct ibv_send_wr w = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = (enum ibv_wr_opcode)op,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.imm_data = imm,
	}, *bad;
	int atomic = op == IBV_WR_ATOMIC_CMP_AND_SWP ||
		     op == IBV_WR_ATOMIC_FETCH_AND_ADD;
	unsigned char *local, *remote;
	char call[128];
	int rc;

	snprintf(call, sizeof(call), "ibv_post_send(q%d %s mr%d->mr%d wr=%llu len=%d%s%s)",
		 q, ops[op], m, rm, (unsigned long long)wr_id, len,
		 imm ? " imm" : "", signaled ? " sig" : "");
	if (!qp[q] || !mr[m] || !mr[rm] || rdma_slot[m] >= RDMA_SLOTS ||
	    rdma_slot[rm] >= RDMA_SLOTS)
		return skip(call);
	if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		local = buf[m] + (wr_id * 64) % (SEND_AREA - len);
		for (int i = 0; i < len; i++)
			local[i] = (unsigned char)(wr_id * 5 + i);
		remote = buf[rm] + RDMA_AREA + RDMA_SLOT * rdma_slot[rm]++;
	} else if (op == IBV_WR_RDMA_READ) {
		local = buf[m] + RDMA_AREA + RDMA_SLOT * rdma_slot[m]++;
		remote = buf[rm] + READ_SRC + (wr_id * 8) % (READ_LEN - len);
	} else {
		local = buf[m] + RDMA_AREA + RDMA_SLOT * rdma_slot[m]++;
		remote = buf[rm] + RDMA_AREA + RDMA_SLOT * rdma_slot[rm]++;
	}
	sge.addr = (uintptr_t)local;
	sge.lkey = mr[m]->lkey;
	if (atomic) {
		sge.length = 8;
		w.wr.atomic.remote_addr = (uintptr_t)remote;
		w.wr.atomic.rkey = mr[rm]->rkey;
		w.wr.atomic.compare_add = op == IBV_WR_ATOMIC_CMP_AND_SWP ? cmp : wr_id;
		w.wr.atomic.swap = wr_id;
	} else {
		w.wr.rdma.remote_addr = (uintptr_t)remote;
		w.wr.rdma.rkey = mr[rm]->rkey;
	}
	rc = ibv_post_send(qp[q], &w, &bad);
	tr_rc(call, rc);
	if (!rc && ntx < 4096) {
		tx[ntx].wr_id = wr_id;
		tx[ntx].op = op;
		tx[ntx].len = atomic ? 8 : len;
		tx[ntx].local = local;
		tx[ntx++].remote = remote;
	}
}

static inline void create_ah(int a, int p, int bad)
{
	struct ibv_ah_attr at;
	char call[64];

	av(&at);
	if (bad == 1)
		at.is_global = 0;
	if (bad == 2)
		at.grh.sgid_index = 200;
	snprintf(call, sizeof(call), "ibv_create_ah(ah%d pd%d%s)", a, p,
		 bad == 1 ? " no-grh" : bad == 2 ? " bad-sgid" : "");
	if (!pd[p])
		return skip(call);
	ah[a] = ibv_create_ah(pd[p], &at);
	tr_ptr(call, "ok", ah[a]);
}

static inline void create_srq(int s, int p, int max_wr)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = max_wr, .max_sge = 1 } };
	char call[64];

	snprintf(call, sizeof(call), "ibv_create_srq(srq%d pd%d %d)", s, p, max_wr);
	if (!pd[p])
		return skip(call);
	srq[s] = ibv_create_srq(pd[p], &a);
	tr_ptr(call, "ok", srq[s]);
}

static inline void modify_srq(int s, int limit, int mask)
{
	struct ibv_srq_attr a = { .srq_limit = limit, .max_wr = limit };
	char call[64];

	snprintf(call, sizeof(call), "ibv_modify_srq(srq%d limit=%d mask=%d)", s, limit, mask);
	if (!srq[s])
		return skip(call);
	tr_rc(call, ibv_modify_srq(srq[s], &a, mask));
}

static inline void query_srq(int s)
{
	struct ibv_srq_attr a;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_query_srq(srq%d)", s);
	if (!srq[s])
		return skip(call);
	rc = ibv_query_srq(srq[s], &a);
	tr_rc(call, rc);
	if (!rc)
		line("  srq_limit=%u", a.srq_limit);
}

static inline void reg_mr(int m, int p, int access)
{
	char call[64];

	snprintf(call, sizeof(call), "ibv_reg_mr(mr%d pd%d access=%#x)", m, p, access);
	if (!pd[p])
		return skip(call);
	mr[m] = ibv_reg_mr(pd[p], buf[m], BUF_LEN, access);
	tr_ptr(call, "ok", mr[m]);
}

static inline void create_cq(int c, int cqe, int vec)
{
	char call[64];

	snprintf(call, sizeof(call), "ibv_create_cq(cq%d cqe=%d vec=%d)", c, cqe, vec);
	cq[c] = ibv_create_cq(ctx, cqe, NULL, NULL, vec);
	tr_ptr(call, "ok", cq[c]);
	if (cq[c])
		line("  cqe>=requested %d", cq[c]->cqe >= cqe);
}

static inline void query_port(int port)
{
	struct ibv_port_attr a;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_query_port(%d)", port);
	rc = ibv_query_port(ctx, port, &a);
	tr_rc(call, rc);
	if (!rc)
		line("  state=%s max_mtu=%d active_mtu=%d gid_tbl_len=%d pkey_tbl_len=%u link_layer=%d",
		     ibv_port_state_str(a.state), a.max_mtu, a.active_mtu,
		     a.gid_tbl_len, a.pkey_tbl_len, a.link_layer);
}

static inline void query_device(void)
{
	struct ibv_device_attr a;
	int rc = ibv_query_device(ctx, &a);

	tr_rc("ibv_query_device()", rc);
	if (!rc)
		line("  max_qp_wr=%d max_sge=%d max_cqe=%d max_srq_wr=%d max_srq_sge=%d ports=%u",
		     a.max_qp_wr, a.max_sge, a.max_cqe, a.max_srq_wr,
		     a.max_srq_sge, a.phys_port_cnt);
}

static inline void query_gid(int index)
{
	union ibv_gid g;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_query_gid(1, %d)", index);
	rc = ibv_query_gid(ctx, 1, index, &g);
	tr_m1(call, rc);
	if (!rc)
		line("  crc=%08x", crc(g.raw, 16));
}

static inline void query_gid_ex(int index)
{
	struct ibv_gid_entry e;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_query_gid_ex(1, %d)", index);
	rc = ibv_query_gid_ex(ctx, 1, index, &e, 0);
	tr_rc(call, rc);
	if (!rc)
		line("  crc=%08x index=%u type=%u", crc(e.gid.raw, 16), e.gid_index, e.gid_type);
}

static inline void query_pkey(int index)
{
	__be16 k = 0;
	char call[64];
	int rc;

	snprintf(call, sizeof(call), "ibv_query_pkey(1, %d)", index);
	rc = ibv_query_pkey(ctx, 1, index, &k);
	tr_m1(call, rc);
	if (!rc)
		line("  pkey=%04x", k);
}

static inline void create_wq(int p, int c)
{
	struct ibv_wq_init_attr a = {
		.wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
		.pd = pd[p], .cq = cq[c],
	};
	struct ibv_wq *w;
	char call[64];

	snprintf(call, sizeof(call), "ibv_create_wq(pd%d cq%d)", p, c);
	if (!pd[p] || !cq[c])
		return skip(call);
	w = ibv_create_wq(ctx, &a);
	tr_ptr(call, "ok", w);
	if (w)
		tr_rc("ibv_destroy_wq(wq)", ibv_destroy_wq(w));
}

/* Destroy calls: the table slot is cleared only on success. */
#define DESTROY(fn, tab, i, nm)						\
	do {								\
		char call_[64];						\
		int rc_;						\
		snprintf(call_, sizeof(call_), #fn "(" nm "%d)", i);	\
		if (!tab[i]) {						\
			skip(call_);					\
			break;						\
		}							\
		rc_ = fn(tab[i]);					\
		tr_rc(call_, rc_);					\
		if (!rc_)						\
			tab[i] = NULL;					\
	} while (0)

#include "ops_rt.h"

static inline int finish(void)
{
	tr_rc("ibv_close_device()", ibv_close_device(ctx));
	/* The count is not compared (intended differences change it): the
	 * guest takes it from the ib_uverbs run and strips it. */
	line("calls: %ld", ncalls);
	line("end");
	return 0;
}

#endif

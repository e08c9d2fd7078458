// SPDX-License-Identifier: GPL-2.0
/*
 * Races ib_async's kernel-verbs data path on rxe. Per file: one CQ, RC QP
 * pairs on it (the last pair receives from an SRQ), poster threads sending
 * self-describing messages, poller threads checking every completion
 * against a table of what was posted, and a destroyer thread that moves
 * pairs to ERR (or not) and destroys them with work in flight, then makes
 * replacements and posts to them at once, so that handles and the kernel's
 * request ids are reused while stale completions may still sit in the CQ.
 * Other processes do the same on files of their own, one is SIGKILLed
 * mid-traffic, and a file is closed with work posted and completions
 * unpolled.
 *
 * A completion fails the test when its wr_id was never posted or already
 * completed, when it names another QP than the one the request went to,
 * when a successful receive does not hold a message that was sent to that
 * very QP, or when an error completes a request on a QP nobody moved to
 * ERR. Every request on a QP that lives to the end of a round must
 * complete once the round moves the QP to ERR.
 *
 * The work is a fixed number of iterations. IB_ASYNC_STRESS_SCALE (a
 * number, default 1) scales it, e.g. 0.3 for a slow debug kernel;
 * IB_ASYNC_STRESS_SEED repeats the random choices (not the interleaving).
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "lib/iba_verbs.h"

#define ROUNDS		4	/* files the first test opens in turn */
#define PAIRS		8	/* RC pairs with receive queues of their own */
#define SLOTS		(PAIRS + 1)	/* the last pair receives from the SRQ */
#define SRQ_SLOT	PAIRS
#define POSTERS		2
#define POLLERS		2
#define POSTS		1200	/* messages a poster tries, per round */
#define CHURNS		16	/* pairs destroyed and replaced, per round */
#define BURST		6	/* receives posted on a replacement at once */
#define CHILDREN	2	/* processes racing the parent */
#define CHILD_POSTS	400
#define VICTIM_POSTS	3000	/* the SIGKILLed child: killed long before */
#define CLOSE_POSTS	150
#define QP_WR		32
#define SRQ_WR		128
#define CQE		4096	/* more than every QP and the SRQ can hold */
#define MSG_MAX		256
#define POLL_BATCH	32
#define DRAIN_MS	20000	/* a round's final flush, TCG and KASAN */

/* wr_id: tag, file number, index into the file's table of requests. */
#define WR_TAG		0x1bacULL
#define WR_ID(file, seq) (WR_TAG << 48 | (uint64_t)(file) << 32 | (seq))
#define WR_ID_TAG(id)	((id) >> 48)
#define WR_ID_FILE(id)	((int)((id) >> 32 & 0xffff))
#define WR_ID_SEQ(id)	((uint32_t)(id))
#define PROBE_SEQ	0xffffffffU	/* posted to a destroyed handle */

#define MSG_MAGIC	0x57a55e5dU
#define WC_SEND		0	/* IBV_WC_SEND */
#define WC_RECV		128	/* IBV_WC_RECV */
#define WC_WITH_IMM	2	/* IBV_WC_WITH_IMM */
#define WC_SUCCESS	0
#define WC_FLUSH	5	/* IBV_WC_WR_FLUSH_ERR */
#define QPS_ERR		6

/* What the kernel may answer when a race was lost; counted, not failed. */
enum { T_ENOENT, T_EINVAL, T_ENOSPC, T_ENOMEM, T_EBUSY, NTOL };
static const int tol_errno[NTOL] = { ENOENT, EINVAL, ENOSPC, ENOMEM, EBUSY };

/* Shared by every process of a test (MAP_SHARED), for one summary. */
struct stats {
	atomic_long rounds, posted, checked, flushes, errors, churned;
	atomic_long tolerated[NTOL], failures;
};

/* One QP as made: its handle may be reused later, this record is not. */
struct inst {
	uint32_t handle, qp_num;
	bool srq;			/* receives from the SRQ */
	atomic_bool errored;		/* moved to ERR by the test */
	atomic_bool destroyed;
	atomic_int sq_busy, rq_busy;	/* posted, completion not yet seen */
};

/* A pair's place; its lock is held across posts, so no handle is reused. */
struct slot {
	pthread_mutex_t lock;
	int qp[2];			/* index into ctx.inst, -1 while none */
};

enum { E_FREE, E_POSTED, E_DONE, E_FAILED };

/* One posted request, at index WR_ID_SEQ(wr_id) of the table. */
struct entry {
	atomic_int state;
	atomic_int received;		/* send: times its message arrived */
	bool recv, hidden, imm;
	int inst;			/* QP posted to; -1: the SRQ */
	uint32_t qp_num, peer_qpn, len;
};

/* The header of every message; a pattern derived from wr_id follows. */
struct msg_hdr {
	uint64_t send_wr_id;
	uint32_t magic, src_qpn, dst_qpn, len;
};

struct ctx {
	struct stats *st;
	int fd, file, sgid;
	uint8_t gid[16];
	uint32_t pd, cq, srq;
	int posts, churns, pollers;
	uint64_t seed;
	struct slot slot[SLOTS];
	struct inst *inst;
	atomic_int ninst;		/* written by one thread at a time */
	int max_inst;
	struct entry *ent;
	char (*buf)[MSG_MAX];		/* receive buffers, by table index */
	atomic_uint next_seq;
	uint32_t nent;
	atomic_int srq_busy;
	atomic_long posted, failures;
	atomic_bool stop, posters_done, closing;
	char probe_buf[8];
};

struct worker {
	struct ctx *c;
	int id;
};

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64: cheap, per thread, repeatable from the seed */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double stress_scale(void)
{
	const char *s = getenv("IB_ASYNC_STRESS_SCALE");
	double v = s ? strtod(s, NULL) : 1.0;

	if (!(v > 0.0))
		v = 1.0;
	return v > 100.0 ? 100.0 : v;
}

static int scaled(int n, double scale)
{
	int v = (int)(n * scale + 0.5);

	return v < 1 ? 1 : v;
}

static uint64_t stress_seed(void)
{
	const char *s = getenv("IB_ASYNC_STRESS_SEED");

	if (s)
		return strtoull(s, NULL, 0) | 1;
	return ((uint64_t)time(NULL) << 20 ^ (uint64_t)getpid()) | 1;
}

/* A failure: counted everywhere, the first few explained. */
static void fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	long n;

	atomic_fetch_add(&c->st->failures, 1);
	n = atomic_fetch_add(&c->failures, 1);
	if (n >= 20)
		return;
	va_start(ap, fmt);
	flockfile(stdout);
	printf("# FAIL [file %d] ", c->file);
	vprintf(fmt, ap);
	putchar('\n');
	funlockfile(stdout);
	fflush(stdout);
	va_end(ap);
}

/* 0 stays 0; an errno a lost race explains is counted; others fail. */
static int tolerate(struct ctx *c, int ret, const char *what)
{
	int i;

	if (!ret)
		return 0;
	for (i = 0; i < NTOL; i++) {
		if (-ret == tol_errno[i]) {
			atomic_fetch_add(&c->st->tolerated[i], 1);
			return ret;
		}
	}
	fail(c, "%s: %s", what, strerror(-ret));
	return ret;
}

/* After dup2() replaced the file, the threads only learn to stop. */
static bool closed_under_us(struct ctx *c, int ret)
{
	return atomic_load(&c->closing) && (ret == -ENOTTY || ret == -EBADF);
}

static uint8_t pattern(uint64_t id, uint32_t i)
{
	return (uint8_t)(id >> (8 * (i & 7))) ^ (uint8_t)(i * 29);
}

static int find_inst(struct ctx *c, uint32_t qpn)
{
	int i, n = atomic_load(&c->ninst);

	for (i = 0; i < n; i++)
		if (c->inst[i].qp_num == qpn)
			return i;
	return -1;
}

/* --- posting ---------------------------------------------------------- */

/* Claim a table entry; NULL once the round's table is used up. */
static struct entry *claim(struct ctx *c, uint32_t *seq)
{
	*seq = atomic_fetch_add(&c->next_seq, 1);
	if (*seq >= c->nent)
		return NULL;
	return &c->ent[*seq];
}

static void unbusy(struct ctx *c, struct entry *e)
{
	if (e->recv && e->inst < 0)
		atomic_fetch_sub(&c->srq_busy, 1);
	else if (e->recv)
		atomic_fetch_sub(&c->inst[e->inst].rq_busy, 1);
	else if (!e->hidden)
		atomic_fetch_sub(&c->inst[e->inst].sq_busy, 1);
}

static void busy(struct ctx *c, struct entry *e)
{
	if (e->recv && e->inst < 0)
		atomic_fetch_add(&c->srq_busy, 1);
	else if (e->recv)
		atomic_fetch_add(&c->inst[e->inst].rq_busy, 1);
	else if (!e->hidden)
		atomic_fetch_add(&c->inst[e->inst].sq_busy, 1);
}

/* The entry was published before the ioctl; take it back. */
static int post_failed(struct ctx *c, struct entry *e, uint32_t seq, int ret,
		       const char *what)
{
	int old = E_POSTED;

	if (!atomic_compare_exchange_strong(&e->state, &old, E_FAILED))
		fail(c, "wr_id %#llx completed although its %s failed (%d)",
		     (unsigned long long)WR_ID(c->file, seq), what, ret);
	unbusy(c, e);
	if (!closed_under_us(c, ret))
		tolerate(c, ret, what);
	return ret;
}

/* A receive to QP @qi, or to the SRQ when @qi < 0. 1: table used up. */
static int post_recv_to(struct ctx *c, int qi)
{
	struct ib_async_post_recv a = { .argsz = sizeof(a) };
	struct entry *e;
	uint32_t seq;
	int ret;

	e = claim(c, &seq);
	if (!e)
		return 1;
	e->recv = true;
	e->inst = qi;
	e->qp_num = qi < 0 ? 0 : c->inst[qi].qp_num;
	busy(c, e);
	atomic_store(&e->state, E_POSTED);
	a.obj_type = qi < 0 ? IB_ASYNC_OBJ_SRQ : IB_ASYNC_OBJ_QP;
	a.handle = qi < 0 ? c->srq : c->inst[qi].handle;
	a.wr_id = WR_ID(c->file, seq);
	a.addr = (uintptr_t)c->buf[seq];
	a.length = MSG_MAX;
	ret = iba_ioc(c->fd, IB_ASYNC_IOC_POST_RECV, &a);
	if (ret)
		return post_failed(c, e, seq, ret, "post_recv");
	atomic_fetch_add(&c->posted, 1);
	atomic_fetch_add(&c->st->posted, 1);
	return 0;
}

static void fill_msg(char *m, uint64_t id, uint32_t src, uint32_t dst,
		     uint32_t len)
{
	struct msg_hdr h = {
		.send_wr_id = id, .magic = MSG_MAGIC, .src_qpn = src,
		.dst_qpn = dst, .len = len,
	};
	uint32_t i;

	memcpy(m, &h, sizeof(h));
	for (i = sizeof(h); i < len; i++)
		m[i] = (char)pattern(id, i);
}

/* A message from QP @from to its peer @to. 1: table used up. */
static int post_msg(struct ctx *c, int from, int to, uint64_t *r)
{
	struct ib_async_post_send s = { .argsz = sizeof(s) };
	char m[MSG_MAX];
	struct entry *e;
	uint64_t v = rnd(r);
	uint32_t seq;
	int ret;

	e = claim(c, &seq);
	if (!e)
		return 1;
	e->inst = from;
	e->qp_num = c->inst[from].qp_num;
	e->peer_qpn = c->inst[to].qp_num;
	e->hidden = !(v & 7);		/* now and then unsignalled */
	e->imm = v >> 3 & 1;
	e->len = sizeof(struct msg_hdr) +
		 (uint32_t)(v >> 8) % (MSG_MAX - sizeof(struct msg_hdr) + 1);
	fill_msg(m, WR_ID(c->file, seq), e->qp_num, e->peer_qpn, e->len);
	busy(c, e);
	atomic_store(&e->state, E_POSTED);
	s.handle = c->inst[from].handle;
	s.opcode = e->imm ? IB_UVERBS_WR_SEND_WITH_IMM : IB_UVERBS_WR_SEND;
	s.wr_id = WR_ID(c->file, seq);
	s.addr = (uintptr_t)m;
	s.length = e->len;
	s.send_flags = e->hidden ? 0 : IB_ASYNC_SEND_SIGNALED;
	if (e->imm)
		s.imm_data = htonl((uint32_t)s.wr_id);
	ret = iba_ioc(c->fd, IB_ASYNC_IOC_POST_SEND, &s);
	if (ret)
		return post_failed(c, e, seq, ret, "post_send");
	atomic_fetch_add(&c->posted, 1);
	atomic_fetch_add(&c->st->posted, 1);
	return 0;
}

/* Room for one more receive at @to and one more send at @from? */
static bool has_room(struct ctx *c, int slot, int from, int to)
{
	if (atomic_load(&c->inst[from].sq_busy) >= QP_WR - 2)
		return false;
	if (slot == SRQ_SLOT)
		return atomic_load(&c->srq_busy) < SRQ_WR - 2;
	return atomic_load(&c->inst[to].rq_busy) < QP_WR - 2;
}

/* One receive, then the message that will land in it. 1: stop. */
static int post_one(struct ctx *c, uint64_t *r)
{
	int s = (int)(rnd(r) % SLOTS), d = (int)(rnd(r) & 1);
	struct slot *sl = &c->slot[s];
	int from, to, ret = 0;

	/* The destroyer holds it for a swap: another pair will do. */
	if (pthread_mutex_trylock(&sl->lock))
		return 0;
	from = sl->qp[d];
	to = sl->qp[!d];
	if (from < 0 || !has_room(c, s, from, to)) {
		pthread_mutex_unlock(&sl->lock);
		iba_sleep_ms(1);	/* let the pollers catch up */
		return 0;
	}
	ret = post_recv_to(c, s == SRQ_SLOT ? -1 : to);
	if (!ret)
		ret = post_msg(c, from, to, r);
	pthread_mutex_unlock(&sl->lock);
	if (ret == 1 || closed_under_us(c, ret))
		return 1;
	return 0;
}

static void *poster_main(void *arg)
{
	struct worker *w = arg;
	struct ctx *c = w->c;
	uint64_t r = c->seed ^ (0x9e3779b97f4a7c15ULL * (w->id + 1));
	int i;

	for (i = 0; i < c->posts; i++)
		if (post_one(c, &r))
			break;
	return NULL;
}

/* --- checking completions --------------------------------------------- */

static void check_payload(struct ctx *c, uint32_t seq,
			  const struct ib_async_wc *wc)
{
	const char *b = c->buf[seq];
	struct msg_hdr h;
	struct entry *s;
	uint32_t i, sseq;

	memcpy(&h, b, sizeof(h));
	if (wc->byte_len < sizeof(h) || wc->byte_len > MSG_MAX ||
	    h.magic != MSG_MAGIC || h.len != wc->byte_len) {
		fail(c, "recv wr_id %#llx qp_num %u: byte_len %u, header magic %#x len %u: not a message the test sent",
		     (unsigned long long)wc->wr_id, wc->qp_num, wc->byte_len,
		     h.magic, h.len);
		return;
	}
	for (i = sizeof(h); i < h.len; i++) {
		if ((uint8_t)b[i] != pattern(h.send_wr_id, i)) {
			fail(c, "recv wr_id %#llx: byte %u of the message of send %#llx is wrong",
			     (unsigned long long)wc->wr_id, i,
			     (unsigned long long)h.send_wr_id);
			return;
		}
	}
	if (h.dst_qpn != wc->qp_num) {
		int qi = find_inst(c, h.dst_qpn);

		fail(c, "recv wr_id %#llx on qp_num %u holds a message sent to qp_num %u%s",
		     (unsigned long long)wc->wr_id, wc->qp_num, h.dst_qpn,
		     qi >= 0 && atomic_load(&c->inst[qi].destroyed) ?
		     " (destroyed since)" : "");
	}
	sseq = WR_ID_SEQ(h.send_wr_id);
	if (WR_ID_TAG(h.send_wr_id) != WR_TAG ||
	    WR_ID_FILE(h.send_wr_id) != c->file || sseq >= c->nent ||
	    c->ent[sseq].recv) {
		fail(c, "recv wr_id %#llx holds send wr_id %#llx, which is no send of this file",
		     (unsigned long long)wc->wr_id,
		     (unsigned long long)h.send_wr_id);
		return;
	}
	s = &c->ent[sseq];
	i = atomic_load(&s->state);
	if ((i != E_POSTED && i != E_DONE) || s->qp_num != h.src_qpn ||
	    s->peer_qpn != h.dst_qpn || s->len != h.len)
		fail(c, "recv wr_id %#llx: send %#llx (state %u) was posted qp_num %u -> %u len %u, message says %u -> %u len %u",
		     (unsigned long long)wc->wr_id,
		     (unsigned long long)h.send_wr_id, i, s->qp_num,
		     s->peer_qpn, s->len, h.src_qpn, h.dst_qpn, h.len);
	if (!!(wc->wc_flags & WC_WITH_IMM) != s->imm ||
	    (s->imm && ntohl(wc->imm_data) != (uint32_t)h.send_wr_id))
		fail(c, "recv wr_id %#llx: immediate data (flags %#x imm %#x) does not match send %#llx",
		     (unsigned long long)wc->wr_id, wc->wc_flags,
		     ntohl(wc->imm_data), (unsigned long long)h.send_wr_id);
	if (atomic_fetch_add(&s->received, 1))
		fail(c, "the message of send %#llx was received twice",
		     (unsigned long long)h.send_wr_id);
}

/* The QP the completion must name, checked; its instance, or -1. */
static int check_qp_num(struct ctx *c, struct entry *e,
			const struct ib_async_wc *wc)
{
	int qi;

	if (e->inst >= 0) {
		if (wc->qp_num != e->qp_num)
			fail(c, "wr_id %#llx (%s) was posted to qp_num %u, completion (status %u) names qp_num %u",
			     (unsigned long long)wc->wr_id,
			     e->recv ? "recv" : "send", e->qp_num, wc->status,
			     wc->qp_num);
		return e->inst;
	}
	/* From the SRQ: any QP that receives from it, destroyed or not. */
	qi = find_inst(c, wc->qp_num);
	if (qi < 0 || !c->inst[qi].srq)
		fail(c, "SRQ recv wr_id %#llx (status %u) names qp_num %u, %s",
		     (unsigned long long)wc->wr_id, wc->status, wc->qp_num,
		     qi < 0 ? "no QP of this file" :
		     "a QP that does not receive from the SRQ");
	return qi;
}

static void check_status(struct ctx *c, struct entry *e, uint32_t seq,
			 int qi, const struct ib_async_wc *wc)
{
	bool errored = qi >= 0 && atomic_load(&c->inst[qi].errored);

	if (wc->status == WC_SUCCESS) {
		if (e->hidden)
			fail(c, "unsignalled send wr_id %#llx was reported",
			     (unsigned long long)wc->wr_id);
		if (wc->opcode != (e->recv ? WC_RECV : WC_SEND))
			fail(c, "wr_id %#llx (%s): opcode %u",
			     (unsigned long long)wc->wr_id,
			     e->recv ? "recv" : "send", wc->opcode);
		else if (e->recv)
			check_payload(c, seq, wc);
		return;
	}
	if (wc->status == WC_FLUSH)
		atomic_fetch_add(&c->st->flushes, 1);
	else
		atomic_fetch_add(&c->st->errors, 1);
	/* Errors come from a QP in ERR, which only the test puts there. */
	if (!errored)
		fail(c, "wr_id %#llx (%s) for qp_num %u: status %u, but that QP was never moved to ERR",
		     (unsigned long long)wc->wr_id, e->recv ? "recv" : "send",
		     e->inst >= 0 ? e->qp_num : wc->qp_num, wc->status);
}

static void check_wc(struct ctx *c, const struct ib_async_wc *wc)
{
	uint32_t seq = WR_ID_SEQ(wc->wr_id);
	struct entry *e;
	int old = E_POSTED, qi;

	atomic_fetch_add(&c->st->checked, 1);
	if (WR_ID_TAG(wc->wr_id) != WR_TAG || WR_ID_FILE(wc->wr_id) != c->file ||
	    seq >= c->nent) {
		fail(c, "completion for wr_id %#llx, never posted (status %u qp_num %u)",
		     (unsigned long long)wc->wr_id, wc->status, wc->qp_num);
		return;
	}
	e = &c->ent[seq];
	if (!atomic_compare_exchange_strong(&e->state, &old, E_DONE)) {
		fail(c, "completion for wr_id %#llx, %s (status %u qp_num %u)",
		     (unsigned long long)wc->wr_id,
		     old == E_DONE ? "seen twice" : "never posted",
		     wc->status, wc->qp_num);
		return;
	}
	unbusy(c, e);
	qi = check_qp_num(c, e, wc);
	check_status(c, e, seq, qi, wc);
}

/* Poll once; the number of completions, or -1 once the file is gone. */
static int poll_some(struct ctx *c)
{
	struct ib_async_wc wc[POLL_BATCH];
	struct ib_async_poll_cq p = {
		.argsz = sizeof(p), .handle = c->cq, .count = POLL_BATCH,
		.wc = (uintptr_t)wc,
	};
	uint32_t i;
	int ret;

	ret = iba_ioc(c->fd, IB_ASYNC_IOC_POLL_CQ, &p);
	if (closed_under_us(c, ret))
		return -1;
	if (ret) {
		fail(c, "poll_cq: %s", strerror(-ret));
		return -1;
	}
	if (p.count > POLL_BATCH) {
		fail(c, "poll_cq returned %u of %u", p.count, POLL_BATCH);
		return -1;
	}
	for (i = 0; i < p.count; i++)
		check_wc(c, &wc[i]);
	return (int)p.count;
}

static void *poller_main(void *arg)
{
	struct worker *w = arg;
	struct ctx *c = w->c;
	int n;

	while (!atomic_load(&c->stop)) {
		n = poll_some(c);
		if (n < 0)
			break;
		if (!n)
			iba_sleep_ms(1);
	}
	return NULL;
}

/* --- objects and churn ------------------------------------------------ */

static int make_qp(struct ctx *c, bool srq, struct ib_async_create_qp *q)
{
	memset(q, 0, sizeof(*q));
	q->argsz = sizeof(*q);
	q->user_handle = (uint64_t)c->file;
	q->pd_handle = c->pd;
	q->send_cq_handle = c->cq;
	q->recv_cq_handle = c->cq;
	q->srq_handle = srq ? c->srq : 0;
	q->qp_type = IB_UVERBS_QPT_RC;
	q->max_send_wr = QP_WR;
	q->max_recv_wr = srq ? 0 : QP_WR;
	q->max_send_sge = 1;
	q->max_recv_sge = srq ? 0 : 1;
	return iba_ioc(c->fd, IB_ASYNC_IOC_CREATE_QP, q);
}

/*
 * A connected pair for slot @s, published there: by the one thread that
 * makes objects, with the slot's lock held once posters run.
 */
static int new_pair(struct ctx *c, int s)
{
	struct ib_async_create_qp q[2];
	int i, n = atomic_load(&c->ninst), ret;

	if (n + 2 > c->max_inst)
		return -ENOSPC;
	ret = make_qp(c, s == SRQ_SLOT, &q[0]);
	if (ret)
		return ret;
	ret = make_qp(c, s == SRQ_SLOT, &q[1]);
	if (ret)
		goto err_first;
	ret = iba_rc_connect(c->fd, q[0].handle, q[1].qp_num, c->sgid, c->gid);
	if (!ret)
		ret = iba_rc_connect(c->fd, q[1].handle, q[0].qp_num, c->sgid,
				 c->gid);
	if (ret)
		goto err_both;
	for (i = 0; i < 2; i++) {
		c->inst[n + i].handle = q[i].handle;
		c->inst[n + i].qp_num = q[i].qp_num;
		c->inst[n + i].srq = s == SRQ_SLOT;
		c->slot[s].qp[i] = n + i;
	}
	atomic_store(&c->ninst, n + 2);
	return 0;

err_both:
	iba_destroy(c->fd, IB_ASYNC_OBJ_QP, q[1].handle, NULL);
err_first:
	iba_destroy(c->fd, IB_ASYNC_OBJ_QP, q[0].handle, NULL);
	return ret;
}

/*
 * A post to the handle of a QP just destroyed must find nothing: only
 * this thread makes objects, so the handle is still free.
 */
static void probe(struct ctx *c, uint32_t handle)
{
	struct ib_async_post_recv a = {
		.argsz = sizeof(a), .obj_type = IB_ASYNC_OBJ_QP,
		.handle = handle, .wr_id = WR_ID(c->file, PROBE_SEQ),
		.addr = (uintptr_t)c->probe_buf, .length = sizeof(c->probe_buf),
	};
	int ret = iba_ioc(c->fd, IB_ASYNC_IOC_POST_RECV, &a);

	if (ret == -ENOENT)
		atomic_fetch_add(&c->st->tolerated[T_ENOENT], 1);
	else if (!closed_under_us(c, ret))
		fail(c, "post_recv to destroyed QP handle %u: %d, not ENOENT",
		     handle, ret);
}

/* Slot lock held: destroy both QPs; their requests need not complete. */
static void kill_pair(struct ctx *c, int s)
{
	struct inst *in;
	int d, ret;

	for (d = 0; d < 2; d++) {
		in = &c->inst[c->slot[s].qp[d]];
		ret = iba_destroy(c->fd, IB_ASYNC_OBJ_QP, in->handle, NULL);
		atomic_store(&in->destroyed, true);
		if (closed_under_us(c, ret))
			continue;
		if (!tolerate(c, ret, "destroy QP"))
			probe(c, in->handle);
	}
	c->slot[s].qp[0] = c->slot[s].qp[1] = -1;
}

/*
 * Receives on a fresh pair right away: they take the request ids the
 * destroyed pair freed, while its flushed completions may still be queued.
 */
static void burst(struct ctx *c, int s)
{
	int i, d;

	for (i = 0; i < BURST; i++)
		for (d = 0; d < 2; d++)
			if (post_recv_to(c, s == SRQ_SLOT ? -1 : c->slot[s].qp[d]))
				return;
}

/*
 * Move a pair to ERR (or not), destroy it, make and feed a new one. A
 * whole pair: a QP whose peer vanished would retry until RETRY_EXC_ERR.
 */
static void churn(struct ctx *c, int s, uint64_t *r)
{
	struct slot *sl = &c->slot[s];
	int q[2] = { sl->qp[0], sl->qp[1] }, d, ret;
	uint64_t v = rnd(r);

	if (q[0] >= 0) {
		/* Flagged first: its errors may come before modify returns. */
		for (d = 0; d < 2; d++)
			atomic_store(&c->inst[q[d]].errored, true);
		/* Otherwise destroyed straight from RTS, work in flight. */
		for (d = 0; d < 2 && (v & 1); d++) {
			ret = iba_modify_qp(c->fd, c->inst[q[d]].handle, QPS_ERR, 0,
					NULL);
			if (closed_under_us(c, ret))
				return;
			tolerate(c, ret, "modify_qp to ERR");
		}
		/* Sometimes give the flushes time to reach the CQ. */
		if ((v & 3) == 3)
			iba_sleep_ms(1);
	}
	pthread_mutex_lock(&sl->lock);
	if (q[0] >= 0)
		kill_pair(c, s);
	ret = new_pair(c, s);
	if (!ret)
		burst(c, s);
	else if (!closed_under_us(c, ret))
		tolerate(c, ret, "replacement pair");
	pthread_mutex_unlock(&sl->lock);
	atomic_fetch_add(&c->st->churned, 1);
}

/* Until the posters made @target posts, or are done: bounded by them. */
static void wait_posted(struct ctx *c, long target)
{
	while (atomic_load(&c->posted) < target &&
	       !atomic_load(&c->posters_done) && !atomic_load(&c->closing))
		iba_sleep_ms(1);
}

static void *destroyer_main(void *arg)
{
	struct worker *w = arg;
	struct ctx *c = w->c;
	uint64_t r = c->seed ^ 0xd1b54a32d192ed03ULL;
	/* about half the posters' tries find room: spread the churn */
	long total = (long)POSTERS * c->posts;
	int i;

	for (i = 0; i < c->churns && !atomic_load(&c->closing); i++) {
		wait_posted(c, total * (i + 1) / (c->churns + 1));
		churn(c, (int)(rnd(&r) % SLOTS), &r);
	}
	return NULL;
}

/* --- a file's life ---------------------------------------------------- */

/* What the tests share: the device, its GID, the counters. */
struct bed {
	struct iba_dev dev;
	int sgid;
	uint8_t gid[16];
	struct stats *st;
	double scale;
	uint64_t seed;
};

/* One file's work: file number, poster tries, churns, poller threads. */
struct plan {
	int file, posts, churns, pollers;
	int ready_fd;		/* written to once traffic flows; -1: none */
};

static int ctx_init(struct ctx *c, const struct bed *b, const struct plan *p)
{
	int s;

	memset(c, 0, sizeof(*c));
	c->st = b->st;
	c->fd = -1;
	c->file = p->file;
	c->sgid = b->sgid;
	memcpy(c->gid, b->gid, sizeof(c->gid));
	c->posts = p->posts;
	c->churns = p->churns;
	c->pollers = p->pollers;
	c->seed = b->seed ^ (0xbf58476d1ce4e5b9ULL * (uint64_t)(p->file + 1)) ^
		  (uint64_t)atomic_load(&b->st->rounds) << 40;
	c->nent = (uint32_t)(POSTERS * p->posts * 2 +
			     p->churns * 2 * BURST + 4 * SLOTS * 4 + 64);
	c->max_inst = 2 * SLOTS + 2 * p->churns;
	c->ent = calloc(c->nent, sizeof(*c->ent));
	c->buf = calloc(c->nent, MSG_MAX);
	c->inst = calloc(c->max_inst, sizeof(*c->inst));
	for (s = 0; s < SLOTS; s++) {
		pthread_mutex_init(&c->slot[s].lock, NULL);
		c->slot[s].qp[0] = c->slot[s].qp[1] = -1;
	}
	return c->ent && c->buf && c->inst ? 0 : -ENOMEM;
}

static void ctx_fini(struct ctx *c)
{
	int s;

	if (c->fd >= 0)
		close(c->fd);
	for (s = 0; s < SLOTS; s++)
		pthread_mutex_destroy(&c->slot[s].lock);
	free(c->ent);
	free(c->buf);
	free(c->inst);
}

/* PD, the CQ every QP shares, the SRQ, and every slot's pair. */
static int ctx_open(struct ctx *c, const char *node)
{
	struct ib_async_create_srq srq = {
		.argsz = sizeof(srq), .user_handle = 0x5e, .max_wr = SRQ_WR,
		.max_sge = 1,
	};
	int s, ret;

	c->fd = open(node, O_RDWR | O_NONBLOCK);
	if (c->fd < 0)
		return -errno;
	ret = iba_create_pd(c->fd, &c->pd);
	if (!ret)
		ret = iba_create_cq(c->fd, 0xc0, CQE, &c->cq);
	srq.pd_handle = c->pd;
	if (!ret)
		ret = iba_ioc(c->fd, IB_ASYNC_IOC_CREATE_SRQ, &srq);
	c->srq = srq.handle;
	for (s = 0; s < SLOTS && !ret; s++)
		ret = new_pair(c, s);
	return ret;
}

/* Tell the parent that traffic flows; bounded like everything else. */
static void signal_ready(struct ctx *c, int fd)
{
	uint64_t end = iba_now_ms() + 30000;

	while (atomic_load(&c->posted) < 40 && iba_now_ms() < end)
		iba_sleep_ms(2);
	if (write(fd, "r", 1) != 1)
		fail(c, "telling the parent: %s", strerror(errno));
}

static int spawn(struct ctx *c, pthread_t *t, void *(*fn)(void *),
		 struct worker *w, int id)
{
	w->c = c;
	w->id = id;
	if (!pthread_create(t, NULL, fn, w))
		return 1;
	fail(c, "pthread_create failed");
	return 0;
}

/*
 * Posters, pollers and the destroyer, to the end of the posters' work.
 * @closer, if set, runs while they do (it closes the file under them).
 */
static void run_traffic(struct ctx *c, int ready_fd,
			void (*closer)(struct ctx *c))
{
	pthread_t pt[POSTERS], ct[POLLERS], dt;
	struct worker pw[POSTERS], cw[POLLERS], dw;
	int i, np = 0, nc = 0, nd = 0;

	for (i = 0; i < POSTERS; i++)
		np += spawn(c, &pt[np], poster_main, &pw[np], i);
	for (i = 0; i < c->pollers && i < POLLERS; i++)
		nc += spawn(c, &ct[nc], poller_main, &cw[nc], i);
	if (c->churns)
		nd = spawn(c, &dt, destroyer_main, &dw, 0);
	if (ready_fd >= 0)
		signal_ready(c, ready_fd);
	if (closer)
		closer(c);
	for (i = 0; i < np; i++)
		pthread_join(pt[i], NULL);
	atomic_store(&c->posters_done, true);
	if (nd)
		pthread_join(dt, NULL);
	atomic_store(&c->stop, true);
	for (i = 0; i < nc; i++)
		pthread_join(ct[i], NULL);
}

/* Requests on QPs alive and in ERR that have not completed. */
static long pending(struct ctx *c, bool report)
{
	uint32_t i, n = atomic_load(&c->next_seq);
	struct entry *e;
	long left = 0;

	if (n > c->nent)
		n = c->nent;
	for (i = 0; i < n; i++) {
		e = &c->ent[i];
		if (atomic_load(&e->state) != E_POSTED || e->hidden ||
		    e->inst < 0 || atomic_load(&c->inst[e->inst].destroyed))
			continue;
		left++;
		if (report)
			fail(c, "wr_id %#llx (%s) on qp_num %u, in ERR and never destroyed, did not complete",
			     (unsigned long long)WR_ID(c->file, i),
			     e->recv ? "recv" : "send", e->qp_num);
	}
	return left;
}

/* Every pair to ERR: each request on a live QP must now complete. */
static void drain(struct ctx *c)
{
	uint64_t end = iba_now_ms() + DRAIN_MS;
	int s, d, qi, n, i;

	for (s = 0; s < SLOTS; s++) {
		for (d = 0; d < 2; d++) {
			qi = c->slot[s].qp[d];
			if (qi < 0)
				continue;
			atomic_store(&c->inst[qi].errored, true);
			tolerate(c, iba_modify_qp(c->fd, c->inst[qi].handle,
					      QPS_ERR, 0, NULL),
				 "modify_qp to ERR");
		}
	}
	while (pending(c, false)) {
		n = poll_some(c);
		if (n < 0)
			break;
		if (!n && iba_now_ms() > end)
			break;
		if (!n)
			iba_sleep_ms(5);
	}
	pending(c, true);
	/* What else is queued, e.g. of destroyed QPs, is checked as well. */
	for (i = 0; i < CQE / POLL_BATCH && poll_some(c) > 0; i++)
		;
}

/* One file from open to close; returns the failures it saw. */
static long run_file(const struct bed *b, const struct plan *p,
		     void (*closer)(struct ctx *c))
{
	struct ctx *c = malloc(sizeof(*c));
	long failures;
	int ret;

	if (!c)
		return 1;
	ret = ctx_init(c, b, p);
	if (!ret)
		ret = ctx_open(c, b->dev.node);
	if (ret) {
		fail(c, "setting up file %d: %s", p->file, strerror(-ret));
	} else {
		run_traffic(c, p->ready_fd, closer);
		if (!closer)
			drain(c);
	}
	atomic_fetch_add(&b->st->rounds, 1);
	failures = atomic_load(&c->failures);
	ctx_fini(c);
	free(c);
	return failures;
}

/* --- processes -------------------------------------------------------- */

struct killer {
	int ready_fd;
	pid_t pid;
};

/* SIGKILL the victim once its traffic flows (or its pipe broke). */
static void *killer_main(void *arg)
{
	struct killer *k = arg;
	struct pollfd p = { .fd = k->ready_fd, .events = POLLIN };
	char ch;

	if (poll(&p, 1, 60000) == 1 && read(k->ready_fd, &ch, 1) == 1)
		iba_sleep_ms(5 + (unsigned int)(k->pid % 20));
	kill(k->pid, SIGKILL);
	return NULL;
}

/* The RDMA core's count of one resource kind on the device, or -1. */
static long rdma_count(const char *ibdev, const char *kind)
{
	char cmd[256], line[512], key[32], *at;
	long n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>/dev/null", ibdev);
	snprintf(key, sizeof(key), " %s ", kind);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, key);
		if (at)
			n = strtol(at + strlen(key), NULL, 10);
	}
	pclose(f);
	return n;
}

/* Wait (bounded) for the device's QP count to come back to @want. */
static long qps_back_to(const char *ibdev, long want)
{
	uint64_t end = iba_now_ms() + 10000;
	long n;

	do {
		n = rdma_count(ibdev, "qp");
		if (n == want)
			break;
		iba_sleep_ms(50);
	} while (iba_now_ms() < end);
	return n;
}

static void summary(const char *what, const struct stats *st)
{
	const atomic_long *t = st->tolerated;

	ksft_print_msg("%s: files %ld, posted %ld, completions checked %ld, flushes %ld, other errors %ld, churned pairs %ld, tolerated errno %ld (ENOENT %ld EINVAL %ld ENOSPC %ld ENOMEM %ld EBUSY %ld), failures %ld\n",
		       what, atomic_load(&st->rounds), atomic_load(&st->posted),
		       atomic_load(&st->checked), atomic_load(&st->flushes),
		       atomic_load(&st->errors), atomic_load(&st->churned),
		       atomic_load(&t[T_ENOENT]) + atomic_load(&t[T_EINVAL]) +
		       atomic_load(&t[T_ENOSPC]) + atomic_load(&t[T_ENOMEM]) +
		       atomic_load(&t[T_EBUSY]),
		       atomic_load(&t[T_ENOENT]), atomic_load(&t[T_EINVAL]),
		       atomic_load(&t[T_ENOSPC]), atomic_load(&t[T_ENOMEM]),
		       atomic_load(&t[T_EBUSY]), atomic_load(&st->failures));
}

/* --- the tests -------------------------------------------------------- */

FIXTURE(stress) {
	struct bed bed;
	long qp0;
};

FIXTURE_SETUP(stress)
{
	struct bed *b = &self->bed;

	b->st = MAP_FAILED;
	if (iba_find_dev(&b->dev) || strncmp(b->dev.ibdev, "rxe", 3))
		SKIP(return, "no ib_async node for an rxe device");
	b->sgid = iba_roce_v2_gid(b->dev.ibdev, b->gid);
	if (b->sgid < 0)
		SKIP(return, "%s has no IPv4 RoCE v2 GID", b->dev.ibdev);
	/* Shared, so that children's counts reach the summary. */
	b->st = mmap(NULL, sizeof(*b->st), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b->st);
	b->scale = stress_scale();
	b->seed = stress_seed();
	self->qp0 = rdma_count(b->dev.ibdev, "qp");
	ksft_print_msg("seed %#llx (IB_ASYNC_STRESS_SEED), scale %.2f\n",
		       (unsigned long long)b->seed, b->scale);
}

FIXTURE_TEARDOWN(stress)
{
	if (self->bed.st != MAP_FAILED)
		munmap(self->bed.st, sizeof(*self->bed.st));
}

TEST_F_TIMEOUT(stress, threads_race_on_one_file, 150)
{
	struct plan p = {
		.posts = scaled(POSTS, self->bed.scale),
		.churns = scaled(CHURNS, self->bed.scale),
		.pollers = POLLERS, .ready_fd = -1,
	};
	int i, rounds = scaled(ROUNDS, self->bed.scale);
	long failures = 0;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < rounds; i++)
		failures += run_file(&self->bed, &p, NULL);
	summary("threads", self->bed.st);
	EXPECT_EQ(0, failures);
	EXPECT_LT(0, atomic_load(&self->bed.st->checked));
	if (self->qp0 >= 0)
		EXPECT_EQ(self->qp0, qps_back_to(self->bed.dev.ibdev, self->qp0));
}

static void child(const struct bed *b, struct plan *p, int file, int fd)
{
	p->file = file;
	p->ready_fd = fd;
	_exit(run_file(b, p, NULL) ? 1 : 0);
}

TEST_F_TIMEOUT(stress, processes_race_one_killed_mid_traffic, 120)
{
	double sc = self->bed.scale;
	struct plan kid = {
		.posts = scaled(CHILD_POSTS, sc), .churns = scaled(CHURNS / 2, sc),
		.pollers = 1,
	};
	struct plan victim = {
		.posts = VICTIM_POSTS, .churns = CHURNS, .pollers = 1,
	};
	struct plan parent = {
		.posts = scaled(POSTS, sc), .churns = scaled(CHURNS, sc),
		.pollers = POLLERS, .ready_fd = -1,
	};
	pid_t pid[CHILDREN + 1];
	struct killer k;
	pthread_t kt;
	int i, ready[2], status;

	IBA_SKIPPED_IN_SETUP();
	ASSERT_EQ(0, pipe(ready));
	fflush(NULL);		/* nothing buffered twice */
	/* Forked before any thread of ours exists. */
	for (i = 0; i <= CHILDREN; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i])
			continue;
		close(ready[0]);
		if (i < CHILDREN) {
			close(ready[1]);
			child(&self->bed, &kid, i + 1, -1);
		}
		child(&self->bed, &victim, i + 1, ready[1]);
	}
	close(ready[1]);
	k.ready_fd = ready[0];
	k.pid = pid[CHILDREN];
	ASSERT_EQ(0, pthread_create(&kt, NULL, killer_main, &k));
	EXPECT_EQ(0, run_file(&self->bed, &parent, NULL));
	pthread_join(kt, NULL);
	close(ready[0]);
	for (i = 0; i <= CHILDREN; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		if (i < CHILDREN) {
			EXPECT_EQ(0, status) TH_LOG("child %d: status %#x",
						    i + 1, status);
		} else {
			EXPECT_TRUE(WIFSIGNALED(status) &&
				    WTERMSIG(status) == SIGKILL)
				TH_LOG("victim: status %#x", status);
		}
	}
	/* The device still moves traffic once the killed file is gone. */
	parent.churns = 0;
	parent.posts = 10;
	EXPECT_EQ(0, run_file(&self->bed, &parent, NULL));
	summary("processes", self->bed.st);
	EXPECT_EQ(0, atomic_load(&self->bed.st->failures));
	if (self->qp0 >= 0)
		EXPECT_EQ(self->qp0, qps_back_to(self->bed.dev.ibdev, self->qp0));
}

/*
 * Close under load: requests posted, completions unpolled (no poller), a
 * pair in ERR with its flushes queued, posters and destroyer still
 * running. dup2() swaps /dev/null in, so the file's last reference goes
 * while the threads keep a valid descriptor that can only answer ENOTTY.
 */
static void close_under_load(struct ctx *c)
{
	int d, s, q, nul;

	/* Under the slot locks: the destroyer may be swapping a pair. */
	for (s = 0; s < SLOTS; s++) {
		pthread_mutex_lock(&c->slot[s].lock);
		for (d = 0; d < 2; d++) {
			q = c->slot[s].qp[d];
			if (q < 0)
				continue;
			post_recv_to(c, s == SRQ_SLOT ? -1 : q);
			if (s)
				continue;
			atomic_store(&c->inst[q].errored, true);
			tolerate(c, iba_modify_qp(c->fd, c->inst[q].handle, QPS_ERR,
					      0, NULL), "modify_qp to ERR");
		}
		pthread_mutex_unlock(&c->slot[s].lock);
	}
	wait_posted(c, (long)c->posts);
	atomic_store(&c->closing, true);
	nul = open("/dev/null", O_RDWR);
	if (nul < 0 || dup2(nul, c->fd) < 0)
		fail(c, "swapping /dev/null in: %s", strerror(errno));
	if (nul >= 0)
		close(nul);
}

TEST_F_TIMEOUT(stress, close_with_work_posted_and_completions_unpolled, 90)
{
	struct plan p = {
		.posts = scaled(CLOSE_POSTS, self->bed.scale), .churns = 2,
		.pollers = 0, .ready_fd = -1,
	};
	int i, rounds = scaled(ROUNDS, self->bed.scale);
	long failures = 0;

	IBA_SKIPPED_IN_SETUP();
	for (i = 0; i < rounds; i++) {
		p.file = i;
		failures += run_file(&self->bed, &p, close_under_load);
	}
	/* The device still moves traffic after those closes. */
	p.churns = 0;
	p.posts = 10;
	p.pollers = 1;
	failures += run_file(&self->bed, &p, NULL);
	summary("close", self->bed.st);
	EXPECT_EQ(0, failures);
	if (self->qp0 >= 0)
		EXPECT_EQ(self->qp0, qps_back_to(self->bed.dev.ibdev, self->qp0));
}

TEST_HARNESS_MAIN

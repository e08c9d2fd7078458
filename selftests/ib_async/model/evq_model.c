// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Model test of the event queue: kernel/core/evq.c itself, built into
 * this program over kshim/, driven by random operations (events, losses,
 * coalescing, snapshots, resyncs, resizes, purges, reads with copies that
 * race all of these or fault, shutdown and close) and compared after every
 * step with a reference model: a plain array of records that follows the
 * rules of Documentation/ib_async.rst ("The queue's bound").
 *
 * After every step it checks, in this order:
 *  - the structure: no more records than the ring has slots, the extras
 *    pool (a free list without cycles, disjoint from the records' extras,
 *    the two adding up to the pool), the coalescing hash chains, the state
 *    slots, and that no WARN fired;
 *  - the reader's view: every record read once, sequence numbers growing
 *    and each range following the last, a state record carrying its own
 *    state, the overflow records' counts adding up to what was lost;
 *  - unless --invariants: the queue equal to the model, record by record,
 *    and every call's result equal to the model's.
 *
 * evq_model [--seed N] [--runs N] [--steps N] [--invariants] [--verbose]
 * Prints TAP: one line per run group, and the seed that replays a failure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kshim.h"
#include "../../../kernel/core/evq.h"

/* ---- the test's side of kshim ---------------------------------------- */

static u64 rng_state;

static u64 rnd(void)
{
	u64 x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* 0 .. n-1 */
static u32 pick(u32 n)
{
	return n ? (u32)(rnd() % n) : 0;
}

static bool chance(u32 percent)
{
	return pick(100) < percent;
}

static u64 run_seed;
static unsigned long step_no;
static const char *step_what = "";
static bool verbose;
static int tap_num = 1;

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	printf("not ok %d - run seed %llu, step %lu (%s): ", tap_num,
	       (unsigned long long)run_seed, step_no, step_what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (run_seed)
		printf("\n# replay: evq_model --seed %llu --runs 1 --verbose\n",
		       (unsigned long long)run_seed);
	else
		printf("\n# replay: evq_model --recipe\n");
	fflush(stdout);
	exit(1);
}

void kshim_warn(const char *file, int line, const char *cond)
{
	fail("WARN at %s:%d: %s", file, line, cond);
}

void kshim_fail(const char *file, int line, const char *what)
{
	fail("%s at %s:%d", what, file, line);
}

/* Allocations remember their size: the ring's slots are read from it. */
struct alloc_hdr {
	size_t bytes;
	u64 magic;
};

#define ALLOC_MAGIC	0x6b7368696d616c6cULL

void *kshim_alloc(size_t n, size_t size)
{
	struct alloc_hdr *h;

	if (!n || size > SIZE_MAX / n)
		return NULL;
	h = calloc(1, sizeof(*h) + n * size);
	if (!h)
		return NULL;
	h->bytes = n * size;
	h->magic = ALLOC_MAGIC;
	return h + 1;
}

void kshim_free(const void *p)
{
	struct alloc_hdr *h;

	if (!p)
		return;
	h = (struct alloc_hdr *)p - 1;
	if (h->magic != ALLOC_MAGIC)
		fail("free of memory not allocated here");
	h->magic = 0;
	free(h);
}

static size_t alloc_bytes(const void *p)
{
	return ((const struct alloc_hdr *)p - 1)->bytes;
}

static u64 clock_ns = 1000;

u64 kshim_now(void)
{
	return ++clock_ns;
}

/* Hooks: what "another CPU" does while the queue code lets it. */
static void hook_copy(void *to, const void *from, unsigned long n);
static bool fault_next_copy;

unsigned long kshim_copy_to_user(void *to, const void *from, unsigned long n)
{
	hook_copy(to, from, n);
	if (fault_next_copy) {
		fault_next_copy = false;
		return n;
	}
	memcpy(to, from, n);
	return 0;
}

static void hook_resched(void);

void kshim_resched(void)
{
	hook_resched();
}

/* Stand-ins for account.c and ring.c: no user is charged, no ring made. */
int ib_async_account_pages(struct user_struct *user, long pages)
{
	(void)user;
	(void)pages;
	return 0;
}

void ib_async_unaccount_pages(struct user_struct *user, long pages)
{
	(void)user;
	(void)pages;
}

void ib_async_uring_free(struct ib_async_uring *r)
{
	(void)r;
}

void ib_async_uring_uncharge(struct ib_async_uring *r)
{
	(void)r;
}

/* ---- the configuration of a run -------------------------------------- */

enum kind { K_NODE, K_COMP, K_CHAN, K_COALESCE, K_STATE, K_RESYNC, K_NR };

static const char *const kind_name[K_NR] = {
	"node", "comp", "chan", "coalesce", "state", "resync",
};

#define NOBJ		4	/* object handles 1..NOBJ, each of a type */
#define MAXPORTS	3
#define MAXREC		4096

/* ---- the reference model --------------------------------------------- */

enum rkind { R_EVENT, R_OVERFLOW, R_STATE, R_END };

struct mrec {
	enum rkind kind;
	u64 seq;
	u64 count;
	u64 ts;
	u32 type;
	u32 port;
	u32 obj_type;
	u32 handle;
	u64 cookie;
	u64 occurrences;
	u64 last_ns;
	bool copied;		/* a reader has copied it: no longer merges */
	u32 obj;		/* node/comp: the owner's index + 1, 0 none */
	u32 sflags;		/* state records: RESYNC, LAST */
};

struct model {
	struct mrec r[MAXREC];
	u32 len;
	u32 cap;
	u32 state_slots;
	u32 nstate;
	u64 next_seq;
	u64 lost;
	u64 coalesced;
	bool pending;
	u64 pend_seq, pend_count, pend_ns;
	bool ended;		/* no more records, D queued or closed */
	bool dead;
	bool resync_wanted;
	/* node/comp: per object */
	u64 reported[NOBJ + 1];
	u32 queued[NOBJ + 1];
	bool obj_gone[NOBJ + 1];
};

/* ---- the run's state ------------------------------------------------- */

struct run {
	enum kind kind;
	unsigned int flags;
	u32 nports;
	struct ib_async_evq q;
	struct ib_async_stats stats;
	struct ib_async_evcount owners[NOBJ + 1];
	u32 obj_type[NOBJ + 1];
	u32 handle[NOBJ + 1];	/* never reused: a purged object is replaced */
	u32 next_handle;
	struct model m;
	bool resync_asked;
	/* the reader */
	u64 last_seq_end;	/* what was read so far ends here */
	u64 peeked_end;		/* a peek's records end here: consume first */
	u64 read_lost;		/* overflow counts read */
	u64 read_records;
	bool check_model;
	/* a read in progress: the chunk the kernel copies, as the model has it */
	bool in_read;
	bool in_peek;
	u64 rd_after;
	u32 rd_n;
	struct mrec rd_snap[32];
	u32 rd_returned;
	struct mrec rd_out[64];
	int hook_depth;
};

static struct run R;

static u32 rec_size(void)
{
	return R.q.rec_size;
}

static bool is_chan(void)
{
	return R.flags & IB_ASYNC_EVQ_CHAN;
}

static u32 model_room(const struct model *m)
{
	u32 i, n = 0;

	for (i = 0; i < m->len; i++)
		if (m->r[i].kind == R_EVENT || m->r[i].kind == R_OVERFLOW)
			n++;
	return n;
}

static void model_append(struct model *m, const struct mrec *rec)
{
	if (m->len >= MAXREC)
		fail("model full");
	m->r[m->len++] = *rec;
}

static void model_resync_check(struct model *m)
{
	(void)m;	/* the kernel asks; check_resync_asked() compares */
}

static bool model_resync_due(const struct model *m)
{
	return R.kind == K_RESYNC && m->resync_wanted && !m->nstate &&
	       !m->pending && !m->ended;
}

static void model_flush(struct model *m, bool end)
{
	struct mrec o = { .kind = R_OVERFLOW, .type = IB_ASYNC_EV_OVERFLOW,
			  .obj_type = IB_ASYNC_OBJ_NONE };

	if (!m->pending || (!end && model_room(m) > m->cap))
		return;
	o.seq = m->pend_seq;
	o.count = m->pend_count;
	o.ts = m->pend_ns;
	o.last_ns = m->pend_ns;
	model_append(m, &o);
	m->pending = false;
	model_resync_check(m);
}

static void model_loss(struct model *m, u64 seq, u64 ts)
{
	m->lost++;
	if (m->pending) {
		m->pend_count++;
	} else if (m->len && m->r[m->len - 1].kind == R_OVERFLOW &&
		   !m->r[m->len - 1].copied) {
		m->r[m->len - 1].count++;
	} else {
		m->pending = true;
		m->pend_seq = seq;
		m->pend_count = 1;
		m->pend_ns = ts;
		if (R.kind == K_RESYNC)
			m->resync_wanted = true;
		model_flush(m, false);
	}
}

static u64 model_key(const struct mrec *r)
{
	u32 id = r->obj_type == IB_ASYNC_OBJ_PORT ? r->port : r->handle;

	return (u64)(u16)r->type << 48 | (u64)(u16)r->obj_type << 32 | id;
}

/* An event arrives: coalesced, queued, or lost. */
static void model_push(struct model *m, struct mrec *ev)
{
	u32 i;

	if (m->ended)
		return;
	if (ev->type == IB_ASYNC_EV_DEVICE_FATAL) {
		m->ended = true;
		model_flush(m, true);
		ev->kind = R_END;
		ev->seq = m->next_seq++;
		ev->count = 1;
		model_append(m, ev);
		return;
	}
	if (R.kind == K_COALESCE) {
		for (i = 0; i < m->len; i++) {
			struct mrec *r = &m->r[i];

			if (r->kind == R_EVENT && !r->copied &&
			    model_key(r) == model_key(ev) &&
			    r->cookie == ev->cookie) {
				r->occurrences++;
				r->last_ns = ev->ts;
				m->coalesced++;
				return;
			}
		}
	}
	if (R.kind == K_COMP && ev->obj && m->queued[ev->obj]) {
		m->coalesced++;
		return;
	}
	ev->seq = m->next_seq++;
	ev->count = 1;
	if (model_room(m) < m->cap && !m->pending) {
		ev->kind = R_EVENT;
		model_append(m, ev);
		if (ev->obj)
			m->queued[ev->obj]++;
		return;
	}
	model_loss(m, ev->seq, ev->ts);
}

static void model_pop(struct model *m)
{
	struct mrec *r = &m->r[0];

	if (r->kind == R_STATE)
		m->nstate--;
	if (r->obj) {
		m->queued[r->obj]--;
		m->reported[r->obj]++;
	}
	memmove(&m->r[0], &m->r[1], (m->len - 1) * sizeof(m->r[0]));
	m->len--;
	model_flush(m, false);
}

/* ---- checks ---------------------------------------------------------- */

static u32 kslots(void)
{
	return alloc_bytes(R.q.ring) / sizeof(struct ib_async_slot);
}

static struct ib_async_slot *kslot(u32 i)
{
	return &R.q.ring[(R.q.head + i) % kslots()];
}

static u32 knx(void)
{
	return alloc_bytes(R.q.xs) / sizeof(struct ib_async_evx);
}

static void check_structure(void)
{
	struct ib_async_evq *q = &R.q;
	static u8 seen[1 << 21];
	u32 i, x, nx, used = 0, nfree = 0, nst = 0, b;

	if (q->len > kslots())
		fail("%u records in a ring of %u slots", q->len, kslots());
	if (q->lock.held || q->move_mutex.held || q->read_mutex.held)
		fail("a lock is left held");
	if (!q->xs)
		return;
	nx = knx();
	if (nx > sizeof(seen))
		fail("extras pool too large for the check");
	memset(seen, 0, nx + 1);
	for (i = 0; i < q->len; i++) {
		x = kslot(i)->x;
		if (kslot(i)->rec.event_type == IB_ASYNC_EV_OVERFLOW) {
			if (x)
				fail("overflow record %u has extras %u", i, x);
			continue;
		}
		if (!x || x > nx)
			fail("record %u (type %#x) has extras index %u of %u",
			     i, kslot(i)->rec.event_type, x, nx);
		if (seen[x])
			fail("extras %u held by two records", x);
		seen[x] = 1;
		used++;
		if (q->xs[x - 1].state)
			nst++;
	}
	for (x = q->x_free; x; x = q->xs[x - 1].next) {
		if (x > nx)
			fail("free list reaches index %u of %u", x, nx);
		if (seen[x] == 1)
			fail("extras %u both held and free", x);
		if (seen[x] == 2)
			fail("free list has a cycle at %u", x);
		seen[x] = 2;
		nfree++;
	}
	if (used + nfree != nx)
		fail("extras: %u held + %u free != pool %u", used, nfree, nx);
	if (R.check_model && q->x_used != used)
		fail("x_used %u, records hold %u", q->x_used, used);
	if (nst != q->nstate)
		fail("%u state records, nstate %u", nst, q->nstate);
	if (!q->buckets)
		return;
	/* every hashed record on its key's chain once, chains acyclic */
	for (b = 0; b < 1U << q->bucket_bits; b++) {
		u32 hops = 0;

		for (x = q->buckets[b]; x; x = q->xs[x - 1].next) {
			if (x > nx || seen[x] != 1 || !q->xs[x - 1].hashed)
				fail("hash chain %u reaches %u", b, x);
			if (hash_64(q->xs[x - 1].key, q->bucket_bits) != b)
				fail("extras %u on the wrong chain", x);
			if (++hops > nx)
				fail("hash chain %u has a cycle", b);
			seen[x] = 3;
		}
	}
	for (i = 0; i < q->len; i++) {
		x = kslot(i)->x;
		if (x && q->xs[x - 1].hashed && seen[x] != 3)
			fail("hashed extras %u on no chain", x);
	}
}

/* The queue against the model, record by record. */
static void check_model(void)
{
	struct ib_async_evq_stat st;
	struct model *m = &R.m;
	u32 i, o;

	if (!R.check_model)
		return;
	ib_async_evq_stat(&R.q, &st);
	if (st.lost != m->lost)
		fail("lost %llu, model %llu", (unsigned long long)st.lost,
		     (unsigned long long)m->lost);
	if (st.queued != m->len + m->pending)
		fail("queued %u, model %u + %d", st.queued, m->len,
		     m->pending);
	if (st.coalesced != m->coalesced)
		fail("coalesced %llu, model %llu",
		     (unsigned long long)st.coalesced,
		     (unsigned long long)m->coalesced);
	if (st.next_seq != m->next_seq)
		fail("next_seq %llu, model %llu",
		     (unsigned long long)st.next_seq,
		     (unsigned long long)m->next_seq);
	if (R.q.len != m->len)
		fail("%u records, model %u", R.q.len, m->len);
	if (R.q.pend_count != (m->pending ? m->pend_count : 0))
		fail("loss kept aside %llu, model %llu",
		     (unsigned long long)R.q.pend_count,
		     (unsigned long long)(m->pending ? m->pend_count : 0));
	for (i = 0; i < m->len; i++) {
		const struct ib_async_event *k = &kslot(i)->rec;
		const struct mrec *r = &m->r[i];

		if (k->seq != r->seq || k->count != r->count ||
		    k->event_type != r->type || k->port_num != r->port ||
		    k->obj_type != r->obj_type || k->obj_handle != r->handle)
			fail("record %u: seq %llu count %llu type %#x, model seq %llu count %llu type %#x",
			     i, (unsigned long long)k->seq,
			     (unsigned long long)k->count, k->event_type,
			     (unsigned long long)r->seq,
			     (unsigned long long)r->count, r->type);
		if (is_chan() && r->kind != R_OVERFLOW) {
			const struct ib_async_evx *e =
				&R.q.xs[kslot(i)->x - 1];

			if (e->cookie != r->cookie ||
			    e->occurrences != r->occurrences)
				fail("record %u: cookie %llu occ %llu, model %llu %llu",
				     i, (unsigned long long)e->cookie,
				     (unsigned long long)e->occurrences,
				     (unsigned long long)r->cookie,
				     (unsigned long long)r->occurrences);
		}
	}
	if (is_chan())
		return;
	for (o = 1; o <= NOBJ; o++)
		if (R.owners[o].queued != m->queued[o] ||
		    R.owners[o].reported != m->reported[o])
			fail("object %u: queued %u reported %llu, model %u %llu",
			     o, R.owners[o].queued,
			     (unsigned long long)R.owners[o].reported,
			     m->queued[o], (unsigned long long)m->reported[o]);
}

/* Each loss is read, or waits in an overflow record or kept aside. */
static void check_losses(void)
{
	u64 n = R.read_lost + R.q.pend_count;
	u32 i;

	if (R.in_read)
		return;
	/* what a peek returned is read: only the rest of a record counts */
	for (i = 0; i < R.q.len; i++) {
		const struct ib_async_event *k = &kslot(i)->rec;
		u64 end = k->seq + k->count - 1;

		if (k->event_type != IB_ASYNC_EV_OVERFLOW ||
		    end <= R.peeked_end)
			continue;
		n += k->seq > R.peeked_end ? k->count : end - R.peeked_end;
	}
	if (n != R.q.lost)
		fail("%llu losses read or queued, %llu lost",
		     (unsigned long long)n, (unsigned long long)R.q.lost);
}

static void check_resync_asked(void)
{
	if (R.check_model && model_resync_due(&R.m) && !R.resync_asked)
		fail("an overflow awaits a snapshot and none was asked for");
}

static void check_all(void)
{
	if (verbose)
		printf("# %lu %s: len %u pend %llu lost %llu read_lost %llu model len %u\n",
		       step_no, step_what, R.q.len,
		       (unsigned long long)R.q.pend_count,
		       (unsigned long long)R.q.lost,
		       (unsigned long long)R.read_lost, R.m.len);
	if (verbose) {
		u32 i;

		for (i = 0; i < R.q.len; i++)
			printf("#     [%u] seq %llu count %llu type %#x\n", i,
			       (unsigned long long)kslot(i)->rec.seq,
			       (unsigned long long)kslot(i)->rec.count,
			       kslot(i)->rec.event_type);
		if (R.q.pend_count)
			printf("#     kept aside: seq %llu count %llu\n",
			       (unsigned long long)R.q.pend_seq,
			       (unsigned long long)R.q.pend_count);
	}
	check_structure();
	check_losses();
	check_model();
	check_resync_asked();
}

/* ---- operations ------------------------------------------------------ */

static void resync_cb(struct ib_async_evq *q)
{
	(void)q;
	R.resync_asked = true;
}

static const u32 ev_types[] = {
	IB_ASYNC_EV_CQ_ERR, IB_ASYNC_EV_QP_FATAL, IB_ASYNC_EV_SQ_DRAINED,
	IB_ASYNC_EV_PORT_ACTIVE, IB_ASYNC_EV_PORT_ERR,
	IB_ASYNC_EV_GID_CHANGE, IB_ASYNC_EV_SRQ_LIMIT_REACHED,
};

static bool port_event(u32 type)
{
	return type == IB_ASYNC_EV_PORT_ACTIVE || type == IB_ASYNC_EV_PORT_ERR ||
	       type == IB_ASYNC_EV_GID_CHANGE;
}

/* Deliver @ev (of object @o, 0 for none) as the queue's kind does. */
static void push_event(struct ib_async_event *ev, u32 o, u64 cookie)
{
	struct ib_async_evcount *owner = NULL;
	struct mrec mr = { 0 };
	unsigned long irq;

	mr.type = ev->event_type;
	mr.port = ev->port_num;
	mr.obj_type = ev->obj_type;
	mr.handle = ev->obj_handle;
	mr.ts = ev->timestamp_ns;
	mr.last_ns = ev->timestamp_ns;
	mr.occurrences = 1;
	if (!is_chan() && o) {
		owner = &R.owners[o];
		mr.obj = o;
	}
	if (is_chan()) {
		mr.cookie = cookie;
		irq = ib_async_evq_lock(&R.q);
		ib_async_evq_push_chan_locked(&R.q, ev, cookie);
		ib_async_evq_unlock(&R.q, irq, true);
	} else if (R.kind == K_COMP &&
		   ev->event_type != IB_ASYNC_EV_DEVICE_FATAL) {
		ib_async_evq_push_once(&R.q, ev, owner);
	} else {
		ib_async_evq_push(&R.q, ev, owner);
	}
	model_push(&R.m, &mr);
}

static void op_push(bool fatal)
{
	struct ib_async_event ev = { 0 };
	u32 o = 0;

	step_what = fatal ? "DEVICE_FATAL" : "event";
	ev.timestamp_ns = kshim_now();
	if (fatal) {
		ev.event_type = IB_ASYNC_EV_DEVICE_FATAL;
		ev.obj_type = IB_ASYNC_OBJ_PORT;
	} else if (R.kind == K_COMP) {
		o = 1 + pick(NOBJ);
		ev.event_type = IB_ASYNC_EV_COMP;
		ev.obj_type = R.obj_type[o];
		ev.obj_handle = R.handle[o];
		ev.element = R.handle[o];
	} else {
		ev.event_type = ev_types[pick(sizeof(ev_types) /
					      sizeof(ev_types[0]))];
		if (port_event(ev.event_type)) {
			ev.obj_type = IB_ASYNC_OBJ_PORT;
			ev.port_num = 1 + pick(R.nports);
			ev.element = ev.port_num;
		} else {
			o = 1 + pick(NOBJ);
			ev.obj_type = R.obj_type[o];
			ev.obj_handle = R.handle[o];
			ev.element = R.handle[o];
		}
	}
	push_event(&ev, o, 1 + pick(2));
}

/*
 * A snapshot of @n records, of @ports with @cookies: SUB_STATE's, or a
 * resync's (@resync). Return: what the reserve gave.
 */
static int snapshot(const u32 *ports, const u64 *cookies, u32 n, bool resync)
{
	u64 first = 0;
	struct ib_async_port_state st[MAXPORTS + 1];
	struct model *m = &R.m;
	u32 flags = resync ? IB_ASYNC_STATE_RESYNC : 0;
	unsigned long irq;
	int ret, want;
	u32 i;

	if (resync)
		R.resync_asked = false;
	ib_async_evq_state_begin(&R.q);
	irq = ib_async_evq_lock(&R.q);
	ret = ib_async_evq_state_reserve(&R.q, ports, cookies, n, flags,
					 &first);
	ib_async_evq_unlock(&R.q, irq, false);
	/* the model's answer */
	if (m->ended)
		want = -EIO;
	else if (resync && !m->resync_wanted)
		want = -EALREADY;
	else if (resync && !n)
		want = -ENOENT;
	else if (!n || m->nstate + n > m->state_slots || m->pending)
		want = -EBUSY;
	else
		want = 0;
	if (resync && want == -ENOENT)
		m->resync_wanted = false;
	if (R.check_model && ret != want)
		fail("state reserve of %u records: %d, model %d", n, ret,
		     want);
	if (!ret) {
		if (resync)
			m->resync_wanted = false;
		for (i = 0; i < n; i++) {
			struct mrec s = {
				.kind = R_STATE, .type = IB_ASYNC_EV_STATE,
				.obj_type = IB_ASYNC_OBJ_PORT,
				.port = ports[i], .cookie = cookies[i],
				.occurrences = 1,
				.sflags = flags |
					  (i == n - 1 ? IB_ASYNC_STATE_LAST : 0),
			};

			s.seq = first + i;
			s.count = 1;
			model_append(m, &s);
			m->nstate++;
			memset(&st[i], 0, sizeof(st[i]));
			/* what the reader checks the record by */
			st[i].lid = (u32)s.seq;
			st[i].sm_lid = ports[i];
		}
		if (R.check_model && first != m->next_seq)
			fail("snapshot's first seq %llu, model %llu",
			     (unsigned long long)first,
			     (unsigned long long)m->next_seq);
		m->next_seq = first + n;
		ib_async_evq_state_fill(&R.q, first, st, n);
	}
	ib_async_evq_state_end(&R.q);
	return ret;
}

/* SUB_STATE's snapshot (some ports) or a resync's (most often all). */
static void op_snapshot(bool resync)
{
	u32 ports[MAXPORTS + 1], i, n = 0;
	u64 cookies[MAXPORTS + 1];

	step_what = resync ? "resync" : "snapshot";
	for (i = 0; i <= R.nports; i++)
		if (resync ? !chance(10) : chance(50)) {
			ports[n] = i;
			cookies[n++] = 1 + pick(2);
		}
	snapshot(ports, cookies, n, resync);
}

static void op_resize(void)
{
	u32 cap = 1 + pick(chance(10) ? 8 : 4);
	struct model *m = &R.m;
	u32 nover = 0, i, room = model_room(m);
	int ret, want;

	step_what = "resize";
	for (i = 0; i < m->len; i++)
		nover += m->r[i].kind == R_OVERFLOW;
	ret = ib_async_evq_resize(&R.q, cap);
	if (m->dead)
		want = -ENODEV;
	else if (m->ended)
		want = -EBUSY;
	else if (room <= cap ||
		 (room == cap + 1 && m->len &&
		  m->r[m->len - 1].kind == R_OVERFLOW))
		want = 0;
	else
		want = -EBUSY;
	if (R.check_model && ret != want)
		fail("resize %u -> %u: %d, model %d", m->cap, cap, ret, want);
	if (!ret) {
		m->cap = cap;
		model_flush(m, false);
	}
}

static void op_purge(void)
{
	struct model *m = &R.m;
	u32 o = 1 + pick(NOBJ), i, w = 0;

	if (R.kind == K_COMP && !chance(30))
		return;
	step_what = "purge";
	if (is_chan())
		ib_async_evq_purge_obj(&R.q, R.obj_type[o], R.handle[o]);
	else
		ib_async_evq_purge(&R.q, &R.owners[o]);
	for (i = 0; i < m->len; i++) {
		struct mrec *r = &m->r[i];

		if (r->kind == R_EVENT && r->obj_type == R.obj_type[o] &&
		    r->handle == R.handle[o]) {
			if (r->obj)
				m->queued[r->obj]--;
			continue;
		}
		m->r[w++] = *r;
	}
	m->len = w;
	model_flush(m, false);
	/* the object is gone: a new one takes its place, with a new handle */
	if (!is_chan()) {
		if (R.owners[o].queued)
			fail("purged object %u still has %u queued", o,
			     R.owners[o].queued);
		memset(&R.owners[o], 0, sizeof(R.owners[o]));
		m->reported[o] = 0;
	}
	R.handle[o] = R.next_handle++;
}

/* The model's snapshot of a read's chunk: after @after, up to @max. */
static u32 model_chunk(u64 after, u32 max, struct mrec *out)
{
	struct model *m = &R.m;
	u32 i, n = 0;

	for (i = 0; i < m->len && m->r[i].seq <= after; i++)
		;
	for (; i < m->len && n < max; i++) {
		out[n] = m->r[i];
		/* a copied record no longer merges */
		m->r[i].copied = true;
		n++;
	}
	return n;
}

/* evq_settle() as the model has it: what of the chunk the reader keeps. */
static u32 model_settle(void)
{
	struct model *m = &R.m;
	u32 i, at = 0;

	if (R.in_peek) {
		for (at = 0; at < m->len && m->r[at].seq <= R.rd_snap[0].seq - 1;
		     at++)
			;
	}
	for (i = 0; i < R.rd_n && at < m->len; i++) {
		struct mrec *r = &m->r[at];
		const struct mrec *seen = &R.rd_snap[i];

		if (r->seq != seen->seq)
			break;
		if (r->count != seen->count) {
			if (!R.in_peek) {
				r->count -= seen->count;
				r->seq += seen->count;
			}
			i++;
			break;
		}
		if (R.in_peek) {
			at++;
			continue;
		}
		model_pop(m);
	}
	return i;
}

static void model_consume_through(u64 seq)
{
	struct model *m = &R.m;

	while (m->len) {
		struct mrec *r = &m->r[0];

		if (r->seq + r->count - 1 > seq) {
			if (r->seq <= seq) {
				r->count -= seq - r->seq + 1;
				r->seq = seq + 1;
			}
			break;
		}
		model_pop(m);
	}
}

/* The reader's chunk settled in the model (the kernel did before). */
static void settle_chunk(void)
{
	u32 k, i;

	if (!R.rd_n)
		return;
	k = model_settle();
	for (i = 0; i < k; i++) {
		if (R.rd_returned >= 64)
			fail("reader returned too much");
		R.rd_out[R.rd_returned++] = R.rd_snap[i];
	}
	if (k)
		R.rd_after = R.rd_snap[k - 1].seq;
	R.rd_n = 0;
}

static void concurrent_ops(bool producers_only);

/* The kernel copies a chunk out: compare it with the model's, then race. */
static void hook_copy(void *to, const void *from, unsigned long n)
{
	u32 cnt = n / rec_size(), i;
	struct mrec want[32];
	u32 wn;

	(void)to;
	if (!R.in_read)
		fail("copy to user outside a read");
	settle_chunk();
	wn = model_chunk(R.rd_after, cnt, want);
	if (R.check_model && wn != cnt) {
		for (i = 0; i < R.q.len; i++)
			printf("# kernel [%u] seq %llu type %#x\n", i,
			       (unsigned long long)kslot(i)->rec.seq,
			       kslot(i)->rec.event_type);
		for (i = 0; i < R.m.len; i++)
			printf("# model [%u] seq %llu type %#x\n", i,
			       (unsigned long long)R.m.r[i].seq, R.m.r[i].type);
		printf("# after %llu\n", (unsigned long long)R.rd_after);
		fail("read copies %u records, model %u", cnt, wn);
	}
	for (i = 0; i < cnt && i < 32; i++) {
		const struct ib_async_event *k =
			(const void *)((const char *)from + i * rec_size());

		if (R.check_model && (k->seq != want[i].seq ||
				      k->count != want[i].count ||
				      k->event_type != want[i].type))
			fail("copy %u: seq %llu count %llu type %#x, model %llu %llu %#x",
			     i, (unsigned long long)k->seq,
			     (unsigned long long)k->count, k->event_type,
			     (unsigned long long)want[i].seq,
			     (unsigned long long)want[i].count,
			     want[i].type);
	}
	memcpy(R.rd_snap, want, wn * sizeof(want[0]));
	R.rd_n = wn;
	if (R.hook_depth == 0 && chance(30)) {
		R.hook_depth++;
		concurrent_ops(false);
		R.hook_depth--;
	}
	/* a copy that faults: nothing of it is returned or consumed */
	if (R.hook_depth == 0 && chance(3)) {
		fault_next_copy = true;
		R.rd_n = 0;	/* nothing of it is settled */
	}
}

static void hook_resched(void)
{
	if (R.hook_depth)
		return;
	/* between a reader's chunks: the last one is settled */
	if (R.in_read)
		settle_chunk();
	/* or a purge between chunks: only producers run meanwhile */
	if (chance(50)) {
		R.hook_depth++;
		concurrent_ops(true);
		R.hook_depth--;
	}
}

/* What the user got: each record in order, once, and true to its kind. */
static void check_read(const char *buf, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		const struct ib_async_event *k =
			(const void *)(buf + (size_t)i * rec_size());

		if (verbose)
			printf("#   got seq %llu count %llu type %#x%s\n",
			       (unsigned long long)k->seq,
			       (unsigned long long)k->count, k->event_type,
			       R.in_peek ? " (peek)" : "");
		if (k->seq <= R.last_seq_end)
			fail("record seq %llu read after seq %llu",
			     (unsigned long long)k->seq,
			     (unsigned long long)R.last_seq_end);
		if (!k->count)
			fail("record seq %llu with count 0",
			     (unsigned long long)k->seq);
		if (k->event_type == IB_ASYNC_EV_OVERFLOW) {
			R.read_lost += k->count;
		} else if (k->count != 1) {
			fail("event seq %llu with count %llu",
			     (unsigned long long)k->seq,
			     (unsigned long long)k->count);
		}
		if (k->event_type == IB_ASYNC_EV_STATE) {
			const struct ib_async_chan_state_event *se =
				(const void *)k;

			if (se->state.lid != (u32)k->seq ||
			    se->state.sm_lid != k->port_num)
				fail("state record seq %llu port %u carries lid %u port %u",
				     (unsigned long long)k->seq, k->port_num,
				     se->state.lid, se->state.sm_lid);
		}
		R.last_seq_end = k->seq + k->count - 1;
		R.read_records++;
	}
}

static void op_read(void)
{
	static char buf[64 * 128];
	u32 want = 1 + pick(chance(20) ? 40 : 4);
	bool peek = is_chan() && chance(25);
	u64 consume = 0;
	ssize_t ret;
	u32 i;

	step_what = peek ? "peek" : "read";
	if (R.peeked_end) {
		consume = R.peeked_end;
		/* the next read consumes what the last peek returned */
		model_consume_through(consume);
		R.peeked_end = 0;
	}
	if (want > 64)
		want = 64;
	R.in_read = true;
	R.in_peek = peek;
	R.rd_after = 0;
	R.rd_n = 0;
	R.rd_returned = 0;
	ret = ib_async_evq_read_batch(&R.q, consume, (char __user *)buf, want,
				      true, peek);
	settle_chunk();
	R.in_read = false;
	if (ret < 0) {
		if (R.rd_returned && R.check_model)
			fail("read failed (%zd) but the model returned %u",
			     ret, R.rd_returned);
		if (ret != -EAGAIN && ret != -EFAULT && ret != -ENODEV &&
		    ret != -EIO)
			fail("read: %zd", ret);
		if (ret == -EAGAIN && R.check_model && R.m.len)
			fail("read: EAGAIN with %u records queued", R.m.len);
		return;
	}
	if (R.check_model && (u32)ret != R.rd_returned)
		fail("read returned %zd, model %u", ret, R.rd_returned);
	for (i = 0; i < (u32)ret && R.check_model; i++) {
		const struct ib_async_event *k =
			(const void *)(buf + (size_t)i * rec_size());

		if (k->seq != R.rd_out[i].seq)
			fail("read record %u: seq %llu, model %llu", i,
			     (unsigned long long)k->seq,
			     (unsigned long long)R.rd_out[i].seq);
	}
	/* peeked records are the user's: the next read consumes them */
	check_read(buf, (u32)ret);
	if (peek && ret)
		R.peeked_end = R.last_seq_end;
}

static void concurrent_ops(bool producers_only)
{
	u32 n = 1 + pick(3), i;

	if (verbose)
		printf("#   (during a copy or purge: %u ops%s)\n", n,
		       producers_only ? ", producers" : "");
	for (i = 0; i < n; i++) {
		u32 c = pick(100);

		if (verbose)
			printf("#   op %u: %u\n", i, c);
		if (producers_only || c < 70)
			op_push(false);
		else if (c < 80 && (R.kind == K_STATE || R.kind == K_RESYNC))
			op_snapshot(false);
		else if (c < 90)
			op_purge();
		else
			op_resize();
	}
}

/* ---- a run ----------------------------------------------------------- */

static void run_init(u64 seed, bool invariants)
{
	static const unsigned int kflags[K_NR] = {
		[K_NODE] = 0,
		[K_COMP] = IB_ASYNC_EVQ_COMP,
		[K_CHAN] = IB_ASYNC_EVQ_CHAN,
		[K_COALESCE] = IB_ASYNC_EVQ_CHAN | IB_ASYNC_EVQ_COALESCE,
		[K_STATE] = IB_ASYNC_EVQ_CHAN | IB_ASYNC_EVQ_STATE,
		[K_RESYNC] = IB_ASYNC_EVQ_CHAN | IB_ASYNC_EVQ_STATE |
			     IB_ASYNC_EVQ_RESYNC,
	};
	u32 o, cap;

	memset(&R, 0, sizeof(R));
	run_seed = seed;
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	rnd();
	R.kind = pick(K_NR);
	/* state channels are what broke: give them more runs */
	if (chance(40))
		R.kind = chance(50) ? K_STATE : K_RESYNC;
	R.flags = kflags[R.kind];
	R.nports = 1 + pick(MAXPORTS);
	R.check_model = !invariants;
	cap = chance(3) ? 260 + pick(40) : 1 + pick(chance(20) ? 8 : 3);
	if (ib_async_evq_init(&R.q, cap, &R.stats, R.flags,
			      R.flags & IB_ASYNC_EVQ_STATE ? R.nports + 1 : 0,
			      NULL))
		fail("init");
	R.q.resync = resync_cb;
	R.m.cap = cap;
	R.m.state_slots = R.flags & IB_ASYNC_EVQ_STATE ? R.nports + 1 : 0;
	R.m.next_seq = 1;
	R.next_handle = 1;
	for (o = 1; o <= NOBJ; o++) {
		R.obj_type[o] = o & 1 && R.kind != K_COMP ? IB_ASYNC_OBJ_QP :
							   IB_ASYNC_OBJ_CQ;
		R.handle[o] = R.next_handle++;
	}
}

/* Read everything left, then check the run's totals. */
static void run_drain(void)
{
	u32 tries;

	step_what = "drain";
	for (tries = 0; tries < 100000 && (R.q.len || R.peeked_end ||
					  R.q.pend_count); tries++) {
		R.hook_depth = 1;	/* nothing races the drain */
		op_read();
		R.hook_depth = 0;
		check_all();
	}
	if (R.q.len || R.q.pend_count)
		fail("queue does not drain: %u records", R.q.len);
	if (R.read_lost != R.q.lost)
		fail("overflow records read count %llu lost, the queue %llu",
		     (unsigned long long)R.read_lost,
		     (unsigned long long)R.q.lost);
}

static void run_one(u64 seed, u32 steps, bool invariants)
{
	u32 i, c;

	run_init(seed, invariants);
	check_all();
	for (i = 0; i < steps; i++) {
		step_no = i;
		c = pick(1000);
		if (c < 450)
			op_push(false);
		else if (c < 700)
			op_read();
		else if (c < 800 && R.flags & IB_ASYNC_EVQ_STATE)
			op_snapshot(false);
		else if (c < 850 && R.resync_asked)
			op_snapshot(true);
		else if (c < 900)
			op_purge();
		else if (c < 950)
			op_resize();
		else if (c < 951 && chance(20))
			op_push(true);
		check_all();
	}
	step_no = steps;
	if (chance(50)) {
		step_what = "shutdown";
		ib_async_evq_shutdown(&R.q, kshim_now());
		if (!R.m.ended) {
			struct mrec d = {
				.type = IB_ASYNC_EV_DEVICE_FATAL,
				.obj_type = IB_ASYNC_OBJ_PORT,
				.occurrences = 1,
			};

			model_push(&R.m, &d);
		}
		R.m.dead = true;
	} else {
		step_what = "close";
		ib_async_evq_close(&R.q, -EIO);
		R.m.ended = true;
		R.m.dead = true;
	}
	check_all();
	run_drain();
	ib_async_evq_destroy(&R.q);
}

/* What the reader gets, as (seq, count, type) triples. */
struct want_rec {
	u64 seq;
	u64 count;
	u32 type;
};

/*
 * Issue #43's recipe, exactly: a state queue of one event on one port;
 * one event queued; three rounds of a loss and a SUB_STATE on the port.
 * Before the fix the second overflow record overran the ring.
 */
static void run_recipe(u32 nports)
{
	static const struct want_rec want[] = {
		{ 1, 1, IB_ASYNC_EV_CQ_ERR },
		{ 2, 1, IB_ASYNC_EV_OVERFLOW },
		{ 3, 1, IB_ASYNC_EV_STATE },
		{ 4, 2, IB_ASYNC_EV_OVERFLOW },
	};
	static const int sub_ret[] = { 0, -EBUSY, -EBUSY };
	struct ib_async_event ev = {
		.event_type = IB_ASYNC_EV_CQ_ERR,
		.obj_type = IB_ASYNC_OBJ_CQ,
	};
	struct ib_async_chan_state_event out[8];
	struct ib_async_evq_stat st;
	u32 port = 1, round, i;
	u64 cookie = 7;
	ssize_t n;

	memset(&R, 0, sizeof(R));
	run_seed = 0;
	step_what = "recipe";
	R.kind = K_STATE;
	R.flags = IB_ASYNC_EVQ_CHAN | IB_ASYNC_EVQ_STATE;
	R.nports = nports;
	R.check_model = true;
	R.next_handle = 1;
	R.obj_type[1] = IB_ASYNC_OBJ_CQ;
	R.handle[1] = R.next_handle++;
	ev.obj_handle = R.handle[1];
	ev.element = R.handle[1];
	if (ib_async_evq_init(&R.q, 1, &R.stats, R.flags, nports + 1, NULL))
		fail("init");
	R.m.cap = 1;
	R.m.state_slots = nports + 1;
	R.m.next_seq = 1;
	ev.timestamp_ns = kshim_now();
	push_event(&ev, 1, cookie);
	check_all();
	for (round = 0; round < 3; round++) {
		step_no = round;
		ev.timestamp_ns = kshim_now();
		push_event(&ev, 1, cookie);	/* lost: the queue is full */
		check_all();
		if (nports > 1)
			port = 1 + round % nports;
		if (snapshot(&port, &cookie, 1, false) != sub_ret[round])
			fail("round %u: SUB_STATE gave not %d", round,
			     sub_ret[round]);
		check_all();
	}
	ib_async_evq_stat(&R.q, &st);
	if (st.queued != 4 || st.lost != 3)
		fail("queued %u lost %llu, not 4 and 3", st.queued,
		     (unsigned long long)st.lost);
	R.in_read = true;
	R.hook_depth = 1;
	n = ib_async_evq_read_batch(&R.q, 0, (char __user *)out, 8, true,
				    false);
	settle_chunk();
	R.in_read = false;
	if (n != 4)
		fail("read %zd records, not 4", n);
	for (i = 0; i < 4; i++)
		if (out[i].rec.event.seq != want[i].seq ||
		    out[i].rec.event.count != want[i].count ||
		    out[i].rec.event.event_type != want[i].type)
			fail("record %u: seq %llu count %llu type %#x", i,
			     (unsigned long long)out[i].rec.event.seq,
			     (unsigned long long)out[i].rec.event.count,
			     out[i].rec.event.event_type);
	check_read((const char *)out, (u32)n);
	if (out[2].state.flags != IB_ASYNC_STATE_LAST ||
	    out[2].rec.cookie != cookie)
		fail("the state record: flags %#x cookie %llu",
		     out[2].state.flags,
		     (unsigned long long)out[2].rec.cookie);
	check_all();
	n = ib_async_evq_read_batch(&R.q, 0, (char __user *)out, 8, true,
				    false);
	if (n != -EAGAIN)
		fail("the emptied queue reads %zd", n);
	ib_async_evq_destroy(&R.q);
}

int main(int argc, char **argv)
{
	u64 seed = 1, runs = 2000, steps = 500, r, ops = 0;
	bool invariants = false, recipe = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--invariants"))
			invariants = true;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (!strcmp(argv[i], "--recipe"))
			recipe = true;
		else if (!strcmp(argv[i], "--tap") && i + 1 < argc)
			tap_num = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--recipe] [--seed N] [--runs N] [--steps N] [--invariants] [--tap N] [--verbose]\n",
				argv[0]);
			return 2;
		}
	}
	if (recipe) {
		run_recipe(1);
		run_recipe(2);
		printf("ok %d - issue 43's recipe on one port and on two: E, O(1), S, O(2), 3 lost, SUB_STATE 0, EBUSY, EBUSY\n",
		       tap_num);
		return 0;
	}
	for (r = 0; r < runs; r++) {
		run_one(seed + r, steps, invariants);
		ops += steps;
		if (verbose)
			printf("# run %llu: %s cap %u ports %u\n",
			       (unsigned long long)(seed + r),
			       kind_name[R.kind], R.m.cap, R.nports);
	}
	printf("ok %d - %llu runs from seed %llu, %llu operations%s\n",
	       tap_num, (unsigned long long)runs, (unsigned long long)seed,
	       (unsigned long long)ops,
	       invariants ? " (invariants only)" : " against the model");
	return 0;
}

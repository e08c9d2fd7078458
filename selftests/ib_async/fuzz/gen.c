// SPDX-License-Identifier: GPL-2.0
/*
 * Valid arguments: one builder per command fills the structure as a
 * careful program would, from the objects the workers made (so calls reach
 * deep states: QPs walked through INIT, RTR and RTS, traffic between the
 * workers' own QPs, small CQs and SRQ limits), and one handler per command
 * learns from a success (new handles, QP states) and checks what the
 * kernel answered. Mutations are worker.c's business.
 *
 * A builder that needs an object nobody made yet builds the command that
 * makes it instead; one that should not run here (a data-path call in a
 * process that cannot use the data path, most WQ calls on rxe) returns
 * false and the worker picks another command.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "fuzz.h"
/* the kernel's own table of what each send opcode and QP type take */
#include "lib/iba_send_rules.h"

/* The Q_Key every UD QP gets, so any UD QP can send to any other. */
#define FZ_QKEY		0x11111111u

/* Robust: a worker process that died holding the lock hands it on. */
void fz_lock(struct fz_shared *sh)
{
	if (pthread_mutex_lock(&sh->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&sh->lock);
}

void fz_unlock(struct fz_shared *sh)
{
	pthread_mutex_unlock(&sh->lock);
}

uint32_t fz_dev_of(struct fz_ctx *ctx, uint32_t slot)
{
	return ctx->sh->file[slot].dev;
}

static const struct fz_dev *dev_of(struct fz_ctx *ctx, uint32_t slot)
{
	return &ctx->sh->dev[fz_dev_of(ctx, slot)];
}

static bool on_rxe(struct fz_ctx *ctx, uint32_t slot)
{
	return dev_of(ctx, slot)->kind == FZ_DEV_RXE;
}

/* A new file in the slot: handles start again at 1. */
void fz_file_reset(struct fz_file *f)
{
	f->nobj = 0;
	f->seen_seq = 0;
	memset(f->stale, 0, sizeof(f->stale));
	f->stale_next = 0;
	memset(f->gone_untracked, 0, sizeof(f->gone_untracked));
	f->gone_untracked_next = 0;
}

/* Whether @handle is in @ring; if so, and @take, it leaves the ring. */
static bool in_ring(uint32_t *ring, uint32_t handle, bool take)
{
	uint32_t i;

	for (i = 0; i < FZ_MAX_STALE; i++) {
		if (ring[i] != handle)
			continue;
		if (take)
			ring[i] = 0;
		return true;
	}
	return false;
}

/*
 * Whether the call in flight went to the file the table describes: its
 * descriptor was the current file when the call was set up (ctx->gen,
 * see worker.c) and no worker has reopened the slot since. Checked under
 * the lock, which reopening holds.
 */
static bool current_gen(struct fz_ctx *ctx, uint32_t slot)
{
	return ctx->gen && ctx->gen == ctx->sh->file[slot].gen;
}

/* current_gen() for a caller without the lock. */
bool fz_same_file(struct fz_ctx *ctx, uint32_t slot)
{
	bool same;

	fz_lock(ctx->sh);
	same = current_gen(ctx, slot);
	fz_unlock(ctx->sh);
	return same;
}

/* What a pick wants of an object: its type (0: any), and -1 or a value. */
struct fz_want {
	uint32_t type;
	int qp_type, state;	/* QP: IB_UVERBS_QPT_*, QPS_* */
	int ring;		/* CQ: 1 with a completion ring, 0 without */
};

static bool wanted(const struct fz_obj *o, const struct fz_want *w)
{
	return (!w->type || o->type == w->type) &&
	       (w->qp_type < 0 || o->qp_type == w->qp_type) &&
	       (w->state < 0 || o->state == w->state) &&
	       (w->ring < 0 || !o->ring == !w->ring);
}

/* One of the slot's objects that @w wants, each as likely. */
static bool pick_wanted(struct fz_ctx *ctx, uint32_t slot,
			const struct fz_want *w, struct fz_obj *out)
{
	struct fz_file *f = &ctx->sh->file[slot];
	uint32_t i, n = 0, want;
	bool found = false;

	fz_lock(ctx->sh);
	for (i = 0; i < f->nobj; i++)
		n += wanted(&f->obj[i], w);
	want = fz_below(&ctx->rng, n);
	for (i = 0; n && i < f->nobj; i++) {
		if (!wanted(&f->obj[i], w) || want--)
			continue;
		*out = f->obj[i];
		found = true;
		break;
	}
	fz_unlock(ctx->sh);
	return found;
}

bool fz_pick_obj(struct fz_ctx *ctx, uint32_t slot, uint32_t type,
		 struct fz_obj *out)
{
	const struct fz_want w = { .type = type, .qp_type = -1, .state = -1,
				   .ring = -1 };

	return pick_wanted(ctx, slot, &w, out);
}

/*
 * A QP, preferring one of @qp_type (-1: any) in @state (-1: any); any QP
 * will do when none matches, one time in four even when one does.
 */
bool fz_pick_qp(struct fz_ctx *ctx, uint32_t slot, int qp_type, int state,
		struct fz_obj *out)
{
	const struct fz_want w = { .type = IB_ASYNC_OBJ_QP,
				   .qp_type = qp_type, .state = state,
				   .ring = -1 };

	if (fz_chance(&ctx->rng, 25))
		return fz_pick_obj(ctx, slot, IB_ASYNC_OBJ_QP, out);
	return pick_wanted(ctx, slot, &w, out) ||
	       fz_pick_obj(ctx, slot, IB_ASYNC_OBJ_QP, out);
}

/* A CQ with a completion ring (@ring) or without; any CQ if none is. */
static bool pick_cq(struct fz_ctx *ctx, uint32_t slot, bool ring,
		    struct fz_obj *out)
{
	const struct fz_want w = { .type = IB_ASYNC_OBJ_CQ, .qp_type = -1,
				   .state = -1, .ring = ring };

	return pick_wanted(ctx, slot, &w, out) ||
	       fz_pick_obj(ctx, slot, IB_ASYNC_OBJ_CQ, out);
}

void fz_obj_add(struct fz_ctx *ctx, uint32_t slot, const struct fz_obj *o)
{
	struct fz_file *f = &ctx->sh->file[slot];
	uint32_t i;

	if (!o->handle) {
		fz_report(ctx, "handle-zero", "a create returned handle 0");
		return;
	}
	fz_lock(ctx->sh);
	if (!current_gen(ctx, slot)) {
		fz_unlock(ctx->sh);
		return;
	}
	for (i = 0; i < f->nobj; i++)
		if (f->obj[i].handle == o->handle)
			break;
	if (i < f->nobj) {
		fz_unlock(ctx->sh);
		fz_report(ctx, "handle-reused",
			  "a create returned handle %u, which is live", o->handle);
		return;
	}
	if (in_ring(f->stale, o->handle, false)) {
		fz_unlock(ctx->sh);
		fz_report(ctx, "handle-reused",
			  "a create returned handle %u, which was destroyed",
			  o->handle);
		return;
	}
	/*
	 * Another worker's DESTROY of a guessed handle got in between this
	 * CREATE's return and now: the object is gone, and any later CREATE
	 * returning the handle again is a reuse.
	 */
	if (in_ring(f->gone_untracked, o->handle, true)) {
		f->stale[f->stale_next++ % FZ_MAX_STALE] = o->handle;
		fz_trace(ctx, "add slot %u gen %u handle %u: destroyed already",
			 slot, f->gen, o->handle);
		fz_unlock(ctx->sh);
		return;
	}
	if (f->nobj < FZ_MAX_OBJS)
		f->obj[f->nobj++] = *o;
	fz_trace(ctx, "add slot %u gen %u handle %u type %u", slot, f->gen,
		 o->handle, o->type);
	fz_unlock(ctx->sh);
}

/* Forget a destroyed object; *@gone is what the table said of it, if any. */
bool fz_obj_del(struct fz_ctx *ctx, uint32_t slot, uint32_t handle,
		struct fz_obj *gone)
{
	struct fz_file *f = &ctx->sh->file[slot];
	bool found = false;
	uint32_t i;

	fz_lock(ctx->sh);
	if (!current_gen(ctx, slot)) {
		fz_unlock(ctx->sh);
		return false;
	}
	for (i = 0; i < f->nobj; i++) {
		if (f->obj[i].handle != handle)
			continue;
		*gone = f->obj[i];
		found = true;
		f->obj[i] = f->obj[--f->nobj];
		break;
	}
	if (found)
		f->stale[f->stale_next++ % FZ_MAX_STALE] = handle;
	else
		f->gone_untracked[f->gone_untracked_next++ % FZ_MAX_STALE] =
			handle;
	fz_trace(ctx, "del slot %u gen %u handle %u%s", slot, f->gen, handle,
		 found ? "" : " (not in the table)");
	fz_unlock(ctx->sh);
	return found;
}

/*
 * The table's object @handle, if the call in flight went to the file the
 * table describes (current_gen()); the caller holds the lock.
 */
static struct fz_obj *find_obj(struct fz_ctx *ctx, uint32_t slot,
			       uint32_t handle)
{
	struct fz_file *f = &ctx->sh->file[slot];
	uint32_t i;

	if (!current_gen(ctx, slot))
		return NULL;
	for (i = 0; i < f->nobj; i++)
		if (f->obj[i].handle == handle)
			return &f->obj[i];
	return NULL;
}

void fz_obj_set_state(struct fz_ctx *ctx, uint32_t slot, uint32_t handle,
		      uint8_t state, uint32_t port)
{
	bool rx = state >= QPS_RTR && state <= QPS_SQE;
	struct fz_obj *o;

	fz_lock(ctx->sh);
	o = find_obj(ctx, slot, handle);
	if (o) {
		if (o->rx && !rx)
			o->quiet_ms = (uint32_t)fz_now_ms();
		o->rx = rx;
		o->state = state;
		if (port)
			o->port = port;
	}
	fz_unlock(ctx->sh);
}

/* A handle of another file: a handle there may be anything here. */
uint32_t fz_foreign_handle(struct fz_ctx *ctx, uint32_t slot)
{
	uint32_t other = fz_below(&ctx->rng, ctx->sh->nfiles);
	struct fz_obj o;

	if (other == slot || !fz_pick_obj(ctx, other, 0, &o))
		return fz_range(&ctx->rng, 1, 64);
	return o.handle;
}

uint32_t fz_stale_handle(struct fz_ctx *ctx, uint32_t slot)
{
	struct fz_file *f = &ctx->sh->file[slot];
	uint32_t h;

	fz_lock(ctx->sh);
	h = f->stale[fz_below(&ctx->rng, FZ_MAX_STALE)];
	fz_unlock(ctx->sh);
	return h ? h : fz_range(&ctx->rng, 1, 1000);
}

/* A QP number on the device: another QP of the workers' (any file). */
static uint32_t pick_qpn(struct fz_ctx *ctx, uint32_t slot, int qp_type)
{
	uint32_t dev = fz_dev_of(ctx, slot), i, other;
	struct fz_obj o;

	for (i = 0; i < 3; i++) {
		other = fz_below(&ctx->rng, ctx->sh->nfiles);
		if (fz_dev_of(ctx, other) != dev)
			continue;
		if (fz_pick_qp(ctx, other, qp_type, -1, &o))
			return o.qpn;
	}
	return fz_chance(&ctx->rng, 50) ? 1 : fz_range(&ctx->rng, 2, 0xffffff);
}

void fz_build_av(struct fz_ctx *ctx, uint32_t slot, struct ib_async_av *av)
{
	const struct fz_dev *d = dev_of(ctx, slot);
	struct fz_rng *r = &ctx->rng;

	memset(av, 0, sizeof(*av));
	av->port_num = fz_range(r, 1, d->ports);
	av->sl = fz_chance(r, 90) ? 0 : fz_below(r, 16);
	if (d->kind == FZ_DEV_RXE) {
		/* RoCE: the GRH, to our own GID, so rxe loops it back */
		av->is_global = 1;
		av->sgid_index = d->gid_index >= 0 && fz_chance(r, 90) ?
				 (uint32_t)d->gid_index : fz_below(r, 4);
		memcpy(av->dgid, d->gid, sizeof(av->dgid));
		av->hop_limit = fz_chance(r, 90) ? 64 : fz_below(r, 256);
		if (fz_chance(r, 10))
			av->traffic_class = fz_below(r, 256);
		if (fz_chance(r, 10))
			av->flow_label = fz_below(r, 1 << 20);
		return;
	}
	av->dlid = fz_range(r, 1, 0xbfff);
	if (fz_chance(r, 30)) {
		av->is_global = 1;
		av->dgid[0] = 0xfe;
		av->dgid[1] = 0x80;
		av->dgid[15] = fz_below(r, 256);
		av->hop_limit = 64;
	}
}

/*
 * An address in the worker's data area with room for @len bytes; one
 * time in ten misaligned. An @len larger than the area runs into the
 * guard page behind it.
 */
uint64_t fz_valid_uptr(struct fz_ctx *ctx, uint64_t len)
{
	uint64_t room = len < FZ_DATA_LEN ? FZ_DATA_LEN - len : 0;
	uint64_t off = fz_below(&ctx->rng, (uint32_t)(room / 8 + 1)) * 8;

	if (off && fz_chance(&ctx->rng, 10))
		off -= fz_range(&ctx->rng, 1, 7);
	return (uint64_t)(uintptr_t)(ctx->data + off);
}

/*
 * Where the kernel copies a call's answer (records, completions) or a
 * message from: mostly the worker's data area, sometimes memory whose
 * every fault the process answers late, so the copy stalls for a while
 * (the kernel makes it with no lock held).
 */
uint64_t fz_out_uptr(struct fz_ctx *ctx, uint64_t len)
{
	if (fz_mem.slow && len <= FZ_SLOW_LEN && fz_chance(&ctx->rng, 5))
		return (uintptr_t)fz_mem.slow +
		       fz_below(&ctx->rng, (uint32_t)(FZ_SLOW_LEN - len + 1));
	return fz_valid_uptr(ctx, len);
}

/*
 * An address the kernel must refuse, or that faults part-way through
 * @len bytes. With @later the kernel writes it at another worker's call
 * (a receive's buffer, written at POLL_CQ), so it must not be memory a
 * worker reads: the data areas are left out then.
 */
uint64_t fz_bad_uptr(struct fz_ctx *ctx, uint64_t len, bool later)
{
	uint32_t tail = fz_range(&ctx->rng, 1, len < FZ_PAGE && len ?
				 (uint32_t)len : FZ_PAGE);

	switch (fz_below(&ctx->rng, 9)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)fz_mem.hole;
	case 2:
		return (uintptr_t)fz_mem.guard;
	case 3:	/* the last bytes before a guard page */
		if (later)
			return (uintptr_t)fz_mem.volat + fz_mem.volat_len - tail;
		return (uintptr_t)(ctx->data + FZ_DATA_LEN - tail);
	case 4:
		return 0xffffffff81000000ULL;	/* kernel text */
	case 5:
		return 0x0000800000000000ULL;	/* not canonical */
	case 6:
		return ~0ULL - fz_below(&ctx->rng, 64);
	case 7:	/* read-only: fine to read, faults when written */
		return (uintptr_t)ctx->arg_ro;
	default:
		return (uintptr_t)fz_mem.volat +
		       fz_below(&ctx->rng, (uint32_t)fz_mem.volat_len);
	}
}

/* Build command @nr instead of the one @c was. */
static bool build_instead(struct fz_ctx *ctx, struct fz_call *c,
			  unsigned int nr)
{
	c->cmd = fz_cmd_by_nr(nr);
	memset(&c->a, 0, sizeof(c->a));
	return c->cmd->build(ctx, c);
}

/* Build the command that makes an object of @type instead. */
static bool make_instead(struct fz_ctx *ctx, struct fz_call *c, uint32_t type)
{
	static const unsigned int creator[] = {
		[IB_ASYNC_OBJ_PD] = IB_ASYNC_CMD_CREATE_PD,
		[IB_ASYNC_OBJ_CQ] = IB_ASYNC_CMD_CREATE_CQ,
		[IB_ASYNC_OBJ_QP] = IB_ASYNC_CMD_CREATE_QP,
		[IB_ASYNC_OBJ_SRQ] = IB_ASYNC_CMD_CREATE_SRQ,
		[IB_ASYNC_OBJ_AH] = IB_ASYNC_CMD_CREATE_AH,
		[IB_ASYNC_OBJ_WQ] = IB_ASYNC_CMD_CREATE_WQ,
		[IB_ASYNC_OBJ_MR] = IB_ASYNC_CMD_REG_MR,
	};

	return build_instead(ctx, c, creator[type]);
}

/* Get an object of @type into *o, or turn @c into the call making one. */
#define NEED(ctx, c, type, o)						\
	do {								\
		if (!fz_pick_obj(ctx, (c)->slot, type, o))		\
			return make_instead(ctx, c, type);		\
	} while (0)

/* Data-path calls only work in the opener's process and on rxe. */
static bool datapath_here(struct fz_ctx *ctx, uint32_t slot)
{
	if (!ctx->opener && !fz_chance(&ctx->rng, 10))
		return false;
	return on_rxe(ctx, slot) || fz_chance(&ctx->rng, 15);
}

/* Small mostly, sometimes large, now and then absurd. */
static uint32_t some_count(struct fz_rng *r, uint32_t small, uint32_t large)
{
	uint32_t p = fz_below(r, 100);

	if (p < 80)
		return fz_range(r, 1, small);
	if (p < 95)
		return fz_range(r, small, large);
	if (p < 97)
		return 0;
	return fz_chance(r, 50) ? ~0u : fz_range(r, large, 1u << 24);
}

static bool check(struct fz_ctx *ctx, bool ok, const char *key,
		  const char *what)
{
	if (!ok)
		fz_report(ctx, key, "%s", what);
	return ok;
}

/* ---- the event core ---- */

bool fz_build_get_info(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
	return true;
}

void fz_done_get_info(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_info *i = &c->a.info;

	check(ctx, i->argsz == sizeof(*i), "info-argsz",
	      "GET_INFO answered with an argsz other than its size");
	check(ctx, i->abi_version == IB_ASYNC_ABI_VERSION, "info-abi",
	      "GET_INFO: wrong abi_version");
	check(ctx, i->record_size == sizeof(struct ib_async_event),
	      "info-record", "GET_INFO: wrong record_size");
	check(ctx, i->queued <= i->queue_len + 2, "info-queued",
	      "GET_INFO: more records queued than the queue holds");
	check(ctx, i->features & IB_ASYNC_FEATURE_READ_BATCH, "info-features",
	      "GET_INFO: READ_BATCH not among the features");
	check(ctx, i->next_seq >= 1, "info-seq", "GET_INFO: next_seq 0");
}

bool fz_build_set_queue_len(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t max = ctx->sh->max_queue_len, p = fz_below(r, 100);

	if (p < 60)
		c->a.queue_len.queue_len = fz_range(r, 1, 16);
	else if (p < 90)
		c->a.queue_len.queue_len = fz_range(r, 17, 4096);
	else if (p < 95)
		c->a.queue_len.queue_len = max;
	else
		c->a.queue_len.queue_len = fz_chance(r, 50) ? max + 1 : 0;
	return true;
}

void fz_done_set_queue_len(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

/*
 * What read() and READ_BATCH return: whole records, in order, each one
 * consistent in itself. Records of one call must not overlap in seq.
 */
void fz_check_records(struct fz_ctx *ctx, uint32_t slot,
		      const struct ib_async_event *ev, uint32_t n)
{
	uint64_t next = 0, top = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct ib_async_event *e = &ev[i];
		bool overflow = e->event_type == IB_ASYNC_EV_OVERFLOW;

		if (e->event_type > IB_ASYNC_EV_WQ_FATAL && !overflow)
			fz_report(ctx, "record-type", "record type %u",
				  e->event_type);
		if (!e->count || (!overflow && e->count != 1))
			fz_report(ctx, "record-count",
				  "record type %u with count %llu",
				  e->event_type, (unsigned long long)e->count);
		if (!e->seq || e->seq < next)
			fz_report(ctx, "record-seq",
				  "record seq %llu after one ending at %llu",
				  (unsigned long long)e->seq,
				  (unsigned long long)next);
		if (overflow != (e->obj_type == IB_ASYNC_OBJ_NONE))
			fz_report(ctx, "record-obj",
				  "record type %u with obj_type %u",
				  e->event_type, e->obj_type);
		if ((e->obj_type == IB_ASYNC_OBJ_PORT ||
		     e->obj_type == IB_ASYNC_OBJ_NONE) != !e->obj_handle)
			fz_report(ctx, "record-handle",
				  "record obj_type %u with obj_handle %u",
				  e->obj_type, e->obj_handle);
		next = e->seq + e->count;
		if (next - 1 > top)
			top = next - 1;
		atomic_fetch_add(&ctx->sh->stats.events[overflow ? 20 :
				 e->event_type % 20], 1);
	}
	if (top) {
		fz_lock(ctx->sh);
		if (top > ctx->sh->file[slot].seen_seq)
			ctx->sh->file[slot].seen_seq = top;
		fz_unlock(ctx->sh);
	}
}

bool fz_build_read_batch(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_read_batch *a = &c->a.read_batch;
	struct fz_rng *r = &ctx->rng;
	uint64_t seen = ctx->sh->file[c->slot].seen_seq;
	uint32_t p = fz_below(r, 100);

	/* Blocking is the watchdog's business; mostly do not. */
	a->flags = fz_chance(r, 90) ? IB_ASYNC_READ_NONBLOCK : 0;
	if (fz_chance(r, 35))
		a->flags |= IB_ASYNC_READ_PEEK;
	if (p < 40)
		a->consume_seq = 0;
	else if (p < 70)
		a->consume_seq = seen;
	else if (p < 90)
		a->consume_seq = seen + fz_below(r, 100);
	else
		a->consume_seq = fz_chance(r, 50) ? ~0ULL : fz_next(r);
	a->count = fz_chance(r, 10) ? 0 : some_count(r, 64, 4096);
	a->buf = fz_out_uptr(ctx, a->count * sizeof(struct ib_async_event));
	return true;
}

void fz_done_read_batch(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_read_batch *a = &c->a.read_batch;
	const struct ib_async_read_batch *in = (const void *)c->sent;

	if (!check(ctx, a->count <= in->count, "batch-count",
		   "READ_BATCH returned more records than asked"))
		return;
	/* The records went to our own buffer. */
	if (a->buf >= (uintptr_t)ctx->data &&
	    a->buf + (uint64_t)a->count * sizeof(struct ib_async_event) <=
	    (uintptr_t)ctx->data + FZ_DATA_LEN)
		fz_check_records(ctx, c->slot,
				 (const void *)(uintptr_t)a->buf, a->count);
}

/* ---- objects ---- */

bool fz_build_create_pd(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
	return true;
}

void fz_done_create_pd(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj o = { .handle = c->a.create_pd.handle,
			    .type = IB_ASYNC_OBJ_PD };

	fz_obj_add(ctx, c->slot, &o);
}

bool fz_build_create_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_create_cq *a = &c->a.create_cq;
	struct fz_rng *r = &ctx->rng;

	a->user_handle = fz_next(r);
	/* small CQs overrun: CQ_ERR */
	a->cqe = fz_chance(r, 40) ? fz_range(r, 1, 4) :
		 some_count(r, 256, 70000);
	a->comp_vector = fz_chance(r, 95) ? 0 : fz_below(r, 4);
	/* one of this worker's channels, mostly of the CQ's own file */
	if (ctx->nchan && fz_chance(r, 50)) {
		uint32_t i = fz_below(r, ctx->nchan), j;

		for (j = 0; j < ctx->nchan && fz_chance(r, 90); j++)
			if (ctx->chan_slot[j] == c->slot)
				i = j;
		a->flags = IB_ASYNC_CREATE_CQ_CHANNEL;
		a->comp_channel = ctx->chan_fd[i];
	}
	return true;
}

void fz_done_create_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_create_cq *in = (const void *)c->sent;
	struct fz_obj o = { .handle = c->a.create_cq.handle,
			    .type = IB_ASYNC_OBJ_CQ,
			    .comp_chan = !!(in->flags &
					    IB_ASYNC_CREATE_CQ_CHANNEL),
			    .cqe = c->a.create_cq.cqe };

	fz_obj_add(ctx, c->slot, &o);
}

bool fz_build_resize_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj cq;

	NEED(ctx, c, IB_ASYNC_OBJ_CQ, &cq);
	c->a.resize_cq.handle = cq.handle;
	c->a.resize_cq.cqe = some_count(&ctx->rng, 300, 70000);
	return true;
}

void fz_done_resize_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_create_qp(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_create_qp *a = &c->a.create_qp;
	struct fz_obj pd, scq, rcq, srq;
	struct fz_rng *r = &ctx->rng;
	uint32_t p;

	NEED(ctx, c, IB_ASYNC_OBJ_PD, &pd);
	NEED(ctx, c, IB_ASYNC_OBJ_CQ, &scq);
	if (fz_chance(r, 50) || !fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_CQ, &rcq))
		rcq = scq;
	a->user_handle = fz_next(r);
	a->pd_handle = pd.handle;
	a->send_cq_handle = scq.handle;
	a->recv_cq_handle = rcq.handle;
	if (fz_chance(r, 25) && fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_SRQ, &srq))
		a->srq_handle = srq.handle;
	p = fz_below(r, 100);
	if (p < 55)
		a->qp_type = IB_UVERBS_QPT_UD;
	else if (p < 95)
		a->qp_type = IB_UVERBS_QPT_RC;
	else
		a->qp_type = fz_below(r, 12);
	a->sq_sig_all = fz_chance(r, 30);
	a->max_send_wr = some_count(r, 32, 2048);
	a->max_recv_wr = some_count(r, 32, 2048);
	a->max_send_sge = fz_chance(r, 95) ? fz_range(r, 1, 2) : fz_below(r, 64);
	a->max_recv_sge = fz_chance(r, 95) ? fz_range(r, 1, 2) : fz_below(r, 64);
	a->max_inline_data = fz_chance(r, 70) ? 0 : some_count(r, 64, 2048);
	return true;
}

void fz_done_create_qp(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_create_qp *a = &c->a.create_qp;
	struct fz_obj o = {
		.handle = a->handle, .type = IB_ASYNC_OBJ_QP,
		.qp_type = a->qp_type, .state = QPS_RESET,
		.qpn = a->qp_num, .srq = a->srq_handle, .pd = a->pd_handle,
	};

	check(ctx, a->qp_num, "qp-num", "CREATE_QP returned QP number 0");
	fz_obj_add(ctx, c->slot, &o);
}

/* From RESET: what INIT needs. */
static void qp_to_init(struct fz_ctx *ctx, struct fz_call *c,
		       const struct fz_obj *qp)
{
	struct ib_async_qp_attr *a = &c->a.qp_attr;
	struct fz_rng *r = &ctx->rng;

	a->attr_mask |= IB_ASYNC_QP_PKEY_INDEX | IB_ASYNC_QP_PORT;
	a->port_num = fz_range(r, 1, dev_of(ctx, c->slot)->ports);
	a->pkey_index = fz_chance(r, 95) ? 0 : fz_below(r, 4);
	if (qp->qp_type == IB_UVERBS_QPT_UD) {
		a->attr_mask |= IB_ASYNC_QP_QKEY;
		a->qkey = fz_chance(r, 95) ? FZ_QKEY : (uint32_t)fz_next(r);
	} else {
		a->attr_mask |= IB_ASYNC_QP_ACCESS_FLAGS;
		a->qp_access_flags = fz_below(r, 16);
	}
}

/* From INIT: an RC QP connects to another RC QP (or itself). */
static void qp_to_rtr(struct fz_ctx *ctx, struct fz_call *c,
		      const struct fz_obj *qp)
{
	struct ib_async_qp_attr *a = &c->a.qp_attr;
	struct fz_rng *r = &ctx->rng;

	if (qp->qp_type != IB_UVERBS_QPT_RC)
		return;
	a->attr_mask |= IB_ASYNC_QP_AV | IB_ASYNC_QP_PATH_MTU |
			IB_ASYNC_QP_DEST_QPN | IB_ASYNC_QP_RQ_PSN |
			IB_ASYNC_QP_MAX_DEST_RD_ATOMIC |
			IB_ASYNC_QP_MIN_RNR_TIMER;
	a->path_mtu = fz_chance(r, 90) ? 3 : fz_below(r, 7);
	a->dest_qp_num = fz_chance(r, 15) ? qp->qpn :
			 pick_qpn(ctx, c->slot, IB_UVERBS_QPT_RC);
	a->rq_psn = fz_below(r, 1 << 24);
	a->max_dest_rd_atomic = fz_below(r, 4);
	a->min_rnr_timer = fz_chance(r, 80) ? 1 : fz_below(r, 32);
	fz_build_av(ctx, c->slot, &a->av);
	a->av.port_num = qp->port ? qp->port : a->av.port_num;
}

static void qp_to_rts(struct fz_ctx *ctx, struct fz_call *c,
		      const struct fz_obj *qp)
{
	struct ib_async_qp_attr *a = &c->a.qp_attr;
	struct fz_rng *r = &ctx->rng;

	a->attr_mask |= IB_ASYNC_QP_SQ_PSN;
	a->sq_psn = fz_below(r, 1 << 24);
	if (qp->qp_type != IB_UVERBS_QPT_RC)
		return;
	a->attr_mask |= IB_ASYNC_QP_TIMEOUT | IB_ASYNC_QP_RETRY_CNT |
			IB_ASYNC_QP_RNR_RETRY | IB_ASYNC_QP_MAX_QP_RD_ATOMIC;
	/* short timeouts and few retries: failed sends end quickly */
	a->timeout = fz_chance(r, 80) ? fz_range(r, 8, 12) : fz_below(r, 32);
	a->retry_cnt = fz_below(r, 8);
	a->rnr_retry = fz_chance(r, 90) ? fz_below(r, 4) : fz_below(r, 8);
	a->max_rd_atomic = fz_below(r, 4);
}

/* Anything at all, as a confused program would. */
static void qp_random(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_qp_attr *a = &c->a.qp_attr;
	struct fz_rng *r = &ctx->rng;

	a->attr_mask = (uint32_t)fz_next(r) &
		       (fz_chance(r, 90) ? IB_ASYNC_QP_ATTR_SUPPORTED : ~0u);
	a->qp_state = fz_below(r, 8);
	a->cur_qp_state = fz_below(r, 8);
	a->path_mtu = fz_below(r, 8);
	a->qkey = fz_chance(r, 50) ? FZ_QKEY : (uint32_t)fz_next(r);
	a->rq_psn = (uint32_t)fz_next(r);
	a->sq_psn = (uint32_t)fz_next(r);
	a->dest_qp_num = pick_qpn(ctx, c->slot, -1);
	a->qp_access_flags = fz_below(r, 64);
	a->pkey_index = fz_below(r, 4);
	a->port_num = fz_below(r, 4);
	a->en_sqd_async_notify = fz_below(r, 2);
	a->max_rd_atomic = fz_below(r, 256);
	a->max_dest_rd_atomic = fz_below(r, 256);
	a->min_rnr_timer = fz_below(r, 256);
	a->timeout = fz_below(r, 256);
	a->retry_cnt = fz_below(r, 256);
	a->rnr_retry = fz_below(r, 256);
	fz_build_av(ctx, c->slot, &a->av);
}

/*
 * rxe in Debian's 6.1 kernels (generic, rt and debug alike) corrupts a
 * QP's reference count, or dereferences NULL, when the QP goes to RESET
 * while its responder still runs on another CPU for a packet that
 * arrived in RTR or RTS: rxe_qp_reset() drains the packet queue without
 * the task's lock while rxe_xmit_packet() runs the responder inline.
 * ib_uverbs reaches it the same way (ibv_modify_qp to RESET under UD
 * traffic crashes the guest within seconds); it is the driver's, and the
 * fuzzer would otherwise find it again instead of our bugs. So a QP the
 * fuzzer believes took packets goes to ERR instead (which stops packets
 * from being queued), and to RESET only once it has been quiet for a
 * while. Documentation/ib_async.rst, "Known driver bugs".
 */
#define FZ_RESET_QUIET_MS	50

static bool reset_is_safe(const struct fz_obj *qp)
{
	return !qp->rx &&
	       (uint32_t)fz_now_ms() - qp->quiet_ms >= FZ_RESET_QUIET_MS;
}

bool fz_build_modify_qp(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_qp_attr *a = &c->a.qp_attr;
	struct fz_rng *r = &ctx->rng;
	uint32_t p = fz_below(r, 100);
	struct fz_obj qp;

	NEED(ctx, c, IB_ASYNC_OBJ_QP, &qp);
	a->handle = qp.handle;
	if (p < 8) {
		a->qp_state = QPS_ERR;
	} else if (p < 14) {
		a->qp_state = QPS_RESET;
	} else if (p < 22) {
		qp_random(ctx, c);
	} else {
		switch (qp.state) {
		case QPS_RESET:
			a->qp_state = QPS_INIT;
			qp_to_init(ctx, c, &qp);
			break;
		case QPS_INIT:
			a->qp_state = QPS_RTR;
			qp_to_rtr(ctx, c, &qp);
			break;
		case QPS_RTR:
			a->qp_state = QPS_RTS;
			qp_to_rts(ctx, c, &qp);
			break;
		case QPS_RTS:
			/* UD to SQD drains the send queue: SQ_DRAINED */
			a->qp_state = fz_chance(r, 50) ? QPS_SQD : QPS_RTS;
			if (fz_chance(r, 50)) {
				a->attr_mask |= IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY;
				a->en_sqd_async_notify = 1;
			}
			break;
		case QPS_SQD:
		case QPS_SQE:
			a->qp_state = QPS_RTS;
			break;
		default:
			a->qp_state = QPS_RESET;
			break;
		}
	}
	a->attr_mask |= IB_ASYNC_QP_STATE;
	if (a->qp_state == QPS_RESET && !reset_is_safe(&qp))
		a->qp_state = QPS_ERR;
	if (fz_chance(r, 15)) {
		a->attr_mask |= IB_ASYNC_QP_CUR_STATE;
		a->cur_qp_state = qp.state;
	}
	return true;
}

void fz_done_modify_qp(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_qp_attr *a = &c->a.qp_attr;

	if (a->attr_mask & IB_ASYNC_QP_STATE)
		fz_obj_set_state(ctx, c->slot, a->handle, a->qp_state,
				 a->attr_mask & IB_ASYNC_QP_PORT ?
				 a->port_num : 0);
}

bool fz_build_query_qp(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj qp;

	NEED(ctx, c, IB_ASYNC_OBJ_QP, &qp);
	c->a.qp_attr.handle = qp.handle;
	return true;
}

void fz_done_query_qp(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_qp_attr *a = &c->a.qp_attr;

	check(ctx, a->argsz == sizeof(*a), "query-qp-argsz",
	      "QUERY_QP answered with an argsz other than its size");
	if (check(ctx, a->qp_state <= QPS_ERR, "query-qp-state",
		  "QUERY_QP: state beyond ERR"))
		fz_obj_set_state(ctx, c->slot, a->handle, a->qp_state, 0);
}

bool fz_build_create_srq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_create_srq *a = &c->a.create_srq;
	struct fz_rng *r = &ctx->rng;
	struct fz_obj pd;

	NEED(ctx, c, IB_ASYNC_OBJ_PD, &pd);
	a->user_handle = fz_next(r);
	a->pd_handle = pd.handle;
	a->max_wr = some_count(r, 64, 4096);
	a->max_sge = fz_chance(r, 95) ? fz_range(r, 1, 2) : fz_below(r, 64);
	if (fz_chance(r, 40))
		a->srq_limit = fz_below(r, a->max_wr ? a->max_wr : 1);
	return true;
}

void fz_done_create_srq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj o = { .handle = c->a.create_srq.handle,
			    .type = IB_ASYNC_OBJ_SRQ,
			    .cqe = c->a.create_srq.max_wr,
			    .pd = c->a.create_srq.pd_handle };

	fz_obj_add(ctx, c->slot, &o);
}

bool fz_build_modify_srq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_srq_attr *a = &c->a.srq_attr;
	struct fz_rng *r = &ctx->rng;
	uint32_t p = fz_below(r, 100);
	struct fz_obj srq;

	NEED(ctx, c, IB_ASYNC_OBJ_SRQ, &srq);
	a->handle = srq.handle;
	if (p < 70)
		a->attr_mask = IB_ASYNC_SRQ_LIMIT;
	else if (p < 85)
		a->attr_mask = IB_ASYNC_SRQ_MAX_WR;
	else if (p < 95)
		a->attr_mask = IB_ASYNC_SRQ_LIMIT | IB_ASYNC_SRQ_MAX_WR;
	else
		a->attr_mask = (uint32_t)fz_next(r);
	a->srq_limit = fz_below(r, srq.cqe ? srq.cqe + 1 : 8);
	a->max_wr = some_count(r, 128, 8192);
	return true;
}

void fz_done_modify_srq(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_query_srq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj srq;

	NEED(ctx, c, IB_ASYNC_OBJ_SRQ, &srq);
	c->a.srq_attr.handle = srq.handle;
	return true;
}

void fz_done_query_srq(struct fz_ctx *ctx, struct fz_call *c)
{
	check(ctx, c->a.srq_attr.argsz == sizeof(c->a.srq_attr),
	      "query-srq-argsz",
	      "QUERY_SRQ answered with an argsz other than its size");
}

bool fz_build_create_wq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_create_wq *a = &c->a.create_wq;
	struct fz_rng *r = &ctx->rng;
	struct fz_obj pd, cq;

	/* rxe has no WQs: an occasional EOPNOTSUPP is enough there */
	if (on_rxe(ctx, c->slot) && !fz_chance(r, 10))
		return false;
	NEED(ctx, c, IB_ASYNC_OBJ_PD, &pd);
	NEED(ctx, c, IB_ASYNC_OBJ_CQ, &cq);
	a->user_handle = fz_next(r);
	a->pd_handle = pd.handle;
	a->cq_handle = cq.handle;
	a->max_wr = some_count(r, 64, 4096);
	a->max_sge = fz_chance(r, 95) ? fz_range(r, 1, 2) : fz_below(r, 64);
	return true;
}

void fz_done_create_wq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj o = { .handle = c->a.create_wq.handle,
			    .type = IB_ASYNC_OBJ_WQ };

	fz_obj_add(ctx, c->slot, &o);
}

bool fz_build_modify_wq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_modify_wq *a = &c->a.modify_wq;
	struct fz_rng *r = &ctx->rng;
	uint32_t p = fz_below(r, 100);
	struct fz_obj wq;

	if (on_rxe(ctx, c->slot) && !fz_chance(r, 10))
		return false;
	NEED(ctx, c, IB_ASYNC_OBJ_WQ, &wq);
	a->handle = wq.handle;
	if (p < 50)
		a->attr_mask = IB_ASYNC_WQ_STATE;
	else if (p < 80)
		a->attr_mask = IB_ASYNC_WQ_STATE | IB_ASYNC_WQ_CUR_STATE;
	else if (p < 90)
		a->attr_mask = IB_ASYNC_WQ_FLAGS;
	else
		a->attr_mask = (uint32_t)fz_next(r) & (fz_chance(r, 50) ? 7 : ~0u);
	a->wq_state = fz_chance(r, 95) ? fz_below(r, 3) : fz_below(r, 8);
	a->curr_wq_state = fz_chance(r, 95) ? fz_below(r, 3) : fz_below(r, 8);
	a->wq_flags = fz_below(r, 16);
	a->wq_flags_mask = fz_below(r, 16);
	return true;
}

void fz_done_modify_wq(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_create_ah(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj pd;

	NEED(ctx, c, IB_ASYNC_OBJ_PD, &pd);
	c->a.create_ah.pd_handle = pd.handle;
	fz_build_av(ctx, c->slot, &c->a.create_ah.av);
	return true;
}

void fz_done_create_ah(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj o = { .handle = c->a.create_ah.handle,
			    .type = IB_ASYNC_OBJ_AH,
			    .port = c->a.create_ah.av.port_num };

	fz_obj_add(ctx, c->slot, &o);
}

/*
 * Multicast on the worker's QPs: mostly a multicast GID of a few groups
 * (so attaches repeat and detaches find them), now and then any GID.
 */
static bool build_mcast(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj qp;
	struct ib_async_mcast *a = &c->a.mcast;

	NEED(ctx, c, IB_ASYNC_OBJ_QP, &qp);
	a->qp_handle = qp.handle;
	a->lid = fz_chance(&ctx->rng, 90) ? 0 : (uint16_t)fz_next(&ctx->rng);
	if (fz_chance(&ctx->rng, 85)) {
		a->gid[0] = 0xff;
		a->gid[1] = 0x0e;
		a->gid[10] = 0xff;
		a->gid[11] = 0xff;
		a->gid[12] = 239;
		a->gid[15] = (uint8_t)fz_below(&ctx->rng, 3);
	} else {
		unsigned int i;

		for (i = 0; i < sizeof(a->gid); i++)
			a->gid[i] = (uint8_t)fz_next(&ctx->rng);
	}
	return true;
}

bool fz_build_attach_mcast(struct fz_ctx *ctx, struct fz_call *c)
{
	return build_mcast(ctx, c);
}

void fz_done_attach_mcast(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_detach_mcast(struct fz_ctx *ctx, struct fz_call *c)
{
	return build_mcast(ctx, c);
}

void fz_done_detach_mcast(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

/*
 * Registrations of the worker's own memory, mostly valid: the access bits
 * ibv_reg_mr() passes, now and then a write to nothing writable, an iova
 * off by a few bytes or a length past the end.
 */
bool fz_build_reg_mr(struct fz_ctx *ctx, struct fz_call *c)
{
	static const uint32_t access[] = {
		IB_UVERBS_ACCESS_LOCAL_WRITE,
		IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
		IB_UVERBS_ACCESS_REMOTE_READ,
		IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_ATOMIC,
		IB_UVERBS_ACCESS_REMOTE_READ,
		0,
		IB_UVERBS_ACCESS_REMOTE_WRITE,
	};
	struct ib_async_reg_mr *a = &c->a.reg_mr;
	struct fz_rng *r = &ctx->rng;
	struct fz_obj pd;

	if (!datapath_here(ctx, c->slot))
		return false;
	NEED(ctx, c, IB_ASYNC_OBJ_PD, &pd);
	a->pd_handle = pd.handle;
	a->length = some_count(r, 3 * FZ_PAGE, FZ_DATA_LEN);
	/* now and then memory whose faults are answered late */
	a->addr = fz_chance(r, 95) ? fz_out_uptr(ctx, a->length) :
				     fz_bad_uptr(ctx, a->length, false);
	a->iova = a->addr + (fz_chance(r, 5) ? fz_range(r, 1, 7) : 0);
	a->access = access[fz_below(r, fz_chance(r, 90) ? 4 : 6)];
	return true;
}

void fz_done_reg_mr(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj o = { .handle = c->a.reg_mr.handle,
			    .type = IB_ASYNC_OBJ_MR,
			    .lkey = c->a.reg_mr.lkey, .rkey = c->a.reg_mr.rkey,
			    .addr = c->a.reg_mr.iova,
			    .len = c->a.reg_mr.length,
			    .pd = c->a.reg_mr.pd_handle };

	check(ctx, c->a.reg_mr.lkey != 0 || c->a.reg_mr.rkey != 0, "mr-keys",
	      "REG_MR: no keys");
	fz_obj_add(ctx, c->slot, &o);
}

/*
 * An entry inside @mr mostly; now and then past its end, under a key off
 * by a little (a neighbour's, a guessed one), or with no MR at all.
 */
static void some_sge(struct fz_ctx *ctx, const struct fz_obj *mr,
		     uint32_t len, struct ib_async_sge *s)
{
	struct fz_rng *r = &ctx->rng;

	if (!mr) {
		s->addr = fz_valid_uptr(ctx, len);
		s->length = len;
		s->lkey = (uint32_t)fz_next(r);
		return;
	}
	s->length = len ? len : fz_below(r, mr->len < 4096 ? mr->len + 1 : 4097);
	s->addr = mr->addr + (fz_below(r, (uint32_t)(mr->len - s->length + 1)) &
			      ~7u);
	s->lkey = mr->lkey;
	if (fz_chance(r, 2))
		s->addr += fz_range(r, 1, 64);
	if (fz_chance(r, 2))
		s->lkey ^= fz_range(r, 1, 0x3ff);
}

/* An MR of the file, on @pd if a few tries find one. */
static bool pick_mr(struct fz_ctx *ctx, uint32_t slot, uint32_t pd,
		    struct fz_obj *mr)
{
	bool found = false;
	int i;

	for (i = 0; i < 4; i++) {
		found = fz_pick_obj(ctx, slot, IB_ASYNC_OBJ_MR, mr);
		if (!found || mr->pd == pd)
			break;
	}
	return found;
}

/* Arrays the kernel reads: in the worker's data area, anywhere. */
/*
 * Where a posted list goes: the worker's memory that no REG_MR covers.
 * In the data area, a receive or RDMA WRITE the device places in an MR
 * over it can rewrite the list between its building and the kernel's
 * copy, and the send rules' verdict with it: the fuzzer then reported a
 * request the rules refuse as taken when the kernel had read another.
 */
static void *list_room(struct fz_ctx *ctx, size_t len)
{
	uint64_t room = len < FZ_LIST_LEN ? FZ_LIST_LEN - len : 0;

	return ctx->lists + fz_below(&ctx->rng, (uint32_t)(room / 8 + 1)) * 8;
}

/*
 * rxe in Debian's 6.12 and 7.x kernels answers a replayed RDMA READ from no
 * MR at all (a WARN in rxe_mr_copy() and an error completion) when the
 * last RDMA request its responder executed had length 0: read_reply()
 * tests the QP's last length, not the replayed request's. A requester that
 * starts again at a PSN its peer already executed (the fuzzer's RESET and
 * reconnect, a lost response) replays. ib_uverbs reaches it the same way
 * (an RDMA READ, a zero-length RDMA WRITE, then the requester alone reset
 * and the READ posted again: a WARN every time on 6.12.117 and 7.3.4, none
 * on 6.1), so on rxe the fuzzer's RDMA READs and WRITEs carry at least a
 * byte. Documentation/ib_async.rst, "Known driver bugs".
 */
static bool needs_a_byte(struct fz_ctx *ctx, uint32_t slot, uint32_t op)
{
	return on_rxe(ctx, slot) &&
	       (op == IB_UVERBS_WR_RDMA_WRITE ||
		op == IB_UVERBS_WR_RDMA_WRITE_WITH_IMM ||
		op == IB_UVERBS_WR_RDMA_READ);
}

/*
 * One send of @op on @qp as the send rules have it: the fields the opcode
 * uses, the datagram ones on UD. Now and then a field it does not use is
 * set too. Returns true if the rules refuse the request.
 */
static bool send_rule_fill(struct fz_ctx *ctx, uint32_t slot,
			   const struct fz_obj *qp, uint32_t op,
			   struct ib_async_send_wr *w)
{
	const struct iba_send_rule *r = iba_send_rule(op);
	struct fz_rng *rng = &ctx->rng;
	bool refuse = iba_send_rule_expect(op, qp->qp_type) != 0;
	struct fz_obj o;

	if ((r->fields & IB_ASYNC_SR_REMOTE || fz_chance(rng, 2)) &&
	    fz_pick_obj(ctx, fz_below(rng, 2) ? slot : 0, IB_ASYNC_OBJ_MR, &o)) {
		w->rkey = o.rkey;
		w->remote_addr = o.addr + (fz_below(rng, (uint32_t)o.len) & ~7u);
		refuse |= !(r->fields & IB_ASYNC_SR_REMOTE);
	}
	if (r->fields & IB_ASYNC_SR_IMM || fz_chance(rng, 2)) {
		w->imm_data = (uint32_t)fz_next(rng) | 1;
		refuse |= !(r->fields & IB_ASYNC_SR_IMM);
	}
	if (r->fields & IB_ASYNC_SR_COMPARE_ADD || fz_chance(rng, 2)) {
		w->compare_add = fz_next(rng) | 1;
		refuse |= !(r->fields & IB_ASYNC_SR_COMPARE_ADD);
	}
	if (r->fields & IB_ASYNC_SR_SWAP || fz_chance(rng, 2)) {
		w->swap = fz_next(rng) | 1;
		refuse |= !(r->fields & IB_ASYNC_SR_SWAP);
	}
	if ((qp->qp_type == IB_UVERBS_QPT_UD || fz_chance(rng, 2)) &&
	    fz_pick_obj(ctx, slot, IB_ASYNC_OBJ_AH, &o)) {
		w->ah_handle = o.handle;
		w->remote_qpn = fz_chance(rng, 50) ? qp->qpn : fz_below(rng, 64);
		w->remote_qkey = fz_chance(rng, 90) ? 0x11111111 :
						      (uint32_t)fz_next(rng);
		refuse |= qp->qp_type != IB_UVERBS_QPT_UD;
	}
	return refuse;
}

/*
 * Mostly a connected QP that sends (RC in RTS) and an opcode it takes;
 * else any QP and any opcode, drawn from the kernel's send rules, which
 * say whether the call must fail: a request the QP type cannot take
 * reaches no driver (include/ib_async_send_rules.h says why).
 */
bool fz_build_post_send_list(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_post_list *a = &c->a.post_list;
	struct fz_rng *r = &ctx->rng;
	struct ib_async_send_wr *w;
	struct ib_async_sge *s;
	struct fz_obj qp, mr;
	uint32_t n, ns = 0, i, j;
	bool have_mr;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (fz_chance(r, 80) ||
	    !fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_QP, &qp))
		if (!fz_pick_qp(ctx, c->slot, IB_UVERBS_QPT_RC, QPS_RTS, &qp))
			NEED(ctx, c, IB_ASYNC_OBJ_QP, &qp);
	have_mr = pick_mr(ctx, c->slot, qp.pd, &mr);
	n = fz_chance(r, 80) ? 1 : fz_range(r, 2, 6);
	w = list_room(ctx, n * (sizeof(*w) + 3 * sizeof(*s)));
	s = (struct ib_async_sge *)(w + n);
	memset(w, 0, n * sizeof(*w));
	for (i = 0; i < n; i++) {
		uint32_t op = fz_chance(r, 97) ?
			      fz_below(r, IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD + 1) :
			      fz_below(r, 20);
		bool one_u64 = op <= IB_ASYNC_SR_OPCODE_LAST &&
			       iba_send_rule(op)->fields & IB_ASYNC_SR_ONE_U64;
		bool a_byte = needs_a_byte(ctx, c->slot, op);

		w[i].wr_id = fz_next(r);
		w[i].opcode = op;
		w[i].num_sge = one_u64 ? 1 : a_byte ? fz_range(r, 1, 3) :
				      fz_below(r, 4);
		w[i].send_flags = fz_below(r, 16) &
				  (fz_chance(r, 90) ? ~IB_ASYNC_SEND_INLINE :
						      ~0u);
		c->rules_refuse |= send_rule_fill(ctx, c->slot, &qp, op, &w[i]);
		for (j = 0; j < w[i].num_sge; j++)
			some_sge(ctx, have_mr ? &mr : NULL, one_u64 ? 8 : 0,
				 &s[ns++]);
		if (a_byte && !s[ns - w[i].num_sge].length)
			s[ns - w[i].num_sge].length = 1;
	}
	a->obj_type = IB_ASYNC_OBJ_QP;
	a->handle = qp.handle;
	a->count = n;
	a->wr_size = sizeof(*w);
	a->wrs = (uintptr_t)w;
	a->sges = (uintptr_t)s;
	a->num_sges = ns;
	c->rules_handle = a->handle;
	c->rules_count = a->count;
	return true;
}

bool fz_build_post_recv_list(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_post_list *a = &c->a.post_list;
	struct fz_rng *r = &ctx->rng;
	struct ib_async_recv_wr *w;
	struct ib_async_sge *s;
	struct fz_obj o, mr;
	uint32_t n, ns = 0, i, j;
	bool have_mr;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (fz_chance(r, 30) && fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_SRQ, &o)) {
		a->obj_type = IB_ASYNC_OBJ_SRQ;
	} else {
		NEED(ctx, c, IB_ASYNC_OBJ_QP, &o);
		a->obj_type = IB_ASYNC_OBJ_QP;
	}
	have_mr = pick_mr(ctx, c->slot, o.pd, &mr);
	n = fz_chance(r, 70) ? 1 : fz_range(r, 2, 8);
	w = list_room(ctx, n * (sizeof(*w) + 3 * sizeof(*s)));
	s = (struct ib_async_sge *)(w + n);
	memset(w, 0, n * sizeof(*w));
	for (i = 0; i < n; i++) {
		w[i].wr_id = fz_next(r);
		w[i].num_sge = fz_below(r, 4);
		for (j = 0; j < w[i].num_sge; j++)
			some_sge(ctx, have_mr ? &mr : NULL, 0, &s[ns++]);
	}
	a->handle = o.handle;
	a->count = n;
	a->wr_size = sizeof(*w);
	a->wrs = (uintptr_t)w;
	a->sges = (uintptr_t)s;
	a->num_sges = ns;
	return true;
}

static void done_post_list(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_post_list *a = &c->a.post_list;
	const struct ib_async_post_list *in = (const void *)c->sent;

	check(ctx, a->posted <= in->count && (a->posted == in->count) ==
	      !a->error && (a->posted || !a->error), "post-list",
	      "POST_*_LIST: posted/error disagree with the count");
}

void fz_done_post_send_list(struct fz_ctx *ctx, struct fz_call *c)
{
	done_post_list(ctx, c);
}

void fz_done_post_recv_list(struct fz_ctx *ctx, struct fz_call *c)
{
	done_post_list(ctx, c);
}

bool fz_build_destroy(struct fz_ctx *ctx, struct fz_call *c)
{
	static const uint16_t types[] = {
		IB_ASYNC_OBJ_QP, IB_ASYNC_OBJ_QP, IB_ASYNC_OBJ_QP,
		IB_ASYNC_OBJ_CQ, IB_ASYNC_OBJ_SRQ, IB_ASYNC_OBJ_AH,
		IB_ASYNC_OBJ_PD, IB_ASYNC_OBJ_WQ, IB_ASYNC_OBJ_MR, 0,
	};
	struct fz_obj o;

	/* destroys in any order: one in use fails with EBUSY */
	if (!fz_pick_obj(ctx, c->slot, types[fz_below(&ctx->rng, 10)], &o) &&
	    !fz_pick_obj(ctx, c->slot, 0, &o))
		return false;
	c->a.destroy.obj_type = o.type;
	c->a.destroy.handle = o.handle;
	return true;
}

/*
 * comp_events_reported counts the completion events readers took of a CQ
 * with a channel: 0 for anything else. A worker takes them when it reads
 * its channels (fz_done_create_channel) or moves a ring's consumer, so the
 * exact count is not known here; but a CQ fires once per arming, and every
 * REQ_NOTIFY_CQ to the slot was counted before it went in.
 */
void fz_done_destroy(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_destroy *in = (const void *)c->sent;
	uint64_t got = c->a.destroy.comp_events_reported, arms;
	struct fz_obj o;
	bool known;

	known = fz_obj_del(ctx, c->slot, in->handle, &o);
	/* the rings of a CQ destroyed in a file this process knows */
	if (in->obj_type == IB_ASYNC_OBJ_CQ && fz_fd_unchanged(ctx, c->slot))
		fz_cq_ring_destroyed(ctx, c->slot, in->handle);
	if (in->obj_type != IB_ASYNC_OBJ_CQ || (known && !o.comp_chan)) {
		check(ctx, !got, "destroy-comp",
		      "DESTROY: comp_events_reported not 0 without a channel");
		return;
	}
	fz_lock(ctx->sh);
	arms = ctx->sh->file[c->slot].arms;
	fz_unlock(ctx->sh);
	check(ctx, got <= arms, "destroy-comp-arms",
	      "DESTROY: comp_events_reported above the CQs' armings");
}

/* ---- queries ---- */

static uint32_t some_port(struct fz_ctx *ctx, uint32_t slot)
{
	uint32_t ports = dev_of(ctx, slot)->ports;

	if (fz_chance(&ctx->rng, 92))
		return fz_range(&ctx->rng, 1, ports);
	return fz_chance(&ctx->rng, 50) ? 0 : ports + fz_below(&ctx->rng, 300);
}

bool fz_build_query_device(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
	return true;
}

void fz_done_query_device(struct fz_ctx *ctx, struct fz_call *c)
{
	check(ctx, c->a.device_attr.phys_port_cnt ==
	      dev_of(ctx, c->slot)->ports || !current_gen(ctx, c->slot),
	      "device-ports", "QUERY_DEVICE: unexpected phys_port_cnt");
}

bool fz_build_query_port(struct fz_ctx *ctx, struct fz_call *c)
{
	c->a.port_attr.port_num = some_port(ctx, c->slot);
	return true;
}

void fz_done_query_port(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_query_gid(struct fz_ctx *ctx, struct fz_call *c)
{
	c->a.query_gid.port_num = some_port(ctx, c->slot);
	c->a.query_gid.index = fz_chance(&ctx->rng, 90) ?
			       fz_below(&ctx->rng, 20) :
			       (uint32_t)fz_next(&ctx->rng);
	return true;
}

void fz_done_query_gid(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_query_pkey(struct fz_ctx *ctx, struct fz_call *c)
{
	c->a.query_pkey.port_num = some_port(ctx, c->slot);
	c->a.query_pkey.index = fz_chance(&ctx->rng, 90) ?
				fz_below(&ctx->rng, 4) :
				(uint32_t)fz_next(&ctx->rng);
	return true;
}

void fz_done_query_pkey(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

/* ---- the data path ---- */

/*
 * Where a receive's data goes when its completion is polled, by whichever
 * worker polls: memory only the kernel writes (never a worker's data
 * area, which it reads records from), sometimes the region another
 * worker makes unreadable at times.
 */
uint64_t fz_recv_uptr(struct fz_ctx *ctx, uint32_t len)
{
	if (fz_chance(&ctx->rng, 20) && len <= fz_mem.volat_len)
		return (uintptr_t)fz_mem.volat +
		       fz_below(&ctx->rng, (uint32_t)(fz_mem.volat_len - len + 1));
	if (len > FZ_RECV_LEN)
		return (uintptr_t)fz_mem.recv;
	return (uintptr_t)fz_mem.recv +
	       fz_below(&ctx->rng, FZ_RECV_LEN - len + 1);
}

static uint32_t msg_len(struct fz_rng *r)
{
	uint32_t p = fz_below(r, 100);

	if (p < 75)
		return fz_below(r, 257);
	if (p < 95)
		return fz_below(r, 4097);
	if (p < 98)
		return fz_range(r, 4097, IB_ASYNC_MAX_MSG);
	return IB_ASYNC_MAX_MSG + fz_below(r, 2);
}

bool fz_build_post_recv(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_post_recv *a = &c->a.post_recv;
	struct fz_rng *r = &ctx->rng;
	struct fz_obj o;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (fz_chance(r, 30) && fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_SRQ, &o)) {
		a->obj_type = IB_ASYNC_OBJ_SRQ;
	} else {
		NEED(ctx, c, IB_ASYNC_OBJ_QP, &o);
		a->obj_type = IB_ASYNC_OBJ_QP;
	}
	a->handle = o.handle;
	a->wr_id = fz_next(r);
	/* UD receives start with the 40-byte GRH */
	a->length = msg_len(r) + (fz_chance(r, 80) ? 40 : 0);
	if (a->length > IB_ASYNC_MAX_MSG + 1)
		a->length = IB_ASYNC_MAX_MSG;
	a->addr = fz_recv_uptr(ctx, a->length);
	return true;
}

void fz_done_post_recv(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_post_send(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_post_send *a = &c->a.post_send;
	struct fz_rng *r = &ctx->rng;
	struct fz_obj qp, ah;
	uint32_t p;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (!fz_pick_qp(ctx, c->slot, -1, QPS_RTS, &qp))
		return make_instead(ctx, c, IB_ASYNC_OBJ_QP);
	a->handle = qp.handle;
	p = fz_below(r, 100);
	a->opcode = p < 60 ? IB_UVERBS_WR_SEND :
		    p < 98 ? IB_UVERBS_WR_SEND_WITH_IMM : fz_below(r, 16);
	a->wr_id = fz_next(r);
	a->length = msg_len(r);
	a->addr = (uintptr_t)fz_mem.send +
		  fz_below(r, IB_ASYNC_MAX_MSG + 2 - a->length);
	if (fz_mem.slow && a->length <= FZ_SLOW_LEN && fz_chance(r, 5))
		a->addr = (uintptr_t)fz_mem.slow;
	a->send_flags = fz_chance(r, 70) ? IB_ASYNC_SEND_SIGNALED : 0;
	/* a SEND's immediate data must be zero: now and then it is not */
	if (a->opcode != IB_UVERBS_WR_SEND || fz_chance(r, 3))
		a->imm_data = (uint32_t)fz_next(r);
	if (qp.qp_type != IB_UVERBS_QPT_UD)
		return true;
	NEED(ctx, c, IB_ASYNC_OBJ_AH, &ah);
	a->ah_handle = ah.handle;
	a->remote_qpn = pick_qpn(ctx, c->slot, IB_UVERBS_QPT_UD);
	a->remote_qkey = fz_chance(r, 95) ? FZ_QKEY : (uint32_t)fz_next(r);
	return true;
}

void fz_done_post_send(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

/* ---- completion and event channels ---- */

bool fz_build_create_channel(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_create_channel *a = &c->a.create_channel;

	a->type = fz_chance(&ctx->rng, 60) ? IB_ASYNC_CHANNEL_COMP :
					     IB_ASYNC_CHANNEL_EVENT;
	a->flags = fz_chance(&ctx->rng, 50) ? IB_ASYNC_CHANNEL_NONBLOCK : 0;
	if (a->type == IB_ASYNC_CHANNEL_EVENT && fz_chance(&ctx->rng, 50))
		a->flags |= IB_ASYNC_CHANNEL_COALESCE;
	/* records with a port's state, and a snapshot after each loss */
	if (a->type == IB_ASYNC_CHANNEL_EVENT && fz_chance(&ctx->rng, 40)) {
		a->flags |= IB_ASYNC_CHANNEL_STATE;
		if (fz_chance(&ctx->rng, 50))
			a->flags |= IB_ASYNC_CHANNEL_RESYNC;
	}
	return true;
}

/* Bytes per record of a channel made with @a. */
static uint32_t channel_record_size(const struct ib_async_create_channel *a)
{
	if (a->type == IB_ASYNC_CHANNEL_COMP)
		return sizeof(struct ib_async_event);
	if (a->flags & IB_ASYNC_CHANNEL_STATE)
		return sizeof(struct ib_async_chan_state_event);
	return sizeof(struct ib_async_chan_event);
}

/* Whether a channel's record is one it may hold. */
static bool channel_record_ok(uint32_t chan_type, uint32_t rec_size,
			      const struct ib_async_event *ev)
{
	if (ev->event_type == IB_ASYNC_EV_OVERFLOW)
		return true;
	if (chan_type == IB_ASYNC_CHANNEL_COMP)
		return ev->event_type == IB_ASYNC_EV_COMP;
	if (ev->event_type == IB_ASYNC_EV_STATE)
		return rec_size == sizeof(struct ib_async_chan_state_event);
	return ev->event_type <= IB_ASYNC_EV_DEVICE_SPEED_CHANGE;
}

/*
 * GET_INFO of this worker's channel @i: 0, or -1 when the call failed.
 * The queue never holds more than its events, the overflow record that
 * may follow them and the end record; a state channel (the rst's "The
 * queue's bound") one snapshot's state records (the device's and every
 * port's) too, and at the end of the stream a loss kept aside behind a
 * snapshot besides the overflow record: N + 1 + (ports + 1) + 2.
 */
static int chan_info(struct fz_ctx *ctx, uint32_t i, struct ib_async_info *in)
{
	uint32_t most;

	memset(in, 0, sizeof(*in));
	in->argsz = sizeof(*in);
	if (ioctl(ctx->chan_fd[i], IB_ASYNC_IOC_GET_INFO, in))
		return -1;
	most = in->queue_len + 2;
	if (ctx->chan_flags[i] & IB_ASYNC_CHANNEL_STATE)
		most += dev_of(ctx, ctx->chan_slot[i])->ports + 1 + 1;
	if (in->queued > most)
		fz_report(ctx, "chan-info-queued",
			  "GET_INFO: %u records queued in a channel of %u%s",
			  in->queued, in->queue_len,
			  ctx->chan_flags[i] & IB_ASYNC_CHANNEL_STATE ?
			  " (state)" : "");
	return 0;
}

/*
 * What has happened to the slot's file that may take records out of its
 * channels unread: DESTROY calls made to it, new files in its place, and
 * test-bed changes (removals). Only grows.
 */
uint64_t fz_purge_epoch(struct fz_ctx *ctx, uint32_t slot)
{
	uint64_t e;

	fz_lock(ctx->sh);
	e = ctx->sh->file[slot].destroys + ctx->sh->file[slot].gen +
	    atomic_load(&ctx->sh->mid_epoch);
	fz_unlock(ctx->sh);
	return e;
}

/*
 * The records of one read of channel @i: each one the channel may hold,
 * and on a channel only this worker reads, each one following the last
 * (its seq the previous one's seq + count: nothing twice, never
 * backwards, and no gap unless a purge may have taken a record since the
 * last one read was queued: @epoch is fz_purge_epoch() after the read),
 * with the losses the overflow records report summed up.
 */
static void chan_walk(struct fz_ctx *ctx, uint32_t i, const uint8_t *recs,
		      uint32_t n, uint64_t epoch)
{
	uint32_t size = ctx->chan_rec[i], k;
	const struct ib_async_event *e;
	bool purged = epoch != ctx->chan_last_epoch[i];

	for (k = 0; k < n; k++) {
		e = (const void *)(recs + (size_t)k * size);
		if (!channel_record_ok(ctx->chan_type[i], size, e))
			fz_report(ctx, "channel-record",
				  "a channel returned a foreign record (type %#x)",
				  e->event_type);
		if (!ctx->chan_own[i] ||
		    ctx->chan_type[i] != IB_ASYNC_CHANNEL_EVENT)
			continue;
		if (e->seq < ctx->chan_next[i] ||
		    (e->seq > ctx->chan_next[i] && !purged))
			fz_report(ctx, "chan-seq",
				  "channel record seq %llu where %llu was next (%s)",
				  (unsigned long long)e->seq,
				  (unsigned long long)ctx->chan_next[i],
				  e->seq < ctx->chan_next[i] ?
				  "backwards: a record twice" :
				  "a gap, and no destroy or removal");
		if (!e->count || (e->event_type != IB_ASYNC_EV_OVERFLOW &&
				  e->count != 1))
			fz_report(ctx, "chan-count",
				  "channel record type %#x with count %llu",
				  e->event_type, (unsigned long long)e->count);
		if (e->event_type == IB_ASYNC_EV_OVERFLOW) {
			ctx->chan_lost[i] += e->count;
			atomic_fetch_add(&ctx->sh->stats.chan_lost, e->count);
		}
		ctx->chan_next[i] = e->seq + e->count;
	}
	atomic_fetch_add(&ctx->sh->stats.chan_recs, n);
}

/*
 * Read this worker's channel @i without blocking, with read() or
 * READ_BATCH: a few records, or with @drain until it is empty. Once a
 * drain of a channel only this worker reads found it empty, the overflow
 * records read add up to what GET_INFO's lost said before the drain at
 * least (every loss counted then is in a record by now: one kept aside
 * behind a snapshot becomes a record as soon as a record is read) and to
 * what it says after at most (none is reported before it is counted).
 */
void fz_chan_read(struct fz_ctx *ctx, uint32_t i, bool drain)
{
	static __thread uint8_t buf[8 * sizeof(struct ib_async_chan_state_event)];
	struct ib_async_info before, after;
	uint32_t size = ctx->chan_rec[i], max = sizeof(buf) / size, reads;
	bool own = ctx->chan_own[i] &&
		   ctx->chan_type[i] == IB_ASYNC_CHANNEL_EVENT;
	bool counted = own && !chan_info(ctx, i, &before), empty = false;
	uint32_t slot = ctx->chan_slot[i];
	uint64_t epoch;
	ssize_t got;

	for (reads = 0; reads < (drain ? 64U : 1U); reads++) {
		uint32_t want = fz_range(&ctx->rng, 1, max);

		epoch = fz_purge_epoch(ctx, slot);

		/* read() only where it cannot block: CREATE_CHANNEL's flag */
		if (ctx->chan_flags[i] & IB_ASYNC_CHANNEL_NONBLOCK &&
		    fz_chance(&ctx->rng, 50)) {
			got = read(ctx->chan_fd[i], buf, (size_t)want * size);
			if (got >= 0 && got % size)
				fz_report(ctx, "channel-read-size",
					  "a channel's read() returned %zd bytes of %u-byte records",
					  got, size);
			got = got < 0 ? -errno : got / size;
		} else {
			struct ib_async_read_batch b = {
				.argsz = sizeof(b),
				.flags = IB_ASYNC_READ_NONBLOCK,
				.buf = (uintptr_t)buf, .count = want,
			};

			got = ioctl(ctx->chan_fd[i], IB_ASYNC_IOC_READ_BATCH,
				    &b) ? -errno : (ssize_t)b.count;
		}
		if (got == -EAGAIN || got == 0) {
			/* whatever comes next was queued after this */
			ctx->chan_empty_epoch[i] = epoch;
			empty = true;
			break;
		}
		if (got < 0)	/* the stream ended, or a signal */
			break;
		check(ctx, (uint32_t)got <= want, "channel-read",
		      "a channel returned more records than asked");
		chan_walk(ctx, i, buf, (uint32_t)got, fz_purge_epoch(ctx, slot));
		ctx->chan_last_epoch[i] = ctx->chan_empty_epoch[i];
		atomic_fetch_add(&ctx->sh->stats.chan_reads, 1);
	}
	if (!counted || !empty || chan_info(ctx, i, &after))
		return;
	atomic_fetch_add(&ctx->sh->stats.chan_drains, 1);
	if (ctx->chan_lost[i] < before.lost || ctx->chan_lost[i] > after.lost)
		fz_report(ctx, "chan-lost",
			  "a drained channel's overflow records count %llu lost, GET_INFO %llu before and %llu after",
			  (unsigned long long)ctx->chan_lost[i],
			  (unsigned long long)before.lost,
			  (unsigned long long)after.lost);
}

/* Forget channel @i (closed): the later ones move down. */
static void chan_forget(struct fz_ctx *ctx, uint32_t i)
{
#define FZ_CHAN_SHIFT(a) \
	memmove(&ctx->a[i], &ctx->a[i + 1], \
		(ctx->nchan - i - 1) * sizeof(ctx->a[0]))
	FZ_CHAN_SHIFT(chan_fd);
	FZ_CHAN_SHIFT(chan_slot);
	FZ_CHAN_SHIFT(chan_type);
	FZ_CHAN_SHIFT(chan_rec);
	FZ_CHAN_SHIFT(chan_sub);
	FZ_CHAN_SHIFT(chan_flags);
	FZ_CHAN_SHIFT(chan_own);
	FZ_CHAN_SHIFT(chan_next);
	FZ_CHAN_SHIFT(chan_lost);
	FZ_CHAN_SHIFT(chan_empty_epoch);
	FZ_CHAN_SHIFT(chan_last_epoch);
#undef FZ_CHAN_SHIFT
	ctx->nchan--;
}

/*
 * Keep the new channel for CQs to use; past FZ_CHANNELS the oldest goes
 * (a CQ still using it keeps the kernel's channel alive). An event
 * channel's queue is now and then made as short as can be (1 to 3
 * events), where losses come quickly. The channels' records are drained
 * once in a while by reading them without blocking.
 */
void fz_done_create_channel(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_create_channel *a = &c->a.create_channel;
	struct ib_async_queue_len ql = { .argsz = sizeof(ql) };
	int fd = a->fd;
	uint32_t i, n;

	if (!check(ctx, fd >= 0, "channel-fd",
		   "CREATE_CHANNEL succeeded with a negative fd"))
		return;
	if (ctx->nchan == FZ_CHANNELS) {
		close(ctx->chan_fd[0]);
		chan_forget(ctx, 0);
	}
	n = ctx->nchan++;
	ctx->chan_fd[n] = fd;
	ctx->chan_type[n] = a->type;
	ctx->chan_rec[n] = channel_record_size(a);
	ctx->chan_sub[n] = 0;
	ctx->chan_slot[n] = c->slot;
	/* the mutations of a valid call: the kernel took what was sent */
	ctx->chan_flags[n] = ((const struct ib_async_create_channel *)
			      c->sent)->flags;
	ctx->chan_own[n] = true;
	ctx->chan_next[n] = 1;
	ctx->chan_lost[n] = 0;
	/*
	 * Empty when made, but a purge may have come between that and now:
	 * an epoch no reading matches, until a read finds it empty.
	 */
	ctx->chan_empty_epoch[n] = fz_purge_epoch(ctx, c->slot) - 1;
	ctx->chan_last_epoch[n] = ctx->chan_empty_epoch[n];
	if (a->type == IB_ASYNC_CHANNEL_EVENT && fz_chance(&ctx->rng, 30)) {
		ql.queue_len = fz_range(&ctx->rng, 1, 3);
		ioctl(fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &ql);
	}
	for (i = 0; i < ctx->nchan; i++)
		fz_chan_read(ctx, i, false);
}

/*
 * The index of one of this worker's event channels of @slot, or (one time
 * in ten, or when it has none) of any channel; -1 for none at all.
 */
static int pick_channel(struct fz_ctx *ctx, uint32_t slot)
{
	uint32_t j, n = 0, mine[FZ_CHANNELS];

	if (!ctx->nchan)
		return -1;
	for (j = 0; j < ctx->nchan; j++)
		if (ctx->chan_slot[j] == slot &&
		    ctx->chan_type[j] == IB_ASYNC_CHANNEL_EVENT)
			mine[n++] = j;
	if (!n || fz_chance(&ctx->rng, 10))
		return (int)fz_below(&ctx->rng, ctx->nchan);
	return (int)mine[fz_below(&ctx->rng, n)];
}

/* The objects a subscription may name: those that raise events. */
static const uint32_t fz_event_objs[] = {
	IB_ASYNC_OBJ_CQ, IB_ASYNC_OBJ_QP, IB_ASYNC_OBJ_SRQ, IB_ASYNC_OBJ_WQ,
};

bool fz_build_subscribe(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_subscribe *a = &c->a.subscribe;
	struct fz_rng *r = &ctx->rng;
	int ch = pick_channel(ctx, c->slot);
	struct fz_obj o;
	uint32_t type;

	a->fd = ch < 0 ? -1 : ctx->chan_fd[ch];
	a->cookie = fz_next(r);
	if (fz_chance(r, 40)) {
		a->flags |= IB_ASYNC_SUB_TYPES;
		a->type_mask = fz_next(r) & ((1ULL << 21) - 1);
		if (!a->type_mask)
			a->type_mask = 1ULL << IB_ASYNC_EV_PORT_ERR;
	}
	if (fz_chance(r, 40)) {
		a->flags |= IB_ASYNC_SUB_PORT;
		a->port = fz_below(r, 3);
	}
	type = fz_event_objs[fz_below(r, sizeof(fz_event_objs) /
					 sizeof(fz_event_objs[0]))];
	if (fz_chance(r, 30) && fz_pick_obj(ctx, c->slot, type, &o)) {
		a->flags |= IB_ASYNC_SUB_OBJECT;
		a->obj_handle = o.handle;
	}
	/* a snapshot first: refused on an object, or a plain channel */
	if (fz_chance(r, 20))
		a->flags |= IB_ASYNC_SUB_STATE;
	return true;
}

void fz_done_subscribe(struct fz_ctx *ctx, struct fz_call *c)
{
	uint32_t i;

	check(ctx, c->a.subscribe.sub_id != 0, "subscribe-id",
	      "SUBSCRIBE succeeded with subscription id 0");
	/* for UNSUBSCRIBE to name a subscription that exists */
	for (i = 0; i < ctx->nchan; i++)
		if (ctx->chan_fd[i] == c->a.subscribe.fd)
			ctx->chan_sub[i] = c->a.subscribe.sub_id;
}

bool fz_build_unsubscribe(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_unsubscribe *a = &c->a.unsubscribe;
	int ch = pick_channel(ctx, c->slot);

	a->fd = ch < 0 ? -1 : ctx->chan_fd[ch];
	/* mostly the channel's latest subscription, else a guess */
	if (ch >= 0 && ctx->chan_sub[ch] && fz_chance(&ctx->rng, 70))
		a->sub_id = ctx->chan_sub[ch] - fz_below(&ctx->rng, 2);
	else
		a->sub_id = fz_range(&ctx->rng, 1, 16);
	if (!a->sub_id)
		a->sub_id = 1;
	return true;
}

void fz_done_unsubscribe(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_req_notify_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj cq;

	NEED(ctx, c, IB_ASYNC_OBJ_CQ, &cq);
	c->a.req_notify_cq.handle = cq.handle;
	c->a.req_notify_cq.flags = fz_chance(&ctx->rng, 30) ?
				   IB_ASYNC_NOTIFY_SOLICITED : 0;
	return true;
}

void fz_done_req_notify_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

bool fz_build_poll_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_poll_cq *a = &c->a.poll_cq;
	struct fz_obj cq;

	if (!datapath_here(ctx, c->slot))
		return false;
	NEED(ctx, c, IB_ASYNC_OBJ_CQ, &cq);
	a->handle = cq.handle;
	a->count = fz_chance(&ctx->rng, 5) ? 0 : some_count(&ctx->rng, 16, 512);
	a->wc = fz_out_uptr(ctx, a->count * sizeof(struct ib_async_wc));
	return true;
}

void fz_done_poll_cq(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_poll_cq *a = &c->a.poll_cq;
	const struct ib_async_poll_cq *in = (const void *)c->sent;
	const struct ib_async_wc *wc = (const void *)(uintptr_t)a->wc;
	uint32_t i;

	if (!check(ctx, a->count <= in->count, "poll-count",
		   "POLL_CQ returned more completions than asked"))
		return;
	if (a->wc < (uintptr_t)ctx->data ||
	    a->wc + (uint64_t)a->count * sizeof(*wc) >
	    (uintptr_t)ctx->data + FZ_DATA_LEN)
		return;
	for (i = 0; i < a->count; i++) {
		atomic_fetch_add(wc[i].status ? &ctx->sh->stats.wc_err :
				 &ctx->sh->stats.wc_ok, 1);
		fz_check_wc(ctx, &wc[i], false);
	}
}

/*
 * A completion as the kernel writes it, polled or read from a mapped ring
 * (@ring), where a slot not yet written holds zeroes.
 */
void fz_check_wc(struct fz_ctx *ctx, const struct ib_async_wc *wc, bool ring)
{
	const char *where = ring ? "a mapped ring" : "POLL_CQ";

	if (wc->status >= 32)
		fz_report(ctx, ring ? "ring-wc-status" : "wc-status",
			  "%s: completion status %u out of range", where,
			  wc->status);
	if (wc->reserved)
		fz_report(ctx, ring ? "ring-wc-reserved" : "wc-reserved",
			  "%s: completion's reserved field %#x, not 0", where,
			  wc->reserved);
}

/* ---- mapped event rings ---- */

/* The node, or now and then one of the file's channels (any kind). */
static void ring_target(struct fz_ctx *ctx, struct fz_call *c)
{
	int ch = pick_channel(ctx, c->slot);

	if (ch >= 0 && fz_chance(&ctx->rng, 30)) {
		c->fd = ctx->chan_fd[ch];
		/* a ring takes records past read(): no sequence verdict */
		ctx->chan_own[ch] = false;
	}
}

bool fz_build_map_ring(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_rng *r = &ctx->rng;

	ring_target(ctx, c);
	c->a.map_ring.entries = fz_chance(r, 95) ?
				some_count(r, 16, 4096) :
				ctx->sh->max_queue_len + fz_below(r, 2);
	return true;
}

/*
 * Whether the file MAP_RING went to is still behind the call's descriptor:
 * a channel of this worker's, or the slot's file if no other worker has
 * put a new one in its place (act_reopen) since.
 */
static bool ring_still_there(struct fz_ctx *ctx, const struct fz_call *c)
{
	uint32_t i;

	for (i = 0; i < ctx->nchan; i++)
		if (ctx->chan_fd[i] == c->fd)
			return true;
	return fz_same_file(ctx, c->slot);
}

/*
 * The answer is a ring the call's file can map: map it, check what the
 * kernel wrote, and leave a consumer index behind, plausible or not (the
 * kernel must only ever treat a nonsense one as a full ring).
 */
void fz_done_map_ring(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_map_ring *a = &c->a.map_ring;
	const struct ib_async_map_ring *in = (const void *)c->sent;
	struct ib_async_ring_header *h;
	void *p;

	if (!check(ctx, a->entries >= in->entries &&
		   !(a->entries & (a->entries - 1)) && !a->mmap_offset &&
		   a->mmap_size >= sizeof(*h) + (uint64_t)a->entries *
		   sizeof(struct ib_async_event) && !(a->mmap_size & 4095),
		   "ring-answer", "MAP_RING answered an impossible ring"))
		return;
	p = mmap(NULL, a->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 c->fd, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		if (ring_still_there(ctx, c))
			fz_report(ctx, "ring-mmap",
				  "a ring MAP_RING made cannot be mapped: %s",
				  strerror(err));
		return;
	}
	h = p;
	check(ctx, h->entries == a->entries && h->records_offset ==
	      sizeof(*h) && (h->record_size == sizeof(struct ib_async_event) ||
	      h->record_size == sizeof(struct ib_async_chan_event) ||
	      h->record_size == sizeof(struct ib_async_chan_state_event)),
	      "ring-header", "a mapped ring's header is wrong");
	__atomic_store_n(&h->consumer, fz_chance(&ctx->rng, 60) ?
			 __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE) :
			 (uint32_t)fz_next(&ctx->rng), __ATOMIC_RELEASE);
	munmap(p, a->mmap_size);
}

bool fz_build_ring_wait(struct fz_ctx *ctx, struct fz_call *c)
{
	ring_target(ctx, c);
	/* Blocking is the watchdog's business; mostly do not. */
	c->a.ring_wait.flags = fz_chance(&ctx->rng, 95) ?
			       IB_ASYNC_READ_NONBLOCK : 0;
	return true;
}

void fz_done_ring_wait(struct fz_ctx *ctx, struct fz_call *c)
{
	check(ctx, c->a.ring_wait.available, "ring-wait",
	      "RING_WAIT succeeded with nothing available");
}

/* ---- completion rings ---- */

/*
 * Entries to ask for: 0 (the CQ's size plus one), 1, powers of two, other
 * numbers (rounded up), the bound, one past it, and absurd ones.
 */
static uint32_t cq_ring_entries(struct fz_rng *r)
{
	uint32_t p = fz_below(r, 100), v;

	if (p < 30)
		return 0;
	if (p < 35)
		return 1;
	if (p < 60)
		return 1u << fz_range(r, 1, 13);
	if (p < 85) {
		v = fz_chance(r, 80) ? fz_range(r, 3, 1000) :
				       fz_range(r, 1001, FZ_CQ_RING_MAX - 1);
		return v & (v - 1) ? v : v + 1;
	}
	if (p < 90)
		return FZ_CQ_RING_MAX;
	if (p < 95)
		return FZ_CQ_RING_MAX + 1;
	return fz_chance(r, 50) ? ~0u : fz_range(r, FZ_CQ_RING_MAX + 2, ~0u - 1);
}

/* A ring for one of the file's CQs, mostly one that has none yet (EBUSY). */
bool fz_build_map_cq_ring(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_obj cq;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (!pick_cq(ctx, c->slot, fz_chance(&ctx->rng, 10), &cq))
		return make_instead(ctx, c, IB_ASYNC_OBJ_CQ);
	c->a.map_cq_ring.handle = cq.handle;
	c->a.map_cq_ring.entries = cq_ring_entries(&ctx->rng);
	return true;
}

/*
 * The answer is a ring of a power of two no smaller than asked (the bound
 * at most), whose header and records fit the size answered, and a page
 * for the consumer, at offsets of their own (0 is the event ring's). The
 * table learns the CQ's ring size; cq_ring.c maps it as a program would
 * and keeps it for the threads to scribble on.
 */
void fz_done_map_cq_ring(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_map_cq_ring *a = &c->a.map_cq_ring;
	const struct ib_async_map_cq_ring *in = (const void *)c->sent;
	uint64_t need = sizeof(struct ib_async_cq_ring_header) +
			(uint64_t)a->entries * sizeof(struct ib_async_wc);
	struct fz_obj *cq;

	if (!check(ctx, a->entries && !(a->entries & (a->entries - 1)) &&
		   a->entries <= FZ_CQ_RING_MAX && a->entries >= in->entries &&
		   (!in->entries || a->entries < 2ULL * in->entries) &&
		   a->mmap_size >= need && a->mmap_size < need + FZ_PAGE &&
		   !(a->mmap_size % FZ_PAGE) && a->consumer_size == FZ_PAGE &&
		   a->mmap_offset && a->consumer_offset &&
		   !(a->mmap_offset % FZ_PAGE) &&
		   !(a->consumer_offset % FZ_PAGE) &&
		   a->mmap_offset != a->consumer_offset,
		   "cq-ring-answer", "MAP_CQ_RING answered an impossible ring"))
		return;
	fz_lock(ctx->sh);
	cq = find_obj(ctx, c->slot, a->handle);
	if (cq)
		cq->ring = a->entries;
	fz_unlock(ctx->sh);
	fz_cq_ring_map(ctx, c->fd, c->slot, a);
}

/*
 * Mostly a CQ with a ring (one without: EINVAL), or the ring made first;
 * a spin of none, a little, up to the module's bound, or absurd.
 */
bool fz_build_cq_wait(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_cq_wait *a = &c->a.cq_wait;
	struct fz_rng *r = &ctx->rng;
	uint32_t p = fz_below(r, 100);
	struct fz_obj cq;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (!pick_cq(ctx, c->slot, fz_chance(r, 90), &cq))
		return make_instead(ctx, c, IB_ASYNC_OBJ_CQ);
	if (!cq.ring && fz_chance(r, 50))
		return build_instead(ctx, c, IB_ASYNC_CMD_MAP_CQ_RING);
	a->handle = cq.handle;
	if (p < 50)
		a->spin_us = 0;
	else if (p < 85)
		a->spin_us = fz_range(r, 1, 100);
	else if (p < 95)
		a->spin_us = fz_range(r, 101, 2000);
	else
		a->spin_us = fz_chance(r, 50) ? ~0u : (uint32_t)fz_next(r);
	return true;
}

/*
 * No more available than the ring holds (its size when the table knows
 * the ring, else the bound), and no flag but FULL and POLL.
 */
void fz_done_cq_wait(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_cq_wait *a = &c->a.cq_wait;
	uint32_t most = FZ_CQ_RING_MAX;
	struct fz_obj *cq;

	fz_lock(ctx->sh);
	cq = find_obj(ctx, c->slot, a->handle);
	if (cq && cq->ring)
		most = cq->ring;
	fz_unlock(ctx->sh);
	if (a->available > most)
		fz_report(ctx, "cq-wait-available",
			  "CQ_WAIT: %u completions available in a ring of %u",
			  a->available, most);
	if (a->ring_flags & ~(IB_ASYNC_CQ_RING_FULL | IB_ASYNC_CQ_RING_POLL))
		fz_report(ctx, "cq-wait-flags", "CQ_WAIT: ring_flags %#x",
			  a->ring_flags);
	if (a->ring_flags & IB_ASYNC_CQ_RING_FULL)
		atomic_fetch_add(&ctx->sh->stats.ring_full, 1);
	if (a->ring_flags & IB_ASYNC_CQ_RING_POLL)
		atomic_fetch_add(&ctx->sh->stats.ring_poll, 1);
}

/* ---- submission rings ---- */

/*
 * A QP's send or receive ring, or an SRQ's; now and then the kind an
 * object cannot have (EINVAL), or one of another type.
 */
bool fz_build_map_wr_ring(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_map_wr_ring *a = &c->a.map_wr_ring;
	struct fz_rng *r = &ctx->rng;
	struct fz_obj o;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (fz_chance(r, 25) && fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_SRQ, &o))
		a->kind = fz_chance(r, 90) ? IB_ASYNC_WR_RING_RECV :
					     IB_ASYNC_WR_RING_SEND;
	else if (fz_pick_obj(ctx, c->slot, IB_ASYNC_OBJ_QP, &o))
		a->kind = fz_below(r, 2);
	else
		return make_instead(ctx, c, IB_ASYNC_OBJ_QP);
	a->obj_type = o.type;
	a->handle = o.handle;
	a->entries = fz_chance(r, 80) ? fz_below(r, 65) :
				       some_count(r, 64, IB_ASYNC_WR_RING_MAX + 1);
	return true;
}

/*
 * Write what a confused or hostile program would into a ring's slots: the
 * bytes of a receive or a send with some fields right, the rest noise,
 * and a producer near the kernel's consumer, or anywhere.
 */
static void wr_ring_scribble(struct fz_ctx *ctx,
			     const struct ib_async_map_wr_ring *a,
			     uint8_t *slots, uint32_t *producer,
			     uint32_t consumer)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t i, j, n = fz_below(r, a->entries + 1);

	for (i = 0; i < n; i++) {
		uint8_t *s = slots + (size_t)((consumer + i) &
					      (a->entries - 1)) * a->slot_size;
		struct ib_async_send_wr w = {
			.wr_id = fz_next(r),
			.num_sge = fz_chance(r, 80) ? fz_below(r, a->max_sge + 1) :
						      (uint32_t)fz_next(r),
			.opcode = fz_chance(r, 70) ? IB_UVERBS_WR_SEND :
						     fz_below(r, 16),
			.send_flags = fz_chance(r, 60) ? IB_ASYNC_SEND_SIGNALED :
							 (uint32_t)fz_next(r),
		};

		if (fz_chance(r, 10)) {
			for (j = 0; j < a->slot_size; j++)
				s[j] = (uint8_t)fz_next(r);
			continue;
		}
		if (a->kind == IB_ASYNC_WR_RING_SEND) {
			memcpy(s, &w, sizeof(w));
		} else {
			struct ib_async_recv_wr rw = {
				.wr_id = w.wr_id, .num_sge = w.num_sge,
				.reserved = fz_chance(r, 90) ? 0 : 1,
			};

			memcpy(s, &rw, sizeof(rw));
		}
		for (j = a->inline_offset - a->max_sge *
			 (uint32_t)sizeof(struct ib_async_sge);
		     j < a->inline_offset; j += sizeof(struct ib_async_sge)) {
			struct ib_async_sge g = {
				.addr = fz_valid_uptr(ctx, 64),
				.length = fz_below(r, 128),
				.lkey = (uint32_t)fz_next(r),
			};

			memcpy(s + j, &g, sizeof(g));
		}
	}
	__atomic_store_n(producer,
			 fz_chance(r, 90) ? consumer + n : (uint32_t)fz_next(r),
			 __ATOMIC_RELEASE);
}

/*
 * The answer is a ring of a power of two no smaller than asked, of whole
 * 64-byte slots, whose slots fit the size answered, behind a doorbell
 * naming the object and the kind. A process that may map it does, writes
 * into it as a program would (and worse), and unmaps it again: the next
 * doorbell finds what was left there.
 */
void fz_done_map_wr_ring(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_map_wr_ring *a = &c->a.map_wr_ring;
	const struct ib_async_map_wr_ring *in = (const void *)c->sent;
	const struct ib_async_wr_ring_header *h;
	struct fz_obj *o;
	uint8_t *s;

	if (!check(ctx, a->entries && !(a->entries & (a->entries - 1)) &&
		   a->entries <= IB_ASYNC_WR_RING_MAX &&
		   a->entries >= in->entries && a->slot_size &&
		   !(a->slot_size % 64) && a->inline_offset <= a->slot_size &&
		   a->slots_offset >= sizeof(struct ib_async_wr_ring_producer) &&
		   a->slots_mmap_size >= a->slots_offset +
					 (uint64_t)a->entries * a->slot_size &&
		   !(a->slots_mmap_size % FZ_PAGE) && a->mmap_size == FZ_PAGE &&
		   a->doorbell == ((uint64_t)a->handle << 1 | a->kind) &&
		   a->mmap_offset != a->slots_mmap_offset,
		   "wr-ring-answer", "MAP_WR_RING answered an impossible ring"))
		return;
	/* its doorbell is worth ringing now */
	fz_lock(ctx->sh);
	o = find_obj(ctx, c->slot, a->handle);
	if (o)
		o->wr_rings |= 1 << a->kind;
	fz_unlock(ctx->sh);
	if (!ctx->opener)
		return;
	h = mmap(NULL, a->mmap_size, PROT_READ, MAP_SHARED, c->fd,
		 (off_t)a->mmap_offset);
	s = mmap(NULL, a->slots_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 c->fd, (off_t)a->slots_mmap_offset);
	/* the file may have been reopened since: then this ring is gone */
	if (h != MAP_FAILED && s != MAP_FAILED && h->entries == a->entries &&
	    h->slot_size == a->slot_size)
		wr_ring_scribble(ctx, a, s + a->slots_offset, (uint32_t *)s,
				 __atomic_load_n(&h->consumer,
						 __ATOMIC_ACQUIRE));
	if (h != MAP_FAILED)
		munmap((void *)h, a->mmap_size);
	if (s != MAP_FAILED)
		munmap(s, a->slots_mmap_size);
}

/*
 * Mostly a QP's or SRQ's ring (the object may have none: EINVAL), now and
 * then any value at all.
 */
bool fz_build_wr_doorbell(struct fz_ctx *ctx, struct fz_call *c)
{
	struct fz_rng *r = &ctx->rng;
	struct fz_obj o;
	uint32_t kind;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (fz_chance(r, 5)) {
		c->a.doorbell.value = fz_next(r);
		return true;
	}
	if (!fz_pick_obj(ctx, c->slot, fz_chance(r, 80) ? IB_ASYNC_OBJ_QP :
							  IB_ASYNC_OBJ_SRQ, &o))
		return make_instead(ctx, c, IB_ASYNC_OBJ_QP);
	/* mostly a ring the object has; without one, often make it first */
	if (!o.wr_rings && fz_chance(r, 60))
		return build_instead(ctx, c, IB_ASYNC_CMD_MAP_WR_RING);
	kind = fz_below(r, 2);
	if (o.wr_rings && fz_chance(r, 90) && !(o.wr_rings & (1 << kind)))
		kind = !kind;
	c->a.doorbell.value = (uint64_t)o.handle << 1 | kind;
	return true;
}

/* Nothing comes back: the header says what happened, to the program. */
void fz_done_wr_doorbell(struct fz_ctx *ctx, struct fz_call *c)
{
	(void)ctx;
	(void)c;
}

/* ---- the poller ---- */

/*
 * A poller of the slot's file, which then posts and fills every ring
 * that the other workers scribble on, until the watchdog interrupts it;
 * or a STOP of another worker's. Short idle times, so that it sleeps and
 * is woken by their doorbells too.
 */
bool fz_build_poller(struct fz_ctx *ctx, struct fz_call *c)
{
	struct ib_async_poller *a = &c->a.poller;
	struct fz_rng *r = &ctx->rng;

	if (!datapath_here(ctx, c->slot))
		return false;
	if (fz_chance(r, 30)) {
		a->flags = IB_ASYNC_POLLER_STOP;
		return true;
	}
	a->idle_us = fz_chance(r, 80) ? fz_range(r, 1, 2000) :
					fz_below(r, 1000001);
	return true;
}

/* A poller's answer that cannot be, under @key. */
static void poller_report(struct fz_ctx *ctx, const char *key,
			  const struct ib_async_poller *a)
{
	fz_report(ctx, key,
		  "POLLER (flags %#x): %llu passes, %llu posted, %llu completions, %llu sleeps",
		  a->flags, (unsigned long long)a->passes,
		  (unsigned long long)a->posted,
		  (unsigned long long)a->completions,
		  (unsigned long long)a->sleeps);
}

/*
 * Only a poller answers counts, a STOP none; a poller no more sleeps
 * than passes, and nothing posted or moved without a pass.
 */
void fz_done_poller(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct ib_async_poller *a = &c->a.poller;

	if (a->flags & IB_ASYNC_POLLER_STOP) {
		if (a->passes || a->posted || a->completions || a->sleeps)
			poller_report(ctx, "poller-stop-counts", a);
		return;
	}
	if (a->sleeps > a->passes ||
	    (!a->passes && (a->posted || a->completions)))
		poller_report(ctx, "poller-counts", a);
}

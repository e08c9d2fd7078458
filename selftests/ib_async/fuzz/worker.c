// SPDX-License-Identifier: GPL-2.0
/*
 * A worker: a loop of random calls on the batch's files. Most are ioctls
 * with arguments from gen.c's builders; some are mutated from the command
 * table (spec.c): a wrong argsz (short, larger with a zero or non-zero
 * tail, beyond a page), unknown flag bits, non-zero reserved words,
 * answer fields set going in, stale, foreign or wrongly typed handles,
 * faulting and misaligned pointers, huge counts, the argument itself
 * misplaced (unmapped, read-only, against a guard page). Buffers the
 * kernel copies to or from are now and then behind faults answered late
 * (userfaultfd). Between the ioctls come read(), poll(), epoll, FIONREAD,
 * fcntl, dup, reopen, fork, short-lived files, event storms, unknown
 * commands and other syscalls the node must refuse.
 *
 * Every answer is checked against what the uAPI promises: a mutated
 * argument the kernel must refuse is refused, no kernel-internal errno
 * leaks out, nothing is written past argsz, records and completions are
 * well formed (gen.c). A breach is a report, with the seed and the call.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <linux/userfaultfd.h>
#include <rdma/ib_user_verbs.h>

#include "fuzz.h"

struct fz_mem fz_mem;
int fz_trace_fd = -1;

void fz_trace(struct fz_ctx *ctx, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	if (fz_trace_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "s%llu %d w%u c%llu: ",
		     (unsigned long long)ctx->sh->seed, getpid(), ctx->worker,
		     (unsigned long long)ctx->call);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	buf[n++] = '\n';
	if (write(fz_trace_fd, buf, n) < 0)
		fz_trace_fd = -1;
}

#define VOLAT_LEN	(64 * 1024)

static void *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("fuzz: mmap");
		exit(2);
	}
	return p;
}

void fz_mem_init(void)
{
	uint32_t i;

	fz_mem.guard = map(FZ_PAGE, PROT_NONE);
	/*
	 * Not a page unmapped here: a later mapping (a thread's stack) could
	 * take its place and the kernel would write into it.
	 */
	fz_mem.hole = (uint8_t *)(uintptr_t)FZ_PAGE;
	fz_mem.volat_len = VOLAT_LEN;
	fz_mem.volat = map(VOLAT_LEN + FZ_PAGE, PROT_READ | PROT_WRITE);
	mprotect(fz_mem.volat + VOLAT_LEN, FZ_PAGE, PROT_NONE);
	/*
	 * A mutated length may run a receive past the end: the guard page
	 * stops the kernel's copy there, whatever is mapped next.
	 */
	fz_mem.recv = map(FZ_RECV_LEN + FZ_PAGE, PROT_READ | PROT_WRITE);
	mprotect(fz_mem.recv + FZ_RECV_LEN, FZ_PAGE, PROT_NONE);
	fz_mem.send = map(IB_ASYNC_MAX_MSG + FZ_PAGE, PROT_READ | PROT_WRITE);
	for (i = 0; i < IB_ASYNC_MAX_MSG + FZ_PAGE; i++)
		fz_mem.send[i] = (uint8_t)(i * 7 + 1);
}

int fz_ctx_init(struct fz_ctx *ctx, struct fz_shared *sh, uint32_t worker,
		uint64_t budget, bool opener, uint32_t *my_gen)
{
	int fd;

	memset(ctx, 0, sizeof(*ctx));
	ctx->sh = sh;
	ctx->worker = worker;
	ctx->budget = budget;
	ctx->opener = opener;
	ctx->my_gen = my_gen;
	fz_seed(&ctx->rng, sh->seed + worker + 1);
	/* two pages for arguments, then a guard */
	ctx->arg_rw = map(3 * FZ_PAGE, PROT_READ | PROT_WRITE);
	mprotect(ctx->arg_rw + 2 * FZ_PAGE, FZ_PAGE, PROT_NONE);
	/* one page seen twice: written here, handed over read-only */
	fd = memfd_create("ib_async_fuzz", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, FZ_PAGE))
		return -1;
	ctx->arg_ro_w = mmap(NULL, FZ_PAGE, PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
	ctx->arg_ro = mmap(NULL, FZ_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (ctx->arg_ro_w == MAP_FAILED || ctx->arg_ro == MAP_FAILED)
		return -1;
	ctx->data = map(FZ_DATA_LEN + FZ_PAGE, PROT_READ | PROT_WRITE);
	mprotect(ctx->data + FZ_DATA_LEN, FZ_PAGE, PROT_NONE);
	ctx->lists = map(FZ_LIST_LEN + FZ_PAGE, PROT_READ | PROT_WRITE);
	mprotect(ctx->lists + FZ_LIST_LEN, FZ_PAGE, PROT_NONE);
	return 0;
}

void fz_report(struct fz_ctx *ctx, const char *key, const char *fmt, ...)
{
	struct fz_shared *sh = ctx->sh;
	struct fz_report *r;
	char msg[512];
	va_list ap;
	uint32_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fz_lock(sh);
	/* one report per key and batch is enough */
	for (i = 0; i < sh->nreports && i < FZ_MAX_REPORTS; i++)
		if (!strcmp(sh->report[i].key, key))
			break;
	if (i == sh->nreports || i == FZ_MAX_REPORTS) {
		if (sh->nreports < FZ_MAX_REPORTS) {
			r = &sh->report[sh->nreports];
			snprintf(r->key, sizeof(r->key), "%s", key);
			snprintf(r->text, sizeof(r->text),
				 "%s (worker %u, call %llu: %s)", msg,
				 ctx->worker, (unsigned long long)ctx->call,
				 ctx->desc);
		}
		sh->nreports++;
	}
	fz_unlock(sh);
}

/* Errnos the kernel keeps to itself (ERESTARTSYS, ENOTSUPP...). */
static void check_errno(struct fz_ctx *ctx, const char *what, int err)
{
	char key[96];

	if (err < 512)
		return;
	snprintf(key, sizeof(key), "errno-%d-%s", err, what);
	fz_report(ctx, key, "%s leaked kernel-internal errno %d", what, err);
}

static void count_call(struct fz_ctx *ctx)
{
	ctx->call++;
	atomic_fetch_add(&ctx->sh->calls, 1);
}

/*
 * This process's descriptors and what it believes of them (its dups, the
 * generation of each slot's file): changed and read under fd_lock, which
 * fork() takes too (pthread_atfork), so that a child's copy of the
 * descriptor table and of these beliefs are of the same instant.
 */
static int dups[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
static uint32_t dup_slot[8], dup_gen[8];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The descriptor for @slot: the shared one, or a dup this process made.
 * Notes in ctx->gen which file the call goes to: the slot's current one,
 * or 0 when this process's descriptor (or the dup) is older.
 */
static int slot_fd(struct fz_ctx *ctx, uint32_t slot)
{
	int fd = ctx->sh->file[slot].fd;
	uint32_t i = fz_below(&ctx->rng, 8), gen;
	bool use_dup = fz_chance(&ctx->rng, 10);

	pthread_mutex_lock(&fd_lock);
	gen = ctx->my_gen[slot];
	ctx->fd_dup = use_dup && dups[i] >= 0 && dup_slot[i] == slot;
	if (ctx->fd_dup) {
		fd = dups[i];
		gen = dup_gen[i];
	}
	ctx->fd_gen = gen;
	pthread_mutex_unlock(&fd_lock);
	fz_lock(ctx->sh);
	ctx->gen = gen == ctx->sh->file[slot].gen ? gen : 0;
	fz_unlock(ctx->sh);
	return fd;
}

/*
 * Whether the call's descriptor still names the file it named when the
 * call was set up (ctx->fd_gen of @slot), whatever other processes did
 * to the slot since: a dup always does, the slot's own descriptor until
 * a reopen in this process replaces it. A generation names one file in a
 * batch, so two calls for which this holds went to the same file if
 * their fd_gen are equal.
 */
bool fz_fd_unchanged(struct fz_ctx *ctx, uint32_t slot)
{
	bool same;

	if (ctx->fd_dup)
		return true;
	pthread_mutex_lock(&fd_lock);
	same = ctx->my_gen[slot] == ctx->fd_gen;
	pthread_mutex_unlock(&fd_lock);
	return same;
}

static uint32_t some_slot(struct fz_ctx *ctx)
{
	return fz_below(&ctx->rng, ctx->sh->nfiles);
}

/* ---- mutations ---- */

static const struct fz_field *pick_field(struct fz_ctx *ctx,
					 const struct fz_cmd *cmd, int kind)
{
	uint32_t i, n = 0, want;

	for (i = 0; i < cmd->nfields; i++)
		n += kind < 0 || cmd->fields[i].kind == kind;
	if (!n)
		return NULL;
	want = fz_below(&ctx->rng, n);
	for (i = 0; i < cmd->nfields; i++)
		if ((kind < 0 || cmd->fields[i].kind == kind) && !want--)
			return &cmd->fields[i];
	return NULL;
}

static void put_field(struct fz_call *c, const struct fz_field *f, uint64_t v)
{
	memcpy(c->a.raw + f->off, &v, f->size < 8 ? f->size : 8);
}

static uint64_t get_field(const struct fz_call *c, const struct fz_field *f)
{
	uint64_t v = 0;

	memcpy(&v, c->a.raw + f->off, f->size < 8 ? f->size : 8);
	return v;
}

static void note(struct fz_call *c, const char *what, const char *field)
{
	size_t n = strlen(c->mdesc);

	snprintf(c->mdesc + n, sizeof(c->mdesc) - n, "%s%s%s%s",
		 n ? "," : "", what, field ? ":" : "", field ? field : "");
}

static uint64_t boundary(struct fz_rng *r)
{
	static const uint64_t v[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
		0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
	};

	return fz_chance(r, 70) ? v[fz_below(r, sizeof(v) / sizeof(v[0]))] :
				  fz_next(r);
}

/* A value for a handle field other than the valid one. */
static uint32_t bad_handle(struct fz_ctx *ctx, struct fz_call *c,
			   const struct fz_field *f)
{
	struct fz_obj o;

	switch (fz_below(&ctx->rng, 6)) {
	case 0:
		return 0;
	case 1:
		return fz_stale_handle(ctx, c->slot);
	case 2:
		return fz_foreign_handle(ctx, c->slot);
	case 3:	/* a live object of another type */
		if (fz_pick_obj(ctx, c->slot, 0, &o) && o.type != f->arg)
			return o.handle;
		return (uint32_t)fz_next(&ctx->rng);
	case 4:
		return (uint32_t)boundary(&ctx->rng);
	default:
		return fz_range(&ctx->rng, 1, 200);
	}
}

static void mutate_argsz(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct fz_cmd *cmd = c->cmd;
	struct fz_rng *r = &ctx->rng;
	uint32_t extra;

	switch (fz_below(r, 5)) {
	case 0:
		c->argsz = fz_below(r, cmd->min_size);
		note(c, "argsz-short", NULL);
		break;
	case 1:
	case 2:
		extra = fz_chance(r, 70) ? fz_range(r, 1, 16) :
			fz_range(r, 1, FZ_PAGE - cmd->size);
		c->argsz = cmd->size + extra;
		c->len = c->argsz;
		if (fz_chance(r, 50)) {
			c->a.raw[cmd->size + fz_below(r, extra)] =
				fz_range(r, 1, 255);
			note(c, "argsz-tail", NULL);
		} else {
			note(c, "argsz-zero-tail", NULL);
		}
		break;
	case 3:
		c->argsz = FZ_PAGE + 1 + fz_below(r, fz_chance(r, 50) ? 64 :
						  0x7fffffff);
		note(c, "argsz-huge", NULL);
		break;
	default:
		c->argsz = (uint32_t)boundary(r);
		if (c->argsz > cmd->size && c->argsz <= FZ_PAGE)
			c->len = c->argsz;
		note(c, "argsz-any", NULL);
		break;
	}
}

static void mutate_field(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct fz_cmd *cmd = c->cmd;
	struct fz_rng *r = &ctx->rng;
	const struct fz_field *f;
	uint64_t v;

	switch (fz_below(r, 8)) {
	case 0:	/* an unknown flag bit; a doorbell has no flags */
		f = pick_field(ctx, cmd, FK_FLAGS);
		if (!f)
			break;
		v = get_field(c, f);
		do {
			v |= 1ULL << fz_below(r, 32);
		} while (!(v & ~(uint64_t)f->arg));
		put_field(c, f, v);
		note(c, "flags", NULL);
		return;
	case 1:	/* a reserved word, or an answer that must be 0 going in */
		f = fz_chance(r, 30) ? pick_field(ctx, cmd, FK_OUT0) : NULL;
		if (!f)
			f = pick_field(ctx, cmd, FK_RSV);
		if (!f)
			break;
		do {
			v = boundary(r);
		} while (!(v & ((f->size < 8 ? 1ULL << (8 * f->size) : 0) - 1)));
		put_field(c, f, v);
		note(c, f->kind == FK_OUT0 ? "out-in" : "reserved", f->name);
		return;
	case 2:
		f = pick_field(ctx, cmd, FK_HANDLE);
		if (!f)
			break;
		put_field(c, f, bad_handle(ctx, c, f));
		/* it may name a QP taking packets: see reset_is_safe() */
		if (cmd->nr == IB_ASYNC_CMD_MODIFY_QP &&
		    c->a.qp_attr.qp_state == QPS_RESET)
			c->a.qp_attr.qp_state = QPS_ERR;
		note(c, "handle", f->name);
		return;
	case 3:
		f = pick_field(ctx, cmd, FK_UPTR);
		if (!f)
			break;
		put_field(c, f, fz_bad_uptr(ctx, 4096,
					    cmd->nr == IB_ASYNC_CMD_POST_RECV));
		note(c, "uptr", f->name);
		return;
	case 4:
		f = pick_field(ctx, cmd, fz_chance(r, 50) ? FK_COUNT : FK_LEN);
		if (!f)
			break;
		put_field(c, f, boundary(r));
		note(c, "count", f->name);
		return;
	case 5:
		f = pick_field(ctx, cmd, fz_chance(r, 50) ? FK_OBJTYPE : FK_PORT);
		if (!f)
			break;
		put_field(c, f, fz_chance(r, 50) ? fz_below(r, 16) : boundary(r));
		note(c, "value", f->name);
		return;
	default:
		break;
	}
	/* any field, any value */
	f = pick_field(ctx, cmd, -1);
	/* argsz has its own mutations (a doorbell's one field is its value) */
	if (f == &cmd->fields[0] && !cmd->value) {
		mutate_argsz(ctx, c);
		return;
	}
	v = boundary(r);
	put_field(c, f, v);
	note(c, "value", f->name);
}

/* Where the argument goes; returns the pointer handed to the kernel. */
static void *place(struct fz_ctx *ctx, struct fz_call *c, bool bad)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t n;
	uint8_t *p;

	memcpy(c->a.raw, &c->argsz, sizeof(c->argsz));
	if (bad) {
		if (fz_chance(r, 50)) {
			note(c, "arg-read-only", NULL);
			memcpy(ctx->arg_ro_w, c->a.raw,
			       c->len < FZ_PAGE ? c->len : FZ_PAGE);
			return ctx->arg_ro;
		}
		c->unmapped = true;
		note(c, "arg-pointer", NULL);
		switch (fz_below(r, 4)) {
		case 0:
			return NULL;
		case 1:
			return fz_mem.hole;
		case 2:
			return fz_mem.guard;
		default:
			return (void *)0xffffffff81000000ULL;
		}
	}
	switch (fz_below(r, 10)) {
	case 0:	/* misaligned */
		p = ctx->arg_rw + fz_range(r, 1, 7);
		break;
	case 1:	/* the structure against a guard page, its tail in it */
		n = c->len < c->cmd->size ? c->len : c->cmd->size;
		p = ctx->arg_rw + 2 * FZ_PAGE - n;
		memcpy(p, c->a.raw, n);
		return p;
	default:
		p = ctx->arg_rw;
		break;
	}
	memcpy(p, c->a.raw, c->len);
	return p;
}

/* Set @c up as @cmd on @slot, with a zeroed argument. */
static void call_init(struct fz_ctx *ctx, struct fz_call *c,
		      const struct fz_cmd *cmd, uint32_t slot)
{
	memset(c, 0, offsetof(struct fz_call, a));
	memset(&c->a, 0, sizeof(c->a));
	c->mdesc[0] = 0;
	c->cmd = cmd;
	c->slot = slot;
	c->fd = slot_fd(ctx, slot);
}

/* Set @c up as @cmd on @slot with the builder's arguments. */
bool fz_prepare(struct fz_ctx *ctx, struct fz_call *c,
		const struct fz_cmd *cmd, uint32_t slot)
{
	call_init(ctx, c, cmd, slot);
	if (!cmd->build(ctx, c))
		return false;
	c->argsz = c->cmd->size;
	c->len = c->argsz;
	return true;
}

/*
 * Which rules the argument, as it finally is, breaks: mutations may undo
 * each other (a tail written, then argsz shortened below it; a reserved
 * word set, then cleared), so their history does not say.
 */
static unsigned int breaks(const struct fz_call *c)
{
	const struct fz_cmd *cmd = c->cmd;
	unsigned int m = c->unmapped ? FZ_B_UNMAPPED : 0, i;

	if (c->argsz < cmd->min_size)
		return m | FZ_B_SHORT;
	/* the tail even beyond a page: tail_hit() relies on it */
	for (i = cmd->size; i < c->argsz && i < c->len; i++)
		if (c->a.raw[i])
			m |= FZ_B_TAIL;
	if (c->argsz > FZ_PAGE)
		return m | FZ_B_HUGE;
	for (i = 0; i < cmd->nfields; i++) {
		const struct fz_field *f = &cmd->fields[i];
		uint64_t v = get_field(c, f);

		if (f->kind == FK_FLAGS && (v & ~(uint64_t)f->arg))
			m |= FZ_B_FLAGS;
		if (f->kind == FK_RSV && v)
			m |= FZ_B_RSV;
		if (f->kind == FK_OUT0 && v)
			m |= FZ_B_OUTIN;
	}
	return m;
}

static const char *must_fail_why(unsigned int b)
{
	if (b & FZ_B_UNMAPPED)
		return "an unmapped argument";
	if (b & FZ_B_SHORT)
		return "argsz below the first version";
	if (b & FZ_B_HUGE)
		return "argsz beyond a page";
	if (b & FZ_B_TAIL)
		return "a non-zero tail past the kernel's structure";
	if (b & FZ_B_FLAGS)
		return "an unknown flag bit";
	if (b & FZ_B_OUTIN)
		return "an out-only field set going in";
	return "a non-zero reserved field";
}

/*
 * Bytes right after an argument placed with exactly argsz bytes, which the
 * kernel must leave alone whatever the call comes to: it copies its answer
 * back up to argsz at most (a caller of an older, shorter structure gets
 * none of the newer fields). Only the worker's own argument area is
 * watched, and nothing the fuzzer hands the kernel points into it:
 * records, completions and MRs are in the data or slow area, receives in
 * the receive or volatile one, bad pointers elsewhere again. A changed
 * byte there is the argument's own copy gone too far. NULL where the
 * argument is elsewhere (read-only, bad pointer), is placed longer or
 * shorter than argsz, or ends too near the guard page for the canary.
 */
#define FZ_CANARY	16
#define FZ_CANARY_BYTE	0xa5

/* All c->len bytes of the argument are in the worker's own area. */
static bool placed_whole(struct fz_ctx *ctx, const struct fz_call *c,
			 const uint8_t *p)
{
	const uint8_t *end = ctx->arg_rw + 2 * FZ_PAGE;

	return p >= ctx->arg_rw && p < end && c->len <= (size_t)(end - p);
}

static uint8_t *canary_of(struct fz_ctx *ctx, const struct fz_call *c,
			  void *where)
{
	uint8_t *p = where, *end = ctx->arg_rw + 2 * FZ_PAGE;

	if (!placed_whole(ctx, c, p) || c->argsz != c->len ||
	    (size_t)(end - p) - c->len < FZ_CANARY)
		return NULL;
	return p + c->len;
}

/*
 * The bytes between the kernel's structure and a larger argsz, all zero
 * going in (a caller built against a newer uAPI; a non-zero one is E2BIG,
 * FZ_B_TAIL in @broken, what breaks() found): the kernel answers up to its
 * own size, so they are zero still. The canary cannot see them, they are
 * within argsz. The first changed byte past the kernel's structure, or -1
 * (also when not placed whole).
 */
static int tail_hit(struct fz_ctx *ctx, const struct fz_call *c,
		    const uint8_t *where, unsigned int broken)
{
	uint32_t i, end = c->argsz < c->len ? c->argsz : c->len;

	if (broken & FZ_B_TAIL || !placed_whole(ctx, c, where))
		return -1;
	for (i = c->cmd->size; i < end; i++)
		if (where[i])
			return (int)(i - c->cmd->size);
	return -1;
}

/* The canary's first changed byte, or -1. */
static int canary_hit(const uint8_t *canary)
{
	int i;

	for (i = 0; canary && i < FZ_CANARY; i++)
		if (canary[i] != FZ_CANARY_BYTE)
			return i;
	return -1;
}

/*
 * The ioctl of @c with @arg, as every call is made: the watchdog's clock
 * around it, traced, counted, and checked for an errno the command may
 * not return and for a positive result. Return: the ioctl's; *@err its
 * errno, 0 on success.
 */
static int send_ioctl(struct fz_ctx *ctx, struct fz_call *c, unsigned long arg,
		      int *err)
{
	const struct fz_cmd *cmd = c->cmd;
	char key[96];
	int ret;

	atomic_store(&ctx->busy_since, fz_now_ms());
	ret = ioctl(c->fd, _IO(IB_ASYNC_IOC_MAGIC, cmd->nr), arg);
	*err = ret < 0 ? errno : 0;
	atomic_store(&ctx->busy_since, 0);
	fz_trace(ctx, "%s fd %d gen %u -> %d", ctx->desc, c->fd, ctx->gen,
		 ret < 0 ? -*err : ret);
	count_call(ctx);
	atomic_fetch_add(&ctx->sh->stats.cmd_calls[cmd->nr - IB_ASYNC_CMD_BASE], 1);
	if (!ret)
		atomic_fetch_add(&ctx->sh->stats.cmd_ok[cmd->nr - IB_ASYNC_CMD_BASE],
				 1);
	check_errno(ctx, cmd->name, *err);
	if (ret > 0) {
		snprintf(key, sizeof(key), "positive-%s", cmd->name);
		fz_report(ctx, key, "%s returned %d", cmd->name, ret);
	}
	return ret;
}

/* A POLLER call to @slot begins (@d 1) or returned (-1): see fz_file.polls. */
static void poller_mark(struct fz_ctx *ctx, uint32_t slot, int d)
{
	struct fz_file *f = &ctx->sh->file[slot];

	fz_lock(ctx->sh);
	if (d > 0)
		f->polls++;
	f->polling += d;
	fz_unlock(ctx->sh);
}

/*
 * A doorbell: the value is the argument, nothing is placed, and nothing
 * comes back to check but the result.
 */
static int issue_value(struct fz_ctx *ctx, struct fz_call *c)
{
	const struct fz_cmd *cmd = c->cmd;
	int ret, err;

	snprintf(ctx->desc, sizeof(ctx->desc), "%s slot %u value %#llx%s%s",
		 cmd->name, c->slot, (unsigned long long)c->a.doorbell.value,
		 c->mdesc[0] ? " mutated " : "", c->mdesc);
	ret = send_ioctl(ctx, c, (unsigned long)c->a.doorbell.value, &err);
	if (!ret && cmd->done)
		cmd->done(ctx, c);
	return ret < 0 ? -err : 0;
}

/*
 * May the call take records out of its file's channels unread? DESTROY
 * purges its object's. So does a create of an object with events whose
 * answer cannot be written (its argument placed badly, on a read-only
 * page say): the kernel destroys the object again, and with it what its
 * events queued meanwhile (ib_async_cmd_created()).
 */
static bool may_purge(unsigned int nr, bool bad_place)
{
	switch (nr) {
	case IB_ASYNC_CMD_DESTROY:
		return true;
	case IB_ASYNC_CMD_CREATE_CQ:
	case IB_ASYNC_CMD_CREATE_QP:
	case IB_ASYNC_CMD_CREATE_SRQ:
	case IB_ASYNC_CMD_CREATE_WQ:
		return bad_place;
	default:
		return false;
	}
}

static int issue(struct fz_ctx *ctx, struct fz_call *c, bool bad_place)
{
	const struct fz_cmd *cmd = c->cmd;
	unsigned int broken;
	uint8_t *canary;
	int ret, err, hit;
	void *where;
	char key[96];

	if (cmd->value)
		return issue_value(ctx, c);
	if (c->len > sizeof(c->a.raw))
		c->len = sizeof(c->a.raw);
	where = place(ctx, c, bad_place);
	broken = breaks(c);
	canary = canary_of(ctx, c, where);
	if (canary)
		memset(canary, FZ_CANARY_BYTE, FZ_CANARY);
	memcpy(c->sent, c->a.raw, sizeof(c->sent));
	if (cmd->nr == IB_ASYNC_CMD_REQ_NOTIFY_CQ) {
		fz_lock(ctx->sh);
		ctx->sh->file[c->slot].arms++;
		fz_unlock(ctx->sh);
	}
	if (may_purge(cmd->nr, bad_place)) {
		fz_lock(ctx->sh);
		ctx->sh->file[c->slot].destroys++;
		fz_unlock(ctx->sh);
	}
	if (cmd->nr == IB_ASYNC_CMD_POLLER)
		poller_mark(ctx, c->slot, 1);
	snprintf(ctx->desc, sizeof(ctx->desc),
		 "%s slot %u argsz %u%s%s", cmd->name, c->slot, c->argsz,
		 c->mdesc[0] ? " mutated " : "", c->mdesc);
	ret = send_ioctl(ctx, c, (unsigned long)where, &err);
	if (cmd->nr == IB_ASYNC_CMD_POLLER)
		poller_mark(ctx, c->slot, -1);
	hit = canary_hit(canary);
	if (hit >= 0) {
		snprintf(key, sizeof(key), "past-argsz-%s", cmd->name);
		fz_report(ctx, key, "%s (%s) wrote byte %d past argsz",
			  cmd->name, ret ? strerror(err) : "success", hit);
	}
	hit = tail_hit(ctx, c, where, broken);
	if (hit >= 0) {
		snprintf(key, sizeof(key), "zero-tail-%s", cmd->name);
		fz_report(ctx, key,
			  "%s (%s) wrote byte %d past its structure, in argsz",
			  cmd->name, ret ? strerror(err) : "success", hit);
	}
	/*
	 * The verdict is of the list as built, for the QP the slot's table
	 * named: any mutation voids it, and so does a reopen of the slot
	 * since, after which the same handle names another file's object.
	 */
	if (!ret && c->rules_refuse && !c->mdesc[0] &&
	    c->a.post_list.handle == c->rules_handle &&
	    c->a.post_list.count == c->rules_count && fz_same_file(ctx, c->slot))
		fz_report(ctx, "accepted-POST_SEND_LIST-send-rules",
			  "POST_SEND_LIST took a request the send rules refuse");
	if (!ret && broken) {
		snprintf(key, sizeof(key), "accepted-%s-%s", cmd->name,
			 must_fail_why(broken));
		fz_report(ctx, key, "%s succeeded with %s", cmd->name,
			  must_fail_why(broken));
	}
	if (!ret && (uint8_t *)where >= ctx->arg_rw &&
	    (uint8_t *)where < ctx->arg_rw + 2 * FZ_PAGE) {
		/* the answer is in the placed copy */
		memcpy(c->a.raw, where, c->len < cmd->size ? c->len : cmd->size);
		if (cmd->done)
			cmd->done(ctx, c);
	}
	return ret < 0 ? -err : 0;
}

int fz_issue(struct fz_ctx *ctx, struct fz_call *c)
{
	return issue(ctx, c, false);
}

/*
 * A plain call of the recipes: @arg filled by the caller, sent to @fd (a
 * channel of the slot's file), or to the slot's own file when @fd < 0.
 */
int fz_ioc_on(struct fz_ctx *ctx, uint32_t slot, int fd, unsigned int nr,
	      void *arg)
{
	const struct fz_cmd *cmd = fz_cmd_by_nr(nr);
	struct fz_call c;
	int ret;

	call_init(ctx, &c, cmd, slot);
	if (fd >= 0)
		c.fd = fd;
	memcpy(c.a.raw, arg, cmd->size);
	c.argsz = cmd->size;
	c.len = cmd->size;
	ret = issue(ctx, &c, false);
	memcpy(arg, c.a.raw, cmd->size);
	return ret;
}

int fz_ioc(struct fz_ctx *ctx, uint32_t slot, unsigned int nr, void *arg)
{
	return fz_ioc_on(ctx, slot, -1, nr, arg);
}

/* One ioctl from the table, valid or mutated. */
static void act_ioctl(struct fz_ctx *ctx, bool mutate)
{
	struct fz_rng *r = &ctx->rng;
	const struct fz_cmd *cmd;
	uint32_t i, w, tries, slot, total = 0;
	struct fz_call c;
	bool bad = false;

	for (i = 0; i < fz_ncmds; i++)
		total += fz_cmds[i].weight;
	for (tries = 0; tries < 4; tries++) {
		slot = some_slot(ctx);
		w = fz_below(r, total);
		for (i = 0; w >= fz_cmds[i].weight; i++)
			w -= fz_cmds[i].weight;
		cmd = &fz_cmds[i];
		/* a full table of objects: make room */
		if (ctx->sh->file[slot].nobj > FZ_MAX_OBJS * 3 / 4 &&
		    fz_chance(r, 30))
			cmd = fz_cmd_by_nr(IB_ASYNC_CMD_DESTROY);
		if (fz_prepare(ctx, &c, cmd, slot))
			break;
	}
	if (tries == 4 && !fz_prepare(ctx, &c, &fz_cmds[0], some_slot(ctx)))
		return;
	if (mutate) {
		i = fz_chance(r, 70) ? 1 : fz_range(r, 2, 3);
		while (i--) {
			/* a doorbell has no argsz to get wrong */
			if (fz_chance(r, 25) && !c.cmd->value)
				mutate_argsz(ctx, &c);
			else
				mutate_field(ctx, &c);
		}
		bad = fz_chance(r, 10);
	}
	issue(ctx, &c, bad);
}

/* ---- other calls on the node ---- */

static void act_read(struct fz_ctx *ctx)
{
	const size_t rec = sizeof(struct ib_async_event);
	struct fz_rng *r = &ctx->rng;
	uint32_t slot = some_slot(ctx), p = fz_below(r, 100);
	size_t len;
	uint64_t buf;
	ssize_t n;
	int err;

	if (p < 5)
		len = 0;
	else if (p < 12)
		len = fz_range(r, 1, rec - 1);
	else if (p < 80)
		len = rec * fz_range(r, 1, 64);
	else if (p < 95)
		len = rec * fz_range(r, 1, 64) + fz_range(r, 1, rec - 1);
	else
		len = (size_t)1 << fz_range(r, 16, 40);
	buf = fz_chance(r, 85) ? fz_out_uptr(ctx, len) :
				 fz_bad_uptr(ctx, len, false);
	snprintf(ctx->desc, sizeof(ctx->desc), "read slot %u len %zu", slot,
		 len);
	atomic_store(&ctx->busy_since, fz_now_ms());
	n = read(slot_fd(ctx, slot), (void *)(uintptr_t)buf, len);
	err = n < 0 ? errno : 0;
	atomic_store(&ctx->busy_since, 0);
	count_call(ctx);
	check_errno(ctx, "read", err);
	if (n < 0)
		return;
	if (n % rec || (size_t)n > len) {
		fz_report(ctx, "read-size", "read(%zu) returned %zd", len, n);
		return;
	}
	if (buf >= (uintptr_t)ctx->data &&
	    buf + n <= (uintptr_t)ctx->data + FZ_DATA_LEN)
		fz_check_records(ctx, slot, (const void *)(uintptr_t)buf,
				 n / rec);
}

static void act_poll(struct fz_ctx *ctx)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t slot = some_slot(ctx);
	int fd = slot_fd(ctx, slot), ep;
	struct epoll_event ev = { .events = EPOLLIN }, out[2];
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI | POLLOUT };

	snprintf(ctx->desc, sizeof(ctx->desc), "poll slot %u", slot);
	atomic_store(&ctx->busy_since, fz_now_ms());
	if (fz_chance(r, 60)) {
		poll(&p, 1, fz_below(r, 5));
	} else {
		ep = epoll_create1(EPOLL_CLOEXEC);
		if (fz_chance(r, 50))
			ev.events |= EPOLLET;
		if (ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			epoll_wait(ep, out, 2, fz_below(r, 5));
		if (ep >= 0)
			close(ep);
	}
	atomic_store(&ctx->busy_since, 0);
	count_call(ctx);
}

static void act_fionread(struct fz_ctx *ctx)
{
	uint32_t slot = some_slot(ctx);
	uint64_t p = fz_chance(&ctx->rng, 85) ? fz_valid_uptr(ctx, 4) :
						fz_bad_uptr(ctx, 4, false);
	int ret;

	snprintf(ctx->desc, sizeof(ctx->desc), "FIONREAD slot %u", slot);
	ret = ioctl(slot_fd(ctx, slot), FIONREAD, (void *)(uintptr_t)p);
	count_call(ctx);
	check_errno(ctx, "FIONREAD", ret < 0 ? errno : 0);
	if (!ret && p >= (uintptr_t)ctx->data &&
	    p + 4 <= (uintptr_t)ctx->data + FZ_DATA_LEN) {
		int v;

		memcpy(&v, (void *)(uintptr_t)p, sizeof(v));
		if (v < 0 || v % (int)sizeof(struct ib_async_event))
			fz_report(ctx, "fionread", "FIONREAD stored %d", v);
	}
}

/* O_NONBLOCK and O_ASYNC are the open file's: every worker sees them. */
static void act_fcntl(struct fz_ctx *ctx)
{
	struct fz_rng *r = &ctx->rng;
	int fd = slot_fd(ctx, some_slot(ctx));
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0) {
		count_call(ctx);
		return;
	}
	if (fz_chance(r, 80))
		fl |= O_NONBLOCK;
	else
		fl &= ~O_NONBLOCK;
	if (fz_chance(r, 15)) {
		fl ^= O_ASYNC;
		fcntl(fd, F_SETOWN, getpid());
	}
	fcntl(fd, F_SETFL, fl);
	count_call(ctx);
}

/*
 * A second descriptor of a slot's file. Dups are closed only when the
 * process exits: a number closed under another worker's feet could name
 * some other file by the time it is used.
 */
static void act_dup(struct fz_ctx *ctx)
{
	uint32_t i = fz_below(&ctx->rng, 8), slot = some_slot(ctx);

	pthread_mutex_lock(&fd_lock);
	if (dups[i] < 0) {
		dups[i] = dup(ctx->sh->file[slot].fd);
		dup_slot[i] = slot;
		dup_gen[i] = ctx->my_gen[slot];
	}
	pthread_mutex_unlock(&fd_lock);
	count_call(ctx);
}

/*
 * A new file in the place of a slot's, atomically (dup2), so the other
 * workers' calls go to the old file or the new one and never to some
 * other descriptor. The old file is released once no call holds it.
 */
static void act_reopen(struct fz_ctx *ctx)
{
	uint32_t slot = some_slot(ctx);
	struct fz_file *f = &ctx->sh->file[slot];
	const char *node = ctx->sh->dev[f->dev].node;
	int fd;

	fd = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	count_call(ctx);
	if (fd < 0)
		return;
	pthread_mutex_lock(&fd_lock);
	fz_lock(ctx->sh);
	if (dup2(fd, f->fd) >= 0) {
		fz_file_reset(f);
		ctx->my_gen[slot] = ++f->gen;
		fz_trace(ctx, "reopen slot %u fd %d gen %u", slot, f->fd,
			 f->gen);
	}
	fz_unlock(ctx->sh);
	pthread_mutex_unlock(&fd_lock);
	close(fd);
}

/*
 * Now and then a completion ring for the short-lived file's CQ, mapped
 * and kept in the process's table: the file is closed with it mapped, and
 * its release waits for the last mapping.
 */
static void transient_ring(struct fz_ctx *ctx, int fd, uint32_t cq)
{
	struct ib_async_map_cq_ring m = {
		.argsz = sizeof(m), .handle = cq,
		.entries = fz_below(&ctx->rng, 5),
	};

	if (fz_chance(&ctx->rng, 50) &&
	    !ioctl(fd, IB_ASYNC_IOC_MAP_CQ_RING, &m))
		fz_cq_ring_map(ctx, fd, FZ_OWN_FILE, &m);
}

/*
 * A file of its own for a few calls, closed with objects, requests,
 * events and a mapped completion ring still there.
 */
static void act_transient(struct fz_ctx *ctx)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t slot = some_slot(ctx);
	const char *node = ctx->sh->dev[ctx->sh->file[slot].dev].node;
	struct ib_async_create_pd pd = { .argsz = sizeof(pd) };
	struct ib_async_create_cq cq = { .argsz = sizeof(cq), .cqe = 1 };
	struct ib_async_create_qp qp = {
		.argsz = sizeof(qp), .qp_type = IB_UVERBS_QPT_UD,
		.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
		.max_recv_sge = 1,
	};
	struct ib_async_qp_attr init = {
		.argsz = sizeof(init), .qp_state = 1, .port_num = 1,
		.qkey = 0x11111111,
		.attr_mask = IB_ASYNC_QP_STATE | IB_ASYNC_QP_PKEY_INDEX |
			     IB_ASYNC_QP_PORT | IB_ASYNC_QP_QKEY,
	};
	struct ib_async_post_recv rv = { .argsz = sizeof(rv),
					 .obj_type = IB_ASYNC_OBJ_QP,
					 .length = 64 };
	struct ib_async_queue_len ql = { .argsz = sizeof(ql), .queue_len = 1 };
	struct ib_async_req_notify_cq arm = { .argsz = sizeof(arm) };
	int fd, i, n = fz_range(r, 1, 4);

	/* its calls count as 7, whatever they come to */
	if (ctx->budget - ctx->call < 7) {
		act_fionread(ctx);
		return;
	}
	snprintf(ctx->desc, sizeof(ctx->desc), "transient file on %s", node);
	fd = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	count_call(ctx);
	if (fd < 0) {
		for (i = 0; i < 6; i++)
			count_call(ctx);
		return;
	}
	if (fz_chance(r, 50))
		ioctl(fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &ql);
	if (!ioctl(fd, IB_ASYNC_IOC_CREATE_PD, &pd) &&
	    !ioctl(fd, IB_ASYNC_IOC_CREATE_CQ, &cq)) {
		transient_ring(ctx, fd, cq.handle);
		qp.pd_handle = pd.handle;
		qp.send_cq_handle = cq.handle;
		qp.recv_cq_handle = cq.handle;
		if (!ioctl(fd, IB_ASYNC_IOC_CREATE_QP, &qp)) {
			init.handle = qp.handle;
			ioctl(fd, IB_ASYNC_IOC_MODIFY_QP, &init);
			rv.handle = qp.handle;
			for (i = 0; i < n; i++) {
				rv.addr = fz_recv_uptr(ctx, 64);
				ioctl(fd, IB_ASYNC_IOC_POST_RECV, &rv);
			}
			/* ERR flushes the receives into a 1-entry CQ */
			init.attr_mask = IB_ASYNC_QP_STATE;
			init.qp_state = 6;
			if (fz_chance(r, 70))
				ioctl(fd, IB_ASYNC_IOC_MODIFY_QP, &init);
			/* arming fills the CQ's ring, if it has one */
			arm.handle = cq.handle;
			ioctl(fd, IB_ASYNC_IOC_REQ_NOTIFY_CQ, &arm);
		}
	}
	close(fd);
	for (i = 0; i < 6; i++)
		count_call(ctx);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	size_t n = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, n) != (ssize_t)n)
		ret = -errno;
	close(fd);
	return ret;
}

/* Events: a storm through ib_dispatch_event(), or an evsrc raise. */
static void act_events(struct fz_ctx *ctx)
{
	static const char *const port_ev[] = {
		"PORT_ACTIVE", "PORT_ERR", "LID_CHANGE", "PKEY_CHANGE",
		"SM_CHANGE", "CLIENT_REREGISTER",
	};
	static const char *const qp_ev[] = {
		"QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST",
		"SQ_DRAINED", "PATH_MIG", "PATH_MIG_ERR",
		"QP_LAST_WQE_REACHED",
	};
	static const char *const ctxs[] = { "process", "softirq", "hardirq" };
	struct fz_rng *r = &ctx->rng;
	struct fz_shared *sh = ctx->sh;
	uint32_t d = fz_below(r, sh->ndev), count;
	char buf[256], kind[16], line[256];
	unsigned int id, n = 0, want;
	const char *type;
	FILE *f;

	count = fz_chance(r, 90) ? fz_range(r, 1, 64) : fz_range(r, 65, 2000);
	count_call(ctx);
	if (sh->dev[d].kind != FZ_DEV_EVSRC || fz_chance(r, 30)) {
		if (!sh->storm)
			return;
		snprintf(buf, sizeof(buf), "%s %s %u %u\n", sh->dev[d].ibdev,
			 port_ev[fz_below(r, 6)], fz_range(r, 1, sh->dev[d].ports),
			 count);
		snprintf(ctx->desc, sizeof(ctx->desc), "storm %.200s", buf);
		write_str("/sys/kernel/debug/ib_async_storm/dispatch", buf);
		return;
	}
	/* an object evsrc made for any file: it raises on its handler */
	snprintf(buf, sizeof(buf), "/sys/kernel/debug/ib_async_evsrc/%s/objects",
		 sh->dev[d].ibdev);
	f = fopen(buf, "re");
	if (!f)
		return;
	want = fz_below(r, 64);
	kind[0] = 0;
	id = 0;
	while (fgets(line, sizeof(line), f)) {
		char k[16];
		unsigned int i;

		if (sscanf(line, "%15s %u", k, &i) != 2 || !strcmp(k, "pd") ||
		    !strcmp(k, "ah"))
			continue;
		if (!n++ || fz_below(r, n) == 0) {
			snprintf(kind, sizeof(kind), "%s", k);
			id = i;
		}
		if (n > want)
			break;
	}
	fclose(f);
	if (!kind[0] || fz_chance(r, 15)) {
		snprintf(kind, sizeof(kind), "port");
		id = fz_range(r, 1, sh->dev[d].ports);
	}
	if (!strcmp(kind, "cq"))
		type = "CQ_ERR";
	else if (!strcmp(kind, "qp"))
		type = qp_ev[fz_below(r, 8)];
	else if (!strcmp(kind, "srq"))
		type = fz_chance(r, 50) ? "SRQ_ERR" : "SRQ_LIMIT_REACHED";
	else if (!strcmp(kind, "wq"))
		type = "WQ_FATAL";
	else
		type = port_ev[fz_below(r, 6)];
	snprintf(line, sizeof(line), "%s %s:%u %s %u\n", type, kind, id,
		 ctxs[fz_below(r, sh->rt ? 2 : 3)], count);
	snprintf(ctx->desc, sizeof(ctx->desc), "raise %.200s", line);
	snprintf(buf, sizeof(buf), "/sys/kernel/debug/ib_async_evsrc/%s/raise",
		 sh->dev[d].ibdev);
	write_str(buf, line);
}

/* Commands that are not ours, and syscalls the node refuses. */
static void act_misc(struct fz_ctx *ctx)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t slot = some_slot(ctx), nr, type, dir, size;
	int fd = slot_fd(ctx, slot), ret, err;
	unsigned long cmd;
	void *p;

	switch (fz_below(r, 6)) {
	case 0:	/* our type, a number outside the table */
		do {
			nr = fz_range(r, 0x80, 0xbf);
		} while (fz_cmd_by_nr(nr));
		cmd = _IO(IB_ASYNC_IOC_MAGIC, nr);
		goto ours;
	case 1:	/* our numbers with direction or size bits (uAPI 1 style) */
		nr = fz_range(r, IB_ASYNC_CMD_BASE, IB_ASYNC_CMD_LAST);
		do {
			dir = fz_below(r, 4);
			size = fz_chance(r, 70) ? fz_below(r, 256) :
				fz_below(r, 1 << 14);
		} while (!dir && !size);
		cmd = _IOC(dir, IB_ASYNC_IOC_MAGIC, nr, size);
ours:
		snprintf(ctx->desc, sizeof(ctx->desc), "ioctl 0x%lx", cmd);
		ret = ioctl(fd, cmd, (void *)(uintptr_t)fz_valid_uptr(ctx, 256));
		err = ret < 0 ? errno : 0;
		count_call(ctx);
		check_errno(ctx, "unknown ioctl", err);
		if (ret != -1 || (err != ENOTTY && err != EBADF))
			fz_report(ctx, "unknown-ioctl",
				  "ioctl 0x%lx, not a command, returned %d errno %d",
				  cmd, ret, err);
		return;
	case 2:	/* someone else's type; not the VFS's own (FIFREEZE...) */
		do {
			type = fz_below(r, 256);
		} while (type == 'X' || type == 'f' || type == 0x94 ||
			 type == IB_ASYNC_IOC_MAGIC || type == 0 ||
			 type == 'T');
		cmd = _IOC(fz_below(r, 4), type, fz_below(r, 256),
			   fz_below(r, 512));
		snprintf(ctx->desc, sizeof(ctx->desc), "ioctl 0x%lx", cmd);
		ret = ioctl(fd, cmd, (void *)(uintptr_t)fz_valid_uptr(ctx, 512));
		count_call(ctx);
		check_errno(ctx, "foreign ioctl", ret < 0 ? errno : 0);
		return;
	case 3:
		ret = write(fd, ctx->data, fz_below(r, 256));
		count_call(ctx);
		check_errno(ctx, "write", ret < 0 ? errno : 0);
		return;
	case 4:
		lseek(fd, fz_below(r, 4096), fz_below(r, 3));
		count_call(ctx);
		return;
	default:
		p = mmap(NULL, FZ_PAGE, PROT_READ, MAP_SHARED, fd, 0);
		count_call(ctx);
		if (p != MAP_FAILED) {
			const struct ib_async_ring_header *h = p;

			/* only a one-page event ring (MAP_RING) maps */
			if (!h->entries || h->entries & (h->entries - 1) ||
			    h->record_size != sizeof(struct ib_async_event) ||
			    h->records_offset != sizeof(*h) ||
			    sizeof(*h) + (uint64_t)h->entries * h->record_size >
			    FZ_PAGE)
				fz_report(ctx, "mmap",
					  "mmap of the node mapped no ring");
			munmap(p, FZ_PAGE);
		}
		return;
	}
}

static void act_fdinfo(struct fz_ctx *ctx)
{
	char path[64], buf[1024];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d",
		 slot_fd(ctx, some_slot(ctx)));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	count_call(ctx);
}

/*
 * The region receives are delivered to: made unreadable, read-only or
 * fresh underneath the workers (only the kernel ever writes it). Never
 * unmapped, so no other mapping of this process can land there.
 */
static void act_volatile(struct fz_ctx *ctx)
{
	static const int prot[] = { PROT_NONE, PROT_READ,
				    PROT_READ | PROT_WRITE };

	if (fz_chance(&ctx->rng, 30))
		mmap(fz_mem.volat, fz_mem.volat_len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	else
		mprotect(fz_mem.volat, fz_mem.volat_len,
			 prot[fz_below(&ctx->rng, 3)]);
	/* the slow region's pages fault (late) again */
	if (fz_mem.slow && fz_chance(&ctx->rng, 50))
		madvise(fz_mem.slow, FZ_SLOW_LEN, MADV_DONTNEED);
	count_call(ctx);
}

/*
 * The slow region: registered with userfaultfd in each worker process; a
 * thread answers every missing-page fault after a random pause of up to
 * 30 ms. Only the kernel touches the region (copying records,
 * completions and messages), and a worker makes its pages missing again
 * now and then (act_volatile). Fork children lose the registration
 * (no UFFD_FEATURE_EVENT_FORK) and see plain memory.
 */
static int slow_uffd = -1;

static void *slow_handler(void *arg)
{
	struct fz_shared *sh = arg;
	int uffd = slow_uffd;
	unsigned int seed = (unsigned int)getpid();
	struct uffdio_copy copy = { .len = FZ_PAGE };
	static uint8_t page[FZ_PAGE] __attribute__((aligned(4096)));
	struct uffd_msg msg;
	struct pollfd p = { .fd = uffd, .events = POLLIN };

	for (;;) {
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return NULL;
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		usleep(rand_r(&seed) % 30000);
		copy.dst = msg.arg.pagefault.address & ~(FZ_PAGE - 1);
		copy.src = (uintptr_t)page;
		copy.mode = 0;
		ioctl(uffd, UFFDIO_COPY, &copy);	/* EEXIST: answered */
		atomic_fetch_add(&sh->stats.slow_faults, 1);
	}
}

void fz_slow_init(struct fz_shared *sh)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	sigset_t all, old;
	pthread_t t;
	void *p;
	int ret;

	fz_mem.slow = NULL;
	if (getenv("FZ_NO_SLOW"))
		return;
	slow_uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (slow_uffd < 0)
		return;
	p = mmap(NULL, FZ_SLOW_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (uintptr_t)p;
	reg.range.len = FZ_SLOW_LEN;
	if (p == MAP_FAILED || ioctl(slow_uffd, UFFDIO_API, &api) ||
	    ioctl(slow_uffd, UFFDIO_REGISTER, &reg))
		goto fail;
	/* the handler takes no signal: the watchdog's are for workers */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&t, NULL, slow_handler, sh);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto fail;
	fz_mem.slow = p;
	return;
fail:
	close(slow_uffd);
	slow_uffd = -1;
}

/* The process's completion rings scribbled, read, unmapped (cq_ring.c). */
static void act_cq_ring(struct fz_ctx *ctx)
{
	snprintf(ctx->desc, sizeof(ctx->desc), "completion rings");
	fz_cq_ring_act(ctx);
	count_call(ctx);
}

static void run_loop(struct fz_ctx *ctx, bool child);

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A process that shares the files for a few calls, then exits: the data
 * path refuses it (another mm), and its exit may be the last close of a
 * reopened file. Blocking calls are cut short by an interval timer.
 */
static void act_fork(struct fz_ctx *ctx)
{
	uint32_t k = fz_range(&ctx->rng, 1, 20);
	uint64_t seed = fz_next(&ctx->rng);
	struct itimerval it = { { 0, 100000 }, { 0, 100000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	pid_t pid;

	count_call(ctx);
	if (ctx->budget - ctx->call < k)
		k = (uint32_t)(ctx->budget - ctx->call);
	if (!k)
		return;
	/* the child may read this worker's channels: no verdict on them */
	memset(ctx->chan_own, 0, sizeof(ctx->chan_own));
	pid = fork();
	if (pid == 0) {
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		fz_seed(&ctx->rng, seed);
		ctx->opener = false;
		ctx->budget = ctx->call + k;
		run_loop(ctx, true);
		_exit(0);
	}
	/* the child's calls count towards this worker's budget */
	if (pid > 0)
		ctx->call += k;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void run_loop(struct fz_ctx *ctx, bool child)
{
	struct fz_rng *r = &ctx->rng;
	uint32_t p;

	while (ctx->call < ctx->budget) {
		p = fz_below(r, 1000);
		if (p < 560)
			act_ioctl(ctx, false);
		else if (p < 760)
			act_ioctl(ctx, true);
		else if (p < 800)
			fz_recipe(ctx, some_slot(ctx));
		else if (p < 850)
			act_read(ctx);
		else if (p < 875)
			act_poll(ctx);
		else if (p < 885)
			act_fionread(ctx);
		else if (p < 893)
			act_fcntl(ctx);
		else if (p < 903)
			act_dup(ctx);
		else if (p < 907)
			act_reopen(ctx);
		else if (p < 912 && !child)
			act_fork(ctx);
		else if (p < 920)
			act_transient(ctx);
		else if (p < 945)
			act_events(ctx);
		else if (p < 970)
			act_misc(ctx);
		else if (p < 980)
			act_fdinfo(ctx);
		else if (p < 985)
			act_volatile(ctx);
		else
			act_cq_ring(ctx);
	}
}

void fz_worker_run(struct fz_ctx *ctx)
{
	run_loop(ctx, false);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void fd_lock_take(void)
{
	pthread_mutex_lock(&fd_lock);
}

static void fd_lock_give(void)
{
	pthread_mutex_unlock(&fd_lock);
}

/*
 * Per worker process: signals that interrupt blocking calls (no
 * SA_RESTART), and the process-local lock and completion rings made safe
 * across the forks of act_fork().
 */
void fz_unstick_init(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGIO, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_atfork(fd_lock_take, fd_lock_give, fd_lock_give);
	fz_cq_ring_init();
}

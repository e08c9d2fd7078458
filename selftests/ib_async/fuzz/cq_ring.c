// SPDX-License-Identifier: GPL-2.0
/*
 * Completion rings (IB_ASYNC_IOC_MAP_CQ_RING): the mappings this process
 * made, and what its threads do to them while others post, wait, poll and
 * destroy. A ring is two mappings of the file: the header and records,
 * read-only, and a page holding the program's consumer index, which the
 * kernel reads at every fill and must never trust. The threads write that
 * index ahead of the producer, far behind it, anywhere, or consume as a
 * program would; fill the rest of its page with garbage; read the
 * records; unmap either part (whole, or the records' tail), move one with
 * mremap(), let fork() copy them (MADV_DOFORK), map them again, and
 * forget a ring with its descriptor.
 *
 * What the kernel promises, checked from here: the producer count never
 * goes backwards while the ring is mapped, and stands still once its CQ
 * is destroyed, when no new mapping finds the ring; the header keeps its
 * geometry, and its flags are IB_ASYNC_CQ_RING_FULL, _POLL and
 * _NEED_WAKEUP at most; a record is a completion (status in range,
 * reserved 0) or zeroes; the records cannot be mapped writable or made
 * so, and no part private.
 *
 * The table is the process's own: the mappings are not inherited across
 * fork() (VM_DONTCOPY; those MADV_DOFORK copied are the child's to drop),
 * so a child starts with none. A thread that reads or writes a mapping
 * holds the table's lock shared; one that maps, unmaps or moves holds it
 * exclusive.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "fuzz.h"

#define FZ_CQ_RINGS	16
#define HDR_SIZE	sizeof(struct ib_async_cq_ring_header)
#define WC_SIZE		sizeof(struct ib_async_wc)

struct cq_ring {
	bool used;
	/*
	 * A descriptor of the file the ring was made on, to map it again
	 * (-1: the caller's own file, which it closes with the ring mapped).
	 */
	int fd;
	/* the slot's file it was made on, opened as @gen (0: unknown) */
	uint32_t slot, gen, handle;
	uint32_t entries;
	uint64_t off, coff;		/* mmap() offsets, as answered */
	size_t size;			/* the records' mapping, as answered */
	const uint8_t *recs;		/* header and records; NULL: unmapped */
	size_t mapped;			/* bytes of it mapped (a tail may go) */
	struct ib_async_cq_ring_consumer *cons;	/* NULL: unmapped */
	atomic_uint last;		/* the highest producer count read */
	bool destroyed;			/* its CQ is gone: */
	bool final_known;
	uint32_t final;			/* the count it stopped at */
	uint64_t made;			/* the oldest is forgotten first */
};

static struct cq_ring rings[FZ_CQ_RINGS];
static pthread_rwlock_t rings_lock = PTHREAD_RWLOCK_INITIALIZER;
static uint64_t rings_made;

static void lock_excl(void)
{
	pthread_rwlock_wrlock(&rings_lock);
}

static void unlock(void)
{
	pthread_rwlock_unlock(&rings_lock);
}

/*
 * In a child of fork(): none of the mappings came along. The lock is made
 * anew, not unlocked: glibc's knows its writer by a thread id the child's
 * thread does not have.
 */
static void forget_all_in_child(void)
{
	uint32_t i;

	for (i = 0; i < FZ_CQ_RINGS; i++)
		if (rings[i].used && rings[i].fd >= 0)
			close(rings[i].fd);
	memset(rings, 0, sizeof(rings));
	pthread_rwlock_init(&rings_lock, NULL);
}

/* Per worker process: the table stays whole across act_fork(). */
void fz_cq_ring_init(void)
{
	pthread_atfork(lock_excl, unlock, forget_all_in_child);
}

static const struct ib_async_cq_ring_header *hdr_of(const struct cq_ring *r)
{
	return (const void *)r->recs;
}

static uint32_t producer_of(const struct cq_ring *r)
{
	return __atomic_load_n(&hdr_of(r)->producer, __ATOMIC_ACQUIRE);
}

/* Record @i of the ring, as it is now, if that part is still mapped. */
static bool record(const struct cq_ring *r, uint32_t i, struct ib_async_wc *wc)
{
	size_t off = HDR_SIZE + (size_t)(i & (r->entries - 1)) * WC_SIZE;

	if (off + WC_SIZE > r->mapped)
		return false;
	memcpy(wc, r->recs + off, WC_SIZE);
	return true;
}

static void check_record(struct fz_ctx *ctx, const struct cq_ring *r,
			 uint32_t i)
{
	struct ib_async_wc wc;

	if (!record(r, i, &wc))
		return;
	fz_check_wc(ctx, &wc, true);
	atomic_fetch_add(&ctx->sh->stats.ring_recs, 1);
}

/*
 * The header of a mapped ring: its geometry as answered, no flag the uAPI
 * does not know, the producer never behind what any thread read before
 * (@last is read before it: what another thread stored there was read
 * from the producer earlier), and where the CQ is destroyed, not moving.
 * Returns the producer.
 */
static uint32_t check_header(struct fz_ctx *ctx, struct cq_ring *r)
{
	const struct ib_async_cq_ring_header *h = hdr_of(r);
	uint32_t last = atomic_load(&r->last), p = producer_of(r), i;
	uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_RELAXED);
	bool reserved = false;

	if ((int32_t)(p - last) < 0)
		fz_report(ctx, "cq-ring-producer-back",
			  "a mapped ring's producer went back from %u to %u (CQ %u)",
			  last, p, r->handle);
	while ((int32_t)(p - last) > 0 &&
	       !atomic_compare_exchange_weak(&r->last, &last, p))
		;
	if ((int32_t)(p - last) > 0)
		atomic_fetch_add(&ctx->sh->stats.ring_published, p - last);
	if (r->destroyed && r->final_known) {
		if (p != r->final)
			fz_report(ctx, "cq-ring-after-destroy",
				  "the ring of destroyed CQ %u moved from %u to %u",
				  r->handle, r->final, p);
		atomic_fetch_add(&ctx->sh->stats.ring_dead_looks, 1);
	}
	if (flags & ~(IB_ASYNC_CQ_RING_FULL | IB_ASYNC_CQ_RING_POLL |
		      IB_ASYNC_CQ_RING_NEED_WAKEUP))
		fz_report(ctx, "cq-ring-flags", "a mapped ring's flags are %#x",
			  flags);
	for (i = 0; i < sizeof(h->reserved) / sizeof(h->reserved[0]); i++)
		reserved |= h->reserved[i] != 0;
	if (h->entries != r->entries || h->record_size != WC_SIZE ||
	    h->records_offset != HDR_SIZE || reserved)
		fz_report(ctx, "cq-ring-header",
			  "a mapped ring's header changed: %u entries of %u bytes at %u%s",
			  h->entries, h->record_size, h->records_offset,
			  reserved ? ", reserved not 0" : "");
	atomic_fetch_add(&ctx->sh->stats.ring_looks, 1);
	return p;
}

/* The last few records before @p, and a few anywhere. */
static void check_records(struct fz_ctx *ctx, const struct cq_ring *r,
			  uint32_t p)
{
	uint32_t i, n = r->entries < 8 ? r->entries : 8;

	for (i = 1; i <= n; i++)
		check_record(ctx, r, p - i);
	for (i = 0; i < 2; i++)
		check_record(ctx, r, (uint32_t)fz_next(&ctx->rng));
}

static void store_consumer(struct cq_ring *r, uint32_t c)
{
	__atomic_store_n(&r->cons->consumer, c, __ATOMIC_RELEASE);
}

/*
 * As a program does: read some of the records between the index and the
 * producer, then store the index past them. An index that makes no sense
 * is set to the producer, everything consumed.
 */
static void consume(struct fz_ctx *ctx, struct cq_ring *r, uint32_t p)
{
	uint32_t c = __atomic_load_n(&r->cons->consumer, __ATOMIC_RELAXED);
	uint32_t k, i;

	if (p - c > r->entries || !r->recs) {
		store_consumer(r, p);
		return;
	}
	k = fz_range(&ctx->rng, 0, p - c);
	for (i = 0; i < k; i++)
		check_record(ctx, r, c + i);
	store_consumer(r, c + k);
}

/* Garbage in the consumer page past the index, where nobody looks. */
static void page_garbage(struct fz_ctx *ctx, struct cq_ring *r)
{
	uint32_t *page = (uint32_t *)r->cons, n = fz_range(&ctx->rng, 1, 8);

	while (n--)
		__atomic_store_n(&page[fz_range(&ctx->rng, 1, FZ_PAGE / 4 - 1)],
				 (uint32_t)fz_next(&ctx->rng), __ATOMIC_RELAXED);
}

/*
 * One look at a ring or one write of its consumer page, as it can: the
 * producer is the last count read when the records are not mapped. Most
 * writes consume as a program does, so that the ring moves between the
 * nonsense the others write.
 */
static void poke(struct fz_ctx *ctx, struct cq_ring *r)
{
	static const uint8_t what[] = {
		FZ_RW_KINDS, FZ_RW_KINDS,	/* a look */
		FZ_RW_CONSUME, FZ_RW_CONSUME, FZ_RW_CONSUME,
		FZ_RW_AHEAD, FZ_RW_BEHIND, FZ_RW_ANY, FZ_RW_PAGE,
	};
	struct fz_rng *rng = &ctx->rng;
	uint32_t w = what[fz_below(rng, sizeof(what))], p, c;

	if (!r->recs && !r->cons)
		return;
	p = r->recs ? check_header(ctx, r) : atomic_load(&r->last);
	if (w >= FZ_RW_KINDS || !r->cons) {
		if (r->recs)
			check_records(ctx, r, p);
		return;
	}
	switch (w) {
	case FZ_RW_AHEAD:
		c = p + fz_range(rng, 1, 1u << 31);
		break;
	case FZ_RW_BEHIND:
		c = p - r->entries - fz_range(rng, 1, 1u << 20);
		break;
	case FZ_RW_ANY:
		c = (uint32_t)fz_next(rng);
		break;
	case FZ_RW_CONSUME:
		consume(ctx, r, p);
		goto counted;
	default:
		page_garbage(ctx, r);
		goto counted;
	}
	store_consumer(r, c);
counted:
	atomic_fetch_add(&ctx->sh->stats.ring_writes[w], 1);
}

/*
 * A ring of this process: of @slot's CQ @handle mostly, if it has one
 * mapped here (@handle 0: any ring). NULL for none. Under the lock.
 */
static struct cq_ring *pick(struct fz_ctx *ctx, uint32_t slot,
			    uint32_t handle)
{
	uint32_t i, n = 0, want, start = fz_below(&ctx->rng, FZ_CQ_RINGS);

	for (i = 0; handle && i < FZ_CQ_RINGS; i++) {
		struct cq_ring *r = &rings[(start + i) % FZ_CQ_RINGS];

		if (r->used && r->slot == slot && r->handle == handle &&
		    fz_chance(&ctx->rng, 90))
			return r;
	}
	for (i = 0; i < FZ_CQ_RINGS; i++)
		n += rings[i].used;
	want = fz_below(&ctx->rng, n);
	for (i = 0; n && i < FZ_CQ_RINGS; i++)
		if (rings[i].used && !want--)
			return &rings[i];
	return NULL;
}

/*
 * @n looks and writes at the ring of @slot's CQ @handle, or at any ring.
 * Returns how many were made: none without a ring.
 */
uint32_t fz_cq_ring_poke(struct fz_ctx *ctx, uint32_t slot, uint32_t handle,
			 uint32_t n)
{
	struct cq_ring *r;
	uint32_t i;

	pthread_rwlock_rdlock(&rings_lock);
	r = pick(ctx, slot, handle);
	for (i = 0; r && i < n; i++)
		poke(ctx, r);
	unlock();
	return i;
}

/* Whether CQ @handle of the file behind @fd has a ring: CQ_WAIT fills it. */
static bool has_ring(int fd, uint32_t handle)
{
	struct ib_async_cq_wait w = { .argsz = sizeof(w), .handle = handle };

	return !ioctl(fd, IB_ASYNC_IOC_CQ_WAIT, &w);
}

/*
 * One part of a ring, mapped as the uAPI says (shared, the records
 * read-only). With @judge, refused while the CQ has its ring before and
 * after is a report: nothing else takes a ring from a file. NULL when it
 * did not map.
 */
static void *map_part(struct fz_ctx *ctx, const struct cq_ring *r,
		      bool consumer, bool judge)
{
	size_t len = consumer ? FZ_PAGE : r->size;
	uint64_t off = consumer ? r->coff : r->off;
	int prot = consumer ? PROT_READ | PROT_WRITE : PROT_READ, err;
	void *p = mmap(NULL, len, prot, MAP_SHARED, r->fd, (off_t)off);

	if (p != MAP_FAILED)
		return p;
	if (!judge || !has_ring(r->fd, r->handle))
		return NULL;
	p = mmap(NULL, len, prot, MAP_SHARED, r->fd, (off_t)off);
	if (p != MAP_FAILED)
		return p;
	err = errno;
	if (has_ring(r->fd, r->handle))
		fz_report(ctx, "cq-ring-mmap",
			  "the %s of CQ %u's ring cannot be mapped: %s",
			  consumer ? "consumer page" : "records", r->handle,
			  strerror(err));
	return NULL;
}

/* The records are the kernel's to write: never writable, never private. */
static void check_read_only(struct fz_ctx *ctx, struct cq_ring *r)
{
	bool consumer;
	size_t len;
	void *p;

	p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 (off_t)r->off);
	if (p != MAP_FAILED) {
		fz_report(ctx, "cq-ring-writable",
			  "the records of CQ %u's ring mapped writable",
			  r->handle);
		munmap(p, r->size);
	}
	if (r->recs && !mprotect((void *)r->recs, r->mapped,
				 PROT_READ | PROT_WRITE)) {
		fz_report(ctx, "cq-ring-mprotect",
			  "the records of CQ %u's ring made writable",
			  r->handle);
		mprotect((void *)r->recs, r->mapped, PROT_READ);
	}
	consumer = fz_chance(&ctx->rng, 50);
	len = consumer ? FZ_PAGE : r->size;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd,
		 (off_t)(consumer ? r->coff : r->off));
	if (p != MAP_FAILED) {
		fz_report(ctx, "cq-ring-private",
			  "the %s of CQ %u's ring mapped private",
			  consumer ? "consumer page" : "records", r->handle);
		munmap(p, len);
	}
}

/* Map what of @r is not mapped; with @judge, refusals are reports. */
static void map_missing(struct fz_ctx *ctx, struct cq_ring *r, bool judge)
{
	const struct ib_async_cq_ring_header *h;

	if (!r->recs && r->fd >= 0) {
		r->recs = map_part(ctx, r, false, judge);
		r->mapped = r->recs ? r->size : 0;
	}
	if (!r->cons && r->fd >= 0)
		r->cons = map_part(ctx, r, true, judge);
	if (!r->recs)
		return;
	h = hdr_of(r);
	if (!r->entries) {	/* the first mapping: the header says */
		if (!h->entries || h->entries & (h->entries - 1) ||
		    h->entries > FZ_CQ_RING_MAX ||
		    HDR_SIZE + (uint64_t)h->entries * WC_SIZE > r->size)
			fz_report(ctx, "cq-ring-header",
				  "a mapped ring's header says %u entries in %zu bytes",
				  h->entries, r->size);
		r->entries = h->entries & (h->entries - 1) ? 1 : h->entries;
		atomic_store(&r->last, producer_of(r));
	}
}

static void unmap_records(struct cq_ring *r)
{
	munmap((void *)r->recs, r->mapped);
	r->recs = NULL;
	r->mapped = 0;
}

static void unmap_consumer(struct cq_ring *r)
{
	munmap(r->cons, FZ_PAGE);
	r->cons = NULL;
}

/* Gone from the table: its mappings and descriptor, in either order. */
static void forget(struct fz_ctx *ctx, struct cq_ring *r)
{
	bool close_first = fz_chance(&ctx->rng, 50);

	if (close_first && r->fd >= 0)
		close(r->fd);
	if (r->recs)
		unmap_records(r);
	if (r->cons)
		unmap_consumer(r);
	if (!close_first && r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	atomic_fetch_add(&ctx->sh->stats.ring_unmaps, 1);
}

/*
 * MAP_CQ_RING answered @a on @fd, for @slot's file or (FZ_OWN_FILE) one
 * the caller made and will close with the ring mapped: map both parts,
 * try the records writable now and then, and keep the ring in the table
 * (the oldest goes when it is full). The answer is judged against the
 * mapping only where no reopen in this process can have come between the
 * call and the descriptor kept here (fz_fd_unchanged()).
 */
void fz_cq_ring_map(struct fz_ctx *ctx, int fd, uint32_t slot,
		    const struct ib_async_map_cq_ring *a)
{
	struct cq_ring n = {
		.used = true, .fd = -1, .slot = slot, .handle = a->handle,
		.off = a->mmap_offset, .coff = a->consumer_offset,
		.size = a->mmap_size,
	};
	struct cq_ring *r, *old = NULL;
	bool judge = true;
	uint32_t i;

	if (slot != FZ_OWN_FILE) {
		n.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (n.fd < 0)
			return;
		judge = fz_fd_unchanged(ctx, slot);
		n.gen = judge ? ctx->fd_gen : 0;
	} else {
		n.fd = fd;
	}
	lock_excl();
	map_missing(ctx, &n, judge);
	if (judge && n.recs && n.entries != a->entries)
		fz_report(ctx, "cq-ring-header",
			  "MAP_CQ_RING answered %u entries, the header says %u",
			  a->entries, n.entries);
	if (fz_chance(&ctx->rng, 30))
		check_read_only(ctx, &n);
	if (slot == FZ_OWN_FILE)
		n.fd = -1;
	if (!n.recs && !n.cons) {
		if (n.fd >= 0)
			close(n.fd);
		unlock();
		return;
	}
	for (i = 0, r = NULL; i < FZ_CQ_RINGS && !r; i++)
		if (!rings[i].used)
			r = &rings[i];
		else if (!old || rings[i].made < old->made)
			old = &rings[i];
	if (!r) {
		forget(ctx, old);
		r = old;
	}
	*r = n;
	r->made = ++rings_made;
	unlock();
	atomic_fetch_add(&ctx->sh->stats.ring_maps, 1);
}

/*
 * DESTROY of @slot's CQ @handle succeeded, in the file the call's
 * descriptor named (ctx->fd_gen, fz_fd_unchanged()): its rings mapped
 * here stop where they are, and no new mapping may find them.
 */
void fz_cq_ring_destroyed(struct fz_ctx *ctx, uint32_t slot, uint32_t handle)
{
	uint32_t i;

	lock_excl();
	for (i = 0; i < FZ_CQ_RINGS; i++) {
		struct cq_ring *r = &rings[i];

		if (!r->used || !r->gen || r->gen != ctx->fd_gen ||
		    r->slot != slot || r->handle != handle)
			continue;
		r->destroyed = true;
		r->final_known = r->recs != NULL;
		if (r->recs)
			r->final = producer_of(r);
	}
	unlock();
}

/* The ring of @slot's CQ @handle unmapped here, whole. */
void fz_cq_ring_unmap(struct fz_ctx *ctx, uint32_t slot, uint32_t handle)
{
	uint32_t i;

	lock_excl();
	for (i = 0; i < FZ_CQ_RINGS; i++) {
		struct cq_ring *r = &rings[i];

		if (!r->used || r->slot != slot || r->handle != handle)
			continue;
		if (r->recs)
			unmap_records(r);
		if (r->cons)
			unmap_consumer(r);
		atomic_fetch_add(&ctx->sh->stats.ring_unmaps, 1);
	}
	unlock();
}

/* A part of @r moved elsewhere (mremap), or left where it was. */
static void move(struct fz_ctx *ctx, struct cq_ring *r, bool consumer)
{
	void *from = consumer ? (void *)r->cons : (void *)r->recs, *to, *p;
	size_t len = consumer ? FZ_PAGE : r->mapped;

	if (!from)
		return;
	to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return;
	p = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (p == MAP_FAILED) {
		munmap(to, len);
		return;
	}
	if (consumer)
		r->cons = p;
	else
		r->recs = p;
	atomic_fetch_add(&ctx->sh->stats.ring_moves, 1);
}

/*
 * A change of one ring's mappings. Mapped again after its CQ's destroy,
 * a ring is a report: the CQ took it along.
 */
static void change(struct fz_ctx *ctx, struct cq_ring *r)
{
	struct fz_rng *rng = &ctx->rng;
	const void *had_recs, *had_cons;
	size_t keep;

	switch (fz_below(rng, 9)) {
	case 0:
		if (r->recs) {
			unmap_records(r);
			atomic_fetch_add(&ctx->sh->stats.ring_unmaps, 1);
		}
		break;
	case 1:
		if (r->cons) {
			unmap_consumer(r);
			atomic_fetch_add(&ctx->sh->stats.ring_unmaps, 1);
		}
		break;
	case 2:	/* the records' tail: the mapping splits */
		if (r->mapped <= FZ_PAGE)
			break;
		keep = fz_range(rng, 1, (uint32_t)(r->mapped / FZ_PAGE) - 1) *
		       FZ_PAGE;
		munmap((void *)(r->recs + keep), r->mapped - keep);
		r->mapped = keep;
		atomic_fetch_add(&ctx->sh->stats.ring_tails, 1);
		break;
	case 3:
		move(ctx, r, fz_chance(rng, 50));
		break;
	case 4:	/* copied by the next fork(), dropped by the child */
		if (r->cons)
			madvise(r->cons, FZ_PAGE, MADV_DOFORK);
		if (r->recs)
			madvise((void *)r->recs, r->mapped, MADV_DOFORK);
		break;
	case 5:
		if (r->fd >= 0)
			check_read_only(ctx, r);
		break;
	case 6:
		forget(ctx, r);
		break;
	default:
		if ((r->recs && r->cons) || r->fd < 0)
			break;
		/* a part still mapped from before the destroy is no news */
		had_recs = r->recs;
		had_cons = r->cons;
		map_missing(ctx, r, false);
		if (r->destroyed && ((!had_recs && r->recs) ||
				     (!had_cons && r->cons)))
			fz_report(ctx, "cq-ring-after-destroy",
				  "the ring of destroyed CQ %u mapped again",
				  r->handle);
		atomic_fetch_add(&ctx->sh->stats.ring_remaps, 1);
		break;
	}
}

/*
 * A worker's turn at the rings: a burst of looks and writes at one ring,
 * or a change of its mappings.
 */
void fz_cq_ring_act(struct fz_ctx *ctx)
{
	struct cq_ring *r;

	if (fz_chance(&ctx->rng, 50)) {
		fz_cq_ring_poke(ctx, 0, 0, fz_range(&ctx->rng, 1, 32));
		return;
	}
	lock_excl();
	r = pick(ctx, 0, 0);
	if (r)
		change(ctx, r);
	unlock();
}

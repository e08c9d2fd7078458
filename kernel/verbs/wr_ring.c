// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Submission rings (IB_ASYNC_IOC_MAP_WR_RING, IB_ASYNC_IOC_WR_DOORBELL): a
 * QP's or SRQ's work requests written by the program into memory it
 * maps, and posted by a doorbell that copies no argument, so that a post
 * of any number of requests is one system call with nothing to marshal.
 *
 * The ring is memory the program writes while the kernel reads it, so
 * the doorbell trusts nothing in it: it reads the producer once, bounds
 * it against the kernel's private consumer (never against anything in
 * the ring), copies each pending slot once into kernel memory, and hands
 * only that copy to post.c, which checks it exactly as it checks a list
 * (ib_async_post_slots()). Nothing is read back from the ring afterwards,
 * so a slot rewritten after the doorbell cannot change what was posted.
 *
 * Two mappings: the kernel's header page (consumer, error, geometry),
 * read-only, which the kernel only writes; and the program's producer
 * and slots, read-write, which the kernel only reads.
 *
 * The doorbell runs under its owner's lock (ib_async_dp_lock()), as the
 * list commands do, and copies the slots there (kernel memory, so nothing
 * can fault or wait on the program); the doorbells of another QP, and of
 * another file, never wait for it. It
 * allocates nothing: pending slots go in batches through the ring's
 * scratch, which holds one batch's copy and the arrays post.c builds from
 * it, allocated at the first doorbell and freed with the owner's hold
 * (the doorbells of one ring never run at once).
 *
 * Lifetime, mapping and charge are mapped_ring.c's, as for completion
 * rings: the ring holds one reference for its QP or SRQ, dropped when
 * that uobj is freed, and one per mapping; mmap() finds it through the
 * file's wr_rings, a doorbell through its live owner.
 */
#include <linux/compat.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "mapped_ring.h"

/* Slots when the program asks for no number. */
#define IB_ASYNC_WR_RING_DEFAULT	256
/* Every slot starts on a cache line of its own. */
#define IB_ASYNC_WR_SLOT_ALIGN		64
/* No granted limits come near this; a slot larger is refused. */
#define IB_ASYNC_WR_SLOT_MAX		SZ_64K
/* A batch's copy of its slots, at most; and its slots, at most. */
#define IB_ASYNC_WR_COPY_BYTES		SZ_8K
#define IB_ASYNC_WR_BATCH_MAX		32
/* Where the slots begin, after the producer's line. */
#define IB_ASYNC_WR_SLOTS_OFFSET	sizeof(struct ib_async_wr_ring_producer)
/*
 * A ring's mmap() offsets, in pages: above every completion ring's
 * (handle << 1 | part, below 2^33), then handle << 1 | kind, then part.
 */
#define IB_ASYNC_WR_RING_PGOFF		BIT(35)

/**
 * struct ib_async_wr_ring - a queue's work requests, written by its program
 * @m: its memory: @hdr's page, read-only; @prod and @slots, read-write
 * @hdr: in @m.page
 * @prod: at @m.mem
 * @slots: after it
 * @key: the owner's handle << 1 | kind, its index in wr_rings
 * @owner: its QP or SRQ, live or destroyed by removal, while in wr_rings:
 *	whose lock the poller's walks take, as the doorbell does
 * @send: a send ring
 * @entries: slots
 * @slot_size: bytes each
 * @max_sge: entries a slot holds
 * @max_inline: inline bytes a send slot holds
 * @inline_offset: where they begin in a slot
 * @consumer: the kernel's own count of the slots it took; the only one
 *	it ever bounds the program's producer against
 * @batch: slots a doorbell copies and posts at a time
 * @scratch: a batch's copy, then post.c's arrays; NULL until the first
 *	doorbell, freed when the owner lets the ring go
 * @stuck: the last drain stopped at a slot the kernel refused: the
 *	poller leaves the ring alone until a doorbell drains it, or it finds
 *	the ring empty (see ib_async_wr_rings_post())
 */
struct ib_async_wr_ring {
	struct ib_async_mapped_ring m;
	struct ib_async_wr_ring_header *hdr;
	struct ib_async_wr_ring_producer *prod;
	void *slots;
	unsigned long key;
	struct ib_async_uobj *owner;
	bool send;
	u32 entries;
	u32 slot_size;
	u32 max_sge;
	u32 max_inline;
	u32 inline_offset;
	u32 consumer;
	u32 batch;
	void *scratch;
	bool stuck;
};

/* freeing @m frees the ring */
static_assert(offsetof(struct ib_async_wr_ring, m) == 0);

/* A slot's bytes: its request, @max_sge entries, @max_inline bytes. */
static size_t ib_async_wr_slot_size(bool send, u32 max_sge, u32 max_inline,
				    u32 *inline_offset)
{
	size_t wr = send ? sizeof(struct ib_async_send_wr) :
			   sizeof(struct ib_async_recv_wr);
	size_t off = size_add(wr, size_mul(max_sge,
					   sizeof(struct ib_async_sge)));

	*inline_offset = min_t(size_t, off, U32_MAX);
	return ALIGN(size_add(off, send ? max_inline : 0),
		     IB_ASYNC_WR_SLOT_ALIGN);
}

/*
 * A ring of @entries slots for a queue whose requests take @max_sge
 * entries and (@send) @max_inline bytes inline, charged as a completion
 * ring is: RLIMIT_MEMLOCK for its pages, the memory cgroup for all of it.
 */
static struct ib_async_wr_ring *ib_async_wr_ring_alloc(bool send, u32 entries,
						       u32 max_sge,
						       u32 max_inline)
{
	struct ib_async_wr_ring *r;
	size_t slot, bytes;
	u32 inl;
	int ret;

	slot = ib_async_wr_slot_size(send, max_sge, max_inline, &inl);
	if (slot > IB_ASYNC_WR_SLOT_MAX)
		return ERR_PTR(-EINVAL);
	bytes = PAGE_ALIGN(IB_ASYNC_WR_SLOTS_OFFSET + entries * slot);
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	ret = ib_async_mapped_ring_init(&r->m, bytes, IB_ASYNC_MAPPED_MEM);
	if (ret) {
		kfree(r);
		return ERR_PTR(ret);
	}
	r->hdr = page_address(r->m.page);
	r->prod = r->m.mem;
	r->slots = r->m.mem + IB_ASYNC_WR_SLOTS_OFFSET;
	r->send = send;
	r->entries = entries;
	r->slot_size = slot;
	r->max_sge = max_sge;
	r->max_inline = send ? max_inline : 0;
	r->inline_offset = inl;
	r->batch = clamp_t(size_t, IB_ASYNC_WR_COPY_BYTES / slot, 1,
			   min_t(u32, entries, IB_ASYNC_WR_BATCH_MAX));
	r->hdr->entries = entries;
	r->hdr->slot_size = slot;
	r->hdr->max_sge = max_sge;
	r->hdr->max_inline = r->max_inline;
	r->hdr->inline_offset = inl;
	r->hdr->kind = send ? IB_ASYNC_WR_RING_SEND : IB_ASYNC_WR_RING_RECV;
	r->hdr->flags = IB_ASYNC_WR_RING_NEED_WAKEUP;
	return r;
}

/* The mmap() offset of one of a ring's two mappings, in pages. */
static unsigned long ib_async_wr_ring_pgoff_of(unsigned long key, bool slots)
{
	return IB_ASYNC_WR_RING_PGOFF | key << 1 | slots;
}

/**
 * ib_async_wr_ring_pgoff - does an mmap() offset name a submission ring?
 * @pgoff: the offset, in pages
 *
 * Return: true for one of the range MAP_WR_RING hands out.
 */
bool ib_async_wr_ring_pgoff(unsigned long pgoff)
{
	return pgoff & IB_ASYNC_WR_RING_PGOFF;
}

/**
 * ib_async_wr_ring_mmap - map one of a submission ring's two parts
 * @file: the node's file
 * @vma: at an offset MAP_WR_RING gave, shared, of the size it gave
 *
 * Return: 0, -EINVAL (no such ring, another size, a private mapping),
 * -EPERM (the header mapped writable, another process), or
 * vm_insert_page()'s error.
 */
int ib_async_wr_ring_mmap(struct ib_async_file *file,
			  struct vm_area_struct *vma)
{
	unsigned long key = (vma->vm_pgoff & ~IB_ASYNC_WR_RING_PGOFF) >> 1;
	enum ib_async_mapped_part part = vma->vm_pgoff & 1 ?
					 IB_ASYNC_MAPPED_MEM :
					 IB_ASYNC_MAPPED_PAGE;

	if (key > U32_MAX * 2UL + 1)
		return -EINVAL;
	return ib_async_mapped_ring_mmap(file, &file->verbs->wr_rings, key,
					 part, vma);
}

/**
 * ib_async_wr_rings_unpublish - a QP's or SRQ's handle goes: no mapping,
 * and no poller, finds its rings any more
 * @owner: the uobj, the file's dp_rwsem held for writing
 */
void ib_async_wr_rings_unpublish(struct ib_async_uobj *owner)
{
	int i;

	ib_async_dp_assert_excl(owner->file);
	for (i = 0; i < ARRAY_SIZE(owner->wr_ring); i++)
		if (owner->wr_ring[i])
			ib_async_mapped_ring_unpublish(&owner->file->verbs->wr_rings,
						       owner->wr_ring[i]->key);
}

/**
 * ib_async_wr_rings_drop - a QP's or SRQ's uobj goes: so does its hold
 * @owner: the uobj, its rings unpublished
 *
 * No doorbell finds its rings, as a doorbell finds a ring through its
 * live owner; those mapped keep it until unmapped.
 */
void ib_async_wr_rings_drop(struct ib_async_uobj *owner)
{
	struct ib_async_wr_ring *r;
	int i;

	for (i = 0; i < ARRAY_SIZE(owner->wr_ring); i++) {
		r = owner->wr_ring[i];
		if (!r)
			continue;
		/* no doorbell finds the ring now: its scratch goes */
		kvfree(r->scratch);
		r->scratch = NULL;
		ib_async_mapped_ring_drop(&owner->file->verbs->wr_rings,
					  r->key, &r->m);
		owner->wr_ring[i] = NULL;
	}
}

/*
 * What a ring of @kind on @owner holds per slot: the limits the QP or SRQ
 * was granted at create, which the doorbell holds its requests to.
 */
static int ib_async_wr_ring_limits(const struct ib_async_uobj *owner, u32 kind,
				   u32 *max_sge, u32 *max_inline)
{
	if (kind == IB_ASYNC_WR_RING_SEND) {
		if (owner->type != IB_ASYNC_OBJ_QP)
			return -EINVAL;
		*max_sge = owner->max_send_sge;
		*max_inline = owner->max_inline;
		return 0;
	}
	/* a QP on an SRQ has no receive queue of its own */
	if (owner->type == IB_ASYNC_OBJ_QP && owner->qp_srq)
		return -EINVAL;
	*max_sge = owner->max_recv_sge;
	*max_inline = 0;
	return 0;
}

/* Say in @r whether a poller is awake to take its slots. */
static void ib_async_wr_ring_wake(struct ib_async_wr_ring *r, bool awake)
{
	WRITE_ONCE(r->hdr->flags, awake ? 0 : IB_ASYNC_WR_RING_NEED_WAKEUP);
}

/*
 * MAP_WR_RING's answer reached the caller: only then may a doorbell find
 * the ring, and a mapping.
 */
static int ib_async_wr_ring_answered(struct ib_async_ucmd *u, int ret)
{
	struct ib_async_map_wr_ring *arg = u->cmd;
	struct ib_async_file *file = u->file;
	struct ib_async_wr_ring *r = u->pending;
	struct ib_async_uobj *owner;

	if (!ret) {
		ret = ib_async_ucmd_lock(u);
		if (ret)
			goto out;
		owner = ib_async_uobj_get(file, arg->handle, arg->obj_type);
		ret = PTR_ERR_OR_ZERO(owner);
		if (!ret && owner->wr_ring[arg->kind])
			ret = -EBUSY;
		if (!ret)
			ret = ib_async_mapped_ring_publish(&file->verbs->wr_rings,
							   r->key, &r->m);
		if (!ret) {
			r->owner = owner;
			owner->wr_ring[arg->kind] = r;
			ib_async_wr_ring_wake(r,
					      READ_ONCE(file->verbs->poller_awake));
		}
		ib_async_ucmd_unlock(u);
	}
out:
	if (ret)
		ib_async_mapped_ring_put(&r->m);
	return ret;
}

/**
 * ib_async_cmd_map_wr_ring - make a QP's or SRQ's submission ring
 * @u: the command, with the device pinned and the file's locks held
 *
 * The ring is allocated and charged here; a doorbell and mmap() find it
 * only once the answer reached the caller (ib_async_wr_ring_answered()).
 *
 * Return: 0, or -EINVAL (a field out of range, an answer set going in, a
 * kind the object has no queue for), -EOPNOTSUPP, -EPERM, -EBUSY, the
 * lookup's error or -ENOMEM (RLIMIT_MEMLOCK).
 */
int ib_async_cmd_map_wr_ring(struct ib_async_ucmd *u)
{
	struct ib_async_map_wr_ring *arg = u->cmd;
	struct ib_async_uobj *owner;
	struct ib_async_wr_ring *r;
	u32 entries, max_sge, max_inline;
	int ret;

	if (arg->flags || arg->reserved || arg->slot_size ||
	    arg->slots_offset || arg->max_sge || arg->max_inline ||
	    arg->inline_offset || arg->doorbell || arg->mmap_offset ||
	    arg->mmap_size || arg->slots_mmap_offset || arg->slots_mmap_size ||
	    arg->entries > IB_ASYNC_WR_RING_MAX ||
	    arg->kind > IB_ASYNC_WR_RING_RECV ||
	    (arg->obj_type != IB_ASYNC_OBJ_QP &&
	     arg->obj_type != IB_ASYNC_OBJ_SRQ))
		return -EINVAL;
	/* its offsets and doorbell do not fit a 32-bit caller's calls */
	if (!ib_async_user_mr_supported(u->ib_dev) || in_compat_syscall())
		return -EOPNOTSUPP;
	if (current->mm != u->file->verbs->mm)
		return -EPERM;
	owner = ib_async_uobj_get(u->file, arg->handle, arg->obj_type);
	if (IS_ERR(owner))
		return PTR_ERR(owner);
	if (owner->wr_ring[arg->kind])
		return -EBUSY;
	ret = ib_async_wr_ring_limits(owner, arg->kind, &max_sge, &max_inline);
	if (ret)
		return ret;
	entries = roundup_pow_of_two(arg->entries ?: IB_ASYNC_WR_RING_DEFAULT);
	r = ib_async_wr_ring_alloc(arg->kind == IB_ASYNC_WR_RING_SEND, entries,
				   max_sge, max_inline);
	if (IS_ERR(r))
		return PTR_ERR(r);
	r->key = (unsigned long)owner->handle << 1 | arg->kind;
	u->answered = ib_async_wr_ring_answered;
	u->pending = r;
	arg->entries = entries;
	arg->slot_size = r->slot_size;
	arg->slots_offset = IB_ASYNC_WR_SLOTS_OFFSET;
	arg->max_sge = r->max_sge;
	arg->max_inline = r->max_inline;
	arg->inline_offset = r->inline_offset;
	arg->doorbell = r->key;
	arg->mmap_offset = (u64)ib_async_wr_ring_pgoff_of(r->key, false)
			   << PAGE_SHIFT;
	arg->mmap_size = PAGE_SIZE;
	arg->slots_mmap_offset = (u64)ib_async_wr_ring_pgoff_of(r->key, true)
				 << PAGE_SHIFT;
	arg->slots_mmap_size = r->m.size;
	ib_async_ucmd_respond(u);
	return 0;
}

/*
 * The QP or SRQ a doorbell's value names, alive, and its ring of that
 * kind. Its handle says which object; the object, its type.
 */
static struct ib_async_wr_ring *ib_async_doorbell_ring(struct ib_async_file *file,
						       unsigned long key,
						       struct ib_async_uobj **o)
{
	u32 kind = key & 1;
	struct ib_async_uobj *owner;

	if (key >> 1 > U32_MAX)
		return ERR_PTR(-EINVAL);
	owner = ib_async_uobj_get(file, key >> 1, IB_ASYNC_OBJ_QP);
	if (PTR_ERR_OR_ZERO(owner) == -EINVAL)
		owner = ib_async_uobj_get(file, key >> 1, IB_ASYNC_OBJ_SRQ);
	if (IS_ERR(owner))
		return ERR_CAST(owner);
	if (!owner->wr_ring[kind])
		return ERR_PTR(-EINVAL);
	*o = owner;
	return owner->wr_ring[kind];
}

/*
 * Copy @n slots from the consumer on into @dst, once: wrapping at the
 * ring's end. The program may be writing them as they are copied; only
 * the copy is ever looked at.
 */
static void ib_async_wr_ring_copy(const struct ib_async_wr_ring *r, void *dst,
				  u32 n)
{
	u32 first = r->consumer & (r->entries - 1);
	u32 head = min(n, r->entries - first);

	memcpy(dst, r->slots + (size_t)first * r->slot_size,
	       (size_t)head * r->slot_size);
	memcpy(dst + (size_t)head * r->slot_size, r->slots,
	       (size_t)(n - head) * r->slot_size);
}

/* The consumer moved by @posted: tell the program, with its error. */
static void ib_async_wr_ring_publish(struct ib_async_wr_ring *r, u32 posted,
				     int err)
{
	/* read unlocked by ib_async_wr_ring_idle() */
	WRITE_ONCE(r->consumer, r->consumer + posted);
	WRITE_ONCE(r->hdr->error, -err);
	/* the error, then the count it goes with */
	smp_store_release(&r->hdr->consumer, r->consumer);
}

/* The ring's scratch: one batch's copy, then what post.c carves. */
static void *ib_async_wr_ring_scratch(struct ib_async_wr_ring *r)
{
	if (!r->scratch)
		r->scratch = kvmalloc((size_t)r->batch * r->slot_size +
				      ib_async_post_scratch_size(r->send,
								 r->batch,
								 r->max_sge),
				      GFP_KERNEL_ACCOUNT);
	return r->scratch;
}

/* Slots the program wrote and the kernel has not taken: at most entries. */
static int ib_async_wr_ring_pending(const struct ib_async_wr_ring *r)
{
	/* read once, and bounded by nothing but the kernel's own count */
	u32 pending = smp_load_acquire(&r->prod->producer) - r->consumer;

	if (pending > r->entries)
		return -EINVAL;
	return pending;
}

/*
 * Post what @r holds, batch by batch, each copied once and posted as one
 * chain; the first refused ends them all. Return: 0 when every pending
 * slot was posted, or some were; else the error of the first pending
 * slot (none posted), -EINVAL for a producer more than the ring's size
 * ahead (nothing posted, nothing published), or -ENOMEM (the scratch, at
 * the first doorbell). *@posted: how many were.
 */
static int ib_async_wr_ring_drain(struct ib_async_file *file,
				  struct ib_async_uobj *owner,
				  struct ib_async_wr_ring *r, u32 *posted)
{
	struct ib_async_slots s;
	u32 n, k;
	int pending, err = 0;
	void *copy;

	ib_async_dp_assert(owner);
	*posted = 0;
	pending = ib_async_wr_ring_pending(r);
	if (pending < 0)
		return pending;
	r->stuck = false;
	if (!pending) {
		ib_async_wr_ring_publish(r, 0, 0);
		return 0;
	}
	copy = ib_async_wr_ring_scratch(r);
	if (!copy)
		return -ENOMEM;
	s = (struct ib_async_slots) {
		.mem = copy, .slot_size = r->slot_size,
		.max_sge = r->max_sge, .max_inline = r->max_inline,
		.inline_offset = r->inline_offset, .send = r->send,
		.scratch = copy + (size_t)r->batch * r->slot_size,
	};
	do {
		n = min(pending - *posted, r->batch);
		ib_async_wr_ring_copy(r, copy, n);
		s.count = n;
		k = ib_async_post_slots(file, owner, &s, &err);
		ib_async_wr_ring_publish(r, k, err);
		*posted += k;
	} while (!err && k == n && *posted < pending);
	r->stuck = err != 0;
	return *posted ? 0 : err;
}

/*
 * Would the poller post from @r? Not once it stopped at a refused slot.
 *
 * The program learns of the refusal from the header (consumer and error)
 * and drops the slots after it by setting its producer back, then writes
 * new ones. A poller that read the old producer before the drop and
 * copied slots after the rewrite would post a mix: requests the program
 * was told were not posted. So after a refusal only the program's own
 * doorbell (which it rings when it sees the error) drains the ring, and
 * the poller takes it up again from that doorbell on, or once it finds
 * the ring empty: no producer it read is older than the drop then.
 */
static bool ib_async_wr_ring_has_work(struct ib_async_wr_ring *r)
{
	int pending;

	ib_async_dp_assert(r->owner);
	pending = ib_async_wr_ring_pending(r);

	if (!pending)
		r->stuck = false;
	return pending > 0 && !r->stuck;
}

/*
 * Drain @r under its owner's lock (the poller's: if it has work for it),
 * then, the lock dropped (a CQ's is never taken inside another object's),
 * fill the rings of the CQs the sends it posted complete on. Return:
 * ib_async_wr_ring_drain()'s; *@moved: the completions published.
 */
static int ib_async_wr_ring_ring(struct ib_async_file *file,
				 struct ib_async_uobj *owner,
				 struct ib_async_wr_ring *r, bool poller,
				 u32 *posted, u32 *moved)
{
	int ret = 0;

	*posted = 0;
	*moved = 0;
	ib_async_dp_lock(owner);
	if (!poller || ib_async_wr_ring_has_work(r))
		ret = ib_async_wr_ring_drain(file, owner, r, posted);
	ib_async_dp_unlock(owner);
	if (r->send && *posted)
		*moved = ib_async_qp_fill_rings(owner);
	return ret;
}

/**
 * ib_async_cmd_wr_doorbell - post what a submission ring holds
 * @u: the command; @u->arg is the ring's doorbell value, handle << 1 | kind
 *
 * Runs with the device pinned and the file's dp_rwsem held for reading;
 * takes the owner's lock to post, and then its CQs' to fill their rings.
 * A poller asleep is woken: the program rang because the ring said so.
 *
 * Return: ib_async_wr_ring_drain()'s, or the lookup's error.
 */
int ib_async_cmd_wr_doorbell(struct ib_async_ucmd *u)
{
	struct ib_async_file *file = u->file;
	struct ib_async_uobj *owner = NULL;
	struct ib_async_wr_ring *r;
	u32 posted, moved;
	int ret;

	lockdep_assert_held_read(&file->dp_rwsem);
	if (current->mm != file->verbs->mm)
		return -EPERM;
	r = ib_async_doorbell_ring(file, u->arg, &owner);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = ib_async_wr_ring_ring(file, owner, r, false, &posted, &moved);
	ib_async_poller_kick(file);
	return ret;
}

/*
 * Whether @r holds no slot the kernel has not taken, read without its
 * owner's lock: so that the poller's pass spends no lookup and no lock on
 * a ring with nothing in it, which is most of them. Only a hint. The
 * consumer moves under that lock, and a program's producer only ever
 * grows past it, so a stale read of either shows work that is gone (the
 * pass then looks under the lock) or misses work that the next pass
 * finds; the poller never sleeps on this, ib_async_wr_rings_wake() looks
 * under the locks.
 */
static bool ib_async_wr_ring_idle(const struct ib_async_wr_ring *r)
{
	return READ_ONCE(r->prod->producer) == READ_ONCE(r->consumer);
}

/**
 * ib_async_wr_rings_post - the poller's doorbell: post every submission
 * ring of @file that has work
 * @file: the file, its device pinned
 * @moved: out: the completions the fills after its posts published
 *
 * A ring whose producer is out of bounds is left alone: the doorbell
 * would refuse it, and its header says nothing new. So is one that
 * stopped at a refused slot (ib_async_wr_ring_has_work()).
 *
 * Return: work requests posted.
 */
u32 ib_async_wr_rings_post(struct ib_async_file *file, u32 *moved)
{
	struct ib_async_mapped_ring *m;
	struct ib_async_uobj *owner;
	struct ib_async_wr_ring *r;
	u32 posted, n, total = 0;
	unsigned long key;

	lockdep_assert_held_read(&file->dp_rwsem);
	xa_for_each(&file->verbs->wr_rings, key, m) {
		r = container_of(m, struct ib_async_wr_ring, m);
		if (ib_async_wr_ring_idle(r) ||
		    IS_ERR(ib_async_doorbell_ring(file, key, &owner)))
			continue;
		ib_async_wr_ring_ring(file, owner, r, true, &posted, &n);
		total += posted;
		*moved += n;
	}
	return total;
}

/**
 * ib_async_wr_rings_wake - say in every submission ring of @file whether
 * its poller is awake
 * @file: the file
 * @awake: it is
 *
 * Return: whether a ring has work, read after the flags were written and
 * a full barrier: a program that stored its producer before our read of
 * it rings no doorbell, so the poller must not sleep on it.
 */
bool ib_async_wr_rings_wake(struct ib_async_file *file, bool awake)
{
	struct ib_async_wr_ring *r;
	struct ib_async_mapped_ring *m;
	unsigned long key;
	bool work = false;

	lockdep_assert_held_read(&file->dp_rwsem);
	xa_for_each(&file->verbs->wr_rings, key, m) {
		r = container_of(m, struct ib_async_wr_ring, m);
		ib_async_dp_lock(r->owner);
		ib_async_wr_ring_wake(r, awake);
		ib_async_dp_unlock(r->owner);
	}
	/* pairs with the program's barrier between its producer and flags */
	smp_mb();
	xa_for_each(&file->verbs->wr_rings, key, m) {
		r = container_of(m, struct ib_async_wr_ring, m);
		ib_async_dp_lock(r->owner);
		work |= ib_async_wr_ring_has_work(r);
		ib_async_dp_unlock(r->owner);
	}
	return work;
}

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
 * A first step: the doorbell runs under the file's obj_mutex, as the list
 * commands do, and copies the slots there (kernel memory, so nothing can
 * fault or wait on the program); another file's doorbells never wait for
 * it.
 *
 * Lifetime, as for completion rings (cq_ring.c): the ring holds one
 * reference for its QP or SRQ, dropped when that uobj is freed, and one
 * per mapping; its memory and its charge go with the last. mmap() runs
 * with mmap_lock held and must not wait for obj_mutex, so it finds the
 * ring through the file's wr_rings under RCU, and the ring is freed after
 * a grace period.
 */
#include <linux/compat.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "verbs.h"

/* Slots when the program asks for no number. */
#define IB_ASYNC_WR_RING_DEFAULT	256
/* Every slot starts on a cache line of its own. */
#define IB_ASYNC_WR_SLOT_ALIGN		64
/* No granted limits come near this; a slot larger is refused. */
#define IB_ASYNC_WR_SLOT_MAX		SZ_64K
/* Where the slots begin, after the producer's line. */
#define IB_ASYNC_WR_SLOTS_OFFSET	sizeof(struct ib_async_wr_ring_producer)
/*
 * A ring's mmap() offsets, in pages: above every completion ring's
 * (handle << 1 | part, below 2^33), then handle << 1 | kind, then part.
 */
#define IB_ASYNC_WR_RING_PGOFF		BIT(35)

/**
 * struct ib_async_wr_ring - a queue's work requests, written by its program
 * @ref: the owner's reference and one per mapping
 * @rcu: freed after mmap()'s lookups
 * @user: charged for @pages (NULL: CAP_IPC_LOCK)
 * @pages: pages charged: the header's and the slots'
 * @hpage: the header's page
 * @hdr: in it
 * @mem: the producer and the slots, vmalloc()ed
 * @size: their bytes, whole pages
 * @prod: at @mem
 * @slots: after it
 * @key: the owner's handle << 1 | kind, its index in wr_rings
 * @send: a send ring
 * @entries: slots
 * @slot_size: bytes each
 * @max_sge: entries a slot holds
 * @max_inline: inline bytes a send slot holds
 * @inline_offset: where they begin in a slot
 * @consumer: the kernel's own count of the slots it took; the only one
 *	it ever bounds the program's producer against
 */
struct ib_async_wr_ring {
	struct kref ref;
	struct rcu_head rcu;
	struct user_struct *user;
	long pages;
	struct page *hpage;
	struct ib_async_wr_ring_header *hdr;
	void *mem;
	size_t size;
	struct ib_async_wr_ring_producer *prod;
	void *slots;
	unsigned long key;
	bool send;
	u32 entries;
	u32 slot_size;
	u32 max_sge;
	u32 max_inline;
	u32 inline_offset;
	u32 consumer;
};

static void ib_async_wr_ring_release(struct kref *ref)
{
	struct ib_async_wr_ring *r = container_of(ref, struct ib_async_wr_ring,
						  ref);

	vfree(r->mem);
	if (r->hpage)
		__free_page(r->hpage);
	ib_async_uncharge_user_pages(&r->user, r->pages);
	kfree_rcu(r, rcu);
}

static void ib_async_wr_ring_put(struct ib_async_wr_ring *r)
{
	kref_put(&r->ref, ib_async_wr_ring_release);
}

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

	slot = ib_async_wr_slot_size(send, max_sge, max_inline, &inl);
	if (slot > IB_ASYNC_WR_SLOT_MAX)
		return ERR_PTR(-EINVAL);
	bytes = PAGE_ALIGN(IB_ASYNC_WR_SLOTS_OFFSET + entries * slot);
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	kref_init(&r->ref);
	r->pages = (bytes >> PAGE_SHIFT) + 1;
	if (ib_async_charge_user_pages(r->pages, &r->user)) {
		kfree(r);
		return ERR_PTR(-ENOMEM);
	}
	r->size = bytes;
	r->mem = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	r->hpage = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!r->mem || !r->hpage) {
		ib_async_wr_ring_put(r);
		return ERR_PTR(-ENOMEM);
	}
	r->hdr = page_address(r->hpage);
	r->prod = r->mem;
	r->slots = r->mem + IB_ASYNC_WR_SLOTS_OFFSET;
	r->send = send;
	r->entries = entries;
	r->slot_size = slot;
	r->max_sge = max_sge;
	r->max_inline = send ? max_inline : 0;
	r->inline_offset = inl;
	r->hdr->entries = entries;
	r->hdr->slot_size = slot;
	r->hdr->max_sge = max_sge;
	r->hdr->max_inline = r->max_inline;
	r->hdr->inline_offset = inl;
	r->hdr->kind = send ? IB_ASYNC_WR_RING_SEND : IB_ASYNC_WR_RING_RECV;
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

static void ib_async_wr_ring_vm_open(struct vm_area_struct *vma)
{
	struct ib_async_wr_ring *r = vma->vm_private_data;

	kref_get(&r->ref);
}

static void ib_async_wr_ring_vm_close(struct vm_area_struct *vma)
{
	ib_async_wr_ring_put(vma->vm_private_data);
}

static const struct vm_operations_struct ib_async_wr_ring_vm_ops = {
	.open	= ib_async_wr_ring_vm_open,
	.close	= ib_async_wr_ring_vm_close,
};

/* Insert the pages of one of @r's mappings into @vma. */
static int ib_async_wr_ring_insert(struct ib_async_wr_ring *r,
				   struct vm_area_struct *vma, bool slots)
{
	size_t size = slots ? r->size : PAGE_SIZE;
	unsigned long off;
	int ret;

	if (vma->vm_end - vma->vm_start != size)
		return -EINVAL;
	if (!slots) {
		/* what the kernel writes is never the program's to write */
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vm_flags_clear(vma, VM_MAYWRITE);
		return vm_insert_page(vma, vma->vm_start, r->hpage);
	}
	for (off = 0; off < size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(r->mem + off));
		if (ret)
			return ret;
	}
	return 0;
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
	bool slots = vma->vm_pgoff & 1;
	struct ib_async_wr_ring *r;
	int ret;

	if (!(vma->vm_flags & VM_SHARED) || key > U32_MAX * 2UL + 1)
		return -EINVAL;
	/* what the data path of another process may not post to either */
	if (vma->vm_mm != file->verbs->mm)
		return -EPERM;
	rcu_read_lock();
	r = xa_load(&file->verbs->wr_rings, key);
	if (r && !kref_get_unless_zero(&r->ref))
		r = NULL;
	rcu_read_unlock();
	if (!r)
		return -EINVAL;
	/* A child's copy would write into the parent's queue. */
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND);
	ret = ib_async_wr_ring_insert(r, vma, slots);
	if (ret) {
		ib_async_wr_ring_put(r);
		return ret;
	}
	vma->vm_private_data = r;
	vma->vm_ops = &ib_async_wr_ring_vm_ops;
	return 0;
}

/**
 * ib_async_wr_rings_drop - a QP's or SRQ's uobj goes: so does its hold
 * @owner: the uobj
 *
 * No new mapping finds its rings, and no doorbell, which finds a ring
 * through its live owner; those mapped keep it until unmapped.
 */
void ib_async_wr_rings_drop(struct ib_async_uobj *owner)
{
	struct ib_async_wr_ring *r;
	int i;

	for (i = 0; i < ARRAY_SIZE(owner->wr_ring); i++) {
		r = owner->wr_ring[i];
		if (!r)
			continue;
		xa_erase(&owner->file->verbs->wr_rings, r->key);
		ib_async_wr_ring_put(r);
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
			ret = xa_err(xa_store(&file->verbs->wr_rings, r->key,
					      r, GFP_KERNEL_ACCOUNT));
		if (!ret)
			owner->wr_ring[arg->kind] = r;
		ib_async_ucmd_unlock(u);
	}
out:
	if (ret)
		ib_async_wr_ring_put(r);
	return ret;
}

/**
 * ib_async_cmd_map_wr_ring - make a QP's or SRQ's submission ring
 * @u: the command, with the device pinned and the file's obj_mutex held
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
	arg->slots_mmap_size = r->size;
	ib_async_ucmd_respond(u);
	return 0;
}

/*
 * The QP or SRQ a doorbell's value names, alive, and its ring of that
 * kind. Its handle says which object; the object, its type.
 */
static struct ib_async_wr_ring *ib_async_doorbell_ring(struct ib_async_ucmd *u,
						       struct ib_async_uobj **o)
{
	u32 kind = u->arg & 1;
	struct ib_async_uobj *owner;

	if (u->arg >> 1 > U32_MAX)
		return ERR_PTR(-EINVAL);
	owner = ib_async_uobj_get(u->file, u->arg >> 1, IB_ASYNC_OBJ_QP);
	if (PTR_ERR_OR_ZERO(owner) == -EINVAL)
		owner = ib_async_uobj_get(u->file, u->arg >> 1,
					  IB_ASYNC_OBJ_SRQ);
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
	r->consumer += posted;
	WRITE_ONCE(r->hdr->error, -err);
	/* the error, then the count it goes with */
	smp_store_release(&r->hdr->consumer, r->consumer);
}

/**
 * ib_async_cmd_wr_doorbell - post what a submission ring holds
 * @u: the command; @u->arg is the ring's doorbell value, handle << 1 | kind
 *
 * Runs with the device pinned and the file's obj_mutex held.
 *
 * Return: 0 when every pending slot was posted, or some were; else the
 * error of the first pending slot (none posted), -EINVAL for a producer
 * more than the ring's size ahead (nothing posted, nothing published), or
 * the lookup's error.
 */
int ib_async_cmd_wr_doorbell(struct ib_async_ucmd *u)
{
	struct ib_async_file *file = u->file;
	struct ib_async_uobj *owner = NULL;
	struct ib_async_slots s;
	struct ib_async_wr_ring *r;
	u32 pending, posted;
	void *copy;
	int err;

	lockdep_assert_held(&file->obj_mutex);
	if (current->mm != file->verbs->mm)
		return -EPERM;
	r = ib_async_doorbell_ring(u, &owner);
	if (IS_ERR(r))
		return PTR_ERR(r);
	/* read once, and bounded by nothing but the kernel's own count */
	pending = smp_load_acquire(&r->prod->producer) - r->consumer;
	if (pending > r->entries)
		return -EINVAL;
	if (!pending) {
		ib_async_wr_ring_publish(r, 0, 0);
		return 0;
	}
	copy = kvmalloc_array(pending, r->slot_size, GFP_KERNEL_ACCOUNT);
	if (!copy)
		return -ENOMEM;
	ib_async_wr_ring_copy(r, copy, pending);
	s = (struct ib_async_slots) {
		.mem = copy, .count = pending, .slot_size = r->slot_size,
		.max_sge = r->max_sge, .max_inline = r->max_inline,
		.inline_offset = r->inline_offset, .send = r->send,
	};
	posted = ib_async_post_slots(file, owner, &s, &err);
	kvfree(copy);
	ib_async_wr_ring_publish(r, posted, err);
	if (owner->type == IB_ASYNC_OBJ_QP)
		ib_async_qp_fill_rings(owner);
	return posted ? 0 : err;
}

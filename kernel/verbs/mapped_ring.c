// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The memory of the rings a program maps from the verbs layer, completion
 * rings (cq_ring.c) and submission rings (wr_ring.c): two parts, one
 * vmalloc()ed area of whole pages and one page, charged to the caller's
 * RLIMIT_MEMLOCK and memory cgroup. The program writes one part; the
 * other is the kernel's, mapped read-only for good.
 *
 * Lifetime: the ring holds one reference for its owner (a CQ, a QP, an
 * SRQ), dropped when the owner's uobj is freed, and one per mapping; its
 * memory and its charge go with the last. mmap() runs with mmap_lock held
 * and must not wait for the file's locks, so it finds the ring through one of
 * the file's xarrays under RCU, and the ring is freed after a grace
 * period. A ring is in that xarray from MAP's answer until its owner's
 * handle goes, both under the file's dp_rwsem held for writing, and the
 * owner's hold outlasts that: so a walk of the xarray with dp_rwsem held
 * (the poller's) uses what it finds without a reference of its own.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mapped_ring.h"

/* What init took: its memory and its charge. */
static void ib_async_mapped_ring_free_parts(struct ib_async_mapped_ring *m)
{
	vfree(m->mem);
	if (m->page)
		__free_page(m->page);
	ib_async_uncharge_user_pages(&m->user, m->pages);
}

/**
 * ib_async_mapped_ring_init - allocate and charge a ring's two parts
 * @m: the first member of a zeroed ring, kmalloc()ed
 * @bytes: the vmalloc()ed part's, whole pages
 * @writable: the part the program may map writable
 *
 * Its reference is the caller's, for the owner.
 *
 * Return: 0, or -ENOMEM (RLIMIT_MEMLOCK, or no memory): nothing is then
 * held, and the caller kfree()s the ring.
 */
int ib_async_mapped_ring_init(struct ib_async_mapped_ring *m, size_t bytes,
			      enum ib_async_mapped_part writable)
{
	kref_init(&m->ref);
	m->pages = (bytes >> PAGE_SHIFT) + 1;
	if (ib_async_charge_user_pages(m->pages, &m->user))
		return -ENOMEM;
	m->size = bytes;
	m->writable = writable;
	m->mem = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	m->page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (m->mem && m->page)
		return 0;
	ib_async_mapped_ring_free_parts(m);
	return -ENOMEM;
}

static void ib_async_mapped_ring_release(struct kref *ref)
{
	struct ib_async_mapped_ring *m =
		container_of(ref, struct ib_async_mapped_ring, ref);

	ib_async_mapped_ring_free_parts(m);
	/* the whole ring: @m is its first member */
	kfree_rcu(m, rcu);
}

/**
 * ib_async_mapped_ring_put - drop a reference to a ring
 * @m: the ring's
 *
 * The last frees the ring after a grace period.
 */
void ib_async_mapped_ring_put(struct ib_async_mapped_ring *m)
{
	kref_put(&m->ref, ib_async_mapped_ring_release);
}

/**
 * ib_async_mapped_ring_publish - let mmap() find a ring
 * @rings: the file's xarray of such rings
 * @index: the ring's index in it, its offsets' key
 * @m: the ring
 *
 * Return: 0, or xa_store()'s error (-ENOMEM).
 */
int ib_async_mapped_ring_publish(struct xarray *rings, unsigned long index,
				 struct ib_async_mapped_ring *m)
{
	return xa_err(xa_store(rings, index, m, GFP_KERNEL_ACCOUNT));
}

/**
 * ib_async_mapped_ring_unpublish - the owner's handle goes: mmap() and
 * the file's walks no longer find the ring
 * @rings: where ib_async_mapped_ring_publish() put it
 * @index: at what index
 *
 * Under the file's dp_rwsem held for writing, with the owner's hold still
 * on the ring: a walk of @rings made with dp_rwsem held (the poller's)
 * never meets a ring whose memory may go meanwhile.
 */
void ib_async_mapped_ring_unpublish(struct xarray *rings, unsigned long index)
{
	xa_erase(rings, index);
}

/**
 * ib_async_mapped_ring_drop - the owner goes: so does its hold on a ring
 * @rings: where ib_async_mapped_ring_publish() put it
 * @index: at what index
 * @m: the ring, unpublished already
 *
 * Without the file's locks (DESTROY's tail): the last hold frees the ring at
 * once, so it must be out of @rings by now. Mappings that exist keep it
 * until unmapped.
 */
void ib_async_mapped_ring_drop(struct xarray *rings, unsigned long index,
			       struct ib_async_mapped_ring *m)
{
	WARN_ON_ONCE(xa_load(rings, index) == m);
	ib_async_mapped_ring_put(m);
}

static void ib_async_mapped_ring_vm_open(struct vm_area_struct *vma)
{
	struct ib_async_mapped_ring *m = vma->vm_private_data;

	kref_get(&m->ref);
}

static void ib_async_mapped_ring_vm_close(struct vm_area_struct *vma)
{
	ib_async_mapped_ring_put(vma->vm_private_data);
}

static const struct vm_operations_struct ib_async_mapped_ring_vm_ops = {
	.open	= ib_async_mapped_ring_vm_open,
	.close	= ib_async_mapped_ring_vm_close,
};

/* Insert the pages of @m's @part into @vma. */
static int ib_async_mapped_ring_insert(struct ib_async_mapped_ring *m,
				       struct vm_area_struct *vma,
				       enum ib_async_mapped_part part)
{
	size_t size = part == IB_ASYNC_MAPPED_PAGE ? PAGE_SIZE : m->size;
	unsigned long off;
	int ret;

	if (vma->vm_end - vma->vm_start != size)
		return -EINVAL;
	if (part != m->writable) {
		/* what the kernel writes is never the program's to write */
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	if (part == IB_ASYNC_MAPPED_PAGE)
		return vm_insert_page(vma, vma->vm_start, m->page);
	for (off = 0; off < size; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(m->mem + off));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ib_async_mapped_ring_mmap - map one part of a ring the file published
 * @file: the node's file
 * @rings: the file's xarray the ring is in
 * @index: its index there, from the offset the caller was given
 * @part: which of its parts the offset names
 * @vma: shared, of that part's size
 *
 * Return: 0, -EINVAL (no such ring, another size, a private mapping),
 * -EPERM (the kernel's part mapped writable, another process), or
 * vm_insert_page()'s error.
 */
int ib_async_mapped_ring_mmap(struct ib_async_file *file,
			      struct xarray *rings, unsigned long index,
			      enum ib_async_mapped_part part,
			      struct vm_area_struct *vma)
{
	struct ib_async_mapped_ring *m;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* what the data path of another process may not use either */
	if (vma->vm_mm != file->verbs->mm)
		return -EPERM;
	rcu_read_lock();
	m = xa_load(rings, index);
	if (m && !kref_get_unless_zero(&m->ref))
		m = NULL;
	rcu_read_unlock();
	if (!m)
		return -EINVAL;
	/*
	 * A child's copy would share the parent's ring: read its consumer
	 * index, write into its queue.
	 */
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND);
	ret = ib_async_mapped_ring_insert(m, vma, part);
	if (ret) {
		ib_async_mapped_ring_put(m);
		return ret;
	}
	vma->vm_private_data = m;
	vma->vm_ops = &ib_async_mapped_ring_vm_ops;
	return 0;
}

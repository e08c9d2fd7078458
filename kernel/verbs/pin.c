// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Pinning a user's pages for the device, in two steps.
 *
 * ib_umem_get() pins and DMA-maps in one call, so it needs the device
 * while it faults the pages in. A page behind userfaultfd or a slow
 * filesystem can keep that fault waiting indefinitely, and ib_async holds
 * the device (disassoc_rwsem) and the file (obj_mutex) only around work
 * that cannot be held up by userspace. So the pages are pinned first,
 * holding nothing, and mapped afterwards under the locks.
 *
 * The charge is ib_umem_get()'s, so an MR costs the same whichever stack
 * registered it: the pages count in the owner's mm->pinned_vm against
 * RLIMIT_MEMLOCK (ENOMEM past it without CAP_IPC_LOCK; EPERM where
 * mlock is not allowed at all), and they are pinned FOLL_LONGTERM, so
 * fork() copies them for the child instead of sharing them.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "verbs.h"

/*
 * Is @addr in a shared mapping? Its pages are the file's or the shared
 * memory's own, never a private copy, so a read-only pin of them cannot
 * go stale on any kernel.
 */
static bool ib_async_in_shared_mapping(struct mm_struct *mm,
				       unsigned long addr)
{
	struct vm_area_struct *vma;
	bool shared;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	shared = vma && (vma->vm_flags & VM_SHARED);
	mmap_read_unlock(mm);
	return shared;
}

/**
 * ib_async_pin_user - pin [@addr, @addr + @length) of the current process
 * @p: filled in; released with ib_async_unpin_user()
 * @addr: start
 * @length: bytes, at least 1, not wrapping
 * @writable: the device may write; else the pages are pinned as
 *	ib_umem_get() of the running kernel pins them for reading
 *	(IB_ASYNC_PIN_READ_FLAGS in compat.h): for writing, forced, where a
 *	read-only pin may hold the zero page or a page cache page the
 *	process's next write replaces (6.1), so the device sees what the
 *	process writes later; for reading only where such a pin is reliable
 *	(6.2 and later). A read-only shared mapping (a file mapped PROT_READ,
 *	which ib_uverbs registers from 6.2 on) cannot be pinned for writing:
 *	its pages are pinned for reading on every kernel, reliably, as a
 *	shared mapping has no private copy to go stale against.
 *
 * Holds no lock of ib_async's: may wait on the caller's page faults.
 *
 * Return: 0, -EPERM, -ENOMEM, -EFAULT or -EINTR.
 */
int ib_async_pin_user(struct ib_async_pinned *p, u64 addr, u64 length,
		      bool writable)
{
	unsigned int gup_flags = FOLL_LONGTERM;
	unsigned long start = addr & PAGE_MASK;
	unsigned long lock_limit, done = 0;
	struct mm_struct *mm = current->mm;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!can_do_mlock())
		return -EPERM;
	p->npages = (PAGE_ALIGN(addr + length) - start) >> PAGE_SHIFT;
	p->writable = writable;
	gup_flags |= writable ? FOLL_WRITE : IB_ASYNC_PIN_READ_FLAGS;

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (atomic64_add_return(p->npages, &mm->pinned_vm) > lock_limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(p->npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	p->pages = kvmalloc_array(p->npages, sizeof(*p->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!p->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	while (done < p->npages) {
		unsigned long at = start + (done << PAGE_SHIFT);
		unsigned long n = min_t(unsigned long, p->npages - done,
					SZ_64K);

		ret = pin_user_pages_fast(at, n, gup_flags, p->pages + done);
		if (ret == -EFAULT && (gup_flags & FOLL_FORCE) &&
		    ib_async_in_shared_mapping(mm, at))
			ret = pin_user_pages_fast(at, n, FOLL_LONGTERM,
						  p->pages + done);
		if (ret <= 0) {
			ret = ret ?: -EFAULT;
			goto err_unpin;
		}
		done += ret;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err_unpin;
		}
		cond_resched();
	}
	p->mm = mm;
	mmgrab(mm);
	return 0;

err_unpin:
	unpin_user_pages(p->pages, done);
	kvfree(p->pages);
err_uncharge:
	atomic64_sub(p->npages, &mm->pinned_vm);
	p->pages = NULL;
	return ret;
}

/**
 * ib_async_pinned_map - DMA-map pinned pages for a device
 * @p: pinned by ib_async_pin_user()
 * @ib_dev: the device, held by the caller
 * @relaxed: the MR allows relaxed ordering
 *
 * Return: 0 or -ENOMEM.
 */
int ib_async_pinned_map(struct ib_async_pinned *p, struct ib_device *ib_dev,
			bool relaxed)
{
	int ret;

	ret = sg_alloc_table_from_pages_segment(&p->sgt, p->pages, p->npages,
						0, p->npages << PAGE_SHIFT,
						ib_dma_max_seg_size(ib_dev),
						GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	ret = ib_dma_map_sgtable_attrs(ib_dev, &p->sgt, DMA_BIDIRECTIONAL,
				       relaxed ? DMA_ATTR_WEAK_ORDERING : 0);
	if (ret) {
		sg_free_table(&p->sgt);
		return ret;
	}
	p->dev = ib_dev;
	return 0;
}

/**
 * ib_async_unpin_user - unmap and unpin, and give the charge back
 * @p: from ib_async_pin_user(), mapped or not
 *
 * Only once the device can no longer reach the pages. Any context that
 * may sleep: the charge goes back to the mm that was charged.
 */
void ib_async_unpin_user(struct ib_async_pinned *p)
{
	if (!p->pages)
		return;
	if (p->dev) {
		ib_dma_unmap_sgtable_attrs(p->dev, &p->sgt, DMA_BIDIRECTIONAL,
					   0);
		sg_free_table(&p->sgt);
		p->dev = NULL;
	}
	unpin_user_pages_dirty_lock(p->pages, p->npages, p->writable);
	kvfree(p->pages);
	p->pages = NULL;
	atomic64_sub(p->npages, &p->mm->pinned_vm);
	mmdrop(p->mm);
}

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a completion ring (cq_ring.c) and a submission ring (wr_ring.c)
 * share: memory the program maps, in two parts, whose lifetime is the
 * owner's hold and the mappings'. Each ring keeps its geometry, its fill
 * or its doorbell to itself; this is only the memory and its mapping.
 */
#ifndef IB_ASYNC_MAPPED_RING_H
#define IB_ASYNC_MAPPED_RING_H

#include <linux/kref.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>

#include "verbs.h"

/**
 * enum ib_async_mapped_part - the two mappings of a ring
 * @IB_ASYNC_MAPPED_MEM: the vmalloc()ed part, of whole pages
 * @IB_ASYNC_MAPPED_PAGE: the one page
 */
enum ib_async_mapped_part {
	IB_ASYNC_MAPPED_MEM,
	IB_ASYNC_MAPPED_PAGE,
};

/**
 * struct ib_async_mapped_ring - a ring's memory and its lifetime
 * @ref: the owner's reference and one per mapping
 * @rcu: freed after mmap()'s lookups
 * @user: charged for @pages (NULL: CAP_IPC_LOCK)
 * @pages: pages charged: @mem's and @page's
 * @mem: one part, vmalloc()ed
 * @size: its bytes, whole pages
 * @page: the other part, one page
 * @writable: the part the program writes; the kernel writes the other
 *
 * The first member of each ring, so that freeing it frees the ring.
 */
struct ib_async_mapped_ring {
	struct kref ref;
	struct rcu_head rcu;
	struct user_struct *user;
	long pages;
	void *mem;
	size_t size;
	struct page *page;
	enum ib_async_mapped_part writable;
};

/* mapped_ring.c */
int ib_async_mapped_ring_init(struct ib_async_mapped_ring *m, size_t bytes,
			      enum ib_async_mapped_part writable);
void ib_async_mapped_ring_put(struct ib_async_mapped_ring *m);
int ib_async_mapped_ring_publish(struct xarray *rings, unsigned long index,
				 struct ib_async_mapped_ring *m);
void ib_async_mapped_ring_unpublish(struct xarray *rings, unsigned long index);
void ib_async_mapped_ring_drop(struct xarray *rings, unsigned long index,
			       struct ib_async_mapped_ring *m);
int ib_async_mapped_ring_mmap(struct ib_async_file *file,
			      struct xarray *rings, unsigned long index,
			      enum ib_async_mapped_part part,
			      struct vm_area_struct *vma);

#endif /* IB_ASYNC_MAPPED_RING_H */

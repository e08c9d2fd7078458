// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Where a file's work request tracking (struct ib_async_wr) comes from: a
 * free list of the file's, so that a post in the steady state allocates
 * nothing and charges nothing, and a completion frees nothing.
 *
 * An object is allocated from the module's cache only when the file's
 * list is empty, and is charged then, to the poster's memory cgroup (the
 * cache's SLAB_ACCOUNT) and to the file's RLIMIT_MEMLOCK account; it stays
 * charged while it waits on the list for the next post. The list holds at
 * most IB_ASYNC_WR_POOL_MAX objects, past which a returned one is freed
 * and uncharged, so that a file that once had many requests outstanding
 * does not keep their memory; it empties when the file goes.
 *
 * The list is under the file's wr_lock, which a post and a completion
 * already take for the request's id; a post takes all of its requests'
 * objects under it once.
 */
#include <linux/slab.h>

#include "wr.h"

/* Objects a file keeps for its next posts: 160 KiB of 160-byte ones. */
#define IB_ASYNC_WR_POOL_MAX	1024

static struct kmem_cache *ib_async_wr_cache;

int __init ib_async_wr_cache_init(void)
{
	ib_async_wr_cache = KMEM_CACHE(ib_async_wr, SLAB_ACCOUNT);
	return ib_async_wr_cache ? 0 : -ENOMEM;
}

void ib_async_wr_cache_exit(void)
{
	kmem_cache_destroy(ib_async_wr_cache);
}

/* One object goes back to the module's cache, and its charge with it. */
static void ib_async_wr_free_obj(struct ib_async_file *file,
				 struct ib_async_wr *w)
{
	kmem_cache_free(ib_async_wr_cache, w);
	ib_async_account_sub(file, sizeof(*w));
}

/* A new object, charged: the file's list was empty. */
static struct ib_async_wr *ib_async_wr_new(struct ib_async_file *file)
{
	struct ib_async_wr *w;

	w = kmem_cache_alloc(ib_async_wr_cache, GFP_KERNEL);
	if (!w)
		return NULL;
	if (ib_async_account_add(file, sizeof(*w))) {
		kmem_cache_free(ib_async_wr_cache, w);
		return NULL;
	}
	return w;
}

/**
 * ib_async_wrs_get - tracking for requests about to be posted
 * @file: the file that posts them
 * @tr: out: @n requests, zeroed, not yet known to the file or the
 *	device; on failure, @n NULLs
 * @n: how many
 * @recv: receives (else sends)
 *
 * Each holds no buffer; the caller sets its wr_id (wc.wr_id) and, on the
 * kernel-buffer path, its buffer.
 *
 * Return: 0, or -ENOMEM (nothing taken) past the user's RLIMIT_MEMLOCK or
 * when the cache has nothing.
 */
int ib_async_wrs_get(struct ib_async_file *file, struct ib_async_wr **tr,
		     u32 n, bool recv)
{
	struct ib_async_vfile *vf = file->verbs;
	struct ib_async_wr *w;
	LIST_HEAD(taken);
	u32 i = 0;

	spin_lock(&vf->wr_lock);
	list_for_each_entry(w, &vf->wr_pool, list) {
		if (i == n)
			break;
		tr[i++] = w;
	}
	/* cut off in one go; each one's links are reset below */
	if (i) {
		list_cut_position(&taken, &vf->wr_pool, &tr[i - 1]->list);
		vf->wr_pooled -= i;
	}
	spin_unlock(&vf->wr_lock);
	for (; i < n; i++) {
		tr[i] = ib_async_wr_new(file);
		if (!tr[i]) {
			while (i) {
				ib_async_wr_put(file, tr[--i]);
				tr[i] = NULL;
			}
			return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++) {
		memset(tr[i], 0, sizeof(*tr[i]));
		INIT_LIST_HEAD(&tr[i]->list);
		tr[i]->recv = recv;
	}
	return 0;
}

/**
 * ib_async_wr_put - a request's tracking is done with
 * @file: its file
 * @w: on no list, unmapped, its buffer (if any) freed and uncharged
 *
 * Back on the file's list, or to the cache when the list is full.
 */
void ib_async_wr_put(struct ib_async_file *file, struct ib_async_wr *w)
{
	struct ib_async_vfile *vf = file->verbs;

	spin_lock(&vf->wr_lock);
	if (vf->wr_pooled < IB_ASYNC_WR_POOL_MAX) {
		list_add(&w->list, &vf->wr_pool);
		vf->wr_pooled++;
		w = NULL;
	}
	spin_unlock(&vf->wr_lock);
	if (w)
		ib_async_wr_free_obj(file, w);
}

/**
 * ib_async_wr_pool_drain - the file goes: free what its list holds
 * @file: the file, every request it posted gone
 */
void ib_async_wr_pool_drain(struct ib_async_file *file)
{
	struct ib_async_vfile *vf = file->verbs;
	struct ib_async_wr *w, *next;

	list_for_each_entry_safe(w, next, &vf->wr_pool, list)
		ib_async_wr_free_obj(file, w);
	INIT_LIST_HEAD(&vf->wr_pool);
	vf->wr_pooled = 0;
}

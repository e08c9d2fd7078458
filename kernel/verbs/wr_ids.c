// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ids of a file's posted work requests: what the device carries as
 * wr_id, and how a completion finds its request again.
 *
 * An id is the file's count of requests made its own, 64 bits, so no id
 * is handed out twice in a file's life, whatever stays posted. A request
 * is found by its whole id in a hash table of fixed size, allocated at the
 * file's first post and charged to its memory cgroup: adding and removing
 * allocate and free nothing. (An xarray indexed by a cyclic 32-bit index
 * did, on every post: with few requests outstanding, each one made a leaf
 * node and freed it through RCU on completion.)
 *
 * The bucket comes from a keyed hash of the id (SipHash, a key per file),
 * so that a program cannot choose which of its requests stay posted to
 * make one chain long; a file has at most IB_ASYNC_MAX_WRS requests.
 */
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>

#include "wr.h"

/* 16 requests a chain at the most a file may post. */
#define IB_ASYNC_WR_ID_BITS	10

static struct hlist_head *ib_async_wr_bucket(struct ib_async_vfile *vf,
					     u64 id)
{
	u64 h = siphash_1u64(id, &vf->wr_key);

	return &vf->wr_ids[h & (BIT(IB_ASYNC_WR_ID_BITS) - 1)];
}

/**
 * ib_async_wr_ids_prepare - the file's table, made at its first post
 * @file: the file about to post
 *
 * Before wr_lock is taken, as the table's allocation may sleep; two first
 * posts on two QPs may race, and the loser's table goes.
 *
 * Return: 0, or -ENOMEM.
 */
int ib_async_wr_ids_prepare(struct ib_async_file *file)
{
	struct ib_async_vfile *vf = file->verbs;
	struct hlist_head *ids;

	/* pairs with the store below: a table seen is a table made */
	if (smp_load_acquire(&vf->wr_ids))
		return 0;
	ids = kvcalloc(BIT(IB_ASYNC_WR_ID_BITS), sizeof(*ids),
		       GFP_KERNEL_ACCOUNT);
	if (!ids)
		return -ENOMEM;
	spin_lock(&vf->wr_lock);
	if (!vf->wr_ids) {
		get_random_bytes(&vf->wr_key, sizeof(vf->wr_key));
		/* the key before the table: see the load above */
		smp_store_release(&vf->wr_ids, ids);
		ids = NULL;
	}
	spin_unlock(&vf->wr_lock);
	kvfree(ids);
	return 0;
}

/**
 * ib_async_wr_ids_add - give a request its id, and make it findable
 * @file: the file it is posted on, its table made
 *	(ib_async_wr_ids_prepare())
 * @w: the request, not yet in the table
 */
void ib_async_wr_ids_add(struct ib_async_file *file, struct ib_async_wr *w)
{
	struct ib_async_vfile *vf = file->verbs;

	lockdep_assert_held(&vf->wr_lock);
	w->id = vf->wr_next++;
	hlist_add_head(&w->id_node, ib_async_wr_bucket(vf, w->id));
}

/**
 * ib_async_wr_ids_del - a request's id names it no more
 * @file: its file
 * @w: the request, in the table
 */
void ib_async_wr_ids_del(struct ib_async_file *file, struct ib_async_wr *w)
{
	lockdep_assert_held(&file->verbs->wr_lock);
	hlist_del(&w->id_node);
}

/**
 * ib_async_wr_ids_find - the request a completion names
 * @file: the file whose CQ gave it
 * @id: the completion's wr_id
 *
 * Return: the request, or NULL (none of the file's posted ones).
 */
struct ib_async_wr *ib_async_wr_ids_find(struct ib_async_file *file, u64 id)
{
	struct ib_async_vfile *vf = file->verbs;
	struct ib_async_wr *w;

	lockdep_assert_held(&vf->wr_lock);
	if (!vf->wr_ids)
		return NULL;
	hlist_for_each_entry(w, ib_async_wr_bucket(vf, id), id_node)
		if (w->id == id)
			return w;
	return NULL;
}

/**
 * ib_async_wr_ids_free - the file goes, and every request it posted went
 * @vf: its verbs state
 */
void ib_async_wr_ids_free(struct ib_async_vfile *vf)
{
	kvfree(vf->wr_ids);
	vf->wr_ids = NULL;
}

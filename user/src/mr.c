// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions.
 *
 * Where the node offers IB_ASYNC_FEATURE_USER_MR, an MR is the kernel's:
 * IB_ASYNC_IOC_REG_MR pins the memory and registers it with the device,
 * whose keys the MR carries, and work requests are posted over it (see
 * datapath.c); ibv_dereg_mr() destroys it.
 *
 * Elsewhere the data path moves every message through kernel buffers,
 * reading the sender's memory when the send is posted and writing the
 * receiver's when the completion is polled, so no memory is pinned or
 * registered with the device. An MR is then a record of a range and its
 * access rights, kept per context: posting checks each scatter/gather
 * entry against it exactly as a device checks an lkey, so a program that
 * works here does not break on a real device for a missing or too small
 * registration. lkey == rkey == (generation << 24) | (slot + 1): never 0,
 * and a stale key of a deregistered MR does not match the slot's next
 * occupant.
 */
#include <errno.h>
#include <stdlib.h>

#include "cmd.h"
#include "ibasync.h"

#define MR_SLOT_BITS	24
#define MR_SLOT_MAX	((1U << MR_SLOT_BITS) - 1)

/* Access flags a range can carry; remote ones are accepted and unused. */
#define MR_ACCESS_OK	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_RELAXED_ORDERING)

void ibasync_mr_init(struct ibasync_context *c)
{
	pthread_rwlock_init(&c->mr_lock, NULL);
}

/* At close: MRs the program did not deregister go with the context. */
void ibasync_mr_fini(struct ibasync_context *c)
{
	uint32_t i;

	for (i = 0; i < c->mr_cap; i++)
		free(c->mrs[i]);
	free(c->mrs);
	pthread_rwlock_destroy(&c->mr_lock);
}

static uint32_t mr_slot(uint32_t lkey)
{
	return (lkey & MR_SLOT_MAX) - 1;
}

/* Called with mr_lock held for writing. */
static int mr_insert(struct ibasync_context *c, struct ibv_mr *mr)
{
	struct ibv_mr **mrs;
	uint32_t i, cap;

	for (i = 0; i < c->mr_cap; i++)
		if (!c->mrs[i])
			goto found;
	cap = c->mr_cap ? c->mr_cap * 2 : 16;
	if (cap > MR_SLOT_MAX)
		return ENOMEM;
	mrs = realloc(c->mrs, cap * sizeof(*mrs));
	if (!mrs)
		return ENOMEM;
	for (i = c->mr_cap; i < cap; i++)
		mrs[i] = NULL;
	i = c->mr_cap;
	c->mrs = mrs;
	c->mr_cap = cap;
found:
	c->mr_gen = (c->mr_gen + 1) & 0xff;
	mr->lkey = mr->rkey = (c->mr_gen << MR_SLOT_BITS) | (i + 1);
	c->mrs[i] = mr;
	return 0;
}

/* The kernel registers the memory: its checks, its keys, its handle. */
static struct ibv_mr *reg_kernel(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t iova, unsigned int access)
{
	struct ibv_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	err = ibasync_cmd_reg_mr(pd, mr, addr, length, iova, access);
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	atomic_fetch_add(&to_ibasync_pd(pd)->mrs, 1);
	return mr;
}

static struct ibv_mr *reg_range(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct ibasync_context *c;
	struct ibv_mr *mr;
	int err;

	if (!pd || !length || (uintptr_t)addr + length < (uintptr_t)addr) {
		errno = EINVAL;
		return NULL;
	}
	if (to_ibasync_ctx(pd->context)->user_mr)
		return reg_kernel(pd, addr, length, iova, access);
	/* the verbs rule: remote writes need local write */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE)) {
		errno = EINVAL;
		return NULL;
	}
	/* ODP, zero-based, MW binding, an iova of its own: not here */
	if ((access & ~(unsigned int)MR_ACCESS_OK) || iova != (uintptr_t)addr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	/* the handle field remembers the access rights */
	mr->handle = access;
	c = to_ibasync_ctx(pd->context);
	pthread_rwlock_wrlock(&c->mr_lock);
	err = mr_insert(c, mr);
	pthread_rwlock_unlock(&c->mr_lock);
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	atomic_fetch_add(&to_ibasync_pd(pd)->mrs, 1);
	return mr;
}

/* verbs.h turns ibv_reg_mr() into an inline over the same symbol */
#undef ibv_reg_mr
IBASYNC_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
					 size_t length, int access)
{
	return reg_range(pd, addr, length, (uintptr_t)addr,
			 (unsigned int)access);
}

#undef ibv_reg_mr_iova
IBASYNC_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr,
					      size_t length, uint64_t iova,
					      int access)
{
	return reg_range(pd, addr, length, iova, (unsigned int)access);
}

IBASYNC_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					       size_t length, uint64_t iova,
					       unsigned int access)
{
	return reg_range(pd, addr, length, iova, access);
}

IBASYNC_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct ibasync_context *c;
	uint32_t i;
	int err = EINVAL;

	if (!mr)
		return ibasync_err(EINVAL);
	c = to_ibasync_ctx(mr->context);
	if (c->user_mr) {
		uint64_t reported;

		/* MRs raise no events: nothing to consume first. */
		err = ibasync_cmd_destroy(mr->context->cmd_fd, IB_ASYNC_OBJ_MR,
					  mr->handle, &reported, NULL);
		if (err)
			return ibasync_err(err);
		atomic_fetch_sub(&to_ibasync_pd(mr->pd)->mrs, 1);
		free(mr);
		return 0;
	}
	i = mr_slot(mr->lkey);
	pthread_rwlock_wrlock(&c->mr_lock);
	if (i < c->mr_cap && c->mrs[i] == mr) {
		c->mrs[i] = NULL;
		err = 0;
	}
	pthread_rwlock_unlock(&c->mr_lock);
	if (err)
		return ibasync_err(err);
	atomic_fetch_sub(&to_ibasync_pd(mr->pd)->mrs, 1);
	free(mr);
	return 0;
}

/*
 * Does sge lie inside a registered MR of this context whose rights
 * include need_access? 0, or EINVAL as the post's error.
 */
int ibasync_mr_check(struct ibasync_context *c, const struct ibv_sge *sge,
		     int need_access)
{
	uint32_t i = mr_slot(sge->lkey);
	const struct ibv_mr *mr;
	uintptr_t start, end;
	int ret = EINVAL;

	pthread_rwlock_rdlock(&c->mr_lock);
	mr = i < c->mr_cap ? c->mrs[i] : NULL;
	if (mr && mr->lkey == sge->lkey &&
	    (mr->handle & (uint32_t)need_access) == (uint32_t)need_access) {
		start = (uintptr_t)mr->addr;
		end = start + mr->length;
		if (sge->addr >= start && sge->addr <= end &&
		    sge->length <= end - sge->addr)
			ret = 0;
	}
	pthread_rwlock_unlock(&c->mr_lock);
	return ret;
}

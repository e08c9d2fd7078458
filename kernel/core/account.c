// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-user limit on the kernel memory ib_async holds for a user: event
 * queues (evq.c), mapped rings (ring.c) and the data path's buffers.
 *
 * Every file and channel holds a queue, and every posted work request a
 * kernel buffer until its completion is polled. Per-file caps alone bound
 * nothing, since a user may open any number of files, so the bytes are
 * charged to the user's locked-memory budget (RLIMIT_MEMLOCK, counted in
 * user_struct->locked_vm), the budget ib_uverbs charges pinned MR pages
 * against and io_uring charges its buffers against. As there,
 * CAP_IPC_LOCK lifts the limit.
 *
 * A file charges whole pages for the running byte total of its data path
 * and its verbs objects' queues (charge.c), so small requests are not
 * rounded up one by one; an event queue charges its pages when made or
 * resized.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>

#include "core.h"

/**
 * ib_async_account_user - whose memory budget the caller spends
 *
 * Return: the caller's user, with a reference, or NULL if it may lock
 * memory freely (CAP_IPC_LOCK).
 */
struct user_struct *ib_async_account_user(void)
{
	return capable(CAP_IPC_LOCK) ? NULL : get_current_user();
}

/* At open: the opener's budget, unless it may lock memory freely. */
void ib_async_account_init(struct ib_async_file *file)
{
	file->user = ib_async_account_user();
	spin_lock_init(&file->acct_lock);
}

/**
 * ib_async_account_pages - charge pages to a user's RLIMIT_MEMLOCK
 * @user: the user, from ib_async_account_user()
 * @pages: how many
 *
 * The limit is the caller's, as io_uring checks it for its rings.
 *
 * Return: 0, or -ENOMEM past the limit (nothing charged).
 */
int ib_async_account_pages(struct user_struct *user, long pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	long cur = atomic_long_read(&user->locked_vm);

	do {
		if (cur + pages > limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, cur + pages));
	return 0;
}

/* Give back what ib_async_account_pages() charged. */
void ib_async_unaccount_pages(struct user_struct *user, long pages)
{
	atomic_long_sub(pages, &user->locked_vm);
}

/**
 * ib_async_charge_user_pages - charge memory a program maps to its budget
 * @pages: how many pages
 * @user: out: the user charged, with a reference; NULL if the caller may
 *	lock memory freely (CAP_IPC_LOCK), and nothing is charged then
 *
 * What every ring a program maps is charged with, besides the memory
 * cgroup its allocation is accounted to.
 *
 * Return: 0, or -ENOMEM past RLIMIT_MEMLOCK (nothing charged or held).
 */
int ib_async_charge_user_pages(long pages, struct user_struct **user)
{
	struct user_struct *u = ib_async_account_user();

	if (u && ib_async_account_pages(u, pages)) {
		free_uid(u);
		return -ENOMEM;
	}
	*user = u;
	return 0;
}

/* Give back what ib_async_charge_user_pages() charged, once. */
void ib_async_uncharge_user_pages(struct user_struct **user, long pages)
{
	if (!*user)
		return;
	ib_async_unaccount_pages(*user, pages);
	free_uid(*user);
	*user = NULL;
}

/* Whole pages a running byte total is charged as. */
static unsigned long ib_async_account_pages_of(u64 bytes)
{
	return DIV_ROUND_UP_ULL(bytes, PAGE_SIZE);
}

/**
 * ib_async_account_add - charge kernel memory held for the file's user
 * @file: the file
 * @bytes: how much more it holds
 *
 * Return: 0, or -ENOMEM past the user's RLIMIT_MEMLOCK (nothing charged).
 */
int ib_async_account_add(struct ib_async_file *file, u64 bytes)
{
	unsigned long had, pages;
	int ret = 0;

	spin_lock(&file->acct_lock);
	had = ib_async_account_pages_of(file->acct_bytes);
	pages = ib_async_account_pages_of(file->acct_bytes + bytes);
	if (file->user && pages > had)
		ret = ib_async_account_pages(file->user, pages - had);
	if (!ret)
		file->acct_bytes += bytes;
	spin_unlock(&file->acct_lock);
	return ret;
}

/**
 * ib_async_account_sub - give back what ib_async_account_add() charged
 * @file: the file
 * @bytes: how much less it holds
 */
void ib_async_account_sub(struct ib_async_file *file, u64 bytes)
{
	unsigned long had;

	spin_lock(&file->acct_lock);
	had = ib_async_account_pages_of(file->acct_bytes);
	if (WARN_ON_ONCE(bytes > file->acct_bytes))
		bytes = file->acct_bytes;
	file->acct_bytes -= bytes;
	if (file->user)
		atomic_long_sub(had - ib_async_account_pages_of(file->acct_bytes),
				&file->user->locked_vm);
	spin_unlock(&file->acct_lock);
}

/* At release, after every request was freed. */
void ib_async_account_exit(struct ib_async_file *file)
{
	WARN_ON_ONCE(file->acct_bytes);
	if (file->user)
		free_uid(file->user);
	file->user = NULL;
}

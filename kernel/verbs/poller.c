// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The poller (IB_ASYNC_IOC_POLLER): a thread of the program that lends
 * itself to the kernel, so that the program's other threads post and poll
 * with no system call. Inside the command it takes every submission
 * ring's pending slots and fills every completion ring, pass after pass,
 * as io_uring's SQPOLL thread takes its submission queue; after an idle
 * time it sleeps, and every ring says so (NEED_WAKEUP) until a doorbell
 * or a CQ_WAIT wakes it.
 *
 * Why the program's own thread and not a kthread: its CPU time is then
 * the program's (its CPU cgroup, RLIMIT_CPU, top), its memory is the
 * file's opener's (the data path's checks of current->mm hold as they
 * do for every command), and a fatal signal ends it. A module cannot make
 * io_uring's kind of thread (create_io_thread() is not exported), and a
 * kthread would run outside the program's cgroups. Each file has at most
 * one poller, each user at most max_pollers_per_user.
 *
 * Locks: each pass takes the device and the file's objects as a command
 * does (ib_async_ucmd_lock()), and drops them before it sleeps or yields,
 * so device removal and the program's own commands proceed between
 * passes. A pass is the data path's (dp_rwsem for reading, not
 * obj_mutex), and takes each ring's object lock in turn, as a doorbell
 * or a CQ_WAIT does: the program's commands wait for it no longer than
 * for a doorbell. Whether the poller is awake (@poller_awake, what the
 * rings say) only the poller changes; a doorbell or CQ_WAIT that reads it
 * stale wakes a poller already awake, or none that is going to sleep,
 * which then finds their work itself (ib_async_wr_rings_wake()). Running,
 * stop and kick are under @poller_lock, so that STOP needs neither the
 * device nor the file's locks.
 */
#include <linux/cred.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/xarray.h>

#include "verbs.h"

/* No idle time is longer: a second. */
#define IB_ASYNC_POLLER_MAX_IDLE_US	1000000

static unsigned int poller_idle_us = 1000;
module_param(poller_idle_us, uint, 0644);
MODULE_PARM_DESC(poller_idle_us,
		 "Microseconds a poller polls without work before it sleeps, when the program names none (default 1000)");

static unsigned int max_pollers_per_user = 4;
module_param(max_pollers_per_user, uint, 0644);
MODULE_PARM_DESC(max_pollers_per_user,
		 "Pollers a user may run at once, each up to one CPU (default 4; 0: none)");

/* uid -> pollers it runs, an xa_mk_value(); under ib_async_pollers_lock */
static DEFINE_XARRAY(ib_async_pollers);
static DEFINE_MUTEX(ib_async_pollers_lock);

/* Count one more poller for the caller's user, within the limit. */
static int ib_async_poller_user_get(kuid_t uid)
{
	unsigned long key = __kuid_val(uid), n;
	int ret;

	mutex_lock(&ib_async_pollers_lock);
	n = xa_to_value(xa_load(&ib_async_pollers, key) ?: xa_mk_value(0));
	if (n >= READ_ONCE(max_pollers_per_user))
		ret = -EAGAIN;
	else
		ret = xa_err(xa_store(&ib_async_pollers, key,
				      xa_mk_value(n + 1), GFP_KERNEL));
	mutex_unlock(&ib_async_pollers_lock);
	return ret;
}

static void ib_async_poller_user_put(kuid_t uid)
{
	unsigned long key = __kuid_val(uid), n;

	mutex_lock(&ib_async_pollers_lock);
	n = xa_to_value(xa_load(&ib_async_pollers, key));
	if (n > 1)
		xa_store(&ib_async_pollers, key, xa_mk_value(n - 1),
			 GFP_KERNEL);
	else
		xa_erase(&ib_async_pollers, key);
	mutex_unlock(&ib_async_pollers_lock);
}

/**
 * ib_async_poller_init - a new file has no poller
 * @vf: its verbs part
 */
void ib_async_poller_init(struct ib_async_vfile *vf)
{
	spin_lock_init(&vf->poller_lock);
	init_waitqueue_head(&vf->poller_wq);
}

/*
 * Tell every ring whether the poller is awake. Return: going to sleep,
 * whether a submission ring has work after all (see
 * ib_async_wr_rings_wake()).
 */
static bool ib_async_poller_set_awake(struct ib_async_file *file, bool awake)
{
	lockdep_assert_held_read(&file->dp_rwsem);
	WRITE_ONCE(file->verbs->poller_awake, awake);
	ib_async_cq_rings_wake(file, awake);
	return ib_async_wr_rings_wake(file, awake);
}

/* STOP: the running poller returns, or the next one does at once. */
static int ib_async_poller_stop(struct ib_async_vfile *vf)
{
	spin_lock(&vf->poller_lock);
	vf->poller_stop = true;
	spin_unlock(&vf->poller_lock);
	wake_up(&vf->poller_wq);
	return 0;
}

/* Become the file's poller. Return: 1 for a STOP waiting, or 0, -EBUSY. */
static int ib_async_poller_claim(struct ib_async_vfile *vf)
{
	int ret = 0;

	spin_lock(&vf->poller_lock);
	if (vf->poller_running) {
		ret = -EBUSY;
	} else if (vf->poller_stop) {
		vf->poller_stop = false;
		ret = 1;
	} else {
		vf->poller_running = true;
		vf->poller_kick = false;
	}
	spin_unlock(&vf->poller_lock);
	return ret;
}

static void ib_async_poller_unclaim(struct ib_async_file *file)
{
	struct ib_async_vfile *vf = file->verbs;

	/* no poller: every ring asks for the doorbell again */
	down_read(&file->dp_rwsem);
	if (vf->poller_awake)
		ib_async_poller_set_awake(file, false);
	spin_lock(&vf->poller_lock);
	vf->poller_running = false;
	vf->poller_stop = false;
	spin_unlock(&vf->poller_lock);
	up_read(&file->dp_rwsem);
}

/*
 * One pass, the device pinned: post, then fill, so that a loopback's
 * completions are seen in the same pass. The completions moved are those
 * the rings published during the pass, the fills of the posts of sends
 * included. Return: whether it found work.
 */
static bool ib_async_poller_pass(struct ib_async_file *file,
				 struct ib_async_poller *arg)
{
	u32 posted, moved;

	if (!file->verbs->poller_awake)
		ib_async_poller_set_awake(file, true);
	moved = 0;
	posted = ib_async_wr_rings_post(file, &moved);
	moved += ib_async_cq_rings_fill(file);
	arg->passes++;
	arg->posted += posted;
	arg->completions += moved;
	return posted || moved;
}

/* Sleep until a doorbell, a CQ_WAIT, STOP, removal or a signal. */
static void ib_async_poller_sleep(struct ib_async_vfile *vf,
				  struct ib_async_poller *arg)
{
	arg->sleeps++;
	wait_event_interruptible(vf->poller_wq, READ_ONCE(vf->poller_kick) ||
				 READ_ONCE(vf->poller_stop));
	spin_lock(&vf->poller_lock);
	vf->poller_kick = false;
	spin_unlock(&vf->poller_lock);
}

static int ib_async_poller_loop(struct ib_async_ucmd *u, u64 idle_ns)
{
	struct ib_async_poller *arg = u->cmd;
	struct ib_async_vfile *vf = u->file->verbs;
	u64 last = local_clock();
	bool sleep;
	int ret;

	for (;;) {
		if (READ_ONCE(vf->poller_stop))
			return 0;
		if (signal_pending(current))
			return -EINTR;
		ret = ib_async_ucmd_lock(u);
		if (ret)
			return ret;
		sleep = false;
		if (ib_async_poller_pass(u->file, arg))
			last = local_clock();
		else if (local_clock() - last >= idle_ns)
			sleep = !ib_async_poller_set_awake(u->file, false);
		ib_async_ucmd_unlock(u);
		if (sleep) {
			ib_async_poller_sleep(vf, arg);
			last = local_clock();
		} else {
			cond_resched();
		}
	}
}

/**
 * ib_async_cmd_poller - IB_ASYNC_IOC_POLLER: poll the file's rings, or STOP
 * @u: the command; takes its own locks, pass by pass
 *
 * Return: 0 (stopped), -EINTR, -ENODEV, -EINVAL, -EPERM, -EOPNOTSUPP,
 * -EBUSY or -EAGAIN; see &struct ib_async_poller.
 */
int ib_async_cmd_poller(struct ib_async_ucmd *u)
{
	struct ib_async_poller *arg = u->cmd;
	struct ib_async_file *file = u->file;
	kuid_t uid = current_uid();
	u64 idle_ns;
	int ret;

	if ((arg->flags & ~IB_ASYNC_POLLER_STOP) || arg->reserved ||
	    arg->idle_us > IB_ASYNC_POLLER_MAX_IDLE_US || arg->passes ||
	    arg->posted || arg->completions || arg->sleeps)
		return -EINVAL;
	if (arg->flags & IB_ASYNC_POLLER_STOP)
		return ib_async_poller_stop(file->verbs);
	if (current->mm != file->verbs->mm)
		return -EPERM;
	ret = ib_async_ucmd_lock(u);
	if (ret)
		return ret;
	if (!ib_async_user_mr_supported(u->ib_dev))
		ret = -EOPNOTSUPP;
	ib_async_ucmd_unlock(u);
	if (ret)
		return ret;
	idle_ns = (u64)(arg->idle_us ?: min(READ_ONCE(poller_idle_us),
					   IB_ASYNC_POLLER_MAX_IDLE_US)) *
		  NSEC_PER_USEC;
	ret = ib_async_poller_claim(file->verbs);
	if (ret)
		goto out;
	ret = ib_async_poller_user_get(uid);
	if (ret) {
		ib_async_poller_unclaim(file);
		return ret;
	}
	ret = ib_async_poller_loop(u, idle_ns);
	ib_async_poller_unclaim(file);
	ib_async_poller_user_put(uid);
out:
	if (ret < 0)
		return ret;
	ib_async_ucmd_respond(u);
	return 0;
}

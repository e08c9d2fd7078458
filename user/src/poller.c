// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The kernel's poller (IB_ASYNC_IOC_POLLER), off unless IBASYNC_POLLER=1:
 * on a node that offers it, with submission rings, each context lends the
 * kernel one thread, which stays in the ioctl taking every ring's slots
 * and filling every completion ring until the context closes. While it is
 * awake the rings say so (their NEED_WAKEUP flags clear): a post waits for
 * it to take its slots instead of ringing the doorbell (wr_ring.c), and an
 * empty poll returns at once instead of calling CQ_WAIT (cq_ring.c).
 *
 * Off by default because that thread busy-polls on the program's CPU time
 * while there is work, and only sleeps after its idle time. A poller the
 * kernel refuses (EAGAIN past max_pollers_per_user, EBUSY, ENODEV...)
 * just ends its thread: the rings keep NEED_WAKEUP, and everything works
 * as without one.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ibasync.h"

/* IBASYNC_POLLER: "1" on; unset, "0" or anything else off, the default. */
static bool poller_wanted(void)
{
	const char *env = getenv(IBASYNC_POLLER_ENV);

	return env && !strcmp(env, "1");
}

/*
 * IBASYNC_POLLER_IDLE_US: microseconds; 0, unset or unparsable (as
 * IBASYNC_CQ_SPIN_US, garbage leaves the default) for the kernel's own.
 */
static uint32_t poller_idle_us(void)
{
	const char *env = getenv(IBASYNC_POLLER_IDLE_US_ENV);
	unsigned long long v;

	if (!env || ibasync_parse_uint(env, IBASYNC_POLLER_IDLE_US_MAX, &v))
		return 0;
	return (uint32_t)v;
}

/*
 * IBASYNC_POLLER_CPU: the CPU the poller's thread runs on (io_uring's
 * sq_thread_cpu), so that it does not take turns with the program's own
 * busy threads; unset or empty, -1: wherever the program may run. Strict,
 * as IBASYNC_QUEUE_LEN: a value that is not a CPU number fails the open
 * with EINVAL instead of leaving a benchmark's poller silently unpinned.
 */
static int poller_cpu(int *cpu)
{
	const char *env = getenv(IBASYNC_POLLER_CPU_ENV);
	unsigned long long v;

	*cpu = -1;
	if (!env || !*env)
		return 0;
	if (ibasync_parse_uint(env, IBASYNC_POLLER_CPU_MAX, &v))
		return EINVAL;
	*cpu = (int)v;
	return 0;
}

/*
 * The attributes of the poller's thread: on @cpu alone, when one is
 * named. The kernel checks the CPU when the thread is made: one no
 * thread of the program may run on (not online, outside its cpuset)
 * makes pthread_create() fail with EINVAL. One outside the affinity of
 * the thread that opens is allowed, as sched_setaffinity() allows it.
 */
static int poller_attr(pthread_attr_t *attr, int cpu)
{
	cpu_set_t *set;
	size_t size;
	int err;

	err = pthread_attr_init(attr);
	if (err || cpu < 0)
		return err;
	size = CPU_ALLOC_SIZE(cpu + 1);
	set = CPU_ALLOC(cpu + 1);
	if (!set) {
		pthread_attr_destroy(attr);
		return ENOMEM;
	}
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	err = pthread_attr_setaffinity_np(attr, size, set);
	CPU_FREE(set);
	if (err)
		pthread_attr_destroy(attr);
	return err;
}

/*
 * The thread lent to the kernel: it returns when the context stops it or
 * the kernel refuses or ends it. EINTR with no signal it could take (all
 * are blocked) is the freezer's: it goes back in, unless stopping.
 */
static void *poller_run(void *arg)
{
	struct ibasync_context *c = arg;
	int err;

	do
		err = ibasync_cmd_poller(&c->vctx.context, 0, c->poller_idle_us);
	while (err == EINTR && !atomic_load(&c->poller_stopping));
	return NULL;
}

/*
 * At open, @features the node's: start the poller where it is wanted and
 * offered. Its thread is born with every signal blocked (the mask is
 * inherited), so none meant for the program lands in it, even before it
 * could block them itself: one would end the poll (EINTR) and run the
 * program's handler on a thread the program does not know of.
 *
 * Returns 0, or EINVAL for an IBASYNC_POLLER_CPU that is not a CPU the
 * program may run on: the caller fails the open. A thread that cannot be
 * made for another reason (EAGAIN) just leaves the context without a
 * poller, as a refusal by the kernel does.
 */
int ibasync_poller_start(struct ibasync_context *c, uint64_t features)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int cpu, err;

	atomic_init(&c->poller_stopping, false);
	if (!poller_wanted())
		return 0;
	/* a typo is caught on every node, one with no poller too */
	err = poller_cpu(&cpu);
	if (err)
		return err;
	if (!(features & IB_ASYNC_FEATURE_POLLER) || !c->wr_ring)
		return 0;
	c->poller_idle_us = poller_idle_us();
	c->poller_pid = getpid();
	err = poller_attr(&attr, cpu);
	if (err)
		return err == EINVAL ? EINVAL : 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&c->poller, &attr, poller_run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	c->poller_on = !err;
	return err == EINVAL && cpu >= 0 ? EINVAL : 0;
}

/*
 * At close, before anything else goes: the poller out of the kernel and
 * its thread joined. A STOP that finds no poller running (it has not
 * entered yet) makes the next one return at once. A child of fork() has
 * no thread to join, and must not stop its parent's poller.
 */
void ibasync_poller_stop(struct ibasync_context *c)
{
	if (!c->poller_on || c->poller_pid != getpid())
		return;
	atomic_store(&c->poller_stopping, true);
	ibasync_cmd_poller(&c->vctx.context, IB_ASYNC_POLLER_STOP, 0);
	pthread_join(c->poller, NULL);
	c->poller_on = false;
}

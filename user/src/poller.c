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
	unsigned long v;
	char *end;

	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (errno || *end || v > IBASYNC_POLLER_IDLE_US_MAX)
		return 0;
	return (uint32_t)v;
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
 */
void ibasync_poller_start(struct ibasync_context *c, uint64_t features)
{
	sigset_t all, old;

	atomic_init(&c->poller_stopping, false);
	if (!(features & IB_ASYNC_FEATURE_POLLER) || !c->wr_ring ||
	    !poller_wanted())
		return;
	c->poller_idle_us = poller_idle_us();
	c->poller_pid = getpid();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	c->poller_on = !pthread_create(&c->poller, NULL, poller_run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
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

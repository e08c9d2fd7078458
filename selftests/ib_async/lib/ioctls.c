// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl() for the programs that count it (iba_ioctls.h): in an object of
 * its own in the archive, so that only they link it.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <rdma/ib_async.h>

#include "iba_ioctls.h"

static atomic_ulong ioctl_calls;
static atomic_ulong cq_wait_spins;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	atomic_fetch_add_explicit(&ioctl_calls, 1, memory_order_relaxed);
	if (req == IB_ASYNC_IOC_CQ_WAIT &&
	    ((const struct ib_async_cq_wait *)arg)->spin_us)
		atomic_fetch_add_explicit(&cq_wait_spins, 1,
					  memory_order_relaxed);
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

unsigned long iba_cq_wait_spins(void)
{
	return atomic_load_explicit(&cq_wait_spins, memory_order_relaxed);
}

unsigned long iba_ioctls(void)
{
	return atomic_load_explicit(&ioctl_calls, memory_order_relaxed);
}

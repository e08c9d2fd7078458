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

#include "iba_ioctls.h"

static atomic_ulong ioctl_calls;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	atomic_fetch_add_explicit(&ioctl_calls, 1, memory_order_relaxed);
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

unsigned long iba_ioctls(void)
{
	return atomic_load_explicit(&ioctl_calls, memory_order_relaxed);
}

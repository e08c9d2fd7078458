/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * One ioctl() interposer for the tests that stand in for the kernel: a
 * test (or an LD_PRELOAD object) defines fake_ioctl(), which answers the
 * requests it fakes and returns FAKE_IOCTL_PASS for the others; those go
 * to the real system call. Defining ioctl() in the program (or preloaded
 * object) makes libibasync's calls land here without touching the
 * library.
 */
#ifndef FAKE_IOCTL_H
#define FAKE_IOCTL_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/ib_async.h>

#define FAKE_IOCTL_PASS	(-2)

/* GET_INFO's answer: @features, the rest 0 for the caller to fill in. */
static inline struct ib_async_info *fake_info(void *arg, uint64_t features)
{
	struct ib_async_info *info = arg;

	memset(info, 0, sizeof(*info));
	info->argsz = sizeof(*info);
	info->features = features;
	return info;
}

static int fake_ioctl(int fd, unsigned long req, void *arg);

__attribute__((visibility("default"))) int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	ret = fake_ioctl(fd, req, arg);
	if (ret != FAKE_IOCTL_PASS)
		return ret;
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

#endif /* FAKE_IOCTL_H */

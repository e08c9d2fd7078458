// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The event half of the command layer (cmd.h): a file's queue, channels,
 * subscriptions and the ring, on the node's or a channel's descriptor.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd.h"

/* The one ioctl() of the library: 0, or the errno value (errno set). */
int ibasync_cmd_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

int ibasync_cmd_get_info(int fd, struct ib_async_info *info)
{
	memset(info, 0, sizeof(*info));
	info->argsz = sizeof(*info);
	return ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_GET_INFO, info);
}

int ibasync_cmd_set_queue_len(int fd, uint32_t queue_len)
{
	struct ib_async_queue_len q = {
		.argsz = sizeof(q), .queue_len = queue_len,
	};

	return ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &q);
}

int ibasync_cmd_read_batch(int fd, uint32_t flags, uint64_t consume_seq,
			   void *buf, uint32_t *count)
{
	struct ib_async_read_batch b = {
		.argsz = sizeof(b), .flags = flags, .consume_seq = consume_seq,
		.buf = (uintptr_t)buf, .count = *count,
	};
	int err;

	err = ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_READ_BATCH, &b);
	if (!err)
		*count = b.count;
	return err;
}

int ibasync_cmd_read(int fd, void *buf, size_t rec_size, uint32_t *count)
{
	ssize_t n = read(fd, buf, rec_size * *count);

	if (n < 0)
		return errno;
	if (n == 0 || (size_t)n % rec_size) {
		errno = EIO;
		return EIO;
	}
	*count = (uint32_t)((size_t)n / rec_size);
	return 0;
}

int ibasync_cmd_create_channel(int fd, uint32_t type, uint32_t flags,
			       int *chan_fd)
{
	struct ib_async_create_channel arg = {
		.argsz = sizeof(arg), .type = type, .flags = flags,
	};
	int err;

	err = ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_CREATE_CHANNEL, &arg);
	if (!err)
		*chan_fd = arg.fd;
	return err;
}

/* The library's flags are the uAPI's (evchan.c asserts it). */
int ibasync_cmd_subscribe(int fd, int chan_fd,
			  const struct ibasync_subscription *sub,
			  uint32_t obj_handle, uint32_t *sub_id)
{
	struct ib_async_subscribe arg = {
		.argsz = sizeof(arg), .flags = sub->flags, .fd = chan_fd,
		.port = sub->port_num, .type_mask = sub->types,
		.cookie = sub->cookie, .obj_handle = obj_handle,
	};
	int err;

	err = ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_SUBSCRIBE, &arg);
	if (!err)
		*sub_id = arg.sub_id;
	return err;
}

int ibasync_cmd_unsubscribe(int fd, int chan_fd, uint32_t sub_id)
{
	struct ib_async_unsubscribe arg = {
		.argsz = sizeof(arg), .fd = chan_fd, .sub_id = sub_id,
	};

	return ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_UNSUBSCRIBE, &arg);
}

int ibasync_cmd_map_ring(int fd, uint32_t entries,
			 struct ib_async_map_ring *m)
{
	memset(m, 0, sizeof(*m));
	m->argsz = sizeof(*m);
	m->entries = entries;
	return ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_MAP_RING, m);
}

void *ibasync_cmd_mmap_ring(int fd, uint64_t offset, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

void ibasync_cmd_munmap_ring(void *p, size_t size)
{
	munmap(p, size);
}

int ibasync_cmd_ring_wait(int fd, uint32_t flags, uint32_t *available)
{
	/* available is out only: the kernel wants 0 in */
	struct ib_async_ring_wait w = { .argsz = sizeof(w), .flags = flags };
	int err;

	err = ibasync_cmd_ioctl(fd, IB_ASYNC_IOC_RING_WAIT, &w);
	*available = err ? 0 : w.available;
	return err;
}

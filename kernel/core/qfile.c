// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the two kinds of ib_async file share: a node (file.c) and a
 * channel (channel.c) are each a queue to their reader, so a file's
 * private_data is its struct ib_async_evq, and read, poll, mmap, fasync,
 * FIONREAD and the queue's fdinfo lines are one set of functions here. A
 * kind adds its release, the commands it takes and its own fdinfo lines.
 */
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/termios.h>
#include <linux/uaccess.h>

#include "core.h"

ssize_t ib_async_qfile_read(struct file *filp, char __user *buf,
			    size_t count, loff_t *pos)
{
	return ib_async_evq_read(filp->private_data, buf, count,
				 filp->f_flags & O_NONBLOCK);
}

__poll_t ib_async_qfile_poll(struct file *filp, poll_table *wait)
{
	return ib_async_evq_poll(filp->private_data, filp, wait);
}

int ib_async_qfile_mmap(struct file *filp, struct vm_area_struct *vma)
{
	return ib_async_evq_mmap(filp->private_data, vma);
}

int ib_async_qfile_fasync(int fd, struct file *filp, int on)
{
	struct ib_async_evq *q = filp->private_data;

	return fasync_helper(fd, filp, on, &q->fasync);
}

/**
 * ib_async_qfile_ioctl - FIONREAD, else one of the kind's commands
 * @filp: the file
 * @cmd: the ioctl number
 * @arg: its argument
 * @run: the dispatcher's entry for the file's kind
 *
 * Return: as @run, or FIONREAD's result: the bytes a read() would get.
 */
long ib_async_qfile_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg,
			  long (*run)(struct file *filp, unsigned int cmd,
				      void __user *uarg))
{
	struct ib_async_evq_stat st;

	if (cmd == FIONREAD) {
		ib_async_evq_stat(filp->private_data, &st);
		return put_user(st.queued * st.rec_size, (int __user *)arg);
	}
	return run(filp, cmd, (void __user *)arg);
}

/* The queue's fdinfo lines that open a file's: its id, fill and size. */
void ib_async_qfile_show_queue(struct seq_file *m,
			       const struct ib_async_evq_stat *st)
{
	seq_printf(m, "ib_async-queue-id:\t%llu\n", st->id);
	seq_printf(m, "ib_async-queued:\t%u\n", st->queued);
	seq_printf(m, "ib_async-capacity:\t%u\n", st->cap);
}

/* And those that follow the counters: its ring, and its memory. */
void ib_async_qfile_show_memory(struct seq_file *m,
				const struct ib_async_evq_stat *st)
{
	ib_async_show_ring(m, st);
	seq_printf(m, "ib_async-memlock-pages:\t%ld\n", st->memlock_pages);
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ioctl dispatcher: two tables, the core's and the verbs layer's
 * (struct ib_async_verbs_ops), indexed by the command number, say for
 * every command which structure it takes and how it runs.
 *
 * Arguments are copied in once, here, before any lock is taken, with
 * copy_struct_from_user() semantics (a caller's structure may be older or
 * newer than the kernel's); handlers work on that copy and answer in
 * place; the answer is copied back here, after every lock is dropped, so a
 * user buffer behind a slow fault (userfaultfd, FUSE) never holds up
 * device removal or another file.
 */
#include <linux/file.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>

#include "core.h"

/* No argument structure comes near this; larger ones are refused. */
#define IB_ASYNC_MAX_ARGSZ	PAGE_SIZE

/*
 * Every argument structure fits this (IB_ASYNC_OP() checks), so the
 * dispatcher holds any of them, the verbs layer's included.
 */
union ib_async_ucmd_buffer {
	u64 align;
	u8 bytes[IB_ASYNC_UCMD_BUF_SIZE];
};

/*
 * The commands, in two tables plugged in at start: the core's (cmds.c)
 * and the verbs layer's (its ops). A number is in one or the other.
 */
static const struct ib_async_ioctl_op *ib_async_uapi_cmds;
static unsigned int ib_async_uapi_n_cmds;

/**
 * ib_async_uapi_init - plug the core's command table in
 * @cmds: the table, indexed by number - IB_ASYNC_CMD_BASE
 * @n: its entries
 */
void ib_async_uapi_init(const struct ib_async_ioctl_op *cmds, unsigned int n)
{
	ib_async_uapi_cmds = cmds;
	ib_async_uapi_n_cmds = n;
}

/**
 * ib_async_ucmd_lock - pin the device and the file's objects
 * @u: the command; @u->ib_dev is the device until ib_async_ucmd_unlock()
 *
 * A data-path command (IB_ASYNC_CMD_DATA_PATH) takes the file's dp_rwsem
 * alone, for reading, one that touches no data-path state
 * (IB_ASYNC_CMD_OBJS_ONLY) its obj_mutex alone; any other takes obj_mutex,
 * then dp_rwsem for writing.
 *
 * Return: 0, or (nothing held) -ENODEV once the device is gone, or
 * -EOPNOTSUPP for an object command on a device without kernel verbs,
 * as @u->flags say.
 */
int ib_async_ucmd_lock(struct ib_async_ucmd *u)
{
	struct ib_async_device *adev = u->file->adev;
	int ret;

	down_read(&adev->disassoc_rwsem);
	if (u->flags & IB_ASYNC_CMD_DATA_PATH) {
		down_read(&u->file->dp_rwsem);
	} else {
		mutex_lock(&u->file->obj_mutex);
		if (!(u->flags & IB_ASYNC_CMD_OBJS_ONLY))
			down_write(&u->file->dp_rwsem);
	}
	u->ib_dev = adev->ib_dev;
	if (!u->ib_dev)
		ret = u->flags & IB_ASYNC_CMD_AFTER_REMOVAL ? 0 : -ENODEV;
	else if (!u->ib_dev->kverbs_provider)
		ret = u->flags & IB_ASYNC_CMD_NO_KVERBS ? 0 : -EOPNOTSUPP;
	else
		ret = 0;
	if (ret)
		ib_async_ucmd_unlock(u);
	return ret;
}

void ib_async_ucmd_unlock(struct ib_async_ucmd *u)
{
	if (u->flags & IB_ASYNC_CMD_DATA_PATH) {
		up_read(&u->file->dp_rwsem);
	} else {
		if (!(u->flags & IB_ASYNC_CMD_OBJS_ONLY))
			up_write(&u->file->dp_rwsem);
		mutex_unlock(&u->file->obj_mutex);
	}
	up_read(&u->file->adev->disassoc_rwsem);
}

/* Entry @i of a table of @n, or NULL where it has none. */
static const struct ib_async_ioctl_op *
ib_async_op_at(const struct ib_async_ioctl_op *table, unsigned int n,
	       unsigned int i)
{
	const struct ib_async_ioctl_op *op;

	if (i >= n)
		return NULL;
	op = &table[array_index_nospec(i, n)];
	return op->execute ? op : NULL;
}

static const struct ib_async_ioctl_op *ib_async_op_find(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct ib_async_ioctl_op *op;

	/* Our type, no direction, no size: anything else is not ours. */
	if (cmd != _IO(IB_ASYNC_IOC_MAGIC, nr) || nr < IB_ASYNC_CMD_BASE)
		return NULL;
	op = ib_async_op_at(ib_async_uapi_cmds, ib_async_uapi_n_cmds,
			    nr - IB_ASYNC_CMD_BASE);
	if (op)
		return op;
	return ib_async_op_at(ib_async_verbs->cmds, ib_async_verbs->n_cmds,
			      nr - IB_ASYNC_CMD_BASE);
}

static long ib_async_ucmd_run(struct ib_async_ucmd *u,
			      const struct ib_async_ioctl_op *op)
{
	long ret;

	if (op->flags & IB_ASYNC_CMD_OWN_LOCKS)
		return op->execute(u);
	ret = ib_async_ucmd_lock(u);
	if (ret)
		return ret;
	ret = op->execute(u);
	ib_async_ucmd_unlock(u);
	return ret;
}

/* Hand a file the command made to the caller, or drop it. */
static void ib_async_ucmd_install(struct ib_async_ucmd *u, bool ok)
{
	if (!u->new_file)
		return;
	if (ok) {
		fd_install(u->new_fd, u->new_file);
	} else {
		put_unused_fd(u->new_fd);
		fput(u->new_file);
	}
}

/*
 * A doorbell: its argument is a value, which reaches the handler as it
 * came; no structure is copied either way and nothing is answered.
 */
static long ib_async_ucmd_exec_value(struct ib_async_ucmd *u,
				     const struct ib_async_ioctl_op *op,
				     unsigned long arg)
{
	long ret;

	u->arg = arg;
	u->flags = op->flags;
	ret = ib_async_ucmd_run(u, op);
	/* a command that answers has a structure to answer in */
	WARN_ON_ONCE(u->respond || u->answered || u->new_file);
	if (u->unlocked)
		u->unlocked(u);
	return ret;
}

/*
 * Copy the argument in, run the command, copy the answer out: @u says
 * which file and queue it came through.
 */
static long ib_async_ucmd_exec(struct ib_async_ucmd *u,
			       const struct ib_async_ioctl_op *op,
			       void __user *uarg)
{
	union ib_async_ucmd_buffer buf;
	u32 usize;
	long ret;

	if (op->flags & IB_ASYNC_CMD_NO_ARG)
		return ib_async_ucmd_exec_value(u, op, (unsigned long)uarg);
	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	if (usize > IB_ASYNC_MAX_ARGSZ)
		return -E2BIG;
	ret = copy_struct_from_user(&buf, op->size, uarg, usize);
	if (ret)
		return ret;
	u->cmd = &buf;
	u->user_size = usize;
	u->size = op->size;
	u->flags = op->flags;

	ret = ib_async_ucmd_run(u, op);

	if (u->unlocked)
		u->unlocked(u);
	if (!ret && u->respond &&
	    copy_to_user(uarg, &buf, min(u->user_size, u->size)))
		ret = -EFAULT;
	if (u->answered)
		ret = u->answered(u, ret);
	ib_async_ucmd_install(u, !ret);
	return ret;
}

/**
 * ib_async_uapi_ioctl - run one of ib_async's commands on a device's node
 * @filp: the file
 * @cmd: the ioctl number
 * @uarg: the caller's argument, starting with its size (argsz)
 *
 * Return: 0 or a negative errno: -ENOTTY for a number that is not one of
 * ours, -EINVAL for an argsz below the command's first version, -E2BIG
 * for a larger structure with a non-zero tail or an argsz past a page.
 * A doorbell (IB_ASYNC_CMD_NO_ARG) takes @uarg as a value.
 */
long ib_async_uapi_ioctl(struct file *filp, unsigned int cmd,
			 void __user *uarg)
{
	const struct ib_async_ioctl_op *op = ib_async_op_find(cmd);
	struct ib_async_file *file =
		container_of(filp->private_data, struct ib_async_file, evq);
	struct ib_async_ucmd u = {
		.filp = filp,
		.file = file,
		.adev = file->adev,
		.evq = &file->evq,
	};

	/* Unknown commands touch nothing, as for any other ioctl. */
	if (!op)
		return -ENOTTY;
	return ib_async_ucmd_exec(&u, op, uarg);
}

/**
 * ib_async_uapi_channel_ioctl - run a queue command on a channel's file
 * @filp: the channel's file
 * @cmd: the ioctl number
 * @uarg: the caller's argument
 *
 * Return: as ib_async_uapi_ioctl(); -ENOTTY for every command that is not
 * about the queue.
 */
long ib_async_uapi_channel_ioctl(struct file *filp, unsigned int cmd,
				 void __user *uarg)
{
	const struct ib_async_ioctl_op *op = ib_async_op_find(cmd);
	struct ib_async_channel *chan =
		container_of(filp->private_data, struct ib_async_channel, evq);
	struct ib_async_ucmd u = {
		.filp = filp,
		.adev = chan->adev,
		.evq = &chan->evq,
	};

	if (!op || !(op->flags & IB_ASYNC_CMD_QUEUE))
		return -ENOTTY;
	return ib_async_ucmd_exec(&u, op, uarg);
}

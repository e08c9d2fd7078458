// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Channels: files of their own with the same bounded queue, batched read,
 * poll and fasync as the device node (qfile.c). A completion channel, one per
 * ibv_create_comp_channel(), is fed by the completion handler of the CQs
 * made with it; an event channel by the event handlers, with the events
 * its subscriptions match (evchan.c).
 *
 * Lifetime: the channel's file holds one reference and every CQ using it
 * one more, so the completion handler, which the driver calls only while
 * the CQ exists, always finds the channel. The file the channel was made
 * on (the context) lists it, under the device's chan_lock, only to end
 * its stream when the context is closed or the device removed: a channel
 * never pins its context (the context's CQs pin the channel, and the
 * other way round would be a cycle that a process exit never breaks).
 * Event delivery walks that list under RCU, so a channel's memory goes
 * only after a grace period.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "core.h"

static void ib_async_channel_free_rcu(struct rcu_head *rcu)
{
	struct ib_async_channel *chan =
		container_of(rcu, struct ib_async_channel, rcu);

	if (chan->ops->free)
		chan->ops->free(chan);
	ib_async_evq_destroy(&chan->evq);
	kfree(chan);
}

/*
 * The device goes now, in process context; the memory after the event
 * handlers that may be walking past the channel (the device outlives
 * them: its handler is unregistered, and its files closed, first).
 */
static void ib_async_channel_free(struct kref *ref)
{
	struct ib_async_channel *chan =
		container_of(ref, struct ib_async_channel, ref);

	ib_async_evq_uncharge(&chan->evq);
	put_device(&chan->adev->dev);
	call_rcu(&chan->rcu, ib_async_channel_free_rcu);
}

void ib_async_channel_put(struct ib_async_channel *chan)
{
	kref_put(&chan->ref, ib_async_channel_free);
}

/* Take @chan off its context's list. */
static void ib_async_channel_unlink_locked(struct ib_async_channel *chan)
{
	lockdep_assert_held(&chan->adev->chan_lock);
	if (chan->file) {
		list_del_rcu(&chan->list);
		chan->file = NULL;
	}
}

/* Forget the context; its stream stays open while users hold the file. */
static void ib_async_channel_unlink(struct ib_async_channel *chan)
{
	mutex_lock(&chan->adev->chan_lock);
	ib_async_channel_unlink_locked(chan);
	mutex_unlock(&chan->adev->chan_lock);
}

/* A channel file's channel: its private_data is the channel's queue. */
static struct ib_async_channel *ib_async_channel_of(struct file *filp)
{
	return container_of(filp->private_data, struct ib_async_channel, evq);
}

static int ib_async_channel_release(struct inode *inode, struct file *filp)
{
	struct ib_async_channel *chan = ib_async_channel_of(filp);

	ib_async_channel_unlink(chan);
	if (chan->ops->release)
		chan->ops->release(chan);
	ib_async_channel_put(chan);
	return 0;
}

static long ib_async_channel_ioctl(struct file *filp, unsigned int cmd,
				   unsigned long arg)
{
	return ib_async_qfile_ioctl(filp, cmd, arg,
				    ib_async_uapi_channel_ioctl);
}

/* /proc/PID/fdinfo/FD, every line prefixed "ib_async-" as the node's. */
static void ib_async_channel_show_fdinfo(struct seq_file *m,
					 struct file *filp)
{
	struct ib_async_channel *chan = ib_async_channel_of(filp);
	struct ib_async_evq_stat st;

	ib_async_evq_stat(&chan->evq, &st);
	seq_printf(m, "ib_async-device:\t%s\n", dev_name(&chan->adev->dev));
	seq_printf(m, "ib_async-channel:\t%s\n", chan->ops->kind);
	ib_async_qfile_show_queue(m, &st);
	seq_printf(m, "ib_async-delivered:\t%llu\n", st.delivered);
	seq_printf(m, "ib_async-lost:\t%llu\n", st.lost);
	seq_printf(m, "ib_async-coalesced:\t%llu\n", st.coalesced);
	ib_async_qfile_show_memory(m, &st);
	if (chan->ops->show_fdinfo)
		chan->ops->show_fdinfo(m, chan);
}

/* A completion channel's queue: its CQs' events merge while one is unread. */
static int ib_async_compchan_queue(struct ib_device *ib_dev, u32 flags,
				   unsigned int *qflags, u32 *state_slots)
{
	if (!ib_dev->kverbs_provider)
		return -EOPNOTSUPP;
	*qflags = IB_ASYNC_EVQ_COMP;
	return 0;
}

static void ib_async_compchan_show_fdinfo(struct seq_file *m,
					  struct ib_async_channel *chan)
{
	seq_printf(m, "ib_async-cqs:\t%d\n", atomic_read(&chan->cqs));
}

static const struct ib_async_chan_ops ib_async_compchan_ops = {
	.name		= "[ib_async_comp]",
	.kind		= "completion",
	.queue		= ib_async_compchan_queue,
	.show_fdinfo	= ib_async_compchan_show_fdinfo,
};

/* The kinds of channel, by enum ib_async_channel_type. */
static const struct ib_async_chan_ops *ib_async_chan_kinds[] __ro_after_init = {
	[IB_ASYNC_CHANNEL_COMP]		= &ib_async_compchan_ops,
	[IB_ASYNC_CHANNEL_EVENT]	= NULL,	/* evchan.c's, registered */
};

/**
 * ib_async_channel_register - offer a kind of channel
 * @type: its enum ib_async_channel_type
 * @ops: what it has beyond its queue
 *
 * At module init, before any file is opened.
 */
void ib_async_channel_register(u32 type, const struct ib_async_chan_ops *ops)
{
	if (!WARN_ON_ONCE(type >= ARRAY_SIZE(ib_async_chan_kinds)))
		ib_async_chan_kinds[type] = ops;
}

static const struct file_operations ib_async_channel_fops = {
	.owner		= THIS_MODULE,
	.release	= ib_async_channel_release,
	.read		= ib_async_qfile_read,
	.poll		= ib_async_qfile_poll,
	.fasync		= ib_async_qfile_fasync,
	.mmap		= ib_async_qfile_mmap,
	.unlocked_ioctl	= ib_async_channel_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= ib_async_channel_show_fdinfo,
};

/*
 * Make the channel and its file; the dispatcher installs the descriptor
 * only once the caller has been told its number.
 */
int ib_async_cmd_create_channel(struct ib_async_ucmd *u)
{
	struct ib_async_create_channel *arg = u->cmd;
	struct ib_async_file *file = u->file;
	const struct ib_async_chan_ops *ops;
	struct ib_async_channel *chan;
	unsigned int qflags = 0;
	u32 state_slots = 0;
	struct file *filp;
	int fd, ret;

	if (arg->flags & ~(IB_ASYNC_CHANNEL_NONBLOCK |
			   IB_ASYNC_CHANNEL_COALESCE |
			   IB_ASYNC_CHANNEL_STATE |
			   IB_ASYNC_CHANNEL_RESYNC) || arg->fd)
		return -EINVAL;
	ops = arg->type < ARRAY_SIZE(ib_async_chan_kinds) ?
	      ib_async_chan_kinds[arg->type] : NULL;
	if (!ops || arg->flags & ~(IB_ASYNC_CHANNEL_NONBLOCK | ops->flags))
		return -EINVAL;
	ret = ops->queue(u->ib_dev, arg->flags, &qflags, &state_slots);
	if (ret)
		return ret;

	chan = kzalloc(sizeof(*chan), GFP_KERNEL_ACCOUNT);
	if (!chan)
		return -ENOMEM;
	ret = ib_async_evq_init(&chan->evq, ib_async_default_queue_len(),
				file->adev->stats, qflags, state_slots,
				file->user);
	if (ret) {
		kfree(chan);
		return ret;
	}
	chan->ops = ops;
	if (ops->init) {
		ret = ops->init(chan, u->ib_dev);
		if (ret) {
			ib_async_evq_destroy(&chan->evq);
			kfree(chan);
			return ret;
		}
	}
	kref_init(&chan->ref);
	chan->type = arg->type;
	atomic_set(&chan->cqs, 0);
	INIT_LIST_HEAD(&chan->list);
	INIT_LIST_HEAD(&chan->forget);
	get_device(&file->adev->dev);
	chan->adev = file->adev;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ib_async_channel_put(chan);
		return fd;
	}
	/* Read-write: a ring mapped shared needs it for its consumer index. */
	filp = anon_inode_getfile(ops->name, &ib_async_channel_fops,
				  &chan->evq, O_RDWR |
				  (arg->flags & IB_ASYNC_CHANNEL_NONBLOCK ?
				   O_NONBLOCK : 0));
	if (IS_ERR(filp)) {
		put_unused_fd(fd);
		ib_async_channel_put(chan);
		return PTR_ERR(filp);
	}

	mutex_lock(&chan->adev->chan_lock);
	chan->file = file;
	list_add_tail_rcu(&chan->list, &file->channels);
	mutex_unlock(&chan->adev->chan_lock);

	arg->fd = fd;
	u->new_fd = fd;
	u->new_file = filp;
	ib_async_ucmd_respond(u);
	return 0;
}

/**
 * ib_async_channel_get - a channel of a context, by the caller's descriptor
 * @file: the context
 * @fd: the caller's descriptor of the channel
 * @type: the kind of channel the caller needs
 *
 * The channel must have been made on @file, as ib_uverbs requires of a
 * completion channel.
 *
 * Return: the channel, with a reference, or ERR_PTR(-EBADF) (no such
 * descriptor) or -EINVAL (not a channel of @file, or of another type).
 */
struct ib_async_channel *ib_async_channel_get(struct ib_async_file *file,
					      int fd, u32 type)
{
	struct ib_async_channel *chan;
	struct file *filp;
	int ret = 0;

	filp = fget(fd);
	if (!filp)
		return ERR_PTR(-EBADF);
	if (filp->f_op != &ib_async_channel_fops) {
		fput(filp);
		return ERR_PTR(-EINVAL);
	}
	chan = ib_async_channel_of(filp);

	mutex_lock(&file->adev->chan_lock);
	if (chan->file != file || chan->type != type)
		ret = -EINVAL;
	else
		kref_get(&chan->ref);
	mutex_unlock(&file->adev->chan_lock);
	fput(filp);
	return ret ? ERR_PTR(ret) : chan;
}

/**
 * ib_async_channels_close - end the streams of a file's channels
 * @file: the context, being closed or losing its device
 * @err: what their readers get once the queued records are read: -EIO
 *	(closed, as ib_uverbs reports it) or -ENODEV (removed)
 *
 * An event channel's stream ends at removal as the node's does, with a
 * DEVICE_FATAL record. A reader blocked in read() or poll() wakes up.
 */
void ib_async_channels_close(struct ib_async_file *file, int err)
{
	struct ib_async_channel *chan, *next;
	u64 now = ktime_get_ns();

	mutex_lock(&file->adev->chan_lock);
	list_for_each_entry_safe(chan, next, &file->channels, list) {
		if (chan->ops->end_record && err == -ENODEV)
			ib_async_evq_shutdown(&chan->evq, now);
		else
			ib_async_evq_close(&chan->evq, err);
		if (err == -EIO)
			ib_async_channel_unlink_locked(chan);
	}
	mutex_unlock(&file->adev->chan_lock);
}

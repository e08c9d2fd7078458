// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * File operations of /dev/infiniband/ib_asyncN: open binds a file to its
 * device, read/poll/fasync deliver the file's queue (qfile.c, as for a
 * channel), ioctl marshals the uAPI structures.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "core.h"

static int ib_async_open(struct inode *inode, struct file *filp)
{
	struct ib_async_device *adev =
		container_of(inode->i_cdev, struct ib_async_device, cdev);
	struct ib_async_file *file;
	int ret;

	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file)
		return -ENOMEM;

	ib_async_account_init(file);
	ret = ib_async_evq_init(&file->evq, ib_async_default_queue_len(),
				adev->stats, 0, 0, file->user);
	if (ret)
		goto err_account;
	mutex_init(&file->obj_mutex);
	init_rwsem(&file->dp_rwsem);
	INIT_LIST_HEAD(&file->channels);
	mutex_init(&file->forget_mutex);
	ret = ib_async_verbs->open(file);
	if (ret)
		goto err_evq;

	get_device(&adev->dev);
	file->adev = adev;
	ret = ib_async_device_attach_file(adev, file);
	if (ret)
		goto err_put;

	/* A queue to its reader, as a channel's file (qfile.c) */
	filp->private_data = &file->evq;
	return nonseekable_open(inode, filp);

err_put:
	put_device(&adev->dev);
	ib_async_verbs->free(file);
err_evq:
	ib_async_evq_destroy(&file->evq);
err_account:
	ib_async_account_exit(file);
	kfree(file);
	return ret;
}

/* After a grace period: no event handler can still be pushing to it. */
static void ib_async_file_free_rcu(struct rcu_head *rcu)
{
	struct ib_async_file *file =
		container_of(rcu, struct ib_async_file, rcu);

	ib_async_evq_destroy(&file->evq);
	kfree(file);
}

/**
 * ib_async_file_free - free a file whose objects are all gone
 * @file: the file, off its device's list
 */
void ib_async_file_free(struct ib_async_file *file)
{
	struct ib_async_device *adev = file->adev;

	/* first: what the verbs layer keeps for reuse is still charged */
	ib_async_verbs->free(file);
	ib_async_account_exit(file);
	ib_async_evq_uncharge(&file->evq);
	mutex_destroy(&file->obj_mutex);
	mutex_destroy(&file->forget_mutex);
	call_rcu(&file->rcu, ib_async_file_free_rcu);
	put_device(&adev->dev);
}

/* The node file's ib_async file: its private_data is the file's queue. */
static struct ib_async_file *ib_async_file_of(struct file *filp)
{
	return container_of(filp->private_data, struct ib_async_file, evq);
}

static int ib_async_release(struct inode *inode, struct file *filp)
{
	struct ib_async_file *file = ib_async_file_of(filp);

	/* A reader blocked on one of its channels must not wait forever. */
	ib_async_channels_close(file, -EIO);
	if (ib_async_device_detach_file(file->adev, file))
		ib_async_file_free(file);
	return 0;
}

static void ib_async_fill_dev_info(struct ib_device *ib_dev,
				   struct ib_async_info *info)
{
	info->phys_port_cnt = rdma_end_port(ib_dev);
	info->node_guid = ib_dev->node_guid;
	info->ibdev_index = ib_dev->index;
	info->features = IB_ASYNC_FEATURE_READ_BATCH |
			 IB_ASYNC_FEATURE_EVENT_CHANNEL |
			 IB_ASYNC_FEATURE_EVENT_RING |
			 IB_ASYNC_FEATURE_STATE;
	ib_async_verbs->info(ib_dev, info);
	strscpy(info->ibdev_name, dev_name(&ib_dev->dev),
		sizeof(info->ibdev_name));
}

/*
 * The event core's commands, on the node or a channel (u->evq): they take
 * no device lock they do not need.
 */
int ib_async_cmd_get_info(struct ib_async_ucmd *u)
{
	struct ib_async_device *adev = u->adev;
	struct ib_async_info *info = u->cmd;
	struct ib_async_evq_stat st;
	int ret = 0;

	if (info->flags || info->reserved)
		return -EINVAL;

	memset(info, 0, sizeof(*info));
	down_read(&adev->disassoc_rwsem);
	if (adev->ib_dev)
		ib_async_fill_dev_info(adev->ib_dev, info);
	else
		ret = -ENODEV;
	up_read(&adev->disassoc_rwsem);
	if (ret)
		return ret;

	ib_async_evq_stat(u->evq, &st);
	info->argsz = sizeof(*info);
	info->abi_version = IB_ASYNC_ABI_VERSION;
	info->record_size = st.rec_size;
	info->queue_len = st.cap;
	info->max_queue_len = ib_async_max_queue_len();
	info->queued = st.queued;
	info->lost = st.lost;
	info->next_seq = st.next_seq;
	ib_async_ucmd_respond(u);
	return 0;
}

int ib_async_cmd_set_queue_len(struct ib_async_ucmd *u)
{
	struct ib_async_queue_len *arg = u->cmd;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	if (!arg->queue_len || arg->queue_len > ib_async_max_queue_len())
		return -EINVAL;

	return ib_async_evq_resize(u->evq, arg->queue_len);
}

int ib_async_cmd_read_batch(struct ib_async_ucmd *u)
{
	struct ib_async_read_batch *arg = u->cmd;
	ssize_t n;

	if (arg->flags & ~(IB_ASYNC_READ_PEEK | IB_ASYNC_READ_NONBLOCK) ||
	    arg->reserved)
		return -EINVAL;
	/*
	 * A completion channel merges a CQ's next event into the record the
	 * CQ has queued: into a peeked one, already with the reader, the
	 * event would be lost when the record is consumed.
	 */
	if ((arg->flags & IB_ASYNC_READ_PEEK) &&
	    (u->evq->flags & IB_ASYNC_EVQ_COMP))
		return -EINVAL;
	n = ib_async_evq_read_batch(u->evq, arg->consume_seq,
				    u64_to_user_ptr(arg->buf), arg->count,
				    (u->filp->f_flags & O_NONBLOCK) ||
				    (arg->flags & IB_ASYNC_READ_NONBLOCK),
				    arg->flags & IB_ASYNC_READ_PEEK);
	if (n < 0)
		return n;
	arg->count = n;
	ib_async_ucmd_respond(u);
	return 0;
}

static long ib_async_ioctl(struct file *filp, unsigned int cmd,
			   unsigned long arg)
{
	return ib_async_qfile_ioctl(filp, cmd, arg, ib_async_uapi_ioctl);
}

/*
 * /proc/PID/fdinfo/FD: the queue and (the verbs layer's lines) the data
 * path's bookkeeping, for people and tests; every line is prefixed
 * "ib_async-".
 */
static void ib_async_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct ib_async_file *file = ib_async_file_of(filp);
	struct ib_async_evq_stat st;

	ib_async_evq_stat(&file->evq, &st);
	seq_printf(m, "ib_async-device:\t%s\n", dev_name(&file->adev->dev));
	ib_async_qfile_show_queue(m, &st);
	seq_printf(m, "ib_async-lost:\t%llu\n", st.lost);
	seq_printf(m, "ib_async-coalesced:\t%llu\n", st.coalesced);
	seq_printf(m, "ib_async-delivered:\t%llu\n", st.delivered);
	ib_async_qfile_show_memory(m, &st);
	ib_async_verbs->fdinfo(m, file);
}

/*
 * Offset 0 is the event ring's (MAP_RING); what the verbs layer hands out
 * (a CQ's completion ring) lies beyond it.
 */
static int ib_async_node_mmap(struct file *filp, struct vm_area_struct *vma)
{
	if (!vma->vm_pgoff)
		return ib_async_qfile_mmap(filp, vma);
	if (!ib_async_verbs->mmap)
		return -EINVAL;
	return ib_async_verbs->mmap(ib_async_file_of(filp), vma);
}

const struct file_operations ib_async_fops = {
	.owner		= THIS_MODULE,
	.open		= ib_async_open,
	.release	= ib_async_release,
	.read		= ib_async_qfile_read,
	.poll		= ib_async_qfile_poll,
	.fasync		= ib_async_qfile_fasync,
	.mmap		= ib_async_node_mmap,
	.unlocked_ioctl	= ib_async_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= ib_async_show_fdinfo,
};

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One character device per RDMA device, its sysfs view, and the fan-out of
 * unaffiliated events to the device's open files.
 *
 * Removal never waits for userspace: files hold a reference on the
 * ib_async_device, not on the ib_device. At removal the event handler is
 * unregistered, the ib_device pointer is cleared under disassoc_rwsem, and
 * every open file is told its stream has ended.
 */
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "core.h"
#include "ib_async_event_types.h"

#define IB_ASYNC_MAX_DEVICES	256

static dev_t ib_async_devt;
static DEFINE_IDA(ib_async_ida);

static ssize_t ibdev_show(struct device *device, struct device_attribute *attr,
			  char *buf)
{
	struct ib_async_device *adev =
		container_of(device, struct ib_async_device, dev);
	ssize_t ret = -ENODEV;

	/* Read the name each time so an RDMA device rename shows here. */
	down_read(&adev->disassoc_rwsem);
	if (adev->ib_dev)
		ret = sysfs_emit(buf, "%s\n", dev_name(&adev->ib_dev->dev));
	up_read(&adev->disassoc_rwsem);
	return ret;
}
static DEVICE_ATTR_RO(ibdev);

static struct attribute *ib_async_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	NULL,
};

static const struct attribute_group ib_async_dev_group = {
	.attrs	= ib_async_dev_attrs,
};

static const struct attribute_group *ib_async_dev_groups[] = {
	&ib_async_dev_group,
	&ib_async_stats_group,
	NULL,
};

static ssize_t abi_version_show(IB_ASYNC_CLASS_ATTR_CONST struct class *class,
				IB_ASYNC_CLASS_ATTR_CONST struct class_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_ASYNC_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *ib_async_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ib_async_class);

static char *ib_async_devnode(IB_ASYNC_DEVNODE_CONST struct device *dev,
			      umode_t *mode)
{
	/* Like uverbs: access is governed by what the file may create. */
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

/* Static, as the driver core prefers since class_create() lost its owner. */
static struct class ib_async_class = {
	.name		= "ib_async",
	.class_groups	= ib_async_class_groups,
	.devnode	= ib_async_devnode,
};

/* The types about a port or the device, from ib_async_event_types.h. */
static bool ib_async_is_unaffiliated(enum ib_event_type type)
{
	return (unsigned int)type < 64 &&
	       IB_ASYNC_ELEMENT_MASK(port_num) >> type & 1;
}

/*
 * Called by the RDMA core for unaffiliated events: in 6.1 from the ib_wq
 * workqueue (events may run concurrently and out of order) or, for
 * GID_CHANGE, from the GID cache worker with the table mutex held. Drivers
 * may call it from atomic context, so take no sleeping lock. The file list
 * is walked under RCU, so interrupts are off only inside one queue's push
 * at a time, however many files are open.
 */
static void ib_async_event_handler(struct ib_event_handler *handler,
				   struct ib_event *event)
{
	struct ib_async_device *adev =
		container_of(handler, struct ib_async_device, event_handler);
	struct ib_async_event rec = {};
	struct ib_async_file *file;

	/* Affiliated events belong to their objects' handlers. */
	if (!ib_async_is_unaffiliated(event->event))
		return;

	rec.element = event->element.port_num;
	rec.timestamp_ns = ktime_get_ns();
	rec.event_type = event->event;
	rec.port_num = event->element.port_num;
	rec.obj_type = IB_ASYNC_OBJ_PORT;
	ib_async_stat_add(adev->stats, IB_ASYNC_STAT_EVENTS, 1);

	rcu_read_lock();
	list_for_each_entry_rcu(file, &adev->files, list) {
		ib_async_evq_push(&file->evq, &rec, NULL);
		ib_async_evchans_deliver(file, &rec);
	}
	rcu_read_unlock();
}

int ib_async_device_attach_file(struct ib_async_device *adev,
				struct ib_async_file *file)
{
	int ret = 0;

	down_read(&adev->disassoc_rwsem);
	if (!adev->ib_dev)
		ret = -ENODEV;
	else if (!rdma_dev_access_netns(adev->ib_dev, current->nsproxy->net_ns))
		ret = -EPERM;
	if (!ret) {
		spin_lock(&adev->files_lock);
		list_add_tail_rcu(&file->list, &adev->files);
		spin_unlock(&adev->files_lock);
	}
	up_read(&adev->disassoc_rwsem);
	return ret;
}

/*
 * Destroy the file's objects and take it off the device. Under the rwsem,
 * so that removal, which holds it for writing, sees every listed file
 * whole. The event handler may still be walking past the file: it is
 * freed only after a grace period (see ib_async_file_free()).
 *
 * The destroyed objects' records are purged between the two holds: a
 * purge never waits for a reader's copy (a reader of a CQ's completion
 * channel, another file, may be stuck in one), but it walks a queue that
 * may be long, and removal need not wait for that either. The file is not
 * yet marked orphaned then, so removal, if it comes meanwhile, destroys
 * what is left but does not free the file; this does, as it would have
 * after removal.
 *
 * Return: false if the driver refused to destroy some object: the file
 * then stays listed, orphaned, holding the module, and removal destroys
 * (or gives up on) what is left and frees it.
 */
bool ib_async_device_detach_file(struct ib_async_device *adev,
				 struct ib_async_file *file)
{
	LIST_HEAD(ended);
	bool gone;
	u32 left;

	down_read(&adev->disassoc_rwsem);
	left = ib_async_verbs->destroy_all(file, false, &ended);
	up_read(&adev->disassoc_rwsem);
	ib_async_verbs->end_destroyed(&ended);

	down_read(&adev->disassoc_rwsem);
	gone = !left || !adev->ib_dev;
	/* Removal came in between: free the dead handles it left. */
	if (left && gone)
		ib_async_verbs->destroy_all(file, false, &ended);
	if (gone) {
		spin_lock(&adev->files_lock);
		list_del_rcu(&file->list);
		spin_unlock(&adev->files_lock);
	} else {
		/*
		 * The driver still has objects whose handlers are ib_async's:
		 * the module stays until removal destroys or abandons them
		 * (ib_async_device_remove() drops this).
		 */
		file->orphaned = true;
		__module_get(THIS_MODULE);
	}
	up_read(&adev->disassoc_rwsem);
	return gone;
}

static void ib_async_device_release(struct device *dev)
{
	struct ib_async_device *adev =
		container_of(dev, struct ib_async_device, dev);

	ib_async_stats_free(adev);
	kfree(adev);
}

struct ib_async_device *ib_async_device_add(struct ib_device *ib_dev)
{
	struct ib_async_device *adev;
	int ret;

	adev = kzalloc(sizeof(*adev), GFP_KERNEL);
	if (!adev)
		return ERR_PTR(-ENOMEM);

	init_rwsem(&adev->disassoc_rwsem);
	mutex_init(&adev->chan_lock);
	spin_lock_init(&adev->files_lock);
	INIT_LIST_HEAD(&adev->files);
	adev->ib_dev = ib_dev;
	if (ib_async_stats_alloc(adev)) {
		kfree(adev);
		return ERR_PTR(-ENOMEM);
	}

	device_initialize(&adev->dev);
	adev->dev.class = &ib_async_class;
	adev->dev.parent = ib_dev->dev.parent;
	adev->dev.groups = ib_async_dev_groups;
	adev->dev.release = ib_async_device_release;

	adev->devnum = ida_alloc_max(&ib_async_ida, IB_ASYNC_MAX_DEVICES - 1,
				     GFP_KERNEL);
	if (adev->devnum < 0) {
		ret = adev->devnum;
		goto err_put;
	}
	adev->dev.devt = MKDEV(MAJOR(ib_async_devt), adev->devnum);
	ret = dev_set_name(&adev->dev, "ib_async%d", adev->devnum);
	if (ret)
		goto err_ida;

	cdev_init(&adev->cdev, &ib_async_fops);
	adev->cdev.owner = THIS_MODULE;

	/* Register the handler first so no event is missed once the node exists. */
	INIT_IB_EVENT_HANDLER(&adev->event_handler, ib_dev,
			      ib_async_event_handler);
	ib_register_event_handler(&adev->event_handler);

	ret = cdev_device_add(&adev->cdev, &adev->dev);
	if (ret)
		goto err_handler;
	return adev;

err_handler:
	ib_unregister_event_handler(&adev->event_handler);
err_ida:
	ida_free(&ib_async_ida, adev->devnum);
err_put:
	put_device(&adev->dev);
	return ERR_PTR(ret);
}

void ib_async_device_remove(struct ib_async_device *adev)
{
	u64 now = ktime_get_ns();
	struct ib_async_file *file, *next;
	LIST_HEAD(reap);

	/* No new opens; files already open keep the memory alive. */
	cdev_device_del(&adev->cdev, &adev->dev);
	ib_unregister_event_handler(&adev->event_handler);

	/*
	 * Wait out commands that use the ib_device, then destroy what every
	 * file made on it: the core waits for those objects after we return.
	 * Attach and detach need the rwsem too, so the list holds still and
	 * can be walked without files_lock, which must not be held here.
	 */
	down_write(&adev->disassoc_rwsem);
	list_for_each_entry_safe(file, next, &adev->files, list) {
		ib_async_channels_close(file, -ENODEV);
		if (ib_async_verbs->destroy_all(file, true, NULL) ||
		    !file->orphaned)
			continue;
		/* A closed file kept for this retry: now it can go. */
		list_del_rcu(&file->list);
		list_add_tail(&file->reap, &reap);
	}
	adev->ib_dev = NULL;
	up_write(&adev->disassoc_rwsem);
	list_for_each_entry_safe(file, next, &reap, reap) {
		LIST_HEAD(ended);

		/* Dead handles only: the device has nothing left to destroy. */
		down_read(&adev->disassoc_rwsem);
		ib_async_verbs->destroy_all(file, false, &ended);
		up_read(&adev->disassoc_rwsem);
		ib_async_verbs->end_destroyed(&ended);
		ib_async_file_free(file);
		/*
		 * Taken when the file was orphaned. Even the last reference
		 * may go here: ib_async's exit, in ib_unregister_client(),
		 * waits for this remove callback to return.
		 */
		module_put(THIS_MODULE);
	}

	spin_lock(&adev->files_lock);
	list_for_each_entry(file, &adev->files, list)
		ib_async_evq_shutdown(&file->evq, now);
	spin_unlock(&adev->files_lock);

	ida_free(&ib_async_ida, adev->devnum);
	put_device(&adev->dev);
}

int ib_async_device_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&ib_async_devt, 0, IB_ASYNC_MAX_DEVICES,
				  "ib_async");
	if (ret)
		return ret;

	ret = class_register(&ib_async_class);
	if (ret)
		goto err_region;
	return 0;

err_region:
	unregister_chrdev_region(ib_async_devt, IB_ASYNC_MAX_DEVICES);
	return ret;
}

void ib_async_device_exit(void)
{
	class_unregister(&ib_async_class);
	unregister_chrdev_region(ib_async_devt, IB_ASYNC_MAX_DEVICES);
	ida_destroy(&ib_async_ida);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_storm: test-only source of unaffiliated RDMA async events.
 *
 * Writing "<ibdev> <event_type> <port> <count>" to
 * /sys/kernel/debug/ib_async_storm/dispatch sends count events of that type
 * for that port through ib_dispatch_event(), exactly as a driver would.
 * event_type is a number (enum ib_event_type) or a name such as SM_CHANGE.
 *
 * ib_dispatch_event() queues one work item per event on the unordered ib_wq,
 * so handlers may see the events out of order. The write flushes ib_wq every
 * IB_ASYNC_STORM_BATCH events and before it returns, which bounds the memory
 * held by queued work items; readers should still wait for the events to
 * arrive rather than rely on that.
 *
 * Never needed in production: it lets the selftests produce events rxe
 * cannot (SM_CHANGE, LID_CHANGE, ...) in any number.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "ib_async_event_names.h"

#define IB_ASYNC_STORM_MAX_COUNT	10000000UL
#define IB_ASYNC_STORM_BATCH		4096UL
#define IB_ASYNC_STORM_CMD_MAX		128

static bool allow_fatal;
module_param(allow_fatal, bool, 0644);
MODULE_PARM_DESC(allow_fatal, "accept IB_EVENT_DEVICE_FATAL (default: no)");

static struct dentry *storm_dir;

/*
 * The RDMA devices, as this module's own client sees them come and go:
 * ib_device_get_by_name() is not exported to modules since 7.0.
 */
struct storm_dev {
	struct list_head list;
	struct ib_device *ibdev;
};

static LIST_HEAD(storm_devs);
static DEFINE_MUTEX(storm_devs_lock);

static int storm_add_one(struct ib_device *ibdev)
{
	struct storm_dev *sd = kzalloc(sizeof(*sd), GFP_KERNEL);

	if (!sd)
		return -ENOMEM;
	sd->ibdev = ibdev;
	mutex_lock(&storm_devs_lock);
	list_add_tail(&sd->list, &storm_devs);
	mutex_unlock(&storm_devs_lock);
	return 0;
}

static void storm_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct storm_dev *sd, *tmp;

	mutex_lock(&storm_devs_lock);
	list_for_each_entry_safe(sd, tmp, &storm_devs, list) {
		if (sd->ibdev != ibdev)
			continue;
		list_del(&sd->list);
		kfree(sd);
	}
	mutex_unlock(&storm_devs_lock);
}

static struct ib_client storm_client = {
	.name	= "ib_async_storm",
	.add	= storm_add_one,
	.remove	= storm_remove_one,
};

/*
 * The registered device called @name, with a reference that keeps its
 * unregistration waiting until ib_device_put(); NULL if there is none.
 */
static struct ib_device *storm_get_device(const char *name)
{
	struct ib_device *found = NULL;
	struct storm_dev *sd;

	mutex_lock(&storm_devs_lock);
	list_for_each_entry(sd, &storm_devs, list) {
		if (strcmp(dev_name(&sd->ibdev->dev), name))
			continue;
		if (ib_device_try_get(sd->ibdev))
			found = sd->ibdev;
		break;
	}
	mutex_unlock(&storm_devs_lock);
	return found;
}

/* The unaffiliated types a storm may carry */
static const enum ib_event_type storm_types[] = {
	IB_EVENT_DEVICE_FATAL, IB_EVENT_PORT_ACTIVE, IB_EVENT_PORT_ERR,
	IB_EVENT_LID_CHANGE, IB_EVENT_PKEY_CHANGE, IB_EVENT_SM_CHANGE,
	IB_EVENT_CLIENT_REREGISTER,
};

/*
 * Only unaffiliated events can be sent without an object. GID_CHANGE is
 * refused too: the core consumes it in ib_cache_event_task() and never
 * passes it on, so it would silently vanish.
 */
static int storm_parse_type(const char *s, enum ib_event_type *type)
{
	unsigned int val;
	size_t i;
	int t;

	if (kstrtouint(s, 0, &val)) {
		t = ib_async_event_by_name(s);
		if (t < 0)
			return -EINVAL;
		val = t;
	}
	for (i = 0; i < ARRAY_SIZE(storm_types); i++)
		if (storm_types[i] == val)
			break;
	if (i == ARRAY_SIZE(storm_types))
		return -EINVAL;
	if (val == IB_EVENT_DEVICE_FATAL && !allow_fatal)
		return -EINVAL;
	*type = val;
	return 0;
}

static int storm_dispatch(struct ib_device *ibdev, enum ib_event_type type,
			  u32 port, unsigned long count)
{
	struct ib_event event = {
		.device = ibdev,
		.event = type,
		.element.port_num = port,
	};
	unsigned long i;
	int ret = 0;

	for (i = 0; i < count; i++) {
		ib_dispatch_event(&event);
		if ((i + 1) % IB_ASYNC_STORM_BATCH)
			continue;
		flush_workqueue(ib_wq);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	flush_workqueue(ib_wq);
	return ret;
}

static ssize_t storm_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char name[IB_DEVICE_NAME_MAX], type_str[32], port_str[16], count_str[24];
	enum ib_event_type type;
	struct ib_device *ibdev;
	unsigned long count;
	unsigned int port;
	char extra;
	char *buf;
	int ret;

	if (!len || len >= IB_ASYNC_STORM_CMD_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = sscanf(buf, "%63s %31s %15s %23s %c", name, type_str, port_str,
		     count_str, &extra);
	kfree(buf);
	/* kstrto*() rather than %u/%lu: they reject signs and overflow */
	if (ret != 4 || kstrtouint(port_str, 0, &port) ||
	    kstrtoul(count_str, 0, &count))
		return -EINVAL;
	if (!count || count > IB_ASYNC_STORM_MAX_COUNT)
		return -EINVAL;
	ret = storm_parse_type(type_str, &type);
	if (ret)
		return ret;

	ibdev = storm_get_device(name);
	if (!ibdev)
		return -ENODEV;
	if (port < rdma_start_port(ibdev) || port > rdma_end_port(ibdev))
		ret = -EINVAL;
	else
		ret = storm_dispatch(ibdev, type, port, count);
	ib_device_put(ibdev);

	return ret ? ret : len;
}

static const struct file_operations storm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = storm_write,
};

static int __init ib_async_storm_init(void)
{
	int ret = ib_register_client(&storm_client);

	if (ret)
		return ret;
	storm_dir = debugfs_create_dir("ib_async_storm", NULL);
	debugfs_create_file("dispatch", 0200, storm_dir, NULL, &storm_fops);
	return 0;
}

static void __exit ib_async_storm_exit(void)
{
	/* no write is running once the file is gone */
	debugfs_remove_recursive(storm_dir);
	ib_unregister_client(&storm_client);
}

module_init(ib_async_storm_init);
module_exit(ib_async_storm_exit);

MODULE_DESCRIPTION("Test-only source of unaffiliated RDMA async events");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async stays loaded while a driver holds objects removal gave up on.
 *
 * A driver that refuses a destroy at removal keeps the object, and with it
 * ib_async's event and completion handlers and the restrack name the
 * object was given (ib_async_uobj_abandon()): unloading ib_async then
 * would leave the driver pointing into freed module text. A driver's
 * objects cannot outlive its module, whose exit removes its devices, so
 * the module reference taken at the first abandon of a driver's object is
 * dropped when that driver's module goes (MODULE_STATE_GOING, sent after
 * its exit returned). A built-in driver has no module: it keeps ib_async
 * loaded until reboot.
 *
 * One reference per driver module, whatever the number of objects: the
 * list is as long as the number of drivers that ever refused a destroy.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "verbs/verbs.h"

/**
 * struct ib_async_hold - one module reference, for one driver
 * @list: on ib_async_holds
 * @owner: the driver's module (ib_device_ops.owner); NULL if built in
 */
struct ib_async_hold {
	struct list_head list;
	struct module *owner;
};

static LIST_HEAD(ib_async_holds);
static DEFINE_MUTEX(ib_async_holds_lock);

/**
 * ib_async_hold_for - keep ib_async loaded until @ib_dev's driver goes
 * @ib_dev: a device whose driver keeps an object removal abandoned
 *
 * Called from removal, which the ib_client's remove callback runs: the
 * module cannot be on its way out then (every open file, and every closed
 * one whose objects the driver kept, holds a reference), so taking one
 * more is safe. Without memory for the record the reference stays for
 * good: a module that never unloads is safe, one that unloads too early
 * is not.
 */
void ib_async_hold_for(struct ib_device *ib_dev)
{
	struct module *owner = ib_dev->ops.owner;
	struct ib_async_hold *h;

	mutex_lock(&ib_async_holds_lock);
	list_for_each_entry(h, &ib_async_holds, list)
		if (h->owner == owner)
			goto out;
	__module_get(THIS_MODULE);
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		pr_warn("ib_async: %s: kept loaded until reboot for the objects its driver kept\n",
			dev_name(&ib_dev->dev));
		goto out;
	}
	h->owner = owner;
	list_add_tail(&h->list, &ib_async_holds);
	pr_info("ib_async: %s: its driver kept objects removal gave up on; ib_async stays loaded until %s\n",
		dev_name(&ib_dev->dev),
		owner ? "that driver's module is unloaded" : "reboot");
out:
	mutex_unlock(&ib_async_holds_lock);
}

/*
 * A module is going, its exit done: if it is a driver that kept objects,
 * nothing of it can call ib_async any more. The module_put() here is safe
 * although it may be the last reference: ib_async's exit unregisters this
 * notifier, which waits for a call in progress to return.
 */
static int ib_async_hold_notify(struct notifier_block *nb, unsigned long state,
				void *data)
{
	struct module *mod = data;
	struct ib_async_hold *h, *next;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&ib_async_holds_lock);
	list_for_each_entry_safe(h, next, &ib_async_holds, list) {
		if (h->owner != mod)
			continue;
		list_del(&h->list);
		kfree(h);
		module_put(THIS_MODULE);
	}
	mutex_unlock(&ib_async_holds_lock);
	return NOTIFY_OK;
}

static struct notifier_block ib_async_hold_nb = {
	.notifier_call = ib_async_hold_notify,
};

int __init ib_async_holds_init(void)
{
	return register_module_notifier(&ib_async_hold_nb);
}

void ib_async_holds_exit(void)
{
	unregister_module_notifier(&ib_async_hold_nb);
	/* each record holds the module: none can be left at exit */
	WARN_ON(!list_empty(&ib_async_holds));
}

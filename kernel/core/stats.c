// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-device counters of what events did, in sysfs as
 * /sys/class/ib_async/ib_asyncN/counters/: one value per file, cumulative
 * since the device appeared, so they keep what files that are closed
 * already saw.
 *
 * Producers run in any context, hard irq included, and a storm fans one
 * event out to every open file: each bumps its own CPU's copy
 * (this_cpu_add() is irq-safe), so the event path shares no cache line
 * and takes no lock. A read sums the copies; it is exact once producers
 * are quiet.
 */
#include <linux/percpu.h>

#include "core.h"

int ib_async_stats_alloc(struct ib_async_device *adev)
{
	adev->stats = alloc_percpu(struct ib_async_stats);
	return adev->stats ? 0 : -ENOMEM;
}

void ib_async_stats_free(struct ib_async_device *adev)
{
	free_percpu(adev->stats);
	adev->stats = NULL;
}

static struct device_attribute ib_async_counter_attrs[];

static ssize_t counter_show(struct device *device,
			    struct device_attribute *attr, char *buf)
{
	struct ib_async_device *adev =
		container_of(device, struct ib_async_device, dev);
	unsigned int stat = attr - ib_async_counter_attrs;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(adev->stats, cpu)->c[stat];
	return sysfs_emit(buf, "%llu\n", sum);
}

/* Indexed by enum ib_async_stat: the file name is the counter's. */
#define IB_ASYNC_COUNTER_ATTR(id, name)					\
	[IB_ASYNC_STAT_##id] = __ATTR(name, 0444, counter_show, NULL),
static struct device_attribute ib_async_counter_attrs[] = {
	IB_ASYNC_COUNTERS(IB_ASYNC_COUNTER_ATTR)
};

#define IB_ASYNC_COUNTER_ATTR_PTR(id, name)				\
	[IB_ASYNC_STAT_##id] = &ib_async_counter_attrs[IB_ASYNC_STAT_##id].attr,
static struct attribute *ib_async_counter_attr_list[] = {
	IB_ASYNC_COUNTERS(IB_ASYNC_COUNTER_ATTR_PTR)
	NULL,
};

static_assert(ARRAY_SIZE(ib_async_counter_attr_list) == IB_ASYNC_NR_STATS + 1);

const struct attribute_group ib_async_stats_group = {
	.name	= "counters",
	.attrs	= ib_async_counter_attr_list,
};

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the core runs with: the module parameters that bound its queues,
 * and the verbs layer's ops, set once by ib_async_core_init() before any
 * device is added.
 */
#include <linux/moduleparam.h>

#include "core.h"

static unsigned int default_queue_len = 1024;
static unsigned int max_queue_len = 65536;

static int queue_len_param_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, IB_ASYNC_QUEUE_LEN_LIMIT);
}

static const struct kernel_param_ops queue_len_param_ops = {
	.set = queue_len_param_set,
	.get = param_get_uint,
};

module_param_cb(default_queue_len, &queue_len_param_ops, &default_queue_len,
		0644);
MODULE_PARM_DESC(default_queue_len,
		 "Events a new file's queue holds (default 1024; capped by max_queue_len)");
module_param_cb(max_queue_len, &queue_len_param_ops, &max_queue_len, 0644);
MODULE_PARM_DESC(max_queue_len,
		 "Largest queue a file may ask for (default 65536, at most 1048576)");

u32 ib_async_max_queue_len(void)
{
	return READ_ONCE(max_queue_len);
}

u32 ib_async_default_queue_len(void)
{
	return min(READ_ONCE(default_queue_len), ib_async_max_queue_len());
}

/* The verbs layer, as the core reaches it */
const struct ib_async_verbs_ops *ib_async_verbs;

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async.ko: the event core (core/) with the verbs layer (verbs/)
 * plugged in. The core never calls the verbs layer by name; this is where
 * the two meet: the layer's cache and its module holds (hold.c) first,
 * then the core with its ops.
 */
#include <linux/module.h>

#include "verbs/verbs.h"

static int __init ib_async_init(void)
{
	int ret;

	ret = ib_async_wr_cache_init();
	if (ret)
		return ret;
	ret = ib_async_holds_init();
	if (ret)
		goto err_cache;
	ret = ib_async_core_init(&ib_async_verbs_ops);
	if (ret)
		goto err_holds;
	return 0;

err_holds:
	ib_async_holds_exit();
err_cache:
	ib_async_wr_cache_exit();
	return ret;
}

static void __exit ib_async_exit(void)
{
	ib_async_core_exit();
	ib_async_holds_exit();
	ib_async_wr_cache_exit();
}

module_init(ib_async_init);
module_exit(ib_async_exit);

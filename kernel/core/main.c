// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async: RDMA asynchronous events through bounded per-file queues.
 *
 * The ib_client that gives every RDMA device its character device, and
 * the core's start: kernel/module.c starts it here once the verbs layer is
 * ready, and hands it the layer's ops; the dispatcher gets the core's
 * command table (cmds.c) and the layer's.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "core.h"
#include "ib_async_event_types.h"

static struct ib_client ib_async_client;

static int ib_async_add_one(struct ib_device *ib_dev)
{
	struct ib_async_device *adev;

	adev = ib_async_device_add(ib_dev);
	if (IS_ERR(adev))
		return PTR_ERR(adev);
	ib_set_client_data(ib_dev, &ib_async_client, adev);
	return 0;
}

static void ib_async_remove_one(struct ib_device *ib_dev, void *client_data)
{
	ib_async_device_remove(client_data);
}

/*
 * rdma netlink's GET_CHARDEV with name "ib_async" (rdma-core's
 * ibv_get_device_list() finds uverbsN the same way): the node of a device
 * and the uAPI version it speaks. One node per device, none per port.
 */
static int ib_async_get_nl_info(struct ib_device *ib_dev, void *client_data,
				struct ib_client_nl_info *res)
{
	struct ib_async_device *adev = client_data;

	if (res->port != U32_MAX)
		return -EINVAL;
	res->abi = IB_ASYNC_ABI_VERSION;
	res->cdev = &adev->dev;
	return 0;
}

/*
 * Events need no kernel verbs, so every device gets a node: devices that
 * lack the mandatory kernel verbs (kverbs_provider false) refuse only the
 * object and data-path commands (EOPNOTSUPP).
 */
static struct ib_client ib_async_client = {
	.name		= "ib_async",
	.add		= ib_async_add_one,
	.remove		= ib_async_remove_one,
	.get_nl_info	= ib_async_get_nl_info,
	.no_kverbs_req	= true,
};

/**
 * ib_async_core_init - start the event core
 * @verbs: the verbs layer's ops, which every file uses from its open on
 *
 * Return: 0 or the error of the character devices or the ib_client.
 */
int ib_async_core_init(const struct ib_async_verbs_ops *verbs)
{
	int ret;

	/*
	 * The uAPI promises the RDMA core's numbering for every type: the
	 * rows of ib_async_event_types.h every kernel has, then the newer.
	 */
#define IB_ASYNC_SAME_EVENT(x, element) \
	IB_ASYNC_ROWS((int)IB_ASYNC_EV_##x == (int)IB_EVENT_##x &&)
	BUILD_BUG_ON(!(IB_ASYNC_IBV_EVENT_TYPES(IB_ASYNC_SAME_EVENT) true));
#undef IB_ASYNC_SAME_EVENT
	ib_async_check_speed_change();

	ib_async_verbs = verbs;
	ib_async_uapi_init(ib_async_core_cmds, ib_async_n_core_cmds);
	ib_async_channel_register(IB_ASYNC_CHANNEL_EVENT, &ib_async_evchan_ops);
	ret = ib_async_device_init();
	if (ret)
		return ret;

	ret = ib_register_client(&ib_async_client);
	if (ret)
		ib_async_device_exit();
	return ret;
}

/* Stop the event core: every file of the module is freed on return. */
void ib_async_core_exit(void)
{
	ib_unregister_client(&ib_async_client);
	ib_async_device_exit();
	/* Files freed after a grace period must be gone with the code. */
	rcu_barrier();
}

MODULE_DESCRIPTION("RDMA asynchronous events through bounded per-file queues");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_CLIENT("ib_async");

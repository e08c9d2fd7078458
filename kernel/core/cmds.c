// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The event core's commands, as the dispatcher (uapi.c) runs them: the
 * queue's (GET_INFO, SET_QUEUE_LEN, READ_BATCH, MAP_RING, RING_WAIT),
 * which a channel's file takes too, and the channels' (CREATE_CHANNEL,
 * SUBSCRIBE, UNSUBSCRIBE). ib_async_core_init() plugs the table in.
 */
#include <linux/build_bug.h>

#include "core.h"

/*
 * The core's commands; the verbs layer's are in its ops (verbs/ops.c),
 * numbered in the same range: a number is in one table or the other.
 */
const struct ib_async_ioctl_op ib_async_core_cmds[] = {
	IB_ASYNC_OP(GET_INFO, ib_async_cmd_get_info, struct ib_async_info,
		    IB_ASYNC_INFO_SIZE_V1,
		    IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_QUEUE),
	IB_ASYNC_OP(SET_QUEUE_LEN, ib_async_cmd_set_queue_len,
		    struct ib_async_queue_len, IB_ASYNC_QUEUE_LEN_SIZE_V1,
		    IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_QUEUE),
	IB_ASYNC_OP(READ_BATCH, ib_async_cmd_read_batch,
		    struct ib_async_read_batch, IB_ASYNC_READ_BATCH_SIZE_V1,
		    IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_QUEUE),
	IB_ASYNC_OP(CREATE_CHANNEL, ib_async_cmd_create_channel,
		    struct ib_async_create_channel,
		    IB_ASYNC_CREATE_CHANNEL_SIZE_V1, IB_ASYNC_CMD_NO_KVERBS),
	IB_ASYNC_OP(SUBSCRIBE, ib_async_cmd_subscribe,
		    struct ib_async_subscribe, IB_ASYNC_SUBSCRIBE_SIZE_V1,
		    IB_ASYNC_CMD_NO_KVERBS),
	IB_ASYNC_OP(UNSUBSCRIBE, ib_async_cmd_unsubscribe,
		    struct ib_async_unsubscribe, IB_ASYNC_UNSUBSCRIBE_SIZE_V1,
		    IB_ASYNC_CMD_NO_KVERBS),
	IB_ASYNC_OP(MAP_RING, ib_async_cmd_map_ring, struct ib_async_map_ring,
		    IB_ASYNC_MAP_RING_SIZE_V1,
		    IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_QUEUE),
	IB_ASYNC_OP(RING_WAIT, ib_async_cmd_ring_wait,
		    struct ib_async_ring_wait, IB_ASYNC_RING_WAIT_SIZE_V1,
		    IB_ASYNC_CMD_OWN_LOCKS | IB_ASYNC_CMD_QUEUE),
};

/*
 * Each uAPI structure has exactly the size its header names: a field added
 * without a new size (or a hole the compiler filled) fails the build.
 */
static_assert(sizeof(struct ib_async_event) == IB_ASYNC_EVENT_SIZE_V1);
static_assert(sizeof(struct ib_async_info) == IB_ASYNC_INFO_SIZE_V1);
static_assert(sizeof(struct ib_async_queue_len) == IB_ASYNC_QUEUE_LEN_SIZE_V1);
static_assert(sizeof(struct ib_async_read_batch) ==
	      IB_ASYNC_READ_BATCH_SIZE_V1);
static_assert(sizeof(struct ib_async_create_channel) ==
	      IB_ASYNC_CREATE_CHANNEL_SIZE_V1);
static_assert(sizeof(struct ib_async_chan_event) ==
	      IB_ASYNC_CHAN_EVENT_SIZE_V1);
static_assert(sizeof(struct ib_async_subscribe) == IB_ASYNC_SUBSCRIBE_SIZE_V1);
static_assert(sizeof(struct ib_async_unsubscribe) ==
	      IB_ASYNC_UNSUBSCRIBE_SIZE_V1);
static_assert(sizeof(struct ib_async_ring_header) ==
	      IB_ASYNC_RING_HEADER_SIZE_V1);
static_assert(offsetof(struct ib_async_ring_header, consumer) == 64);
static_assert(sizeof(struct ib_async_map_ring) == IB_ASYNC_MAP_RING_SIZE_V1);
static_assert(sizeof(struct ib_async_ring_wait) ==
	      IB_ASYNC_RING_WAIT_SIZE_V1);
/* The numbers fit the range the header reserves. */
static_assert(IB_ASYNC_CMD_BASE + ARRAY_SIZE(ib_async_core_cmds) - 1 <=
	      IB_ASYNC_CMD_LAST);

const unsigned int ib_async_n_core_cmds = ARRAY_SIZE(ib_async_core_cmds);

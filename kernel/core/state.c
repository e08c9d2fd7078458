// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What a state record says of a port: ib_query_port() and the GID table,
 * read in process context after the record's point of the stream (see
 * evchan.c), so that every event before that point shows in it.
 */
#include <rdma/ib_cache.h>

#include "core.h"

/*
 * Valid entries of @port's GID table: the entries ibv_query_gid_table()
 * would list. The table's lock is a reader's rwlock: no event handler
 * waits for us, and we wait for none of them.
 */
static u32 ib_async_gid_valid(struct ib_device *ib_dev, u32 port, u32 len)
{
	const struct ib_gid_attr *attr;
	u32 i, n = 0;

	for (i = 0; i < len; i++) {
		attr = rdma_get_gid_attr(ib_dev, port, i);
		if (IS_ERR(attr))
			continue;
		n++;
		rdma_put_gid_attr(attr);
	}
	return n;
}

/**
 * ib_async_port_state_query - the state of one port, or of the device
 * @ib_dev: the device, pinned by the caller (disassoc_rwsem)
 * @port: a port number, or 0 for the device's record
 * @st: filled in; flags and gid_gen are left as they are
 *
 * Sleeps: drivers may ask their firmware. A port the driver cannot query
 * is reported so (IB_ASYNC_STATE_QUERY_FAILED and the error), its other
 * fields 0, rather than leaving the snapshot without it.
 */
void ib_async_port_state_query(struct ib_device *ib_dev, u32 port,
			       struct ib_async_port_state *st)
{
	struct ib_port_attr attr;
	int ret;

	might_sleep();
	if (!port) {
		st->phys_port_cnt = rdma_end_port(ib_dev);
		return;
	}
	ret = ib_query_port(ib_dev, port, &attr);
	if (ret) {
		st->flags |= IB_ASYNC_STATE_QUERY_FAILED;
		st->error = -ret;
		return;
	}
	st->lid = attr.lid;
	st->sm_lid = attr.sm_lid;
	st->gid_tbl_len = attr.gid_tbl_len;
	st->gid_valid = ib_async_gid_valid(ib_dev, port, attr.gid_tbl_len);
	st->port_cap_flags = attr.port_cap_flags;
	st->active_speed = attr.active_speed;
	st->pkey_tbl_len = attr.pkey_tbl_len;
	st->state = attr.state;
	st->phys_state = attr.phys_state;
	st->active_width = attr.active_width;
	st->sm_sl = attr.sm_sl;
	st->active_mtu = attr.active_mtu;
	st->max_mtu = attr.max_mtu;
	st->link_layer = rdma_port_get_link_layer(ib_dev, port);
	st->lmc = attr.lmc;
}

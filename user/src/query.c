// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device, port, GID and P_Key queries, answered by the kernel from the
 * same ib_device attributes and caches ib_uverbs reports.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cmd.h"
#include "ibasync.h"

/*
 * What the program can use through this library: the data path through
 * kernel buffers (a node without USER_MR) posts no atomics, so it says so
 * as a provider without them does, and programs (rdma-core's tests too)
 * take the path for such a device instead of failing a post.
 */
static void device_attr_usable(struct ibv_context *ctx,
			       struct ibv_device_attr *attr)
{
	if (!to_ibasync_ctx(ctx)->user_mr)
		attr->atomic_cap = IBV_ATOMIC_NONE;
}

IBASYNC_EXPORT int ibv_query_device(struct ibv_context *context,
				    struct ibv_device_attr *attr)
{
	int ret;

	if (!context || !attr)
		return ibasync_err(EINVAL);
	ret = ibasync_cmd_query_device(context->cmd_fd, attr, NULL, NULL);
	if (ret)
		return ret;
	device_attr_usable(context, attr);
	return 0;
}

/* Whether field of struct ibv_device_attr_ex ends within size bytes. */
#define DEV_EX_FITS(size, field)					\
	((size) >= offsetof(struct ibv_device_attr_ex, field) +		\
		   sizeof(((struct ibv_device_attr_ex *)0)->field))

/*
 * struct verbs_context's query_device_ex, behind rdma-core's inline
 * ibv_query_device_ex(). attr_size is the caller's sizeof(struct
 * ibv_device_attr_ex), which grew with rdma-core releases; as libibverbs
 * does, it must cover orig_attr (else EINVAL), all attr_size bytes are
 * zeroed, and an extended field is written only if it ends within them,
 * so a program built against an older rdma-core is served too.
 *
 * Of the extended fields, the kernel ABI carries the 64-bit capability
 * flags (QUERY_DEVICE) and the port count (GET_INFO, which unlike
 * ibv_device_attr.phys_port_cnt is not limited to 8 bits). Every other
 * one stays 0, as a provider without the capability reports it: ODP,
 * timestamps, TSO, RSS, WQ limits, packet pacing, tag matching, CQ
 * moderation and device memory are not in struct ib_async_device_attr,
 * and most are reached only through verbs this library refuses
 * (completion timestamps in ibv_create_cq_ex(), RSS QPs, ibv_alloc_dm()...).
 */
int ibasync_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr orig;
	struct ib_async_info info;
	uint64_t cap_flags;
	int ret;

	/* the inline checks input too; a caller of the op may not */
	if (!context || !attr || (input && input->comp_mask) ||
	    attr_size < sizeof(attr->orig_attr))
		return ibasync_err(EINVAL);
	memset(attr, 0, attr_size);
	ret = ibasync_cmd_query_device(context->cmd_fd, &orig, &cap_flags,
				       NULL);
	if (!ret && DEV_EX_FITS(attr_size, phys_port_cnt_ex))
		ret = ibasync_cmd_get_info(context->cmd_fd, &info);
	if (ret)
		return ret;
	device_attr_usable(context, &orig);
	attr->orig_attr = orig;
	if (DEV_EX_FITS(attr_size, device_cap_flags_ex))
		attr->device_cap_flags_ex = cap_flags;
	if (DEV_EX_FITS(attr_size, phys_port_cnt_ex))
		attr->phys_port_cnt_ex = info.phys_port_cnt;
	return 0;
}

/*
 * Where rdma-core 50 and later put the u32 active_speed_ex, after
 * port_cap_flags2 (aligned): this library may be built against an
 * rdma-core whose struct ibv_port_attr ends before it (Debian 12's 44).
 */
#define PORT_SPEED_EX_OFF						\
	((offsetof(struct ibv_port_attr, port_cap_flags2) +		\
	  sizeof(uint16_t) + sizeof(uint32_t) - 1) & ~(sizeof(uint32_t) - 1))

/*
 * struct verbs_context's query_port, behind rdma-core's inline
 * ibv_query_port(): fills attr_size bytes of struct ibv_port_attr, so a
 * program built against an older, smaller structure is served too, and
 * zeroes what a newer, larger one has beyond, as libibverbs does. Of
 * that, active_speed_ex gets the full-width speed, as ib_uverbs reports
 * it from 6.7 on (0 before, when readers fall back to active_speed).
 */
int ibasync_query_port_ex(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr, size_t attr_size)
{
	struct ibv_port_attr p;
	uint32_t speed_ex;
	int ret;

	if (!context || !attr)
		return ibasync_err(EINVAL);
	ret = ibasync_cmd_query_port(context, port_num, &p, &speed_ex);
	if (ret)
		return ret;
	memset(attr, 0, attr_size);
	memcpy(attr, &p, attr_size < sizeof(p) ? attr_size : sizeof(p));
	if (attr_size >= PORT_SPEED_EX_OFF + sizeof(speed_ex))
		memcpy((char *)attr + PORT_SPEED_EX_OFF, &speed_ex,
		       sizeof(speed_ex));
	return 0;
}

/*
 * The library symbol, for binaries whose inline found no query_port op
 * and for those built before it existed: their structure ends before
 * port_cap_flags2.
 */
#undef ibv_query_port
IBASYNC_EXPORT int ibv_query_port(struct ibv_context *context,
				  uint8_t port_num,
				  struct _compat_ibv_port_attr *attr)
{
	return ibasync_query_port_ex(context, port_num,
				     (struct ibv_port_attr *)attr,
				     offsetof(struct ibv_port_attr,
					      port_cap_flags2));
}

/* 0 or -1, as libibverbs: an empty slot reads as the zero GID. */
IBASYNC_EXPORT int ibv_query_gid(struct ibv_context *context,
				 uint8_t port_num, int index,
				 union ibv_gid *gid)
{
	int ret;

	if (!context || !gid || index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = ibasync_cmd_query_gid(context, port_num, (uint32_t)index, gid,
				    NULL);
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	return ret ? -1 : 0;
}

/* 0 or -1, as libibverbs; the P_Key in network byte order */
IBASYNC_EXPORT int ibv_query_pkey(struct ibv_context *context,
				  uint8_t port_num, int index, __be16 *pkey)
{
	uint16_t v;

	if (!context || !pkey) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * rdma-core reads ports/PORT/pkeys/INDEX in sysfs: a slot or port
	 * that does not exist is ENOENT there, whatever the reason.
	 */
	if (index < 0 ||
	    ibasync_cmd_query_pkey(context, port_num, (uint32_t)index, &v)) {
		if (index < 0 || errno == EINVAL)
			errno = ENOENT;
		return -1;
	}
	*pkey = htobe16(v);
	return 0;
}

/* The index of pkey (network byte order) in the port's table, or -1. */
IBASYNC_EXPORT int ibv_get_pkey_index(struct ibv_context *context,
				      uint8_t port_num, __be16 pkey)
{
	struct ibv_port_attr port;
	__be16 p;
	int i;

	if (ibasync_query_port_ex(context, port_num, &port, sizeof(port)))
		return -1;
	for (i = 0; i < port.pkey_tbl_len; i++) {
		if (ibv_query_pkey(context, port_num, i, &p))
			return -1;
		if (p == pkey)
			return i;
	}
	errno = ENOENT;
	return -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The bodies of iba_verbs.h's helpers: the object and data-path ioctl
 * wrappers.
 */
#include <sys/mman.h>

#define IBA_NO_HARNESS
#include "iba_verbs.h"

int iba_ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int iba_channel(int fd, uint32_t type, uint32_t flags)
{
	struct ib_async_create_channel a = {
		.argsz = sizeof(a), .type = type, .flags = flags,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_CHANNEL, &a);

	return ret ? ret : a.fd;
}

int iba_event_channel(int fd, uint32_t flags)
{
	return iba_channel(fd, IB_ASYNC_CHANNEL_EVENT,
			   flags | IB_ASYNC_CHANNEL_NONBLOCK);
}

int iba_subscribe(int fd, int ch, uint32_t flags, uint64_t types, uint32_t port,
	      uint32_t obj, uint64_t cookie)
{
	struct ib_async_subscribe a = {
		.argsz = sizeof(a), .flags = flags, .fd = ch, .port = port,
		.type_mask = types, .cookie = cookie, .obj_handle = obj,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_SUBSCRIBE, &a);

	return ret ? ret : (int)a.sub_id;
}

int iba_query_port(int fd, uint32_t port, struct ib_async_port_attr *out)
{
	memset(out, 0, sizeof(*out));
	out->argsz = sizeof(*out);
	out->port_num = port;
	return iba_ioc(fd, IB_ASYNC_IOC_QUERY_PORT, out);
}

#define DIFFERS(st, a, field) \
	do { if ((st)->field != (a)->field) return #field; } while (0)

const char *iba_port_state_differs(const struct ib_async_port_state *st,
			       const struct ib_async_port_attr *a)
{
	DIFFERS(st, a, state);
	DIFFERS(st, a, phys_state);
	DIFFERS(st, a, lid);
	DIFFERS(st, a, sm_lid);
	DIFFERS(st, a, sm_sl);
	DIFFERS(st, a, lmc);
	DIFFERS(st, a, active_width);
	DIFFERS(st, a, active_speed);
	DIFFERS(st, a, active_mtu);
	DIFFERS(st, a, max_mtu);
	DIFFERS(st, a, gid_tbl_len);
	DIFFERS(st, a, pkey_tbl_len);
	DIFFERS(st, a, port_cap_flags);
	DIFFERS(st, a, link_layer);
	return NULL;
}

int iba_create_pd(int fd, uint32_t *handle)
{
	struct ib_async_create_pd a = { .argsz = sizeof(a) };
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_PD, &a);

	*handle = a.handle;
	return ret;
}

int iba_create_cq(int fd, uint64_t user_handle, uint32_t cqe, uint32_t *handle)
{
	struct ib_async_create_cq a = {
		.argsz = sizeof(a), .user_handle = user_handle, .cqe = cqe,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_CQ, &a);

	*handle = a.handle;
	return ret;
}

int iba_create_qp(int fd, uint64_t user_handle, uint32_t pd, uint32_t cq,
	      uint32_t type, struct ib_async_create_qp *out)
{
	struct ib_async_create_qp a = {
		.argsz = sizeof(a), .user_handle = user_handle, .pd_handle = pd,
		.send_cq_handle = cq, .recv_cq_handle = cq, .qp_type = type,
		.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
		.max_recv_sge = 1,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_CREATE_QP, &a);

	*out = a;
	return ret;
}

int iba_modify_qp(int fd, uint32_t qp, uint32_t state, uint32_t mask,
	      struct ib_async_qp_attr *extra)
{
	struct ib_async_qp_attr a = {};

	if (extra)
		a = *extra;
	a.argsz = sizeof(a);
	a.handle = qp;
	a.qp_state = state;
	a.attr_mask = mask | IB_ASYNC_QP_STATE;
	return iba_ioc(fd, IB_ASYNC_IOC_MODIFY_QP, &a);
}

int iba_query_qp_state(int fd, uint32_t qp)
{
	struct ib_async_qp_attr a = { .argsz = sizeof(a), .handle = qp };
	int ret = iba_ioc(fd, IB_ASYNC_IOC_QUERY_QP, &a);

	return ret ? ret : (int)a.qp_state;
}

int iba_destroy(int fd, uint32_t type, uint32_t handle, uint64_t *reported)
{
	struct ib_async_destroy a = {
		.argsz = sizeof(a), .obj_type = type, .handle = handle,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_DESTROY, &a);

	if (reported)
		*reported = a.events_reported;
	return ret;
}

int iba_post_recv(int fd, uint32_t type, uint32_t handle, uint64_t wr_id,
	      void *buf, uint32_t len)
{
	struct ib_async_post_recv a = {
		.argsz = sizeof(a), .obj_type = type, .handle = handle,
		.wr_id = wr_id, .addr = (uintptr_t)buf, .length = len,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_POST_RECV, &a);
}

int iba_reg_mr(int fd, uint32_t pd, void *addr, uint64_t len,
	   uint32_t access, struct ib_async_reg_mr *out)
{
	struct ib_async_reg_mr a = {
		.argsz = sizeof(a), .pd_handle = pd,
		.addr = (uintptr_t)addr, .length = len,
		.iova = (uintptr_t)addr, .access = access,
	};
	int ret = iba_ioc(fd, IB_ASYNC_IOC_REG_MR, &a);

	if (out)
		*out = a;
	return ret;
}

int iba_anon_mr(int fd, uint32_t pd, size_t len, uint32_t access, char **mem,
		struct ib_async_reg_mr *mr)
{
	int ret;

	*mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*mem == MAP_FAILED)
		return -errno;
	ret = iba_reg_mr(fd, pd, *mem, len, access, mr);
	if (ret) {
		munmap(*mem, len);
		*mem = MAP_FAILED;
	}
	return ret;
}

int iba_poll_cq_once(int fd, uint32_t cq, struct ib_async_wc *wc, int max)
{
	struct ib_async_poll_cq p = {
		.argsz = sizeof(p), .handle = cq, .count = (uint32_t)max,
		.wc = (uintptr_t)wc,
	};

	return iba_ioc(fd, IB_ASYNC_IOC_POLL_CQ, &p) ?: (int)p.count;
}

int iba_poll_cq(int fd, uint32_t cq, struct ib_async_wc *wc, int want)
{
	uint64_t t0 = iba_now_ms();
	int got = 0, ret;

	while (got < want && iba_now_ms() - t0 < IBA_EVENT_TIMEOUT_MS) {
		ret = iba_poll_cq_once(fd, cq, &wc[got], want - got);
		if (ret < 0)
			return ret;
		got += ret;
		if (got < want)
			iba_sleep_ms(10);
	}
	return got;
}

int iba_ud_to_rts(int fd, uint32_t qp)
{
	struct ib_async_qp_attr init = { .port_num = 1, .qkey = IBA_UD_QKEY };
	int ret;

	ret = iba_modify_qp(fd, qp, 1, IB_ASYNC_QP_PKEY_INDEX | IB_ASYNC_QP_PORT |
			IB_ASYNC_QP_QKEY, &init);
	if (!ret)
		ret = iba_modify_qp(fd, qp, 2, 0, NULL);
	if (!ret)
		ret = iba_modify_qp(fd, qp, 3, IB_ASYNC_QP_SQ_PSN, NULL);
	return ret;
}

int iba_create_ah(int fd, uint32_t pd, int sgid, const uint8_t gid[16],
		  struct ib_async_create_ah *ah)
{
	*ah = (struct ib_async_create_ah){ .argsz = sizeof(*ah),
					   .pd_handle = pd };
	ah->av.is_global = 1;
	ah->av.port_num = 1;
	ah->av.sgid_index = sgid;
	ah->av.hop_limit = 64;
	memcpy(ah->av.dgid, gid, 16);
	return iba_ioc(fd, IB_ASYNC_IOC_CREATE_AH, ah);
}

int iba_qp_connect(int fd, uint32_t qp, bool rc, uint32_t access,
		   uint8_t rd_atomic, uint32_t dqpn, int sgid,
		   const uint8_t gid[16])
{
	struct ib_async_qp_attr a = { .port_num = 1,
				      .qp_access_flags = access };
	int ret;

	ret = iba_modify_qp(fd, qp, 1, IB_ASYNC_QP_PKEY_INDEX | IB_ASYNC_QP_PORT |
			IB_ASYNC_QP_ACCESS_FLAGS, &a);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.path_mtu = 3;			/* IBV_MTU_1024: veth */
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = 12;
	a.av.is_global = 1;
	a.av.port_num = 1;
	a.av.sgid_index = sgid;
	a.av.hop_limit = 64;
	memcpy(a.av.dgid, gid, 16);
	ret = iba_modify_qp(fd, qp, 2, IB_ASYNC_QP_AV | IB_ASYNC_QP_PATH_MTU |
			IB_ASYNC_QP_DEST_QPN | IB_ASYNC_QP_RQ_PSN |
			(rc ? IB_ASYNC_QP_MAX_DEST_RD_ATOMIC |
			      IB_ASYNC_QP_MIN_RNR_TIMER : 0), &a);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd_atomic;
	return iba_modify_qp(fd, qp, 3, IB_ASYNC_QP_SQ_PSN |
			 (rc ? IB_ASYNC_QP_TIMEOUT | IB_ASYNC_QP_RETRY_CNT |
			       IB_ASYNC_QP_RNR_RETRY |
			       IB_ASYNC_QP_MAX_QP_RD_ATOMIC : 0), &a);
}

int iba_rc_connect(int fd, uint32_t qp, uint32_t dqpn, int sgid,
	       const uint8_t gid[16])
{
	return iba_qp_connect(fd, qp, true, 0, 1, dqpn, sgid, gid);
}

int iba_rc_pair(int fd, uint32_t pd, uint32_t cq, int sgid,
	    const uint8_t gid[16], struct ib_async_create_qp *a,
	    struct ib_async_create_qp *b)
{
	int ret;

	ret = iba_create_qp(fd, 1, pd, cq, IB_UVERBS_QPT_RC, a);
	if (!ret)
		ret = iba_create_qp(fd, 2, pd, cq, IB_UVERBS_QPT_RC, b);
	if (!ret)
		ret = iba_rc_connect(fd, a->handle, b->qp_num, sgid, gid);
	if (!ret)
		ret = iba_rc_connect(fd, b->handle, a->qp_num, sgid, gid);
	return ret;
}

int iba_post_send(int fd, struct ib_async_post_send *a)
{
	a->argsz = sizeof(*a);
	return iba_ioc(fd, IB_ASYNC_IOC_POST_SEND, a);
}

int iba_post_list(int fd, unsigned long cmd, uint32_t type,
		  uint32_t h, const void *wrs, uint32_t count,
		  uint32_t wr_size,
		  const struct ib_async_sge *sges, uint32_t nsge,
		  struct ib_async_post_list *out)
{
	struct ib_async_post_list a = {
		.argsz = sizeof(a), .obj_type = type, .handle = h,
		.count = count, .wr_size = wr_size, .wrs = (uintptr_t)wrs,
		.sges = (uintptr_t)sges, .num_sges = nsge,
	};
	int ret = iba_ioc(fd, cmd, &a);

	if (out)
		*out = a;
	return ret;
}

int iba_post_sends(int fd, uint32_t qp,
		   const struct ib_async_send_wr *w, uint32_t n,
		   const struct ib_async_sge *s, uint32_t ns)
{
	return iba_post_list(fd, IB_ASYNC_IOC_POST_SEND_LIST, IB_ASYNC_OBJ_QP,
			     qp, w, n, sizeof(*w), s, ns, NULL);
}

int iba_post_recvs(int fd, uint32_t type, uint32_t h,
		   const struct ib_async_recv_wr *w, uint32_t n,
		   const struct ib_async_sge *s, uint32_t ns)
{
	return iba_post_list(fd, IB_ASYNC_IOC_POST_RECV_LIST, type, h, w, n,
			     sizeof(*w), s, ns, NULL);
}

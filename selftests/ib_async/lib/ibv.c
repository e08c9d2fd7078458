// SPDX-License-Identifier: GPL-2.0
/*
 * The bodies of iba_ibv.h's helpers: what tests through libibverbs'
 * API share.
 */
#define IBA_NO_HARNESS
#include "iba_ibv.h"

struct ibv_context *iba_ibv_open(const char *ibdev,
				  struct ibv_device ***list)
{
	int i, n = 0;

	*list = ibv_get_device_list(&n);
	if (!*list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name((*list)[i]), ibdev))
			return ibv_open_device((*list)[i]);
	errno = ENODEV;
	return NULL;
}

int iba_ibv_poll_n(struct ibv_cq *cq, int want,
		    struct ibv_wc *wc)
{
	uint64_t end = iba_now_ms() + IBA_EVENT_TIMEOUT_MS;
	int got = 0, n;

	while (got < want && iba_now_ms() < end) {
		n = ibv_poll_cq(cq, want - got, wc + got);
		if (n < 0)
			return n;
		got += n;
		if (!n)
			iba_sleep_ms(1);
	}
	return got;
}

int iba_ibv_rc_init(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = access };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ? -1 : 0;
}

int iba_ibv_rc_connect(struct ibv_qp *qp, uint32_t dqpn,
			const union ibv_gid *gid, int gid_index,
			uint8_t rd_atomic, uint8_t min_rnr_timer)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) ? -1 : 0;
}

int iba_ibv_rc_to_rts(struct ibv_qp *qp, uint32_t dqpn,
		       const union ibv_gid *gid, int gid_index,
		       unsigned int access)
{
	if (iba_ibv_rc_init(qp, access))
		return -1;
	return iba_ibv_rc_connect(qp, dqpn, gid, gid_index, 4, 12);
}

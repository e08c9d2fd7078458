/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the tests that go through libibverbs' API (libibasync
 * preloaded or linked): what several of them would otherwise each spell
 * out.
 */
#ifndef IBA_IBV_H
#define IBA_IBV_H

#include <infiniband/verbs.h>

#include "iba_util.h"

/*
 * Open the RDMA device named @ibdev through libibverbs' API, whichever
 * stack serves it (libibasync preloaded or rdma-core's provider): the
 * context, or NULL with errno set. *@list is the device list, to be freed
 * after the context is closed (NULL if there was none).
 */
struct ibv_context *iba_ibv_open(const char *ibdev,
				  struct ibv_device ***list);

/*
 * Poll @cq until @want completions are in @wc or IBA_EVENT_TIMEOUT_MS has
 * passed: how many arrived, or ibv_poll_cq()'s negative value.
 */
int iba_ibv_poll_n(struct ibv_cq *cq, int want,
		    struct ibv_wc *wc);

/*
 * @qp from RESET to INIT on port 1, with @access as its remote access
 * flags: 0, or -1 with errno as ibv_modify_qp() left it.
 */
int iba_ibv_rc_init(struct ibv_qp *qp, unsigned int access);

/*
 * @qp from INIT through RTR to RTS as an RC QP connected to @dqpn over
 * RoCE v2 (@gid at @gid_index, the loopback test bed's own), @rd_atomic
 * RDMA reads and atomics outstanding each way, @min_rnr_timer (the IB
 * encoding) before a receiver-not-ready retry: 0, or -1 with errno as
 * ibv_modify_qp() left it.
 */
int iba_ibv_rc_connect(struct ibv_qp *qp, uint32_t dqpn,
			const union ibv_gid *gid, int gid_index,
			uint8_t rd_atomic, uint8_t min_rnr_timer);

/*
 * @qp to RTS as an RC QP connected to @dqpn over RoCE v2 (@gid at
 * @gid_index, the loopback test bed's own), with @access as its remote
 * access flags: 0, or -1 with errno as ibv_modify_qp() left it.
 */
int iba_ibv_rc_to_rts(struct ibv_qp *qp, uint32_t dqpn,
		       const union ibv_gid *gid, int gid_index,
		       unsigned int access);

#endif /* IBA_IBV_H */

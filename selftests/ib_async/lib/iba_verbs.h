/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers over ib_async's object and data-path ioctls for the tests:
 * each returns 0 or -errno, as the kernel answered.
 */
#ifndef IBA_VERBS_H
#define IBA_VERBS_H

#include <stdbool.h>

#include "iba_util.h"

int iba_ioc(int fd, unsigned long cmd, void *arg);

/*
 * A new channel of @fd, IB_ASYNC_CHANNEL_@type (EVENT or COMP), with
 * exactly @flags (IB_ASYNC_CHANNEL_NONBLOCK...): its descriptor or -errno.
 */
int iba_channel(int fd, uint32_t type, uint32_t flags);

/* A new event channel of @fd, O_NONBLOCK: its descriptor or -errno. */
int iba_event_channel(int fd, uint32_t flags);

/* Subscribe channel @ch of @fd: the subscription's id (> 0) or -errno. */
int iba_subscribe(int fd, int ch, uint32_t flags, uint64_t types, uint32_t port,
	      uint32_t obj, uint64_t cookie);

/* The port's attributes as the node's QUERY_PORT gives them: 0 or -errno. */
int iba_query_port(int fd, uint32_t port, struct ib_async_port_attr *out);

/*
 * Whether a state record's port state says what QUERY_PORT's @a says:
 * NULL, or the name of the first field that differs.
 */
const char *iba_port_state_differs(const struct ib_async_port_state *st,
			       const struct ib_async_port_attr *a);

int iba_create_pd(int fd, uint32_t *handle);

int iba_create_cq(int fd, uint64_t user_handle, uint32_t cqe, uint32_t *handle);

int iba_create_qp(int fd, uint64_t user_handle, uint32_t pd, uint32_t cq,
	      uint32_t type, struct ib_async_create_qp *out);

int iba_modify_qp(int fd, uint32_t qp, uint32_t state, uint32_t mask,
	      struct ib_async_qp_attr *extra);

int iba_query_qp_state(int fd, uint32_t qp);

int iba_destroy(int fd, uint32_t type, uint32_t handle, uint64_t *reported);

int iba_post_recv(int fd, uint32_t type, uint32_t handle, uint64_t wr_id,
	      void *buf, uint32_t len);

/* Register @len bytes at @addr on @pd, at iova @addr; @out may be NULL. */
int iba_reg_mr(int fd, uint32_t pd, void *addr, uint64_t len,
	   uint32_t access, struct ib_async_reg_mr *out);

/*
 * @len bytes of new anonymous memory, private, registered on @pd with
 * @access: 0 with *@mem and @mr (which may be NULL) filled, or -errno with
 * nothing mapped and *@mem MAP_FAILED.
 */
int iba_anon_mr(int fd, uint32_t pd, size_t len, uint32_t access, char **mem,
		struct ib_async_reg_mr *mr);

/* One POLL_CQ of at most @max: the completions it returned, or -errno. */
int iba_poll_cq_once(int fd, uint32_t cq, struct ib_async_wc *wc, int max);

/* Poll until @want completions arrived or the timeout passed. */
int iba_poll_cq(int fd, uint32_t cq, struct ib_async_wc *wc, int want);

/* The Q_Key iba_ud_to_rts() gives a UD QP. */
#define IBA_UD_QKEY	0x11111111U

/* What a UD receive holds before the message: the GRH's room. */
#define IBA_GRH_BYTES	40

/* UD QP through INIT, RTR, RTS (IBV_QPS_*: 1, 2, 3). */
int iba_ud_to_rts(int fd, uint32_t qp);

/* An AH on @pd to @gid, through port 1 and GID index @sgid. */
int iba_create_ah(int fd, uint32_t pd, int sgid, const uint8_t gid[16],
		  struct ib_async_create_ah *ah);

/*
 * An RC (@rc) or UC QP through INIT, RTR (to @dqpn at @gid) and RTS
 * (IBV_QPS_*), with @access as its remote access flags and, on RC,
 * @rd_atomic RDMA reads and atomics outstanding each way.
 */
int iba_qp_connect(int fd, uint32_t qp, bool rc, uint32_t access,
		   uint8_t rd_atomic, uint32_t dqpn, int sgid,
		   const uint8_t gid[16]);

/* An RC QP through INIT, RTR (to @dqpn at @gid) and RTS: no remote access. */
int iba_rc_connect(int fd, uint32_t qp, uint32_t dqpn, int sgid,
	       const uint8_t gid[16]);

/* Two RC QPs on @cq, each connected to the other through @gid. */
int iba_rc_pair(int fd, uint32_t pd, uint32_t cq, int sgid,
	    const uint8_t gid[16], struct ib_async_create_qp *a,
	    struct ib_async_create_qp *b);

/* One request through ib_async's kernel buffers (POST_SEND). */
int iba_post_send(int fd, struct ib_async_post_send *a);

/* Lists of requests over registered memory (POST_SEND/RECV_LIST). */
int iba_post_list(int fd, unsigned long cmd, uint32_t type,
		  uint32_t h, const void *wrs, uint32_t count,
		  uint32_t wr_size,
		  const struct ib_async_sge *sges, uint32_t nsge,
		  struct ib_async_post_list *out);

int iba_post_sends(int fd, uint32_t qp,
		   const struct ib_async_send_wr *w, uint32_t n,
		   const struct ib_async_sge *s, uint32_t ns);

int iba_post_recvs(int fd, uint32_t type, uint32_t h,
		   const struct ib_async_recv_wr *w, uint32_t n,
		   const struct ib_async_sge *s, uint32_t ns);

#endif /* IBA_VERBS_H */

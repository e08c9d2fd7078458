/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a send work request may be: for each opcode the QP types that take
 * it, the fields it uses (every other field must be zero), the send flags
 * it may carry, and the member of the kernel's work request union it is
 * built as. POST_SEND_LIST and POST_SEND consult this one table before
 * they build any request; the fuzzer and the kselftests draw their
 * opcode x QP type combinations from it and expect EINVAL for each it
 * refuses. It names only uAPI constants, so userspace includes it too.
 * The rows are in ib_async_send_rules_table.h; this header has their vocabulary.
 *
 * Why a request the QP type cannot take must never reach a driver:
 * hardware drivers build a WQE from the member the QP type implies, not
 * the one the opcode implies. mlx5 (set_datagram_seg()), mlx4, bnxt_re,
 * ocrdma and pvrdma read ud_wr(wr)->ah for every request on a UD QP; an
 * RDMA or atomic request keeps its remote_addr in those bytes. ib_uverbs
 * refuses any opcode but SEND and SEND_WITH_IMM on a UD QP before it
 * builds a request (ib_uverbs_post_send()); the verbs specification
 * allows RDMA WRITE on UC, RDMA READ and atomics on RC only. rxe checks
 * opcodes itself, so on rxe alone such a hole stays hidden: the test
 * bed's strict checker (selftests/ib_async/modules) is what catches one.
 *
 * On a UD QP every request also uses ah_handle, remote_qpn and
 * remote_qkey; on any other QP type they must be zero.
 */
#ifndef IB_ASYNC_SEND_RULES_H
#define IB_ASYNC_SEND_RULES_H

/* QP types, as bits of a mask (IB_UVERBS_QPT_* == the kernel's IB_QPT_*) */
#define IB_ASYNC_SR_QPT(t)	(1U << (t))
#define IB_ASYNC_SR_RC		IB_ASYNC_SR_QPT(IB_UVERBS_QPT_RC)
#define IB_ASYNC_SR_UC		IB_ASYNC_SR_QPT(IB_UVERBS_QPT_UC)
#define IB_ASYNC_SR_UD		IB_ASYNC_SR_QPT(IB_UVERBS_QPT_UD)
/* Every QP type the node creates (CREATE_QP) */
#define IB_ASYNC_SR_QPTS	(IB_ASYNC_SR_RC | IB_ASYNC_SR_UC | IB_ASYNC_SR_UD)

/* Fields of struct ib_async_send_wr an opcode uses, and its entries */
enum ib_async_sr_field {
	IB_ASYNC_SR_REMOTE = 1 << 0,		/* remote_addr, rkey */
	IB_ASYNC_SR_IMM = 1 << 1,		/* imm_data */
	IB_ASYNC_SR_COMPARE_ADD = 1 << 2,	/* compare_add */
	IB_ASYNC_SR_SWAP = 1 << 3,		/* swap */
	IB_ASYNC_SR_WRITES = 1 << 4,		/* the device writes them */
	IB_ASYNC_SR_ONE_U64 = 1 << 5,		/* exactly one of 8 bytes */
};

/* Send flags */
#define IB_ASYNC_SR_FLAGS_ALL						\
	(IB_ASYNC_SEND_FENCE | IB_ASYNC_SEND_SIGNALED |			\
	 IB_ASYNC_SEND_SOLICITED | IB_ASYNC_SEND_INLINE)
/* The device reads no local data to carry inline */
#define IB_ASYNC_SR_FLAGS_NO_INLINE					\
	(IB_ASYNC_SR_FLAGS_ALL & ~IB_ASYNC_SEND_INLINE)

/* The member of the kernel's union a request is built as */
enum ib_async_sr_kind {
	IB_ASYNC_SR_NONE,	/* no kernel equivalent: EOPNOTSUPP */
	IB_ASYNC_SR_SEND,	/* struct ib_send_wr; on UD struct ib_ud_wr */
	IB_ASYNC_SR_RDMA,	/* struct ib_rdma_wr */
	IB_ASYNC_SR_ATOMIC,	/* struct ib_atomic_wr */
};

/* rdma's last send opcode (ATOMIC_WRITE, newer than 6.1's header) */
#define IB_ASYNC_SR_OPCODE_LAST		15

#endif /* IB_ASYNC_SEND_RULES_H */

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Posted work requests, shared by the two data paths: through kernel
 * buffers (datapath.c) and over registered memory (post.c). Both post
 * with the request's id as the device's wr_id and complete through the
 * same matching, so a completion can only ever reach its own request.
 */
#ifndef IB_ASYNC_WR_H
#define IB_ASYNC_WR_H

#include "verbs.h"
#include "ib_async_send_rules.h"

/* Outstanding work requests a file may have, and their bytes. */
#define IB_ASYNC_MAX_WRS	16384
#define IB_ASYNC_MAX_WR_BYTES	(64U << 20)

/**
 * struct ib_async_wr - a work request the device owns, then a completion
 * @list: on its owner's wrs (a QP's sends: sq_wrs), then on its CQ's
 *	backlog
 * @id_node: in the file's wr_ids while @owner is set (posted)
 * @owner: the QP or SRQ; NULL once completed
 * @cq: QP requests: where they complete
 * @qp: QP requests: compared, never followed
 * @dev: while mapped
 * @id: what the device carries as wr_id
 * @uaddr: kernel-buffer receives: where the data goes
 * @buf: the kernel buffer; NULL over registered memory
 * @dma: its mapping
 * @len: its bytes
 * @map_len: @len, but at least 1
 * @recv: a receive
 * @hidden: an unsignalled send: posted unsignalled, retired by the
 *	    completion of a later send of its QP (ib_async_sq_retire())
 * @mapped: @buf is mapped
 * @wc: the caller's wr_id at post; the rest at completion
 */
struct ib_async_wr {
	struct list_head list;
	struct hlist_node id_node;
	struct ib_async_uobj *owner;
	struct ib_async_uobj *cq;
	const struct ib_qp *qp;
	struct ib_device *dev;
	u64 id;
	u64 uaddr;
	void *buf;
	u64 dma;
	u32 len;
	u32 map_len;
	bool recv;
	bool hidden;
	bool mapped;
	struct ib_async_wc wc;
};

/**
 * ib_async_max_sge - entries a work request to @owner may carry
 * @owner: a QP or SRQ
 * @recv: a receive (else a send)
 *
 * As granted at create. ib_uverbs leaves the check to each driver; here
 * it is made before any driver sees the request, so that one that trusts
 * a kernel caller cannot read or write past the queue entry it sized.
 *
 * Return: the limit.
 */
static inline u32 ib_async_max_sge(const struct ib_async_uobj *owner,
				   bool recv)
{
	return recv ? owner->max_recv_sge : owner->max_send_sge;
}

/* wr_pool.c */
int ib_async_wrs_get(struct ib_async_file *file, struct ib_async_wr **tr,
		     u32 n, bool recv);
void ib_async_wr_put(struct ib_async_file *file, struct ib_async_wr *w);

/* datapath.c */
void ib_async_wr_discard(struct ib_async_file *file, struct ib_async_wr *w);
int ib_async_wr_attach(struct ib_async_file *file, struct ib_async_wr *w,
		       struct ib_async_uobj *owner);
void ib_async_wr_release(struct ib_async_file *file, struct ib_async_wr *w);
int ib_async_cq_fetch(struct ib_async_file *file, struct ib_async_uobj *cq,
		      u32 max);
int ib_async_send_ud(struct ib_async_file *file, struct ib_async_uobj *qp,
		     u32 ah_handle, u32 remote_qpn, u32 remote_qkey,
		     struct ib_ud_wr *wr);

/* wr_ids.c */
int ib_async_wr_ids_prepare(struct ib_async_file *file);
void ib_async_wr_ids_add(struct ib_async_file *file, struct ib_async_wr *w);
void ib_async_wr_ids_del(struct ib_async_file *file, struct ib_async_wr *w);
struct ib_async_wr *ib_async_wr_ids_find(struct ib_async_file *file, u64 id);

/**
 * struct ib_async_send_rule - what a send opcode takes (ib_async_send_rules.h)
 * @qp_types: the QP types that take it (IB_ASYNC_SR_QPT() bits)
 * @fields: the fields it uses (IB_ASYNC_SR_REMOTE...), and properties of
 *	its entries (IB_ASYNC_SR_WRITES, IB_ASYNC_SR_ONE_U64)
 * @flags: the send flags it may carry
 * @kind: the member of the kernel's work request union it is built as
 */
struct ib_async_send_rule {
	u32 qp_types;
	u32 fields;
	u32 flags;
	enum ib_async_sr_kind kind;
};

/* send_rules.c */
const struct ib_async_send_rule *ib_async_send_rule(u32 opcode);
int ib_async_send_rule_fields(const struct ib_async_send_rule *r,
			      u32 send_flags, u32 imm, u64 remote_addr,
			      u32 rkey, u64 compare_add, u64 swap);
int ib_async_send_rule_qp(const struct ib_async_send_rule *r,
			  enum ib_qp_type qp_type, u32 ah_handle,
			  u32 remote_qpn, u32 remote_qkey);

/**
 * ib_async_wr_signal - the device's signal flag for a send
 * @w: the send's request
 * @qp: its QP
 * @send_flags: the caller's (IB_ASYNC_SEND_*)
 *
 * Notes in @w whether the send is unsignalled; then the device is not
 * asked for its completion (ib_async_sq_retire() settles it).
 *
 * Return: IB_SEND_SIGNALED or 0.
 */
static inline int ib_async_wr_signal(struct ib_async_wr *w,
				     const struct ib_async_uobj *qp,
				     u32 send_flags)
{
	w->hidden = !(send_flags & IB_ASYNC_SEND_SIGNALED) && !qp->sq_sig_all;
	return w->hidden ? 0 : IB_SEND_SIGNALED;
}

#endif /* IB_ASYNC_WR_H */

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The send rules of ib_async_send_rules.h as the kernel applies them: every send
 * work request a user describes is checked here, before any kernel
 * request is built from it (post.c, datapath.c).
 */
#include <linux/nospec.h>

#include "verbs.h"
#include "wr.h"

/* The table's QP type bits are the kernel's QP types. */
static_assert((int)IB_UVERBS_QPT_RC == (int)IB_QPT_RC);
static_assert((int)IB_UVERBS_QPT_UC == (int)IB_QPT_UC);
static_assert((int)IB_UVERBS_QPT_UD == (int)IB_QPT_UD);

#define IB_ASYNC_SEND_RULE(op, qpts, f, fl, k)				\
	[op] = { .qp_types = (qpts), .fields = (f), .flags = (fl),	\
		 .kind = (k) },

static const struct ib_async_send_rule
ib_async_send_rules[IB_ASYNC_SR_OPCODE_LAST + 1] = {
#include "ib_async_send_rules_table.h"
};

/**
 * ib_async_send_rule - the rule of a send opcode
 * @opcode: the caller's (IB_UVERBS_WR_*)
 *
 * Return: the rule, or ERR_PTR(-EOPNOTSUPP) for an rdma opcode with no
 * kernel equivalent, ERR_PTR(-EINVAL) for no opcode at all.
 */
const struct ib_async_send_rule *ib_async_send_rule(u32 opcode)
{
	const struct ib_async_send_rule *r;

	if (opcode >= ARRAY_SIZE(ib_async_send_rules))
		return ERR_PTR(-EINVAL);
	r = &ib_async_send_rules[array_index_nospec(opcode,
						   ARRAY_SIZE(ib_async_send_rules))];
	return r->kind == IB_ASYNC_SR_NONE ? ERR_PTR(-EOPNOTSUPP) : r;
}

/**
 * ib_async_send_rule_fields - does a request use only its opcode's fields?
 * @r: its opcode's rule
 * @send_flags: its send flags (IB_ASYNC_SEND_*)
 * @imm: its immediate data
 * @remote_addr: its remote address
 * @rkey: its rkey
 * @compare_add: its compare or add operand
 * @swap: its swap operand
 *
 * What needs no QP: the flags the opcode may carry, and zero in every
 * field it does not use.
 *
 * Return: 0 or -EINVAL.
 */
int ib_async_send_rule_fields(const struct ib_async_send_rule *r,
			      u32 send_flags, u32 imm, u64 remote_addr,
			      u32 rkey, u64 compare_add, u64 swap)
{
	if (send_flags & ~r->flags)
		return -EINVAL;
	if (!(r->fields & IB_ASYNC_SR_IMM) && imm)
		return -EINVAL;
	if (!(r->fields & IB_ASYNC_SR_REMOTE) && (remote_addr || rkey))
		return -EINVAL;
	if (!(r->fields & IB_ASYNC_SR_COMPARE_ADD) && compare_add)
		return -EINVAL;
	if (!(r->fields & IB_ASYNC_SR_SWAP) && swap)
		return -EINVAL;
	return 0;
}

/**
 * ib_async_send_rule_qp - may a request go on a QP of this type?
 * @r: its opcode's rule
 * @qp_type: the QP's
 * @ah_handle: its AH
 * @remote_qpn: its destination QP number
 * @remote_qkey: its destination Q_Key
 *
 * The opcode must be one the QP type takes, and only a UD QP uses the
 * datagram fields. Checked before any request is built: see
 * ib_async_send_rules.h for what a driver does with one that is not.
 *
 * Return: 0 or -EINVAL.
 */
int ib_async_send_rule_qp(const struct ib_async_send_rule *r,
			  enum ib_qp_type qp_type, u32 ah_handle,
			  u32 remote_qpn, u32 remote_qkey)
{
	if ((unsigned int)qp_type >= 32 ||
	    !(r->qp_types & IB_ASYNC_SR_QPT(qp_type)))
		return -EINVAL;
	if (qp_type != IB_QPT_UD && (ah_handle || remote_qpn || remote_qkey))
		return -EINVAL;
	return 0;
}

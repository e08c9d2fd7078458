// SPDX-License-Identifier: GPL-2.0
/* The bodies of iba_send_rules.h's table and helpers. */
#include <errno.h>

#include "iba_send_rules.h"

#define IB_ASYNC_SEND_RULE(op, q, f, fl, k)				\
	[op] = { .qpts = (q), .fields = (f), .flags = (fl), .kind = (k) },
static const struct iba_send_rule send_rules[IB_ASYNC_SR_OPCODE_LAST + 1] = {
#include "../../../include/ib_async_send_rules_table.h"
};

const struct iba_send_rule *iba_send_rule(uint32_t op)
{
	return &send_rules[op <= IB_ASYNC_SR_OPCODE_LAST ? op : 0];
}

int iba_send_rule_expect(uint32_t op, uint32_t qpt)
{
	if (op > IB_ASYNC_SR_OPCODE_LAST)
		return -EINVAL;
	if (send_rules[op].kind == IB_ASYNC_SR_NONE)
		return -EOPNOTSUPP;
	return send_rules[op].qpts & IB_ASYNC_SR_QPT(qpt) ? 0 : -EINVAL;
}

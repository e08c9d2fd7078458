/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's send rules (include/ib_async_send_rules.h, ib_async_send_rules_table.h) as a
 * table indexed by opcode, for the kselftests and the fuzzer, which draw
 * opcode x QP type combinations from it and expect what it says.
 */
#ifndef IBA_SEND_RULES_H
#define IBA_SEND_RULES_H

#include <stdint.h>

#include <rdma/ib_async.h>

#include "../../../include/ib_async_send_rules.h"

/* One row of ib_async_send_rules_table.h */
struct iba_send_rule {
	uint32_t qpts, fields, flags;
	enum ib_async_sr_kind kind;
};

/* @op's row; an opcode beyond the table gets row 0's (SEND's). */
const struct iba_send_rule *iba_send_rule(uint32_t op);

/* What POST_SEND_LIST must answer for @op on a QP of type @qpt. */
int iba_send_rule_expect(uint32_t op, uint32_t qpt);

#endif /* IBA_SEND_RULES_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the data-path tests over registered memory start from: the rxe
 * device's node, a PD, one CQ, two RC QPs on it connected to each other,
 * and anonymous memory registered for local write.
 */
#ifndef IBA_RC_BED_H
#define IBA_RC_BED_H

#include "iba_verbs.h"

struct iba_rc_bed {
	struct iba_dev dev;
	int fd;				/* -1: not open */
	int sgid;			/* the RoCE v2 GID's index */
	uint8_t gid[16];
	uint32_t pd, cq;
	struct ib_async_create_qp a, b;	/* connected to each other */
	char *mem;			/* MAP_FAILED: not mapped */
	size_t mem_len;
	struct ib_async_reg_mr mr;	/* @mem's */
};

/*
 * Open the node of an rxe device that offers every one of @features:
 * 0; 1 when there is none, which the test skips; -errno. Whatever it
 * returns, iba_rc_bed_close() may follow.
 */
int iba_rc_bed_open(struct iba_rc_bed *bed, uint64_t features);

/*
 * Then the rest: a CQ of @cqe entries, A and B with the queue sizes of @qp
 * (its max_* fields; NULL: iba_create_qp()'s) through RTS, and @mem_len
 * bytes registered. 0 or -errno; -EOPNOTSUPP when the node cannot
 * register memory.
 */
int iba_rc_bed_up(struct iba_rc_bed *bed, uint32_t cqe,
		  const struct ib_async_create_qp *qp, size_t mem_len);

/*
 * Another RC QP on the bed's PD and CQ, with @cookie as its user handle
 * and the queue sizes of @sizes (its max_* fields): 0 or -errno.
 */
int iba_rc_bed_qp(struct iba_rc_bed *bed, uint64_t cookie,
		  const struct ib_async_create_qp *sizes,
		  struct ib_async_create_qp *q);

/* Close the node, which destroys what it made, and unmap the memory. */
void iba_rc_bed_close(struct iba_rc_bed *bed);

#endif /* IBA_RC_BED_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CQ's completion ring (IB_ASYNC_IOC_MAP_CQ_RING) as the tests map it:
 * the answer, both mappings, and where the header, the records and the
 * consumer are in them.
 */
#ifndef IBA_CQ_RING_H
#define IBA_CQ_RING_H

#include "iba_ring_map.h"
#include "iba_verbs.h"

struct iba_cq_ring {
	struct ib_async_map_cq_ring m;	/* MAP_CQ_RING's answer */
	struct iba_ring_map map;
	const struct ib_async_cq_ring_header *h;	/* the kernel's */
	const struct ib_async_wc *recs;
	struct ib_async_cq_ring_consumer *c;		/* the program's */
};

/* MAP_CQ_RING of @entries for CQ @cq, no mapping: 0 or -errno. */
int iba_cq_ask(int fd, uint32_t cq, uint32_t entries, struct iba_cq_ring *r);

/* MAP_CQ_RING, then both mappings as the answer says: 0 or -errno. */
int iba_cq_map(int fd, uint32_t cq, uint32_t entries, struct iba_cq_ring *r);

/* Unmap both parts (nothing when not mapped). */
void iba_cq_unmap(struct iba_cq_ring *r);

#endif /* IBA_CQ_RING_H */

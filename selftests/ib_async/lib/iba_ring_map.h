/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ring's two mappings, as MAP_CQ_RING and MAP_WR_RING answer them: the
 * kernel's part (a completion ring's header and records, a submission
 * ring's header), which the program may only read, and the program's (a
 * consumer page, a producer and its slots), which it writes.
 */
#ifndef IBA_RING_MAP_H
#define IBA_RING_MAP_H

#include <stddef.h>
#include <stdint.h>

struct iba_ring_map {
	void *ro;		/* the kernel's part; NULL: not mapped */
	size_t ro_len;
	void *rw;		/* the program's part; NULL: not mapped */
	size_t rw_len;
};

/*
 * Map both parts from the node @fd, shared, at the offsets and of the
 * sizes the answer gave: 0, or -errno with neither mapped.
 */
int iba_ring_map(int fd, uint64_t ro_off, uint64_t ro_len, uint64_t rw_off,
		 uint64_t rw_len, struct iba_ring_map *m);

/* Unmap what @m has mapped (nothing, when unmapped already or never). */
void iba_ring_unmap(struct iba_ring_map *m);

#endif /* IBA_RING_MAP_H */

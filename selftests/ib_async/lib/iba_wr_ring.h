/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A submission ring as a test program drives it: MAP_WR_RING and its two
 * mappings, slots written by hand, the producer moved, the doorbell rung
 * and the kernel's consumer and error read back.
 */
#ifndef IBA_WR_RING_H
#define IBA_WR_RING_H

#include "iba_ring_map.h"
#include "iba_verbs.h"

struct iba_wr_ring {
	struct ib_async_map_wr_ring m;	/* MAP_WR_RING's answer */
	struct iba_ring_map map;
	const struct ib_async_wr_ring_header *h;	/* the kernel's */
	struct ib_async_wr_ring_producer *p;		/* the program's */
	unsigned char *slots;
	int fd;
};

/* MAP_WR_RING for queue @kind of object @handle, no mapping: 0, -errno. */
int iba_wr_ask(int fd, uint32_t type, uint32_t handle, uint32_t kind,
	       uint32_t entries, struct iba_wr_ring *r);

/* MAP_WR_RING, then both mappings as the answer says: 0, -errno. */
int iba_wr_map(int fd, uint32_t type, uint32_t handle, uint32_t kind,
	       uint32_t entries, struct iba_wr_ring *r);

/* Unmap both parts (nothing when not mapped). */
void iba_wr_unmap(struct iba_wr_ring *r);

/* Slot @i (any count: it wraps), and its scatter/gather entries. */
unsigned char *iba_wr_slot(const struct iba_wr_ring *r, uint32_t i);
struct ib_async_sge *iba_wr_sges(const struct iba_wr_ring *r, uint32_t i);

/* The kernel's consumer (acquire), and its error word. */
uint32_t iba_wr_consumed(const struct iba_wr_ring *r);
uint32_t iba_wr_error(const struct iba_wr_ring *r);

/* The producer at @v, after the slots before it (release). */
void iba_wr_produce(struct iba_wr_ring *r, uint32_t v);

/* The doorbell, its value the argument itself: 0 or -errno. */
int iba_wr_doorbell(const struct iba_wr_ring *r);

/* Slot @i of a receive ring: @len bytes at @addr through @lkey. */
void iba_wr_put_recv(struct iba_wr_ring *r, uint32_t i, uint64_t wr_id,
		     uint64_t addr, uint32_t len, uint32_t lkey);

/* Slot @i of a send ring: a signalled SEND of @len bytes at @addr. */
void iba_wr_put_send(struct iba_wr_ring *r, uint32_t i, uint64_t wr_id,
		     uint64_t addr, uint32_t len, uint32_t lkey);

/* The same on a UD QP: to @qpn through AH @ah, with Q_Key @qkey. */
void iba_wr_put_ud_send(struct iba_wr_ring *r, uint32_t i, uint64_t wr_id,
			uint64_t addr, uint32_t len, uint32_t lkey,
			uint32_t ah, uint32_t qpn, uint32_t qkey);

#endif /* IBA_WR_RING_H */

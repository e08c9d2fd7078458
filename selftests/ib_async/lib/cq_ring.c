// SPDX-License-Identifier: GPL-2.0
/* The bodies of iba_cq_ring.h's helpers. */
#include <string.h>

#define IBA_NO_HARNESS
#include "iba_cq_ring.h"

int iba_cq_ask(int fd, uint32_t cq, uint32_t entries, struct iba_cq_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->m.argsz = sizeof(r->m);
	r->m.handle = cq;
	r->m.entries = entries;
	return iba_ioc(fd, IB_ASYNC_IOC_MAP_CQ_RING, &r->m);
}

int iba_cq_map(int fd, uint32_t cq, uint32_t entries, struct iba_cq_ring *r)
{
	int ret = iba_cq_ask(fd, cq, entries, r) ?:
		  iba_ring_map(fd, r->m.mmap_offset, r->m.mmap_size,
			       r->m.consumer_offset, r->m.consumer_size,
			       &r->map);

	if (ret)
		return ret;
	r->h = r->map.ro;
	r->c = r->map.rw;
	r->recs = (const void *)((const char *)r->h + r->h->records_offset);
	return 0;
}

void iba_cq_unmap(struct iba_cq_ring *r)
{
	iba_ring_unmap(&r->map);
	r->h = NULL;
	r->c = NULL;
}

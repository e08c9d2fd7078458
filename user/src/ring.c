// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Mapped event rings (IB_ASYNC_IOC_MAP_RING): the kernel publishes
 * records into memory shared with the program, which takes them with
 * plain loads and stores instead of a system call per batch. The kernel
 * writes the producer count and the records, the library the consumer
 * count; each ring has exactly one consumer at a time, the caller's lock
 * (the context's ev_lock, a channel's lock) makes sure of it.
 *
 * Both kinds of record (struct ib_async_event on the node, struct
 * ib_async_chan_event on a channel) begin with a struct ib_async_event,
 * so finding and skipping an object's records works the same on both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "ibasync.h"

/*
 * IBASYNC_NO_RING set to a non-empty value: stay on read() and
 * READ_BATCH, to compare the two paths or to work around a ring problem.
 */
bool ibasync_ring_disabled(void)
{
	const char *env = getenv(IBASYNC_NO_RING_ENV);

	return env && *env;
}

int ibasync_ring_request(int fd, uint32_t entries, struct ib_async_map_ring *m)
{
	memset(m, 0, sizeof(*m));
	m->argsz = sizeof(*m);
	m->entries = entries;
	return ioctl(fd, IB_ASYNC_IOC_MAP_RING, m) ? -1 : 0;
}

/*
 * Map the ring @m describes and check its header against it, so that no
 * index computed later can leave the mapping whatever the header says.
 * @rec_size is what the library reads of each record: the ring's records
 * may be larger (a newer kernel), never smaller, and are 8-byte aligned
 * as their 64-bit fields need.
 */
int ibasync_ring_mmap(int fd, const struct ib_async_map_ring *m,
		      size_t rec_size, struct ibasync_ring *r)
{
	const struct ib_async_ring_header *h;
	uint64_t end;
	void *p;

	if (m->mmap_size < IB_ASYNC_RING_HEADER_SIZE_V1 ||
	    m->mmap_size > SIZE_MAX) {
		errno = EPROTO;
		return -1;
	}
	p = mmap(NULL, (size_t)m->mmap_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, (off_t)m->mmap_offset);
	if (p == MAP_FAILED)
		return -1;
	h = p;
	end = (uint64_t)h->records_offset +
	      (uint64_t)h->entries * h->record_size;
	if (!h->entries || h->entries & (h->entries - 1) ||
	    h->entries != m->entries || h->record_size < rec_size ||
	    h->records_offset < IB_ASYNC_RING_HEADER_SIZE_V1 ||
	    (h->records_offset | h->record_size) % 8 || end > m->mmap_size) {
		munmap(p, (size_t)m->mmap_size);
		errno = EPROTO;
		return -1;
	}
	r->hdr = p;
	r->map_size = (size_t)m->mmap_size;
	r->records = (unsigned char *)p + h->records_offset;
	r->mask = h->entries - 1;
	r->record_size = h->record_size;
	return 0;
}

void ibasync_ring_unmap(struct ibasync_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_size);
	r->hdr = NULL;
}

/*
 * Mark the unconsumed records of a destroyed object so that nobody takes
 * them: they were delivered as far as the kernel is concerned, only the
 * library can still keep them from the program. The kernel writes no
 * slot in [consumer, producer), so the store cannot race with it.
 * Returns how many were marked.
 */
uint32_t ibasync_ring_mark(struct ibasync_ring *r, uint32_t obj_type,
			   uint32_t handle)
{
	uint32_t cons, avail = ibasync_ring_avail(r, &cons), marked = 0;

	while (avail--) {
		struct ib_async_event *e = ibasync_ring_rec(r, cons++);

		if (e->event_type != IBASYNC_RING_SKIP &&
		    e->event_type != IB_ASYNC_EV_OVERFLOW &&
		    e->obj_type == obj_type && e->obj_handle == handle) {
			e->event_type = IBASYNC_RING_SKIP;
			marked++;
		}
	}
	return marked;
}

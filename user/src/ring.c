// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Mapped event rings (IB_ASYNC_IOC_MAP_RING): the kernel publishes
 * records into memory shared with the program, which takes them with
 * plain loads and stores instead of a system call per batch. The kernel
 * writes the producer count and the records, the library the consumer
 * count. In a process the caller's lock (the context's ev_lock, a
 * channel's lock) makes one thread at a time the ring's consumer; after
 * fork() two processes may share a ring, and each claims what it read
 * with a compare-and-swap of the consumer count (ibasync_ring_claim()).
 *
 * Both kinds of record (struct ib_async_event on the node, struct
 * ib_async_chan_event on a channel) begin with a struct ib_async_event,
 * so finding and skipping an object's records works the same on both.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
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

uint32_t ibasync_fork_gen;

/*
 * The child of fork() has no mapping of its parent's rings: the kernel
 * marks them VM_DONTCOPY, as a child must not inherit pages the parent
 * shares with the kernel. The child may still use the contexts and
 * channels it inherited (their descriptors are shared, as an ib_uverbs
 * async descriptor would be), so each ring notices the new generation
 * at its next use and is mapped again. Runs in the child alone, before
 * fork() returns there.
 */
static void ring_forked(void)
{
	__atomic_add_fetch(&ibasync_fork_gen, 1, __ATOMIC_RELAXED);
}

bool ibasync_forked;

/*
 * Runs in the parent before fork(): from here on, in the parent and in
 * every child, a ring or a queue may have a consumer in another process:
 * ring records are claimed by compare-and-swap (ibasync_ring_claim()),
 * and a queue read in batches goes over to read() (events.c). A take
 * that began before, in another thread, holds the ring's lock through the
 * fork, so the child cannot take from that ring (its copy of the lock is
 * held, as with any lock across fork() in a threaded program).
 */
static void ring_forking(void)
{
	__atomic_store_n(&ibasync_forked, true, __ATOMIC_SEQ_CST);
}

static pthread_once_t ring_fork_once = PTHREAD_ONCE_INIT;

static void ring_watch_forks(void)
{
	/* fails only without memory: the child would fault, not misuse */
	if (pthread_atfork(ring_forking, NULL, ring_forked))
		abort();
}

/* From here on, fork() sets ibasync_forked and moves ibasync_fork_gen. */
void ibasync_watch_forks(void)
{
	pthread_once(&ring_fork_once, ring_watch_forks);
}

/*
 * ibasync_ring_take() once a fork() came: another process may claim the
 * records read first; then they are read again, from where it left the
 * consumer count. A claim of only skipped records that succeeds moves on
 * as well.
 */
bool ibasync_ring_take_shared(struct ibasync_ring *r, void *rec, size_t size)
{
	uint32_t from, cons, avail;
	bool got;

	for (;;) {
		avail = ibasync_ring_avail(r, &from);
		if (!avail)
			return false;
		cons = ibasync_ring_read(r, rec, size, from, avail, &got);
		if (ibasync_ring_claim(r, from, cons) && got)
			return true;
	}
}

/*
 * Map @size bytes at @offset of @fd and check the header found there, so
 * that no index computed later can leave the mapping whatever the header
 * says. @entries is what MAP_RING answered. @rec_size is what the library
 * reads of each record: the ring's records may be larger (a newer
 * kernel), never smaller, and are 8-byte aligned as their 64-bit fields
 * need.
 */
static int ring_map(int fd, uint64_t offset, uint64_t size, uint32_t entries,
		    size_t rec_size, struct ibasync_ring *r)
{
	const struct ib_async_ring_header *h;
	uint64_t end;
	void *p;

	if (size < IB_ASYNC_RING_HEADER_SIZE_V1 || size > SIZE_MAX) {
		errno = EPROTO;
		return -1;
	}
	p = ibasync_cmd_mmap_ring(fd, offset, (size_t)size);
	if (!p)
		return -1;
	h = p;
	end = (uint64_t)h->records_offset +
	      (uint64_t)h->entries * h->record_size;
	if (!h->entries || h->entries & (h->entries - 1) ||
	    h->entries != entries || h->record_size < rec_size ||
	    h->records_offset < IB_ASYNC_RING_HEADER_SIZE_V1 ||
	    (h->records_offset | h->record_size) % 8 || end > size) {
		ibasync_cmd_munmap_ring(p, (size_t)size);
		errno = EPROTO;
		return -1;
	}
	r->hdr = p;
	r->map_size = (size_t)size;
	r->records = (unsigned char *)p + h->records_offset;
	r->mask = h->entries - 1;
	r->record_size = h->record_size;
	r->fd = fd;
	r->map_offset = offset;
	r->rec_size = rec_size;
	return 0;
}

/* Map the ring MAP_RING described in @m. */
int ibasync_ring_mmap(int fd, const struct ib_async_map_ring *m,
		      size_t rec_size, struct ibasync_ring *r)
{
	ibasync_watch_forks();
	r->remap_err = 0;
	/* a fork() after this load finds the ring stale: mapped again */
	r->gen = __atomic_load_n(&ibasync_fork_gen, __ATOMIC_RELAXED);
	return ring_map(fd, m->mmap_offset, m->mmap_size, m->entries,
			rec_size, r);
}

/*
 * ibasync_ring_check() found @r mapped before a fork(): map it again in
 * this process, the same ring of the same descriptor. The old address
 * is not ours any more (nothing is mapped there, or something else is
 * by now), so it is never unmapped or touched. Failing, @r stays stale
 * for good, and each later use fails the same way: a ring that came back
 * later would hand out records a destroy could not mark meanwhile.
 */
int ibasync_ring_remap(struct ibasync_ring *r)
{
	uint32_t gen = __atomic_load_n(&ibasync_fork_gen, __ATOMIC_RELAXED);
	struct ibasync_ring n;

	if (r->remap_err)
		goto fail;
	if (ring_map(r->fd, r->map_offset, r->map_size, r->mask + 1,
		     r->rec_size, &n)) {
		r->remap_err = errno;
		goto fail;
	}
	/* the kernel never changes a ring's shape: a different one is not it */
	if (n.record_size != r->record_size) {
		ibasync_cmd_munmap_ring(n.hdr, n.map_size);
		r->remap_err = EPROTO;
		goto fail;
	}
	n.gen = gen;
	n.remap_err = 0;
	*r = n;
	return 0;
fail:
	errno = r->remap_err;
	return -1;
}

void ibasync_ring_unmap(struct ibasync_ring *r)
{
	/* a ring of the parent's generation is not mapped here */
	if (r->hdr && r->gen == __atomic_load_n(&ibasync_fork_gen,
						 __ATOMIC_RELAXED))
		ibasync_cmd_munmap_ring(r->hdr, r->map_size);
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

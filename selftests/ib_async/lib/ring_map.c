// SPDX-License-Identifier: GPL-2.0
/* The bodies of iba_ring_map.h's helpers. */
#include <errno.h>
#include <sys/mman.h>

#include "iba_ring_map.h"

int iba_ring_map(int fd, uint64_t ro_off, uint64_t ro_len, uint64_t rw_off,
		 uint64_t rw_len, struct iba_ring_map *m)
{
	void *ro, *rw;
	int ret;

	ro = mmap(NULL, ro_len, PROT_READ, MAP_SHARED, fd, (off_t)ro_off);
	if (ro == MAP_FAILED)
		return -errno;
	rw = mmap(NULL, rw_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  (off_t)rw_off);
	if (rw == MAP_FAILED) {
		ret = -errno;
		munmap(ro, ro_len);
		return ret;
	}
	*m = (struct iba_ring_map){ ro, ro_len, rw, rw_len };
	return 0;
}

void iba_ring_unmap(struct iba_ring_map *m)
{
	if (m->ro)
		munmap(m->ro, m->ro_len);
	if (m->rw)
		munmap(m->rw, m->rw_len);
	m->ro = NULL;
	m->rw = NULL;
}

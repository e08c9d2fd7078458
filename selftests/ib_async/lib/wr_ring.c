// SPDX-License-Identifier: GPL-2.0
/* The bodies of iba_wr_ring.h's helpers. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#define IBA_NO_HARNESS
#include "iba_wr_ring.h"

int iba_wr_ask(int fd, uint32_t type, uint32_t handle, uint32_t kind,
	       uint32_t entries, struct iba_wr_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->m.argsz = sizeof(r->m);
	r->m.obj_type = type;
	r->m.handle = handle;
	r->m.kind = kind;
	r->m.entries = entries;
	return iba_ioc(fd, IB_ASYNC_IOC_MAP_WR_RING, &r->m);
}

int iba_wr_map(int fd, uint32_t type, uint32_t handle, uint32_t kind,
	       uint32_t entries, struct iba_wr_ring *r)
{
	int ret = iba_wr_ask(fd, type, handle, kind, entries, r) ?:
		  iba_ring_map(fd, r->m.mmap_offset, r->m.mmap_size,
			       r->m.slots_mmap_offset, r->m.slots_mmap_size,
			       &r->map);

	if (ret)
		return ret;
	r->h = r->map.ro;
	r->p = r->map.rw;
	r->slots = (unsigned char *)r->map.rw + r->m.slots_offset;
	return 0;
}

void iba_wr_unmap(struct iba_wr_ring *r)
{
	iba_ring_unmap(&r->map);
	r->h = NULL;
	r->p = NULL;
}

unsigned char *iba_wr_slot(const struct iba_wr_ring *r, uint32_t i)
{
	return r->slots + (size_t)(i & (r->m.entries - 1)) * r->m.slot_size;
}

struct ib_async_sge *iba_wr_sges(const struct iba_wr_ring *r, uint32_t i)
{
	size_t wr = r->m.kind == IB_ASYNC_WR_RING_SEND ?
		    sizeof(struct ib_async_send_wr) :
		    sizeof(struct ib_async_recv_wr);

	return (struct ib_async_sge *)(iba_wr_slot(r, i) + wr);
}

uint32_t iba_wr_consumed(const struct iba_wr_ring *r)
{
	return __atomic_load_n(&r->h->consumer, __ATOMIC_ACQUIRE);
}

uint32_t iba_wr_error(const struct iba_wr_ring *r)
{
	return __atomic_load_n(&r->h->error, __ATOMIC_RELAXED);
}

void iba_wr_produce(struct iba_wr_ring *r, uint32_t v)
{
	__atomic_store_n(&r->p->producer, v, __ATOMIC_RELEASE);
}

int iba_wr_doorbell(const struct iba_wr_ring *r)
{
	return ioctl(r->fd, IB_ASYNC_IOC_WR_DOORBELL,
		     (unsigned long)r->m.doorbell) ? -errno : 0;
}

void iba_wr_put_recv(struct iba_wr_ring *r, uint32_t i, uint64_t wr_id,
		     uint64_t addr, uint32_t len, uint32_t lkey)
{
	struct ib_async_recv_wr w = { .wr_id = wr_id, .num_sge = 1 };

	memcpy(iba_wr_slot(r, i), &w, sizeof(w));
	iba_wr_sges(r, i)[0] = (struct ib_async_sge){ addr, len, lkey };
}

void iba_wr_put_send(struct iba_wr_ring *r, uint32_t i, uint64_t wr_id,
		     uint64_t addr, uint32_t len, uint32_t lkey)
{
	iba_wr_put_ud_send(r, i, wr_id, addr, len, lkey, 0, 0, 0);
}

void iba_wr_put_ud_send(struct iba_wr_ring *r, uint32_t i, uint64_t wr_id,
			uint64_t addr, uint32_t len, uint32_t lkey,
			uint32_t ah, uint32_t qpn, uint32_t qkey)
{
	struct ib_async_send_wr w = {
		.wr_id = wr_id, .num_sge = 1, .opcode = IB_UVERBS_WR_SEND,
		.send_flags = IB_ASYNC_SEND_SIGNALED, .ah_handle = ah,
		.remote_qpn = qpn, .remote_qkey = qkey,
	};

	memcpy(iba_wr_slot(r, i), &w, sizeof(w));
	iba_wr_sges(r, i)[0] = (struct ib_async_sge){ addr, len, lkey };
}

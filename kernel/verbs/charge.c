// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What a verbs object's queues cost, and charging it to the opener.
 *
 * ib_uverbs puts a user object's CQ, QP and SRQ rings in user memory that
 * the provider allocates and ib_umem pins against RLIMIT_MEMLOCK. Kernel
 * verbs objects have them in kernel memory instead (rxe: vmalloc_user()
 * rings; mlx5: DMA-coherent fragments and kvmalloc() arrays), which
 * nothing else bounds: the sizes a caller asks for are limited only by
 * the device. So each object is charged, to the same locked-memory budget
 * as the file's event queue and data path (account.c), an estimate of its
 * queues made from the sizes asked for, before the driver allocates
 * anything: a create past the budget allocates nothing.
 *
 * The estimate rounds as the drivers do (entries to a power of two with
 * one slot spare, each entry to a power of two of at least a cache line,
 * each ring to whole pages) and uses per-entry sizes no smaller than
 * rxe's or mlx5's in 6.1. What the driver grants beyond it is charged
 * once the object exists (ib_async_verbs_charge_to()).
 */
#include <linux/bitops.h>
#include <linux/overflow.h>

#include "verbs.h"

/*
 * A completion entry: rxe's struct rxe_cqe is a union of struct ib_wc
 * (72 bytes on 64-bit) and struct ib_uverbs_wc (48), which
 * rxe_queue_init() pads to a power of two; mlx5's kernel CQs use 64-byte
 * CQEs, 128-byte ones on machines with 128-byte cache lines
 * (mlx5_ib_create_cq()).
 */
#define IB_ASYNC_CQE_BYTES	128
/*
 * The fixed part of a send WQE: rxe's struct rxe_send_wqe (208 bytes,
 * <rdma/rdma_user_rxe.h>). mlx5's largest fixed part is smaller (an RC
 * QP's control segment and UMR control and mkey segments, 132 bytes,
 * sq_overhead()); the difference covers its inline segment header
 * (4 bytes) and its per-WQE kvmalloc() arrays (wrid, wr_data, w_list,
 * wqe_head: 20 bytes).
 */
#define IB_ASYNC_SEND_WQE_HDR	208
/*
 * The fixed part of a receive WQE of a QP, SRQ or WQ: rxe's struct
 * rxe_recv_wqe (40 bytes, rcv_wqe_size()); mlx5 has none for a QP's
 * receive queue and a 16-byte next segment for an SRQ's, plus an 8-byte
 * wrid per entry.
 */
#define IB_ASYNC_RECV_WQE_HDR	40
/* A gather entry: struct ib_sge in rxe, struct mlx5_wqe_data_seg: 16. */
#define IB_ASYNC_SGE_BYTES	16
/*
 * rxe pads entries to a cache line, mlx5 send WQEs to its 64-byte basic
 * block (MLX5_SEND_WQE_BB).
 */
#define IB_ASYNC_MIN_ENTRY	64
/* rxe's ring header, struct rxe_queue_buf: 384 bytes before the entries. */
#define IB_ASYNC_RING_HDR	384
/*
 * No estimate goes beyond this (64 TiB, far past any device's rings), so
 * sums of estimates cannot overflow even when nothing limits them.
 */
#define IB_ASYNC_CHARGE_MAX	BIT_ULL(46)

/* The power of two at or above @x, for any @x up to 2^63. */
static u64 ib_async_pow2(u64 x)
{
	return x <= 1 ? 1 : BIT_ULL(fls64(x - 1));
}

/*
 * A ring of @n usable entries of @entry bytes: one slot spare, as rxe
 * keeps it and mlx5's CQs do; whole pages, as vmalloc_user() and mlx5's
 * fragment buffers allocate.
 */
static u64 ib_async_ring_bytes(u32 n, u64 entry)
{
	u64 bytes;

	entry = ib_async_pow2(max_t(u64, entry, IB_ASYNC_MIN_ENTRY));
	if (check_mul_overflow(ib_async_pow2((u64)n + 1), entry, &bytes) ||
	    bytes > IB_ASYNC_CHARGE_MAX)
		return IB_ASYNC_CHARGE_MAX;
	return PAGE_ALIGN(bytes + IB_ASYNC_RING_HDR);
}

static u64 ib_async_recv_ring_bytes(u32 wr, u32 sge)
{
	return ib_async_ring_bytes(wr, IB_ASYNC_RECV_WQE_HDR +
				   (u64)sge * IB_ASYNC_SGE_BYTES);
}

/* A CQ: one ring of completions. */
u64 ib_async_cq_bytes(const struct ib_async_queue_sizes *s)
{
	return ib_async_ring_bytes(s->cqe, IB_ASYNC_CQE_BYTES);
}

/*
 * Both drivers put inline data where the gather list goes, so a send
 * WQE holds the larger of the two; a QP on an SRQ has no receive ring.
 */
u64 ib_async_qp_bytes(const struct ib_async_queue_sizes *s)
{
	u64 data = max_t(u64, (u64)s->max_send_sge * IB_ASYNC_SGE_BYTES,
			 s->max_inline_data);
	u64 bytes = ib_async_ring_bytes(s->max_send_wr,
					IB_ASYNC_SEND_WQE_HDR + data);

	if (!s->srq)
		bytes += ib_async_recv_ring_bytes(s->max_recv_wr,
						  s->max_recv_sge);
	return bytes;
}

/* An SRQ or a receive WQ: one receive ring. */
u64 ib_async_rq_bytes(const struct ib_async_queue_sizes *s)
{
	return ib_async_recv_ring_bytes(s->max_recv_wr, s->max_recv_sge);
}

/**
 * ib_async_verbs_charge - charge queue memory to an object's file
 * @uobj: the object that holds it
 * @bytes: how much more
 *
 * Return: 0, or -ENOMEM past the opener's RLIMIT_MEMLOCK (nothing
 * charged).
 */
int ib_async_verbs_charge(struct ib_async_uobj *uobj, u64 bytes)
{
	struct ib_async_file *file = uobj->file;
	int ret;

	lockdep_assert_held(&file->obj_mutex);
	ret = ib_async_account_add(file, bytes);
	if (ret)
		return ret;
	uobj->charged += bytes;
	file->verbs->verbs_bytes += bytes;
	return 0;
}

/**
 * ib_async_verbs_uncharge - give back what ib_async_verbs_charge() took
 * @uobj: the object
 * @bytes: how much of its charge
 */
void ib_async_verbs_uncharge(struct ib_async_uobj *uobj, u64 bytes)
{
	struct ib_async_file *file = uobj->file;

	lockdep_assert_held(&file->obj_mutex);
	if (WARN_ON_ONCE(bytes > uobj->charged))
		bytes = uobj->charged;
	ib_async_account_sub(file, bytes);
	uobj->charged -= bytes;
	file->verbs->verbs_bytes -= bytes;
}

/**
 * ib_async_verbs_charge_to - raise an object's charge to what it holds
 * @uobj: the object, just made or resized by the driver
 * @bytes: the cost of what the driver granted
 *
 * A driver may grant more than was asked for (rounding, minimums): the
 * difference is charged too, or refused; a charge already larger stays.
 *
 * Return: 0, or -ENOMEM past the budget (the charge unchanged).
 */
int ib_async_verbs_charge_to(struct ib_async_uobj *uobj, u64 bytes)
{
	if (bytes <= uobj->charged)
		return 0;
	return ib_async_verbs_charge(uobj, bytes - uobj->charged);
}

/**
 * ib_async_verbs_resized - settle a resize's charges once the driver did it
 * @uobj: the object
 * @old: what it was charged before the resize
 * @new: what was charged, beside @old, for the size asked
 * @granted: the cost of the size the driver granted
 *
 * A resize charges the new size before the driver allocates it, beside
 * the old one, which is released once the resize succeeded: first what
 * the driver granted beyond @new is charged.
 *
 * Return: 0 (@old released), or -ENOMEM if the budget refuses what was
 * granted beyond: nothing changed, the caller resizes back.
 */
int ib_async_verbs_resized(struct ib_async_uobj *uobj, u64 old, u64 new,
			   u64 granted)
{
	int ret;

	if (granted > new) {
		ret = ib_async_verbs_charge(uobj, granted - new);
		if (ret)
			return ret;
	}
	ib_async_verbs_uncharge(uobj, old);
	return 0;
}

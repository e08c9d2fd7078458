// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The data path over registered memory: IB_ASYNC_IOC_POST_SEND_LIST and
 * IB_ASYNC_IOC_POST_RECV_LIST, and the slots of a submission ring
 * (wr_ring.c), which share everything here but where the requests are
 * loaded from.
 *
 * A call's work requests and their scatter/gather entries are copied in
 * before any lock is taken (so is inline data, below), checked completely
 * under the locks (the file's dp_rwsem for reading, and the QP's or SRQ's
 * own: posts to one queue are ordered, to two run at once), and posted as
 * one chain. A ring's slots arrive already
 * copied into kernel memory (struct ib_async_slots), under the locks; they
 * are checked by the same functions, in order, and where a list fails
 * whole, a ring's batch ends at the first request refused: those before
 * it are posted and the refusal is the ring's error. The device then reads and
 * writes the caller's memory itself, through the keys of the file's own
 * MRs (mr.c): every lkey is checked against them, so an lkey of another
 * file, of a kernel user, or a device's reserved lkey never reaches the
 * device; each entry must lie within its MR, on the PD of the QP or SRQ,
 * with local write access where the device writes.
 *
 * Inline data: drivers copy the inline data of a kernel work request from
 * kernel addresses while it is posted, so it is read from the caller into
 * a kernel buffer first, and the entries point there.
 *
 * Every request is tracked as on the kernel-buffer path (struct
 * ib_async_wr): the device carries the request's id, never the caller's
 * wr_id, so completions are matched, returned and settled at QP destroy
 * exactly as there.
 */
#include <linux/bottom_half.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "verbs.h"
#include "wr.h"

/* Inline bytes one call may carry. */
#define IB_ASYNC_POST_MAX_INLINE	SZ_64K
/* The largest work request element a caller may describe. */
#define IB_ASYNC_POST_MAX_WR_SIZE	256

union ib_async_kwr {
	struct ib_send_wr wr;
	struct ib_rdma_wr rdma;
	struct ib_atomic_wr atomic;
	struct ib_ud_wr ud;
};

/* Inline bytes carried in struct ib_async_post itself. */
#define IB_ASYNC_POST_SMALL_INLINE	64

/**
 * struct ib_async_post - one call's work requests
 * @file: the file they are posted on
 * @send: a send list (else receives)
 * @ring: a ring's slots: a refused request ends the batch (@count becomes
 *	its index, @stop_err its error) rather than failing the call
 * @count: work requests still to be posted
 * @ntr: work requests allocated, tracking included (@count or more)
 * @stop_err: a ring's: why request @count was refused, or 0
 * @nsge: scatter/gather entries
 * @swrs: send requests as the caller gave them
 * @rwrs: receive requests as the caller gave them
 * @usges: the caller's entries
 * @sges: the entries the device gets
 * @kswr: send requests for the device
 * @krwr: receive requests for the device
 * @tr: their tracking
 * @inl: inline data, read from the caller
 * @mem: the one allocation the arrays above are carved from
 * @scratch: a ring's memory to carve them from instead (@mem is then it)
 * @inl_small: @inl when the call's inline data fits
 */
struct ib_async_post {
	struct ib_async_file *file;
	bool send;
	bool ring;
	u32 count;
	u32 ntr;
	int stop_err;
	u32 nsge;
	struct ib_async_send_wr *swrs;
	struct ib_async_recv_wr *rwrs;
	struct ib_async_sge *usges;
	struct ib_sge *sges;
	union ib_async_kwr *kswr;
	struct ib_recv_wr *krwr;
	struct ib_async_wr **tr;
	u8 *inl;
	void *mem;
	void *scratch;
	u8 inl_small[IB_ASYNC_POST_SMALL_INLINE] __aligned(8);
};

static void ib_async_post_free(struct ib_async_post *p)
{
	u32 i;

	if (p->tr)
		for (i = 0; i < p->ntr; i++)
			if (p->tr[i])
				ib_async_wr_put(p->file, p->tr[i]);
	if (p->mem != p->scratch)
		kvfree(p->mem);
	if (p->inl != p->inl_small)
		kvfree(p->inl);
}

/* The next @n elements of @size from *@cur, which moves past them. */
static void *ib_async_post_carve(u8 **cur, u32 n, size_t size)
{
	void *a = *cur;

	*cur += ALIGN(n * size, sizeof(u64));
	return a;
}

/* The bytes of a post's arrays: @count requests, @nsge entries in all. */
static size_t ib_async_post_mem_size(bool send, size_t count, size_t nsge)
{
	size_t uwr = send ? sizeof(struct ib_async_send_wr) :
			    sizeof(struct ib_async_recv_wr);
	size_t kwr = send ? sizeof(union ib_async_kwr) :
			    sizeof(struct ib_recv_wr);
	size_t n8 = sizeof(u64);

	return ALIGN(count * uwr, n8) + ALIGN(count * kwr, n8) +
	       ALIGN(count * sizeof(struct ib_async_wr *), n8) +
	       ALIGN(nsge * sizeof(struct ib_async_sge), n8) +
	       ALIGN(nsge * sizeof(struct ib_sge), n8);
}

/**
 * ib_async_post_scratch_size - what a ring lends each batch of its slots
 * @send: send slots (else receives)
 * @count: slots in a batch at most
 * @max_sge: entries a slot holds
 *
 * Return: the bytes of struct ib_async_slots' @scratch that
 * ib_async_post_slots() carves a batch's arrays from.
 */
size_t ib_async_post_scratch_size(bool send, u32 count, u32 max_sge)
{
	return ib_async_post_mem_size(send, count, (size_t)count * max_sge);
}

/*
 * All of a call's arrays in one zeroed allocation, or carved from a
 * ring's scratch: a post of one request costs one allocation here, not
 * one per array, and a doorbell none. @count and @nsge are bounded
 * (IB_ASYNC_POST_MAX_WRS, IB_ASYNC_POST_MAX_SGES; a ring's batch and
 * slots), so the sums cannot overflow.
 */
static int ib_async_post_alloc(struct ib_async_post *p)
{
	size_t uwr = p->send ? sizeof(*p->swrs) : sizeof(*p->rwrs);
	size_t kwr = p->send ? sizeof(*p->kswr) : sizeof(*p->krwr);
	size_t size = ib_async_post_mem_size(p->send, p->count, p->nsge);
	u8 *cur;

	p->ntr = p->count;
	if (p->scratch) {
		memset(p->scratch, 0, size);
		p->mem = p->scratch;
	} else {
		p->mem = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	}
	if (!p->mem)
		return -ENOMEM;
	cur = p->mem;
	if (p->send) {
		p->swrs = ib_async_post_carve(&cur, p->count, uwr);
		p->kswr = ib_async_post_carve(&cur, p->count, kwr);
	} else {
		p->rwrs = ib_async_post_carve(&cur, p->count, uwr);
		p->krwr = ib_async_post_carve(&cur, p->count, kwr);
	}
	p->tr = ib_async_post_carve(&cur, p->count, sizeof(*p->tr));
	p->usges = ib_async_post_carve(&cur, p->nsge, sizeof(*p->usges));
	p->sges = ib_async_post_carve(&cur, p->nsge, sizeof(*p->sges));
	return 0;
}

/* Copy @count elements of the caller's size @usize into @ksize ones. */
static int ib_async_copy_elems(void *dst, size_t ksize, u64 src, u32 usize,
			       u32 count)
{
	void __user *usrc = u64_to_user_ptr(src);
	u32 i;
	int ret;

	if (usize == ksize)
		return copy_from_user(dst, usrc, ksize * count) ? -EFAULT : 0;
	for (i = 0; i < count; i++) {
		ret = copy_struct_from_user(dst + i * ksize, ksize,
					    usrc + (size_t)i * usize, usize);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Request @i is refused with @err. A list fails whole; a ring's batch ends
 * before it, the requests ahead of it still to be posted.
 */
static int ib_async_post_stop(struct ib_async_post *p, u32 i, int err)
{
	if (!p->ring)
		return err;
	p->count = i;
	p->stop_err = err;
	return 0;
}

/* A request's entries. */
static u32 ib_async_post_nsge(const struct ib_async_post *p, u32 i)
{
	return p->send ? p->swrs[i].num_sge : p->rwrs[i].num_sge;
}

/*
 * What needs no QP (ib_async_send_rules.h): an opcode with a kernel equivalent, its
 * flags, zero in the fields it does not use, an atomic's one entry.
 */
static int ib_async_check_send_wr(const struct ib_async_send_wr *w)
{
	const struct ib_async_send_rule *r = ib_async_send_rule(w->opcode);

	if (IS_ERR(r))
		return PTR_ERR(r);
	if ((r->fields & IB_ASYNC_SR_ONE_U64) && w->num_sge != 1)
		return -EINVAL;
	return ib_async_send_rule_fields(r, w->send_flags,
					 (__force u32)w->imm_data,
					 w->remote_addr, w->rkey,
					 w->compare_add, w->swap);
}

/* Does the device write into a send's local memory? */
static bool ib_async_send_writes(u32 opcode)
{
	const struct ib_async_send_rule *r = ib_async_send_rule(opcode);

	return !IS_ERR(r) && (r->fields & IB_ASYNC_SR_WRITES);
}

/* Read inline data into @p->inl and point its entries there. */
static int ib_async_read_inline(struct ib_async_post *p)
{
	size_t total = 0, off = 0;
	u32 i, j, s = 0;

	for (i = 0; i < p->count; i++) {
		for (j = 0; j < p->swrs[i].num_sge; j++)
			if (p->swrs[i].send_flags & IB_ASYNC_SEND_INLINE)
				total += p->usges[s + j].length;
		s += p->swrs[i].num_sge;
	}
	if (!total)
		return 0;
	if (total > IB_ASYNC_POST_MAX_INLINE)
		return -EINVAL;
	if (total <= sizeof(p->inl_small))
		p->inl = p->inl_small;
	else
		p->inl = kvmalloc(total, GFP_KERNEL_ACCOUNT);
	if (!p->inl)
		return -ENOMEM;
	for (i = 0, s = 0; i < p->count; s += p->swrs[i].num_sge, i++) {
		if (!(p->swrs[i].send_flags & IB_ASYNC_SEND_INLINE))
			continue;
		for (j = s; j < s + p->swrs[i].num_sge; j++) {
			const struct ib_async_sge *us = &p->usges[j];

			if (copy_from_user(p->inl + off,
					   u64_to_user_ptr(us->addr),
					   us->length))
				return -EFAULT;
			p->sges[j].addr = (uintptr_t)(p->inl + off);
			p->sges[j].length = us->length;
			off += us->length;
		}
	}
	return 0;
}

/*
 * What needs no lock, for every request, in order: its reserved field or
 * its opcode's rules, an atomic's one 8-byte entry; and the device's copy
 * of the entries.
 */
static int ib_async_post_check_wrs(struct ib_async_post *p)
{
	u32 i, s = 0;
	int ret;

	for (i = 0; i < p->nsge; i++) {
		p->sges[i].addr = p->usges[i].addr;
		p->sges[i].length = p->usges[i].length;
		p->sges[i].lkey = p->usges[i].lkey;
	}
	for (i = 0; i < p->count; s += ib_async_post_nsge(p, i), i++) {
		if (!p->send) {
			if (p->rwrs[i].reserved)
				return ib_async_post_stop(p, i, -EINVAL);
			continue;
		}
		ret = ib_async_check_send_wr(&p->swrs[i]);
		/*
		 * An atomic's one entry receives the 8-byte original value.
		 * (A list whose requests take more entries than it has fails
		 * next, in ib_async_post_prepare().)
		 */
		if (!ret && (ib_async_send_rule(p->swrs[i].opcode)->fields &
			     IB_ASYNC_SR_ONE_U64) &&
		    s < p->nsge && p->sges[s].length != sizeof(u64))
			ret = -EINVAL;
		if (ret)
			return ib_async_post_stop(p, i, ret);
	}
	return 0;
}

/* The tracking of every request still to be posted, all got at once. */
static int ib_async_post_track(struct ib_async_post *p)
{
	u32 i;
	int ret;

	ret = ib_async_wrs_get(p->file, p->tr, p->count, !p->send);
	if (ret)
		return ret;
	for (i = 0; i < p->count; i++)
		p->tr[i]->wc.wr_id = p->send ? p->swrs[i].wr_id :
					       p->rwrs[i].wr_id;
	return 0;
}

/*
 * A list: copy in and check what needs no lock: sizes, opcodes, flags,
 * that the work requests use the entries exactly, inline data.
 */
static int ib_async_post_prepare(const struct ib_async_post_list *arg,
				 struct ib_async_post *p)
{
	size_t ksize = p->send ? sizeof(struct ib_async_send_wr) :
				 sizeof(struct ib_async_recv_wr);
	u32 min = p->send ? IB_ASYNC_SEND_WR_SIZE_V1 :
			    IB_ASYNC_RECV_WR_SIZE_V1;
	u64 used = 0;
	u32 i;
	int ret;

	if (!arg->count || arg->count > IB_ASYNC_POST_MAX_WRS ||
	    arg->num_sges > IB_ASYNC_POST_MAX_SGES || arg->wr_size < min)
		return -EINVAL;
	if (arg->wr_size > IB_ASYNC_POST_MAX_WR_SIZE)
		return -E2BIG;
	p->count = arg->count;
	p->nsge = arg->num_sges;
	ret = ib_async_post_alloc(p);
	if (ret)
		return ret;

	ret = ib_async_copy_elems(p->send ? (void *)p->swrs : (void *)p->rwrs,
				  ksize, arg->wrs, arg->wr_size, p->count);
	if (!ret && p->nsge &&
	    copy_from_user(p->usges, u64_to_user_ptr(arg->sges),
			   sizeof(*p->usges) * p->nsge))
		ret = -EFAULT;
	if (ret)
		return ret;

	ret = ib_async_post_check_wrs(p);
	if (ret)
		return ret;
	for (i = 0; i < p->count; i++)
		used += ib_async_post_nsge(p, i);
	if (used != p->nsge)
		return -EINVAL;
	if (p->send)
		ret = ib_async_read_inline(p);
	return ret ?: ib_async_post_track(p);
}

/* Slot @i of @s: its request, then its entries, then its inline data. */
static const u8 *ib_async_slot(const struct ib_async_slots *s, u32 i)
{
	return (const u8 *)s->mem + (size_t)i * s->slot_size;
}

/*
 * How many of @s's slots come before the first with more entries than a
 * slot holds, and the entries they take. That one is refused, as a list
 * is that uses its entries wrongly; the rest are read only from the copy.
 */
static u32 ib_async_slots_within(const struct ib_async_slots *s, u32 *nsge)
{
	u32 i, n;

	/* num_sge is at the same place in both kinds of request */
	BUILD_BUG_ON(offsetof(struct ib_async_recv_wr, num_sge) !=
		     offsetof(struct ib_async_send_wr, num_sge));
	*nsge = 0;
	for (i = 0; i < s->count; i++) {
		memcpy(&n, ib_async_slot(s, i) +
		       offsetof(struct ib_async_recv_wr, num_sge), sizeof(n));
		if (n > s->max_sge)
			break;
		*nsge += n;
	}
	return i;
}

/*
 * A send slot's inline data: in the slot itself, its entries' lengths in
 * order, no more than the slot holds. The entries the device gets point
 * into the copy, which outlives the post.
 */
static int ib_async_slot_inline(struct ib_async_post *p,
				const struct ib_async_slots *s, u32 i, u32 first)
{
	const u8 *data = ib_async_slot(s, i) + s->inline_offset;
	u64 off = 0;
	u32 j;

	for (j = first; j < first + p->swrs[i].num_sge; j++) {
		if (off + p->sges[j].length > s->max_inline)
			return -EINVAL;
		p->sges[j].addr = (uintptr_t)(data + off);
		off += p->sges[j].length;
	}
	return 0;
}

/*
 * A ring's slots, already copied: load them as a list's arrays and check
 * what needs no QP, ending the batch at the first refused.
 */
static int ib_async_post_load_slots(const struct ib_async_slots *s,
				    struct ib_async_post *p)
{
	size_t wr = p->send ? sizeof(struct ib_async_send_wr) :
			      sizeof(struct ib_async_recv_wr);
	u32 i, n, j = 0;
	int ret;

	p->count = ib_async_slots_within(s, &p->nsge);
	if (p->count < s->count)
		p->stop_err = -EINVAL;
	if (!p->count)
		return 0;
	ret = ib_async_post_alloc(p);
	if (ret)
		return ret;
	for (i = 0; i < p->count; i++) {
		memcpy(p->send ? (void *)&p->swrs[i] : (void *)&p->rwrs[i],
		       ib_async_slot(s, i), wr);
		n = ib_async_post_nsge(p, i);
		memcpy(&p->usges[j], ib_async_slot(s, i) + wr,
		       n * sizeof(*p->usges));
		j += n;
	}
	ret = ib_async_post_check_wrs(p);
	for (i = 0, j = 0; !ret && p->send && i < p->count; i++) {
		if ((p->swrs[i].send_flags & IB_ASYNC_SEND_INLINE) &&
		    ib_async_slot_inline(p, s, i, j))
			ret = ib_async_post_stop(p, i, -EINVAL);
		j += p->swrs[i].num_sge;
	}
	return ret ?: ib_async_post_track(p);
}

/*
 * Under the locks: every send is one @qp's type takes, with the datagram
 * fields on UD only (ib_async_send_rules.h). Before any request is built, so none
 * that a driver would misread can reach it.
 */
static int ib_async_post_check_qp(struct ib_async_post *p,
				  const struct ib_async_uobj *qp)
{
	const struct ib_async_send_wr *u;
	u32 i;
	int ret;

	for (i = 0; p->send && i < p->count; i++) {
		u = &p->swrs[i];
		ret = ib_async_send_rule_qp(ib_async_send_rule(u->opcode),
					    qp->qp->qp_type, u->ah_handle,
					    u->remote_qpn, u->remote_qkey);
		if (ret)
			return ib_async_post_stop(p, i, ret);
	}
	return 0;
}

/* Under the locks: every entry names the file's memory on @pd. */
static int ib_async_post_check_sges(struct ib_async_file *file,
				    struct ib_async_post *p,
				    struct ib_async_uobj *pd)
{
	u32 i, j, s = 0;
	int ret;

	for (i = 0; i < p->count; i++) {
		u32 n = p->send ? p->swrs[i].num_sge : p->rwrs[i].num_sge;
		bool write = !p->send ||
			     ib_async_send_writes(p->swrs[i].opcode);

		if (p->send &&
		    (p->swrs[i].send_flags & IB_ASYNC_SEND_INLINE)) {
			s += n;
			continue;
		}
		for (j = s; j < s + n; j++) {
			ret = ib_async_mr_check_sge(file, pd, &p->sges[j],
						    write);
			if (ret)
				return ib_async_post_stop(p, i, ret);
		}
		s += n;
	}
	return 0;
}

/* The bytes of a send's entries (a u64 holds any count of u32s here). */
static u64 ib_async_sge_bytes(const struct ib_sge *sges, u32 n)
{
	u64 bytes = 0;
	u32 i;

	for (i = 0; i < n; i++)
		bytes += sges[i].length;
	return bytes;
}

/*
 * The member of @k that @u's opcode is built as (ib_async_send_rules.h), its own
 * fields filled in; a send on a UD QP is a datagram. Only that member is
 * written: what a driver reads as another member of the union is never
 * the caller's.
 */
static int ib_async_build_member(struct ib_async_file *file,
				 struct ib_async_uobj *qp,
				 const struct ib_async_send_wr *u,
				 union ib_async_kwr *k, struct ib_send_wr **wr)
{
	int ret;

	switch (ib_async_send_rule(u->opcode)->kind) {
	case IB_ASYNC_SR_SEND:
		if (qp->qp->qp_type != IB_QPT_UD) {
			*wr = &k->wr;
			return 0;
		}
		ret = ib_async_send_ud(file, qp, u->ah_handle, u->remote_qpn,
				       u->remote_qkey, &k->ud);
		*wr = &k->ud.wr;
		return ret;
	case IB_ASYNC_SR_RDMA:
		k->rdma.remote_addr = u->remote_addr;
		k->rdma.rkey = u->rkey;
		*wr = &k->rdma.wr;
		return 0;
	case IB_ASYNC_SR_ATOMIC:
		k->atomic.remote_addr = u->remote_addr;
		k->atomic.rkey = u->rkey;
		k->atomic.compare_add = u->compare_add;
		k->atomic.swap = u->swap;
		*wr = &k->atomic.wr;
		return 0;
	default:
		/* ib_async_check_send_wr() let no other through */
		return -EINVAL;
	}
}

/*
 * How many of the requests come before the first with more entries than
 * @owner was granted. That one is refused as a driver refuses it (rxe,
 * mlx5 and the rdma-core providers check each request in order): those
 * before it are posted, and the call says where it stopped with EINVAL,
 * so that ibv_post_*()'s bad_wr names it exactly. No driver sees it.
 */
static u32 ib_async_post_within_sge(const struct ib_async_post *p,
				    const struct ib_async_uobj *owner)
{
	u32 max = ib_async_max_sge(owner, !p->send);
	u32 i;

	for (i = 0; i < p->count; i++)
		if ((p->send ? p->swrs[i].num_sge : p->rwrs[i].num_sge) > max)
			break;
	return i;
}

/* Fill in the first @n send requests, chained, with the tracked ids. */
static int ib_async_build_sends(struct ib_async_file *file,
				struct ib_async_post *p,
				struct ib_async_uobj *qp, u32 n)
{
	struct ib_send_wr *wr;
	u32 i, s = 0;
	int ret;

	for (i = 0; i < n; i++) {
		const struct ib_async_send_wr *u = &p->swrs[i];

		/*
		 * Inline data no larger than the QP was granted, as the
		 * providers check it for ib_uverbs: a driver that takes none
		 * may ignore IB_SEND_INLINE and read the entries, which name
		 * this call's kernel buffer, after the call returned.
		 */
		if ((u->send_flags & IB_ASYNC_SEND_INLINE) &&
		    ib_async_sge_bytes(&p->sges[s], u->num_sge) >
		    qp->max_inline)
			return -EINVAL;
		ret = ib_async_build_member(file, qp, u, &p->kswr[i], &wr);
		if (ret)
			return ret;
		wr->wr_id = p->tr[i]->id;
		wr->sg_list = u->num_sge ? &p->sges[s] : NULL;
		wr->num_sge = u->num_sge;
		wr->opcode = u->opcode;
		wr->send_flags = ib_async_wr_signal(p->tr[i], qp,
						    u->send_flags);
		if (u->send_flags & IB_ASYNC_SEND_FENCE)
			wr->send_flags |= IB_SEND_FENCE;
		if (u->send_flags & IB_ASYNC_SEND_SOLICITED)
			wr->send_flags |= IB_SEND_SOLICITED;
		if (u->send_flags & IB_ASYNC_SEND_INLINE)
			wr->send_flags |= IB_SEND_INLINE;
		wr->ex.imm_data = u->imm_data;
		/* Every member begins with the device's request. */
		wr->next = i + 1 < n ? &p->kswr[i + 1].wr : NULL;
		s += u->num_sge;
	}
	return 0;
}

static void ib_async_build_recvs(struct ib_async_post *p, u32 n)
{
	u32 i, s = 0;

	for (i = 0; i < n; i++) {
		struct ib_recv_wr *k = &p->krwr[i];

		k->wr_id = p->tr[i]->id;
		k->sg_list = p->rwrs[i].num_sge ? &p->sges[s] : NULL;
		k->num_sge = p->rwrs[i].num_sge;
		k->next = i + 1 < n ? &p->krwr[i + 1] : NULL;
		s += p->rwrs[i].num_sge;
	}
}

/*
 * Make the requests the file's, post them, and settle what the device did
 * not take. Return: how many it took; *@err its error for the next one.
 */
static u32 ib_async_post_run(struct ib_async_file *file,
			     struct ib_async_post *p,
			     struct ib_async_uobj *owner, int *err)
{
	u32 n = ib_async_post_within_sge(p, owner);
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	u32 attached = 0, posted = 0;
	int ret = n ? 0 : -EINVAL;

	while (!ret && attached < n) {
		ret = ib_async_wr_attach(file, p->tr[attached], owner);
		if (!ret)
			attached++;
	}
	if (!ret && p->send)
		ret = ib_async_build_sends(file, p, owner, n);
	else if (!ret)
		ib_async_build_recvs(p, n);
	if (ret)
		goto settle;

	if (p->send)
		ret = ib_async_post_send(owner->qp, &p->kswr[0].wr, &sbad);
	else if (owner->type == IB_ASYNC_OBJ_SRQ)
		ret = ib_post_srq_recv(owner->srq, p->krwr, &rbad);
	else
		ret = ib_post_recv(owner->qp, p->krwr, &rbad);
	posted = n;
	/* The device's request is the first member of each element. */
	if (ret && sbad)
		posted = ((const void *)sbad - (const void *)p->kswr) /
			 sizeof(*p->kswr);
	else if (ret && rbad)
		posted = rbad - p->krwr;
	else if (ret)
		posted = 0;
	posted = min(posted, attached);
	/* All it was given taken: refuse the one over the entries. */
	if (!ret && n < p->count)
		ret = -EINVAL;
settle:
	/* Requests [posted, attached) are the file's and were not posted. */
	while (attached > posted) {
		attached--;
		ib_async_wr_release(file, p->tr[attached]);
		p->tr[attached] = NULL;
	}
	/* The device's now. */
	while (attached)
		p->tr[--attached] = NULL;
	*err = ret;
	return posted;
}

/*
 * Under the locks, for a list and a ring alike: check what needs the
 * owner, post. Return: how many were posted; *@err the error of the
 * first that was not (a ring's may be the checks' refusal).
 */
static u32 ib_async_post_locked(struct ib_async_file *file,
				struct ib_async_post *p,
				struct ib_async_uobj *owner, int *err)
{
	u32 posted = 0;
	int ret;

	ret = ib_async_post_check_qp(p, owner);
	if (!ret)
		ret = ib_async_post_check_sges(file, p, owner->uses[0]);
	if (!ret && p->count)
		posted = ib_async_post_run(file, p, owner, &ret);
	/* all it was given posted: a ring's batch may have ended earlier */
	if (!ret && posted == p->count)
		ret = p->stop_err;
	*err = ret;
	return posted;
}

static int ib_async_cmd_post_list(struct ib_async_ucmd *u, bool send)
{
	struct ib_async_post_list *arg = u->cmd;
	struct ib_async_file *file = u->file;
	struct ib_async_post p = { .file = file, .send = send };
	struct ib_async_uobj *owner;
	int ret, err = 0;
	u32 posted = 0;

	if (arg->flags || arg->reserved || arg->posted || arg->error ||
	    (arg->obj_type != IB_ASYNC_OBJ_QP &&
	     (send || arg->obj_type != IB_ASYNC_OBJ_SRQ)))
		return -EINVAL;
	if (current->mm != file->verbs->mm)
		return -EPERM;
	ret = ib_async_post_prepare(arg, &p);
	if (ret)
		goto out;

	ret = ib_async_ucmd_lock(u);
	if (ret)
		goto out;
	owner = ib_async_uobj_get(file, arg->handle, arg->obj_type);
	ret = PTR_ERR_OR_ZERO(owner);
	if (!ret) {
		ib_async_dp_lock(owner);
		posted = ib_async_post_locked(file, &p, owner, &err);
		ib_async_dp_unlock(owner);
	}
	if (!ret && send)
		ib_async_qp_fill_rings(owner);
	ib_async_ucmd_unlock(u);
	/* Nothing posted: the call fails; some posted: the rest is told. */
	if (!ret && !posted)
		ret = err;
	if (!ret) {
		arg->posted = posted;
		arg->error = -err;
		ib_async_ucmd_respond(u);
	}
out:
	ib_async_post_free(&p);
	return ret;
}

int ib_async_cmd_post_send_list(struct ib_async_ucmd *u)
{
	return ib_async_cmd_post_list(u, true);
}

int ib_async_cmd_post_recv_list(struct ib_async_ucmd *u)
{
	return ib_async_cmd_post_list(u, false);
}

/**
 * ib_async_post_slots - post a submission ring's slots
 * @file: the file, its device pinned
 * @owner: the live QP or SRQ the ring feeds, its lock held
 * @s: the slots, copied out of the ring once
 * @err: out: 0 when every slot was posted, else the error of the first
 *	that was not
 *
 * The slots are checked as a list's requests are, in order, and posted as
 * one chain; the first refused (by a check or by the device) ends it.
 *
 * Return: how many of the slots were posted, from the first.
 */
u32 ib_async_post_slots(struct ib_async_file *file,
			struct ib_async_uobj *owner,
			const struct ib_async_slots *s, int *err)
{
	struct ib_async_post p = {
		.file = file, .send = s->send, .ring = true,
		.scratch = s->scratch,
	};
	u32 posted = 0;
	int ret;

	ib_async_dp_assert(owner);
	ret = ib_async_post_load_slots(s, &p);
	if (!ret)
		posted = ib_async_post_locked(file, &p, owner, &ret);
	ib_async_post_free(&p);
	*err = ret;
	return posted;
}

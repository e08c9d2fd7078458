// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A minimal data path through kernel buffers, so that programs can move
 * real traffic and drive the events that need it (CQ overrun, SRQ limit).
 *
 * Each posted work request gets a kernel buffer, DMA-mapped for the
 * device with the PD's local_dma_lkey. A send's message is copied in
 * before the post; a receive's data is copied out to the address given at
 * post time when POLL_CQ returns its completion. Sends the caller did not
 * ask to be signalled are posted unsignalled: a later send's completion
 * retires them (a send queue completes in order) and frees their buffers;
 * a driver's completion of one all the same is not returned if it
 * succeeded.
 *
 * Request ids: the id the device carries (wr_id) is the file's count of
 * requests posted (wr_ids.c), so no id is handed out twice in a file's
 * life. A completion is matched
 * only to a live request of this file posted to the QP (or to the SRQ of
 * the QP) and the CQ the completion came from; anything else is stale:
 * dropped and counted (fdinfo), never matched.
 *
 * Destroyed QPs: once ib_destroy_qp() returns, the device touches none of
 * the QP's buffers and queues no completion for it, but those it already
 * queued still name the freed QP. They are taken off the QP's CQs right
 * then, while the QP's number is known and its pointer is only compared,
 * and kept in order in front of what the CQ holds: POLL_CQ returns the
 * destroyed QP's own wr_ids with their status (IB_WC_WR_FLUSH_ERR after a
 * move to ERR), as rdma-core over ib_uverbs does. So every completion
 * left in a CQ names a live QP. Requests that never completed are freed
 * with the QP (or SRQ), since the device no longer owns them.
 *
 * Copies: the message of a send is copied in, and completions and
 * received data copied out, with no device lock held, so a user buffer
 * behind a slow fault holds up only its own caller. Only the memory of
 * the process that opened the file is used (EPERM for any other).
 */
#include <linux/kmemleak.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_mad.h>

#include "verbs.h"
#include "wr.h"

/* A QP just destroyed, whose queued completions are being taken off. */
struct ib_async_dead_qp {
	const struct ib_qp *qp;		/* freed: compared, never followed */
	struct ib_async_uobj *srq;
	struct ib_async_uobj *recv_cq;
	u32 qp_num;
};

/*
 * A request's buffer is charged its bytes to the user's locked-memory
 * budget while the file holds it; its tracking was charged when allocated
 * (wr_pool.c). A request over registered memory has no buffer: no charge.
 */
static int ib_async_wr_charge(struct ib_async_file *file,
			      const struct ib_async_wr *w)
{
	return w->len ? ib_async_account_add(file, w->len) : 0;
}

static void ib_async_wr_uncharge(struct ib_async_file *file,
				 const struct ib_async_wr *w)
{
	if (w->len)
		ib_async_account_sub(file, w->len);
}

static enum dma_data_direction ib_async_wr_dir(const struct ib_async_wr *w)
{
	return w->recv ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/* A request and its buffer, not yet known to the file or the device. */
static struct ib_async_wr *ib_async_wr_alloc(struct ib_async_file *file,
					     u32 len, bool recv, u64 wr_id)
{
	struct ib_async_wr *w;

	if (ib_async_wrs_get(file, &w, 1, recv))
		return NULL;
	w->wc.wr_id = wr_id;
	w->len = len;
	/* At least one byte, so that even an empty message has a mapping. */
	w->map_len = max_t(u32, len, 1);
	w->buf = kzalloc(w->map_len, GFP_KERNEL_ACCOUNT);
	if (!w->buf) {
		ib_async_wr_put(file, w);
		return NULL;
	}
	return w;
}

/**
 * ib_async_wr_discard - give up a request the file never knew
 * @file: the file it was got for
 * @w: the request
 */
void ib_async_wr_discard(struct ib_async_file *file, struct ib_async_wr *w)
{
	kfree(w->buf);
	ib_async_wr_put(file, w);
}

/* The device is done with the buffer: after its completion or destroy. */
static void ib_async_wr_unmap(struct ib_async_wr *w)
{
	if (w->mapped)
		ib_dma_unmap_single(w->dev, w->dma, w->map_len,
				    ib_async_wr_dir(w));
	w->mapped = false;
}

/**
 * ib_async_wr_attach - make a request the file's, ready to post
 * @file: the file
 * @w: the request
 * @owner: a live QP or SRQ
 *
 * Names it, charges and maps its buffer if it has one (its tracking was
 * charged when allocated: wr_pool.c), and puts it on the owner's list;
 * the caller then posts it, with w->id as the wr_id.
 *
 * Return: 0, -ENOSPC past the file's bounds, or -ENOMEM.
 */
int ib_async_wr_attach(struct ib_async_file *file, struct ib_async_wr *w,
		       struct ib_async_uobj *owner)
{
	struct ib_async_vfile *vf = file->verbs;
	int ret;

	ib_async_dp_assert(owner);
	ret = ib_async_wr_ids_prepare(file);
	if (ret)
		return ret;
	ret = ib_async_wr_charge(file, w);
	if (ret)
		return ret;

	w->dev = owner->type == IB_ASYNC_OBJ_SRQ ? owner->srq->device :
						   owner->qp->device;
	if (w->buf) {
		w->dma = ib_dma_map_single(w->dev, w->buf, w->map_len,
					   ib_async_wr_dir(w));
		if (ib_dma_mapping_error(w->dev, w->dma)) {
			ret = -ENOMEM;
			goto err_uncharge;
		}
		w->mapped = true;
	}
	w->owner = owner;
	if (owner->type == IB_ASYNC_OBJ_QP) {
		w->qp = owner->qp;
		w->cq = w->recv ? owner->recv_cq : owner->send_cq;
		w->wc.qp_num = owner->qp_num;
	}

	spin_lock(&vf->wr_lock);
	if (vf->wr_count >= IB_ASYNC_MAX_WRS ||
	    vf->wr_bytes + w->len > IB_ASYNC_MAX_WR_BYTES) {
		spin_unlock(&vf->wr_lock);
		w->owner = NULL;
		ret = -ENOSPC;
		goto err_unmap;
	}
	ib_async_wr_ids_add(file, w);
	/* Only a QP has sends. */
	list_add_tail(&w->list, w->recv ? &owner->wrs : &owner->sq_wrs);
	vf->wr_count++;
	vf->wr_bytes += w->len;
	spin_unlock(&vf->wr_lock);
	return 0;

err_unmap:
	ib_async_wr_unmap(w);
err_uncharge:
	ib_async_wr_uncharge(file, w);
	return ret;
}

/*
 * An attached request, posted or completed, leaves the file's counts, its
 * id and its list; the caller frees it (ib_async_wr_free()).
 */
static void ib_async_wr_unlink(struct ib_async_file *file,
			       struct ib_async_wr *w)
{
	struct ib_async_vfile *vf = file->verbs;

	lockdep_assert_held(&vf->wr_lock);
	if (w->owner)
		ib_async_wr_ids_del(file, w);
	list_del(&w->list);
	vf->wr_count--;
	vf->wr_bytes -= w->len;
}

/* An unlinked request goes: its buffer, and its tracking to be reused. */
static void ib_async_wr_free(struct ib_async_file *file, struct ib_async_wr *w)
{
	ib_async_wr_unmap(w);
	ib_async_wr_uncharge(file, w);
	ib_async_wr_discard(file, w);
}

/**
 * ib_async_wr_release - free an attached request, posted or completed
 * @file: its file
 * @w: the request: one the device never took, or a completion the caller
 *	holds (on a CQ's backlog under its lock, or taken off it)
 */
void ib_async_wr_release(struct ib_async_file *file, struct ib_async_wr *w)
{
	spin_lock(&file->verbs->wr_lock);
	ib_async_wr_unlink(file, w);
	spin_unlock(&file->verbs->wr_lock);
	ib_async_wr_free(file, w);
}

/**
 * ib_async_free_wrs - free the requests an object holds
 * @file: the file
 * @owner: a QP or SRQ whose verbs object is gone (what it had posted), or
 *         a CQ being destroyed (the completions not yet returned)
 */
void ib_async_free_wrs(struct ib_async_file *file, struct ib_async_uobj *owner)
{
	struct ib_async_wr *w, *next;

	ib_async_dp_assert_excl(file);
	list_for_each_entry_safe(w, next, &owner->wrs, list)
		ib_async_wr_release(file, w);
	list_for_each_entry_safe(w, next, &owner->sq_wrs, list)
		ib_async_wr_release(file, w);
}

/*
 * One request of an object removal gave up on leaves the file. A completed
 * one (on a CQ's backlog: unmapped, the device's no more) is freed. Of one
 * the device still owns, the buffer stays allocated and mapped, as the
 * device may still write into it, and is never freed (as the abandoned
 * uobj), but charged no more; the request itself, which the device never
 * sees (it knows the request by wr_id), goes back to the file: no
 * completion can match it any more, and the module's cache empties with
 * the file, so that the module can go.
 */
static void ib_async_wr_let_go(struct ib_async_file *file,
			       struct ib_async_wr *w)
{
	bool owned = w->owner;

	spin_lock(&file->verbs->wr_lock);
	ib_async_wr_unlink(file, w);
	spin_unlock(&file->verbs->wr_lock);
	if (!owned) {
		ib_async_wr_free(file, w);
		return;
	}
	ib_async_wr_uncharge(file, w);
	kmemleak_not_leak(w->buf);
	ib_async_wr_put(file, w);
}

/**
 * ib_async_wrs_let_go - the handle of an abandoned object goes
 * @owner: a QP, SRQ or CQ that device removal gave up on
 *
 * Its kind's let_go, called once, as its handle leaves the file (DESTROY
 * or close): the charges of its requests go back to the file then, so
 * that the file ends with nothing charged (ib_async_account_exit()) and
 * the user's RLIMIT_MEMLOCK budget gets back what they held.
 */
void ib_async_wrs_let_go(struct ib_async_uobj *owner)
{
	struct ib_async_file *file = owner->file;
	struct ib_async_wr *w, *next;

	ib_async_dp_assert_excl(file);
	list_for_each_entry_safe(w, next, &owner->wrs, list)
		ib_async_wr_let_go(file, w);
	list_for_each_entry_safe(w, next, &owner->sq_wrs, list)
		ib_async_wr_let_go(file, w);
}

/*
 * The request a completion names, or NULL if it is stale. Only the
 * pointers of QPs that may be gone are compared: @dead's, and those of
 * QP requests. Any other QP a completion names is alive, because the
 * completions of every destroyed QP were taken off its CQs.
 */
static struct ib_async_wr *ib_async_wr_match(struct ib_async_file *file,
					     struct ib_async_uobj *cq,
					     const struct ib_wc *wc,
					     const struct ib_async_dead_qp *dead,
					     u32 *qp_num)
{
	struct ib_async_wr *w = ib_async_wr_ids_find(file, wc->wr_id);
	const struct ib_qp *qp = wc->qp;

	if (!w)
		return NULL;
	if (w->owner->type == IB_ASYNC_OBJ_QP) {
		if (qp != w->qp || cq != w->cq)
			return NULL;
		*qp_num = w->wc.qp_num;
		return w;
	}
	if (dead && qp == dead->qp) {
		if (w->owner != dead->srq || cq != dead->recv_cq)
			return NULL;
		*qp_num = dead->qp_num;
		return w;
	}
	if (!qp || qp->srq != w->owner->srq || qp->recv_cq != cq->cq)
		return NULL;
	*qp_num = qp->qp_num;
	return w;
}

/*
 * A send of @w's QP completed: the unsignalled sends posted before it are
 * done too (a send queue completes in order) and will never have a
 * completion of their own unless they failed, which they did not, or
 * theirs would have come first. Their references to the caller's memory
 * go now.
 */
static void ib_async_sq_retire(struct ib_async_file *file,
			       struct ib_async_wr *w, struct list_head *done)
{
	struct ib_async_wr *x, *next;

	list_for_each_entry_safe(x, next, &w->owner->sq_wrs, list) {
		if (x == w)
			break;
		if (x->hidden) {
			ib_async_wr_unlink(file, x);
			list_add_tail(&x->list, done);
		}
	}
}

/*
 * Record a completion in its request and queue it on the CQ's backlog;
 * what it retires, or itself if it is not to be returned, goes on @done
 * for the caller to free once wr_lock is dropped.
 */
static void ib_async_wr_complete(struct ib_async_file *file,
				 struct ib_async_uobj *cq, struct ib_async_wr *w,
				 const struct ib_wc *wc, u32 qp_num,
				 struct list_head *done)
{
	struct ib_async_wc *uwc = &w->wc;

	if (!w->recv)
		ib_async_sq_retire(file, w, done);
	ib_async_wr_ids_del(file, w);
	w->owner = NULL;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->imm_data = wc->ex.imm_data;
	uwc->qp_num = qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = wc->wc_flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	/* a driver that completes unsignalled requests all the same */
	if (w->hidden && wc->status == IB_WC_SUCCESS) {
		ib_async_wr_unlink(file, w);
		list_add_tail(&w->list, done);
	} else {
		/* the CQ's now, as its lock is held */
		list_move_tail(&w->list, &cq->wrs);
	}
}

/*
 * Move up to @max completions from the device's CQ to its backlog. The
 * requests are matched and moved under wr_lock, all at once, and then,
 * the CQ's alone, unmapped: for a receive the unmap also makes the data
 * visible to the CPU.
 */
static int ib_async_cq_fetch_dead(struct ib_async_file *file,
				  struct ib_async_uobj *cq, u32 max,
				  const struct ib_async_dead_qp *dead)
{
	struct ib_async_vfile *vf = file->verbs;
	struct list_head *pos, *tail;
	struct ib_async_wr *w, *next;
	struct ib_wc *wc = cq->poll_wc;
	LIST_HEAD(done);
	u32 qp_num;
	int i, n;

	ib_async_dp_assert(cq);
	/*
	 * Unsigned: a count the caller made huge must not reach the driver
	 * as a negative num_entries, which some drivers' loops take for a
	 * very large one, writing past poll_wc.
	 */
	n = ib_poll_cq(cq->cq, min_t(u32, max, IB_ASYNC_POLL_BATCH), wc);
	if (n <= 0)
		return n;
	/* the backlog's tail before: what follows it is this batch's */
	tail = cq->wrs.prev;
	spin_lock(&vf->wr_lock);
	for (i = 0; i < n; i++) {
		w = ib_async_wr_match(file, cq, &wc[i], dead, &qp_num);
		if (w)
			ib_async_wr_complete(file, cq, w, &wc[i], qp_num,
					     &done);
		else
			vf->stale_wcs++;
	}
	spin_unlock(&vf->wr_lock);
	for (pos = tail->next; pos != &cq->wrs; pos = pos->next)
		ib_async_wr_unmap(list_entry(pos, struct ib_async_wr, list));
	list_for_each_entry_safe(w, next, &done, list)
		ib_async_wr_free(file, w);
	return n;
}

/**
 * ib_async_cq_fetch - move completions from a live CQ's device queue
 * @file: the file
 * @cq: the CQ
 * @max: at most this many
 *
 * To the CQ's backlog, in order, settled as POLL_CQ settles them.
 *
 * Return: how many the device gave, or its error.
 */
int ib_async_cq_fetch(struct ib_async_file *file, struct ib_async_uobj *cq,
		      u32 max)
{
	return ib_async_cq_fetch_dead(file, cq, max, NULL);
}

static void ib_async_cq_drain(struct ib_async_file *file,
			      struct ib_async_uobj *cq,
			      const struct ib_async_dead_qp *dead)
{
	while (ib_async_cq_fetch_dead(file, cq, IB_ASYNC_POLL_BATCH, dead) > 0)
		cond_resched();
}

/*
 * Take a QP's completions off its CQs, with those of other QPs before
 * them, in order, as POLL_CQ would; then free the requests it had posted
 * that will never complete.
 */
static void ib_async_qp_settle(struct ib_async_uobj *qp,
			       const struct ib_async_dead_qp *dead)
{
	ib_async_dp_assert_excl(qp->file);
	ib_async_cq_drain(qp->file, qp->send_cq, dead);
	if (qp->recv_cq != qp->send_cq)
		ib_async_cq_drain(qp->file, qp->recv_cq, dead);
	ib_async_free_wrs(qp->file, qp);
}

/**
 * ib_async_qp_destroyed - a QP's verbs object is gone: settle its requests
 * @qp: the QP's uobj
 * @dead: the destroyed ib_qp; only its address is used
 */
void ib_async_qp_destroyed(struct ib_async_uobj *qp, const struct ib_qp *dead)
{
	struct ib_async_dead_qp d = {
		.qp = dead,
		.srq = qp->qp_srq,
		.recv_cq = qp->recv_cq,
		.qp_num = qp->qp_num,
	};

	ib_async_qp_settle(qp, &d);
}

/**
 * ib_async_qp_reset - a QP went to RESET: settle its requests
 * @qp: the QP's uobj
 *
 * RESET empties the QP's work queues without completions: what it had
 * posted and not completed never will be, and the device refers to none
 * of it any more (its receives on an SRQ are the SRQ's, and stay). Left
 * tracked, they would count against the file's limit until the QP is
 * destroyed, however often it is reused.
 */
void ib_async_qp_reset(struct ib_async_uobj *qp)
{
	ib_async_qp_settle(qp, NULL);
}

static struct ib_sge ib_async_wr_sge(struct ib_async_wr *w, struct ib_pd *pd)
{
	return (struct ib_sge){
		.addr = w->dma,
		.length = w->len,
		.lkey = pd->local_dma_lkey,
	};
}

int ib_async_cmd_post_recv(struct ib_async_ucmd *u)
{
	struct ib_async_file *file = u->file;
	const struct ib_recv_wr *bad;
	struct ib_async_post_recv *arg = u->cmd;
	struct ib_async_uobj *owner;
	struct ib_recv_wr wr = {};
	struct ib_async_wr *w;
	struct ib_sge sge;
	int ret;

	if (arg->flags || arg->reserved || arg->length > IB_ASYNC_MAX_MSG ||
	    (arg->obj_type != IB_ASYNC_OBJ_QP &&
	     arg->obj_type != IB_ASYNC_OBJ_SRQ))
		return -EINVAL;
	if (current->mm != file->verbs->mm)
		return -EPERM;
	if (!access_ok(u64_to_user_ptr(arg->addr), arg->length))
		return -EFAULT;
	w = ib_async_wr_alloc(file, arg->length, true, arg->wr_id);
	if (!w)
		return -ENOMEM;
	w->uaddr = arg->addr;

	ret = ib_async_ucmd_lock(u);
	if (ret)
		goto err_discard;
	owner = ib_async_uobj_get(file, arg->handle, arg->obj_type);
	ret = PTR_ERR_OR_ZERO(owner);
	/* its one entry, on a queue granted none (a QP on an SRQ) */
	if (!ret && !ib_async_max_sge(owner, true))
		ret = -EINVAL;
	if (ret) {
		ib_async_ucmd_unlock(u);
		goto err_discard;
	}
	ib_async_dp_lock(owner);
	ret = ib_async_wr_attach(file, w, owner);
	if (ret) {
		ib_async_dp_unlock(owner);
		ib_async_ucmd_unlock(u);
		goto err_discard;
	}
	wr.wr_id = w->id;
	wr.num_sge = 1;
	wr.sg_list = &sge;
	if (owner->type == IB_ASYNC_OBJ_SRQ) {
		sge = ib_async_wr_sge(w, owner->srq->pd);
		ret = ib_post_srq_recv(owner->srq, &wr, &bad);
	} else {
		sge = ib_async_wr_sge(w, owner->qp->pd);
		ret = ib_post_recv(owner->qp, &wr, &bad);
	}
	if (ret)
		ib_async_wr_release(file, w);
	ib_async_dp_unlock(owner);
	ib_async_ucmd_unlock(u);
	return ret;

err_discard:
	ib_async_wr_discard(file, w);
	return ret;
}

/*
 * One kernel buffer goes out as a send: a send opcode (ib_async_send_rules.h) with
 * its fields, signalled or solicited at most.
 */
static int ib_async_check_send(const struct ib_async_post_send *arg)
{
	const struct ib_async_send_rule *r = ib_async_send_rule(arg->opcode);

	if (arg->flags || arg->length > IB_ASYNC_MAX_MSG || IS_ERR(r) ||
	    r->kind != IB_ASYNC_SR_SEND ||
	    arg->send_flags & ~(IB_ASYNC_SEND_SIGNALED |
				IB_ASYNC_SEND_SOLICITED))
		return -EINVAL;
	return ib_async_send_rule_fields(r, arg->send_flags,
					 (__force u32)arg->imm_data,
					 0, 0, 0, 0);
}

/**
 * ib_async_send_ud - the UD fields of a send
 * @file: the file
 * @qp: the QP it goes on
 * @ah_handle: the caller's AH
 * @remote_qpn: destination QP number
 * @remote_qkey: destination Q_Key
 * @wr: filled in for a UD QP
 *
 * For a send the rules let onto a UD QP (ib_async_send_rule_qp()). The
 * AH must be on the QP's port and of the QP's PD, and a Q_Key with the
 * high bit set (a controlled Q_Key) needs the same privilege as setting
 * one on a QP (see ib_async_check_qkey()).
 *
 * An AH of another PD is a protection error in the verbs specification,
 * but drivers do not all check it: rxe fails the send at completion, mlx5
 * sends with the QP's PD, so it is refused here before any driver sees
 * it (ib_uverbs passes it on; stricter, as the test bed's checker found).
 *
 * Return: 0 or -EINVAL, -ENOENT, -EPERM.
 */
int ib_async_send_ud(struct ib_async_file *file, struct ib_async_uobj *qp,
		     u32 ah_handle, u32 remote_qpn, u32 remote_qkey,
		     struct ib_ud_wr *wr)
{
	struct ib_async_uobj *ah;
	int ret;

	if (qp->qp->qp_type != IB_QPT_UD)
		return -EINVAL;
	ah = ib_async_uobj_get(file, ah_handle, IB_ASYNC_OBJ_AH);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	if (ah->port != READ_ONCE(qp->port) || ah->ah->pd != qp->qp->pd)
		return -EINVAL;
	ret = ib_async_check_qkey(remote_qkey);
	if (ret)
		return ret;
	wr->ah = ah->ah;
	wr->remote_qpn = remote_qpn;
	wr->remote_qkey = remote_qkey;
	return 0;
}

int ib_async_cmd_post_send(struct ib_async_ucmd *u)
{
	struct ib_async_file *file = u->file;
	struct ib_async_post_send *arg = u->cmd;
	const struct ib_send_wr *bad;
	struct ib_async_uobj *qp;
	struct ib_ud_wr wr = {};
	struct ib_async_wr *w;
	struct ib_sge sge;
	int ret;

	ret = ib_async_check_send(arg);
	if (ret)
		return ret;
	if (current->mm != file->verbs->mm)
		return -EPERM;
	w = ib_async_wr_alloc(file, arg->length, false, arg->wr_id);
	if (!w)
		return -ENOMEM;
	/* Before any lock: the user's page may take its time to fault in. */
	if (copy_from_user(w->buf, u64_to_user_ptr(arg->addr), arg->length)) {
		ret = -EFAULT;
		goto err_discard;
	}

	ret = ib_async_ucmd_lock(u);
	if (ret)
		goto err_discard;
	qp = ib_async_uobj_get(file, arg->handle, IB_ASYNC_OBJ_QP);
	ret = PTR_ERR_OR_ZERO(qp);
	/* its one entry, on a send queue granted none */
	if (!ret && !ib_async_max_sge(qp, false))
		ret = -EINVAL;
	if (!ret)
		ret = ib_async_send_rule_qp(ib_async_send_rule(arg->opcode),
					    qp->qp->qp_type, arg->ah_handle,
					    arg->remote_qpn, arg->remote_qkey);
	if (!ret && qp->qp->qp_type == IB_QPT_UD)
		ret = ib_async_send_ud(file, qp, arg->ah_handle,
				       arg->remote_qpn, arg->remote_qkey, &wr);
	if (ret) {
		ib_async_ucmd_unlock(u);
		goto err_discard;
	}
	ib_async_dp_lock(qp);
	ret = ib_async_wr_attach(file, w, qp);
	if (ret) {
		ib_async_dp_unlock(qp);
		ib_async_ucmd_unlock(u);
		goto err_discard;
	}
	sge = ib_async_wr_sge(w, qp->qp->pd);
	wr.wr.wr_id = w->id;
	wr.wr.num_sge = 1;
	wr.wr.sg_list = &sge;
	wr.wr.opcode = arg->opcode;
	wr.wr.send_flags = ib_async_wr_signal(w, qp, arg->send_flags);
	if (arg->send_flags & IB_ASYNC_SEND_SOLICITED)
		wr.wr.send_flags |= IB_SEND_SOLICITED;
	wr.wr.ex.imm_data = arg->imm_data;
	ret = ib_async_post_send(qp->qp, &wr.wr, &bad);
	if (ret)
		ib_async_wr_release(file, w);
	ib_async_dp_unlock(qp);
	ib_async_ucmd_unlock(u);
	return ret;

err_discard:
	ib_async_wr_discard(file, w);
	return ret;
}

/*
 * Move up to @count completions of @cq to @out: first those already taken
 * off the device, then fresh ones. Return: how many, or the driver's
 * error if none.
 */
static int ib_async_cq_take(struct ib_async_file *file,
			    struct ib_async_uobj *cq, u32 count,
			    struct list_head *out)
{
	u32 taken = 0;
	int n;

	ib_async_dp_assert(cq);
	for (;;) {
		while (taken < count && !list_empty(&cq->wrs)) {
			list_move_tail(cq->wrs.next, out);
			taken++;
		}
		if (taken == count)
			break;
		n = ib_async_cq_fetch(file, cq, count - taken);
		if (n <= 0)
			return taken ? taken : n;
	}
	return taken;
}

/* Copy one completion, and a receive's data, to the caller. */
static int ib_async_wc_deliver(struct ib_async_wr *w,
			       struct ib_async_wc __user *out)
{
	u32 n = min(w->wc.byte_len, w->len);

	if (w->recv && w->buf && w->wc.status == IB_WC_SUCCESS &&
	    copy_to_user(u64_to_user_ptr(w->uaddr), w->buf, n))
		w->wc.status = IB_WC_LOC_PROT_ERR;
	return copy_to_user(out, &w->wc, sizeof(w->wc)) ? -EFAULT : 0;
}

/*
 * Settle what POLL_CQ took: free what was delivered, and give what was
 * not back to the front of the CQ's backlog, unless the CQ is gone.
 */
static void ib_async_cq_untake(struct ib_async_file *file, u32 handle,
			       struct ib_async_uobj *cq, struct list_head *taken,
			       u32 delivered)
{
	struct ib_async_wr *w, *next;

	list_for_each_entry_safe(w, next, taken, list) {
		if (!delivered--)
			break;
		ib_async_wr_release(file, w);
	}
	if (list_empty(taken))
		return;
	/*
	 * Handles are never reused: the same handle is the same CQ. A
	 * destroy holds dp_rwsem from the CQ's destroy to its handle's end.
	 */
	down_read(&file->dp_rwsem);
	if (xa_load(&file->verbs->objs, handle) == cq && cq->obj) {
		ib_async_dp_lock(cq);
		list_splice(taken, &cq->wrs);
		ib_async_dp_unlock(cq);
	} else {
		list_for_each_entry_safe(w, next, taken, list)
			ib_async_wr_release(file, w);
	}
	up_read(&file->dp_rwsem);
}

int ib_async_cmd_poll_cq(struct ib_async_ucmd *u)
{
	struct ib_async_file *file = u->file;
	struct ib_async_wc __user *out;
	struct ib_async_poll_cq *arg = u->cmd;
	struct ib_async_uobj *cq;
	struct ib_async_wr *w;
	LIST_HEAD(taken);
	u32 done = 0;
	int ret;

	if (arg->flags)
		return -EINVAL;
	if (current->mm != file->verbs->mm)
		return -EPERM;
	/*
	 * Any count is taken, as ib_uverbs takes any ne; the file never has
	 * more than IB_ASYNC_MAX_WRS requests to complete, so more entries
	 * could not be filled, and the count stays well inside an int.
	 */
	arg->count = min_t(u32, arg->count, IB_ASYNC_MAX_WRS);
	out = u64_to_user_ptr(arg->wc);
	if (!access_ok(out, (size_t)arg->count * sizeof(*out)))
		return -EFAULT;

	ret = ib_async_ucmd_lock(u);
	if (ret)
		return ret;
	cq = ib_async_uobj_get(file, arg->handle, IB_ASYNC_OBJ_CQ);
	ret = PTR_ERR_OR_ZERO(cq);
	if (!ret) {
		ib_async_dp_lock(cq);
		ret = ib_async_cq_take(file, cq, arg->count, &taken);
		ib_async_dp_unlock(cq);
	}
	ib_async_ucmd_unlock(u);
	if (ret < 0)
		return ret;

	/* No lock held: the copies may fault for as long as they like. */
	ret = 0;
	list_for_each_entry(w, &taken, list) {
		ret = ib_async_wc_deliver(w, &out[done]);
		if (ret)
			break;
		done++;
	}
	if (!list_empty(&taken))
		ib_async_cq_untake(file, arg->handle, cq, &taken, done);

	/* What was delivered counts; a fault without delivery is returned. */
	if (ret && !done)
		return ret;
	arg->count = done;
	ib_async_ucmd_respond(u);
	return 0;
}

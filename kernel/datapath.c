// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A minimal data path through kernel buffers, so that programs can move
 * real traffic and drive the events that need it (CQ overrun, SRQ limit).
 *
 * Each posted work request gets a kernel buffer, DMA-mapped for the
 * device with the PD's local_dma_lkey. A send copies the user's message
 * in at post time; a receive copies it out to the user's address when
 * POLL_CQ returns its completion, in the polling process. Work requests
 * are named by a per-file xarray id, never by a pointer: a completion
 * that arrives for a request already freed with its destroyed QP or SRQ is
 * recognised and dropped. Sends the caller did not ask to be signalled are
 * posted signalled anyway, so their buffers are freed, and their
 * completions are not returned.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ib_async.h"

/* Outstanding work requests a file may have, and their bytes. */
#define IB_ASYNC_MAX_WRS	16384
#define IB_ASYNC_MAX_WR_BYTES	(64U << 20)

struct ib_async_wr {
	struct ib_async_uobj *owner;	/* QP or SRQ it was posted to */
	/*
	 * Kept here: requests are freed after their QP or SRQ is destroyed,
	 * when the verbs object can no longer lead to the device.
	 */
	struct ib_device *dev;
	u64 wr_id;
	u64 uaddr;
	void *buf;
	u64 dma;
	u32 len;
	u32 map_len;			/* len, but at least 1 */
	u32 id;
	bool recv;
	bool hidden;			/* unsignalled send */
};

static void ib_async_wr_free(struct ib_async_file *file, struct ib_async_wr *w)
{
	ib_dma_unmap_single(w->dev, w->dma, w->map_len,
			    w->recv ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	file->wr_bytes -= w->len;
	kfree(w->buf);
	kfree(w);
}

/* Allocate, map and name a request; the caller posts it. */
static struct ib_async_wr *ib_async_wr_new(struct ib_async_file *file,
					   struct ib_async_uobj *owner,
					   u32 len, bool recv)
{
	struct ib_async_wr *w;
	int ret = -ENOMEM;

	if (file->wr_count >= IB_ASYNC_MAX_WRS ||
	    file->wr_bytes + len > IB_ASYNC_MAX_WR_BYTES)
		return ERR_PTR(-ENOSPC);

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return ERR_PTR(-ENOMEM);
	w->owner = owner;
	w->dev = owner->type == IB_ASYNC_OBJ_SRQ ? owner->srq->device :
						   owner->qp->device;
	w->len = len;
	w->recv = recv;
	/* At least one byte, so that even an empty message has a mapping. */
	w->map_len = max_t(u32, len, 1);
	w->buf = kzalloc(w->map_len, GFP_KERNEL_ACCOUNT);
	if (!w->buf)
		goto err_free;
	w->dma = ib_dma_map_single(w->dev, w->buf, w->map_len,
				   recv ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ib_dma_mapping_error(w->dev, w->dma))
		goto err_buf;
	ret = xa_alloc(&file->wrs, &w->id, w, xa_limit_31b, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_unmap;
	file->wr_bytes += len;
	file->wr_count++;
	return w;

err_unmap:
	ib_dma_unmap_single(w->dev, w->dma, w->map_len,
			    recv ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
err_buf:
	kfree(w->buf);
err_free:
	kfree(w);
	return ERR_PTR(ret);
}

static void ib_async_wr_drop(struct ib_async_file *file, struct ib_async_wr *w)
{
	xa_erase(&file->wrs, w->id);
	file->wr_count--;
	ib_async_wr_free(file, w);
}

/**
 * ib_async_free_wrs - free the requests of a destroyed QP or SRQ
 * @file: the file
 * @owner: the QP or SRQ, whose verbs object is gone
 *
 * Called with obj_mutex held.
 */
void ib_async_free_wrs(struct ib_async_file *file, struct ib_async_uobj *owner)
{
	struct ib_async_wr *w;
	unsigned long id;

	xa_for_each(&file->wrs, id, w)
		if (w->owner == owner)
			ib_async_wr_drop(file, w);
}

static struct ib_sge ib_async_wr_sge(struct ib_async_wr *w, struct ib_pd *pd)
{
	return (struct ib_sge){
		.addr = w->dma,
		.length = w->len,
		.lkey = pd->local_dma_lkey,
	};
}

int ib_async_cmd_post_recv(struct ib_async_file *file, void __user *uarg)
{
	const struct ib_recv_wr *bad;
	struct ib_async_post_recv arg;
	struct ib_async_uobj *owner;
	struct ib_recv_wr wr = {};
	struct ib_async_wr *w;
	struct ib_sge sge;
	int ret;

	ret = ib_async_get_arg(&arg, sizeof(arg), IB_ASYNC_POST_RECV_SIZE_V1,
			       uarg);
	if (ret)
		return ret;
	if (arg.flags || arg.reserved || arg.length > IB_ASYNC_MAX_MSG ||
	    (arg.obj_type != IB_ASYNC_OBJ_QP &&
	     arg.obj_type != IB_ASYNC_OBJ_SRQ))
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(arg.addr), arg.length))
		return -EFAULT;
	owner = ib_async_uobj_get(file, arg.handle, arg.obj_type);
	if (IS_ERR(owner))
		return PTR_ERR(owner);

	w = ib_async_wr_new(file, owner, arg.length, true);
	if (IS_ERR(w))
		return PTR_ERR(w);
	w->wr_id = arg.wr_id;
	w->uaddr = arg.addr;
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
		ib_async_wr_drop(file, w);
	return ret;
}

int ib_async_cmd_post_send(struct ib_async_file *file, void __user *uarg)
{
	struct ib_async_uobj *qp, *ah = NULL;
	const struct ib_send_wr *bad;
	struct ib_async_post_send arg;
	struct ib_ud_wr wr = {};
	struct ib_async_wr *w;
	struct ib_sge sge;
	int ret;

	ret = ib_async_get_arg(&arg, sizeof(arg), IB_ASYNC_POST_SEND_SIZE_V1,
			       uarg);
	if (ret)
		return ret;
	if (arg.flags || arg.length > IB_ASYNC_MAX_MSG ||
	    arg.send_flags & ~IB_ASYNC_SEND_SIGNALED ||
	    (arg.opcode != IB_ASYNC_WR_SEND &&
	     arg.opcode != IB_ASYNC_WR_SEND_WITH_IMM))
		return -EINVAL;
	qp = ib_async_uobj_get(file, arg.handle, IB_ASYNC_OBJ_QP);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	if (qp->qp->qp_type == IB_QPT_UD) {
		ah = ib_async_uobj_get(file, arg.ah_handle, IB_ASYNC_OBJ_AH);
		if (IS_ERR(ah))
			return PTR_ERR(ah);
	} else if (arg.ah_handle || arg.remote_qpn || arg.remote_qkey) {
		return -EINVAL;
	}

	w = ib_async_wr_new(file, qp, arg.length, false);
	if (IS_ERR(w))
		return PTR_ERR(w);
	w->wr_id = arg.wr_id;
	w->hidden = !(arg.send_flags & IB_ASYNC_SEND_SIGNALED) &&
		    !qp->sq_sig_all;
	if (copy_from_user(w->buf, u64_to_user_ptr(arg.addr), arg.length)) {
		ib_async_wr_drop(file, w);
		return -EFAULT;
	}
	ib_dma_sync_single_for_device(qp->qp->device, w->dma, arg.length,
				      DMA_TO_DEVICE);
	sge = ib_async_wr_sge(w, qp->qp->pd);
	wr.wr.wr_id = w->id;
	wr.wr.num_sge = 1;
	wr.wr.sg_list = &sge;
	wr.wr.opcode = arg.opcode;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.ex.imm_data = arg.imm_data;
	if (ah) {
		wr.ah = ah->ah;
		wr.remote_qpn = arg.remote_qpn;
		wr.remote_qkey = arg.remote_qkey;
	}
	ret = ib_post_send(qp->qp, &wr.wr, &bad);
	if (ret)
		ib_async_wr_drop(file, w);
	return ret;
}

/* Finish one completion; false if it is not returned to the caller. */
static bool ib_async_complete(struct ib_async_file *file,
			      const struct ib_wc *wc, struct ib_async_wc *uwc)
{
	struct ib_async_wr *w = xa_load(&file->wrs, wc->wr_id);
	u32 status = wc->status;
	bool shown;

	/* A request freed with its QP or SRQ: its completion is stale. */
	if (!w)
		return false;
	if (w->recv && status == IB_WC_SUCCESS) {
		u32 n = min(wc->byte_len, w->len);

		ib_dma_sync_single_for_cpu(w->dev, w->dma, n,
					   DMA_FROM_DEVICE);
		if (copy_to_user(u64_to_user_ptr(w->uaddr), w->buf, n))
			status = IB_WC_LOC_PROT_ERR;
	}
	shown = !w->hidden || status != IB_WC_SUCCESS;
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = w->wr_id;
	uwc->status = status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp ? wc->qp->qp_num : 0;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = wc->wc_flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	ib_async_wr_drop(file, w);
	return shown;
}

#define IB_ASYNC_POLL_BATCH	8

int ib_async_cmd_poll_cq(struct ib_async_file *file, void __user *uarg)
{
	struct ib_wc wc[IB_ASYNC_POLL_BATCH];
	struct ib_async_poll_cq __user *uptr = uarg;
	struct ib_async_poll_cq arg;
	struct ib_async_wc __user *out;
	struct ib_async_uobj *cq;
	struct ib_async_wc uwc;
	u32 done = 0;
	int ret, i, n;

	ret = ib_async_get_arg(&arg, sizeof(arg), IB_ASYNC_POLL_CQ_SIZE_V1,
			       uarg);
	if (ret)
		return ret;
	if (arg.flags)
		return -EINVAL;
	out = u64_to_user_ptr(arg.wc);
	if (!access_ok(out, (size_t)arg.count * sizeof(uwc)))
		return -EFAULT;
	cq = ib_async_uobj_get(file, arg.handle, IB_ASYNC_OBJ_CQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);

	while (done < arg.count) {
		n = ib_poll_cq(cq->cq, min_t(u32, arg.count - done,
					     IB_ASYNC_POLL_BATCH), wc);
		if (n <= 0) {
			ret = n;
			break;
		}
		for (i = 0; i < n; i++) {
			/*
			 * Polled completions are gone from the CQ: a fault
			 * here loses them, as it would in the driver's
			 * own poll; stop and report what was delivered.
			 */
			if (!ib_async_complete(file, &wc[i], &uwc))
				continue;
			if (copy_to_user(&out[done], &uwc, sizeof(uwc))) {
				ret = -EFAULT;
				goto out;
			}
			done++;
		}
	}
out:
	if (put_user(done, &uptr->count))
		return -EFAULT;
	/* What was delivered counts; an error without delivery is returned. */
	return done ? 0 : min(ret, 0);
}

// SPDX-License-Identifier: GPL-2.0
/* HAVE_OPS_RESIZE_CQ: drivers offer resize_cq(), which kernel verbs reach (until 7.1) */
#include <rdma/ib_verbs.h>

static int probe_resize(struct ib_cq *cq, int cqe, struct ib_udata *udata)
{
	return 0;
}

static const struct ib_device_ops __maybe_unused probe_ops = {
	.resize_cq = probe_resize,
};

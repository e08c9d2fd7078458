// SPDX-License-Identifier: GPL-2.0
/* HAVE_REG_USER_MR_DMAH: a driver's reg_user_mr() takes a DMA handle (6.17) */
#include <rdma/ib_verbs.h>

static struct ib_mr *probe_reg(struct ib_pd *pd, u64 start, u64 length,
			       u64 iova, int access, struct ib_dmah *dmah,
			       struct ib_udata *udata)
{
	return NULL;
}

static const struct ib_device_ops __maybe_unused probe_ops = {
	.reg_user_mr = probe_reg,
};

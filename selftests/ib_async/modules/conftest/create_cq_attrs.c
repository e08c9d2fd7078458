// SPDX-License-Identifier: GPL-2.0
/* HAVE_CREATE_CQ_ATTRS: a driver's create_cq() takes the uverbs attribute bundle (6.11) */
#include <rdma/ib_verbs.h>

static int probe_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return 0;
}

static const struct ib_device_ops __maybe_unused probe_ops = {
	.create_cq = probe_create_cq,
};

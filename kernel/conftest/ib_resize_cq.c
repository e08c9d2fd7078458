// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* HAVE_IB_RESIZE_CQ: kernel verbs can resize a CQ with ib_resize_cq() (gone in 7.1) */
#include <rdma/ib_verbs.h>

static int __maybe_unused probe(struct ib_cq *cq)
{
	return ib_resize_cq(cq, 1);
}

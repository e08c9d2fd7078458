// SPDX-License-Identifier: GPL-2.0
/* HAVE_IB_WR_FLUSH: the FLUSH work request opcode exists (6.2) */
#include <rdma/ib_verbs.h>

static const enum ib_wr_opcode __maybe_unused probe_op = IB_WR_FLUSH;

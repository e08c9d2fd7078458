/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_async_strict: a test-only checker in front of rxe that asserts what
 * hardware RDMA drivers silently assume of kernel work requests.
 *
 * mlx5, mlx4, bnxt_re and pvrdma trust a kernel caller's work requests:
 * they read ud_wr(wr)->ah of any request on a UD QP whatever its opcode,
 * and hand SGE addresses under the PD's local_dma_lkey to the device as
 * they are. rxe checks more, so a hole in ib_async's validation of what a
 * user asked for stays invisible on the rxe test bed. This module kprobes
 * rxe's post verbs (through its ops table they are real symbols), follows
 * the PDs, AHs and MRs rxe creates and destroys, and WARNs about every
 * kernel request a hardware driver would have misused. It only reports
 * what it can prove: whatever it did not see being created is not judged
 * and only counted as unchecked.
 */
#ifndef IB_ASYNC_STRICT_H
#define IB_ASYNC_STRICT_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "conftest.h"

/* The tracked kinds, also bits of what a check needs tracked. */
enum strict_kind {
	STRICT_PD = 1,
	STRICT_AH = 2,
	STRICT_MR = 4,
};

/**
 * struct strict_obj - a copy of one tracked object, as looked up
 * @dev: the device of the object
 * @pd: the PD it belongs to (a PD: itself)
 * @ptr: the ib_pd, ib_ah or ib_mr
 * @lkey: an MR's lkey as last registered
 * @iova: a registered MR's first address
 * @length: a registered MR's length in bytes
 * @dma: a DMA MR: any kernel address, no range
 * @unsure: a REG_MR of it failed to post: its range is not known
 */
struct strict_obj {
	const void *dev;
	const void *pd;
	const void *ptr;
	u32 lkey;
	u64 iova;
	u64 length;
	bool dma;
	bool unsure;
};

/**
 * struct strict_target - what a work request is posted to
 * @dev: the QP's or SRQ's device
 * @pd: its PD
 * @type: the QP's type (an SRQ: IB_QPT_MAX, which has no send queue)
 * @dev_dma: the device has a local_dma_lkey of its own (no DMA MR)
 * @dev_dma_lkey: that lkey
 */
struct strict_target {
	const void *dev;
	const void *pd;
	enum ib_qp_type type;
	bool dev_dma;
	u32 dev_dma_lkey;
};

/**
 * struct strict_ctx - one walk of the checker over a post
 * @judge: the kinds whose tracking is complete: only those are judged
 * @expected: the selftest's synthetic requests: count, do not WARN
 * @caught: violations found in expected mode
 * @reg_mrs: MRs a REG_MR of this post registered, to doubt if it fails
 * @nreg: how many of @reg_mrs are used
 * @reg_overflow: more REG_MRs than @reg_mrs holds
 */
struct strict_ctx {
	unsigned int judge;
	bool expected;
	unsigned int caught;
	const struct ib_mr *reg_mrs[4];
	unsigned int nreg;
	bool reg_overflow;
};

/* What a violation was, for its count and its rate limit. */
enum strict_violation {
	STRICT_V_OPCODE,	/* opcode not valid on the QP type */
	STRICT_V_AH,		/* UD/GSI AH not live */
	STRICT_V_AH_DEV,	/* AH of another device */
	STRICT_V_AH_PD,		/* UD AH of another PD */
	STRICT_V_LKEY,		/* lkey of no MR of the PD */
	STRICT_V_LKEY_PD,	/* lkey of another PD's MR */
	STRICT_V_RANGE,		/* SGE outside the MR's registered range */
	STRICT_V_DMA,		/* DMA lkey on memory that is not the kernel's */
	STRICT_V_INLINE,	/* inline data that is not the kernel's */
	STRICT_V_POINTER,	/* a request or SGE list that is not the kernel's */
	STRICT_V_NR,
};

extern const char *const strict_violation_names[STRICT_V_NR];

/**
 * struct strict_stats - the counters of debugfs
 * @checked: work requests examined
 * @violations: requests a hardware driver would have misused
 * @unchecked: checks skipped because tracking was incomplete
 * @selftest_caught: the selftest's bad requests found
 * @by_kind: @violations by enum strict_violation
 */
struct strict_stats {
	atomic_long_t checked;
	atomic_long_t violations;
	atomic_long_t unchecked;
	atomic_long_t selftest_caught;
	atomic_long_t by_kind[STRICT_V_NR];
};

extern struct strict_stats strict_stats;

/* ib_async_strict_track.c */
int strict_track_add(enum strict_kind kind, const struct strict_obj *obj,
		     unsigned long session);
void strict_track_del(enum strict_kind kind, const void *dev,
		      const void *ptr, u32 lkey);
bool strict_track_find(enum strict_kind kind, const void *dev,
		       const void *ptr, u32 lkey, struct strict_obj *out);
void strict_track_reg_mr(const struct ib_mr *mr, u32 key);
void strict_track_doubt_mr(const struct ib_mr *mr);
unsigned long strict_track_session(void);
void strict_track_reset(void);
void strict_track_lose(unsigned int kinds);
unsigned int strict_track_complete(void);
extern struct kretprobe strict_rp_alloc_pd, strict_rp_create_ah,
	strict_rp_alloc_mr, strict_rp_get_dma_mr, strict_rp_reg_user_mr;
extern struct kprobe strict_kp_dealloc_pd, strict_kp_destroy_ah,
	strict_kp_dereg_mr;
extern bool strict_tracking;

/* ib_async_strict_check.c */
void strict_check_init(void);
void strict_check_send(struct strict_ctx *ctx, const struct strict_target *t,
		       const struct ib_send_wr *wr);
void strict_check_recv(struct strict_ctx *ctx, const struct strict_target *t,
		       const struct ib_recv_wr *wr);
int strict_selftest(void);
extern struct kretprobe strict_rp_post_send;
extern struct kprobe strict_kp_post_recv, strict_kp_post_srq_recv;

/* ib_async_strict_main.c */
unsigned int strict_judgeable(void);

#endif /* IB_ASYNC_STRICT_H */

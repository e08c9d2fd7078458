// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_strict: the checks of kernel work requests posted to rxe.
 *
 * What a hardware driver assumes of a kernel caller, and rxe does not:
 *  - the opcode suits the QP type (mlx5 and others build a UD request
 *    from ud_wr(wr) whatever the opcode says);
 *  - a UD or GSI request's ud_wr(wr)->ah is a live AH of the QP's device
 *    (and of its PD, on UD): the driver copies the address vector from it;
 *  - an SGE's lkey is an MR of the QP's (or SRQ's) PD and the SGE lies in
 *    what that MR registered; under a DMA MR (the PD's local_dma_lkey) the
 *    address is kernel memory, since a device takes it as a bus address;
 *  - inline data is kernel memory: the driver memcpy()s it.
 * User QPs and SRQs are skipped: rxe takes their requests from the ring
 * the user filled, not from @wr.
 */
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/ratelimit.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ib_async_strict.h"

/* Longer lists are checked this far; rxe's queues are shorter. */
#define STRICT_MAX_CHAIN	4096
/* rxe's RXE_MAX_SGE; more than the device offers is not walked */
#define STRICT_MAX_SGE		32

#define QPT(t)		BIT(IB_QPT_##t)
#define STRICT_QPTS	(QPT(GSI) | QPT(RC) | QPT(UC) | QPT(UD))

/*
 * The QP types each opcode is valid on: rxe's rxe_wr_opcode_info[]
 * without SEND_WITH_INV on UD, which ib_uverbs refuses there and which
 * a hardware driver would build from ud_wr(wr) as any UD send. Opcodes
 * rxe does not know (LSO, masked atomics, REG_MR_INTEGRITY) are valid
 * nowhere on it.
 */
static const u16 strict_opcode_qpts[] = {
	[IB_WR_RDMA_WRITE]		= QPT(RC) | QPT(UC),
	[IB_WR_RDMA_WRITE_WITH_IMM]	= QPT(RC) | QPT(UC),
	[IB_WR_SEND]			= STRICT_QPTS,
	[IB_WR_SEND_WITH_IMM]		= STRICT_QPTS,
	[IB_WR_RDMA_READ]		= QPT(RC),
	[IB_WR_ATOMIC_CMP_AND_SWP]	= QPT(RC),
	[IB_WR_ATOMIC_FETCH_AND_ADD]	= QPT(RC),
	[IB_WR_BIND_MW]			= QPT(RC) | QPT(UC),
	[IB_WR_SEND_WITH_INV]		= QPT(RC) | QPT(UC),
	[IB_WR_RDMA_READ_WITH_INV]	= QPT(RC),
	[IB_WR_LOCAL_INV]		= QPT(RC),
	[IB_WR_REG_MR]			= QPT(RC),
#ifdef HAVE_IB_WR_FLUSH
	[IB_WR_FLUSH]			= QPT(RC),
#endif
#ifdef HAVE_IB_WR_ATOMIC_WRITE
	[IB_WR_ATOMIC_WRITE]		= QPT(RC),
#endif
};

static const char *const strict_qpt_names[] = {
	[IB_QPT_SMI] = "SMI", [IB_QPT_GSI] = "GSI", [IB_QPT_RC] = "RC",
	[IB_QPT_UC] = "UC", [IB_QPT_UD] = "UD",
};

struct strict_stats strict_stats;

static const char *strict_qpt_name(enum ib_qp_type type)
{
	if (type < ARRAY_SIZE(strict_qpt_names) && strict_qpt_names[type])
		return strict_qpt_names[type];
	return "other";
}

/* The QP types whose opcodes the table knows: others are not judged. */
static bool strict_qpt_judged(enum ib_qp_type type)
{
	return type <= IB_QPT_UD && (BIT(type) & STRICT_QPTS);
}

static bool strict_opcode_valid(enum ib_wr_opcode op, enum ib_qp_type type)
{
	return op < ARRAY_SIZE(strict_opcode_qpts) &&
	       (strict_opcode_qpts[op] & BIT(type));
}

const char *const strict_violation_names[STRICT_V_NR] = {
	[STRICT_V_OPCODE] = "opcode",
	[STRICT_V_AH] = "ah",
	[STRICT_V_AH_DEV] = "ah_device",
	[STRICT_V_AH_PD] = "ah_pd",
	[STRICT_V_LKEY] = "lkey",
	[STRICT_V_LKEY_PD] = "lkey_pd",
	[STRICT_V_RANGE] = "mr_range",
	[STRICT_V_DMA] = "dma_addr",
	[STRICT_V_INLINE] = "inline_addr",
	[STRICT_V_POINTER] = "wr_pointer",
};

/* Each kind its own limit: a flood of one must not hide another. */
static struct ratelimit_state strict_rs[STRICT_V_NR];

/**
 * strict_check_init() - set the reports' rate limits up
 */
void strict_check_init(void)
{
	unsigned int i;

	for (i = 0; i < STRICT_V_NR; i++)
		ratelimit_state_init(&strict_rs[i], 5 * HZ, 5);
}

static __printf(3, 4)
void strict_violation(struct strict_ctx *ctx, enum strict_violation v,
		      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (ctx->expected) {
		ctx->caught++;
		return;
	}
	atomic_long_inc(&strict_stats.violations);
	atomic_long_inc(&strict_stats.by_kind[v]);
	if (!__ratelimit(&strict_rs[v]))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	/* the stack names who posted it: the point of the report */
	WARN(1, "ib_async_strict: %pV\n", &vaf);
	va_end(args);
}

static void strict_unchecked(struct strict_ctx *ctx)
{
	if (!ctx->expected)
		atomic_long_inc(&strict_stats.unchecked);
}

/* Kernel memory: the direct map, the kernel image, vmalloc or modules. */
static bool strict_kernel_addr(unsigned long a)
{
	if (a < TASK_SIZE_MAX)
		return false;
	if (virt_addr_valid((void *)a) || is_vmalloc_addr((void *)a))
		return true;
#ifdef MODULES_VADDR
	if (a >= MODULES_VADDR && a < MODULES_END)
		return true;
#endif
	return false;
}

static bool strict_kernel_range(u64 addr, u64 len)
{
	if (!len)
		return true;
	if (addr + len - 1 < addr)
		return false;
	return strict_kernel_addr(addr) && strict_kernel_addr(addr + len - 1);
}

/* The target's PD, if the checker saw it created: its objects are known. */
static bool strict_pd_known(const struct strict_target *t)
{
	struct strict_obj pd;

	return strict_track_find(STRICT_PD, t->dev, t->pd, 0, &pd) &&
	       pd.dev == t->dev;
}

static void strict_check_sge(struct strict_ctx *ctx,
			     const struct strict_target *t, bool pd_known,
			     const struct ib_sge *sge)
{
	struct strict_obj mr;

	if (t->dev_dma && sge->lkey == t->dev_dma_lkey) {
		/* the device's own DMA lkey: no MR behind it */
		mr = (struct strict_obj){ .pd = t->pd, .lkey = sge->lkey,
					  .dma = true };
	} else if (!pd_known || !(ctx->judge & STRICT_MR)) {
		strict_unchecked(ctx);
		return;
	} else if (!strict_track_find(STRICT_MR, t->dev, NULL, sge->lkey,
				      &mr)) {
		strict_violation(ctx, STRICT_V_LKEY,
				 "lkey %#x is no MR of the PD (addr %#llx len %u)",
				 sge->lkey, sge->addr, sge->length);
		return;
	}
	if (mr.pd != t->pd) {
		strict_violation(ctx, STRICT_V_LKEY_PD,
				 "lkey %#x is of another PD (addr %#llx len %u)",
				 sge->lkey, sge->addr, sge->length);
		return;
	}
	/* a stale key byte: the device refuses it by itself */
	if (mr.lkey != sge->lkey) {
		strict_unchecked(ctx);
		return;
	}
	if (mr.dma) {
		if (!strict_kernel_range(sge->addr, sge->length))
			strict_violation(ctx, STRICT_V_DMA,
					 "DMA lkey %#x on non-kernel addr %#llx len %u",
					 sge->lkey, sge->addr, sge->length);
		return;
	}
	if (mr.unsure) {
		strict_unchecked(ctx);
		return;
	}
	if (sge->addr < mr.iova || sge->length > mr.length ||
	    sge->addr - mr.iova > mr.length - sge->length)
		strict_violation(ctx, STRICT_V_RANGE,
				 "lkey %#x: addr %#llx len %u beyond MR [%#llx +%#llx)",
				 sge->lkey, sge->addr, sge->length, mr.iova,
				 mr.length);
}

/* The gather or scatter list; false if it cannot be read. */
static bool strict_check_sges(struct strict_ctx *ctx,
			      const struct strict_target *t, bool pd_known,
			      const struct ib_sge *sg, int num_sge,
			      bool inline_data)
{
	int i;

	if (num_sge <= 0)
		return true;
	if (num_sge > STRICT_MAX_SGE) {
		/* rxe refuses it before it reads the list */
		strict_unchecked(ctx);
		return true;
	}
	if (!strict_kernel_range((unsigned long)sg, num_sge * sizeof(*sg))) {
		strict_violation(ctx, STRICT_V_POINTER,
				 "sg_list %#lx of %d entries is not kernel memory",
				 (unsigned long)sg, num_sge);
		return false;
	}
	for (i = 0; i < num_sge; i++) {
		if (!inline_data) {
			strict_check_sge(ctx, t, pd_known, &sg[i]);
			continue;
		}
		if (!strict_kernel_range(sg[i].addr, sg[i].length))
			strict_violation(ctx, STRICT_V_INLINE,
					 "inline data at %#llx length %u is not kernel memory",
					 sg[i].addr, sg[i].length);
	}
	return true;
}

static void strict_check_ah(struct strict_ctx *ctx,
			    const struct strict_target *t, bool pd_known,
			    const struct ib_ah *ah)
{
	struct strict_obj o;

	if (!pd_known || !(ctx->judge & STRICT_AH)) {
		strict_unchecked(ctx);
		return;
	}
	if (!strict_track_find(STRICT_AH, t->dev, ah, 0, &o)) {
		strict_violation(ctx, STRICT_V_AH, "%s QP: ah %#lx is no live AH",
				 strict_qpt_name(t->type), (unsigned long)ah);
		return;
	}
	if (o.dev != t->dev)
		strict_violation(ctx, STRICT_V_AH_DEV, "%s QP: ah %#lx is of another device",
				 strict_qpt_name(t->type), (unsigned long)ah);
	else if (t->type == IB_QPT_UD && o.pd != t->pd)
		strict_violation(ctx, STRICT_V_AH_PD, "UD QP: ah %#lx is of another PD",
				 (unsigned long)ah);
}

/* One send request; false if the list cannot be followed further. */
static bool strict_check_one_send(struct strict_ctx *ctx,
				  const struct strict_target *t,
				  bool pd_known, const struct ib_send_wr *wr)
{
	bool ud = t->type == IB_QPT_UD || t->type == IB_QPT_GSI;
	struct ib_ah *ah;

	if (!strict_qpt_judged(t->type)) {
		strict_unchecked(ctx);
	} else if (!strict_opcode_valid(wr->opcode, t->type)) {
		/* what a driver that trusts the opcode would take for an AH */
		if (!ud || get_kernel_nofault(ah, &ud_wr(wr)->ah))
			ah = NULL;
		strict_violation(ctx, STRICT_V_OPCODE, "opcode %u on a %s QP (ah would be %#lx)",
				 wr->opcode, strict_qpt_name(t->type),
				 (unsigned long)ah);
	} else if (ud) {
		/* a valid opcode on UD: the caller built a struct ib_ud_wr */
		strict_check_ah(ctx, t, pd_known, ud_wr(wr)->ah);
	} else if (wr->opcode == IB_WR_REG_MR) {
		const struct ib_reg_wr *reg = reg_wr(wr);

		strict_track_reg_mr(reg->mr, reg->key);
		if (ctx->nreg < ARRAY_SIZE(ctx->reg_mrs))
			ctx->reg_mrs[ctx->nreg++] = reg->mr;
		else
			ctx->reg_overflow = true;
	}
	return strict_check_sges(ctx, t, pd_known, wr->sg_list, wr->num_sge,
				 wr->send_flags & IB_SEND_INLINE);
}

/**
 * strict_check_send() - check a list of send requests as a driver takes it
 * @ctx: this walk: what is judged, where violations go
 * @t: the QP
 * @wr: the first request
 */
void strict_check_send(struct strict_ctx *ctx, const struct strict_target *t,
		       const struct ib_send_wr *wr)
{
	bool pd_known = strict_pd_known(t);
	unsigned int n;

	for (n = 0; wr && n < STRICT_MAX_CHAIN; n++, wr = wr->next) {
		if (!strict_kernel_range((unsigned long)wr, sizeof(*wr))) {
			strict_violation(ctx, STRICT_V_POINTER,
					 "send request %#lx is not kernel memory",
					 (unsigned long)wr);
			return;
		}
		if (!ctx->expected)
			atomic_long_inc(&strict_stats.checked);
		if (!strict_check_one_send(ctx, t, pd_known, wr))
			return;
	}
	if (wr)
		strict_unchecked(ctx);
}

/**
 * strict_check_recv() - check a list of receive requests
 * @ctx: this walk
 * @t: the QP or SRQ
 * @wr: the first request
 */
void strict_check_recv(struct strict_ctx *ctx, const struct strict_target *t,
		       const struct ib_recv_wr *wr)
{
	bool pd_known = strict_pd_known(t);
	unsigned int n;

	for (n = 0; wr && n < STRICT_MAX_CHAIN; n++, wr = wr->next) {
		if (!strict_kernel_range((unsigned long)wr, sizeof(*wr))) {
			strict_violation(ctx, STRICT_V_POINTER,
					 "receive request %#lx is not kernel memory",
					 (unsigned long)wr);
			return;
		}
		if (!ctx->expected)
			atomic_long_inc(&strict_stats.checked);
		if (!strict_check_sges(ctx, t, pd_known, wr->sg_list,
				       wr->num_sge, false))
			return;
	}
	if (wr)
		strict_unchecked(ctx);
}

/*
 * The post verbs. rxe_post_send is a kretprobe: when the post fails, the
 * REG_MRs it carried may not have happened (strict_track_doubt_mr()).
 */
static void strict_target_init(struct strict_target *t,
			       const struct ib_device *dev,
			       const struct ib_pd *pd, enum ib_qp_type type)
{
	*t = (struct strict_target){
		.dev = dev, .pd = pd, .type = type,
		.dev_dma = dev->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY,
		.dev_dma_lkey = dev->local_dma_lkey,
	};
}

static int strict_post_send_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct strict_ctx *ctx = (struct strict_ctx *)ri->data;
	struct ib_qp *qp = (struct ib_qp *)regs_get_kernel_argument(regs, 0);
	const struct ib_send_wr *wr =
		(const struct ib_send_wr *)regs_get_kernel_argument(regs, 1);
	struct strict_target t;

	if (qp->uobject)
		return 1;
	strict_target_init(&t, qp->device, qp->pd, qp->qp_type);
	*ctx = (struct strict_ctx){ .judge = strict_judgeable() };
	strict_check_send(ctx, &t, wr);
	return ctx->nreg || ctx->reg_overflow ? 0 : 1;
}

static int strict_post_send_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct strict_ctx *ctx = (struct strict_ctx *)ri->data;
	unsigned int i;

	if (!regs_return_value(regs))
		return 0;
	for (i = 0; i < ctx->nreg; i++)
		strict_track_doubt_mr(ctx->reg_mrs[i]);
	if (ctx->reg_overflow)
		strict_track_lose(STRICT_MR);
	return 0;
}

struct kretprobe strict_rp_post_send = {
	.kp.symbol_name = "rxe_post_send",
	.entry_handler = strict_post_send_entry,
	.handler = strict_post_send_ret,
	.data_size = sizeof(struct strict_ctx),
	.maxactive = 128,
};

static int strict_post_recv_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ib_qp *qp = (struct ib_qp *)regs_get_kernel_argument(regs, 0);
	struct strict_ctx ctx = { .judge = strict_judgeable() };
	struct strict_target t;

	if (qp->uobject)
		return 0;
	strict_target_init(&t, qp->device, qp->pd, qp->qp_type);
	strict_check_recv(&ctx, &t, (const struct ib_recv_wr *)
			  regs_get_kernel_argument(regs, 1));
	return 0;
}

static int strict_post_srq_recv_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ib_srq *srq = (struct ib_srq *)regs_get_kernel_argument(regs, 0);
	struct strict_ctx ctx = { .judge = strict_judgeable() };
	struct strict_target t;

	if (srq->uobject)
		return 0;
	strict_target_init(&t, srq->device, srq->pd, IB_QPT_MAX);
	strict_check_recv(&ctx, &t, (const struct ib_recv_wr *)
			  regs_get_kernel_argument(regs, 1));
	return 0;
}

struct kprobe strict_kp_post_recv = {
	.symbol_name = "rxe_post_recv",
	.pre_handler = strict_post_recv_pre,
};

struct kprobe strict_kp_post_srq_recv = {
	.symbol_name = "rxe_post_srq_recv",
	.pre_handler = strict_post_srq_recv_pre,
};

/*
 * The selftest: the checks themselves on synthetic requests, against
 * objects of a device that does not exist (addresses in this module,
 * which no rxe object can have), in expected mode: counted, not WARNed.
 * Its table entries live only while it runs; the caller keeps the probes
 * from being (re)armed meanwhile, which would reset the table.
 */
static struct { int x; } strict_st_dev, strict_st_pd, strict_st_ah,
	strict_st_stranger_ah;

#define STRICT_ST_DMA_LKEY	0x00510100
#define STRICT_ST_BAD_LKEY	0x00deadff
#define STRICT_ST_USER_ADDR	0x10000ULL

/* What a bad request does not have wrong: a kernel buffer. */
static char strict_st_buf[64];

struct strict_st_case {
	const char *what;
	enum ib_qp_type type;
	enum ib_wr_opcode opcode;
	unsigned long ah;
	u32 lkey;
	u64 addr;
	bool inline_data;
	bool valid;
};

static const struct strict_st_case strict_st_cases[] = {
	{ "UD RDMA_WRITE", IB_QPT_UD, IB_WR_RDMA_WRITE,
	  0x4141414141414141UL, STRICT_ST_DMA_LKEY },
	{ "UD SEND with an untracked AH", IB_QPT_UD, IB_WR_SEND,
	  (unsigned long)&strict_st_stranger_ah, STRICT_ST_DMA_LKEY },
	{ "RC SEND with an unknown lkey", IB_QPT_RC, IB_WR_SEND, 0,
	  STRICT_ST_BAD_LKEY },
	{ "RC inline SEND of user memory", IB_QPT_RC, IB_WR_SEND, 0, 0,
	  STRICT_ST_USER_ADDR, true },
	{ "UD SEND as it should be", IB_QPT_UD, IB_WR_SEND,
	  (unsigned long)&strict_st_ah, STRICT_ST_DMA_LKEY, .valid = true },
};

static bool strict_st_run(const struct strict_st_case *c)
{
	struct strict_ctx ctx = {
		.judge = STRICT_PD | STRICT_AH | STRICT_MR, .expected = true,
	};
	struct strict_target t = {
		.dev = &strict_st_dev, .pd = &strict_st_pd, .type = c->type,
	};
	struct ib_sge sge = {
		.addr = c->addr ? c->addr : (unsigned long)strict_st_buf,
		.length = sizeof(strict_st_buf), .lkey = c->lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.opcode = c->opcode, .sg_list = &sge, .num_sge = 1,
			.send_flags = c->inline_data ? IB_SEND_INLINE : 0,
		},
		.ah = (struct ib_ah *)c->ah,
	};

	strict_check_send(&ctx, &t, &wr.wr);
	if (c->valid != !ctx.caught)
		pr_err("ib_async_strict: selftest: %s: %u violations found\n",
		       c->what, ctx.caught);
	if (!c->valid)
		atomic_long_add(ctx.caught, &strict_stats.selftest_caught);
	return c->valid == !ctx.caught;
}

/**
 * strict_selftest() - the checks on requests known good or bad
 *
 * Return: 0 if each bad one was caught and the good one passed, -EIO if
 * not, -ENOSPC if the table had no room for the synthetic objects.
 */
int strict_selftest(void)
{
	const struct strict_obj pd = {
		.dev = &strict_st_dev, .pd = &strict_st_pd, .ptr = &strict_st_pd,
	};
	const struct strict_obj ah = {
		.dev = &strict_st_dev, .pd = &strict_st_pd, .ptr = &strict_st_ah,
	};
	const struct strict_obj mr = {
		.dev = &strict_st_dev, .pd = &strict_st_pd, .ptr = &strict_st_buf,
		.lkey = STRICT_ST_DMA_LKEY, .dma = true,
	};
	unsigned long session = strict_track_session();
	unsigned int i;
	int ret = -ENOSPC;

	if (strict_track_add(STRICT_PD, &pd, session))
		return ret;
	if (strict_track_add(STRICT_AH, &ah, session))
		goto out_pd;
	if (strict_track_add(STRICT_MR, &mr, session))
		goto out_ah;
	ret = 0;
	for (i = 0; i < ARRAY_SIZE(strict_st_cases); i++)
		if (!strict_st_run(&strict_st_cases[i]))
			ret = -EIO;
	strict_track_del(STRICT_MR, &strict_st_dev, &strict_st_buf,
			 STRICT_ST_DMA_LKEY);
out_ah:
	strict_track_del(STRICT_AH, &strict_st_dev, &strict_st_ah, 0);
out_pd:
	strict_track_del(STRICT_PD, &strict_st_dev, &strict_st_pd, 0);
	return ret;
}

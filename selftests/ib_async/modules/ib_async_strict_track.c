// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_strict: the PDs, AHs and MRs rxe made and has not destroyed.
 *
 * Kretprobes on rxe's constructors record an object once it returned
 * successfully, kprobes on its destructors forget it. The probe handlers
 * run with preemption disabled, on PREEMPT_RT too, and may run in any
 * context: the table is a fixed array (open addressing, linear probing,
 * deletion by backward shift) under a raw spinlock, nothing allocates.
 * A kprobe that is not on ftrace runs from the int3 trap, which is an
 * NMI to lockdep, where only trylocks are allowed: the lock is taken by
 * spinning on a trylock (strict_table_lock()).
 *
 * PDs and AHs are found by their address, MRs by their device and the
 * index part of their lkey (all but its low byte, which the consumer owns
 * and changes with every fast registration), so that an SGE's lkey finds
 * its MR whatever key it was last registered with.
 *
 * Whatever the table could not take, and whatever a missed kretprobe did
 * not record, makes its kind incomplete (strict_track_lose()): the checker
 * then judges nothing that needs it, as an object it does not know might
 * be a valid one it never saw.
 */
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/processor.h>
#include <linux/ptrace.h>
#include <linux/spinlock.h>

#include "ib_async_strict.h"

#define STRICT_HASH_BITS	12
#define STRICT_SLOTS		BIT(STRICT_HASH_BITS)
/* Fuller than this, probe sequences grow long under a raw spinlock. */
#define STRICT_MAX_USED		(STRICT_SLOTS / 4 * 3)

struct strict_slot {
	u8 kind;		/* 0: free */
	unsigned long id;	/* a PD's or AH's address; an MR's lkey index */
	struct strict_obj obj;
};

static DEFINE_RAW_SPINLOCK(strict_lock);
static struct strict_slot strict_slots[STRICT_SLOTS];
static unsigned int strict_used;
/* enum strict_kind bits: kinds that lost an object since the last reset */
static unsigned int strict_lost;
/* which reset the table is at: records of an older one are refused */
static unsigned long strict_session;
/* set by ib_async_strict_main.c while every probe is armed */
bool strict_tracking;

/*
 * Interrupts off, then a trylock until it succeeds. Waiting so cannot
 * deadlock: a handler never interrupts this CPU's own critical section,
 * since interrupts are off in it and nothing in it reaches a probed
 * function of rxe.
 */
static unsigned long strict_table_lock(void)
	__acquires(&strict_lock)
{
	unsigned long flags;

	local_irq_save(flags);
	while (!raw_spin_trylock(&strict_lock))
		cpu_relax();
	return flags;
}

static void strict_table_unlock(unsigned long flags)
	__releases(&strict_lock)
{
	raw_spin_unlock(&strict_lock);
	local_irq_restore(flags);
}

/* The part of an lkey that names the MR; the low byte is its key. */
static unsigned long strict_mr_id(u32 lkey)
{
	return lkey >> 8;
}

static unsigned long strict_id(enum strict_kind kind, const void *ptr,
			       u32 lkey)
{
	return kind == STRICT_MR ? strict_mr_id(lkey) : (unsigned long)ptr;
}

static unsigned int strict_hash(enum strict_kind kind, const void *dev,
				unsigned long id)
{
	/* PDs and AHs are unique by address: their device is left out */
	unsigned long dev_bits = kind == STRICT_MR ? (unsigned long)dev : 0;

	return hash_long(id ^ dev_bits ^ kind, STRICT_HASH_BITS);
}

static bool strict_slot_is(const struct strict_slot *s,
			   enum strict_kind kind, const void *dev,
			   unsigned long id)
{
	return s->kind == kind && s->id == id &&
	       (kind != STRICT_MR || s->obj.dev == dev);
}

/* The slot of the object, or of the free slot that ends its sequence. */
static struct strict_slot *strict_slot_find(enum strict_kind kind,
					    const void *dev, unsigned long id)
{
	unsigned int i = strict_hash(kind, dev, id);

	lockdep_assert_held(&strict_lock);
	/* strict_used < STRICT_SLOTS: a free slot ends every sequence */
	while (strict_slots[i].kind &&
	       !strict_slot_is(&strict_slots[i], kind, dev, id))
		i = (i + 1) & (STRICT_SLOTS - 1);
	return &strict_slots[i];
}

/* Close the gap at @hole, so that no sequence is cut short by it. */
static void strict_slot_remove(struct strict_slot *hole)
{
	unsigned int h = hole - strict_slots, i = h, home;

	lockdep_assert_held(&strict_lock);
	for (;;) {
		i = (i + 1) & (STRICT_SLOTS - 1);
		if (!strict_slots[i].kind)
			break;
		home = strict_hash(strict_slots[i].kind, strict_slots[i].obj.dev,
				   strict_slots[i].id);
		/* stays if its home lies cyclically in (h, i] */
		if (((i - home) & (STRICT_SLOTS - 1)) <
		    ((i - h) & (STRICT_SLOTS - 1)))
			continue;
		strict_slots[h] = strict_slots[i];
		h = i;
	}
	strict_slots[h].kind = 0;
	strict_used--;
}

/**
 * strict_track_add() - record an object rxe created
 * @kind: what it is
 * @obj: its description; obj->ptr and, for an MR, obj->lkey name it
 * @session: strict_track_session() when its constructor was entered
 *
 * An object of the same name (a destroy the checker missed) is replaced.
 * One whose constructor began before the last reset is not recorded: the
 * table forgot its PD, or it belongs to a device that is gone.
 *
 * Return: 0, -ENOSPC when the table is full (@kind is then incomplete),
 * -ESTALE for an object of an older session.
 */
int strict_track_add(enum strict_kind kind, const struct strict_obj *obj,
		     unsigned long session)
{
	unsigned long id = strict_id(kind, obj->ptr, obj->lkey);
	struct strict_slot *s;
	unsigned long flags;
	int ret = 0;

	flags = strict_table_lock();
	if (session != strict_session) {
		ret = -ESTALE;
		goto out;
	}
	s = strict_slot_find(kind, obj->dev, id);
	if (!s->kind) {
		if (strict_used >= STRICT_MAX_USED) {
			/* an unknown PD only goes unjudged itself */
			if (kind != STRICT_PD)
				strict_lost |= kind;
			ret = -ENOSPC;
			goto out;
		}
		strict_used++;
	}
	s->kind = kind;
	s->id = id;
	s->obj = *obj;
out:
	strict_table_unlock(flags);
	return ret;
}

/**
 * strict_track_del() - forget an object rxe is destroying
 * @kind: what it is
 * @dev: its device
 * @ptr: the object
 * @lkey: an MR's current lkey
 *
 * Only the entry of that very object goes: an MR entry whose index
 * another MR took since stays.
 */
void strict_track_del(enum strict_kind kind, const void *dev,
		      const void *ptr, u32 lkey)
{
	struct strict_slot *s;
	unsigned long flags;

	flags = strict_table_lock();
	s = strict_slot_find(kind, dev, strict_id(kind, ptr, lkey));
	if (s->kind && s->obj.ptr == ptr)
		strict_slot_remove(s);
	strict_table_unlock(flags);
}

/**
 * strict_track_find() - look an object up
 * @kind: what it is
 * @dev: its device (an MR's; ignored for PDs and AHs)
 * @ptr: a PD or AH
 * @lkey: an lkey of an MR
 * @out: a copy of the entry, when found
 *
 * Return: whether it is tracked.
 */
bool strict_track_find(enum strict_kind kind, const void *dev,
		       const void *ptr, u32 lkey, struct strict_obj *out)
{
	struct strict_slot *s;
	unsigned long flags;
	bool found;

	flags = strict_table_lock();
	s = strict_slot_find(kind, dev, strict_id(kind, ptr, lkey));
	found = s->kind;
	if (found)
		*out = s->obj;
	strict_table_unlock(flags);
	return found;
}

/**
 * strict_track_reg_mr() - a REG_MR of @mr is being posted
 * @mr: the fast-registration MR, mapped by ib_map_mr_sg() before the post
 * @key: the lkey it is registered with
 *
 * The MR's range is the one ib_map_mr_sg() set in @mr (iova, length);
 * SGEs posted after this one, in the same list too, are judged against it.
 */
void strict_track_reg_mr(const struct ib_mr *mr, u32 key)
{
	struct strict_slot *s;
	unsigned long flags;

	flags = strict_table_lock();
	s = strict_slot_find(STRICT_MR, mr->device, strict_mr_id(key));
	if (s->kind && s->obj.ptr == mr) {
		s->obj.lkey = key;
		s->obj.iova = mr->iova;
		s->obj.length = mr->length;
		s->obj.unsure = false;
	}
	strict_table_unlock(flags);
}

/**
 * strict_track_doubt_mr() - a post with a REG_MR of @mr failed
 * @mr: the MR
 *
 * rxe may have refused that REG_MR: the MR may still have its old range
 * and key, so its range is no longer judged until the next REG_MR.
 */
void strict_track_doubt_mr(const struct ib_mr *mr)
{
	struct strict_slot *s;
	unsigned long flags;

	flags = strict_table_lock();
	s = strict_slot_find(STRICT_MR, mr->device, strict_mr_id(mr->lkey));
	if (s->kind && s->obj.ptr == mr)
		s->obj.unsure = true;
	strict_table_unlock(flags);
}

/**
 * strict_track_lose() - objects of @kinds went unrecorded
 * @kinds: enum strict_kind bits
 *
 * Until the next reset, nothing that needs them is judged.
 */
void strict_track_lose(unsigned int kinds)
{
	unsigned long flags;

	flags = strict_table_lock();
	strict_lost |= kinds;
	strict_table_unlock(flags);
}

/**
 * strict_track_complete() - the kinds that lost nothing since the reset
 *
 * Return: enum strict_kind bits.
 */
unsigned int strict_track_complete(void)
{
	return (STRICT_PD | STRICT_AH | STRICT_MR) & ~READ_ONCE(strict_lost);
}

/**
 * strict_track_session() - the table's current session
 *
 * Return: what strict_track_add() wants for an object created from now.
 */
unsigned long strict_track_session(void)
{
	return READ_ONCE(strict_session);
}

/**
 * strict_track_reset() - forget everything, start a new session
 *
 * For a checker armed anew (rxe was loaded again, or probes came that
 * were missing) or disarmed: the objects from before are unknown, and a
 * constructor still running from then records nothing.
 */
void strict_track_reset(void)
{
	unsigned long flags;
	unsigned int i;

	flags = strict_table_lock();
	for (i = 0; i < STRICT_SLOTS; i++)
		strict_slots[i].kind = 0;
	strict_used = 0;
	strict_lost = 0;
	WRITE_ONCE(strict_session, strict_session + 1);
	strict_table_unlock(flags);
}

/*
 * The probes. Entry handlers keep the arguments their return handler
 * needs (struct strict_args, in the instance's data); a return handler
 * records the object if the constructor succeeded, in the session it was
 * entered in. Every probe is armed before a session starts, so a PD
 * recorded in it has all its later AHs and MRs recorded too.
 */
struct strict_args {
	unsigned long session;
	void *obj;		/* arg 0: the PD, AH or the MR's PD */
	u64 length;		/* reg_user_mr */
	u64 iova;
};

static int strict_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct strict_args *a = (struct strict_args *)ri->data;

	if (!READ_ONCE(strict_tracking))
		return 1;	/* no return handler */
	a->session = strict_track_session();
	a->obj = (void *)regs_get_kernel_argument(regs, 0);
	a->length = regs_get_kernel_argument(regs, 2);
	a->iova = regs_get_kernel_argument(regs, 3);
	return 0;
}

static void strict_record(struct kretprobe_instance *ri,
			  enum strict_kind kind, const struct strict_obj *o)
{
	struct strict_args *a = (struct strict_args *)ri->data;

	strict_track_add(kind, o, a->session);
}

/* rxe_alloc_pd(ibpd, udata): int */
static int strict_alloc_pd_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct strict_args *a = (struct strict_args *)ri->data;
	struct ib_pd *pd = a->obj;
	struct strict_obj o = { .dev = pd->device, .pd = pd, .ptr = pd };

	if (!regs_return_value(regs))
		strict_record(ri, STRICT_PD, &o);
	return 0;
}

/* rxe_create_ah(ibah, init_attr, udata): int; the core set ->pd first */
static int strict_create_ah_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct strict_args *a = (struct strict_args *)ri->data;
	struct ib_ah *ah = a->obj;
	struct strict_obj o = { .dev = ah->device, .pd = ah->pd, .ptr = ah };

	if (!regs_return_value(regs))
		strict_record(ri, STRICT_AH, &o);
	return 0;
}

/* The MR constructors return the ib_mr or an ERR_PTR; arg 0 is the PD. */
static struct ib_mr *strict_mr_ret(struct kretprobe_instance *ri,
				   struct pt_regs *regs, struct strict_obj *o)
{
	struct strict_args *a = (struct strict_args *)ri->data;
	struct ib_mr *mr = (struct ib_mr *)regs_return_value(regs);
	struct ib_pd *pd = a->obj;

	if (IS_ERR_OR_NULL(mr))
		return NULL;
	*o = (struct strict_obj){
		.dev = pd->device, .pd = pd, .ptr = mr, .lkey = mr->lkey,
	};
	return mr;
}

/* rxe_alloc_mr(pd, type, max_sg): no range until a REG_MR maps it */
static int strict_alloc_mr_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct strict_obj o;

	if (strict_mr_ret(ri, regs, &o))
		strict_record(ri, STRICT_MR, &o);
	return 0;
}

/* rxe_get_dma_mr(pd, access): the PD's local_dma_lkey on rxe */
static int strict_get_dma_mr_ret(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct strict_obj o;

	if (strict_mr_ret(ri, regs, &o)) {
		o.dma = true;
		strict_record(ri, STRICT_MR, &o);
	}
	return 0;
}

/* rxe_reg_user_mr(pd, start, length, iova, ...): ib_uverbs' MRs */
static int strict_reg_user_mr_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct strict_args *a = (struct strict_args *)ri->data;
	struct strict_obj o;

	if (strict_mr_ret(ri, regs, &o)) {
		o.iova = a->iova;
		o.length = a->length;
		strict_record(ri, STRICT_MR, &o);
	}
	return 0;
}

/* Destructors: the object is still whole when they are entered. */
static int strict_dealloc_pd_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ib_pd *pd = (struct ib_pd *)regs_get_kernel_argument(regs, 0);

	strict_track_del(STRICT_PD, pd->device, pd, 0);
	return 0;
}

static int strict_destroy_ah_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ib_ah *ah = (struct ib_ah *)regs_get_kernel_argument(regs, 0);

	strict_track_del(STRICT_AH, ah->device, ah, 0);
	return 0;
}

static int strict_dereg_mr_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct ib_mr *mr = (struct ib_mr *)regs_get_kernel_argument(regs, 0);

	strict_track_del(STRICT_MR, mr->pd->device, mr, mr->lkey);
	return 0;
}

/*
 * As many constructor calls may be in flight as tasks call them; one
 * that finds no free instance is missed (nmissed), which makes its kind
 * incomplete (strict_judgeable()).
 */
#define STRICT_RP(fn, handler_fn)					\
	{								\
		.kp.symbol_name = #fn,					\
		.entry_handler = strict_entry,				\
		.handler = handler_fn,					\
		.data_size = sizeof(struct strict_args),		\
		.maxactive = 64,					\
	}

struct kretprobe strict_rp_alloc_pd =
	STRICT_RP(rxe_alloc_pd, strict_alloc_pd_ret);
struct kretprobe strict_rp_create_ah =
	STRICT_RP(rxe_create_ah, strict_create_ah_ret);
struct kretprobe strict_rp_alloc_mr =
	STRICT_RP(rxe_alloc_mr, strict_alloc_mr_ret);
struct kretprobe strict_rp_get_dma_mr =
	STRICT_RP(rxe_get_dma_mr, strict_get_dma_mr_ret);
struct kretprobe strict_rp_reg_user_mr =
	STRICT_RP(rxe_reg_user_mr, strict_reg_user_mr_ret);

struct kprobe strict_kp_dealloc_pd = {
	.symbol_name = "rxe_dealloc_pd",
	.pre_handler = strict_dealloc_pd_pre,
};

struct kprobe strict_kp_destroy_ah = {
	.symbol_name = "rxe_destroy_ah",
	.pre_handler = strict_destroy_ah_pre,
};

struct kprobe strict_kp_dereg_mr = {
	.symbol_name = "rxe_dereg_mr",
	.pre_handler = strict_dereg_mr_pre,
};

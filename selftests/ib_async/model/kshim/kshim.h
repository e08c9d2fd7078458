/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel, as far as kernel/core/evq.c needs one, for the model test:
 * one thread, no interrupts. Locks are flags that lockdep_assert_held()
 * checks; a WARN is counted, and the test fails on any; allocations are
 * the test's, which knows their sizes; a copy to user memory and a
 * reschedule are the points where the test lets "other CPUs" act.
 */
#ifndef IB_ASYNC_KSHIM_H
#define IB_ASYNC_KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef unsigned int __poll_t;
typedef unsigned int gfp_t;

#define __user
#define __percpu
#define __acquires(x)
#define __releases(x)
#define __must_check

#define ERESTARTSYS	512

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define static_assert(expr, ...)	_Static_assert(expr, #expr)

#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min3(a, b, c)	min(min(a, b), c)
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define swap(a, b) \
	do { __typeof__(a) swap_tmp = (a); (a) = (b); (b) = swap_tmp; } while (0)
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, v)	((x) = (v))
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)

static inline size_t size_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

static inline size_t size_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

static inline int ilog2(unsigned long v)
{
	return 63 - __builtin_clzl(v);
}

static inline unsigned long roundup_pow_of_two(unsigned long v)
{
	return v <= 1 ? 1 : 1UL << (64 - __builtin_clzl(v - 1));
}

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return (u32)((val * 0x61C8864680B583EBULL) >> (64 - bits));
}

/* What the test provides (evq_model.c). */
void kshim_warn(const char *file, int line, const char *cond);
void kshim_fail(const char *file, int line, const char *what);
void *kshim_alloc(size_t n, size_t size);
void kshim_free(const void *p);
unsigned long kshim_copy_to_user(void *to, const void *from, unsigned long n);
void kshim_resched(void);
u64 kshim_now(void);

#define WARN_ON_ONCE(cond) ({						\
	bool warn_c = !!(cond);						\
	if (warn_c)							\
		kshim_warn(__FILE__, __LINE__, #cond);			\
	warn_c;								\
})

#define GFP_KERNEL		0u
#define GFP_KERNEL_ACCOUNT	1u
#define kvcalloc(n, size, gfp)	kshim_alloc(n, size)
#define kcalloc(n, size, gfp)	kshim_alloc(n, size)
#define kvfree(p)		kshim_free(p)
#define kfree(p)		kshim_free(p)

/* Locks: a flag each; taking one twice or asserting a free one fails. */
typedef struct { int held; } spinlock_t;
struct mutex { int held; };

#define kshim_take(l) do {						\
	if ((l)->held)							\
		kshim_fail(__FILE__, __LINE__, "lock taken twice");	\
	(l)->held = 1;							\
} while (0)
#define kshim_drop(l) do {						\
	if (!(l)->held)							\
		kshim_fail(__FILE__, __LINE__, "free lock dropped");	\
	(l)->held = 0;							\
} while (0)
#define spin_lock_init(l)		((l)->held = 0)
#define spin_lock_irqsave(l, f)		do { (f) = 0; kshim_take(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); kshim_drop(l); } while (0)
#define mutex_init(m)			((m)->held = 0)
#define mutex_destroy(m)		((void)(m))
#define mutex_lock(m)			kshim_take(m)
#define mutex_unlock(m)			kshim_drop(m)
#define mutex_lock_interruptible(m)	({ kshim_take(m); 0; })
#define lockdep_assert_held(l) do {					\
	if (!(l)->held)							\
		kshim_fail(__FILE__, __LINE__, "lock not held: " #l);	\
} while (0)

/* Nothing sleeps: the test reads with O_NONBLOCK. */
typedef struct { int unused; } wait_queue_head_t;
typedef struct { int unused; } poll_table;
struct file;
struct fasync_struct;
struct user_struct;
#define init_waitqueue_head(w)			((void)(w))
#define wake_up_interruptible_poll(w, m)	((void)(w))
#define wake_up_interruptible(w)		((void)(w))
#define wait_event_interruptible(w, cond)	((cond) ? 0 : -ERESTARTSYS)
#define poll_wait(f, w, p)			((void)(w))
#define kill_fasync(fa, sig, band)		((void)(fa))
#define EPOLLIN		0x001u
#define EPOLLERR	0x008u
#define EPOLLHUP	0x010u
#define EPOLLRDNORM	0x040u
#define SIGIO		29
#define POLL_IN		1
#define POLL_HUP	6

#define get_uid(u)	(u)
#define free_uid(u)	((void)(u))

typedef struct { long long v; } atomic64_t;
#define ATOMIC64_INIT(i)	{ (i) }
#define atomic64_inc_return(a)	(++(a)->v)

#define this_cpu_add(var, n)	((var) += (n))
#define cond_resched()		kshim_resched()
#define ktime_get_ns()		kshim_now()
#define copy_to_user(to, from, n)	kshim_copy_to_user(to, from, n)
#define might_sleep()		do { } while (0)

#endif /* IB_ASYNC_KSHIM_H */

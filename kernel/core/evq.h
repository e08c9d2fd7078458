/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The bounded event queue (evq.c): its records, its storage and its
 * calls, and what it needs of the rest of the core. Kept apart from
 * core.h so that the queue builds alone: the model test
 * (selftests/ib_async/model) compiles evq.c in a host program.
 */
#ifndef IB_ASYNC_EVQ_H
#define IB_ASYNC_EVQ_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "ib_async_counters.h"
#include <rdma/ib_async.h>

#define IB_ASYNC_REC_SIZE	sizeof(struct ib_async_event)
#define IB_ASYNC_CHAN_REC_SIZE	sizeof(struct ib_async_chan_event)
#define IB_ASYNC_STATE_REC_SIZE	sizeof(struct ib_async_chan_state_event)

struct file;
struct user_struct;

/**
 * struct ib_async_evcount - one object's records in one queue
 * @reported: records consumed by readers (ib_uverbs' events_reported)
 * @queued: records queued, not yet read
 *
 * Both under the queue's lock.
 */
struct ib_async_evcount {
	u64 reported;
	u32 queued;
};

/**
 * struct ib_async_slot - a queued record
 * @rec: the record
 * @owner: in the node's queue and completion channels (no xs): an
 *	affiliated event's object's counters, else NULL
 * @x: in an event channel (xs): 1 + the index of the record's extras in
 *	xs; 0 for none (an overflow record)
 *
 * A queue uses one or the other, never both, so every queue's slot stays
 * 56 bytes.
 */
struct ib_async_slot {
	struct ib_async_event rec;
	union {
		struct ib_async_evcount *owner;
		u32 x;
	};
};

/**
 * struct ib_async_evx - what an event channel's record has beyond the event
 * @cookie: as &struct ib_async_chan_event's
 * @occurrences: as &struct ib_async_chan_event's
 * @last_ns: its last_timestamp_ns
 * @key: what coalescing compares: type, object type, handle or port
 * @next: 1 + the next index on its hash chain or on the free list; 0 ends
 * @hashed: on a hash chain: a later event of @key merges into it
 * @state: a state record's: 1 + the index of its port state in the
 *	queue's states; 0 for other records
 */
struct ib_async_evx {
	u64 cookie;
	u64 occurrences;
	u64 last_ns;
	u64 key;
	u32 next;
	bool hashed;
	u16 state;
};

/**
 * struct ib_async_evstate - a state record's port state, in a state queue
 * @st: what the reader gets
 * @used: a queued record has it
 */
struct ib_async_evstate {
	struct ib_async_port_state st;
	bool used;
};

/* How a queue is made (ib_async_evq_init()) */
enum {
	/* records are struct ib_async_chan_event: an event channel's */
	IB_ASYNC_EVQ_CHAN	= BIT(0),
	/* and an event like an unread one merges into it */
	IB_ASYNC_EVQ_COALESCE	= BIT(1),
	/* a completion channel's: a CQ's events merge while one is unread */
	IB_ASYNC_EVQ_COMP	= BIT(2),
	/* an event channel's whose records carry state (state records) */
	IB_ASYNC_EVQ_STATE	= BIT(3),
	/* and which asks for a snapshot after each overflow record */
	IB_ASYNC_EVQ_RESYNC	= BIT(4),
};

/**
 * struct ib_async_uring - a queue's ring mapped to user space (ring.c)
 * @mem: the mapping's memory, vmalloc()ed: header, then records
 * @hdr: the header at @mem, shared with the program
 * @recs: the record array
 * @size: bytes mapped, whole pages
 * @mask: entries - 1
 * @prod: records published: the kernel's copy, never read back from @hdr
 * @rec_size: bytes per record
 * @user: whose RLIMIT_MEMLOCK the pages are charged to, NULL for nobody's
 */
struct ib_async_uring {
	void *mem;
	struct ib_async_ring_header *hdr;
	void *recs;
	size_t size;
	u32 mask;
	u32 prod;
	u32 rec_size;
	struct user_struct *user;
};

struct ib_async_evq {
	spinlock_t lock;		/* ring indices, counters, flags */
	/* one reader at a time, across its copy to user memory; readers only */
	struct mutex read_mutex;
	/*
	 * Records are moved or dropped outside one hold of @lock only under
	 * it: purge, resize, ring attach and fill, a reader's snapshot and
	 * consume. Never held across a copy to user memory.
	 */
	struct mutex move_mutex;
	wait_queue_head_t wait;
	struct fasync_struct *fasync;
	u64 id;				/* fdinfo's queue-id, the traces' queue */
	struct ib_async_stats __percpu *stats;	/* its device's */

	/*
	 * evq_slots() slots, and the bound that keeps every record in one
	 * (evq.c): @nroom <= cap + 1 events and overflow records, nstate <=
	 * state_slots state records, and at the end one slot for a loss
	 * kept aside and one for the end-of-stream record.
	 */
	struct ib_async_slot *ring;
	u32 cap;
	u32 head;
	u32 len;			/* slots in use, holes included */
	u32 nroom;			/* events and overflow records, holes too */
	u32 nover;			/* overflow records */
	/*
	 * A loss kept aside (@pend_count events from @pend_seq on, the
	 * first at @pend_ns): the queue was full and its tail no overflow
	 * record. It becomes one at the tail once the room has a slot.
	 */
	u64 pend_seq;
	u64 pend_ns;
	u64 pend_count;
	/* the last overflow record a reader copied: it takes no more losses */
	u64 sealed_seq;
	/*
	 * While a purge compacts the ring with the lock dropped between
	 * chunks, slots [hole_at, hole_at + holes) hold no record.
	 */
	u32 hole_at;
	u32 holes;
	u64 next_seq;
	u64 lost;
	u64 coalesced;			/* events merged into unread records */
	u64 delivered;			/* records consumed by readers */
	u32 rec_size;			/* bytes per record a reader gets */
	unsigned int flags;		/* IB_ASYNC_EVQ_* it was made with */
	/*
	 * Once mapped (set under move_mutex and lock, never cleared until
	 * the queue is destroyed), records go there instead of to readers.
	 */
	struct ib_async_uring *uring;

	/*
	 * Event channels: one set of extras per record that can be queued
	 * (cap + 1, the end record's included), and in a coalescing one a
	 * hash of the unread records' keys, 1 << bucket_bits chains. Sized
	 * with the ring, so pushing never allocates.
	 */
	struct ib_async_evx *xs;
	u32 x_free;			/* 1 + first free, 0: none */
	u32 x_used;			/* extras records hold */
	u32 *buckets;			/* 1 + first on each chain, 0: empty */
	u32 bucket_bits;
	/*
	 * State queues: room for state_slots state records beyond cap (one
	 * snapshot of every port and the device), their port states, how
	 * many are queued, and whether an overflow record awaits a
	 * snapshot (IB_ASYNC_EVQ_RESYNC) once that room is free again.
	 */
	u32 state_slots;
	u32 nstate;
	struct ib_async_evstate *states;
	bool resync_wanted;
	/*
	 * Resync queues: asks the queue's owner for the snapshot, under the
	 * lock, from any context; the queue knows nothing of channels.
	 */
	void (*resync)(struct ib_async_evq *q);
	/* a DEVICE_FATAL record was queued: the stream takes nothing more */
	bool ended;
	/* the stream is over: after the last record, read() gives dead_err */
	bool dead;
	int dead_err;

	/* Snapshot of records being copied out; used under read_mutex. */
	void *bounce;

	/*
	 * What the queue's memory is charged to: a user's RLIMIT_MEMLOCK
	 * budget (NULL: CAP_IPC_LOCK), with a reference, and how many
	 * pages; changed only by a resize, under move_mutex and lock.
	 */
	struct user_struct *user;
	long charged;
};

/*
 * enum ib_async_stat - what a device's events did since it appeared: one
 * IB_ASYNC_STAT_<ID> per row of ib_async_counters.h (which says what each
 * counts), then IB_ASYNC_NR_STATS, how many there are. Kept per CPU
 * (stats.c); sysfs shows the sums under counters/.
 */
#define IB_ASYNC_STAT_ID(id, name)	IB_ASYNC_STAT_##id,
enum ib_async_stat {
	IB_ASYNC_COUNTERS(IB_ASYNC_STAT_ID)
	IB_ASYNC_NR_STATS
};

#undef IB_ASYNC_STAT_ID

/**
 * struct ib_async_stats - one CPU's copy of a device's counters
 * @c: indexed by enum ib_async_stat
 */
struct ib_async_stats {
	u64 c[IB_ASYNC_NR_STATS];
};

/* Count @n of @stat in this CPU's copy: irq-safe, no lock, no atomic. */
static inline void ib_async_stat_add(struct ib_async_stats __percpu *stats,
				     enum ib_async_stat stat, u64 n)
{
	this_cpu_add(stats->c[stat], n);
}

/* evq.c */
int ib_async_evq_init(struct ib_async_evq *q, u32 cap,
		      struct ib_async_stats __percpu *stats, unsigned int flags,
		      u32 state_slots, struct user_struct *user);
void ib_async_evq_uncharge(struct ib_async_evq *q);
void ib_async_evq_destroy(struct ib_async_evq *q);
void ib_async_evq_push(struct ib_async_evq *q, const struct ib_async_event *ev,
		       struct ib_async_evcount *owner);
void ib_async_evq_push_once(struct ib_async_evq *q,
			    const struct ib_async_event *ev,
			    struct ib_async_evcount *owner);
unsigned long ib_async_evq_lock(struct ib_async_evq *q);
void ib_async_evq_unlock(struct ib_async_evq *q, unsigned long flags,
			 bool wake);
bool ib_async_evq_push_chan_locked(struct ib_async_evq *q,
				   const struct ib_async_event *ev,
				   u64 cookie);
void ib_async_evq_state_begin(struct ib_async_evq *q);
int ib_async_evq_state_reserve(struct ib_async_evq *q, const u32 *ports,
			       const u64 *cookies, u32 n, u32 flags,
			       u64 *first_seq);
void ib_async_evq_state_fill(struct ib_async_evq *q, u64 first_seq,
			     const struct ib_async_port_state *st, u32 n);
void ib_async_evq_state_end(struct ib_async_evq *q);
u64 ib_async_evq_purge(struct ib_async_evq *q, struct ib_async_evcount *owner);
void ib_async_evq_purge_obj(struct ib_async_evq *q, u32 obj_type, u32 handle);
void ib_async_evq_orphan(struct ib_async_evq *q,
			 struct ib_async_evcount *owner);
void ib_async_evq_shutdown(struct ib_async_evq *q, u64 timestamp_ns);
void ib_async_evq_close(struct ib_async_evq *q, int err);
int ib_async_evq_resize(struct ib_async_evq *q, u32 cap);
ssize_t ib_async_evq_read(struct ib_async_evq *q, char __user *buf,
			  size_t count, bool nonblock);
ssize_t ib_async_evq_read_batch(struct ib_async_evq *q, u64 consume_seq,
				char __user *buf, size_t want, bool nonblock,
				bool peek);
__poll_t ib_async_evq_poll(struct ib_async_evq *q, struct file *filp,
			   poll_table *wait);
int ib_async_evq_attach_ring(struct ib_async_evq *q, struct ib_async_uring *r);
int ib_async_evq_ring_wait(struct ib_async_evq *q, bool nonblock, u32 *avail);

struct ib_async_evq_stat {
	u64 id;
	u32 cap;
	u32 queued;
	u64 lost;
	u64 coalesced;
	u64 delivered;
	u64 next_seq;
	u32 rec_size;
	u32 ring_entries;		/* 0: no ring */
	u32 ring_produced;
	long memlock_pages;		/* queue and ring, on RLIMIT_MEMLOCK */
};

void ib_async_evq_stat(struct ib_async_evq *q, struct ib_async_evq_stat *st);

/* What the queue uses of account.c and ring.c */
int ib_async_account_pages(struct user_struct *user, long pages);
void ib_async_unaccount_pages(struct user_struct *user, long pages);
void ib_async_uring_free(struct ib_async_uring *r);
void ib_async_uring_uncharge(struct ib_async_uring *r);

#endif /* IB_ASYNC_EVQ_H */

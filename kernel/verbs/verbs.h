/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The verbs layer: kernel verbs objects made for a file so that their
 * events are affiliated, the data path over them, and the queries. It
 * uses the event core (core/core.h) and plugs into it through one struct
 * ib_async_verbs_ops (ops.c); the core never calls it by name.
 *
 *  ib_async_uobj    a kernel verbs object made for a file (uobj.c), found
 *                   by its per-file handle. Its event handler runs in any
 *                   context and only pushes to the file's queue; the uobj
 *                   outlives the verbs object, so a handler never sees a
 *                   freed one.
 *
 *  ib_async_wr      a posted work request (datapath.c): on its QP's or
 *                   SRQ's list while the device owns it, then on its CQ's
 *                   backlog once completed, until POLL_CQ returns it.
 *
 *  ib_async_mr      a user memory region (mr.c): pinned pages registered
 *                   with the device through its PD's registration QP
 *                   (ib_async_regq), kept until deregistered.
 *
 * Everything here is under the file's locks, with the device pinned
 * (disassoc_rwsem held for reading), unless a function says otherwise:
 * the objects, their handles and what only commands about them read
 * under obj_mutex; the data path's state (requests, completions, rings)
 * under dp_rwsem. The data path's commands take it for reading, alone,
 * and then the lock of the one object whose state they change
 * (ib_async_dp_lock(): a QP's or SRQ's posts, a CQ's completions), and
 * the file's wr_lock for the little they share (the requests' ids and
 * counts, and the lists of what the device owns, which a CQ's poll
 * unlinks from any QP on it); two threads of a program posting to two
 * QPs and polling two CQs never wait for each other. Every other command
 * that changes that state takes dp_rwsem for writing, inside obj_mutex,
 * and then needs no object's lock. An object is made visible and removed
 * with both held.
 *
 * Lock order: disassoc_rwsem, obj_mutex, dp_rwsem, one object's
 * dp_lock (never two at once), wr_lock, acct_lock.
 */
#ifndef IB_ASYNC_VERBS_H
#define IB_ASYNC_VERBS_H

#include <linux/bottom_half.h>
#include <linux/cgroup_rdma.h>
#include <linux/scatterlist.h>
#include <linux/siphash.h>

#include "core/core.h"

struct ib_async_cq_ring;
struct ib_async_wr_ring;
struct ib_async_mr;
struct ib_async_queue_sizes;
struct ib_async_regq;
struct ib_async_uobj_type;

/* Completions taken from the device per ib_poll_cq() call. */
#define IB_ASYNC_POLL_BATCH	16

/**
 * struct ib_async_vfile - what the verbs layer keeps per file
 * @mm: the opener's memory, the only one the data path copies to and from
 * @owner_name: what "rdma resource show" calls the file's objects
 * @objs: handle -> struct ib_async_uobj
 * @obj_next: cyclic handle allocation cursor
 * @objs_exhausted: every handle was used once
 * @wr_lock: guards @wr_ids to @wr_pooled and the lists of requests the
 *	device owns (struct ib_async_uobj's @wrs and @sq_wrs of a QP or SRQ)
 * @wr_ids: id -> posted struct ib_async_wr, a hash table (wr_ids.c);
 *	NULL until the first post
 * @wr_key: its hash's key
 * @wr_next: the next request's id
 * @wr_count: requests posted and not yet returned
 * @wr_bytes: their bookkeeping's bytes
 * @stale_wcs: completions that matched no request
 * @wr_pool: tracking objects for the next posts (wr_pool.c)
 * @wr_pooled: how many
 * @mr_keys: lkey -> MR uobj
 * @cq_rings: CQ handle -> its completion ring (cq_ring.c), for mmap()
 * @wr_rings: QP or SRQ handle << 1 | kind -> its submission ring
 *	(wr_ring.c), for mmap() and the doorbell
 * @verbs_bytes: of the file's charged bytes, the objects' queues'
 * @poller_awake: a poller polls the rings, which say so (poller.c); only
 *	the poller writes it
 * @poller_lock: guards the three below, which STOP sets without the
 *	file's locks
 * @poller_running: a thread is in IB_ASYNC_IOC_POLLER
 * @poller_stop: STOP asked it (or the next one) to return
 * @poller_kick: a doorbell, CQ_WAIT or removal woke it
 * @poller_wq: where it sleeps
 *
 * Made by the ops' open, freed by their free; @objs, @obj_next,
 * @objs_exhausted and @verbs_bytes under the file's obj_mutex; @mr_keys,
 * @cq_rings and @wr_rings change under its dp_rwsem held for writing and
 * are read with it held either way; the rest as said.
 */
struct ib_async_vfile {
	struct mm_struct *mm;
	char owner_name[24];
	struct xarray objs;
	u32 obj_next;
	bool objs_exhausted;
	spinlock_t wr_lock;		/* a CQ's poll unlinks a QP's requests */
	struct hlist_head *wr_ids;
	siphash_key_t wr_key;
	u64 wr_next;
	u32 wr_count;
	u64 wr_bytes;
	u64 stale_wcs;
	struct list_head wr_pool;
	u32 wr_pooled;
	struct xarray mr_keys;
	struct xarray cq_rings;
	struct xarray wr_rings;
	u64 verbs_bytes;
	bool poller_awake;
	spinlock_t poller_lock;		/* STOP needs no file lock */
	bool poller_running;
	bool poller_stop;
	bool poller_kick;
	wait_queue_head_t poller_wq;
};

#define IB_ASYNC_UOBJ_MAX_USES	4

struct ib_async_uobj {
	/*
	 * Freed after a grace period: a lookup under dp_rwsem alone may meet
	 * one whose create failed, freed under obj_mutex alone
	 * (ib_async_uobj_find()).
	 */
	struct rcu_head rcu;
	/*
	 * Its data path (ib_async_dp_lock()): a QP's or SRQ's posts and its
	 * submission rings; a CQ's completions, its backlog (@wrs), its ring
	 * and @poll_wc.
	 */
	struct mutex dp_lock;
	struct ib_async_file *file;
	const struct ib_async_uobj_type *ops;	/* its kind's */
	u64 user_handle;
	struct ib_async_evcount ev;	/* in file->evq */
	struct ib_async_evcount comp;	/* CQ: in comp_chan's queue */
	/* CQ: where its completion events go, NULL for nowhere */
	struct ib_async_channel *comp_chan;
	/* CQ: where its completions go before POLL_CQ, NULL for nowhere */
	struct ib_async_cq_ring *ring;
	/*
	 * CQ: ib_poll_cq()'s output, IB_ASYNC_POLL_BATCH entries: 1 KB that
	 * would otherwise sit on the stack of every poll (and far more under
	 * KASAN)
	 */
	struct ib_wc *poll_wc;
	/*
	 * QP: its send and receive queues' submission rings; SRQ: its
	 * receive ring (indexed by enum ib_async_wr_ring_kind); NULL for none
	 */
	struct ib_async_wr_ring *wr_ring[2];
	u32 handle;
	u32 type;			/* enum ib_async_obj_type */
	/*
	 * Its create answered: only now does its handle name it to the
	 * file's commands (ib_async_uobj_find()), as ib_uverbs commits a
	 * uobject once its create's response is written.
	 */
	bool committed;
	u32 port;			/* QP: for event records */
	bool sq_sig_all;		/* QP: every send completes */
	u32 max_inline;			/* QP: inline bytes a send may carry */
	/*
	 * QP: entries a send, and a receive, may carry, as granted at create
	 * (a QP on an SRQ has no receive queue: 0); SRQ: a receive's.
	 */
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 users;			/* objects using this one */
	struct ib_async_uobj *uses[IB_ASYNC_UOBJ_MAX_USES];
	u32 qp_num;			/* QP */
	/* QP: where its completions land (also in uses[]) */
	struct ib_async_uobj *send_cq;
	struct ib_async_uobj *recv_cq;
	struct ib_async_uobj *qp_srq;
	/*
	 * QP, SRQ: requests the device owns, under the file's wr_lock. CQ:
	 * completed requests taken off the device's queue, in order, not yet
	 * returned by POLL_CQ, under @dp_lock. For a QP, its receives; its
	 * sends are on @sq_wrs, in post order.
	 */
	struct list_head wrs;
	struct list_head sq_wrs;
	/* QP: the multicast groups it is attached to (mcast.c) */
	struct list_head mcast;
	/* at close: destroyed, its records purged once no lock is held */
	struct list_head ended;
	/* PD: the QP that registers its MRs, made by the first REG_MR */
	struct ib_async_regq *regq;
	struct ib_rdmacg_object cg_obj;	/* one hca_object while obj lives */
	/*
	 * The verbs object removal gave up on (the driver refused to destroy
	 * it): never freed, nor what the device may still write into; @obj
	 * is NULL then (ib_async_uobj_abandon()).
	 */
	void *abandoned;
	/*
	 * Bytes of its queues (a PD: of its registration CQ and QP) charged
	 * to the file's budget, given back when the verbs object is gone.
	 */
	u64 charged;
	union {				/* NULL once destroyed by removal */
		void *obj;
		struct ib_pd *pd;
		struct ib_cq *cq;
		struct ib_qp *qp;
		struct ib_srq *srq;
		struct ib_wq *wq;
		struct ib_ah *ah;
		struct ib_async_mr *mr;
	};
};

/*
 * Both of the file's locks, as every command but the data path's and the
 * object commands' takes them (ib_async_ucmd_lock()): obj_mutex first.
 */
static inline void ib_async_file_lock(struct ib_async_file *file)
{
	mutex_lock(&file->obj_mutex);
	down_write(&file->dp_rwsem);
}

static inline void ib_async_file_unlock(struct ib_async_file *file)
{
	up_write(&file->dp_rwsem);
	mutex_unlock(&file->obj_mutex);
}

/*
 * The data path of one object, @uobj's: its posts (a QP, an SRQ) or its
 * completions (a CQ). Taken inside dp_rwsem held for reading, one object
 * at a time; holding dp_rwsem for writing excludes every holder.
 */
static inline void ib_async_dp_lock(struct ib_async_uobj *uobj)
{
	lockdep_assert_held_read(&uobj->file->dp_rwsem);
	mutex_lock(&uobj->dp_lock);
}

static inline void ib_async_dp_unlock(struct ib_async_uobj *uobj)
{
	mutex_unlock(&uobj->dp_lock);
}

/* @uobj's data path is the caller's: its lock, or dp_rwsem for writing. */
static inline void ib_async_dp_assert(struct ib_async_uobj *uobj)
{
	lockdep_assert(lockdep_is_held(&uobj->dp_lock) ||
		       lockdep_is_held_type(&uobj->file->dp_rwsem, 0));
}

/* The file's data path is the caller's alone: dp_rwsem for writing. */
static inline void ib_async_dp_assert_excl(struct ib_async_file *file)
{
	lockdep_assert_held_write(&file->dp_rwsem);
}

/* uobj.c */
void ib_async_file_objs_init(struct ib_async_file *file);
struct ib_async_uobj *ib_async_uobj_new(struct ib_async_file *file,
					const struct ib_async_uobj_type *t,
					u64 user_handle);
void ib_async_uobj_abort(struct ib_async_uobj *uobj);
void ib_async_uobj_use(struct ib_async_uobj *uobj, struct ib_async_uobj *dep);
void ib_async_uobj_set_name(struct ib_async_uobj *uobj, const char *name);
int ib_async_cg_charge(struct ib_rdmacg_object *cg, struct ib_device *ib_dev);
void ib_async_cg_uncharge(struct ib_rdmacg_object *cg,
			  struct ib_device *ib_dev);
struct ib_async_uobj *ib_async_uobj_find(struct ib_async_file *file,
					 u32 handle);
struct ib_async_uobj *ib_async_uobj_load(struct xarray *table,
					 unsigned long index);
struct ib_async_uobj *ib_async_uobj_get(struct ib_async_file *file,
					u32 handle, u32 type);
void ib_async_uobj_commit(struct ib_async_file *file, u32 handle);
/**
 * enum ib_async_remove_reason - why an object's verbs object is destroyed
 * @IB_ASYNC_REMOVE_DESTROY: DESTROY, or a create whose answer was lost
 * @IB_ASYNC_REMOVE_CLOSE: its file is being closed
 * @IB_ASYNC_REMOVE_DEVICE: its device is being removed: the handle stays,
 *	a dead one, until DESTROY or close forgets it
 */
enum ib_async_remove_reason {
	IB_ASYNC_REMOVE_DESTROY,
	IB_ASYNC_REMOVE_CLOSE,
	IB_ASYNC_REMOVE_DEVICE,
};

int ib_async_uobj_remove(struct ib_async_uobj *uobj,
			 enum ib_async_remove_reason why);
u64 ib_async_uobj_forget_end(struct ib_async_uobj *uobj,
			     u64 *comp_events_reported);
u64 ib_async_uobj_destroy_end(struct ib_async_uobj *uobj,
			      u64 *comp_events_reported);
u32 ib_async_file_destroy_objs(struct ib_async_file *file, bool removal,
			       struct list_head *ended);
void ib_async_file_end_destroyed(struct list_head *ended);
void ib_async_uobj_event(struct ib_event *event, void *context);
int ib_async_uobj_event_source(struct ib_async_file *file, u32 handle,
			       u32 *type);

/* wr_ids.c: the ids of posted requests (the rest in wr.h) */
void ib_async_wr_ids_free(struct ib_async_vfile *vf);

/* wr_pool.c: where requests' tracking comes from (the rest in wr.h) */
int ib_async_wr_cache_init(void);
void ib_async_wr_cache_exit(void);
void ib_async_wr_pool_drain(struct ib_async_file *file);

/* datapath.c */
void ib_async_qp_destroyed(struct ib_async_uobj *qp, const struct ib_qp *dead);
void ib_async_qp_reset(struct ib_async_uobj *qp);
void ib_async_free_wrs(struct ib_async_file *file, struct ib_async_uobj *owner);
void ib_async_wrs_let_go(struct ib_async_uobj *owner);
int ib_async_cmd_post_recv(struct ib_async_ucmd *u);
int ib_async_cmd_post_send(struct ib_async_ucmd *u);
int ib_async_cmd_poll_cq(struct ib_async_ucmd *u);

/**
 * ib_async_post_send - ib_post_send(), with the device's work started now
 * @qp: the kernel QP
 * @wr: the chain
 * @bad_wr: where the first request not taken is returned
 *
 * A driver may hand a kernel QP's sends to a softirq instead of
 * processing them in the caller's context as it does for a user QP: rxe
 * schedules its requester tasklet. Raised from process context, that
 * softirq waits for the next interrupt or for ksoftirqd, a wait an ib_uverbs
 * QP of the same device never has. Raised with bottom halves disabled, it
 * runs at local_bh_enable(), here, before the caller's ioctl returns.
 * ib_post_send() never sleeps, so other devices see no difference.
 *
 * Return: ib_post_send()'s.
 */
static inline int ib_async_post_send(struct ib_qp *qp,
				     const struct ib_send_wr *wr,
				     const struct ib_send_wr **bad_wr)
{
	int ret;

	local_bh_disable();
	ret = ib_post_send(qp, wr, bad_wr);
	local_bh_enable();
	return ret;
}

/**
 * struct ib_async_slots - a submission ring's pending slots, copied once
 * @mem: the copy, in kernel memory: @count slots of @slot_size bytes
 * @count: slots
 * @slot_size: bytes each
 * @max_sge: entries a slot holds after its work request
 * @max_inline: inline bytes a send slot holds at @inline_offset
 * @inline_offset: where they begin
 * @send: send slots (else receives)
 * @scratch: where the post's arrays are carved from, at least
 *	ib_async_post_scratch_size() for @count and @max_sge: the ring's, so
 *	that a doorbell allocates nothing of its own
 *
 * Whatever @mem holds is checked as a caller's list is: the ring's memory
 * itself is never looked at again.
 */
struct ib_async_slots {
	const void *mem;
	u32 count;
	u32 slot_size;
	u32 max_sge;
	u32 max_inline;
	u32 inline_offset;
	bool send;
	void *scratch;
};

/* post.c: the data path over registered memory */
int ib_async_cmd_post_send_list(struct ib_async_ucmd *u);
int ib_async_cmd_post_recv_list(struct ib_async_ucmd *u);
u32 ib_async_post_slots(struct ib_async_file *file,
			struct ib_async_uobj *owner,
			const struct ib_async_slots *s, int *err);
size_t ib_async_post_scratch_size(bool send, u32 count, u32 max_sge);

/**
 * struct ib_async_uobj_type - what one object kind does its own way
 * @type: its IB_ASYNC_OBJ_*
 * @destroy: destroy its verbs object: 0, or the driver's refusal, with
 *	nothing changed
 * @destroyed: once @destroy succeeded, settle what the verbs object left
 *	(its work requests); NULL for nothing
 * @set_name: name the owner of its restrack entries; NULL for none
 * @abandon: removal gave it up: keep what the device may still write
 *	into; NULL for nothing beyond the common steps
 * @let_go: the handle of an object removal gave up on goes (DESTROY or
 *	close): give back, once, what its work requests still have charged;
 *	NULL for a kind that holds none
 * @unlink: its handle goes (DESTROY or close), both file locks held:
 *	take it out of the file's other tables that name it by handle (its
 *	mapped rings), which the poller walks under dp_rwsem, before @free
 *	lets it go without those locks; NULL for a kind in none
 * @free: the object's records are purged or orphaned, the uobj is about to
 *	go: release what it held beyond its verbs object; NULL for nothing
 * @queue_bytes: what its queues cost for the sizes given (charge.c);
 *	NULL: it has no queue
 * @events: its verbs object raises affiliated events, which a
 *	subscription may name it for
 *
 * One per kind, in its file (pd.c, cq.c...), which its creates hand to
 * ib_async_uobj_new(): uobj.c calls an object's instead of switching on
 * its type.
 */
struct ib_async_uobj_type {
	u32 type;
	int (*destroy)(struct ib_async_uobj *uobj);
	void (*destroyed)(struct ib_async_uobj *uobj);
	void (*set_name)(struct ib_async_uobj *uobj, const char *name);
	void (*abandon)(struct ib_async_uobj *uobj);
	void (*let_go)(struct ib_async_uobj *uobj);
	void (*unlink)(struct ib_async_uobj *uobj);
	void (*free)(struct ib_async_uobj *uobj);
	u64 (*queue_bytes)(const struct ib_async_queue_sizes *s);
	bool events;
};

extern const struct ib_async_uobj_type ib_async_pd_type;
extern const struct ib_async_uobj_type ib_async_cq_type;
extern const struct ib_async_uobj_type ib_async_qp_type;
extern const struct ib_async_uobj_type ib_async_srq_type;
extern const struct ib_async_uobj_type ib_async_wq_type;
extern const struct ib_async_uobj_type ib_async_ah_type;
extern const struct ib_async_uobj_type ib_async_mr_type;

/* cq.c: completion channels, as seen from the CQs that use them */
struct ib_async_channel *ib_async_channel_get_for_cq(struct ib_async_file *file,
						     int fd);
void ib_async_channel_put_cq(struct ib_async_channel *chan);
void ib_async_comp_handler(struct ib_cq *cq, void *context);
int ib_async_cmd_req_notify_cq(struct ib_async_ucmd *u);

/* cq_ring.c: completion rings mapped by the program */
int ib_async_cmd_map_cq_ring(struct ib_async_ucmd *u);
int ib_async_cmd_cq_wait(struct ib_async_ucmd *u);
int ib_async_cq_ring_mmap(struct ib_async_file *file,
			  struct vm_area_struct *vma);
u32 ib_async_cq_ring_fill(struct ib_async_uobj *cq);
u32 ib_async_qp_fill_rings(struct ib_async_uobj *qp);
void ib_async_cq_ring_unpublish(struct ib_async_uobj *cq);
void ib_async_cq_ring_drop(struct ib_async_uobj *cq);
void ib_async_cq_rings_wake(struct ib_async_file *file, bool awake);
u32 ib_async_cq_rings_fill(struct ib_async_file *file);

/* wr_ring.c: submission rings mapped by the program */
int ib_async_cmd_map_wr_ring(struct ib_async_ucmd *u);
int ib_async_cmd_wr_doorbell(struct ib_async_ucmd *u);
bool ib_async_wr_ring_pgoff(unsigned long pgoff);
int ib_async_wr_ring_mmap(struct ib_async_file *file,
			  struct vm_area_struct *vma);
void ib_async_wr_rings_unpublish(struct ib_async_uobj *owner);
void ib_async_wr_rings_drop(struct ib_async_uobj *owner);
u32 ib_async_wr_rings_post(struct ib_async_file *file, u32 *moved);
bool ib_async_wr_rings_wake(struct ib_async_file *file, bool awake);

/* poller.c: a thread of the program polling the rings in the kernel */
void ib_async_poller_init(struct ib_async_vfile *vf);
int ib_async_cmd_poller(struct ib_async_ucmd *u);

/*
 * Wake the file's poller, asleep or not: it looks at its rings again, and
 * at its device (removal wakes it this way). Here, not in poller.c, as
 * the rings' files wake it and it calls them.
 */
static inline void ib_async_poller_wake(struct ib_async_vfile *vf)
{
	spin_lock(&vf->poller_lock);
	vf->poller_kick = true;
	spin_unlock(&vf->poller_lock);
	wake_up(&vf->poller_wq);
}

/* The program rang (a doorbell, a CQ_WAIT): wake its poller if it sleeps. */
static inline void ib_async_poller_kick(struct ib_async_file *file)
{
	struct ib_async_vfile *vf = file->verbs;

	lockdep_assert_held(&file->dp_rwsem);
	if (READ_ONCE(vf->poller_running) && !READ_ONCE(vf->poller_awake))
		ib_async_poller_wake(vf);
}

/**
 * struct ib_async_queue_sizes - what a verbs object's queues hold
 * @cqe: a CQ's entries
 * @max_send_wr: a QP's send queue
 * @max_send_sge: its gather entries per send
 * @max_inline_data: its inline bytes per send
 * @max_recv_wr: a QP's receive queue, an SRQ's or a WQ's
 * @max_recv_sge: its scatter entries per receive
 * @srq: a QP that receives through an SRQ, with no receive queue
 */
struct ib_async_queue_sizes {
	u32 cqe;
	u32 max_send_wr;
	u32 max_send_sge;
	u32 max_inline_data;
	u32 max_recv_wr;
	u32 max_recv_sge;
	bool srq;
};

/* charge.c: verbs objects' queues on the opener's budget */
u64 ib_async_cq_bytes(const struct ib_async_queue_sizes *s);
u64 ib_async_qp_bytes(const struct ib_async_queue_sizes *s);
u64 ib_async_rq_bytes(const struct ib_async_queue_sizes *s);
int ib_async_verbs_charge(struct ib_async_uobj *uobj, u64 bytes);
void ib_async_verbs_uncharge(struct ib_async_uobj *uobj, u64 bytes);
int ib_async_verbs_charge_to(struct ib_async_uobj *uobj, u64 bytes);
int ib_async_verbs_resized(struct ib_async_uobj *uobj, u64 old, u64 new,
			   u64 granted);

/* query.c: run with the device pinned */
int ib_async_cmd_query_device(struct ib_async_ucmd *u);
int ib_async_cmd_query_port(struct ib_async_ucmd *u);
int ib_async_cmd_query_gid(struct ib_async_ucmd *u);
int ib_async_cmd_query_pkey(struct ib_async_ucmd *u);

/* One file per object kind; commands run with the device pinned. */
/* pd.c */
int ib_async_cmd_create_pd(struct ib_async_ucmd *u);
/* cq.c */
int ib_async_cmd_create_cq(struct ib_async_ucmd *u);
int ib_async_cmd_resize_cq(struct ib_async_ucmd *u);
/* qp.c */
int ib_async_cmd_create_qp(struct ib_async_ucmd *u);
int ib_async_cmd_modify_qp(struct ib_async_ucmd *u);
int ib_async_cmd_query_qp(struct ib_async_ucmd *u);
/* srq.c */
int ib_async_cmd_create_srq(struct ib_async_ucmd *u);
int ib_async_cmd_modify_srq(struct ib_async_ucmd *u);
int ib_async_cmd_query_srq(struct ib_async_ucmd *u);
/* wq.c */
int ib_async_cmd_create_wq(struct ib_async_ucmd *u);
int ib_async_cmd_modify_wq(struct ib_async_ucmd *u);
/* ah.c */
int ib_async_cmd_create_ah(struct ib_async_ucmd *u);

/* mcast.c */
int ib_async_cmd_attach_mcast(struct ib_async_ucmd *c);
int ib_async_cmd_detach_mcast(struct ib_async_ucmd *c);
void ib_async_qp_detach_all(struct ib_async_uobj *uobj);

/* cmd.c: what the object commands share */
int ib_async_cmd_destroy(struct ib_async_ucmd *u);
int ib_async_cmd_created(struct ib_async_ucmd *u, int result);
int ib_async_put_created(struct ib_async_ucmd *u, struct ib_async_uobj *uobj,
			 u32 *handle);
int ib_async_charge_asked(struct ib_async_uobj *uobj,
			  const struct ib_async_queue_sizes *asked);
int ib_async_put_charged(struct ib_async_ucmd *c, struct ib_async_uobj *uobj,
			 const struct ib_async_queue_sizes *granted, u32 *handle);

/* ah.c: address vectors and Q_Keys, which QPs and sends use too */
int ib_async_check_qkey(u32 qkey);
int ib_async_av_to_attr(struct ib_device *ib_dev, const struct ib_async_av *av,
			struct rdma_ah_attr *ah);
void ib_async_attr_to_av(const struct rdma_ah_attr *ah, struct ib_async_av *av);
int ib_async_resolve_dmac(struct ib_pd *pd, struct rdma_ah_attr *ah);

/* pin.c: a user's pages, pinned first, mapped under the locks */

/**
 * struct ib_async_pinned - a user's pages, pinned, then mapped (pin.c)
 * @pages: the pinned pages
 * @npages: how many
 * @mm: whose pinned_vm they are charged to (held by mmgrab())
 * @sgt: their DMA mapping, while @dev is set
 * @dev: the device they are mapped for
 * @writable: the device may write them
 */
struct ib_async_pinned {
	struct page **pages;
	unsigned long npages;
	struct mm_struct *mm;
	struct sg_table sgt;
	struct ib_device *dev;
	bool writable;
};

int ib_async_pin_user(struct ib_async_pinned *p, u64 addr, u64 length,
		      bool writable);
int ib_async_pinned_map(struct ib_async_pinned *p, struct ib_device *ib_dev,
			bool relaxed);
void ib_async_unpin_user(struct ib_async_pinned *p);

/* mr.c: user memory regions */
bool ib_async_user_mr_supported(struct ib_device *ib_dev);
u64 ib_async_max_user_mr_size(struct ib_device *ib_dev);
int ib_async_cmd_reg_mr(struct ib_async_ucmd *u);
int ib_async_mr_destroy(struct ib_async_mr *amr);
void ib_async_regq_set_name(struct ib_async_regq *rq, const char *name);
void ib_async_regq_abandon(struct ib_async_regq *rq);
int ib_async_mr_check_sge(struct ib_async_file *file, struct ib_async_uobj *pd,
			  const struct ib_sge *sge, bool write);
int ib_async_regq_destroy(struct ib_async_regq *rq);

/* hold.c: ib_async stays while a driver keeps what removal gave up on */
void ib_async_hold_for(struct ib_device *ib_dev);
int ib_async_holds_init(void);
void ib_async_holds_exit(void);

/* ops.c: the layer as the core sees it */
extern const struct ib_async_verbs_ops ib_async_verbs_ops;

#endif /* IB_ASYNC_VERBS_H */

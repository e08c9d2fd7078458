/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libibasync internal interfaces. Nothing here is exported from the
 * shared object: every definition is hidden unless marked IBASYNC_EXPORT,
 * and the version script (libibasync.map) is the final word on what is.
 */
#ifndef IBASYNC_INTERNAL_H
#define IBASYNC_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <sys/single_threaded.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <infiniband/ib_async.h>
#include <infiniband/ib_async_shim.h>
#include <infiniband/verbs.h>
#include <rdma/ib_async.h>

#include "../../include/ib_async_event_types.h"

#define IBASYNC_EXPORT __attribute__((visibility("default")))
/*
 * On a declaration of the library's own data read on the hot path: the
 * compiler then reaches it directly, not through the GOT.
 */
#define IBASYNC_HIDDEN __attribute__((visibility("hidden")))

/* IBASYNC_CLASS_DIR, the module's sysfs class: <infiniband/ib_async_shim.h> */
#define IBASYNC_IBDEV_CLASS_DIR	"/sys/class/infiniband"
#define IBASYNC_CDEV_DIR	"/dev/infiniband"

/*
 * Test hook: when set (and the process is not privileged, see
 * secure_getenv(3)), every sysfs and /dev path is looked up below this
 * directory instead of "/". It exists only so `make check` can run the
 * library against a fake tree without the kernel module.
 */
#define IBASYNC_TEST_ROOT_ENV	"IBASYNC_TEST_ROOT"

/* Queue length applied at ibv_open_device(), see libibasync(7). */
#define IBASYNC_QUEUE_LEN_ENV	"IBASYNC_QUEUE_LEN"

/* Non-empty: no mapped event rings, see libibasync(7) and ring.c. */
#define IBASYNC_NO_RING_ENV	"IBASYNC_NO_RING"

/*
 * Non-empty: CQs poll through the kernel (IB_ASYNC_IOC_POLL_CQ), with no
 * completion ring; see libibasync(7) and cq_ring.c.
 */
#define IBASYNC_NO_CQ_RING_ENV	"IBASYNC_NO_CQ_RING"
/*
 * How long a busy poller's empty ibv_poll_cq() may wait in the kernel: a
 * number of microseconds, every time (0: never); or by default ("auto") up
 * to IBASYNC_CQ_SPIN_AUTO_US, backing off on a CQ whose waits found
 * nothing, so that a program polling several CQs in turn rarely waits on
 * an idle one (cq_ring.c).
 */
#define IBASYNC_CQ_SPIN_US_ENV	"IBASYNC_CQ_SPIN_US"
#define IBASYNC_CQ_SPIN_AUTO_US	50
/* At most this many empty polls between two waits that find nothing. */
#define IBASYNC_CQ_SPIN_BACKOFF_MAX	1024

/*
 * Non-empty: posts go through the list commands (IB_ASYNC_IOC_POST_*_LIST),
 * with no submission ring; see libibasync(7) and wr_ring.c.
 */
#define IBASYNC_NO_WR_RING_ENV	"IBASYNC_NO_WR_RING"

/*
 * "1": each context lends one thread to the kernel's poller
 * (IB_ASYNC_IOC_POLLER), so that posts and polls make no system call
 * while it is awake; unset, "0" or anything else: none, the default
 * (poller.c). IBASYNC_POLLER_IDLE_US: how long it polls without work
 * before it sleeps, 0 (or anything unparsable) for the kernel's
 * poller_idle_us; the uAPI's bound is the largest value passed on.
 * IBASYNC_POLLER_CPU: the CPU that thread runs on; the bound is the
 * kernel's largest NR_CPUS (CONFIG_MAXSMP's 8192).
 */
#define IBASYNC_POLLER_ENV		"IBASYNC_POLLER"
#define IBASYNC_POLLER_IDLE_US_ENV	"IBASYNC_POLLER_IDLE_US"
#define IBASYNC_POLLER_IDLE_US_MAX	1000000
#define IBASYNC_POLLER_CPU_ENV		"IBASYNC_POLLER_CPU"
#define IBASYNC_POLLER_CPU_MAX		8191

/*
 * A mapped event ring (ring.c); hdr NULL when there is none. Its
 * consumer is whoever holds the lock of the queue it belongs to.
 * gen is ibasync_fork_gen when it was mapped: the kernel maps rings
 * VM_DONTCOPY, so a child of fork() maps its parent's rings again
 * (ibasync_ring_check()) from fd, map_offset and map_size.
 */
struct ibasync_ring {
	struct ib_async_ring_header *hdr;
	size_t map_size;
	unsigned char *records;
	uint32_t mask, record_size;
	uint32_t gen;
	int fd;
	uint64_t map_offset;
	size_t rec_size;	/* what the library reads of a record */
	int remap_err;		/* the child's mapping failed: for good */
};

/*
 * Bumped in the child of every fork() once a ring was mapped or a queue
 * read in batches (ring.c).
 */
extern uint32_t ibasync_fork_gen IBASYNC_HIDDEN;
/*
 * Set before the first fork() once a ring was mapped or a queue read in
 * batches (ring.c).
 */
extern bool ibasync_forked IBASYNC_HIDDEN;

/*
 * The event_type the library writes over a record of a destroyed object
 * still in a ring: no kernel type is this large, and takers skip it.
 */
#define IBASYNC_RING_SKIP	UINT32_MAX

/*
 * The channels of a context, which a destroy of one of its objects must
 * purge of that object's records (events.c). Shared by the context and
 * each channel on the list, and freed with the last of them, since a
 * channel may outlive its context (ibasync_create_channel(3)).
 */
struct ibasync_chan_list {
	pthread_mutex_t lock;
	struct ibasync_channel *head;
	unsigned int refs;
};

/*
 * A device as ibv_get_device_list() hands it out. The public part must be
 * first: users only ever see &dev->device. Each list entry and each open
 * context holds one reference, so a context outlives the list it came
 * from, as with rdma-core.
 */
struct ibasync_device {
	struct ibv_device device;
	atomic_int refcnt;
	unsigned int index;		/* N of ib_asyncN, for sorting */
	char node_path[IBV_SYSFS_PATH_MAX]; /* /dev/infiniband/ib_asyncN */
};

/*
 * An open device. struct verbs_context must come first and ends with the
 * struct ibv_context users see; rdma-core's inlines find the verbs_context
 * in front of it (verbs_get_ctx()).
 */
/* Records fetched per IB_ASYNC_IOC_READ_BATCH. */
#define IBASYNC_BATCH	64

struct ibasync_context {
	struct verbs_context vctx;
	struct ibasync_device *dev;
	/* events passed over as IB_ASYNC_EV_OVERFLOW records */
	atomic_uint_least64_t lost_events;

	/*
	 * Records peeked from the kernel and handed out one per
	 * ibv_get_async_event(); they stay queued in the kernel until the
	 * next fetch consumes them, so poll() on async_fd keeps telling the
	 * truth. Never held across a blocking call.
	 */
	pthread_mutex_t ev_lock;
	struct ib_async_event ev_buf[IBASYNC_BATCH];
	unsigned int ev_next, ev_count;
	uint64_t ev_handed;	/* last seq handed out, for the next fetch */
	/* IB_ASYNC_FEATURE_READ_BATCH not offered: one read() per event */
	bool ev_no_batch;
	/*
	 * The node's ring, mapped at open: when present, every record is
	 * taken from it under ev_lock (read() and READ_BATCH refuse a ring
	 * queue) and ev_buf stays unused.
	 */
	struct ibasync_ring ev_ring;
	/* IB_ASYNC_FEATURE_EVENT_RING and not IBASYNC_NO_RING: for channels */
	bool ring_ok;
	struct ibasync_chan_list *chans;
	/*
	 * IB_ASYNC_FEATURE_USER_MR: MRs are the kernel's (REG_MR) and work
	 * requests are posted in lists over them; else MRs are ranges kept
	 * here and messages go through the kernel's buffers.
	 */
	bool user_mr;
	/* IB_ASYNC_FEATURE_EVENT_CHANNEL: ibasync_create_channel() works */
	bool evchan;
	/* IB_ASYNC_FEATURE_CQ_RING: CQs get completion rings (cq_ring.c) */
	bool cq_ring;
	/*
	 * IB_ASYNC_FEATURE_WR_RING: QPs and SRQs get submission rings
	 * (wr_ring.c)
	 */
	bool wr_ring;
	/* IB_ASYNC_FEATURE_STATE: state channels too */
	bool state;
	/*
	 * IBASYNC_POLLER (poller.c): poller_on once the thread lent to the
	 * kernel was started, by process poller_pid (a child of fork() has
	 * no such thread); rings made then read their NEED_WAKEUP flags.
	 * poller_stopping: the context is closing, the thread must not
	 * enter the kernel again.
	 */
	bool poller_on;
	pid_t poller_pid;
	pthread_t poller;
	uint32_t poller_idle_us;
	atomic_bool poller_stopping;

	/* memory regions by lkey, without user_mr; see mr.c */
	pthread_rwlock_t mr_lock;
	struct ibv_mr **mrs;
	uint32_t mr_cap, mr_gen;

	/*
	 * Objects destroyed after device removal while some of their
	 * events were still unacknowledged: a late ibv_ack_async_event()
	 * still touches their mutex, so they are freed at close instead.
	 */
	pthread_mutex_t dead_lock;
	struct ibasync_dead *dead;
};

struct ibasync_dead {
	struct ibasync_dead *next;
	void *obj;
};

/* A PD counts its MRs: they exist only here, the kernel cannot refuse. */
struct ibasync_pd {
	struct ibv_pd pd;
	atomic_int mrs;
};

static inline struct ibasync_pd *to_ibasync_pd(struct ibv_pd *pd)
{
	return (struct ibasync_pd *)pd;
}

/*
 * One request of an ibv_wr_*() list and where its SGEs and inline data
 * are; the requests are linked through wr.next when the list is posted.
 */
struct ibasync_wr_rec {
	struct ibv_send_wr wr;
	size_t sge_at, inl_at;
};

/*
 * The ibv_wr_*() list being built (qp_wr.c), from ibv_wr_start(), whose
 * caller holds lock until ibv_wr_complete() or ibv_wr_abort(). SGEs and
 * inline data are copied in when set, as a provider copies them into its
 * queue; an inline SGE's addr is an offset into inl until the list is
 * posted. err is the first misuse, returned by ibv_wr_complete().
 */
struct ibasync_wr_list {
	pthread_mutex_t lock;
	bool started;
	int err;
	struct ibasync_wr_rec *rec;
	size_t n, rec_cap;
	struct ibv_sge *sge;
	size_t nsge, sge_cap;
	unsigned char *inl;
	size_t inl_len, inl_cap;
};

/*
 * A submission ring (wr_ring.c): a queue's work requests written into the
 * slots and posted by one doorbell. hdr is NULL for a queue without one.
 * lock is the queue's post lock, held from the first slot written to the
 * doorbell's answer read, as a provider holds its queue's lock; prod is
 * this process's producer count, equal to the kernel's consumer whenever
 * the lock is free.
 */
struct ibasync_wr_ring {
	const struct ib_async_wr_ring_header *hdr;
	uint32_t *producer;
	unsigned char *slots;
	size_t map_size, slots_map_size;
	uint64_t doorbell;
	uint32_t mask, slot_size, max_sge, max_inline, inline_offset;
	uint32_t prod;
	uint32_t gen;		/* ibasync_fork_gen when mapped */
	bool poller;		/* the context has a poller: see wr_ring.c */
	pthread_mutex_t lock;
};

/* Where a ring's slot @i (a wrapping count) is. */
static inline unsigned char *ibasync_wr_slot(const struct ibasync_wr_ring *r,
					     uint32_t i)
{
	return r->slots + (size_t)(i & r->mask) * r->slot_size;
}

/*
 * A QP remembers what ibv_query_qp() reports as its init attributes. One
 * created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS is a struct ibv_qp_ex too
 * (is_ex): ibv_qp_to_qp_ex() hands it out.
 */
struct ibasync_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qpx;
	};
	/* members later rdma-core releases append to ibv_qp_ex read NULL */
	void *qpx_room[16];
	struct ibv_qp_cap cap;
	int sq_sig_all;
	bool is_ex;
	uint64_t send_ops;	/* IBV_QP_EX_WITH_* granted */
	struct ibasync_wr_list wl;
	/* its send and receive queues' submission rings (wr_ring.c) */
	struct ibasync_wr_ring sq_ring, rq_ring;
};

static inline struct ibasync_qp *to_ibasync_qp(struct ibv_qp *qp)
{
	return (struct ibasync_qp *)qp;
}

/* An SRQ, and its submission ring (wr_ring.c). */
struct ibasync_srq {
	struct ibv_srq srq;
	struct ibasync_wr_ring ring;
};

static inline struct ibasync_srq *to_ibasync_srq(struct ibv_srq *srq)
{
	return (struct ibasync_srq *)srq;
}

/* wr_ring.c */
void ibasync_wr_ring_map(struct ibv_context *ctx, uint32_t obj_type,
			 uint32_t handle, uint32_t kind, uint32_t max_wr,
			 struct ibasync_wr_ring *r);
void ibasync_wr_ring_unmap(struct ibasync_wr_ring *r);
bool ibasync_wr_ring_on(const struct ibasync_wr_ring *r);
int ibasync_wr_ring_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr);
int ibasync_wr_ring_post_recv(struct ibv_context *ctx,
			      struct ibasync_wr_ring *r, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr);

/* Completions an extended CQ fetches from the kernel at a time. */
#define IBASYNC_CQ_EX_BATCH	16

/*
 * A CQ's completion ring (cq_ring.c), taken from under the CQ's
 * poll_lock; hdr is NULL for a CQ without one.
 */
struct ibasync_cq_ring {
	const struct ib_async_cq_ring_header *hdr;
	const unsigned char *records;
	uint32_t *consumer;
	size_t map_size, consumer_size;
	uint32_t mask, record_size;
	uint32_t cons;		/* this process's consumer count */
	uint32_t gen;		/* ibasync_fork_gen when mapped */
	uint32_t spin_us;	/* how long a second empty poll may spin */
	bool spin_auto;		/* IBASYNC_CQ_SPIN_US=auto: */
	uint32_t spin_skip;	/* empty polls left that do not spin */
	uint32_t spin_backoff;	/* the next skip after a spin in vain */
	bool empty;		/* the last look found nothing */
	bool poller;		/* the context has a poller: see cq_ring.c */
};

/*
 * Every CQ, from ibv_create_cq() and ibv_create_cq_ex() alike: struct
 * ibv_cq_ex begins with struct ibv_cq (ibv_cq_ex_to_cq() is a cast), and
 * ibv_poll_cq() must see what the extended poll API fetched ahead.
 */
struct ibasync_cq {
	struct ibv_cq_ex ex;
	bool is_ex;
	/*
	 * is_ex only: completions fetched from the kernel and not yet
	 * consumed, buf[next] the current one while have_cur. poll_lock is
	 * held from a successful ibv_start_poll() to ibv_end_poll() by the
	 * thread whose token (cq_ex.c) is in owner, as a provider holds its
	 * CQ lock; owner is 0 outside a session. Other threads read owner
	 * without the lock (atomically): a thread finds its own token there
	 * only in a session of its own.
	 */
	pthread_mutex_t poll_lock;
	uintptr_t owner;
	bool have_cur;
	unsigned int next, count;
	struct ib_async_wc buf[IBASYNC_CQ_EX_BATCH];
	/* every CQ: held while its ring is read, as is_ex's batch */
	struct ibasync_cq_ring ring;
};

/* cq_ring.c */
int ibasync_cq_ring_map(struct ibasync_cq *q);
void ibasync_cq_ring_unmap(struct ibasync_cq *q);
bool ibasync_cq_ring_on(const struct ibasync_cq *q);
int ibasync_cq_fetch(struct ibasync_cq *q, struct ib_async_wc *k,
		     uint32_t *count);

static inline struct ibasync_cq *to_ibasync_cq(struct ibv_cq *cq)
{
	return (struct ibasync_cq *)cq;
}

/* What ibv_async_event.element holds for an event type (libibverbs' rule). */
enum ibasync_element_kind {
	IBASYNC_ELEMENT_PORT = 0,
	IBASYNC_ELEMENT_CQ,
	IBASYNC_ELEMENT_QP,
	IBASYNC_ELEMENT_SRQ,
	IBASYNC_ELEMENT_WQ,
};

/*
 * libibverbs' mapping of event types onto ibv_async_event.element, as one
 * bit mask of types per kind of object (every such type is below 32),
 * made from the rows of ib_async_event_types.h. Masks, not a table or a
 * switch: the test is a shift in a register, with no load and no jump
 * table, and it runs for every record handed out; in an emulated guest
 * each memory access and indirect jump costs a call.
 */
#define IBASYNC_CQ_EVENTS	((uint32_t)IB_ASYNC_ELEMENT_MASK(cq))
#define IBASYNC_QP_EVENTS	((uint32_t)IB_ASYNC_ELEMENT_MASK(qp))
#define IBASYNC_SRQ_EVENTS	((uint32_t)IB_ASYNC_ELEMENT_MASK(srq))
#define IBASYNC_WQ_EVENTS	((uint32_t)IB_ASYNC_ELEMENT_MASK(wq))
#define IBASYNC_OBJECT_EVENTS	(IBASYNC_CQ_EVENTS | IBASYNC_QP_EVENTS | \
				 IBASYNC_SRQ_EVENTS | IBASYNC_WQ_EVENTS)

/*
 * Whether @event_type has its bit in @types, a mask above, without a
 * branch: the range test is 0 or 1, so the "and" keeps bit 0 of the shift.
 */
static inline bool ibasync_event_in(uint32_t types, uint32_t event_type)
{
	return (event_type < 32) & (types >> (event_type & 31));
}

/*
 * What @event_type's element names; the port for every other type, and
 * for types newer than this library, as in libibverbs.
 */
static inline enum ibasync_element_kind
ibasync_element_kind(uint32_t event_type)
{
	if (ibasync_event_in(IBASYNC_QP_EVENTS, event_type))
		return IBASYNC_ELEMENT_QP;
	if (ibasync_event_in(IBASYNC_CQ_EVENTS, event_type))
		return IBASYNC_ELEMENT_CQ;
	if (ibasync_event_in(IBASYNC_SRQ_EVENTS, event_type))
		return IBASYNC_ELEMENT_SRQ;
	if (ibasync_event_in(IBASYNC_WQ_EVENTS, event_type))
		return IBASYNC_ELEMENT_WQ;
	return IBASYNC_ELEMENT_PORT;
}

/*
 * Store a record's @element into @out, the element union of a struct
 * ibv_async_event or a struct ibasync_event (the same members), as
 * libibverbs sets it for @event_type. The kernel's element is the
 * object's user_handle for an affiliated event, which libibasync makes
 * the object's address, and the port number, below 2^32, for any other
 * (uAPI struct ib_async_event). On a little-endian machine the value as
 * a pointer-sized integer is then that union whichever member the type
 * names: the object's pointer, or port_num with zeros above it (and for
 * a type libibverbs maps to the port although the kernel gave a handle,
 * port_num still reads its low half, libibverbs' own truncation). So the
 * type is not looked at: one load and one store for every record handed
 * out, where a test of the type costs a dozen instructions (an emulated
 * guest pays for each). Big-endian puts port_num in the high half.
 */
static inline void ibasync_set_element(void *out, uint32_t event_type,
				       uint64_t element)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uintptr_t v = (uintptr_t)element;

	(void)event_type;
	memcpy(out, &v, sizeof(v));
#else
	union ibasync_element_u {
		void *obj;
		int port_num;
	} u;

	/*
	 * Every pointer to a structure has the same representation (C11
	 * 6.2.5), so the object is stored once, whichever member the type
	 * names.
	 */
	memset(&u, 0, sizeof(u));
	if (ibasync_event_in(IBASYNC_OBJECT_EVENTS, event_type))
		u.obj = (void *)(uintptr_t)element;
	else
		u.port_num = (int)element;
	memcpy(out, &u, sizeof(u));
#endif
}

/* The union above has the size and layout of both element unions. */
_Static_assert(sizeof(((struct ibv_async_event *)0)->element) ==
	       sizeof(uintptr_t), "element union is one pointer");

/* A record's type and element as ibv_get_async_event() gives them. */
static inline void ibasync_fill_event(const struct ib_async_event *rec,
				      struct ibv_async_event *event)
{
	event->event_type = (enum ibv_event_type)rec->event_type;
	ibasync_set_element(&event->element, rec->event_type, rec->element);
}

static inline struct ibasync_context *to_ibasync_ctx(struct ibv_context *ctx)
{
	return (struct ibasync_context *)((char *)ctx -
		offsetof(struct ibasync_context, vctx.context));
}

static inline struct ibasync_device *to_ibasync_dev(struct ibv_device *dev)
{
	return (struct ibasync_device *)dev;
}

/* netlink.c: an RDMA device and its ib_async node, as rdma netlink says */
struct ibasync_nl_dev {
	uint32_t index;
	char ibdev[IBV_SYSFS_NAME_MAX];
	char node[IBV_SYSFS_NAME_MAX];
	uint64_t abi;
};

int ibasync_nl_devices(struct ibasync_nl_dev **devs, size_t *num);

/* util.c */
bool ibasync_test_root(void);
int ibasync_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ibasync_read_attr(const char *path, char *buf, size_t len);
int ibasync_parse_uint(const char *s, unsigned long long max,
		       unsigned long long *out);
int ibasync_wait_readable(int fd);
int ibasync_ring_wait_more(int fd, int err, bool nonblock);
int ibasync_readable_now(int fd);

/* poller.c */
int ibasync_poller_start(struct ibasync_context *c, uint64_t features);
void ibasync_poller_stop(struct ibasync_context *c);

/* device.c */
void ibasync_device_get(struct ibasync_device *dev);
void ibasync_device_put(struct ibasync_device *dev);

/* events.c */
int ibasync_destroy_handle(struct ibasync_context *c, uint32_t obj_type,
			   uint32_t handle, uint64_t *reported,
			   uint64_t *comp_reported);
int ibasync_disassociated(struct ibasync_context *c);

/* objects.c */
void ibasync_free_dead(struct ibasync_context *c);
struct ibv_qp *ibasync_create_qp(struct ibv_pd *pd,
				 struct ibv_qp_init_attr *attr);
struct ibv_wq *ibasync_create_wq(struct ibv_context *context,
				 struct ibv_wq_init_attr *attr);
int ibasync_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr);
int ibasync_destroy_wq(struct ibv_wq *wq);

/* objects.c: the one way a CQ is made */
struct ibasync_cq *ibasync_cq_new(struct ibv_context *context, int cqe,
				  void *cq_context,
				  struct ibv_comp_channel *channel,
				  uint32_t comp_vector);

/* cq_ex.c */
struct ibv_cq_ex *ibasync_create_cq_ex(struct ibv_context *context,
				       struct ibv_cq_init_attr_ex *attr);

/* qp_ex.c */
struct ibv_qp *ibasync_create_qp_ex(struct ibv_context *context,
				    struct ibv_qp_init_attr_ex *attr);

/* qp_wr.c: the ibv_wr_*() API of an extended QP */
uint64_t ibasync_wr_ops_offered(struct ibv_context *context);
void ibasync_wr_init(struct ibasync_qp *q, uint64_t send_ops);
void ibasync_wr_fini(struct ibasync_wr_list *l);

/* query.c */
int ibasync_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size);
int ibasync_query_port_ex(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr, size_t attr_size);

/* mr.c */
void ibasync_mr_init(struct ibasync_context *c);
void ibasync_mr_fini(struct ibasync_context *c);
int ibasync_mr_check(struct ibasync_context *c, const struct ibv_sge *sge,
		     int need_access);

/*
 * An event channel (evchan.c): a file the kernel made on the context's
 * file, which names it by fd in (un)subscribe requests. context and fd
 * never change after creation; the ring is mapped at the first
 * ibasync_get_events() and, like the records in it, is the lock's, so
 * every call on a channel may run in any thread.
 */
struct ibasync_channel {
	struct ibv_context *context;
	int fd;
	struct ibasync_chan_list *list;
	struct ibasync_channel *next, **pprev;	/* on list, under its lock */
	pthread_mutex_t lock;
	/* may get a ring: the node offers it, no coalescing, no opt-out */
	bool ring_ok;
	/* MAP_RING done, map holds its answer; mapped once ring.hdr is set */
	bool ring_requested;
	struct ib_async_map_ring map;
	struct ibasync_ring ring;
	/* IBASYNC_CHANNEL_STATE: records are struct ib_async_chan_state_event */
	struct ibasync_state_keep *keep;
};

/*
 * The payloads of a state channel's latest IBASYNC_STATE_KEPT state
 * records, for ibasync_get_state(): a ring of them, oldest overwritten.
 * Its own lock, always taken: state records are rare, and the channel's
 * lock is not taken in a process of one thread (ibasync_mt_lock()).
 */
struct ibasync_state_kept {
	uint64_t seq;			/* 0: empty slot */
	uint32_t port_num;
	struct ib_async_port_state st;
};

struct ibasync_state_keep {
	pthread_mutex_t lock;
	unsigned int next;		/* slot the next record takes */
	struct ibasync_state_kept slot[IBASYNC_STATE_KEPT];
};

/* evchan_state.c: called by evchan.c, and calls nothing of it */
struct ibasync_state_keep *ibasync_state_keep_new(void);
void ibasync_state_keep_free(struct ibasync_state_keep *k);
void ibasync_state_keep_add(struct ibasync_state_keep *k,
			    const struct ib_async_chan_state_event *rec);
void ibasync_state_to_public(const struct ib_async_chan_event *k,
			     struct ibasync_event *e);

/* ring.c */
void ibasync_watch_forks(void);
bool ibasync_ring_disabled(void);
int ibasync_ring_mmap(int fd, const struct ib_async_map_ring *m,
		      size_t rec_size, struct ibasync_ring *r);
void ibasync_ring_unmap(struct ibasync_ring *r);
int ibasync_ring_remap(struct ibasync_ring *r);
uint32_t ibasync_ring_mark(struct ibasync_ring *r, uint32_t obj_type,
			   uint32_t handle);

/* Record number @i (a wrapping count) of a ring. */
static inline void *ibasync_ring_rec(const struct ibasync_ring *r, uint32_t i)
{
	return r->records + (size_t)(i & r->mask) * r->record_size;
}

/*
 * The ring helpers below sit on the path of every record: inline, so that
 * taking one is a few loads and stores with no call (calls are what cost
 * most in an emulated guest) and the copy has a constant size.
 *
 * Records published and not yet consumed, from *@cons on. The consumer
 * count is read first: another process sharing the ring (fork()) may move
 * it meanwhile, never past the producer count, so read in this order the
 * two never give a negative difference, which would read as a full ring
 * of slots not yet written. Acquire on both: the producer count's is read
 * after the consumer count's, and every record below it is complete.
 */
static inline uint32_t ibasync_ring_avail(const struct ibasync_ring *r,
					  uint32_t *cons)
{
	struct ib_async_ring_header *h = r->hdr;	/* read once, not per load */

	*cons = __atomic_load_n(&h->consumer, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE) - *cons;
}

/*
 * A lock only other threads of this process contend for, on a hot path:
 * not taken while the process has one thread (glibc's
 * __libc_single_threaded). No thread can appear before the caller
 * unlocks: only the caller could make one, and pthread_create() clears
 * the flag before the new thread runs. Returns whether @m was taken.
 */
static inline bool ibasync_mt_lock(pthread_mutex_t *m)
{
	if (__libc_single_threaded)
		return false;
	pthread_mutex_lock(m);
	return true;
}

static inline void ibasync_mt_unlock(pthread_mutex_t *m, bool locked)
{
	if (locked)
		pthread_mutex_unlock(m);
}

/* Unlock @m if @locked, keep errno, return -1. */
static inline int ibasync_mt_unlock_fail(pthread_mutex_t *m, bool locked)
{
	int err = errno;

	ibasync_mt_unlock(m, locked);
	errno = err;
	return -1;
}

/*
 * Before a ring is touched, its lock held: 0 when it is mapped in this
 * process, which is one load and compare unless a fork() came between;
 * else the child's new mapping of it (-1 with errno if that failed).
 */
static inline int ibasync_ring_check(struct ibasync_ring *r)
{
	if (__builtin_expect(r->gen == __atomic_load_n(&ibasync_fork_gen,
							__ATOMIC_RELAXED), 1))
		return 0;
	return ibasync_ring_remap(r);
}

/*
 * Move the consumer count from @from, where it was when the records from
 * there were read, to @to: true if this caller did, false if another
 * consumer moved it first (the records read are then stale). Within a
 * process the ring's lock makes its holder the only consumer, and until
 * a fork() that is all: a store. After fork() the parent and the child
 * share the ring, each with a lock of its own, and a compare-and-swap
 * hands each record to exactly one of them, as read() of a shared
 * descriptor would. A record claimed was whole when read: the kernel
 * refills a slot only once the consumer count has passed it, which it
 * had not. Release: the reads are done before the kernel may reuse the
 * slots.
 */
static inline bool ibasync_ring_claim(struct ibasync_ring *r, uint32_t from,
				      uint32_t to)
{
	if (__builtin_expect(!__atomic_load_n(&ibasync_forked,
					      __ATOMIC_RELAXED), 1)) {
		__atomic_store_n(&r->hdr->consumer, to, __ATOMIC_RELEASE);
		return true;
	}
	return __atomic_compare_exchange_n(&r->hdr->consumer, &from, to, false,
					   __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/*
 * Read records from @cons on into @rec, up to and including the first one
 * not marked skipped, @avail at most: the count past the last one read.
 * *@got: one was not skipped. Claiming them is the caller's.
 */
static inline uint32_t ibasync_ring_read(const struct ibasync_ring *r,
					 void *rec, size_t size, uint32_t cons,
					 uint32_t avail, bool *got)
{
	*got = false;
	while (avail-- && !*got) {
		memcpy(rec, ibasync_ring_rec(r, cons++), size);
		*got = ((struct ib_async_event *)rec)->event_type !=
		       IBASYNC_RING_SKIP;
	}
	return cons;
}

bool ibasync_ring_take_shared(struct ibasync_ring *r, void *rec, size_t size);

/*
 * Take the next record not marked skipped: true, or false if none. The
 * path of every ibv_get_async_event(): until a fork() it costs one flag
 * more than a ring with one consumer (under TCG every branch and call
 * shows); after one, ring.c's loop claims and retries.
 */
static inline bool ibasync_ring_take(struct ibasync_ring *r, void *rec,
				     size_t size)
{
	uint32_t cons, avail;
	bool got;

	if (__builtin_expect(__atomic_load_n(&ibasync_forked,
					     __ATOMIC_RELAXED), 0))
		return ibasync_ring_take_shared(r, rec, size);
	avail = ibasync_ring_avail(r, &cons);
	if (!avail)
		return false;	/* no store: the line stays shared */
	cons = ibasync_ring_read(r, rec, size, cons, avail, &got);
	/* the one consumer: the lock's holder (ibasync_ring_claim()) */
	__atomic_store_n(&r->hdr->consumer, cons, __ATOMIC_RELEASE);
	return got;
}

/* evchan.c */
struct ibasync_chan_list *ibasync_chan_list_new(void);
void ibasync_chan_list_put(struct ibasync_chan_list *l);
void ibasync_chan_list_mark(struct ibasync_chan_list *l, uint32_t obj_type,
			    uint32_t handle);

/* channel.c */
int ibasync_channel_attach(struct ibv_comp_channel *channel,
			   struct ibv_context *context, struct ibv_cq *cq,
			   uint32_t cqe, uint32_t comp_vector);
void ibasync_channel_detach(struct ibv_comp_channel *channel);

/* objects.c: struct verbs_context's create_srq_ex */
struct ibv_srq *ibasync_create_srq_ex(struct ibv_context *context,
				      struct ibv_srq_init_attr_ex *attr);

/* default_ops.c: every struct verbs_context op still NULL set to fail */
void ibasync_set_default_ops(struct verbs_context *vctx);

/* datapath.c */
extern const struct ibv_context_ops ibasync_ops;

/* Fail with @err the verbs way: returned, and in errno too. */
static inline int ibasync_err(int err)
{
	errno = err;
	return err;
}

/*
 * compat.c: ibv_query_gid_type(), which libibverbs declares only in its
 * provider header (driver.h) and exports at IBVERBS_PRIVATE_34, the node
 * of rdma-core 35 to 57; its enum as there.
 */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);

#endif /* IBASYNC_INTERNAL_H */

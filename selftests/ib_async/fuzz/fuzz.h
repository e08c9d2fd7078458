/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_async_fuzz: a structure-aware fuzzer of /dev/infiniband/ib_asyncN.
 *
 * The supervisor (ib_async_fuzz.c) runs the calls in batches. Each batch
 * forks one process that opens the files and forks sibling processes
 * sharing them; every process runs several worker threads (worker.c) that
 * issue random calls built from the command table (spec.c) with mostly
 * valid arguments drawn from the objects the workers made (gen.c). The
 * objects every process knows about live in one shared mapping, so a
 * sibling destroys what the opener created. After a batch the supervisor
 * reads the kernel log and changes the test bed (hot-unplug, reload).
 *
 * Everything a worker chooses comes from its own generator, seeded with
 * the batch seed plus its index, so a report's seed replays the same
 * choices.
 */
#ifndef IB_ASYNC_FUZZ_H
#define IB_ASYNC_FUZZ_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <rdma/ib_async.h>

#define FZ_MAX_DEVS	2
#define FZ_MAX_FILES	4
#define FZ_MAX_OBJS	96
#define FZ_MAX_STALE	32
#define FZ_MAX_REPORTS	32
#define FZ_REPORT_LEN	1536
#define FZ_PAGE		4096UL
/* every number the two command ranges hold, for per-command counts */
#define FZ_MAX_CMDS	(IB_ASYNC_CMD_LAST2 - IB_ASYNC_CMD_BASE + 1)

/* The generator: splitmix64, small and good enough for choices. */
struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void fz_seed(struct fz_rng *r, uint64_t seed)
{
	r->s = seed;
	fz_next(r);
}

/* A number in [0, n); 0 when n is 0. */
static inline uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

/* True with probability pct percent. */
static inline bool fz_chance(struct fz_rng *r, unsigned int pct)
{
	return fz_below(r, 100) < pct;
}

/* A number in [lo, hi]. */
static inline uint32_t fz_range(struct fz_rng *r, uint32_t lo, uint32_t hi)
{
	return lo + fz_below(r, hi - lo + 1);
}

enum fz_dev_kind {
	FZ_DEV_RXE,	/* soft-RoCE: real traffic on its loopback */
	FZ_DEV_EVSRC,	/* test event source: every event, WQs, no traffic */
};

struct fz_dev {
	char ibdev[32];
	char node[64];		/* /dev/infiniband/ib_asyncN */
	int kind;
	uint32_t ports;
	int gid_index;		/* RoCE v2 IPv4 GID (rxe), else -1 */
	uint8_t gid[16];
};

/* An object a file made, as the workers last saw it. */
struct fz_obj {
	uint32_t handle;
	uint16_t type;		/* IB_ASYNC_OBJ_* */
	uint8_t qp_type;	/* IB_UVERBS_QPT_* */
	uint8_t state;		/* QP: the state last set or seen */
	uint8_t rx;		/* QP: in a state that takes packets */
	uint8_t comp_chan;	/* CQ: created with a completion channel */
	uint32_t quiet_ms;	/* QP: when it last stopped taking them */
	uint32_t qpn;
	uint32_t port;		/* QP: port set at INIT; AH: its port */
	uint32_t srq;		/* QP: its SRQ's handle, or 0 */
	uint32_t cqe;		/* CQ: entries; SRQ: max_wr */
	uint32_t ring;		/* CQ: its completion ring's entries, or 0 */
	uint8_t wr_rings;	/* QP, SRQ: 1 << kind of each submission ring */
	uint32_t pd;		/* QP, SRQ, MR: the PD's handle */
	uint32_t lkey, rkey;	/* MR: its keys */
	uint64_t addr, len;	/* MR: what it covers */
};

/* One open file, shared by every worker process of the batch. */
struct fz_file {
	int fd;			/* the same number in every process */
	int dev;		/* index in fz_shared.dev */
	uint32_t gen;		/* bumped whenever a process reopens it */
	uint32_t nobj;
	struct fz_obj obj[FZ_MAX_OBJS];
	uint32_t stale[FZ_MAX_STALE];	/* handles destroyed or closed */
	uint32_t stale_next;
	/*
	 * Handles a DESTROY took while the table did not hold them: a guessed
	 * handle can name an object whose CREATE has returned but not yet been
	 * added, and that add must not count as the kernel reusing a handle.
	 */
	uint32_t gone_untracked[FZ_MAX_STALE];
	uint32_t gone_untracked_next;
	uint64_t seen_seq;	/* the highest seq a reader got */
	/*
	 * REQ_NOTIFY_CQ calls ever made to the slot, counted before each goes
	 * in and never reset: a CQ fires at most once per arming, so no CQ of
	 * any file the slot held can have reported more completion events.
	 */
	uint64_t arms;
	/*
	 * DESTROY calls ever made to the slot, counted before each goes in:
	 * a destroy takes its object's unread records out of the file's
	 * channels, so a channel's sequence may skip them.
	 */
	uint64_t destroys;
	/*
	 * POLLER calls made to the slot (counted before each goes in), and
	 * those not returned yet: while one may be polling, a ring's
	 * consumer follows its scribbled producer with no doorbell at all.
	 */
	uint64_t polls;
	uint32_t polling;
};

/* Writes of a mapped completion ring's consumer page (cq_ring.c). */
enum fz_ring_write {
	FZ_RW_AHEAD,	/* the index ahead of the producer */
	FZ_RW_BEHIND,	/* more than the ring's size behind it */
	FZ_RW_ANY,	/* any number */
	FZ_RW_CONSUME,	/* past the records read, as a program does */
	FZ_RW_PAGE,	/* garbage in the rest of the page */
	FZ_RW_KINDS
};

struct fz_report {
	char key[96];		/* what identifies it for de-duplication */
	char text[FZ_REPORT_LEN];
};

/* What a batch's processes share (MAP_SHARED, set up by the supervisor). */
struct fz_shared {
	pthread_mutex_t lock;	/* process-shared: files[] and reports */
	uint64_t seed;		/* the batch seed */
	uint32_t ndev;
	struct fz_dev dev[FZ_MAX_DEVS];
	uint32_t nfiles;
	struct fz_file file[FZ_MAX_FILES];
	bool storm;		/* ib_async_storm's dispatch file is there */
	bool evsrc;		/* evsrc0 is there */
	bool rt;		/* PREEMPT_RT: evsrc has no hard-irq context */
	uint32_t max_queue_len;	/* the module parameter, for SET_QUEUE_LEN */
	atomic_ullong calls;	/* done so far in the batch */
	/* test-bed changes begun in the batch (they may remove devices) */
	atomic_uint mid_epoch;
	/* what the calls reached, for the run's closing statistics */
	struct fz_stats {
		atomic_ullong cmd_calls[FZ_MAX_CMDS], cmd_ok[FZ_MAX_CMDS];
		atomic_ullong events[21];	/* by type; [20]: overflow */
		atomic_ullong wc_ok, wc_err;
		atomic_ullong slow_faults;	/* answered late */
		/* event channels read with the sequence verdict */
		atomic_ullong chan_reads, chan_recs, chan_lost, chan_drains;
		/* snapshots asked for by the state recipe, and refused */
		atomic_ullong snap_calls, snap_busy;
		/*
		 * Completion rings (cq_ring.c): mappings made, unmapped (whole
		 * or a tail), moved and made again; writes of their consumer
		 * pages by kind (enum fz_ring_write); looks at a ring, those
		 * at the ring of a destroyed CQ, and the records checked in
		 * them; completions the producer counts published while a
		 * ring was watched; CQ_WAIT answers with FULL and with POLL;
		 * runs of the ring recipe that got to traffic, and its
		 * scribbler's looks and writes.
		 */
		atomic_ullong ring_maps, ring_unmaps, ring_tails, ring_moves,
			      ring_remaps;
		atomic_ullong ring_writes[FZ_RW_KINDS];
		atomic_ullong ring_looks, ring_dead_looks, ring_recs,
			      ring_published;
		atomic_ullong ring_full, ring_poll;
		atomic_ullong ring_recipes, ring_scribbles;
	} stats;
	uint32_t nreports;	/* reports raised (may exceed the slots) */
	struct fz_report report[FZ_MAX_REPORTS];
};

/* A worker: one thread, or a process forked by one. */
/* Channels a worker keeps open; the oldest is closed first. */
#define FZ_CHANNELS	4

struct fz_ctx {
	struct fz_rng rng;
	struct fz_shared *sh;
	uint32_t worker;	/* seed offset: batch seed + worker + 1 */
	uint64_t call;		/* calls this worker made */
	uint64_t budget;
	bool opener;		/* runs in the process that opened the files */
	uint32_t *my_gen;	/* per process: generation of each fd here */
	/* placement areas (see worker.c) */
	uint8_t *arg_rw;	/* 2 pages, then a PROT_NONE guard page */
	uint8_t *arg_ro;	/* the same memory as arg_ro_w, read-only */
	uint8_t *arg_ro_w;
	uint8_t *data;		/* FZ_DATA_LEN bytes, then a guard page */
	uint8_t *lists;		/* FZ_LIST_LEN bytes no MR covers, then one */
	/* for the watchdog that interrupts blocking calls */
	atomic_ullong busy_since;
	pthread_t thread;
	pid_t tid;
	/* the call in flight: for reports, and its file's generation */
	char desc[256];
	uint32_t gen;
	/*
	 * The file its descriptor names, current or not: the slot's
	 * generation it was opened as, and whether the descriptor is a dup
	 * (which never changes) or the slot's own (which a reopen in this
	 * process replaces). See fz_fd_unchanged().
	 */
	uint32_t fd_gen;
	bool fd_dup;
	/* channels this worker made, the slot and type of each */
	int chan_fd[FZ_CHANNELS];
	uint32_t chan_slot[FZ_CHANNELS];
	uint32_t chan_type[FZ_CHANNELS];
	uint32_t chan_rec[FZ_CHANNELS];	/* bytes per record it holds */
	uint32_t chan_sub[FZ_CHANNELS];	/* last subscription id it gave */
	uint32_t chan_flags[FZ_CHANNELS];	/* CREATE_CHANNEL's flags */
	/*
	 * An event channel this worker alone has read, every record through
	 * fz_chan_read() (chan_own): the seq its next record must carry and
	 * the overflow records' counts read so far. chan_own goes false for
	 * good once another reader may take its records: a process forked
	 * with it, a ring mapped on it.
	 */
	bool chan_own[FZ_CHANNELS];
	uint64_t chan_next[FZ_CHANNELS];
	uint64_t chan_lost[FZ_CHANNELS];
	/*
	 * fz_purge_epoch() when a read last found the channel empty, and
	 * what it was then for the last record read: a record queued after
	 * that one and gone before the next read (a destroy's purge, a
	 * removal) can only be if the epoch moved since.
	 */
	uint64_t chan_empty_epoch[FZ_CHANNELS];
	uint64_t chan_last_epoch[FZ_CHANNELS];
	uint32_t nchan;
};

#define FZ_DATA_LEN	(256 * 1024)
#define FZ_LIST_LEN	(4 * FZ_PAGE)
/*
 * REG_MR's access bits: enum ibv_access_flags up to the FLUSH bits, and
 * the optional range (bits 20-29), which uverbs accepts and may ignore
 */
#define FZ_MR_ACCESS	(0x3ffU | (0x3ffU << 20))

/* Process-wide addresses the workers point the kernel at (worker.c). */
struct fz_mem {
	uint8_t *guard;		/* PROT_NONE */
	uint8_t *hole;		/* below mmap_min_addr: never mapped */
	uint8_t *volat;		/* made unreadable, read-only, fresh by a
				 * worker; a guard page follows */
	size_t volat_len;
	uint8_t *send;		/* message bytes, never written after setup */
	uint8_t *recv;		/* FZ_RECV_LEN: receives land here; a
				 * guard page follows */
	uint8_t *slow;		/* FZ_SLOW_LEN whose faults are answered
				 * late (userfaultfd); NULL without it */
};

#define FZ_RECV_LEN	(256 * 1024)
#define FZ_SLOW_LEN	(64 * 1024)

extern struct fz_mem fz_mem;

/* --trace FILE: every call, one line each, appended (for debugging) */
extern int fz_trace_fd;
__attribute__((format(printf, 2, 3)))
void fz_trace(struct fz_ctx *ctx, const char *fmt, ...);

/* Rules of the uAPI an argument breaks: the call must fail. */
enum {
	FZ_B_SHORT	= 1 << 0,	/* argsz below the first version */
	FZ_B_HUGE	= 1 << 1,	/* argsz beyond a page */
	FZ_B_TAIL	= 1 << 2,	/* larger, with a non-zero tail */
	FZ_B_FLAGS	= 1 << 3,	/* an unknown flag bit */
	FZ_B_RSV	= 1 << 4,	/* a reserved field non-zero */
	FZ_B_UNMAPPED	= 1 << 5,	/* the argument pointer is bad */
	FZ_B_OUTIN	= 1 << 6,	/* an out-only field set going in */
};

/* A field of an argument structure, as the uAPI header describes it. */
enum fz_kind {
	FK_FLAGS,	/* flags; arg: the valid bits */
	FK_RSV,		/* reserved: must be 0 */
	FK_OUT,		/* written by the kernel */
	FK_OUT0,	/* written by the kernel; must be 0 going in */
	FK_HANDLE,	/* a handle; arg: its object type (0: by obj_type) */
	FK_OBJTYPE,	/* enum ib_async_obj_type */
	FK_UPTR,	/* a user pointer */
	FK_COUNT,	/* entries or capacity */
	FK_LEN,		/* bytes */
	FK_QPN,		/* a QP number */
	FK_PORT,	/* a port number */
	FK_VAL,		/* anything else */
};

struct fz_field {
	const char *name;
	uint16_t off;
	uint8_t size;
	uint8_t kind;
	uint32_t arg;
};

#define FZ_ARG_MAX	(FZ_PAGE + 64)

/* One ioctl being prepared: the command, its file and its argument. */
/*
 * WR_DOORBELL's argument is a value, not a structure: the fuzzer keeps it
 * where a structure would be, and passes it as the ioctl's argument.
 */
struct fz_doorbell {
	uint64_t value;
};

struct fz_call {
	const struct fz_cmd *cmd;
	uint32_t slot;			/* file slot */
	int fd;
	uint32_t argsz;			/* what the argument's argsz says */
	uint32_t len;			/* bytes placed (argsz, capped) */
	bool unmapped;			/* the argument pointer is bad */
	uint32_t gen;			/* the file's generation, if current */
	/*
	 * POST_SEND_LIST: a request the send rules refuse (opcode for the QP
	 * type, a field the opcode does not use), and the QP and count the
	 * builder chose: the call must fail while they are unchanged.
	 */
	bool rules_refuse;
	uint32_t rules_handle, rules_count;
	union {
		uint8_t raw[FZ_ARG_MAX];
		struct ib_async_info info;
		struct ib_async_queue_len queue_len;
		struct ib_async_read_batch read_batch;
		struct ib_async_create_pd create_pd;
		struct ib_async_create_cq create_cq;
		struct ib_async_resize_cq resize_cq;
		struct ib_async_create_qp create_qp;
		struct ib_async_qp_attr qp_attr;
		struct ib_async_create_srq create_srq;
		struct ib_async_srq_attr srq_attr;
		struct ib_async_create_wq create_wq;
		struct ib_async_modify_wq modify_wq;
		struct ib_async_create_ah create_ah;
		struct ib_async_destroy destroy;
		struct ib_async_device_attr device_attr;
		struct ib_async_port_attr port_attr;
		struct ib_async_query_gid query_gid;
		struct ib_async_query_pkey query_pkey;
		struct ib_async_post_recv post_recv;
		struct ib_async_post_send post_send;
		struct ib_async_poll_cq poll_cq;
		struct ib_async_create_channel create_channel;
		struct ib_async_subscribe subscribe;
		struct ib_async_unsubscribe unsubscribe;
		struct ib_async_map_ring map_ring;
		struct ib_async_ring_wait ring_wait;
		struct ib_async_mcast mcast;
		struct ib_async_req_notify_cq req_notify_cq;
		struct ib_async_reg_mr reg_mr;
		struct ib_async_post_list post_list;
		struct ib_async_map_cq_ring map_cq_ring;
		struct ib_async_cq_wait cq_wait;
		struct ib_async_map_wr_ring map_wr_ring;
		struct fz_doorbell doorbell;
		struct ib_async_poller poller;
	} a;
	char mdesc[128];		/* the mutations, for reports */
	uint8_t sent[256];		/* the argument as it went in */
};

/*
 * A command of the uAPI: its structure, which fields mean what, how to
 * build valid arguments and what to learn from a success.
 */
struct fz_cmd {
	const char *name;
	unsigned int nr;
	uint32_t size;
	uint32_t min_size;
	const struct fz_field *fields;
	unsigned int nfields;
	/* fill c->a with arguments a device would accept; false: cannot */
	bool (*build)(struct fz_ctx *ctx, struct fz_call *c);
	/* the call succeeded: update what the workers know */
	void (*done)(struct fz_ctx *ctx, struct fz_call *c);
	unsigned int weight;
	bool datapath;		/* needs the opener's memory */
	bool value;		/* its argument is a value (struct fz_doorbell) */
};

/* Every command, in the order of enum ib_async_cmd. */
#define FZ_COMMANDS(X)							\
	X(GET_INFO, get_info) X(SET_QUEUE_LEN, set_queue_len)		\
	X(READ_BATCH, read_batch) X(CREATE_PD, create_pd)		\
	X(CREATE_CQ, create_cq) X(RESIZE_CQ, resize_cq)			\
	X(CREATE_QP, create_qp) X(MODIFY_QP, modify_qp)			\
	X(QUERY_QP, query_qp) X(CREATE_SRQ, create_srq)			\
	X(MODIFY_SRQ, modify_srq) X(QUERY_SRQ, query_srq)		\
	X(CREATE_WQ, create_wq) X(MODIFY_WQ, modify_wq)			\
	X(CREATE_AH, create_ah) X(DESTROY, destroy)			\
	X(QUERY_DEVICE, query_device) X(QUERY_PORT, query_port)		\
	X(QUERY_GID, query_gid) X(QUERY_PKEY, query_pkey)		\
	X(POST_RECV, post_recv) X(POST_SEND, post_send)			\
	X(POLL_CQ, poll_cq) X(CREATE_CHANNEL, create_channel)		\
	X(REQ_NOTIFY_CQ, req_notify_cq) X(REG_MR, reg_mr)		\
	X(POST_SEND_LIST, post_send_list) X(POST_RECV_LIST, post_recv_list) \
	X(SUBSCRIBE, subscribe) X(UNSUBSCRIBE, unsubscribe)		\
	X(MAP_RING, map_ring) X(RING_WAIT, ring_wait)			\
	X(ATTACH_MCAST, attach_mcast) X(DETACH_MCAST, detach_mcast)	\
	X(MAP_CQ_RING, map_cq_ring) X(CQ_WAIT, cq_wait)			\
	X(MAP_WR_RING, map_wr_ring) X(WR_DOORBELL, wr_doorbell)		\
	X(POLLER, poller)

/* QP states, as enum ibv_qp_state and the uAPI's qp_state number them */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

/* Microseconds of CLOCK_MONOTONIC. */
static inline uint64_t fz_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static inline uint64_t fz_now_ms(void)
{
	return fz_now_us() / 1000;
}

/* gen.c: one builder and one answer handler per command */
#define FZ_DECLARE(NR, name)						\
	bool fz_build_##name(struct fz_ctx *ctx, struct fz_call *c);	\
	void fz_done_##name(struct fz_ctx *ctx, struct fz_call *c);
FZ_COMMANDS(FZ_DECLARE)
#undef FZ_DECLARE

/* spec.c */
extern const struct fz_cmd fz_cmds[];
extern const unsigned int fz_ncmds;
const struct fz_cmd *fz_cmd_by_nr(unsigned int nr);

/* gen.c: argument builders and what the workers know of objects */
void fz_lock(struct fz_shared *sh);
void fz_unlock(struct fz_shared *sh);
bool fz_same_file(struct fz_ctx *ctx, uint32_t slot);
bool fz_pick_obj(struct fz_ctx *ctx, uint32_t slot, uint32_t type,
		 struct fz_obj *out);
bool fz_pick_qp(struct fz_ctx *ctx, uint32_t slot, int qp_type, int state,
		struct fz_obj *out);
void fz_obj_add(struct fz_ctx *ctx, uint32_t slot, const struct fz_obj *o);
bool fz_obj_del(struct fz_ctx *ctx, uint32_t slot, uint32_t handle,
		struct fz_obj *gone);
void fz_obj_set_state(struct fz_ctx *ctx, uint32_t slot, uint32_t handle,
		      uint8_t state, uint32_t port);
uint32_t fz_foreign_handle(struct fz_ctx *ctx, uint32_t slot);
uint32_t fz_stale_handle(struct fz_ctx *ctx, uint32_t slot);
void fz_build_av(struct fz_ctx *ctx, uint32_t slot, struct ib_async_av *av);
uint64_t fz_valid_uptr(struct fz_ctx *ctx, uint64_t len);
void fz_check_records(struct fz_ctx *ctx, uint32_t slot,
		      const struct ib_async_event *ev, uint32_t n);
void fz_chan_read(struct fz_ctx *ctx, uint32_t i, bool drain);
uint64_t fz_purge_epoch(struct fz_ctx *ctx, uint32_t slot);
uint64_t fz_bad_uptr(struct fz_ctx *ctx, uint64_t len, bool later);
uint64_t fz_recv_uptr(struct fz_ctx *ctx, uint32_t len);
uint64_t fz_out_uptr(struct fz_ctx *ctx, uint64_t len);
void fz_file_reset(struct fz_file *f);
void fz_check_wc(struct fz_ctx *ctx, const struct ib_async_wc *wc, bool ring);

/*
 * cq_ring.c: the completion rings this process mapped, and what its
 * threads do to them while others post, wait, poll and destroy
 */
/* MAP_CQ_RING's bound on entries (include/uapi/rdma/ib_async.h) */
#define FZ_CQ_RING_MAX	16384
/* fz_cq_ring_map()'s slot for a file of the caller's own, not a slot's */
#define FZ_OWN_FILE	UINT32_MAX
void fz_cq_ring_init(void);
void fz_cq_ring_map(struct fz_ctx *ctx, int fd, uint32_t slot,
		    const struct ib_async_map_cq_ring *a);
void fz_cq_ring_destroyed(struct fz_ctx *ctx, uint32_t slot, uint32_t handle);
uint32_t fz_cq_ring_poke(struct fz_ctx *ctx, uint32_t slot, uint32_t handle,
			 uint32_t n);
void fz_cq_ring_unmap(struct fz_ctx *ctx, uint32_t slot, uint32_t handle);
void fz_cq_ring_act(struct fz_ctx *ctx);

/* worker.c */
void fz_mem_init(void);
void fz_slow_init(struct fz_shared *sh);
int fz_ctx_init(struct fz_ctx *ctx, struct fz_shared *sh, uint32_t worker,
		uint64_t budget, bool opener, uint32_t *my_gen);
void fz_worker_run(struct fz_ctx *ctx);
int fz_issue(struct fz_ctx *ctx, struct fz_call *c);
bool fz_prepare(struct fz_ctx *ctx, struct fz_call *c,
		const struct fz_cmd *cmd, uint32_t slot);
int fz_ioc(struct fz_ctx *ctx, uint32_t slot, unsigned int nr, void *arg);
int fz_ioc_on(struct fz_ctx *ctx, uint32_t slot, int fd, unsigned int nr,
	      void *arg);
bool fz_fd_unchanged(struct fz_ctx *ctx, uint32_t slot);
void fz_unstick_init(void);
__attribute__((format(printf, 3, 4)))
void fz_report(struct fz_ctx *ctx, const char *key, const char *fmt, ...);
uint32_t fz_dev_of(struct fz_ctx *ctx, uint32_t slot);

/* recipes.c: sequences that reach deep states */
void fz_recipe(struct fz_ctx *ctx, uint32_t slot);

#endif /* IB_ASYNC_FUZZ_H */

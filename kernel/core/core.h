/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The event core: what ib_async is for, buildable without the verbs layer
 * (verbs/), which it reaches only through struct ib_async_verbs_ops.
 *
 * Objects and their lifetimes:
 *
 *  ib_async_device  one per RDMA device, created by the ib_client add
 *                   callback. Its memory lives as long as its embedded
 *                   struct device: the client holds one reference until
 *                   remove, every open file holds one more. The ib_device
 *                   pointer is valid only under disassoc_rwsem and becomes
 *                   NULL at removal, so files never pin the RDMA device and
 *                   removal never waits for userspace.
 *
 *  ib_async_file    one per open(); owns an event queue. On its device's
 *                   RCU list (written under files_lock), which the event
 *                   handler walks from any context; freed after a grace
 *                   period, so a handler still walking never sees it gone.
 *                   What the verbs layer keeps per file hangs off @verbs.
 *
 *  ib_async_evq     the bounded queue (evq.c). Storage is allocated at
 *                   open and resize only; pushing never allocates.
 *
 *  ib_async_channel a channel (channel.c): a file of its own with a
 *                   queue. A completion channel is fed by the completion
 *                   handler of the CQs that use it, each of which holds a
 *                   reference; an event channel (evchan.c) by the event
 *                   handlers, through its context's RCU list of channels,
 *                   with what its subscriptions match. Freed after a
 *                   grace period.
 *
 * Lock order: disassoc_rwsem -> obj_mutex -> evq.read_mutex ->
 * evq.move_mutex -> files_lock -> chan_lock -> evq.lock. Only readers take
 * evq.read_mutex, and they hold it across copies to user memory, which may
 * stall: nothing but another reader of the queue waits for it. Object
 * commands hold disassoc_rwsem for reading and the file's obj_mutex;
 * device removal holds disassoc_rwsem for writing, which also keeps every
 * file's object table and list membership still.
 * evq.lock is taken with interrupts disabled because events may be
 * delivered from hard-irq context; it is the only lock the event path
 * takes, one queue at a time.
 */
#ifndef IB_ASYNC_CORE_H
#define IB_ASYNC_CORE_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "evq.h"

/* Ports a state channel covers, its device's record (port 0) included. */
#define IB_ASYNC_STATE_PORTS_MAX	256
/* Hard limit for max_queue_len: keeps a resize copy with irqs off short. */
#define IB_ASYNC_QUEUE_LEN_LIMIT	BIT(20)

struct seq_file;
struct ib_async_channel;
struct ib_async_vfile;

struct ib_async_device {
	struct device dev;
	struct cdev cdev;
	int devnum;

	struct rw_semaphore disassoc_rwsem;
	struct ib_device *ib_dev;	/* NULL once removed */

	spinlock_t files_lock;		/* writers of files */
	struct list_head files;		/* RCU: the event handler reads it */

	struct ib_event_handler event_handler;

	/* each file's channels list, and every channel's file */
	struct mutex chan_lock;

	struct ib_async_stats __percpu *stats;
};

struct ib_async_file {
	struct ib_async_device *adev;
	struct list_head list;		/* on adev->files */
	struct rcu_head rcu;		/* freed after readers of the list */
	/*
	 * Closed, but the driver refused to destroy some of its objects:
	 * kept (on the device's list, queue and all) until removal tries
	 * again. reap links it for freeing then.
	 */
	bool orphaned;
	struct list_head reap;
	struct ib_async_evq evq;
	/* channels made on it: RCU, which event delivery walks */
	struct list_head channels;
	/* one object's forgetting at a time walks the event channels */
	struct mutex forget_mutex;

	/*
	 * The file's commands: its objects, their handles and dependencies.
	 * Every command but the data path's takes it, before @dp_rwsem.
	 */
	struct mutex obj_mutex;
	/*
	 * The data path's state: its requests, completions and rings. The
	 * data path's commands take it for reading, alone, and so neither
	 * wait for an object command (a create, a modify, a registration) in
	 * the driver nor for each other: the verbs layer's own per-object
	 * locks order them. Every other command takes it for writing, inside
	 * @obj_mutex, and so waits for the data path's to return.
	 */
	struct rw_semaphore dp_rwsem;
	/* the verbs layer's part (its objects, requests...), its ops' own */
	struct ib_async_vfile *verbs;

	/*
	 * kernel memory the data path and the verbs objects' queues hold,
	 * charged to RLIMIT_MEMLOCK
	 */
	struct user_struct *user;	/* NULL: CAP_IPC_LOCK, not limited */
	/* the data path and object commands charge without a common lock */
	spinlock_t acct_lock;
	u64 acct_bytes;			/* charged as whole pages */
};

/**
 * struct ib_async_sub - one subscription of an event channel
 * @type_mask: with IB_ASYNC_SUB_TYPES, the event types it matches
 * @cookie: returned in its records
 * @id: its id in the channel
 * @flags: enum ib_async_subscribe_flags
 * @port: with IB_ASYNC_SUB_PORT, the port it matches
 * @obj_type: with IB_ASYNC_SUB_OBJECT, the object's type
 * @obj_handle: and handle
 */
struct ib_async_sub {
	u64 type_mask;
	u64 cookie;
	u32 id;
	u32 flags;
	u32 port;
	u32 obj_type;
	u32 obj_handle;
};

/**
 * struct ib_async_subset - an event channel's subscriptions, replaced whole
 * @rcu: freed after the readers of the set it replaced
 * @n: how many
 * @subs: in the order they were made
 */
struct ib_async_subset {
	struct rcu_head rcu;
	u32 n;
	struct ib_async_sub subs[];
};

/**
 * struct ib_async_chan_ops - what a kind of channel has beyond its queue
 * @name: its file's name, as /proc/PID/fd shows it
 * @kind: what fdinfo's ib_async-channel line says
 * @flags: the IB_ASYNC_CHANNEL_* flags it takes beside NONBLOCK
 * @queue: the queue @flags ask for on @ib_dev: its IB_ASYNC_EVQ_* flags
 *	and state slots; 0 or -errno
 * @init: what the channel needs beyond its queue, once that exists
 * @release: its file is closed
 * @show_fdinfo: its own fdinfo lines
 * @free: frees what @init made, a grace period after the last reference
 * @end_record: at device removal its stream ends with a DEVICE_FATAL
 *	record, as the node's does, rather than with an error alone
 *
 * Every hook but @queue may be NULL. The core's own kind is the
 * completion channel; the event channel's (evchan.c) is registered by
 * ib_async_core_init(), so the channel code never calls it by name.
 */
struct ib_async_chan_ops {
	const char *name;
	const char *kind;
	u32 flags;
	int (*queue)(struct ib_device *ib_dev, u32 flags, unsigned int *qflags,
		     u32 *state_slots);
	int (*init)(struct ib_async_channel *chan, struct ib_device *ib_dev);
	void (*release)(struct ib_async_channel *chan);
	void (*show_fdinfo)(struct seq_file *m, struct ib_async_channel *chan);
	void (*free)(struct ib_async_channel *chan);
	bool end_record;
};

/**
 * struct ib_async_channel - a channel (channel.c, evchan.c)
 * @ref: its file, each CQ using it, and a forgetting object's walk
 * @adev: the device, whose chan_lock guards @file, @list, @subs, @sub_next
 * @file: the context it was made on; NULL once that is closed
 * @list: on @file's channels (RCU)
 * @type: enum ib_async_channel_type
 * @ops: its kind's
 * @cqs: completion channels: CQs using it; a new one needs a free slot
 * @subs: event channels: the subscriptions (RCU), NULL for none
 * @sub_next: event channels: the last subscription id given
 * @forget: event channels: on a forgetting object's walk (forget_mutex)
 * @rcu: freed after a grace period, as delivery may be walking past it
 * @gid_gen: state channels: per port (index 0 unused), the GID_CHANGE
 *	events offered to the channel, under the queue's lock
 * @nports: state channels: the device's last port number
 * @resync_work: resync channels: takes the snapshot an overflow asks for
 * @resync_queued: bit 0: @resync_work is queued, with a reference
 * @evq: its records
 */
struct ib_async_channel {
	struct kref ref;
	struct ib_async_device *adev;
	struct ib_async_file *file;
	struct list_head list;
	u32 type;
	const struct ib_async_chan_ops *ops;
	atomic_t cqs;
	struct ib_async_subset __rcu *subs;
	u32 sub_next;
	struct list_head forget;
	struct rcu_head rcu;
	u32 *gid_gen;
	u32 nports;
	struct work_struct resync_work;
	unsigned long resync_queued;
	struct ib_async_evq evq;
};

/* params.c */
u32 ib_async_default_queue_len(void);
u32 ib_async_max_queue_len(void);

/* stats.c */
int ib_async_stats_alloc(struct ib_async_device *adev);
void ib_async_stats_free(struct ib_async_device *adev);
extern const struct attribute_group ib_async_stats_group;

/* device.c */
int ib_async_device_init(void);
void ib_async_device_exit(void);
struct ib_async_device *ib_async_device_add(struct ib_device *ib_dev);
void ib_async_device_remove(struct ib_async_device *adev);
int ib_async_device_attach_file(struct ib_async_device *adev,
				struct ib_async_file *file);
bool ib_async_device_detach_file(struct ib_async_device *adev,
				 struct ib_async_file *file);

/* How a command runs (struct ib_async_ioctl_op.flags, ib_async_ucmd.flags) */
enum {
	/* takes the locks it needs itself, to copy user memory outside them */
	IB_ASYNC_CMD_OWN_LOCKS		= BIT(0),
	/* answered by devices without kernel verbs too */
	IB_ASYNC_CMD_NO_KVERBS		= BIT(1),
	/* runs after device removal, so that programs can clean up */
	IB_ASYNC_CMD_AFTER_REMOVAL	= BIT(2),
	/* a queue command: works on a channel's file too */
	IB_ASYNC_CMD_QUEUE		= BIT(3),
	/*
	 * a doorbell: the ioctl's argument is a value (ib_async_ucmd.arg),
	 * not a structure; nothing is copied in or out
	 */
	IB_ASYNC_CMD_NO_ARG		= BIT(4),
	/*
	 * the data path: ib_async_ucmd_lock() takes dp_rwsem for reading, not
	 * obj_mutex (a post, a poll, a doorbell, a wait on a CQ, the poller's
	 * passes)
	 */
	IB_ASYNC_CMD_DATA_PATH		= BIT(5),
	/*
	 * touches nothing of the data path's, or takes dp_rwsem itself where
	 * it does: ib_async_ucmd_lock() takes obj_mutex alone, so a post or
	 * a poll need not wait for the driver's answer (a query, a modify)
	 */
	IB_ASYNC_CMD_OBJS_ONLY		= BIT(6),
};

/**
 * struct ib_async_ucmd - one command in flight
 * @flags: how the command runs (IB_ASYNC_CMD_*)
 * @filp: the file it came through
 * @file: its ib_async file; NULL for a channel's file
 * @adev: the device
 * @evq: the queue of the file it came through (the node's or a channel's)
 * @ib_dev: the device, while ib_async_ucmd_lock() holds it
 * @cmd: the caller's argument, copied in before any lock is taken and
 *       extended to the kernel's structure; the handler answers in place
 * @user_size: the caller's size of it (argsz)
 * @size: the kernel's size of it
 * @arg: an IB_ASYNC_CMD_NO_ARG command's argument, as the caller passed
 *       it (@cmd is NULL then)
 * @respond: copy @cmd back to the caller once every lock is dropped
 * @unlocked: called once every device lock is dropped, before the answer
 *            is copied back, to finish with what @unlocked_arg holds (an
 *            object the command destroyed, whose queued records are
 *            purged then)
 * @unlocked_arg: what @unlocked works on
 * @answered: set by a command that can only finish once its answer
 *            reached the caller: called after the copy back with 0 or
 *            its error, finishes or undoes what @pending or
 *            @pending_handle holds and returns the command's result (an
 *            object made by the command is destroyed again if the
 *            command fails after all or the caller never learnt it)
 * @pending: what @answered finishes or undoes
 * @pending_handle: or the handle of the object it is about
 * @new_file: a file made by the command, installed at @new_fd once the
 *            caller has its number (else released)
 * @new_fd: its reserved descriptor
 */
struct ib_async_ucmd {
	unsigned int flags;
	struct file *filp;
	struct ib_async_file *file;
	struct ib_async_device *adev;
	struct ib_async_evq *evq;
	struct ib_device *ib_dev;
	void *cmd;
	u32 user_size;
	u32 size;
	unsigned long arg;
	bool respond;
	void (*unlocked)(struct ib_async_ucmd *u);
	void *unlocked_arg;
	int (*answered)(struct ib_async_ucmd *u, int ret);
	union {
		void *pending;
		u32 pending_handle;
	};
	struct file *new_file;
	int new_fd;
};

/* uapi.c: the ioctl dispatcher */
long ib_async_uapi_ioctl(struct file *filp, unsigned int cmd,
			 void __user *uarg);
long ib_async_uapi_channel_ioctl(struct file *filp, unsigned int cmd,
				 void __user *uarg);
int ib_async_ucmd_lock(struct ib_async_ucmd *u);
void ib_async_ucmd_unlock(struct ib_async_ucmd *u);

/* Answer the caller with the handler's struct, after the locks are dropped */
static inline void ib_async_ucmd_respond(struct ib_async_ucmd *u)
{
	u->respond = true;
}

/* Every argument structure fits the dispatcher's buffer (uapi.c). */
#define IB_ASYNC_UCMD_BUF_SIZE	256

/**
 * struct ib_async_ioctl_op - one command
 * @execute: the handler
 * @size: the kernel's size of its structure
 * @min_size: the size of its first version; argsz must cover it
 * @flags: IB_ASYNC_CMD_*
 */
struct ib_async_ioctl_op {
	int (*execute)(struct ib_async_ucmd *u);
	u32 size;
	u32 min_size;
	unsigned int flags;
};

/* One entry of a command table, indexed by number - IB_ASYNC_CMD_BASE */
#define IB_ASYNC_OP(_cmd, _fn, _struct, _min, _flags)			\
	[IB_ASYNC_CMD_##_cmd - IB_ASYNC_CMD_BASE] = {			\
		.execute = _fn,						\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) >		\
					  IB_ASYNC_UCMD_BUF_SIZE),	\
		.min_size = _min,					\
		.flags = _flags,					\
	}

/*
 * One entry for a command whose argument is a value, not a structure (a
 * doorbell): the dispatcher copies nothing and leaves the value in
 * ib_async_ucmd.arg.
 */
#define IB_ASYNC_OP_NO_ARG(_cmd, _fn, _flags)				\
	[IB_ASYNC_CMD_##_cmd - IB_ASYNC_CMD_BASE] = {			\
		.execute = _fn,						\
		.flags = (_flags) | IB_ASYNC_CMD_NO_ARG,		\
	}

void ib_async_uapi_init(const struct ib_async_ioctl_op *cmds, unsigned int n);

/* channel.c */
void ib_async_channel_register(u32 type, const struct ib_async_chan_ops *ops);
int ib_async_cmd_create_channel(struct ib_async_ucmd *u);
void ib_async_channels_close(struct ib_async_file *file, int err);
struct ib_async_channel *ib_async_channel_get(struct ib_async_file *file,
					      int fd, u32 type);
void ib_async_channel_put(struct ib_async_channel *chan);

/* evchan.c: event channels */
void ib_async_evchans_deliver(struct ib_async_file *file,
			      const struct ib_async_event *ev);
void ib_async_evchans_forget(struct ib_async_file *file, u32 obj_type,
			     u32 handle);
extern const struct ib_async_chan_ops ib_async_evchan_ops;

int ib_async_cmd_subscribe(struct ib_async_ucmd *u);
int ib_async_cmd_unsubscribe(struct ib_async_ucmd *u);

/* state.c: what a state record says */
void ib_async_port_state_query(struct ib_device *ib_dev, u32 port,
			       struct ib_async_port_state *st);

/* ring.c */
int ib_async_cmd_map_ring(struct ib_async_ucmd *u);
int ib_async_cmd_ring_wait(struct ib_async_ucmd *u);
int ib_async_evq_mmap(struct ib_async_evq *q, struct vm_area_struct *vma);
void ib_async_show_ring(struct seq_file *m, const struct ib_async_evq_stat *st);

/* account.c */
void ib_async_account_init(struct ib_async_file *file);
int ib_async_account_add(struct ib_async_file *file, u64 bytes);
struct user_struct *ib_async_account_user(void);
int ib_async_charge_user_pages(long pages, struct user_struct **user);
void ib_async_uncharge_user_pages(struct user_struct **user, long pages);
void ib_async_account_sub(struct ib_async_file *file, u64 bytes);
void ib_async_account_exit(struct ib_async_file *file);

/* qfile.c: what node and channel files share; private_data is the queue */
ssize_t ib_async_qfile_read(struct file *filp, char __user *buf,
			    size_t count, loff_t *pos);
__poll_t ib_async_qfile_poll(struct file *filp, poll_table *wait);
int ib_async_qfile_mmap(struct file *filp, struct vm_area_struct *vma);
int ib_async_qfile_fasync(int fd, struct file *filp, int on);
long ib_async_qfile_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg,
			  long (*run)(struct file *filp, unsigned int cmd,
				      void __user *uarg));
void ib_async_qfile_show_queue(struct seq_file *m,
			       const struct ib_async_evq_stat *st);
void ib_async_qfile_show_memory(struct seq_file *m,
				const struct ib_async_evq_stat *st);

/* file.c */
extern const struct file_operations ib_async_fops;
void ib_async_file_free(struct ib_async_file *file);
int ib_async_cmd_get_info(struct ib_async_ucmd *u);
int ib_async_cmd_set_queue_len(struct ib_async_ucmd *u);
int ib_async_cmd_read_batch(struct ib_async_ucmd *u);

/**
 * struct ib_async_verbs_ops - the core's one door into the verbs layer
 * @open: a node was opened: make the file's verbs part (@file->verbs);
 *	its queue and locks are ready
 * @free: free that part, the file's objects all gone
 * @destroy_all: destroy every object of @file, at close or (@removal) at
 *	device removal, with disassoc_rwsem held; at close the destroyed
 *	go on @ended, for @end_destroyed once the rwsem is dropped.
 *	Returns how many the driver refused to destroy
 * @end_destroyed: purge and free what @destroy_all put on @ended, which
 *	is empty again on return
 * @info: add the verbs layer's features to GET_INFO's answer
 * @fdinfo: the verbs layer's lines of a node's /proc/PID/fdinfo
 * @event_source: for a subscription (obj_mutex held): the type of the
 *	live object @handle names if it raises events; -ENOENT for none,
 *	-EINVAL for one that raises none, -ENODEV for one removal destroyed
 * @mmap: map what a node's offset other than 0 names (offset 0 is the
 *	event ring's); called with mmap_lock held, so it takes no obj_mutex
 * @cmds: its commands, indexed by number - IB_ASYNC_CMD_BASE
 * @n_cmds: how many entries @cmds has
 */
struct ib_async_verbs_ops {
	int (*open)(struct ib_async_file *file);
	void (*free)(struct ib_async_file *file);
	u32 (*destroy_all)(struct ib_async_file *file, bool removal,
			   struct list_head *ended);
	void (*end_destroyed)(struct list_head *ended);
	void (*info)(struct ib_device *ib_dev, struct ib_async_info *info);
	void (*fdinfo)(struct seq_file *m, struct ib_async_file *file);
	int (*event_source)(struct ib_async_file *file, u32 handle, u32 *type);
	int (*mmap)(struct ib_async_file *file, struct vm_area_struct *vma);
	const struct ib_async_ioctl_op *cmds;
	unsigned int n_cmds;
};

/* params.c: the verbs layer, set by ib_async_core_init() */
extern const struct ib_async_verbs_ops *ib_async_verbs;

/* cmds.c: the core's command table */
extern const struct ib_async_ioctl_op ib_async_core_cmds[];
extern const unsigned int ib_async_n_core_cmds;

/* main.c */
int ib_async_core_init(const struct ib_async_verbs_ops *verbs);
void ib_async_core_exit(void);

#endif /* IB_ASYNC_CORE_H */

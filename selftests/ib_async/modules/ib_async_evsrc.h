/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_async_evsrc: test-only software RDMA device that raises any async event.
 *
 * Never needed in production. It registers IB devices ("evsrc%d") whose
 * verbs create real CQ/QP/SRQ/WQ objects (that do no I/O) so a kernel verbs
 * consumer such as ib_async can attach event handlers to them, and debugfs
 * files that deliver any enum ib_event_type on demand, from process,
 * softirq or hard-irq context.
 */
#ifndef IB_ASYNC_EVSRC_H
#define IB_ASYNC_EVSRC_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "evsrc_compat.h"

#define EVSRC_NPORTS		2
/* QP and WQ numbers are the registry id plus this: 0 and 1 are special. */
#define EVSRC_QPN_BASE		16
#define EVSRC_MAX_ID		0xfffe00
#define EVSRC_MAX_WR		4096
#define EVSRC_MAX_SGE		16
#define EVSRC_MAX_CQE		65536
#define EVSRC_MAX_OBJ		4096

enum evsrc_kind {
	EVSRC_PORT,
	EVSRC_CQ,
	EVSRC_QP,
	EVSRC_SRQ,
	EVSRC_WQ,
	EVSRC_NONE,
};

struct evsrc_dev {
	struct ib_device ibdev;
	/* on evsrc_devs until someone claims it for unregistration */
	struct list_head list;
	/* live CQs, QPs, SRQs and WQs by id; ids only grow */
	struct xarray objs;
	u32 next_id;
	/*
	 * Raises hold it for read; unregistration takes it for write and sets
	 * dead, so no event is dispatched once ib_core starts tearing down.
	 */
	struct rw_semaphore raise_rwsem;
	bool dead;
	/* set once by the fatal file: object creation fails with -EIO */
	bool fatal;
	/* the fail_destroy file: QP destroys still to refuse with -EIO */
	atomic_t fail_destroy;
	/* the fail_destroy_cq file: the same for CQs (evsrc_reclaim()) */
	atomic_t fail_destroy_cq;
	/*
	 * the hold_posts file: non-zero, posts succeed and the device keeps
	 * the requests, never completing them
	 */
	atomic_t hold_posts;
	/* the pkey_beyond_table file: queries of a P_Key outside the table */
	atomic_t pkey_beyond;
	/*
	 * the cqe_grant file: CQs are made with at least this many entries,
	 * as a driver that grants more than asked
	 */
	atomic_t cqe_grant;
	enum ib_port_state port_state[EVSRC_NPORTS + 1];
	struct dentry *dir;
};

/*
 * Registry entry embedded in every CQ/QP/SRQ/WQ. users starts at 1 (the
 * registry's reference). A raise takes a reference under the xarray lock
 * and holds it until its last event was delivered; destroy erases the
 * entry, sets dead (bursts stop at their next event), drops the registry
 * reference and waits for the others: no event is delivered on an object
 * once its destroy verb has returned.
 */
struct evsrc_obj {
	struct evsrc_dev *edev;
	enum evsrc_kind kind;
	u32 id;
	bool dead;
	refcount_t users;
	struct completion released;
};

struct evsrc_pd {
	struct ib_pd ibpd;
};

struct evsrc_ah {
	struct ib_ah ibah;
};

struct evsrc_cq {
	struct ib_cq ibcq;
	struct evsrc_obj obj;
};

struct evsrc_qp {
	struct ib_qp ibqp;
	struct evsrc_obj obj;
	struct mutex lock;		/* attr */
	struct ib_qp_attr attr;
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
};

struct evsrc_srq {
	struct ib_srq ibsrq;
	struct evsrc_obj obj;
	spinlock_t lock;		/* attr; the limit is disarmed from irq */
	struct ib_srq_attr attr;
};

struct evsrc_wq {
	struct ib_wq ibwq;
	struct evsrc_obj obj;
};

static inline struct evsrc_dev *to_edev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct evsrc_dev, ibdev);
}

/* ib_async_evsrc_verbs.c */
extern const struct ib_device_ops evsrc_verbs_ops;
const char *evsrc_kind_name(enum evsrc_kind kind);
struct evsrc_obj *evsrc_obj_get(struct evsrc_dev *edev, enum evsrc_kind kind,
				u32 id);
void evsrc_obj_put(struct evsrc_obj *obj);
void evsrc_obj_deliver(struct evsrc_obj *obj, enum ib_event_type type);
void evsrc_obj_complete(struct evsrc_obj *obj);
int evsrc_objects_show(struct seq_file *m, void *unused);
void evsrc_reclaim(struct evsrc_dev *edev);

/* ib_async_evsrc_event.c */
void evsrc_debugfs_add_dev(struct evsrc_dev *edev, struct dentry *parent);

/* ib_async_evsrc_delay.c */
void evsrc_delay_init(struct dentry *root);
void evsrc_delay_exit(void);

/* ib_async_evsrc_rxefault.c */
void evsrc_fault_init(struct dentry *root);
void evsrc_fault_exit(void);

/* ib_async_evsrc_main.c */
int evsrc_claim(struct evsrc_dev *edev);
void evsrc_fence(struct evsrc_dev *edev);

#endif /* IB_ASYNC_EVSRC_H */

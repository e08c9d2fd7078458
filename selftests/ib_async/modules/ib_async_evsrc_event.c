// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_evsrc: raising events, and the per-device debugfs files.
 *
 * A raise is synchronous: the write returns once every event was delivered
 * (unaffiliated ones: once ib_core's workqueue ran the handlers). Events go
 * out in chunks of EVSRC_CHUNK; softirq and hard-irq chunks are delivered
 * a batch at a time by a tasklet or a hard hrtimer that re-arms itself,
 * so interrupts are never disabled for long. Between chunks the writer
 * flushes ib_wq, which bounds the work items ib_dispatch_event() allocates,
 * and honours fatal signals.
 *
 * The type "COMP" is no async event: it calls the CQ's completion handler,
 * as a driver does when a completion arrives on an armed CQ. It is not
 * one-shot here, so a test can storm a consumer with completions.
 */
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "ib_async_event_names.h"
#include "ib_async_evsrc.h"

#define EVSRC_CMD_MAX		128
#define EVSRC_MAX_COUNT		1000000UL
#define EVSRC_CHUNK		4096UL
#define EVSRC_BATCH		64UL
/* a debug kernel under TCG takes ~1 ms per event with interrupts off */
#define EVSRC_HARD_BATCH	16UL
#define EVSRC_PERIOD_NS		(20 * NSEC_PER_USEC)

enum evsrc_ctx {
	EVSRC_PROCESS,
	EVSRC_SOFTIRQ,
	EVSRC_HARDIRQ,
};

/*
 * What each type is affiliated with: libibverbs' element mapping.
 * GID_CHANGE maps to nothing: 6.1's ib_cache_event_task() refreshes the
 * cache and never passes a dispatched GID_CHANGE on (clients only see the
 * ones the GID table itself generates), so a raise would silently vanish.
 */
static const enum evsrc_kind evsrc_kinds[] = {
	[IB_EVENT_CQ_ERR] = EVSRC_CQ,
	[IB_EVENT_QP_FATAL] = EVSRC_QP,
	[IB_EVENT_QP_REQ_ERR] = EVSRC_QP,
	[IB_EVENT_QP_ACCESS_ERR] = EVSRC_QP,
	[IB_EVENT_COMM_EST] = EVSRC_QP,
	[IB_EVENT_SQ_DRAINED] = EVSRC_QP,
	[IB_EVENT_PATH_MIG] = EVSRC_QP,
	[IB_EVENT_PATH_MIG_ERR] = EVSRC_QP,
	[IB_EVENT_DEVICE_FATAL] = EVSRC_PORT,
	[IB_EVENT_PORT_ACTIVE] = EVSRC_PORT,
	[IB_EVENT_PORT_ERR] = EVSRC_PORT,
	[IB_EVENT_LID_CHANGE] = EVSRC_PORT,
	[IB_EVENT_PKEY_CHANGE] = EVSRC_PORT,
	[IB_EVENT_SM_CHANGE] = EVSRC_PORT,
	[IB_EVENT_SRQ_ERR] = EVSRC_SRQ,
	[IB_EVENT_SRQ_LIMIT_REACHED] = EVSRC_SRQ,
	[IB_EVENT_QP_LAST_WQE_REACHED] = EVSRC_QP,
	[IB_EVENT_CLIENT_REREGISTER] = EVSRC_PORT,
	[IB_EVENT_GID_CHANGE] = EVSRC_NONE,
	[IB_EVENT_WQ_FATAL] = EVSRC_WQ,
	[IB_EVENT_DEVICE_SPEED_CHANGE] = EVSRC_SPEED_CHANGE_KIND,
};

struct evsrc_burst {
	struct evsrc_dev *edev;
	struct evsrc_obj *obj;		/* referenced; NULL: unaffiliated */
	enum ib_event_type type;
	bool comp;			/* completions, not type */
	u32 port;
	unsigned long todo;		/* left in the current chunk */
	struct completion done;		/* the chunk was delivered */
	struct tasklet_struct tasklet;
	struct hrtimer timer;
};

/*
 * A name, a number, or "COMP" (*comp set: completions on a CQ, and *type
 * is left as CQ_ERR, the type whose target is a CQ).
 */
static int evsrc_parse_type(const char *s, enum ib_event_type *type,
			    bool *comp)
{
	unsigned int i;
	int t;

	*comp = !strcasecmp(s, "COMP");
	if (*comp) {
		*type = IB_EVENT_CQ_ERR;
		return 0;
	}
	if (kstrtouint(s, 0, &i)) {
		t = ib_async_event_by_name(s);
		if (t < 0)
			return -EINVAL;
		i = t;
	}
	if (i >= ARRAY_SIZE(evsrc_kinds) || evsrc_kinds[i] == EVSRC_NONE)
		return -EINVAL;
	*type = i;
	return 0;
}

/* "port:N", "cq:N", "qp:N", "srq:N" or "wq:N" */
static int evsrc_parse_target(const char *s, enum evsrc_kind *kind, u32 *id)
{
	const char *colon = strchr(s, ':');
	enum evsrc_kind k;

	if (!colon)
		return -EINVAL;
	for (k = EVSRC_PORT; k < EVSRC_NONE; k++) {
		const char *name = evsrc_kind_name(k);

		if (strlen(name) == colon - s && !strncmp(s, name, colon - s))
			break;
	}
	if (k == EVSRC_NONE || kstrtou32(colon + 1, 10, id))
		return -EINVAL;
	*kind = k;
	return 0;
}

static int evsrc_parse_ctx(const char *s, enum evsrc_ctx *ctx)
{
	static const char *const names[] = {
		[EVSRC_PROCESS] = "process",
		[EVSRC_SOFTIRQ] = "softirq",
		[EVSRC_HARDIRQ] = "hardirq",
	};
	int i = match_string(names, ARRAY_SIZE(names), s);

	if (i < 0)
		return i;
	*ctx = i;
	return 0;
}

static void evsrc_fire(struct evsrc_burst *b)
{
	struct ib_event ev = {
		.device = &b->edev->ibdev,
		.event = b->type,
		.element.port_num = b->port,
	};

	if (b->comp) {
		evsrc_obj_complete(b->obj);
		return;
	}
	if (b->obj) {
		evsrc_obj_deliver(b->obj, b->type);
		return;
	}
	/* keep query_port() truthful for ib_core's cache refresh */
	if (b->type == IB_EVENT_PORT_ERR)
		WRITE_ONCE(b->edev->port_state[b->port], IB_PORT_DOWN);
	else if (b->type == IB_EVENT_PORT_ACTIVE)
		WRITE_ONCE(b->edev->port_state[b->port], IB_PORT_ACTIVE);
	/* allocates with GFP_ATOMIC and queues work: fine in any context */
	ib_dispatch_event(&ev);
}

/*
 * Deliver up to @batch events of the chunk; true once the chunk is
 * done. The object's destroy sets dead: stop at once so it need not wait
 * for the rest of the burst. @b must not be touched after complete().
 */
static bool evsrc_burst_step(struct evsrc_burst *b, unsigned long batch)
{
	unsigned long n = min(b->todo, batch);

	while (n--) {
		if (b->obj && READ_ONCE(b->obj->dead)) {
			b->todo = 0;
			break;
		}
		evsrc_fire(b);
		b->todo--;
	}
	if (b->todo)
		return false;
	complete(&b->done);
	return true;
}

static void evsrc_tasklet(struct tasklet_struct *t)
{
	struct evsrc_burst *b = from_tasklet(b, t, tasklet);

	if (!evsrc_burst_step(b, EVSRC_BATCH))
		tasklet_schedule(&b->tasklet);
}

/* HRTIMER_MODE_REL_HARD: hard-irq context even on PREEMPT_RT. */
static enum hrtimer_restart evsrc_hrtimer(struct hrtimer *t)
{
	struct evsrc_burst *b = container_of(t, struct evsrc_burst, timer);

	if (evsrc_burst_step(b, EVSRC_HARD_BATCH))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(EVSRC_PERIOD_NS));
	return HRTIMER_RESTART;
}

static int evsrc_run(struct evsrc_burst *b, enum evsrc_ctx ctx,
		     unsigned long count)
{
	while (count) {
		unsigned long n = min(count, EVSRC_CHUNK);

		b->todo = n;
		reinit_completion(&b->done);
		switch (ctx) {
		case EVSRC_PROCESS:
			while (!evsrc_burst_step(b, EVSRC_BATCH))
				cond_resched();
			break;
		case EVSRC_SOFTIRQ:
			tasklet_schedule(&b->tasklet);
			wait_for_completion(&b->done);
			/* the tasklet core touches it after the callback */
			tasklet_kill(&b->tasklet);
			break;
		case EVSRC_HARDIRQ:
			hrtimer_start(&b->timer, ns_to_ktime(EVSRC_PERIOD_NS),
				      HRTIMER_MODE_REL_HARD);
			wait_for_completion(&b->done);
			hrtimer_cancel(&b->timer);
			break;
		}
		count -= n;
		if (!b->obj)
			flush_workqueue(ib_wq);
		else if (READ_ONCE(b->obj->dead))
			return -ENOENT;
		if (count && fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

static int evsrc_raise(struct evsrc_dev *edev, enum ib_event_type type,
		       bool comp, enum evsrc_kind kind, u32 id,
		       enum evsrc_ctx ctx, unsigned long count)
{
	struct evsrc_burst *b;
	int ret;

	if (kind != evsrc_kinds[type])
		return -EINVAL;
	/* port 0 means the whole device: only for DEVICE_FATAL */
	if (kind == EVSRC_PORT && (id > EVSRC_NPORTS ||
				   (!id && type != IB_EVENT_DEVICE_FATAL)))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->edev = edev;
	b->type = type;
	b->comp = comp;
	init_completion(&b->done);
	tasklet_setup(&b->tasklet, evsrc_tasklet);
	hrtimer_setup(&b->timer, evsrc_hrtimer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	if (kind == EVSRC_PORT) {
		b->port = id;
	} else {
		b->obj = evsrc_obj_get(edev, kind, id);
		if (!b->obj) {
			ret = -ENOENT;
			goto out;
		}
	}
	ret = evsrc_run(b, ctx, count);
	if (b->obj)
		evsrc_obj_put(b->obj);
out:
	kfree(b);
	return ret;
}

/* "<type|COMP> <target> [process|softirq|hardirq] [count]" */
static ssize_t evsrc_raise_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char type_s[32], target_s[32], a_s[24], b_s[24], extra;
	struct evsrc_dev *edev = file->private_data;
	enum evsrc_ctx ctx = EVSRC_PROCESS;
	enum ib_event_type type;
	unsigned long count = 1;
	enum evsrc_kind kind;
	bool comp;
	char *buf;
	int n, ret;
	u32 id;

	if (!len || len >= EVSRC_CMD_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%31s %31s %23s %23s %c", type_s, target_s, a_s, b_s,
		   &extra);
	kfree(buf);
	if (n < 2 || n > 4)
		return -EINVAL;
	/* an optional context, then an optional count */
	if (n >= 3 && evsrc_parse_ctx(a_s, &ctx)) {
		if (n == 4 || kstrtoul(a_s, 0, &count))
			return -EINVAL;
	} else if (n == 4 && kstrtoul(b_s, 0, &count)) {
		return -EINVAL;
	}
	if (!count || count > EVSRC_MAX_COUNT)
		return -EINVAL;
	ret = evsrc_parse_type(type_s, &type, &comp);
	if (!ret)
		ret = evsrc_parse_target(target_s, &kind, &id);
	if (ret)
		return ret;
	/*
	 * PREEMPT_RT threads every driver's interrupt handler: no event
	 * handler runs in hard-irq context there, and ib_async's spinlock_t
	 * may sleep. Faking that context would test a case that cannot occur.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && ctx == EVSRC_HARDIRQ)
		return -EOPNOTSUPP;

	down_read(&edev->raise_rwsem);
	if (edev->dead)
		ret = -ENODEV;
	else
		ret = evsrc_raise(edev, type, comp, kind, id, ctx, count);
	up_read(&edev->raise_rwsem);
	return ret ? ret : len;
}

/*
 * Write 1: the device failed. Like mlx5's health handler, report
 * DEVICE_FATAL on port 1 through ib_dispatch_event(); from then on every
 * object creation fails with -EIO. Existing objects stay (consumers destroy
 * them), and the device stays registered until unregister.
 */
static ssize_t evsrc_fatal_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct evsrc_dev *edev = file->private_data;
	struct ib_event ev = {
		.device = &edev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = 1,
	};
	bool val;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &val);
	if (ret)
		return ret;
	if (!val)
		return -EINVAL;
	down_read(&edev->raise_rwsem);
	if (edev->dead) {
		ret = -ENODEV;
	} else {
		WRITE_ONCE(edev->fatal, true);
		ib_dispatch_event(&ev);
		flush_workqueue(ib_wq);
	}
	up_read(&edev->raise_rwsem);
	return ret ? ret : len;
}

/*
 * Write 1: hot-unplug. The removal is queued (ib_unregister_device_queued,
 * as rxe's dellink does): unregistering here would wait for dealloc_driver,
 * which removes this very debugfs file and so waits for this write.
 */
static ssize_t evsrc_unregister_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct evsrc_dev *edev = file->private_data;
	bool val;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &val);
	if (ret)
		return ret;
	if (!val)
		return -EINVAL;
	ret = evsrc_claim(edev);
	if (ret)
		return ret;
	evsrc_fence(edev);
	ib_unregister_device_queued(&edev->ibdev);
	return len;
}

static int evsrc_objects_open(struct inode *inode, struct file *file)
{
	return single_open(file, evsrc_objects_show, inode->i_private);
}

static const struct file_operations evsrc_objects_fops = {
	.owner = THIS_MODULE,
	.open = evsrc_objects_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations evsrc_raise_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_raise_write,
};

static const struct file_operations evsrc_fatal_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_fatal_write,
};

static const struct file_operations evsrc_unregister_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_unregister_write,
};

void evsrc_debugfs_add_dev(struct evsrc_dev *edev, struct dentry *parent)
{
	edev->dir = debugfs_create_dir(dev_name(&edev->ibdev.dev), parent);
	debugfs_create_file("objects", 0444, edev->dir, edev,
			    &evsrc_objects_fops);
	debugfs_create_file("raise", 0200, edev->dir, edev, &evsrc_raise_fops);
	debugfs_create_file("fatal", 0200, edev->dir, edev, &evsrc_fatal_fops);
	debugfs_create_atomic_t("fail_destroy", 0600, edev->dir,
				&edev->fail_destroy);
	debugfs_create_atomic_t("fail_destroy_cq", 0600, edev->dir,
				&edev->fail_destroy_cq);
	debugfs_create_atomic_t("hold_posts", 0600, edev->dir,
				&edev->hold_posts);
	debugfs_create_atomic_t("pkey_beyond_table", 0400, edev->dir,
				&edev->pkey_beyond);
	debugfs_create_atomic_t("cqe_grant", 0600, edev->dir,
				&edev->cqe_grant);
	debugfs_create_file("unregister", 0200, edev->dir, edev,
			    &evsrc_unregister_fops);
}

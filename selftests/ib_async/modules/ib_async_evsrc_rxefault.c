// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_evsrc: failures of rxe on demand, for tests of how ib_async's
 * REG_MR copes with a device that fails it.
 *
 * fail_rxe_reg_mr: writing N makes the next N fast registrations rxe
 * executes return -EINVAL, whoever posted them (rxe runs them in its own
 * task, not the poster's). The work request completes in error and its QP
 * moves to ERR, as a device refusing a registration does.
 *
 * fail_rxe_poll_cq: writing N makes the next N polls of an rxe CQ by the
 * writer's process return -EINVAL, as a device that cannot be read any
 * more does. What the poll took from the CQ is lost with it.
 *
 * Kretprobes that change the return value once the function has run, so
 * that neither rxe nor ib_async carries a test hook. Without kretprobes
 * the files are not made, and the tests that want them skip.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "ib_async_evsrc.h"

#ifdef CONFIG_KRETPROBES

/* The most failures one write may ask for. */
#define EVSRC_FAULT_MAX		1000

struct evsrc_fault {
	struct kretprobe rp;
	atomic_t left;		/* calls still to fail */
	pid_t tgid;		/* only this process's calls; 0: anyone's */
	bool per_process;
	bool probed;
};

static DEFINE_MUTEX(evsrc_fault_lock);

static int evsrc_fault_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct evsrc_fault *f = container_of(get_kretprobe(ri),
					     struct evsrc_fault, rp);
	pid_t tgid = READ_ONCE(f->tgid);

	if (tgid && task_tgid_nr(current) != tgid)
		return 1;
	/* 0: the return handler runs for this call */
	return atomic_add_unless(&f->left, -1, 0) ? 0 : 1;
}

static int evsrc_fault_ret(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	regs_set_return_value(regs, (unsigned long)-EINVAL);
	return 0;
}

static struct evsrc_fault evsrc_fault_reg_mr = {
	.rp = {
		.kp.symbol_name = "rxe_reg_fast_mr",
		.entry_handler = evsrc_fault_entry,
		.handler = evsrc_fault_ret,
		.maxactive = 8,
	},
};

static struct evsrc_fault evsrc_fault_poll_cq = {
	.rp = {
		.kp.symbol_name = "rxe_poll_cq",
		.entry_handler = evsrc_fault_entry,
		.handler = evsrc_fault_ret,
		.maxactive = 8,
	},
	.per_process = true,
};

/* Probe rxe as loaded now: a probe of an unloaded module is gone. */
static int evsrc_fault_probe(struct evsrc_fault *f)
{
	int ret = 0;

	lockdep_assert_held(&evsrc_fault_lock);
	if (f->probed && kprobe_gone(&f->rp.kp)) {
		unregister_kretprobe(&f->rp);
		f->probed = false;
	}
	if (!f->probed) {
		/* register_kretprobe() fills addr in from symbol_name */
		f->rp.kp.addr = NULL;
		f->rp.kp.flags = 0;
		ret = register_kretprobe(&f->rp);
		f->probed = !ret;
	}
	return ret;
}

static ssize_t evsrc_fault_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *pos)
{
	struct evsrc_fault *f = file->private_data;
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(buf, len, 0, &n);
	if (ret)
		return ret;
	if (n > EVSRC_FAULT_MAX)
		return -EINVAL;
	mutex_lock(&evsrc_fault_lock);
	ret = evsrc_fault_probe(f);
	if (!ret) {
		/* the count last, so no call fails for an older writer */
		atomic_set(&f->left, 0);
		WRITE_ONCE(f->tgid, f->per_process ?
			   task_tgid_nr(current) : 0);
		atomic_set(&f->left, n);
	}
	mutex_unlock(&evsrc_fault_lock);
	return ret ? ret : len;
}

static const struct file_operations evsrc_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_fault_write,
};

void evsrc_fault_init(struct dentry *root)
{
	debugfs_create_file("fail_rxe_reg_mr", 0200, root,
			    &evsrc_fault_reg_mr, &evsrc_fault_fops);
	debugfs_create_file("fail_rxe_poll_cq", 0200, root,
			    &evsrc_fault_poll_cq, &evsrc_fault_fops);
}

void evsrc_fault_exit(void)
{
	if (evsrc_fault_reg_mr.probed)
		unregister_kretprobe(&evsrc_fault_reg_mr.rp);
	if (evsrc_fault_poll_cq.probed)
		unregister_kretprobe(&evsrc_fault_poll_cq.rp);
}

#else

void evsrc_fault_init(struct dentry *root)
{
}

void evsrc_fault_exit(void)
{
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_evsrc: pauses inside the kernel, for tests of what a command
 * running meanwhile may see. Writing N to one of the files below makes
 * the next call of its function spin N ms on entry, once:
 *
 *   delay_chan_push_ms   ib_async_evq_push_chan_locked(): inside the event
 *                        handler's RCU read-side section, with the channel
 *                        queue's lock held, after the channel's
 *                        subscriptions were matched, before the record is
 *                        queued;
 *   delay_modify_qp_ms   ib_modify_qp(): a driver that takes its time over
 *                        a QP's transition (a firmware command), with
 *                        whatever locks its caller holds;
 *   delay_create_cq_ms   __ib_create_cq(): the same over a CQ's creation;
 *   delay_poll_cq_ms     rxe_poll_cq(): a poll of a CQ held in the driver
 *                        (ib_poll_cq() is inline: the test bed's driver);
 *   delay_post_recv_ms   rxe_post_recv(): the same for a post of receives.
 *
 * Kprobes, so that ib_async itself carries no test hook. Without kprobes
 * the files are not made, and the tests that want them skip.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>

#include "ib_async_evsrc.h"

#ifdef CONFIG_KPROBES

/* The longest pause asked: well inside RCU's stall timeout. */
#define EVSRC_DELAY_MAX_MS	5000

/**
 * struct evsrc_delay - one function a test may pause
 * @file: its debugfs file
 * @kp: the probe on it
 * @ms: the next call's pause, taken by that call
 * @probed: @kp is registered
 */
struct evsrc_delay {
	const char *file;
	struct kprobe kp;
	atomic_t ms;
	bool probed;
};

static int evsrc_delay_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct evsrc_delay *d = container_of(p, struct evsrc_delay, kp);
	int ms = atomic_xchg(&d->ms, 0);

	if (ms)
		mdelay(ms);
	return 0;
}

static struct evsrc_delay evsrc_delays[] = {
	{
		.file = "delay_chan_push_ms",
		.kp = {
			.symbol_name = "ib_async_evq_push_chan_locked",
			.pre_handler = evsrc_delay_pre,
		},
	},
	{
		.file = "delay_modify_qp_ms",
		.kp = {
			.symbol_name = "ib_modify_qp",
			.pre_handler = evsrc_delay_pre,
		},
	},
	{
		.file = "delay_create_cq_ms",
		.kp = {
			.symbol_name = "__ib_create_cq",
			.pre_handler = evsrc_delay_pre,
		},
	},
	{
		.file = "delay_poll_cq_ms",
		.kp = {
			.symbol_name = "rxe_poll_cq",
			.pre_handler = evsrc_delay_pre,
		},
	},
	{
		.file = "delay_post_recv_ms",
		.kp = {
			.symbol_name = "rxe_post_recv",
			.pre_handler = evsrc_delay_pre,
		},
	},
};

static DEFINE_MUTEX(evsrc_probe_lock);

/* Probe the function as loaded now: a probe of an unloaded module is gone. */
static int evsrc_probe(struct evsrc_delay *d)
{
	int ret = 0;

	mutex_lock(&evsrc_probe_lock);
	if (d->probed && kprobe_gone(&d->kp)) {
		unregister_kprobe(&d->kp);
		d->probed = false;
	}
	if (!d->probed) {
		/* register_kprobe() fills addr in from symbol_name */
		d->kp.addr = NULL;
		d->kp.flags = 0;
		ret = register_kprobe(&d->kp);
		d->probed = !ret;
	}
	mutex_unlock(&evsrc_probe_lock);
	return ret;
}

static ssize_t evsrc_delay_write(struct file *f, const char __user *buf,
				 size_t len, loff_t *pos)
{
	struct evsrc_delay *d = f->private_data;
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, len, 0, &ms);
	if (ret)
		return ret;
	if (ms > EVSRC_DELAY_MAX_MS)
		return -EINVAL;
	ret = evsrc_probe(d);
	if (ret)
		return ret;
	atomic_set(&d->ms, ms);
	return len;
}

static const struct file_operations evsrc_delay_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_delay_write,
};

void evsrc_delay_init(struct dentry *root)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(evsrc_delays); i++)
		debugfs_create_file(evsrc_delays[i].file, 0200, root,
				    &evsrc_delays[i], &evsrc_delay_fops);
}

void evsrc_delay_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(evsrc_delays); i++)
		if (evsrc_delays[i].probed)
			unregister_kprobe(&evsrc_delays[i].kp);
}

#else

void evsrc_delay_init(struct dentry *root)
{
}

void evsrc_delay_exit(void)
{
}

#endif
